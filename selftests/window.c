// SPDX-License-Identifier: GPL-2.0
/*
 * Windows: creation arguments and their errors, the three flavors,
 * zero-size windows, WIN_QUERY, FREE (and ENOENT afterwards), WIN_STATS and
 * WIN_STATS_ADD, the module counters, and DYNAMIC windows.  Their memory and
 * mappings: window_map.c; NUMA placement: window_numa.c; groups that are
 * subsets of the job: window_group.c.
 */
#define _GNU_SOURCE
#include "window.h"

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
