// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nbc_sched.c - the schedules of the nonblocking collectives (nbc.h): the
 * algorithms of coll.c and coll_spread.c written as rounds of steps, so
 * that each computes the same bits as its blocking form.
 *
 *  - Ibarrier: dissemination, a round per power of two.
 *  - Ibcast: binomial tree from the root: a round to receive from the
 *    parent, one to send to the children.
 *  - Ireduce, Iallreduce, Ireduce_scatter(_block): the binomial tree
 *    towards rank 0 in rank order (acc op received, lower ranks on the
 *    left), then the result sent to the root, broadcast, or scattered.
 *    Blocking Allreduces double recursively or split the vector
 *    (coll_allreduce.c), which combines the same ranges in the same
 *    order, hence the same bits.
 *  - Igather(v), Iscatter(v), Iallgather(v), Ialltoall(v/w): one round of
 *    direct messages.  Sends come first in the round and are buffered,
 *    so MPI_IN_PLACE works as in the blocking forms.
 *  - Iscan, Iexscan: the prefix passed along the ranks.
 *
 * Each schedule receives at most once from a peer in a round (nbc.c
 * would take several in order: coll_neighbor.c's may).  Built once, a
 * schedule is also a persistent collective (MPI_Bcast_init ...), run
 * again by each MPI_Start: nothing here reads the buffers while building.
 */
#include <stdlib.h>

#include "runtime.h"
#include "coll_msg.h"
#include "datatype.h"
#include "nbc.h"

/*
 * A schedule on @c, or NULL and its class in *@ret.  A reduction's
 * *@sendbuf (if @sendbuf) becomes @recvbuf when MPI_IN_PLACE.
 */
static struct mpirma_nbc *begin(struct mpirma_comm *c, const void **sendbuf,
				void *recvbuf, int *ret)
{
	struct mpirma_nbc *s = NULL;

	if (sendbuf && *sendbuf == MPI_IN_PLACE)
		*sendbuf = recvbuf;
	*ret = mpirma_nbc_new(c, &s);
	return s;
}

int mpirma_nbc_barrier(struct mpirma_comm *c, MPI_Request *out)
{
	struct mpirma_dtype *byte = mpirma_dtype_get(MPI_BYTE);
	struct mpirma_nbc *s;
	int k, ret;

	if (c->inter)
		return mpirma_nbc_inter_barrier(c, out);
	s = begin(c, NULL, NULL, &ret);
	if (!s)
		return ret;
	/* Round k: tell rank + k, hear from rank - k. */
	for (k = 1; k < c->size; k <<= 1) {
		mpirma_nbc_send(s, wrap_rank(c->rank + k, c->size), NULL, 0, byte);
		mpirma_nbc_recv(s, wrap_rank(c->rank - k + c->size, c->size), NULL, 0,
				byte);
		mpirma_nbc_round(s);
	}
	return mpirma_nbc_start(s, out);
}

/* The binomial tree of ranks relative to @root, as coll.c's bcast. */
static void bcast_steps(struct mpirma_nbc *s, struct mpirma_comm *c,
			void *buf, int count, struct mpirma_dtype *t, int root)
{
	int size = c->size, rel = wrap_rank(c->rank - root + size, size), mask;

	if (size == 1 || !count || !t->size)
		return;
	for (mask = 1; mask < size; mask <<= 1)
		if (rel & mask) {
			mpirma_nbc_recv(s, wrap_rank(rel - mask + root, size), buf,
					count, t);
			mpirma_nbc_round(s);
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (rel + mask < size)
			mpirma_nbc_send(s, wrap_rank(rel + mask + root, size), buf,
					count, t);
	mpirma_nbc_round(s);
}

int mpirma_nbc_bcast(struct mpirma_comm *c, void *buf, int count,
		     struct mpirma_dtype *t, int root, MPI_Request *out)
{
	struct mpirma_nbc *s;
	int ret;

	if (c->inter)
		return mpirma_nbc_inter_bcast(c, buf, count, t, root, out);
	s = begin(c, NULL, NULL, &ret);
	if (!s)
		return ret;
	bcast_steps(s, c, buf, count, t, root);
	return mpirma_nbc_start(s, out);
}

/*
 * coll.c's reduction towards rank 0 in rank order, into @result at rank 0
 * (which may be @sendbuf).  Scratch memory that fails fails the start.
 */
static void reduce_to0_steps(struct mpirma_nbc *s, struct mpirma_comm *c,
			     const void *sendbuf, void *result, int count,
			     struct mpirma_dtype *t, MPI_Datatype dt,
			     MPI_Op op)
{
	void *buf[2] = { NULL, NULL };
	const void *acc = sendbuf;
	int mask, which = 0;

	for (mask = 1; mask < c->size; mask <<= 1) {
		if (c->rank & mask) {
			mpirma_nbc_send(s, c->rank - mask, acc, count, t);
			break;
		}
		if (c->rank + mask >= c->size)
			continue;
		if (!buf[which])
			buf[which] = mpirma_nbc_scratch(s, t, count);
		mpirma_nbc_recv(s, c->rank + mask, buf[which], count, t);
		mpirma_nbc_round(s);
		/* buf = acc op buf: lower ranks on the left. */
		mpirma_nbc_op(s, op, dt, acc, buf[which], count);
		acc = buf[which];
		which ^= 1;
	}
	if (c->rank == 0 && acc != result)
		mpirma_nbc_copy(s, acc, count, t, result, count, t);
	mpirma_nbc_round(s);
}

int mpirma_nbc_reduce(struct mpirma_comm *c, const void *sendbuf,
		      void *recvbuf, int count, struct mpirma_dtype *t,
		      MPI_Datatype dt, MPI_Op op, int root, MPI_Request *out)
{
	void *res = recvbuf;
	struct mpirma_nbc *s;
	int ret;

	if (c->inter)
		return mpirma_nbc_inter_reduce(c, sendbuf, recvbuf, count, t, dt,
					       op, root, out);
	s = begin(c, &sendbuf, recvbuf, &ret);
	if (!s)
		return ret;
	if (!count)
		return mpirma_nbc_start(s, out);
	if (root != 0 && c->rank == 0)
		res = mpirma_nbc_scratch(s, t, count);
	reduce_to0_steps(s, c, sendbuf, res, count, t, dt, op);
	if (root != 0 && c->rank == 0)
		mpirma_nbc_send(s, root, res, count, t);
	else if (root != 0 && c->rank == root)
		mpirma_nbc_recv(s, 0, recvbuf, count, t);
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_allreduce(struct mpirma_comm *c, const void *sendbuf,
			 void *recvbuf, int count, struct mpirma_dtype *t,
			 MPI_Datatype dt, MPI_Op op, MPI_Request *out)
{
	struct mpirma_nbc *s;
	int ret;

	if (c->inter)
		return mpirma_nbc_inter_allreduce(c, sendbuf, recvbuf, count, t,
						  dt, op, out);
	s = begin(c, &sendbuf, recvbuf, &ret);
	if (!s)
		return ret;
	if (count) {
		reduce_to0_steps(s, c, sendbuf, recvbuf, count, t, dt, op);
		bcast_steps(s, c, recvbuf, count, t, 0);
	}
	return mpirma_nbc_start(s, out);
}

/* coll_spread.c's Gather(v) and Scatter(v): one round at the root. */
int mpirma_nbc_rooted(struct mpirma_comm *c, bool gather, void *buf,
		      int count, const int *counts, const int *displs,
		      struct mpirma_dtype *bt, void *obuf, int ocount,
		      struct mpirma_dtype *ot, int root, MPI_Request *out)
{
	struct mpirma_nbc *s;
	MPI_Aint ext;
	int i, ret;

	if (c->inter)
		return mpirma_nbc_inter_rooted(c, gather, buf, count, counts,
					       displs, bt, obuf, ocount, ot,
					       root, out);
	s = begin(c, NULL, NULL, &ret);
	if (!s)
		return ret;
	if (c->rank != root) {
		if (gather)
			mpirma_nbc_send(s, root, obuf, ocount, ot);
		else
			mpirma_nbc_recv(s, root, obuf, ocount, ot);
		return mpirma_nbc_start(s, out);
	}
	ext = mpirma_dtype_extent(bt);
	for (i = 0; i < c->size; i++) {
		char *slot = block_at(buf, ext, count, counts, displs, i);
		int k = block_count(count, counts, i);

		if (i != root && gather)
			mpirma_nbc_recv(s, i, slot, k, bt);
		else if (i != root)
			mpirma_nbc_send(s, i, slot, k, bt);
		else if (obuf == MPI_IN_PLACE)
			continue;
		else if (gather)
			mpirma_nbc_copy(s, obuf, ocount, ot, slot, k, bt);
		else
			mpirma_nbc_copy(s, slot, k, bt, obuf, ocount, ot);
	}
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_allgatherv(struct mpirma_comm *c, const void *sendbuf,
			  int scount, struct mpirma_dtype *st, void *recvbuf,
			  int rcount, const int *counts, const int *displs,
			  struct mpirma_dtype *rt, MPI_Request *out)
{
	MPI_Aint rext = mpirma_dtype_extent(rt);
	struct mpirma_nbc *s;
	int i, ret;

	if (c->inter)
		return mpirma_nbc_inter_allgatherv(c, sendbuf, scount, st,
						   recvbuf, rcount, counts,
						   displs, rt, out);
	s = begin(c, NULL, NULL, &ret);
	if (!s)
		return ret;
#define SLOT(i) block_at(recvbuf, rext, rcount, counts, displs, i)
#define COUNT(i) block_count(rcount, counts, i)
	if (sendbuf == MPI_IN_PLACE) {
		sendbuf = SLOT(c->rank);
		scount = COUNT(c->rank);
		st = rt;
	} else {
		mpirma_nbc_copy(s, sendbuf, scount, st, SLOT(c->rank),
				COUNT(c->rank), rt);
	}
	for (i = 1; i < c->size; i++)
		mpirma_nbc_send(s, wrap_rank(c->rank + i, c->size), sendbuf, scount,
				st);
	for (i = 1; i < c->size; i++) {
		int from = wrap_rank(c->rank - i + c->size, c->size);

		mpirma_nbc_recv(s, from, SLOT(from), COUNT(from), rt);
	}
#undef SLOT
#undef COUNT
	return mpirma_nbc_start(s, out);
}

/*
 * Alltoall(v/w): every block sent, the own one copied (not in place: @sd
 * == @rd), every block received, in one round.
 */
static int a2a(struct mpirma_comm *c, const struct mpirma_a2a_side *sd,
	       const struct mpirma_a2a_side *rd, MPI_Request *out)
{
	struct mpirma_dtype *st, *rt;
	struct mpirma_nbc *s;
	int i, sn, rn, ret;
	char *sp, *rp;

	s = begin(c, NULL, NULL, &ret);
	if (!s)
		return ret;
	for (i = 1; i < c->size; i++) {
		int to = wrap_rank(c->rank + i, c->size);

		mpirma_a2a_block(sd, to, &sp, &sn, &st);
		mpirma_nbc_send(s, to, sp, sn, st);
	}
	if (sd != rd) {
		mpirma_a2a_block(sd, c->rank, &sp, &sn, &st);
		mpirma_a2a_block(rd, c->rank, &rp, &rn, &rt);
		mpirma_nbc_copy(s, sp, sn, st, rp, rn, rt);
	}
	for (i = 1; i < c->size; i++) {
		int from = wrap_rank(c->rank - i + c->size, c->size);

		mpirma_a2a_block(rd, from, &rp, &rn, &rt);
		mpirma_nbc_recv(s, from, rp, rn, rt);
	}
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_alltoallv(struct mpirma_comm *c, const void *sendbuf,
			 int scount, const int *scounts, const int *sdispls,
			 struct mpirma_dtype *st, void *recvbuf, int rcount,
			 const int *rcounts, const int *rdispls,
			 struct mpirma_dtype *rt, MPI_Request *out)
{
	struct mpirma_a2a_side sd = { sendbuf, scount, scounts, sdispls, st,
				      NULL };
	struct mpirma_a2a_side rd = { recvbuf, rcount, rcounts, rdispls, rt,
				      NULL };

	if (c->inter)
		return mpirma_nbc_inter_a2a(c, &sd, &rd, out);
	return a2a(c, sendbuf == MPI_IN_PLACE ? &rd : &sd, &rd, out);
}

int mpirma_nbc_alltoallw(struct mpirma_comm *c, const void *sendbuf,
			 const int *scounts, const int *sdispls,
			 struct mpirma_dtype *const *stypes, void *recvbuf,
			 const int *rcounts, const int *rdispls,
			 struct mpirma_dtype *const *rtypes, MPI_Request *out)
{
	struct mpirma_a2a_side sd = { sendbuf, 0, scounts, sdispls, NULL,
				      stypes };
	struct mpirma_a2a_side rd = { recvbuf, 0, rcounts, rdispls, NULL,
				      rtypes };

	if (c->inter)
		return mpirma_nbc_inter_a2a(c, &sd, &rd, out);
	return a2a(c, sendbuf == MPI_IN_PLACE ? &rd : &sd, &rd, out);
}

/* The whole vector reduced to rank 0, then scattered. */
int mpirma_nbc_reduce_scatter(struct mpirma_comm *c, const void *sendbuf,
			      void *recvbuf, int rcount, const int *counts,
			      struct mpirma_dtype *t, MPI_Datatype dt,
			      MPI_Op op, MPI_Request *out)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	MPI_Count total = 0, off, n;
	struct mpirma_nbc *s;
	void *full = NULL;
	int i, ret;

	if (c->inter)
		return mpirma_nbc_inter_reduce_scatter(c, sendbuf, recvbuf,
						       rcount, counts, t, dt,
						       op, out);
	for (i = 0; i < c->size; i++)
		total += block_count(rcount, counts, i);
	if (total > 0x7fffffff)
		return mpirma_err(MPI_ERR_COUNT, "total count too large");
	s = begin(c, &sendbuf, recvbuf, &ret);
	if (!s)
		return ret;
	if (!total)
		return mpirma_nbc_start(s, out);
	if (c->rank == 0)
		full = mpirma_nbc_scratch(s, t, total);
	reduce_to0_steps(s, c, sendbuf, full, total, t, dt, op);
	if (c->rank != 0)
		mpirma_nbc_recv(s, 0, recvbuf,
				block_count(rcount, counts, c->rank), t);
	for (i = 0, off = 0; c->rank == 0 && i < c->size; i++, off += n) {
		n = block_count(rcount, counts, i);
		if (i == 0)
			mpirma_nbc_copy(s, full, n, t, recvbuf, n, t);
		else
			mpirma_nbc_send(s, i, at(full, off * ext), n, t);
	}
	return mpirma_nbc_start(s, out);
}

/*
 * Scan (@exclusive false) and Exscan: rank r receives the prefix of ranks
 * 0..r-1 from r - 1 and passes the prefix of 0..r on to r + 1.
 */
int mpirma_nbc_scan(struct mpirma_comm *c, const void *sendbuf,
		    void *recvbuf, int count, struct mpirma_dtype *t,
		    MPI_Datatype dt, MPI_Op op, bool exclusive,
		    MPI_Request *out)
{
	bool last = c->rank == c->size - 1;
	struct mpirma_nbc *s;
	void *prefix, *sum;
	int ret;

	s = begin(c, &sendbuf, recvbuf, &ret);
	if (!s)
		return ret;
	if (!count)
		return mpirma_nbc_start(s, out);
	if (!exclusive) {
		/* recvbuf = prefix op mine, passed on as it is. */
		if (sendbuf != recvbuf)
			mpirma_nbc_copy(s, sendbuf, count, t, recvbuf, count,
					t);
		if (c->rank > 0) {
			prefix = mpirma_nbc_scratch(s, t, count);
			mpirma_nbc_recv(s, c->rank - 1, prefix, count, t);
			mpirma_nbc_round(s);
			mpirma_nbc_op(s, op, dt, prefix, recvbuf, count);
		}
		if (!last)
			mpirma_nbc_send(s, c->rank + 1, recvbuf, count, t);
		return mpirma_nbc_start(s, out);
	}
	/* Exscan: recvbuf = prefix (undefined at rank 0); pass prefix op
	 * mine. */
	if (c->rank == 0) {
		if (!last)
			mpirma_nbc_send(s, 1, sendbuf, count, t);
		return mpirma_nbc_start(s, out);
	}
	prefix = mpirma_nbc_scratch(s, t, count);
	mpirma_nbc_recv(s, c->rank - 1, prefix, count, t);
	mpirma_nbc_round(s);
	if (!last) {
		sum = mpirma_nbc_scratch(s, t, count);
		mpirma_nbc_copy(s, sendbuf, count, t, sum, count, t);
		mpirma_nbc_op(s, op, dt, prefix, sum, count);
		mpirma_nbc_send(s, c->rank + 1, sum, count, t);
	}
	mpirma_nbc_copy(s, prefix, count, t, recvbuf, count, t);
	return mpirma_nbc_start(s, out);
}
