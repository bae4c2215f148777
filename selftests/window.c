// SPDX-License-Identifier: GPL-2.0
/*
 * Windows: creation arguments and their errors, the three flavors,
 * zero-size windows, WIN_QUERY, mmap of ALLOC windows (contiguous or not,
 * zero-filled, shared between ranks) and of USER windows (the owners' own
 * pages, through forks and split mappings), USER windows whose owner sees RMA
 * writes in its own memory, FREE (and ENOENT afterwards), WIN_STATS and
 * WIN_STATS_ADD, the module counters, NUMA placement, groups that are
 * subsets of the job, and DYNAMIC windows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"
#include "reference.h"

/* Data the ranks of one test share (MAP_SHARED, set up before fork). */
struct shared {
	int win_id[8][8];	/* [rank][window] */
	int flag[8];
	uint64_t addr[8];
	int32_t status[8];
};

static int raw_create(int mfd, struct mpirma_win_create *wc)
{
	int ret = mt_ioctl(mfd, MPIRMA_IOC_WIN_CREATE, wc);

	return ret < 0 ? ret : (int)wc->win_id;
}

static void base_args(struct mpirma_win_create *wc, const uint32_t *ranks,
		      uint32_t nranks)
{
	memset(wc, 0, sizeof(*wc));
	wc->size = sizeof(*wc);
	wc->flavor = MPIRMA_FLAVOR_ALLOC;
	wc->disp_unit = 1;
	wc->length = 4096;
	wc->ranks = (uintptr_t)ranks;
	wc->nranks = nranks;
}

MT_SHARED_FIXTURE(win, 0)

TEST_F(win, create_errors)
{
	static const uint32_t r0[] = { 0 }, r1[] = { 1 }, r07[] = { 0, 7 };
	static const uint32_t r00[] = { 0, 0 };
	struct mpirma_win_create wc;
	char buf[64];
	int job, mfd, ret;

	MT_SETUP_SKIPPED();
	/* a two-rank job of which only rank 0 is here: nothing collective
	 * can complete, so every call below must fail before waiting
	 */
	job = mt_job_create(self->dev, 2, NULL);
	ASSERT_LE(0, job);
	mfd = mt_job_join(job, 0);
	ASSERT_LE(0, mfd);

#define EXPECT_CREATE(err, what) do {					\
		ret = raw_create(mfd, &wc);				\
		if (ret != (err))					\
			TH_LOG("%s: %d (%s), expected %d", what, ret,	\
			       strerror(-ret), err);			\
		EXPECT_EQ(err, ret);					\
	} while (0)

	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_USER;
	EXPECT_CREATE(-EINVAL, "USER with base 0, length 4096");
	base_args(&wc, r0, 1);
	wc.base = (uintptr_t)buf;
	EXPECT_CREATE(-EINVAL, "ALLOC with a base");
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_DYNAMIC;
	wc.length = 0;
	wc.base = (uintptr_t)buf;
	EXPECT_CREATE(-EINVAL, "DYNAMIC with a base");
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_DYNAMIC;
	EXPECT_CREATE(-EINVAL, "DYNAMIC with a length");
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_NR_FLAVORS;
	EXPECT_CREATE(-EINVAL, "unknown flavor");
	base_args(&wc, r0, 1);
	wc.disp_unit = 0;
	EXPECT_CREATE(-EINVAL, "disp_unit 0");
	base_args(&wc, r0, 1);
	wc.flags = MPIRMA_WIN_CREATE_FLAGS + 1;	/* the first unknown bit */
	EXPECT_CREATE(-EINVAL, "unknown flag");
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_ALLOC;
	wc.base = 0;
	wc.flags = MPIRMA_WIN_NODE | MPIRMA_WIN_INTERLEAVE;
	EXPECT_CREATE(-EINVAL, "NODE with INTERLEAVE");
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_USER;
	wc.base = (uintptr_t)buf;
	wc.length = sizeof(buf);
	wc.flags = MPIRMA_WIN_CONTIG;
	EXPECT_CREATE(-EINVAL, "CONTIG on USER");
	wc.flags = MPIRMA_WIN_NODE;
	EXPECT_CREATE(-EINVAL, "NODE on USER");
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_DYNAMIC;
	wc.length = 0;
	wc.flags = MPIRMA_WIN_CONTIG;
	EXPECT_CREATE(-EINVAL, "CONTIG on DYNAMIC");
	base_args(&wc, r0, 1);
	wc.flags = MPIRMA_WIN_NODE;
	wc.numa_node = mt_nr_node_ids() + 3;
	EXPECT_CREATE(-EINVAL, "NODE beyond nr_node_ids");
	wc.numa_node = -1;
	EXPECT_CREATE(-EINVAL, "NODE -1");
	wc.numa_node = 1 << 30;
	EXPECT_CREATE(-EINVAL, "NODE 2^30");
	base_args(&wc, r0, 1);
	wc.strategy = MPIRMA_NR_STRATEGIES;
	EXPECT_CREATE(-EINVAL, "unknown strategy");
	base_args(&wc, r0, 0);
	EXPECT_CREATE(-EINVAL, "nranks 0");
	base_args(&wc, r0, 3);
	EXPECT_CREATE(-EINVAL, "nranks above the job's");
	base_args(&wc, r07, 2);
	EXPECT_CREATE(-ENXIO, "rank 7 in a job of 2");
	base_args(&wc, r00, 2);
	EXPECT_CREATE(-EINVAL, "duplicate rank");
	base_args(&wc, r1, 1);
	EXPECT_CREATE(-EINVAL, "caller not in the group");
	base_args(&wc, (void *)8, 1);
	EXPECT_CREATE(-EFAULT, "unreadable rank list");
	base_args(&wc, r0, 1);
	wc.length = 1ULL << 50;
	ret = raw_create(mfd, &wc);
	if (ret != -ENOMEM && ret != -EINVAL)
		TH_LOG("ALLOC of 2^50 bytes: %d", ret);
	EXPECT_TRUE(ret == -ENOMEM || ret == -EINVAL);
	/* absurd lengths fail cleanly (the run also checks the kernel log
	 * for allocation warnings) */
	base_args(&wc, r0, 1);
	wc.length = ~0ULL;
	ret = raw_create(mfd, &wc);
	if (ret != -ENOMEM && ret != -EINVAL && ret != -EOVERFLOW)
		TH_LOG("ALLOC of 2^64-1 bytes: %d", ret);
	EXPECT_TRUE(ret == -ENOMEM || ret == -EINVAL || ret == -EOVERFLOW);
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_USER;
	wc.base = (uintptr_t)buf;
	wc.length = 1ULL << 50;
	ret = raw_create(mfd, &wc);
	if (ret != -ENOMEM && ret != -EFAULT && ret != -EOVERFLOW)
		TH_LOG("USER of 2^50 bytes: %d", ret);
	EXPECT_TRUE(ret == -ENOMEM || ret == -EFAULT || ret == -EOVERFLOW);
	wc.length = ~0ULL - 16;	/* base + length wraps */
	ret = raw_create(mfd, &wc);
	if (ret != -ENOMEM && ret != -EFAULT && ret != -EOVERFLOW)
		TH_LOG("USER wrapping: %d", ret);
	EXPECT_TRUE(ret == -ENOMEM || ret == -EFAULT || ret == -EOVERFLOW);
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_USER;
	wc.base = 4096;
	EXPECT_CREATE(-EFAULT, "USER memory not mapped");
#undef EXPECT_CREATE

	/* valid ones: a one-rank group in a two-rank job, numa_node ignored
	 * without WIN_NODE, USER and ALLOC of length 0
	 */
	base_args(&wc, r0, 1);
	wc.numa_node = 12345;
	EXPECT_LT(0, raw_create(mfd, &wc));
	base_args(&wc, r0, 1);
	wc.flavor = MPIRMA_FLAVOR_USER;
	wc.length = 0;
	EXPECT_LT(0, raw_create(mfd, &wc));
	wc.base = (uintptr_t)buf;
	EXPECT_LT(0, raw_create(mfd, &wc));
	base_args(&wc, r0, 1);
	wc.length = 0;
	EXPECT_LT(0, raw_create(mfd, &wc));
	close(mfd);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

/* Three ranks, three flavors, per-rank sizes and disp_units. */
MT_RANK_FN(flavors_rank)
{
	struct shared *sh = r->arg;
	struct mpirma_win_query q;
	uint8_t *mem = malloc(1000);
	bool dynamic = sh->flag[7];
	int w[3], i, k;

	ASSERT_NE(NULL, mem);
	{
		struct mt_win user = {
			.flavor = MPIRMA_FLAVOR_USER,
			.base = mem + r->rank,	/* any alignment */
			.length = 100 * (r->rank + 1),
			.disp_unit = r->rank + 1,
			.nranks = 3,
		};
		struct mt_win alloc = {
			.flavor = MPIRMA_FLAVOR_ALLOC,
			.length = r->rank * 1000,	/* rank 0: empty */
			.disp_unit = 8,
			.nranks = 3,
		};
		struct mt_win dyn = {
			.flavor = MPIRMA_FLAVOR_DYNAMIC,
			.nranks = 3,
		};

		w[0] = mt_win_create(r->mfd, &user);
		ASSERT_LT(0, w[0]);
		w[1] = mt_win_create(r->mfd, &alloc);
		ASSERT_LT(0, w[1]);
		w[2] = dynamic ? mt_win_create(r->mfd, &dyn) : 0;
		if (dynamic)
			ASSERT_LT(0, w[2]);
	}
	for (i = 0; i < 3; i++)
		sh->win_id[r->rank][i] = w[i];
	EXPECT_NE(w[0], w[1]);

	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, mt_win_query(r->mfd, w[0], k, &q));
		EXPECT_EQ(100 * (k + 1), q.length);
		EXPECT_EQ(k + 1, q.disp_unit);
		EXPECT_EQ(MPIRMA_FLAVOR_USER, q.flavor);
		EXPECT_EQ(3, q.nranks);
		EXPECT_EQ(r->rank, q.my_rank);
		EXPECT_NE(MPIRMA_ATOM_DEFAULT, q.strategy);

		ASSERT_EQ(0, mt_win_query(r->mfd, w[1], k, &q));
		EXPECT_EQ(k * 1000, q.length);
		EXPECT_EQ(8, q.disp_unit);
		EXPECT_EQ(MPIRMA_FLAVOR_ALLOC, q.flavor);
		EXPECT_EQ(r->rank, q.my_rank);

		if (dynamic) {
			ASSERT_EQ(0, mt_win_query(r->mfd, w[2], k, &q));
			EXPECT_EQ(MPIRMA_FLAVOR_DYNAMIC, q.flavor);
			EXPECT_EQ(1, q.disp_unit);
		}
	}
	EXPECT_EQ(-ENXIO, mt_win_query(r->mfd, w[0], 3, &q));
	EXPECT_EQ(-ENXIO, mt_win_query(r->mfd, w[1], ~0U, &q));
	EXPECT_EQ(-ENOENT, mt_win_query(r->mfd, w[0] + w[1] + w[2] + 100, 0, &q));
	EXPECT_EQ(-ENOENT, mt_win_query(r->mfd, 0, 0, &q));

	/* disp_unit scales target_disp: rank k's unit is k + 1 */
	{
		uint8_t v = 0x40 + r->rank;
		struct mpirma_op op = mt_put(MPIRMA_TYPE_UINT8,
					     (r->rank + 1) % 3, 10, &v, 1);

		ASSERT_EQ(0, mt_fence(r->mfd, w[0]));
		ASSERT_EQ(0, mt_rma1(r->mfd, w[0], &op));
		ASSERT_EQ(0, mt_fence(r->mfd, w[0]));
		/* my left neighbour wrote at 10 * my unit */
		EXPECT_EQ(0x40 + (r->rank + 2) % 3,
			  mem[r->rank + 10 * (r->rank + 1)]);
	}
	for (i = 0; i < 3; i++)
		if (w[i] > 0)
			EXPECT_EQ(0, mt_win_free(r->mfd, w[i]));
}

TEST_F(win, flavors_and_query)
{
	int k;

	MT_SETUP_SKIPPED();
	self->sh->flag[7] = !!(self->q.features & MPIRMA_FEAT_WIN_DYNAMIC);
	MT_RUN_SHARED(3, flavors_rank);
	/* the same ids on every rank */
	for (k = 1; k < 3; k++)
		EXPECT_EQ(0, memcmp(self->sh->win_id[0], self->sh->win_id[k],
				    sizeof(self->sh->win_id[0])));
	MT_EXPECT_COUNTERS_ZERO();
}

MT_RANK_FN(zero_size_rank)
{
	uint64_t v = 1, got;
	struct mpirma_op op;
	int wu, wa;

	/* rank 1 contributes no memory to either window */
	wu = mt_win_create_all(r->mfd, 2, MPIRMA_FLAVOR_USER,
			       r->rank ? NULL : &v, r->rank ? 0 : 8);
	ASSERT_LT(0, wu);
	wa = mt_win_create_all(r->mfd, 2, MPIRMA_FLAVOR_ALLOC, NULL,
			       r->rank ? 0 : 8);
	ASSERT_LT(0, wa);
	op = mt_put(MPIRMA_TYPE_UINT64, 1, 0, &v, 0);
	EXPECT_EQ(0, mt_rma1(r->mfd, wu, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 1, 0, &v, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(r->mfd, wu, &op));
	op = mt_get(MPIRMA_TYPE_UINT8, 1, 0, &got, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(r->mfd, wa, &op));
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, &got, 1);
	EXPECT_EQ(0, mt_rma1(r->mfd, wa, &op));
	EXPECT_EQ(0, got);	/* ALLOC memory is zeroed */
	EXPECT_EQ(0, mt_win_free(r->mfd, wu));
	EXPECT_EQ(0, mt_win_free(r->mfd, wa));
}

TEST_F(win, zero_size)
{
	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, 2, zero_size_rank, NULL, _metadata,
				MT_TIMEOUT_MS));
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * A rank whose own part fails (bad buffer, disagreeing flavor) fails the
 * collective for every rank, early or late, instead of leaving the others
 * waiting for it; the group can create windows again afterwards.
 */
MT_RANK_FN(poison_rank)
{
	uint64_t mem[2] = { 0 };
	struct mt_win w = { .flavor = MPIRMA_FLAVOR_USER, .base = mem, .length = 16,
			    .nranks = 3 };
	int ret;

	/* rank 1 passes an unmapped buffer: EFAULT for it, an error for all */
	if (r->rank == 1)
		w.base = (void *)0x1000;
	if (r->rank == 2)
		usleep(200 * 1000);	/* arrive after the failure */
	ret = mt_win_create(r->mfd, &w);
	EXPECT_EQ(-EFAULT, ret);

	/* rank 0 disagrees on the flavor: EINVAL everywhere */
	w.base = mem;
	if (r->rank == 0) {
		w.flavor = MPIRMA_FLAVOR_ALLOC;
		w.base = NULL;
	}
	EXPECT_EQ(-EINVAL, mt_win_create(r->mfd, &w));

	/* and the next creation matches afresh */
	w.flavor = MPIRMA_FLAVOR_USER;
	w.base = mem;
	ret = mt_win_create(r->mfd, &w);
	ASSERT_LT(0, ret);
	EXPECT_EQ(0, mt_win_free(r->mfd, ret));
}

TEST_F(win, failed_rank_fails_collective)
{
	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, 3, poison_rank, NULL, _metadata,
				MT_TIMEOUT_MS));
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---- mmap of ALLOC and USER windows ---- */

FIXTURE(mapw) {
	int dev;
	struct mpirma_query q;
};

FIXTURE_VARIANT(mapw) {
	uint32_t flags;
};

FIXTURE_VARIANT_ADD(mapw, paged) {
	.flags = 0,
};

FIXTURE_VARIANT_ADD(mapw, contig) {
	.flags = MPIRMA_WIN_CONTIG,
};

FIXTURE_SETUP(mapw)
{
	MT_FIXTURE_OPEN();
	MT_FIXTURE_QUERY(&self->q, 0);
}

MT_FIXTURE_TEARDOWN(mapw)

static const uint64_t map_len[3] = { 100, 0, 5003 };

MT_RANK_FN(map_rank)
{
	uint32_t flags = *(uint32_t *)r->arg;
	struct mt_win w = {
		.flags = flags,
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.length = map_len[r->rank],
		.nranks = 3,
	};
	size_t page = sysconf(_SC_PAGESIZE), len, i;
	struct mpirma_win_query q[3];
	uint8_t *map, *seg[3];
	int win, k;
	void *p;

	win = mt_win_create(r->mfd, &w);
	ASSERT_LT(0, win);
	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, mt_win_query(r->mfd, win, k, &q[k]));
	for (k = 0; k < 3; k++) {
		EXPECT_EQ(q[0].mmap_offset, q[k].mmap_offset);
		EXPECT_EQ(q[0].mmap_length, q[k].mmap_length);
		EXPECT_EQ(map_len[k], q[k].length);
		EXPECT_EQ(0, q[k].mmap_offset % page);
		EXPECT_LE(q[k].seg_offset + q[k].length, q[k].mmap_length);
		if (flags & MPIRMA_WIN_CONTIG) {
			EXPECT_EQ(k ? q[k - 1].seg_offset + q[k - 1].length : 0,
				  q[k].seg_offset);
		} else {
			EXPECT_EQ(0, q[k].seg_offset % page);
		}
	}
	EXPECT_EQ(0, q[0].mmap_length % page);

	map = mt_win_map(r->mfd, win, &len);
	ASSERT_NE(NULL, map);
	for (i = 0; i < len; i++)
		if (map[i])
			break;
	EXPECT_EQ(len, i);	/* zero-filled */
	for (k = 0; k < 3; k++)
		seg[k] = map + q[k].seg_offset;
	ASSERT_EQ(0, mt_fence(r->mfd, win));	/* all have looked */

	/* store into my own segment by load/store ... */
	for (i = 0; i < map_len[r->rank]; i++)
		seg[r->rank][i] = r->rank * 50 + i % 50 + 1;
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	/* ... and every rank sees it through its own mapping and RMA */
	for (k = 0; k < 3; k++) {
		uint8_t got[5003];
		struct mpirma_op op = mt_get(MPIRMA_TYPE_BYTE, k, 0, got,
					     map_len[k]);

		for (i = 0; i < map_len[k]; i++)
			if (seg[k][i] != k * 50 + i % 50 + 1)
				break;
		EXPECT_EQ(map_len[k], i);
		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(0, memcmp(got, seg[k], map_len[k]));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));

	/* RMA writes show up in the mapping; rank 0 writes the last byte of
	 * rank 2 (CONTIG: the end of the whole window)
	 */
	if (r->rank == 0) {
		uint8_t v = 0xee;
		struct mpirma_op op = mt_put(MPIRMA_TYPE_BYTE, 2,
					     map_len[2] - 1, &v, 1);

		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		op = mt_put(MPIRMA_TYPE_BYTE, 2, map_len[2], &v, 1);
		EXPECT_EQ(-ERANGE, mt_rma1(r->mfd, win, &op));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0xee, seg[2][map_len[2] - 1]);

	/* mmap errors */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, r->mfd,
		 q[0].mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, len + page, PROT_READ | PROT_WRITE, MAP_SHARED, r->mfd,
		 q[0].mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* a part of the mapping is fine */
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, r->mfd, q[0].mmap_offset);
	EXPECT_NE(MAP_FAILED, p);
	if (p != MAP_FAILED) {
		EXPECT_EQ(0, memcmp(p, map, page));
		munmap(p, page);
	}

	/* the mapping outlives the window */
	ASSERT_EQ(0, mt_win_free(r->mfd, win));
	EXPECT_EQ(-ENOENT, mt_win_query(r->mfd, win, 0, &q[0]));
	if (map_len[r->rank]) {
		EXPECT_EQ(r->rank * 50 + 1, seg[r->rank][0]);
		seg[r->rank][0] = 0;	/* still writable */
	}
	munmap(map, len);
}

TEST_F(mapw, alloc_mmap)
{
	uint32_t flags = variant->flags;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, 3, map_rank, &flags, _metadata,
				MT_TIMEOUT_MS));
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * USER windows map too (MPIRMA_FEAT_MAP_USER): every rank's pinned pages,
 * rank after rank, each rank's byte 0 at its offset in its first page.
 */
static const uint64_t umap_len[3] = { 100, 0, 5003 };
static const uint64_t umap_off[3] = { 4090, 0, 7 };

MT_RANK_FN(user_map_rank)
{
	size_t page = sysconf(_SC_PAGESIZE), len, i;
	struct mpirma_win_query q[3];
	uint8_t *buf, *mine, *map, *m2, *seg[3];
	int win, k, next = (r->rank + 1) % 3, status;
	pid_t pid;

	buf = mt_anon(3 * page);
	ASSERT_NE(NULL, buf);
	mine = umap_len[r->rank] ? buf + umap_off[r->rank] : NULL;
	for (i = 0; i < umap_len[r->rank]; i++)
		mine[i] = r->rank * 40 + i % 40 + 1;
	win = mt_win_create_all(r->mfd, 3, MPIRMA_FLAVOR_USER, mine,
				umap_len[r->rank]);
	ASSERT_LT(0, win);
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, mt_win_query(r->mfd, win, k, &q[k]));
		EXPECT_EQ(MPIRMA_FLAVOR_USER, q[k].flavor);
		EXPECT_EQ(q[0].mmap_offset, q[k].mmap_offset);
		EXPECT_EQ(q[0].mmap_length, q[k].mmap_length);
		EXPECT_EQ(umap_off[k], q[k].seg_offset % page);
		EXPECT_LE(q[k].seg_offset + q[k].length, q[k].mmap_length);
	}
	/* 2 pages of rank 0 (4090 + 100 bytes), none of rank 1, 2 of rank 2 */
	EXPECT_EQ(4 * page, q[0].mmap_length);
	EXPECT_EQ(2 * page + umap_off[2], q[2].seg_offset);

	map = mt_win_map(r->mfd, win, &len);
	ASSERT_NE(NULL, map);
	for (k = 0; k < 3; k++)
		seg[k] = map + q[k].seg_offset;
	/* every rank's memory, as its owner wrote it */
	for (k = 0; k < 3; k++) {
		for (i = 0; i < umap_len[k]; i++)
			if (seg[k][i] != k * 40 + i % 40 + 1)
				break;
		EXPECT_EQ(umap_len[k], i);
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));	/* all have looked */

	/* stores through the mapping land in the owner's own memory */
	for (i = 0; i < umap_len[next]; i++)
		seg[next][i] = 0xc0 + r->rank;
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	for (i = 0; i < umap_len[r->rank]; i++)
		if (mine[i] != 0xc0 + (r->rank + 2) % 3)
			break;
	EXPECT_EQ(umap_len[r->rank], i);
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	/* and the owner's stores, and RMA, show in every mapping */
	if (r->rank == 0) {
		struct mpirma_op op;
		uint8_t v = 0x5a;

		mine[99] = 0x77;
		op = mt_put(MPIRMA_TYPE_BYTE, 2, 5002, &v, 1);
		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0x77, seg[0][99]);
	EXPECT_EQ(0x5a, seg[2][5002]);

	/* a fork's copy of the mapping sees the same pages */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(seg[2][5002] == 0x5a && seg[0][99] == 0x77 ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);

	/* a split mapping still finds its pages: in a fresh mapping, drop
	 * page 1, then fault page 3 (2 * page + 7 + 5002) for the first time
	 */
	m2 = mt_win_map(r->mfd, win, &len);
	ASSERT_NE(NULL, m2);
	EXPECT_EQ(0, munmap(m2 + page, page));
	EXPECT_EQ(0x5a, m2[q[2].seg_offset + 5002]);
	EXPECT_EQ(seg[0][0], m2[q[0].seg_offset]);	/* page 0 */
	EXPECT_EQ(0, munmap(m2, page));
	EXPECT_EQ(0, munmap(m2 + 2 * page, 2 * page));

	/* errors: private, too long, DYNAMIC windows have nothing to map */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ, MAP_PRIVATE, r->mfd,
				   q[0].mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len + page, PROT_READ, MAP_SHARED,
				   r->mfd, q[0].mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	if (r->rank == 0) {
		int dyn = mt_win_create_all(r->mfd, 1, MPIRMA_FLAVOR_DYNAMIC,
					    NULL, 0);
		off_t off = q[0].mmap_offset / win * dyn;

		ASSERT_LT(0, dyn);
		/* the offset derived as id * constant, as for the others */
		if (q[0].mmap_offset % win == 0) {
			EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ,
						   MAP_SHARED, r->mfd, off));
			EXPECT_EQ(ENODEV, errno);
		}
		EXPECT_EQ(0, mt_win_free(r->mfd, dyn));
	}

	/* the mapping outlives the window, and keeps the pages pinned */
	ASSERT_EQ(0, mt_win_free(r->mfd, win));
	EXPECT_EQ(-ENOENT, mt_win_query(r->mfd, win, 0, &q[0]));
	seg[0][0] = 1;
	EXPECT_EQ(0, munmap(map, page));
	munmap(buf, 3 * page);
}

TEST_F(win, user_window_mmap)
{
	MT_SETUP_SKIPPED();
	if (!(self->q.features & MPIRMA_FEAT_MAP_USER))
		SKIP(return, "the module does not map USER windows (map_user=0)");
	ASSERT_EQ(0, mt_run_job(self->dev, 3, user_map_rank, NULL, _metadata,
				MT_TIMEOUT_MS));
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---- USER windows: the owner's memory is the window ---- */

MT_RANK_FN(user_rank)
{
	struct shared *sh = r->arg;
	size_t page = sysconf(_SC_PAGESIZE);
	uint8_t *buf = NULL;
	uint64_t *mine = NULL;
	int win, i;

	if (r->rank == 0) {
		/* odd base, straddling pages */
		buf = mt_anon(3 * page);
		ASSERT_NE(NULL, buf);
		mine = (uint64_t *)(buf + page - 20 + 3);
		for (i = 0; i < 16; i++)
			mine[i] = 1000 + i;
	}
	win = mt_win_create_all(r->mfd, 2, MPIRMA_FLAVOR_USER, mine,
				mine ? 16 * sizeof(*mine) : 0);
	ASSERT_LT(0, win);
	if (r->rank == 1) {
		uint64_t v[16], one = 1;
		struct mpirma_op ops[3];

		for (i = 0; i < 16; i++)
			v[i] = 7 * i;
		ops[0] = mt_get(MPIRMA_TYPE_UINT64, 0, 0, v, 16);
		ASSERT_EQ(0, mt_rma(r->mfd, win, ops, 1, NULL));
		for (i = 0; i < 16; i++)
			EXPECT_EQ(1000 + i, v[i]);
		for (i = 0; i < 16; i++)
			v[i] = 7 * i;
		ops[0] = mt_put(MPIRMA_TYPE_UINT64, 0, 0, v, 8);
		ops[1] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 64, v + 8, 8);
		ops[2] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 120, &one, 1);
		ASSERT_EQ(0, mt_rma(r->mfd, win, ops, 3, NULL));
		EXPECT_EQ(0, ops[0].status + ops[1].status + ops[2].status);
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 0) {
		for (i = 0; i < 8; i++)
			EXPECT_EQ(7 * i, mine[i]);
		for (i = 8; i < 15; i++)
			EXPECT_EQ(1000 + i + 7 * i, mine[i]);
		EXPECT_EQ(1000 + 15 + 7 * 15 + 1, mine[15]);
		/* the owner's own stores are what others read */
		mine[3] = 0xabcdef;
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 1) {
		uint64_t got = 0;
		struct mpirma_op op = mt_get(MPIRMA_TYPE_UINT64, 0, 24, &got, 1);

		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(0xabcdef, got);
	}
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
	sh->flag[r->rank] = 1;
}

TEST_F(win, user_window_sees_rma)
{
	MT_SETUP_SKIPPED();
	MT_RUN_SHARED(2, user_rank);
	EXPECT_EQ(1, self->sh->flag[0] & self->sh->flag[1]);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_F(win, free_then_enoent)
{
	struct mpirma_win_query q;
	struct mpirma_win_stats st;
	uint64_t v = 0;
	struct mpirma_op op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &v, 1);
	long windows0;
	int job, mfd, w1, w2;

	MT_SETUP_SKIPPED();
	mfd = mt_solo_job(self->dev, &job);
	ASSERT_LE(0, mfd);
	windows0 = mt_counter("windows");
	w1 = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 64);
	w2 = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 64);
	ASSERT_LT(0, w1);
	ASSERT_LT(0, w2);
	EXPECT_NE(w1, w2);
	EXPECT_EQ(windows0 + 2, mt_counter("windows"));
	ASSERT_EQ(0, mt_win_free(mfd, w1));
	EXPECT_EQ(windows0 + 1, mt_counter("windows"));

	EXPECT_EQ(-ENOENT, mt_rma1(mfd, w1, &op));
	EXPECT_EQ(-ENOENT, mt_win_query(mfd, w1, 0, &q));
	EXPECT_EQ(-ENOENT, mt_fence(mfd, w1));
	EXPECT_EQ(-ENOENT, mt_win_free(mfd, w1));
	EXPECT_EQ(-ENOENT, mt_lock(mfd, w1, 0, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-ENOENT, mt_unlock(mfd, w1, 0));
	if (self->q.features & MPIRMA_FEAT_STATS)
		EXPECT_EQ(-ENOENT, mt_win_stats(mfd, w1, &st));
	if (self->q.features & MPIRMA_FEAT_PSCW) {
		static const uint32_t r0[] = { 0 };

		EXPECT_EQ(-ENOENT, mt_post(mfd, w1, r0, 1));
		EXPECT_EQ(-ENOENT, mt_start(mfd, w1, r0, 1));
		EXPECT_EQ(-ENOENT, mt_complete(mfd, w1));
		EXPECT_EQ(-ENOENT, mt_wait(mfd, w1, 0));
	}
	/* the other window is untouched; a new one gets a fresh id */
	EXPECT_EQ(0, mt_rma1(mfd, w2, &op));
	EXPECT_EQ(0, mt_win_free(mfd, w2));
	close(mfd);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_F(win, stats)
{
	uint64_t v[4] = { 1, 2, 3, 4 }, res[4], cmp = 0;
	struct mpirma_win_stats st;
	struct mpirma_op ops[8];
	int job, mfd, win;
	uint32_t nfailed;

	MT_SETUP_SKIPPED();
	if (!(self->q.features & MPIRMA_FEAT_STATS))
		SKIP(return, "no MPIRMA_FEAT_STATS");
	mfd = mt_solo_job(self->dev, &job);
	ASSERT_LE(0, mfd);
	win = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 3 * 4096 + 1);
	ASSERT_LT(0, win);
	ops[0] = mt_put(MPIRMA_TYPE_UINT64, 0, 0, v, 4);		/* 32 */
	ops[1] = mt_put(MPIRMA_TYPE_UINT64, 0, 1 << 20, v, 4);		/* fails */
	ops[2] = mt_get(MPIRMA_TYPE_UINT32, 0, 0, res, 3);		/* 12 */
	ops[3] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 8, v, 2);	/* 16 */
	ops[4] = mt_acc(MPIRMA_TYPE_DOUBLE, MPIRMA_OP_BAND, 0, 8, v, 2);	/* fails */
	ops[5] = mt_get_acc(MPIRMA_TYPE_UINT8, MPIRMA_OP_NO_OP, 0, 0, NULL, res, 5); /* 5 */
	ops[6] = mt_cas(MPIRMA_TYPE_UINT64, 0, 64, v, &cmp, res);	/* 8 */
	ops[7] = mt_cas(MPIRMA_TYPE_UINT64, 0, 66, v, &cmp, res);	/* 8 */
	ASSERT_EQ(0, mt_rma(mfd, win, ops, 8, &nfailed));
	EXPECT_EQ(2, nfailed);
	ASSERT_EQ(0, mt_win_stats(mfd, win, &st));
	EXPECT_EQ(1, st.ops[MPIRMA_KIND_PUT]);
	EXPECT_EQ(1, st.ops[MPIRMA_KIND_GET]);
	EXPECT_EQ(1, st.ops[MPIRMA_KIND_ACC]);
	EXPECT_EQ(1, st.ops[MPIRMA_KIND_GET_ACC]);
	EXPECT_EQ(2, st.ops[MPIRMA_KIND_CAS]);
	EXPECT_EQ(0, st.ops[5] + st.ops[6] + st.ops[7]);
	EXPECT_EQ(32 + 12 + 16 + 5 + 8 + 8, st.bytes);
	EXPECT_EQ(0, st.lock_waits);
	EXPECT_EQ(4, st.pages);
	EXPECT_EQ(0, st.direct_ops);
	EXPECT_EQ(0, mt_win_free(mfd, win));
	close(mfd);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * WIN_STATS_ADD: what a process reports of its own (direct-path)
 * operations adds to the window's counters and to direct_ops; bad
 * arguments change nothing.
 */
TEST_F(win, stats_add)
{
	struct mpirma_win_stats_add a;
	struct mpirma_win_stats st;
	int job, mfd, win;

	MT_SETUP_SKIPPED();
	if (!(self->q.features & MPIRMA_FEAT_STATS_ADD))
		SKIP(return, "no MPIRMA_FEAT_STATS_ADD");
	mfd = mt_solo_job(self->dev, &job);
	ASSERT_LE(0, mfd);
	win = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 4096);
	ASSERT_LT(0, win);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.win_id = win;
	a.ops[MPIRMA_KIND_PUT] = 3;
	a.ops[MPIRMA_KIND_ACC] = 5;
	a.ops[MPIRMA_KIND_CAS] = 7;
	a.bytes = 120;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_WIN_STATS_ADD, &a));
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_WIN_STATS_ADD, &a));

	a.flags = 1;
	EXPECT_EQ(-EINVAL, mt_ioctl(mfd, MPIRMA_IOC_WIN_STATS_ADD, &a));
	a.flags = 0;
	a.reserved = 1;
	EXPECT_EQ(-EINVAL, mt_ioctl(mfd, MPIRMA_IOC_WIN_STATS_ADD, &a));
	a.reserved = 0;
	a.ops[MPIRMA_NR_KINDS] = 1;
	EXPECT_EQ(-EINVAL, mt_ioctl(mfd, MPIRMA_IOC_WIN_STATS_ADD, &a));
	a.ops[MPIRMA_NR_KINDS] = 0;
	a.win_id = win + 1000;
	EXPECT_EQ(-ENOENT, mt_ioctl(mfd, MPIRMA_IOC_WIN_STATS_ADD, &a));

	ASSERT_EQ(0, mt_win_stats(mfd, win, &st));
	EXPECT_EQ(6, st.ops[MPIRMA_KIND_PUT]);
	EXPECT_EQ(0, st.ops[MPIRMA_KIND_GET]);
	EXPECT_EQ(10, st.ops[MPIRMA_KIND_ACC]);
	EXPECT_EQ(14, st.ops[MPIRMA_KIND_CAS]);
	EXPECT_EQ(240, st.bytes);
	EXPECT_EQ(30, st.direct_ops);
	EXPECT_EQ(0, mt_win_free(mfd, win));
	close(mfd);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_F(win, counters)
{
	long pinned0 = mt_counter("pages_pinned");
	long alloc0 = mt_counter("pages_allocated");
	long jobs0 = mt_counter("jobs"), windows0 = mt_counter("windows");
	size_t page = sysconf(_SC_PAGESIZE);
	uint8_t *buf;
	int job, mfd, wu, wa;

	MT_SETUP_SKIPPED();
	ASSERT_LE(0, pinned0);
	ASSERT_LE(0, alloc0);
	ASSERT_LE(0, jobs0);
	ASSERT_LE(0, windows0);
	buf = mt_anon(8 * page);
	ASSERT_NE(NULL, buf);
	job = mt_job_create(self->dev, 1, NULL);
	ASSERT_LE(0, job);
	EXPECT_EQ(jobs0 + 1, mt_counter("jobs"));
	mfd = mt_job_join(job, 0);
	ASSERT_LE(0, mfd);
	/* 5 pages of user memory starting mid-page: 6 pinned */
	wu = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_USER, buf + 100, 5 * page);
	ASSERT_LT(0, wu);
	EXPECT_EQ(pinned0 + 6, mt_counter("pages_pinned"));
	wa = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 3 * page - 1);
	ASSERT_LT(0, wa);
	EXPECT_EQ(alloc0 + 3, mt_counter("pages_allocated"));
	EXPECT_EQ(windows0 + 2, mt_counter("windows"));
	EXPECT_EQ(0, mt_win_free(mfd, wu));
	EXPECT_EQ(pinned0, mt_counter("pages_pinned"));
	/* closing everything releases the rest without FREE */
	close(mfd);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
	munmap(buf, 8 * page);
}

/* ---- NUMA ---- */

FIXTURE(numa) {
	struct mt_solo s;	/* no window */
};

FIXTURE_VARIANT(numa) {
	int node;
};

FIXTURE_VARIANT_ADD(numa, node0) {
	.node = 0,
};

FIXTURE_VARIANT_ADD(numa, node1) {
	.node = 1,
};

FIXTURE_SETUP(numa)
{
	mt_solo_init(&self->s);
	MT_REQUIRE_DEVICE();
	if (!mt_node_online(variant->node))
		SKIP(return, "NUMA node %d is not online", variant->node);
	ASSERT_EQ(0, mt_solo_join(&self->s));
}

FIXTURE_TEARDOWN(numa)
{
	mt_solo_close(&self->s);
}

TEST_F(numa, alloc_on_node)
{
	size_t page = sysconf(_SC_PAGESIZE), len, i;
	struct mpirma_win_query q;
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.flags = MPIRMA_WIN_NODE,
		.numa_node = variant->node,
		.length = 8 * page,
		.nranks = 1,
	};
	uint8_t *map, *seg;
	int win;

	MT_SETUP_SKIPPED();
	win = mt_win_create(self->s.mfd, &w);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, mt_win_query(self->s.mfd, win, 0, &q));
	EXPECT_EQ(variant->node, q.numa_node);
	map = mt_win_map(self->s.mfd, win, &len);
	ASSERT_NE(NULL, map);
	seg = map + q.seg_offset;
	for (i = 0; i < 8; i++) {
		int node;

		seg[i * page] = 1;	/* fault it in */
		node = mt_page_node(seg + i * page);
		if (node != variant->node)
			TH_LOG("page %zu is on node %d", i, node);
		EXPECT_EQ(variant->node, node);
	}
	munmap(map, len);
	EXPECT_EQ(0, mt_win_free(self->s.mfd, win));
}

/* WIN_PLACEMENT's per-node page counts of window rank 0. */
static int placement(int mfd, int win, uint64_t *counts, uint32_t n, uint64_t *pages)
{
	struct mpirma_win_placement pl = {
		.size = sizeof(pl), .win_id = win, .counts = (uintptr_t)counts,
		.nr_nodes = n,
	};
	int ret;

	memset(counts, 0xcc, n * sizeof(*counts));
	ret = mt_ioctl(mfd, MPIRMA_IOC_WIN_PLACEMENT, &pl);
	*pages = pl.pages;
	return ret;
}

TEST_F(numa, placement_counts)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC, .flags = MPIRMA_WIN_NODE,
		.numa_node = variant->node, .length = 8 * page, .nranks = 1,
	};
	uint64_t counts[64], pages;
	int win;

	MT_SETUP_SKIPPED();
	win = mt_win_create(self->s.mfd, &w);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, placement(self->s.mfd, win, counts, 64, &pages));
	EXPECT_EQ(8, pages);
	EXPECT_EQ(8, counts[variant->node]);
	EXPECT_EQ(0, counts[!variant->node]);
	EXPECT_EQ(0, mt_win_free(self->s.mfd, win));
}

/* Pages of an interleaved window alternate over the nodes, as move_pages sees them. */
TEST(numa_interleave)
{
	size_t page = sysconf(_SC_PAGESIZE), len, i;
	int nodes[64], nnodes = 0, n, win;
	uint64_t counts[64], pages;
	struct mpirma_win_query q;
	struct mt_solo so;
	uint8_t *map;
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC, .flags = MPIRMA_WIN_INTERLEAVE,
		.length = 16 * page, .nranks = 1,
	};

	mt_solo_init(&so);
	MT_REQUIRE_DEVICE();
	for (n = 0; n < mt_nr_node_ids() && nnodes < 64; n++)
		if (mt_node_online(n))
			nodes[nnodes++] = n;
	if (nnodes < 2)
		SKIP(return, "needs 2 NUMA nodes");
	ASSERT_EQ(0, mt_solo_join(&so));
	win = mt_win_create(so.mfd, &w);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, mt_win_query(so.mfd, win, 0, &q));
	map = mt_win_map(so.mfd, win, &len);
	ASSERT_NE(NULL, map);
	for (i = 0; i < 16; i++) {
		map[q.seg_offset + i * page] = 1;
		EXPECT_EQ(nodes[i % nnodes], mt_page_node(map + q.seg_offset + i * page));
	}
	ASSERT_EQ(0, placement(so.mfd, win, counts, 64, &pages));
	EXPECT_EQ(16, pages);
	for (n = 0; n < nnodes; n++)
		EXPECT_EQ(16 / nnodes + (n < 16 % nnodes), counts[nodes[n]]);
	munmap(map, len);
	EXPECT_EQ(0, mt_win_free(so.mfd, win));
	mt_solo_close(&so);
}

/* A user-memory window reports where its pages really are. */
TEST(numa_user_placement)
{
	size_t page = sysconf(_SC_PAGESIZE), i;
	uint64_t counts[64] = { 0 }, want[64] = { 0 }, pages;
	struct mt_solo so;
	uint8_t *buf;
	int win, node;

	mt_solo_init(&so);
	MT_REQUIRE_DEVICE();
	ASSERT_EQ(0, mt_solo_join(&so));
	buf = mt_anon(12 * page);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < 12; i++)
		buf[i * page] = 1;
	win = mt_win_create_all(so.mfd, 1, MPIRMA_FLAVOR_USER, buf, 12 * page);
	ASSERT_LT(0, win);
	for (i = 0; i < 12; i++) {
		node = mt_page_node(buf + i * page);
		ASSERT_LE(0, node);
		ASSERT_GT(64, node);
		want[node]++;
	}
	ASSERT_EQ(0, placement(so.mfd, win, counts, 64, &pages));
	EXPECT_EQ(12, pages);
	EXPECT_EQ(0, memcmp(want, counts, sizeof(uint64_t) * mt_nr_node_ids()));
	EXPECT_EQ(0, mt_win_free(so.mfd, win));
	munmap(buf, 12 * page);
	mt_solo_close(&so);
}

/* ---- groups that are not the whole job ---- */

MT_RANK_FN(group_rank)
{
	static const uint32_t g01[] = { 0, 1 }, g12[] = { 1, 2 };
	static const uint32_t g20[] = { 2, 0 };
	struct shared *sh = r->arg;
	struct mpirma_win_query q;
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.length = 64,
		.nranks = 2,
		.context = 5,
	};
	int a = 0, b = 0, c = 0;

	/* rank 1 is in {0,1} and {1,2}, and creates them in that order;
	 * rank 2 is in {1,2} and {2,0} and creates {2,0} first: matching is
	 * by (group, context), so nobody waits for the wrong window
	 */
	switch (r->rank) {
	case 0:
		w.ranks = g01;
		a = mt_win_create(r->mfd, &w);
		w.ranks = g20;
		c = mt_win_create(r->mfd, &w);
		break;
	case 1:
		w.ranks = g01;
		a = mt_win_create(r->mfd, &w);
		w.ranks = g12;
		b = mt_win_create(r->mfd, &w);
		break;
	case 2:
		w.ranks = g20;
		c = mt_win_create(r->mfd, &w);
		w.ranks = g12;
		b = mt_win_create(r->mfd, &w);
		break;
	}
	sh->win_id[r->rank][0] = a;
	sh->win_id[r->rank][1] = b;
	sh->win_id[r->rank][2] = c;
	if (r->rank != 2) {
		ASSERT_LT(0, a);
		ASSERT_EQ(0, mt_win_query(r->mfd, a, 0, &q));
		EXPECT_EQ(r->rank, q.my_rank);
	}
	if (r->rank != 0) {
		ASSERT_LT(0, b);
		ASSERT_EQ(0, mt_win_query(r->mfd, b, 0, &q));
		EXPECT_EQ(r->rank - 1, q.my_rank);
	}
	if (r->rank != 1) {
		ASSERT_LT(0, c);
		/* window rank 0 of {2, 0} is job rank 2 */
		ASSERT_EQ(0, mt_win_query(r->mfd, c, 0, &q));
		EXPECT_EQ(r->rank == 2 ? 0 : 1, q.my_rank);
	}
	/* a window of the job I am not in does not exist for me */
	EXPECT_EQ(0, mt_job_barrier(r->mfd));
	if (r->rank == 0) {
		uint64_t v = 1;
		struct mpirma_op op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &v, 1);

		EXPECT_EQ(-ENOENT, mt_rma1(r->mfd, sh->win_id[1][1], &op));
		EXPECT_EQ(-ENOENT, mt_fence(r->mfd, sh->win_id[1][1]));
		EXPECT_EQ(-ENOENT, mt_win_query(r->mfd, sh->win_id[1][1], 0, &q));
	}
	/* each pair frees its windows */
	if (a > 0)
		EXPECT_EQ(0, mt_win_free(r->mfd, a));
	if (b > 0)
		EXPECT_EQ(0, mt_win_free(r->mfd, b));
	if (c > 0)
		EXPECT_EQ(0, mt_win_free(r->mfd, c));
}

TEST_F(win, group_subsets)
{
	MT_SETUP_SKIPPED();
	MT_RUN_SHARED(3, group_rank);
	EXPECT_EQ(self->sh->win_id[0][0], self->sh->win_id[1][0]);
	EXPECT_EQ(self->sh->win_id[1][1], self->sh->win_id[2][1]);
	EXPECT_EQ(self->sh->win_id[0][2], self->sh->win_id[2][2]);
	MT_EXPECT_COUNTERS_ZERO();
}

/* Arguments that must agree between ranks, and do not. */
MT_RANK_FN(mismatch_rank)
{
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.length = 64,
		.nranks = 2,
	};
	char buf[64];
	int win;

	/* flavor */
	if (r->rank == 1) {
		w.flavor = MPIRMA_FLAVOR_USER;
		w.base = buf;
	}
	EXPECT_EQ(-EINVAL, mt_win_create(r->mfd, &w));
	/* CONTIG */
	w.flavor = MPIRMA_FLAVOR_ALLOC;
	w.base = NULL;
	w.flags = r->rank ? MPIRMA_WIN_CONTIG : 0;
	EXPECT_EQ(-EINVAL, mt_win_create(r->mfd, &w));
	/* and then an agreeing one works */
	w.flags = 0;
	win = mt_win_create(r->mfd, &w);
	EXPECT_LT(0, win);
	if (win > 0)
		EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

TEST_F(win, collective_mismatch)
{
	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, 2, mismatch_rank, NULL, _metadata,
				MT_TIMEOUT_MS));
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---- what user memory may be a window ---- */

/* Both flavors are charged to RLIMIT_MEMLOCK (without CAP_IPC_LOCK). */
MT_RANK_FN(memlock_rank)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct rlimit rl = { .rlim_cur = 16 * page, .rlim_max = 16 * page };
	uint8_t *buf = mt_anon(64 * page);
	int w1, w2, w3;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, mt_drop_ipc_lock());
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));

	EXPECT_EQ(-ENOMEM, mt_win_create_all(r->mfd, 1, MPIRMA_FLAVOR_USER,
					     buf, 64 * page));
	EXPECT_EQ(-ENOMEM, mt_win_create_all(r->mfd, 1, MPIRMA_FLAVOR_ALLOC,
					     NULL, 17 * page));
	/* 10 + 6 pages fit, a third window does not */
	w1 = mt_win_create_all(r->mfd, 1, MPIRMA_FLAVOR_USER, buf, 10 * page);
	ASSERT_LT(0, w1);
	w2 = mt_win_create_all(r->mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 6 * page);
	ASSERT_LT(0, w2);
	EXPECT_EQ(-ENOMEM, mt_win_create_all(r->mfd, 1, MPIRMA_FLAVOR_ALLOC,
					     NULL, page));
	/* freeing gives the charge back */
	EXPECT_EQ(0, mt_win_free(r->mfd, w1));
	w3 = mt_win_create_all(r->mfd, 1, MPIRMA_FLAVOR_USER, buf + 20 * page,
			       10 * page);
	EXPECT_LT(0, w3);
	EXPECT_EQ(0, mt_win_free(r->mfd, w2));
	if (w3 > 0)
		EXPECT_EQ(0, mt_win_free(r->mfd, w3));
}

TEST_F(win, memlock_limit)
{
	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, 1, memlock_rank, NULL, _metadata,
				MT_TIMEOUT_MS));
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_F(win, user_memory_kinds)
{
	size_t page = sysconf(_SC_PAGESIZE);
	uint64_t v = 0x1234, got = 0;
	struct mpirma_op op;
	int job, mfd, win, memfd;
	uint8_t *ro, *a, *b;

	MT_SETUP_SKIPPED();
	mfd = mt_solo_job(self->dev, &job);
	ASSERT_LE(0, mfd);

	/* memory the owner cannot write cannot be a window */
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-EFAULT, mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_USER, ro, page));
	/* nor a range that is only partly mapped */
	a = mt_anon(2 * page);
	ASSERT_NE(NULL, a);
	munmap(a + page, page);
	EXPECT_EQ(-EFAULT, mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_USER, a,
					     2 * page));

	/* shared memory: RMA writes show through another mapping of it */
	memfd = memfd_create("mpirma-test", MFD_CLOEXEC);
	ASSERT_LE(0, memfd);
	ASSERT_EQ(0, ftruncate(memfd, 2 * page));
	a = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	b = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_NE(MAP_FAILED, b);
	win = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_USER, a + 8, 2 * page - 8);
	ASSERT_LT(0, win);
	op = mt_put(MPIRMA_TYPE_UINT64, 0, page - 4, &v, 1);	/* across pages */
	EXPECT_EQ(0, mt_rma1(mfd, win, &op));
	EXPECT_EQ(0, memcmp(b + 8 + page - 4, &v, 8));
	b[100] = 0x77;
	op = mt_get(MPIRMA_TYPE_UINT8, 0, 92, &got, 1);
	EXPECT_EQ(0, mt_rma1(mfd, win, &op));
	EXPECT_EQ(0x77, got & 0xff);
	EXPECT_EQ(0, mt_win_free(mfd, win));
	close(memfd);
	close(mfd);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * The owner forks after creating a USER window (copy-on-write): the pinned
 * pages must stay the owner's, so its later stores are what others read and
 * others' RMA writes are what it reads.
 */
MT_RANK_FN(fork_rank)
{
	struct shared *sh = r->arg;
	size_t page = sysconf(_SC_PAGESIZE);
	uint64_t *mem = NULL;
	int win;

	if (r->rank == 0) {
		mem = mt_anon(page);
		ASSERT_NE(NULL, mem);
		mem[0] = 1;
	}
	win = mt_win_create_all(r->mfd, 2, MPIRMA_FLAVOR_USER, mem,
				mem ? page : 0);
	ASSERT_LT(0, win);
	if (r->rank == 0) {
		pid_t pid = fork();
		int status;

		ASSERT_LE(0, pid);
		if (pid == 0) {
			mem[1] = 99;	/* the child's own copy */
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		mem[0] = 2;	/* after the fork: must reach the window */
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 1) {
		uint64_t got[2] = { 0, 0 }, v = 3;
		struct mpirma_op op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, got, 2);

		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(2, got[0]);
		EXPECT_EQ(0, got[1]);
		op = mt_put(MPIRMA_TYPE_UINT64, 0, 16, &v, 1);
		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 0) {
		EXPECT_EQ(3, mem[2]);
		EXPECT_EQ(0, mem[1]);
	}
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
	(void)sh;
}

TEST_F(win, user_window_after_fork)
{
	MT_SETUP_SKIPPED();
	MT_RUN_SHARED(2, fork_rank);
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---- DYNAMIC ---- */

MT_RANK_FN(dynamic_rank)
{
	struct shared *sh = r->arg;
	uint64_t *mem = calloc(64, sizeof(uint64_t));
	struct mt_win w = { .flavor = MPIRMA_FLAVOR_DYNAMIC, .nranks = 2 };
	int win;

	ASSERT_NE(NULL, mem);
	win = mt_win_create(r->mfd, &w);
	ASSERT_LT(0, win);
	if (r->rank == 0) {
		EXPECT_EQ(-EINVAL, mt_win_attach(r->mfd, win, mem, 0));
		ASSERT_EQ(0, mt_win_attach(r->mfd, win, mem, 32 * sizeof(*mem)));
		/* attached regions of one rank may not overlap */
		EXPECT_EQ(-EINVAL, mt_win_attach(r->mfd, win, mem + 8, 8));
		sh->addr[0] = (uintptr_t)mem;
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 1) {
		uint64_t v[2] = { 11, 22 }, got[2];
		struct mpirma_op op;

		/* target_disp is the target's address */
		op = mt_put(MPIRMA_TYPE_UINT64, 0, sh->addr[0] + 8, v, 2);
		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		op = mt_get(MPIRMA_TYPE_UINT64, 0, sh->addr[0] + 8, got, 2);
		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(22, got[1]);
		/* outside the attached region */
		op = mt_put(MPIRMA_TYPE_UINT64, 0, sh->addr[0] + 32 * 8, v, 1);
		EXPECT_EQ(-ERANGE, mt_rma1(r->mfd, win, &op));
		op = mt_put(MPIRMA_TYPE_UINT64, 0, sh->addr[0] + 31 * 8, v, 2);
		EXPECT_EQ(-ERANGE, mt_rma1(r->mfd, win, &op));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 0) {
		EXPECT_EQ(11, mem[1]);
		EXPECT_EQ(22, mem[2]);
		EXPECT_EQ(0, mt_win_detach(r->mfd, win, mem));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 1) {
		uint64_t v = 1;
		struct mpirma_op op = mt_put(MPIRMA_TYPE_UINT64, 0,
					     sh->addr[0] + 8, &v, 1);

		EXPECT_EQ(-ERANGE, mt_rma1(r->mfd, win, &op));
	}
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

TEST_F(win, dynamic)
{
	MT_SETUP_SKIPPED();
	if (!(self->q.features & MPIRMA_FEAT_WIN_DYNAMIC))
		SKIP(return, "no MPIRMA_FEAT_WIN_DYNAMIC");
	MT_RUN_SHARED(2, dynamic_rank);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
