// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * group.c - MPI groups: ordered sets of job ranks.
 *
 * A group is immutable once made.  Set operations mark membership in a
 * per-job-rank array (jobs have at most MPIRMA_MAX_RANKS ranks).
 * Errors of group calls have no object: they go to MPI_COMM_WORLD.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static struct mpirma_group group_empty = {
	.refs = 1,
	.size = 0,
	.rank = MPI_UNDEFINED,
};

struct mpirma_group *mpirma_group_get(MPI_Group g)
{
	if (g == MPI_GROUP_EMPTY)
		return &group_empty;
	return mpirma_handle_get(MPIRMA_HK_GROUP, g);
}

static void group_unref(MPI_Group handle, struct mpirma_group *g)
{
	if (g == &group_empty || --g->refs > 0)
		return;
	mpirma_handle_free(MPIRMA_HK_GROUP, handle);
	free(g->ranks);
	free(g);
}

int mpirma_group_new(int n, const int *job_ranks, MPI_Group *out)
{
	struct mpirma_group *g;
	int i;

	if (n == 0) {
		*out = MPI_GROUP_EMPTY;
		return MPI_SUCCESS;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		goto out_nomem;
	g->ranks = malloc(n * sizeof(int));
	if (!g->ranks)
		goto out_free_group;
	memcpy(g->ranks, job_ranks, n * sizeof(int));
	g->refs = 1;
	g->size = n;
	g->rank = MPI_UNDEFINED;
	for (i = 0; i < n; i++)
		if (job_ranks[i] == mpirma_proc.rank)
			g->rank = i;
	*out = mpirma_handle_alloc(MPIRMA_HK_GROUP, g);
	if (*out)
		return MPI_SUCCESS;
	free(g->ranks);
out_free_group:
	free(g);
out_nomem:
	return mpirma_err(MPI_ERR_NO_MEM, "cannot allocate a group of %d", n);
}

/* A job-rank-indexed array, zeroed: a scratch set for the operations below. */
static int *job_set(void)
{
	return calloc(mpirma_proc.size ? mpirma_proc.size : 1, sizeof(int));
}

#define GET_GROUP(var, handle)						\
	do {								\
		var = mpirma_group_get(handle);				\
		if (!var)						\
			return mpirma_raise(MPI_ERR_GROUP, MPIRMA_FUNC,	\
					    "invalid group %d", handle); \
	} while (0)

MPIRMA_QUERY(Group_size, MPI_Group, struct mpirma_group, GET_GROUP, int,
	     o->size)
MPIRMA_QUERY(Group_rank, MPI_Group, struct mpirma_group, GET_GROUP, int,
	     o->rank)

int PMPI_Group_free(MPI_Group *group)
{
	struct mpirma_group *g;

	MPIRMA_CHECK_INIT();
	GET_GROUP(g, *group);
	group_unref(*group, g);
	*group = MPI_GROUP_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Group_free)

/*
 * Checks @n group ranks @r of @g (valid and distinct) and marks them in
 * *@seen (g->size entries, malloc'ed).  MPI class (recorded).
 */
static int ranks_mark(const struct mpirma_group *g, int n, const int *r,
		      int **seen)
{
	int i;

	*seen = NULL;
	if (n < 0 || n > g->size)
		return mpirma_err(MPI_ERR_ARG, "%d ranks of a group of %d", n,
				  g->size);
	*seen = calloc(g->size ? g->size : 1, sizeof(int));
	if (!*seen)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (r[i] < 0 || r[i] >= g->size)
			return mpirma_err(MPI_ERR_RANK, "rank %d is not in a "
					  "group of %d", r[i], g->size);
		if ((*seen)[r[i]]++)
			return mpirma_err(MPI_ERR_RANK, "rank %d given twice",
					  r[i]);
	}
	return MPI_SUCCESS;
}

/* Makes the group of members @sel[0..n) of @g (group ranks). */
static int group_select(struct mpirma_group *g, int n, const int *sel,
			MPI_Group *out, const char *fn)
{
	int *jobs = NULL, *seen, i, ret;

	ret = ranks_mark(g, n, sel, &seen);
	if (!ret) {
		jobs = malloc((n ? n : 1) * sizeof(int));
		if (!jobs)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (!ret) {
		for (i = 0; i < n; i++)
			jobs[i] = g->ranks[sel[i]];
		ret = mpirma_group_new(n, jobs, out);
	}
	free(jobs);
	free(seen);
	return mpirma_raise(ret, fn, NULL);
}

/* The group ranks of @g not in @excl[0..n), in order. */
static int group_exclude(struct mpirma_group *g, int n, const int *excl,
			 MPI_Group *out, const char *fn)
{
	int *keep = NULL, *drop, i, k = 0, ret;

	ret = ranks_mark(g, n, excl, &drop);
	if (!ret) {
		keep = malloc((g->size ? g->size : 1) * sizeof(int));
		if (!keep)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	if (ret) {
		free(drop);
		return mpirma_raise(ret, fn, NULL);
	}
	for (i = 0; i < g->size; i++)
		if (!drop[i])
			keep[k++] = i;
	ret = group_select(g, k, keep, out, fn);
	free(keep);
	free(drop);
	return ret;
}

/*
 * The calls that make a group of some ranks of @group, named by the n
 * ranks or ranges of @list_decl: @select, of g, n, the list and newgroup.
 */
#define SELECT_DEFINE(name, list_decl, select)				\
int PMPI_##name(MPI_Group group, int n, list_decl, MPI_Group *newgroup) \
{									\
	struct mpirma_group *g;						\
									\
	MPIRMA_CHECK_INIT();						\
	GET_GROUP(g, group);						\
	return select;							\
}									\
MPIRMA_ALIAS(name)

SELECT_DEFINE(Group_incl, const int ranks[],
	      group_select(g, n, ranks, newgroup, MPIRMA_FUNC))
SELECT_DEFINE(Group_excl, const int ranks[],
	      group_exclude(g, n, ranks, newgroup, MPIRMA_FUNC))

/*
 * Expands (first, last, stride) triplets into group ranks; *out is
 * malloc'ed.  A rank outside the group is MPI_ERR_RANK, stride 0 MPI_ERR_ARG,
 * more ranks than the group has (so some twice) MPI_ERR_RANK; the callers
 * find the other duplicates.
 */
static int expand_ranges(struct mpirma_group *g, int n, int ranges[][3],
			 int **out, int *count)
{
	int *list, total = 0, i, r, k = 0;

	if (n < 0)
		return mpirma_err(MPI_ERR_ARG, "negative number of ranges %d", n);
	for (i = 0; i < n; i++) {
		int first = ranges[i][0], last = ranges[i][1];
		int stride = ranges[i][2];

		if (stride == 0)
			return mpirma_err(MPI_ERR_ARG, "range %d has stride 0", i);
		if (first < 0 || first >= g->size || last < 0 ||
		    last >= g->size)
			return mpirma_err(MPI_ERR_RANK, "range %d (%d, %d, %d) "
					  "leaves a group of %d", i, first,
					  last, stride, g->size);
		if ((stride > 0 && first > last) || (stride < 0 && first < last))
			continue;
		total += (last - first) / stride + 1;
		if (total > g->size)
			return mpirma_err(MPI_ERR_RANK,
					  "the ranges name a rank twice");
	}
	list = malloc((total ? total : 1) * sizeof(int));
	if (!list)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < n; i++) {
		int stride = ranges[i][2];

		for (r = ranges[i][0];
		     stride > 0 ? r <= ranges[i][1] : r >= ranges[i][1];
		     r += stride)
			list[k++] = r;
	}
	*out = list;
	*count = k;
	return MPI_SUCCESS;
}

/* MPI_Group_range_incl (@excl false) and MPI_Group_range_excl. */
static int group_ranges(struct mpirma_group *g, int n, int ranges[][3],
			bool excl, MPI_Group *out, const char *fn)
{
	int *list = NULL, count = 0, ret;

	ret = expand_ranges(g, n, ranges, &list, &count);
	if (ret)
		return mpirma_raise(ret, fn, NULL);
	ret = (excl ? group_exclude : group_select)(g, count, list, out, fn);
	free(list);
	return ret;
}

SELECT_DEFINE(Group_range_incl, int ranges[][3],
	      group_ranges(g, n, ranges, false, newgroup, MPIRMA_FUNC))
SELECT_DEFINE(Group_range_excl, int ranges[][3],
	      group_ranges(g, n, ranges, true, newgroup, MPIRMA_FUNC))

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
			       MPI_Group group2, int ranks2[])
{
	struct mpirma_group *g1, *g2;
	int *pos, i;

	MPIRMA_CHECK_INIT();
	GET_GROUP(g1, group1);
	GET_GROUP(g2, group2);
	if (n < 0)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "negative count %d", n);
	for (i = 0; i < n; i++)
		if (ranks1[i] != MPI_PROC_NULL &&
		    (ranks1[i] < 0 || ranks1[i] >= g1->size))
			return mpirma_raise(MPI_ERR_RANK, MPIRMA_FUNC,
					    "rank %d is not in a group of %d",
					    ranks1[i], g1->size);
	pos = job_set();
	if (!pos)
		return mpirma_raise(MPI_ERR_NO_MEM, MPIRMA_FUNC, NULL);
	/* pos[job rank] = rank in group2 + 1, 0 when not a member */
	for (i = 0; i < g2->size; i++)
		pos[g2->ranks[i]] = i + 1;
	for (i = 0; i < n; i++) {
		if (ranks1[i] == MPI_PROC_NULL)
			ranks2[i] = MPI_PROC_NULL;
		else
			ranks2[i] = pos[g1->ranks[ranks1[i]]] ?
				pos[g1->ranks[ranks1[i]]] - 1 : MPI_UNDEFINED;
	}
	free(pos);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Group_translate_ranks)

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL for two lists of job ranks. */
int mpirma_ranks_compare(int n1, const int *r1, int n2, const int *r2)
{
	int *in, i, result = MPI_IDENT;

	if (n1 != n2)
		return MPI_UNEQUAL;
	for (i = 0; i < n1; i++)
		if (r1[i] != r2[i])
			break;
	if (i == n1)
		return MPI_IDENT;
	in = job_set();
	if (!in)
		return MPI_UNEQUAL;	/* cannot tell; never seen in practice */
	for (i = 0; i < n1; i++)
		in[r1[i]] = 1;
	result = MPI_SIMILAR;
	for (i = 0; i < n2; i++)
		if (!in[r2[i]])
			result = MPI_UNEQUAL;
	free(in);
	return result;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
	struct mpirma_group *g1, *g2;

	MPIRMA_CHECK_INIT();
	GET_GROUP(g1, group1);
	GET_GROUP(g2, group2);
	*result = mpirma_ranks_compare(g1->size, g1->ranks, g2->size,
				       g2->ranks);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Group_compare)

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int group_setop(MPI_Group group1, MPI_Group group2,
		       MPI_Group *newgroup, enum set_op op, const char *fn)
{
	struct mpirma_group *g1, *g2;
	int *in2, *out, i, k = 0, ret;

	g1 = mpirma_group_get(group1);
	g2 = mpirma_group_get(group2);
	if (!g1 || !g2)
		return mpirma_raise(MPI_ERR_GROUP, fn, "invalid group %d",
				    g1 ? group2 : group1);
	in2 = job_set();
	out = malloc((g1->size + g2->size + 1) * sizeof(int));
	if (!in2 || !out) {
		free(in2);
		free(out);
		return mpirma_raise(MPI_ERR_NO_MEM, fn, NULL);
	}
	for (i = 0; i < g2->size; i++)
		in2[g2->ranks[i]] = 1;
	/* Group 1's order first, as the standard specifies. */
	for (i = 0; i < g1->size; i++) {
		bool both = in2[g1->ranks[i]];

		if (op == SET_UNION || (op == SET_INTERSECTION) == both)
			out[k++] = g1->ranks[i];
		in2[g1->ranks[i]] = 2;	/* seen in group 1 */
	}
	if (op == SET_UNION)
		for (i = 0; i < g2->size; i++)
			if (in2[g2->ranks[i]] == 1)
				out[k++] = g2->ranks[i];
	ret = mpirma_group_new(k, out, newgroup);
	free(in2);
	free(out);
	return mpirma_raise(ret, fn, NULL);
}

/* The set operations: one signature, one body over group_setop(). */
#define SETOP_DEFINE(name, op)						\
int PMPI_##name(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) \
{									\
	MPIRMA_CHECK_INIT();						\
	return group_setop(group1, group2, newgroup, op, MPIRMA_FUNC);	\
}									\
MPIRMA_ALIAS(name)

SETOP_DEFINE(Group_union, SET_UNION)
SETOP_DEFINE(Group_intersection, SET_INTERSECTION)
SETOP_DEFINE(Group_difference, SET_DIFFERENCE)

void mpirma_group_teardown(void)
{
	int h;

	while ((h = mpirma_handle_next(MPIRMA_HK_GROUP, 0))) {
		struct mpirma_group *g = mpirma_group_get(h);

		mpirma_handle_free(MPIRMA_HK_GROUP, h);
		free(g->ranks);
		free(g);
	}
}
