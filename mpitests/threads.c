// SPDX-License-Identifier: GPL-2.0
/*
 * threads: every MPI call from several threads of every rank at once, when
 * the MPI grants MPI_THREAD_MULTIPLE (under the hybrid layer, whatever the
 * host grants must stay true); with a lower level the test only checks that
 * the level granted is one the standard allows, and passes.
 *
 * On a window of each flavor (created, allocated, shared, dynamic), inside
 * one lock_all epoch the main thread opens, THREADS threads of every rank
 * call every RMA call, plain and request-based, on targets that change from
 * call to call (an accumulate's target type a derived one each thread
 * makes anew every third call), and flush their own targets (or all, or
 * locally).  Then
 * each thread takes an exclusive lock on a target of its own.  The totals
 * must be exact, the tickets of fetch_and_op a permutation, every put's
 * last value there, and compare_and_swap increments none lost.  Thread 0
 * first makes, uses and frees windows of its own while the others' RMA
 * calls run.  Meanwhile
 * each thread also exchanges messages with its peer thread on the next
 * rank and reduces on a communicator of its own, so that blocking
 * point-to-point and collectives wait beside the RMA.
 *
 * Arguments: ops=N (calls per thread and flavor, default 40, 12 under a
 * host MPI), flavors=LIST (letters c, a, s, d; default all four).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define THREADS	4

/* The window's words, per rank (MPI_LONG each). */
enum {
	W_SUM,		/* accumulate, raccumulate: +1 each */
	W_TICKET,	/* fetch_and_op on rank 0: tickets */
	W_CONST,	/* 42, only read */
	W_GACC,		/* get_accumulate, rget_accumulate: +2 each */
	W_CAS,		/* compare_and_swap increments */
	W_LOCKED,	/* accumulates under a thread's exclusive lock */
	W_SLOTS,	/* [size * THREADS]: put and rput by (rank, thread) */
};

static int ops = 40;
static MPI_Win win;
static MPI_Aint *bases;		/* dynamic windows: every rank's base */
static MPI_Comm tcomm[THREADS];	/* each thread's own communicator */
static long *tickets;		/* [THREADS][ops] */

/* Target displacement of word @k on rank @r (dynamic windows: addresses). */
static MPI_Aint disp(int r, int k)
{
	return bases ? MPI_Aint_add(bases[r], k * (MPI_Aint)sizeof(long)) : k;
}

/* Adds one to W_CAS of @target with a compare_and_swap loop. */
static void cas_increment(int target)
{
	long seen, want, got = -1;

	CHECK_MPI(MPI_Fetch_and_op(NULL, &seen, MPI_LONG, target,
				   disp(target, W_CAS), MPI_NO_OP, win));
	CHECK_MPI(MPI_Win_flush(target, win));
	for (int tries = 0; tries < 100000; tries++) {
		want = seen + 1;
		CHECK_MPI(MPI_Compare_and_swap(&want, &seen, &got, MPI_LONG,
					       target, disp(target, W_CAS),
					       win));
		CHECK_MPI(MPI_Win_flush(target, win));
		if (got == seen)
			return;
		seen = got;
	}
	CHECK(0, "compare_and_swap never succeeded");
}

/* One thread's calls in the lock_all epoch. */
static void rma_calls(int t)
{
	MPI_Datatype one_long = MPI_DATATYPE_NULL;
	long one = 1, two = 2, got, old, val;
	int slot = mtest_rank * THREADS + t;
	MPI_Request req[4];
	MPI_Status st[4];

	for (int i = 0; i < ops; i++) {
		int target = (mtest_rank + t + i) % mtest_size;

		/*
		 * A derived target type of the thread's own, made anew every
		 * third call and freed with its accumulate maybe pending: the
		 * layer's slots of derived types written and read at once.
		 */
		if (i % 3 == 0) {
			if (one_long != MPI_DATATYPE_NULL)
				CHECK_MPI(MPI_Type_free(&one_long));
			CHECK_MPI(MPI_Type_contiguous(1, MPI_LONG, &one_long));
			CHECK_MPI(MPI_Type_commit(&one_long));
		}
		val = i + 1;
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, target,
					 disp(target, W_SUM), 1, one_long,
					 MPI_SUM, win));
		CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[t * ops + i],
					   MPI_LONG, 0, disp(0, W_TICKET),
					   MPI_SUM, win));
		CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, target,
				  disp(target, W_CONST), 1, MPI_LONG, win));
		CHECK_MPI(MPI_Get_accumulate(&two, 1, MPI_LONG, &old, 1,
					     MPI_LONG, target,
					     disp(target, W_GACC), 1, MPI_LONG,
					     MPI_SUM, win));
		CHECK_MPI(MPI_Put(&val, 1, MPI_LONG, target,
				  disp(target, W_SLOTS + slot), 1, MPI_LONG,
				  win));
		switch (i % 3) {
		case 0:
			CHECK_MPI(MPI_Win_flush(target, win));
			break;
		case 1:
			CHECK_MPI(MPI_Win_flush_all(win));
			break;
		default:
			CHECK_MPI(MPI_Win_flush_local(target, win));
			CHECK_MPI(MPI_Win_flush(0, win));
			CHECK_MPI(MPI_Win_flush(target, win));
			break;
		}
		CHECK_EQ(got, 42, "constant word");
		CHECK(old >= 0 && old % 2 == 0, "get_accumulate saw %ld", old);

		/* The request-based forms: the same, completed by a wait. */
		CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_LONG, target,
					  disp(target, W_SUM), 1, MPI_LONG,
					  MPI_SUM, win, &req[0]));
		CHECK_MPI(MPI_Rget(&got, 1, MPI_LONG, target,
				   disp(target, W_CONST), 1, MPI_LONG, win,
				   &req[1]));
		CHECK_MPI(MPI_Rget_accumulate(&two, 1, MPI_LONG, &old, 1,
					      MPI_LONG, target,
					      disp(target, W_GACC), 1,
					      MPI_LONG, MPI_SUM, win,
					      &req[2]));
		CHECK_MPI(MPI_Rput(&val, 1, MPI_LONG, target,
				   disp(target, W_SLOTS + slot), 1, MPI_LONG,
				   win, &req[3]));
		CHECK_MPI(MPI_Waitall(4, req, st));
		CHECK_MPI(MPI_Win_flush(target, win));
		CHECK_EQ(got, 42, "constant word (rget)");

		if (i % 4 == 0)
			cas_increment(target);
	}
	if (one_long != MPI_DATATYPE_NULL)
		CHECK_MPI(MPI_Type_free(&one_long));
}

/* Point-to-point with the peer thread on the next rank, and a reduction. */
static void messages(int t)
{
	int next = (mtest_rank + 1) % mtest_size;
	int prev = (mtest_rank + mtest_size - 1) % mtest_size;
	int out[2] = { mtest_rank, t }, in[2] = { -1, -1 }, sum = 0;

	MPI_Status st;
	MPI_Request r;

	CHECK_MPI(MPI_Sendrecv(out, 2, MPI_INT, next, t, in, 2, MPI_INT, prev,
			       t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(in[0] == prev && in[1] == t, "thread %d heard %d/%d", t, in[0],
	      in[1]);
	/* From any source, while the other threads receive their own tags. */
	CHECK_MPI(MPI_Irecv(in, 2, MPI_INT, MPI_ANY_SOURCE, 100 + t,
			    MPI_COMM_WORLD, &r));
	CHECK_MPI(MPI_Send(out, 2, MPI_INT, next, 100 + t, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Wait(&r, &st));
	CHECK(in[0] == prev && in[1] == t && st.MPI_SOURCE == prev &&
	      st.MPI_TAG == 100 + t, "thread %d: MPI_ANY_SOURCE heard %d/%d "
	      "from %d", t, in[0], in[1], st.MPI_SOURCE);
	CHECK_MPI(MPI_Allreduce(&t, &sum, 1, MPI_INT, MPI_SUM, tcomm[t]));
	CHECK_EQ(sum, t * mtest_size, "allreduce on the thread's communicator");
}

/*
 * Windows made, used and freed on thread 0's communicator while the other
 * threads' RMA calls run: under the hybrid layer those find their window
 * without a lock in a table that changes meanwhile (hybrid/win.h).
 */
static void window_churn(void)
{
	long *mem, one = 1, got = 0;
	MPI_Win w;

	for (int i = 0; i < 4; i++) {
		CHECK_MPI(MPI_Win_allocate(sizeof(long), sizeof(long),
					   MPI_INFO_NULL, tcomm[0], &mem, &w));
		CHECK_MPI(MPI_Win_lock_all(0, w));
		CHECK_MPI(MPI_Put(&one, 1, MPI_LONG, mtest_rank, 0, 1, MPI_LONG,
				  w));
		CHECK_MPI(MPI_Win_flush(mtest_rank, w));
		CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, mtest_rank, 0, 1, MPI_LONG,
				  w));
		CHECK_MPI(MPI_Win_flush(mtest_rank, w));
		CHECK_EQ(got, 1, "a put to a window made beside the RMA");
		CHECK_MPI(MPI_Win_unlock_all(w));
		CHECK_MPI(MPI_Win_free(&w));
	}
}

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg, flag = -1;

	CHECK_MPI(MPI_Is_thread_main(&flag));
	CHECK_EQ(flag, 0, "MPI_Is_thread_main in a thread");
	messages(t);
	if (t == 0)
		window_churn();
	rma_calls(t);
	messages(t);
	return NULL;
}

/*
 * The exclusive-lock phase: thread t locks the t-th rank after this one,
 * LOCKS times, so that each process's threads wait for other processes'
 * while giving back locks those wait for.
 */
#define LOCKS 50

static void *locker(void *arg)
{
	int t = (int)(intptr_t)arg, target = (mtest_rank + t) % mtest_size;
	long one = 1;

	for (int i = 0; i < LOCKS; i++) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, target,
					 disp(target, W_LOCKED), 1, MPI_LONG,
					 MPI_SUM, win));
		CHECK_MPI(MPI_Win_unlock(target, win));
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t th[THREADS];

	for (int t = 0; t < n; t++)
		if (pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t)) {
			CHECK(0, "pthread_create");
			n = t;
		}
	for (int t = 0; t < n; t++)
		pthread_join(th[t], NULL);
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Calls that targeted rank @me: origins (r, t) and their i. */
static long hits(int me, int every)
{
	long n = 0;

	for (int r = 0; r < mtest_size; r++)
		for (int t = 0; t < THREADS; t++)
			for (int i = 0; i < ops; i += every)
				n += (r + t + i) % mtest_size == me;
	return n;
}

/* Creates the window of @flavor; the memory is returned in *@mem. */
static void win_open(char flavor, size_t bytes, long **mem)
{
	MPI_Aint sz;
	int du;

	bases = NULL;
	switch (flavor) {
	case 'c':
		*mem = calloc(1, bytes);
		CHECK_MPI(MPI_Win_create(*mem, (MPI_Aint)bytes, sizeof(long),
					 MPI_INFO_NULL, MPI_COMM_WORLD, &win));
		break;
	case 'a':
		CHECK_MPI(MPI_Win_allocate((MPI_Aint)bytes, sizeof(long),
					   MPI_INFO_NULL, MPI_COMM_WORLD, mem,
					   &win));
		break;
	case 's':
		CHECK_MPI(MPI_Win_allocate_shared((MPI_Aint)bytes, sizeof(long),
						  MPI_INFO_NULL,
						  MPI_COMM_WORLD, mem, &win));
		CHECK_MPI(MPI_Win_shared_query(win, mtest_rank, &sz, &du, mem));
		break;
	default:
		*mem = calloc(1, bytes);
		bases = calloc((size_t)mtest_size, sizeof(*bases));
		CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD,
						 &win));
		CHECK_MPI(MPI_Win_attach(win, *mem, (MPI_Aint)bytes));
		CHECK_MPI(MPI_Get_address(*mem, &bases[mtest_rank]));
		CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 1, MPI_AINT, bases, 1,
					MPI_AINT, MPI_COMM_WORLD));
		break;
	}
	memset(*mem, 0, bytes);
	(*mem)[W_CONST] = 42;
}

static void win_close(char flavor, long *mem)
{
	if (flavor == 'd')
		CHECK_MPI(MPI_Win_detach(win, mem));
	CHECK_MPI(MPI_Win_free(&win));
	if (flavor == 'c' || flavor == 'd')
		free(mem);
	free(bases);
	bases = NULL;
}

static void check_totals(const long *mem)
{
	long n = (long)mtest_size * THREADS * ops, *all = NULL;

	CHECK_EQ(mem[W_SUM], 2 * hits(mtest_rank, 1), "accumulated total");
	CHECK_EQ(mem[W_CONST], 42, "constant word");
	CHECK_EQ(mem[W_GACC], 4 * hits(mtest_rank, 1), "get_accumulate total");
	CHECK_EQ(mem[W_CAS], hits(mtest_rank, 4), "compare_and_swap total");
	/* locker(): min(size, THREADS) origins chose this rank. */
	CHECK_EQ(mem[W_LOCKED],
		 (long)LOCKS * (mtest_size < THREADS ? mtest_size : THREADS),
		 "locked total");
	for (int r = 0; r < mtest_size; r++)
		for (int t = 0; t < THREADS; t++) {
			long want = 0;

			for (int i = 0; i < ops; i++)
				if ((r + t + i) % mtest_size == mtest_rank)
					want = i + 1;
			CHECK(mem[W_SLOTS + r * THREADS + t] == want,
			      "slot of rank %d thread %d is %ld, not %ld", r, t,
			      mem[W_SLOTS + r * THREADS + t], want);
		}
	if (mtest_rank == 0) {
		CHECK_EQ(mem[W_TICKET], n, "tickets handed out");
		all = malloc(sizeof(long) * (size_t)n);
	}
	MPI_Gather(tickets, THREADS * ops, MPI_LONG, all, THREADS * ops,
		   MPI_LONG, 0, MPI_COMM_WORLD);
	if (all) {
		qsort(all, (size_t)n, sizeof(long), cmp_long);
		for (long k = 0; k < n; k++)
			if (all[k] != k) {
				CHECK(0, "ticket %ld is %ld", k, all[k]);
				break;
			}
		free(all);
	}
}

static bool mpirma_standalone(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;

	MPI_Get_library_version(v, &len);
	return strstr(v, "mpirma") != NULL;
}

static int arg(int argc, char **argv, const char *key, const char **val)
{
	size_t n = strlen(key);

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], key, n) && argv[i][n] == '=') {
			*val = argv[i] + n + 1;
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	const char *flavors = "casd", *v;
	int provided, q = -1, flag = 0;
	size_t bytes;
	long *mem;

	mtest_init_thread(&argc, &argv, "threads", MPI_THREAD_MULTIPLE,
			  &provided);
	mtest_section("thread level");
	CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
	      "provided %d", provided);
	CHECK_MPI(MPI_Query_thread(&q));
	CHECK_EQ(q, provided, "MPI_Query_thread");
	CHECK_MPI(MPI_Is_thread_main(&flag));
	CHECK_EQ(flag, 1, "MPI_Is_thread_main in the main thread");
	if (provided < MPI_THREAD_MULTIPLE) {
		if (mtest_rank == 0)
			printf("# threads: MPI_THREAD_MULTIPLE not granted "
			       "(%d): nothing more to test\n", provided);
		return mtest_finish();
	}
	/*
	 * Under a host MPI (the hybrid layer) a remote operation costs
	 * milliseconds in the test VM: fewer calls, the same coverage.
	 */
	if (!mpirma_standalone())
		ops = 12;
	if (arg(argc, argv, "ops", &v))
		ops = atoi(v) > 0 ? atoi(v) : ops;
	if (arg(argc, argv, "flavors", &v))
		flavors = v;

	tickets = calloc((size_t)THREADS * (size_t)ops, sizeof(long));
	for (int t = 0; t < THREADS; t++)
		CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
	bytes = (W_SLOTS + (size_t)mtest_size * THREADS) * sizeof(long);
	for (const char *f = flavors; *f; f++) {
		mtest_section(*f == 'c' ? "created window" :
			      *f == 'a' ? "allocated window" :
			      *f == 's' ? "shared window" : "dynamic window");
		win_open(*f, bytes, &mem);
		MPI_Barrier(MPI_COMM_WORLD);
		CHECK_MPI(MPI_Win_lock_all(0, win));
		run_threads(worker, THREADS);
		CHECK_MPI(MPI_Win_unlock_all(win));
		MPI_Barrier(MPI_COMM_WORLD);
		run_threads(locker, mtest_size < THREADS ? mtest_size :
			    THREADS);
		MPI_Barrier(MPI_COMM_WORLD);
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, win));
		check_totals(mem);
		CHECK_MPI(MPI_Win_unlock(mtest_rank, win));
		MPI_Barrier(MPI_COMM_WORLD);
		win_close(*f, mem);
	}
	for (int t = 0; t < THREADS; t++)
		CHECK_MPI(MPI_Comm_free(&tcomm[t]));
	free(tickets);
	return mtest_finish();
}
