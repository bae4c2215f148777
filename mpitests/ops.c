// SPDX-License-Identifier: GPL-2.0
/*
 * ops: every predefined op on every predefined type through
 * MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op and
 * MPI_Compare_and_swap, against the selftests' independent reference
 * (selftests/lib/reference.c, written from the specification, not from the
 * kernel's reduce.c); and the same ops through MPI_Allreduce.
 *
 * The MPI op/type table (MPI 3.1, 5.9.2) decides what must work and what
 * must fail: a pair the table forbids must fail with MPI_ERR_OP and leave
 * the target untouched.  MPI_REPLACE works on every type, MPI_NO_OP only in
 * MPI_Get_accumulate and MPI_Fetch_and_op.
 *
 * Each rank targets its right neighbour, every op of one type and call in
 * one fence epoch, each op on a slot of its own (a forbidden op fails at
 * its call and leaves the epoch to the others).  The owner of the target
 * fills its window itself, padding bytes included, from a seed both sides
 * know; after the closing fence it checks every byte: values as the
 * reference computes them (selections bit for bit, arithmetic up to NaN
 * payloads) and padding exactly as it was (the peers' MAXLOC writing
 * padding is one of the bugs this looks for).  The origin checks what get_accumulate returned.
 * The values pair every "interesting" value of the type (0, -1, extremes,
 * -0.0, inf, NaN, denormals...) with every other.  Windows alternate
 * between MPI_Win_allocate and MPI_Win_create memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mtest.h"
#include "reference.h"

#define MAXN	256		/* elements per operation */
#define ELEM	32		/* largest element */
#define TPAD	0xa5
#define SPAD	0x3c

enum cat { C_INT, C_FINT, C_FP, C_CPLX, C_LOG, C_BYTE, C_MULTI, C_PAIR, C_NONE };

struct mtype {
	const char *name;
	MPI_Datatype t;
	unsigned int kt;	/* the kernel/reference type */
	enum cat cat;
};

#define T(t, kt, cat)	{ #t, t, MPIRMA_TYPE_##kt, cat }
static struct mtype mtypes[] = {
	T(MPI_CHAR, CHAR, C_NONE),
	T(MPI_SIGNED_CHAR, INT8, C_INT),
	T(MPI_UNSIGNED_CHAR, UINT8, C_INT),
	T(MPI_BYTE, BYTE, C_BYTE),
	T(MPI_WCHAR, WCHAR, C_NONE),
	T(MPI_SHORT, INT16, C_INT),
	T(MPI_UNSIGNED_SHORT, UINT16, C_INT),
	T(MPI_INT, INT32, C_INT),
	T(MPI_UNSIGNED, UINT32, C_INT),
	T(MPI_LONG, INT64, C_INT),
	T(MPI_UNSIGNED_LONG, UINT64, C_INT),
	T(MPI_LONG_LONG, INT64, C_INT),
	T(MPI_UNSIGNED_LONG_LONG, UINT64, C_INT),
	T(MPI_FLOAT, FLOAT, C_FP),
	T(MPI_DOUBLE, DOUBLE, C_FP),
	T(MPI_LONG_DOUBLE, LONG_DOUBLE, C_FP),
	T(MPI_C_BOOL, BOOL, C_LOG),
	T(MPI_INT8_T, INT8, C_INT),
	T(MPI_INT16_T, INT16, C_INT),
	T(MPI_INT32_T, INT32, C_INT),
	T(MPI_INT64_T, INT64, C_INT),
	T(MPI_UINT8_T, UINT8, C_INT),
	T(MPI_UINT16_T, UINT16, C_INT),
	T(MPI_UINT32_T, UINT32, C_INT),
	T(MPI_UINT64_T, UINT64, C_INT),
	T(MPI_AINT, INT64, C_MULTI),
	T(MPI_OFFSET, INT64, C_MULTI),
	T(MPI_COUNT, INT64, C_MULTI),
	T(MPI_C_FLOAT_COMPLEX, C_FLOAT_COMPLEX, C_CPLX),
	T(MPI_C_DOUBLE_COMPLEX, C_DOUBLE_COMPLEX, C_CPLX),
	T(MPI_C_LONG_DOUBLE_COMPLEX, C_LONG_DOUBLE_COMPLEX, C_CPLX),
	T(MPI_FLOAT_INT, FLOAT_INT, C_PAIR),
	T(MPI_DOUBLE_INT, DOUBLE_INT, C_PAIR),
	T(MPI_LONG_INT, LONG_INT, C_PAIR),
	T(MPI_2INT, 2INT, C_PAIR),
	T(MPI_SHORT_INT, SHORT_INT, C_PAIR),
	T(MPI_LONG_DOUBLE_INT, LONG_DOUBLE_INT, C_PAIR),
	T(MPI_CXX_BOOL, BOOL, C_LOG),
	T(MPI_CXX_DOUBLE_COMPLEX, C_DOUBLE_COMPLEX, C_CPLX),
	T(MPI_INTEGER, INT32, C_FINT),
	T(MPI_INTEGER8, INT64, C_FINT),
	T(MPI_REAL, FLOAT, C_FP),
	T(MPI_DOUBLE_PRECISION, DOUBLE, C_FP),
	T(MPI_LOGICAL, INT32, C_LOG),
	T(MPI_COMPLEX, C_FLOAT_COMPLEX, C_CPLX),
	T(MPI_2INTEGER, 2INT, C_PAIR),
};
#undef T
#define NTYPES	(int)(sizeof(mtypes) / sizeof(mtypes[0]))

struct mop {
	const char *name;
	MPI_Op op;
	unsigned int kop;
};

#define O(o, k)	{ #o, o, MPIRMA_OP_##k }
static const struct mop mops[] = {
	O(MPI_MAX, MAX), O(MPI_MIN, MIN), O(MPI_SUM, SUM), O(MPI_PROD, PROD),
	O(MPI_LAND, LAND), O(MPI_LOR, LOR), O(MPI_LXOR, LXOR),
	O(MPI_BAND, BAND), O(MPI_BOR, BOR), O(MPI_BXOR, BXOR),
	O(MPI_MAXLOC, MAXLOC), O(MPI_MINLOC, MINLOC),
	O(MPI_REPLACE, REPLACE), O(MPI_NO_OP, NO_OP),
};
#undef O
#define NOPS	(int)(sizeof(mops) / sizeof(mops[0]))

enum verdict { FORBIDDEN, ALLOWED, EITHER };
/*
 * K_FEW, K_FEW_ACC: a get_accumulate, an accumulate of a few elements (the
 * direct path's short runs, lib/rma/rma_lean.c)
 */
enum kind { K_ACC, K_GET_ACC, K_FOP, K_FEW, K_FEW_ACC, NKINDS };
static const char *const kind_name[] = { "MPI_Accumulate",
					 "MPI_Get_accumulate",
					 "MPI_Fetch_and_op",
					 "MPI_Get_accumulate (5 elements)",
					 "MPI_Accumulate (5 elements)" };

/* The standard's table for accumulate-like calls. */
static enum verdict allowed(const struct mop *o, const struct mtype *t,
			    enum kind kind)
{
	enum cat c = t->cat;

	switch (o->kop) {
	case MPIRMA_OP_REPLACE:
		return ALLOWED;
	case MPIRMA_OP_NO_OP:
		return kind == K_ACC || kind == K_FEW_ACC ? FORBIDDEN :
							    ALLOWED;
	case MPIRMA_OP_MAX:
	case MPIRMA_OP_MIN:
		return c == C_INT || c == C_FINT || c == C_FP || c == C_MULTI;
	case MPIRMA_OP_SUM:
	case MPIRMA_OP_PROD:
		return c == C_INT || c == C_FINT || c == C_FP || c == C_CPLX ||
		       c == C_MULTI;
	case MPIRMA_OP_LAND:
	case MPIRMA_OP_LOR:
	case MPIRMA_OP_LXOR:
		/* MPI 3.1 leaves the multi-language types out; MPI 2.2
		 * counted MPI_AINT and MPI_OFFSET as C integers: either is
		 * accepted here
		 */
		if (c == C_MULTI)
			return EITHER;
		return c == C_INT || c == C_LOG;
	case MPIRMA_OP_BAND:
	case MPIRMA_OP_BOR:
	case MPIRMA_OP_BXOR:
		return c == C_INT || c == C_FINT || c == C_BYTE || c == C_MULTI;
	case MPIRMA_OP_MAXLOC:
	case MPIRMA_OP_MINLOC:
		return c == C_PAIR;
	}
	return FORBIDDEN;
}

/* The same seed on the origin and on the owner of the target. */
static uint64_t seed_of(int ti, int oi, int kind, int owner)
{
	return 0x9e3779b97f4a7c15ULL * (1 + ti) ^ (uint64_t)oi << 40 ^
	       (uint64_t)kind << 48 ^ (uint64_t)owner << 52;
}

static size_t pairs_n(const struct mtype *t)
{
	return ref_pairs_count(t->kt, 16, MAXN);
}

static size_t case_n(const struct mtype *t, enum kind kind)
{
	return kind == K_FOP ? 1 :
	       kind == K_FEW || kind == K_FEW_ACC ? 5 : pairs_n(t);
}

/*
 * What the owner starts with and what the origin adds, for one case.
 * Fetch_and_op takes one element: a different pair for each type and op.
 */
static void case_data(int ti, int oi, int kind, int owner, size_t n,
		      uint8_t *tgt, uint8_t *src)
{
	static uint8_t t_all[MAXN * ELEM], s_all[MAXN * ELEM];
	const struct mtype *t = &mtypes[ti];
	uint64_t seed = seed_of(ti, oi, kind, owner);
	size_t size = ref_type_size(t->kt), all = pairs_n(t), j;

	if (kind != K_FOP) {
		ref_fill_pairs(t->kt, tgt, src, n, &seed, TPAD, SPAD);
		return;
	}
	ref_fill_pairs(t->kt, t_all, s_all, all, &seed, TPAD, SPAD);
	j = (size_t)(oi * 7 + ti * 3) % all;
	memcpy(tgt, t_all + j * size, size);
	memcpy(src, s_all + j * size, size);
}

static void describe(char *buf, size_t len, const struct mtype *t,
		     const uint8_t *e)
{
	ref_format(t->kt, e, buf, len);
}

/* Each op's part of a window: the largest case of any type. */
#define SLOT	(MAXN * ELEM)

/*
 * The origin's part of one case: op @oi on my right neighbour's slot, from
 * @src, into @res; @old gets what the slot held before (what a
 * get_accumulate must return).
 */
static void acc_issue(MPI_Win win, int ti, int oi, enum kind kind,
		      uint8_t *src, uint8_t *old, uint8_t *res)
{
	const struct mtype *t = &mtypes[ti];
	const struct mop *o = &mops[oi];
	size_t size = ref_type_size(t->kt), n = case_n(t, kind);
	MPI_Aint disp = (MPI_Aint)oi * SLOT;
	int right = (mtest_rank + 1) % mtest_size;
	enum verdict v = allowed(o, t, kind);
	int rc;

	case_data(ti, oi, kind, right, n, old, src);
	memset(res, 0x5a, n * size);
	switch (kind) {
	case K_ACC:
	case K_FEW_ACC:
		rc = MPI_Accumulate(src, n, t->t, right, disp, n, t->t, o->op,
				    win);
		break;
	case K_GET_ACC:
	case K_FEW:
		rc = MPI_Get_accumulate(src, n, t->t, res, n, t->t, right, disp,
					n, t->t, o->op, win);
		break;
	default:
		rc = MPI_Fetch_and_op(src, res, t->t, right, disp, o->op, win);
		break;
	}
	if (v == ALLOWED)
		CHECK(rc == MPI_SUCCESS, "%s(%s, %s): %s", kind_name[kind],
		      t->name, o->name, mtest_class_name(mtest_class(rc)));
	else if (v == FORBIDDEN)
		CHECK(mtest_class(rc) == MPI_ERR_OP,
		      "%s(%s, %s): %s, want MPI_ERR_OP", kind_name[kind], t->name,
		      o->name, mtest_class_name(mtest_class(rc)));
}

/* The origin's check of one case: get_accumulate returned @old. */
static void acc_check_result(int ti, int oi, enum kind kind,
			     const uint8_t *old, const uint8_t *res)
{
	const struct mtype *t = &mtypes[ti];
	const struct mop *o = &mops[oi];
	size_t size = ref_type_size(t->kt), n = case_n(t, kind), k;
	char a[96], b[96];

	if (kind == K_ACC || kind == K_FEW_ACC ||
	    allowed(o, t, kind) != ALLOWED)
		return;
	for (k = 0; k < n; k++) {
		const uint8_t *g = res + k * size, *w = old + k * size;

		if (!ref_same_bits(t->kt, g, w)) {
			describe(a, sizeof(a), t, g);
			describe(b, sizeof(b), t, w);
			CHECK(0, "%s(%s, %s): result %zu = %s, want %s",
			      kind_name[kind], t->name, o->name, k, a, b);
			return;
		}
	}
}

/* The owner's check of one case: what my left neighbour did to my slot. */
static void acc_check_target(int ti, int oi, enum kind kind, const uint8_t *mem)
{
	static uint8_t tgt[SLOT], src[SLOT], want[SLOT];
	const struct mtype *t = &mtypes[ti];
	const struct mop *o = &mops[oi];
	size_t size = ref_type_size(t->kt), n = case_n(t, kind), k;
	int left = (mtest_rank + mtest_size - 1) % mtest_size;
	enum verdict v = allowed(o, t, kind);
	char a[96], b[96], c[96];

	case_data(ti, oi, kind, mtest_rank, n, tgt, src);
	memcpy(want, tgt, n * size);
	if (v != FORBIDDEN)
		ref_reduce(t->kt, o->kop, want, src, NULL, n);
	for (k = 0; k < n; k++) {
		const uint8_t *g = mem + k * size, *w = want + k * size;
		const uint8_t *orig = tgt + k * size, *s = src + k * size;
		bool ok = ref_result_ok(t->kt, o->kop, g, w, orig, s);

		/* EITHER: untouched is fine too */
		if (!ok && v == EITHER)
			ok = !memcmp(g, orig, size);
		if (v == FORBIDDEN)
			ok = !memcmp(g, orig, size);
		if (!ok) {
			describe(a, sizeof(a), t, orig);
			describe(b, sizeof(b), t, s);
			describe(c, sizeof(c), t, g);
			CHECK(0, "%s(%s, %s) from rank %d: element %zu: %s op %s "
			      "gave %s%s", kind_name[kind], t->name, o->name, left,
			      k, a, b, c,
			      ref_same_padding(t->kt, g, orig) ? "" :
			      " (padding changed)");
			return;
		}
	}
}

/*
 * Every op on one type in one kind, in one fence epoch over the window
 * @win whose memory is @mem: op i on slot i.  (Two fences a case took 9 of
 * the 14 s of ops+coll at 2 logical nodes under a host; now 4-5.)
 */
static void acc_epoch(MPI_Win win, uint8_t *mem, int ti, enum kind kind)
{
	static uint8_t src[NOPS][SLOT], old[NOPS][SLOT], res[NOPS][SLOT];
	static uint8_t scratch[SLOT];
	size_t n = case_n(&mtypes[ti], kind);
	int oi, rc;

	/* the owner's part: my window, from my seed */
	for (oi = 0; oi < NOPS; oi++)
		case_data(ti, oi, kind, mtest_rank, n, mem + oi * SLOT, scratch);
	MPI_Win_fence(0, win);
	for (oi = 0; oi < NOPS; oi++)
		acc_issue(win, ti, oi, kind, src[oi], old[oi], res[oi]);
	rc = MPI_Win_fence(0, win);
	CHECK(rc == MPI_SUCCESS, "fence after the %s of %s: %s",
	      kind_name[kind], mtypes[ti].name,
	      mtest_class_name(mtest_class(rc)));
	for (oi = 0; oi < NOPS; oi++) {
		acc_check_result(ti, oi, kind, old[oi], res[oi]);
		acc_check_target(ti, oi, kind, mem + oi * SLOT);
	}
}

static void test_accumulate(void)
{
	MPI_Win win_alloc, win_create;
	uint8_t *mem_alloc, *mem_create;
	int ti, kind;

	mtest_section("accumulate");
	CHECK_MPI(MPI_Win_allocate(NOPS * SLOT, 1, MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem_alloc, &win_alloc));
	mem_create = malloc(NOPS * SLOT);
	CHECK_MPI(MPI_Win_create(mem_create, NOPS * SLOT, 1, MPI_INFO_NULL,
				 MPI_COMM_WORLD, &win_create));
	MPI_Win_set_errhandler(win_alloc, MPI_ERRORS_RETURN);
	MPI_Win_set_errhandler(win_create, MPI_ERRORS_RETURN);

	for (ti = 0; ti < NTYPES; ti++)
		for (kind = 0; kind < NKINDS; kind++) {
			/* few elements: the other flavor too */
			if ((ti + (kind == K_FEW || kind == K_FEW_ACC)) % 2)
				acc_epoch(win_create, mem_create, ti, kind);
			else
				acc_epoch(win_alloc, mem_alloc, ti, kind);
		}
	CHECK_MPI(MPI_Win_free(&win_create));
	CHECK_MPI(MPI_Win_free(&win_alloc));
	free(mem_create);
}

/* CAS: integers, logicals, bytes, multi-language types; nothing else. */
static void test_cas(void)
{
	uint8_t *mem, v0[ELEM], v1[ELEM], other[ELEM], res[ELEM], want[ELEM];
	int right = (mtest_rank + 1) % mtest_size, ti, phase, rc;
	MPI_Win win;

	mtest_section("compare_and_swap");
	CHECK_MPI(MPI_Win_allocate(ELEM, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
				   &win));
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	for (ti = 0; ti < NTYPES; ti++) {
		const struct mtype *t = &mtypes[ti];
		size_t size = ref_type_size(t->kt);
		bool ok_type = t->cat == C_INT || t->cat == C_FINT ||
			       t->cat == C_LOG || t->cat == C_BYTE ||
			       t->cat == C_MULTI;
		uint64_t seed = 77 + ti;

		/* the same three values everywhere */
		ref_fill(t->kt, v0, 1, &seed, 0);
		ref_value(t->kt, 3, &seed, v1);
		memcpy(other, v0, size);
		other[0] ^= 1;	/* differs from v0 in a value byte */
		for (phase = 0; phase < 2; phase++) {
			/* phase 0: compare with v0, swaps; 1: does not */
			memcpy(mem, phase ? v1 : v0, size);
			MPI_Win_fence(0, win);
			memset(res, 0x5a, size);
			rc = MPI_Compare_and_swap(phase ? v0 : v1,
						  phase ? other : v0, res, t->t,
						  right, 0, win);
			MPI_Win_fence(0, win);
			if (!ok_type) {
				CHECK(mtest_class(rc) == MPI_ERR_TYPE ||
				      mtest_class(rc) == MPI_ERR_OP,
				      "CAS(%s): %s, want MPI_ERR_TYPE", t->name,
				      mtest_class_name(mtest_class(rc)));
				CHECK(!memcmp(mem, phase ? v1 : v0, size),
				      "CAS(%s) refused but changed the target",
				      t->name);
				continue;
			}
			CHECK(rc == MPI_SUCCESS, "CAS(%s): %s", t->name,
			      mtest_class_name(mtest_class(rc)));
			/* my window after my left neighbour's CAS */
			memcpy(want, v1, size);
			CHECK(!memcmp(mem, want, size), "CAS(%s) phase %d: target "
			      "wrong", t->name, phase);
			CHECK(!memcmp(res, phase ? v1 : v0, size),
			      "CAS(%s) phase %d: old value wrong", t->name, phase);
		}
	}
	CHECK_MPI(MPI_Win_free(&win));
}

/* Reductions: the same table, the same reference, for integer-like types
 * (floating point folds in a different order than the reference).
 */
#ifdef MPIRMA
static void test_allreduce(void)
{
	static uint8_t mine[64 * ELEM], got[64 * ELEM], want[64 * ELEM],
		       other[64 * ELEM];
	int ti, oi, r, rc;
	size_t n = 40, k;

	mtest_section("allreduce");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (ti = 0; ti < NTYPES; ti++) {
		const struct mtype *t = &mtypes[ti];
		size_t size = ref_type_size(t->kt);
		bool exact = t->cat == C_INT || t->cat == C_FINT ||
			     t->cat == C_LOG || t->cat == C_BYTE ||
			     t->cat == C_MULTI ||
			     (t->cat == C_PAIR && (t->kt == MPIRMA_TYPE_2INT ||
						   t->kt == MPIRMA_TYPE_LONG_INT ||
						   t->kt == MPIRMA_TYPE_SHORT_INT));

		if (!exact)
			continue;
		for (oi = 0; oi < NOPS; oi++) {
			const struct mop *o = &mops[oi];
			uint64_t seed;

			/* REPLACE and NO_OP are RMA-only */
			if (o->kop == MPIRMA_OP_REPLACE ||
			    o->kop == MPIRMA_OP_NO_OP ||
			    allowed(o, t, K_ACC) != ALLOWED)
				continue;
			seed = seed_of(ti, oi, 9, mtest_rank);
			ref_fill(t->kt, mine, n, &seed, 0);
			memset(got, 0, n * size);
			rc = MPI_Allreduce(mine, got, n, t->t, o->op,
					   MPI_COMM_WORLD);
			if (!CHECK(rc == MPI_SUCCESS, "MPI_Allreduce(%s, %s): %s",
				   t->name, o->name,
				   mtest_class_name(mtest_class(rc))))
				continue;
			/* rank order fold: ((v0 op v1) op v2) ... */
			seed = seed_of(ti, oi, 9, 0);
			ref_fill(t->kt, want, n, &seed, 0);
			for (r = 1; r < mtest_size; r++) {
				seed = seed_of(ti, oi, 9, r);
				ref_fill(t->kt, other, n, &seed, 0);
				ref_reduce(t->kt, o->kop, want, other, NULL, n);
			}
			for (k = 0; k < n; k++)
				if (!ref_equal(t->kt, got + k * size,
					       want + k * size)) {
					char a[96], b[96];

					describe(a, sizeof(a), t, got + k * size);
					describe(b, sizeof(b), t, want + k * size);
					CHECK(0, "MPI_Allreduce(%s, %s): element "
					      "%zu = %s, want %s", t->name,
					      o->name, k, a, b);
					break;
				}
		}
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}
#endif

/*
 * MPI_CHAR and MPI_WCHAR compute as the platform's char and wchar_t, as
 * Open MPI and MPICH take them, unless MPIRMA_STRICT_TYPES=1 keeps the
 * standard's table (REPLACE and NO_OP only).
 */
static void chars_as_ints(void)
{
	const char *v = getenv("MPIRMA_STRICT_TYPES");
	int i;

	if (v && !strcmp(v, "1"))
		return;
	for (i = 0; i < NTYPES; i++) {
		if (mtypes[i].t == MPI_CHAR)
			mtypes[i].kt = (char)-1 < 0 ? MPIRMA_TYPE_INT8 :
						      MPIRMA_TYPE_UINT8;
		else if (mtypes[i].t == MPI_WCHAR)
			mtypes[i].kt = (wchar_t)-1 < 0 ? MPIRMA_TYPE_INT32 :
							 MPIRMA_TYPE_UINT32;
		else
			continue;
		mtypes[i].cat = C_INT;
	}
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "ops");
	chars_as_ints();
	test_accumulate();
	test_cas();
#ifdef MPIRMA
	/* Collectives are the host's under the hybrid layer: not ours to test. */
	test_allreduce();
#endif
	return mtest_finish();
}
