// SPDX-License-Identifier: GPL-2.0
/*
 * The floating point half of the reduction engine: MAX, MIN, SUM, PROD on
 * FLOAT, DOUBLE and LONG_DOUBLE, SUM and PROD on the complex types, MAXLOC
 * and MINLOC on the pairs with a floating point value.
 *
 * In the kernel this is the only file compiled with SSE and x87 enabled
 * (see Kbuild), and everything in it runs between mpirma_fpu_begin() and
 * mpirma_fpu_end(), which mpirma_reduce() calls around mpirma_reduce_fp():
 * the compiler may use vector registers anywhere in this file.  Results are
 * rounded to their type: float and double live in SSE registers, long double
 * in x87 registers with the 64-bit mantissa that kernel_fpu_begin_mask()
 * sets up; -ffp-contract=off keeps products and sums unfused.
 */
#define MPIRMA_REDUCE_IMPL
#include "reduce.h"

/* Bytes of a long double that hold its value; the other 6 are padding. */
#define LDBL_BYTES	10

static_assert(sizeof(long double) == 16, "x86-64 long double");

MPIRMA_DEFINE_ACCESS(f32, float)
MPIRMA_DEFINE_ACCESS(f64, double)

/* Long double access: load the element, store the 10 value bytes only. */
static inline long double f80_get(const u8 *p)
{
	long double v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void f80_put(u8 *p, long double v)
{
	memcpy(p, &v, LDBL_BYTES);
}

/* The loop of op @op, MAX, MIN, SUM or PROD, on a and b, with @EW(expr). */
#define REAL_OPS(op, EW)						\
do {									\
	switch (op) {							\
	case MPIRMA_OP_MAX:						\
		EW(b > a ? b : a);					\
		break;							\
	case MPIRMA_OP_MIN:						\
		EW(b < a ? b : a);					\
		break;							\
	case MPIRMA_OP_SUM:						\
		EW(a + b);						\
		break;							\
	case MPIRMA_OP_PROD:						\
		EW(a * b);						\
		break;							\
	}								\
} while (0)

/*
 * reduce_<name>(): MAX, MIN, SUM and PROD on @n elements of the real @T;
 * the old values into @o unless it is NULL (the types that
 * mpirma_reduce_fp_keeps_old(); for the others reduce.c copies them first).
 */
#define DEFINE_REDUCE_REAL(name, T)					\
static void reduce_##name(unsigned int op, u8 *t, const u8 *s, u8 *o,	\
			  size_t n)					\
{									\
	if (o) {							\
		REAL_OPS(op, EW_OLD_##name);				\
	} else {							\
		REAL_OPS(op, EW_##name);				\
	}								\
}

#define EW_f32(expr)		MPIRMA_ELEMWISE(f32, float, t, s, n, expr)
#define EW_OLD_f32(expr)	MPIRMA_ELEMWISE_OLD(f32, float, t, s, o, n, expr)
#define EW_f64(expr)		MPIRMA_ELEMWISE(f64, double, t, s, n, expr)
#define EW_OLD_f64(expr)	MPIRMA_ELEMWISE_OLD(f64, double, t, s, o, n, expr)
#define EW_f80(expr)		MPIRMA_ELEMWISE(f80, long double, t, s, n, expr)
#define EW_OLD_f80(expr)	EW_f80(expr)	/* never: @o is NULL */

DEFINE_REDUCE_REAL(f32, float)
DEFINE_REDUCE_REAL(f64, double)
DEFINE_REDUCE_REAL(f80, long double)

/*
 * reduce_c<name>(): SUM and PROD on @n complex numbers {re, im} of the real
 * @T.  With t = a + bi and s = c + di the product is
 * (a * c - b * d) + (a * d + b * c)i, evaluated exactly so.
 */
#define DEFINE_REDUCE_COMPLEX(name, T)					\
static void reduce_c##name(unsigned int op, u8 *t, const u8 *s, size_t n)	\
{									\
	for (; n; n--, t += 2 * sizeof(T), s += 2 * sizeof(T)) {	\
		T a = name##_get(t), b = name##_get(t + sizeof(T));	\
		T c = name##_get(s), d = name##_get(s + sizeof(T));	\
		T re, im;						\
									\
		if (op == MPIRMA_OP_SUM) {				\
			re = a + c;					\
			im = b + d;					\
		} else {						\
			re = a * c - b * d;				\
			im = a * d + b * c;				\
		}							\
		name##_put(t, re);					\
		name##_put(t + sizeof(T), im);				\
	}								\
}

DEFINE_REDUCE_COMPLEX(f32, float)
DEFINE_REDUCE_COMPLEX(f64, double)
DEFINE_REDUCE_COMPLEX(f80, long double)

/* The pair types with a floating point value; layouts as in mpirma_uapi.h. */
struct float_int {
	float v;
	int i;
};

struct double_int {
	double v;
	int i;
};

struct long_double_int {
	long double v;
	int i;
};

static_assert(sizeof(struct float_int) == 8 && offsetof(struct float_int, i) == 4,
	      "FLOAT_INT");
static_assert(sizeof(struct double_int) == 16 && offsetof(struct double_int, i) == 8,
	      "DOUBLE_INT");
static_assert(sizeof(struct long_double_int) == 32 &&
	      offsetof(struct long_double_int, i) == 16, "LONG_DOUBLE_INT");

/*
 * reduce_<name>(): MAXLOC and MINLOC on @n pairs @P whose value is the real
 * @T, accessed with @acc##_get/_put.
 */
#define DEFINE_REDUCE_LOC(name, acc, T, P)				\
static void reduce_##name(unsigned int op, u8 *t, const u8 *s, size_t n)	\
{									\
	MPIRMA_LOC(acc, T, P, t, s, n, op == MPIRMA_OP_MAXLOC);		\
}

DEFINE_REDUCE_LOC(float_int, f32, float, struct float_int)
DEFINE_REDUCE_LOC(double_int, f64, double, struct double_int)
DEFINE_REDUCE_LOC(long_double_int, f80, long double, struct long_double_int)

/* The Fortran pairs: the index has the value's type (MPI_2REAL...). */
struct two_float {
	float v;
	float i;
};

struct two_double {
	double v;
	double i;
};

static_assert(sizeof(struct two_float) == 8 && offsetof(struct two_float, i) == 4, "2FLOAT");
static_assert(sizeof(struct two_double) == 16 && offsetof(struct two_double, i) == 8, "2DOUBLE");

static void reduce_two_float(unsigned int op, u8 *t, const u8 *s, size_t n)
{
	MPIRMA_LOC_IDX(f32, float, f32, struct two_float, t, s, n, op == MPIRMA_OP_MAXLOC);
}

static void reduce_two_double(unsigned int op, u8 *t, const u8 *s, size_t n)
{
	MPIRMA_LOC_IDX(f64, double, f64, struct two_double, t, s, n, op == MPIRMA_OP_MAXLOC);
}

void mpirma_reduce_fp(unsigned int type, unsigned int op, u8 *t, const u8 *s, u8 *old,
		      size_t n)
{
	switch (type) {
	case MPIRMA_TYPE_FLOAT:
		reduce_f32(op, t, s, old, n);
		break;
	case MPIRMA_TYPE_DOUBLE:
		reduce_f64(op, t, s, old, n);
		break;
	case MPIRMA_TYPE_LONG_DOUBLE:
		reduce_f80(op, t, s, NULL, n);
		break;
	case MPIRMA_TYPE_C_FLOAT_COMPLEX:
		reduce_cf32(op, t, s, n);
		break;
	case MPIRMA_TYPE_C_DOUBLE_COMPLEX:
		reduce_cf64(op, t, s, n);
		break;
	case MPIRMA_TYPE_C_LONG_DOUBLE_COMPLEX:
		reduce_cf80(op, t, s, n);
		break;
	case MPIRMA_TYPE_FLOAT_INT:
		reduce_float_int(op, t, s, n);
		break;
	case MPIRMA_TYPE_DOUBLE_INT:
		reduce_double_int(op, t, s, n);
		break;
	case MPIRMA_TYPE_LONG_DOUBLE_INT:
		reduce_long_double_int(op, t, s, n);
		break;
	case MPIRMA_TYPE_2FLOAT:
		reduce_two_float(op, t, s, n);
		break;
	case MPIRMA_TYPE_2DOUBLE:
		reduce_two_double(op, t, s, n);
		break;
	}
}
