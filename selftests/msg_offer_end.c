// SPDX-License-Identifier: GPL-2.0
/*
 * One-copy messages (msg_copy.c has the commands' contract): an offer made
 * with MPIRMA_OFFER_SENDER_ENDS outlives its take, its pages pinned until
 * the sender's WITHDRAW (ENOENT, as for any offer already over) or the
 * sender's departure; and an id outlives its offer, so a receiver late with
 * it finds nothing though another offer now sits in the same place.
 */
#include "msg_copy.h"

#define ENDS	MPIRMA_OFFER_SENDER_ENDS

static bool ends_known(int dev)
{
	struct mpirma_query q;

	return !mt_query(dev, &q) && (q.features & MPIRMA_FEAT_OFFER_END);
}

/* Taken, it stays pinned and the sender's; only its WITHDRAW ends it. */
TEST_F(copy, sender_ends)
{
	struct mpirma_msg_copy t;
	uint64_t id;

	MT_SETUP_SKIPPED();
	if (!ends_known(self->dev))
		SKIP(return, "no MPIRMA_FEAT_OFFER_END");
	ASSERT_EQ(0, offer_flags(self->m[1], 0, self->src, 3 * PS, ENDS, &id));
	ASSERT_EQ(0, take(self->m[0], 1, id, self->dst, 3 * PS, &t));
	EXPECT_EQ(3 * PS, t.copied);
	EXPECT_EQ(3 * PS, t.msg_len);
	EXPECT_EQ(0, bad_bytes(self->dst, 3 * PS, 1));
	EXPECT_EQ(self->pinned + 3, pinned_settle(self->pinned + 3));
	/* over for everyone but its sender */
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, id, self->dst, 3 * PS, &t));
	EXPECT_EQ(-ENOENT, help(self->m[1], id, 0, 0));
	EXPECT_EQ(-ENOENT, withdraw(self->m[0], id));
	EXPECT_EQ(-ENOENT, withdraw(self->m[2], id));
	EXPECT_EQ(self->pinned + 3, mt_counter("pages_pinned"));
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id));

	/* not taken: withdrawn as any other */
	ASSERT_EQ(0, offer_flags(self->m[1], 0, self->src, 100, ENDS, &id));
	EXPECT_EQ(0, withdraw(self->m[1], id));
	EXPECT_EQ(-ENOENT, take(self->m[0], 1, id, self->dst, 100, &t));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));

	/* the only flag there is */
	EXPECT_EQ(-EINVAL, offer_flags(self->m[1], 0, self->src, 100, ENDS << 1, &id));
	EXPECT_EQ(-EINVAL, offer_flags(self->m[1], 0, self->src, 100, ENDS | 1U << 31, &id));
}

/* A taken offer counts against MPIRMA_MAX_OFFERS until its sender ends it. */
TEST_F(copy, sender_ends_counts)
{
	uint64_t id[MPIRMA_MAX_OFFERS], extra;
	struct mpirma_msg_copy t;
	int i;

	MT_SETUP_SKIPPED();
	if (!ends_known(self->dev))
		SKIP(return, "no MPIRMA_FEAT_OFFER_END");
	for (i = 0; i < MPIRMA_MAX_OFFERS; i++)
		ASSERT_EQ(0, offer_flags(self->m[1], 0, self->src + (i % 16) * PS, 100,
					 ENDS, &id[i]));
	ASSERT_EQ(0, take(self->m[0], 1, id[0], self->dst, 100, &t));
	EXPECT_EQ(-ENOSPC, offer_flags(self->m[1], 0, self->src, 100, ENDS, &extra));
	EXPECT_EQ(-ENOENT, withdraw(self->m[1], id[0]));
	ASSERT_EQ(0, offer_flags(self->m[1], 0, self->src, 100, ENDS, &id[0]));
	for (i = 0; i < MPIRMA_MAX_OFFERS; i++)
		EXPECT_EQ(0, withdraw(self->m[1], id[i]));
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

/* A sender that leaves ends its taken offers too: nothing stays pinned. */
TEST_F(copy, sender_ends_sender_leaves)
{
	struct mpirma_msg_copy t;
	uint64_t a, b;

	MT_SETUP_SKIPPED();
	if (!ends_known(self->dev))
		SKIP(return, "no MPIRMA_FEAT_OFFER_END");
	ASSERT_EQ(0, offer_flags(self->m[1], 0, self->src, 2 * PS, ENDS, &a));
	ASSERT_EQ(0, offer_flags(self->m[1], 2, self->src, 100, ENDS, &b));
	ASSERT_EQ(0, take(self->m[0], 1, a, self->dst, 2 * PS, &t));
	EXPECT_EQ(self->pinned + 3, mt_counter("pages_pinned"));
	mt_close(&self->m[1]);
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
	EXPECT_EQ(-ENOENT, take(self->m[2], 1, b, self->dst, 100, &t));
}

/*
 * An id names one offer only: after a withdrawal the next offer reuses
 * its place but not its id, and the old id finds nothing.
 */
TEST_F(copy, stale_id)
{
	struct mpirma_msg_copy t;
	uint64_t old, id;
	int i;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, offer(self->m[1], 0, self->src, 100, &old));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, withdraw(self->m[1], old));
		ASSERT_EQ(0, offer(self->m[1], 0, self->src, 100, &id));
		ASSERT_NE(old, id);
		EXPECT_EQ(-ENOENT, take(self->m[0], 1, old, self->dst, 100, &t));
		EXPECT_EQ(-ENOENT, withdraw(self->m[1], old));
		EXPECT_GE(INT32_MAX, id);
		old = id;
	}
	ASSERT_EQ(0, take(self->m[0], 1, id, self->dst, 100, &t));
	EXPECT_EQ(100, t.copied);
	EXPECT_EQ(self->pinned, pinned_settle(self->pinned));
}

TEST_HARNESS_MAIN
