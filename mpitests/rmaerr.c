// SPDX-License-Identifier: GPL-2.0
/*
 * rmaerr: a bad RMA operation never breaks synchronization.
 *
 * For every synchronization mode (fence, lock/unlock, lock_all + flush,
 * post/start/complete/wait), every window flavor with memory of its own
 * (created, allocated, dynamic) and every way an operation can be bad
 * (target range past the window for put, get, accumulate, fetch_and_op and
 * compare_and_swap; target rank outside the group; an op the op/type table
 * forbids; accumulate and put with mismatched type signatures), with
 * MPI_ERRORS_RETURN on the window, every rank makes the bad call towards
 * its right neighbour, then:
 *
 *  - the bad call, or else the call that closes the epoch, returns the
 *    right class, and only one of them does;
 *  - a good operation after the bad one in the same epoch (an MPI_Rget,
 *    which completes at once and so drains what is queued before it)
 *    succeeds and reads the right value: the earlier error is not its own;
 *  - no rank hangs (mpitests/run runs this under a timeout);
 *  - the target's memory is untouched, inside the window and around it
 *    (guard words before and after the window of created and dynamic
 *    windows; an allocated window's neighbours are other ranks' windows,
 *    which they check);
 *  - a valid epoch of the same mode afterwards works;
 *  - after lock/unlock, every rank can take every other's lock exclusively
 *    (the lock was released).
 *
 * MPI_Win_free is collective too: a failed operation still queued when it
 * is called (dynamic windows), or a failing attribute delete callback on
 * one rank, makes it return the error on that rank, and every rank's free
 * completes (the window is gone: the module's counters are back at 0 when
 * the job ends, which mpitests/run checks).
 *
 * The library reports all of these at the RMA call itself except range
 * errors on dynamic windows, which only the kernel can see: there the
 * closing synchronization reports them (unless operations go to the kernel
 * at once, MPIRMA_BATCH=0), and that is what checks that a failed drain
 * still completes the fence, unlock, flush or complete.  A user error
 * handler checks that errors are raised at the RMA call (with the window's
 * handler) where the library can see them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define N	16		/* longs in each window */
#define GUARD	8		/* longs of guard before and after */
#define PATTERN(i)	(0x5a5a0000L + (i))

enum flavor { F_CREATE, F_ALLOCATE, F_DYNAMIC, NR_FLAVORS };
enum mode { M_FENCE, M_LOCK, M_LOCKALL, M_PSCW, NR_MODES };
enum kind {
	K_PUT_RANGE, K_GET_RANGE, K_ACC_RANGE, K_FOP_RANGE, K_CAS_RANGE,
	K_RANK, K_OP, K_ACC_TYPE, K_PUT_TYPE, NR_KINDS
};

static const char *const flavor_name[] = { "create", "allocate", "dynamic" };
static const char *const mode_name[] = { "fence", "lock", "lock_all",
					 "pscw" };
static const char *const kind_name[] = {
	"put past the window", "get past the window",
	"accumulate past the window", "fetch_and_op past the window",
	"compare_and_swap past the window", "target rank outside the group",
	"MPI_BAND on MPI_DOUBLE", "accumulate MPI_LONG onto MPI_DOUBLE",
	"put MPI_INT onto MPI_DOUBLE",
};

static int right, left;
static int raised;		/* calls of the user error handler */

/* One window and what the test needs to know about it. */
struct twin {
	enum flavor flavor;
	MPI_Win win;
	long *buf;		/* create, dynamic: guards + window + guards */
	long *mem;		/* the window's N longs here */
	MPI_Aint *base;		/* dynamic: every rank's mem as an address */
	MPI_Group gleft, gright;
};

static void count_raised(MPI_Win *win, int *code, ...)
{
	(void)win;
	(void)code;
	raised++;
}

/* Where element @i of @target's window is, as a target displacement. */
static MPI_Aint disp_of(const struct twin *t, int target, long i)
{
	if (t->flavor == F_DYNAMIC)
		return t->base[target] + (MPI_Aint)(i * (long)sizeof(long));
	return i;
}

static void fill(struct twin *t)
{
	int i;

	if (t->buf)
		for (i = 0; i < N + 2 * GUARD; i++)
			t->buf[i] = PATTERN(i - GUARD);
	else
		for (i = 0; i < N; i++)
			t->mem[i] = PATTERN(i);
}

/* Every word of the window and its guards still holds the pattern. */
static void check_untouched(const struct twin *t, const char *after)
{
	int i, bad = 0;

	if (t->buf) {
		for (i = 0; i < N + 2 * GUARD; i++)
			if (t->buf[i] != PATTERN(i - GUARD) && !bad++)
				CHECK(0, "after %s: word %d of the window (%s) "
				      "is %#lx", after, i - GUARD,
				      i < GUARD || i >= GUARD + N ?
				      "a guard outside it" : "inside",
				      (unsigned long)t->buf[i]);
	} else {
		for (i = 0; i < N; i++)
			if (t->mem[i] != PATTERN(i) && !bad++)
				CHECK(0, "after %s: word %d of the window is "
				      "%#lx", after, i,
				      (unsigned long)t->mem[i]);
	}
}

static void twin_open(struct twin *t, enum flavor f)
{
	MPI_Errhandler eh;
	MPI_Group world;
	MPI_Aint mine;

	memset(t, 0, sizeof(*t));
	t->flavor = f;
	switch (f) {
	case F_CREATE:
	case F_DYNAMIC:
		t->buf = malloc((N + 2 * GUARD) * sizeof(long));
		t->mem = t->buf + GUARD;
		if (f == F_CREATE) {
			CHECK_MPI(MPI_Win_create(t->mem, N * sizeof(long),
						 sizeof(long), MPI_INFO_NULL,
						 MPI_COMM_WORLD, &t->win));
			break;
		}
		CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD,
						 &t->win));
		CHECK_MPI(MPI_Win_attach(t->win, t->mem, N * sizeof(long)));
		t->base = malloc(mtest_size * sizeof(*t->base));
		CHECK_MPI(MPI_Get_address(t->mem, &mine));
		CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, t->base, 1,
					MPI_AINT, MPI_COMM_WORLD));
		break;
	default:
		CHECK_MPI(MPI_Win_allocate(N * sizeof(long), sizeof(long),
					   MPI_INFO_NULL, MPI_COMM_WORLD,
					   &t->mem, &t->win));
		break;
	}
	CHECK_MPI(MPI_Win_create_errhandler(count_raised, &eh));
	CHECK_MPI(MPI_Win_set_errhandler(t->win, eh));
	CHECK_MPI(MPI_Errhandler_free(&eh));
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &left, &t->gleft);
	MPI_Group_incl(world, 1, &right, &t->gright);
	MPI_Group_free(&world);
	fill(t);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void twin_close(struct twin *t)
{
	CHECK_MPI(MPI_Win_set_errhandler(t->win, MPI_ERRORS_RETURN));
	if (t->flavor == F_DYNAMIC)
		CHECK_MPI(MPI_Win_detach(t->win, t->mem));
	CHECK_MPI(MPI_Win_free(&t->win));
	MPI_Group_free(&t->gleft);
	MPI_Group_free(&t->gright);
	free(t->buf);
	free(t->base);
}

/* Opens an access epoch to @right (and the exposure epoch PSCW needs). */
static void epoch_open(struct twin *t, enum mode m)
{
	switch (m) {
	case M_FENCE:
		CHECK_MPI(MPI_Win_fence(0, t->win));
		break;
	case M_LOCK:
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, t->win));
		break;
	case M_LOCKALL:
		CHECK_MPI(MPI_Win_lock_all(0, t->win));
		break;
	default:
		CHECK_MPI(MPI_Win_post(t->gleft, 0, t->win));
		CHECK_MPI(MPI_Win_start(t->gright, 0, t->win));
		break;
	}
}

/*
 * Closes the epoch that epoch_open() opened; returns the first error of
 * the closing calls (for lock_all: the flush, then unlock_all must
 * succeed).
 */
static int epoch_close(struct twin *t, enum mode m)
{
	int rc, rc2;

	switch (m) {
	case M_FENCE:
		return MPI_Win_fence(0, t->win);
	case M_LOCK:
		return MPI_Win_unlock(right, t->win);
	case M_LOCKALL:
		rc = MPI_Win_flush(right, t->win);
		CHECK_MPI(MPI_Win_unlock_all(t->win));
		return rc;
	default:
		rc = MPI_Win_complete(t->win);
		rc2 = MPI_Win_wait(t->win);
		CHECK(rc2 == MPI_SUCCESS, "MPI_Win_wait after a bad complete: "
		      "%s", mtest_class_name(mtest_class(rc2)));
		return rc;
	}
}

/* The bad call of @k towards @right; returns its result. */
static int bad_call(struct twin *t, enum kind k, long *res)
{
	static long v[4] = { 1, 2, 3, 4 };
	static int ints[2] = { 7, 8 };
	static double d = 1.5;

	switch (k) {
	case K_PUT_RANGE:
		return MPI_Put(v, 2, MPI_LONG, right, disp_of(t, right, N - 1),
			       2, MPI_LONG, t->win);
	case K_GET_RANGE:
		return MPI_Get(res, 1, MPI_LONG, right, disp_of(t, right, N), 1,
			       MPI_LONG, t->win);
	case K_ACC_RANGE:
		return MPI_Accumulate(v, 4, MPI_LONG, right,
				      disp_of(t, right, N - 2), 4, MPI_LONG,
				      MPI_SUM, t->win);
	case K_FOP_RANGE:
		return MPI_Fetch_and_op(v, res, MPI_LONG, right,
					disp_of(t, right, N + 3), MPI_SUM,
					t->win);
	case K_CAS_RANGE:
		return MPI_Compare_and_swap(v, v + 1, res, MPI_LONG, right,
					    disp_of(t, right, N + 100), t->win);
	case K_RANK:
		return MPI_Put(v, 1, MPI_LONG, mtest_size, 0, 1, MPI_LONG,
			       t->win);
	case K_OP:
		return MPI_Accumulate(&d, 1, MPI_DOUBLE, right,
				      disp_of(t, right, 0), 1, MPI_DOUBLE,
				      MPI_BAND, t->win);
	case K_ACC_TYPE:
		return MPI_Accumulate(v, 1, MPI_LONG, right,
				      disp_of(t, right, 0), 1, MPI_DOUBLE,
				      MPI_SUM, t->win);
	default:
		return MPI_Put(ints, 2, MPI_INT, right, disp_of(t, right, 0),
			       1, MPI_DOUBLE, t->win);
	}
}

static int want_class(enum kind k)
{
	switch (k) {
	case K_RANK:
		return MPI_ERR_RANK;
	case K_OP:
		return MPI_ERR_OP;
	case K_ACC_TYPE:
	case K_PUT_TYPE:
		return MPI_ERR_TYPE;
	default:
		return MPI_ERR_RMA_RANGE;
	}
}

/* A valid epoch of mode @m: a put to @right's word 0, seen there. */
static void valid_epoch(struct twin *t, enum mode m, long tag)
{
	long v = tag * 100 + mtest_rank, got;

	epoch_open(t, m);
	CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, right, disp_of(t, right, 0), 1,
			  MPI_LONG, t->win));
	CHECK_MPI(epoch_close(t, m));
	MPI_Barrier(MPI_COMM_WORLD);
	got = t->mem[0];
	CHECK_EQ(got, tag * 100 + left, "the valid epoch's put from the left");
	MPI_Barrier(MPI_COMM_WORLD);
	fill(t);
	MPI_Barrier(MPI_COMM_WORLD);
}

/* Every rank takes every other rank's lock exclusively, and adds 1. */
static void every_lock(struct twin *t)
{
	long one = 1;
	int r;

	for (r = 0; r < mtest_size; r++) {
		int target = (mtest_rank + r) % mtest_size;

		if (target == mtest_rank)
			continue;
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, t->win));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, target,
					 disp_of(t, target, 1), 1, MPI_LONG,
					 MPI_SUM, t->win));
		CHECK_MPI(MPI_Win_unlock(target, t->win));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_EQ(t->mem[1], PATTERN(1) + mtest_size - 1,
		 "increments under every other rank's exclusive lock");
	MPI_Barrier(MPI_COMM_WORLD);
	fill(t);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void one_case(struct twin *t, enum mode m, enum kind k, long tag)
{
	int want = want_class(k), rc_call, rc_sync, c_call, c_sync;
	long res[4] = { 0 };
	int before;
	char what[160];

	snprintf(what, sizeof(what), "%s, %s, %s", flavor_name[t->flavor],
		 mode_name[m], kind_name[k]);
	mtest_section(what);
	epoch_open(t, m);
	before = raised;
	rc_call = bad_call(t, k, res);
	c_call = mtest_class(rc_call);
	/*
	 * What the library can see is raised at the call, with the
	 * window's handler (the handler returns: the call returns it too).
	 */
	if (!(t->flavor == F_DYNAMIC && want == MPI_ERR_RMA_RANGE)) {
		CHECK(c_call == want, "the bad call returned %s, want %s",
		      mtest_class_name(c_call), mtest_class_name(want));
		CHECK_EQ(raised - before, 1, "error handler calls at the call");
	}
	{
		MPI_Request req;
		long x = -1;

		CHECK_MPI(MPI_Rget(&x, 1, MPI_LONG, right, disp_of(t, right, 2),
				   1, MPI_LONG, t->win, &req));
		CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
		CHECK_EQ(x, PATTERN(2), "a good MPI_Rget after the bad call");
	}
	rc_sync = epoch_close(t, m);
	c_sync = mtest_class(rc_sync);
	if (c_call == want)
		CHECK(rc_sync == MPI_SUCCESS, "the closing call returned %s "
		      "after the bad call had failed",
		      mtest_class_name(c_sync));
	else
		CHECK(c_call == MPI_SUCCESS && c_sync == want, "the bad call "
		      "returned %s and the closing call %s, want %s from one "
		      "of them", mtest_class_name(c_call),
		      mtest_class_name(c_sync), mtest_class_name(want));
	MPI_Barrier(MPI_COMM_WORLD);
	check_untouched(t, what);
	MPI_Barrier(MPI_COMM_WORLD);
	valid_epoch(t, m, tag);
	if (m == M_LOCK)
		every_lock(t);
}

static int delete_fails(MPI_Win win, int keyval, void *val, void *extra)
{
	(void)win;
	(void)keyval;
	(void)val;
	(void)extra;
	return MPI_ERR_OTHER;
}

static void test_free(void)
{
	static long v[2] = { 1, 2 };
	struct twin t;
	int rc, c, key;

	/* a failed put still queued when the window is freed */
	twin_open(&t, F_DYNAMIC);
	mtest_section("MPI_Win_free after a failed queued put");
	CHECK_MPI(MPI_Win_set_errhandler(t.win, MPI_ERRORS_RETURN));
	CHECK_MPI(MPI_Win_fence(0, t.win));
	rc = MPI_Put(v, 2, MPI_LONG, right, disp_of(&t, right, N - 1), 2,
		     MPI_LONG, t.win);
	CHECK_MPI(MPI_Win_detach(t.win, t.mem));
	c = mtest_class(MPI_Win_free(&t.win));
	CHECK(mtest_class(rc) == MPI_ERR_RMA_RANGE ?
	      c == MPI_SUCCESS : c == MPI_ERR_RMA_RANGE,
	      "the put returned %s and MPI_Win_free %s",
	      mtest_class_name(mtest_class(rc)), mtest_class_name(c));
	CHECK(t.win == MPI_WIN_NULL, "the window handle is MPI_WIN_NULL");
	check_untouched(&t, "MPI_Win_free");
	MPI_Group_free(&t.gleft);
	MPI_Group_free(&t.gright);
	free(t.buf);
	free(t.base);

	/* a delete callback that fails on rank 0 only */
	twin_open(&t, F_ALLOCATE);
	mtest_section("MPI_Win_free with a failing delete callback");
	CHECK_MPI(MPI_Win_set_errhandler(t.win, MPI_ERRORS_RETURN));
	CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fails,
					&key, NULL));
	if (mtest_rank == 0)
		CHECK_MPI(MPI_Win_set_attr(t.win, key, &key));
	c = mtest_class(MPI_Win_free(&t.win));
	CHECK_EQ(c, mtest_rank == 0 ? MPI_ERR_OTHER : MPI_SUCCESS,
		 "MPI_Win_free's class");
	CHECK(t.win == MPI_WIN_NULL, "the window handle is MPI_WIN_NULL");
	CHECK_MPI(MPI_Win_free_keyval(&key));
	MPI_Group_free(&t.gleft);
	MPI_Group_free(&t.gright);
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	struct twin t;
	long tag = 1;
	int f, m, k;

	mtest_init(&argc, &argv, "rmaerr");
	right = (mtest_rank + 1) % mtest_size;
	left = (mtest_rank + mtest_size - 1) % mtest_size;
	for (f = 0; f < NR_FLAVORS; f++) {
		twin_open(&t, f);
		for (m = 0; m < NR_MODES; m++)
			for (k = 0; k < NR_KINDS; k++)
				one_case(&t, m, k, tag++);
		twin_close(&t);
	}
	test_free();
	return mtest_finish();
}
