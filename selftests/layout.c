// SPDX-License-Identifier: GPL-2.0
/*
 * Block-list layouts (struct mpirma_layout) on the origin, target and result
 * sides: fixed cases (gather, scatter, negative displacements and extents,
 * interleaved repetitions), randomised layouts checked against a simulation
 * built from mt_layout_offsets(), and the bounds and validation errors
 * (ERANGE, EOVERFLOW, EFAULT, overlapping accumulate targets EINVAL).
 *
 * A one-rank job targets its own window (USER or ALLOC), under every
 * atomicity strategy (MT_FOR_EACH_STRATEGY): the engine cuts a layout into
 * spans before the strategy sees them, and each strategy must apply the
 * spans of one update to the right elements (the delegation strategy, for
 * one, splits them again by page owner).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"
#include "reference.h"

#define WLEN		65536
#define BUF_LEN		65536	/* origin/result buffers; addr at the middle */
#define MAX_EL		1024

FIXTURE(layout) {
	struct mt_solo s;	/* the window, mapped */
	uint8_t *obuf, *rbuf;	/* middles of BUF_LEN buffers */
	uint8_t *snap;		/* WLEN, copy of the window before an op */
};

MT_FLAVOR_STRATEGY_VARIANTS(layout, 0)

FIXTURE_SETUP(layout)
{
	uint8_t *o, *r;

	mt_solo_init(&self->s);
	MT_REQUIRE_DEVICE();
	ASSERT_EQ(0, mt_solo_open_strategy(&self->s, variant->flavor,
					   variant->strategy, WLEN));
	o = mt_anon(BUF_LEN);
	r = mt_anon(BUF_LEN);
	self->snap = mt_anon(WLEN);
	ASSERT_TRUE(o && r && self->snap);
	self->obuf = o + BUF_LEN / 2;
	self->rbuf = r + BUF_LEN / 2;
}

FIXTURE_TEARDOWN(layout)
{
	mt_solo_close(&self->s);
}

static void fill_pattern(uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 13 + (i >> 8);
}

/* Gather: an origin block list lands contiguously. */
TEST_F(layout, origin_blocks)
{
	static const struct mpirma_block b[] = {
		{ .disp = 8, .len = 8 }, { .disp = 0, .len = 4 },
	};
	int32_t *o = (int32_t *)self->obuf, want[9];
	int64_t off[9];
	struct mpirma_op op;
	int k;

	MT_SETUP_SKIPPED();
	for (k = 0; k < 32; k++)
		o[k] = 100 + k;
	op = mt_put(MPIRMA_TYPE_INT32, 0, 40, NULL, 9);
	op.origin = mt_blocks(o, b, 2, 3, 32);
	ASSERT_EQ(9, mt_layout_offsets(&op.origin, 4, off, 9));
	for (k = 0; k < 9; k++)
		want[k] = o[off[k] / 4];
	/* rep 0: o[2], o[3], o[0]; rep 1: o[10], o[11], o[8]; ... */
	EXPECT_EQ(102, want[0]);
	EXPECT_EQ(108, want[5]);
	memset(self->s.mem, 0, 128);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(0, memcmp(self->s.mem + 40, want, sizeof(want)));
	EXPECT_EQ(0, self->s.mem[39]);
	EXPECT_EQ(0, self->s.mem[40 + sizeof(want)]);
}

/* Scatter on the target, with negative block displacements and a negative
 * extent; GET with a result block list reads it back.
 */
TEST_F(layout, target_and_result_blocks)
{
	static const struct mpirma_block tb[] = {
		{ .disp = -24, .len = 16 }, { .disp = 40, .len = 8 },
		{ .disp = -64, .len = 8 },
	};
	static const struct mpirma_block rb[] = {
		{ .disp = -256, .len = 24 }, { .disp = 100, .len = 8 },
	};
	uint64_t src[12], got[12];
	int64_t toff[12], roff[12];
	struct mpirma_op op;
	int k;

	MT_SETUP_SKIPPED();
	for (k = 0; k < 12; k++)
		src[k] = 0x1000 + k;
	memset(self->s.mem, 0xee, 4096);
	memcpy(self->snap, self->s.mem, 4096);
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 2048, src, 12);
	op.target = mt_blocks(NULL, tb, 3, 3, -200);
	ASSERT_EQ(12, mt_layout_offsets(&op.target, 8, toff, 12));
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	for (k = 0; k < 12; k++)
		memcpy(self->snap + 2048 + toff[k], &src[k], 8);
	EXPECT_EQ(0, memcmp(self->s.mem, self->snap, 4096));

	/* the same target layout read back through a result block list */
	memset(self->rbuf - 512, 0, 1024);
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 2048, NULL, 12);
	op.target = mt_blocks(NULL, tb, 3, 3, -200);
	op.result = mt_blocks(self->rbuf, rb, 2, 3, 300);
	ASSERT_EQ(12, mt_layout_offsets(&op.result, 8, roff, 12));
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	for (k = 0; k < 12; k++) {
		memcpy(&got[k], self->rbuf + roff[k], 8);
		EXPECT_EQ(src[k], got[k]);
	}
}

/* Repetitions closer than the block list's span interleave without
 * overlapping: 0, 12, 8, 20, 16, 28 (int32 elements).
 */
TEST_F(layout, interleaved_repetitions)
{
	static const struct mpirma_block b[] = {
		{ .disp = 0, .len = 4 }, { .disp = 12, .len = 4 },
	};
	int32_t src[6] = { 1, 2, 3, 4, 5, 6 }, res[6], t[8];
	static const int32_t slot[6] = { 0, 3, 2, 5, 4, 7 };
	struct mpirma_op op;
	int k;

	MT_SETUP_SKIPPED();
	for (k = 0; k < 8; k++)
		t[k] = 10 * k;
	memcpy(self->s.mem + 100, t, sizeof(t));
	op = mt_get_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_SUM, 0, 100, src, res, 6);
	op.target = mt_blocks(NULL, b, 2, 3, 8);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	for (k = 0; k < 6; k++) {
		EXPECT_EQ(10 * slot[k], res[k]);
		t[slot[k]] += src[k];
	}
	EXPECT_EQ(0, memcmp(self->s.mem + 100, t, sizeof(t)));
}

/*
 * Block lists already in target order (an indexed accumulate, such as the
 * hybrid layer's runs) take the kernel's one-pass overlap check: distinct
 * single elements, more than one native step of them, are applied each
 * once; touching or repeated blocks are still EINVAL, and change nothing.
 */
TEST_F(layout, sorted_block_lists)
{
	static const struct mpirma_block overlap[] = {
		{ .disp = 0, .len = 8 }, { .disp = 4, .len = 4 },
	};
	static const struct mpirma_block again[] = {
		{ .disp = 8, .len = 4 }, { .disp = 8, .len = 4 },
	};
	static struct mpirma_block b[40];
	double src[40], res[40], t[128], want[128];
	int32_t isrc[3] = { 1, 2, 3 }, ires[3];
	struct mpirma_op op;
	int k;

	MT_SETUP_SKIPPED();
	for (k = 0; k < 128; k++)
		want[k] = t[k] = k;
	memcpy(self->s.mem + 4096, t, sizeof(t));
	for (k = 0; k < 40; k++) {
		b[k] = (struct mpirma_block){ .disp = (3 * k + 1) * 8, .len = 8 };
		src[k] = 1000 + k;
		want[3 * k + 1] += src[k];
	}
	op = mt_get_acc(MPIRMA_TYPE_DOUBLE, MPIRMA_OP_SUM, 0, 4096, src, res, 40);
	op.target = mt_blocks(NULL, b, 40, 1, 0);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	for (k = 0; k < 40; k++)
		EXPECT_EQ(3 * k + 1, (int)res[k]);
	EXPECT_EQ(0, memcmp(self->s.mem + 4096, want, sizeof(want)));
	/* again without the fetch */
	for (k = 0; k < 40; k++)
		want[3 * k + 1] += src[k];
	op = mt_acc(MPIRMA_TYPE_DOUBLE, MPIRMA_OP_SUM, 0, 4096, src, 40);
	op.target = mt_blocks(NULL, b, 40, 1, 0);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(0, memcmp(self->s.mem + 4096, want, sizeof(want)));

	memcpy(self->snap, self->s.mem, WLEN);
	op = mt_get_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_SUM, 0, 100, isrc, ires, 3);
	op.target = mt_blocks(NULL, overlap, 2, 1, 0);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_get_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_SUM, 0, 100, isrc, ires, 2);
	op.target = mt_blocks(NULL, again, 2, 1, 0);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(0, memcmp(self->snap, self->s.mem, WLEN));
}

struct rl {
	struct mpirma_block b[MAX_EL];
	uint32_t nb;
};

/*
 * @m element slots (8-byte units) in [lo, hi), in random order, as a block
 * list whose runs of consecutive slots may be merged into longer blocks.
 * With @distinct no slot repeats.
 */
static void gen_blocks(uint64_t *seed, struct rl *rl, unsigned int m, int lo,
		       int hi, bool distinct)
{
	static uint8_t used[4096];
	int slots[MAX_EL];
	unsigned int i = 0;

	memset(used, 0, sizeof(used));
	while (i < m) {
		int s = lo + (int)(ref_rand(seed) % (hi - lo));

		if (distinct && used[s - lo])
			continue;
		used[s - lo] = 1;
		slots[i++] = s;
		/* often continue a run, so blocks get longer than one element */
		while (i < m && (ref_rand(seed) & 1) && s + 1 < hi &&
		       !(distinct && used[s + 1 - lo])) {
			used[++s - lo] = 1;
			slots[i++] = s;
		}
	}
	rl->nb = 0;
	for (i = 0; i < m; i++) {
		if (rl->nb && slots[i] == slots[i - 1] + 1 &&
		    (ref_rand(seed) % 4)) {
			rl->b[rl->nb - 1].len += 8;
			continue;
		}
		rl->b[rl->nb].disp = (int64_t)slots[i] * 8;
		rl->b[rl->nb].len = 8;
		rl->nb++;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Do any two 8-byte elements at these offsets overlap? */
static bool overlapping(const int64_t *off, long n)
{
	static int64_t s[MAX_EL];
	long i;

	memcpy(s, off, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_i64);
	for (i = 1; i < n; i++)
		if (s[i] - s[i - 1] < 8)
			return true;
	return false;
}

/* Random layouts on all three sides of PUT, GET and GET_ACC (SUM, INT64),
 * checked against a simulation.
 */
TEST_F(layout, random_layouts)
{
	static struct rl ot, tt, rt;
	static int64_t ooff[MAX_EL], toff[MAX_EL], roff[MAX_EL];
	const uint64_t tdisp = 16384;
	unsigned int iter, overlaps = 0, applied = 0;
	uint64_t seed = 2024;

	MT_SETUP_SKIPPED();
	for (iter = 0; iter < 120; iter++) {
		unsigned int kind = iter % 3 == 0 ? MPIRMA_KIND_PUT :
				    iter % 3 == 1 ? MPIRMA_KIND_GET :
				    MPIRMA_KIND_GET_ACC;
		unsigned int m = 1 + ref_rand(&seed) % 48;
		unsigned int c = 1 + ref_rand(&seed) % 4;
		int64_t ext = ((int64_t)(ref_rand(&seed) % 401) - 200) * 8 +
			      ((ref_rand(&seed) & 3) ? 0 : 4);
		unsigned int mo = 1 + ref_rand(&seed) % 3;
		long n = (long)m * c, k;
		struct mpirma_op op;
		bool overlap;
		int ret;

		/* the origin: any layout of n elements, repeats allowed */
		while (n % mo)
			mo--;
		gen_blocks(&seed, &ot, n / mo, -400, 400, false);
		/* the target: m distinct slots per repetition */
		gen_blocks(&seed, &tt, m, -64, 192, true);
		/* the result: n distinct slots */
		gen_blocks(&seed, &rt, n, -2000, 2000, true);

		memset(&op, 0, sizeof(op));
		op.kind = kind;
		op.type = MPIRMA_TYPE_INT64;
		op.op = kind == MPIRMA_KIND_GET_ACC ? MPIRMA_OP_SUM : 0;
		op.target_disp = tdisp;
		op.target = mt_blocks(NULL, tt.b, tt.nb, c, ext);
		if (kind != MPIRMA_KIND_GET)
			op.origin = mt_blocks(self->obuf, ot.b, ot.nb, mo,
					      (int64_t)(ref_rand(&seed) % 64) * 8 - 256);
		if (kind != MPIRMA_KIND_PUT)
			op.result = mt_blocks(self->rbuf, rt.b, rt.nb, 1, 0);
		ASSERT_EQ(n, mt_layout_offsets(&op.target, 8, toff, MAX_EL));
		if (kind != MPIRMA_KIND_GET)
			ASSERT_EQ(n, mt_layout_offsets(&op.origin, 8, ooff, MAX_EL));
		if (kind != MPIRMA_KIND_PUT)
			ASSERT_EQ(n, mt_layout_offsets(&op.result, 8, roff, MAX_EL));
		overlap = overlapping(toff, n);

		fill_pattern(self->s.mem, WLEN, iter);
		fill_pattern(self->obuf - BUF_LEN / 2, BUF_LEN, iter * 3);
		fill_pattern(self->rbuf - BUF_LEN / 2, BUF_LEN, iter * 5);
		memcpy(self->snap, self->s.mem, WLEN);
		/* simulate into snap and the result copy */
		{
			static uint8_t rsim[BUF_LEN];

			memcpy(rsim, self->rbuf - BUF_LEN / 2, BUF_LEN);
			for (k = 0; k < n; k++) {
				uint8_t *t = self->snap + tdisp + toff[k];
				uint64_t tv, ov = 0;

				memcpy(&tv, t, 8);
				if (kind != MPIRMA_KIND_GET)
					memcpy(&ov, self->obuf + ooff[k], 8);
				if (kind != MPIRMA_KIND_PUT)
					memcpy(rsim + BUF_LEN / 2 + roff[k], &tv, 8);
				if (kind == MPIRMA_KIND_PUT)
					memcpy(t, &ov, 8);
				else if (kind == MPIRMA_KIND_GET_ACC)
					tv += ov, memcpy(t, &tv, 8);
			}
			ret = mt_rma1(self->s.mfd, self->s.win, &op);
			if (overlap && kind == MPIRMA_KIND_GET_ACC) {
				/* overlapping accumulate targets are refused */
				EXPECT_EQ(-EINVAL, ret);
				overlaps++;
				continue;
			}
			if (ret)
				TH_LOG("iteration %u (%s, %ld elements, %u target blocks x %u, extent %lld): status %d",
				       iter, ref_kind_name(kind), n, tt.nb, c,
				       (long long)ext, ret);
			ASSERT_EQ(0, ret);
			applied++;
			if (overlap && kind == MPIRMA_KIND_PUT)
				continue;	/* which write wins is not defined */
			if (memcmp(self->s.mem, self->snap, WLEN))
				TH_LOG("iteration %u (%s): target memory differs",
				       iter, ref_kind_name(kind));
			EXPECT_EQ(0, memcmp(self->s.mem, self->snap, WLEN));
			if (kind != MPIRMA_KIND_PUT) {
				if (memcmp(self->rbuf - BUF_LEN / 2, rsim, BUF_LEN))
					TH_LOG("iteration %u (%s): result buffer differs",
					       iter, ref_kind_name(kind));
				EXPECT_EQ(0, memcmp(self->rbuf - BUF_LEN / 2,
						    rsim, BUF_LEN));
			}
		}
	}
	TH_LOG("%u random layouts applied, %u overlapping refused", applied,
	       overlaps);
}

TEST_F(layout, zero_elements)
{
	struct mpirma_op op;
	uint64_t v = 5;

	MT_SETUP_SKIPPED();
	memset(self->s.mem, 0x11, 64);
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &v, 0);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 8, &v, 0);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(0x11, self->s.mem[0]);
	EXPECT_EQ(0x11, self->s.mem[8]);
}

TEST_F(layout, bounds)
{
	static const struct mpirma_block past[] = {
		{ .disp = 0, .len = 8 }, { .disp = WLEN - 4, .len = 8 },
	};
	static const struct mpirma_block below[] = {
		{ .disp = -8, .len = 8 },
	};
	static const struct mpirma_block huge_disp[] = {
		{ .disp = INT64_MAX - 4, .len = 8 },
	};
	static const struct mpirma_block huge_len[] = {
		{ .disp = 0, .len = 0xfffffffffffffff8ULL },
	};
	uint64_t v[4] = { 1, 2, 3, 4 };
	struct mpirma_op op;
	int ret;

	MT_SETUP_SKIPPED();
	memset(self->s.mem, 0, WLEN);

	op = mt_put(MPIRMA_TYPE_UINT64, 0, WLEN - 8, v, 1);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, WLEN - 7, v, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_put(MPIRMA_TYPE_UINT8, 0, WLEN, v, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_put(MPIRMA_TYPE_UINT8, 0, WLEN - 1, v, 2);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, self->s.win, &op));

	/* one block inside, one past the end: nothing may be written */
	memset(self->s.mem, 0, WLEN);
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, v, 2);
	op.target = mt_blocks(NULL, past, 2, 1, 0);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(0, self->s.mem[0]);

	/* a negative block before the window's start */
	op = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 4, v, 1);
	op.target = mt_blocks(NULL, below, 1, 1, 0);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, self->s.win, &op));

	/* a repetition beyond the end */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, v, 2);
	op.target = mt_blocks(NULL, past, 1, 2, WLEN);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, self->s.win, &op));

	/* huge target displacements */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 1ULL << 62, v, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, ~0ULL - 3, v, 1);
	ret = mt_rma1(self->s.mfd, self->s.win, &op);
	if (ret != -EOVERFLOW && ret != -ERANGE)
		TH_LOG("target_disp 2^64-4: %d", ret);
	EXPECT_TRUE(ret == -EOVERFLOW || ret == -ERANGE);

	/* a block displacement at the top of the signed range */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 16, v, 1);
	op.target = mt_blocks(NULL, huge_disp, 1, 1, 0);
	ret = mt_rma1(self->s.mfd, self->s.win, &op);
	if (ret != -EOVERFLOW && ret != -ERANGE)
		TH_LOG("block disp INT64_MAX - 4: %d", ret);
	EXPECT_TRUE(ret == -EOVERFLOW || ret == -ERANGE);

	/* element counts whose byte size overflows 64 bits */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, v, 1ULL << 62);
	ret = mt_rma1(self->s.mfd, self->s.win, &op);
	if (ret != -EOVERFLOW && ret != -ERANGE)
		TH_LOG("count 2^62: %d", ret);
	EXPECT_TRUE(ret == -EOVERFLOW || ret == -ERANGE);
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, v, 1ULL << 61);
	op.target = mt_blocks(NULL, huge_len, 1, 1, 0);
	op.origin = mt_blocks(v, huge_len, 1, 1, 0);
	ret = mt_rma1(self->s.mfd, self->s.win, &op);
	if (ret != -EOVERFLOW && ret != -ERANGE && ret != -EFAULT)
		TH_LOG("block len 2^64-8: %d", ret);
	EXPECT_TRUE(ret == -EOVERFLOW || ret == -ERANGE || ret == -EFAULT);

	/* huge extents: repetition 1 far beyond, or wrapping around */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, v, 2);
	op.target = mt_blocks(NULL, past, 1, 2, INT64_MAX);
	ret = mt_rma1(self->s.mfd, self->s.win, &op);
	EXPECT_TRUE(ret == -EOVERFLOW || ret == -ERANGE);
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, v, 3);
	op.target = mt_blocks(NULL, past, 1, 3, INT64_MIN);
	ret = mt_rma1(self->s.mfd, self->s.win, &op);
	if (ret != -EOVERFLOW && ret != -ERANGE)
		TH_LOG("extent INT64_MIN: %d", ret);
	EXPECT_TRUE(ret == -EOVERFLOW || ret == -ERANGE);
	EXPECT_EQ(0, self->s.mem[0]);
}

TEST_F(layout, disp_unit_overflow)
{
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.strategy = variant->strategy,
		.disp_unit = 8,
		.length = 4096,
		.nranks = 1,
	};
	uint64_t v = 7, got = 0;
	struct mpirma_op op;
	int win;

	MT_SETUP_SKIPPED();
	win = mt_win_create(self->s.mfd, &w);
	ASSERT_LT(0, win);
	/* target_disp counts disp_units */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 511, &v, 1);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, win, &op));
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 511, &got, 1);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, win, &op));
	EXPECT_EQ(7, got);
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 512, &v, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, win, &op));
	/* 2^61 * 8 = 2^64: the product overflows */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 1ULL << 61, &v, 1);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(self->s.mfd, win, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, ~0ULL, &v, 1);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(self->s.mfd, win, &op));
	/* 2^59 * 8 = 2^62 does not overflow, it is just out of range */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 1ULL << 59, &v, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(self->s.mfd, win, &op));
	EXPECT_EQ(0, mt_win_free(self->s.mfd, win));
}

TEST_F(layout, validation)
{
	static const struct mpirma_block odd[] = { { .disp = 0, .len = 6 } };
	static const struct mpirma_block ovl[] = {
		{ .disp = 0, .len = 8 }, { .disp = 4, .len = 8 },
	};
	static const struct mpirma_block dup[] = {
		{ .disp = 16, .len = 4 }, { .disp = 16, .len = 4 },
	};
	static const struct mpirma_block one[] = { { .disp = 0, .len = 8 } };
	int32_t src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, res[8];
	struct mpirma_op op;

	MT_SETUP_SKIPPED();
	/* block length not a multiple of the element size */
	op = mt_put(MPIRMA_TYPE_INT32, 0, 0, src, 1);
	op.target = mt_blocks(NULL, odd, 1, 1, 0);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_put(MPIRMA_TYPE_INT32, 0, 0, src, 1);
	op.origin = mt_blocks(src, odd, 1, 1, 0);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));

	/* too many blocks: refused before the list is read */
	op = mt_put(MPIRMA_TYPE_INT32, 0, 0, src, 2);
	op.target = mt_blocks(NULL, one, MPIRMA_MAX_BLOCKS + 1, 1, 0);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));

	/* an unreadable block list */
	op = mt_put(MPIRMA_TYPE_INT32, 0, 0, src, 2);
	op.target = mt_blocks(NULL, (void *)8, 1, 1, 0);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));

	/* blocks but no blocks pointer */
	op = mt_put(MPIRMA_TYPE_INT32, 0, 0, src, 2);
	op.target = mt_blocks(NULL, NULL, 1, 1, 0);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));

	/* overlapping accumulate targets: within a list, between
	 * repetitions, exact duplicates
	 */
	op = mt_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_SUM, 0, 0, src, 4);
	op.target = mt_blocks(NULL, ovl, 2, 1, 0);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_SUM, 0, 0, src, 4);
	op.target = mt_blocks(NULL, one, 1, 2, 4);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_get_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_SUM, 0, 0, src, res, 2);
	op.target = mt_blocks(NULL, dup, 2, 1, 0);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_get_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_NO_OP, 0, 0, NULL, res, 2);
	op.target = mt_blocks(NULL, dup, 2, 1, 0);
	EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));

	/*
	 * Blocks 2^63 bytes apart whose repetitions overlap: the span of one
	 * repetition does not fit in 64 bits, which must make the overlap
	 * check stricter (EINVAL), never skip it (ERANGE would mean it did).
	 */
	{
		static const struct mpirma_block far[] = {
			{ .disp = -(1LL << 62), .len = 16 }, { .disp = 1LL << 62, .len = 8 },
		};
		int64_t v[6] = { 0 };

		op = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, 0, v, 6);
		op.target = mt_blocks(NULL, far, 2, 2, 8);
		EXPECT_EQ(-EINVAL, mt_rma1(self->s.mfd, self->s.win, &op));
	}

	/* but PUT and GET may overlap their target */
	op = mt_put(MPIRMA_TYPE_INT32, 0, 0, src, 4);
	op.target = mt_blocks(NULL, ovl, 2, 1, 0);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_get(MPIRMA_TYPE_INT32, 0, 0, res, 2);
	op.target = mt_blocks(NULL, dup, 2, 1, 0);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(res[0], res[1]);

	/* origins may overlap too (they are only read) */
	op = mt_acc(MPIRMA_TYPE_INT32, MPIRMA_OP_SUM, 0, 64, NULL, 2);
	op.origin = mt_blocks(src, dup, 2, 1, 0);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
}

TEST_F(layout, bad_user_addresses)
{
	static const struct mpirma_block back[] = { { .disp = -32, .len = 8 } };
	static const struct mpirma_block one[] = { { .disp = 0, .len = 8 } };
	uint64_t v[4] = { 1, 2, 3, 4 }, res[4];
	struct mpirma_op op;
	int ret;

	MT_SETUP_SKIPPED();
	/* origin range wrapping past the top of the address space */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, (void *)(~0ULL - 15), 4);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));
	/* a kernel address */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, (void *)0xffff888000000000ULL, 1);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));
	/* a negative displacement below address 0 */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, NULL, 1);
	op.origin = mt_blocks((void *)16, back, 1, 1, 0);
	ret = mt_rma1(self->s.mfd, self->s.win, &op);
	if (ret != -EFAULT)
		TH_LOG("origin 16 + (-32): %d", ret);
	EXPECT_EQ(-EFAULT, ret);
	/* a repetition in kernel space (v + INT64_MAX: signed arithmetic
	 * overflows, so EOVERFLOW is as right as EFAULT)
	 */
	op = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 0, NULL, 2);
	op.origin = mt_blocks(v, one, 1, 2, INT64_MAX);
	ret = mt_rma1(self->s.mfd, self->s.win, &op);
	if (ret != -EFAULT && ret != -EOVERFLOW)
		TH_LOG("origin repetition at v + INT64_MAX: %d", ret);
	EXPECT_TRUE(ret == -EFAULT || ret == -EOVERFLOW);
	/* result wrapping */
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, (void *)(~0ULL - 7), 2);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_get_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 0, v, NULL, 1);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));
	/* and valid ones still work */
	op = mt_get_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 0, v, res, 4);
	EXPECT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
}

/*
 * Puts of a whole 64 KiB window: large enough for the non-temporal copy
 * (kmod/rma.c, MPIRMA_PUT_NT_MIN), from a misaligned contiguous origin and
 * from a block list of short and long pieces; an origin that runs into
 * unmapped memory or lies in the kernel fails with EFAULT, and the window
 * still works afterwards.
 */
TEST_F(layout, large_puts)
{
	static const struct mpirma_block pieces[] = {
		{ .disp = 0, .len = 100 }, { .disp = 150, .len = 924 },
	};
	uint8_t *src = mt_anon(2 * WLEN), *want = self->snap;
	struct mpirma_op op;
	size_t r;

	MT_SETUP_SKIPPED();
	ASSERT_TRUE(src != NULL);
	fill_pattern(src, 2 * WLEN, 7);
	memset(self->s.mem, 0, WLEN);
	op = mt_put(MPIRMA_TYPE_UINT8, 0, 0, src + 3, WLEN);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(0, memcmp(self->s.mem, src + 3, WLEN));

	/* 64 repetitions of 1024 bytes, 1100 apart */
	op = mt_put(MPIRMA_TYPE_UINT8, 0, 0, NULL, WLEN);
	op.origin = mt_blocks(src + 5, pieces, 2, WLEN / 1024, 1100);
	for (r = 0; r < WLEN / 1024; r++) {
		memcpy(want + r * 1024, src + 5 + r * 1100, 100);
		memcpy(want + r * 1024 + 100, src + 5 + r * 1100 + 150, 924);
	}
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(0, memcmp(self->s.mem, want, WLEN));

	/* the origin's second half unmapped */
	ASSERT_EQ(0, munmap(src + WLEN, WLEN));
	op = mt_put(MPIRMA_TYPE_UINT8, 0, 0, src + WLEN / 2, WLEN);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));
	/* a kernel address, and one whose range ends in the kernel */
	op = mt_put(MPIRMA_TYPE_UINT8, 0, 0, (void *)0xffff888000000000ULL, WLEN);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));
	op = mt_put(MPIRMA_TYPE_UINT8, 0, 0, (void *)(0x800000000000ULL - WLEN / 2),
		    WLEN);
	EXPECT_EQ(-EFAULT, mt_rma1(self->s.mfd, self->s.win, &op));

	op = mt_put(MPIRMA_TYPE_UINT8, 0, 0, src, WLEN);
	ASSERT_EQ(0, mt_rma1(self->s.mfd, self->s.win, &op));
	EXPECT_EQ(0, memcmp(self->s.mem, src, WLEN));
	munmap(src, WLEN);
}

TEST_HARNESS_MAIN
