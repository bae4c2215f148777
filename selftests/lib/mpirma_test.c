// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the mpirma selftests; see mpirma_test.h.
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

int mt_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

int mt_open(void)
{
	int fd = open(MPIRMA_DEVICE, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

void mt_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

bool mt_device_present(void)
{
	return access(MPIRMA_DEVICE, F_OK) == 0;
}

int mt_query(int fd, struct mpirma_query *q)
{
	mt_arg_init(q);
	return mt_ioctl(fd, MPIRMA_IOC_QUERY, q);
}

int mt_job_create_raw(int dev, uint32_t nranks, struct mpirma_job_create *jc)
{
	mt_arg_init(jc);
	jc->nranks = nranks;
	return mt_ioctl(dev, MPIRMA_IOC_JOB_CREATE, jc);
}

int mt_job_join_raw(int job_fd, uint32_t rank, struct mpirma_job_join *jj)
{
	mt_arg_init(jj);
	jj->rank = rank;
	jj->reserved = 0;
	return mt_ioctl(job_fd, MPIRMA_IOC_JOB_JOIN, jj);
}

int mt_job_create(int dev, uint32_t nranks, uint64_t *job_id)
{
	struct mpirma_job_create jc;
	int ret = mt_job_create_raw(dev, nranks, &jc);

	if (ret < 0)
		return ret;
	if (job_id)
		*job_id = jc.job_id;
	return jc.job_fd;
}

int mt_job_join(int job_fd, uint32_t rank)
{
	struct mpirma_job_join jj;
	int ret = mt_job_join_raw(job_fd, rank, &jj);

	return ret < 0 ? ret : jj.member_fd;
}

int mt_job_barrier(int mfd)
{
	return mt_ioctl(mfd, MPIRMA_IOC_JOB_BARRIER, NULL);
}

int mt_win_create(int mfd, const struct mt_win *w)
{
	static uint32_t all[MPIRMA_MAX_RANKS];
	struct mpirma_win_create wc;
	uint32_t i;
	int ret;

	if (!w->ranks)
		for (i = 0; i < w->nranks && i < MPIRMA_MAX_RANKS; i++)
			all[i] = i;
	mt_poison(&wc);
	wc.size = sizeof(wc);
	wc.flags = w->flags;
	wc.flavor = w->flavor;
	wc.strategy = w->strategy;
	wc.disp_unit = w->disp_unit ? w->disp_unit : 1;
	wc.numa_node = w->numa_node;
	wc.base = (uintptr_t)w->base;
	wc.length = w->length;
	wc.ranks = (uintptr_t)(w->ranks ? w->ranks : all);
	wc.nranks = w->nranks;
	wc.context = w->context;
	ret = mt_ioctl(mfd, MPIRMA_IOC_WIN_CREATE, &wc);
	if (ret < 0)
		return ret;
	/* ids are > 0; a zero or poisoned id is a kernel bug worth seeing */
	if (wc.win_id == 0 || wc.win_id > INT32_MAX)
		return -EPROTO;
	return wc.win_id;
}

int mt_win_create_all(int mfd, uint32_t nranks, uint32_t flavor, void *base,
		      uint64_t length)
{
	struct mt_win w = {
		.flavor = flavor,
		.base = base,
		.length = length,
		.nranks = nranks,
	};

	return mt_win_create(mfd, &w);
}

const char *mt_strategy_name(uint32_t strategy)
{
#define MT_STRATEGY_NAME(name, ID)					\
	if (strategy == MPIRMA_ATOM_##ID)				\
		return #name;
	MT_FOR_EACH_STRATEGY(MT_STRATEGY_NAME)
#undef MT_STRATEGY_NAME
	return strategy == MPIRMA_ATOM_DEFAULT ? "default" : "?";
}

int mt_win_query(int mfd, uint32_t win, uint32_t rank,
		 struct mpirma_win_query *q)
{
	mt_arg_init(q);
	q->win_id = win;
	q->rank = rank;
	return mt_ioctl(mfd, MPIRMA_IOC_WIN_QUERY, q);
}

void *mt_win_map(int mfd, uint32_t win, size_t *len)
{
	struct mpirma_win_query q;
	void *p;
	int ret;

	ret = mt_win_query(mfd, win, 0, &q);
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	p = mmap(NULL, q.mmap_length, PROT_READ | PROT_WRITE, MAP_SHARED, mfd,
		 q.mmap_offset);
	if (p == MAP_FAILED)
		return NULL;
	*len = q.mmap_length;
	return p;
}

void *mt_win_seg(int mfd, uint32_t win, void *map, uint32_t rank)
{
	struct mpirma_win_query q;
	int ret;

	ret = mt_win_query(mfd, win, rank, &q);
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	return (char *)map + q.seg_offset;
}

int mt_win_stats(int mfd, uint32_t win, struct mpirma_win_stats *st)
{
	mt_arg_init(st);
	st->win_id = win;
	st->reserved = 0;
	return mt_ioctl(mfd, MPIRMA_IOC_WIN_STATS, st);
}

static int win_attach_cmd(int mfd, unsigned long cmd, uint32_t win,
			  void *base, uint64_t length)
{
	struct mpirma_win_attach wa = {
		.size = sizeof(wa),
		.win_id = win,
		.base = (uintptr_t)base,
		.length = length,
	};

	return mt_ioctl(mfd, cmd, &wa);
}

int mt_win_attach(int mfd, uint32_t win, void *base, uint64_t length)
{
	return win_attach_cmd(mfd, MPIRMA_IOC_WIN_ATTACH, win, base, length);
}

int mt_win_detach(int mfd, uint32_t win, void *base)
{
	return win_attach_cmd(mfd, MPIRMA_IOC_WIN_DETACH, win, base, 0);
}

/* ---- a one-rank job that targets itself ---- */

int mt_solo_job(int dev, int *job)
{
	int mfd;

	*job = mt_job_create(dev, 1, NULL);
	if (*job < 0)
		return *job;
	mfd = mt_job_join(*job, 0);
	if (mfd < 0) {
		close(*job);
		*job = -1;
	}
	return mfd;
}

void mt_solo_init(struct mt_solo *s)
{
	memset(s, 0, sizeof(*s));
	s->dev = s->job = s->mfd = -1;
}

/* @err (< 0) from @step of mt_solo_join/open(): say so, close everything. */
static int solo_fail(struct mt_solo *s, const char *step, int err)
{
	fprintf(stderr, "# mt_solo: %s: %s\n", step, strerror(-err));
	mt_solo_close(s);
	return err;
}

int mt_solo_join(struct mt_solo *s)
{
	mt_solo_init(s);
	s->dev = mt_open();
	if (s->dev < 0)
		return solo_fail(s, "open " MPIRMA_DEVICE, s->dev);
	s->mfd = mt_solo_job(s->dev, &s->job);
	if (s->mfd < 0)
		return solo_fail(s, "one-rank job", s->mfd);
	return 0;
}

int mt_solo_open(struct mt_solo *s, uint32_t flavor, size_t len)
{
	return mt_solo_open_strategy(s, flavor, MPIRMA_ATOM_DEFAULT, len);
}

int mt_solo_open_strategy(struct mt_solo *s, uint32_t flavor,
			  uint32_t strategy, size_t len)
{
	struct mt_win w = {
		.flavor = flavor,
		.strategy = strategy,
		.length = len,
		.nranks = 1,
	};
	struct mpirma_win_query q;
	int ret;

	ret = mt_solo_join(s);
	if (ret < 0)
		return ret;
	s->flavor = flavor;
	s->len = len;
	s->strategy = strategy;
	if (flavor == MPIRMA_FLAVOR_USER) {
		w.base = mt_anon(len);
		if (!w.base)
			return solo_fail(s, "USER memory", -errno);
		s->mem = w.base;
	}
	ret = mt_win_create(s->mfd, &w);
	if (ret < 0)
		return solo_fail(s, "WIN_CREATE", ret);
	s->win = ret;
	if (strategy != MPIRMA_ATOM_DEFAULT) {
		ret = mt_win_query(s->mfd, s->win, 0, &q);
		if (ret < 0)
			return solo_fail(s, "WIN_QUERY", ret);
		if (q.strategy != strategy) {
			fprintf(stderr, "# mt_solo: asked for strategy %s, the window has %s\n",
				mt_strategy_name(strategy),
				mt_strategy_name(q.strategy));
			return solo_fail(s, "strategy", -EPROTO);
		}
	}
	if (w.base)
		return 0;
	s->map = mt_win_map(s->mfd, s->win, &s->map_len);
	if (!s->map)
		return solo_fail(s, "mmap of the window", -errno);
	s->mem = mt_win_seg(s->mfd, s->win, s->map, 0);
	if (!s->mem)
		return solo_fail(s, "rank 0's segment", -errno);
	return 0;
}

void mt_solo_close(struct mt_solo *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	mt_close(&s->mfd);
	mt_close(&s->job);
	mt_close(&s->dev);
	/* USER memory goes last, after the window it was */
	if (s->flavor == MPIRMA_FLAVOR_USER && s->mem)
		munmap(s->mem, s->len);
	mt_solo_init(s);
}

int mt_sync(int mfd, unsigned long cmd, uint32_t win, uint32_t rank,
	    uint32_t flags)
{
	struct mpirma_win_sync ws = {
		.size = sizeof(ws),
		.flags = flags,
		.win_id = win,
		.rank = rank,
	};

	return mt_ioctl(mfd, cmd, &ws);
}

int mt_group(int mfd, unsigned long cmd, uint32_t win, const uint32_t *ranks,
	     uint32_t nranks)
{
	struct mpirma_win_group wg = {
		.size = sizeof(wg),
		.win_id = win,
		.nranks = nranks,
		.ranks = (uintptr_t)ranks,
	};

	return mt_ioctl(mfd, cmd, &wg);
}

/* ---- RMA operations ---- */

struct mpirma_layout mt_contig(const void *addr, uint64_t count)
{
	struct mpirma_layout l = {
		.addr = (uintptr_t)addr,
		.count = count,
	};

	return l;
}

struct mpirma_layout mt_blocks(const void *addr,
			       const struct mpirma_block *blocks,
			       uint32_t nblocks, uint64_t count, int64_t extent)
{
	struct mpirma_layout l = {
		.addr = (uintptr_t)addr,
		.blocks = (uintptr_t)blocks,
		.nblocks = nblocks,
		.count = count,
		.extent = extent,
	};

	return l;
}

long mt_layout_offsets(const struct mpirma_layout *l, size_t esize,
		       int64_t *off, size_t max)
{
	const struct mpirma_block *b = (const void *)(uintptr_t)l->blocks;
	uint64_t rep, j;
	uint32_t i;
	long n = 0;

	if (!l->nblocks) {
		for (rep = 0; rep < l->count; rep++, n++)
			if ((size_t)n < max)
				off[n] = rep * esize;
		return n;
	}
	for (rep = 0; rep < l->count; rep++) {
		for (i = 0; i < l->nblocks; i++) {
			if (b[i].len % esize)
				return -1;
			for (j = 0; j < b[i].len / esize; j++, n++)
				if ((size_t)n < max)
					off[n] = (int64_t)rep * l->extent +
						 b[i].disp + j * esize;
		}
	}
	return n;
}

static struct mpirma_op mt_op(unsigned int kind, unsigned int type,
			      unsigned int op, uint32_t rank, uint64_t disp,
			      uint64_t n)
{
	struct mpirma_op o;

	memset(&o, 0, sizeof(o));
	o.kind = kind;
	o.type = type;
	o.op = op;
	o.target_rank = rank;
	o.status = 0x5a5a5a5a;	/* the kernel must overwrite it */
	o.target_disp = disp;
	o.target = mt_contig(NULL, n);
	return o;
}

struct mpirma_op mt_put(unsigned int type, uint32_t rank, uint64_t disp,
			const void *src, uint64_t n)
{
	struct mpirma_op o = mt_op(MPIRMA_KIND_PUT, type, 0, rank, disp, n);

	o.origin = mt_contig(src, n);
	return o;
}

struct mpirma_op mt_get(unsigned int type, uint32_t rank, uint64_t disp,
			void *dst, uint64_t n)
{
	struct mpirma_op o = mt_op(MPIRMA_KIND_GET, type, 0, rank, disp, n);

	o.result = mt_contig(dst, n);
	return o;
}

struct mpirma_op mt_acc(unsigned int type, unsigned int op, uint32_t rank,
			uint64_t disp, const void *src, uint64_t n)
{
	struct mpirma_op o = mt_op(MPIRMA_KIND_ACC, type, op, rank, disp, n);

	o.origin = mt_contig(src, n);
	return o;
}

struct mpirma_op mt_get_acc(unsigned int type, unsigned int op, uint32_t rank,
			    uint64_t disp, const void *src, void *res,
			    uint64_t n)
{
	struct mpirma_op o = mt_op(MPIRMA_KIND_GET_ACC, type, op, rank, disp, n);

	if (src)
		o.origin = mt_contig(src, n);
	o.result = mt_contig(res, n);
	return o;
}

struct mpirma_op mt_cas(unsigned int type, uint32_t rank, uint64_t disp,
			const void *newval, const void *cmp, void *old)
{
	struct mpirma_op o = mt_op(MPIRMA_KIND_CAS, type, 0, rank, disp, 1);

	o.origin = mt_contig(newval, 1);
	o.result = mt_contig(old, 1);
	o.compare = (uintptr_t)cmp;
	return o;
}

int mt_rma(int mfd, uint32_t win, struct mpirma_op *ops, uint32_t nops,
	   uint32_t *nfailed)
{
	struct mpirma_rma r = {
		.size = sizeof(r),
		.win_id = win,
		.nops = nops,
		.ops = (uintptr_t)ops,
		.op_size = sizeof(*ops),
		.nfailed = 0xcccccccc,
	};
	int ret = mt_ioctl(mfd, MPIRMA_IOC_RMA, &r);

	if (nfailed)
		*nfailed = r.nfailed;
	return ret;
}

int mt_rma1(int mfd, uint32_t win, struct mpirma_op *op)
{
	int ret = mt_rma(mfd, win, op, 1, NULL);

	return ret < 0 ? ret : op->status;
}

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
