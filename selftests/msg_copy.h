/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg_copy.h - what the one-copy message selftests share (msg_copy.c, the
 * commands' contract; msg_offer.c, how an offer ends): the ioctl helpers,
 * the data pattern, and a job of NRANKS whose every rank this process
 * joined.
 */
#ifndef MPIRMA_SELFTEST_MSG_COPY_H
#define MPIRMA_SELFTEST_MSG_COPY_H

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define NRANKS		3
#define PS		((size_t)sysconf(_SC_PAGESIZE))
#define LARGE_LEN	(8UL << 20)
#define RACE_ROUNDS	100
#define RACE_LEN	(1UL << 20)
#define KILL_LEN	(5 * 4096 + 123)

/* ---- helpers ---- */

/* Pages spanned by @len bytes at @buf: what an offer of them pins. */
static inline long span(const void *buf, size_t len)
{
	uintptr_t a = (uintptr_t)buf;

	return (a + len + PS - 1) / PS - a / PS;
}

/* Byte @i of the data of @seed; neighbouring pages differ too. */
static inline uint8_t pat(size_t i, unsigned int seed)
{
	return (uint8_t)(i * 31 + (i >> 12) * 7 + seed);
}

static inline void fill(void *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)buf)[i] = pat(i, seed);
}

/* How many of the @len bytes at @buf are not the data of @seed. */
static inline size_t bad_bytes(const void *buf, size_t len, unsigned int seed)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i++)
		bad += ((const uint8_t *)buf)[i] != pat(i, seed);
	return bad;
}

/* An argument with every output 0, as the kernel wants it going in. */
static inline struct mpirma_msg_copy mc_arg(uint32_t peer, uint64_t id,
				     const void *buf, uint64_t len)
{
	struct mpirma_msg_copy c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.peer = peer;
	c.id = id;
	c.buf = (uintptr_t)buf;
	c.len = len;
	return c;
}

/* OFFER with @flags; the id in *@id.  0 or -errno. */
static inline int offer_flags(int mfd, uint32_t peer, const void *buf,
			      uint64_t len, uint32_t flags, uint64_t *id)
{
	struct mpirma_msg_copy c = mc_arg(peer, 0, buf, len);
	int ret;

	c.flags = flags;
	ret = mt_ioctl(mfd, MPIRMA_IOC_MSG_OFFER, &c);
	if (!ret)
		*id = c.id;
	return ret;
}

static inline int offer(int mfd, uint32_t peer, const void *buf, uint64_t len,
		 uint64_t *id)
{
	return offer_flags(mfd, peer, buf, len, 0, id);
}

/* TAKE offer @id of rank @peer into @buf; the outputs in *@c. */
static inline int take(int mfd, uint32_t peer, uint64_t id, void *buf, uint64_t len,
		struct mpirma_msg_copy *c)
{
	*c = mc_arg(peer, id, buf, len);
	return mt_ioctl(mfd, MPIRMA_IOC_MSG_TAKE, c);
}

/* HELP with offer @id; @peer and @len, which must be 0, for bad cases. */
static inline int help(int mfd, uint64_t id, uint32_t peer, uint64_t len)
{
	struct mpirma_msg_copy c = mc_arg(peer, id, NULL, len);

	return mt_ioctl(mfd, MPIRMA_IOC_MSG_HELP, &c);
}

static inline int withdraw(int mfd, uint64_t id)
{
	struct mpirma_msg_copy c = mc_arg(0, id, NULL, 0);

	return mt_ioctl(mfd, MPIRMA_IOC_MSG_WITHDRAW, &c);
}

/* pages_pinned once it settles at @want (a release may lag a close). */
static inline long pinned_settle(long want)
{
	return mt_counter_settle("pages_pinned", want);
}

/*
 * @cmd on @c in a struct 8 bytes longer, whose tail is @tail; the outputs
 * back in *@c.  -EPROTO: the kernel wrote beyond its own struct.
 */
static inline int ioctl_tail(int fd, unsigned long cmd, struct mpirma_msg_copy *c,
		      uint64_t tail)
{
	struct {
		struct mpirma_msg_copy c;
		uint64_t tail;
	} big = { *c, tail };
	int ret;

	big.c.size = sizeof(big);
	ret = mt_ioctl(fd, cmd, &big);
	*c = big.c;
	c->size = sizeof(*c);
	return !ret && big.tail != tail ? -EPROTO : ret;
}

/* ---- a job of NRANKS, every rank joined by this process ---- */

FIXTURE(copy) {
	int dev, job;
	int m[NRANKS];
	long pinned;		/* pages_pinned before the test */
	uint8_t *src, *dst;	/* 16 pages each, src filled with seed 1 */
};

FIXTURE_SETUP(copy)
{
	struct mpirma_query q;

	MT_FIXTURE_JOB(&q, MPIRMA_FEAT_MSG_COPY, NRANKS);
	self->pinned = mt_counter("pages_pinned");
	ASSERT_LE(0, self->pinned);
	self->src = mt_anon(16 * PS);
	self->dst = mt_anon(16 * PS);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->dst);
	fill(self->src, 16 * PS, 1);
}

FIXTURE_TEARDOWN(copy)
{
	mt_job_stop(&self->job, self->m, NRANKS);
	mt_close(&self->dev);
}

#endif
