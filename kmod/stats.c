// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/mpirma/jobs lists every job, its ranks and its
 * windows with their counters, for people and for tools/mpirma-stat.  The
 * module-wide counters are in sysfs (main.c); debugfs being absent or
 * failing never affects the module.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

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

static void show_win(struct seq_file *s, struct mpirma_win *win)
{
	u32 k, i;

	seq_printf(s, "  window %u flavor %s strategy %s ranks %u", win->id,
		   flavor_names[win->flavor], win->strategy->name, win->nranks);
	for (k = 0; k < MPIRMA_NR_KINDS; k++)
		seq_printf(s, " %s %lld", kind_names[k], atomic64_read(&win->stats.ops[k]));
	seq_printf(s, " bytes %lld lock_waits %lld contended %lld\n",
		   atomic64_read(&win->stats.bytes), atomic64_read(&win->stats.lock_waits),
		   atomic64_read(&win->stats.atomic_contended));
	for (i = 0; i < win->nranks; i++)
		seq_printf(s, "    rank %u job_rank %u size %llu disp_unit %u node %d%s\n", i,
			   win->group[i], win->ranks[i].length, win->ranks[i].disp_unit,
			   win->ranks[i].node, win->ranks[i].left ? " left" : "");
}

static int jobs_show(struct seq_file *s, void *unused)
{
	struct mpirma_job *job;
	struct mpirma_win *win;
	unsigned long id;

	mutex_lock(&mpirma_jobs_lock);
	list_for_each_entry(job, &mpirma_jobs, node) {
		mutex_lock(&job->lock);
		seq_printf(s, "job %llu ranks %u joined %u gone %u\n", job->id, job->nranks,
			   bitmap_weight(job->joined, job->nranks),
			   bitmap_weight(job->gone, job->nranks));
		xa_for_each(&job->windows, id, win)
			show_win(s, win);
		list_for_each_entry(win, &job->pending, pending_node)
			seq_printf(s, "  pending window: %u of %u ranks arrived\n",
				   win->narrived, win->nranks);
		mutex_unlock(&job->lock);
	}
	mutex_unlock(&mpirma_jobs_lock);
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
