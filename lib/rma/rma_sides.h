/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rma_sides.h - the sides of an RMA call (origin, target, result) as
 * kernel layouts, what a layout reaches, and the type agreement between
 * them (lib/rma/rma_sides.c); private to lib/rma, which builds the
 * operations (rma.c) and walks block lists (rma_blocks.c).
 */
#ifndef MPIRMA_LIB_RMA_SIDES_H
#define MPIRMA_LIB_RMA_SIDES_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

struct mpirma_blocks_sum;

/*
 * One side of an operation: its datatype, its kernel layout (element view
 * when all basic components are one type, else bytes), the kernel type the
 * layout is in, the number of data bytes it covers, and what one instance
 * of its datatype's block list reaches (NULL: no block list, or one of the
 * call's own).
 */
struct mpirma_rma_side {
	MPI_Datatype dt;
	MPI_Count count;
	const void *addr;
	struct mpirma_layout l;
	unsigned int ktype;
	uint64_t bytes;
	const struct mpirma_blocks_sum *sum;
};

/* What the block lists of an operation's sides reach (NULL: walk them). */
struct mpirma_op_sums {
	const struct mpirma_blocks_sum *origin, *target, *result;
};

/*
 * Describes @count elements of @dt at @addr (NULL on the target side) in
 * the element view.  MPI class (recorded); @what names the side.
 */
int mpirma_rma_side_init(struct mpirma_rma_side *s, MPI_Datatype dt,
			  MPI_Count count, const void *addr, const char *what);
/* Re-describes a side in the byte view (put and get of differing types). */
int mpirma_rma_side_to_bytes(struct mpirma_rma_side *s);
/*
 * Keeps only the first @n bytes of a side (less than s->bytes, a multiple
 * of its element size); a block list it needs goes to *@scratch, which
 * the caller frees after the operation.  MPI class (recorded).
 */
int mpirma_rma_side_truncate(struct mpirma_rma_side *s, uint64_t n,
			      struct mpirma_block **scratch);
/* Is @dt one of the predefined datatypes? */
bool mpirma_rma_predefined(MPI_Datatype dt);
/*
 * Put and get: do the sides' basic kernel types @mine and @target agree?
 * MPI class (recorded).
 */
int mpirma_rma_signature_check(unsigned int mine, unsigned int target);

/*
 * What layout @l of elements of @size bytes reaches from its start: the
 * bytes [lo, hi) it touches and the data it holds; whether every block is
 * a whole number of elements (whole), and whether, as far as a look at its
 * block list in order can tell, no byte is named twice (apart: blocks in
 * order and apart, repetitions that cannot interleave).  @sum: what one
 * instance of its block list reaches, or NULL to walk the list.  False when
 * the arithmetic does not fit in 64 bits.
 */
struct mpirma_reach {
	int64_t lo, hi;
	uint64_t bytes;
	bool whole, apart;
};
bool mpirma_layout_reach(const struct mpirma_layout *l, unsigned int size,
			 const struct mpirma_blocks_sum *sum,
			 struct mpirma_reach *r);

#endif /* MPIRMA_LIB_RMA_SIDES_H */
