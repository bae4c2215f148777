// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the mpirma selftests; see mpirma_test.h: the device,
 * jobs, windows, a one-rank job and RMA operations.  The rank processes,
 * shared memory, time, the module's counters, NUMA and the workers are
 * mt_system.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mpirma_test.h"

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

int mt_job_start(int dev, uint32_t nranks, int *job, int *member,
		 uint32_t njoin)
{
	int ret = 0;
	uint32_t r;

	for (r = 0; r < njoin; r++)
		member[r] = -1;
	*job = mt_job_create(dev, nranks, NULL);
	if (*job < 0) {
		ret = *job;
		*job = -1;
		return ret;
	}
	for (r = 0; r < njoin && !ret; r++) {
		member[r] = mt_job_join(*job, r);
		if (member[r] < 0)
			ret = member[r];
	}
	if (ret)
		mt_job_stop(job, member, njoin);
	return ret;
}

void mt_job_stop(int *job, int *member, uint32_t njoin)
{
	for (uint32_t r = 0; r < njoin; r++)
		mt_close(&member[r]);
	mt_close(job);
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
