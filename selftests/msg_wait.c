// SPDX-License-Identifier: GPL-2.0
/*
 * Messages that wait and peers that go (msg.h; the channel's contract is
 * msg.c's): EOWNERDEAD for a sender and for a receiver already waiting
 * when its peer leaves or dies, a PEEK racing a blocking receive, EINTR,
 * and the module's message_bytes counter back at 0 once the job is closed.
 */
#include "msg.h"

/* ---- EOWNERDEAD ---- */

/*
 * A send to a rank that has gone (closed its member fd), or that can never
 * join any more (the job fd closed before it joined): EOWNERDEAD.  Messages
 * a rank sent before it went are still delivered; after them, receives
 * from it (or from ANY_SOURCE) fail at once instead of waiting.
 */
TEST_F(msg, peer_gone)
{
	struct mpirma_msg m;
	uint64_t v;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, send_u64(self->m[2], 0, 1, 0, 222));
	ASSERT_EQ(0, send_u64(self->m[0], 2, 1, 0, 20));	/* to the leaver */
	close(self->m[2]);
	self->m[2] = -1;
	EXPECT_EQ(-EOWNERDEAD, send_u64(self->m[0], 2, 1, 0, 1));
	EXPECT_EQ(-EOWNERDEAD, send_u64(self->m[1], 2, 1, 0, 1));
	/* the living are reachable */
	EXPECT_EQ(0, send_u64(self->m[0], 1, 1, 0, 10));
	EXPECT_EQ(0, recv_u64(self->m[1], 0, 1, 0, 0, &v, &m));
	EXPECT_EQ(10, v);
	/* what rank 2 sent is still there */
	ASSERT_EQ(0, recv_u64(self->m[0], 2, 1, 0, 0, &v, &m));
	EXPECT_EQ(222, v);
	/* then: no wait for it, with or without NOWAIT, nor for ANY_SOURCE */
	EXPECT_EQ(-EOWNERDEAD, recv_u64(self->m[0], 2, 1, 0, 0, &v, &m));
	EXPECT_EQ(-EOWNERDEAD, recv_u64(self->m[0], 2, MPIRMA_ANY_TAG, 0,
					MPIRMA_MSG_NOWAIT, &v, &m));
	EXPECT_EQ(-EOWNERDEAD, recv_u64(self->m[0], MPIRMA_ANY_SOURCE,
					MPIRMA_ANY_TAG, 0, 0, &v, &m));
	EXPECT_EQ(-EOWNERDEAD, recv_u64(self->m[0], 2, 1, 0,
					MPIRMA_MSG_PEEK, &v, &m));
	/* a living source is still waited for */
	EXPECT_EQ(-EAGAIN, probe(self->m[0], 1, MPIRMA_ANY_TAG, 0));
	/* queued messages from the living still match ANY_SOURCE */
	ASSERT_EQ(0, send_u64(self->m[1], 0, 1, 0, 11));
	ASSERT_EQ(0, recv_u64(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0,
			      0, &v, &m));
	EXPECT_EQ(11, v);
}

TEST(never_joined_rank)
{
	struct mpirma_msg m;
	int dev, job, m0;
	uint64_t v;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, mt_job_start(dev, 2, &job, &m0, 1));
	/* rank 1 may still join: a send to it is queued */
	EXPECT_EQ(0, send_u64(m0, 1, 1, 0, 1));
	EXPECT_EQ(-EAGAIN, recv_u64(m0, 1, MPIRMA_ANY_TAG, 0, MPIRMA_MSG_NOWAIT,
				    &v, &m));
	close(job);	/* now it never will */
	EXPECT_EQ(-EOWNERDEAD, send_u64(m0, 1, 1, 0, 1));
	EXPECT_EQ(-EOWNERDEAD, recv_u64(m0, 1, MPIRMA_ANY_TAG, 0, 0, &v, &m));
	close(m0);
	close(dev);
	EXPECT_EQ(0, message_bytes_settle(0));
}

/* ---- blocking receives, with rank processes ---- */

enum {
	W_SOURCE,	/* rank 0 waits for rank 1 by name */
	W_ANY,		/* rank 0 waits for ANY_SOURCE */
	W_WAKE,		/* rank 1 sends after a delay instead of dying */
};

struct shared {
	int kind;
	int victim_ready;
	int waiting;
	int done;		/* rank 0's receive has returned */
	uint64_t kill_ms;
	uint64_t ret_ms;
	int32_t ret;
	uint64_t got;
};

MT_RANK_FN(waiter_rank)
{
	struct shared *sh = r->arg;
	struct mpirma_msg m;
	uint64_t v = 0;

	if (r->rank == 1) {
		mt_set_flag(&sh->victim_ready, 1);
		if (sh->kind == W_WAKE) {
			ASSERT_TRUE(mt_wait_flag(&sh->waiting, 1, 10000));
			mt_sleep_ms(300);
			sh->kill_ms = mt_now_ms();
			ASSERT_EQ(0, send_u64(r->mfd, 0, 9, 0, 4242));
			return;
		}
		for (;;)
			pause();
	}
	if (r->rank == 2) {
		/* a bystander, alive and silent until rank 0 is done (its
		 * leaving would end an ANY_SOURCE receive too early)
		 */
		ASSERT_TRUE(mt_wait_flag(&sh->done, 1, MT_TIMEOUT_MS));
		return;
	}
	ASSERT_TRUE(mt_wait_flag(&sh->victim_ready, 1, 10000));
	mt_set_flag(&sh->waiting, 1);
	sh->ret = recv_u64(r->mfd, sh->kind == W_ANY ? MPIRMA_ANY_SOURCE : 1,
			   MPIRMA_ANY_TAG, 0, 0, &v, &m);
	sh->ret_ms = mt_now_ms();
	sh->got = v;
	mt_set_flag(&sh->done, 1);
}

/*
 * Two threads of one rank: one peeks in a loop while the other takes the
 * messages.  A peek must describe a message without holding on to it (the
 * other thread may free it at once); every message arrives exactly once.
 */
#define RACE_MSGS	2000

struct race {
	int mfd;
	volatile int stop;
	long peeked;
};

static void *peeker(void *arg)
{
	struct race *rc = arg;
	struct mpirma_msg m;

	while (!rc->stop)
		if (!msg_recv(rc->mfd, MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 9, NULL, 0,
			      MPIRMA_MSG_NOWAIT | MPIRMA_MSG_PEEK, &m))
			rc->peeked++;
	return NULL;
}

TEST_F(msg, peek_while_another_thread_receives)
{
	struct race rc = { .mfd = self->m[0] };
	struct mpirma_msg m;
	uint64_t v, sum = 0;
	pthread_t t;
	int i;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, pthread_create(&t, NULL, peeker, &rc));
	for (i = 0; i < RACE_MSGS; i++) {
		ASSERT_EQ(0, send_u64(self->m[1], 0, i & 7, 9, i));
		ASSERT_EQ(0, recv_u64(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 9, 0,
				      &v, &m));
		EXPECT_EQ(sizeof(v), m.msg_len);
		sum += v;
	}
	rc.stop = 1;
	pthread_join(t, NULL);
	EXPECT_EQ((uint64_t)RACE_MSGS * (RACE_MSGS - 1) / 2, sum);
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 9));
	TH_LOG("%ld successful peeks raced with %d receives", rc.peeked, RACE_MSGS);
}

FIXTURE(waiter) {
	int dev;
	struct shared *sh;
};

FIXTURE_VARIANT(waiter) {
	int kind;
};

FIXTURE_VARIANT_ADD(waiter, source_dies) { .kind = W_SOURCE };
FIXTURE_VARIANT_ADD(waiter, any_source_rank_dies) { .kind = W_ANY };
FIXTURE_VARIANT_ADD(waiter, message_wakes) { .kind = W_WAKE };

FIXTURE_SETUP(waiter)
{
	struct mpirma_query q;

	MT_FIXTURE_OPEN();
	MT_FIXTURE_QUERY(&q, MPIRMA_FEAT_MSG);
	MT_FIXTURE_SHM(self->sh);
	self->sh->kind = variant->kind;
}

MT_FIXTURE_TEARDOWN(waiter)

/*
 * Rank 0 blocks in RECV; rank 1 is SIGKILLed (or sends): the receive ends
 * with EOWNERDEAD (or the message) soon after, not before.
 */
TEST_F(waiter, blocked_receive)
{
	struct shared *sh = self->sh;
	struct mt_procs p;
	int job;

	MT_SETUP_SKIPPED();
	job = mt_job_create(self->dev, NRANKS, NULL);
	ASSERT_LE(0, job);
	ASSERT_EQ(0, mt_spawn(&p, job, NRANKS, waiter_rank, sh, _metadata, 0));
	close(job);
	if (variant->kind == W_WAKE) {
		EXPECT_EQ(0, mt_reap(&p, MT_TIMEOUT_MS, 0));
		EXPECT_EQ(0, sh->ret);
		EXPECT_EQ(4242, sh->got);
	} else {
		ASSERT_TRUE(mt_wait_flag(&sh->waiting, 1, 10000));
		mt_sleep_ms(300);	/* let rank 0 block */
		sh->kill_ms = mt_now_ms();
		mt_kill(&p, 1, SIGKILL);
		EXPECT_EQ(0, mt_reap(&p, MT_TIMEOUT_MS, 1ULL << 1));
		EXPECT_EQ(-EOWNERDEAD, sh->ret);
	}
	EXPECT_LE(sh->kill_ms, sh->ret_ms);
	EXPECT_GT(sh->kill_ms + REACT_MS, sh->ret_ms);
	MT_EXPECT_COUNTERS_ZERO();
	EXPECT_EQ(0, message_bytes_settle(0));
}

/* ---- EINTR ---- */

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends a blocked receive with EINTR and consumes nothing. */
TEST_F(msg, interrupted)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	struct mpirma_msg m;
	uint64_t v;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, send_u64(self->m[1], 0, 1, 0, 77));	/* other tag */
	sigemptyset(&sa.sa_mask);	/* no SA_RESTART */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, &old));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	EXPECT_EQ(-EINTR, recv_u64(self->m[0], 1, 2, 0, 0, &v, &m));
	sigaction(SIGALRM, &old, NULL);
	ASSERT_EQ(0, recv_u64(self->m[0], 1, 1, 0, MPIRMA_MSG_NOWAIT, &v, &m));
	EXPECT_EQ(77, v);
}

/* ---- accounting ---- */

/*
 * message_bytes counts queued bytes module-wide: up on send, down on
 * receive, and back to 0 when a job with unreceived messages is closed.
 */
TEST(message_bytes_released)
{
	static char data[3000];
	int dev, job, mfd[2];
	struct mpirma_msg m;
	long base;

	MT_REQUIRE_DEVICE();
	base = mt_counter("message_bytes");
	ASSERT_LE(0, base);
	dev = mt_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, mt_job_start(dev, 2, &job, mfd, 2));
	close(job);
	ASSERT_EQ(0, msg_send(mfd[0], 1, 1, 0, data, 1000));
	ASSERT_EQ(0, msg_send(mfd[0], 1, 1, 0, data, 2000));
	ASSERT_EQ(0, msg_send(mfd[1], 0, 1, 0, data, 3000));
	EXPECT_EQ(base + 6000, mt_counter("message_bytes"));
	ASSERT_EQ(0, msg_recv(mfd[1], 0, 1, 0, data, sizeof(data), 0, &m));
	EXPECT_EQ(base + 5000, mt_counter("message_bytes"));
	/* the receiver of two goes first, the other later */
	close(mfd[1]);
	close(mfd[0]);
	close(dev);
	EXPECT_EQ(0, message_bytes_settle(0));
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
