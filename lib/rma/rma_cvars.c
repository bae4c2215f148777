// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma_cvars.c - the settings of one-sided communication as MPI_T control
 * variables (lib/base/tool.h): the atomicity strategy of new windows, the
 * direct path, the operation queue's length, user-space locks.  All are
 * fixed for the run (every rank must agree, or the value was read once),
 * so MPI_T_SCOPE_READONLY.
 */
#include "tool.h"
#include "win.h"

static const struct mpirma_tool_enum strategy_enum = {
	.name = "mpirma_atomicity",
	.n = MPIRMA_NR_STRATEGY_NAMES,
	.items = mpirma_strategy_names,
};

static int atomicity_read(void)
{
	return (int)mpirma_win_env_strategy();
}

static int direct_read(void)
{
	return mpirma_win_direct_enabled();
}

static int batch_read(void)
{
	return (int)mpirma_rma_queue_len();
}

static int ulock_read(void)
{
	return mpirma_env_on("MPIRMA_ULOCK");
}

MPIRMA_CVARS(rma,
	{
		.name = "MPIRMA_ATOMICITY",
		.desc = "the atomicity strategy of the windows this process "
			"creates without an mpirma_atomicity info key: "
			"default (the module's choice), lock, striped, "
			"native, delegate, bulk",
		.cat = MPIRMA_TCAT_RMA,
		.scope = MPI_T_SCOPE_READONLY,
		.enumtype = &strategy_enum,
		.read = atomicity_read,
	},
	{
		.name = "MPIRMA_DIRECT",
		.desc = "1: RMA on mapped window memory in user space, the "
			"direct path (the default); 0: every operation "
			"through the kernel",
		.cat = MPIRMA_TCAT_RMA,
		.scope = MPI_T_SCOPE_READONLY,
		.read = direct_read,
	},
	{
		.name = "MPIRMA_BATCH",
		.desc = "operations a window queues before it hands them to "
			"the kernel in one call (0: none queued; at most and "
			"by default 1024)",
		.cat = MPIRMA_TCAT_RMA,
		.scope = MPI_T_SCOPE_READONLY,
		.read = batch_read,
	},
	{
		.name = "MPIRMA_ULOCK",
		.desc = "1: passive-target locks in user space where the "
			"module offers them (the default); 0: the kernel's",
		.cat = MPIRMA_TCAT_RMA,
		.scope = MPI_T_SCOPE_READONLY,
		.read = ulock_read,
	},
)
