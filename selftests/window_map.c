// SPDX-License-Identifier: GPL-2.0
/*
 * Window memory: mmap of ALLOC windows (contiguous or not, zero-filled,
 * shared between ranks) and of USER windows (the owners' own pages, through
 * forks and split mappings), USER windows whose owner sees RMA writes in
 * its own memory, and what user memory may be a window.
 */
#define _GNU_SOURCE
#include "window.h"

MT_SHARED_FIXTURE(win, 0)

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


TEST_HARNESS_MAIN
