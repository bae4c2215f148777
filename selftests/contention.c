// SPDX-License-Identifier: GPL-2.0
/*
 * Element-wise atomicity under contention: N processes hammer the same
 * elements of rank 0's window.  Accumulated totals must be exact,
 * fetch-and-add must hand out every ticket exactly once, XOR parities must
 * come out right, MAXLOC must break ties to the smallest index, and a
 * compare-and-swap spinlock must exclude.  Run for each window flavor and
 * with the explicit LOCK strategy.
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
#define WIN_BYTES	128

struct shared {
	uint32_t flavor;
	uint32_t strategy;
	int inside;
	int violations;
	uint64_t tickets[NR * M];
	uint8_t final[WIN_BYTES];
};

FIXTURE(cont) {
	int dev;
	struct shared *sh;
};

FIXTURE_VARIANT(cont) {
	uint32_t flavor;
	uint32_t strategy;
};

FIXTURE_VARIANT_ADD(cont, user) {
	.flavor = MPIRMA_FLAVOR_USER,
	.strategy = MPIRMA_ATOM_DEFAULT,
};

FIXTURE_VARIANT_ADD(cont, alloc) {
	.flavor = MPIRMA_FLAVOR_ALLOC,
	.strategy = MPIRMA_ATOM_DEFAULT,
};

FIXTURE_VARIANT_ADD(cont, alloc_lock_strategy) {
	.flavor = MPIRMA_FLAVOR_ALLOC,
	.strategy = MPIRMA_ATOM_LOCK,
};

FIXTURE_SETUP(cont)
{
	self->dev = -1;
	MT_REQUIRE_DEVICE();
	self->dev = mt_open();
	ASSERT_LE(0, self->dev);
	self->sh = mt_shm(sizeof(*self->sh));
	ASSERT_NE(NULL, self->sh);
	self->sh->flavor = variant->flavor;
	self->sh->strategy = variant->strategy;
}

FIXTURE_TEARDOWN(cont)
{
	if (self->dev >= 0)
		close(self->dev);
}

/* Everyone creates the window; rank 0 owns the bytes. */
static int make_window(struct mt_rank *r, uint8_t *user_mem)
{
	struct shared *sh = r->arg;
	struct mt_win w = {
		.flavor = sh->flavor,
		.strategy = sh->strategy,
		.nranks = r->nranks,
	};

	if (r->rank == 0) {
		w.length = WIN_BYTES;
		if (sh->flavor == MPIRMA_FLAVOR_USER)
			w.base = user_mem;
	}
	return mt_win_create(r->mfd, &w);
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
	static uint8_t mem[WIN_BYTES];
	int64_t one = 1;
	double fone = 1.0;
	int32_t i32 = 1;
	uint64_t bit = 1ULL << r->rank;
	struct { double v; int32_t i; int32_t pad; } loc;
	struct mpirma_op ops[5], batch[BATCH];
	int win, i;

	win = make_window(r, mem);
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
	static uint8_t mem[WIN_BYTES];
	struct shared *sh = r->arg;
	uint64_t one = 1, old;
	int win, i;

	win = make_window(r, mem);
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
	static uint8_t mem[WIN_BYTES];
	struct shared *sh = r->arg;
	uint64_t me = r->rank + 1, zero = 0, old, counter;
	int win, i;

	win = make_window(r, mem);
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

TEST_HARNESS_MAIN
