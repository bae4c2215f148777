// SPDX-License-Identifier: GPL-2.0
/*
 * The NUMA-local workers of the delegation strategy: each runs only on the
 * CPUs of its node, and a delegated window's memory is served by a worker
 * of the node the memory is on.  Worker identities come from
 * /sys/kernel/debug/mpirma/workers; CPU sets from /proc and sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define MAX_WORKERS	256

struct worker {
	int id, node, pid;
};

/* Reads the debugfs list; the number of workers, or -errno. */
static int read_workers(struct worker *w, int max)
{
	FILE *f = fopen("/sys/kernel/debug/mpirma/workers", "r");
	unsigned long long items;
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fscanf(f, "worker %d node %d pid %d items %llu\n", &w[n].id,
				 &w[n].node, &w[n].pid, &items) == 4)
		n++;
	fclose(f);
	return n;
}

/* The first line of @path starting with @key, value only, newline cut. */
static int read_field(const char *path, const char *key, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)))
			continue;
		snprintf(out, len, "%s", line + strlen(key));
		out[strcspn(out, "\n")] = 0;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

TEST(workers_bound_to_their_node)
{
	struct worker w[MAX_WORKERS];
	char path[128], allowed[256], cpus[256];
	int n, i;

	MT_REQUIRE_DEVICE();
	n = read_workers(w, MAX_WORKERS);
	if (n < 0)
		SKIP(return, "no debugfs: %s", strerror(-n));
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/status", w[i].pid);
		ASSERT_EQ(0, read_field(path, "Cpus_allowed_list:\t", allowed, sizeof(allowed)));
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", w[i].node);
		ASSERT_EQ(0, read_field(path, "", cpus, sizeof(cpus)));
		if (strcmp(allowed, cpus))
			TH_LOG("worker %d of node %d may run on %s, the node has %s", w[i].id,
			       w[i].node, allowed, cpus);
		EXPECT_STREQ(cpus, allowed);
	}
}

/* Memory placed on node N is served by a worker of node N (when N has CPUs). */
TEST(delegated_memory_served_on_its_node)
{
	struct worker w[MAX_WORKERS];
	bool has_worker[64] = { 0 };
	struct mpirma_win_query q;
	struct mt_solo so;
	int n, node, win, i;

	mt_solo_init(&so);
	MT_REQUIRE_DEVICE();
	n = read_workers(w, MAX_WORKERS);
	if (n < 0)
		SKIP(return, "no debugfs: %s", strerror(-n));
	for (i = 0; i < n; i++)
		if (w[i].node < 64)
			has_worker[w[i].node] = true;
	ASSERT_EQ(0, mt_solo_join(&so));
	for (node = 0; node < mt_nr_node_ids() && node < 64; node++) {
		struct mt_win mw = {
			.flavor = MPIRMA_FLAVOR_ALLOC, .flags = MPIRMA_WIN_NODE,
			.strategy = MPIRMA_ATOM_DELEGATE, .numa_node = node,
			.length = 4096, .nranks = 1,
		};

		if (!mt_node_online(node))
			continue;
		win = mt_win_create(so.mfd, &mw);
		ASSERT_LT(0, win);
		ASSERT_EQ(0, mt_win_query(so.mfd, win, 0, &q));
		EXPECT_EQ(node, q.numa_node);
		ASSERT_LE(0, q.worker);
		ASSERT_GT(n, q.worker);
		if (has_worker[node])
			EXPECT_EQ(node, w[q.worker].node);
		EXPECT_EQ(0, mt_win_free(so.mfd, win));
	}
	/* other strategies have no worker */
	win = mt_win_create_all(so.mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 4096);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, mt_win_query(so.mfd, win, 0, &q));
	EXPECT_EQ(-1, q.worker);
	EXPECT_EQ(0, mt_win_free(so.mfd, win));
	mt_solo_close(&so);
}

TEST_HARNESS_MAIN
