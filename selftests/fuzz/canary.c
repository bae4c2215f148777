// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz/canary.c - the canary: a job the fuzz never touches, whose windows
 * must still compute exact results between the fuzzed calls.
 */
#include "fuzz.h"

int canary_open(struct worker *w)
{
	uint32_t strategy = 1 + w->idx % (MPIRMA_NR_STRATEGIES - 1);
	int ret;

	mt_solo_init(&w->canary_alloc);
	mt_solo_init(&w->canary_user);
	ret = mt_solo_open_strategy(&w->canary_alloc, MPIRMA_FLAVOR_ALLOC, strategy, CANARY_LEN);
	if (!ret)
		ret = mt_solo_open_strategy(&w->canary_user, MPIRMA_FLAVOR_USER,
					    1 + (strategy % (MPIRMA_NR_STRATEGIES - 1)),
					    CANARY_LEN);
	return ret;
}

/* A put, a get, a fetch_and_add and a CAS on each canary window; 0 if exact. */
static int canary_check_one(struct worker *w, struct mt_solo *s)
{
	uint64_t pattern[16], back[16], one = 1, old = 0, cmp, nv;
	struct mpirma_op op;
	int i, ret;

	for (i = 0; i < 16; i++)
		pattern[i] = rnd();
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 128, pattern, 16);
	ret = mt_rma1(s->mfd, s->win, &op);
	if (ret)
		return ret;
	if (memcmp(s->mem + 128, pattern, sizeof(pattern)))
		return -EIO;
	memset(back, 0, sizeof(back));
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 128, back, 16);
	if (mt_rma1(s->mfd, s->win, &op) || memcmp(back, pattern, sizeof(back)))
		return -EIO;
	/* counter at offset 0: fetch_and_add returns how many came before */
	op = mt_get_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 0, &one, &old, 1);
	if (mt_rma1(s->mfd, s->win, &op) || old != w->canary_count)
		return -EIO;
	cmp = old + 1;
	nv = old + 1;
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, 0, &nv, &cmp, &old);
	if (mt_rma1(s->mfd, s->win, &op) || old != cmp)
		return -EIO;
	return 0;
}

/*
 * A get_accumulate (SUM) and a CAS whose targets are random block lists
 * (negative displacements, repetitions), checked element by element
 * against the window's memory as the fuzzer sees it: a layout applied at
 * the wrong place is silent to the errno checks, not to this.  The canary
 * counter at offset 0 stays out of the layouts' way.
 */
static int canary_layouts(struct mt_solo *s)
{
	static uint8_t before[CANARY_LEN];
	uint32_t esize = 4 << below(2), type = esize == 4 ? MPIRMA_TYPE_UINT32 :
					       MPIRMA_TYPE_UINT64;
	struct mpirma_block blk[4];
	uint64_t origin[CANARY_MAX], result[CANARY_MAX], base, cmp, nv, old = 0;
	int64_t off[CANARY_MAX], lo = INT64_MAX, hi = INT64_MIN;
	struct mpirma_layout tl;
	struct mpirma_op op;
	uint32_t i, j, nb = 1 + below(4);
	long n;

	for (i = 0; i < nb; i++) {
		blk[i].disp = ((int64_t)below(128) - 64) * esize;
		blk[i].len = (1 + below(4)) * esize;
	}
	tl = mt_blocks(NULL, blk, nb, 1 + below(3), (int64_t)(40 + below(40)) * esize);
	n = mt_layout_offsets(&tl, esize, off, CANARY_MAX);
	if (n <= 0 || n > CANARY_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		lo = off[i] < lo ? off[i] : lo;
		hi = off[i] > hi ? off[i] : hi;
		for (j = 0; j < i; j++)
			if (off[i] == off[j] || (off[i] > off[j] - (int64_t)esize &&
						 off[i] < off[j] + (int64_t)esize))
				return 0;	/* overlapping: not allowed for accumulate */
	}
	/* every element inside [64, CANARY_LEN), target_disp >= 0 */
	lo = 64 - lo > 0 ? 64 - lo : 0;		/* the smallest base */
	hi = CANARY_LEN - (int64_t)esize - hi;	/* the largest */
	if (hi < lo)
		return 0;
	base = lo + below(hi - lo + 1);
	for (i = 0; i < n; i++)
		origin[i] = rnd();
	memcpy(before, s->mem, CANARY_LEN);
	op = mt_get_acc(type, MPIRMA_OP_SUM, 0, base, origin, result, n);
	op.target = tl;
	if (mt_rma1(s->mfd, s->win, &op))
		return -EIO;
	for (i = 0; i < n; i++) {
		uint64_t was = 0, now = 0, add = 0, got = 0;

		memcpy(&was, before + base + off[i], esize);
		memcpy(&now, s->mem + base + off[i], esize);
		memcpy(&add, (uint8_t *)origin + i * esize, esize);
		memcpy(&got, (uint8_t *)result + i * esize, esize);
		if (got != was || now != ((was + add) & (esize == 8 ? ~0ULL : 0xffffffffULL)))
			return -EIO;
		memcpy(before + base + off[i], s->mem + base + off[i], esize);
	}
	if (memcmp(before + 64, s->mem + 64, CANARY_LEN - 64))
		return -EIO;	/* something outside the layout changed */

	/* CAS on one element named by a block with a displacement */
	blk[0].disp = ((int64_t)below(64) - 32) * 8;
	blk[0].len = 8;
	base = 64 + 256 + below(CANARY_LEN - 64 - 512 - 8);
	memcpy(&cmp, s->mem + base + blk[0].disp, 8);
	nv = rnd();
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, base, &nv, &cmp, &old);
	op.target = mt_blocks(NULL, blk, 1, 1, 8);
	if (mt_rma1(s->mfd, s->win, &op) || old != cmp ||
	    memcmp(s->mem + base + blk[0].disp, &nv, 8))
		return -EIO;
	return 0;
}

void canary_check(struct worker *w)
{
	int ret = canary_check_one(w, &w->canary_alloc);

	if (!ret)
		ret = canary_check_one(w, &w->canary_user);
	if (!ret)
		ret = canary_layouts(&w->canary_alloc);
	if (!ret)
		ret = canary_layouts(&w->canary_user);
	if (!ret) {
		w->canary_count++;
		return;
	}
	w->st->canary_failures++;
	report(w, "canary after %" PRIu64 " calls: %d (%s)", w->st->calls, ret,
	       strerror(-ret));
}
