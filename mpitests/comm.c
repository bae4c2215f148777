// SPDX-License-Identifier: GPL-2.0
/*
 * comm: communicators and groups.  dup, idup and idup_with_info (a
 * complete request, attributes copied, the info kept, no waiting for the
 * other members, idups of idups in different orders), split (colors,
 * keys reversing the order, MPI_UNDEFINED),
 * split_type(MPI_COMM_TYPE_SHARED), create, create_group, compare (IDENT, CONGRUENT, SIMILAR, UNEQUAL), free; groups
 * from comm_group, incl, excl, range_incl, range_excl, union,
 * intersection, difference, translate_ranks, compare, size, rank, free;
 * and that traffic on a derived communicator stays on it (a collective on
 * each half of a split at the same time, a message on a dup not matched
 * by a receive on the parent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static void check_comm(MPI_Comm c, int want_size, int want_rank,
		       const char *what)
{
	int size = -1, rank = -1;

	CHECK_MPI(MPI_Comm_size(c, &size));
	CHECK_MPI(MPI_Comm_rank(c, &rank));
	CHECK(size == want_size && rank == want_rank,
	      "%s: rank %d of %d, want %d of %d", what, rank, size, want_rank,
	      want_size);
}

/* Sum of the world ranks of the members of @c, by allreduce on @c. */
static int world_rank_sum(MPI_Comm c)
{
	int sum = -1;

	CHECK_MPI(MPI_Allreduce(&mtest_rank, &sum, 1, MPI_INT, MPI_SUM, c));
	return sum;
}

static void test_dup(void)
{
	MPI_Comm dup, dup2;
	int cmp = -1, v = mtest_rank, got = -1, flag = 0;
	MPI_Status st;

	mtest_section("dup");
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	check_comm(dup, mtest_size, mtest_rank, "dup");
	CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp));
	CHECK_EQ(cmp, MPI_CONGRUENT, "compare(world, dup)");
	CHECK_MPI(MPI_Comm_compare(dup, dup, &cmp));
	CHECK_EQ(cmp, MPI_IDENT, "compare(dup, dup)");
	CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp));
	CHECK_EQ(cmp, MPI_IDENT, "compare(world, world)");
	CHECK_MPI(MPI_Comm_dup(dup, &dup2));
	CHECK(dup2 != dup && dup2 != MPI_COMM_WORLD, "dup of a dup is new");

	/* a message sent on dup is not seen on the world communicator */
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, (mtest_rank + 1) % mtest_size, 7,
			   dup));
	CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
			     &st));
	CHECK_EQ(flag, 0, "iprobe on world for a message sent on dup");
	CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup2, &flag, &st));
	CHECK_EQ(flag, 0, "iprobe on dup2 for a message sent on dup");
	CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, dup, &st));
	CHECK_EQ(got, (mtest_rank + mtest_size - 1) % mtest_size, "received");
	CHECK_EQ(st.MPI_SOURCE, (mtest_rank + mtest_size - 1) % mtest_size,
		 "status source");

	CHECK_MPI(MPI_Comm_free(&dup2));
	CHECK_EQ(dup2, MPI_COMM_NULL, "freed handle");
	CHECK_MPI(MPI_Comm_free(&dup));
	CHECK_EQ(dup, MPI_COMM_NULL, "freed handle");
}

static int idup_copies;

static int idup_copy(MPI_Comm old, int key, void *extra, void *in, void *out,
		     int *flag)
{
	(void)old, (void)key, (void)extra;
	idup_copies++;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

static void test_idup(void)
{
	MPI_Comm dup = MPI_COMM_NULL, dup2 = MPI_COMM_NULL;
	MPI_Request req[2];
	MPI_Info info, used;
	char value[MPI_MAX_INFO_VAL];
	int key, flag = 0, *val = NULL, v = 5;

	mtest_section("idup");
	CHECK_MPI(MPI_Comm_create_keyval(idup_copy, MPI_COMM_NULL_DELETE_FN,
					 &key, NULL));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &v));
	CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req[0]));
	CHECK_MPI(MPI_Info_create(&info));
	CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
	CHECK_MPI(MPI_Info_set(info, "mpirma_test", "idup"));
	CHECK_MPI(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &dup2,
					  &req[1]));
	CHECK_MPI(MPI_Info_free(&info));
	CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
	CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
	      "idup requests freed by the wait");
	check_comm(dup, mtest_size, mtest_rank, "idup");
	check_comm(dup2, mtest_size, mtest_rank, "idup_with_info");
	CHECK_EQ(idup_copies, 2, "copy callbacks");
	CHECK_MPI(MPI_Comm_get_attr(dup, key, &val, &flag));
	CHECK(flag && val == &v, "attribute on the idup: %d %p", flag,
	      (void *)val);
	/* the standard's hint is kept, a key nobody acts on dropped */
	CHECK_MPI(MPI_Comm_get_info(dup2, &used));
	CHECK_MPI(MPI_Info_get(used, "mpi_assert_no_any_tag",
			       sizeof(value) - 1, value, &flag));
	CHECK(flag && !strcmp(value, "true"), "idup_with_info's info: %d %s",
	      flag, flag ? value : "");
	CHECK_MPI(MPI_Info_get(used, "mpirma_test", sizeof(value) - 1, value,
			       &flag));
	CHECK(!flag, "idup_with_info kept an unknown key");
	CHECK_MPI(MPI_Info_free(&used));
	CHECK_EQ(world_rank_sum(dup2), mtest_size * (mtest_size - 1) / 2,
		 "allreduce on the idup");
	CHECK_MPI(MPI_Comm_free(&dup));
	CHECK_MPI(MPI_Comm_free(&dup2));
	CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
	CHECK_MPI(MPI_Comm_free_keyval(&key));

	/*
	 * idup never waits for the other members: rank 0 only calls it after
	 * the others' messages, which they send after their idup (MPICH's
	 * comm_idup); nor do idups of idups, started in a different order on
	 * even and odd ranks (MPICH's idup_with_info).
	 */
	if (mtest_rank == 0) {
		int i;

		for (i = 1; i < mtest_size; i++)
			CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, i, 7, MPI_COMM_WORLD,
					   MPI_STATUS_IGNORE));
		CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req[0]));
	} else {
		CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req[0]));
		CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
	}
	CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup2, &req[1]));
	CHECK_MPI(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
	{
		MPI_Comm sub[2], *first = mtest_rank % 2 ? &dup2 : &dup;
		MPI_Comm *second = first == &dup ? &dup2 : &dup;

		CHECK_MPI(MPI_Comm_idup(*first, &sub[first != &dup], &req[0]));
		CHECK_MPI(MPI_Comm_idup(*second, &sub[second != &dup],
					&req[1]));
		CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
		CHECK_EQ(world_rank_sum(sub[0]),
			 mtest_size * (mtest_size - 1) / 2,
			 "allreduce on an idup of an idup");
		CHECK_EQ(world_rank_sum(sub[1]),
			 mtest_size * (mtest_size - 1) / 2,
			 "allreduce on the other idup of an idup");
		CHECK_MPI(MPI_Comm_free(&sub[0]));
		CHECK_MPI(MPI_Comm_free(&sub[1]));
	}
	CHECK_EQ(world_rank_sum(dup), mtest_size * (mtest_size - 1) / 2,
		 "allreduce on the early idup");
	CHECK_MPI(MPI_Comm_free(&dup2));
	CHECK_MPI(MPI_Comm_free(&dup));

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, &dup, NULL), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Comm_idup(MPI_COMM_NULL, &dup, &req[0]), MPI_ERR_COMM);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_split(void)
{
	MPI_Comm half, rev, none, shared;
	int color = mtest_rank % 2, n_color, want, i, cmp = -1;

	mtest_section("split");
	/* two halves, same order */
	CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, mtest_rank, &half));
	n_color = (mtest_size + 1 - color) / 2;
	check_comm(half, n_color, mtest_rank / 2, "split by parity");
	/* both halves reduce at the same time, each its own sum */
	for (want = 0, i = color; i < mtest_size; i += 2)
		want += i;
	CHECK_EQ(world_rank_sum(half), want, "allreduce on the half");

	/* one communicator, reversed by the key */
	CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, mtest_size - mtest_rank, &rev));
	check_comm(rev, mtest_size, mtest_size - 1 - mtest_rank, "reversed");
	CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, rev, &cmp));
	CHECK_EQ(cmp, mtest_size == 1 ? MPI_CONGRUENT : MPI_SIMILAR,
		 "compare(world, reversed)");
	if (mtest_size > 1) {
		CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, half, &cmp));
		CHECK_EQ(cmp, MPI_UNEQUAL, "compare(world, half)");
	}

	/* MPI_UNDEFINED: no communicator */
	CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD,
				 mtest_rank == 0 ? 5 : MPI_UNDEFINED, 0, &none));
	if (mtest_rank == 0) {
		check_comm(none, 1, 0, "split with one member");
		CHECK_MPI(MPI_Comm_free(&none));
	} else {
		CHECK_EQ(none, MPI_COMM_NULL, "split with MPI_UNDEFINED");
	}

	/* every rank shares memory with every other: one node */
	CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
				      MPI_INFO_NULL, &shared));
	check_comm(shared, mtest_size, mtest_rank, "split_type(SHARED)");
	CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0,
				      MPI_INFO_NULL, &none));
	CHECK_EQ(none, MPI_COMM_NULL, "split_type(MPI_UNDEFINED)");

	CHECK_MPI(MPI_Comm_free(&shared));
	CHECK_MPI(MPI_Comm_free(&rev));
	CHECK_MPI(MPI_Comm_free(&half));
}

static void test_groups(void)
{
	MPI_Group world, even, odd, first, un, in, diff, rng, rexcl, empty;
	int *ranks = malloc(mtest_size * sizeof(int));
	int *out = malloc(mtest_size * sizeof(int));
	int n_even = (mtest_size + 1) / 2, i, size, rank, cmp;
	int range[1][3];

	mtest_section("groups");
	CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
	CHECK_MPI(MPI_Group_size(world, &size));
	CHECK_EQ(size, mtest_size, "group size");
	CHECK_MPI(MPI_Group_rank(world, &rank));
	CHECK_EQ(rank, mtest_rank, "group rank");

	/* even ranks by incl, odd ones by excl of the even ones */
	for (i = 0; i < n_even; i++)
		ranks[i] = 2 * i;
	CHECK_MPI(MPI_Group_incl(world, n_even, ranks, &even));
	CHECK_MPI(MPI_Group_excl(world, n_even, ranks, &odd));
	CHECK_MPI(MPI_Group_size(even, &size));
	CHECK_EQ(size, n_even, "size of even");
	CHECK_MPI(MPI_Group_size(odd, &size));
	CHECK_EQ(size, mtest_size - n_even, "size of odd");
	CHECK_MPI(MPI_Group_rank(even, &rank));
	CHECK_EQ(rank, mtest_rank % 2 ? MPI_UNDEFINED : mtest_rank / 2,
		 "rank in even");

	/* range_incl 0..size-1 step 2 is the even group */
	range[0][0] = 0;
	range[0][1] = mtest_size - 1;
	range[0][2] = 2;
	CHECK_MPI(MPI_Group_range_incl(world, 1, range, &rng));
	CHECK_MPI(MPI_Group_compare(rng, even, &cmp));
	CHECK_EQ(cmp, MPI_IDENT, "range_incl vs incl");
	CHECK_MPI(MPI_Group_range_excl(world, 1, range, &rexcl));
	CHECK_MPI(MPI_Group_compare(rexcl, odd, &cmp));
	CHECK_EQ(cmp, MPI_IDENT, "range_excl vs excl");

	/* union of the two is the world, in another order */
	CHECK_MPI(MPI_Group_union(odd, even, &un));
	CHECK_MPI(MPI_Group_compare(un, world, &cmp));
	CHECK_EQ(cmp, mtest_size > 1 ? MPI_SIMILAR : MPI_IDENT,
		 "compare(odd u even, world)");
	CHECK_MPI(MPI_Group_intersection(odd, even, &in));
	CHECK_MPI(MPI_Group_size(in, &size));
	CHECK_EQ(size, 0, "odd n even");
	CHECK_MPI(MPI_Group_difference(world, odd, &diff));
	CHECK_MPI(MPI_Group_compare(diff, even, &cmp));
	CHECK_EQ(cmp, MPI_IDENT, "world - odd");
	if (mtest_size > 1) {
		CHECK_MPI(MPI_Group_compare(odd, even, &cmp));
		CHECK_EQ(cmp, MPI_UNEQUAL, "compare(odd, even)");
	}

	/* translate: world rank 2i is rank i of even, odd ranks are not */
	for (i = 0; i < mtest_size; i++)
		ranks[i] = i;
	CHECK_MPI(MPI_Group_translate_ranks(world, mtest_size, ranks, even,
					    out));
	for (i = 0; i < mtest_size; i++)
		CHECK_EQ(out[i], i % 2 ? MPI_UNDEFINED : i / 2, "translated rank");
	ranks[0] = MPI_PROC_NULL;
	CHECK_MPI(MPI_Group_translate_ranks(world, 1, ranks, even, out));
	CHECK_EQ(out[0], MPI_PROC_NULL, "translated MPI_PROC_NULL");

	/* the empty group */
	CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &size));
	CHECK_EQ(size, 0, "size of MPI_GROUP_EMPTY");
	CHECK_MPI(MPI_Group_incl(world, 0, ranks, &empty));
	CHECK_MPI(MPI_Group_compare(empty, MPI_GROUP_EMPTY, &cmp));
	CHECK_EQ(cmp, MPI_IDENT, "incl of nothing vs MPI_GROUP_EMPTY");

	/* a communicator from a group: create (collective on all) and
	 * create_group (collective on the members only)
	 */
	{
		MPI_Comm c_even, c_first;

		CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, even, &c_even));
		if (mtest_rank % 2) {
			CHECK_EQ(c_even, MPI_COMM_NULL, "create: non-member");
		} else {
			check_comm(c_even, n_even, mtest_rank / 2, "create");
			CHECK_EQ(world_rank_sum(c_even), (n_even - 1) * n_even,
				 "allreduce on created comm");
			CHECK_MPI(MPI_Comm_free(&c_even));
		}

		/* the first half of the ranks, backwards */
		size = (mtest_size + 1) / 2;
		for (i = 0; i < size; i++)
			ranks[i] = size - 1 - i;
		CHECK_MPI(MPI_Group_incl(world, size, ranks, &first));
		if (mtest_rank < size) {
			CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, first,
							42, &c_first));
			check_comm(c_first, size, size - 1 - mtest_rank,
				   "create_group");
			CHECK_EQ(world_rank_sum(c_first), (size - 1) * size / 2,
				 "allreduce on create_group comm");
			CHECK_MPI(MPI_Comm_free(&c_first));
		}
		CHECK_MPI(MPI_Group_free(&first));
	}

	{
		MPI_Group g;
		MPI_Comm dup;

		/* the group of a dup equals the parent's */
		CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
		CHECK_MPI(MPI_Comm_group(dup, &g));
		CHECK_MPI(MPI_Group_compare(g, world, &cmp));
		CHECK_EQ(cmp, MPI_IDENT, "group of dup");
		CHECK_MPI(MPI_Group_free(&g));
		CHECK_MPI(MPI_Comm_free(&dup));
	}

	CHECK_MPI(MPI_Group_free(&empty));
	CHECK_MPI(MPI_Group_free(&diff));
	CHECK_MPI(MPI_Group_free(&in));
	CHECK_MPI(MPI_Group_free(&un));
	CHECK_MPI(MPI_Group_free(&rexcl));
	CHECK_MPI(MPI_Group_free(&rng));
	CHECK_MPI(MPI_Group_free(&odd));
	CHECK_MPI(MPI_Group_free(&even));
	CHECK_MPI(MPI_Group_free(&world));
	CHECK_EQ(world, MPI_GROUP_NULL, "freed group");
	free(ranks);
	free(out);
}

/* Many communicators made and freed: ids and tables are recycled. */
static void test_churn(void)
{
	int i;

	mtest_section("churn");
	for (i = 0; i < 200; i++) {
		MPI_Comm c;

		CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, i % 3 == mtest_rank % 3,
					 i, &c));
		if (i % 50 == 0)
			CHECK_MPI(MPI_Barrier(c));
		CHECK_MPI(MPI_Comm_free(&c));
	}
}

static void test_names(void)
{
	char name[MPI_MAX_OBJECT_NAME];
	int len;
	MPI_Comm dup;

	mtest_section("names");
	CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
	CHECK(!strcmp(name, "MPI_COMM_WORLD"), "name of world: '%s'", name);
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	CHECK_MPI(MPI_Comm_set_name(dup, "mine"));
	CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
	CHECK(!strcmp(name, "mine") && len == 4, "name of dup: '%s'", name);
	CHECK_MPI(MPI_Comm_free(&dup));
}

/* MPI-4's MPI_Info_get_string: the length asked, cut values, errors. */
static void test_info_string(void)
{
	char v[8];
	int len, flag;
	MPI_Info info;

	mtest_section("info get_string");
	CHECK_MPI(MPI_Info_create(&info));
	CHECK_MPI(MPI_Info_set(info, "k", "abcdefghij"));
	len = 0;
	CHECK_MPI(MPI_Info_get_string(info, "k", &len, NULL, &flag));
	CHECK(flag && len == 11, "length asked: flag %d len %d", flag, len);
	len = sizeof(v);
	CHECK_MPI(MPI_Info_get_string(info, "k", &len, v, &flag));
	CHECK(flag && len == 11 && !strcmp(v, "abcdefg"),
	      "cut to 8: flag %d len %d '%s'", flag, len, v);
	len = sizeof(v);
	CHECK_MPI(MPI_Info_get_string(info, "none", &len, v, &flag));
	CHECK(!flag && len == sizeof(v), "absent key: flag %d len %d", flag,
	      len);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	len = -1;
	CHECK_CLASS(MPI_Info_get_string(info, "k", &len, v, &flag),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Info_get_string(info, "k", NULL, v, &flag),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Info_get_string(MPI_INFO_NULL, "k", &len, v, &flag),
		    MPI_ERR_INFO);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	CHECK_MPI(MPI_Info_free(&info));
}

/* MPI-4's MPI_Info_create_env: the command, its arguments, maxprocs. */
static void test_info_create_env(void)
{
	char *argv[] = { "prog", "-a", "b c", NULL }, v[MPI_MAX_INFO_VAL];
	MPI_Info info;
	int len, flag;

	mtest_section("info create_env");
	CHECK_MPI(MPI_Info_create_env(3, argv, &info));
	len = sizeof(v);
	CHECK_MPI(MPI_Info_get_string(info, "command", &len, v, &flag));
	CHECK(flag && !strcmp(v, "prog"), "command: %d '%s'", flag, v);
	len = sizeof(v);
	CHECK_MPI(MPI_Info_get_string(info, "argv", &len, v, &flag));
	CHECK(flag && !strcmp(v, "-a b c"), "argv: %d '%s'", flag, v);
	len = sizeof(v);
	CHECK_MPI(MPI_Info_get_string(info, "maxprocs", &len, v, &flag));
	CHECK(flag && atoi(v) == mtest_size, "maxprocs: %d '%s'", flag, v);
	CHECK_MPI(MPI_Info_free(&info));
	/* without arguments: no command */
	CHECK_MPI(MPI_Info_create_env(0, NULL, &info));
	len = sizeof(v);
	CHECK_MPI(MPI_Info_get_string(info, "command", &len, v, &flag));
	CHECK_EQ(flag, 0, "command without argv");
	CHECK_MPI(MPI_Info_free(&info));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Info_create_env(0, NULL, NULL), MPI_ERR_ARG);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	static const mtest_fn tests[] = {
		test_dup, test_idup, test_split, test_groups, test_churn,
		test_names, test_info_string, test_info_create_env, NULL,
	};

	return mtest_run(&argc, &argv, "comm", tests);
}
