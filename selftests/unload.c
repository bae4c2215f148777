// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading: the module refuses to unload while anything of it is open
 * (the device, a job fd, a member fd, or only a mapping of window memory
 * whose fds are closed), and its reference count returns to where it was
 * when everything is closed.  The unload attempt is delete_module() with
 * O_NONBLOCK, which fails with EWOULDBLOCK on a module in use and would
 * unload an unused one, so a failure here leaves the VM without the module.
 *
 * smoke is the tiny job that tools/vm-faults runs between reloads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define REFCNT	"/sys/module/mpirma/refcnt"

static long refcnt(void)
{
	return mt_read_long(REFCNT);
}

/* delete_module("mpirma"): 0 or -errno. */
static int try_unload(void)
{
	return syscall(SYS_delete_module, "mpirma", O_NONBLOCK) ? -errno : 0;
}

enum holder { H_DEV, H_JOB, H_MEMBER, H_MAPPING };

FIXTURE(unload) {
	long base;
};

FIXTURE_VARIANT(unload) {
	enum holder holder;
};

FIXTURE_VARIANT_ADD(unload, device) { .holder = H_DEV };
FIXTURE_VARIANT_ADD(unload, job) { .holder = H_JOB };
FIXTURE_VARIANT_ADD(unload, member) { .holder = H_MEMBER };
FIXTURE_VARIANT_ADD(unload, mapping_only) { .holder = H_MAPPING };

FIXTURE_SETUP(unload)
{
	MT_REQUIRE_DEVICE();
	if (geteuid())
		SKIP(return, "needs root (delete_module)");
	self->base = refcnt();
	if (self->base < 0)
		SKIP(return, "no %s", REFCNT);
}

FIXTURE_TEARDOWN(unload)
{
}

TEST_F(unload, refused_while_open)
{
	int dev, job = -1, mfd = -1, win;
	size_t len = 0;
	void *map = NULL;

	MT_SETUP_SKIPPED();
	dev = mt_open();
	ASSERT_LE(0, dev);
	if (variant->holder != H_DEV) {
		job = mt_job_create(dev, 1, NULL);
		ASSERT_LE(0, job);
		close(dev);
		dev = -1;
	}
	if (variant->holder == H_MEMBER || variant->holder == H_MAPPING) {
		mfd = mt_job_join(job, 0);
		ASSERT_LE(0, mfd);
		close(job);
		job = -1;
	}
	if (variant->holder == H_MAPPING) {
		win = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 4096);
		ASSERT_LT(0, win);
		map = mt_win_map(mfd, win, &len);
		ASSERT_NE(NULL, map);
		close(mfd);	/* the window goes; the mapping keeps its pages */
		mfd = -1;
		memset(map, 0x5a, len);
	}

	EXPECT_EQ(-EWOULDBLOCK, try_unload());
	EXPECT_EQ(0, access("/dev/mpirma", F_OK));
	EXPECT_LT(self->base, refcnt());

	if (map)
		EXPECT_EQ(0, munmap(map, len));
	if (mfd >= 0)
		close(mfd);
	if (job >= 0)
		close(job);
	if (dev >= 0)
		close(dev);
	MT_EXPECT_COUNTERS_ZERO();
	EXPECT_EQ(self->base, refcnt());
}

/* A job that touches every subsystem once; run between reloads. */
TEST(smoke)
{
	struct mt_solo s;
	int64_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, got[8];
	struct mpirma_op ops[2];
	uint32_t st;

	mt_solo_init(&s);
	MT_REQUIRE_DEVICE();
	for (st = MPIRMA_ATOM_LOCK; st < MPIRMA_NR_STRATEGIES; st++) {
		ASSERT_EQ(0, mt_solo_open_strategy(&s, MPIRMA_FLAVOR_ALLOC, st, 4096));
		ops[0] = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, 0, v, 8);
		ops[1] = mt_get(MPIRMA_TYPE_INT64, 0, 0, got, 8);
		ASSERT_EQ(0, mt_rma(s.mfd, s.win, ops, 2, NULL));
		EXPECT_EQ(0, mt_fence(s.mfd, s.win));
		EXPECT_EQ(0, memcmp(v, got, sizeof(v)));
		EXPECT_EQ(0, mt_win_free(s.mfd, s.win));
		s.win = 0;
		mt_solo_close(&s);
	}
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
