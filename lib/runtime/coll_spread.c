// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll_spread.c - the collectives that spread or collect data over the
 * ranks (docs/lib.md, "Collectives"): Allgather(v), Gather(v) and
 * Scatter(v), Alltoall(v/w), Reduce_scatter(_block), Scan and Exscan, over
 * the messages of coll_msg.h.  coll.c says why sends may come first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "coll.h"
#include "coll_msg.h"
#include "datatype.h"
#include "op.h"

/*
 * Allgather(v) on an inter-communicator: the whole send buffer to every
 * rank of the other group, block i of @recvbuf from remote rank i.
 */
static int allgather_inter(struct mpirma_comm *c, const void *sendbuf,
			   int scount, struct mpirma_dtype *st, void *recvbuf,
			   int rcount, const int *counts, const int *displs,
			   struct mpirma_dtype *rt)
{
	MPI_Aint rext = mpirma_dtype_extent(rt);
	int i, ret = mpirma_coll_inter_in_place(sendbuf);

	for (i = 0; i < c->rsize && !ret; i++)
		ret = mpirma_coll_send(c, i, TAG_ALLGATHER, sendbuf, scount, st);
	for (i = 0; i < c->rsize && !ret; i++)
		ret = mpirma_coll_recv(c, i, TAG_ALLGATHER,
				       block_at(recvbuf, rext, rcount, counts,
						displs, i),
				       block_count(rcount, counts, i), rt);
	return ret;
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
		return allgather_inter(c, sendbuf, scount, st, recvbuf, rcount,
				       counts, displs, rt);
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
		ret = mpirma_coll_send(c, wrap_rank(c->rank + i, c->size),
				       TAG_ALLGATHER, sendbuf, scount, st);
	for (i = 1; !ret && i < c->size; i++) {
		int from = wrap_rank(c->rank - i + c->size, c->size);

		ret = mpirma_coll_recv(c, from, TAG_ALLGATHER, SLOT(from), COUNT(from), rt);
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
		return gather ? mpirma_coll_send(c, root, tag, obuf, ocount, ot) :
		       mpirma_coll_recv(c, root, tag, obuf, ocount, ot);
	ext = mpirma_dtype_extent(bt);
	for (i = 0; i < n && !ret; i++) {
		char *slot = block_at(buf, ext, count, counts, displs, i);
		int k = block_count(count, counts, i);

		if (c->inter || i != root)
			ret = gather ? mpirma_coll_recv(c, i, tag, slot, k, bt) :
			      mpirma_coll_send(c, i, tag, slot, k, bt);
		else if (obuf == MPI_IN_PLACE)
			continue;
		else if (gather)
			ret = mpirma_dtype_copy(obuf, ocount, ot, slot, k, bt);
		else
			ret = mpirma_dtype_copy(slot, k, bt, obuf, ocount, ot);
	}
	return ret;
}

/* coll_msg.h */
void mpirma_a2a_block(const struct mpirma_a2a_side *s, int i, char **p,
		      int *n, struct mpirma_dtype **t)
{
	*n = block_count(s->count, s->counts, i);
	if (s->types) {
		*t = s->types[i];
		*p = at(s->buf, s->displs[i]);
	} else {
		*t = s->t;
		*p = block_at(s->buf, mpirma_dtype_extent(s->t), s->count,
			      s->counts, s->displs, i);
	}
}

/*
 * Alltoall(v/w) on an intra-communicator: every block sent, then every
 * block received.  @s == @r in place: sends are buffered, so everything
 * is sent before anything is overwritten.
 */
static int a2a_intra(struct mpirma_comm *c, const struct mpirma_a2a_side *s,
		     const struct mpirma_a2a_side *r)
{
	struct mpirma_dtype *st, *rt;
	char *sp, *rp;
	int i, sn, rn, ret = MPI_SUCCESS;

	for (i = 1; !ret && i < c->size; i++) {
		int to = wrap_rank(c->rank + i, c->size);

		mpirma_a2a_block(s, to, &sp, &sn, &st);
		ret = mpirma_coll_send(c, to, TAG_ALLTOALL, sp, sn, st);
	}
	if (!ret && s != r) {
		mpirma_a2a_block(s, c->rank, &sp, &sn, &st);
		mpirma_a2a_block(r, c->rank, &rp, &rn, &rt);
		ret = mpirma_dtype_copy(sp, sn, st, rp, rn, rt);
	}
	for (i = 1; !ret && i < c->size; i++) {
		int from = wrap_rank(c->rank - i + c->size, c->size);

		mpirma_a2a_block(r, from, &rp, &rn, &rt);
		ret = mpirma_coll_recv(c, from, TAG_ALLTOALL, rp, rn, rt);
	}
	return ret;
}

/* Alltoall(v/w) on an inter-communicator: block i with remote rank i. */
static int a2a_inter(struct mpirma_comm *c, const struct mpirma_a2a_side *s,
		     const struct mpirma_a2a_side *r)
{
	struct mpirma_dtype *t;
	int i, n, ret = mpirma_coll_inter_in_place(s->buf);
	char *p;

	for (i = 0; i < c->rsize && !ret; i++) {
		mpirma_a2a_block(s, i, &p, &n, &t);
		ret = mpirma_coll_send(c, i, TAG_ALLTOALL, p, n, t);
	}
	for (i = 0; i < c->rsize && !ret; i++) {
		mpirma_a2a_block(r, i, &p, &n, &t);
		ret = mpirma_coll_recv(c, i, TAG_ALLTOALL, p, n, t);
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
	struct mpirma_a2a_side s = { sendbuf, scount, scounts, sdispls,
				     st, NULL };
	struct mpirma_a2a_side r = { recvbuf, rcount, rcounts, rdispls,
				     rt, NULL };

	if (c->inter)
		return a2a_inter(c, &s, &r);
	return a2a_intra(c, sendbuf == MPI_IN_PLACE ? &r : &s, &r);
}

int mpirma_coll_run_alltoallw(struct mpirma_comm *c, const void *sendbuf,
			      const int *scounts, const int *sdispls,
			      struct mpirma_dtype *const *stypes,
			      void *recvbuf, const int *rcounts,
			      const int *rdispls,
			      struct mpirma_dtype *const *rtypes)
{
	struct mpirma_a2a_side s = { sendbuf, 0, scounts, sdispls, NULL,
				     stypes };
	struct mpirma_a2a_side r = { recvbuf, 0, rcounts, rdispls, NULL,
				     rtypes };

	if (c->inter)
		return a2a_inter(c, &s, &r);
	return a2a_intra(c, sendbuf == MPI_IN_PLACE ? &r : &s, &r);
}

/*
 * Rank 0's @full (NULL elsewhere), each rank's block of it to that rank of
 * intra-communicator @c (@counts NULL: @rcount elements each).  @ret: an
 * error of an earlier step, after which nobody waits for a block.
 */
static int scatter_blocks(struct mpirma_comm *c, int ret, const void *full,
			  void *recvbuf, int rcount, const int *counts,
			  struct mpirma_dtype *t)
{
	MPI_Aint ext = mpirma_dtype_extent(t);
	MPI_Count off;
	int i;

	if (!ret && c->rank != 0)
		ret = mpirma_coll_recv(c, 0, TAG_RSCATTER, recvbuf,
			    block_count(rcount, counts, c->rank), t);
	for (i = 0, off = 0; !ret && c->rank == 0 && i < c->size; i++) {
		MPI_Count n = block_count(rcount, counts, i);

		if (i == 0)
			mpirma_dtype_copy_same(t, n, recvbuf, full);
		else
			ret = mpirma_coll_send(c, i, TAG_RSCATTER,
					       at(full, off * ext), n, t);
		off += n;
	}
	return ret;
}

/*
 * Reduce_scatter(_block): the whole vector reduced to rank 0, then scattered
 * (@counts NULL: @rcount elements each).  On an inter-communicator each
 * group reduces to its leader, the leaders swap, and each scatters the
 * other group's reduction in its own group (the totals of both groups'
 * counts are equal, as the standard requires).
 */
int mpirma_coll_run_reduce_scatter(struct mpirma_comm *c, const void *sendbuf,
				   void *recvbuf, int rcount,
				   const int *counts, struct mpirma_dtype *t,
				   MPI_Datatype dt, MPI_Op op)
{
	struct mpirma_comm *lc = c->inter ? c->local : c;
	void *alloc[2] = { NULL, NULL }, *full = NULL, *mine = NULL;
	MPI_Count total = 0;
	int i, ret = MPI_SUCCESS;

	for (i = 0; i < c->size; i++)
		total += block_count(rcount, counts, i);
	if (total > 0x7fffffff)
		return mpirma_err(MPI_ERR_COUNT, "total count too large");
	if (c->inter)
		ret = mpirma_coll_inter_in_place(sendbuf);
	if (ret)
		return ret;
	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	if (!total)
		return MPI_SUCCESS;
	if (c->rank == 0) {
		full = mpirma_dtype_scratch(t, total, &alloc[0]);
		mine = c->inter ? mpirma_dtype_scratch(t, total, &alloc[1]) : full;
		if (!full || !mine) {
			free(alloc[0]);
			free(alloc[1]);
			full = mine = NULL;
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		}
	}
	/* the group's steps run even after the leader's error: nobody waits */
	if (!ret || c->rank != 0) {
		int r2 = mpirma_coll_reduce_to0(lc, sendbuf, mine, total, t,
						dt, op);

		ret = ret ? ret : r2;
	}
	if (!ret && c->inter && c->rank == 0) {
		ret = mpirma_coll_send(c, 0, TAG_RSCATTER, mine, total, t);
		if (!ret)
			ret = mpirma_coll_recv(c, 0, TAG_RSCATTER, full, total,
					       t);
	}
	ret = scatter_blocks(lc, ret, full, recvbuf, rcount, counts, t);
	free(alloc[0]);
	free(alloc[1]);
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
			ret = mpirma_coll_recv(c, c->rank - 1, tag, prefix, count, t);
			if (!ret)
				ret = mpirma_op_apply(op, dt, prefix, recvbuf,
						      count);
		}
		if (!ret && !last)
			ret = mpirma_coll_send(c, c->rank + 1, tag, recvbuf, count, t);
		free(palloc);
		return ret;
	}
	/* Exscan: recvbuf = prefix (undefined at rank 0); pass prefix op mine. */
	if (c->rank == 0) {
		if (!last)
			ret = mpirma_coll_send(c, 1, tag, sendbuf, count, t);
		return ret;
	}
	prefix = mpirma_dtype_scratch(t, count, &palloc);
	if (!prefix)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = mpirma_coll_recv(c, c->rank - 1, tag, prefix, count, t);
	if (!ret && !last) {
		sum = mpirma_dtype_scratch(t, count, &salloc);
		if (!sum) {
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		} else {
			mpirma_dtype_copy_same(t, count, sum, sendbuf);
			ret = mpirma_op_apply(op, dt, prefix, sum, count);
			if (!ret)
				ret = mpirma_coll_send(c, c->rank + 1, tag, sum, count, t);
		}
	}
	if (!ret)
		mpirma_dtype_copy_same(t, count, recvbuf, prefix);
	free(palloc);
	free(salloc);
	return ret;
}
