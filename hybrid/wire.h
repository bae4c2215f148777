/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wire.h - what travels between an origin (origin.c) and a target's agent
 * (agent.c, agent_slots.c) in the frames of the agents' transport (net.h):
 * the tags, the message kinds, the header of an operation and its reply,
 * and the records a batch is made of.  Encoding and decoding are in
 * wire.c.
 *
 * A message on HY_TAG_OP is one ship_hdr and what it announces: an
 * operation with a result (header, target blocks, origin data, compare
 * value), a batch of puts and accumulates (records, each padded to 8
 * bytes), a lock or unlock request, a retry (a node-local origin gave
 * back a lock the agent waits for: agent_slots.c), or
 * HY_KIND_EPOCH: a lock of the target's part (op: its type) taken for the
 * records that follow, a batch that may hold operations with a result,
 * and released after them when flags has HY_EPOCH_RELEASE (a whole
 * passive-target epoch in one message); its reply, the results in record
 * order after the status, comes on HY_TAG_GRANT + slot.  In a batch,
 * a record with HY_REC_RUN in @flags is a run: @nelem entries of one kind,
 * type, op and count, each a uint64_t displacement and the origin data
 * padded to 8 bytes, so a scattered accumulate costs 16 bytes, not 56.
 */
#ifndef MPIRMA_HYBRID_WIRE_H
#define MPIRMA_HYBRID_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpirma_uapi.h"

/* The frames' tags; a slot's grant tag (HY_TAG_GRANT + slot) <= hy.tag_ub. */
enum {
	HY_TAG_OP,		/* origin -> agent: a message */
	HY_TAG_REPLY,		/* agent -> origin: status (and result) */
	HY_TAG_GRANT,		/* agent -> origin: a lock, + the slot */
};

#define HY_KIND_LOCK	0x100	/* a message on HY_TAG_OP: lock (op: type) */
#define HY_KIND_UNLOCK	0x101	/* ... unlock */
#define HY_KIND_EPOCH	0x103	/* ... lock, a batch, maybe unlock */
#define HY_KIND_RETRY	0x104	/* ... a node-local origin released the lock */
#define HY_EPOCH_RELEASE 1	/* ship_hdr.flags of HY_KIND_EPOCH: unlock */
#define HY_LOCK_SHARED	1
#define HY_LOCK_EXCL	2
#define HY_BATCH_OPS	256	/* accumulates per message, at most ... */
#define HY_BATCH_BYTES	65536	/* ... and bytes (one larger goes alone) */
#define HY_REC_RUN	1	/* ship_hdr.flags: a run of entries (batches only) */
#define HY_RUN_BYTES	512	/* origin data of one entry, at most */

struct ship_hdr {
	uint32_t slot;
	uint16_t kind;
	uint16_t type;
	uint16_t op;
	uint16_t flags;		/* HY_REC_*, else 0 */
	uint32_t nblocks;
	uint64_t disp;
	uint64_t count;
	int64_t extent;
	uint64_t nelem;
};

/* What comes back, followed by the result data. */
struct ship_reply {
	int32_t status;
	uint32_t index;		/* the failed operation's place in the message */
};

/* Does an operation of @kind and @op carry origin data? */
static inline bool wire_has_origin(unsigned int kind, unsigned int op)
{
	return kind != MPIRMA_KIND_GET &&
	       !(kind == MPIRMA_KIND_GET_ACC && op == MPIRMA_OP_NO_OP);
}

/* Puts and accumulates have none: they are batched. */
static inline bool wire_has_result(unsigned int kind)
{
	return kind != MPIRMA_KIND_ACC && kind != MPIRMA_KIND_PUT;
}

/* Records of a batch start 8-byte aligned: @len bytes with their padding. */
static inline size_t wire_padded(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

/* Bytes of one entry of a run of @count elements of @size bytes. */
static inline size_t wire_run_entry_len(uint64_t count, unsigned int size)
{
	return sizeof(uint64_t) + ((count * size + 7) & ~(uint64_t)7);
}

/* Operations in record @h: a run's entries, else 1. */
static inline uint32_t wire_record_ops(const struct ship_hdr *h)
{
	return h->flags == HY_REC_RUN ? (uint32_t)h->nelem : 1;
}

/* Bytes a message with header @h must have; 0 when it cannot be valid. */
size_t wire_msg_len(const struct ship_hdr *h, unsigned int size);

/* Bytes of a record of a batch with header @h (padded); 0: invalid. */
size_t wire_record_len(const struct ship_hdr *h);

/*
 * Operation @index of message @h, which its sender built (so it is valid):
 * its record, and *@disp its target displacement.
 */
const struct ship_hdr *wire_record_at(const struct ship_hdr *h,
				      uint32_t index, uint64_t *disp);

/* The elements a layout covers (the kernel checks the sides agree). */
uint64_t wire_layout_elems(const struct mpirma_layout *l, unsigned int size);

/* Copies the data of layout @l to (@pack) or from the packed buffer @buf. */
void wire_layout_copy(const struct mpirma_layout *l, unsigned int size,
		      char *buf, bool pack);

#endif /* MPIRMA_HYBRID_WIRE_H */
