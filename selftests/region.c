// SPDX-License-Identifier: GPL-2.0
/*
 * Attached regions of DYNAMIC windows mapped by the job's processes
 * (MPIRMA_IOC_WIN_REGION, kmod/region.c): a region found by any of its
 * addresses, mapped, written and read through the mapping by another
 * process and seen by its owner; ERANGE outside every region; the
 * argument rules; a detach moves the owner's counter in the lock table and
 * makes the region unmappable, while an existing mapping stays valid
 * memory; everything released at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

struct shared {
	int flag[4];
	uint64_t addr;		/* rank 1's attached array */
};

MT_SHARED_FIXTURE(region, MPIRMA_FEAT_REGION_MAP | MPIRMA_FEAT_ULOCK)

static int region_query(int mfd, uint32_t win, uint32_t rank, uint64_t addr,
			struct mpirma_win_region *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->win_id = win;
	q->rank = rank;
	q->addr = addr;
	return mt_ioctl(mfd, MPIRMA_IOC_WIN_REGION, q);
}

#define N	1000	/* uint64_t: a region over parts of two pages or more */

MT_RANK_FN(map_rank)
{
	struct shared *sh = r->arg;
	struct mt_win w = {
		.flags = MPIRMA_WIN_ULOCK, .flavor = MPIRMA_FLAVOR_DYNAMIC,
		.nranks = r->nranks,
	};
	struct mpirma_win_region q, bad;
	struct mpirma_win_query wq;
	uint64_t *mine = NULL, *there;
	uint32_t *detached;
	void *table, *map;
	int win, i;

	win = mt_win_create(r->mfd, &w);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, mt_win_query(r->mfd, win, r->rank, &wq));
	table = mmap(NULL, wq.lock_length, PROT_READ, MAP_SHARED, r->mfd,
		     (off_t)wq.lock_offset);
	ASSERT_NE(MAP_FAILED, table);
	detached = (uint32_t *)((char *)table + MPIRMA_ULOCK_DETACHED(r->nranks));
	if (r->rank == 1) {
		/* Not page aligned, so the mapping's seg_offset matters. */
		mine = (uint64_t *)mt_anon(N * 8 + 64) + 3;
		ASSERT_NE(NULL, mine);
		for (i = 0; i < N; i++)
			mine[i] = i;
		ASSERT_EQ(0, mt_win_attach(r->mfd, win, mine, N * 8));
		sh->addr = (uint64_t)(uintptr_t)mine;
		mt_set_flag(&sh->flag[0], 1);
		EXPECT_TRUE(mt_wait_flag(&sh->flag[1], 1, 10000));
		/* Rank 0 wrote through its mapping. */
		for (i = 0; i < N; i++)
			ASSERT_EQ((uint64_t)i * 3, mine[i]);
		EXPECT_EQ(0, __atomic_load_n(&detached[1], __ATOMIC_SEQ_CST));
		ASSERT_EQ(0, mt_win_detach(r->mfd, win, mine));
		EXPECT_EQ(1, __atomic_load_n(&detached[1], __ATOMIC_SEQ_CST));
		mt_set_flag(&sh->flag[2], 1);
		EXPECT_TRUE(mt_wait_flag(&sh->flag[3], 1, 10000));
	} else {
		EXPECT_TRUE(mt_wait_flag(&sh->flag[0], 1, 10000));
		/* Any address of the region finds it. */
		ASSERT_EQ(0, region_query(r->mfd, win, 1, sh->addr + 8 * 500, &q));
		EXPECT_EQ(sh->addr, q.base);
		EXPECT_EQ(N * 8, q.length);
		EXPECT_EQ(sh->addr % 4096, q.seg_offset);
		EXPECT_LE(q.seg_offset + q.length, q.mmap_length);
		/* Outside every region, another rank, bad arguments. */
		EXPECT_EQ(-ERANGE, region_query(r->mfd, win, 1, sh->addr + N * 8, &bad));
		EXPECT_EQ(-ERANGE, region_query(r->mfd, win, 1, sh->addr - 1, &bad));
		EXPECT_EQ(-ERANGE, region_query(r->mfd, win, 0, sh->addr, &bad));
		EXPECT_EQ(-ENXIO, region_query(r->mfd, win, 2, sh->addr, &bad));
		EXPECT_EQ(-ENOENT, region_query(r->mfd, win + 1000, 1, sh->addr, &bad));
		bad.flags = 1;
		EXPECT_EQ(-EINVAL, mt_ioctl(r->mfd, MPIRMA_IOC_WIN_REGION, &bad));
		EXPECT_EQ(MAP_FAILED, mmap(NULL, q.mmap_length, PROT_READ,
					   MAP_PRIVATE, r->mfd, (off_t)q.mmap_offset));
		EXPECT_EQ(MAP_FAILED, mmap(NULL, q.mmap_length + 4096, PROT_READ,
					   MAP_SHARED, r->mfd, (off_t)q.mmap_offset));
		map = mmap(NULL, q.mmap_length, PROT_READ | PROT_WRITE, MAP_SHARED,
			   r->mfd, (off_t)q.mmap_offset);
		ASSERT_NE(MAP_FAILED, map);
		there = (uint64_t *)((char *)map + q.seg_offset);
		for (i = 0; i < N; i++) {
			ASSERT_EQ((uint64_t)i, there[i]);
			there[i] = (uint64_t)i * 3;
		}
		mt_set_flag(&sh->flag[1], 1);
		EXPECT_TRUE(mt_wait_flag(&sh->flag[2], 1, 10000));
		/* Detached: not found, not mappable; the old mapping is memory. */
		EXPECT_EQ(-ERANGE, region_query(r->mfd, win, 1, sh->addr, &bad));
		EXPECT_EQ(MAP_FAILED, mmap(NULL, q.mmap_length, PROT_READ, MAP_SHARED,
					   r->mfd, (off_t)q.mmap_offset));
		EXPECT_EQ((uint64_t)7, there[7] / 3);
		EXPECT_EQ(0, munmap(map, q.mmap_length));
		mt_set_flag(&sh->flag[3], 1);
	}
	munmap(table, wq.lock_length);
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

TEST_F(region, map_write_detach)
{
	MT_SETUP_SKIPPED();
	MT_RUN_SHARED(2, map_rank);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
