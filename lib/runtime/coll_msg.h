/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * coll_msg.h - what the collectives' algorithms share (coll.c: barrier,
 * bcast, reduce, the inter-communicator steps; coll_allreduce.c;
 * coll_spread.c: allgather, gather and scatter, all-to-all,
 * reduce_scatter, scans): the tags that name each collective, buffer
 * blocks, and messages of bytes and of datatype elements over the
 * collective context.
 */
#ifndef MPIRMA_LIB_COLL_MSG_H
#define MPIRMA_LIB_COLL_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime.h"

struct mpirma_dtype;

enum {
	TAG_BARRIER = 1,
	TAG_BCAST,
	TAG_GATHER,
	TAG_SCATTER,
	TAG_ALLGATHER,
	TAG_ALLTOALL,
	TAG_REDUCE,
	TAG_REDUCE_RESULT,
	TAG_RSCATTER,
	TAG_SCAN,
	TAG_EXSCAN,
	TAG_ALLREDUCE,
};

/*
 * @r modulo @size for @r in [0, 2 * @size): the peers of the ring and tree
 * algorithms.  A division is a helper call under QEMU's TCG, tens of
 * cycles on hardware; a barrier made two.
 */
static inline int wrap_rank(int r, int size)
{
	return r >= size ? r - size : r;
}

/* @p + @off bytes, as integers (offsets may be negative). */
static inline char *at(const void *p, int64_t off)
{
	return (char *)((uintptr_t)p + (uintptr_t)off);
}

/*
 * Block @i of a buffer argument of the -v collectives and their fixed-count
 * forms: @counts[i] elements at @displs[i] extents with @counts, else @count
 * elements at i * @count extents (@ext: the datatype's extent).
 */
static inline int block_count(int count, const int *counts, int i)
{
	return counts ? counts[i] : count;
}

static inline char *block_at(const void *buf, MPI_Aint ext, int count,
			     const int *counts, const int *displs, int i)
{
	return at(buf, (counts ? (MPI_Aint)displs[i] : (MPI_Aint)i * count) *
		       ext);
}

/*
 * One side of an all-to-all: block i is @counts[i] (without @counts:
 * @count) elements of @types[i] at byte @displs[i] (Alltoallw), or of @t
 * at @displs[i] (without @counts: i * @count) extents of @t.
 */
struct mpirma_a2a_side {
	const void *buf;
	int count;
	const int *counts, *displs;
	struct mpirma_dtype *t;
	struct mpirma_dtype *const *types;
};

/* Block @i of @s: its address, count and datatype (coll_spread.c). */
void mpirma_a2a_block(const struct mpirma_a2a_side *s, int i, char **p,
		      int *n, struct mpirma_dtype **t);

/*
 * @count elements of @t at @buf to (from) comm rank @peer with @tag,
 * packed when not contiguous; a receive takes up to @count.  MPI class.
 */
int mpirma_coll_send(struct mpirma_comm *c, int peer, int tag,
		     const void *buf, MPI_Count count, struct mpirma_dtype *t);
int mpirma_coll_recv(struct mpirma_comm *c, int peer, int tag, void *buf,
		     MPI_Count count, struct mpirma_dtype *t);

/*
 * Reduces every rank's @sendbuf into @result at rank 0 (elsewhere @result
 * is unused), in rank order.  @result may be @sendbuf.
 */
int mpirma_coll_reduce_to0(struct mpirma_comm *c, const void *sendbuf,
			   void *result, int count, struct mpirma_dtype *t,
			   MPI_Datatype dt, MPI_Op op);

/*
 * @len bytes at @buf to (from) comm rank @peer with @tag; a receive takes
 * up to @len and says how many came in *@got (@got may be NULL).
 */
int mpirma_coll_send_bytes(struct mpirma_comm *c, int peer, int tag,
			   const void *buf, size_t len);
int mpirma_coll_recv_bytes(struct mpirma_comm *c, int peer, int tag,
			   void *buf, size_t len, size_t *got);

/* MPI_Allreduce on an intra-communicator (coll_allreduce.c). */
int mpirma_coll_allreduce_intra(struct mpirma_comm *c, const void *sendbuf,
				void *recvbuf, int count,
				struct mpirma_dtype *t, MPI_Datatype dt,
				MPI_Op op);

/* MPI_ERR_BUFFER (recorded) for MPI_IN_PLACE on an inter-communicator. */
static inline int mpirma_coll_inter_in_place(const void *sendbuf)
{
	if (sendbuf == MPI_IN_PLACE)
		return mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed "
				  "on an inter-communicator");
	return MPI_SUCCESS;
}

#endif /* MPIRMA_LIB_COLL_MSG_H */
