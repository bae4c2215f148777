/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What reference.c (the reductions, the comparisons) and ref_values.c (the
 * values the tests feed them) share: each type as one or two fields, and
 * the loads and stores of a field.  Private to selftests/lib.
 */
#ifndef MPIRMA_REF_TYPES_H
#define MPIRMA_REF_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "reference.h"

enum ref_class {
	RC_BYTE,	/* bitwise ops */
	RC_CHAR,	/* REPLACE/NO_OP only */
	RC_BOOL,	/* logical ops */
	RC_INT,		/* C integers */
	RC_FP,		/* float, double, long double */
	RC_CPLX,	/* complex */
	RC_PAIR,	/* {value; index} for MAXLOC/MINLOC */
};

enum ref_fkind {
	FK_INT,
	FK_F32,
	FK_F64,
	FK_F80,		/* x87 extended: 10 bytes */
};

struct ref_field {
	uint8_t off;
	uint8_t len;
	uint8_t kind;
	bool sgn;
};

struct ref_type {
	const char *name;
	uint8_t size;
	uint8_t cls;
	uint8_t nfields;
	struct ref_field f[2];
};

/* Every type the kernel knows, by MPIRMA_TYPE_*. */
extern const struct ref_type ref_types[MPIRMA_NR_TYPES];

/* ---- field access (little endian) ---- */

static inline uint64_t ld_u(const uint8_t *p, const struct ref_field *f)
{
	uint64_t v = 0;

	memcpy(&v, p + f->off, f->len);
	return v;
}

static inline int64_t ld_s(const uint8_t *p, const struct ref_field *f)
{
	uint64_t v = ld_u(p, f);
	unsigned int shift = 64 - 8 * f->len;

	/* sign-extend the field's width */
	return (int64_t)(v << shift) >> shift;
}

static inline void st_u(uint8_t *p, const struct ref_field *f, uint64_t v)
{
	memcpy(p + f->off, &v, f->len);
}

static inline float ld_f32(const uint8_t *p, const struct ref_field *f)
{
	float v;

	memcpy(&v, p + f->off, 4);
	return v;
}

static inline double ld_f64(const uint8_t *p, const struct ref_field *f)
{
	double v;

	memcpy(&v, p + f->off, 8);
	return v;
}

static inline long double ld_f80(const uint8_t *p, const struct ref_field *f)
{
	long double v = 0;

	memcpy(&v, p + f->off, 10);
	return v;
}

static inline void st_f32(uint8_t *p, const struct ref_field *f, float v)
{
	memcpy(p + f->off, &v, 4);
}

static inline void st_f64(uint8_t *p, const struct ref_field *f, double v)
{
	memcpy(p + f->off, &v, 8);
}

static inline void st_f80(uint8_t *p, const struct ref_field *f, long double v)
{
	memcpy(p + f->off, &v, 10);
}

/* Copy one field's bytes from @s to @t (a selection, not a computation). */
static inline void copy_field(uint8_t *t, const uint8_t *s,
			      const struct ref_field *f)
{
	memcpy(t + f->off, s + f->off, f->len);
}

#endif
