// SPDX-License-Identifier: GPL-2.0
/*
 * Windows over groups that are not the whole job: subsets, each rank in
 * several, and the collective that ranks disagree on.
 */
#define _GNU_SOURCE
#include "window.h"

MT_SHARED_FIXTURE(win, 0)

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


TEST_HARNESS_MAIN
