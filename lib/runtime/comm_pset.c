// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * comm_pset.c - communicators from groups alone (MPI 4.0, the Sessions
 * model): MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups.
 *
 * No parent communicator exists, so the members agree on a context id
 * among themselves, as MPI_Comm_create_group does among its group
 * (comm.c, mpirma_members_context): each sends its next free id to the
 * others and all take the MAX.  The messages travel in a kernel context
 * of their own (MPIRMA_KCTX_PSET, which no communicator has), with a tag
 * hashed from the string tag and the member list, so that concurrent
 * calls of different groups or tags never take each other's ids, and
 * calls with the same ones, which the standard orders, match in order.
 * MPI_Intercomm_create_from_groups agrees over the union of both groups,
 * listed by job rank on both sides; the leaders need not relay anything.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

/* FNV-1a over @len bytes, continuing from @h. */
static uint32_t fnv1a(uint32_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--) {
		h ^= *b++;
		h *= 16777619u;
	}
	return h;
}

/* The agreement's tag: @stringtag and the @n members @ranks, >= 0. */
static int pset_tag(const char *stringtag, int n, const int *ranks)
{
	uint32_t h = fnv1a(2166136261u, stringtag, strlen(stringtag));

	h = fnv1a(h, ranks, n * sizeof(*ranks));
	return (int)(h & 0x7fffffff);
}

/*
 * The arguments both calls share: a string tag, an info and a
 * communicator error handler.  MPI class (recorded).
 */
static int common_check(const char *stringtag, MPI_Info info,
			MPI_Errhandler errhandler, const MPI_Comm *newcomm)
{
	if (!newcomm)
		return mpirma_err(MPI_ERR_ARG, "newcomm is NULL");
	if (!stringtag)
		return mpirma_err(MPI_ERR_ARG, "stringtag is NULL");
	if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
		return mpirma_err(MPI_ERR_ARG, "stringtag is longer than "
				  "MPI_MAX_STRINGTAG_LEN - 1 (%d)",
				  MPI_MAX_STRINGTAG_LEN - 1);
	if (!mpirma_errhandler_fits(errhandler, MPIRMA_HK_COMM))
		return mpirma_err(MPI_ERR_ARG, "%d is not a communicator "
				  "error handler", errhandler);
	return mpirma_info_arg_check(info);
}

/* A group argument the caller must (@member) or must not be in. */
static int group_check(MPI_Group group, bool member, const char *what,
		       struct mpirma_group **g)
{
	*g = group == MPI_GROUP_NULL ? NULL : mpirma_group_get(group);
	if (!*g)
		return mpirma_err(MPI_ERR_GROUP, "invalid %s %d", what, group);
	if (member && (*g)->rank == MPI_UNDEFINED)
		return mpirma_err(MPI_ERR_GROUP, "the calling process is not "
				  "in the %s", what);
	if (!member && (*g)->rank != MPI_UNDEFINED)
		return mpirma_err(MPI_ERR_GROUP, "the calling process is in "
				  "the %s too: the groups must be disjoint",
				  what);
	return MPI_SUCCESS;
}

/* The new communicator's error handler and info hints. */
static int finish(MPI_Comm *newcomm, MPI_Info info, int ret)
{
	if (!ret && info != MPI_INFO_NULL)
		ret = PMPI_Comm_set_info(*newcomm, info);
	if (ret && *newcomm != MPI_COMM_NULL) {
		mpirma_comm_discard(*newcomm);
		*newcomm = MPI_COMM_NULL;
	}
	return ret;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag,
				MPI_Info info, MPI_Errhandler errhandler,
				MPI_Comm *newcomm)
{
	/* what mpirma_comm_new() inherits: @errhandler */
	struct mpirma_comm parent = { .hdr.errhandler = errhandler };
	struct mpirma_group *g;
	uint64_t ctx;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = common_check(stringtag, info, errhandler, newcomm);
	if (!ret)
		*newcomm = MPI_COMM_NULL;
	if (!ret)
		ret = group_check(group, true, "group", &g);
	if (!ret)
		ret = mpirma_members_context(g->size, g->ranks, g->rank,
					     MPIRMA_KCTX_PSET,
					     pset_tag(stringtag, g->size,
						      g->ranks), &ctx);
	if (!ret)
		ret = mpirma_comm_new(&parent, g->size, g->ranks, ctx,
				      newcomm);
	ret = finish(newcomm, info, ret);
	/* No communicator yet: raised on the handler given. */
	if (ret && errhandler == MPI_ERRORS_RETURN)
		return ret;
	return mpirma_raise(ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Comm_create_from_group)

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * The context of an inter-communicator of groups @l and @r: agreed on by
 * their union, in job rank order.  MPI class.
 */
static int inter_context(struct mpirma_group *l, struct mpirma_group *r,
			 const char *stringtag, uint64_t *ctx)
{
	int n = l->size + r->size, *all = malloc(n * sizeof(*all));
	int i, me = -1, ret;

	if (!all)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	memcpy(all, l->ranks, l->size * sizeof(*all));
	memcpy(all + l->size, r->ranks, r->size * sizeof(*all));
	qsort(all, n, sizeof(*all), cmp_int);
	for (i = 0; i < n; i++) {
		if (i && all[i] == all[i - 1]) {
			free(all);
			return mpirma_err(MPI_ERR_GROUP, "job rank %d is in "
					  "both groups: they must be "
					  "disjoint", all[i]);
		}
		if (all[i] == mpirma_proc.rank)
			me = i;
	}
	ret = mpirma_members_context(n, all, me, MPIRMA_KCTX_PSET,
				     pset_tag(stringtag, n, all), ctx);
	free(all);
	return ret;
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
				      MPI_Group remote_group,
				      int remote_leader, const char *stringtag,
				      MPI_Info info, MPI_Errhandler errhandler,
				      MPI_Comm *newintercomm)
{
	struct mpirma_comm parent = { .hdr.errhandler = errhandler };
	struct mpirma_group *l, *r;
	uint64_t ctx;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = common_check(stringtag, info, errhandler, newintercomm);
	if (!ret)
		*newintercomm = MPI_COMM_NULL;
	if (!ret)
		ret = group_check(local_group, true, "local group", &l);
	if (!ret)
		ret = group_check(remote_group, false, "remote group", &r);
	if (!ret && (local_leader < 0 || local_leader >= l->size))
		ret = mpirma_err(MPI_ERR_RANK, "local_leader %d is not a rank "
				 "of the local group (size %d)", local_leader,
				 l->size);
	if (!ret && (remote_leader < 0 || remote_leader >= r->size))
		ret = mpirma_err(MPI_ERR_RANK, "remote_leader %d is not a "
				 "rank of the remote group (size %d)",
				 remote_leader, r->size);
	if (!ret)
		ret = inter_context(l, r, stringtag, &ctx);
	if (!ret)
		ret = mpirma_intercomm_new(&parent, l->size, l->ranks, r->size,
					   r->ranks, ctx, newintercomm);
	ret = finish(newintercomm, info, ret);
	if (ret && errhandler == MPI_ERRORS_RETURN)
		return ret;
	return mpirma_raise(ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Intercomm_create_from_groups)
