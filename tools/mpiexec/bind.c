// SPDX-License-Identifier: GPL-2.0
/*
 * mpiexec: where ranks run.  The CPUs the launcher may use and their NUMA
 * nodes, the plan that maps ranks to cores or nodes (--map-by, --bind-to),
 * and the CPU list a rank is bound to, for the report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <numa.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpirma_uapi.h"
#include "launch.h"

/* ---------------------------------------------------------------- binding */

void topology_read(struct topology *t)
{
	cpu_set_t *set;
	size_t size;
	int n, c, i, k, max = 4096;
	bool numa = numa_available() >= 0;

	n = numa ? numa_num_configured_cpus() : (int)sysconf(_SC_NPROCESSORS_CONF);
	if (n > max || n < 1)
		n = max;
	set = CPU_ALLOC(max);
	size = CPU_ALLOC_SIZE(max);
	if (!set)
		die(EX_SETUP, "out of memory");
	if (sched_getaffinity(0, size, set))
		die(EX_SETUP, "sched_getaffinity: %s", strerror(errno));
	t->cpu = calloc(max, sizeof(int));
	t->cpu_node = calloc(max, sizeof(int));
	t->node = calloc(max, sizeof(int));
	if (!t->cpu || !t->cpu_node || !t->node)
		die(EX_SETUP, "out of memory");
	t->ncpus = t->nnodes = 0;
	for (c = 0; c < max; c++) {
		int node;

		if (!CPU_ISSET_S(c, size, set))
			continue;
		node = numa ? numa_node_of_cpu(c) : 0;
		if (node < 0)
			node = 0;
		t->cpu[t->ncpus] = c;
		t->cpu_node[t->ncpus++] = node;
		for (k = 0; k < t->nnodes && t->node[k] != node; k++)
			;
		if (k == t->nnodes)
			t->node[t->nnodes++] = node;
	}
	CPU_FREE(set);
	if (!t->ncpus)
		die(EX_SETUP, "no CPU to run on");
	/* nodes in ascending order (insertion sort: few nodes) */
	for (i = 1; i < t->nnodes; i++)
		for (k = i; k > 0 && t->node[k - 1] > t->node[k]; k--) {
			int tmp = t->node[k];

			t->node[k] = t->node[k - 1];
			t->node[k - 1] = tmp;
		}
}

/* The @idx-th allowed CPU of @node, wrapping around. */
static int node_cpu(const struct topology *t, int node, unsigned long idx)
{
	int i, n = 0;

	for (i = 0; i < t->ncpus; i++)
		n += t->cpu_node[i] == node;
	idx %= n;
	for (i = 0; i < t->ncpus; i++)
		if (t->cpu_node[i] == node && idx-- == 0)
			return i;
	return 0;
}

/*
 * Where rank @r goes: --map-by core fills the allowed CPUs in order;
 * --map-by numa deals ranks to the nodes like cards, and within a node
 * fills its CPUs in order.  Then --bind-to takes that CPU, or all allowed
 * CPUs of its node.
 */
void plan_binding(const struct options *o, const struct topology *t,
			 unsigned long r, struct rank *rk)
{
	int slot, i;

	rk->cpus = NULL;
	rk->node = -1;
	if (o->bind == BIND_NONE)
		return;
	if (o->map == MAP_NUMA)
		slot = node_cpu(t, t->node[r % t->nnodes], r / t->nnodes);
	else
		slot = r % t->ncpus;
	rk->cpus_size = CPU_ALLOC_SIZE(t->cpu[t->ncpus - 1] + 1);
	rk->cpus = CPU_ALLOC(t->cpu[t->ncpus - 1] + 1);
	if (!rk->cpus)
		die(EX_SETUP, "out of memory");
	CPU_ZERO_S(rk->cpus_size, rk->cpus);
	if (o->bind == BIND_CORE) {
		CPU_SET_S(t->cpu[slot], rk->cpus_size, rk->cpus);
		return;
	}
	rk->node = t->cpu_node[slot];
	for (i = 0; i < t->ncpus; i++)
		if (t->cpu_node[i] == rk->node)
			CPU_SET_S(t->cpu[i], rk->cpus_size, rk->cpus);
}

/* "0-3,6" for the report. */
void format_cpus(const struct rank *rk, char *buf, size_t len)
{
	int c, first = -1, max = rk->cpus_size * 8;
	size_t n = 0;

	buf[0] = 0;
	for (c = 0; c <= max; c++) {
		bool in = c < max && CPU_ISSET_S(c, rk->cpus_size, rk->cpus);

		if (in && first < 0)
			first = c;
		if (!in && first >= 0 && n < len) {
			n += snprintf(buf + n, len - n, "%s%d", n ? "," : "", first);
			if (c - 1 > first && n < len)
				n += snprintf(buf + n, len - n, "-%d", c - 1);
			first = -1;
		}
	}
}
