/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Atomicity strategies: how element updates of a window are made atomic.
 *
 * The RMA engine (rma.c) cuts every accumulate-like operation into updates
 * of at most MPIRMA_CHUNK target bytes and MPIRMA_MAX_SPANS contiguous target
 * pieces, with the origin data already copied into the kernel.  A strategy's
 * apply() must perform the whole update so that each element is updated
 * atomically with respect to every other update of the same window; it runs
 * in process context holding no lock, must not touch user memory and must
 * not sleep, but for MPIRMA_ATOM_BULK's killable wait for a lock user space
 * holds (strategy_bulk.c).
 * Floating point reductions run with preemption disabled (kernel FPU), so
 * whatever lock a strategy holds around them is a raw_spinlock_t: a
 * spinlock_t sleeps on PREEMPT_RT.  Whether
 * it serialises on one lock, on stripes, uses native atomics or hands the
 * update to a worker is its own business.
 */
#ifndef MPIRMA_STRATEGY_H
#define MPIRMA_STRATEGY_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct mpirma_win;

#define MPIRMA_CHUNK		4096	/* target bytes per atomic section */
#define MPIRMA_MAX_SPANS	64	/* target pieces per atomic section */
/*
 * Target bytes per hold of a raw spinlock (lock and striped strategies):
 * the element-update locks are raw_spinlock_t because the reduction's FPU
 * section runs under them, and a raw lock's hold time must stay short on
 * PREEMPT_RT, where it is a non-preemptible stretch like any other.
 */
#define MPIRMA_RAW_SECTION	512

/* One contiguous piece of target memory, as a kernel address. */
struct mpirma_span {
	void *addr;
	size_t len;
};

/**
 * struct mpirma_inflight - updates a submitter has left in flight
 * @lock: protects @pending; a waiter returns only after re-taking it, so
 *	only after the worker that ended the wait has finished with the
 *	tracker, which may therefore live on the waiter's stack
 * @pending: pieces not applied yet
 * @wq: woken when @pending drops to zero
 * @armed: a piece was added since init or the last wait; the submitter's
 *	alone (it adds and waits; workers never touch it), so it is read
 *	without @lock and lets a wait with nothing in flight skip @lock
 *
 * A strategy may return from apply() before an update without results
 * (@old NULL) is applied, if it keeps what it needs and counts it here; the
 * engine waits with mpirma_inflight_wait() before anything that must see
 * the update (a get, a put, a fetching operation, returning to user space).
 * Only the submitter adds and waits; workers call mpirma_inflight_done().
 */
struct mpirma_inflight {
	spinlock_t lock;
	unsigned int pending;
	wait_queue_head_t wq;
	bool armed;
};

/**
 * struct mpirma_update - one chunk of element updates on one target
 * @win: the window
 * @kind: MPIRMA_KIND_ACC, _GET_ACC or _CAS
 * @target: the window rank whose memory @spans are in
 * @type: MPIRMA_TYPE_*
 * @op: MPIRMA_OP_* (ignored for CAS)
 * @spans: @nspans target pieces, each a multiple of the element size
 * @src: packed origin elements (NULL for NO_OP)
 * @old: where to pack the previous target elements, or NULL
 * @cmp: CAS: the value to compare with
 * @inflight: where to count deferred pieces, or NULL: apply synchronously
 */
struct mpirma_update {
	struct mpirma_win *win;
	unsigned int kind;
	u32 target;
	unsigned int type;
	unsigned int op;
	const struct mpirma_span *spans;
	unsigned int nspans;
	const void *src;
	void *old;
	const void *cmp;
	struct mpirma_inflight *inflight;
};

struct mpirma_strategy {
	const char *name;
	int (*init)(struct mpirma_win *win);
	void (*fini)(struct mpirma_win *win);
	void (*apply)(const struct mpirma_update *u);
};

extern const struct mpirma_strategy mpirma_strategy_lock;
extern const struct mpirma_strategy mpirma_strategy_striped;
extern const struct mpirma_strategy mpirma_strategy_native;
extern const struct mpirma_strategy mpirma_strategy_delegate;
extern const struct mpirma_strategy mpirma_strategy_bulk;

/* The strategy for MPIRMA_ATOM_* (DEFAULT resolved); NULL if unknown. */
const struct mpirma_strategy *mpirma_strategy_get(u32 id);
u32 mpirma_strategy_id(const struct mpirma_strategy *s);
u32 mpirma_default_strategy(void);
int mpirma_strategy_param_check(void);

void mpirma_inflight_init(struct mpirma_inflight *f);
void mpirma_inflight_add(struct mpirma_inflight *f);
void mpirma_inflight_wait(struct mpirma_inflight *f);
void mpirma_inflight_done(struct mpirma_inflight *f);
unsigned int mpirma_inflight_count(struct mpirma_inflight *f);

void mpirma_update_part(struct mpirma_update *part, const struct mpirma_update *u,
			const struct mpirma_span *span, size_t done);

/* Apply @u's element updates, the caller providing the atomicity. */
void mpirma_update_apply(const struct mpirma_update *u);

#endif /* MPIRMA_STRATEGY_H */
