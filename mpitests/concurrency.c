// SPDX-License-Identifier: GPL-2.0
/*
 * concurrency: many ranks on one location at the same time.
 *
 *  - MPI_Accumulate(SUM) from every rank into one int64 and one double
 *    (integer values: exact in any order), on MPI_Win_create memory and on
 *    MPI_Win_allocate memory: the totals must be exact;
 *  - MPI_MAX / MPI_MIN from every rank into one vector;
 *  - MPI_Fetch_and_op(+1) tickets from every rank: together a permutation;
 *  - MPI_Get_accumulate(SUM): the values returned chain without a gap;
 *  - a spinlock made of MPI_Compare_and_swap guarding a non-atomic
 *    read-modify-write (MPI_Get, then MPI_Put): the count is exact only if
 *    CAS is atomic;
 *  - accumulate ordering: from one origin to one location, REPLACE then
 *    SUMs in one epoch are applied in order;
 *  - the library's paths meeting on one location (lib/rma/win.h): on
 *    MPI_Win_allocate memory, fetch_and_op and accumulate of contiguous
 *    data run in user space while the same updates through a derived
 *    datatype go through the kernel; the totals must still be exact;
 *  - one-instruction integer ops (SUM, BAND, BOR, BXOR) on neighbouring
 *    1-, 2-, 4- and 8-byte elements of one word, through both paths;
 *  - an origin buffer changed right after MPI_Accumulate returns (before
 *    the flush; erroneous, but the queue copies it): the values at the
 *    calls are what count.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define OPS	40	/* per rank */

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Slots of the counters window (longs, at rank 0). */
enum { S_SUM, S_DSUM, S_TICKET, S_CHAIN, S_LOCK, S_GUARDED, S_ORDER, NSLOTS };

static void sum_into_one(MPI_Win win, long *mem)
{
	long one = mtest_rank + 1, total = 0;
	double d = 0.5 * (mtest_rank + 1), dtotal;
	int i;

	MPI_Win_lock_all(0, win);
	for (i = 0; i < OPS; i++) {
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, S_SUM, 1, MPI_LONG,
					 MPI_SUM, win));
		CHECK_MPI(MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, S_DSUM, 1,
					 MPI_DOUBLE, MPI_SUM, win));
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank == 0) {
		for (i = 0; i < mtest_size; i++)
			total += (long)OPS * (i + 1);
		dtotal = 0.5 * total;
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		CHECK_MPI(MPI_Win_sync(win));
		CHECK_EQ(mem[S_SUM], total, "int64 total");
		CHECK(((double *)mem)[S_DSUM] == dtotal, "double total %g, want %g",
		      ((double *)mem)[S_DSUM], dtotal);
		MPI_Win_unlock(0, win);
	}
}

static void tickets(MPI_Win win)
{
	long one = 1, mine[OPS], *all = NULL, total = (long)OPS * mtest_size, i;
	struct {
		long old, amount;
	} chain[OPS], *allc = NULL;

	MPI_Win_lock_all(0, win);
	for (i = 0; i < OPS; i++) {
		CHECK_MPI(MPI_Fetch_and_op(&one, &mine[i], MPI_LONG, 0, S_TICKET,
					   MPI_SUM, win));
		chain[i].amount = 1 + (mtest_rank + i) % 5;
		CHECK_MPI(MPI_Get_accumulate(&chain[i].amount, 1, MPI_LONG,
					     &chain[i].old, 1, MPI_LONG, 0,
					     S_CHAIN, 1, MPI_LONG, MPI_SUM, win));
		/* results are ours after a flush */
		if (i % 8 == 7)
			CHECK_MPI(MPI_Win_flush(0, win));
	}
	MPI_Win_unlock_all(win);

	if (mtest_rank == 0) {
		all = malloc(total * sizeof(long));
		allc = malloc(total * sizeof(*allc));
	}
	MPI_Gather(mine, OPS, MPI_LONG, all, OPS, MPI_LONG, 0, MPI_COMM_WORLD);
	MPI_Gather(chain, 2 * OPS, MPI_LONG, allc, 2 * OPS, MPI_LONG, 0,
		   MPI_COMM_WORLD);
	if (mtest_rank == 0) {
		long sum = 0;

		qsort(all, total, sizeof(long), cmp_long);
		for (i = 0; i < total; i++)
			if (!CHECK(all[i] == i, "ticket %ld is %ld", i, all[i]))
				break;
		qsort(allc, total, sizeof(*allc), cmp_long);	/* by .old */
		for (i = 0; i < total; i++) {
			if (!CHECK(allc[i].old == sum,
				   "get_accumulate %ld saw %ld, want %ld", i,
				   allc[i].old, sum))
				break;
			sum += allc[i].amount;
		}
		free(all);
		free(allc);
	}
}

/* A CAS spinlock at S_LOCK guarding S_GUARDED. */
static void cas_lock(MPI_Win win)
{
	long zero = 0, me = mtest_rank + 1, old, v;
	int i, spins = 0;

	MPI_Win_lock_all(0, win);
	for (i = 0; i < OPS / 4; i++) {
		do {
			CHECK_MPI(MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG,
						       0, S_LOCK, win));
			CHECK_MPI(MPI_Win_flush(0, win));
			spins++;
		} while (old != 0);
		/* inside: a plain read-modify-write */
		CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, S_GUARDED, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_flush(0, win));
		v++;
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, S_GUARDED, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_flush(0, win));
		/* release: only the holder may */
		CHECK_MPI(MPI_Compare_and_swap(&zero, &me, &old, MPI_LONG, 0,
					       S_LOCK, win));
		CHECK_MPI(MPI_Win_flush(0, win));
		CHECK_EQ(old, me, "lock word at release");
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
	CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, S_GUARDED, 1, MPI_LONG, win));
	MPI_Win_unlock(0, win);
	CHECK_EQ(v, (long)(OPS / 4) * mtest_size, "count under the CAS lock");
}

/* One origin, one location, one epoch: accumulates stay in order. */
static void ordering(MPI_Win win)
{
	long v, five = 5, one = 1, got;
	int i;

	if (mtest_rank != mtest_size - 1)
		return;
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
	for (i = 0; i < 10; i++) {
		v = 1000 * i;
		CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, 0, S_ORDER, 1, MPI_LONG,
					 MPI_REPLACE, win));
		CHECK_MPI(MPI_Accumulate(&five, 1, MPI_LONG, 0, S_ORDER, 1,
					 MPI_LONG, MPI_SUM, win));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, S_ORDER, 1,
					 MPI_LONG, MPI_SUM, win));
	}
	CHECK_MPI(MPI_Fetch_and_op(NULL, &got, MPI_LONG, 0, S_ORDER, MPI_NO_OP,
				   win));
	MPI_Win_unlock(0, win);
	CHECK_EQ(got, 9000 + 6, "after REPLACE, SUM, SUM in order");
}

/* User-space and kernel updates of one int64 and one double at rank 0. */
static void mixed_paths(void)
{
	long *mem, one = 1, old, total;
	double *dmem, half = 0.5, dold;
	MPI_Datatype lvec, dvec;
	MPI_Win win;
	int i;

	MPI_Win_allocate(mtest_rank ? 0 : 2 * sizeof(long), 1, MPI_INFO_NULL,
			 MPI_COMM_WORLD, &mem, &win);
	dmem = (double *)(mem + 1);
	if (mtest_rank == 0) {
		mem[0] = 0;
		*dmem = 0;
	}
	/* one element, but described by a block list: the kernel's path */
	MPI_Type_create_indexed_block(1, 1, (int[]){ 0 }, MPI_LONG, &lvec);
	MPI_Type_create_indexed_block(1, 1, (int[]){ 0 }, MPI_DOUBLE, &dvec);
	MPI_Type_commit(&lvec);
	MPI_Type_commit(&dvec);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	for (i = 0; i < OPS; i++) {
		CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM,
					   win));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, lvec,
					 MPI_SUM, win));
		CHECK_MPI(MPI_Get_accumulate(&half, 1, MPI_DOUBLE, &dold, 1,
					     MPI_DOUBLE, 0, sizeof(long), 1,
					     MPI_DOUBLE, MPI_SUM, win));
		CHECK_MPI(MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, sizeof(long),
					 1, dvec, MPI_SUM, win));
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	total = 2L * OPS * mtest_size;
	if (mtest_rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		CHECK_MPI(MPI_Win_sync(win));
		CHECK_EQ(mem[0], total, "int64 total over both paths");
		CHECK(*dmem == 0.5 * total, "double total %g over both paths, "
		      "want %g", *dmem, 0.5 * total);
		MPI_Win_unlock(0, win);
	}
	MPI_Type_free(&lvec);
	MPI_Type_free(&dvec);
	MPI_Win_free(&win);
}

/*
 * Long accumulates (more elements than the direct path's step) into one
 * array from every rank at once, through both paths; every element's total
 * must be exact.  Contiguous ones run in user space, the same through a
 * block list in the kernel.  Integer SUM is one locked instruction per
 * element; the others take the direct path's steps (a snapshot, the
 * reduction, one compare-and-exchange per element), in each element size:
 * double and float SUM, and 2- and 1-byte BXOR fetched (a fetching BXOR is
 * no single instruction), whose contributions survive because each is
 * applied an odd number of times.
 */
struct arr_case {
	const char *name;
	MPI_Datatype type;
	size_t size;
	MPI_Op op;
	bool fetch;		/* the user-space side is a get_accumulate */
};

/* Element @i of @p, of @c's type, as an integer (every value is one). */
static int64_t arr_get(const struct arr_case *c, const void *p, int i)
{
	if (c->type == MPI_DOUBLE)
		return (int64_t)((const double *)p)[i];
	if (c->type == MPI_FLOAT)
		return (int64_t)((const float *)p)[i];
	if (c->size == 2)
		return ((const uint16_t *)p)[i];
	if (c->size == 1)
		return ((const uint8_t *)p)[i];
	return ((const long *)p)[i];
}

static void arr_set(const struct arr_case *c, void *p, int i, int64_t v)
{
	if (c->type == MPI_DOUBLE)
		((double *)p)[i] = (double)v;
	else if (c->type == MPI_FLOAT)
		((float *)p)[i] = (float)v;
	else if (c->size == 2)
		((uint16_t *)p)[i] = (uint16_t)v;
	else if (c->size == 1)
		((uint8_t *)p)[i] = (uint8_t)v;
	else
		((long *)p)[i] = (long)v;
}

/* What rank @r adds through user space (@kernel false) or the kernel. */
static int64_t arr_val(const struct arr_case *c, int i, int r, bool kernel)
{
	if (c->op == MPI_BXOR)
		return (int64_t)(((unsigned int)i * 37 + (unsigned int)r * 11 +
				  (kernel ? 5U : 0U)) & (c->size == 1 ? 0xff : 0xffff));
	return i % 7 + r;
}

static void mixed_array(const struct arr_case *c)
{
	enum { N = 1200, REPS = 5 };
	void *mem, *src = malloc(N * c->size), *ksrc = malloc(N * c->size);
	void *res = malloc(N * c->size);
	MPI_Datatype every;
	MPI_Win win;
	int i, r, bad = 0;

	if (!CHECK(src && ksrc && res, "%s: out of memory", c->name))
		goto out_free;
	MPI_Win_allocate(mtest_rank ? 0 : (MPI_Aint)(N * c->size), (int)c->size,
			 MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
	if (mtest_rank == 0)
		memset(mem, 0, N * c->size);
	for (i = 0; i < N; i++) {
		arr_set(c, src, i, arr_val(c, i, mtest_rank, false));
		arr_set(c, ksrc, i, arr_val(c, i, mtest_rank, true));
	}
	/* every element, as a block list: the kernel's path */
	MPI_Type_vector(N / 2, 2, 2, c->type, &every);
	MPI_Type_commit(&every);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	for (r = 0; r < REPS; r++) {
		if (c->fetch)
			CHECK_MPI(MPI_Get_accumulate(src, N, c->type, res, N,
						     c->type, 0, 0, N, c->type,
						     c->op, win));
		else
			CHECK_MPI(MPI_Accumulate(src, N, c->type, 0, 0, N,
						 c->type, c->op, win));
		CHECK_MPI(MPI_Accumulate(ksrc, N, c->type, 0, 0, 1, every,
					 c->op, win));
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		CHECK_MPI(MPI_Win_sync(win));
		for (i = 0; i < N && !bad; i++) {
			int64_t want = 0;

			for (r = 0; r < mtest_size; r++) {
				if (c->op == MPI_BXOR)
					want ^= arr_val(c, i, r, false) ^
						arr_val(c, i, r, true);
				else
					want += REPS * (arr_val(c, i, r, false) +
							arr_val(c, i, r, true));
			}
			bad = !CHECK(arr_get(c, mem, i) == want, "%s: element %d "
				     "is %lld, want %lld", c->name, i,
				     (long long)arr_get(c, mem, i),
				     (long long)want);
		}
		MPI_Win_unlock(0, win);
	}
	MPI_Type_free(&every);
	MPI_Win_free(&win);
out_free:
	free(src);
	free(ksrc);
	free(res);
}

static void mixed_arrays(void)
{
	const struct arr_case cases[] = {
		{ "long SUM", MPI_LONG, sizeof(long), MPI_SUM, false },
		{ "double SUM", MPI_DOUBLE, sizeof(double), MPI_SUM, false },
		{ "float SUM fetched", MPI_FLOAT, sizeof(float), MPI_SUM, true },
		{ "uint16 BXOR fetched", MPI_UINT16_T, 2, MPI_BXOR, true },
		{ "uint8 BXOR fetched", MPI_UINT8_T, 1, MPI_BXOR, true },
	};
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		mixed_array(&cases[k]);
}

/*
 * Integer SUM, BAND, BOR and BXOR are one locked instruction each on
 * allocated windows (common/native_elem.c); a 1- or 2-byte bitwise op acts
 * on the whole 4-byte word around its element.  Every rank hits neighbours
 * in one word with different ops at once, half the time in user space
 * (contiguous) and half through the kernel (a block list), and fetches
 * from a 1-byte counter between them: every byte must come out exact.
 */
struct word_ops {
	uint8_t b[4];		/* BOR, BAND, BXOR, SUM: one 4-byte word */
	uint16_t h[2];		/* SUM, BXOR */
	uint32_t w;		/* BOR */
	uint8_t fetch[4];	/* fetch_and_op SUM; the rest of the word BXOR */
	int64_t d;		/* SUM */
};

static void word_op(MPI_Win win, const void *v, MPI_Datatype type,
		    MPI_Datatype blocks, MPI_Aint disp, MPI_Op op, bool kernel)
{
	CHECK_MPI(MPI_Accumulate(v, 1, type, 0, disp, 1,
				 kernel ? blocks : type, op, win));
}

static void mixed_words(void)
{
	MPI_Win win;
	enum { T_U8, T_U16, T_U32, T_I64, NT };
	static const MPI_Datatype base[NT] = {
		MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_INT64_T,
	};
	MPI_Datatype blk[NT];
	struct word_ops *m, want;
	unsigned int bits = 0;
	uint8_t fetched, x8, seen[256] = { 0 };
	uint16_t x16;
	int i, r, t, dups = 0;

	MPI_Win_allocate(mtest_rank ? 0 : sizeof(*m), 1, MPI_INFO_NULL,
			 MPI_COMM_WORLD, &m, &win);
	for (t = 0; t < NT; t++) {
		MPI_Type_create_indexed_block(1, 1, (int[]){ 0 }, base[t], &blk[t]);
		MPI_Type_commit(&blk[t]);
	}
	if (mtest_rank == 0) {
		memset(m, 0, sizeof(*m));
		m->b[1] = 0xff;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	for (i = 0; i < OPS; i++) {
		bool k = i & 1;
		uint8_t bor = (uint8_t)(1u << (mtest_rank % 8));
		uint8_t band = (uint8_t)~bor, one8 = 1, one8f = 1;
		uint16_t sum16 = (uint16_t)(mtest_rank + 1);
		uint32_t bor32 = 1u << ((mtest_rank * 5 + i) % 32);
		int64_t sum64 = (int64_t)mtest_rank << 33 | 1;

		x8 = (uint8_t)(mtest_rank * 31 + i);
		x16 = (uint16_t)(mtest_rank * 977 + i * 13);
		word_op(win, &bor, MPI_UINT8_T, blk[T_U8],
			offsetof(struct word_ops, b[0]), MPI_BOR, k);
		word_op(win, &band, MPI_UINT8_T, blk[T_U8],
			offsetof(struct word_ops, b[1]), MPI_BAND, !k);
		word_op(win, &x8, MPI_UINT8_T, blk[T_U8],
			offsetof(struct word_ops, b[2]), MPI_BXOR, k);
		word_op(win, &one8, MPI_UINT8_T, blk[T_U8],
			offsetof(struct word_ops, b[3]), MPI_SUM, !k);
		word_op(win, &sum16, MPI_UINT16_T, blk[T_U16],
			offsetof(struct word_ops, h[0]), MPI_SUM, k);
		word_op(win, &x16, MPI_UINT16_T, blk[T_U16],
			offsetof(struct word_ops, h[1]), MPI_BXOR, !k);
		word_op(win, &bor32, MPI_UINT32_T, blk[T_U32],
			offsetof(struct word_ops, w), MPI_BOR, k);
		word_op(win, &sum64, MPI_INT64_T, blk[T_I64],
			offsetof(struct word_ops, d), MPI_SUM, !k);
		word_op(win, &x8, MPI_UINT8_T, blk[T_U8],
			offsetof(struct word_ops, fetch[1 + i % 3]), MPI_BXOR, k);
		CHECK_MPI(MPI_Fetch_and_op(&one8f, &fetched, MPI_UINT8_T, 0,
					   offsetof(struct word_ops, fetch[0]),
					   MPI_SUM, win));
		CHECK_MPI(MPI_Win_flush(0, win));
		/* tickets of one rank: distinct (fewer than 256 in all) */
		dups += seen[fetched]++ != 0;
	}
	MPI_Win_unlock_all(win);
	if (OPS * mtest_size <= 256)
		CHECK_EQ(dups, 0, "fetch_and_op on a byte: repeated tickets");
	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank == 0) {
		memset(&want, 0, sizeof(want));
		want.b[1] = 0xff;
		for (r = 0; r < mtest_size; r++) {
			bits |= 1u << (r % 8);
			for (i = 0; i < OPS; i++) {
				x8 = (uint8_t)(r * 31 + i);
				want.b[2] ^= x8;
				want.fetch[1 + i % 3] ^= x8;
				want.h[1] ^= (uint16_t)(r * 977 + i * 13);
				want.w |= 1u << ((r * 5 + i) % 32);
			}
			want.h[0] = (uint16_t)(want.h[0] + OPS * (r + 1));
			want.d += (int64_t)OPS * ((int64_t)r << 33 | 1);
		}
		want.b[0] = (uint8_t)bits;
		want.b[1] = (uint8_t)~bits;
		want.b[3] = (uint8_t)(OPS * mtest_size);
		want.fetch[0] = (uint8_t)(OPS * mtest_size);
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		CHECK_MPI(MPI_Win_sync(win));
		CHECK(!memcmp(m, &want, sizeof(want)), "word ops: b %02x %02x "
		      "%02x %02x h %04x %04x w %08x fetch %02x %02x %02x %02x "
		      "d %lld", m->b[0], m->b[1], m->b[2], m->b[3], m->h[0],
		      m->h[1], m->w, m->fetch[0], m->fetch[1], m->fetch[2],
		      m->fetch[3], (long long)m->d);
		MPI_Win_unlock(0, win);
	}
	for (t = 0; t < NT; t++)
		MPI_Type_free(&blk[t]);
	MPI_Win_free(&win);
}

/* The origin buffer changes after each call, before the flush. */
static void origin_reuse(MPI_Win win)
{
	long v, want = 0;
	int i;

	if (mtest_rank != mtest_size - 1)
		return;
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
	CHECK_MPI(MPI_Accumulate(&want, 1, MPI_LONG, 0, S_ORDER, 1, MPI_LONG,
				 MPI_REPLACE, win));
	for (i = 1; i <= 20; i++) {
		v = i;
		CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, 0, S_ORDER, 1, MPI_LONG,
					 MPI_SUM, win));
		v = -1000;
		want += i;
	}
	CHECK_MPI(MPI_Win_flush(0, win));
	CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, S_ORDER, 1, MPI_LONG, win));
	MPI_Win_unlock(0, win);
	CHECK_EQ(v, want, "sum of the values at the calls");
}

static void max_min(void)
{
	enum { N = 16 };
	int *mem, mine[N], i;
	MPI_Win win;

	MPI_Win_allocate(2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL,
			 MPI_COMM_WORLD, &mem, &win);
	for (i = 0; i < 2 * N; i++)
		mem[i] = i < N ? -1000 : 1000;
	MPI_Win_fence(0, win);
	for (i = 0; i < N; i++)
		mine[i] = (mtest_rank * 7 + i * 3) % 11 - 5;
	for (i = 0; i < 4; i++) {
		CHECK_MPI(MPI_Accumulate(mine, N, MPI_INT, 0, 0, N, MPI_INT,
					 MPI_MAX, win));
		CHECK_MPI(MPI_Accumulate(mine, N, MPI_INT, 0, N, N, MPI_INT,
					 MPI_MIN, win));
	}
	MPI_Win_fence(0, win);
	if (mtest_rank == 0)
		for (i = 0; i < N; i++) {
			int r, mx = -1000, mn = 1000;

			for (r = 0; r < mtest_size; r++) {
				int x = (r * 7 + i * 3) % 11 - 5;

				mx = x > mx ? x : mx;
				mn = x < mn ? x : mn;
			}
			CHECK_EQ(mem[i], mx, "max");
			CHECK_EQ(mem[N + i], mn, "min");
		}
	MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
	long *mem, user[NSLOTS];
	MPI_Win win;
	int flavor;

	mtest_init(&argc, &argv, "concurrency");
	for (flavor = 0; flavor < 2; flavor++) {
		mtest_section(flavor ? "allocate" : "create");
		memset(user, 0, sizeof(user));
		if (flavor) {
			MPI_Win_allocate(mtest_rank ? 0 : sizeof(user), sizeof(long),
					 MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
			if (mtest_rank == 0)
				memset(mem, 0, sizeof(user));
		} else {
			mem = user;
			MPI_Win_create(user, mtest_rank ? 0 : sizeof(user),
				       sizeof(long), MPI_INFO_NULL,
				       MPI_COMM_WORLD, &win);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		sum_into_one(win, mem);
		tickets(win);
		cas_lock(win);
		ordering(win);
		origin_reuse(win);
		MPI_Win_free(&win);
	}
	mtest_section("mixed paths");
	mixed_paths();
	mixed_arrays();
	mixed_words();
	mtest_section("max/min");
	max_min();
	return mtest_finish();
}
