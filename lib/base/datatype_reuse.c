// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_reuse.c - types freed and made again.  ARMCI-MPI (so Global
 * Arrays and NWChem) makes a subarray type for each strided operation,
 * commits it, uses it once and frees it: building, flattening and freeing
 * its intermediate types cost three times the accumulate of 2x2 doubles
 * it served.  A subarray type freed while nothing else holds it is kept
 * (the last RECENT of them), whole and flattened; the constructor called
 * again with the same arguments on the same old type takes it back under
 * a new handle, uncommitted, without name or attributes, as a new type
 * is: its commit then finds it flat.
 *
 * The arguments a type records (MPI_Type_get_contents) are its
 * construction, so equal arguments make an equal type.  Everything here
 * runs under the library lock, as the constructors and MPI_Type_free do.
 */
#include <string.h>

#include "datatype_impl.h"

#define RECENT	8

static struct mpirma_dtype *recent[RECENT];	/* NULL: empty */
static unsigned int oldest;			/* the slot to fill next */

/* datatype_impl.h */
bool mpirma_dtype_keep(struct mpirma_dtype *t)
{
	struct mpirma_dtype *drop;

	if (t->refs != 1 || t->combiner != MPIRMA_COMBINER_SUBARRAY)
		return false;
	drop = recent[oldest];
	recent[oldest] = t;
	oldest = (oldest + 1) % RECENT;
	mpirma_dtype_unref(drop);
	return true;
}

static bool same_mem(const void *a, const void *b, size_t n)
{
	return !n || !memcmp(a, b, n);
}

static bool same_args(const struct mpirma_dtype_args *a,
		      const struct mpirma_dtype_args *b)
{
	return a->ni == b->ni && a->na == b->na && a->nc == b->nc &&
	       a->nt == b->nt &&
	       same_mem(a->ints, b->ints, a->ni * sizeof(*a->ints)) &&
	       same_mem(a->aints, b->aints, a->na * sizeof(*a->aints)) &&
	       same_mem(a->counts, b->counts, a->nc * sizeof(*a->counts)) &&
	       same_mem(a->types, b->types, a->nt * sizeof(*a->types));
}

/* datatype_impl.h */
struct mpirma_dtype *mpirma_dtype_take(int combiner,
				       const struct mpirma_dtype_args *want)
{
	struct mpirma_dtype *t;
	int i;

	for (i = 0; i < RECENT; i++) {
		t = recent[i];
		if (!t || t->combiner != combiner || !same_args(&t->args, want))
			continue;
		recent[i] = NULL;
		t->committed = false;
		t->hdr.name[0] = '\0';	/* the free deleted the attributes */
		return t;
	}
	return NULL;
}
