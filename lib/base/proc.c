// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * proc.c - this process's view of the job (struct mpirma_proc), which
 * runtime/init.c fills in at MPI_Init, and the ioctl on its member fd that
 * every layer above issues.
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "internal.h"

struct mpirma_proc mpirma_proc = {
	.state = MPIRMA_STATE_PRE_INIT,
	.fd = -1,
};

int mpirma_ioctl(unsigned long cmd, void *arg)
{
	int ret;

	do
		ret = ioctl(mpirma_proc.fd, cmd, arg);
	while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}
