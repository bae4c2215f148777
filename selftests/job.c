// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs and members: the JOB_CREATE and JOB_JOIN contracts, ids, several
 * member fds in one process, member fds shared by fork and dup (a member
 * is gone only when its last reference closes), isolation between jobs and
 * between a job and processes holding only the job fd, and JOB_BARRIER.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

FIXTURE(job) {
	int dev;
	int *shm;	/* counters shared with ranks */
};

FIXTURE_SETUP(job)
{
	self->dev = -1;
	MT_REQUIRE_DEVICE();
	self->dev = mt_open();
	ASSERT_LE(0, self->dev);
	self->shm = mt_shm(4096);
	ASSERT_NE(NULL, self->shm);
}

FIXTURE_TEARDOWN(job)
{
	if (self->dev >= 0)
		close(self->dev);
}

TEST_F(job, create_contract)
{
	uint64_t id1 = 0, id2 = 0;
	long jobs0 = mt_counter("jobs");
	int j1, j2, big, m;

	MT_SETUP_SKIPPED();
	EXPECT_EQ(-EINVAL, mt_job_create(self->dev, 0, NULL));
	EXPECT_EQ(-EINVAL, mt_job_create(self->dev, MPIRMA_MAX_RANKS + 1, NULL));
	EXPECT_EQ(-EINVAL, mt_job_create(self->dev, ~0U, NULL));

	j1 = mt_job_create(self->dev, 1, &id1);
	ASSERT_LE(0, j1);
	j2 = mt_job_create(self->dev, 1, &id2);
	ASSERT_LE(0, j2);
	EXPECT_NE(id1, id2);
	EXPECT_EQ(FD_CLOEXEC, fcntl(j1, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(jobs0 + 2, mt_counter("jobs"));

	/* the largest job: its last rank can join, one more cannot */
	big = mt_job_create(self->dev, MPIRMA_MAX_RANKS, NULL);
	ASSERT_LE(0, big);
	m = mt_job_join(big, MPIRMA_MAX_RANKS - 1);
	EXPECT_LE(0, m);
	EXPECT_EQ(-ENXIO, mt_job_join(big, MPIRMA_MAX_RANKS));
	close(m);
	close(big);
	close(j1);
	close(j2);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_F(job, join_contract)
{
	struct mpirma_job_join jj;
	uint64_t id;
	int job, m0, m1, m2;

	MT_SETUP_SKIPPED();
	job = mt_job_create(self->dev, 3, &id);
	ASSERT_LE(0, job);
	EXPECT_EQ(-ENXIO, mt_job_join(job, 3));
	EXPECT_EQ(-ENXIO, mt_job_join(job, ~0U));

	ASSERT_EQ(0, mt_job_join_raw(job, 0, &jj));
	m0 = jj.member_fd;
	EXPECT_EQ(3, jj.nranks);
	EXPECT_EQ(id, jj.job_id);
	EXPECT_EQ(FD_CLOEXEC, fcntl(m0, F_GETFD) & FD_CLOEXEC);

	EXPECT_EQ(-EBUSY, mt_job_join(job, 0));
	/* a rank that has left stays taken */
	close(m0);
	EXPECT_EQ(-EBUSY, mt_job_join(job, 0));
	/* one process may hold several ranks */
	m1 = mt_job_join(job, 1);
	m2 = mt_job_join(job, 2);
	EXPECT_LE(0, m1);
	EXPECT_LE(0, m2);
	EXPECT_NE(m1, m2);
	EXPECT_EQ(-EBUSY, mt_job_join(job, 2));
	/* rank 0 is gone: a barrier with it fails instead of waiting */
	EXPECT_EQ(-EOWNERDEAD, mt_job_barrier(m1));
	close(m1);
	close(m2);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

/* Job A's member cannot reach job B's windows. */
TEST_F(job, isolation)
{
	int ja, jb, ma, mb, wb, wa;
	uint64_t v = 0x55, mem_b = 0;
	struct mpirma_win_query q;
	struct mpirma_op op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &v, 1);

	MT_SETUP_SKIPPED();
	ja = mt_job_create(self->dev, 1, NULL);
	jb = mt_job_create(self->dev, 1, NULL);
	ASSERT_LE(0, ja);
	ASSERT_LE(0, jb);
	ma = mt_job_join(ja, 0);
	mb = mt_job_join(jb, 0);
	ASSERT_LE(0, ma);
	ASSERT_LE(0, mb);
	wb = mt_win_create_all(mb, 1, MPIRMA_FLAVOR_USER, &mem_b, 8);
	ASSERT_LT(0, wb);
	{
		/* nor map them: B's ALLOC window through A's member fd */
		int wb2 = mt_win_create_all(mb, 1, MPIRMA_FLAVOR_ALLOC, NULL, 64);
		void *p;

		ASSERT_LT(0, wb2);
		ASSERT_EQ(0, mt_win_query(mb, wb2, 0, &q));
		p = mmap(NULL, q.mmap_length, PROT_READ, MAP_SHARED, ma,
			 q.mmap_offset);
		EXPECT_EQ(MAP_FAILED, p);
		p = mmap(NULL, q.mmap_length, PROT_READ, MAP_SHARED, ja,
			 q.mmap_offset);
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(0, mt_win_free(mb, wb2));
	}

	EXPECT_EQ(-ENOENT, mt_rma1(ma, wb, &op));
	EXPECT_EQ(-ENOENT, mt_win_query(ma, wb, 0, &q));
	EXPECT_EQ(-ENOENT, mt_fence(ma, wb));
	EXPECT_EQ(-ENOENT, mt_lock(ma, wb, 0, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-ENOENT, mt_win_free(ma, wb));
	EXPECT_EQ(0, mem_b);

	/* A's own window may have the same number; it is still A's */
	wa = mt_win_create_all(ma, 1, MPIRMA_FLAVOR_ALLOC, NULL, 8);
	ASSERT_LT(0, wa);
	if (wa == wb)
		TH_LOG("window ids are per job (both %d)", wa);
	EXPECT_EQ(0, mt_rma1(ma, wa, &op));
	EXPECT_EQ(0, mem_b);

	/* the job fd and the device fd reach no window at all */
	EXPECT_EQ(-ENOTTY, mt_rma(ja, wa, &op, 1, NULL));
	EXPECT_EQ(-ENOTTY, mt_rma(self->dev, wa, &op, 1, NULL));
	EXPECT_EQ(-ENOTTY, mt_fence(jb, wb));
	EXPECT_EQ(-ENOTTY, mt_win_query(self->dev, wb, 0, &q));
	EXPECT_EQ(-ENOTTY, mt_win_create_all(ja, 1, MPIRMA_FLAVOR_ALLOC, NULL, 8));
	close(ma);
	close(mb);
	close(ja);
	close(jb);
	MT_EXPECT_COUNTERS_ZERO();
}

/* A member fd that is duplicated or inherited stays one member: closing one
 * reference does not make it gone; closing the last does.
 */
struct barrier_arg {
	int fd;
	int ret;
};

static void *barrier_thread(void *p)
{
	struct barrier_arg *a = p;

	a->ret = mt_job_barrier(a->fd);
	return NULL;
}

TEST_F(job, member_references)
{
	struct barrier_arg a;
	pthread_t t;
	int job, m0, m1, m1dup, status;
	pid_t pid;

	MT_SETUP_SKIPPED();
	job = mt_job_create(self->dev, 2, NULL);
	ASSERT_LE(0, job);
	m0 = mt_job_join(job, 0);
	m1 = mt_job_join(job, 1);
	ASSERT_LE(0, m0);
	ASSERT_LE(0, m1);

	/* two ranks in one process, two threads: a barrier completes */
	m1dup = dup(m1);
	ASSERT_LE(0, m1dup);
	close(m1);
	a.fd = m0;
	ASSERT_EQ(0, pthread_create(&t, NULL, barrier_thread, &a));
	EXPECT_EQ(0, mt_job_barrier(m1dup));
	pthread_join(t, NULL);
	EXPECT_EQ(0, a.ret);

	/* a child inherits rank 1; the parent drops its reference */
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(m0);
		/* one barrier with rank 0, then exit (the last reference) */
		_exit(mt_job_barrier(m1dup) == 0 ? 0 : 1);
	}
	close(m1dup);
	EXPECT_EQ(0, mt_job_barrier(m0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* now rank 1 is gone */
	EXPECT_EQ(-EOWNERDEAD, mt_job_barrier(m0));
	close(m0);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

/* JOB_BARRIER: nobody leaves before everyone arrived, round after round. */
MT_RANK_FN(barrier_rank)
{
	int *count = r->arg;
	int round;

	for (round = 1; round <= 20; round++) {
		mt_inc(&count[round % 2]);
		ASSERT_EQ(0, mt_job_barrier(r->mfd));
		EXPECT_EQ((int)r->nranks * ((round + 1) / 2),
			  __atomic_load_n(&count[round % 2], __ATOMIC_SEQ_CST));
		if (r->rank == round % r->nranks)
			mt_sleep_ms(5);	/* a late arrival next round */
	}
}

TEST_F(job, barrier)
{
	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_run_job(self->dev, 4, barrier_rank, self->shm, _metadata,
				MT_TIMEOUT_MS));
	MT_EXPECT_COUNTERS_ZERO();
}

/* The job fd is only the capability to join: once every rank has joined,
 * closing it changes nothing for the members.
 */
MT_RANK_FN(no_job_fd_rank)
{
	int *joined = r->arg;
	uint64_t v = r->rank + 1, sum = 0;
	struct mpirma_op op;
	int win;

	mt_inc(&joined[0]);
	/* wait until the parent closed its job fd (and ours is closed too) */
	close(r->job_fd);
	ASSERT_TRUE(mt_wait_flag(&joined[1], 1, 10000));
	win = mt_win_create_all(r->mfd, r->nranks, MPIRMA_FLAVOR_ALLOC, NULL, 8);
	ASSERT_LT(0, win);
	op = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 0, &v, 1);
	EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, &sum, 1);
	EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
	EXPECT_EQ(r->nranks * (r->nranks + 1) / 2, sum);
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

TEST_F(job, job_fd_closed)
{
	struct mt_procs p;
	int job;

	MT_SETUP_SKIPPED();
	job = mt_job_create(self->dev, 3, NULL);
	ASSERT_LE(0, job);
	ASSERT_EQ(0, mt_spawn(&p, job, 3, no_job_fd_rank, self->shm, _metadata, 0));
	EXPECT_TRUE(mt_wait_flag(&self->shm[0], 3, 10000));
	close(job);
	mt_set_flag(&self->shm[1], 1);
	EXPECT_EQ(0, mt_reap(&p, MT_TIMEOUT_MS, 0));
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
