// SPDX-License-Identifier: GPL-2.0
/*
 * osu_bench - the call sequences of the OSU Micro-Benchmarks' one-sided
 * tests (OMB 7.4: osu_put_latency, osu_get_latency, osu_acc_latency,
 * osu_get_acc_latency, osu_fop_latency, osu_cas_latency, osu_put_bw,
 * osu_get_bw, osu_put_bibw), written anew for this project, all in one
 * launch of two ranks, the same source built with each MPI's mpicc.
 *
 * Rank 0 is the origin and rank 1 the target, as in OSU.  Operations on
 * MPI_CHAR unless a datatype is named; MPI_SUM for the accumulates.
 *
 *   put, get          one operation of N bytes per synchronization
 *   acc, get_acc      MPI_Accumulate, MPI_Get_accumulate of N bytes of a
 *                     datatype (get_acc under an exclusive lock, as OSU)
 *   fop, cas          MPI_Fetch_and_op, MPI_Compare_and_swap of one element
 *   put_bw, get_bw    64 operations of N bytes to consecutive slots per
 *                     synchronization (OSU's window size)        [MB/s]
 *   put_bibw          both ranks put 64 x N bytes to each other per
 *                     synchronization, both directions counted  [MB/s]
 *   busy_put          put and flush while the target computes (no MPI
 *                     call until the origin is done): whether passive
 *                     target progress needs the target           [us]
 *
 * Synchronizations (OSU's -s):
 *   flush     MPI_Win_lock(target) held; each operation (batch) MPI_Win_flush
 *   lock      MPI_Win_lock / MPI_Win_unlock around each operation (batch)
 *   lock_all  MPI_Win_lock_all / MPI_Win_unlock_all around each
 *   fence     latency: rank 0 fence, op, fence, fence; rank 1 fence, fence,
 *             op, fence (a round trip: the time per iteration halved, as
 *             OSU); bandwidth: fence, 64 ops, fence
 *   pscw      latency: rank 0 start, op, complete, post, wait; rank 1 post,
 *             wait, start, op, complete (halved); bandwidth: start, 64 ops,
 *             complete against post, wait; put_bibw: post, start, 64 ops,
 *             complete, wait on both
 * In the passive ones the target waits in an MPI call (as in OSU), except
 * busy_put's.
 *
 * Window flavors (OSU's -w): allocate (MPI_Win_allocate), create
 * (MPI_Win_create on page-aligned malloc memory), dynamic
 * (MPI_Win_create_dynamic and MPI_Win_attach; displacements are
 * addresses).  One window per flavor serves every row.
 *
 * Method: per row a warm-up, then --rounds rounds of --time seconds each,
 * the row the median, min and max over the rounds.  In the passive
 * synchronizations (and busy_put) the origin runs until its clock ends the
 * round; fence and pscw need the same calls on both ranks, so they run
 * chunks of a calibrated count (a tenth of a round) until the round's
 * time is spent.  The figure is rank 0's time over its iterations.  The
 * latency rows under flush run as OSU's loop does, the call and the flush
 * and nothing else (osu_loop()), the clock read every 20 iterations: a
 * harness's own work per iteration would be added to every column alike
 * and hide their differences.
 * Every row is verified: the
 * target's memory afterwards (the last put's data and sequence number,
 * the accumulated value of every element, a get's source unchanged),
 * and after every round the values the origin fetched last (get's data,
 * get_accumulate's, fetch_and_op's and compare_and_swap's old values,
 * which the serial order of the operations fixes).  A wrong row prints
 * WRONG, is written as "wrong" and fails the run, so that a fast wrong
 * answer cannot win; an MPI error (windows return errors) is written as
 * "error" and fails the run too, the other rows still run.
 *
 * Output: CSV rows workload,ranks,impl,metric,median,min,max,unit (the
 * format of rma_bench and msg_bench), workload OP.SYNC.TYPE.FLAVOR_BYTES,
 * e.g. acc.flush.int.allocate_1024 (fop and cas: BYTES the element's).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "../tools/cli.h"

#define PROG		"osu_bench"
#define MAX_ROUNDS	16
#define MAX_SIZES	16
#define WINDOW		64		/* operations per synchronization, bandwidth */
#define MAX_ITERS	(1L << 24)
#define MAX_BYTES	(1UL << 20)	/* per operation */

enum op {
	OP_PUT, OP_GET, OP_ACC, OP_GACC, OP_FOP, OP_CAS,
	OP_PUT_BW, OP_GET_BW, OP_PUT_BIBW, OP_BUSY_PUT, NR_OPS
};
static const char *const op_names[NR_OPS] = {
	"put", "get", "acc", "get_acc", "fop", "cas",
	"put_bw", "get_bw", "put_bibw", "busy_put",
};

enum sync { S_FLUSH, S_LOCK, S_LOCK_ALL, S_FENCE, S_PSCW, NR_SYNCS };
static const char *const sync_names[NR_SYNCS] = {
	"flush", "lock", "lock_all", "fence", "pscw",
};
#define SYNC_BIT(s)	(1U << (s))
#define ALL_SYNCS	((1U << NR_SYNCS) - 1)
#define PASSIVE_SYNCS	(SYNC_BIT(S_FLUSH) | SYNC_BIT(S_LOCK) | SYNC_BIT(S_LOCK_ALL))

enum type { T_CHAR, T_INT, T_FLOAT, T_DOUBLE, NR_TYPES };
static const char *const type_names[NR_TYPES] = { "char", "int", "float", "double" };
static const size_t type_sizes[NR_TYPES] = { 1, sizeof(int), sizeof(float), sizeof(double) };

enum flavor { F_ALLOCATE, F_CREATE, F_DYNAMIC, NR_FLAVORS };
static const char *const flavor_names[NR_FLAVORS] = { "allocate", "create", "dynamic" };

static int rank, nranks, peer;
static FILE *csv;

#include "bench_mpi.h"

static struct {
	const char *impl;
	const char *csv;
	double time;			/* seconds per round */
	int rounds;
	size_t sizes[MAX_SIZES];
	int nsizes;
	bool ops[NR_OPS];
	unsigned int syncs;		/* filter, SYNC_BIT()s */
	bool all_syncs;
	bool types[NR_TYPES];
	bool flavors[NR_FLAVORS];
} opt;

/* one window: this rank's memory and where the peer's starts */
struct win {
	MPI_Win w;
	enum flavor fl;
	unsigned char *base;		/* this rank's window memory */
	void *mem;			/* create, dynamic: to free */
	MPI_Aint peer_base;		/* displacement of the peer's byte 0 */
};

/* one row and what the ranks counted while it ran */
struct row {
	enum op op;
	enum sync sync;
	enum type type;
	size_t bytes;			/* per operation */
	const struct win *wn;
	unsigned int seed;		/* the row's data patterns */
	int count;			/* elements per operation (prepare()) */
	MPI_Datatype dt;		/* the elements' datatype (prepare()) */
	char name[96];
	uint64_t issued;		/* operations this rank issued */
	uint64_t bad;			/* wrong values this rank saw */
	bool fault;			/* some rank had an error or a wrong value */
	int err;			/* this rank's first MPI error */
	char errstr[MPI_MAX_ERROR_STRING + 64];
};

static unsigned char *sbuf, *rbuf;		/* WINDOW x the largest size */
static unsigned char *ones, *minus;		/* +1 and -1 of the row's type */
static unsigned char cas_cmp[8], cas_new[8];
static MPI_Group peer_group;
static size_t max_bytes;
static unsigned int nwrong, nerror;

/* ------------------------------------------------------------ helpers */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *xalloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE), len ? len : 1)) {
		fprintf(stderr, "%s: rank %d: out of memory (%zu bytes)\n", PROG, rank, len);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(p, 0, len);
	return p;
}

static MPI_Datatype mpi_type(enum type t)
{
	switch (t) {
	case T_INT:
		return MPI_INT;
	case T_FLOAT:
		return MPI_FLOAT;
	case T_DOUBLE:
		return MPI_DOUBLE;
	default:
		return MPI_CHAR;
	}
}

/*
 * The accumulating rows add +1 for 100 operations, then -1 for 100, and
 * so on: the target's value stays in 0..100, where every type (MPI_CHAR
 * too) computes exactly and no MPI's overflow behaviour (the standard
 * defines none) decides the check, while a lost or repeated operation
 * still shows.  tri(n) is the value after n operations, step(k) the k-th
 * one's addend.
 */
#define TRI_HALF	100

static int64_t tri(uint64_t n)
{
	uint64_t m = n % (2 * TRI_HALF);

	return (int64_t)(m <= TRI_HALF ? m : 2 * TRI_HALF - m);
}

static bool step_up(uint64_t k)
{
	return (k - 1) % (2 * TRI_HALF) < TRI_HALF;
}

/* @v as an element of type @t (char: its low byte, whatever its sign). */
static void typed_value(enum type t, int64_t v, unsigned char *out)
{
	int i = (int)v;
	float f = (float)v;
	double d = (double)v;

	switch (t) {
	case T_CHAR:
		out[0] = (unsigned char)(v & 0xff);
		break;
	case T_INT:
		memcpy(out, &i, sizeof(i));
		break;
	case T_FLOAT:
		memcpy(out, &f, sizeof(f));
		break;
	case T_DOUBLE:
		memcpy(out, &d, sizeof(d));
		break;
	case NR_TYPES:
		break;
	}
}

static void fill_typed(enum type t, void *p, size_t count, int64_t v)
{
	unsigned char e[8];

	typed_value(t, v, e);
	for (size_t i = 0; i < count; i++)
		memcpy((unsigned char *)p + i * type_sizes[t], e, type_sizes[t]);
}

/* The index of the first of @count elements at @p that is not @v, or -1. */
static long typed_mismatch(enum type t, const void *p, size_t count, int64_t v)
{
	unsigned char e[8];

	typed_value(t, v, e);
	for (size_t i = 0; i < count; i++)
		if (memcmp((const unsigned char *)p + i * type_sizes[t], e, type_sizes[t]))
			return (long)i;
	return -1;
}

/* The bytes a row puts (pat 0) and the bytes a get reads (pat 1). */
static unsigned char pattern(int pat, unsigned int seed, size_t i)
{
	return (unsigned char)((i * (pat ? 151 : 131) + seed * 7 + 1) ^ (i >> 8));
}

static long pattern_mismatch(int pat, unsigned int seed, const unsigned char *p,
			     size_t from, size_t len)
{
	for (size_t i = from; i < len; i++)
		if (p[i] != pattern(pat, seed, i))
			return (long)i;
	return -1;
}

static int64_t expected(const struct row *r, uint64_t n);

/*
 * "element I holds X, expected Y" for the element at @at of @p, the
 * expected one after @n operations (typed rows) or the pattern's byte.
 */
static void describe(const struct row *r, const unsigned char *p, size_t at, uint64_t n,
		     char *why, size_t len)
{
	const bool typed = r->op == OP_ACC || r->op == OP_GACC || r->op == OP_FOP ||
			   r->op == OP_CAS;
	const size_t sz = typed ? type_sizes[r->type] : 1;
	unsigned char want[8];
	char got_s[40] = "", want_s[40] = "";

	if (typed)
		typed_value(r->type, expected(r, n), want);
	else
		want[0] = pattern(r->op == OP_GET || r->op == OP_GET_BW, r->seed, at);
	for (size_t i = 0; i < sz; i++) {
		snprintf(got_s + 2 * i, 3, "%02x", p[at * sz + i]);
		snprintf(want_s + 2 * i, 3, "%02x", want[i]);
	}
	snprintf(why, len, "element %zu holds 0x%s, expected 0x%s after %" PRIu64
		 " operations", at, got_s, want_s, n);
}

/* An MPI call's result: the first failure of a row is kept, the rest ignored. */
static void check_rc(struct row *r, int rc, const char *call)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (rc == MPI_SUCCESS || r->err)
		return;
	r->err = rc;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "error %d", rc);
	snprintf(r->errstr, sizeof(r->errstr), "%.*s: %s",
		 (int)strcspn(call, "("), call, msg);
}

#define CK(r, call)	check_rc((r), (call), #call)

/* ------------------------------------------------------------ rows */

/*
 * Around one operation (or batch) of a passive row at rank 0: the epoch
 * -s asks for (flush: the lock is held across the row, so nothing to open).
 */
static void step_open(struct row *r, int lock_type)
{
	if (r->sync == S_LOCK)
		CK(r, MPI_Win_lock(lock_type, 1, 0, r->wn->w));
	else if (r->sync == S_LOCK_ALL)
		CK(r, MPI_Win_lock_all(0, r->wn->w));
}

static void step_close(struct row *r)
{
	if (r->sync == S_FLUSH)
		CK(r, MPI_Win_flush(1, r->wn->w));
	else if (r->sync == S_LOCK)
		CK(r, MPI_Win_unlock(1, r->wn->w));
	else
		CK(r, MPI_Win_unlock_all(r->wn->w));
}

static bool is_bw(enum op o)
{
	return o == OP_PUT_BW || o == OP_GET_BW || o == OP_PUT_BIBW;
}

/* Both ranks issue operations: the round trips and the bidirectional puts. */
static bool symmetric(const struct row *r)
{
	return r->op == OP_PUT_BIBW ||
	       (!is_bw(r->op) && (r->sync == S_FENCE || r->sync == S_PSCW));
}

static size_t elems(const struct row *r)
{
	return r->op == OP_FOP || r->op == OP_CAS ? 1 : r->bytes / type_sizes[r->type];
}

/* A typed row's element after @n operations: compare_and_swap counts. */
static int64_t expected(const struct row *r, uint64_t n)
{
	return r->op == OP_CAS ? (int64_t)n : tri(n);
}

/* The bytes of each window a row touches. */
static size_t region(const struct row *r)
{
	return is_bw(r->op) ? WINDOW * r->bytes : r->bytes;
}

static MPI_Aint disp(const struct row *r, int to, size_t off)
{
	return (to == rank ? 0 : r->wn->peer_base) + (MPI_Aint)off;
}

/* The synchronizations a row of @o can have; the default ones. */
static unsigned int possible_syncs(enum op o)
{
	if (o == OP_PUT_BIBW)
		return SYNC_BIT(S_FENCE) | SYNC_BIT(S_PSCW);
	if (o == OP_BUSY_PUT)
		return PASSIVE_SYNCS;
	return ALL_SYNCS;
}

static unsigned int default_syncs(enum op o)
{
	if (o == OP_PUT)
		return ALL_SYNCS;
	if (o == OP_PUT_BIBW)
		return SYNC_BIT(S_FENCE) | SYNC_BIT(S_PSCW);
	return SYNC_BIT(S_FLUSH);
}

/* Operation j of a batch, to rank @to. */
static void issue(struct row *r, int to, unsigned int j)
{
	const MPI_Win w = r->wn->w;
	const int n = (int)r->bytes, cnt = r->count;
	const MPI_Datatype dt = r->dt;
	const size_t off = (size_t)j * r->bytes;
	uint64_t k = ++r->issued;
	const void *add = step_up(k) ? ones : minus;

	switch (r->op) {
	case OP_PUT:
	case OP_BUSY_PUT:
		/* the sequence number: the target finds the last one */
		memcpy(sbuf, &k, sizeof(k));
		CK(r, MPI_Put(sbuf, n, MPI_CHAR, to, disp(r, to, 0), n, MPI_CHAR, w));
		break;
	case OP_PUT_BW:
	case OP_PUT_BIBW:
		CK(r, MPI_Put(sbuf + off, n, MPI_CHAR, to, disp(r, to, off), n, MPI_CHAR, w));
		break;
	case OP_GET:
	case OP_GET_BW:
		CK(r, MPI_Get(rbuf + off, n, MPI_CHAR, to, disp(r, to, off), n, MPI_CHAR, w));
		break;
	case OP_ACC:
		CK(r, MPI_Accumulate(add, cnt, dt, to, disp(r, to, 0), cnt, dt, MPI_SUM, w));
		break;
	case OP_GACC:
		CK(r, MPI_Get_accumulate(add, cnt, dt, rbuf, cnt, dt, to, disp(r, to, 0),
					 cnt, dt, MPI_SUM, w));
		break;
	case OP_FOP:
		CK(r, MPI_Fetch_and_op(add, rbuf, dt, to, disp(r, to, 0), MPI_SUM, w));
		break;
	case OP_CAS:
		/* the k-th swap finds k - 1 and leaves k */
		typed_value(r->type, (int64_t)(k - 1), cas_cmp);
		typed_value(r->type, (int64_t)k, cas_new);
		CK(r, MPI_Compare_and_swap(cas_new, cas_cmp, rbuf, dt, to, disp(r, to, 0), w));
		break;
	case NR_OPS:
		break;
	}
}

static void batch(struct row *r, int to)
{
	const unsigned int m = is_bw(r->op) ? WINDOW : 1;

	for (unsigned int j = 0; j < m; j++)
		issue(r, to, j);
}

/* After this rank's last operation of a round: what it fetched. */
static void check_fetched(struct row *r)
{
	long at = -1;

	if (!r->issued || r->err)
		return;
	switch (r->op) {
	case OP_GET:
	case OP_GET_BW:
		at = pattern_mismatch(1, r->seed, rbuf, 0, region(r));
		break;
	case OP_GACC:
	case OP_FOP:
	case OP_CAS:
		at = typed_mismatch(r->type, rbuf, elems(r), expected(r, r->issued - 1));
		break;
	default:
		break;
	}
	if (at >= 0 && !r->bad++) {
		char why[200];

		describe(r, rbuf, (size_t)at, r->op == OP_GET || r->op == OP_GET_BW ?
			 0 : r->issued - 1, why, sizeof(why));
		fprintf(stderr, "%s: %s: rank %d: WRONG: fetched %s\n", PROG, r->name, rank,
			why);
	}
}

/*
 * The latency rows under flush (OSU's default) as OSU's own loop runs
 * them: the call and its flush and nothing else per iteration but the
 * verification's sequence numbers, in blocks of OSU_BLOCK between reads
 * of the clock.  OSU_BLOCK divides TRI_HALF, so an accumulate's addend
 * changes only between blocks.  At rank 0, inside the held lock; returns
 * the iterations run (0: not such a row).
 */
#define OSU_BLOCK	20

#define KEEP(rc, call)							\
	do {								\
		int e_ = (call);					\
									\
		if (e_ != MPI_SUCCESS)					\
			(rc) = e_;					\
	} while (0)

static long osu_loop(struct row *r, long iters, double budget, double t0)
{
	const MPI_Win w = r->wn->w;
	const MPI_Datatype dt = r->dt;
	const int n = (int)r->bytes, cnt = r->count;
	const MPI_Aint d = disp(r, 1, 0);
	int rc = MPI_SUCCESS, j;
	long i = 0;

	if (r->sync != S_FLUSH || is_bw(r->op) || r->issued % OSU_BLOCK)
		return 0;
	while (i < iters && rc == MPI_SUCCESS) {
		const void *add = step_up(r->issued + 1) ? ones : minus;

		switch (r->op) {
		case OP_PUT:
			for (j = 0; j < OSU_BLOCK; j++) {
				uint64_t k = ++r->issued;

				memcpy(sbuf, &k, sizeof(k));
				KEEP(rc, MPI_Put(sbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR, w));
				KEEP(rc, MPI_Win_flush(1, w));
			}
			break;
		case OP_GET:
			for (j = 0; j < OSU_BLOCK; j++, r->issued++) {
				KEEP(rc, MPI_Get(rbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR, w));
				KEEP(rc, MPI_Win_flush(1, w));
			}
			break;
		case OP_ACC:
			for (j = 0; j < OSU_BLOCK; j++, r->issued++) {
				KEEP(rc, MPI_Accumulate(add, cnt, dt, 1, d, cnt, dt, MPI_SUM, w));
				KEEP(rc, MPI_Win_flush(1, w));
			}
			break;
		case OP_GACC:
			for (j = 0; j < OSU_BLOCK; j++, r->issued++) {
				KEEP(rc, MPI_Get_accumulate(add, cnt, dt, rbuf, cnt, dt, 1, d,
							    cnt, dt, MPI_SUM, w));
				KEEP(rc, MPI_Win_flush(1, w));
			}
			break;
		case OP_FOP:
			for (j = 0; j < OSU_BLOCK; j++, r->issued++) {
				KEEP(rc, MPI_Fetch_and_op(add, rbuf, dt, 1, d, MPI_SUM, w));
				KEEP(rc, MPI_Win_flush(1, w));
			}
			break;
		case OP_CAS:
			for (j = 0; j < OSU_BLOCK; j++) {
				uint64_t k = ++r->issued;

				typed_value(r->type, (int64_t)(k - 1), cas_cmp);
				typed_value(r->type, (int64_t)k, cas_new);
				KEEP(rc, MPI_Compare_and_swap(cas_new, cas_cmp, rbuf, dt, 1,
							      d, w));
				KEEP(rc, MPI_Win_flush(1, w));
			}
			break;
		default:
			return i;
		}
		i += OSU_BLOCK;
		if (now() - t0 >= budget)
			break;
	}
	check_rc(r, rc, "an operation or MPI_Win_flush");
	return i;
}

/*
 * The other passive rows at rank 0: each iteration's epoch (-s), the
 * operation or batch, its end; until @budget seconds from @t0 or @iters.
 * Returns the iterations run.
 */
static long step_loop(struct row *r, int lock_type, long iters, double budget,
		      double t0)
{
	long i;

	for (i = 0; i < iters; i++) {
		step_open(r, lock_type);
		batch(r, 1);
		step_close(r);
		/* OSU reads no clock in its loop: we, every 16th */
		if (!(i & 15) && now() - t0 >= budget)
			return i + 1;
	}
	return i;
}

/*
 * Up to @iters iterations of the row on both ranks; the passive ones stop
 * when rank 0's clock has run @budget seconds (the active ones cannot: the
 * peer must make the same calls).  Returns rank 0's seconds and stores
 * its iterations in *@done (on every rank); sets r->fault when any rank
 * failed or saw a wrong value.
 */
static double run_iters(struct row *r, long iters, double budget, long *done)
{
	const MPI_Win w = r->wn->w;
	const int lt = r->op == OP_GACC ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
	double t = 0, t0 = 0, mine[3], all[3];
	long i = 0;

	MPI_Barrier(MPI_COMM_WORLD);
	if (SYNC_BIT(r->sync) & PASSIVE_SYNCS) {
		/* the target waits in the Allreduce below */
		if (rank == 0) {
			if (r->sync == S_FLUSH)
				CK(r, MPI_Win_lock(lt, 1, 0, w));
			t0 = now();
			i = osu_loop(r, iters, budget, t0);
			if (!i)
				i = step_loop(r, lt, iters, budget, t0);
			t = now() - t0;
			if (r->sync == S_FLUSH)
				CK(r, MPI_Win_unlock(1, w));
		}
	} else if (r->sync == S_FENCE) {
		t0 = now();
		for (i = 0; i < iters; i++) {
			if (r->op == OP_PUT_BIBW) {
				CK(r, MPI_Win_fence(0, w));
				batch(r, peer);
				CK(r, MPI_Win_fence(0, w));
			} else if (is_bw(r->op)) {
				CK(r, MPI_Win_fence(0, w));
				if (rank == 0)
					batch(r, 1);
				CK(r, MPI_Win_fence(0, w));
			} else {
				/* a round trip: rank 0's operation, then rank 1's */
				CK(r, MPI_Win_fence(0, w));
				if (rank == 0)
					batch(r, 1);
				CK(r, MPI_Win_fence(0, w));
				if (rank == 1)
					batch(r, 0);
				CK(r, MPI_Win_fence(0, w));
			}
		}
		t = now() - t0;
		CK(r, MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
	} else {
		t0 = now();
		for (i = 0; i < iters; i++) {
			if (r->op == OP_PUT_BIBW) {
				CK(r, MPI_Win_post(peer_group, 0, w));
				CK(r, MPI_Win_start(peer_group, 0, w));
				batch(r, peer);
				CK(r, MPI_Win_complete(w));
				CK(r, MPI_Win_wait(w));
			} else if (is_bw(r->op) && rank == 0) {
				CK(r, MPI_Win_start(peer_group, 0, w));
				batch(r, 1);
				CK(r, MPI_Win_complete(w));
			} else if (is_bw(r->op)) {
				CK(r, MPI_Win_post(peer_group, 0, w));
				CK(r, MPI_Win_wait(w));
			} else if (rank == 0) {
				CK(r, MPI_Win_start(peer_group, 0, w));
				batch(r, 1);
				CK(r, MPI_Win_complete(w));
				CK(r, MPI_Win_post(peer_group, 0, w));
				CK(r, MPI_Win_wait(w));
			} else {
				CK(r, MPI_Win_post(peer_group, 0, w));
				CK(r, MPI_Win_wait(w));
				CK(r, MPI_Win_start(peer_group, 0, w));
				batch(r, 0);
				CK(r, MPI_Win_complete(w));
			}
		}
		t = now() - t0;
	}
	check_fetched(r);
	mine[0] = rank == 0 ? t : 0;
	mine[1] = rank == 0 ? (double)i : 0;
	mine[2] = r->err || r->bad;
	MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	r->fault = all[2] != 0;
	*done = (long)all[1];
	return all[0];
}

/* Work without MPI calls for @secs seconds. */
static void compute(double secs)
{
	volatile double x = 1.0;
	double t0 = now();

	do {
		for (int i = 0; i < 4096; i++)
			x = x * 1.0000001 + 1e-9;
	} while (now() - t0 < secs);
}

/*
 * One round of busy_put: rank 1 computes for longer than rank 0 puts and
 * flushes, for @secs by its own clock; returns rank 0's microseconds per
 * operation.  The lock is taken while the target is still in MPI.
 */
static double busy_round(struct row *r, double secs)
{
	const MPI_Win w = r->wn->w;
	double t = 0, t0, mine[3], all[3];
	uint64_t before = r->issued;

	if (rank == 0 && r->sync == S_FLUSH)
		CK(r, MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		t0 = now();
		do {
			step_open(r, MPI_LOCK_SHARED);
			issue(r, 1, 0);
			step_close(r);
			t = now() - t0;
		} while (t < secs);
		if (r->sync == S_FLUSH)
			CK(r, MPI_Win_unlock(1, w));
	} else {
		compute(secs * 1.25 + 0.001);
	}
	mine[0] = rank == 0 ? t : 0;
	mine[1] = (double)(r->issued - before);
	mine[2] = r->err || r->bad;
	MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	r->fault = all[2] != 0;
	return all[1] > 0 ? all[0] / all[1] * 1e6 : 0;
}

/* Lock this rank's own window exclusively around a local access. */
static void lock_self(struct row *r, bool lock)
{
	if (lock)
		CK(r, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, r->wn->w));
	else
		CK(r, MPI_Win_unlock(rank, r->wn->w));
}

/* Every rank: its window region and its buffers as the row starts. */
static void prepare(struct row *r)
{
	const size_t reg = region(r);

	r->count = (int)elems(r);
	r->dt = mpi_type(r->type);
	lock_self(r, true);
	if (r->op == OP_GET || r->op == OP_GET_BW)
		for (size_t i = 0; i < reg; i++)
			r->wn->base[i] = pattern(1, r->seed, i);
	else
		memset(r->wn->base, 0, reg);
	lock_self(r, false);
	for (size_t i = 0; i < reg; i++)
		sbuf[i] = pattern(0, r->seed, i);
	fill_typed(r->type, ones, elems(r), 1);
	fill_typed(r->type, minus, elems(r), -1);
	memset(rbuf, 0, reg);
	MPI_Barrier(MPI_COMM_WORLD);
}

/*
 * Every rank, after the rounds: its window region holds what the peer's
 * operations must have left.  Returns false (and says why) when not.
 */
static bool check_target(struct row *r, uint64_t theirs, char *why, size_t len)
{
	const unsigned char *b = r->wn->base;
	const size_t reg = region(r);
	uint64_t stamp;
	long at = -1;

	switch (r->op) {
	case OP_PUT:
	case OP_BUSY_PUT:
		if (!theirs)
			break;
		memcpy(&stamp, b, sizeof(stamp));
		if (stamp != theirs) {
			snprintf(why, len, "the last put's sequence number is %" PRIu64
				 ", expected %" PRIu64, stamp, theirs);
			return false;
		}
		at = pattern_mismatch(0, r->seed, b, sizeof(stamp), reg);
		break;
	case OP_PUT_BW:
	case OP_PUT_BIBW:
		if (theirs)
			at = pattern_mismatch(0, r->seed, b, 0, reg);
		break;
	case OP_GET:
	case OP_GET_BW:
		at = pattern_mismatch(1, r->seed, b, 0, reg);
		break;
	case OP_ACC:
	case OP_GACC:
	case OP_FOP:
	case OP_CAS:
		at = typed_mismatch(r->type, b, elems(r), expected(r, theirs));
		break;
	case NR_OPS:
		break;
	}
	if (!theirs && (r->op == OP_PUT || r->op == OP_BUSY_PUT || r->op == OP_PUT_BW ||
			r->op == OP_PUT_BIBW))
		for (size_t i = 0; i < reg && at < 0; i++)
			if (b[i])
				at = (long)i;
	if (at >= 0) {
		describe(r, b, (size_t)at, theirs, why, len);
		return false;
	}
	return true;
}

static void verify(struct row *r)
{
	uint64_t theirs = 0;
	char why[200] = "";
	int mine[2], all[2];

	MPI_Sendrecv(&r->issued, 1, MPI_UINT64_T, peer, 41, &theirs, 1, MPI_UINT64_T, peer,
		     41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	lock_self(r, true);
	if (!r->err && !check_target(r, theirs, why, sizeof(why))) {
		r->bad++;
		fprintf(stderr, "%s: %s: rank %d: WRONG: %s\n", PROG, r->name, rank, why);
	}
	lock_self(r, false);
	if (r->err)
		fprintf(stderr, "%s: %s: %s: rank %d: %s\n", PROG, opt.impl, r->name, rank,
			r->errstr);
	mine[0] = r->err != 0;
	mine[1] = r->bad != 0;
	MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	r->err = all[0];
	r->bad = (uint64_t)all[1];
}

static void report(const struct row *r, double *v, int n)
{
	const bool bw = is_bw(r->op);
	const char *metric = bw ? "bandwidth" : "latency", *unit = bw ? "MB/s" : "us";
	double med;

	if (rank != 0)
		return;
	if (r->err || r->bad || n == 0) {
		const char *what = r->bad ? "wrong" : "error";

		fprintf(csv, "%s,%d,%s,%s,%s,%s,%s,%s\n", r->name, nranks, opt.impl, metric,
			what, what, what, unit);
		fflush(csv);
		if (r->bad)
			nwrong++;
		else
			nerror++;
		return;
	}
	med = bench_median(v, n);
	fprintf(csv, "%s,%d,%s,%s,%.6g,%.6g,%.6g,%s\n", r->name, nranks, opt.impl, metric,
		med, v[0], v[n - 1], unit);
	fflush(csv);
}

/* The row's figure from @iters iterations in @t seconds. */
static double figure(const struct row *r, double t, long iters)
{
	if (t <= 0 || iters <= 0)
		return 0;
	if (is_bw(r->op))
		return (double)r->bytes * WINDOW * (double)iters *
		       (r->op == OP_PUT_BIBW ? 2 : 1) / t / 1e6;
	return t / (double)iters * 1e6 / (symmetric(r) ? 2 : 1);
}

/*
 * A warm-up, the rounds, the verification and the row.  A passive round
 * runs until rank 0's clock says --time is over.  An active one (fence,
 * pscw) runs in chunks of about a tenth of it, which a calibration finds,
 * until their time adds up to --time: under emulation an operation can
 * take a thousand times longer for a while (a vCPU descheduled on the
 * host), and a count fixed in advance would then run for minutes.
 */
static double measure(struct row *r)
{
	double v[MAX_ROUNDS], t = 0, f, sum;
	long iters = 1, done = 0, total;
	int n = 0;

	prepare(r);
	if (r->op == OP_BUSY_PUT) {
		for (int k = 0; k < opt.rounds && !r->fault; k++) {
			f = busy_round(r, opt.time);
			if (!r->fault)
				v[n++] = f;
		}
	} else if (SYNC_BIT(r->sync) & PASSIVE_SYNCS) {
		run_iters(r, MAX_ITERS, opt.time / 10, &done);
		for (int k = 0; k < opt.rounds && !r->fault; k++) {
			t = run_iters(r, MAX_ITERS, opt.time, &done);
			if (!r->fault)
				v[n++] = figure(r, t, done);
		}
	} else {
		/* grow the count until a run takes a tenth of a round */
		for (;;) {
			t = run_iters(r, iters, opt.time, &done);
			if (r->fault || t >= opt.time / 10 || iters >= MAX_ITERS)
				break;
			f = t > 0 ? opt.time / 10 / t * 1.5 : 16;
			iters = (long)((double)iters * (f < 2 ? 2 : f > 64 ? 64 : f));
		}
		f = t > 0 ? (double)iters * opt.time / 10 / t : (double)iters;
		iters = f < 1 ? 1 : f > (double)MAX_ITERS ? MAX_ITERS : (long)f;
		for (int k = 0; k < opt.rounds && !r->fault; k++) {
			for (sum = 0, total = 0; sum < opt.time && !r->fault; total += done)
				sum += run_iters(r, iters, opt.time, &done);
			if (!r->fault)
				v[n++] = figure(r, sum, total);
		}
	}
	verify(r);
	if (n < opt.rounds)
		n = 0;
	report(r, v, n);
	return n ? v[n / 2] : 0;
}

/* ------------------------------------------------------------ windows */

static void win_open(struct win *wn, enum flavor fl, size_t bytes)
{
	MPI_Aint mine, addrs[2];

	memset(wn, 0, sizeof(*wn));
	wn->fl = fl;
	switch (fl) {
	case F_ALLOCATE:
		MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wn->base,
				 &wn->w);
		break;
	case F_CREATE:
		wn->mem = xalloc(bytes);
		wn->base = wn->mem;
		MPI_Win_create(wn->base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
			       &wn->w);
		break;
	case F_DYNAMIC:
		wn->mem = xalloc(bytes);
		wn->base = wn->mem;
		MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wn->w);
		MPI_Win_attach(wn->w, wn->base, (MPI_Aint)bytes);
		MPI_Get_address(wn->base, &mine);
		MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
		wn->peer_base = addrs[peer];
		break;
	case NR_FLAVORS:
		break;
	}
	MPI_Win_set_errhandler(wn->w, MPI_ERRORS_RETURN);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void win_close(struct win *wn)
{
	if (wn->fl == F_DYNAMIC)
		MPI_Win_detach(wn->w, wn->base);
	MPI_Win_free(&wn->w);
	free(wn->mem);
}

/* ------------------------------------------------------------ the rows */

/* One family (op, sync, type, flavor) at each of its sizes. */
static void family(enum op o, enum sync s, enum type t, const struct win *wn)
{
	static unsigned int seed;
	size_t sizes[MAX_SIZES];
	int ns = 0;
	double t0 = now(), last = 0;
	struct row r;

	if (o == OP_FOP || o == OP_CAS) {
		sizes[ns++] = type_sizes[t];
	} else if (o == OP_BUSY_PUT) {
		/* the smallest and the largest size */
		sizes[ns++] = opt.sizes[0];
		if (opt.nsizes > 1)
			sizes[ns++] = opt.sizes[opt.nsizes - 1];
	} else {
		memcpy(sizes, opt.sizes, sizeof(sizes[0]) * (size_t)opt.nsizes);
		ns = opt.nsizes;
	}
	for (int i = 0; i < ns; i++) {
		memset(&r, 0, sizeof(r));
		r.op = o;
		r.sync = s;
		r.type = t;
		r.bytes = sizes[i];
		r.wn = wn;
		r.seed = ++seed;
		snprintf(r.name, sizeof(r.name), "%s.%s.%s.%s_%zu", op_names[o], sync_names[s],
			 type_names[t], flavor_names[wn->fl], sizes[i]);
		last = measure(&r);
	}
	r.name[strrchr(r.name, '_') - r.name] = 0;	/* the family */
	if (rank == 0)
		fprintf(stderr, "%s: %-15s %-28s %2d size%s, last %-9.4g %-4s %5.1f s\n", PROG,
			opt.impl, r.name, ns, ns == 1 ? " " : "s", last,
			is_bw(o) ? "MB/s" : "us", now() - t0);
}

static void run_flavor(enum flavor fl)
{
	struct win wn;

	win_open(&wn, fl, WINDOW * max_bytes);
	for (int o = 0; o < NR_OPS; o++) {
		unsigned int syncs = opt.all_syncs ? possible_syncs(o) : default_syncs(o);

		if (!opt.ops[o])
			continue;
		for (int s = 0; s < NR_SYNCS; s++) {
			if (!(syncs & opt.syncs & SYNC_BIT(s)))
				continue;
			if (o != OP_ACC && o != OP_GACC && o != OP_FOP && o != OP_CAS) {
				family(o, s, T_CHAR, &wn);
				continue;
			}
			for (int t = 0; t < NR_TYPES; t++) {
				/* compare_and_swap takes no floating point type */
				if (!opt.types[t] || (o == OP_CAS && (t == T_FLOAT || t == T_DOUBLE)))
					continue;
				family(o, s, t, &wn);
			}
		}
	}
	win_close(&wn);
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpiexec -n 2 %s [OPTIONS]\n"
		"The OSU one-sided benchmarks' call sequences, every one in one launch\n"
		"(see the source's head); one CSV row per shape and size.\n\n"
		"  -o, --ops LIST      put,get,acc,get_acc,fop,cas,put_bw,get_bw,put_bibw,busy_put\n"
		"                      (default all)\n"
		"  -s, --syncs LIST    only these of flush,lock,lock_all,fence,pscw (default:\n"
		"                      put all five, put_bibw fence and pscw, the rest flush)\n"
		"  -A, --all-syncs     every op with every synchronization it can have\n"
		"  -T, --types LIST    char,int,float,double for acc, get_acc, fop and cas\n"
		"                      (cas: the integer ones; default all)\n"
		"  -w, --flavors LIST  allocate,create,dynamic (default all)\n"
		"  -m, --sizes LIST    bytes per operation, multiples of 8 up to 1M, K/M suffix\n"
		"                      (default 8,64,256,1K,4K,8K,16K); busy_put: the first, last\n"
		"  -t, --time S        seconds per round (default 0.035)\n"
		"  -r, --rounds R      rounds per row, 1 to %d (default 3)\n"
		"  -q, --quick         smoke test: sizes 8,4K, 0.002 s, 2 rounds\n"
		"      --impl NAME     the CSV's impl column (default: from the library version)\n"
		"      --csv FILE      append the rows to FILE (rank 0) instead of stdout\n"
		"  -h, --help          this text\n\n"
		"CSV: workload,ranks,impl,metric,median,min,max,unit, workload\n"
		"OP.SYNC.TYPE.FLAVOR_BYTES.  Exit status 1 when a row was wrong or failed.\n",
		PROG, MAX_ROUNDS);
}

static size_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!errno && end != s && *s != '-') {
		if (*end == 'K' || *end == 'k')
			v <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			v <<= 20, end++;
	}
	if (errno || end == s || *end || *s == '-' || v < 8 || v > MAX_BYTES || v % 8)
		usage_error("--sizes: '%s' is not a multiple of 8 bytes from 8 to 1M", s);
	return v;
}

/* Calls @fn for each item of a comma-separated list. */
static void for_each_item(const char *what, const char *s, void (*fn)(const char *item))
{
	char *copy, *tok, *save = NULL;

	if (!*s || *s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		usage_error("%s: empty item in '%s'", what, s);
	copy = strdup(s);
	if (!copy)
		usage_error("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		fn(tok);
	free(copy);
}

static void add_op(const char *s)
{
	opt.ops[cli_choice("--ops", s, op_names, NR_OPS,
			   "put, get, acc, get_acc, fop, cas, put_bw, get_bw, put_bibw or busy_put")] = true;
}

static void add_sync(const char *s)
{
	opt.syncs |= SYNC_BIT(cli_choice("--syncs", s, sync_names, NR_SYNCS,
					 "flush, lock, lock_all, fence or pscw"));
}

static void add_type(const char *s)
{
	opt.types[cli_choice("--types", s, type_names, NR_TYPES,
			     "char, int, float or double")] = true;
}

static void add_flavor(const char *s)
{
	opt.flavors[cli_choice("--flavors", s, flavor_names, NR_FLAVORS,
			       "allocate, create or dynamic")] = true;
}

static void add_size(const char *s)
{
	size_t v = parse_size(s);

	if (opt.nsizes == MAX_SIZES)
		usage_error("--sizes: at most %d sizes", MAX_SIZES);
	if (opt.nsizes && v <= opt.sizes[opt.nsizes - 1])
		usage_error("--sizes: list them from the smallest up ('%s')", s);
	opt.sizes[opt.nsizes++] = v;
}

static void parse_options(int argc, char **argv)
{
	enum { O_IMPL = 256, O_CSV };
	static const struct option longopts[] = {
		{ "ops", required_argument, NULL, 'o' },
		{ "syncs", required_argument, NULL, 's' },
		{ "all-syncs", no_argument, NULL, 'A' },
		{ "types", required_argument, NULL, 'T' },
		{ "flavors", required_argument, NULL, 'w' },
		{ "sizes", required_argument, NULL, 'm' },
		{ "time", required_argument, NULL, 't' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "quick", no_argument, NULL, 'q' },
		{ "impl", required_argument, NULL, O_IMPL },
		{ "csv", required_argument, NULL, O_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool quick = false, have_t = false, have_r = false, any;
	int c, i;

	while ((c = getopt_long(argc, argv, "o:s:AT:w:m:t:r:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': for_each_item("--ops", optarg, add_op); break;
		case 's': for_each_item("--syncs", optarg, add_sync); break;
		case 'A': opt.all_syncs = true; break;
		case 'T': for_each_item("--types", optarg, add_type); break;
		case 'w': for_each_item("--flavors", optarg, add_flavor); break;
		case 'm': for_each_item("--sizes", optarg, add_size); break;
		case 't':
			opt.time = cli_seconds("--time", optarg, 0.0001, 60);
			have_t = true;
			break;
		case 'r':
			opt.rounds = (int)cli_ulong("--rounds", optarg, 1, MAX_ROUNDS);
			have_r = true;
			break;
		case 'q': quick = true; break;
		case O_IMPL: opt.impl = optarg; break;
		case O_CSV: opt.csv = optarg; break;
		case 'h':
			if (rank == 0)
				usage(stdout);
			MPI_Finalize();
			exit(0);
		default:
			if (rank == 0)
				usage(stderr);
			MPI_Finalize();
			exit(2);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	for (i = 0, any = false; i < NR_OPS; i++)
		any |= opt.ops[i];
	for (i = 0; !any && i < NR_OPS; i++)
		opt.ops[i] = true;
	if (!opt.syncs)
		opt.syncs = ALL_SYNCS;
	for (i = 0, any = false; i < NR_TYPES; i++)
		any |= opt.types[i];
	for (i = 0; !any && i < NR_TYPES; i++)
		opt.types[i] = true;
	for (i = 0, any = false; i < NR_FLAVORS; i++)
		any |= opt.flavors[i];
	for (i = 0; !any && i < NR_FLAVORS; i++)
		opt.flavors[i] = true;
	if (!opt.nsizes)
		for_each_item("--sizes", quick ? "8,4K" : "8,64,256,1K,4K,8K,16K", add_size);
	if (!have_t)
		opt.time = quick ? 0.002 : 0.035;
	if (!have_r)
		opt.rounds = quick ? 2 : 3;
}

/* The impl column: --impl, else recognised from the library's version. */
static const char *detect_impl(const char *version)
{
	if (opt.impl)
		return opt.impl;
	if (strstr(version, "mpirma"))
		return "mpirma";
	if (strstr(version, "Open MPI"))
		return "openmpi";
	if (strstr(version, "MPICH"))
		return "mpich";
	return "unknown";
}

int main(int argc, char **argv)
{
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	MPI_Group world;
	double start;
	int len, bad;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	parse_options(argc, argv);
	if (nranks != 2)
		usage_error("runs on exactly 2 ranks (as OSU's one-sided tests), not %d", nranks);
	peer = 1 - rank;
	MPI_Get_library_version(version, &len);
	opt.impl = detect_impl(version);
	csv = bench_csv_open(opt.csv);
	if (rank == 0) {
		version[strcspn(version, "\n")] = 0;
		fprintf(stderr, "%s: %s (%s), %d rounds x %.3g s per row\n", PROG, opt.impl,
			version, opt.rounds, opt.time);
	}

	max_bytes = opt.sizes[opt.nsizes - 1];
	sbuf = xalloc(WINDOW * max_bytes);
	rbuf = xalloc(WINDOW * max_bytes);
	ones = xalloc(max_bytes);
	minus = xalloc(max_bytes);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &peer, &peer_group);
	MPI_Group_free(&world);

	start = now();
	for (int f = 0; f < NR_FLAVORS; f++)
		if (opt.flavors[f])
			run_flavor(f);

	MPI_Group_free(&peer_group);
	free(sbuf);
	free(rbuf);
	free(ones);
	free(minus);
	bad = nwrong || nerror;
	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		fprintf(stderr, "%s: %s: %u wrong rows, %u failed rows, %.1f s\n", PROG,
			opt.impl, nwrong, nerror, now() - start);
		if (csv != stdout)
			fclose(csv);
	}
	MPI_Finalize();
	return bad ? 1 : 0;
}
