// SPDX-License-Identifier: GPL-2.0
/*
 * Messages: MPIRMA_IOC_MSG_SEND / _RECV, the point-to-point channel under
 * MPI_Send/Recv and the library's collectives.
 *
 * What the library relies on, checked here: the size contract of struct
 * mpirma_msg; buffered sends that never wait; a receive that takes the
 * oldest message matching (source, tag, context), with ANY_SOURCE and
 * ANY_TAG; order from one sender in one context kept; PEEK that consumes
 * nothing; NOWAIT; truncation (msg_len > len, the message gone); zero-length
 * and multi-megabyte messages; EOWNERDEAD when the peer is gone, for a
 * sender and for a receiver already waiting; the errno rules (EFAULT,
 * ENXIO, EINVAL, EINTR); and the module's message_bytes counter back at 0
 * once the job is closed.
 *
 * Sends never block, so most tests run in one process that has joined all
 * ranks of a small job itself; only blocking receives need rank processes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define NRANKS		3
#define REACT_MS	5000	/* how soon a waiting receiver must notice */
#define LARGE_LEN	(8UL << 20)

/* ---- helpers ---- */

/* A send's argument: outputs must be 0, unlike mt_arg_init()'s poison. */
static struct mpirma_msg send_arg(uint32_t peer, int32_t tag, uint64_t ctx,
				  const void *buf, uint64_t len)
{
	struct mpirma_msg m;

	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	m.peer = peer;
	m.tag = tag;
	m.context = ctx;
	m.buf = (uintptr_t)buf;
	m.len = len;
	return m;
}

static int msg_send(int mfd, uint32_t peer, int32_t tag, uint64_t ctx,
		    const void *buf, uint64_t len)
{
	struct mpirma_msg m = send_arg(peer, tag, ctx, buf, len);

	return mt_ioctl(mfd, MPIRMA_IOC_MSG_SEND, &m);
}

/*
 * Receive into @buf; the outputs land in *@m, which is poisoned first so
 * that an output the kernel forgets to write is caught.  0 or -errno.
 */
static int msg_recv(int mfd, uint32_t peer, int32_t tag, uint64_t ctx,
		    void *buf, uint64_t len, uint32_t flags,
		    struct mpirma_msg *m)
{
	mt_arg_init(m);
	m->flags = flags;
	m->peer = peer;
	m->tag = tag;
	m->context = ctx;
	m->buf = (uintptr_t)buf;
	m->len = len;
	return mt_ioctl(mfd, MPIRMA_IOC_MSG_RECV, m);
}

/* The one-word messages most tests exchange. */
static int send_u64(int mfd, uint32_t peer, int32_t tag, uint64_t ctx,
		    uint64_t v)
{
	return msg_send(mfd, peer, tag, ctx, &v, sizeof(v));
}

static int recv_u64(int mfd, uint32_t peer, int32_t tag, uint64_t ctx,
		    uint32_t flags, uint64_t *v, struct mpirma_msg *m)
{
	*v = 0;
	return msg_recv(mfd, peer, tag, ctx, v, sizeof(*v), flags, m);
}

/* Nothing matching queued (and the sources alive): NOWAIT says EAGAIN. */
static int probe(int mfd, uint32_t peer, int32_t tag, uint64_t ctx)
{
	struct mpirma_msg m;

	return msg_recv(mfd, peer, tag, ctx, NULL, 0,
			MPIRMA_MSG_NOWAIT | MPIRMA_MSG_PEEK, &m);
}

/* /sys/class/misc/mpirma/message_bytes once it settles at @want. */
static long message_bytes_settle(long want)
{
	uint64_t deadline = mt_now_ms() + 5000;
	long v;

	while ((v = mt_counter("message_bytes")) != want &&
	       mt_now_ms() < deadline)
		mt_sleep_ms(20);
	return v;
}

/* ---- a job of NRANKS, every rank joined by this process ---- */

FIXTURE(msg) {
	int dev, job;
	int m[NRANKS];
};

FIXTURE_SETUP(msg)
{
	struct mpirma_query q;
	int r;

	self->job = -1;
	for (r = 0; r < NRANKS; r++)
		self->m[r] = -1;
	MT_FIXTURE_OPEN();
	MT_FIXTURE_QUERY(&q, MPIRMA_FEAT_MSG);
	self->job = mt_job_create(self->dev, NRANKS, NULL);
	ASSERT_LE(0, self->job);
	for (r = 0; r < NRANKS; r++) {
		self->m[r] = mt_job_join(self->job, r);
		ASSERT_LE(0, self->m[r]);
	}
}

FIXTURE_TEARDOWN(msg)
{
	int r;

	for (r = 0; r < NRANKS; r++)
		if (self->m[r] >= 0)
			close(self->m[r]);
	if (self->job >= 0)
		close(self->job);
	if (self->dev >= 0)
		close(self->dev);
}

/* Short struct: EINVAL; unknown non-zero tail: E2BIG; zero tail: works. */
TEST_F(msg, size_contract)
{
	struct {
		struct mpirma_msg m;
		uint64_t tail;
	} big;
	uint64_t v = 0x1122334455667788ULL, got = 0;
	struct mpirma_msg m;

	MT_SETUP_SKIPPED();
	/* SEND */
	m = send_arg(0, 1, 0, &v, sizeof(v));
	m.size = sizeof(m) - 4;
	EXPECT_EQ(-EINVAL, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, &m));
	big.m = send_arg(0, 1, 0, &v, sizeof(v));
	big.m.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(-E2BIG, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, &big));
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
	big.tail = 0;
	EXPECT_EQ(0, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, &big));

	/* RECV */
	m.size = sizeof(m) - 4;
	m.flags = 0;
	m.peer = 1;
	m.tag = 1;
	m.context = 0;
	m.buf = (uintptr_t)&got;
	m.len = sizeof(got);
	EXPECT_EQ(-EINVAL, mt_ioctl(self->m[0], MPIRMA_IOC_MSG_RECV, &m));
	mt_poison(&big);
	big.m.size = sizeof(big);
	big.m.flags = 0;
	big.m.peer = 1;
	big.m.tag = 1;
	big.m.context = 0;
	big.m.buf = (uintptr_t)&got;
	big.m.len = sizeof(got);
	big.tail = 7;
	EXPECT_EQ(-E2BIG, mt_ioctl(self->m[0], MPIRMA_IOC_MSG_RECV, &big));
	big.tail = 0;
	ASSERT_EQ(0, mt_ioctl(self->m[0], MPIRMA_IOC_MSG_RECV, &big));
	EXPECT_EQ(v, got);
	EXPECT_EQ(sizeof(v), big.m.msg_len);
	EXPECT_EQ(1, big.m.source);
	EXPECT_EQ(1, big.m.msg_tag);
	EXPECT_EQ(0, big.tail);		/* the kernel writes only its own size */

	/* beyond a page: E2BIG; an unreadable struct: EFAULT */
	m = send_arg(0, 1, 0, &v, sizeof(v));
	m.size = 2 * sysconf(_SC_PAGESIZE);
	EXPECT_EQ(-E2BIG, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, &m));
	EXPECT_EQ(-EFAULT, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, (void *)8));
	EXPECT_EQ(-EFAULT, mt_ioctl(self->m[0], MPIRMA_IOC_MSG_RECV, (void *)8));
}

/* Flags, outputs given to SEND, and the fds the commands are valid on. */
TEST_F(msg, bad_arguments)
{
	uint64_t v = 5;
	struct mpirma_msg m;

	MT_SETUP_SKIPPED();
	m = send_arg(0, 1, 0, &v, sizeof(v));
	m.flags = MPIRMA_MSG_NOWAIT;		/* a RECV flag */
	EXPECT_EQ(-EINVAL, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, &m));
	m = send_arg(0, 1, 0, &v, sizeof(v));
	m.msg_len = 8;				/* outputs must be 0 */
	EXPECT_EQ(-EINVAL, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, &m));
	m = send_arg(0, 1, 0, &v, sizeof(v));
	m.source = 1;
	EXPECT_EQ(-EINVAL, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, &m));
	m = send_arg(0, 1, 0, &v, sizeof(v));
	m.msg_tag = 1;
	EXPECT_EQ(-EINVAL, mt_ioctl(self->m[1], MPIRMA_IOC_MSG_SEND, &m));
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));

	EXPECT_EQ(-EINVAL, msg_recv(self->m[0], 1, 1, 0, &v, sizeof(v),
				    1U << 2, &m));
	EXPECT_EQ(-EINVAL, msg_recv(self->m[0], 1, 1, 0, &v, sizeof(v),
				    1U << 31, &m));

	/* member fds only */
	m = send_arg(0, 1, 0, &v, sizeof(v));
	EXPECT_EQ(-ENOTTY, mt_ioctl(self->dev, MPIRMA_IOC_MSG_SEND, &m));
	EXPECT_EQ(-ENOTTY, mt_ioctl(self->job, MPIRMA_IOC_MSG_SEND, &m));
	EXPECT_EQ(-ENOTTY, msg_recv(self->dev, 1, 1, 0, &v, sizeof(v), 0, &m));
	EXPECT_EQ(-ENOTTY, msg_recv(self->job, 1, 1, 0, &v, sizeof(v), 0, &m));
}

/* A peer outside the job is ENXIO (ANY_SOURCE aside). */
TEST_F(msg, bad_rank)
{
	uint64_t v = 5;
	struct mpirma_msg m;

	MT_SETUP_SKIPPED();
	EXPECT_EQ(-ENXIO, send_u64(self->m[0], NRANKS, 1, 0, v));
	EXPECT_EQ(-ENXIO, send_u64(self->m[0], NRANKS + 100, 1, 0, v));
	EXPECT_EQ(-ENXIO, send_u64(self->m[0], MPIRMA_ANY_SOURCE, 1, 0, v));
	EXPECT_EQ(-ENXIO, recv_u64(self->m[0], NRANKS, 1, 0, MPIRMA_MSG_NOWAIT,
				   &v, &m));
	EXPECT_EQ(-ENXIO, recv_u64(self->m[0], NRANKS, MPIRMA_ANY_TAG, 0, 0,
				   &v, &m));
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
}

/* Tags are >= 0; a receive may also say ANY_TAG (-1), nothing lower. */
TEST_F(msg, negative_tag)
{
	uint64_t v = 5;
	struct mpirma_msg m;

	MT_SETUP_SKIPPED();
	EXPECT_EQ(-EINVAL, send_u64(self->m[1], 0, -1, 0, v));
	EXPECT_EQ(-EINVAL, send_u64(self->m[1], 0, -2, 0, v));
	EXPECT_EQ(-EINVAL, send_u64(self->m[1], 0, INT32_MIN, 0, v));
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
	EXPECT_EQ(-EINVAL, recv_u64(self->m[0], 1, -2, 0, MPIRMA_MSG_NOWAIT,
				    &v, &m));
	EXPECT_EQ(-EINVAL, recv_u64(self->m[0], 1, INT32_MIN, 0, 0, &v, &m));
	/* the largest tag is fine */
	EXPECT_EQ(0, send_u64(self->m[1], 0, INT32_MAX, 0, v));
	EXPECT_EQ(0, recv_u64(self->m[0], 1, INT32_MAX, 0, 0, &v, &m));
	EXPECT_EQ(INT32_MAX, m.msg_tag);
}

/* Every output written; data intact; sending to oneself works too. */
TEST_F(msg, roundtrip)
{
	char out[100], in[128];
	struct mpirma_msg m;
	unsigned int i;

	MT_SETUP_SKIPPED();
	for (i = 0; i < sizeof(out); i++)
		out[i] = (char)(i * 7 + 1);
	ASSERT_EQ(0, msg_send(self->m[2], 0, 42, 0xfeedULL << 32, out,
			      sizeof(out)));
	memset(in, 0x5a, sizeof(in));
	ASSERT_EQ(0, msg_recv(self->m[0], 2, 42, 0xfeedULL << 32, in,
			      sizeof(in), 0, &m));
	EXPECT_EQ(sizeof(out), m.msg_len);
	EXPECT_EQ(2, m.source);
	EXPECT_EQ(42, m.msg_tag);
	EXPECT_EQ(0, memcmp(in, out, sizeof(out)));
	for (i = sizeof(out); i < sizeof(in); i++)
		EXPECT_EQ(0x5a, (unsigned char)in[i]);	/* beyond: untouched */
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG,
				 0xfeedULL << 32));

	/* to oneself */
	ASSERT_EQ(0, msg_send(self->m[1], 1, 0, 0, out, 10));
	ASSERT_EQ(0, msg_recv(self->m[1], 1, 0, 0, in, sizeof(in), 0, &m));
	EXPECT_EQ(10, m.msg_len);
	EXPECT_EQ(1, m.source);
	EXPECT_EQ(0, m.msg_tag);
	EXPECT_EQ(0, memcmp(in, out, 10));
}

/*
 * From one sender, in one context, messages arrive in sending order, also
 * when other senders, tags and contexts are mixed in between.
 */
TEST_F(msg, order_per_sender)
{
	enum { N = 120 };
	uint64_t next[NRANKS][2] = { { 0 } };
	struct mpirma_msg m;
	uint64_t v;
	int i, s, c;

	MT_SETUP_SKIPPED();
	/* value = sender << 32 | context << 16 | sequence, tag = seq % 3 */
	for (i = 0; i < N; i++)
		for (s = 1; s < NRANKS; s++)
			for (c = 0; c < 2; c++)
				ASSERT_EQ(0, send_u64(self->m[s], 0, i % 3, c,
						      (uint64_t)s << 32 |
						      (uint64_t)c << 16 | i));
	/* context 1 first, any source and tag: per-sender order */
	for (i = 0; i < N * (NRANKS - 1); i++) {
		ASSERT_EQ(0, recv_u64(self->m[0], MPIRMA_ANY_SOURCE,
				      MPIRMA_ANY_TAG, 1, 0, &v, &m));
		s = v >> 32;
		ASSERT_EQ(m.source, (uint32_t)s);
		ASSERT_EQ(1, (v >> 16) & 0xffff);
		ASSERT_EQ(next[s][1], v & 0xffff);
		ASSERT_EQ((int)(next[s][1] % 3), m.msg_tag);
		next[s][1]++;
	}
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 1));
	/* context 0, sender 2 only, then sender 1 */
	for (s = NRANKS - 1; s >= 1; s--)
		for (i = 0; i < N; i++) {
			ASSERT_EQ(0, recv_u64(self->m[0], s, MPIRMA_ANY_TAG, 0,
					      0, &v, &m));
			ASSERT_EQ((uint64_t)s << 32 | i, v);
		}
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
}

/*
 * Matching: a specific tag or source passes over older messages that do
 * not match and leaves them queued; contexts never mix.
 */
TEST_F(msg, matching)
{
	struct mpirma_msg m;
	uint64_t v;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, send_u64(self->m[1], 0, 5, 0, 15));
	ASSERT_EQ(0, send_u64(self->m[1], 0, 6, 0, 16));
	ASSERT_EQ(0, send_u64(self->m[2], 0, 5, 0, 25));
	ASSERT_EQ(0, send_u64(self->m[2], 0, 7, 9, 27));	/* context 9 */

	/* nothing with tag 8, none from rank 1 with tag 7, none in context 3 */
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, 8, 0));
	EXPECT_EQ(-EAGAIN, probe(self->m[0], 1, 7, 0));
	EXPECT_EQ(-EAGAIN, probe(self->m[0], 2, 7, 0));	/* it is in ctx 9 */
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 3));

	/* source 2, any tag, context 0: passes rank 1's two */
	ASSERT_EQ(0, recv_u64(self->m[0], 2, MPIRMA_ANY_TAG, 0, 0, &v, &m));
	EXPECT_EQ(25, v);
	EXPECT_EQ(2, m.source);
	EXPECT_EQ(5, m.msg_tag);
	/* tag 6 from anyone: passes tag 5 */
	ASSERT_EQ(0, recv_u64(self->m[0], MPIRMA_ANY_SOURCE, 6, 0, 0, &v, &m));
	EXPECT_EQ(16, v);
	EXPECT_EQ(1, m.source);
	/* the one passed over twice is still there */
	ASSERT_EQ(0, recv_u64(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0,
			      0, &v, &m));
	EXPECT_EQ(15, v);
	EXPECT_EQ(1, m.source);
	EXPECT_EQ(5, m.msg_tag);
	/* context 9 */
	ASSERT_EQ(0, recv_u64(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 9,
			      0, &v, &m));
	EXPECT_EQ(27, v);
	EXPECT_EQ(2, m.source);
	EXPECT_EQ(7, m.msg_tag);
	/* another rank's mailbox is its own */
	EXPECT_EQ(0, send_u64(self->m[0], 1, 1, 0, 1));
	EXPECT_EQ(-EAGAIN, probe(self->m[2], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
	EXPECT_EQ(0, recv_u64(self->m[1], 0, 1, 0, 0, &v, &m));
	EXPECT_EQ(1, v);
}

/* PEEK describes the oldest match, copies nothing, consumes nothing. */
TEST_F(msg, peek)
{
	char data[40], buf[64];
	struct mpirma_msg m;

	MT_SETUP_SKIPPED();
	memset(data, 0x33, sizeof(data));
	ASSERT_EQ(0, msg_send(self->m[2], 0, 3, 0, data, sizeof(data)));
	ASSERT_EQ(0, msg_send(self->m[1], 0, 4, 0, data, 8));
	memset(buf, 0x77, sizeof(buf));
	ASSERT_EQ(0, msg_recv(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0,
			      buf, sizeof(buf), MPIRMA_MSG_PEEK, &m));
	EXPECT_EQ(sizeof(data), m.msg_len);
	EXPECT_EQ(2, m.source);
	EXPECT_EQ(3, m.msg_tag);
	EXPECT_EQ(0x77, (unsigned char)buf[0]);		/* nothing copied */
	/* again, with NOWAIT too: the same message */
	ASSERT_EQ(0, msg_recv(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0,
			      NULL, 0, MPIRMA_MSG_PEEK | MPIRMA_MSG_NOWAIT, &m));
	EXPECT_EQ(2, m.source);
	/* a specific source */
	ASSERT_EQ(0, msg_recv(self->m[0], 1, MPIRMA_ANY_TAG, 0, NULL, 0,
			      MPIRMA_MSG_PEEK, &m));
	EXPECT_EQ(8, m.msg_len);
	EXPECT_EQ(4, m.msg_tag);
	/* both are still there, in order */
	ASSERT_EQ(0, msg_recv(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0,
			      buf, sizeof(buf), 0, &m));
	EXPECT_EQ(2, m.source);
	EXPECT_EQ(0, memcmp(buf, data, sizeof(data)));
	ASSERT_EQ(0, msg_recv(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0,
			      buf, sizeof(buf), 0, &m));
	EXPECT_EQ(1, m.source);
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
}

/* NOWAIT on an empty (or non-matching) mailbox: EAGAIN at once. */
TEST_F(msg, nowait)
{
	struct mpirma_msg m;
	uint64_t t0, v;

	MT_SETUP_SKIPPED();
	t0 = mt_now_ms();
	EXPECT_EQ(-EAGAIN, recv_u64(self->m[0], MPIRMA_ANY_SOURCE,
				    MPIRMA_ANY_TAG, 0, MPIRMA_MSG_NOWAIT, &v, &m));
	EXPECT_EQ(-EAGAIN, recv_u64(self->m[0], 1, 1, 0, MPIRMA_MSG_NOWAIT,
				    &v, &m));
	ASSERT_EQ(0, send_u64(self->m[1], 0, 2, 0, 99));
	EXPECT_EQ(-EAGAIN, recv_u64(self->m[0], 1, 1, 0, MPIRMA_MSG_NOWAIT,
				    &v, &m));
	EXPECT_GT(t0 + 1000, mt_now_ms());
	ASSERT_EQ(0, recv_u64(self->m[0], 1, 2, 0, MPIRMA_MSG_NOWAIT, &v, &m));
	EXPECT_EQ(99, v);
}

/* A message longer than the buffer: len bytes copied, msg_len tells the
 * truth, the rest is lost with the message.
 */
TEST_F(msg, truncation)
{
	char data[100], buf[32];
	struct mpirma_msg m;
	unsigned int i;

	MT_SETUP_SKIPPED();
	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)i;
	ASSERT_EQ(0, msg_send(self->m[1], 0, 1, 0, data, sizeof(data)));
	ASSERT_EQ(0, msg_send(self->m[1], 0, 1, 0, data + 50, 8));
	memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(0, msg_recv(self->m[0], 1, 1, 0, buf, 10, 0, &m));
	EXPECT_EQ(sizeof(data), m.msg_len);
	EXPECT_EQ(1, m.source);
	EXPECT_EQ(0, memcmp(buf, data, 10));
	for (i = 10; i < sizeof(buf); i++)
		EXPECT_EQ(0xee, (unsigned char)buf[i]);
	/* consumed: the next one is the second message */
	ASSERT_EQ(0, msg_recv(self->m[0], 1, 1, 0, buf, sizeof(buf), 0, &m));
	EXPECT_EQ(8, m.msg_len);
	EXPECT_EQ(0, memcmp(buf, data + 50, 8));
	/* a zero-length buffer takes a whole message too */
	ASSERT_EQ(0, msg_send(self->m[1], 0, 1, 0, data, sizeof(data)));
	ASSERT_EQ(0, msg_recv(self->m[0], 1, 1, 0, NULL, 0, 0, &m));
	EXPECT_EQ(sizeof(data), m.msg_len);
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
}

/* Empty messages carry their envelope; NULL buffers are fine. */
TEST_F(msg, zero_length)
{
	struct mpirma_msg m;
	char buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, msg_send(self->m[2], 0, 11, 0, NULL, 0));
	ASSERT_EQ(0, msg_send(self->m[2], 0, 12, 0, buf, 0));
	ASSERT_EQ(0, msg_recv(self->m[0], 2, MPIRMA_ANY_TAG, 0, NULL, 0, 0, &m));
	EXPECT_EQ(0, m.msg_len);
	EXPECT_EQ(2, m.source);
	EXPECT_EQ(11, m.msg_tag);
	ASSERT_EQ(0, msg_recv(self->m[0], 2, MPIRMA_ANY_TAG, 0, buf,
			      sizeof(buf), 0, &m));
	EXPECT_EQ(0, m.msg_len);
	EXPECT_EQ(12, m.msg_tag);
	EXPECT_EQ(1, buf[0]);
	EXPECT_EQ(8, buf[7]);
}

/* Several megabytes, every byte checked; message_bytes counts them. */
TEST_F(msg, large)
{
	uint64_t *out = mt_anon(LARGE_LEN), *in = mt_anon(LARGE_LEN + 4096);
	struct mpirma_msg m;
	long base;
	size_t i, bad = 0;

	MT_SETUP_SKIPPED();
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, in);
	for (i = 0; i < LARGE_LEN / 8; i++)
		out[i] = i * 0x9e3779b97f4a7c15ULL;
	base = mt_counter("message_bytes");
	ASSERT_LE(0, base);
	ASSERT_EQ(0, msg_send(self->m[1], 0, 1, 0, out, LARGE_LEN));
	ASSERT_EQ(0, msg_send(self->m[2], 0, 1, 0, out, LARGE_LEN / 2));
	EXPECT_EQ(base + (long)(LARGE_LEN + LARGE_LEN / 2),
		  mt_counter("message_bytes"));
	memset(out, 0, 64);	/* the kernel holds its own copy */
	ASSERT_EQ(0, msg_recv(self->m[0], 1, 1, 0, in, LARGE_LEN + 4096, 0, &m));
	EXPECT_EQ(LARGE_LEN, m.msg_len);
	for (i = 0; i < LARGE_LEN / 8; i++)
		bad += in[i] != i * 0x9e3779b97f4a7c15ULL;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(base + (long)(LARGE_LEN / 2), mt_counter("message_bytes"));
	ASSERT_EQ(0, msg_recv(self->m[0], 2, 1, 0, in, LARGE_LEN, 0, &m));
	EXPECT_EQ(LARGE_LEN / 2, m.msg_len);
	EXPECT_EQ(8 * 0x9e3779b97f4a7c15ULL, in[8]);
	EXPECT_EQ(base, mt_counter("message_bytes"));
	munmap(out, LARGE_LEN);
	munmap(in, LARGE_LEN + 4096);

	/* more than the machine has: ENOMEM before any copy */
	EXPECT_EQ(-ENOMEM, msg_send(self->m[1], 0, 1, 0, (void *)4096,
				    1ULL << 60));
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
}

/* Unreadable or unwritable data: EFAULT; a failed send queues nothing. */
TEST_F(msg, bad_pointer)
{
	/* a readable page, then a hole */
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *hole = page + 4096, data[64] = "hello";
	struct mpirma_msg m;
	long base = mt_counter("message_bytes");

	MT_SETUP_SKIPPED();
	ASSERT_NE(MAP_FAILED, page);
	ASSERT_EQ(0, mprotect(hole, 4096, PROT_NONE));
	EXPECT_EQ(-EFAULT, msg_send(self->m[1], 0, 1, 0, hole, 16));
	EXPECT_EQ(-EFAULT, msg_send(self->m[1], 0, 1, 0, (void *)8, 16));
	/* half readable: still nothing */
	EXPECT_EQ(-EFAULT, msg_send(self->m[1], 0, 1, 0, page, 8192));
	EXPECT_EQ(-EAGAIN, probe(self->m[0], MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG, 0));
	EXPECT_EQ(base, mt_counter("message_bytes"));

	ASSERT_EQ(0, msg_send(self->m[1], 0, 1, 0, data, sizeof(data)));
	EXPECT_EQ(-EFAULT, msg_recv(self->m[0], 1, 1, 0, hole, sizeof(data), 0,
				    &m));
	munmap(page, 8192);
}

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
	job = mt_job_create(dev, 2, NULL);
	ASSERT_LE(0, job);
	m0 = mt_job_join(job, 0);
	ASSERT_LE(0, m0);
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
	int dev, job, m0, m1;
	struct mpirma_msg m;
	long base;

	MT_REQUIRE_DEVICE();
	base = mt_counter("message_bytes");
	ASSERT_LE(0, base);
	dev = mt_open();
	ASSERT_LE(0, dev);
	job = mt_job_create(dev, 2, NULL);
	ASSERT_LE(0, job);
	m0 = mt_job_join(job, 0);
	ASSERT_LE(0, m0);
	m1 = mt_job_join(job, 1);
	ASSERT_LE(0, m1);
	close(job);
	ASSERT_EQ(0, msg_send(m0, 1, 1, 0, data, 1000));
	ASSERT_EQ(0, msg_send(m0, 1, 1, 0, data, 2000));
	ASSERT_EQ(0, msg_send(m1, 0, 1, 0, data, 3000));
	EXPECT_EQ(base + 6000, mt_counter("message_bytes"));
	ASSERT_EQ(0, msg_recv(m1, 0, 1, 0, data, sizeof(data), 0, &m));
	EXPECT_EQ(base + 5000, mt_counter("message_bytes"));
	/* the receiver of two goes first, the other later */
	close(m1);
	close(m0);
	close(dev);
	EXPECT_EQ(0, message_bytes_settle(0));
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
