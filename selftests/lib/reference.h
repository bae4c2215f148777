/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An independent reference for mpirma's reduction semantics, written from
 * the specification (the uapi header and the MPI op/type table), never from
 * the kernel's reduce.c: tests compare the two, so they must not share code.
 *
 * Elements are handled through memcpy, so no buffer needs any alignment.
 * Padding bytes (LONG_DOUBLE bytes 10..15, the holes of the pair types) are
 * never written by ref_reduce() except by REPLACE, which copies whole
 * elements; ref_equal() ignores them.
 */
#ifndef MPIRMA_REFERENCE_H
#define MPIRMA_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpirma_uapi.h"

/* Names for messages; "?" for values out of range. */
const char *ref_type_name(unsigned int type);
const char *ref_op_name(unsigned int op);
const char *ref_kind_name(unsigned int kind);

/* Element size in bytes; 0 for an unknown type. */
size_t ref_type_size(unsigned int type);

/* True when byte @off of an element of @type carries value (not padding). */
bool ref_is_value_byte(unsigned int type, size_t off);

/* True when @type has padding bytes. */
bool ref_has_padding(unsigned int type);

/* The MPI op/type table for accumulate-like operations (REPLACE and NO_OP
 * are allowed on every type).
 */
bool ref_op_allowed(unsigned int op, unsigned int type);
uint64_t ref_op_type_mask(unsigned int op);
/* Types compare-and-swap accepts. */
bool ref_cas_allowed(unsigned int type);

/*
 * tgt[k] = OP(tgt[k], src[k]) for k < n; when @old is not NULL it first gets
 * the previous tgt[k] (whole elements).  NO_OP leaves tgt alone.
 */
void ref_reduce(unsigned int type, unsigned int op, void *tgt,
		const void *src, void *old, size_t n);

/* One element: *old = *tgt; if *tgt equals *cmp bitwise, *tgt = *src. */
void ref_cas(unsigned int type, void *tgt, const void *src, const void *cmp,
	     void *old);

/*
 * Compare one element's value bytes.  Floating-point components compare
 * bit-exactly (so -0.0 != 0.0), except that any NaN equals any NaN: which
 * NaN payload an arithmetic operation yields is the hardware's choice.
 */
bool ref_equal(unsigned int type, const void *a, const void *b);
/* Value bytes bit-exactly, NaNs included (for copies). */
bool ref_same_bits(unsigned int type, const void *a, const void *b);
/* Padding bytes identical. */
bool ref_same_padding(unsigned int type, const void *a, const void *b);

/*
 * Is @got a correct result of (@op, @type) on target @orig and source @src,
 * given the reference result @want?  Selections (REPLACE, NO_OP, MAX, MIN,
 * MAXLOC, MINLOC) must match bit for bit, arithmetic up to NaN payloads;
 * padding must be @orig's, or for REPLACE @src's.
 */
bool ref_result_ok(unsigned int type, unsigned int op, const void *got,
		   const void *want, const void *orig, const void *src);

/* Format one element for a message ("{1.5, 3}", "0x7f", ...). */
char *ref_format(unsigned int type, const void *elem, char *buf, size_t len);

/* Generators.  Interesting values per type come first (0, 1, -1, min, max,
 * and for floating point -0.0, inf, -inf, NaN, denormals...), then random
 * ones.  Only value bytes are written.
 */
uint64_t ref_rand(uint64_t *seed);
size_t ref_ninteresting(unsigned int type);
void ref_value(unsigned int type, size_t idx, uint64_t *seed, void *dst);

/*
 * Fill tgt[n] and src[n] so that the first ninteresting^2 elements pair every
 * interesting target value with every interesting source value (then random
 * ones).  The whole buffers are first set to @tgt_pad / @src_pad, so padding
 * bytes carry a recognisable pattern.
 */
void ref_fill_pairs(unsigned int type, void *tgt, void *src, size_t n,
		    uint64_t *seed, uint8_t tgt_pad, uint8_t src_pad);
/* Fill buf[n] with values (interesting ones first) over a @pad pattern. */
void ref_fill(unsigned int type, void *buf, size_t n, uint64_t *seed,
	      uint8_t pad);
/* ninteresting^2 capped to @max: a handy element count for ref_fill_pairs. */
size_t ref_pairs_count(unsigned int type, size_t extra, size_t max);

#endif /* MPIRMA_REFERENCE_H */
