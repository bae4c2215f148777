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
 * sender and for a receiver already waiting (msg_wait.c); the errno rules
 * (EFAULT, ENXIO, EINVAL; EINTR in msg_wait.c); and the module's
 * message_bytes counter back at 0 once the job is closed (msg_wait.c).
 *
 * Sends never block, so most tests run in one process that has joined all
 * ranks of a small job itself; only blocking receives need rank processes.
 */
#include "msg.h"

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

TEST_HARNESS_MAIN
