// SPDX-License-Identifier: GPL-2.0
/*
 * wincomm: windows on every shape of communicator, in all four flavors.
 *
 * Libraries create their windows on whatever communicator they are given:
 * Global Arrays and ARMCI-MPI on process groups (MPI_Comm_create_group),
 * on splits, on a single process.  Open MPI 4.1 alone refuses
 * MPI_Win_create on a one-process communicator, so a layer that asks the
 * host for a window handle of its own must not depend on that.  The
 * communicators:
 *
 *  - MPI_COMM_SELF;
 *  - a duplicate of MPI_COMM_WORLD;
 *  - the odd and even ranks (MPI_Comm_split), which span nodes where the
 *    world does;
 *  - the world in reverse order (a split with descending keys), so that
 *    window ranks are not world ranks;
 *  - the lower half, made by MPI_Comm_create_group (collective over its
 *    members only), and the upper half looking on;
 *  - the two halves joined by MPI_Intercomm_create and merged back with
 *    MPI_Intercomm_merge, upper half first.
 *
 * On each, every flavor (MPI_Win_allocate_shared only where the
 * communicator lies within one shared-memory node): the attributes read
 * back, then in a lock_all epoch every rank adds its window rank + 1 to
 * element 0 of every target, and takes a ticket from element 1 of window
 * rank 0 with MPI_Fetch_and_op (the tickets must form a permutation); then
 * in a fence epoch every rank puts its rank into element 2 of its right
 * neighbour.  Totals, tickets and puts are checked in the targets' own
 * memory.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define NELEM	4

static const char *const flavor_names[] = {
	"create", "allocate", "allocate_shared", "dynamic"
};

/* Does @comm lie within one shared-memory node? */
static bool within_node(MPI_Comm comm)
{
	MPI_Comm node;
	int size, nsize;

	MPI_Comm_size(comm, &size);
	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
			    &node);
	MPI_Comm_size(node, &nsize);
	MPI_Comm_free(&node);
	return nsize == size;
}

/*
 * A window of NELEM longs per rank on @comm in flavor @f; *@mem is this
 * rank's memory, *@disp[r] the displacement of rank r's (dynamic windows
 * address by absolute displacement).
 */
static int make_win(MPI_Comm comm, int f, long **mem, MPI_Aint *disp,
		    MPI_Win *win)
{
	MPI_Aint bytes = NELEM * sizeof(long), mine = 0;
	int size, rc;

	MPI_Comm_size(comm, &size);
	*mem = NULL;
	switch (f) {
	case 0:
		*mem = malloc(bytes);
		rc = MPI_Win_create(*mem, bytes, sizeof(long), MPI_INFO_NULL,
				    comm, win);
		break;
	case 1:
		rc = MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, comm,
				      mem, win);
		break;
	case 2:
		rc = MPI_Win_allocate_shared(bytes, sizeof(long), MPI_INFO_NULL,
					     comm, mem, win);
		break;
	default:
		rc = MPI_Win_create_dynamic(MPI_INFO_NULL, comm, win);
		*mem = malloc(bytes);
		if (rc == MPI_SUCCESS)
			rc = MPI_Win_attach(*win, *mem, bytes);
		MPI_Get_address(*mem, &mine);
		break;
	}
	MPI_Allgather(&mine, 1, MPI_AINT, disp, 1, MPI_AINT, comm);
	return rc;
}

/* The displacement of element @elem of rank @t's memory in flavor @f. */
static MPI_Aint at(int f, const MPI_Aint *disp, int t, int elem)
{
	return f == 3 ? disp[t] + elem * (MPI_Aint)sizeof(long) : elem;
}

static void check_attrs(MPI_Win win, MPI_Comm comm, int f)
{
	static const int flavors[] = {
		MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
		MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC
	};
	MPI_Group wg, cg;
	MPI_Aint *size;
	int *flavor, flag, cmp;

	CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
	CHECK(flag && *flavor == flavors[f], "flavor attribute");
	CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
	CHECK(flag && *size == (f == 3 ? 0 : NELEM * (MPI_Aint)sizeof(long)),
	      "size attribute %ld", flag ? (long)*size : -1L);
	CHECK_MPI(MPI_Win_get_group(win, &wg));
	MPI_Comm_group(comm, &cg);
	MPI_Group_compare(wg, cg, &cmp);
	CHECK_EQ(cmp, MPI_IDENT, "the window's group against the comm's");
	MPI_Group_free(&wg);
	MPI_Group_free(&cg);
}

/* What every communicator gets: each flavor, checked. */
static void test_comm(MPI_Comm comm, const char *name)
{
	int size, me, right, left;
	MPI_Aint *disp;
	long *got;

	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &me);
	right = (me + 1) % size;
	left = (me + size - 1) % size;
	disp = calloc((size_t)size, sizeof(*disp));
	got = calloc((size_t)size, sizeof(*got));
	for (int f = 0; f < 4; f++) {
		long one, ticket = -1, *mem;
		MPI_Win win;
		int rc;

		if (f == 2 && !within_node(comm))
			continue;
		mtest_section(flavor_names[f]);
		rc = make_win(comm, f, &mem, disp, &win);
		CHECK(rc == MPI_SUCCESS, "%s window on %s: %s", flavor_names[f],
		      name, mtest_class_name(mtest_class(rc)));
		if (rc != MPI_SUCCESS) {
			free(f == 0 || f == 3 ? mem : NULL);
			continue;
		}
		check_attrs(win, comm, f);
		memset(mem, 0, NELEM * sizeof(long));
		MPI_Barrier(comm);

		CHECK_MPI(MPI_Win_lock_all(0, win));
		one = me + 1;
		for (int t = 0; t < size; t++)
			CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t,
						 at(f, disp, t, 0), 1, MPI_LONG,
						 MPI_SUM, win));
		one = 1;
		CHECK_MPI(MPI_Fetch_and_op(&one, &ticket, MPI_LONG, 0,
					   at(f, disp, 0, 1), MPI_SUM,
					   win));
		CHECK_MPI(MPI_Win_unlock_all(win));
		MPI_Barrier(comm);
		CHECK_EQ(mem[0], (long)size * (size + 1) / 2,
			 "sum of window ranks + 1");
		MPI_Allgather(&ticket, 1, MPI_LONG, got, 1, MPI_LONG, comm);
		for (int r = 0; r < size; r++) {
			int seen = 0;

			for (int k = 0; k < size; k++)
				seen += got[k] == r;
			CHECK_EQ(seen, 1, "tickets form a permutation");
		}
		if (me == 0)
			CHECK_EQ(mem[1], size, "tickets taken");

		CHECK_MPI(MPI_Win_fence(0, win));
		one = me;
		CHECK_MPI(MPI_Put(&one, 1, MPI_LONG, right,
				  at(f, disp, right, 2), 1, MPI_LONG,
				  win));
		CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
		CHECK_EQ(mem[2], left, "put from the left neighbour");

		if (f == 3)
			CHECK_MPI(MPI_Win_detach(win, mem));
		CHECK_MPI(MPI_Win_free(&win));
		if (f == 0 || f == 3)
			free(mem);
	}
	free(disp);
	free(got);
}

int main(int argc, char **argv)
{
	MPI_Comm comm, half, inter, merged;
	MPI_Group world, lower;
	int nlow, upper;
	int *ranks;

	mtest_init(&argc, &argv, "wincomm");

	test_comm(MPI_COMM_SELF, "MPI_COMM_SELF");

	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	test_comm(comm, "a duplicate of MPI_COMM_WORLD");
	MPI_Comm_free(&comm);

	MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, mtest_rank, &comm);
	test_comm(comm, "the odd or even ranks");
	MPI_Comm_free(&comm);

	MPI_Comm_split(MPI_COMM_WORLD, 0, -mtest_rank, &comm);
	test_comm(comm, "the world reversed");
	MPI_Comm_free(&comm);

	/* The lower half by MPI_Comm_create_group; at least rank 0. */
	nlow = mtest_size > 1 ? mtest_size / 2 : 1;
	upper = mtest_rank >= nlow;
	ranks = malloc(sizeof(int) * (size_t)nlow);
	for (int k = 0; k < nlow; k++)
		ranks[k] = k;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, nlow, ranks, &lower);
	if (!upper) {
		CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, lower, 7,
						&comm));
		test_comm(comm, "the lower half (MPI_Comm_create_group)");
		MPI_Comm_free(&comm);
	}
	MPI_Group_free(&lower);
	MPI_Group_free(&world);
	free(ranks);

	/* The halves as an inter-communicator, merged upper half first. */
	if (mtest_size > 1) {
		MPI_Comm_split(MPI_COMM_WORLD, upper, mtest_rank, &half);
		CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD,
					       upper ? 0 : nlow, 9, &inter));
		CHECK_MPI(MPI_Intercomm_merge(inter, !upper, &merged));
		test_comm(merged, "the halves merged");
		MPI_Comm_free(&merged);
		MPI_Comm_free(&inter);
		MPI_Comm_free(&half);
	}
	return mtest_finish();
}
