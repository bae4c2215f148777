/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reduce.h - the element-wise reduction engine: MPI's predefined ops on
 * MPI's predefined types.
 *
 * The kernel applies accumulate, get_accumulate, fetch_and_op and
 * compare_and_swap with it; the same two source files (reduce.c, reduce_fp.c)
 * are compiled into user space with -DMPIRMA_USERSPACE for the unit tests and
 * for the library's own reductions (MPI_Reduce with predefined ops), so an
 * MPI program computes the same bits whether the kernel or the library did
 * the work.  reduce_env.h holds every difference between the two builds.
 *
 * DOC: types
 *
 * An element has the size given in mpirma_uapi.h, padding included:
 * INTn/UINTn are the C fixed-width integers; BOOL is one byte, read as
 * "non-zero is true" (any byte value is accepted); BYTE is one byte;
 * CHAR (1) and WCHAR (4) are opaque.  FLOAT and DOUBLE are IEEE binary32 and
 * binary64; LONG_DOUBLE is the x87 80-bit format in 16 bytes of which only
 * the first 10 are the value.  The C_*_COMPLEX types are {re, im} pairs of
 * those.  The pair types are {value, int index}: FLOAT_INT (8, index at 4),
 * DOUBLE_INT (16, at 8), LONG_INT (16, at 8), 2INT (8, at 4), SHORT_INT
 * (8, at 4), LONG_DOUBLE_INT (32, at 16); the Fortran pairs have an index of
 * the value's type: 2FLOAT (8, at 4), 2DOUBLE (16, at 8).
 *
 * Padding is never written by arithmetic: a LONG_DOUBLE result stores 10
 * bytes, MAXLOC/MINLOC store only the value and the index fields.  REPLACE
 * copies whole elements, padding included.
 *
 * DOC: op/type table
 *
 * REPLACE and NO_OP: every type.  MAX, MIN: integers, FLOAT, DOUBLE,
 * LONG_DOUBLE.  SUM, PROD: integers, the three reals, the three complexes.
 * LAND, LOR, LXOR: integers and BOOL.  BAND, BOR, BXOR: integers and BYTE.
 * MAXLOC, MINLOC: the eight pair types.  Anything else is not allowed.
 * compare_and_swap: integers, BOOL and BYTE.
 *
 * DOC: semantics
 *
 * With t the target element and s the source element, the target becomes:
 *
 *  - MAX: (s > t) ? s : t, MIN: (s < t) ? s : t, in the type's own
 *    signedness (unsigned types compare as unsigned) and, for the reals, the
 *    C comparison (a NaN in s never wins, a NaN in t is never replaced).
 *  - SUM, PROD on integers: t + s, t * s modulo 2^bits (the computation is
 *    done in an unsigned type).  On reals: t + s, t * s rounded to the type
 *    (float in float, double in double, long double in x87 extended).
 *  - SUM on complex: componentwise.  PROD on complex, t = a + bi,
 *    s = c + di: re = a * c - b * d, im = a * d + b * c, each product and
 *    sum rounded to the component type, never fused (-ffp-contract=off;
 *    no C99 complex arithmetic).
 *  - LAND: (t != 0 && s != 0), LOR: (t != 0 || s != 0),
 *    LXOR: ((t != 0) != (s != 0)); stored as 0 or 1.
 *  - BAND, BOR, BXOR: bitwise on the whole element.
 *  - MAXLOC on {v, i}: if s.v > t.v the target becomes s; if s.v == t.v it
 *    keeps t.v and takes min(t.i, s.i); otherwise it is unchanged.  MINLOC
 *    likewise with <.  Values compare in their type (long double for
 *    LONG_DOUBLE_INT), indexes as int, or in the value's type for 2FLOAT
 *    and 2DOUBLE.  Only the value and index fields
 *    are written, and only when the result differs from t.
 *  - REPLACE: s.  NO_OP: t.
 *
 * Floating point arithmetic uses the user-space defaults: round to nearest,
 * exceptions masked, float and double on SSE, long double on x87 with a
 * 64-bit mantissa.  User-space builds must not enable FMA contraction
 * (gnu11 defaults to -ffp-contract=fast, harmless without -mfma).
 */
#ifndef _MPIRMA_REDUCE_H
#define _MPIRMA_REDUCE_H

#include "reduce_env.h"
#include "mpirma_uapi.h"

/*
 * The library also builds reduce.c and reduce_fp.c twice more, with loop
 * vectorization: for SSE2 (-DMPIRMA_REDUCE_VEC) and for AVX2
 * (-DMPIRMA_REDUCE_AVX2).  Those builds define only mpirma_reduce_vec() and
 * mpirma_reduce_avx2() (same contract as mpirma_reduce()), and the library
 * picks per type whichever build runs long loops faster on the CPU it finds
 * (lib/base/reduce_pick.c; AVX2 only where the CPU has it).
 */
#if defined(MPIRMA_REDUCE_VEC)
#define mpirma_reduce		mpirma_reduce_vec
#define mpirma_reduce_fp	mpirma_reduce_fp_vec
#elif defined(MPIRMA_REDUCE_AVX2)
#define mpirma_reduce		mpirma_reduce_avx2
#define mpirma_reduce_fp	mpirma_reduce_fp_avx2
#define MPIRMA_REDUCE_VEC	/* a vectorized build: no tables */
#endif
#ifdef MPIRMA_USERSPACE
void mpirma_reduce_vec(unsigned int type, unsigned int op, void *tgt, const void *src, void *old,
		       size_t n);
void mpirma_reduce_avx2(unsigned int type, unsigned int op, void *tgt, const void *src, void *old,
			size_t n);
#endif

/* What an element type is, for the op/type table. */
enum mpirma_type_class {
	MPIRMA_CLASS_OPAQUE,	/* CHAR, WCHAR: only moved */
	MPIRMA_CLASS_BYTE,
	MPIRMA_CLASS_BOOL,
	MPIRMA_CLASS_INT,	/* INT8..UINT64 */
	MPIRMA_CLASS_REAL,	/* FLOAT, DOUBLE, LONG_DOUBLE */
	MPIRMA_CLASS_COMPLEX,
	MPIRMA_CLASS_PAIR,	/* the MAXLOC/MINLOC {value, index} types */
	MPIRMA_NR_CLASSES
};

/**
 * struct mpirma_type_info - layout and class of an element type
 * @size: bytes per element, padding included (the ABI sizes)
 * @align: natural alignment of the C type
 * @is_float: some op on the type computes in floating point: mpirma_reduce()
 *	enters an FPU section for it (not for REPLACE and NO_OP)
 * @x87: the type holds a long double: the FPU section needs the x87 unit
 * @type_class: enum mpirma_type_class
 */
struct mpirma_type_info {
	u16 size;
	u16 align;
	u8 is_float;
	u8 x87;
	u8 type_class;
};

extern const struct mpirma_type_info mpirma_type_info[MPIRMA_NR_TYPES];

/**
 * mpirma_op_allowed() - may @op be applied to elements of @type?
 * @op: enum mpirma_opcode, any value
 * @type: enum mpirma_type, any value
 *
 * The MPI op/type table plus REPLACE and NO_OP on every type.  Whether the
 * operation kind admits the op (ACC: not NO_OP) is the caller's business.
 *
 * Return: true if allowed; false for disallowed pairs and unknown values.
 */
bool mpirma_op_allowed(unsigned int op, unsigned int type);

/**
 * mpirma_cas_allowed() - may compare_and_swap be applied to @type?
 * @type: enum mpirma_type, any value
 *
 * Return: true for the integer types, BOOL and BYTE.
 */
bool mpirma_cas_allowed(unsigned int type);

/**
 * mpirma_op_type_mask() - the types @op is allowed on, for MPIRMA_IOC_QUERY
 * @op: enum mpirma_opcode, any value
 *
 * Return: bit t set when mpirma_op_allowed(@op, t); 0 for an unknown op.
 */
u64 mpirma_op_type_mask(unsigned int op);

/**
 * mpirma_reduce() - apply @op element-wise: tgt[i] = OP(tgt[i], src[i])
 * @type: enum mpirma_type
 * @op: enum mpirma_opcode; (@op, @type) must pass mpirma_op_allowed()
 * @tgt: @n target elements, updated in place
 * @src: @n source elements; may be NULL for NO_OP
 * @old: NULL, or room for @n elements: receives the bytes of @tgt as they
 *	were before the update (get_accumulate)
 * @n: number of elements
 *
 * Semantics in the DOC: sections above.  The three buffers may have any
 * alignment and must not overlap.  The caller provides the atomicity (holds
 * the lock) and bounds @n so that one call touches a few KiB at most: for
 * the floating point types this function runs with preemption disabled
 * (kernel_fpu_begin()), which is fine under a raw spinlock but not from hard
 * interrupt context nor inside another kernel FPU section; the kernel's
 * callers hold no spinlock_t around it (a sleeping lock on PREEMPT_RT).
 * A disallowed (@op, @type) warns once and leaves @tgt alone.
 */
void mpirma_reduce(unsigned int type, unsigned int op, void *tgt, const void *src, void *old,
		   size_t n);

/**
 * mpirma_cas() - compare-and-swap one element
 * @type: enum mpirma_type, must pass mpirma_cas_allowed()
 * @tgt: the target element
 * @src: the value to store when the target equals @cmp
 * @cmp: the value to compare with
 * @old: NULL, or receives the target element as it was
 *
 * old = *tgt; if (*tgt == *cmp) *tgt = *src; equality is bytewise over the
 * element's size.  Pointers may have any alignment; the buffers must not
 * overlap @tgt.  No FPU use.  A disallowed @type warns once and does nothing.
 */
void mpirma_cas(unsigned int type, void *tgt, const void *src, const void *cmp, void *old);

/**
 * mpirma_swar_sum() - integer SUM of small elements, eight bytes at a time
 * @t: the target elements (any alignment)
 * @s: the source elements (any alignment)
 * @bytes: the bytes of both
 * @size: the element size: 1, 2 or 4
 *
 * Adds each 64-bit word of @s into @t as 8 / @size lanes, each modulo
 * 2^bits: the lanes' low bits are added with the top bits masked off, so
 * that no carry crosses into the next lane, and each top bit is then the
 * xor of both top bits and that carry.  Returns the bytes done, @bytes
 * rounded down to 8; the caller adds the rest element by element.  Six
 * scalar operations per word, without vector registers: the kernel
 * computes its integer sums without an FPU section, and under QEMU's TCG
 * this runs 1 KiB of chars 3-6 times as fast as a byte loop and as fast as
 * an AVX2 one (us: byte loop 3.1-6.3, SSE2 1.2-1.7, AVX2 0.73, this 0.70-1.05).
 */
static inline size_t mpirma_swar_sum(u8 *t, const u8 *s, size_t bytes,
				     unsigned int size)
{
	const u64 high = size == 1 ? 0x8080808080808080ULL :
			 size == 2 ? 0x8000800080008000ULL :
				     0x8000000080000000ULL;
	size_t k;
	u64 a, b;

	for (k = 0; k + 8 <= bytes; k += 8) {
		a = get_unaligned((const u64 *)(t + k));
		b = get_unaligned((const u64 *)(s + k));
		put_unaligned(((a & ~high) + (b & ~high)) ^ ((a ^ b) & high),
			      (u64 *)(t + k));
	}
	return k;
}

/*
 * Internal to reduce.c and reduce_fp.c (define MPIRMA_REDUCE_IMPL before
 * including this header).
 */
#ifdef MPIRMA_REDUCE_IMPL

/*
 * The floating point half of mpirma_reduce(), in reduce_fp.c: arithmetic ops
 * on types with is_float set.  Called only between mpirma_fpu_begin() and
 * mpirma_fpu_end().  No floating point value crosses this interface: reduce.c
 * is compiled without FPU support.
 */
void mpirma_reduce_fp(unsigned int type, unsigned int op, u8 *t, const u8 *s, u8 *old,
		      size_t n);

/* Whether mpirma_reduce_fp() keeps the old values of @type itself. */
static inline bool mpirma_reduce_fp_keeps_old(unsigned int type)
{
	return type == MPIRMA_TYPE_FLOAT || type == MPIRMA_TYPE_DOUBLE;
}

/*
 * MPIRMA_DEFINE_ACCESS() - name##_get(p), name##_put(p, v): load and store a
 * @T at byte address p, whatever its alignment.
 */
#define MPIRMA_DEFINE_ACCESS(name, T)					\
static inline T name##_get(const u8 *p)					\
{									\
	return get_unaligned((const T *)p);				\
}									\
									\
static inline void name##_put(u8 *p, T v)				\
{									\
	put_unaligned(v, (T *)p);					\
}

/*
 * MPIRMA_ELEMWISE() - target = @expr for each of @n elements of type @T.
 * @t, @s: u8 pointers to the target and source elements, advanced as the
 * loop goes (so is @n, down to 0).  @expr sees the target element as a and
 * the source element as b.  Elements are accessed with @name##_get/_put.
 */
#define MPIRMA_ELEMWISE(name, T, t, s, n, expr)				\
do {									\
	for (; (n); (n)--, (t) += sizeof(T), (s) += sizeof(T)) {	\
		T a = name##_get(t);					\
		T b = name##_get(s);					\
									\
		name##_put(t, expr);					\
	}								\
} while (0)

/*
 * MPIRMA_ELEMWISE_OLD() - MPIRMA_ELEMWISE() that also stores each target
 * element as it was at @o (advanced too): one pass instead of a copy first.
 */
#define MPIRMA_ELEMWISE_OLD(name, T, t, s, o, n, expr)			\
do {									\
	for (; (n); (n)--, (t) += sizeof(T), (s) += sizeof(T),		\
	     (o) += sizeof(T)) {					\
		T a = name##_get(t);					\
		T b = name##_get(s);					\
									\
		name##_put(o, a);					\
		name##_put(t, expr);					\
	}								\
} while (0)

/*
 * MPIRMA_LOC() - MAXLOC (@max true) or MINLOC (@max false) on @n pairs of
 * struct type @P, whose value field v is a @T accessed with @name##_get/_put
 * and whose index field i is an int.  @t, @s, @n as for MPIRMA_ELEMWISE().
 * Writes only the value and index fields, only when the result is not t.
 */
#define MPIRMA_LOC_IDX(name, T, iname, P, t, s, n, max)			\
do {									\
	for (; (n); (n)--, (t) += sizeof(P), (s) += sizeof(P)) {	\
		u8 *ti = (t) + offsetof(P, i);				\
		const u8 *si = (s) + offsetof(P, i);			\
		T a = name##_get((t) + offsetof(P, v));			\
		T b = name##_get((s) + offsetof(P, v));			\
									\
		if ((max) ? b > a : b < a) {				\
			name##_put((t) + offsetof(P, v), b);		\
			iname##_put(ti, iname##_get(si));		\
		} else if (b == a && iname##_get(si) < iname##_get(ti)) { \
			iname##_put(ti, iname##_get(si));		\
		}							\
	}								\
} while (0)

/* The C pairs: an int index. */
#define MPIRMA_LOC(name, T, P, t, s, n, max) \
	MPIRMA_LOC_IDX(name, T, s32, P, t, s, n, max)

MPIRMA_DEFINE_ACCESS(s32, s32)

#endif /* MPIRMA_REDUCE_IMPL */

#endif /* _MPIRMA_REDUCE_H */
