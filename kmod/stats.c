// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/mpirma/jobs lists every job, its ranks and its
 * windows with their counters, for people and for tools/mpirma-stat.  The
 * module-wide counters are in sysfs (main.c); debugfs being absent or
 * failing never affects the module.
 *
 * The lines are "key value" pairs after a fixed prefix.  Fields are only
 * ever appended (before the bare flags such as "left"), so a reader that
 * looks fields up by key keeps working when new ones appear:
 *
 *   job ID ranks N joined N gone N
 *     window ID flavor F strategy S ranks N put N get N acc N get_acc N
 *         cas N bytes N lock_waits N contended N pages N direct N
 *       rank R job_rank R size B disp_unit U node NODE pages N on NODE:N,...
 *         [regions N attached B] [interleave] [left]
 *     pending window: N of N ranks arrived
 *
 * "node" is the node the rank asked for (-1: none, or interleaved); "on"
 * is where its pages are now ("-" when it has none), which for user memory
 * is the only placement there is.  "regions" and "attached" appear for
 * dynamic windows only.  "direct" is how many of the operations counted
 * the processes applied themselves and reported (MPIRMA_IOC_WIN_STATS_ADD).
 */
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "fault.h"
#include "mpirma.h"
#include "strategy.h"
#include "workers.h"

static struct dentry *mpirma_debugfs_dir;

static const char *const flavor_names[MPIRMA_NR_FLAVORS] = {
	[MPIRMA_FLAVOR_USER] = "user",
	[MPIRMA_FLAVOR_ALLOC] = "alloc",
	[MPIRMA_FLAVOR_DYNAMIC] = "dynamic",
};

static const char *const kind_names[MPIRMA_NR_KINDS] = {
	"put", "get", "acc", "get_acc", "cas",
};

/*
 * One rank of a live window: its pages and the nodes they are on now.  The
 * window holds every page it counts until it leaves job->windows, which
 * happens under job->lock, held by our caller.
 */
static void show_rank(struct seq_file *s, struct mpirma_win *win, u32 i, u64 *counts)
{
	struct mpirma_win_rank *r = &win->ranks[i];
	unsigned long pages;
	bool first = true;
	unsigned int nid;
	u32 nregions;
	u64 attached;

	memset(counts, 0, nr_node_ids * sizeof(*counts));
	pages = mpirma_rank_placement(win, i, counts, &attached, &nregions);

	seq_printf(s, "    rank %u job_rank %u size %llu disp_unit %u node %d pages %lu on",
		   i, win->group[i], r->length, r->disp_unit, r->node, pages);
	for (nid = 0; nid < nr_node_ids; nid++) {
		if (!counts[nid])
			continue;
		seq_printf(s, "%c%u:%llu", first ? ' ' : ',', nid, counts[nid]);
		first = false;
	}
	if (first)
		seq_puts(s, " -");
	if (win->flavor == MPIRMA_FLAVOR_DYNAMIC)
		seq_printf(s, " regions %u attached %llu", nregions, attached);
	seq_printf(s, "%s%s\n", r->interleave ? " interleave" : "", r->left ? " left" : "");
}

static void show_win(struct seq_file *s, struct mpirma_win *win, u64 *counts)
{
	unsigned long pages = mpirma_win_pages(win);
	u32 k, i;

	seq_printf(s, "  window %u flavor %s strategy %s ranks %u", win->id,
		   flavor_names[win->flavor], win->strategy->name, win->nranks);
	for (k = 0; k < MPIRMA_NR_KINDS; k++)
		seq_printf(s, " %s %lld", kind_names[k], atomic64_read(&win->stats.ops[k]));
	seq_printf(s, " bytes %lld lock_waits %lld contended %lld pages %lu direct %lld\n",
		   atomic64_read(&win->stats.bytes), atomic64_read(&win->stats.lock_waits),
		   atomic64_read(&win->stats.atomic_contended), pages,
		   atomic64_read(&win->stats.direct_ops));
	for (i = 0; i < win->nranks; i++)
		show_rank(s, win, i, counts);
}

static int jobs_show(struct seq_file *s, void *unused)
{
	struct mpirma_job *job;
	struct mpirma_win *win;
	unsigned long id;
	u64 *counts;

	/* per-node page counts of one rank at a time */
	counts = MPIRMA_FAULT_POINT(NULL, kcalloc(nr_node_ids, sizeof(*counts), GFP_KERNEL));
	if (!counts)
		return -ENOMEM;
	mutex_lock(&mpirma_jobs_lock);
	list_for_each_entry(job, &mpirma_jobs, node) {
		mutex_lock(&job->lock);
		seq_printf(s, "job %llu ranks %u joined %u gone %u\n", job->id, job->nranks,
			   bitmap_weight(job->joined, job->nranks),
			   bitmap_weight(job->gone, job->nranks));
		xa_for_each(&job->windows, id, win)
			show_win(s, win, counts);
		list_for_each_entry(win, &job->pending, pending_node)
			seq_printf(s, "  pending window: %u of %u ranks arrived\n",
				   win->narrived, win->nranks);
		mutex_unlock(&job->lock);
	}
	mutex_unlock(&mpirma_jobs_lock);
	kfree(counts);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(jobs);

/* One line per worker: id, node, pid, pieces of work run. */
static int workers_show(struct seq_file *s, void *unused)
{
	u32 id;
	int nid;
	pid_t pid;
	u64 items;

	for (id = 0; id < mpirma_nr_workers(); id++) {
		mpirma_worker_stats(id, &nid, &pid, &items);
		seq_printf(s, "worker %u node %d pid %d items %llu\n", id, nid, pid, items);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(workers);

void mpirma_debugfs_init(void)
{
	mpirma_debugfs_dir = debugfs_create_dir("mpirma", NULL);
	debugfs_create_file("jobs", 0400, mpirma_debugfs_dir, NULL, &jobs_fops);
	debugfs_create_file("workers", 0400, mpirma_debugfs_dir, NULL, &workers_fops);
}

void mpirma_debugfs_exit(void)
{
	debugfs_remove_recursive(mpirma_debugfs_dir);
}
