// SPDX-License-Identifier: GPL-2.0
/*
 * One-copy messages: MPIRMA_IOC_MSG_OFFER / _TAKE / _HELP / _WITHDRAW, the
 * path of large messages that the kernel copies straight from the sender's
 * pages into the receiver's buffer.
 *
 * What the library relies on, checked here: the size contract of struct
 * mpirma_msg_copy; the errno rules (EINVAL for flags, reserved, outputs
 * given, WITHDRAW's unused fields and lengths out of range; ENXIO; ENOTTY
 * on the wrong fd; EFAULT); that an offer pins the sender's own pages (the
 * module's pages_pinned counter; writes after the offer are what the take
 * sees) until it ends; that only the named peer takes it, once; truncation;
 * every small size and alignment, and multi-megabyte copies; a TAKE into
 * memory it cannot write that leaves the offer as it was; WITHDRAW, and its
 * race with TAKE (exactly one wins); HELP sharing a take's copy; MPIRMA_MAX_OFFERS per rank (ENOSPC);
 * and a sender that leaves (closes its fd, is SIGKILLed in another process,
 * or its job is torn down): its offers end, TAKE says ENOENT, an OFFER to it
 * EOWNERDEAD, and every counter comes back to 0.
 *
 * Offers never block, so most tests run in one process that has joined all
 * ranks of a small job itself.
 */
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
static long span(const void *buf, size_t len)
{
	uintptr_t a = (uintptr_t)buf;

	return (a + len + PS - 1) / PS - a / PS;
}

/* Byte @i of the data of @seed; neighbouring pages differ too. */
static uint8_t pat(size_t i, unsigned int seed)
{
	return (uint8_t)(i * 31 + (i >> 12) * 7 + seed);
}

static void fill(void *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)buf)[i] = pat(i, seed);
}

/* How many of the @len bytes at @buf are not the data of @seed. */
static size_t bad_bytes(const void *buf, size_t len, unsigned int seed)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i++)
		bad += ((const uint8_t *)buf)[i] != pat(i, seed);
	return bad;
}

/* An argument with every output 0, as the kernel wants it going in. */
static struct mpirma_msg_copy mc_arg(uint32_t peer, uint64_t id,
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

/* OFFER; the id in *@id.  0 or -errno. */
static int offer(int mfd, uint32_t peer, const void *buf, uint64_t len,
		 uint64_t *id)
{
	struct mpirma_msg_copy c = mc_arg(peer, 0, buf, len);
	int ret = mt_ioctl(mfd, MPIRMA_IOC_MSG_OFFER, &c);

	if (!ret)
		*id = c.id;
	return ret;
}

/* TAKE offer @id of rank @peer into @buf; the outputs in *@c. */
static int take(int mfd, uint32_t peer, uint64_t id, void *buf, uint64_t len,
		struct mpirma_msg_copy *c)
{
	*c = mc_arg(peer, id, buf, len);
	return mt_ioctl(mfd, MPIRMA_IOC_MSG_TAKE, c);
}

static int withdraw(int mfd, uint64_t id)
{
	struct mpirma_msg_copy c = mc_arg(0, id, NULL, 0);

	return mt_ioctl(mfd, MPIRMA_IOC_MSG_WITHDRAW, &c);
}

/* pages_pinned once it settles at @want (a release may lag a close). */
static long pinned_settle(long want)
{
	uint64_t deadline = mt_now_ms() + 5000;
	long v;

	while ((v = mt_counter("pages_pinned")) != want &&
	       mt_now_ms() < deadline)
		mt_sleep_ms(20);
	return v;
}

/*
 * @cmd on @c in a struct 8 bytes longer, whose tail is @tail; the outputs
 * back in *@c.  -EPROTO: the kernel wrote beyond its own struct.
 */
static int ioctl_tail(int fd, unsigned long cmd, struct mpirma_msg_copy *c,
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
	int r;

	self->job = -1;
	for (r = 0; r < NRANKS; r++)
		self->m[r] = -1;
	MT_FIXTURE_OPEN();
	MT_FIXTURE_QUERY(&q, MPIRMA_FEAT_MSG_COPY);
	self->pinned = mt_counter("pages_pinned");
	ASSERT_LE(0, self->pinned);
	self->job = mt_job_create(self->dev, NRANKS, NULL);
	ASSERT_LE(0, self->job);
	for (r = 0; r < NRANKS; r++) {
		self->m[r] = mt_job_join(self->job, r);
		ASSERT_LE(0, self->m[r]);
	}
	self->src = mt_anon(16 * PS);
	self->dst = mt_anon(16 * PS);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->dst);
	fill(self->src, 16 * PS, 1);
}

FIXTURE_TEARDOWN(copy)
{
	int r;

	for (r = 0; r < NRANKS; r++)
		mt_close(&self->m[r]);
	mt_close(&self->job);
	mt_close(&self->dev);
}

/* Short struct: EINVAL; unknown non-zero tail: E2BIG; zero tail: works. */
TEST_F(copy, size_contract)
{
	static const unsigned long cmd[] = {
		MPIRMA_IOC_MSG_OFFER, MPIRMA_IOC_MSG_TAKE, MPIRMA_IOC_MSG_WITHDRAW,
	};
	struct mpirma_msg_copy c[3], s;
	uint64_t id[2];
	int i, fd;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 100, &id[0]));
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 10, &id[1]));
	c[0] = mc_arg(0, 0, self->src, 200);
	c[1] = mc_arg(1, id[0], self->dst, 100);
	c[2] = mc_arg(0, id[1], NULL, 0);
	for (i = 0; i < 3; i++) {
		fd = self->m[i == 1 ? 0 : 1];
		s = c[i];
		s.size = sizeof(s) - 8;
		EXPECT_EQ(-EINVAL, mt_ioctl(fd, cmd[i], &s)) TH_LOG("cmd %d", i);
		EXPECT_EQ(-E2BIG, ioctl_tail(fd, cmd[i], &c[i], 1ULL << (i * 30)))
			TH_LOG("cmd %d", i);
		EXPECT_EQ(0, ioctl_tail(fd, cmd[i], &c[i], 0)) TH_LOG("cmd %d", i);
	}
	EXPECT_EQ(100, c[1].copied);
	EXPECT_EQ(100, c[1].msg_len);
	EXPECT_EQ(0, bad_bytes(self->dst, 100, 1));
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id[1]));	/* withdrawn */
	EXPECT_EQ(0, withdraw(self->m[1], c[0].id));		/* the new one */
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/* One field of @c changed to @v: @err. */
#define EXPECT_FIELD(err, cmd, fd, field, v)				\
	do {								\
		struct mpirma_msg_copy __c = c;				\
									\
		__c.field = (v);					\
		EXPECT_EQ(-(err), mt_ioctl(fd, cmd, &__c))		\
			TH_LOG(#cmd " with " #field " = " #v);		\
	} while (0)
#define EXPECT_BAD(cmd, fd, field, v)	EXPECT_FIELD(EINVAL, cmd, fd, field, v)

/* EINVAL, ENXIO, ENOTTY: and none of them touches the offer. */
TEST_F(copy, bad_arguments)
{
	struct mpirma_msg_copy c, t;
	uint64_t id;

	MT_SETUP_SKIPPED();
	c = mc_arg(0, 0, self->src, 100);
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], flags, 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], flags, 1U << 31);
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], reserved, 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], copied, 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], msg_len, 100);
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], len, 0);
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], len, MPIRMA_MSG_COPY_MAX + 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], len, ~0ULL);
	EXPECT_FIELD(ENXIO, MPIRMA_IOC_MSG_OFFER, self->m[1], peer, NRANKS);
	EXPECT_FIELD(ENXIO, MPIRMA_IOC_MSG_OFFER, self->m[1], peer, ~0U);
	EXPECT_FIELD(ENOTTY, MPIRMA_IOC_MSG_OFFER, self->job, peer, 0);
	EXPECT_FIELD(ENOTTY, MPIRMA_IOC_MSG_OFFER, self->dev, peer, 0);
	EXPECT_EQ(self->pinned, mt_counter("pages_pinned"));

	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 100, &id));
	c = mc_arg(1, id, self->dst, 100);
	EXPECT_BAD(MPIRMA_IOC_MSG_TAKE, self->m[0], flags, 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_TAKE, self->m[0], reserved, 1U << 31);
	EXPECT_BAD(MPIRMA_IOC_MSG_TAKE, self->m[0], copied, 100);
	EXPECT_BAD(MPIRMA_IOC_MSG_TAKE, self->m[0], msg_len, 1);
	EXPECT_FIELD(ENXIO, MPIRMA_IOC_MSG_TAKE, self->m[0], peer, NRANKS);
	EXPECT_FIELD(ENXIO, MPIRMA_IOC_MSG_TAKE, self->m[0], peer, ~0U);
	EXPECT_FIELD(ENOTTY, MPIRMA_IOC_MSG_TAKE, self->job, peer, 1);
	EXPECT_FIELD(ENOTTY, MPIRMA_IOC_MSG_TAKE, self->dev, peer, 1);

	c = mc_arg(0, id, NULL, 0);
	EXPECT_BAD(MPIRMA_IOC_MSG_WITHDRAW, self->m[1], flags, 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_WITHDRAW, self->m[1], reserved, 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_WITHDRAW, self->m[1], peer, 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_WITHDRAW, self->m[1], buf, (uintptr_t)self->src);
	EXPECT_BAD(MPIRMA_IOC_MSG_WITHDRAW, self->m[1], len, 100);
	EXPECT_BAD(MPIRMA_IOC_MSG_WITHDRAW, self->m[1], copied, 1);
	EXPECT_BAD(MPIRMA_IOC_MSG_WITHDRAW, self->m[1], msg_len, 1);
	EXPECT_FIELD(ENOTTY, MPIRMA_IOC_MSG_WITHDRAW, self->job, peer, 0);
	EXPECT_FIELD(ENOTTY, MPIRMA_IOC_MSG_WITHDRAW, self->dev, peer, 0);

	ASSERT_EQ(0, take(self->m[0], 1, id, self->dst, 100, &t));
	EXPECT_EQ(100, t.copied);
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/*
 * The data arrives, the outputs are written, nothing beyond is touched; the
 * pages stay pinned while offered, and they are the sender's own: a write
 * after the offer is what is taken (a program must not do that, but it shows
 * that OFFER copies nothing).  A second take finds nothing; a rank may offer
 * to itself.
 */
TEST_F(copy, roundtrip)
{
	struct mpirma_msg_copy t;
	uint64_t id;
	size_t i;

	MT_SETUP_SKIPPED();
	memset(self->dst, 0x5a, 4 * PS);
	ASSERT_EQ(0, offer(self->m[2], 0, self->src, 2 * PS, &id));
	EXPECT_EQ(self->pinned + 2, mt_counter("pages_pinned"));
	fill(self->src, 2 * PS, 2);
	ASSERT_EQ(0, take(self->m[0], 2, id, self->dst, 4 * PS, &t));
	EXPECT_EQ(2 * PS, t.copied);
	EXPECT_EQ(2 * PS, t.msg_len);
	EXPECT_EQ(0, bad_bytes(self->dst, 2 * PS, 2));
	for (i = 2 * PS; i < 4 * PS && self->dst[i] == 0x5a; i++)
		;
	EXPECT_EQ(4 * PS, i);		/* beyond: untouched */
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
	EXPECT_EQ(-ENOENT, take(self->m[0], 2, id, self->dst, 4 * PS, &t));

	ASSERT_EQ(0, offer(self->m[1], 1, self->src + 1, 10, &id));
	ASSERT_EQ(0, take(self->m[1], 1, id, self->dst, 10, &t));
	EXPECT_EQ(10, t.copied);
	EXPECT_EQ(0, memcmp(self->dst, self->src + 1, 10));
}

/* Only the peer named in the offer takes it, naming the offering rank. */
TEST_F(copy, only_the_peer_takes)
{
	struct mpirma_msg_copy t;
	uint64_t a, b;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 300, &a));
	ASSERT_EQ(0, offer(self->m[1], 2, self->src, 200, &b));
	EXPECT_NE(a, b);
	EXPECT_EQ(-ENOENT, take(self->m[2], 1, a, self->dst, 300, &t));
	EXPECT_EQ(-ENOENT, take(self->m[1], 1, a, self->dst, 300, &t));
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, b, self->dst, 300, &t));
	EXPECT_EQ(-ENOENT, take(self->m[0], 2, a, self->dst, 300, &t));
	EXPECT_EQ(-ENOENT, take(self->m[0], 0, a, self->dst, 300, &t));
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, a + 1000, self->dst, 300, &t));
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, a + (1ULL << 32), self->dst, 300, &t));
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, ~0ULL, self->dst, 300, &t));
	ASSERT_EQ(0, take(self->m[0], 1, a, self->dst, 300, &t));
	EXPECT_EQ(300, t.msg_len);
	ASSERT_EQ(0, take(self->m[2], 1, b, self->dst, 300, &t));
	EXPECT_EQ(200, t.copied);
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/* A smaller buffer: len bytes copied, msg_len tells the truth, offer over. */
TEST_F(copy, truncation)
{
	struct mpirma_msg_copy t;
	uint64_t id;
	int i;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 5000, &id));
	memset(self->dst, 0xee, 64);
	ASSERT_EQ(0, take(self->m[0], 1, id, self->dst, 10, &t));
	EXPECT_EQ(10, t.copied);
	EXPECT_EQ(5000, t.msg_len);
	EXPECT_EQ(0, bad_bytes(self->dst, 10, 1));
	for (i = 10; i < 64; i++)
		EXPECT_EQ(0xee, self->dst[i]);
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, id, self->dst, 5000, &t));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
	/* a zero-length buffer takes (and ends) it too */
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 5000, &id));
	ASSERT_EQ(0, take(self->m[0], 1, id, NULL, 0, &t));
	EXPECT_EQ(0, t.copied);
	EXPECT_EQ(5000, t.msg_len);
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/* Every small length at several alignments of both sides; guards intact. */
TEST_F(copy, sizes_and_alignment)
{
	static const size_t so[] = { 0, 1, 5, 15, 4090 }, doff[] = { 0, 3, 8, 4093 };
	size_t n, i, j, bad = 0, len = 3 * PS + 100;
	uint8_t *d = self->dst + PS;
	struct mpirma_msg_copy t;
	uint64_t id;

	MT_SETUP_SKIPPED();
	for (n = 1; n <= 130; n += n < 70 ? 1 : 17)
		for (i = 0; i < MT_ARRAY_SIZE(so); i++)
			for (j = 0; j < MT_ARRAY_SIZE(doff); j++) {
				memset(d + doff[j] - 1, 0x77, n + 2);
				ASSERT_EQ(0, offer(self->m[1], 0, self->src + so[i], n, &id));
				ASSERT_EQ(0, take(self->m[0], 1, id, d + doff[j], n, &t));
				ASSERT_EQ(n, t.copied);
				bad += memcmp(d + doff[j], self->src + so[i], n) != 0 ||
				       d[doff[j] - 1] != 0x77 || d[doff[j] + n] != 0x77;
			}
	EXPECT_EQ(0, bad);
	/* 3 pages and a bit from byte 13: 4 pages pinned */
	memset(self->dst, 0x77, 6 * PS);
	ASSERT_EQ(0, offer(self->m[1], 0, self->src + 13, len, &id));
	EXPECT_EQ(self->pinned + span(self->src + 13, len),
		  mt_counter("pages_pinned"));
	ASSERT_EQ(0, take(self->m[0], 1, id, d - 7, len + 50, &t));
	EXPECT_EQ(len, t.copied);
	EXPECT_EQ(len, t.msg_len);
	EXPECT_EQ(0, memcmp(d - 7, self->src + 13, len));
	EXPECT_EQ(0x77, d[-8]);
	EXPECT_EQ(0x77, d[len - 7]);
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/* Several megabytes, every byte checked. */
TEST_F(copy, large)
{
	uint8_t *out = mt_anon(LARGE_LEN), *in = mt_anon(LARGE_LEN + 4096);
	struct mpirma_msg_copy t;
	uint64_t id;

	MT_SETUP_SKIPPED();
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, in);
	fill(out, LARGE_LEN, 9);
	ASSERT_EQ(0, offer(self->m[1], 0, out, LARGE_LEN, &id));
	EXPECT_EQ(self->pinned + span(out, LARGE_LEN), mt_counter("pages_pinned"));
	ASSERT_EQ(0, take(self->m[0], 1, id, in + 1, LARGE_LEN + 4095, &t));
	EXPECT_EQ(LARGE_LEN, t.copied);
	EXPECT_EQ(LARGE_LEN, t.msg_len);
	EXPECT_EQ(0, bad_bytes(in + 1, LARGE_LEN, 9));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
	munmap(out, LARGE_LEN);
	munmap(in, LARGE_LEN + 4096);
}

/*
 * OFFER of memory it cannot read: EFAULT, nothing left pinned.  TAKE into
 * memory it cannot write (none, read-only, half): EFAULT, the offer stays.
 */
TEST_F(copy, bad_buffers)
{
	uint8_t *hole = self->src + 4 * PS, *dhole = self->dst + 2 * PS;
	struct mpirma_msg_copy t;
	uint64_t id;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mprotect(hole, PS, PROT_NONE));
	EXPECT_EQ(-EFAULT, offer(self->m[1], 0, hole, 16, &id));
	EXPECT_EQ(-EFAULT, offer(self->m[1], 0, (void *)8, 16, &id));
	EXPECT_EQ(-EFAULT, offer(self->m[1], 0, self->src, 5 * PS, &id));
	EXPECT_EQ(-EFAULT, offer(self->m[1], 0, hole - 10, 20, &id));
	EXPECT_EQ(self->pinned, mt_counter("pages_pinned"));
	/* read-only memory is fine to offer (MPI_Send of constant data) */
	ASSERT_EQ(0, mprotect(hole - PS, PS, PROT_READ));
	ASSERT_EQ(0, offer(self->m[1], 0, hole - PS, PS, &id));
	ASSERT_EQ(0, take(self->m[0], 1, id, self->dst, PS, &t));
	EXPECT_EQ(0, memcmp(self->dst, hole - PS, PS));

	ASSERT_EQ(0, mprotect(dhole, PS, PROT_NONE));
	ASSERT_EQ(0, mprotect(dhole + PS, PS, PROT_READ));
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 3000, &id));
	EXPECT_EQ(-EFAULT, take(self->m[0], 1, id, dhole, 3000, &t));
	EXPECT_EQ(-EFAULT, take(self->m[0], 1, id, dhole - 1000, 3000, &t));
	EXPECT_EQ(-EFAULT, take(self->m[0], 1, id, dhole + PS, 3000, &t));
	EXPECT_EQ(-EFAULT, take(self->m[0], 1, id, (void *)8, 3000, &t));
	EXPECT_EQ(self->pinned + 1, mt_counter("pages_pinned"));
	ASSERT_EQ(0, take(self->m[0], 1, id, self->dst, 3000, &t));
	EXPECT_EQ(3000, t.copied);
	EXPECT_EQ(0, bad_bytes(self->dst, 3000, 1));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/* WITHDRAW: only the sender's own outstanding offers. */
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

static int help(int mfd, uint64_t id, uint32_t peer, uint64_t len)
{
	struct mpirma_msg_copy c = mc_arg(peer, id, NULL, len);

	return mt_ioctl(mfd, MPIRMA_IOC_MSG_HELP, &c);
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
	int dev, job, m0, m1;
	uint64_t id;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	job = mt_job_create(dev, 2, NULL);
	ASSERT_LE(0, job);
	m0 = mt_job_join(job, 0);
	ASSERT_LE(0, m0);
	m1 = mt_job_join(job, 1);
	ASSERT_LE(0, m1);
	close(job);
	memset(data, 1, sizeof(data));
	ASSERT_EQ(0, offer(m0, 1, data, sizeof(data), &id));
	ASSERT_EQ(0, offer(m0, 1, data, 10, &id));
	ASSERT_EQ(0, offer(m1, 0, data + 1, 5000, &id));
	ASSERT_EQ(0, offer(m1, 1, data, 1, &id));
	close(m1);
	close(m0);
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
	job = mt_job_create(self->dev, 2, NULL);
	ASSERT_LE(0, job);
	m0 = mt_job_join(job, 0);
	ASSERT_LE(0, m0);
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
