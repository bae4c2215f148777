/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tool.h - what the tool information interface (lib/base/tool.c, MPI_T)
 * asks of the rest of the library: the per-process counters its
 * performance variables read, and the registration of the run-time
 * settings its control variables are.
 *
 * The settings belong to the files that read them (lib/runtime/,
 * lib/rma/), above this layer, so each registers its own when the library
 * is loaded (a constructor), as the object kinds do (mpirma_kind_register).
 */
#ifndef MPIRMA_LIB_TOOL_H
#define MPIRMA_LIB_TOOL_H

#include <stdint.h>

#include "internal.h"

/* ------------------------------------------------------------ counters */

/*
 * This process's counters since it started.  Plain increments: the
 * message counters move under the library lock when there are threads
 * (every message call holds it); the RMA ones go through
 * mpirma_count(), the RMA calls holding no lock.
 */
struct mpirma_counters {
	uint64_t msgs_sent;	/* messages of the transport (p2p.h) */
	uint64_t bytes_sent;
	uint64_t msgs_received;
	uint64_t bytes_received;
	uint64_t spills;	/* units that went through the kernel mailbox */
	uint64_t sleeps;	/* waits that slept in the kernel */
	uint64_t rma_ops;	/* RMA operations issued */
	uint64_t rma_direct;	/* ... of which done in user space */
};

extern struct mpirma_counters mpirma_counters;

/* *@c += @n, atomically only where threads may race for it. */
static inline void mpirma_count(uint64_t *c, uint64_t n)
{
	if (mpirma_unlikely(mpirma_threads))
		__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
	else
		*c += n;
}

/* ------------------------------------------------------------ settings */

/* The categories a control variable may be in (tool.c names them). */
enum mpirma_tool_cat {
	MPIRMA_TCAT_ALL,	/* "mpirma": the others */
	MPIRMA_TCAT_WAIT,
	MPIRMA_TCAT_MSG,
	MPIRMA_TCAT_RMA,
	MPIRMA_TCAT_TYPES,
	MPIRMA_TCAT_OBJECTS,
	MPIRMA_NR_TCATS
};

/* An enumeration: the names of a control variable's values 0 .. n-1. */
struct mpirma_tool_enum {
	const char *name;
	int n;
	const char *const *items;
};

/**
 * struct mpirma_cvar - a run-time setting as an MPI_T control variable;
 * every one is an MPI_INT bound to no object
 * @name: the environment variable that sets it (MPIRMA_SPIN_US)
 * @desc: what it does, its unit and values
 * @cat: its category
 * @scope: MPI_T_SCOPE_READONLY (set by the environment only) or
 *	MPI_T_SCOPE_LOCAL (@write changes it for this process)
 * @enumtype: the names of its values, or NULL
 * @read: its value in force (before MPI_Init: the one MPI_Init will take)
 * @write: NULL, or sets it: MPI_SUCCESS, or MPI_T_ERR_CVAR_SET_NOT_NOW
 *	(not now, e.g. before MPI_Init), MPI_T_ERR_INVALID (a bad value)
 */
struct mpirma_cvar {
	const char *name;
	const char *desc;
	enum mpirma_tool_cat cat;
	int scope;
	const struct mpirma_tool_enum *enumtype;
	int (*read)(void);
	int (*write)(int value);
};

/* Adds @v (static) to the control variables; at load time. */
void mpirma_cvar_register(const struct mpirma_cvar *v);

/* The registration of the control variables @vars, at load time. */
#define MPIRMA_CVARS(tag, ...)						\
static const struct mpirma_cvar tag##_cvars[] = { __VA_ARGS__ };	\
static void __attribute__((constructor)) tag##_cvars_register(void)	\
{									\
	size_t i;							\
									\
	for (i = 0; i < MPIRMA_ARRAY_SIZE(tag##_cvars); i++)		\
		mpirma_cvar_register(&tag##_cvars[i]);			\
}

/* A switch of the environment, on unless @name is set to "0" (tool.c). */
bool mpirma_env_on(const char *name);

/*
 * MPI_SUCCESS when @name is unset, empty, 0 or 1; else MPI_ERR_OTHER,
 * recorded as "NAME=VALUE: @meaning" (@meaning says what each takes).
 */
int mpirma_env_switch_check(const char *name, const char *meaning);

#endif /* MPIRMA_LIB_TOOL_H */
