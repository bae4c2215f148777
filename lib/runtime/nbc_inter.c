// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nbc_inter.c - the nonblocking and persistent collectives on
 * inter-communicators (nbc.h): schedules of one round of messages
 * between the two groups, as a schedule's peers are the remote group's
 * ranks; the reductions then combine what came in rank order.
 *
 *  - Ibarrier: a message to and from every remote rank (each group leaves
 *    once the other has entered).
 *  - Ibcast, Igather(v), Iscatter(v): between the root (MPI_ROOT) and
 *    every rank of the other group; MPI_PROC_NULL takes no part.
 *  - Iallgather(v), Ialltoall(v/w): every rank's blocks to and from every
 *    remote rank.
 *  - Ireduce: the root receives every remote rank's data and reduces it
 *    in rank order; Iallreduce: every rank does, from every remote rank;
 *    Ireduce_scatter(_block): every rank receives the remote ranks' whole
 *    vectors and reduces its own block of them (the two groups' totals are
 *    equal, as the standard requires, but a rank does not know the other
 *    group's blocks).
 *
 * Each rank's message count grows with the other group's size, which
 * suits the small groups inter-communicators have on one node.
 */
#include "runtime.h"
#include "coll_msg.h"
#include "datatype.h"
#include "nbc.h"

int mpirma_nbc_inter_barrier(struct mpirma_comm *c, MPI_Request *out)
{
	struct mpirma_dtype *byte = mpirma_dtype_get(MPI_BYTE);
	struct mpirma_nbc *s;
	int i, ret = mpirma_nbc_new(c, &s);

	if (ret)
		return ret;
	for (i = 0; i < c->rsize; i++)
		mpirma_nbc_send(s, i, NULL, 0, byte);
	for (i = 0; i < c->rsize; i++)
		mpirma_nbc_recv(s, i, NULL, 0, byte);
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_inter_bcast(struct mpirma_comm *c, void *buf, int count,
			   struct mpirma_dtype *t, int root, MPI_Request *out)
{
	struct mpirma_nbc *s;
	int i, ret = mpirma_nbc_new(c, &s);

	if (ret)
		return ret;
	for (i = 0; root == MPI_ROOT && i < c->rsize; i++)
		mpirma_nbc_send(s, i, buf, count, t);
	if (root >= 0)
		mpirma_nbc_recv(s, root, buf, count, t);
	return mpirma_nbc_start(s, out);
}

/*
 * Receives @count elements from each remote rank and leaves their
 * reduction in rank order in @recvbuf (the last one received there, the
 * others into scratch, combined right to left in the next round).  With
 * @whole, each remote rank sends @whole elements of which the block at
 * element @off is reduced.
 */
static void reduce_remote(struct mpirma_nbc *s, struct mpirma_comm *c,
			  void *recvbuf, int count, int off, int whole,
			  struct mpirma_dtype *t, MPI_Datatype dt, MPI_Op op)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	int n = c->rsize, i;
	char *tmp;

	if (!n)
		return;
	tmp = mpirma_nbc_scratch(s, t, (MPI_Count)n * whole);
	if (!tmp)
		return;		/* the schedule fails to start */
	for (i = 0; i < n; i++)
		mpirma_nbc_recv(s, i, tmp + (MPI_Aint)i * whole * ext, whole, t);
	mpirma_nbc_round(s);
	mpirma_nbc_copy(s, tmp + ((MPI_Aint)(n - 1) * whole + off) * ext, count,
			t, recvbuf, count, t);
	for (i = n - 2; i >= 0; i--)
		mpirma_nbc_op(s, op, dt, tmp + ((MPI_Aint)i * whole + off) * ext,
			      recvbuf, count);
}

int mpirma_nbc_inter_reduce(struct mpirma_comm *c, const void *sendbuf,
			    void *recvbuf, int count, struct mpirma_dtype *t,
			    MPI_Datatype dt, MPI_Op op, int root,
			    MPI_Request *out)
{
	struct mpirma_nbc *s;
	int ret = root >= 0 ? mpirma_coll_inter_in_place(sendbuf) : MPI_SUCCESS;

	if (!ret)
		ret = mpirma_nbc_new(c, &s);
	if (ret)
		return ret;
	if (root == MPI_ROOT && count)
		reduce_remote(s, c, recvbuf, count, 0, count, t, dt, op);
	else if (root >= 0)
		mpirma_nbc_send(s, root, sendbuf, count, t);
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_inter_allreduce(struct mpirma_comm *c, const void *sendbuf,
			       void *recvbuf, int count,
			       struct mpirma_dtype *t, MPI_Datatype dt,
			       MPI_Op op, MPI_Request *out)
{
	struct mpirma_nbc *s;
	int i, ret = mpirma_coll_inter_in_place(sendbuf);

	if (!ret)
		ret = mpirma_nbc_new(c, &s);
	if (ret)
		return ret;
	for (i = 0; count && i < c->rsize; i++)
		mpirma_nbc_send(s, i, sendbuf, count, t);
	if (count)
		reduce_remote(s, c, recvbuf, count, 0, count, t, dt, op);
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_inter_reduce_scatter(struct mpirma_comm *c,
				    const void *sendbuf, void *recvbuf,
				    int rcount, const int *counts,
				    struct mpirma_dtype *t, MPI_Datatype dt,
				    MPI_Op op, MPI_Request *out)
{
	struct mpirma_nbc *s;
	int i, total = 0, off = 0, ret = mpirma_coll_inter_in_place(sendbuf);

	for (i = 0; i < c->size; i++) {
		if (i == c->rank)
			off = total;
		total += block_count(rcount, counts, i);
	}
	if (!ret)
		ret = mpirma_nbc_new(c, &s);
	if (ret)
		return ret;
	for (i = 0; total && i < c->rsize; i++)
		mpirma_nbc_send(s, i, sendbuf, total, t);
	/* a rank with an empty block still takes the remote vectors */
	if (total)
		reduce_remote(s, c, recvbuf, block_count(rcount, counts, c->rank),
			      off, total, t, dt, op);
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_inter_rooted(struct mpirma_comm *c, bool gather, void *buf,
			    int count, const int *counts, const int *displs,
			    struct mpirma_dtype *bt, void *obuf, int ocount,
			    struct mpirma_dtype *ot, int root, MPI_Request *out)
{
	/* the root's side (@bt) exists at the root only */
	MPI_Aint ext = root == MPI_ROOT ? mpirma_dtype_extent(bt) : 0;
	struct mpirma_nbc *s;
	int i, ret = mpirma_nbc_new(c, &s);

	if (ret)
		return ret;
	for (i = 0; root == MPI_ROOT && i < c->rsize; i++) {
		char *slot = block_at(buf, ext, count, counts, displs, i);
		int k = block_count(count, counts, i);

		if (gather)
			mpirma_nbc_recv(s, i, slot, k, bt);
		else
			mpirma_nbc_send(s, i, slot, k, bt);
	}
	if (root >= 0 && gather)
		mpirma_nbc_send(s, root, obuf, ocount, ot);
	else if (root >= 0)
		mpirma_nbc_recv(s, root, obuf, ocount, ot);
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_inter_allgatherv(struct mpirma_comm *c, const void *sendbuf,
				int scount, struct mpirma_dtype *st,
				void *recvbuf, int rcount, const int *counts,
				const int *displs, struct mpirma_dtype *rt,
				MPI_Request *out)
{
	MPI_Aint rext = mpirma_dtype_extent(rt);
	struct mpirma_nbc *s;
	int i, ret = mpirma_coll_inter_in_place(sendbuf);

	if (!ret)
		ret = mpirma_nbc_new(c, &s);
	if (ret)
		return ret;
	for (i = 0; i < c->rsize; i++)
		mpirma_nbc_send(s, i, sendbuf, scount, st);
	for (i = 0; i < c->rsize; i++)
		mpirma_nbc_recv(s, i, block_at(recvbuf, rext, rcount, counts,
					       displs, i),
				block_count(rcount, counts, i), rt);
	return mpirma_nbc_start(s, out);
}

int mpirma_nbc_inter_a2a(struct mpirma_comm *c, const struct mpirma_a2a_side *sd,
			 const struct mpirma_a2a_side *rd, MPI_Request *out)
{
	struct mpirma_dtype *t;
	struct mpirma_nbc *s;
	int i, n, ret = mpirma_coll_inter_in_place(sd->buf);
	char *p;

	if (!ret)
		ret = mpirma_nbc_new(c, &s);
	if (ret)
		return ret;
	for (i = 0; i < c->rsize; i++) {
		mpirma_a2a_block(sd, i, &p, &n, &t);
		mpirma_nbc_send(s, i, p, n, t);
	}
	for (i = 0; i < c->rsize; i++) {
		mpirma_a2a_block(rd, i, &p, &n, &t);
		mpirma_nbc_recv(s, i, p, n, t);
	}
	return mpirma_nbc_start(s, out);
}
