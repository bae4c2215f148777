// SPDX-License-Identifier: GPL-2.0
/*
 * Isolation and limits: what one job, or one user, can and cannot reach,
 * and what the module charges (what it zeroes, copies out and rejects:
 * isolation_copy.c).
 *
 *  - A member of another job, a rank outside a window's group, or a
 *    process of another user reaches no window that is not its own: the
 *    same window id names another window (or none) in another job, and a
 *    job fd cannot be taken from another user's process.
 *  - Pinned (USER) and allocated (ALLOC) memory is charged to
 *    RLIMIT_MEMLOCK under every strategy: a small limit makes creation fail
 *    with ENOMEM for the whole group, with every counter and the caller's
 *    VmPin back where they were.
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

#include "isolation.h"

#define NOBODY		65534

/* Become an unprivileged user: no capabilities, no CAP_IPC_LOCK. */
static int become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return 0;
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
	int dev, job, m[2], win;
	uint8_t got[8];
	void *map, *p;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, mt_job_start(dev, 2, &job, m, 2));
	{
		struct mt_win w = {
			.flavor = MPIRMA_FLAVOR_ALLOC, .length = page,
			.ranks = &group, .nranks = 1,
		};

		win = mt_win_create(m[0], &w);
	}
	ASSERT_LT(0, win);
	map = mt_win_map(m[0], win, &len);
	ASSERT_NE(NULL, map);

	op = mt_get(MPIRMA_TYPE_BYTE, 0, 0, got, sizeof(got));
	EXPECT_EQ(-ENOENT, mt_rma1(m[1], win, &op));
	EXPECT_EQ(-ENOENT, mt_win_query(m[1], win, 0, &q));
	EXPECT_EQ(-ENOENT, mt_win_free(m[1], win));
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, m[1], (off_t)win << 32);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	/* and the member still reaches it after the other rank poked at it */
	EXPECT_EQ(0, mt_rma1(m[0], win, &op));

	/* freed: gone for its own rank too, though the mapping stays valid */
	EXPECT_EQ(0, mt_win_free(m[0], win));
	EXPECT_EQ(-ENOENT, mt_rma1(m[0], win, &op));
	EXPECT_EQ(-ENOENT, mt_win_query(m[0], win, 0, &q));
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, m[0], (off_t)win << 32);
	EXPECT_EQ(MAP_FAILED, p);
	((volatile uint8_t *)map)[0] = 1;
	munmap(map, len);
	close(m[0]);
	close(m[1]);
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

TEST_HARNESS_MAIN
