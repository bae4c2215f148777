// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the mpirma selftests (mpirma_test.h) around the
 * device: the ranks as processes, shared memory and time, the module's
 * counters, NUMA nodes and the delegation strategy's workers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <numaif.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpirma_test.h"

#define SYSFS_DIR	"/sys/class/misc/mpirma/"

/* ---- rank processes ---- */

static void explain(uint32_t rank, int status, bool timed_out)
{
	if (timed_out)
		fprintf(stderr, "# rank %u: timed out, killed\n", rank);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == MT_EXIT_JOIN)
		fprintf(stderr, "# rank %u: JOB_JOIN failed\n", rank);
	else if (WIFEXITED(status))
		fprintf(stderr, "# rank %u: exit status %d\n", rank,
			WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "# rank %u: killed by signal %d\n", rank,
			WTERMSIG(status));
}

void mt_kill(struct mt_procs *p, uint32_t rank, int sig)
{
	if (rank < p->n && !p->reaped[rank] && p->pid[rank] > 0)
		kill(p->pid[rank], sig);
}

int mt_spawn(struct mt_procs *p, int job_fd, uint32_t nranks, mt_rank_fn fn,
	     void *arg, void *meta, unsigned int flags)
{
	pid_t parent = getpid();
	uint32_t r;

	memset(p, 0, sizeof(*p));
	if (nranks > MT_MAX_PROCS)
		return -EINVAL;
	fflush(NULL);	/* no buffered output duplicated into children */
	for (r = 0; r < nranks; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			int err = -errno;

			p->n = r;
			for (r = 0; r < p->n; r++)
				mt_kill(p, r, SIGKILL);
			mt_reap(p, 1000, ~0ull);
			return err;
		}
		if (pid == 0) {
			struct mt_rank rk = {
				.rank = r,
				.nranks = nranks,
				.mfd = -1,
				.job_fd = job_fd,
				.arg = arg,
				.meta = meta,
			};

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(MT_EXIT_ORPHAN);
			if (!(flags & MT_NOJOIN)) {
				rk.mfd = mt_job_join(job_fd, r);
				if (rk.mfd < 0) {
					fprintf(stderr, "# rank %u: JOB_JOIN: %s\n",
						r, strerror(-rk.mfd));
					_exit(MT_EXIT_JOIN);
				}
			}
			_exit(fn(&rk) & 0xff);
		}
		p->pid[r] = pid;
		p->n = r + 1;
	}
	return 0;
}

int mt_reap(struct mt_procs *p, unsigned int timeout_ms, uint64_t expect_killed)
{
	uint64_t deadline = mt_now_ms() + timeout_ms;
	uint32_t r, left, failed = 0;

	for (;;) {
		left = 0;
		for (r = 0; r < p->n; r++) {
			if (p->reaped[r])
				continue;
			if (waitpid(p->pid[r], &p->status[r], WNOHANG) == p->pid[r])
				p->reaped[r] = true;
			else
				left++;
		}
		if (!left || mt_now_ms() >= deadline)
			break;
		mt_sleep_ms(2);
	}
	for (r = 0; r < p->n; r++) {
		bool killed_ok;

		if (!p->reaped[r]) {
			kill(p->pid[r], SIGKILL);
			waitpid(p->pid[r], &p->status[r], 0);
			p->reaped[r] = true;
			p->timed_out[r] = true;
		}
		killed_ok = r < 64 && (expect_killed & (1ull << r)) &&
			    WIFSIGNALED(p->status[r]) &&
			    WTERMSIG(p->status[r]) == SIGKILL;
		if (killed_ok && !p->timed_out[r])
			continue;
		if (p->timed_out[r] || !WIFEXITED(p->status[r]) ||
		    WEXITSTATUS(p->status[r]) != 0 ||
		    (r < 64 && (expect_killed & (1ull << r)))) {
			explain(r, p->status[r], p->timed_out[r]);
			failed++;
		}
	}
	return failed;
}

int mt_run(int job_fd, uint32_t nranks, mt_rank_fn fn, void *arg, void *meta,
	   unsigned int timeout_ms)
{
	struct mt_procs p;
	int ret;

	ret = mt_spawn(&p, job_fd, nranks, fn, arg, meta, 0);
	if (ret < 0)
		return ret;
	return mt_reap(&p, timeout_ms, 0);
}

int mt_run_job(int dev, uint32_t nranks, mt_rank_fn fn, void *arg, void *meta,
	       unsigned int timeout_ms)
{
	int job = mt_job_create(dev, nranks, NULL);
	int ret;

	if (job < 0)
		return job;
	ret = mt_run(job, nranks, fn, arg, meta, timeout_ms);
	close(job);
	return ret;
}

/* ---- shared memory, time ---- */

static void *map_anon(size_t len, int share)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       share | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void *mt_shm(size_t len)
{
	return map_anon(len, MAP_SHARED);
}

void *mt_anon(size_t len)
{
	return map_anon(len, MAP_PRIVATE);
}

uint64_t mt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mt_sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool mt_wait_flag(const volatile int *flag, int value, unsigned int timeout_ms)
{
	uint64_t deadline = mt_now_ms() + timeout_ms;

	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < value) {
		if (mt_now_ms() >= deadline)
			return false;
		mt_sleep_ms(1);
	}
	return true;
}

void mt_set_flag(volatile int *flag, int value)
{
	__atomic_store_n(flag, value, __ATOMIC_RELEASE);
}

int mt_inc(volatile int *counter)
{
	return __atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST);
}

/* ---- module counters ---- */

long mt_read_long(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

long mt_counter(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), SYSFS_DIR "%s", name);
	return mt_read_long(path);
}

long mt_counter_settle(const char *name, long want)
{
	uint64_t deadline = mt_now_ms() + 5000;
	long v;

	while ((v = mt_counter(name)) != want && mt_now_ms() < deadline)
		mt_sleep_ms(20);
	return v;
}

int mt_drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].permitted &= ~(1U << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &h, d))
		return -errno;
	return 0;
}

bool mt_counters_zero(unsigned int timeout_ms, char *why, size_t len)
{
	static const char *const names[] = {
		"pages_pinned", "pages_allocated", "jobs", "windows",
	};
	uint64_t deadline = mt_now_ms() + timeout_ms;
	unsigned int i;
	long v = 0;

	for (;;) {
		for (i = 0; i < MT_ARRAY_SIZE(names); i++) {
			v = mt_counter(names[i]);
			if (v != 0)
				break;
		}
		if (i == MT_ARRAY_SIZE(names))
			return true;
		if (mt_now_ms() >= deadline)
			break;
		mt_sleep_ms(20);
	}
	if (why)
		snprintf(why, len, "%s = %ld", names[i], v);
	return false;
}

/* ---- NUMA ---- */

/* Does the sysfs node list at @path ("0-1,3") contain @node?  With @node
 * < 0, returns the highest node listed + 1 instead (0 if unreadable).
 */
static int node_list(const char *path, int node)
{
	char buf[256], *s;
	int fd, lo, hi, max = -1;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (s = buf; *s && *s != '\n';) {
		lo = hi = strtol(s, &s, 10);
		if (*s == '-')
			hi = strtol(s + 1, &s, 10);
		if (node >= lo && node <= hi)
			return 1;
		if (hi > max)
			max = hi;
		if (*s == ',')
			s++;
		else
			break;
	}
	return node < 0 ? max + 1 : 0;
}

int mt_nr_node_ids(void)
{
	int n = node_list("/sys/devices/system/node/possible", -1);

	return n > 0 ? n : 1;
}

bool mt_node_online(int node)
{
	if (node < 0)
		return false;
	return node_list("/sys/devices/system/node/online", node) == 1;
}

int mt_page_node(void *addr)
{
	int status = -1;

	/* move_pages() with no target nodes reports where each page is */
	if (move_pages(0, 1, &addr, NULL, &status, 0) < 0)
		return -errno;
	return status;
}

/* ---- the delegation strategy's workers ---- */

int mt_workers(struct mt_worker *w, int max)
{
	FILE *f = fopen("/sys/kernel/debug/mpirma/workers", "re");
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fscanf(f, "worker %d node %d pid %d items %llu\n",
				 &w[n].id, &w[n].node, &w[n].pid,
				 &w[n].items) == 4)
		n++;
	fclose(f);
	return n;
}
