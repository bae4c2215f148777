// SPDX-License-Identifier: GPL-2.0
/*
 * The op/type table and the integer half of the reduction engine.
 *
 * This file is compiled without FPU support in the kernel: it never touches
 * a floating point value.  REPLACE and NO_OP are byte copies for every type;
 * other ops on floating point types (is_float) are handed to reduce_fp.c
 * inside an FPU section.  See reduce.h for the semantics.
 */
#define MPIRMA_REDUCE_IMPL
#include "reduce.h"

#define CLASS_BIT(c)	(1U << MPIRMA_CLASS_##c)

#define TYPE(sz, al, cls)	{ .size = (sz), .align = (al), .type_class = MPIRMA_CLASS_##cls }
#define FP_TYPE(sz, al, cls)	{ .size = (sz), .align = (al), .type_class = MPIRMA_CLASS_##cls, \
				  .is_float = 1 }
#define X87_TYPE(sz, cls)	{ .size = (sz), .align = 16, .type_class = MPIRMA_CLASS_##cls, \
				  .is_float = 1, .x87 = 1 }

#ifndef MPIRMA_REDUCE_VEC	/* the tables and checks: once */
const struct mpirma_type_info mpirma_type_info[MPIRMA_NR_TYPES] = {
	[MPIRMA_TYPE_BYTE]			= TYPE(1, 1, BYTE),
	[MPIRMA_TYPE_CHAR]			= TYPE(1, 1, OPAQUE),
	[MPIRMA_TYPE_WCHAR]			= TYPE(4, 4, OPAQUE),
	[MPIRMA_TYPE_BOOL]			= TYPE(1, 1, BOOL),
	[MPIRMA_TYPE_INT8]			= TYPE(1, 1, INT),
	[MPIRMA_TYPE_UINT8]			= TYPE(1, 1, INT),
	[MPIRMA_TYPE_INT16]			= TYPE(2, 2, INT),
	[MPIRMA_TYPE_UINT16]			= TYPE(2, 2, INT),
	[MPIRMA_TYPE_INT32]			= TYPE(4, 4, INT),
	[MPIRMA_TYPE_UINT32]			= TYPE(4, 4, INT),
	[MPIRMA_TYPE_INT64]			= TYPE(8, 8, INT),
	[MPIRMA_TYPE_UINT64]			= TYPE(8, 8, INT),
	[MPIRMA_TYPE_FLOAT]			= FP_TYPE(4, 4, REAL),
	[MPIRMA_TYPE_DOUBLE]			= FP_TYPE(8, 8, REAL),
	[MPIRMA_TYPE_LONG_DOUBLE]		= X87_TYPE(16, REAL),
	[MPIRMA_TYPE_C_FLOAT_COMPLEX]		= FP_TYPE(8, 4, COMPLEX),
	[MPIRMA_TYPE_C_DOUBLE_COMPLEX]		= FP_TYPE(16, 8, COMPLEX),
	[MPIRMA_TYPE_C_LONG_DOUBLE_COMPLEX]	= X87_TYPE(32, COMPLEX),
	[MPIRMA_TYPE_FLOAT_INT]			= FP_TYPE(8, 4, PAIR),
	[MPIRMA_TYPE_DOUBLE_INT]		= FP_TYPE(16, 8, PAIR),
	[MPIRMA_TYPE_LONG_INT]			= TYPE(16, 8, PAIR),
	[MPIRMA_TYPE_2INT]			= TYPE(8, 4, PAIR),
	[MPIRMA_TYPE_SHORT_INT]			= TYPE(8, 4, PAIR),
	[MPIRMA_TYPE_LONG_DOUBLE_INT]		= X87_TYPE(32, PAIR),
	[MPIRMA_TYPE_2FLOAT]			= FP_TYPE(8, 4, PAIR),
	[MPIRMA_TYPE_2DOUBLE]			= FP_TYPE(16, 8, PAIR),
};

/* The classes each op may be applied to. */
static const u8 op_classes[MPIRMA_NR_OPS] = {
	[MPIRMA_OP_REPLACE]	= (1U << MPIRMA_NR_CLASSES) - 1,
	[MPIRMA_OP_NO_OP]	= (1U << MPIRMA_NR_CLASSES) - 1,
	[MPIRMA_OP_MAX]		= CLASS_BIT(INT) | CLASS_BIT(REAL),
	[MPIRMA_OP_MIN]		= CLASS_BIT(INT) | CLASS_BIT(REAL),
	[MPIRMA_OP_SUM]		= CLASS_BIT(INT) | CLASS_BIT(REAL) | CLASS_BIT(COMPLEX),
	[MPIRMA_OP_PROD]	= CLASS_BIT(INT) | CLASS_BIT(REAL) | CLASS_BIT(COMPLEX),
	[MPIRMA_OP_LAND]	= CLASS_BIT(INT) | CLASS_BIT(BOOL),
	[MPIRMA_OP_LOR]		= CLASS_BIT(INT) | CLASS_BIT(BOOL),
	[MPIRMA_OP_LXOR]	= CLASS_BIT(INT) | CLASS_BIT(BOOL),
	[MPIRMA_OP_BAND]	= CLASS_BIT(INT) | CLASS_BIT(BYTE),
	[MPIRMA_OP_BOR]		= CLASS_BIT(INT) | CLASS_BIT(BYTE),
	[MPIRMA_OP_BXOR]	= CLASS_BIT(INT) | CLASS_BIT(BYTE),
	[MPIRMA_OP_MAXLOC]	= CLASS_BIT(PAIR),
	[MPIRMA_OP_MINLOC]	= CLASS_BIT(PAIR),
};

static_assert(MPIRMA_NR_CLASSES <= 8, "op_classes[] holds u8 masks");
static_assert(MPIRMA_NR_TYPES <= 64, "mpirma_op_type_mask() returns a u64");

bool mpirma_op_allowed(unsigned int op, unsigned int type)
{
	if (op >= MPIRMA_NR_OPS || type >= MPIRMA_NR_TYPES)
		return false;
	return op_classes[op] & (1U << mpirma_type_info[type].type_class);
}

bool mpirma_cas_allowed(unsigned int type)
{
	if (type >= MPIRMA_NR_TYPES)
		return false;
	switch (mpirma_type_info[type].type_class) {
	case MPIRMA_CLASS_BYTE:
	case MPIRMA_CLASS_BOOL:
	case MPIRMA_CLASS_INT:
		return true;
	default:
		return false;
	}
}

u64 mpirma_op_type_mask(unsigned int op)
{
	unsigned int type;
	u64 mask = 0;

	for (type = 0; type < MPIRMA_NR_TYPES; type++)
		if (mpirma_op_allowed(op, type))
			mask |= 1ULL << type;
	return mask;
}

#endif /* !MPIRMA_REDUCE_VEC */

MPIRMA_DEFINE_ACCESS(u8, u8)
MPIRMA_DEFINE_ACCESS(s8, s8)
MPIRMA_DEFINE_ACCESS(u16, u16)
MPIRMA_DEFINE_ACCESS(s16, s16)
MPIRMA_DEFINE_ACCESS(u32, u32)
MPIRMA_DEFINE_ACCESS(u64, u64)
MPIRMA_DEFINE_ACCESS(s64, s64)

/*
 * Integer sums of elements under 8 bytes by mpirma_swar_sum() in the
 * scalar build (the kernel's); the vectorized builds keep the plain loop,
 * which the compiler vectorizes.
 */
#ifdef MPIRMA_REDUCE_VEC
#define REDUCE_SWAR	false
#else
#define REDUCE_SWAR	true
#endif

/*
 * reduce_<name>(): every op but REPLACE, NO_OP, MAXLOC and MINLOC on @n
 * elements of the integer type @T.  SUM and PROD are computed in the
 * unsigned type @W, at least as wide as @T and unsigned int, so that they
 * wrap around instead of overflowing a signed int after promotion; the
 * conversion back to @T keeps the low bits.
 */
#define DEFINE_REDUCE_INT(name, T, W)					\
static void reduce_##name(unsigned int op, u8 *t, const u8 *s, size_t n)	\
{									\
	switch (op) {							\
	case MPIRMA_OP_MAX:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, b > a ? b : a);	\
		break;							\
	case MPIRMA_OP_MIN:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, b < a ? b : a);	\
		break;							\
	case MPIRMA_OP_SUM:						\
		if (REDUCE_SWAR && sizeof(T) < 8) {			\
			size_t d_ = mpirma_swar_sum(t, s, n * sizeof(T), \
						    sizeof(T));		\
									\
			t += d_;					\
			s += d_;					\
			n -= d_ / sizeof(T);				\
		}							\
		MPIRMA_ELEMWISE(name, T, t, s, n, (T)((W)a + (W)b));	\
		break;							\
	case MPIRMA_OP_PROD:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, (T)((W)a * (W)b));	\
		break;							\
	case MPIRMA_OP_LAND:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, a != 0 && b != 0);	\
		break;							\
	case MPIRMA_OP_LOR:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, a != 0 || b != 0);	\
		break;							\
	case MPIRMA_OP_LXOR:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, (a != 0) != (b != 0));	\
		break;							\
	case MPIRMA_OP_BAND:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, a & b);		\
		break;							\
	case MPIRMA_OP_BOR:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, a | b);		\
		break;							\
	case MPIRMA_OP_BXOR:						\
		MPIRMA_ELEMWISE(name, T, t, s, n, a ^ b);		\
		break;							\
	}								\
}

DEFINE_REDUCE_INT(u8, u8, u32)
DEFINE_REDUCE_INT(s8, s8, u32)
DEFINE_REDUCE_INT(u16, u16, u32)
DEFINE_REDUCE_INT(s16, s16, u32)
DEFINE_REDUCE_INT(u32, u32, u32)
DEFINE_REDUCE_INT(s32, s32, u32)
DEFINE_REDUCE_INT(u64, u64, u64)
DEFINE_REDUCE_INT(s64, s64, u64)

/* The pair types with an integer value; layouts as in mpirma_uapi.h. */
struct long_int {
	long v;
	int i;
};

struct two_int {
	int v;
	int i;
};

struct short_int {
	short v;
	int i;
};

static_assert(sizeof(struct long_int) == 16 && offsetof(struct long_int, i) == 8, "LONG_INT");
static_assert(sizeof(struct two_int) == 8 && offsetof(struct two_int, i) == 4, "2INT");
static_assert(sizeof(struct short_int) == 8 && offsetof(struct short_int, i) == 4, "SHORT_INT");

/*
 * reduce_<name>(): MAXLOC and MINLOC on @n pairs @P whose value is the
 * integer type @T, accessed with @acc##_get/_put.
 */
#define DEFINE_REDUCE_LOC(name, acc, T, P)				\
static void reduce_##name(unsigned int op, u8 *t, const u8 *s, size_t n)	\
{									\
	MPIRMA_LOC(acc, T, P, t, s, n, op == MPIRMA_OP_MAXLOC);		\
}

DEFINE_REDUCE_LOC(long_int, s64, s64, struct long_int)
DEFINE_REDUCE_LOC(two_int, s32, s32, struct two_int)
DEFINE_REDUCE_LOC(short_int, s16, s16, struct short_int)

/* Arithmetic ops on the types that do not need the FPU. */
static void reduce_int(unsigned int type, unsigned int op, u8 *t, const u8 *s, size_t n)
{
	switch (type) {
	case MPIRMA_TYPE_BYTE:
	case MPIRMA_TYPE_BOOL:
	case MPIRMA_TYPE_UINT8:
		reduce_u8(op, t, s, n);
		break;
	case MPIRMA_TYPE_INT8:
		reduce_s8(op, t, s, n);
		break;
	case MPIRMA_TYPE_UINT16:
		reduce_u16(op, t, s, n);
		break;
	case MPIRMA_TYPE_INT16:
		reduce_s16(op, t, s, n);
		break;
	case MPIRMA_TYPE_UINT32:
		reduce_u32(op, t, s, n);
		break;
	case MPIRMA_TYPE_INT32:
		reduce_s32(op, t, s, n);
		break;
	case MPIRMA_TYPE_UINT64:
		reduce_u64(op, t, s, n);
		break;
	case MPIRMA_TYPE_INT64:
		reduce_s64(op, t, s, n);
		break;
	case MPIRMA_TYPE_LONG_INT:
		reduce_long_int(op, t, s, n);
		break;
	case MPIRMA_TYPE_2INT:
		reduce_two_int(op, t, s, n);
		break;
	case MPIRMA_TYPE_SHORT_INT:
		reduce_short_int(op, t, s, n);
		break;
	}
}

void mpirma_reduce(unsigned int type, unsigned int op, void *tgt, const void *src, void *old,
		   size_t n)
{
	const struct mpirma_type_info *ti;

	if (WARN_ON_ONCE(!mpirma_op_allowed(op, type)) || !n)
		return;
	ti = &mpirma_type_info[type];

	/* float and double keep them in their one pass (reduce_fp.c) */
	if (old && (op == MPIRMA_OP_NO_OP || op == MPIRMA_OP_REPLACE ||
		    !mpirma_reduce_fp_keeps_old(type)))
		memcpy(old, tgt, n * ti->size);

	switch (op) {
	case MPIRMA_OP_NO_OP:
		return;
	case MPIRMA_OP_REPLACE:
		memcpy(tgt, src, n * ti->size);
		return;
	}

	if (ti->is_float) {
		mpirma_fpu_begin(ti->x87);
		mpirma_reduce_fp(type, op, tgt, src,
				 mpirma_reduce_fp_keeps_old(type) ? old : NULL, n);
		mpirma_fpu_end();
	} else {
		reduce_int(type, op, tgt, src, n);
	}
}

#ifndef MPIRMA_REDUCE_VEC
void mpirma_cas(unsigned int type, void *tgt, const void *src, const void *cmp, void *old)
{
	size_t size;

	if (WARN_ON_ONCE(!mpirma_cas_allowed(type)))
		return;
	size = mpirma_type_info[type].size;

	if (old)
		memcpy(old, tgt, size);
	if (!memcmp(tgt, cmp, size))
		memcpy(tgt, src, size);
}
#endif /* !MPIRMA_REDUCE_VEC */
