// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wire.c - encoding and decoding the messages of wire.h: how long a
 * message or a record must be (the agent checks every message it receives
 * against it), where an operation of a batch lies, and packing a layout's
 * data into a message and back.  Calls nothing of the layer's.
 */
#include <limits.h>
#include <string.h>

#include "rma_args.h"
#include "wire.h"

/* The elements a layout covers (the kernel checks the sides agree). */
uint64_t wire_layout_elems(const struct mpirma_layout *l, unsigned int size)
{
	const struct mpirma_block *b =
		(const struct mpirma_block *)(uintptr_t)l->blocks;
	uint64_t per = 0;

	if (!l->nblocks)
		return l->count;
	for (uint32_t i = 0; i < l->nblocks; i++)
		per += b[i].len;
	return l->count * (per / size);
}

/* Copies the data of layout @l to or from the packed buffer @buf. */
void wire_layout_copy(const struct mpirma_layout *l, unsigned int size,
		      char *buf, bool pack)
{
	const struct mpirma_block *b =
		(const struct mpirma_block *)(uintptr_t)l->blocks;
	char *base = (char *)(uintptr_t)l->addr;

	if (!l->nblocks) {
		if (pack)
			memcpy(buf, base, l->count * size);
		else
			memcpy(base, buf, l->count * size);
		return;
	}
	for (uint64_t i = 0; i < l->count; i++)
		for (uint32_t j = 0; j < l->nblocks; j++) {
			char *p = base + (int64_t)i * l->extent + b[j].disp;

			if (pack)
				memcpy(buf, p, b[j].len);
			else
				memcpy(p, buf, b[j].len);
			buf += b[j].len;
		}
}

/* Bytes a message with header @h must have; 0 when it cannot be valid. */
size_t wire_msg_len(const struct ship_hdr *h, unsigned int size)
{
	uint64_t data = 0, len;

	if (h->flags == HY_REC_RUN) {
		if (h->nblocks || !h->count || h->count > HY_RUN_BYTES / size ||
		    h->nelem > HY_BATCH_OPS)
			return 0;
		return sizeof(*h) + h->nelem * wire_run_entry_len(h->count, size);
	}
	if (h->flags || h->nblocks > MPIRMA_MAX_BLOCKS ||
	    h->nelem > INT_MAX / size)
		return 0;
	if (wire_has_origin(h->kind, h->op))
		data += h->nelem * size;
	if (h->kind == MPIRMA_KIND_CAS)
		data += size;
	len = sizeof(*h) + (uint64_t)h->nblocks * sizeof(struct mpirma_block) +
	      data;
	return len > INT_MAX ? 0 : (size_t)len;
}

/* Bytes of a record of a batch with header @h (padded); 0: invalid. */
size_t wire_record_len(const struct ship_hdr *h)
{
	unsigned int size = mpirma_rma_elem_size(h->type);
	size_t len = size ? wire_msg_len(h, size) : 0;

	return len ? wire_padded(len) : 0;
}

/*
 * Operation @index of message @h, which its sender built (so it is valid):
 * its record, and *@disp its target displacement.
 */
const struct ship_hdr *wire_record_at(const struct ship_hdr *h,
				      uint32_t index, uint64_t *disp)
{
	while (index >= wire_record_ops(h)) {
		index -= wire_record_ops(h);
		h = (const struct ship_hdr *)((const char *)h + wire_record_len(h));
	}
	*disp = h->disp;
	if (h->flags == HY_REC_RUN) {
		size_t e = wire_run_entry_len(h->count,
					      mpirma_rma_elem_size(h->type));

		memcpy(disp, (const char *)(h + 1) + index * e, sizeof(*disp));
	}
	return h;
}
