// SPDX-License-Identifier: GPL-2.0
/*
 * span: MPI's guarantees on one window whose ranks span nodes, where (under
 * the hybrid layer at 2 or more logical nodes) node-local targets are
 * served by the module and the others by the host MPI, accumulates to them
 * shipped to the target's agent (docs/hybrid.md).
 * Every target below has origins on its own node and on the other at once,
 * so each check holds across the two paths, not only within one:
 *
 *  - accumulate (SUM) from every rank on one element, and on a strided
 *    vector (a derived datatype), with exact totals;
 *  - fetch_and_op and get_accumulate tickets that form a permutation;
 *  - get_accumulate REPLACE swaps of unique tokens: the values fetched and
 *    the one left form a permutation (nothing lost, nothing seen twice);
 *  - MPI_NO_OP reads of the sum, which only grows, never going back;
 *  - a compare_and_swap spinlock guarding a get + put increment;
 *  - MPI_LOCK_EXCLUSIVE guarding a get + put increment, and one made of
 *    a fetch (NO_OP) and a REPLACE, which remote origins ship to the
 *    target's agent: the lock must hold for those too;
 *  - accumulate_ordering: REPLACE, then SUM, then a fetch (NO_OP) from one
 *    origin, unflushed, must apply in that order;
 *  - runs of small unflushed puts and accumulates to one target (which the
 *    layer ships as runs, applied as one kernel operation when disjoint):
 *    scattered distinct elements, one element again and again, an op, a
 *    kind or a count that changes, every result exact and in issue order;
 *  - operations longer than the layer's messages to an agent (a put, an
 *    accumulate REPLACE and a get_accumulate of LONG longs, between small
 *    batched accumulates on the same elements): in issue order, exact;
 *  - completion: flush (a message after it finds the data at the target),
 *    fence, and post/start/complete/wait; and operations to a target that
 *    waits in MPI_Recv for the message each origin sends after its flush;
 *  - errors: accumulate-like operations outside any epoch fail with
 *    MPI_ERR_RMA_SYNC; an accumulate and a fetch_and_op past the end of
 *    the target's memory fail (at the call or at the flush or fence that
 *    completes them) with MPI_ERR_RMA_RANGE, accumulates issued around
 *    them in the same epoch still count, and the epoch, the next
 *    operations and the synchronization go on as if nothing happened.
 * In the three flavors with memory (allocate, create, dynamic).
 *
 * Args: span=1: the window must report mpirma_span "true" (the layer
 * serves it in two parts; a layer that left it to the host fails);
 * span=0: it must not.  Absent: only "served by mpirma" is checked.
 * errors=0: no error checks (MPIRMA_SPAN_ACCUMULATE=host leaves the
 * accumulates' errors to the host MPI, which reports what it reports).
 * runs=0: no runs test (MPICH 4.0.2 gets it wrong when it applies the
 * accumulates itself); long=0: no long operations test (Open MPI 4.1's
 * osc pt2pt and MPICH 4.0.2 break their accumulate ordering there).
 * fatal=CALL: only span_test_fatal, which ends the job; tags=N: only
 * span_test_tags.
 *
 * The completion and error checks are in span/, beside span/span.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"
#include "span/span.h"

#define RUN	96	/* longs per origin rank in the runs test */
#define LONG	16384	/* longs per origin rank in the long test: 128 KiB */

static int nslots;		/* S_ORDER + 2 * size: order, then fence, */
static int run_base;		/* ... then RUN per rank: runs, */
static int long_base;		/* ... then LONG per rank: long operations */

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static void info_check(MPI_Win win, const char *key, int expect)
{
	char v[MPI_MAX_INFO_VAL + 1];
	MPI_Info info;
	int flag = 0;

	CHECK_MPI(MPI_Win_get_info(win, &info));
	MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
	MPI_Info_free(&info);
	if (!strcmp(key, "mpirma_atomicity"))
		CHECK(flag, "the window is not served by mpirma");
	else if (expect >= 0)
		CHECK(flag && !strcmp(v, expect ? "true" : "false"),
		      "%s is %s, want %s", key, flag ? v : "(unset)",
		      expect ? "true" : "false");
}

static void open_span(struct span *w, int flavor, int expect_span)
{
	MPI_Aint bytes = (MPI_Aint)nslots * sizeof(long);

	memset(w, 0, sizeof(*w));
	w->nslots = nslots;
	w->flavor = flavor;
	switch (flavor) {
	case MPI_WIN_FLAVOR_ALLOCATE:
		CHECK_MPI(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL,
					   MPI_COMM_WORLD, &w->mem, &w->win));
		break;
	case MPI_WIN_FLAVOR_CREATE:
		w->mem = malloc((size_t)bytes);
		CHECK_MPI(MPI_Win_create(w->mem, bytes, sizeof(long),
					 MPI_INFO_NULL, MPI_COMM_WORLD,
					 &w->win));
		break;
	default:
		w->mem = malloc((size_t)bytes);
		w->disp = malloc(sizeof(MPI_Aint) * (size_t)mtest_size);
		CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD,
						 &w->win));
		CHECK_MPI(MPI_Win_attach(w->win, w->mem, bytes));
		MPI_Get_address(w->mem, &w->disp0);
		MPI_Allgather(&w->disp0, 1, MPI_AINT, w->disp, 1, MPI_AINT,
			      MPI_COMM_WORLD);
		break;
	}
	memset(w->mem, 0, (size_t)bytes);
	info_check(w->win, "mpirma_atomicity", 1);
	info_check(w->win, "mpirma_span", expect_span);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void close_span(struct span *w)
{
	if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
		CHECK_MPI(MPI_Win_detach(w->win, w->mem));
	CHECK_MPI(MPI_Win_free(&w->win));
	if (w->flavor != MPI_WIN_FLAVOR_ALLOCATE)
		free(w->mem);
	free(w->disp);
}

/*
 * Values fetched from one target, gathered at it, with @last (the target's
 * final value, or -1: none) added: a permutation of 0, 1, ...
 */
static void check_perm(long *mine, int n, int t, long last, const char *what)
{
	long *all = NULL;
	int total = n * mtest_size + (last >= 0);

	if (mtest_rank == t)
		all = malloc(sizeof(long) * (size_t)total);
	MPI_Gather(mine, n, MPI_LONG, all, n, MPI_LONG, t, MPI_COMM_WORLD);
	if (mtest_rank != t || !all)
		return;
	if (last >= 0)
		all[total - 1] = last;
	qsort(all, (size_t)total, sizeof(long), cmp_long);
	for (int k = 0; k < total; k++)
		if (all[k] != k) {
			CHECK(0, "%s at rank %d: ticket %d is %ld", what, t, k,
			      all[k]);
			break;
		}
	free(all);
}

/* The non-atomic read-modify-write the locks guard: get, add 1, put. */
static void increment(const struct span *w, int t, int slot)
{
	long v;

	CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, t, at(w, t, slot), 1, MPI_LONG,
			  w->win));
	CHECK_MPI(MPI_Win_flush(t, w->win));
	v++;
	CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, at(w, t, slot), 1, MPI_LONG,
			  w->win));
}

/* The same with accumulate-like operations, atomic each but not together. */
static void increment_acc(const struct span *w, int t, int slot)
{
	long v, unused = 0;

	CHECK_MPI(MPI_Fetch_and_op(&unused, &v, MPI_LONG, t, at(w, t, slot),
				   MPI_NO_OP, w->win));
	CHECK_MPI(MPI_Win_flush(t, w->win));
	v++;
	CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, t, at(w, t, slot), 1,
				 MPI_LONG, MPI_REPLACE, w->win));
}

/*
 * Slot @s of this process's memory when it is target @t (-1 otherwise),
 * read in an epoch on itself after the others' epochs are over.
 */
static long own(const struct span *w, int t, int s)
{
	long v;

	if (mtest_rank != t)
		return -1;
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
	CHECK_MPI(MPI_Win_sync(w->win));
	v = w->mem[s];
	CHECK_MPI(MPI_Win_unlock(t, w->win));
	return v;
}

/* Tickets from one target: a permutation of 0 .. n * size - 1. */
static void check_tickets(long *mine, int n, int t, const char *what)
{
	check_perm(mine, n, t, -1, what);
}

/* Accumulates, tickets, swaps, CAS lock and exclusive lock, all in one go. */
static void test_atomic(struct span *w)
{
	long one = 1, zero = 0, me = 1, got, vec[VEC], seen[2] = { 0, 0 };
	long fop[2][OPS], gacc[2][OPS], swap[2][OPS];
	int nf[2] = { 0, 0 }, ng[2] = { 0, 0 }, ns[2] = { 0, 0 };
	MPI_Datatype strided;

	mtest_section("atomicity across nodes");
	MPI_Type_vector(VEC, 1, 2, MPI_LONG, &strided);
	MPI_Type_commit(&strided);
	for (int k = 0; k < VEC; k++)
		vec[k] = k + 1;
	CHECK_MPI(MPI_Win_lock_all(0, w->win));
	for (int i = 0; i < 2 * OPS; i++) {
		int t = target(i), side = i % 2;

		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, at(w, t, S_SUM),
					 1, MPI_LONG, MPI_SUM, w->win));
		CHECK_MPI(MPI_Accumulate(vec, VEC, MPI_LONG, t,
					 at(w, t, S_VEC), 1, strided, MPI_SUM,
					 w->win));
		CHECK_MPI(MPI_Fetch_and_op(&one, &fop[side][nf[side]++],
					   MPI_LONG, t, at(w, t, S_TICKET),
					   MPI_SUM, w->win));
		CHECK_MPI(MPI_Get_accumulate(&one, 1, MPI_LONG,
					     &gacc[side][ng[side]++], 1,
					     MPI_LONG, t, at(w, t, S_GACC),
					     1, MPI_LONG, MPI_SUM, w->win));
		/* A unique token (1 ...) swapped in: the old one comes out. */
		got = 1 + (long)mtest_rank * OPS + ns[side];
		CHECK_MPI(MPI_Get_accumulate(&got, 1, MPI_LONG,
					     &swap[side][ns[side]++], 1,
					     MPI_LONG, t, at(w, t, S_SWAP),
					     1, MPI_LONG, MPI_REPLACE, w->win));
		/* The sum seen through MPI_NO_OP only grows. */
		CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_LONG, t,
					   at(w, t, S_SUM), MPI_NO_OP,
					   w->win));
		CHECK_MPI(MPI_Win_flush(t, w->win));
		CHECK(got >= seen[side] && got <= (long)mtest_size * OPS,
		      "sum read %ld after %ld (at most %ld)", got, seen[side],
		      (long)mtest_size * OPS);
		seen[side] = got;
		/* The spinlock: CAS 0 -> 1, get + put, CAS 1 -> 0. */
		do {
			CHECK_MPI(MPI_Compare_and_swap(&me, &zero, &got,
						       MPI_LONG, t,
						       at(w, t, S_LOCK),
						       w->win));
			CHECK_MPI(MPI_Win_flush(t, w->win));
		} while (got != 0);
		increment(w, t, S_GUARDED);
		CHECK_MPI(MPI_Win_flush(t, w->win));
		CHECK_MPI(MPI_Compare_and_swap(&zero, &me, &got, MPI_LONG, t,
					       at(w, t, S_LOCK), w->win));
		CHECK_MPI(MPI_Win_flush(t, w->win));
		CHECK_EQ(got, 1, "lock word at release");
	}
	CHECK_MPI(MPI_Win_unlock_all(w->win));

	/* The host's exclusive lock, taken by local and remote origins. */
	for (int i = 0; i < 2 * OPS; i++) {
		int t = target(i);

		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win));
		increment(w, t, S_EXCL);
		CHECK_MPI(MPI_Win_unlock(t, w->win));
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win));
		increment_acc(w, t, S_XACC);
		CHECK_MPI(MPI_Win_unlock(t, w->win));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Type_free(&strided);

	for (int side = 0; side < 2; side++) {
		int t = side ? mtest_size - 1 : 0;
		long want = (long)mtest_size * OPS;

		check_tickets(fop[side], OPS, t, "fetch_and_op");
		check_tickets(gacc[side], OPS, t, "get_accumulate");
		check_perm(swap[side], OPS, t, own(w, t, S_SWAP),
			   "REPLACE swap");
		if (mtest_rank != t)
			continue;
		/* Our own memory: the epochs are over, a sync makes it ours. */
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
		CHECK_MPI(MPI_Win_sync(w->win));
		CHECK(w->mem[S_SUM] == want, "sum %ld, want %ld",
		      w->mem[S_SUM], want);
		CHECK(w->mem[S_GUARDED] == want, "CAS-guarded %ld, want %ld",
		      w->mem[S_GUARDED], want);
		CHECK(w->mem[S_EXCL] == want, "lock-guarded %ld, want %ld",
		      w->mem[S_EXCL], want);
		CHECK(w->mem[S_XACC] == want,
		      "lock-guarded accumulates %ld, want %ld",
		      w->mem[S_XACC], want);
		for (int k = 0; k < VEC; k++)
			CHECK(w->mem[S_VEC + 2 * k] == want * (k + 1) &&
			      w->mem[S_VEC + 2 * k + 1] == 0,
			      "vector element %d: %ld (gap %ld), want %ld", k,
			      w->mem[S_VEC + 2 * k], w->mem[S_VEC + 2 * k + 1],
			      want * (k + 1));
		CHECK_MPI(MPI_Win_unlock(t, w->win));
	}
}

/*
 * accumulate_ordering (default rar,raw,war,waw): REPLACE, SUM and a fetch
 * from one origin, none flushed in between, apply in that order.
 */
static void test_ordering(struct span *w)
{
	long v, one = 1, dummy = 0, seen;

	mtest_section("accumulate ordering");
	CHECK_MPI(MPI_Win_lock_all(0, w->win));
	for (int i = 0; i < 2 * OPS; i++) {
		int t = target(i);
		MPI_Aint d = at(w, t, S_ORDER + mtest_rank);

		v = 1000L * (i + 1);
		CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, t, d, 1, MPI_LONG,
					 MPI_REPLACE, w->win));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, d, 1, MPI_LONG,
					 MPI_SUM, w->win));
		CHECK_MPI(MPI_Fetch_and_op(&dummy, &seen, MPI_LONG, t, d,
					   MPI_NO_OP, w->win));
		CHECK_MPI(MPI_Win_flush(t, w->win));
		CHECK_EQ(seen, v + 1, "REPLACE, SUM, fetch");
	}
	CHECK_MPI(MPI_Win_unlock_all(w->win));
	MPI_Barrier(MPI_COMM_WORLD);
}

/*
 * The runs test's sequence from origin @r on its RUN longs of a target,
 * issued (@w not NULL, to rank @t) or simulated on @mem.  Element i of the
 * scattered part is (i * 37 + r) % 64: distinct, out of order.
 */
static void run_sequence(const struct span *w, int t, int r, long *mem)
{
	long v[2];

	for (int i = 0; i < 64; i++) {
		int e = (i * 37 + r) % 64;

		v[0] = i + 1 + r;
		if (mem)
			mem[e] += v[0];
		else
			CHECK_MPI(MPI_Accumulate(v, 1, MPI_LONG, t,
						 at(w, t, run_base + RUN * r + e),
						 1, MPI_LONG, MPI_SUM, w->win));
	}
	for (int i = 0; i < 20; i++) {
		/* the same element again and again, then another op, kind, count */
		int e = 64 + i % 4;
		MPI_Op op = i % 3 == 2 ? MPI_REPLACE : MPI_SUM;
		int n = i % 5 == 4 ? 2 : 1;

		v[0] = 100 * (i + 1) + r;
		v[1] = -v[0];
		if (mem) {
			for (int k = 0; k < n; k++)
				mem[e + k] = op == MPI_SUM ? mem[e + k] + v[k] : v[k];
		} else {
			CHECK_MPI(MPI_Accumulate(v, n, MPI_LONG, t,
						 at(w, t, run_base + RUN * r + e),
						 n, MPI_LONG, op, w->win));
		}
		if (i % 7 == 6) {
			v[0] = 7 * i;
			if (mem)
				mem[70 + i % 3] = v[0];
			else
				CHECK_MPI(MPI_Put(v, 1, MPI_LONG, t,
						  at(w, t, run_base + RUN * r +
						     70 + i % 3),
						  1, MPI_LONG, w->win));
		}
	}
}

static void test_runs(struct span *w)
{
	long want[RUN];

	mtest_section("runs of small operations");
	CHECK_MPI(MPI_Win_lock_all(0, w->win));
	for (int i = 0; i < 2; i++)
		run_sequence(w, target(i), mtest_rank, NULL);
	CHECK_MPI(MPI_Win_unlock_all(w->win));
	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank != target(0) && mtest_rank != target(1))
		return;
	for (int r = 0; r < mtest_size; r++) {
		const long *got = &w->mem[run_base + RUN * r];

		memset(want, 0, sizeof(want));
		for (int i = 0; i < 2; i++)
			if (target(i) == mtest_rank)
				run_sequence(NULL, 0, r, want);
		for (int e = 0; e < RUN; e++)
			if (!CHECK(got[e] == want[e], "runs: origin %d, element "
				   "%d: %ld, want %ld", r, e, got[e], want[e]))
				break;
	}
}

/*
 * Operations longer than one message to an agent: a put read back, then
 * in one epoch, unflushed, a small SUM on the first element, a REPLACE of
 * all LONG, small SUMs on the first and last, and a get_accumulate SUM of
 * all LONG, which must see them applied in that order
 * (accumulate_ordering), on each origin's own LONG longs of each target.
 */
static void test_long(struct span *w)
{
	long *v = malloc(2 * LONG * sizeof(long)), *got = v + LONG;
	long five = 5, ones = 1, want;
	int r = mtest_rank;

	mtest_section("long operations");
	CHECK(v != NULL, "out of memory");
	if (!v)
		return;
	CHECK_MPI(MPI_Win_lock_all(0, w->win));
	for (int i = 0; i < 2; i++) {
		int t = target(i);
		MPI_Aint d = at(w, t, long_base + LONG * r);

		for (int e = 0; e < LONG; e++)
			v[e] = 3L * e - r;
		CHECK_MPI(MPI_Put(v, LONG, MPI_LONG, t, d, LONG, MPI_LONG,
				  w->win));
		CHECK_MPI(MPI_Win_flush(t, w->win));
		CHECK_MPI(MPI_Get(got, LONG, MPI_LONG, t, d, LONG, MPI_LONG,
				  w->win));
		CHECK_MPI(MPI_Win_flush(t, w->win));
		CHECK(!memcmp(v, got, LONG * sizeof(long)), "long put to "
		      "rank %d: read back differs", t);

		CHECK_MPI(MPI_Accumulate(&ones, 1, MPI_LONG, t, d, 1,
					 MPI_LONG, MPI_SUM, w->win));
		for (int e = 0; e < LONG; e++)
			v[e] = e + 7L * r;
		CHECK_MPI(MPI_Accumulate(v, LONG, MPI_LONG, t, d, LONG,
					 MPI_LONG, MPI_REPLACE, w->win));
		CHECK_MPI(MPI_Accumulate(&five, 1, MPI_LONG, t, d, 1,
					 MPI_LONG, MPI_SUM, w->win));
		CHECK_MPI(MPI_Accumulate(&five, 1, MPI_LONG, t,
					 at(w, t, long_base + LONG * r +
					    LONG - 1), 1, MPI_LONG, MPI_SUM,
					 w->win));
		for (int e = 0; e < LONG; e++)
			v[e] = 1;
		CHECK_MPI(MPI_Get_accumulate(v, LONG, MPI_LONG, got, LONG,
					     MPI_LONG, t, d, LONG, MPI_LONG,
					     MPI_SUM, w->win));
		CHECK_MPI(MPI_Win_flush(t, w->win));
		for (int e = 0; e < LONG; e++) {
			want = e + 7L * r + (e == 0 || e == LONG - 1) * 5;
			if (!CHECK(got[e] == want, "long get_accumulate from "
				   "rank %d, element %d: %ld, want %ld", t, e,
				   got[e], want))
				break;
		}
	}
	CHECK_MPI(MPI_Win_unlock_all(w->win));
	MPI_Barrier(MPI_COMM_WORLD);
	for (int o = 0; o < mtest_size; o++) {
		const long *m = &w->mem[long_base + LONG * o];

		if (mtest_rank != target(0) && mtest_rank != target(1))
			break;
		for (int e = 0; e < LONG; e++) {
			want = e + 7L * o + (e == 0 || e == LONG - 1) * 5 + 1;
			if (!CHECK(m[e] == want, "long operations of origin "
				   "%d, element %d: %ld, want %ld", o, e,
				   m[e], want))
				break;
		}
	}
	free(v);
}


/* The value of argument KEY=VALUE, or NULL. */
static const char *arg_str(int argc, char **argv, const char *key)
{
	size_t n = strlen(key);

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], key, n) && argv[i][n] == '=')
			return argv[i] + n + 1;
	return NULL;
}


static int arg(int argc, char **argv, const char *key)
{
	const char *v = arg_str(argc, argv, key);

	return v ? atoi(v) : -1;
}


int main(int argc, char **argv)
{
	static const int flavors[] = { MPI_WIN_FLAVOR_ALLOCATE,
				       MPI_WIN_FLAVOR_CREATE,
				       MPI_WIN_FLAVOR_DYNAMIC };
	int expect = -1, errors, runs, lng;
	struct span w;

	mtest_init(&argc, &argv, "span");
	expect = arg(argc, argv, "span");
	errors = arg(argc, argv, "errors") != 0;
	runs = arg(argc, argv, "runs") != 0;
	lng = arg(argc, argv, "long") != 0;
	run_base = S_ORDER + 2 * mtest_size;
	long_base = run_base + RUN * mtest_size;
	nslots = long_base + LONG * mtest_size;
	if (arg(argc, argv, "tags") >= 0) {
		span_test_tags(arg(argc, argv, "tags"));
		return mtest_finish();
	}
	if (arg_str(argc, argv, "fatal")) {
		open_span(&w, MPI_WIN_FLAVOR_DYNAMIC, expect);
		span_test_fatal(&w, arg_str(argc, argv, "fatal"));
		close_span(&w);
		return mtest_finish();
	}
	for (size_t f = 0; f < sizeof(flavors) / sizeof(flavors[0]); f++) {
		open_span(&w, flavors[f], expect);
		if (f == 0) {
			test_atomic(&w);
			test_ordering(&w);
			if (runs)
				test_runs(&w);
			if (lng)
				test_long(&w);
			if (errors)
				span_test_errors(&w);
			if (lng)
				span_test_mutual();
		} else {
			/* The other flavors: the shipped path's addressing. */
			test_ordering(&w);
			if (runs)
				test_runs(&w);
		}
		span_test_completion(&w);
		close_span(&w);
	}
	return mtest_finish();
}
