// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA-local workers.
 *
 * One kthread per CPU of every node that has CPUs (at most
 * MPIRMA_WORKERS_PER_NODE), allowed to run on any CPU of its node and no
 * other, so the cache lines it updates stay on the node where the memory
 * lives.  kthread_create_on_node() only places the thread's own structures;
 * the binding to the node's CPUs is explicit.  Memory on a node without
 * CPUs is served by the workers of the first node that has some.
 *
 * A worker runs its queue in arrival order and never sleeps with work
 * pending.  The pool lives as long as the module: no work can be queued
 * once every window is gone, which rmmod requires.
 */
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <linux/wait.h>

#include "compat.h"
#include "fault.h"
#include "workers.h"

#define MPIRMA_WORKERS_PER_NODE	8

struct mpirma_worker {
	u32 id;
	int nid;
	struct task_struct *task;
	spinlock_t lock;		/* protects queue */
	struct list_head queue;
	wait_queue_head_t wq;
	u64 items;			/* work run, for statistics */
};

struct node_workers {
	u32 nr;
	struct mpirma_worker **w;
};

static struct mpirma_worker **workers;	/* all, by id */
static u32 nr_workers;
static struct node_workers *by_node;	/* nr_node_ids entries */
static int fallback_nid = NUMA_NO_NODE;

static bool worker_has_work(struct mpirma_worker *w)
{
	bool ret;

	spin_lock(&w->lock);
	ret = !list_empty(&w->queue);
	spin_unlock(&w->lock);
	return ret;
}

static int worker_main(void *arg)
{
	struct mpirma_worker *w = arg;
	struct mpirma_work *work, *tmp;
	LIST_HEAD(batch);

	while (!kthread_should_stop()) {
		wait_event_interruptible(w->wq, worker_has_work(w) || kthread_should_stop());
		spin_lock(&w->lock);
		list_splice_init(&w->queue, &batch);
		spin_unlock(&w->lock);
		list_for_each_entry_safe(work, tmp, &batch, node) {
			list_del(&work->node);
			WRITE_ONCE(w->items, w->items + 1);
			work->fn(work);	/* may free @work */
		}
		cond_resched();
	}
	return 0;
}

void mpirma_worker_queue(struct mpirma_worker *w, struct mpirma_work *work)
{
	spin_lock(&w->lock);
	list_add_tail(&work->node, &w->queue);
	spin_unlock(&w->lock);
	wake_up(&w->wq);
}

struct mpirma_worker *mpirma_worker_for(int nid, unsigned long key)
{
	struct node_workers *nw;

	if (nid < 0 || nid >= nr_node_ids || !by_node[nid].nr)
		nid = fallback_nid;
	nw = &by_node[nid];
	return nw->w[key % nw->nr];
}

u32 mpirma_worker_id(const struct mpirma_worker *w)
{
	return w->id;
}

u32 mpirma_nr_workers(void)
{
	return nr_workers;
}

void mpirma_worker_stats(u32 id, int *nid, pid_t *pid, u64 *items)
{
	*nid = workers[id]->nid;
	*pid = task_pid_nr(workers[id]->task);
	*items = READ_ONCE(workers[id]->items);
}

static struct mpirma_worker *worker_create(int nid, u32 id)
{
	struct mpirma_worker *w;

	w = MPIRMA_FAULT_POINT(NULL, kzalloc_node(sizeof(*w), GFP_KERNEL, nid));
	if (!w)
		return ERR_PTR(-ENOMEM);
	w->id = id;
	w->nid = nid;
	spin_lock_init(&w->lock);
	INIT_LIST_HEAD(&w->queue);
	init_waitqueue_head(&w->wq);
	w->task = MPIRMA_FAULT_POINT(ERR_PTR(-ENOMEM),
				     kthread_create_on_node(worker_main, w, nid, "mpirma/%d:%u",
							    nid, id));
	if (IS_ERR(w->task)) {
		long err = PTR_ERR(w->task);

		kfree(w);
		return ERR_PTR(err);
	}
	set_cpus_allowed_ptr(w->task, cpumask_of_node(nid));
	wake_up_process(w->task);
	return w;
}

void mpirma_workers_stop(void)
{
	int nid;
	u32 i;

	for (i = 0; i < nr_workers; i++) {
		kthread_stop(workers[i]->task);
		WARN_ON(!list_empty(&workers[i]->queue));
		kfree(workers[i]);
	}
	if (by_node)
		for (nid = 0; nid < nr_node_ids; nid++)
			kfree(by_node[nid].w);
	kfree(by_node);
	kfree(workers);
	by_node = NULL;
	workers = NULL;
	nr_workers = 0;
	fallback_nid = NUMA_NO_NODE;
}

static u32 workers_on(int nid)
{
	return min_t(u32, cpumask_weight(cpumask_of_node(nid)), MPIRMA_WORKERS_PER_NODE);
}

int mpirma_workers_start(void)
{
	struct mpirma_worker *w;
	u32 total = 0, i;
	int nid, ret;

	for_each_node_state(nid, N_CPU)
		total += workers_on(nid);
	by_node = MPIRMA_FAULT_POINT(NULL, kcalloc(nr_node_ids, sizeof(*by_node), GFP_KERNEL));
	workers = MPIRMA_FAULT_POINT(NULL, kcalloc(max(total, 1U), sizeof(*workers), GFP_KERNEL));
	if (!by_node || !workers) {
		ret = -ENOMEM;
		goto out_stop;
	}
	for_each_node_state(nid, N_CPU) {
		by_node[nid].w = MPIRMA_FAULT_POINT(NULL, kcalloc(workers_on(nid), sizeof(*by_node[nid].w),
								 GFP_KERNEL));
		if (!by_node[nid].w) {
			ret = -ENOMEM;
			goto out_stop;
		}
		for (i = 0; i < workers_on(nid); i++) {
			w = worker_create(nid, nr_workers);
			if (IS_ERR(w)) {
				ret = PTR_ERR(w);
				goto out_stop;
			}
			workers[nr_workers++] = w;
			by_node[nid].w[by_node[nid].nr++] = w;
		}
		if (fallback_nid == NUMA_NO_NODE)
			fallback_nid = nid;
	}
	return 0;

out_stop:
	mpirma_workers_stop();
	return ret;
}
