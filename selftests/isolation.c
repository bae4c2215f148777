// SPDX-License-Identifier: GPL-2.0
/*
 * Isolation and limits: what one job, or one user, can and cannot reach,
 * and what the module charges, zeroes and rejects.
 *
 *  - A member of another job, a rank outside a window's group, or a
 *    process of another user reaches no window that is not its own: the
 *    same window id names another window (or none) in another job, and a
 *    job fd cannot be taken from another user's process.
 *  - Pinned (USER) and allocated (ALLOC) memory is charged to
 *    RLIMIT_MEMLOCK under every strategy: a small limit makes creation fail
 *    with ENOMEM for the whole group, with every counter and the caller's
 *    VmPin back where they were.
 *  - Allocated window memory is zero when it is new, even right after a
 *    window full of garbage was freed.
 *  - Nothing the module copies out carries bytes it did not mean to write:
 *    reserved fields read 0, arrays beyond what is documented are zero or
 *    untouched, short structs are not written past their size.
 *  - Sizes, counts and displacements whose arithmetic overflows are
 *    rejected with EOVERFLOW (or the documented errno) before anything is
 *    touched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define NOBODY		65534
#define POISON64	0xccccccccccccccccULL
#define POISON32	0xccccccccU

static size_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Become an unprivileged user: no capabilities, no CAP_IPC_LOCK. */
static int become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return 0;
}

/* A one-rank ALLOC window of @len on @mfd, mapped; its id or -errno. */
static int solo_alloc(int mfd, uint32_t strategy, uint32_t flags, size_t len,
		      void **map, size_t *map_len)
{
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC, .strategy = strategy, .flags = flags,
		.length = len, .nranks = 1,
	};
	int win = mt_win_create(mfd, &w);

	if (win < 0 || !map)
		return win;
	*map = mt_win_map(mfd, win, map_len);
	return *map ? win : -errno;
}

/* ---------------------------------------------------------------- jobs */

/*
 * Window ids are per job: another job's member asking for id 1 reaches its
 * own window 1, or nothing; never the other job's.
 */
TEST(other_job_cannot_reach)
{
	size_t page = page_size(), la, lb;
	uint8_t got[64], pattern[64];
	struct mpirma_win_query q;
	struct mpirma_win_stats st;
	struct mpirma_op op;
	int dev, ja, jb, ma, mb, wa, wb;
	uint8_t *mapa, *mapb;
	void *p;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	ma = mt_solo_job(dev, &ja);
	mb = mt_solo_job(dev, &jb);
	ASSERT_LE(0, ma);
	ASSERT_LE(0, mb);
	wa = solo_alloc(ma, MPIRMA_ATOM_DEFAULT, 0, page, (void **)&mapa, &la);
	ASSERT_LT(0, wa);
	memset(pattern, 0xa5, sizeof(pattern));
	memcpy(mapa, pattern, sizeof(pattern));

	/* job B has no window yet: A's id is nothing to it */
	op = mt_get(MPIRMA_TYPE_BYTE, 0, 0, got, sizeof(got));
	EXPECT_EQ(-ENOENT, mt_rma1(mb, wa, &op));
	EXPECT_EQ(-ENOENT, mt_win_query(mb, wa, 0, &q));
	EXPECT_EQ(-ENOENT, mt_win_stats(mb, wa, &st));
	EXPECT_EQ(-ENOENT, mt_lock(mb, wa, 0, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-ENOENT, mt_fence(mb, wa));
	EXPECT_EQ(-ENOENT, mt_win_free(mb, wa));
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, mb, (off_t)wa << 32);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);

	/* B's own window may well have the same id: it is B's memory */
	wb = solo_alloc(mb, MPIRMA_ATOM_DEFAULT, 0, page, (void **)&mapb, &lb);
	ASSERT_LT(0, wb);
	memset(got, 0xff, sizeof(got));
	op = mt_get(MPIRMA_TYPE_BYTE, 0, 0, got, sizeof(got));
	EXPECT_EQ(0, mt_rma1(mb, wb, &op));
	EXPECT_EQ(0, got[0]);
	EXPECT_EQ(0, memcmp(got, mapb, sizeof(got)));
	if (wb == wa)
		TH_LOG("both jobs' windows have id %d", wa);
	EXPECT_EQ(0, memcmp(mapa, pattern, sizeof(pattern)));

	/* the job fd joins once per rank, and is not a member fd */
	EXPECT_EQ(-EBUSY, mt_job_join(ja, 0));
	EXPECT_EQ(-ENXIO, mt_job_join(ja, 1));
	EXPECT_EQ(-ENOTTY, mt_rma1(ja, wa, &op));
	EXPECT_EQ(-ENOTTY, mt_rma1(dev, wa, &op));
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, ja, (off_t)wa << 32);
	EXPECT_EQ(MAP_FAILED, p);

	munmap(mapa, la);
	munmap(mapb, lb);
	close(ma);
	close(mb);
	close(ja);
	close(jb);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/* A rank of the job outside the window's group does not reach it. */
TEST(rank_outside_group_cannot_reach)
{
	size_t page = page_size(), len;
	uint32_t group = 0;
	struct mpirma_win_query q;
	struct mpirma_op op;
	int dev, job, m0, m1, win;
	uint8_t got[8];
	void *map, *p;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	job = mt_job_create(dev, 2, NULL);
	ASSERT_LE(0, job);
	m0 = mt_job_join(job, 0);
	m1 = mt_job_join(job, 1);
	ASSERT_LE(0, m0);
	ASSERT_LE(0, m1);
	{
		struct mt_win w = {
			.flavor = MPIRMA_FLAVOR_ALLOC, .length = page,
			.ranks = &group, .nranks = 1,
		};

		win = mt_win_create(m0, &w);
	}
	ASSERT_LT(0, win);
	map = mt_win_map(m0, win, &len);
	ASSERT_NE(NULL, map);

	op = mt_get(MPIRMA_TYPE_BYTE, 0, 0, got, sizeof(got));
	EXPECT_EQ(-ENOENT, mt_rma1(m1, win, &op));
	EXPECT_EQ(-ENOENT, mt_win_query(m1, win, 0, &q));
	EXPECT_EQ(-ENOENT, mt_win_free(m1, win));
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, m1, (off_t)win << 32);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	/* and the member still reaches it after the other rank poked at it */
	EXPECT_EQ(0, mt_rma1(m0, win, &op));

	/* freed: gone for its own rank too, though the mapping stays valid */
	EXPECT_EQ(0, mt_win_free(m0, win));
	EXPECT_EQ(-ENOENT, mt_rma1(m0, win, &op));
	EXPECT_EQ(-ENOENT, mt_win_query(m0, win, 0, &q));
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, m0, (off_t)win << 32);
	EXPECT_EQ(MAP_FAILED, p);
	((volatile uint8_t *)map)[0] = 1;
	munmap(map, len);
	close(m0);
	close(m1);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * Another user cannot take a job fd out of a process (/proc/PID/fd,
 * pidfd_getfd): the fds are the only capability, and ptrace rules guard
 * them.  Its own jobs, which it may create, see none of ours.
 */
TEST(other_user_cannot_take_fds)
{
	size_t page = page_size(), len;
	int dev, job, mfd, win, status;
	uint8_t *map;
	pid_t parent = getpid(), pid;

	MT_REQUIRE_DEVICE();
	if (geteuid() != 0)
		SKIP(return, "needs root to become another user");
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	win = solo_alloc(mfd, MPIRMA_ATOM_DEFAULT, 0, page, (void **)&map, &len);
	ASSERT_LT(0, win);
	memset(map, 0x5a, page);

	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char path[64];
		uint8_t got[16];
		struct mpirma_op op;
		int fd, pidfd, mine, mjob, w2, code = 0;

		if (become_nobody())
			_exit(10);
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)parent, job);
		fd = open(path, O_RDWR);
		if (fd >= 0)
			code |= 1;	/* opened another user's job fd */
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)parent, mfd);
		fd = open(path, O_RDWR);
		if (fd >= 0)
			code |= 2;
		pidfd = syscall(SYS_pidfd_open, parent, 0);
		if (pidfd >= 0) {
			fd = syscall(SYS_pidfd_getfd, pidfd, mfd, 0);
			if (fd >= 0 || errno != EPERM)
				code |= 4;
		}
		/* its own job: window ids from 1 again, its own zeroed memory */
		mine = mt_open();
		if (mine < 0)
			_exit(11);
		mjob = -1;
		fd = mt_solo_job(mine, &mjob);
		if (fd < 0)
			_exit(12);
		op = mt_get(MPIRMA_TYPE_BYTE, 0, 0, got, sizeof(got));
		if (mt_rma1(fd, win, &op) != -ENOENT)
			code |= 8;
		w2 = solo_alloc(fd, MPIRMA_ATOM_DEFAULT, 0, page, NULL, NULL);
		if (w2 < 0)
			_exit(13);
		memset(got, 0xff, sizeof(got));
		if (mt_rma1(fd, w2, &op) || got[0] || got[15])
			code |= 16;
		_exit(code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("as uid %d: bits 1/2 opened our fds through /proc, 4 pidfd_getfd, "
		       "8 reached our window, 16 saw non-zero memory; >= 10 setup",
		       NOBODY);
	}
	EXPECT_EQ(0x5a, map[0]);
	munmap(map, len);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/* Open fds of this process. */
static int nr_fds(void)
{
	char path[64];
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!access(path, F_OK))
			n++;
	}
	return n;
}

/* @len bytes of @src on a page of their own that is then made read-only. */
static void *readonly_copy(const void *src, size_t len)
{
	void *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, src, len);
	mprotect(p, page_size(), PROT_READ);
	return p;
}

/*
 * A command that creates something it cannot take back (an fd, a joined
 * rank, a window) and cannot write its answer fails with EFAULT having done
 * nothing: no fd the caller does not know of, no rank used up.
 */
TEST(unwritable_struct_has_no_effect)
{
	struct mpirma_job_create jc = { .size = sizeof(jc), .nranks = 1 };
	struct mpirma_job_join jj = { .size = sizeof(jj), .rank = 0 };
	struct mpirma_win_create wc;
	uint32_t me = 0;
	int dev, job, mfd, fds, win;
	void *ro;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	fds = nr_fds();

	ro = readonly_copy(&jc, sizeof(jc));
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(-EFAULT, mt_ioctl(dev, MPIRMA_IOC_JOB_CREATE, ro));
	EXPECT_EQ(fds, nr_fds());
	EXPECT_EQ(0, mt_counter("jobs"));
	munmap(ro, page_size());

	job = mt_job_create(dev, 1, NULL);
	ASSERT_LE(0, job);
	fds = nr_fds();
	ro = readonly_copy(&jj, sizeof(jj));
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(-EFAULT, mt_ioctl(job, MPIRMA_IOC_JOB_JOIN, ro));
	EXPECT_EQ(fds, nr_fds());
	munmap(ro, page_size());
	/* the rank is still free to join */
	mfd = mt_job_join(job, 0);
	ASSERT_LE(0, mfd);

	memset(&wc, 0, sizeof(wc));
	wc.size = sizeof(wc);
	wc.flavor = MPIRMA_FLAVOR_ALLOC;
	wc.disp_unit = 1;
	wc.length = page_size();
	wc.ranks = (uintptr_t)&me;
	wc.nranks = 1;
	ro = readonly_copy(&wc, sizeof(wc));
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(-EFAULT, mt_ioctl(mfd, MPIRMA_IOC_WIN_CREATE, ro));
	EXPECT_EQ(0, mt_counter("windows"));
	EXPECT_EQ(0, mt_counter("pages_allocated"));
	munmap(ro, page_size());
	win = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, page_size());
	EXPECT_LT(0, win);

	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---------------------------------------------------------------- memlock */

FIXTURE(memlock) {
	int dev;
};

MT_FLAVOR_STRATEGY_VARIANTS(memlock, 0)

FIXTURE_SETUP(memlock)
{
	MT_FIXTURE_OPEN();
}

MT_FIXTURE_TEARDOWN(memlock)

#define LIMIT_PAGES	8

struct memlock_arg {
	uint32_t flavor, strategy;
	uint8_t *buf;
};

static int memlock_create(int mfd, const struct memlock_arg *a, size_t pages,
			  const uint32_t *group, uint32_t nranks)
{
	struct mt_win w = {
		.flavor = a->flavor, .strategy = a->strategy,
		.length = pages * page_size(), .ranks = group, .nranks = nranks,
		.base = a->flavor == MPIRMA_FLAVOR_USER ? a->buf : NULL,
	};

	return mt_win_create(mfd, &w);
}

/* This process: LIMIT_PAGES locked at most, no CAP_IPC_LOCK; 0 or -errno. */
static int limit_memlock(void)
{
	struct rlimit rl = { LIMIT_PAGES * page_size(), LIMIT_PAGES * page_size() };
	int ret = mt_drop_ipc_lock();

	if (ret)
		return ret;
	return setrlimit(RLIMIT_MEMLOCK, &rl) ? -errno : 0;
}

/*
 * Run @fn on @nranks ranks with windows of the variant's flavor and
 * strategy; USER windows on @buf.
 */
static void memlock_run(struct __test_metadata *_metadata, int dev,
			const FIXTURE_VARIANT(memlock) *variant,
			uint32_t nranks, mt_rank_fn fn, uint8_t *buf)
{
	struct memlock_arg a = { variant->flavor, variant->strategy, buf };

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, mt_run_job(dev, nranks, fn, &a, _metadata, MT_TIMEOUT_MS));
	MT_EXPECT_COUNTERS_ZERO();
}

/* One rank under the limit. */
MT_RANK_FN(memlock_solo)
{
	struct memlock_arg *a = r->arg;
	uint32_t me = 0;
	int win;

	ASSERT_EQ(0, limit_memlock());
	ASSERT_EQ(0, mt_vmpin_kb());

	/* one page too many: ENOMEM, and nothing stays charged or held */
	EXPECT_EQ(-ENOMEM, memlock_create(r->mfd, a, LIMIT_PAGES + 1, &me, 1));
	EXPECT_EQ(0, mt_vmpin_kb());
	EXPECT_EQ(0, mt_counter("windows"));
	EXPECT_EQ(0, mt_counter("pages_pinned"));
	EXPECT_EQ(0, mt_counter("pages_allocated"));

	/* exactly the limit fits, and is charged page for page */
	win = memlock_create(r->mfd, a, LIMIT_PAGES, &me, 1);
	ASSERT_LT(0, win);
	EXPECT_EQ((long)(LIMIT_PAGES * page_size() / 1024), mt_vmpin_kb());
	EXPECT_EQ(-ENOMEM, memlock_create(r->mfd, a, 1, &me, 1));
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
	EXPECT_EQ(0, mt_vmpin_kb());
	EXPECT_EQ(0, mt_counter("pages_pinned"));
	EXPECT_EQ(0, mt_counter("pages_allocated"));

	/* a huge size is refused before anything is pinned or allocated */
	EXPECT_EQ(-ENOMEM, memlock_create(r->mfd, a, 1UL << 20, &me, 1));
	EXPECT_EQ(0, mt_vmpin_kb());
}

TEST_F(memlock, over_limit_fails_cleanly)
{
	MT_SETUP_SKIPPED();
	memlock_run(_metadata, self->dev, variant, 1, memlock_solo,
		    mt_anon((LIMIT_PAGES + 2) * page_size()));
}

/*
 * Two ranks, only rank 1 limited: its ENOMEM fails the window for rank 0
 * too, and rank 0's part (pinned or charged) is given back.
 */
MT_RANK_FN(memlock_pair)
{
	struct memlock_arg *a = r->arg;
	int win;

	if (r->rank == 1)
		ASSERT_EQ(0, limit_memlock());
	EXPECT_EQ(-ENOMEM, memlock_create(r->mfd, a, r->rank ? LIMIT_PAGES + 1 : 2, NULL, 2));
	EXPECT_EQ(0, mt_vmpin_kb());
	/* the same pair within the limit works afterwards */
	win = memlock_create(r->mfd, a, 2, NULL, 2);
	ASSERT_LT(0, win);
	EXPECT_EQ((long)(2 * page_size() / 1024), mt_vmpin_kb());
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
	/* a rank's memory lives until every rank has freed the window */
	EXPECT_EQ(0, mt_job_barrier(r->mfd));
	EXPECT_EQ(0, mt_vmpin_kb());
}

TEST_F(memlock, one_rank_over_limit_fails_the_group)
{
	MT_SETUP_SKIPPED();
	memlock_run(_metadata, self->dev, variant, 2, memlock_pair,
		    mt_shm((LIMIT_PAGES + 2) * page_size()));
}

/* ---------------------------------------------------------------- zeroing */

static bool all_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * New ALLOC memory is zero all over the mapping (the rank's bytes and the
 * rest of its last page), under every strategy and layout, also when the
 * pages a window full of garbage just gave back are reused.
 */
TEST(alloc_memory_is_zeroed)
{
	size_t page = page_size(), len, map_len, i;
	static const uint32_t strategies[] = {
#define STRATEGY_ID(name, ID) MPIRMA_ATOM_##ID,
		MT_FOR_EACH_STRATEGY(STRATEGY_ID)
#undef STRATEGY_ID
	};
	uint8_t *got = malloc(4 * page);
	struct mpirma_op op;
	int dev, job, mfd, win, round;
	uint8_t *map;

	MT_REQUIRE_DEVICE();
	ASSERT_NE(NULL, got);
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	for (round = 0; round < 16; round++) {
		uint32_t strategy = strategies[round % MT_ARRAY_SIZE(strategies)];
		uint32_t flags = round & 4 ? MPIRMA_WIN_CONTIG : 0;

		len = (1 + round % 3) * page + 100 * (round & 1);
		win = solo_alloc(mfd, strategy, flags, len, (void **)&map, &map_len);
		ASSERT_LT(0, win) TH_LOG("round %d", round);
		EXPECT_TRUE(all_zero(map, map_len)) {
			TH_LOG("round %d (%s): mapping of %zu bytes not zero", round,
			       mt_strategy_name(strategy), map_len);
		}
		memset(got, 0xee, len);
		op = mt_get(MPIRMA_TYPE_BYTE, 0, 0, got, len);
		EXPECT_EQ(0, mt_rma1(mfd, win, &op));
		EXPECT_TRUE(all_zero(got, len));
		/* garbage for the next round to find, if pages were not zeroed */
		for (i = 0; i < map_len; i++)
			map[i] = 0xa0 + (i & 0xf);
		EXPECT_EQ(0, mt_win_free(mfd, win));
		munmap(map, map_len);
	}
	free(got);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---------------------------------------------------------------- copy-out */

/*
 * Every struct the module writes back: poisoned before the call, every
 * byte afterwards is an input the caller set, a documented output, or
 * (for arrays and reserved fields) zero; never poison left in an output,
 * never anything written past the caller's size.
 */
TEST(copy_out_carries_no_stale_bytes)
{
	size_t page = page_size(), len;
	struct {
		struct mpirma_win_query q;
		uint8_t tail[64];
	} big;
	struct mpirma_win_query q;
	struct mpirma_win_stats st;
	struct mpirma_win_placement pl;
	struct mpirma_query qu;
	struct mpirma_msg msg;
	struct mpirma_op ops[2], before[2];
	uint64_t counts[64], v = 42, back = 0;
	uint8_t buf[64];
	int dev, job, mfd, win, k, nodes;
	void *map;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	win = solo_alloc(mfd, MPIRMA_ATOM_DEFAULT, 0, page, &map, &len);
	ASSERT_LT(0, win);

	/* QUERY: op_type_mask beyond nr_ops is zero */
	mt_arg_init(&qu);
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_QUERY, &qu));
	ASSERT_GE(16, qu.nr_ops);
	for (k = qu.nr_ops; k < 16; k++)
		EXPECT_EQ(0, qu.op_type_mask[k]);
	EXPECT_NE(POISON64, qu.features);
	nodes = qu.nr_numa_nodes;

	/* WIN_QUERY: all outputs written, reserved 0 */
	ASSERT_EQ(0, mt_win_query(mfd, win, 0, &q));
	EXPECT_EQ(0, q.reserved);
	EXPECT_NE(POISON32, (uint32_t)q.worker);
	EXPECT_NE(POISON32, (uint32_t)q.numa_node);
	EXPECT_NE(POISON64, q.mmap_length);
	EXPECT_NE(POISON64, q.seg_offset);
	/* the first version's size: nothing written past it */
	mt_poison(&q);
	q.size = offsetof(struct mpirma_win_query, worker);
	q.flags = 0;
	q.win_id = win;
	q.rank = 0;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_WIN_QUERY, &q));
	EXPECT_EQ(POISON32, (uint32_t)q.worker);
	EXPECT_EQ(POISON32, q.reserved);
	EXPECT_EQ(1, q.nranks);
	/* larger than the kernel's: a zero tail stays zero */
	memset(&big, 0, sizeof(big));
	big.q.size = sizeof(big);
	big.q.win_id = win;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_WIN_QUERY, &big));
	EXPECT_TRUE(all_zero(big.tail, sizeof(big.tail)));

	/* WIN_STATS: counters of kinds that do not exist are zero */
	ASSERT_EQ(0, mt_win_stats(mfd, win, &st));
	for (k = MPIRMA_NR_KINDS; k < 8; k++)
		EXPECT_EQ(0, st.ops[k]);
	EXPECT_EQ(0, st.reserved);
	EXPECT_NE(POISON64, st.atomic_contended);
	EXPECT_NE(POISON64, st.pages);

	/* PLACEMENT: counts beyond nr_node_ids are not written */
	memset(counts, 0xcc, sizeof(counts));
	mt_arg_init(&pl);
	pl.win_id = win;
	pl.rank = 0;
	pl.counts = (uintptr_t)counts;
	pl.nr_nodes = MT_ARRAY_SIZE(counts);
	pl.reserved = 0;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_WIN_PLACEMENT, &pl));
	EXPECT_EQ(nodes, (int)pl.nr_nodes);
	ASSERT_GE(64, nodes);
	for (k = 0; k < nodes; k++)
		EXPECT_NE(POISON64, counts[k]);
	for (k = nodes; k < 64; k++)
		EXPECT_EQ(POISON64, counts[k]);
	EXPECT_EQ(1, pl.pages);

	/* MSG_RECV: the header is written, the buffer only up to msg_len */
	memset(&msg, 0, sizeof(msg));
	msg.size = sizeof(msg);
	msg.peer = 0;
	msg.tag = 3;
	msg.buf = (uintptr_t)"hello";
	msg.len = 5;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_MSG_SEND, &msg));
	mt_arg_init(&msg);
	memset(buf, 0xcc, sizeof(buf));
	msg.flags = MPIRMA_MSG_NOWAIT;
	msg.peer = MPIRMA_ANY_SOURCE;
	msg.tag = MPIRMA_ANY_TAG;
	msg.context = 0;
	msg.buf = (uintptr_t)buf;
	msg.len = sizeof(buf);
	msg.msg_len = 0;
	msg.source = 0;
	msg.msg_tag = 0;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_MSG_RECV, &msg));
	EXPECT_EQ(5, msg.msg_len);
	EXPECT_EQ(0, msg.source);
	EXPECT_EQ(3, msg.msg_tag);
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	for (k = 5; k < (int)sizeof(buf); k++)
		EXPECT_EQ(0xcc, buf[k]);

	/* RMA: only each operation's status is written back */
	ops[0] = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &v, 1);
	ops[1] = mt_get(MPIRMA_TYPE_UINT64, 0, 0, &back, 1);
	ops[0].status = ops[1].status = (int32_t)POISON32;
	memcpy(before, ops, sizeof(ops));
	ASSERT_EQ(0, mt_rma(mfd, win, ops, 2, NULL));
	EXPECT_EQ(42, back);
	for (k = 0; k < 2; k++) {
		EXPECT_EQ(0, ops[k].status);
		ops[k].status = before[k].status;
		EXPECT_EQ(0, memcmp(&ops[k], &before[k], sizeof(ops[k])));
	}

	munmap(map, len);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---------------------------------------------------------------- overflow */

static int create_err(int mfd, uint32_t flavor, uint64_t base, uint64_t length)
{
	struct mpirma_win_create wc;
	uint32_t me = 0;

	memset(&wc, 0, sizeof(wc));
	wc.size = sizeof(wc);
	wc.flavor = flavor;
	wc.disp_unit = 1;
	wc.base = base;
	wc.length = length;
	wc.ranks = (uintptr_t)&me;
	wc.nranks = 1;
	return mt_ioctl(mfd, MPIRMA_IOC_WIN_CREATE, &wc);
}

/*
 * Every size, count or displacement whose arithmetic does not fit 64 bits
 * is rejected; a huge one that fits is out of range or out of memory.
 */
TEST(overflowing_sizes_rejected)
{
	size_t page = page_size(), len;
	struct mpirma_block blk[2];
	uint64_t src[4] = { 0 }, res[4];
	struct mpirma_op op;
	struct mpirma_msg msg;
	int dev, job, mfd, win, w8;
	void *map;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	win = solo_alloc(mfd, MPIRMA_ATOM_DEFAULT, 0, page, &map, &len);
	ASSERT_LT(0, win);
	{
		struct mt_win w = {
			.flavor = MPIRMA_FLAVOR_ALLOC, .length = page, .disp_unit = 8,
			.nranks = 1,
		};

		w8 = mt_win_create(mfd, &w);
		ASSERT_LT(0, w8);
	}

	/* window sizes */
	EXPECT_EQ(-EOVERFLOW, create_err(mfd, MPIRMA_FLAVOR_ALLOC, 0, 1ULL << 63));
	EXPECT_EQ(-EOVERFLOW, create_err(mfd, MPIRMA_FLAVOR_ALLOC, 0, UINT64_MAX));
	EXPECT_EQ(-ENOMEM, create_err(mfd, MPIRMA_FLAVOR_ALLOC, 0, 1ULL << 62));
	/* user memory that wraps or leaves user space cannot be pinned */
	EXPECT_EQ(-EFAULT, create_err(mfd, MPIRMA_FLAVOR_USER, UINT64_MAX - page + 1,
				      2 * page));
	EXPECT_EQ(-EFAULT, create_err(mfd, MPIRMA_FLAVOR_USER, (uintptr_t)src, UINT64_MAX));
	EXPECT_EQ(-EFAULT, create_err(mfd, MPIRMA_FLAVOR_USER, (uintptr_t)src, 1ULL << 62));

	/* target_disp * disp_unit */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 1ULL << 61, src, 1);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, w8, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 1ULL << 60, src, 1);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, w8, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, UINT64_MAX / 8 / 4, src, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(mfd, w8, &op));
	/* count * element size */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 1ULL << 61);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 1ULL << 40);
	EXPECT_EQ(-ERANGE, mt_rma1(mfd, win, &op));
	/* a block's disp + len */
	blk[0].disp = INT64_MAX - 4;
	blk[0].len = 8;
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 1);
	op.target = mt_blocks(NULL, blk, 1, 1, 8);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	/* a block longer than S64_MAX */
	blk[0].disp = 0;
	blk[0].len = 1ULL << 63;
	op.target = mt_blocks(NULL, blk, 1, 1, 8);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	/* bytes per repetition * count */
	blk[0].len = 1ULL << 32;
	op = mt_put(MPIRMA_TYPE_BYTE, 0, 0, src, 1ULL << 32);
	op.target = mt_blocks(NULL, blk, 1, 1ULL << 33, 1ULL << 32);
	op.origin = mt_blocks(src, blk, 1, 1ULL << 33, 1ULL << 32);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	/* (count - 1) * extent */
	blk[0].len = 8;
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 4);
	op.target = mt_blocks(NULL, blk, 1, 4, INT64_MAX / 2);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	op.target = mt_blocks(NULL, blk, 1, 4, INT64_MIN / 2);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	/* a result side whose user address wraps is a fault, not a write */
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, res, 2);
	op.result.addr = UINT64_MAX - 8;
	EXPECT_EQ(-EFAULT, mt_rma1(mfd, win, &op));
	blk[0].disp = -16;
	blk[0].len = 16;
	op.result = mt_blocks((void *)8, blk, 1, 1, 16);
	EXPECT_EQ(-EFAULT, mt_rma1(mfd, win, &op));

	/* limits of a batch and a layout */
	{
		struct mpirma_rma rma;

		memset(&rma, 0, sizeof(rma));
		rma.size = sizeof(rma);
		rma.win_id = win;
		rma.nops = MPIRMA_MAX_BATCH + 1;
		rma.ops = (uintptr_t)&op;
		rma.op_size = sizeof(op);
		EXPECT_EQ(-EINVAL, mt_ioctl(mfd, MPIRMA_IOC_RMA, &rma));
		rma.nops = 1;
		rma.op_size = UINT32_MAX;
		EXPECT_EQ(-E2BIG, mt_ioctl(mfd, MPIRMA_IOC_RMA, &rma));
	}
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 1);
	op.target = mt_blocks(NULL, blk, MPIRMA_MAX_BLOCKS + 1, 1, 8);
	EXPECT_EQ(-EINVAL, mt_rma1(mfd, win, &op));

	/* a message larger than the machine */
	memset(&msg, 0, sizeof(msg));
	msg.size = sizeof(msg);
	msg.buf = (uintptr_t)src;
	msg.len = 1ULL << 62;
	EXPECT_EQ(-ENOMEM, mt_ioctl(mfd, MPIRMA_IOC_MSG_SEND, &msg));
	msg.len = UINT64_MAX;
	EXPECT_EQ(-ENOMEM, mt_ioctl(mfd, MPIRMA_IOC_MSG_SEND, &msg));

	/* nothing was touched by any of it */
	EXPECT_TRUE(all_zero(map, page));
	munmap(map, len);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * A compare_and_swap whose target is a block list acts on the element the
 * list names (the bounds check is done on it), not on the displacement
 * alone: elsewhere it would be the wrong element, or past the window.
 */
TEST(cas_target_block_list)
{
	size_t page = page_size(), len;
	struct mpirma_block blk;
	uint64_t nv = 7, cmp = 0, old = 99;
	struct mpirma_op op;
	int dev, job, mfd, win;
	uint8_t *map;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	win = solo_alloc(mfd, MPIRMA_ATOM_DEFAULT, 0, page, (void **)&map, &len);
	ASSERT_LT(0, win);

	/* displacement 0, the element at byte 64 */
	blk.disp = 64;
	blk.len = 8;
	memset(map, 0, page);
	map[0] = 0xee;
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, 0, &nv, &cmp, &old);
	op.target = mt_blocks(NULL, &blk, 1, 1, 8);
	EXPECT_EQ(0, mt_rma1(mfd, win, &op));
	EXPECT_EQ(0, old);
	EXPECT_EQ(7, *(uint64_t *)(map + 64));
	EXPECT_EQ(0xee, map[0]);

	/* displacement past the end, the element back inside: the last 8 bytes */
	blk.disp = -16;
	nv = 9;
	cmp = 0;
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, page + 8, &nv, &cmp, &old);
	op.target = mt_blocks(NULL, &blk, 1, 1, 8);
	EXPECT_EQ(0, mt_rma1(mfd, win, &op));
	EXPECT_EQ(0, old);
	EXPECT_EQ(9, *(uint64_t *)(map + page - 8));

	munmap(map, len);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
