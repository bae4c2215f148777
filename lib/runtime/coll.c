// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll.c - collective operations over a communicator's collective context
 * (docs/lib.md, "Collectives").
 *
 * Every message here is received from a named source: messages from one
 * sender in one context arrive in order, and all members call collectives
 * in the same order, so each receive gets the message meant for it without
 * any sequence number.  The tag only names the collective, which turns a
 * program that mismatches collectives into a hang rather than into
 * corrupted data.
 *
 * Sends never wait (the transport buffers them: p2p.h).  That makes the simple
 * algorithms safe and lets MPI_IN_PLACE work for all-to-all: a rank sends
 * everything first and only then overwrites its buffer with what it
 * receives.
 *
 *  - Barrier: a dissemination barrier of empty messages (the kernel's job
 *    barrier on MPI_COMM_WORLD when messages go through the kernel).
 *  - Bcast: binomial tree from the root, the data packed once.
 *  - Gather(v), Scatter(v), Allgather(v), Alltoall(v): direct messages.
 *  - Reduce: a binomial tree towards rank 0 that keeps rank order (each
 *    rank combines its range with the next higher range: acc op recv), so
 *    non-commutative user ops are evaluated in the canonical order; rank 0
 *    forwards the result to another root.  Allreduce is reduce + bcast, so
 *    every rank gets the same bits; small ones on a power-of-two
 *    communicator are recursive doubling, which keeps both.
 *    Reduce_scatter(_block) is reduce + scatter.  Scan and Exscan pass
 *    the prefix along the ranks.
 *
 * Reduction buffers are laid out as the datatype lays out user memory
 * (mpirma_dtype_scratch), so user ops see what the standard promises.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "coll.h"
#include "datatype.h"
#include "op.h"
#include "p2p.h"

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

/* ------------------------------------------------------------ messages */

static int csend_bytes(struct mpirma_comm *c, int peer, int tag,
		       const void *buf, size_t len)
{
	int ret = mpirma_msg_send(mpirma_comm_job_rank(c, peer), tag,
				  mpirma_ctx_coll(c), buf, len);

	if (ret < 0)
		return mpirma_err_errno(ret, "collective send to rank %d", peer);
	return MPI_SUCCESS;
}

static int crecv_bytes(struct mpirma_comm *c, int peer, int tag, void *buf,
		       size_t len, size_t *got)
{
	struct mpirma_msg m;
	int ret = mpirma_msg_recv(0, mpirma_comm_job_rank(c, peer), tag,
				  mpirma_ctx_coll(c), buf, len, &m);

	if (ret < 0)
		return mpirma_err_errno(ret, "collective receive from rank %d",
					peer);
	if (m.msg_len > len)
		return mpirma_err(MPI_ERR_TRUNCATE, "rank %d sent %llu bytes, "
				  "%zu expected", peer,
				  (unsigned long long)m.msg_len, len);
	if (got)
		*got = m.msg_len;
	return MPI_SUCCESS;
}

/* Sends @count elements of @t at @buf, packed when not contiguous. */
static int csend(struct mpirma_comm *c, int peer, int tag, const void *buf,
		 MPI_Count count, struct mpirma_dtype *t)
{
	size_t len = count * t->size;
	const void *data;
	void *tmp;
	int ret;

	if (mpirma_dtype_contig(t, count, buf, &data))
		return csend_bytes(c, peer, tag, data, len);
	tmp = malloc(len);
	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	mpirma_dtype_pack(t, buf, count, tmp);
	ret = csend_bytes(c, peer, tag, tmp, len);
	free(tmp);
	return ret;
}

/* Receives up to @count elements of @t into @buf. */
static int crecv(struct mpirma_comm *c, int peer, int tag, void *buf,
		 MPI_Count count, struct mpirma_dtype *t)
{
	size_t len = count * t->size, got;
	const void *data;
	void *tmp;
	int ret;

	if (mpirma_dtype_contig(t, count, buf, &data))
		return crecv_bytes(c, peer, tag, (void *)data, len, NULL);
	tmp = malloc(len ? len : 1);
	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = crecv_bytes(c, peer, tag, tmp, len, &got);
	if (!ret)
		mpirma_dtype_unpack(t, tmp, got, buf, count);
	free(tmp);
	return ret;
}

/* ------------------------------------------------------------ internal API */

static int inter_barrier(struct mpirma_comm *c);

int mpirma_coll_barrier(struct mpirma_comm *c)
{
	int k, ret;

	if (c->inter)
		return inter_barrier(c);
	if (c->size == 1)
		return MPI_SUCCESS;
	/* The module's barrier sleeps; the queues' messages need not. */
	if (c->handle == MPI_COMM_WORLD && !mpirma_shmq_on()) {
		ret = mpirma_ioctl_wait(MPIRMA_IOC_JOB_BARRIER, NULL);
		return ret < 0 ? mpirma_err_errno(ret, "job barrier") :
		       MPI_SUCCESS;
	}
	/* Round k: tell rank + k, hear from rank - k. */
	for (k = 1; k < c->size; k <<= 1) {
		ret = csend_bytes(c, (c->rank + k) % c->size, TAG_BARRIER,
				  NULL, 0);
		if (!ret)
			ret = crecv_bytes(c, (c->rank - k + c->size) % c->size,
					  TAG_BARRIER, NULL, 0, NULL);
		if (ret)
			return ret;
	}
	return MPI_SUCCESS;
}

/* Binomial tree over ranks relative to @root, moving @len packed bytes. */
static int bcast_bytes(struct mpirma_comm *c, void *data, size_t len,
		       int root)
{
	int size = c->size, rel = (c->rank - root + size) % size;
	int mask, ret = MPI_SUCCESS;

	for (mask = 1; mask < size; mask <<= 1)
		if (rel & mask) {
			ret = crecv_bytes(c, (rel - mask + root) % size,
					  TAG_BCAST, data, len, NULL);
			if (ret)
				return ret;
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (rel + mask < size) {
			ret = csend_bytes(c, (rel + mask + root) % size,
					  TAG_BCAST, data, len);
			if (ret)
				return ret;
		}
	return MPI_SUCCESS;
}

static int bcast(struct mpirma_comm *c, void *buf, int count,
		 struct mpirma_dtype *t, int root)
{
	size_t len = (size_t)count * t->size;
	const void *data;
	void *tmp;
	int ret;

	if (c->size == 1 || !len)
		return MPI_SUCCESS;
	if (mpirma_dtype_contig(t, count, buf, &data))
		return bcast_bytes(c, (void *)data, len, root);
	tmp = malloc(len);
	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	if (c->rank == root)
		mpirma_dtype_pack(t, buf, count, tmp);
	ret = bcast_bytes(c, tmp, len, root);
	if (!ret && c->rank != root)
		mpirma_dtype_unpack(t, tmp, len, buf, count);
	free(tmp);
	return ret;
}

static int inter_bcast(struct mpirma_comm *c, void *buf, int count,
		       struct mpirma_dtype *t, int root);

int mpirma_coll_bcast(struct mpirma_comm *c, void *buf, int count,
		      MPI_Datatype dt, int root)
{
	struct mpirma_dtype *t;
	int ret = mpirma_dtype_check(dt, true, &t);

	return ret ? ret : mpirma_coll_run_bcast(c, buf, count, t, root);
}

/* lib/runtime/coll.h */
int mpirma_coll_run_bcast(struct mpirma_comm *c, void *buf, int count,
			  struct mpirma_dtype *t, int root)
{
	return c->inter ? inter_bcast(c, buf, count, t, root) :
	       bcast(c, buf, count, t, root);
}

/*
 * Reduces every rank's @sendbuf into @result at rank 0 (elsewhere @result
 * is unused), in rank order.  @result may be @sendbuf.
 */
static int reduce_to0(struct mpirma_comm *c, const void *sendbuf,
		      void *result, int count, struct mpirma_dtype *t,
		      MPI_Datatype dt, MPI_Op op)
{
	void *alloc[2] = { NULL, NULL }, *buf[2] = { NULL, NULL };
	const void *acc = sendbuf;
	int mask, which = 0, ret = MPI_SUCCESS;

	for (mask = 1; mask < c->size; mask <<= 1) {
		if (c->rank & mask) {
			ret = csend(c, c->rank - mask, TAG_REDUCE, acc, count, t);
			break;
		}
		if (c->rank + mask >= c->size)
			continue;
		if (!buf[which]) {
			buf[which] = mpirma_dtype_scratch(t, count, &alloc[which]);
			if (!buf[which]) {
				ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
				break;
			}
		}
		ret = crecv(c, c->rank + mask, TAG_REDUCE, buf[which], count, t);
		if (ret)
			break;
		/* buf = acc op buf: lower ranks on the left. */
		ret = mpirma_op_apply(op, dt, acc, buf[which], count);
		if (ret)
			break;
		acc = buf[which];
		which ^= 1;
	}
	if (!ret && c->rank == 0 && acc != result)
		mpirma_dtype_copy_same(t, count, result, acc);
	free(alloc[0]);
	free(alloc[1]);
	return ret;
}

static int reduce(struct mpirma_comm *c, const void *sendbuf, void *recvbuf,
		  int count, struct mpirma_dtype *t, MPI_Datatype dt,
		  MPI_Op op, int root)
{
	void *alloc = NULL, *res = recvbuf;
	int ret;

	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	if (!count)
		return MPI_SUCCESS;
	if (root != 0 && c->rank == 0) {
		res = mpirma_dtype_scratch(t, count, &alloc);
		if (!res)
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	ret = reduce_to0(c, sendbuf, res, count, t, dt, op);
	if (!ret && root != 0) {
		if (c->rank == 0)
			ret = csend(c, root, TAG_REDUCE_RESULT, res, count, t);
		else if (c->rank == root)
			ret = crecv(c, 0, TAG_REDUCE_RESULT, recvbuf, count, t);
	}
	free(alloc);
	return ret;
}

/*
 * Small buffers on a power-of-two communicator: recursive doubling.  In
 * round k a rank swaps with rank ^ 2^k; the two hold the results of
 * adjacent rank ranges and both compute lower op higher, so every rank
 * gets the same bits in the canonical order, in log2(size) message
 * latencies instead of reduce + bcast's 2 log2(size).
 */
#define DOUBLING_MAX	8192	/* bytes: above, each round's copy costs more */

static int allreduce_doubling(struct mpirma_comm *c, const void *sendbuf,
			      void *recvbuf, int count, struct mpirma_dtype *t,
			      MPI_Datatype dt, MPI_Op op)
{
	void *alloc = NULL, *tmp = mpirma_dtype_scratch(t, count, &alloc);
	int mask, peer, ret = MPI_SUCCESS;

	if (!tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	if (sendbuf != recvbuf)
		mpirma_dtype_copy_same(t, count, recvbuf, sendbuf);
	for (mask = 1; mask < c->size && !ret; mask <<= 1) {
		peer = c->rank ^ mask;
		ret = csend(c, peer, TAG_ALLREDUCE, recvbuf, count, t);
		if (!ret)
			ret = crecv(c, peer, TAG_ALLREDUCE, tmp, count, t);
		if (ret)
			break;
		if (peer < c->rank) {
			ret = mpirma_op_apply(op, dt, tmp, recvbuf, count);
		} else {
			ret = mpirma_op_apply(op, dt, recvbuf, tmp, count);
			mpirma_dtype_copy_same(t, count, recvbuf, tmp);
		}
	}
	free(alloc);
	return ret;
}

static int allreduce(struct mpirma_comm *c, const void *sendbuf,
		     void *recvbuf, int count, struct mpirma_dtype *t,
		     MPI_Datatype dt, MPI_Op op)
{
	int ret;

	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	if (!count)
		return MPI_SUCCESS;
	if (!(c->size & (c->size - 1)) &&
	    (size_t)count * t->size <= DOUBLING_MAX)
		return allreduce_doubling(c, sendbuf, recvbuf, count, t, dt,
					  op);
	ret = reduce_to0(c, sendbuf, recvbuf, count, t, dt, op);
	if (!ret)
		ret = bcast(c, recvbuf, count, t, 0);
	return ret;
}

/* ------------------------------------------------------------ inter */

/*
 * Inter-communicators (lib/runtime/intercomm.c): the local steps on
 * c->local, the leaders (local rank 0 of each group) swap the rest.  A
 * failed step still lets the later ones run, so that nobody is left
 * waiting; the first error is returned.
 */

/* Everyone of the local group is in, then the leaders swap, then release. */
static int inter_barrier(struct mpirma_comm *c)
{
	int ret = mpirma_coll_barrier(c->local), r2;

	if (c->rank == 0) {
		r2 = csend_bytes(c, 0, TAG_BARRIER, NULL, 0);
		if (!r2)
			r2 = crecv_bytes(c, 0, TAG_BARRIER, NULL, 0, NULL);
		ret = ret ? ret : r2;
	}
	r2 = mpirma_coll_barrier(c->local);
	return ret ? ret : r2;
}

/*
 * @root: MPI_ROOT at the root, MPI_PROC_NULL at the rest of its group, the
 * root's rank in the other group.  The root sends to the receiving group's
 * leader, which broadcasts in its group.
 */
static int inter_bcast(struct mpirma_comm *c, void *buf, int count,
		       struct mpirma_dtype *t, int root)
{
	int ret = MPI_SUCCESS, r2;

	if (root == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (root == MPI_ROOT)
		return csend(c, 0, TAG_BCAST, buf, count, t);
	if (c->rank == 0)
		ret = crecv(c, root, TAG_BCAST, buf, count, t);
	r2 = bcast(c->local, buf, count, t, 0);
	return ret ? ret : r2;
}

/* Each group gets the reduction of the other group's data. */
static int inter_allreduce(struct mpirma_comm *c, const void *sendbuf,
			   void *recvbuf, int count, struct mpirma_dtype *t,
			   MPI_Datatype dt, MPI_Op op)
{
	void *alloc = NULL, *mine = NULL;
	int ret = MPI_SUCCESS, r2;

	if (sendbuf == MPI_IN_PLACE)
		return mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed "
				  "on an inter-communicator");
	if (!count)
		return MPI_SUCCESS;
	if (c->rank == 0) {
		mine = mpirma_dtype_scratch(t, count, &alloc);
		if (!mine)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (!ret)
		ret = reduce_to0(c->local, sendbuf, mine, count, t, dt, op);
	if (!ret && c->rank == 0) {
		ret = csend(c, 0, TAG_REDUCE, mine, count, t);
		if (!ret)
			ret = crecv(c, 0, TAG_REDUCE, recvbuf, count, t);
	}
	r2 = bcast(c->local, recvbuf, count, t, 0);
	free(alloc);
	return ret ? ret : r2;
}

/*
 * Reduce: the root's group passes MPI_ROOT (the root) and MPI_PROC_NULL;
 * the other group reduces to its leader, which sends to the root.
 */
static int inter_reduce(struct mpirma_comm *c, const void *sendbuf,
			void *recvbuf, int count, struct mpirma_dtype *t,
			MPI_Datatype dt, MPI_Op op, int root)
{
	void *alloc = NULL, *mine = NULL;
	int ret = MPI_SUCCESS;

	if (root == MPI_PROC_NULL || !count)
		return MPI_SUCCESS;
	if (root == MPI_ROOT)
		return crecv(c, 0, TAG_REDUCE, recvbuf, count, t);
	if (sendbuf == MPI_IN_PLACE)
		ret = mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed "
				 "on an inter-communicator");
	if (!ret && c->rank == 0) {
		mine = mpirma_dtype_scratch(t, count, &alloc);
		if (!mine)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	/* the group's reduction runs even after a local error: see above */
	if (!ret)
		ret = reduce_to0(c->local, sendbuf, mine, count, t, dt, op);
	if (!ret && c->rank == 0)
		ret = csend(c, root, TAG_REDUCE, mine, count, t);
	free(alloc);
	return ret;
}

/*
 * Allgather(v) and Alltoall(v): with every member of the other group, block
 * i with remote rank i; @scounts NULL and @sdispls NULL with @all: the
 * whole send buffer to everyone (allgather).
 */
static int inter_exchange(struct mpirma_comm *c, int tag, const void *sendbuf,
			  int scount, const int *scounts, const int *sdispls,
			  struct mpirma_dtype *st, bool all, void *recvbuf,
			  int rcount, const int *rcounts, const int *rdispls,
			  struct mpirma_dtype *rt)
{
	MPI_Aint sext = mpirma_dtype_extent(st), rext = mpirma_dtype_extent(rt);
	int i, ret = MPI_SUCCESS;

	if (sendbuf == MPI_IN_PLACE)
		return mpirma_err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed "
				  "on an inter-communicator");
	for (i = 0; i < c->rsize && !ret; i++)
		ret = all ? csend(c, i, tag, sendbuf, scount, st) :
		      csend(c, i, tag, block_at(sendbuf, sext, scount, scounts,
						sdispls, i),
			    block_count(scount, scounts, i), st);
	for (i = 0; i < c->rsize && !ret; i++)
		ret = crecv(c, i, tag, block_at(recvbuf, rext, rcount, rcounts,
						rdispls, i),
			    block_count(rcount, rcounts, i), rt);
	return ret;
}

/* lib/runtime/coll.h */
int mpirma_coll_run_reduce(struct mpirma_comm *c, const void *sendbuf,
			   void *recvbuf, int count, struct mpirma_dtype *t,
			   MPI_Datatype dt, MPI_Op op, int root)
{
	if (c->inter)
		return inter_reduce(c, sendbuf, recvbuf, count, t, dt, op,
				    root);
	return reduce(c, sendbuf, recvbuf, count, t, dt, op, root);
}

int mpirma_coll_run_allreduce(struct mpirma_comm *c, const void *sendbuf,
			      void *recvbuf, int count, struct mpirma_dtype *t,
			      MPI_Datatype dt, MPI_Op op)
{
	if (c->inter)
		return inter_allreduce(c, sendbuf, recvbuf, count, t, dt, op);
	return allreduce(c, sendbuf, recvbuf, count, t, dt, op);
}

int mpirma_coll_allreduce(struct mpirma_comm *c, const void *sendbuf,
			  void *recvbuf, int count, MPI_Datatype dt, MPI_Op op)
{
	struct mpirma_dtype *t;
	int ret = mpirma_dtype_check(dt, true, &t);

	if (!ret)
		ret = mpirma_op_check(op, dt, MPIRMA_OP_USE_REDUCE);
	return ret ? ret : mpirma_coll_run_allreduce(c, sendbuf, recvbuf, count,
						     t, dt, op);
}

/*
 * Allgatherv: every rank sends its part to every other rank, then receives
 * theirs.  @counts/@displs NULL: @rcount each at i * rcount.
 */
int mpirma_coll_run_allgatherv(struct mpirma_comm *c, const void *sendbuf,
			       int scount, struct mpirma_dtype *st,
			       void *recvbuf, int rcount, const int *counts,
			       const int *displs, struct mpirma_dtype *rt)
{
	MPI_Aint rext = mpirma_dtype_extent(rt);
	int i, ret = MPI_SUCCESS;

	if (c->inter)
		return inter_exchange(c, TAG_ALLGATHER, sendbuf, scount, NULL,
				      NULL, st, true, recvbuf, rcount, counts,
				      displs, rt);
#define SLOT(i) block_at(recvbuf, rext, rcount, counts, displs, i)
#define COUNT(i) block_count(rcount, counts, i)
	if (sendbuf == MPI_IN_PLACE) {
		sendbuf = SLOT(c->rank);
		scount = COUNT(c->rank);
		st = rt;
	} else {
		ret = mpirma_dtype_copy(sendbuf, scount, st, SLOT(c->rank),
					COUNT(c->rank), rt);
	}
	for (i = 1; !ret && i < c->size; i++)
		ret = csend(c, (c->rank + i) % c->size, TAG_ALLGATHER, sendbuf,
			    scount, st);
	for (i = 1; !ret && i < c->size; i++) {
		int from = (c->rank - i + c->size) % c->size;

		ret = crecv(c, from, TAG_ALLGATHER, SLOT(from), COUNT(from), rt);
	}
#undef SLOT
#undef COUNT
	return ret;
}

int mpirma_coll_allgather(struct mpirma_comm *c, const void *sendbuf,
			  int sendcount, MPI_Datatype sendtype, void *recvbuf,
			  int recvcount, MPI_Datatype recvtype)
{
	struct mpirma_dtype *st = NULL, *rt;
	int ret = mpirma_dtype_check(recvtype, true, &rt);

	if (!ret && sendbuf != MPI_IN_PLACE)
		ret = mpirma_dtype_check(sendtype, true, &st);
	if (!ret)
		ret = mpirma_coll_run_allgatherv(c, sendbuf, sendcount, st,
						 recvbuf, recvcount, NULL, NULL,
						 rt);
	return ret;
}

/* ------------------------------------------ rooted, all-to-all, scans */

/*
 * Gather(v) (@gather) and Scatter(v), once the arguments are checked: the
 * root talks to every rank directly, block i with rank i (of the other
 * group on an inter-communicator, whose root is MPI_ROOT and the rest of
 * its group MPI_PROC_NULL).  The root's side is @buf (@count, or
 * @counts/@displs, of @bt): what a gather receives into, a scatter sends
 * from.  Every other rank's own side is @obuf (@ocount of @ot): what a
 * gather sends, a scatter receives; MPI_IN_PLACE at an intra root.
 */
int mpirma_coll_run_rooted(struct mpirma_comm *c, bool gather, void *buf,
			   int count, const int *counts, const int *displs,
			   struct mpirma_dtype *bt, void *obuf, int ocount,
			   struct mpirma_dtype *ot, int root)
{
	int tag = gather ? TAG_GATHER : TAG_SCATTER, i, ret = MPI_SUCCESS;
	int n = c->inter ? c->rsize : c->size;
	MPI_Aint ext;

	if (root == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (!mpirma_coll_is_root(c, root))
		return gather ? csend(c, root, tag, obuf, ocount, ot) :
		       crecv(c, root, tag, obuf, ocount, ot);
	ext = mpirma_dtype_extent(bt);
	for (i = 0; i < n && !ret; i++) {
		char *slot = block_at(buf, ext, count, counts, displs, i);
		int k = block_count(count, counts, i);

		if (c->inter || i != root)
			ret = gather ? crecv(c, i, tag, slot, k, bt) :
			      csend(c, i, tag, slot, k, bt);
		else if (obuf == MPI_IN_PLACE)
			continue;
		else if (gather)
			ret = mpirma_dtype_copy(obuf, ocount, ot, slot, k, bt);
		else
			ret = mpirma_dtype_copy(slot, k, bt, obuf, ocount, ot);
	}
	return ret;
}

/* Alltoall(v): @scounts NULL means the fixed-count form. */
int mpirma_coll_run_alltoallv(struct mpirma_comm *c, const void *sendbuf,
			      int scount, const int *scounts,
			      const int *sdispls, struct mpirma_dtype *st,
			      void *recvbuf, int rcount, const int *rcounts,
			      const int *rdispls, struct mpirma_dtype *rt)
{
	MPI_Aint rext = mpirma_dtype_extent(rt), sext;
	int i, ret = MPI_SUCCESS;

	if (c->inter)
		return inter_exchange(c, TAG_ALLTOALL, sendbuf, scount, scounts,
				      sdispls, st, false, recvbuf, rcount,
				      rcounts, rdispls, rt);
	if (sendbuf == MPI_IN_PLACE) {
		/* Everything is sent before anything is received. */
		sendbuf = recvbuf;
		scount = rcount;
		scounts = rcounts;
		sdispls = rdispls;
		st = rt;
	}
	sext = mpirma_dtype_extent(st);
#define SSLOT(i) block_at(sendbuf, sext, scount, scounts, sdispls, i)
#define SCOUNT(i) block_count(scount, scounts, i)
#define RSLOT(i) block_at(recvbuf, rext, rcount, rcounts, rdispls, i)
#define RCOUNT(i) block_count(rcount, rcounts, i)
	for (i = 1; !ret && i < c->size; i++) {
		int to = (c->rank + i) % c->size;

		ret = csend(c, to, TAG_ALLTOALL, SSLOT(to), SCOUNT(to), st);
	}
	if (!ret && sendbuf != recvbuf)
		ret = mpirma_dtype_copy(SSLOT(c->rank), SCOUNT(c->rank), st,
					RSLOT(c->rank), RCOUNT(c->rank), rt);
	for (i = 1; !ret && i < c->size; i++) {
		int from = (c->rank - i + c->size) % c->size;

		ret = crecv(c, from, TAG_ALLTOALL, RSLOT(from), RCOUNT(from), rt);
	}
#undef SSLOT
#undef SCOUNT
#undef RSLOT
#undef RCOUNT
	return ret;
}

/*
 * Reduce_scatter(_block): the whole vector reduced to rank 0, then scattered
 * (@counts NULL: @rcount elements each).
 */
int mpirma_coll_run_reduce_scatter(struct mpirma_comm *c, const void *sendbuf,
				   void *recvbuf, int rcount,
				   const int *counts, struct mpirma_dtype *t,
				   MPI_Datatype dt, MPI_Op op)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	void *alloc = NULL, *full = NULL;
	MPI_Count total = 0, off;
	int i, ret = MPI_SUCCESS;

	for (i = 0; i < c->size; i++)
		total += block_count(rcount, counts, i);
	if (total > 0x7fffffff)
		return mpirma_err(MPI_ERR_COUNT, "total count too large");
	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	if (!total)
		return MPI_SUCCESS;
	if (c->rank == 0) {
		full = mpirma_dtype_scratch(t, total, &alloc);
		if (!full)
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	ret = reduce_to0(c, sendbuf, full, total, t, dt, op);
	if (!ret && c->rank != 0)
		ret = crecv(c, 0, TAG_RSCATTER, recvbuf,
			    block_count(rcount, counts, c->rank), t);
	for (i = 0, off = 0; !ret && c->rank == 0 && i < c->size; i++) {
		MPI_Count n = block_count(rcount, counts, i);

		if (i == 0)
			mpirma_dtype_copy_same(t, n, recvbuf, full);
		else
			ret = csend(c, i, TAG_RSCATTER, at(full, off * ext), n, t);
		off += n;
	}
	free(alloc);
	return ret;
}

/*
 * Scan (@exclusive false) and Exscan: rank r receives the prefix of ranks
 * 0..r-1 from r - 1 and passes the prefix of 0..r on to r + 1.
 */
int mpirma_coll_run_scan(struct mpirma_comm *c, const void *sendbuf,
			 void *recvbuf, int count, struct mpirma_dtype *t,
			 MPI_Datatype dt, MPI_Op op, bool exclusive)
{
	void *palloc = NULL, *salloc = NULL, *prefix = NULL, *sum;
	int tag = exclusive ? TAG_EXSCAN : TAG_SCAN, ret = MPI_SUCCESS;
	bool last = c->rank == c->size - 1;

	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	if (!count)
		return MPI_SUCCESS;
	if (!exclusive) {
		/* recvbuf = prefix op mine, passed on as it is. */
		if (sendbuf != recvbuf)
			mpirma_dtype_copy_same(t, count, recvbuf, sendbuf);
		if (c->rank > 0) {
			prefix = mpirma_dtype_scratch(t, count, &palloc);
			if (!prefix)
				return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
			ret = crecv(c, c->rank - 1, tag, prefix, count, t);
			if (!ret)
				ret = mpirma_op_apply(op, dt, prefix, recvbuf,
						      count);
		}
		if (!ret && !last)
			ret = csend(c, c->rank + 1, tag, recvbuf, count, t);
		free(palloc);
		return ret;
	}
	/* Exscan: recvbuf = prefix (undefined at rank 0); pass prefix op mine. */
	if (c->rank == 0) {
		if (!last)
			ret = csend(c, 1, tag, sendbuf, count, t);
		return ret;
	}
	prefix = mpirma_dtype_scratch(t, count, &palloc);
	if (!prefix)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = crecv(c, c->rank - 1, tag, prefix, count, t);
	if (!ret && !last) {
		sum = mpirma_dtype_scratch(t, count, &salloc);
		if (!sum) {
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		} else {
			mpirma_dtype_copy_same(t, count, sum, sendbuf);
			ret = mpirma_op_apply(op, dt, prefix, sum, count);
			if (!ret)
				ret = csend(c, c->rank + 1, tag, sum, count, t);
		}
	}
	if (!ret)
		mpirma_dtype_copy_same(t, count, recvbuf, prefix);
	free(palloc);
	free(salloc);
	return ret;
}
