/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NUMA-local kernel workers: a pool of kthreads per NUMA node, each bound
 * to its node's CPUs, that run queued work in arrival order.
 */
#ifndef MPIRMA_WORKERS_H
#define MPIRMA_WORKERS_H

#include <linux/list.h>
#include <linux/types.h>

struct mpirma_worker;

/**
 * struct mpirma_work - one piece of work for a worker
 * @node: in the worker's queue
 * @fn: what to do; called in the worker, may not sleep for long
 */
struct mpirma_work {
	struct list_head node;
	void (*fn)(struct mpirma_work *w);
};

int mpirma_workers_start(void);
void mpirma_workers_stop(void);

/* The worker owning memory on node @nid, chosen by @key (e.g. a page index). */
struct mpirma_worker *mpirma_worker_for(int nid, unsigned long key);
u32 mpirma_worker_id(const struct mpirma_worker *w);
void mpirma_worker_queue(struct mpirma_worker *w, struct mpirma_work *work);

/* For statistics: number of workers, and per worker its node and load. */
u32 mpirma_nr_workers(void);
void mpirma_worker_stats(u32 id, int *nid, pid_t *pid, u64 *items);

#endif /* MPIRMA_WORKERS_H */
