// SPDX-License-Identifier: GPL-2.0
/*
 * Element-wise atomicity under contention: N processes hammer the same
 * elements of rank 0's window.  Accumulated totals must be exact,
 * fetch-and-add must hand out every ticket exactly once, XOR parities must
 * come out right, MAXLOC must break ties to the smallest index, and a
 * compare-and-swap spinlock must exclude, and fetch_and_op, accumulate and
 * compare_and_swap hitting one location at once must stay atomic with each
 * other.  One suite for every window flavor x atomicity strategy
 * (MT_FOR_EACH_STRATEGY): variants user_lock, alloc_lock, user_striped, ...
 * ALLOC windows are interleaved over the nodes, so under delegation the
 * window's two pages are served by workers of different nodes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define NR	4	/* ranks */
#define M	1000	/* operations per rank */
#define BATCH	64

/* Byte offsets in rank 0's window. */
#define OFF_I64		0
#define OFF_F64		8
#define OFF_I32_ODD	17	/* unaligned */
#define OFF_BATCH	24
#define OFF_TICKET	32
#define OFF_LOCK	40
#define OFF_COUNTER	48
#define OFF_XOR		56
#define OFF_MAXLOC	64	/* DOUBLE_INT, 16 bytes */
/* Mixed traffic: one location each. */
#define OFF_MIX_A	128	/* INT64, aligned: native cmpxchg */
#define OFF_MIX_C	256	/* C_DOUBLE_COMPLEX: native's lock fallback */
/* INT64 across a cache line and a page: native's lock fallback, two
 * stripes, and under delegation the first page's owner
 */
#define OFF_MIX_B	4092
#define WIN_BYTES	8192	/* two pages */
#define MIX_K		300	/* increments per rank and location */

struct shared {
	uint32_t flavor;
	uint32_t strategy;
	uint32_t flags;
	int inside;
	int violations;
	uint64_t tickets[NR * M];
	uint8_t final[WIN_BYTES];
	/* mixed: what each fetch_and_op and successful CAS found, per
	 * location (A, B) and rank in issue order; C: real parts
	 */
	int64_t seen[2][NR][MIX_K];
	unsigned int nseen[2][NR];
	double cseen[NR][MIX_K];
	unsigned int ncseen[NR];
	unsigned int cincs[NR];		/* C: FOP + ACC per rank */
	int torn;			/* C: a value with im != 2 re */
};

/* Rank 0's USER memory: page-aligned, so aligned offsets are aligned. */
static uint8_t user_mem[WIN_BYTES] __attribute__((aligned(4096)));

FIXTURE(cont) {
	int dev;
	struct shared *sh;
};

MT_FLAVOR_STRATEGY_VARIANTS(cont, MPIRMA_WIN_INTERLEAVE)

FIXTURE_SETUP(cont)
{
	MT_FIXTURE_OPEN();
	MT_FIXTURE_SHM(self->sh);
	self->sh->flavor = variant->flavor;
	self->sh->strategy = variant->strategy;
	self->sh->flags = variant->flags;
}

MT_FIXTURE_TEARDOWN(cont)

/*
 * Everyone creates the window; rank 0 owns the bytes.  The window must run
 * the variant's strategy, or the suite would test another one: -EPROTO.
 */
static int make_window(struct mt_rank *r)
{
	struct shared *sh = r->arg;
	struct mt_win w = {
		.flags = sh->flags,
		.flavor = sh->flavor,
		.strategy = sh->strategy,
		.nranks = r->nranks,
	};
	struct mpirma_win_query q;
	int win, ret;

	if (r->rank == 0) {
		w.length = WIN_BYTES;
		if (sh->flavor == MPIRMA_FLAVOR_USER)
			w.base = user_mem;
	}
	win = mt_win_create(r->mfd, &w);
	if (win < 0)
		return win;
	ret = mt_win_query(r->mfd, win, 0, &q);
	if (ret < 0)
		return ret;
	if (q.strategy != sh->strategy) {
		fprintf(stderr, "# rank %u: window strategy %s, expected %s\n",
			r->rank, mt_strategy_name(q.strategy),
			mt_strategy_name(sh->strategy));
		return -EPROTO;
	}
	return win;
}

static void read_final(struct __test_metadata *_metadata, struct mt_rank *r,
		       int win)
{
	struct shared *sh = r->arg;
	struct mpirma_op op;

	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 0) {
		op = mt_get(MPIRMA_TYPE_BYTE, 0, 0, sh->final, WIN_BYTES);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
	}
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

MT_RANK_FN(accumulate_rank)
{
	int64_t one = 1;
	double fone = 1.0;
	int32_t i32 = 1;
	uint64_t bit = 1ULL << r->rank;
	struct { double v; int32_t i; int32_t pad; } loc;
	struct mpirma_op ops[5], batch[BATCH];
	int win, i;

	win = make_window(r);
	ASSERT_LT(0, win);
	for (i = 0; i < BATCH; i++)
		batch[i] = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, OFF_BATCH,
				  &one, 1);
	for (i = 0; i < M; i++) {
		uint32_t nfailed;

		loc.v = i;
		loc.i = r->nranks - r->rank;	/* the tie goes to index 1 */
		ops[0] = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, OFF_I64, &one, 1);
		ops[1] = mt_acc(MPIRMA_TYPE_DOUBLE, MPIRMA_OP_SUM, 0, OFF_F64, &fone, 1);
		ops[2] = mt_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_SUM, 0, OFF_I32_ODD, &i32, 1);
		ops[3] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_BXOR, 0, OFF_XOR, &bit, 1);
		ops[4] = mt_acc(MPIRMA_TYPE_DOUBLE_INT, MPIRMA_OP_MAXLOC, 0,
				OFF_MAXLOC, &loc, 1);
		ASSERT_EQ(0, mt_rma(r->mfd, win, ops, 5, &nfailed));
		ASSERT_EQ(0, nfailed);
		if (i % 40 == 0) {
			ASSERT_EQ(0, mt_rma(r->mfd, win, batch, BATCH, &nfailed));
			ASSERT_EQ(0, nfailed);
		}
	}
	read_final(_metadata, r, win);
}

TEST_F_TIMEOUT(cont, accumulate_totals, 120)
{
	struct shared *sh = self->sh;
	int64_t i64, batch;
	double f64, v;
	int32_t i32, idx;
	uint64_t x;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, NR, accumulate_rank, sh, _metadata,
				60000));
	memcpy(&i64, sh->final + OFF_I64, 8);
	memcpy(&f64, sh->final + OFF_F64, 8);
	memcpy(&i32, sh->final + OFF_I32_ODD, 4);
	memcpy(&batch, sh->final + OFF_BATCH, 8);
	memcpy(&x, sh->final + OFF_XOR, 8);
	memcpy(&v, sh->final + OFF_MAXLOC, 8);
	memcpy(&idx, sh->final + OFF_MAXLOC + 8, 4);
	EXPECT_EQ(NR * M, i64);
	EXPECT_EQ(NR * M, (int64_t)f64);
	EXPECT_EQ(NR * M, i32);
	EXPECT_EQ(NR * BATCH * ((M + 39) / 40), batch);
	/* each rank toggled its bit M times */
	EXPECT_EQ(M % 2 ? (1ULL << NR) - 1 : 0, x);
	/* every rank offered M - 1 last; indexes NR..1: the smallest wins */
	EXPECT_EQ(M - 1, (int)v);
	EXPECT_EQ(1, idx);
	MT_EXPECT_COUNTERS_ZERO();
}

MT_RANK_FN(ticket_rank)
{
	struct shared *sh = r->arg;
	uint64_t one = 1, old;
	int win, i;

	win = make_window(r);
	ASSERT_LT(0, win);
	for (i = 0; i < M; i++) {
		struct mpirma_op op = mt_get_acc(MPIRMA_TYPE_UINT64,
						 MPIRMA_OP_SUM, 0, OFF_TICKET,
						 &one, &old, 1);

		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		sh->tickets[r->rank * M + i] = old;
		/* fetch_and_op hands out increasing tickets per origin */
		if (i)
			EXPECT_LT(sh->tickets[r->rank * M + i - 1], old);
	}
	read_final(_metadata, r, win);
}

TEST_F_TIMEOUT(cont, fetch_and_add_tickets, 120)
{
	static uint8_t seen[NR * M];
	size_t k, dup = 0, range = 0;
	uint64_t total;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, NR, ticket_rank, self->sh, _metadata,
				60000));
	for (k = 0; k < NR * M; k++) {
		uint64_t t = self->sh->tickets[k];

		if (t >= NR * M)
			range++;
		else if (seen[t]++)
			dup++;
	}
	EXPECT_EQ(0, range);
	EXPECT_EQ(0, dup);
	memcpy(&total, self->sh->final + OFF_TICKET, 8);
	EXPECT_EQ(NR * M, total);
	MT_EXPECT_COUNTERS_ZERO();
}

/* A spinlock from compare-and-swap; the counter behind it is updated with
 * plain GET and PUT, so only the lock keeps it exact.
 */
MT_RANK_FN(spinlock_rank)
{
	struct shared *sh = r->arg;
	uint64_t me = r->rank + 1, zero = 0, old, counter;
	int win, i;

	win = make_window(r);
	ASSERT_LT(0, win);
	for (i = 0; i < M / 4; i++) {
		struct mpirma_op op;
		unsigned int spins = 0;

		do {
			op = mt_cas(MPIRMA_TYPE_UINT64, 0, OFF_LOCK, &me, &zero, &old);
			ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
			if (old && ++spins % 4 == 0)
				sched_yield();
		} while (old != 0);
		if (mt_inc(&sh->inside) != 1)
			mt_inc(&sh->violations);
		op = mt_get(MPIRMA_TYPE_UINT64, 0, OFF_COUNTER, &counter, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		counter++;
		op = mt_put(MPIRMA_TYPE_UINT64, 0, OFF_COUNTER, &counter, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		__atomic_sub_fetch(&sh->inside, 1, __ATOMIC_SEQ_CST);
		/* release: the lock must still be ours */
		op = mt_cas(MPIRMA_TYPE_UINT64, 0, OFF_LOCK, &zero, &me, &old);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(me, old);
	}
	read_final(_metadata, r, win);
}

TEST_F_TIMEOUT(cont, cas_spinlock, 120)
{
	uint64_t counter, lock;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, NR, spinlock_rank, self->sh,
				_metadata, 60000));
	memcpy(&counter, self->sh->final + OFF_COUNTER, 8);
	memcpy(&lock, self->sh->final + OFF_LOCK, 8);
	EXPECT_EQ(NR * (M / 4), counter);
	EXPECT_EQ(0, lock);
	EXPECT_EQ(0, self->sh->violations);
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * Mixed traffic on one location: every rank increments A and B by one
 * MIX_K times each, choosing fetch_and_op (GET_ACC SUM), accumulate (ACC
 * SUM) or a compare_and_swap loop by turns, staggered by rank so all three
 * kinds are in flight at once; C (16 bytes, no CAS for its type) gets
 * fetch_and_op, accumulate and atomic reads (GET_ACC NO_OP).  Every
 * increment is +1, so the values fetch_and_op and the successful CASes
 * found must be distinct, increasing per rank, and the finals exact; C
 * adds (1, 2), so a torn C value shows as im != 2 re.
 */
enum { MIX_FOP, MIX_ACC, MIX_CAS };

/* One +1 on the INT64 at @off, of kind @kind; records what it found. */
static void mix_inc(struct __test_metadata *_metadata, struct mt_rank *r,
		    int win, unsigned int loc, uint64_t off, unsigned int kind,
		    int64_t *guess)
{
	struct shared *sh = r->arg;
	int64_t one = 1, cmp, nv, old;
	unsigned int spins = 0;
	struct mpirma_op op;

	switch (kind) {
	case MIX_FOP:
		op = mt_get_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, off, &one,
				&old, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		break;
	case MIX_ACC:
		op = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, off, &one, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		return;
	default:
		/* the classic CAS increment: retry with what was found */
		for (cmp = *guess;; cmp = old) {
			nv = cmp + 1;
			op = mt_cas(MPIRMA_TYPE_INT64, 0, off, &nv, &cmp, &old);
			ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
			if (old == cmp)
				break;
			if (++spins % 4 == 0)
				sched_yield();
		}
		break;
	}
	*guess = old + 1;
	sh->seen[loc][r->rank][sh->nseen[loc][r->rank]++] = old;
}

MT_RANK_FN(mixed_rank)
{
	struct shared *sh = r->arg;
	const double add[2] = { 1, 2 };
	int64_t guess[2] = { 0, 0 };
	unsigned int i, k;
	double got[2];
	int win;

	win = make_window(r);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	for (i = 0; i < MIX_K; i++) {
		struct mpirma_op op;

		mix_inc(_metadata, r, win, 0, OFF_MIX_A, (i + r->rank) % 3,
			&guess[0]);
		mix_inc(_metadata, r, win, 1, OFF_MIX_B, (i + r->rank + 1) % 3,
			&guess[1]);
		switch ((i + r->rank + 2) % 3) {
		case MIX_FOP:
			op = mt_get_acc(MPIRMA_TYPE_C_DOUBLE_COMPLEX,
					MPIRMA_OP_SUM, 0, OFF_MIX_C, add, got, 1);
			ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
			sh->cseen[r->rank][sh->ncseen[r->rank]++] = got[0];
			sh->cincs[r->rank]++;
			break;
		case MIX_ACC:
			op = mt_acc(MPIRMA_TYPE_C_DOUBLE_COMPLEX, MPIRMA_OP_SUM,
				    0, OFF_MIX_C, add, 1);
			ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
			sh->cincs[r->rank]++;
			continue;
		default:
			op = mt_get_acc(MPIRMA_TYPE_C_DOUBLE_COMPLEX,
					MPIRMA_OP_NO_OP, 0, OFF_MIX_C, NULL, got,
					1);
			ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
			break;
		}
		if (got[1] != 2 * got[0])
			mt_inc(&sh->torn);
	}
	/* each origin's operations are ordered: what it found increases */
	for (k = 0; k < 2; k++)
		for (i = 1; i < sh->nseen[k][r->rank]; i++)
			EXPECT_LT(sh->seen[k][r->rank][i - 1],
				  sh->seen[k][r->rank][i]);
	for (i = 1; i < sh->ncseen[r->rank]; i++)
		EXPECT_LT(sh->cseen[r->rank][i - 1], sh->cseen[r->rank][i]);
	read_final(_metadata, r, win);
}

/* How many of the @n values in @v are outside [0, total) or repeated. */
static unsigned int not_a_permutation(const int64_t *v, unsigned int n,
				      int64_t total)
{
	static uint8_t mark[NR * MIX_K];
	unsigned int i, bad = 0;

	memset(mark, 0, sizeof(mark));
	for (i = 0; i < n; i++) {
		if (v[i] < 0 || v[i] >= total || total > NR * MIX_K)
			bad++;
		else if (mark[v[i]]++)
			bad++;
	}
	return bad;
}

TEST_F_TIMEOUT(cont, mixed_ops_one_location, 120)
{
	static const uint32_t offs[2] = { OFF_MIX_A, OFF_MIX_B };
	static int64_t all[NR * MIX_K];
	struct shared *sh = self->sh;
	unsigned int k, rk, i, n, bad, cincs = 0;
	double c[2];
	int64_t v;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, NR, mixed_rank, sh, _metadata,
				60000));
	for (k = 0; k < 2; k++) {
		memcpy(&v, sh->final + offs[k], 8);
		if (v != NR * MIX_K)
			TH_LOG("INT64 at %u: %lld, expected %d", offs[k],
			       (long long)v, NR * MIX_K);
		EXPECT_EQ(NR * MIX_K, v);
		for (n = 0, rk = 0; rk < NR; rk++)
			for (i = 0; i < sh->nseen[k][rk]; i++)
				all[n++] = sh->seen[k][rk][i];
		/* fetch_and_op and CAS took about two thirds of the +1s */
		EXPECT_LT(NR * MIX_K / 2, n);
		bad = not_a_permutation(all, n, NR * MIX_K);
		if (bad)
			TH_LOG("INT64 at %u: %u of the %u values fetch_and_op and CAS found are repeated or out of range",
			       offs[k], bad, n);
		EXPECT_EQ(0, bad);
	}
	for (rk = 0; rk < NR; rk++)
		cincs += sh->cincs[rk];
	memcpy(c, sh->final + OFF_MIX_C, 16);
	if (c[0] != cincs || c[1] != 2.0 * cincs)
		TH_LOG("C_DOUBLE_COMPLEX at %u: (%g, %g), expected (%u, %u)",
		       OFF_MIX_C, c[0], c[1], cincs, 2 * cincs);
	EXPECT_EQ(cincs, c[0]);
	EXPECT_EQ(2.0 * cincs, c[1]);
	EXPECT_EQ(0, sh->torn);
	for (n = 0, rk = 0; rk < NR; rk++)
		for (i = 0; i < sh->ncseen[rk]; i++)
			all[n++] = (int64_t)sh->cseen[rk][i];
	bad = not_a_permutation(all, n, cincs);
	if (bad)
		TH_LOG("C_DOUBLE_COMPLEX at %u: %u of the %u values fetch_and_op found are repeated or out of range",
		       OFF_MIX_C, bad, n);
	EXPECT_EQ(0, bad);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
