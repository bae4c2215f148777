// SPDX-License-Identifier: GPL-2.0
/*
 * One-copy messages (msg_copy.c has the commands' contract): how an offer
 * ends.  WITHDRAW, and its race with TAKE (exactly one wins); HELP sharing
 * a take's copy; MPIRMA_MAX_OFFERS per rank (ENOSPC); and a sender that
 * leaves (closes its fd, is SIGKILLed in another process, or its job is
 * torn down): its offers end, TAKE says ENOENT, an OFFER to it EOWNERDEAD,
 * and every counter comes back to 0.
 */
#include "msg_copy.h"

TEST_F(copy, withdraw)
{
	struct mpirma_msg_copy t;
	uint64_t id;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 4000, &id));
	EXPECT_EQ(-ENOENT, withdraw(self->m[0], id));	/* the receiver */
	EXPECT_EQ(-ENOENT, withdraw(self->m[2], id));
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id + 1000));
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id + (1ULL << 32)));
	EXPECT_EQ(self->pinned + 1, mt_counter("pages_pinned"));
	EXPECT_EQ(0, withdraw(self->m[1], id));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, id, self->dst, 4000, &t));
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id));
	/* after a take */
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 4000, &id));
	ASSERT_EQ(0, take(self->m[0], 1, id, self->dst, 4000, &t));
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id));
}

/* MPIRMA_MAX_OFFERS outstanding per rank; one ending makes room. */
TEST_F(copy, max_offers)
{
	uint64_t id[MPIRMA_MAX_OFFERS], extra, other;
	struct mpirma_msg_copy t;
	int i;

	MT_SETUP_SKIPPED();
	for (i = 0; i < MPIRMA_MAX_OFFERS; i++)
		ASSERT_EQ(0, offer(self->m[1], i % 2 ? 0 : 2, self->src + i * PS,
				   100, &id[i]));
	EXPECT_EQ(self->pinned + MPIRMA_MAX_OFFERS, mt_counter("pages_pinned"));
	EXPECT_EQ(-ENOSPC, offer(self->m[1], 0, self->src, 100, &extra));
	EXPECT_EQ(-ENOSPC, offer(self->m[1], 2, self->src, 100, &extra));
	EXPECT_EQ(self->pinned + MPIRMA_MAX_OFFERS, mt_counter("pages_pinned"));
	ASSERT_EQ(0, offer(self->m[2], 0, self->src, 100, &other));  /* per rank */
	ASSERT_EQ(0, take(self->m[0], 1, id[1], self->dst, 100, &t));
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 100, &id[1]));
	EXPECT_EQ(-ENOSPC, offer(self->m[1], 0, self->src, 100, &extra));
	ASSERT_EQ(0, withdraw(self->m[1], id[2]));
	ASSERT_EQ(0, offer(self->m[1], 2, self->src, 100, &id[2]));
	EXPECT_EQ(-ENOSPC, offer(self->m[1], 0, self->src, 100, &extra));
	for (i = 0; i < MPIRMA_MAX_OFFERS; i++)
		EXPECT_EQ(0, withdraw(self->m[1], id[i]));
	EXPECT_EQ(0, withdraw(self->m[2], other));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/*
 * A sender that leaves ends its offers; an OFFER to a rank that has left is
 * EOWNERDEAD; an offer to a receiver that left stays its sender's to end.
 */
TEST_F(copy, sender_leaves)
{
	struct mpirma_msg_copy t;
	uint64_t a, b, c;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 3 * PS, &a));
	ASSERT_EQ(0, offer(self->m[1], 2, self->src, 100, &b));
	ASSERT_EQ(0, offer(self->m[0], 1, self->src, 100, &c));
	EXPECT_EQ(self->pinned + 5, mt_counter("pages_pinned"));
	mt_close(&self->m[1]);
	EXPECT_EQ(self->pinned + 1, pinned_settle(self->pinned + 1));
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, a, self->dst, 100, &t));
	EXPECT_EQ(-ENOENT, take(self->m[2], 1, b, self->dst, 100, &t));
	EXPECT_EQ(-EOWNERDEAD, offer(self->m[0], 1, self->src, 100, &a));
	EXPECT_EQ(-EOWNERDEAD, offer(self->m[2], 1, self->src, 100, &a));
	EXPECT_EQ(0, withdraw(self->m[0], c));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/*
 * TAKE and WITHDRAW of one offer at once, from two threads: exactly one
 * wins.  Withdrawn (0): the take finds nothing.  Taken: the withdraw says
 * EBUSY (copy under way) or ENOENT (over), and the data is whole.
 */
struct race {
	int mfd;
	uint64_t id;
	void *buf;
	volatile int ready, go;
	int ret;
	struct mpirma_msg_copy t;
};

static void *taker(void *arg)
{
	struct race *rc = arg;

	rc->ready = 1;
	while (!rc->go)
		;
	rc->ret = take(rc->mfd, 1, rc->id, rc->buf, RACE_LEN, &rc->t);
	__atomic_store_n(&rc->ready, 2, __ATOMIC_RELEASE);	/* done */
	return NULL;
}

TEST_F(copy, take_withdraw_race)
{
	uint8_t *out = mt_anon(RACE_LEN), *in = mt_anon(RACE_LEN);
	struct race rc = { .mfd = self->m[0], .buf = in };
	int won[3] = { 0 }, i, w;	/* withdrawn, EBUSY, ENOENT */
	size_t j, bad = 0;
	volatile long spin;
	pthread_t th;

	MT_SETUP_SKIPPED();
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, in);
	for (i = 0; i < RACE_ROUNDS; i++) {
		for (j = 0; j < RACE_LEN; j += 4093)	/* this round's marks */
			out[j] = pat(j, i);
		ASSERT_EQ(0, offer(self->m[1], 0, out, RACE_LEN, &rc.id));
		rc.ready = rc.go = 0;
		ASSERT_EQ(0, pthread_create(&th, NULL, taker, &rc));
		while (!rc.ready)
			;
		rc.go = 1;
		for (spin = 0; spin < (i % 10) * 2000; spin++)	/* who is first */
			;
		w = withdraw(self->m[1], rc.id);
		pthread_join(th, NULL);
		ASSERT_TRUE(w == 0 || w == -EBUSY || w == -ENOENT) TH_LOG("%d", w);
		won[w == 0 ? 0 : w == -EBUSY ? 1 : 2]++;
		ASSERT_EQ(w ? 0 : -ENOENT, rc.ret);
		EXPECT_EQ(-ENOENT, withdraw(self->m[1], rc.id));
		if (w == 0)
			continue;
		ASSERT_EQ(RACE_LEN, rc.t.copied);
		for (j = 0; j < RACE_LEN; j += 4093)
			bad += in[j] != pat(j, i);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
	TH_LOG("%d withdrawn, %d taken while withdraw said EBUSY, %d ENOENT",
	       won[0], won[1], won[2]);
	munmap(out, RACE_LEN);
	munmap(in, RACE_LEN);
}

/*
 * HELP: the sender's CPU copies chunks of an offer being taken; ENOENT
 * before the copy starts and after it ends, and for others' offers.
 */
TEST_F(copy, help)
{
	uint8_t *out = mt_anon(RACE_LEN), *in = mt_anon(RACE_LEN);
	struct race rc = { .mfd = self->m[0], .buf = in };
	int i, h, helped = 0;
	pthread_t th;

	MT_SETUP_SKIPPED();
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, in);
	ASSERT_EQ(0, offer(self->m[1], 0, out, RACE_LEN, &rc.id));
	EXPECT_EQ(-EINVAL, help(self->m[1], rc.id, 1, 0));
	EXPECT_EQ(-EINVAL, help(self->m[1], rc.id, 0, 8));
	EXPECT_EQ(-ENOENT, help(self->m[1], rc.id, 0, 0));	/* not taken yet */
	EXPECT_EQ(-ENOENT, help(self->m[2], rc.id, 0, 0));	/* not its own */
	ASSERT_EQ(0, withdraw(self->m[1], rc.id));
	for (i = 0; i < 20; i++) {
		fill(out, RACE_LEN, i);
		memset(in, 0, RACE_LEN);
		ASSERT_EQ(0, offer(self->m[1], 0, out, RACE_LEN, &rc.id));
		rc.ready = rc.go = 0;
		ASSERT_EQ(0, pthread_create(&th, NULL, taker, &rc));
		while (!rc.ready)
			;
		rc.go = 1;
		while ((h = help(self->m[1], rc.id, 0, 0)) == -ENOENT &&
		       __atomic_load_n(&rc.ready, __ATOMIC_ACQUIRE) != 2)
			;
		helped += !h;
		pthread_join(th, NULL);
		ASSERT_TRUE(h == 0 || h == -ENOENT) TH_LOG("%d", h);
		ASSERT_EQ(0, rc.ret);
		EXPECT_EQ(0, bad_bytes(in, RACE_LEN, i));
		EXPECT_EQ(-ENOENT, help(self->m[1], rc.id, 0, 0));
	}
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
	TH_LOG("helped %d of 20 takes", helped);
	munmap(out, RACE_LEN);
	munmap(in, RACE_LEN);
}

/* A job closed with offers outstanding in both directions: all released. */
TEST(job_torn_down)
{
	static char data[3 * 4096];
	int dev, job, m[2];
	uint64_t id;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, mt_job_start(dev, 2, &job, m, 2));
	close(job);
	memset(data, 1, sizeof(data));
	ASSERT_EQ(0, offer(m[0], 1, data, sizeof(data), &id));
	ASSERT_EQ(0, offer(m[0], 1, data, 10, &id));
	ASSERT_EQ(0, offer(m[1], 0, data + 1, 5000, &id));
	ASSERT_EQ(0, offer(m[1], 1, data, 1, &id));
	close(m[1]);
	close(m[0]);
	close(dev);
	EXPECT_EQ(0, pinned_settle(0));
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---- a sender in another process, SIGKILLed with an offer outstanding ---- */

struct shared {
	int offered;
	uint64_t id[2];
};

MT_SHARED_FIXTURE(proc, MPIRMA_FEAT_MSG_COPY)

/* Joins rank 1, offers KILL_LEN bytes to rank 0 twice, waits to be killed. */
MT_RANK_FN(sender)
{
	struct shared *sh = r->arg;
	uint8_t *buf = mt_anon(KILL_LEN + 100);
	int mfd = mt_job_join(r->job_fd, 1);

	ASSERT_LE(0, mfd);
	ASSERT_NE(NULL, buf);
	fill(buf + 7, KILL_LEN, 4);
	ASSERT_EQ(0, offer(mfd, 0, buf + 7, KILL_LEN, &sh->id[0]));
	ASSERT_EQ(0, offer(mfd, 0, buf + 7, KILL_LEN, &sh->id[1]));
	mt_set_flag(&sh->offered, 1);
	for (;;)
		pause();
}

TEST_F(proc, sender_killed)
{
	long base = mt_counter("pages_pinned"), pages = span((void *)7, KILL_LEN);
	uint8_t *in = mt_anon(KILL_LEN);
	struct mpirma_msg_copy t;
	struct mt_procs p;
	uint64_t id;
	int job, m0;

	MT_SETUP_SKIPPED();
	ASSERT_LE(0, base);
	ASSERT_NE(NULL, in);
	ASSERT_EQ(0, mt_job_start(self->dev, 2, &job, &m0, 1));
	ASSERT_EQ(0, mt_spawn(&p, job, 1, sender, self->sh, _metadata, MT_NOJOIN));
	close(job);
	ASSERT_TRUE(mt_wait_flag(&self->sh->offered, 1, MT_TIMEOUT_MS));
	EXPECT_EQ(base + 2 * pages, mt_counter("pages_pinned"));
	/* from another process's pages */
	ASSERT_EQ(0, take(m0, 1, self->sh->id[0], in, KILL_LEN, &t));
	EXPECT_EQ(KILL_LEN, t.copied);
	EXPECT_EQ(0, bad_bytes(in, KILL_LEN, 4));
	EXPECT_EQ(base + pages, pinned_settle(base + pages));

	mt_kill(&p, 0, SIGKILL);
	EXPECT_EQ(0, mt_reap(&p, MT_TIMEOUT_MS, 1ULL << 0));
	EXPECT_EQ(-ENOENT, take(m0, 1, self->sh->id[1], in, KILL_LEN, &t));
	EXPECT_EQ(base, pinned_settle(base));
	EXPECT_EQ(-EOWNERDEAD, offer(m0, 1, in, 100, &id));
	close(m0);
	MT_EXPECT_COUNTERS_ZERO();
	munmap(in, KILL_LEN);
}

TEST_HARNESS_MAIN
