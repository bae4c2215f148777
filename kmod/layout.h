/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layouts: what a derived datatype flattens to (see struct mpirma_layout).
 *
 * A layout is copied in and validated once (mpirma_layout_load), then walked
 * with a cursor that yields contiguous byte runs in element order.  Offsets
 * are relative to the layout's base; ranges are half-open [lo, hi).
 */
#ifndef MPIRMA_LAYOUT_H
#define MPIRMA_LAYOUT_H

#include <linux/types.h>

#include "mpirma_uapi.h"

struct mpirma_klayout {
	u64 addr;
	struct mpirma_block *blocks;	/* kvmalloc'ed, or &single */
	struct mpirma_block single;
	u32 nblocks;
	u64 count;
	s64 extent;
	u64 bytes;			/* total bytes of all elements */
	s64 lo, hi;			/* span of all elements, from addr */
	s64 rep_span;			/* hi - lo of one repetition */
};

struct mpirma_cursor {
	const struct mpirma_klayout *l;
	u64 rep;			/* current repetition */
	u32 block;			/* current block */
	u64 done;			/* bytes consumed of the current block */
};

int mpirma_layout_load(struct mpirma_klayout *l, const struct mpirma_layout *ul,
		       u32 esize);
void mpirma_layout_free(struct mpirma_klayout *l);
bool mpirma_layout_unused(const struct mpirma_layout *ul);
int mpirma_layout_check_overlap(const struct mpirma_klayout *l);

void mpirma_cursor_init(struct mpirma_cursor *c, const struct mpirma_klayout *l);
/* Next run of at most @max bytes: its offset from the base; 0 at the end. */
u64 mpirma_cursor_next(struct mpirma_cursor *c, u64 max, s64 *off);

#endif /* MPIRMA_LAYOUT_H */
