// SPDX-License-Identifier: GPL-2.0
/*
 * One-copy messages: MPIRMA_IOC_MSG_OFFER / _TAKE / _HELP / _WITHDRAW, the
 * path of large messages that the kernel copies straight from the sender's
 * pages into the receiver's buffer.  The commands' contract; how an offer
 * ends is msg_offer.c's.
 *
 * What the library relies on, checked here: the size contract of struct
 * mpirma_msg_copy; the errno rules (EINVAL for flags, reserved, outputs
 * given, WITHDRAW's unused fields and lengths out of range; ENXIO; ENOTTY
 * on the wrong fd; EFAULT); that an offer pins the sender's own pages (the
 * module's pages_pinned counter; writes after the offer are what the take
 * sees) until it ends; that only the named peer takes it, once; truncation;
 * every small size and alignment, and multi-megabyte copies; a TAKE into
 * memory it cannot write that leaves the offer as it was.
 *
 * Offers never block, so the tests run in one process that has joined all
 * ranks of a small job itself.
 */
#include "msg_copy.h"

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
	EXPECT_BAD(MPIRMA_IOC_MSG_OFFER, self->m[1], flags, MPIRMA_OFFER_SENDER_ENDS << 1);
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

TEST_HARNESS_MAIN
