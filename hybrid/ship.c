// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ship.c - operations for targets on other nodes: shipped over the host
 * MPI to an agent thread of the target process, which applies them through
 * the module, so that every put, get, accumulate, get_accumulate,
 * fetch_and_op and compare_and_swap on a target runs in that target node's
 * module, and the accumulate-like ones in its atomicity domain, atomic per
 * element with the node's own origins (the kernel, or the direct path's
 * compare-and-exchange loops, which the kernel's native strategy shares).
 * The agent also keeps the lock of its process's part of every such
 * window, for local and remote origins alike (serve_lock).
 *
 * The origin builds the kernel operation with the engine's own code
 * (mpirma_rma_prepare: the MPI call's checks and datatype layouts), packs
 * the origin data, and sends header, target block list and data to the
 * target's world rank on hy.ship_comm.  The agent receives any origin's
 * operations in the order each origin sent them (one ordered channel per
 * origin: same source, tag and communicator), applies each with one
 * MPIRMA_IOC_RMA on the member fd (mpirma_rma_apply, which touches no
 * engine state and takes no lock of the layer's), and replies with the
 * status and, for get_accumulate, fetch_and_op and compare_and_swap, the
 * previous target contents.  So accumulate_ordering holds, and an agent
 * never waits for its own process: a rank blocked in an engine fence or
 * lock (holding hy.lock) still serves the other nodes.  The kernel checks
 * every operation again at the target (range, type, op).
 *
 * Puts and plain accumulates to one target are batched at the origin (struct
 * hy_batch): each message carries up to HY_BATCH_OPS of them, which the
 * agent applies with one MPIRMA_IOC_RMA, in order, and acknowledges with
 * one reply (the first failure's status and place).  A batch leaves when
 * it is full, before an operation with a result to the same target (so
 * accumulate_ordering holds across both), and in the call that completes
 * it (hy_ship_complete: flush, unlock, fence, complete, free), which then
 * collects its acknowledgement.  Without batching every accumulate cost a
 * message, a wake-up of the agent, an ioctl and a reply.  A small put or
 * accumulate contiguous on both sides joins a run (HY_REC_RUN) of its
 * batch's last record when kind, type, op and count match: 8 bytes of
 * displacement and its data, not a header each; the agent applies a run
 * whose entries are disjoint as one kernel operation with block lists
 * (run_ops), so a thousand scattered accumulates cost a few kernel
 * operations, not a thousand.  An operation
 * with a result waits for the reply before it returns (the standard lets
 * an operation complete early).  The origin's
 * receive of a reply is posted before the operation is sent, both under
 * one lock, so replies, which come back in sending order, match them.
 * The agent's side receives into a buffer posted ahead (inbox_post), so
 * that a waiting thread tests for its own replies and for messages to
 * serve at once.
 */
#define _GNU_SOURCE		/* pthread_setname_np */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hybrid.h"
#include "ship.h"

#define HY_TAG_OP	0x5348	/* origin -> agent: an operation */
#define HY_TAG_REPLY	0x5349	/* agent -> origin: status (and result) */
#define HY_TAG_LONG	0x534a	/* origin -> agent: a long message's bytes */
#define HY_TAG_GRANT	0x6000	/* agent -> origin: a lock, + the slot */
#define HY_KIND_LOCK	0x100	/* a message on HY_TAG_OP: lock (op: type) */
#define HY_KIND_UNLOCK	0x101	/* ... unlock */
#define HY_KIND_LONG	0x102	/* ... the next HY_TAG_LONG one is the
				   message, of nelem bytes */
#define HY_LOCK_SHARED	1
#define HY_LOCK_EXCL	2
#define HY_QUIT		UINT32_MAX	/* slot of the message that stops the agent */
#define HY_PENDING_MAX	1024	/* acknowledgements kept before waiting */
#define HY_BATCH_OPS	256	/* accumulates per message, at most ... */
#define HY_BATCH_BYTES	65536	/* ... and bytes (one larger goes alone) */
#define HY_INBOX_BYTES	HY_BATCH_BYTES	/* a longer message: HY_KIND_LONG */
#define HY_WAIT_MAX	3	/* requests of one hy_ship_wait, at most */
#define HY_REC_RUN	1	/* ship_hdr.flags: a run of entries (batches only) */
#define HY_RUN_BYTES	512	/* origin data of one entry, at most */
#define HY_IDLE_MIN_NS	2000	/* the agent's sleeps between polls: 2 us ... */
#define HY_IDLE_MAX_NS	2000000	/* ... to 2 ms */
#define HY_IDLE_SHARE	20	/* idle, a sleep of 20 rounds' cost per round */

/*
 * What travels: header, target blocks, origin data, compare value.  In a
 * batch, a record with HY_REC_RUN in @flags is a run instead: @nelem
 * entries of one kind, type and op, each a uint64_t displacement and @count
 * contiguous elements of origin data padded to 8 bytes (no blocks): the
 * common scattered accumulate costs 16 bytes on the wire instead of 56.
 */
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

/* A run entry's target offset in bytes, and its place in the run. */
struct run_key {
	uint64_t off;
	uint32_t entry;
};

/* What comes back, followed by the result data. */
struct ship_reply {
	int32_t status;
	uint32_t index;		/* the failed operation's place in the message */
};

/*
 * Accumulates not yet shipped to one target, each a record (header, blocks,
 * data) padded to 8 bytes, in issue order; under hy_span.lock.
 */
struct hy_batch {
	char *buf;
	size_t len;
	size_t cap;
	uint32_t nops;		/* operations (a run's entries each count) */
	size_t run;		/* offset + 1 of the last record if a run, or 0 */
};

/**
 * struct hy_pending - shipped accumulates waiting for their acknowledgement
 * @req: the reply's receive and the message's send
 * @msg: the message as sent (its records name a failure's displacement)
 * @reply: the acknowledgement
 * @target: window rank of the target
 */
struct hy_pending {
	MPI_Request req[2];
	struct ship_hdr *msg;
	struct ship_reply *reply;
	int target;
};

/* A lock request the agent cannot grant yet. */
struct lock_wait {
	int origin;		/* its rank in hy.ship_comm */
	int type;		/* HY_LOCK_* */
};

/*
 * The agent's windows: per slot, the kernel id and this process's rank,
 * and the lock of this process's part of the window, which the agent
 * keeps for every origin (local and remote alike, so MPI_LOCK_EXCLUSIVE
 * excludes both): @shared holders, or @excl, and the requests waiting in
 * arrival order (@wait, @nwait of @capwait), granted first come first
 * served.
 */
struct agent_slot {
	bool used;
	uint32_t win_id;
	uint32_t erank;
	int shared;
	bool excl;
	struct lock_wait *wait;
	int nwait;
	int capwait;
};

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER; /* slots */
static struct agent_slot *slots;
static int nslots;

/* Keeps each reply's receive and its operation's send together. */
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_t agent_thread;

/*
 * Receiving and applying the shipped messages, one thread at a time (the
 * agent, or a program thread in an assisted wait), so that each origin's
 * are applied in the order it sent them; also protects serving, the
 * reply buffer and agent_stats.messages.
 */
static pthread_mutex_t serve_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
	struct ship_reply *reply;	/* grown as results need */
	size_t cap;
	/* a batch's kernel operations, with room for nops of each: */
	struct mpirma_op *ops;
	uint32_t *first;		/* an operation's index in the message */
	struct mpirma_block *blocks;	/* 2 per operation: a run's target, origin */
	struct run_key *keys;		/* a run's entries by target offset */
	uint32_t nops;
	bool quit;			/* HY_QUIT has come */
	MPI_Request inbox;		/* the receive of the next message */
	struct ship_hdr *inbox_buf;	/* ... into HY_INBOX_BYTES */
} serving = { .inbox = MPI_REQUEST_NULL };

/* Program threads in an assisted wait (atomic): they serve, the agent rests. */
static int waiters;

/* What the agent did, for hy_ship_stop's report. */
static struct {
	long long messages;	/* messages served, by anyone */
	long long assisted;	/* ... of them by a waiting program thread */
	long long cpu_ns;	/* the agent thread's CPU time */
	long long wall_ns;	/* its lifetime */
} agent_stats;

static bool has_origin(unsigned int kind, unsigned int op)
{
	return kind != MPIRMA_KIND_GET &&
	       !(kind == MPIRMA_KIND_GET_ACC && op == MPIRMA_OP_NO_OP);
}

/* Puts and accumulates have none: they are batched. */
static bool has_result(unsigned int kind)
{
	return kind != MPIRMA_KIND_ACC && kind != MPIRMA_KIND_PUT;
}

/* The elements a layout covers (the kernel checks the sides agree). */
static uint64_t layout_elems(const struct mpirma_layout *l, unsigned int size)
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
static void layout_copy(const struct mpirma_layout *l, unsigned int size,
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

/* ------------------------------------------------------------ the agent */

/* Bytes of one entry of a run of @count elements of @size bytes. */
static size_t run_entry_len(uint64_t count, unsigned int size)
{
	return sizeof(uint64_t) + ((count * size + 7) & ~(uint64_t)7);
}

/* Bytes a message with header @h must have; 0 when it cannot be valid. */
static size_t msg_len(const struct ship_hdr *h, unsigned int size)
{
	uint64_t data = 0, len;

	if (h->flags == HY_REC_RUN) {
		if (h->nblocks || !h->count || h->count > HY_RUN_BYTES / size ||
		    h->nelem > HY_BATCH_OPS)
			return 0;
		return sizeof(*h) + h->nelem * run_entry_len(h->count, size);
	}
	if (h->flags || h->nblocks > MPIRMA_MAX_BLOCKS ||
	    h->nelem > INT_MAX / size)
		return 0;
	if (has_origin(h->kind, h->op))
		data += h->nelem * size;
	if (h->kind == MPIRMA_KIND_CAS)
		data += size;
	len = sizeof(*h) + (uint64_t)h->nblocks * sizeof(struct mpirma_block) +
	      data;
	return len > INT_MAX ? 0 : (size_t)len;
}

/* Records of a batch start 8-byte aligned: @len bytes with their padding. */
static size_t record_padded(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

/* Bytes of a record of a batch with header @h (padded); 0: invalid. */
static size_t record_len(const struct ship_hdr *h)
{
	unsigned int size = mpirma_rma_elem_size(h->type);
	size_t len = size ? msg_len(h, size) : 0;

	return len ? record_padded(len) : 0;
}

/* Operations in record @h: a run's entries, else 1. */
static uint32_t record_ops(const struct ship_hdr *h)
{
	return h->flags == HY_REC_RUN ? (uint32_t)h->nelem : 1;
}

/*
 * Operation @index of message @h, which its sender built (so it is valid):
 * its record, and *@disp its target displacement.
 */
static const struct ship_hdr *record(const struct ship_hdr *h, uint32_t index,
				     uint64_t *disp)
{
	while (index >= record_ops(h)) {
		index -= record_ops(h);
		h = (const struct ship_hdr *)((const char *)h + record_len(h));
	}
	*disp = h->disp;
	if (h->flags == HY_REC_RUN) {
		size_t e = run_entry_len(h->count, mpirma_rma_elem_size(h->type));

		memcpy(disp, (const char *)(h + 1) + index * e, sizeof(*disp));
	}
	return h;
}

/* A kernel operation of record @h's kind, type and op on the agent's @s. */
static void op_head(struct mpirma_op *op, const struct ship_hdr *h,
		    const struct agent_slot *s)
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
static void record_op(const struct ship_hdr *h, const struct agent_slot *s,
		      void *result, struct mpirma_op *op)
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
	if (has_origin(h->kind, h->op)) {
		op->origin.addr = (uint64_t)(uintptr_t)p;
		op->origin.count = h->nelem;
		p += h->nelem * size;
	}
	if (has_result(h->kind)) {
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
static uint32_t run_ops(const struct ship_hdr *h, const struct agent_slot *s,
			struct mpirma_op *op, struct mpirma_block *b)
{
	unsigned int size = mpirma_rma_elem_size(h->type);
	uint64_t unit = (uint64_t)h->extent, len = h->count * size, disp;
	size_t e = run_entry_len(h->count, size);
	const char *p = (const char *)(h + 1);
	uint32_t n = (uint32_t)h->nelem, i;
	struct run_key *k = serving.keys;
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

	if (n <= serving.nops)
		return true;
	q = realloc(serving.ops, n * sizeof(*serving.ops));
	if (q)
		serving.ops = q;
	q = q ? realloc(serving.first, n * sizeof(*serving.first)) : NULL;
	if (q)
		serving.first = q;
	q = q ? realloc(serving.blocks, 2 * n * sizeof(*serving.blocks)) : NULL;
	if (q)
		serving.blocks = q;
	q = q ? realloc(serving.keys, n * sizeof(*serving.keys)) : NULL;
	if (q) {
		serving.keys = q;
		serving.nops = n;
	}
	return q;
}

/*
 * A batch of @n bytes: plain accumulates on one window, applied in order
 * with one ioctl.  Returns the first failure's status (its place in
 * *@index), or 0.
 */
static int serve_batch(const struct ship_hdr *h, size_t n,
		       const struct agent_slot *s, uint32_t *index)
{
	const char *m = (const char *)h;
	const struct ship_hdr *r;
	struct mpirma_op *ops;
	uint32_t nops = 0, done, nfailed;
	size_t off, len;
	int ret;

	for (off = 0; off < n; off += len, nops += record_ops(r)) {
		r = (const struct ship_hdr *)(m + off);
		if (n - off < sizeof(*r) || has_result(r->kind) ||
		    r->slot != h->slot ||
		    record_ops(r) > HY_BATCH_OPS - nops)
			return -EINVAL;
		len = record_len(r);
		if (!len || len > n - off)
			return -EINVAL;
	}
	if (!serving_room(nops))
		return -ENOMEM;
	ops = serving.ops;
	for (off = 0, nops = 0, done = 0; off < n; off += record_len(r)) {
		uint32_t k = 1;

		r = (const struct ship_hdr *)(m + off);
		if (r->flags == HY_REC_RUN)
			k = run_ops(r, s, &ops[nops], &serving.blocks[2 * done]);
		else
			record_op(r, s, NULL, &ops[nops]);
		for (uint32_t j = 0; j < k; j++)
			serving.first[nops + j] = done + (k > 1 ? j : 0);
		nops += k;
		done += record_ops(r);
	}
	ret = mpirma_rma_apply(s->win_id, ops, nops, &nfailed);
	for (uint32_t k = 0; !ret && nfailed && k < nops; k++)
		if (ops[k].status) {
			*index = serving.first[k];
			ret = ops[k].status;
		}
	return ret;
}

/*
 * Applies one received message of @n bytes: a batch of accumulates, or one
 * operation with a result, which goes to *@r (of *@cap bytes, grown as
 * needed), *@rlen bytes of it.  Returns the status; *@index: the failed
 * operation's place in the message.
 */
static int serve(const struct ship_hdr *h, size_t n, struct ship_reply **r,
		 size_t *cap, int *rlen, uint32_t *index)
{
	unsigned int size;
	struct agent_slot s = { 0 };
	struct mpirma_op op;
	uint32_t nfailed;
	size_t need;
	int ret;

	*rlen = sizeof(**r);
	*index = 0;
	if (n < sizeof(*h))
		return -EINVAL;
	pthread_mutex_lock(&slots_lock);
	if (h->slot < (uint32_t)nslots)
		s = slots[h->slot];
	pthread_mutex_unlock(&slots_lock);
	if (!s.used)
		return -EBADF;
	if (!has_result(h->kind))
		return serve_batch(h, n, &s, index);
	size = mpirma_rma_elem_size(h->type);
	if (!size || h->kind > MPIRMA_KIND_CAS || msg_len(h, size) != n)
		return -EINVAL;
	need = sizeof(**r) + h->nelem * size;
	if (need > *cap) {
		struct ship_reply *q = realloc(*r, need);

		if (!q)
			return -ENOMEM;
		*r = q;
		*cap = need;
	}
	record_op(h, &s, *r + 1, &op);
	ret = mpirma_rma_apply(s.win_id, &op, 1, &nfailed);
	if (!ret && !op.status)
		*rlen = (int)need;
	return ret ? ret : op.status;
}

/* Can slot @s's lock be granted as @type now? */
static bool lock_fits(const struct agent_slot *s, int type)
{
	return !s->excl && (type == HY_LOCK_SHARED || !s->shared);
}

/* Grants slot @k's lock as @type to @origin; slots_lock held. */
static void lock_grant(int k, int type, int origin)
{
	if (type == HY_LOCK_EXCL)
		slots[k].excl = true;
	else
		slots[k].shared++;
	/* no bytes: eager, it does not wait for the origin */
	PMPI_Send(NULL, 0, MPI_BYTE, origin, HY_TAG_GRANT + k, hy.ship_comm);
}

/*
 * A lock or unlock from @origin.  A request that cannot be granted waits
 * behind those before it (a shared one does not overtake a waiting
 * exclusive one); an unlock grants what it can from the front.  Out of
 * memory for a waiting request ends the job: its origin would wait
 * forever.
 */
static void serve_lock(const struct ship_hdr *h, int origin)
{
	int k = (int)h->slot;
	struct agent_slot *s;

	pthread_mutex_lock(&slots_lock);
	if (k >= nslots || !slots[k].used) {
		/* A window is freed collectively: no lock can come for it. */
		pthread_mutex_unlock(&slots_lock);
		return;
	}
	s = &slots[k];
	if (h->kind == HY_KIND_LOCK) {
		if (!s->nwait && lock_fits(s, h->op)) {
			lock_grant(k, h->op, origin);
		} else {
			if (s->nwait == s->capwait) {
				int cap = s->capwait ? 2 * s->capwait : 8;
				struct lock_wait *q = realloc(s->wait,
							      sizeof(*q) *
							      (size_t)cap);

				if (!q)
					PMPI_Abort(MPI_COMM_WORLD,
						   MPI_ERR_NO_MEM);
				s->wait = q;
				s->capwait = cap;
			}
			s->wait[s->nwait++] = (struct lock_wait){ origin,
								  h->op };
		}
	} else {
		if (s->excl)
			s->excl = false;
		else if (s->shared)
			s->shared--;
		while (s->nwait && lock_fits(s, s->wait[0].type)) {
			lock_grant(k, s->wait[0].type, s->wait[0].origin);
			memmove(s->wait, s->wait + 1,
				sizeof(*s->wait) * (size_t)--s->nwait);
		}
	}
	pthread_mutex_unlock(&slots_lock);
}

/*
 * The agent's pace.  A blocking probe would keep a CPU busy in
 * the host's progress loop (and its lock) for the agent's whole life, taken
 * from the program's threads, which usually have every core of the node:
 * so the agent polls and sleeps.  What a round of poll and sleep costs is
 * measured, not guessed: the CPU time the agent itself spent in it (the
 * poll, and the system calls, timer and context switches of the sleep), or
 * the poll's wall time if longer (then it waited for the host's lock, which
 * the program's own calls wanted too).  That is a microsecond or two on a
 * quiet node, a hundred times more on a busy or emulated one.  The first
 * sleep after a poll lasts as long as a round costs, and the sleeps double
 * up to HY_IDLE_SHARE rounds' cost, so an idle agent takes about 5% of a
 * CPU, while one that is being sent a stream polls often.  A sleep lasts
 * HY_IDLE_MAX_NS at most, for the latency of the first operation after a
 * pause: where a round costs more than HY_IDLE_MAX_NS / HY_IDLE_SHARE, the
 * share grows (7-10% in the emulated VM, whose polls cost 0.3-0.5 ms).
 * Counting the poll's wall time alone left out the sleep's own cost.
 */
static long long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long clamp_ns(long long ns, long long lo, long long hi)
{
	return ns < lo ? lo : ns > hi ? hi : ns;
}

/*
 * The inbox: a receive of the next message from any origin, posted ahead,
 * so that a waiting program thread tests its own requests and the inbox
 * with one call of the host (hy_ship_wait), where a probe beside them cost
 * a second pass of the host's progress engine each round.  A message
 * longer than the inbox comes as a HY_KIND_LONG header, then its bytes on
 * HY_TAG_LONG (send_msg).  Posts the receive unless it is posted or
 * HY_QUIT has come; serve_mutex held.  Out of memory it ends the job.
 */
static int inbox_post(void)
{
	if (serving.inbox != MPI_REQUEST_NULL || serving.quit)
		return MPI_SUCCESS;
	if (!serving.inbox_buf) {
		serving.inbox_buf = malloc(HY_INBOX_BYTES);
		if (!serving.inbox_buf)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	}
	return PMPI_Irecv(serving.inbox_buf, HY_INBOX_BYTES, MPI_BYTE,
			  MPI_ANY_SOURCE, HY_TAG_OP, hy.ship_comm,
			  &serving.inbox);
}

/*
 * Applies the message the inbox received (@st its status), and replies.
 * Returns 1, or -1 at HY_QUIT or when the host failed.  serve_mutex held;
 * the inbox is not posted again yet.  Out of memory it ends the job: an
 * origin would otherwise wait for its reply forever.
 */
static int serve_arrived(const MPI_Status *st)
{
	struct ship_hdr *h = serving.inbox_buf, *lng = NULL;
	int n = 0, rlen, status, origin = st->MPI_SOURCE;
	uint32_t index;

	PMPI_Get_count(st, MPI_BYTE, &n);
	if (n == (int)sizeof(*h) && h->slot == HY_QUIT) {
		serving.quit = true;
		return -1;
	}
	if (n == (int)sizeof(*h) && h->kind == HY_KIND_LONG) {
		if (h->nelem > INT_MAX)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_INTERN);
		n = (int)h->nelem;
		lng = malloc((size_t)n);
		if (!lng)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
		/* sent right after the header: it is on its way */
		if (PMPI_Recv(lng, n, MPI_BYTE, origin, HY_TAG_LONG,
			      hy.ship_comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
			free(lng);
			return -1;
		}
		h = lng;
	}
	if (!serving.reply) {
		serving.cap = sizeof(struct ship_reply);
		serving.reply = malloc(serving.cap);
		if (!serving.reply)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
	}
	agent_stats.messages++;
	if (n == (int)sizeof(*h) && (h->kind == HY_KIND_LOCK ||
				     h->kind == HY_KIND_UNLOCK)) {
		serve_lock(h, origin);
		return 1;
	}
	status = serve(h, (size_t)n, &serving.reply, &serving.cap, &rlen,
		       &index);
	free(lng);
	serving.reply->status = status;
	serving.reply->index = index;
	PMPI_Send(serving.reply, rlen, MPI_BYTE, origin, HY_TAG_REPLY,
		  hy.ship_comm);
	return 1;
}

static void agent_sleep(long long ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };

	nanosleep(&ts, NULL);
}

/*
 * Receives and applies the next message, if one has come, and replies.
 * Returns 1 when it served one, 0 when none had come, -1 at HY_QUIT or
 * when the host failed.  serve_mutex held.
 */
static int serve_next(void)
{
	MPI_Status st;
	int flag = 0;

	if (serving.quit)
		return -1;
	if (inbox_post() != MPI_SUCCESS ||
	    PMPI_Test(&serving.inbox, &flag, &st) != MPI_SUCCESS)
		return -1;
	return flag ? serve_arrived(&st) : 0;
}

/*
 * The agent: serves operations from every origin until its own process
 * sends HY_QUIT (hy_ship_stop).  Between messages it polls and sleeps
 * (see above).
 */
static void *agent(void *unused)
{
	static long long round_ns = HY_IDLE_MIN_NS;	/* the agent's alone */
	long long born = clock_ns(CLOCK_MONOTONIC);
	long long sleep_ns = 0, t, cpu, last_cpu = -1, cost;
	int got;

	(void)unused;
	for (;;) {
		if (__atomic_load_n(&waiters, __ATOMIC_RELAXED)) {
			/*
			 * A waiting program thread serves: the agent keeps
			 * off its CPU, in the longest sleep, which is no round
			 * to measure (rounds that do nothing cost little, and
			 * sized from them the sleeps shrank to a small part of
			 * 2 ms, each wake-up taken from the waiting thread on
			 * a VM of one CPU).
			 */
			sleep_ns = HY_IDLE_MAX_NS;
			last_cpu = -1;
			agent_sleep(sleep_ns);
			continue;
		}
		t = clock_ns(CLOCK_MONOTONIC);
		pthread_mutex_lock(&serve_mutex);
		got = serve_next();
		pthread_mutex_unlock(&serve_mutex);
		if (got < 0)
			break;
		if (got) {
			sleep_ns = 0;
			last_cpu = -1;
			continue;
		}
		t = clock_ns(CLOCK_MONOTONIC) - t;
		/* one reading a round: the last round's CPU time, all of it */
		cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		if (last_cpu >= 0) {
			cost = cpu - last_cpu > t ? cpu - last_cpu : t;
			/* a running mean over the last eight rounds or so */
			round_ns += (cost - round_ns) / 8;
		}
		last_cpu = cpu;
		sleep_ns = clamp_ns(sleep_ns ? 2 * sleep_ns : round_ns,
				    HY_IDLE_MIN_NS,
				    clamp_ns(HY_IDLE_SHARE * round_ns,
					     HY_IDLE_MIN_NS, HY_IDLE_MAX_NS));
		agent_sleep(sleep_ns);
	}
	agent_stats.cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	agent_stats.wall_ns = clock_ns(CLOCK_MONOTONIC) - born;
	return NULL;
}

/* Waits poll the host: to serve the agent's messages, or to yield. */
static bool waits_poll(void)
{
	return hy.agent || hy.yield;
}

/*
 * One round of a wait for @req[0..@n-1], which the host sets to
 * MPI_REQUEST_NULL as they complete: a program thread waiting in the layer
 * serves what has come, unless another thread is serving, testing the
 * inbox with its own requests in one call of the host.  A process
 * waiting in a barrier or for a reply polls the host anyway: serving there
 * answers a remote origin without waking the agent, which in a VM of one
 * CPU meant waiting for the waiting thread's time slice to end or the
 * agent's sleep, a millisecond or more per remote operation (make
 * bench-2node).  Returns the host's error, or MPI_SUCCESS.
 */
static int wait_round(int n, MPI_Request *req)
{
	MPI_Request all[HY_WAIT_MAX + 1];
	MPI_Status st[HY_WAIT_MAX + 1];
	int idx[HY_WAIT_MAX + 1], out = 0, flag, ret;

	if (!hy.agent || pthread_mutex_trylock(&serve_mutex))
		return PMPI_Testall(n, req, &flag, st);
	ret = inbox_post();
	if (ret != MPI_SUCCESS || serving.inbox == MPI_REQUEST_NULL) {
		/* HY_QUIT has come: the agent is stopping */
		pthread_mutex_unlock(&serve_mutex);
		return ret ? ret :
		       PMPI_Testall(n, req, &flag, st);
	}
	if (n)
		memcpy(all, req, sizeof(*req) * (size_t)n);
	all[n] = serving.inbox;
	ret = PMPI_Testsome(n + 1, all, &out, idx, st);
	if (n)
		memcpy(req, all, sizeof(*req) * (size_t)n);
	serving.inbox = all[n];
	for (int k = 0; ret == MPI_SUCCESS && k < out; k++)
		if (idx[k] == n) {
			serve_arrived(&st[k]);
			agent_stats.assisted++;
		}
	pthread_mutex_unlock(&serve_mutex);
	return ret;
}

int hy_ship_wait(int n, MPI_Request *req)
{
	MPI_Status st[HY_WAIT_MAX];
	int ret = MPI_SUCCESS, k;

	if (!waits_poll())
		return PMPI_Waitall(n, req, st);
	__atomic_add_fetch(&waiters, 1, __ATOMIC_RELAXED);
	for (;;) {
		for (k = 0; k < n && req[k] == MPI_REQUEST_NULL; k++)
			;
		if (k == n)
			break;
		ret = wait_round(n, req);
		if (ret != MPI_SUCCESS)
			break;
		if (hy.yield)
			sched_yield();
	}
	__atomic_sub_fetch(&waiters, 1, __ATOMIC_RELAXED);
	return ret;
}

int hy_ship_barrier(MPI_Comm comm)
{
	MPI_Request req;
	int ret;

	if (!waits_poll())
		return PMPI_Barrier(comm);
	ret = PMPI_Ibarrier(comm, &req);
	return ret != MPI_SUCCESS ? ret : hy_ship_wait(1, &req);
}

int hy_ship_allreduce(const void *in, void *out, int count, MPI_Datatype type,
		      MPI_Op op, MPI_Comm comm)
{
	MPI_Request req;
	int ret;

	if (!waits_poll())
		return PMPI_Allreduce(in, out, count, type, op, comm);
	ret = PMPI_Iallreduce(in, out, count, type, op, comm, &req);
	return ret != MPI_SUCCESS ? ret : hy_ship_wait(1, &req);
}

int hy_ship_comm_dup(MPI_Comm comm, MPI_Comm *out)
{
	MPI_Request req;
	int ret;

	if (!waits_poll())
		return PMPI_Comm_dup(comm, out);
	ret = PMPI_Comm_idup(comm, out, &req);
	return ret != MPI_SUCCESS ? ret : hy_ship_wait(1, &req);
}

int hy_ship_allgather(const void *in, int count, MPI_Datatype type, void *out,
		      MPI_Comm comm)
{
	MPI_Request req;
	int ret;

	if (!waits_poll())
		return PMPI_Allgather(in, count, type, out, count, type, comm);
	ret = PMPI_Iallgather(in, count, type, out, count, type, comm, &req);
	return ret != MPI_SUCCESS ? ret : hy_ship_wait(1, &req);
}

/*
 * Are @source, @tag and @comm a receive's that a probe takes without an
 * error?  Else PMPI_Recv reports them itself (a probe's error would name
 * another call).
 */
static bool probe_args_ok(int source, int tag, MPI_Comm comm)
{
	int inter = 0, size = 0;

	if (comm == MPI_COMM_NULL || (tag < 0 && tag != MPI_ANY_TAG))
		return false;
	if (source == MPI_ANY_SOURCE)
		return true;
	if (source < 0 || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
		return false;
	if ((inter ? PMPI_Comm_remote_size(comm, &size) :
		     PMPI_Comm_size(comm, &size)) != MPI_SUCCESS)
		return false;
	return source < size;
}

int hy_ship_recv(void *buf, int count, MPI_Datatype type, int source,
		 int tag, MPI_Comm comm, MPI_Status *status)
{
	int flag = 0, ret = MPI_SUCCESS;

	if (waits_poll() && probe_args_ok(source, tag, comm)) {
		__atomic_add_fetch(&waiters, 1, __ATOMIC_RELAXED);
		for (;;) {
			ret = PMPI_Iprobe(source, tag, comm, &flag,
					  MPI_STATUS_IGNORE);
			if (ret != MPI_SUCCESS || flag)
				break;
			ret = wait_round(0, NULL);
			if (ret != MPI_SUCCESS)
				break;
			if (hy.yield)
				sched_yield();
		}
		__atomic_sub_fetch(&waiters, 1, __ATOMIC_RELAXED);
		if (ret != MPI_SUCCESS)
			return ret;
	}
	return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

int hy_ship_start(void)
{
	int ok, all;

	if (!hy.span || hy.span_host_acc)
		return MPI_SUCCESS;
	PMPI_Comm_dup(MPI_COMM_WORLD, &hy.ship_comm);
	ok = pthread_create(&agent_thread, NULL, agent, NULL) == 0;
	if (ok)	/* what top -H and /proc show for it */
		pthread_setname_np(agent_thread, "mpirma-agent");
	hy.agent = ok;
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		if (ok)
			hy_ship_stop(false);	/* frees ship_comm */
		else
			PMPI_Comm_free(&hy.ship_comm);
		hy.span = false;
	}
	return MPI_SUCCESS;
}

void hy_ship_stop(bool report)
{
	struct ship_hdr quit = { .slot = HY_QUIT };
	int me;

	if (!hy.agent)
		return;
	PMPI_Comm_rank(hy.ship_comm, &me);
	PMPI_Send(&quit, sizeof(quit), MPI_BYTE, me, HY_TAG_OP, hy.ship_comm);
	pthread_join(agent_thread, NULL);
	if (report && agent_stats.wall_ns > 0)
		fprintf(stderr, "mpirma: agent of rank %d: %lld messages "
			"served (%lld by waiting program threads), %.1f%% of "
			"a CPU over %.1f s\n", me,
			agent_stats.messages, agent_stats.assisted,
			100.0 * (double)agent_stats.cpu_ns /
			(double)agent_stats.wall_ns,
			(double)agent_stats.wall_ns / 1e9);
	PMPI_Comm_free(&hy.ship_comm);
	hy.span = false;
	hy.agent = false;
	free(serving.reply);
	free(serving.inbox_buf);
	serving.inbox_buf = NULL;
	free(serving.ops);
	free(serving.first);
	free(serving.blocks);
	free(serving.keys);
	serving.ops = NULL;
	serving.nops = 0;
	serving.reply = NULL;
	serving.quit = false;
	for (int k = 0; k < nslots; k++)
		free(slots[k].wait);
	free(slots);
	slots = NULL;
	nslots = 0;
}

/* ------------------------------------------------------------ windows */

int hy_ship_open(struct hy_win *w)
{
	struct hy_span *sp = w->span;
	int k;

	pthread_mutex_lock(&slots_lock);
	for (k = 0; k < nslots && slots[k].used; k++)
		;
	if (k == nslots) {
		struct agent_slot *s = realloc(slots, sizeof(*s) *
					       (size_t)(nslots + 8));

		if (!s) {
			pthread_mutex_unlock(&slots_lock);
			return -1;
		}
		memset(s + nslots, 0, sizeof(*s) * 8);
		slots = s;
		nslots += 8;
	}
	free(slots[k].wait);
	slots[k] = (struct agent_slot){
		.used = true, .win_id = sp->win_id,
		.erank = (uint32_t)sp->erank[sp->me],
	};
	pthread_mutex_unlock(&slots_lock);
	sp->myslot = k;
	return k;
}

void hy_ship_close(struct hy_win *w)
{
	struct hy_span *sp = w->span;

	/* hy_ship_complete leaves no batch; this frees what an error left. */
	pthread_mutex_lock(&sp->lock);
	for (int t = 0; sp->batch && t < sp->size; t++)
		free(sp->batch[t].buf);
	free(sp->batch);
	sp->batch = NULL;
	pthread_mutex_unlock(&sp->lock);
	if (sp->myslot < 0)
		return;
	pthread_mutex_lock(&slots_lock);
	slots[w->span->myslot].used = false;
	pthread_mutex_unlock(&slots_lock);
	w->span->myslot = -1;
}

/* ------------------------------------------------------------ origins */

/* A reply's receive and its operation's send, completed. */
static void wait2(MPI_Request *req)
{
	hy_ship_wait(2, req);
}

/* A failed shipped operation as the host's class (takes hy.lock). */
static int failed(struct hy_win *w, unsigned int kind, int target,
		  uint64_t disp, int status, const char *fn, bool locked)
{
	struct mpirma_op op = { .kind = (uint16_t)kind,
				.target_rank = (uint32_t)target,
				.target_disp = disp, .status = status };
	int ret;

	if (!locked)
		hy_lock();
	ret = hy_inner(mpirma_rma_failed(w->inner, &op, fn));
	if (!locked)
		hy_unlock();
	return ret;
}

/* The failure @p's acknowledgement reports, as the host's class. */
static int pending_failed(struct hy_win *w, const struct hy_pending *p,
			  const char *fn)
{
	uint64_t disp;
	const struct ship_hdr *h = record(p->msg, p->reply->index, &disp);

	return failed(w, h->kind, p->target, disp, p->reply->status, fn,
		      false);
}

/* Waits for pending entry @k of @sp and drops it; host class. */
static int settle(struct hy_win *w, int k)
{
	struct hy_span *sp = w->span;
	struct hy_pending *p = &sp->pend[k];
	int ret = MPI_SUCCESS;

	wait2(p->req);
	if (p->reply->status)
		ret = pending_failed(w, p, "MPI_Win_flush");
	free(p->msg);
	free(p->reply);
	*p = sp->pend[--sp->npend];
	return ret;
}

/* Keeps a message's acknowledgement for hy_ship_complete; sp->lock held. */
static int keep(struct hy_win *w, const struct hy_pending *p)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS;

	if (sp->npend == HY_PENDING_MAX) {
		/* Too many in flight: collect them (errors come now). */
		while (sp->npend) {
			int r = settle(w, 0);

			ret = ret ? ret : r;
		}
	}
	if (sp->npend == sp->cap) {
		int cap = sp->cap ? 2 * sp->cap : 16;
		struct hy_pending *q = realloc(sp->pend, sizeof(*q) *
					       (size_t)cap);

		if (!q) {
			/* Wait for this one now instead. */
			wait2((MPI_Request *)p->req);
			if (!ret && p->reply->status)
				ret = pending_failed(w, p, "MPI_Accumulate");
			free(p->msg);
			free(p->reply);
			return ret;
		}
		sp->pend = q;
		sp->cap = cap;
	}
	sp->pend[sp->npend++] = *p;
	return ret;
}

/* Sends message @msg of @len bytes to the agent of window rank @target. */
static void send_msg(struct hy_win *w, int target, void *msg, size_t len,
		     struct ship_reply *reply, int rlen, MPI_Request *req)
{
	struct ship_hdr lng = { .kind = HY_KIND_LONG, .nelem = len };
	int peer = w->span->world[target], tag = HY_TAG_OP;

	pthread_mutex_lock(&order_lock);
	PMPI_Irecv(reply, rlen, MPI_BYTE, peer, HY_TAG_REPLY, hy.ship_comm,
		   &req[0]);
	if (len > HY_INBOX_BYTES) {
		/* longer than the agent's inbox: a header first (inbox_post) */
		PMPI_Send(&lng, sizeof(lng), MPI_BYTE, peer, HY_TAG_OP,
			  hy.ship_comm);
		tag = HY_TAG_LONG;
	}
	PMPI_Isend(msg, (int)len, MPI_BYTE, peer, tag, hy.ship_comm, &req[1]);
	pthread_mutex_unlock(&order_lock);
}

/*
 * Ships the accumulates batched for window rank @target (-1: for every
 * rank); sp->lock held.  Host class: out of memory for the reply (the
 * batch is then dropped: its operations fail), or an earlier failure
 * collected to make room.
 */
static int batch_send(struct hy_win *w, int target)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS;

	if (target < 0) {
		for (int t = 0; sp->batch && t < sp->size; t++) {
			int r = batch_send(w, t);

			ret = ret ? ret : r;
		}
		return ret;
	}
	if (sp->batch && sp->batch[target].nops) {
		struct hy_batch *b = &sp->batch[target];
		struct hy_pending p = { .msg = (struct ship_hdr *)b->buf,
					.target = target };
		size_t len = b->len;

		*b = (struct hy_batch){ 0 };
		p.reply = malloc(sizeof(*p.reply));
		if (!p.reply) {
			free(p.msg);
			return hy_fail(MPI_ERR_NO_MEM, "out of memory: "
				       "accumulates to rank %d were dropped",
				       target);
		}
		send_msg(w, target, p.msg, len, p.reply, sizeof(*p.reply),
			 p.req);
		ret = keep(w, &p);
	}
	return ret;
}

/*
 * The batch for window rank @target with room for @need more bytes (the
 * batch shipped first when they would overflow it), or NULL with *@ret the
 * host class; sp->lock held.
 */
static struct hy_batch *batch_room(struct hy_win *w, int target, size_t need,
				   int *ret)
{
	struct hy_span *sp = w->span;
	struct hy_batch *b;

	if (!sp->batch) {
		sp->batch = calloc((size_t)sp->size, sizeof(*sp->batch));
		if (!sp->batch) {
			*ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
			return NULL;
		}
	}
	b = &sp->batch[target];
	if (b->nops && b->len + need > HY_BATCH_BYTES)
		*ret = batch_send(w, target);
	if (b->len + need > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;

		while (cap < b->len + need)
			cap *= 2;
		q = realloc(b->buf, cap);
		if (!q) {
			*ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
			return NULL;
		}
		b->buf = q;
		b->cap = cap;
	}
	return b;
}

/* Counts one more operation in @b, and ships it when it is full. */
static int batch_count(struct hy_win *w, int target, struct hy_batch *b)
{
	if (++b->nops == HY_BATCH_OPS || b->len >= HY_BATCH_BYTES)
		return batch_send(w, target);
	return MPI_SUCCESS;
}

/*
 * Adds record @rec of @len bytes to the batch for window rank @target, and
 * ships the batch when it is full; sp->lock held.  Host class.
 */
static int batch_add(struct hy_win *w, int target, const struct ship_hdr *rec,
		     size_t len)
{
	size_t padded = record_padded(len);
	int ret = MPI_SUCCESS, r;
	struct hy_batch *b = batch_room(w, target, padded, &ret);

	if (!b)
		return ret;
	memcpy(b->buf + b->len, rec, len);
	memset(b->buf + b->len + len, 0, padded - len);
	b->len += padded;
	b->run = 0;
	r = batch_count(w, target, b);
	return ret ? ret : r;
}

/*
 * Adds @op, a put or accumulate of @nelem contiguous elements of @size bytes
 * on both sides, to the batch for window rank @target as an entry of a run:
 * of the batch's last record when that is a run of the same kind, type, op
 * and count, else of a new one; sp->lock held.  Host class.
 */
static int batch_add_run(struct hy_win *w, int target,
			 const struct mpirma_op *op, unsigned int size,
			 uint64_t nelem)
{
	struct hy_batch *b = w->span->batch ? &w->span->batch[target] : NULL;
	size_t e = run_entry_len(nelem, size), need = e;
	int ret = MPI_SUCCESS, r;
	struct ship_hdr *h = NULL;
	char *d;

	if (b && b->run) {
		h = (struct ship_hdr *)(b->buf + b->run - 1);
		if (h->kind != op->kind || h->type != op->type ||
		    h->op != op->op || h->count != nelem ||
		    h->nelem == HY_BATCH_OPS || b->len + e > HY_BATCH_BYTES)
			h = NULL;
	}
	if (!h)
		need += sizeof(*h);
	b = batch_room(w, target, need, &ret);
	if (!b)
		return ret;
	if (h) {
		h = (struct ship_hdr *)(b->buf + b->run - 1);
	} else {
		h = (struct ship_hdr *)(b->buf + b->len);
		*h = (struct ship_hdr){
			.slot = (uint32_t)w->span->slot[target],
			.kind = op->kind, .type = op->type, .op = op->op,
			.flags = HY_REC_RUN, .count = nelem,
			/* the displacement unit, if known: see run_ops() */
			.extent = w->span->extent ?
				  (int64_t)w->span->extent[2 * target + 1] : 0,
		};
		b->run = b->len + 1;
		b->len += sizeof(*h);
	}
	d = b->buf + b->len;
	memcpy(d, &op->target_disp, sizeof(uint64_t));
	memcpy(d + sizeof(uint64_t), (const void *)(uintptr_t)op->origin.addr,
	       nelem * size);
	memset(d + sizeof(uint64_t) + nelem * size, 0,
	       e - sizeof(uint64_t) - nelem * size);
	b->len += e;
	h->nelem++;
	r = batch_count(w, target, b);
	return ret ? ret : r;
}

int hy_ship_complete(struct hy_win *w, int rank)
{
	struct hy_span *sp = w->span;
	int ret, r;

	pthread_mutex_lock(&sp->lock);
	ret = batch_send(w, rank);
	for (int k = 0; k < sp->npend;) {
		if (rank >= 0 && sp->pend[k].target != rank) {
			k++;
			continue;
		}
		r = settle(w, k);
		ret = ret ? ret : r;
	}
	pthread_mutex_unlock(&sp->lock);
	return ret;
}

/* A lock message of @kind (@type) to the agent of window rank @rank. */
static int lock_msg(struct hy_win *w, int rank, uint16_t kind, int type)
{
	struct hy_span *sp = w->span;
	struct ship_hdr h = { .slot = (uint32_t)sp->slot[rank], .kind = kind,
			      .op = (uint16_t)type };

	return PMPI_Send(&h, sizeof(h), MPI_BYTE, sp->world[rank], HY_TAG_OP,
			 hy.ship_comm);
}

int hy_ship_lock(struct hy_win *w, int rank, bool exclusive)
{
	struct hy_span *sp = w->span;
	int first = rank < 0 ? 0 : rank, last = rank < 0 ? sp->size : rank + 1;
	int ret = MPI_SUCCESS, r;

	/* Every request first, then the grants: the targets work at once. */
	for (int t = first; t < last; t++) {
		r = lock_msg(w, t, HY_KIND_LOCK,
			     exclusive ? HY_LOCK_EXCL : HY_LOCK_SHARED);
		ret = ret ? ret : r;
	}
	for (int t = first; t < last && !ret; t++) {
		MPI_Request req;

		ret = PMPI_Irecv(NULL, 0, MPI_BYTE, sp->world[t],
				 HY_TAG_GRANT + sp->slot[t], hy.ship_comm, &req);
		if (ret == MPI_SUCCESS)
			ret = hy_ship_wait(1, &req);
	}
	return ret;
}

int hy_ship_unlock(struct hy_win *w, int rank)
{
	int first = rank < 0 ? 0 : rank;
	int last = rank < 0 ? w->span->size : rank + 1;
	int ret = MPI_SUCCESS, r;

	for (int t = first; t < last; t++) {
		r = lock_msg(w, t, HY_KIND_UNLOCK, 0);
		ret = ret ? ret : r;
	}
	return ret;
}

int hy_ship(struct hy_win *w, const struct mpirma_rma_args *a,
	    const char *fn)
{
	struct hy_span *sp = w->span;
	struct mpirma_rma_args mine = *a;
	struct mpirma_block *rblocks = NULL;
	struct ship_reply *reply = NULL;
	struct ship_hdr *h = NULL;
	MPI_Request req[2];
	struct mpirma_op op;
	uint64_t nelem, rbytes;
	unsigned int size;
	void *scratch;
	size_t len = 0;
	char *d;
	bool skip;
	int ret, rlen;

	/* Built and checked as for this process's own engine rank. */
	mine.trank = sp->erank[sp->me];
	ret = hy_inner(mpirma_rma_prepare(w->inner, &mine, &op, &skip,
					  &scratch, fn));
	if (!ret && !skip && sp->extent) {
		const uint64_t *e = &sp->extent[2 * a->trank];

		ret = hy_inner(mpirma_rma_range(w->inner, &op, e[0],
						(uint32_t)e[1], a->trank, fn));
	}
	if (ret || skip) {
		free(scratch);
		return ret;
	}
	size = mpirma_rma_elem_size(op.type);
	nelem = layout_elems(&op.target, size);
	if (!has_result(op.kind) && !op.target.nblocks && !op.origin.nblocks &&
	    nelem <= HY_RUN_BYTES / size) {
		/* Contiguous on both sides, small: an entry of a run. */
		free(scratch);
		hy_unlock();
		pthread_mutex_lock(&sp->lock);
		ret = batch_add_run(w, a->trank, &op, size, nelem);
		pthread_mutex_unlock(&sp->lock);
		hy_lock();
		return ret;
	}
	rbytes = has_result(op.kind) ? nelem * size : 0;
	len = msg_len(&(struct ship_hdr){ .kind = op.kind, .op = op.op,
					  .nblocks = op.target.nblocks,
					  .nelem = nelem }, size);
	h = len && rbytes <= INT_MAX - sizeof(*reply) ? malloc(len) : NULL;
	if (rbytes && op.result.nblocks) {
		rblocks = malloc(op.result.nblocks * sizeof(*rblocks));
		if (rblocks)
			memcpy(rblocks, (void *)(uintptr_t)op.result.blocks,
			       op.result.nblocks * sizeof(*rblocks));
	}
	/* A put or accumulate is batched: its batch's message gets the reply. */
	rlen = (int)(sizeof(*reply) + rbytes);
	if (has_result(op.kind))
		reply = malloc((size_t)rlen);
	if (!h || (has_result(op.kind) && !reply) ||
	    (op.result.nblocks && rbytes && !rblocks)) {
		free(scratch);
		free(h);
		free(reply);
		free(rblocks);
		return hy_fail(MPI_ERR_NO_MEM, "out of memory (or an operation "
			       "too large to ship)");
	}
	*h = (struct ship_hdr){
		.slot = (uint32_t)sp->slot[a->trank], .kind = op.kind,
		.type = op.type, .op = op.op, .nblocks = op.target.nblocks,
		.disp = op.target_disp, .count = op.target.count,
		.extent = op.target.extent, .nelem = nelem,
	};
	d = (char *)(h + 1);
	if (op.target.nblocks) {
		memcpy(d, (void *)(uintptr_t)op.target.blocks,
		       op.target.nblocks * sizeof(struct mpirma_block));
		d += op.target.nblocks * sizeof(struct mpirma_block);
	}
	if (has_origin(op.kind, op.op)) {
		layout_copy(&op.origin, size, d, true);
		d += nelem * size;
	}
	if (op.kind == MPIRMA_KIND_CAS)
		memcpy(d, (void *)(uintptr_t)op.compare, size);
	if (rblocks)
		op.result.blocks = (uint64_t)(uintptr_t)rblocks;
	free(scratch);

	/* The host's part, without the engine's lock. */
	hy_unlock();
	pthread_mutex_lock(&sp->lock);
	if (!has_result(op.kind)) {
		ret = batch_add(w, a->trank, h, len);
		pthread_mutex_unlock(&sp->lock);
		free(h);
		hy_lock();
		return ret;
	}
	/* What is batched for the target goes first: accumulate_ordering. */
	ret = batch_send(w, a->trank);
	pthread_mutex_unlock(&sp->lock);
	send_msg(w, a->trank, h, len, reply, rlen, req);
	wait2(req);
	if (!reply->status)
		layout_copy(&op.result, size, (char *)(reply + 1), false);
	hy_lock();
	if (reply->status) {
		int r = failed(w, op.kind, a->trank, op.target_disp,
			       reply->status, fn, true);

		ret = ret ? ret : r;
	}
	free(h);
	free(reply);
	free(rblocks);
	return ret;
}
