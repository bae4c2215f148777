// SPDX-License-Identifier: GPL-2.0
/*
 * Reference reductions for the mpirma tests; see reference.h.  The values
 * the tests feed them are ref_values.c's.
 *
 * Every type is described as one or two fields (offset, length, kind); the
 * bytes outside the fields are padding.  Arithmetic is done on loaded
 * copies, results are stored field by field, so padding is never written
 * (except by REPLACE, which copies the element).  Floating point follows
 * the C types of the ABI: float in float, double in double, long double in
 * x87 extended precision; products of complex numbers go through volatile
 * temporaries so that no compiler may fuse them into an FMA.
 */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"
#include "ref_types.h"

#define I(o, l, s)	{ .off = (o), .len = (l), .kind = FK_INT, .sgn = (s) }
#define F(o, k)		{ .off = (o), .len = (k) == FK_F32 ? 4 : \
				(k) == FK_F64 ? 8 : 10, .kind = (k) }

const struct ref_type ref_types[MPIRMA_NR_TYPES] = {
	[MPIRMA_TYPE_BYTE]	= { "BYTE", 1, RC_BYTE, 1, { I(0, 1, false) } },
	[MPIRMA_TYPE_CHAR]	= { "CHAR", 1, RC_CHAR, 1, { I(0, 1, true) } },
	[MPIRMA_TYPE_WCHAR]	= { "WCHAR", 4, RC_CHAR, 1, { I(0, 4, true) } },
	[MPIRMA_TYPE_BOOL]	= { "BOOL", 1, RC_BOOL, 1, { I(0, 1, false) } },
	[MPIRMA_TYPE_INT8]	= { "INT8", 1, RC_INT, 1, { I(0, 1, true) } },
	[MPIRMA_TYPE_UINT8]	= { "UINT8", 1, RC_INT, 1, { I(0, 1, false) } },
	[MPIRMA_TYPE_INT16]	= { "INT16", 2, RC_INT, 1, { I(0, 2, true) } },
	[MPIRMA_TYPE_UINT16]	= { "UINT16", 2, RC_INT, 1, { I(0, 2, false) } },
	[MPIRMA_TYPE_INT32]	= { "INT32", 4, RC_INT, 1, { I(0, 4, true) } },
	[MPIRMA_TYPE_UINT32]	= { "UINT32", 4, RC_INT, 1, { I(0, 4, false) } },
	[MPIRMA_TYPE_INT64]	= { "INT64", 8, RC_INT, 1, { I(0, 8, true) } },
	[MPIRMA_TYPE_UINT64]	= { "UINT64", 8, RC_INT, 1, { I(0, 8, false) } },
	[MPIRMA_TYPE_FLOAT]	= { "FLOAT", 4, RC_FP, 1, { F(0, FK_F32) } },
	[MPIRMA_TYPE_DOUBLE]	= { "DOUBLE", 8, RC_FP, 1, { F(0, FK_F64) } },
	[MPIRMA_TYPE_LONG_DOUBLE] = { "LONG_DOUBLE", 16, RC_FP, 1,
				      { F(0, FK_F80) } },
	[MPIRMA_TYPE_C_FLOAT_COMPLEX] = { "C_FLOAT_COMPLEX", 8, RC_CPLX, 2,
					  { F(0, FK_F32), F(4, FK_F32) } },
	[MPIRMA_TYPE_C_DOUBLE_COMPLEX] = { "C_DOUBLE_COMPLEX", 16, RC_CPLX, 2,
					   { F(0, FK_F64), F(8, FK_F64) } },
	[MPIRMA_TYPE_C_LONG_DOUBLE_COMPLEX] = { "C_LONG_DOUBLE_COMPLEX", 32,
						RC_CPLX, 2,
						{ F(0, FK_F80), F(16, FK_F80) } },
	[MPIRMA_TYPE_FLOAT_INT]	= { "FLOAT_INT", 8, RC_PAIR, 2,
				    { F(0, FK_F32), I(4, 4, true) } },
	[MPIRMA_TYPE_DOUBLE_INT] = { "DOUBLE_INT", 16, RC_PAIR, 2,
				     { F(0, FK_F64), I(8, 4, true) } },
	[MPIRMA_TYPE_LONG_INT]	= { "LONG_INT", 16, RC_PAIR, 2,
				    { I(0, 8, true), I(8, 4, true) } },
	[MPIRMA_TYPE_2INT]	= { "2INT", 8, RC_PAIR, 2,
				    { I(0, 4, true), I(4, 4, true) } },
	[MPIRMA_TYPE_SHORT_INT]	= { "SHORT_INT", 8, RC_PAIR, 2,
				    { I(0, 2, true), I(4, 4, true) } },
	[MPIRMA_TYPE_LONG_DOUBLE_INT] = { "LONG_DOUBLE_INT", 32, RC_PAIR, 2,
					  { F(0, FK_F80), I(16, 4, true) } },
	[MPIRMA_TYPE_2FLOAT]	= { "2FLOAT", 8, RC_PAIR, 2,
				    { F(0, FK_F32), F(4, FK_F32) } },
	[MPIRMA_TYPE_2DOUBLE]	= { "2DOUBLE", 16, RC_PAIR, 2,
				    { F(0, FK_F64), F(8, FK_F64) } },
};

#undef I
#undef F

static const char *const ref_op_names[MPIRMA_NR_OPS] = {
	"REPLACE", "NO_OP", "MAX", "MIN", "SUM", "PROD", "LAND", "LOR",
	"LXOR", "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC",
};

static const char *const ref_kind_names[MPIRMA_NR_KINDS] = {
	"PUT", "GET", "ACC", "GET_ACC", "CAS",
};

const char *ref_type_name(unsigned int type)
{
	return type < MPIRMA_NR_TYPES ? ref_types[type].name : "?";
}

const char *ref_op_name(unsigned int op)
{
	return op < MPIRMA_NR_OPS ? ref_op_names[op] : "?";
}

const char *ref_kind_name(unsigned int kind)
{
	return kind < MPIRMA_NR_KINDS ? ref_kind_names[kind] : "?";
}

size_t ref_type_size(unsigned int type)
{
	return type < MPIRMA_NR_TYPES ? ref_types[type].size : 0;
}

bool ref_is_value_byte(unsigned int type, size_t off)
{
	const struct ref_type *t;
	unsigned int i;

	if (type >= MPIRMA_NR_TYPES)
		return false;
	t = &ref_types[type];
	for (i = 0; i < t->nfields; i++)
		if (off >= t->f[i].off && off < (size_t)t->f[i].off + t->f[i].len)
			return true;
	return false;
}

bool ref_has_padding(unsigned int type)
{
	const struct ref_type *t;
	unsigned int i, bytes = 0;

	if (type >= MPIRMA_NR_TYPES)
		return false;
	t = &ref_types[type];
	for (i = 0; i < t->nfields; i++)
		bytes += t->f[i].len;
	return bytes != t->size;
}

static bool is_c_integer(unsigned int type)
{
	return type < MPIRMA_NR_TYPES && ref_types[type].cls == RC_INT;
}

bool ref_op_allowed(unsigned int op, unsigned int type)
{
	if (type >= MPIRMA_NR_TYPES)
		return false;

	switch (op) {
	case MPIRMA_OP_REPLACE:
	case MPIRMA_OP_NO_OP:
		return true;
	case MPIRMA_OP_MAX:
	case MPIRMA_OP_MIN:
		return is_c_integer(type) || ref_types[type].cls == RC_FP;
	case MPIRMA_OP_SUM:
	case MPIRMA_OP_PROD:
		return is_c_integer(type) || ref_types[type].cls == RC_FP ||
		       ref_types[type].cls == RC_CPLX;
	case MPIRMA_OP_LAND:
	case MPIRMA_OP_LOR:
	case MPIRMA_OP_LXOR:
		return is_c_integer(type) || type == MPIRMA_TYPE_BOOL;
	case MPIRMA_OP_BAND:
	case MPIRMA_OP_BOR:
	case MPIRMA_OP_BXOR:
		return is_c_integer(type) || type == MPIRMA_TYPE_BYTE;
	case MPIRMA_OP_MAXLOC:
	case MPIRMA_OP_MINLOC:
		return ref_types[type].cls == RC_PAIR;
	default:
		return false;
	}
}

uint64_t ref_op_type_mask(unsigned int op)
{
	uint64_t mask = 0;
	unsigned int t;

	for (t = 0; t < MPIRMA_NR_TYPES; t++)
		if (ref_op_allowed(op, t))
			mask |= 1ULL << t;
	return mask;
}

bool ref_cas_allowed(unsigned int type)
{
	return is_c_integer(type) || type == MPIRMA_TYPE_BOOL ||
	       type == MPIRMA_TYPE_BYTE;
}

/* Three-way compare of field values: 1 when s > t, -1 when s < t, 0 when
 * equal, 2 when unordered (a NaN).
 */
static int cmp_field(const uint8_t *t, const uint8_t *s,
		     const struct ref_field *f)
{
	switch (f->kind) {
	case FK_INT:
		if (f->sgn) {
			int64_t a = ld_s(t, f), b = ld_s(s, f);

			return b > a ? 1 : b < a ? -1 : 0;
		} else {
			uint64_t a = ld_u(t, f), b = ld_u(s, f);

			return b > a ? 1 : b < a ? -1 : 0;
		}
	case FK_F32: {
		float a = ld_f32(t, f), b = ld_f32(s, f);

		return b > a ? 1 : b < a ? -1 : b == a ? 0 : 2;
	}
	case FK_F64: {
		double a = ld_f64(t, f), b = ld_f64(s, f);

		return b > a ? 1 : b < a ? -1 : b == a ? 0 : 2;
	}
	default: {
		long double a = ld_f80(t, f), b = ld_f80(s, f);

		return b > a ? 1 : b < a ? -1 : b == a ? 0 : 2;
	}
	}
}

/* MAX and MIN, for every kind of field: true if @op was one of them. */
static bool minmax_reduce(unsigned int op, uint8_t *t, const uint8_t *s,
			  const struct ref_field *f)
{
	switch (op) {
	case MPIRMA_OP_MAX:
		if (cmp_field(t, s, f) == 1)
			copy_field(t, s, f);
		return true;
	case MPIRMA_OP_MIN:
		if (cmp_field(t, s, f) == -1)
			copy_field(t, s, f);
		return true;
	}
	return false;
}

static void int_reduce(unsigned int op, uint8_t *t, const uint8_t *s,
		       const struct ref_field *f)
{
	uint64_t a = ld_u(t, f), b = ld_u(s, f);

	if (minmax_reduce(op, t, s, f))
		return;
	switch (op) {
	case MPIRMA_OP_SUM:
		st_u(t, f, a + b);	/* wraps: unsigned arithmetic */
		return;
	case MPIRMA_OP_PROD:
		st_u(t, f, a * b);	/* the low bits are the same */
		return;
	case MPIRMA_OP_LAND:
		st_u(t, f, a != 0 && b != 0);
		return;
	case MPIRMA_OP_LOR:
		st_u(t, f, a != 0 || b != 0);
		return;
	case MPIRMA_OP_LXOR:
		st_u(t, f, (a != 0) != (b != 0));
		return;
	case MPIRMA_OP_BAND:
		st_u(t, f, a & b);
		return;
	case MPIRMA_OP_BOR:
		st_u(t, f, a | b);
		return;
	case MPIRMA_OP_BXOR:
		st_u(t, f, a ^ b);
		return;
	}
}

static void fp_reduce(unsigned int op, uint8_t *t, const uint8_t *s,
		      const struct ref_field *f)
{
	if (minmax_reduce(op, t, s, f))
		return;

	switch (f->kind) {
	case FK_F32: {
		float a = ld_f32(t, f), b = ld_f32(s, f);

		st_f32(t, f, op == MPIRMA_OP_SUM ? a + b : a * b);
		return;
	}
	case FK_F64: {
		double a = ld_f64(t, f), b = ld_f64(s, f);

		st_f64(t, f, op == MPIRMA_OP_SUM ? a + b : a * b);
		return;
	}
	default: {
		long double a = ld_f80(t, f), b = ld_f80(s, f);

		st_f80(t, f, op == MPIRMA_OP_SUM ? a + b : a * b);
		return;
	}
	}
}

/*
 * (a + bi)(c + di) = (ac - bd) + (ad + bc)i, each product rounded to the
 * type before the sum (volatile: no contraction into an FMA).
 */
#define CPLX_PROD(T, ld, st) do {					\
	T a = ld(t, &f[0]), b = ld(t, &f[1]);				\
	T c = ld(s, &f[0]), d = ld(s, &f[1]);				\
	volatile T ac = a * c, bd = b * d, ad = a * d, bc = b * c;	\
	st(t, &f[0], ac - bd);						\
	st(t, &f[1], ad + bc);						\
} while (0)

static void cplx_reduce(unsigned int op, uint8_t *t, const uint8_t *s,
			const struct ref_field *f)
{
	if (op == MPIRMA_OP_SUM) {
		fp_reduce(op, t, s, &f[0]);
		fp_reduce(op, t, s, &f[1]);
		return;
	}
	switch (f[0].kind) {
	case FK_F32:
		CPLX_PROD(float, ld_f32, st_f32);
		break;
	case FK_F64:
		CPLX_PROD(double, ld_f64, st_f64);
		break;
	default:
		CPLX_PROD(long double, ld_f80, st_f80);
		break;
	}
}

static void pair_reduce(unsigned int op, uint8_t *t, const uint8_t *s,
			const struct ref_field *f)
{
	int c = cmp_field(t, s, &f[0]);
	int better = op == MPIRMA_OP_MAXLOC ? 1 : -1;

	if (c == better) {
		copy_field(t, s, &f[0]);
		copy_field(t, s, &f[1]);
	} else if (c == 0) {
		/* tie: keep the target's value bits, take the smaller index
		 * (an int, or of the value's type for the Fortran pairs)
		 */
		if (cmp_field(t, s, &f[1]) == -1)
			copy_field(t, s, &f[1]);
	}
}

static void reduce_one(unsigned int type, unsigned int op, uint8_t *t,
		       const uint8_t *s)
{
	const struct ref_type *rt = &ref_types[type];

	if (op == MPIRMA_OP_NO_OP)
		return;
	if (op == MPIRMA_OP_REPLACE) {
		memcpy(t, s, rt->size);
		return;
	}
	switch (rt->cls) {
	case RC_BYTE:
	case RC_BOOL:
	case RC_INT:
		int_reduce(op, t, s, &rt->f[0]);
		break;
	case RC_FP:
		fp_reduce(op, t, s, &rt->f[0]);
		break;
	case RC_CPLX:
		cplx_reduce(op, t, s, rt->f);
		break;
	case RC_PAIR:
		pair_reduce(op, t, s, rt->f);
		break;
	}
}

void ref_reduce(unsigned int type, unsigned int op, void *tgt,
		const void *src, void *old, size_t n)
{
	size_t size = ref_type_size(type), k;
	uint8_t *t = tgt, *o = old;
	const uint8_t *s = src;

	if (!size || !ref_op_allowed(op, type))
		return;
	for (k = 0; k < n; k++) {
		if (o)
			memcpy(o + k * size, t + k * size, size);
		reduce_one(type, op, t + k * size, s + k * size);
	}
}

void ref_cas(unsigned int type, void *tgt, const void *src, const void *cmp,
	     void *old)
{
	size_t size = ref_type_size(type);
	uint8_t prev[32];

	memcpy(prev, tgt, size);
	if (!memcmp(prev, cmp, size))
		memcpy(tgt, src, size);
	memcpy(old, prev, size);
}

/* ---- comparison ---- */

static bool f32_nan(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu);
}

static bool f64_nan(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
	       (v & 0x000fffffffffffffull);
}

static bool f80_nan(const uint8_t *p)
{
	uint64_t m;
	uint16_t e;

	memcpy(&m, p, 8);
	memcpy(&e, p + 8, 2);
	return (e & 0x7fff) == 0x7fff && (m & 0x7fffffffffffffffull);
}

static bool field_nan(const uint8_t *p, const struct ref_field *f)
{
	switch (f->kind) {
	case FK_F32:
		return f32_nan(p + f->off);
	case FK_F64:
		return f64_nan(p + f->off);
	case FK_F80:
		return f80_nan(p + f->off);
	default:
		return false;
	}
}

static bool fields_equal(unsigned int type, const void *a, const void *b,
			 bool nan_any)
{
	const struct ref_type *rt;
	unsigned int i;

	if (type >= MPIRMA_NR_TYPES)
		return false;
	rt = &ref_types[type];
	for (i = 0; i < rt->nfields; i++) {
		const struct ref_field *f = &rt->f[i];

		if (nan_any && field_nan(a, f) && field_nan(b, f))
			continue;
		if (memcmp((const uint8_t *)a + f->off,
			   (const uint8_t *)b + f->off, f->len))
			return false;
	}
	return true;
}

bool ref_equal(unsigned int type, const void *a, const void *b)
{
	return fields_equal(type, a, b, true);
}

bool ref_same_bits(unsigned int type, const void *a, const void *b)
{
	return fields_equal(type, a, b, false);
}

bool ref_same_padding(unsigned int type, const void *a, const void *b)
{
	size_t size = ref_type_size(type), i;

	for (i = 0; i < size; i++)
		if (!ref_is_value_byte(type, i) &&
		    ((const uint8_t *)a)[i] != ((const uint8_t *)b)[i])
			return false;
	return true;
}

bool ref_result_ok(unsigned int type, unsigned int op, const void *got,
		   const void *want, const void *orig, const void *src)
{
	bool copy = op == MPIRMA_OP_REPLACE || op == MPIRMA_OP_NO_OP ||
		    op == MPIRMA_OP_MAX || op == MPIRMA_OP_MIN ||
		    op == MPIRMA_OP_MAXLOC || op == MPIRMA_OP_MINLOC;

	if (copy ? !ref_same_bits(type, got, want) : !ref_equal(type, got, want))
		return false;
	if (ref_same_padding(type, got, orig))
		return true;
	return op == MPIRMA_OP_REPLACE && ref_same_padding(type, got, src);
}

char *ref_format(unsigned int type, const void *elem, char *buf, size_t len)
{
	const uint8_t *p = elem;
	const struct ref_type *rt;
	size_t used = 0;
	unsigned int i;

	if (type >= MPIRMA_NR_TYPES) {
		snprintf(buf, len, "?");
		return buf;
	}
	rt = &ref_types[type];
	if (rt->nfields > 1)
		used += snprintf(buf + used, len - used, "{");
	for (i = 0; i < rt->nfields && used < len; i++) {
		const struct ref_field *f = &rt->f[i];
		const char *sep = i ? ", " : "";

		switch (f->kind) {
		case FK_INT:
			if (f->sgn)
				used += snprintf(buf + used, len - used,
						 "%s%" PRId64, sep, ld_s(p, f));
			else
				used += snprintf(buf + used, len - used,
						 "%s%" PRIu64, sep, ld_u(p, f));
			break;
		case FK_F32:
			used += snprintf(buf + used, len - used, "%s%a", sep,
					 (double)ld_f32(p, f));
			break;
		case FK_F64:
			used += snprintf(buf + used, len - used, "%s%a", sep,
					 ld_f64(p, f));
			break;
		default:
			used += snprintf(buf + used, len - used, "%s%La", sep,
					 ld_f80(p, f));
			break;
		}
	}
	if (rt->nfields > 1 && used < len)
		snprintf(buf + used, len - used, "}");
	return buf;
}
