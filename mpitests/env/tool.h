/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool.h - the env test's cases of the tool information interface
 * (mpitests/env/tool.c), run before MPI_Init, while MPI runs, and after
 * MPI_Finalize.
 */
#ifndef MPIRMA_ENV_TOOL_H
#define MPIRMA_ENV_TOOL_H

/* Before MPI_Init: nested MPI_T_init_thread, one left open for the rest. */
void tool_before_init(void);
/* While MPI runs: every variable, category and source, and the errors. */
void tool_running(void);
/* After MPI_Finalize: closes the interface; the failures seen here. */
long tool_after_finalize(void);

#endif /* MPIRMA_ENV_TOOL_H */
