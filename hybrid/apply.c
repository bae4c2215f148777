// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apply.c - what the agent (agent.c) does with a message it received:
 * decodes it, builds the kernel operations and applies them through the
 * module.  A batch of puts and accumulates is applied with one
 * MPIRMA_IOC_RMA and acknowledged with one reply (the first failure's
 * status and place); a run whose entries touch no element twice is one
 * kernel operation with block lists (run_ops).  An epoch's batch may hold
 * operations with a result, whose results follow the reply's status in
 * record order.  The kernel checks every operation again here.  Takes no
 * lock: its callers hold the serve lock, which protects scratch.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "apply.h"
#include "rma_args.h"

/* A run entry's target offset in bytes, and its place in the run. */
struct run_key {
	uint64_t off;
	uint32_t entry;
};

/* The reply buffer and a batch's kernel operations (under the serve lock). */
static struct {
	struct ship_reply *reply;	/* grown as results need */
	size_t cap;
	/* a batch's kernel operations, with room for nops of each: */
	struct mpirma_op *ops;
	uint32_t *first;		/* an operation's index in the message */
	struct mpirma_block *blocks;	/* 2 per operation: a run's target, origin */
	struct run_key *keys;		/* a run's entries by target offset */
	uint32_t nops;
} scratch;

/* A kernel operation of record @h's kind, type and op on the agent's @s. */
static void op_head(struct mpirma_op *op, const struct ship_hdr *h,
		    const struct hy_slot_target *s)
{
	memset(op, 0, sizeof(*op));
	op->kind = h->kind;
	op->type = h->type;
	op->op = h->op;
	op->target_rank = s->erank;
}

/*
 * The kernel operation of record @h on the agent's window @s; @result
 * receives the previous target contents when the kind has them.
 */
static void record_op(const struct ship_hdr *h,
		      const struct hy_slot_target *s, void *result,
		      struct mpirma_op *op)
{
	unsigned int size = mpirma_rma_elem_size(h->type);
	const char *p = (const char *)(h + 1);

	op_head(op, h, s);
	op->target_disp = h->disp;
	op->target.nblocks = h->nblocks;
	op->target.count = h->count;
	op->target.extent = h->extent;
	if (h->nblocks)
		op->target.blocks = (uint64_t)(uintptr_t)p;
	p += h->nblocks * sizeof(struct mpirma_block);
	if (wire_has_origin(h->kind, h->op)) {
		op->origin.addr = (uint64_t)(uintptr_t)p;
		op->origin.count = h->nelem;
		p += h->nelem * size;
	}
	if (wire_has_result(h->kind)) {
		op->result.addr = (uint64_t)(uintptr_t)result;
		op->result.count = h->nelem;
	}
	if (h->kind == MPIRMA_KIND_CAS)
		op->compare = (uint64_t)(uintptr_t)p;
}

/*
 * Sorts the @n keys @k by offset; do entries of @len bytes there overlap?
 * A shell sort: no comparison callback, whose indirect calls cost much.
 */
static bool run_keys_overlap(struct run_key *k, uint32_t n, uint64_t len)
{
	static const uint32_t gaps[] = { 57, 23, 10, 4, 1 };

	for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++)
		for (uint32_t i = gaps[g]; i < n; i++) {
			struct run_key v = k[i];
			uint32_t j = i;

			for (; j >= gaps[g] && k[j - gaps[g]].off > v.off;
			     j -= gaps[g])
				k[j] = k[j - gaps[g]];
			k[j] = v;
		}
	for (uint32_t i = 1; i < n; i++)
		if (k[i].off - k[i - 1].off < len)
			return true;
	return false;
}

/*
 * The kernel operations of run @h on the agent's window @s, into @op (with
 * @b: room for two blocks per entry); their number.  Entries that touch
 * no element twice are one operation whose block lists name them in target
 * order (their order does not matter then, and the kernel's overlap check
 * of a sorted list is one pass), which the kernel applies in one pass, per
 * element atomic as ever; others are an operation each, in order.
 */
static uint32_t run_ops(const struct ship_hdr *h,
			const struct hy_slot_target *s, struct mpirma_op *op,
			struct mpirma_block *b)
{
	unsigned int size = mpirma_rma_elem_size(h->type);
	uint64_t unit = (uint64_t)h->extent, len = h->count * size, disp;
	size_t e = wire_run_entry_len(h->count, size);
	const char *p = (const char *)(h + 1);
	uint32_t n = (uint32_t)h->nelem, i;
	struct run_key *k = scratch.keys;
	bool one = n > 1 && unit;

	for (i = 0; one && i < n; i++) {
		memcpy(&disp, p + i * e, sizeof(disp));
		if (disp > (uint64_t)INT64_MAX / unit)
			one = false;
		k[i] = (struct run_key){ .off = disp * unit, .entry = i };
	}
	if (one && !run_keys_overlap(k, n, len)) {
		for (i = 0; i < n; i++) {
			b[i] = (struct mpirma_block){ .disp = (int64_t)k[i].off,
						      .len = len };
			b[n + i] = (struct mpirma_block){
				.disp = (int64_t)(k[i].entry * e +
						  sizeof(uint64_t)),
				.len = len };
		}
		op_head(op, h, s);
		op->target = (struct mpirma_layout){
			.blocks = (uint64_t)(uintptr_t)b, .nblocks = n,
			.count = 1 };
		op->origin = (struct mpirma_layout){
			.addr = (uint64_t)(uintptr_t)p,
			.blocks = (uint64_t)(uintptr_t)(b + n), .nblocks = n,
			.count = 1 };
		return 1;
	}
	for (i = 0; i < n; i++, p += e, op++) {
		op_head(op, h, s);
		memcpy(&op->target_disp, p, sizeof(op->target_disp));
		op->target.count = h->count;
		op->origin.addr = (uint64_t)(uintptr_t)(p + sizeof(uint64_t));
		op->origin.count = h->count;
	}
	return n;
}

/* Room in serving for the kernel operations of a batch of @n operations. */
static bool serving_room(uint32_t n)
{
	void *q;

	if (n <= scratch.nops)
		return true;
	q = realloc(scratch.ops, n * sizeof(*scratch.ops));
	if (q)
		scratch.ops = q;
	q = q ? realloc(scratch.first, n * sizeof(*scratch.first)) : NULL;
	if (q)
		scratch.first = q;
	q = q ? realloc(scratch.blocks, 2 * n * sizeof(*scratch.blocks)) : NULL;
	if (q)
		scratch.blocks = q;
	q = q ? realloc(scratch.keys, n * sizeof(*scratch.keys)) : NULL;
	if (q) {
		scratch.keys = q;
		scratch.nops = n;
	}
	return q;
}

struct ship_reply *hy_apply_reply(size_t n)
{
	size_t need = sizeof(*scratch.reply) + n;
	struct ship_reply *q;

	if (need <= scratch.cap && scratch.reply)
		return scratch.reply;
	q = realloc(scratch.reply, need);
	if (!q)
		return NULL;
	scratch.reply = q;
	scratch.cap = need;
	return q;
}

int hy_apply_batch(const struct ship_hdr *h, size_t n,
		   const struct hy_slot_target *s, uint32_t *index,
		   bool results, size_t *rbytes)
{
	const char *m = (const char *)h;
	const struct ship_hdr *r;
	struct mpirma_op *ops;
	uint32_t nops = 0, done, nfailed;
	size_t off, len, res = 0;
	int ret;

	for (off = 0; off < n; off += len, nops += wire_record_ops(r)) {
		r = (const struct ship_hdr *)(m + off);
		if (n - off < sizeof(*r) || r->slot != h->slot ||
		    (wire_has_result(r->kind) && (!results || r->flags ||
		     r->kind > MPIRMA_KIND_CAS)) ||
		    wire_record_ops(r) > HY_BATCH_OPS - nops)
			return -EINVAL;
		len = wire_record_len(r);
		if (!len || len > n - off)
			return -EINVAL;
		if (wire_has_result(r->kind))
			res += r->nelem * mpirma_rma_elem_size(r->type);
	}
	if (!serving_room(nops) || !hy_apply_reply(res))
		return -ENOMEM;
	ops = scratch.ops;
	res = 0;
	for (off = 0, nops = 0, done = 0; off < n; off += wire_record_len(r)) {
		uint32_t k = 1;
		char *out = (char *)(scratch.reply + 1) + res;

		r = (const struct ship_hdr *)(m + off);
		if (r->flags == HY_REC_RUN)
			k = run_ops(r, s, &ops[nops], &scratch.blocks[2 * done]);
		else
			record_op(r, s, out, &ops[nops]);
		if (wire_has_result(r->kind))
			res += r->nelem * mpirma_rma_elem_size(r->type);
		for (uint32_t j = 0; j < k; j++)
			scratch.first[nops + j] = done + (k > 1 ? j : 0);
		nops += k;
		done += wire_record_ops(r);
	}
	*rbytes = res;
	ret = nops ? mpirma_rma_apply(s->win_id, ops, nops, &nfailed) : 0;
	for (uint32_t k = 0; !ret && nfailed && k < nops; k++)
		if (ops[k].status) {
			*index = scratch.first[k];
			ret = ops[k].status;
			break;
		}
	return ret;
}

int hy_apply_msg(const struct ship_hdr *h, size_t n, int *rlen,
		 uint32_t *index)
{
	unsigned int size;
	struct hy_slot_target s;
	struct mpirma_op op;
	uint32_t nfailed;
	size_t need;
	int ret;

	*rlen = sizeof(*scratch.reply);
	*index = 0;
	if (n < sizeof(*h))
		return -EINVAL;
	if (!hy_slot_target(h->slot, &s))
		return -EBADF;
	if (!wire_has_result(h->kind))
		return hy_apply_batch(h, n, &s, index, false, &need);
	size = mpirma_rma_elem_size(h->type);
	if (!size || h->kind > MPIRMA_KIND_CAS || wire_msg_len(h, size) != n)
		return -EINVAL;
	need = sizeof(*scratch.reply) + h->nelem * size;
	if (!hy_apply_reply(h->nelem * size))
		return -ENOMEM;
	record_op(h, &s, scratch.reply + 1, &op);
	ret = mpirma_rma_apply(s.win_id, &op, 1, &nfailed);
	if (!ret && !op.status)
		*rlen = (int)need;
	return ret ? ret : op.status;
}

void hy_apply_free(void)
{
	free(scratch.reply);
	free(scratch.ops);
	free(scratch.first);
	free(scratch.blocks);
	free(scratch.keys);
	memset(&scratch, 0, sizeof(scratch));
}
