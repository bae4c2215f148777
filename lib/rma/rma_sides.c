// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma_sides.c - the sides of an RMA call as kernel layouts (rma_sides.h):
 * each side's datatype in the element view, or in the byte view when a
 * put or get moves bytes between differing types; the part of a side the
 * data fills; and whether two sides' basic types agree.
 */
#include <stdlib.h>
#include <string.h>

#include "datatype.h"
#include "reduce.h"
#include "rma_sides.h"

/*
 * Bytes a datatype's layout of kernel type @ktype covers; @sum: its block
 * list's, which a layout from mpirma_dtype_layout() with blocks always has.
 */
static uint64_t layout_bytes(const struct mpirma_layout *l, unsigned int ktype,
			     const struct mpirma_blocks_sum *sum)
{
	if (!l->nblocks)
		return l->count * mpirma_type_info[ktype].size;
	return sum->data * l->count;
}

/*
 * Describes @count elements of @dt at @addr (NULL on the target side) in
 * the element view.  MPI class (recorded); @what names the side.
 */
int mpirma_rma_side_init(struct mpirma_rma_side *s, MPI_Datatype dt,
			  MPI_Count count, const void *addr, const char *what)
{
	int ret, kt;

	/* field by field: a memset() here is a rep stos, slow to emulate */
	s->dt = dt;
	s->count = count;
	s->addr = addr;
	s->ktype = MPIRMA_TYPE_BYTE;
	s->bytes = 0;
	s->sum = NULL;
	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative %s count %lld",
				  what, (long long)count);
	/* a predefined type of one kernel element: plain elements at @addr */
	kt = mpirma_dtype_elem_ktype(dt);
	if (kt >= 0 && count <= MPIRMA_MAX_SPAN / mpirma_type_info[kt].size) {
		s->l = (struct mpirma_layout){ .addr = (uintptr_t)addr,
					       .count = (uint64_t)count };
		s->ktype = (unsigned int)kt;
		s->bytes = (uint64_t)count * mpirma_type_info[kt].size;
		return MPI_SUCCESS;
	}
	ret = mpirma_dtype_layout(dt, count, addr, &s->l, &s->ktype, &s->sum);
	if (ret)
		return ret;
	s->bytes = layout_bytes(&s->l, s->ktype, s->sum);
	return MPI_SUCCESS;
}

/* Re-describes a side in the byte view (put and get of differing types). */
int mpirma_rma_side_to_bytes(struct mpirma_rma_side *s)
{
	int ret;

	ret = mpirma_dtype_layout_bytes(s->dt, s->count, s->addr, &s->l,
					&s->sum);
	if (ret)
		return ret;
	s->ktype = MPIRMA_TYPE_BYTE;
	s->bytes = layout_bytes(&s->l, s->ktype, s->sum);
	return MPI_SUCCESS;
}

/*
 * Keeps only the first @n bytes of a side (@n is less than s->bytes and a
 * multiple of its element size).  A cut inside a repetition needs an
 * explicit block list: it is allocated in *@scratch, which the caller frees
 * after the operation.  MPI class (recorded).
 */
int mpirma_rma_side_truncate(struct mpirma_rma_side *s, uint64_t n,
			      struct mpirma_block **scratch)
{
	const struct mpirma_block *b =
		(const struct mpirma_block *)(uintptr_t)s->l.blocks;
	uint64_t per, full, rem, nb, i, j, k = 0;
	struct mpirma_block *out;

	s->bytes = n;
	if (!s->l.nblocks) {
		s->l.count = n / mpirma_type_info[s->ktype].size;
		return MPI_SUCCESS;
	}
	per = layout_bytes(&s->l, s->ktype, s->sum) / s->l.count;
	full = n / per;
	rem = n % per;
	if (!rem) {
		s->l.count = full;
		return MPI_SUCCESS;
	}
	nb = full * s->l.nblocks + s->l.nblocks;
	if (nb > MPIRMA_MAX_BLOCKS)
		return mpirma_err(MPI_ERR_TYPE, "the datatype would need %llu "
				  "blocks to describe the part of it the data "
				  "fills", (unsigned long long)nb);
	out = malloc(nb * sizeof(*out));
	if (!out)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i <= full; i++) {
		for (j = 0; j < s->l.nblocks && (i < full || rem); j++) {
			out[k].disp = b[j].disp + (int64_t)i * s->l.extent;
			out[k].len = b[j].len;
			if (i == full) {
				if (out[k].len > rem)
					out[k].len = rem;
				rem -= out[k].len;
			}
			k++;
		}
	}
	s->l.blocks = (uint64_t)(uintptr_t)out;
	s->l.nblocks = (uint32_t)k;
	s->sum = NULL;
	s->l.count = 1;
	s->l.extent = 0;
	*scratch = out;
	return MPI_SUCCESS;
}

/* Is @dt one of the predefined datatypes? */
bool mpirma_rma_predefined(MPI_Datatype dt)
{
	struct mpirma_dtype *t = mpirma_dtype_get(dt);

	return t && t->predefined;
}

static const char *type_class_name(unsigned int c)
{
	static const char *const names[] = {
		[MPIRMA_CLASS_OPAQUE] = "character",
		[MPIRMA_CLASS_BYTE] = "byte",
		[MPIRMA_CLASS_BOOL] = "logical",
		[MPIRMA_CLASS_INT] = "integer",
		[MPIRMA_CLASS_REAL] = "floating-point",
		[MPIRMA_CLASS_COMPLEX] = "complex",
		[MPIRMA_CLASS_PAIR] = "value-index pair",
	};

	return c < MPIRMA_ARRAY_SIZE(names) && names[c] ? names[c] : "other";
}

/*
 * Put and get: the two sides' basic types must agree (MPI 3.1, 11.3).  Bytes
 * (and the opaque characters) and mixed types, which travel in the byte
 * view, match anything; otherwise the kind of number and its size must be
 * the same (MPI_INT and MPI_UNSIGNED are let through, as messages let them).
 * MPI class (recorded).
 */
int mpirma_rma_signature_check(unsigned int mine, unsigned int target)
{
	const struct mpirma_type_info *a = &mpirma_type_info[mine];
	const struct mpirma_type_info *b = &mpirma_type_info[target];

	if (a->type_class == MPIRMA_CLASS_BYTE ||
	    a->type_class == MPIRMA_CLASS_OPAQUE ||
	    b->type_class == MPIRMA_CLASS_BYTE ||
	    b->type_class == MPIRMA_CLASS_OPAQUE)
		return MPI_SUCCESS;
	if (a->type_class == b->type_class && a->size == b->size)
		return MPI_SUCCESS;
	return mpirma_err(MPI_ERR_TYPE, "the type signatures do not match: "
			  "the origin's basic elements are %u-byte %s, the "
			  "target's %u-byte %s", a->size,
			  type_class_name(a->type_class), b->size,
			  type_class_name(b->type_class));
}

/* rma_sides.h */
bool mpirma_layout_reach(const struct mpirma_layout *l, unsigned int size,
			 const struct mpirma_blocks_sum *sum,
			 struct mpirma_reach *r)
{
	const struct mpirma_block *b =
		(const struct mpirma_block *)(uintptr_t)l->blocks;
	struct mpirma_blocks_sum own;
	int64_t a, z, shift;
	uint32_t i;

	r->whole = r->apart = true;
	if (!l->nblocks) {
		if (__builtin_mul_overflow(l->count, (uint64_t)size, &r->bytes) ||
		    r->bytes > INT64_MAX)
			return false;
		r->lo = 0;
		r->hi = (int64_t)r->bytes;
		return true;
	}
	if (!sum) {
		mpirma_blocks_sum(b, l->nblocks, &own);
		sum = &own;
	}
	if (!sum->fits)
		return false;
	if (!(size & (size - 1))) {
		r->whole = !(sum->lens_or & (size - 1));
	} else {
		/* a division per block, only for sizes not a power of two */
		for (i = 0; i < l->nblocks && r->whole; i++)
			r->whole = !(b[i].len % size);
	}
	r->apart = sum->ordered;
	if (__builtin_mul_overflow(sum->data, l->count, &r->bytes))
		return false;
	if (!r->bytes) {
		r->lo = r->hi = 0;
		return true;
	}
	a = sum->lo;
	z = sum->hi;
	if (l->count - 1 > INT64_MAX ||
	    __builtin_mul_overflow((int64_t)(l->count - 1), l->extent, &shift))
		return false;
	/* repetitions that may interleave */
	if (l->count > 1 && (l->extent <= 0 || l->extent < z - a))
		r->apart = false;
	if (shift < 0 ? __builtin_add_overflow(a, shift, &a) :
	    __builtin_add_overflow(z, shift, &z))
		return false;
	r->lo = a;
	r->hi = z;
	return true;
}
