// SPDX-License-Identifier: GPL-2.0
/*
 * The values the mpirma tests feed the reductions (reference.h): random
 * ones from a seed, the interesting ones of each type (limits, zeros,
 * infinities, NaNs, denormals), and pairs for MAXLOC and MINLOC.
 */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "reference.h"
#include "ref_types.h"

uint64_t ref_rand(uint64_t *seed)
{
	/* xorshift64*: tiny, deterministic, good enough for test data */
	uint64_t x = *seed ? *seed : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*seed = x;
	return x * 0x2545f4914f6cdd1dull;
}

#define NR_INT_VALUES	8
#define NR_FP_VALUES	16
#define NR_INDEX_VALUES	5

/* Interesting integers of a width: 0, 1, -1, 2, -2, min, max, a pattern. */
static uint64_t int_value(unsigned int idx, unsigned int len)
{
	uint64_t mask = len == 8 ? ~0ull : (1ull << (8 * len)) - 1;
	uint64_t top = 1ull << (8 * len - 1);

	switch (idx) {
	case 0: return 0;
	case 1: return 1;
	case 2: return mask;			/* -1, unsigned max */
	case 3: return 2;
	case 4: return mask - 1;		/* -2 */
	case 5: return top;			/* signed min */
	case 6: return top - 1;			/* signed max */
	default: return 0x5a5a5a5a5a5a5a5aull & mask;
	}
}

/* Interesting floating-point values, in long double (exact for each). */
static long double fp_value(unsigned int idx, unsigned int kind)
{
	long double max, min, tmin;

	switch (kind) {
	case FK_F32:
		max = FLT_MAX; min = FLT_MIN; tmin = FLT_TRUE_MIN;
		break;
	case FK_F64:
		max = DBL_MAX; min = DBL_MIN; tmin = DBL_TRUE_MIN;
		break;
	default:
		max = LDBL_MAX; min = LDBL_MIN; tmin = LDBL_TRUE_MIN;
		break;
	}
	switch (idx) {
	case 0: return 0.0L;
	case 1: return -0.0L;
	case 2: return 1.0L;
	case 3: return -1.0L;
	case 4: return 0.5L;
	case 5: return 3.0L;
	case 6: return max;
	case 7: return -max;
	case 8: return min;
	case 9: return tmin;			/* smallest denormal */
	case 10: return -tmin * 3;		/* a negative denormal */
	case 11: return (long double)INFINITY;
	case 12: return -(long double)INFINITY;
	case 13: return (long double)NAN;
	case 14: return min / 2;		/* a larger denormal */
	default: return 1.0L / 3;		/* rounds differently per type */
	}
}

static void store_fp(uint8_t *p, const struct ref_field *f, long double v)
{
	switch (f->kind) {
	case FK_F32:
		st_f32(p, f, (float)v);
		break;
	case FK_F64:
		st_f64(p, f, (double)v);
		break;
	default:
		st_f80(p, f, v);
		break;
	}
}

/* A pair's index: an int, or a real of the value's type (2FLOAT, 2DOUBLE). */
static void store_index(uint8_t *p, const struct ref_field *f, int32_t v)
{
	if (f->kind == FK_INT)
		st_u(p, f, (uint32_t)v);
	else
		store_fp(p, f, v);
}

/* A random float field: half moderate values (ties, exact sums), half
 * arbitrary bit patterns with signalling NaNs made quiet.
 */
static void rand_fp(uint8_t *p, const struct ref_field *f, uint64_t *seed)
{
	uint64_t r = ref_rand(seed);

	if (r & 1) {
		store_fp(p, f, (long double)((int64_t)(r >> 1) % 2001 - 1000) / 8);
		return;
	}
	r = ref_rand(seed);
	switch (f->kind) {
	case FK_F32: {
		uint32_t v = r;

		if ((v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu))
			v |= 0x00400000u;
		memcpy(p + f->off, &v, 4);
		break;
	}
	case FK_F64:
		if ((r & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
		    (r & 0x000fffffffffffffull))
			r |= 0x0008000000000000ull;
		memcpy(p + f->off, &r, 8);
		break;
	default: {
		uint16_t e = ref_rand(seed);

		/* x87: the explicit integer bit is set exactly for normals */
		if (e & 0x7fff)
			r |= 1ull << 63;
		else
			r &= ~(1ull << 63);
		if ((e & 0x7fff) == 0x7fff && (r & 0x7fffffffffffffffull))
			r |= 1ull << 62;
		memcpy(p + f->off, &r, 8);
		memcpy(p + f->off + 8, &e, 2);
		break;
	}
	}
}

static void rand_field(uint8_t *p, const struct ref_field *f, uint64_t *seed)
{
	if (f->kind == FK_INT)
		st_u(p, f, ref_rand(seed));
	else
		rand_fp(p, f, seed);
}

size_t ref_ninteresting(unsigned int type)
{
	const struct ref_type *rt;

	if (type >= MPIRMA_NR_TYPES)
		return 0;
	rt = &ref_types[type];
	switch (rt->cls) {
	case RC_BOOL:
		return 2;
	case RC_BYTE:
	case RC_CHAR:
	case RC_INT:
		return NR_INT_VALUES;
	case RC_FP:
		return NR_FP_VALUES;
	case RC_CPLX:
		return 2 * NR_FP_VALUES;
	default:
		return (rt->f[0].kind == FK_INT ? NR_INT_VALUES : NR_FP_VALUES) *
		       NR_INDEX_VALUES;
	}
}

static void interesting_field(uint8_t *p, const struct ref_field *f,
			      unsigned int idx)
{
	if (f->kind == FK_INT)
		st_u(p, f, int_value(idx % NR_INT_VALUES, f->len));
	else
		store_fp(p, f, fp_value(idx % NR_FP_VALUES, f->kind));
}

/* Interesting value @idx of @rt at @p, its fields only. */
static void interesting_value(const struct ref_type *rt, size_t idx, uint8_t *p)
{
	static const int32_t index_values[NR_INDEX_VALUES] = {
		0, 1, -1, INT32_MIN, INT32_MAX,
	};
	size_t nv;

	switch (rt->cls) {
	case RC_BOOL:
		p[0] = idx;
		break;
	case RC_CPLX:
		/* first (x, 0) for every x, then mixed (y, x) */
		if (idx < NR_FP_VALUES) {
			interesting_field(p, &rt->f[0], idx);
			interesting_field(p, &rt->f[1], 0);
		} else {
			interesting_field(p, &rt->f[0], (idx * 7 + 3));
			interesting_field(p, &rt->f[1], idx - NR_FP_VALUES);
		}
		break;
	case RC_PAIR:
		nv = rt->f[0].kind == FK_INT ? NR_INT_VALUES : NR_FP_VALUES;
		interesting_field(p, &rt->f[0], idx % nv);
		store_index(p, &rt->f[1], index_values[idx / nv]);
		break;
	default:
		interesting_field(p, &rt->f[0], idx);
		break;
	}
}

/*
 * Every type's interesting values, made at its first use: computing them
 * again for each element (long doubles, which emulators run in software)
 * was most of the ops selftest's time in the VM.  A thread that finds the
 * table of a type being made by another computes its values itself.
 */
#define MEMO_VALUES	(NR_FP_VALUES * NR_INDEX_VALUES)	/* the most */
#define MEMO_SIZE	32					/* the largest */
static uint8_t memo[MPIRMA_NR_TYPES][MEMO_VALUES][MEMO_SIZE];
static int memo_state[MPIRMA_NR_TYPES];	/* 0 none, 1 being made, 2 made */

static const uint8_t *memo_value(unsigned int type, size_t idx)
{
	const struct ref_type *rt = &ref_types[type];
	size_t ni = ref_ninteresting(type), k;
	int none = 0;

	if (__atomic_load_n(&memo_state[type], __ATOMIC_ACQUIRE) == 2)
		return memo[type][idx];
	if (rt->size > MEMO_SIZE || ni > MEMO_VALUES ||
	    !__atomic_compare_exchange_n(&memo_state[type], &none, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return NULL;
	for (k = 0; k < ni; k++)
		interesting_value(rt, k, memo[type][k]);
	__atomic_store_n(&memo_state[type], 2, __ATOMIC_RELEASE);
	return memo[type][idx];
}

void ref_value(unsigned int type, size_t idx, uint64_t *seed, void *dst)
{
	const struct ref_type *rt;
	const uint8_t *v;
	uint8_t *p = dst;

	if (type >= MPIRMA_NR_TYPES)
		return;
	rt = &ref_types[type];

	if (idx >= ref_ninteresting(type)) {
		rand_field(p, &rt->f[0], seed);
		if (rt->nfields > 1)
			rand_field(p, &rt->f[1], seed);
		if (rt->cls == RC_BOOL)
			p[0] &= 1;
		else if (rt->cls == RC_PAIR && (ref_rand(seed) & 3) == 0)
			/* small indices, so ties pick between real candidates */
			store_index(p, &rt->f[1], ref_rand(seed) % 4);
		return;
	}
	v = memo_value(type, idx);
	if (!v) {
		interesting_value(rt, idx, p);
		return;
	}
	/* the fields alone: the caller's padding stays */
	copy_field(p, v, &rt->f[0]);
	if (rt->nfields > 1)
		copy_field(p, v, &rt->f[1]);
}

void ref_fill(unsigned int type, void *buf, size_t n, uint64_t *seed,
	      uint8_t pad)
{
	size_t size = ref_type_size(type), k;

	memset(buf, pad, n * size);
	for (k = 0; k < n; k++)
		ref_value(type, k, seed, (uint8_t *)buf + k * size);
}

void ref_fill_pairs(unsigned int type, void *tgt, void *src, size_t n,
		    uint64_t *seed, uint8_t tgt_pad, uint8_t src_pad)
{
	size_t size = ref_type_size(type), ni = ref_ninteresting(type), k;

	memset(tgt, tgt_pad, n * size);
	memset(src, src_pad, n * size);
	for (k = 0; k < n; k++) {
		uint8_t *t = (uint8_t *)tgt + k * size;
		uint8_t *s = (uint8_t *)src + k * size;

		if (k < ni * ni) {
			ref_value(type, k % ni, seed, t);
			ref_value(type, k / ni, seed, s);
		} else {
			ref_value(type, ni, seed, t);
			ref_value(type, ni, seed, s);
		}
	}
}

size_t ref_pairs_count(unsigned int type, size_t extra, size_t max)
{
	size_t ni = ref_ninteresting(type), n = ni * ni + extra;

	return n < max ? n : max;
}
