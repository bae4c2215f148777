/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reduce_env.h - what the reduction engine needs from its environment.
 *
 * reduce.c and reduce_fp.c are built into mpirma.ko and, with
 * -DMPIRMA_USERSPACE, into user-space programs (unit tests, the MPI library).
 * This header is the only place that tells the two apart.  The engine uses:
 *
 *  - u8..u64, s8..s64, bool, size_t, offsetof(), static_assert();
 *  - memcpy(), memcmp();
 *  - get_unaligned(), put_unaligned(): access an element at any address;
 *  - WARN_ON_ONCE(): the condition's value, reported once in the kernel;
 *  - mpirma_fpu_begin(x87), mpirma_fpu_end(): bracket the floating point
 *    work of reduce_fp.c.  @x87 asks for an initialised x87 unit as well as
 *    SSE (long double).  In user space the FPU is always usable.
 *
 * native_elem.c also uses READ_ONCE() and WRITE_ONCE() (one plain access of
 * the element's width, no barrier), cmpxchg(), xchg() and xadd() (fetch
 * and add, any of 1, 2, 4 or 8 bytes), and mpirma_atomic{32,64}_{and,or,xor}()
 * (no fetch; @v truncated to the width); the last four are full barriers
 * (sequentially consistent) in both worlds and on x86 single locked
 * instructions.
 */
#ifndef _MPIRMA_REDUCE_ENV_H
#define _MPIRMA_REDUCE_ENV_H

#ifdef MPIRMA_USERSPACE

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* The union drops the const of *ptr from the temporary that memcpy fills. */
#define get_unaligned(ptr) ({						\
	union {								\
		__typeof__(*(ptr)) v;					\
		unsigned char b[sizeof(*(ptr))];			\
	} __gu;								\
	memcpy(__gu.b, (ptr), sizeof(__gu.b));				\
	__gu.v;								\
})

#define put_unaligned(val, ptr) do {					\
	__typeof__(*(ptr)) __pu = (val);				\
	memcpy((ptr), &__pu, sizeof(__pu));				\
} while (0)

#define WARN_ON_ONCE(cond)	__builtin_expect(!!(cond), 0)

#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#define cmpxchg(ptr, old, new) ({					\
	__typeof__(*(ptr)) __old = (old);				\
	__atomic_compare_exchange_n((ptr), &__old, (new), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	__old;								\
})

#define xchg(ptr, v)	__atomic_exchange_n((ptr), (v), __ATOMIC_SEQ_CST)
#define xadd(ptr, v)	__atomic_fetch_add((ptr), (v), __ATOMIC_SEQ_CST)

/* @p points to a u32 or u64, the function's width. */
#define MPIRMA_ATOMIC_BITOP(name, op, type)				\
static inline void name(void *p, u64 v)					\
{									\
	(void)__atomic_fetch_##op((type)p, v, __ATOMIC_SEQ_CST);	\
}
MPIRMA_ATOMIC_BITOP(mpirma_atomic32_and, and, u32 *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic32_or, or, u32 *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic32_xor, xor, u32 *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic64_and, and, u64 *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic64_or, or, u64 *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic64_xor, xor, u64 *)
#undef MPIRMA_ATOMIC_BITOP

static inline void mpirma_fpu_begin(bool x87)
{
	(void)x87;
}

static inline void mpirma_fpu_end(void)
{
}

#else /* !MPIRMA_USERSPACE */

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/string.h>
/*
 * get_unaligned(), put_unaligned(): 6.12 moved them to linux/unaligned.h
 * (asm/unaligned.h is gone there).  Tested here, the one kernel-version
 * difference of common/, so that common/ needs nothing of kmod/compat.h.
 * (__has_include would say it without a version, but sparse rejects it.)
 */
#include <linux/version.h>
#if KERNEL_VERSION(6, 12, 0) > LINUX_VERSION_CODE
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif
#include <asm/fpu/api.h>

/*
 * kernel_fpu_begin() on x86-64 resets MXCSR only: x87 users must ask for
 * KFPU_387, or they compute with whatever control word (precision, rounding)
 * the interrupted task left behind.  Both give the user-space defaults:
 * round to nearest, 64-bit x87 mantissa, all exceptions masked.
 * Disables preemption until mpirma_fpu_end(), also on PREEMPT_RT: legal
 * under a raw spinlock, and nothing in between may take a spinlock_t.
 */
static inline void mpirma_fpu_begin(bool x87)
{
	kernel_fpu_begin_mask(x87 ? KFPU_387 | KFPU_MXCSR : KFPU_MXCSR);
}

static inline void mpirma_fpu_end(void)
{
	kernel_fpu_end();
}

/*
 * The kernel's atomic_t and atomic64_t are a bare int and s64: the same
 * word as the element, which user space updates with the same locked
 * instructions.
 */
#define MPIRMA_ATOMIC_BITOP(name, fn, type)				\
static inline void name(void *p, u64 v)					\
{									\
	fn(v, (type)p);							\
}
MPIRMA_ATOMIC_BITOP(mpirma_atomic32_and, atomic_and, atomic_t *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic32_or, atomic_or, atomic_t *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic32_xor, atomic_xor, atomic_t *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic64_and, atomic64_and, atomic64_t *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic64_or, atomic64_or, atomic64_t *)
MPIRMA_ATOMIC_BITOP(mpirma_atomic64_xor, atomic64_xor, atomic64_t *)
#undef MPIRMA_ATOMIC_BITOP

#endif /* MPIRMA_USERSPACE */

#endif /* _MPIRMA_REDUCE_ENV_H */
