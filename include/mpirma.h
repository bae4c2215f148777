/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mpirma.h - mpirma's own extensions to the MPI API.
 *
 * A program that uses them includes <mpirma.h> after <mpi.h> and can test
 * for the macro MPIRMA to stay portable.  Nothing here changes what
 * standard MPI calls do.
 *
 * Window info keys (MPI_Win_create, MPI_Win_allocate,
 * MPI_Win_allocate_shared, MPI_Win_create_dynamic; reported back by
 * MPI_Win_get_info):
 *
 *   "mpirma_numa_node" = "<n>" | "any" | "interleave"
 *	Allocated windows only (MPI_Win_allocate, MPI_Win_allocate_shared):
 *	the NUMA node the calling process's part of the window must be on,
 *	or "interleave" to spread its pages round-robin over all nodes with
 *	memory.  Each process may choose for itself.  Without it (or with
 *	"any") the memory is put on the node the process runs on when it
 *	creates the window.  A value that is not a node this process may allocate on is
 *	ignored (window creation is collective; one process failing alone
 *	would leave the others waiting).  When the node has no free memory
 *	left, the creation fails with MPI_ERR_NO_MEM on every process.  In a
 *	contiguous shared window a page that holds the end of one process's
 *	memory and the start of the next one's goes to the node of the first.
 *	MPI_Win_get_info reports the node the first page of the process's
 *	memory is actually on (any flavor but dynamic; -1 when it has none).
 *
 *   "mpirma_atomicity" = "default" | "lock" | "striped" | "native" |
 *			  "delegate" | "<number>"
 *	How the kernel makes accumulate, get_accumulate, fetch_and_op and
 *	compare_and_swap atomic per element.  "lock": one lock per window
 *	around each piece of an update.  "striped": a lock per cache line of
 *	the target.  "native": CPU atomic instructions for elements of up to
 *	8 bytes, the window lock for the rest.  "delegate": kernel workers on
 *	the NUMA node of the memory apply every update (docs/kmod.md).
 *	"default": the environment variable MPIRMA_ATOMICITY (same names) if
 *	set; else "native" for MPI_Win_allocate and MPI_Win_allocate_shared
 *	(their small atomic operations then run in user space, without a
 *	system call: docs/lib.md); else the module parameter atomicity=
 *	(lock unless the administrator changed it).  Without the key, the
 *	same rule applies.  A number
 *	names the kernel's strategy id (enum mpirma_atomicity in
 *	<mpirma_uapi.h>).  Every process of the window must give the same
 *	value (otherwise the creation fails with MPI_ERR_ARG).  Unknown names
 *	are ignored.  MPI_Win_get_info reports the strategy in use.
 *
 * The standard keys are honoured as follows:
 *   accumulate_ordering  any value; operations are always applied in the
 *			  order they are issued, which satisfies all of them
 *   accumulate_ops	  accepted and reported; no effect
 *   no_locks		  accepted and reported; locks keep working
 *   same_size, same_disp_unit  accepted and reported; no effect
 *   alloc_shared_noncontig  "true": MPI_Win_allocate_shared puts every
 *			  process's memory on its own pages instead of
 *			  byte-contiguously after the previous process's
 */
#ifndef MPIRMA_EXT_H
#define MPIRMA_EXT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIRMA_INFO_NUMA_NODE	"mpirma_numa_node"
#define MPIRMA_INFO_ATOMICITY	"mpirma_atomicity"

/**
 * MPIX_Win_get_node - the NUMA node of a process's window memory
 * @win: the window
 * @rank: a rank of the window (not MPI_PROC_NULL)
 * @node: out, the node of the first page of @rank's memory in @win, or -1
 *	when it has none (size 0, dynamic windows)
 *
 * Works for every flavor (for MPI_Win_create windows it is where the
 * user's pages are at the time of the call).  Errors: MPI_ERR_WIN,
 * MPI_ERR_RANK, MPI_ERR_ARG, raised on the window.
 */
MPIRMA_API int MPIX_Win_get_node(MPI_Win win, int rank, int *node);
MPIRMA_API int PMPIX_Win_get_node(MPI_Win win, int rank, int *node);

/**
 * MPIX_Win_get_worker - the kernel worker that serves a process's memory
 * @win: the window
 * @rank: a rank of the window (not MPI_PROC_NULL)
 * @worker: out, for a window with the "delegate" atomicity strategy the id of
 *	the NUMA-local kernel worker that applies updates to the first page of
 *	@rank's memory (the ids of /sys/kernel/debug/mpirma/workers, which
 *	also gives each worker's node and load); -1 for other strategies or
 *	when @rank has no memory
 *
 * Errors: as MPIX_Win_get_node.
 */
MPIRMA_API int MPIX_Win_get_worker(MPI_Win win, int rank, int *worker);
MPIRMA_API int PMPIX_Win_get_worker(MPI_Win win, int rank, int *worker);

#ifdef __cplusplus
}
#endif

#endif /* MPIRMA_EXT_H */
