// SPDX-License-Identifier: GPL-2.0
/*
 * win: the window flavors and what belongs to windows.
 *
 *  - MPI_Win_create with a different disp_unit on every rank (the
 *    target's unit scales the displacement), and with size 0 / NULL;
 *  - MPI_Win_allocate with sizes that are not multiples of anything
 *    (peers have put data at the wrong offset then);
 *  - puts of 64 KiB and more at odd offsets, on allocated and created
 *    windows;
 *  - MPI_Win_allocate_shared (on each shared-memory node) +
 *    MPI_Win_shared_query: direct loads and
 *    stores to other ranks' memory, contiguous by default,
 *    alloc_shared_noncontig, MPI_PROC_NULL in the query;
 *  - MPI_Win_create_dynamic with attach/detach, addresses exchanged with
 *    MPI_Get_address, several regions;
 *  - MPI_Win_get_group, MPI_Win_set_info/get_info with the standard keys,
 *    MPI_Win_set_name/get_name;
 *  - request-based operations: MPI_Rput, MPI_Rget, MPI_Raccumulate,
 *    MPI_Rget_accumulate, completed by MPI_Wait, MPI_Waitall, MPI_Test;
 *  - zero counts, and MPI_Compare_and_swap / MPI_Fetch_and_op on a single
 *    element;
 *  - mpirma's extensions: every atomicity strategy chosen with the
 *    mpirma_atomicity info key (an exact fetch_and_op total under each),
 *    MPIX_Win_get_node and MPIX_Win_get_worker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#ifdef MPIRMA
#include <mpirma.h>
#endif

#include "mtest.h"

static int right, left;

static void test_create_disp_unit(void)
{
	/* rank r exposes 32 bytes with unit 1, 2, 4 or 8 */
	int du = 1 << (mtest_rank % 4);
	char mem[32], v = (char)(50 + mtest_rank);
	MPI_Win win;
	int i;

	mtest_section("create, disp_unit");
	memset(mem, 0, sizeof(mem));
	CHECK_MPI(MPI_Win_create(mem, sizeof(mem), du, MPI_INFO_NULL,
				 MPI_COMM_WORLD, &win));
	CHECK_MPI(MPI_Win_fence(0, win));
	/* displacement 3 in the target's units */
	CHECK_MPI(MPI_Put(&v, 1, MPI_CHAR, right, 3, 1, MPI_CHAR, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	for (i = 0; i < 32; i++)
		CHECK_EQ(mem[i], i == 3 * du ? 50 + left : 0, "byte after put");
	CHECK_MPI(MPI_Win_free(&win));

	/* size 0, NULL base: a window that only accesses */
	CHECK_MPI(MPI_Win_create(mtest_rank ? NULL : mem,
				 mtest_rank ? 0 : sizeof(mem), 1, MPI_INFO_NULL,
				 MPI_COMM_WORLD, &win));
	memset(mem, 0, sizeof(mem));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_MPI(MPI_Accumulate(&v, 1, MPI_SIGNED_CHAR, 0, mtest_rank % 32, 1,
				 MPI_SIGNED_CHAR, MPI_SUM, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	if (mtest_rank == 0)
		for (i = 0; i < mtest_size && i < 32; i++)
			CHECK_EQ(mem[i], 50 + i, "accumulated into rank 0");
	CHECK_MPI(MPI_Win_free(&win));
}

static void test_allocate_odd(void)
{
	/* 12, 15, 18, ... bytes: never a multiple of 16 on every rank */
	MPI_Aint size = 12 + 3 * mtest_rank, rsize = 12 + 3 * right;
	unsigned char *mem, out[64], got[64];
	MPI_Win win;
	MPI_Aint i;

	mtest_section("allocate, odd sizes");
	CHECK_MPI(MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
				   &win));
	memset(mem, 0, size);
	for (i = 0; i < rsize; i++)
		out[i] = (unsigned char)(mtest_rank * 16 + i);
	CHECK_MPI(MPI_Win_fence(0, win));
	/* fill the neighbour's whole window, byte by byte from the end */
	CHECK_MPI(MPI_Put(out, rsize, MPI_BYTE, right, 0, rsize, MPI_BYTE, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	for (i = 0; i < size; i++)
		if (!CHECK(mem[i] == (unsigned char)(left * 16 + i),
			   "byte %ld of %ld: %u", (long)i, (long)size, mem[i]))
			break;
	CHECK_MPI(MPI_Get(got, rsize, MPI_BYTE, right, 0, rsize, MPI_BYTE, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK(!memcmp(got, out, rsize), "get back what was put");
	CHECK_MPI(MPI_Win_free(&win));
}

/*
 * Large puts (mpirma writes those of 64 KiB or more with non-temporal
 * stores) at odd offsets on both sides: every byte where it belongs, none
 * around.
 */
static void test_large_puts(int create)
{
	static const MPI_Aint sizes[] = { 65535, 65536, 65536 + 13, 200000 };
	const MPI_Aint len = 262144 + 64;
	unsigned char *mem, *out;
	MPI_Win win;
	MPI_Aint i;
	size_t k;

	mtest_section(create ? "large puts, create" : "large puts, allocate");
	out = malloc(len);
	if (!CHECK(out != NULL, "no memory"))
		return;
	if (create) {
		mem = malloc(len);
		if (!CHECK(mem != NULL, "no memory"))
			return;
		CHECK_MPI(MPI_Win_create(mem, len, 1, MPI_INFO_NULL,
					 MPI_COMM_WORLD, &win));
	} else {
		CHECK_MPI(MPI_Win_allocate(len, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
					   &mem, &win));
	}
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		MPI_Aint n = sizes[k], at = 3 + (MPI_Aint)k * 5;

		memset(mem, 0, len);
		for (i = 0; i < n; i++)
			out[i + 1] = (unsigned char)(mtest_rank + i * 7 + k);
		CHECK_MPI(MPI_Win_fence(0, win));
		CHECK_MPI(MPI_Put(out + 1, (int)n, MPI_BYTE, right, at, (int)n,
				  MPI_BYTE, win));
		CHECK_MPI(MPI_Win_fence(0, win));
		for (i = 0; i < len; i++) {
			unsigned char want = i >= at && i < at + n ?
				(unsigned char)(left + (i - at) * 7 + k) : 0;

			if (!CHECK(mem[i] == want, "%ld-byte put: byte %ld is %u, "
				   "not %u", (long)n, (long)i, mem[i], want))
				break;
		}
	}
	CHECK_MPI(MPI_Win_free(&win));
	if (create)
		free(mem);
	free(out);
}

/*
 * On the ranks of this process's shared-memory node (all of them on one
 * node; several nodes share no memory, so a job over several gets one
 * window per node).
 */
static void test_shared(int noncontig)
{
	MPI_Info info = MPI_INFO_NULL;
	int *mine, *other, du, i, r, me, n, right, left;
	MPI_Aint size, qsize;
	MPI_Comm node;
	MPI_Win win;

	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mtest_rank,
			    MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &me);
	MPI_Comm_size(node, &n);
	right = (me + 1) % n;
	left = (me + n - 1) % n;
	size = (me + 1) * sizeof(int) * 3;

	mtest_section(noncontig ? "allocate_shared noncontig" : "allocate_shared");
	if (noncontig) {
		MPI_Info_create(&info);
		MPI_Info_set(info, "alloc_shared_noncontig", "true");
	}
	CHECK_MPI(MPI_Win_allocate_shared(size, sizeof(int), info, node,
					  &mine, &win));
	if (info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	MPI_Win_lock_all(0, win);
	for (i = 0; i < 3 * (me + 1); i++)
		mine[i] = me * 100 + i;
	MPI_Win_sync(win);
	MPI_Barrier(node);
	MPI_Win_sync(win);
	for (r = 0; r < n; r++) {
		CHECK_MPI(MPI_Win_shared_query(win, r, &qsize, &du, &other));
		CHECK_EQ(qsize, (r + 1) * sizeof(int) * 3, "shared_query size");
		CHECK_EQ(du, sizeof(int), "shared_query disp_unit");
		if (!other)
			continue;
		for (i = 0; i < 3 * (r + 1); i++)
			if (!CHECK(other[i] == r * 100 + i,
				   "rank %d's memory, int %d: %d", r, i, other[i]))
				break;
		/* contiguous by default: rank r + 1 follows rank r */
		if (!noncontig && r == 0 && n > 1) {
			int *next;

			MPI_Win_shared_query(win, 1, &qsize, &du, &next);
			CHECK(next == other + 3, "not contiguous: %p after %p",
			      (void *)next, (void *)other);
		}
	}
	/* MPI_PROC_NULL: the first rank with memory, i.e. rank 0 */
	CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &du, &other));
	CHECK(other && other[0] == 0 && qsize == 3 * sizeof(int),
	      "shared_query(MPI_PROC_NULL)");
	/* a store into the neighbour's memory, seen by it */
	MPI_Win_shared_query(win, right, &qsize, &du, &other);
	MPI_Barrier(node);
	other[0] = -me - 1;
	MPI_Win_sync(win);
	MPI_Barrier(node);
	MPI_Win_sync(win);
	CHECK_EQ(mine[0], -left - 1, "store from the left neighbour");
	MPI_Win_unlock_all(win);
	CHECK_MPI(MPI_Win_free(&win));
	/* odd ranks without memory: size 0, and a NULL base when
	 * noncontiguous (where the segment would be when contiguous) */
	if (noncontig) {
		MPI_Info_create(&info);
		MPI_Info_set(info, "alloc_shared_noncontig", "true");
	}
	CHECK_MPI(MPI_Win_allocate_shared(me % 2 ? 0 : sizeof(int), sizeof(int),
					  info, node, &mine, &win));
	if (info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	if (n > 1) {
		CHECK_MPI(MPI_Win_shared_query(win, 1, &qsize, &du, &other));
		CHECK_EQ(qsize, 0, "shared_query size of a rank without memory");
		CHECK(noncontig ? !other : other != NULL, "shared_query base of "
		      "a rank without memory: %p", (void *)other);
	}
	CHECK_MPI(MPI_Win_free(&win));
	MPI_Comm_free(&node);
}

/*
 * One array attached as two regions, one after the other: an access may
 * run from the first into the second (MPICH and Open MPI take it).
 */
static void test_dynamic_span(MPI_Win win)
{
	long *c, v[8], r[8], got[8];
	MPI_Aint addr, *all;
	int i, bad = 0;

	c = calloc(16, sizeof(long));
	all = malloc(mtest_size * sizeof(MPI_Aint));
	CHECK_MPI(MPI_Win_attach(win, c, 8 * sizeof(long)));
	CHECK_MPI(MPI_Win_attach(win, c + 8, 8 * sizeof(long)));
	MPI_Get_address(c + 4, &addr);
	MPI_Allgather(&addr, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
	for (i = 0; i < 8; i++)
		v[i] = 10 * mtest_rank + i;
	CHECK_MPI(MPI_Win_lock_all(0, win));
	CHECK_MPI(MPI_Put(v, 8, MPI_LONG, right, all[right], 8, MPI_LONG, win));
	CHECK_MPI(MPI_Win_flush(right, win));
	CHECK_MPI(MPI_Accumulate(v, 8, MPI_LONG, right, all[right], 8, MPI_LONG,
				 MPI_SUM, win));
	CHECK_MPI(MPI_Get_accumulate(v, 8, MPI_LONG, r, 8, MPI_LONG, right,
				     all[right], 8, MPI_LONG, MPI_SUM, win));
	CHECK_MPI(MPI_Win_flush(right, win));
	CHECK_MPI(MPI_Get(got, 8, MPI_LONG, right, all[right], 8, MPI_LONG,
			  win));
	CHECK_MPI(MPI_Win_unlock_all(win));
	for (i = 0; i < 8; i++)
		bad += r[i] != 2 * v[i] || got[i] != 3 * v[i];
	CHECK_EQ(bad, 0, "accesses across two attached regions");
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0, bad = 0; i < 16; i++)
		bad += c[i] != (i >= 4 && i < 12 ? 3 * (10 * left + i - 4) : 0);
	CHECK_EQ(bad, 0, "target of accesses across two regions");
	CHECK_MPI(MPI_Win_detach(win, c + 8));
	CHECK_MPI(MPI_Win_detach(win, c));
	free(c);
	free(all);
}

static void test_dynamic(void)
{
	long *a = calloc(8, sizeof(long)), *b = calloc(4, sizeof(long));
	MPI_Aint addr[2], *all = malloc(2 * mtest_size * sizeof(MPI_Aint));
	long v[4] = { 11, 12, 13, 14 }, got[4];
	MPI_Win win;

	mtest_section("dynamic");
	CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	CHECK_MPI(MPI_Win_attach(win, a, 8 * sizeof(long)));
	CHECK_MPI(MPI_Win_attach(win, b, 4 * sizeof(long)));
	MPI_Get_address(a, &addr[0]);
	MPI_Get_address(b, &addr[1]);
	MPI_Allgather(addr, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);

	CHECK_MPI(MPI_Win_fence(0, win));
	v[0] = 100 + mtest_rank;
	CHECK_MPI(MPI_Put(v, 4, MPI_LONG, right,
			  all[2 * right] + 2 * sizeof(long), 4, MPI_LONG, win));
	CHECK_MPI(MPI_Accumulate(v, 1, MPI_LONG, right, all[2 * right + 1], 1,
				 MPI_LONG, MPI_SUM, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK(a[2] == 100 + left && a[3] == 12 && a[5] == 14 && a[6] == 0,
	      "region a: %ld %ld %ld %ld", a[2], a[3], a[5], a[6]);
	CHECK_EQ(b[0], 100 + left, "region b");
	CHECK_MPI(MPI_Get(got, 4, MPI_LONG, right, all[2 * right] + 2 * sizeof(long),
			  4, MPI_LONG, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_EQ(got[0], 100 + mtest_rank, "get from a dynamic window");
	test_dynamic_span(win);
	CHECK_MPI(MPI_Win_detach(win, b));
	CHECK_MPI(MPI_Win_detach(win, a));
	CHECK_MPI(MPI_Win_free(&win));
	free(a);
	free(b);
	free(all);
}

static void test_group_info_name(void)
{
	MPI_Group wg, cg;
	MPI_Info info, used;
	char val[MPI_MAX_INFO_VAL + 1], name[MPI_MAX_OBJECT_NAME];
	int cmp, flag, len;
	long mem[2];
	MPI_Win win;

	mtest_section("group, info, name");
	MPI_Info_create(&info);
	MPI_Info_set(info, "no_locks", "true");
	MPI_Info_set(info, "accumulate_ordering", "none");
	MPI_Info_set(info, "same_size", "true");
	CHECK_MPI(MPI_Win_create(mem, sizeof(mem), sizeof(long), info,
				 MPI_COMM_WORLD, &win));
	MPI_Info_free(&info);
	CHECK_MPI(MPI_Win_get_group(win, &wg));
	MPI_Comm_group(MPI_COMM_WORLD, &cg);
	CHECK_MPI(MPI_Group_compare(wg, cg, &cmp));
	CHECK_EQ(cmp, MPI_IDENT, "window group");
	MPI_Group_free(&wg);
	MPI_Group_free(&cg);

	CHECK_MPI(MPI_Win_get_info(win, &used));
	CHECK_MPI(MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL,
			       val, &flag));
	CHECK(flag && !strcmp(val, "none"), "accumulate_ordering: %s",
	      flag ? val : "(unset)");
	CHECK_MPI(MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL, val, &flag));
	CHECK(flag && !strcmp(val, "true"), "no_locks: %s", flag ? val : "(unset)");
	MPI_Info_free(&used);

	MPI_Info_create(&info);
	MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw");
	CHECK_MPI(MPI_Win_set_info(win, info));
	MPI_Info_free(&info);
	CHECK_MPI(MPI_Win_get_info(win, &used));
	CHECK_MPI(MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL,
			       val, &flag));
	CHECK(flag, "accumulate_ordering after set_info");
	MPI_Info_free(&used);

	/* no_locks windows still synchronise with fences */
	CHECK_MPI(MPI_Win_fence(0, win));
	mem[0] = mtest_rank;
	CHECK_MPI(MPI_Win_fence(0, win));

	CHECK_MPI(MPI_Win_set_name(win, "my window"));
	CHECK_MPI(MPI_Win_get_name(win, name, &len));
	CHECK(!strcmp(name, "my window") && len == 9, "window name '%s'", name);
	CHECK_MPI(MPI_Win_free(&win));

	/* a window with the default info has the standard keys */
	CHECK_MPI(MPI_Win_create(mem, sizeof(mem), sizeof(long), MPI_INFO_NULL,
				 MPI_COMM_WORLD, &win));
	CHECK_MPI(MPI_Win_get_info(win, &used));
	CHECK_MPI(MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL,
			       val, &flag));
	CHECK(flag && !strcmp(val, "rar,raw,war,waw"),
	      "default accumulate_ordering: %s", flag ? val : "(unset)");
	MPI_Info_free(&used);
	CHECK_MPI(MPI_Win_free(&win));
}

static void test_requests(void)
{
	long *mem, v[4], got[4], res = -1, one = 1;
	MPI_Request req[4];
	MPI_Status st[3];
	MPI_Win win;
	int flag = 0, i;

	mtest_section("request-based");
	CHECK_MPI(MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &win));
	for (i = 0; i < 8; i++)
		mem[i] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	for (i = 0; i < 4; i++)
		v[i] = mtest_rank * 10 + i;
	CHECK_MPI(MPI_Rput(v, 4, MPI_LONG, right, 0, 4, MPI_LONG, win, &req[0]));
	CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
	/* local completion: v may change now; remote needs a flush */
	v[0] = -1;
	CHECK_MPI(MPI_Win_flush(right, win));
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Rget(got, 4, MPI_LONG, right, 0, 4, MPI_LONG, win, &req[0]));
	CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_LONG, right, 4, 1, MPI_LONG,
				  MPI_SUM, win, &req[1]));
	CHECK_MPI(MPI_Rget_accumulate(&one, 1, MPI_LONG, &res, 1, MPI_LONG, right,
				      5, 1, MPI_LONG, MPI_SUM, win, &req[2]));
	CHECK_MPI(MPI_Waitall(3, req, st));
	CHECK(got[0] == mtest_rank * 10 && got[3] == mtest_rank * 10 + 3,
	      "rget: %ld %ld", got[0], got[3]);
	CHECK_EQ(res, 0, "rget_accumulate old value");
	/* request completion is local; the flush makes the update visible */
	CHECK_MPI(MPI_Win_flush(right, win));
	CHECK_MPI(MPI_Rget(got, 1, MPI_LONG, right, 5, 1, MPI_LONG, win, &req[0]));
	while (!flag)
		CHECK_MPI(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE));
	CHECK_EQ(got[0], 1, "rget after rget_accumulate");
	CHECK_MPI(MPI_Win_flush_all(win));
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_sync(win);
	CHECK_EQ(mem[4], 1, "raccumulate arrived");
	MPI_Win_unlock_all(win);
	CHECK_MPI(MPI_Win_free(&win));
}

static void test_zero_and_single(void)
{
	long *mem, v = 5, old = -1, cmp;
	MPI_Win win;

	mtest_section("zero counts, single element");
	CHECK_MPI(MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &win));
	mem[0] = 7;
	mem[1] = 0;
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_MPI(MPI_Put(&v, 0, MPI_LONG, right, 0, 0, MPI_LONG, win));
	CHECK_MPI(MPI_Get(&v, 0, MPI_LONG, right, 0, 0, MPI_LONG, win));
	CHECK_MPI(MPI_Accumulate(&v, 0, MPI_LONG, right, 0, 0, MPI_LONG, MPI_SUM,
				 win));
	/* a zero count may even point past the window */
	CHECK_MPI(MPI_Put(&v, 0, MPI_LONG, right, 100, 0, MPI_LONG, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_EQ(mem[0], 7, "after zero-count operations");
	CHECK_EQ(v, 5, "origin after a zero-count get");
	MPI_Barrier(MPI_COMM_WORLD);	/* checked before the CAS below */

	CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
	cmp = 7;
	CHECK_MPI(MPI_Compare_and_swap(&v, &cmp, &old, MPI_LONG, right, 0, win));
	CHECK_MPI(MPI_Win_flush(right, win));
	CHECK_EQ(old, 7, "CAS old value");
	CHECK_MPI(MPI_Compare_and_swap(&cmp, &cmp, &old, MPI_LONG, right, 0, win));
	CHECK_MPI(MPI_Win_flush(right, win));
	CHECK_EQ(old, 5, "CAS that must not swap");
	CHECK_MPI(MPI_Fetch_and_op(&v, &old, MPI_LONG, right, 1, MPI_SUM, win));
	CHECK_MPI(MPI_Fetch_and_op(NULL, &old, MPI_LONG, right, 1, MPI_NO_OP, win));
	CHECK_MPI(MPI_Win_unlock(right, win));
	CHECK_EQ(old, 5, "fetch_and_op then NO_OP read");
	CHECK_MPI(MPI_Win_free(&win));
}

/*
 * mpirma's extensions: only with mpirma's own mpi.h (the same source also
 * runs under Open MPI and MPICH with the hybrid layer, hybrid/run).
 */
#ifdef MPIRMA
/* MPIRMA_ATOMICITY chooses the strategy of windows created without the key. */
static void test_env_strategy(void)
{
	const char *want = getenv("MPIRMA_ATOMICITY");
	char v[MPI_MAX_INFO_VAL + 1];
	MPI_Info info;
	MPI_Win win;
	int flag;
	long *mem;

	if (!want)
		return;
	mtest_section("MPIRMA_ATOMICITY");
	CHECK_MPI(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
				   &mem, &win));
	CHECK_MPI(MPI_Win_get_info(win, &info));
	CHECK_MPI(MPI_Info_get(info, MPIRMA_INFO_ATOMICITY, MPI_MAX_INFO_VAL, v, &flag));
	CHECK(flag && !strcmp(v, want), "strategy %s, MPIRMA_ATOMICITY=%s", flag ? v : "?",
	      want);
	CHECK_MPI(MPI_Info_free(&info));
	CHECK_MPI(MPI_Win_free(&win));
}

static void test_strategies(void)
{
	static const char *const names[] = { "lock", "striped", "native", "delegate" };
	long one = 1, prev, *mem;
	int i, k, node, worker;
	MPI_Info info;
	MPI_Win win;

	for (k = 0; k < 4; k++) {
		mtest_section(names[k]);
		CHECK_MPI(MPI_Info_create(&info));
		CHECK_MPI(MPI_Info_set(info, MPIRMA_INFO_ATOMICITY, names[k]));
		CHECK_MPI(MPI_Win_allocate(sizeof(long), sizeof(long), info, MPI_COMM_WORLD,
					   &mem, &win));
		CHECK_MPI(MPI_Info_free(&info));
		*mem = 0;
		if (k == 0) {
			char v[MPI_MAX_INFO_VAL + 1];
			int flag;

			/* and interleaved placement, read back by get_info */
			CHECK_MPI(MPI_Win_free(&win));
			CHECK_MPI(MPI_Info_create(&info));
			CHECK_MPI(MPI_Info_set(info, MPIRMA_INFO_NUMA_NODE, "interleave"));
			CHECK_MPI(MPI_Win_allocate(4 * 4096, sizeof(long), info, MPI_COMM_WORLD,
						   &mem, &win));
			CHECK_MPI(MPI_Info_free(&info));
			CHECK_MPI(MPI_Win_get_info(win, &info));
			CHECK_MPI(MPI_Info_get(info, MPIRMA_INFO_NUMA_NODE, MPI_MAX_INFO_VAL, v,
					       &flag));
			CHECK(flag && !strcmp(v, "interleave"), "numa_node reads back as %s", v);
			CHECK_MPI(MPI_Info_free(&info));
			*mem = 0;
		}
		CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
		CHECK_MPI(MPI_Win_lock_all(0, win));
		for (i = 0; i < 50; i++)
			CHECK_MPI(MPI_Fetch_and_op(&one, &prev, MPI_LONG, 0, 0, MPI_SUM, win));
		CHECK_MPI(MPI_Win_unlock_all(win));
		CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
		if (mtest_rank == 0)
			CHECK_EQ(*mem, 50L * mtest_size, "fetch_and_op total");
		CHECK_MPI(MPIX_Win_get_node(win, right, &node));
		CHECK(node >= 0, "the memory of rank %d is on a node (%d)", right, node);
		CHECK_MPI(MPIX_Win_get_worker(win, right, &worker));
		if (k == 3)
			CHECK(worker >= 0, "a delegated window has a worker (%d)", worker);
		else
			CHECK_EQ(worker, -1, "no worker without delegation");
		CHECK_MPI(MPI_Win_free(&win));
	}
}
#endif /* MPIRMA */

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "win");
	right = (mtest_rank + 1) % mtest_size;
	left = (mtest_rank + mtest_size - 1) % mtest_size;
	test_create_disp_unit();
	test_allocate_odd();
	test_large_puts(0);
	test_large_puts(1);
	test_shared(0);
	test_shared(1);
	test_dynamic();
	test_group_info_name();
	test_requests();
	test_zero_and_single();
#ifdef MPIRMA
	test_strategies();
	test_env_strategy();
#endif
	return mtest_finish();
}
