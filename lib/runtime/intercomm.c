// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * intercomm.c - inter-communicators: MPI_Intercomm_create,
 * MPI_Intercomm_merge, and MPI_Comm_dup, MPI_Comm_split and MPI_Comm_create
 * of an inter-communicator.
 *
 * An inter-communicator is a communicator (struct mpirma_comm) whose own
 * group is the local one and whose point-to-point ranks name the remote
 * group (rranks); the two groups are disjoint.  Its collectives
 * (lib/runtime/coll.c) run their local steps on c->local, an
 * intra-communicator object of the local group that shares the context, and
 * let the two leaders (local rank 0) exchange the rest.
 *
 * Context ids: each group agrees on the MAX of its members' next free ids
 * (an allgather over the local group), the leaders swap those, and both
 * groups take the MAX of the two, which none of the members of either group
 * has used (lib/runtime/comm.c explains the scheme).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "coll.h"
#include "p2p.h"

/* What one group tells the other through the leaders. */
struct inter_hello {
	uint64_t next_ctx;	/* MAX of the group's next free context ids */
	int32_t size;		/* group size */
	int32_t high;		/* MPI_Intercomm_merge's argument */
};

/* The MAX of the next free context ids of @c's members; collective. */
static int group_next_ctx(struct mpirma_comm *c, uint64_t *max)
{
	uint64_t *all = malloc(c->size * sizeof(*all));
	int i, ret;

	if (!all)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = mpirma_coll_allgather_bytes(c, &mpirma_proc.next_ctx,
					  sizeof(uint64_t), all);
	*max = 0;
	for (i = 0; !ret && i < c->size; i++)
		if (all[i] > *max)
			*max = all[i];
	free(all);
	return ret;
}

/* job rank -> index in @ranks (-1 elsewhere), mpirma_proc.size entries. */
static int *rank_map(int n, const int *ranks)
{
	int *map = malloc(mpirma_proc.size * sizeof(*map));
	int i;

	if (!map)
		return NULL;
	for (i = 0; i < mpirma_proc.size; i++)
		map[i] = -1;
	for (i = 0; i < n; i++)
		map[ranks[i]] = i;
	return map;
}

/* runtime.h */
int mpirma_intercomm_new(struct mpirma_comm *parent, int ln,
			 const int *lranks, int rn, const int *rranks,
			 uint64_t ctx, MPI_Comm *out)
{
	struct mpirma_comm *c;
	int ret;

	ret = mpirma_comm_new(parent, ln, lranks, ctx, out);
	if (ret)
		return ret;
	c = mpirma_comm_get(*out);
	c->rranks = malloc(rn * sizeof(int));
	c->rjob2rank = rank_map(rn, rranks);
	c->local = malloc(sizeof(*c->local));
	if (!c->rranks || !c->rjob2rank || !c->local) {
		PMPI_Comm_free(out);
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory for an "
				  "inter-communicator");
	}
	memcpy(c->rranks, rranks, rn * sizeof(int));
	c->rsize = rn;
	/* The local group's view; it shares the arrays, which c owns. */
	*c->local = *c;
	memset(&c->local->hdr, 0, sizeof(c->local->hdr));
	c->local->handle = MPI_COMM_NULL;
	c->local->info = MPI_INFO_NULL;
	c->local->rranks = c->local->rjob2rank = NULL;
	c->local->local = NULL;
	c->inter = true;
	return MPI_SUCCESS;
}

/*
 * The leaders of inter-communicator @c swap @mlen bytes @mine for the other
 * group's @tlen bytes, which every member then has in @theirs.  Collective
 * over @c.  MPI class.
 */
static int inter_swap(struct mpirma_comm *c, const void *mine, size_t mlen,
		      void *theirs, size_t tlen)
{
	struct mpirma_msg m;
	int ret = MPI_SUCCESS;

	if (c->rank == 0) {
		ret = mpirma_msg_send(c->rranks[0], MPIRMA_TAG_INTERCOMM,
				      mpirma_ctx_coll(c), mine, mlen);
		if (ret < 0)
			return mpirma_err_errno(ret, "sending to the remote "
						"leader");
		ret = mpirma_msg_recv(0, (uint32_t)c->rranks[0],
				      MPIRMA_TAG_INTERCOMM, mpirma_ctx_coll(c),
				      theirs, tlen, &m);
		if (ret < 0)
			return mpirma_err_errno(ret, "receiving from the "
						"remote leader");
	}
	return mpirma_coll_bcast(c->local, theirs, (int)tlen, MPI_BYTE, 0);
}

static int inter_hello(struct mpirma_comm *c, const struct inter_hello *mine,
		       struct inter_hello *theirs)
{
	return inter_swap(c, mine, sizeof(*mine), theirs, sizeof(*theirs));
}

/* A context id new to both groups of @c; collective over @c. */
static int inter_context(struct mpirma_comm *c, int high, uint64_t *ctx,
			 struct inter_hello *theirs)
{
	struct inter_hello mine = { .size = c->size, .high = !!high };
	int ret;

	ret = group_next_ctx(c->local, &mine.next_ctx);
	if (!ret)
		ret = inter_hello(c, &mine, theirs);
	if (ret)
		return ret;
	*ctx = mine.next_ctx > theirs->next_ctx ? mine.next_ctx :
	       theirs->next_ctx;
	mpirma_ctx_take(*ctx);
	return MPI_SUCCESS;
}

int mpirma_intercomm_dup(struct mpirma_comm *c, const uint64_t *spare,
			 MPI_Comm *out)
{
	struct inter_hello theirs;
	uint64_t ctx;
	int ret = MPI_SUCCESS;

	if (spare)
		ctx = *spare;
	else
		ret = inter_context(c, 0, &ctx, &theirs);
	return ret ? ret : mpirma_intercomm_new(c, c->size, c->ranks,
						c->rsize, c->rranks, ctx,
						out);
}

/* One member's part in an inter-communicator split. */
struct inter_split {
	int32_t color;
	int32_t key;
	uint64_t next_ctx;
};

static int cmp_split(const void *a, const void *b)
{
	const int *x = a, *y = b;	/* key, rank */

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * The job ranks of the @n members @all of one group (job ranks @ranks)
 * whose colour is @color, ordered by key then rank, into @out; their count.
 */
static int split_members(const struct inter_split *all, int n,
			 const int *ranks, int color, int *out)
{
	int (*mem)[2] = malloc((n ? n : 1) * sizeof(*mem));
	int i, k = 0;

	if (!mem)
		return -1;
	for (i = 0; i < n; i++)
		if (all[i].color == color) {
			mem[k][0] = all[i].key;
			mem[k++][1] = i;
		}
	qsort(mem, k, sizeof(*mem), cmp_split);
	for (i = 0; i < k; i++)
		out[i] = ranks[mem[i][1]];
	free(mem);
	return k;
}

int mpirma_intercomm_split(struct mpirma_comm *c, int color, int key,
			   MPI_Comm *newcomm)
{
	struct inter_split me = { color, key, mpirma_proc.next_ctx };
	struct inter_split *loc, *rem;
	int *lranks = NULL, *rranks = NULL, ln, rn, i, ret;
	uint64_t ctx = 0;

	*newcomm = MPI_COMM_NULL;
	loc = malloc(c->size * sizeof(*loc));
	rem = malloc(c->rsize * sizeof(*rem));
	if (!loc || !rem) {
		ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	/* Every member of both groups learns every colour and key. */
	ret = mpirma_coll_allgather_bytes(c->local, &me, sizeof(me), loc);
	if (!ret)
		ret = inter_swap(c, loc, c->size * sizeof(*loc), rem,
				 c->rsize * sizeof(*rem));
	if (ret)
		goto out;
	/* One id for every colour: the new communicators are disjoint. */
	for (i = 0; i < c->size; i++)
		ctx = loc[i].next_ctx > ctx ? loc[i].next_ctx : ctx;
	for (i = 0; i < c->rsize; i++)
		ctx = rem[i].next_ctx > ctx ? rem[i].next_ctx : ctx;
	mpirma_ctx_take(ctx);
	if (color == MPI_UNDEFINED)
		goto out;
	lranks = malloc(c->size * sizeof(int));
	rranks = malloc(c->rsize * sizeof(int));
	if (!lranks || !rranks) {
		ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	ln = split_members(loc, c->size, c->ranks, color, lranks);
	rn = split_members(rem, c->rsize, c->rranks, color, rranks);
	if (ln < 0 || rn < 0)
		ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	/* No remote member of this colour: MPI_COMM_NULL, as the standard says */
	else if (rn > 0)
		ret = mpirma_intercomm_new(c, ln, lranks, rn, rranks, ctx,
					   newcomm);
out:
	free(loc);
	free(rem);
	free(lranks);
	free(rranks);
	return ret;
}

/* ------------------------------------------------------------ API */

/*
 * The leaders swap hellos and group lists over @peer_comm with the user's
 * tag, as the standard has it; MPI class.
 */
static int leaders_swap(MPI_Comm peer_comm, int remote_leader, int tag,
			const struct inter_hello *mine, const int *lranks,
			struct inter_hello *theirs, int **rranks)
{
	int ret;

	ret = PMPI_Sendrecv(mine, sizeof(*mine), MPI_BYTE, remote_leader, tag,
			    theirs, sizeof(*theirs), MPI_BYTE, remote_leader,
			    tag, peer_comm, MPI_STATUS_IGNORE);
	if (ret)
		return ret;
	if (theirs->size <= 0 || theirs->size > mpirma_proc.size)
		return mpirma_err(MPI_ERR_INTERN, "the remote leader sent a "
				  "group of %d", theirs->size);
	*rranks = malloc(theirs->size * sizeof(int));
	if (!*rranks)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	return PMPI_Sendrecv(lranks, mine->size, MPI_INT, remote_leader, tag,
			     *rranks, theirs->size, MPI_INT, remote_leader,
			     tag, peer_comm, MPI_STATUS_IGNORE);
}

static int intercomm_create(struct mpirma_comm *lc, int local_leader,
			    MPI_Comm peer_comm, int remote_leader, int tag,
			    MPI_Comm *newintercomm)
{
	struct inter_hello mine = { .size = lc->size }, theirs = { 0 };
	int *rranks = NULL, ret, i;
	uint64_t ctx;

	ret = mpirma_comm_intra_only(lc, "the local communicator of "
				     "MPI_Intercomm_create");
	if (!ret && (local_leader < 0 || local_leader >= lc->size))
		ret = mpirma_err(MPI_ERR_RANK, "local leader %d is not in "
				 "0..%d", local_leader, lc->size - 1);
	if (!ret && !newintercomm)
		ret = mpirma_err(MPI_ERR_ARG, "newintercomm is NULL");
	if (ret)
		return ret;
	*newintercomm = MPI_COMM_NULL;
	ret = group_next_ctx(lc, &mine.next_ctx);
	if (ret)
		return ret;
	if (lc->rank == local_leader) {
		ret = leaders_swap(peer_comm, remote_leader, tag, &mine,
				   lc->ranks, &theirs, &rranks);
		/* the group learns of a failed swap: size 0 */
		if (ret)
			theirs.size = 0;
	}
	i = mpirma_coll_bcast(lc, &theirs, sizeof(theirs), MPI_BYTE,
			      local_leader);
	if (!ret)
		ret = i;
	if (!ret && theirs.size <= 0)
		ret = mpirma_err(MPI_ERR_OTHER, "the local leader could not "
				 "reach the remote group");
	if (!ret && lc->rank != local_leader) {
		rranks = malloc(theirs.size * sizeof(int));
		if (!rranks)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	/* every member takes part in the broadcast, even without memory */
	if (theirs.size > 0) {
		int *buf = rranks ? rranks : calloc(theirs.size, sizeof(int));

		i = buf ? mpirma_coll_bcast(lc, buf, theirs.size, MPI_INT,
					    local_leader) :
		    mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		if (buf != rranks)
			free(buf);
		if (!ret)
			ret = i;
	}
	if (!ret) {
		for (i = 0; i < theirs.size; i++)
			if (mpirma_comm_rank_of_job(lc, rranks[i]) !=
			    MPI_UNDEFINED)
				ret = mpirma_err(MPI_ERR_COMM, "the two groups "
						 "overlap (job rank %d)",
						 rranks[i]);
	}
	if (!ret) {
		ctx = mine.next_ctx > theirs.next_ctx ? mine.next_ctx :
		      theirs.next_ctx;
		mpirma_ctx_take(ctx);
		ret = mpirma_intercomm_new(lc, lc->size, lc->ranks,
					   theirs.size, rranks, ctx,
					   newintercomm);
	}
	free(rranks);
	return ret;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
			  MPI_Comm peer_comm, int remote_leader, int tag,
			  MPI_Comm *newintercomm)
{
	struct mpirma_comm *lc;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(lc, local_comm);
	return mpirma_raise_comm(local_comm,
				 intercomm_create(lc, local_leader, peer_comm,
						  remote_leader, tag,
						  newintercomm),
				 MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Intercomm_create)

/*
 * The group that said high = false comes first; when both said the same,
 * the group whose leader has the lower job rank.
 */
static int intercomm_merge(struct mpirma_comm *c, int high,
			   MPI_Comm *newintracomm)
{
	struct inter_hello theirs;
	bool mine_first;
	uint64_t ctx;
	int *ranks, n, ret;

	if (!c->inter)
		return mpirma_err(MPI_ERR_COMM, "not an inter-communicator");
	if (!newintracomm)
		return mpirma_err(MPI_ERR_ARG, "newintracomm is NULL");
	*newintracomm = MPI_COMM_NULL;
	ret = inter_context(c, high, &ctx, &theirs);
	if (ret)
		return ret;
	mine_first = !!high != theirs.high ? !high :
		     c->ranks[0] < c->rranks[0];
	n = c->size + c->rsize;
	ranks = malloc(n * sizeof(*ranks));
	if (!ranks)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	memcpy(ranks + (mine_first ? 0 : c->rsize), c->ranks,
	       c->size * sizeof(int));
	memcpy(ranks + (mine_first ? c->size : 0), c->rranks,
	       c->rsize * sizeof(int));
	ret = mpirma_comm_new(c, n, ranks, ctx, newintracomm);
	free(ranks);
	return ret;
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high,
			 MPI_Comm *newintracomm)
{
	struct mpirma_comm *c;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_COMM(c, intercomm);
	return mpirma_raise_comm(intercomm, intercomm_merge(c, high,
							    newintracomm),
				 MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Intercomm_merge)
