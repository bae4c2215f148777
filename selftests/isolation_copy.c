// SPDX-License-Identifier: GPL-2.0
/*
 * Isolation: what the module zeroes, copies out and rejects.
 *
 *  - Allocated window memory is zero when it is new, even right after a
 *    window full of garbage was freed.
 *  - Nothing the module copies out carries bytes it did not mean to write:
 *    reserved fields read 0, arrays beyond what is documented are zero or
 *    untouched, short structs are not written past their size.
 *  - Sizes, counts and displacements whose arithmetic overflows are
 *    rejected with EOVERFLOW (or the documented errno) before anything is
 *    touched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#include "isolation.h"

/* ---------------------------------------------------------------- zeroing */

static bool all_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * New ALLOC memory is zero all over the mapping (the rank's bytes and the
 * rest of its last page), under every strategy and layout, also when the
 * pages a window full of garbage just gave back are reused.
 */
TEST(alloc_memory_is_zeroed)
{
	size_t page = page_size(), len, map_len, i;
	static const uint32_t strategies[] = {
#define STRATEGY_ID(name, ID) MPIRMA_ATOM_##ID,
		MT_FOR_EACH_STRATEGY(STRATEGY_ID)
#undef STRATEGY_ID
	};
	uint8_t *got = malloc(4 * page);
	struct mpirma_op op;
	int dev, job, mfd, win, round;
	uint8_t *map;

	MT_REQUIRE_DEVICE();
	ASSERT_NE(NULL, got);
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	for (round = 0; round < 16; round++) {
		uint32_t strategy = strategies[round % MT_ARRAY_SIZE(strategies)];
		uint32_t flags = round & 4 ? MPIRMA_WIN_CONTIG : 0;

		len = (1 + round % 3) * page + 100 * (round & 1);
		win = solo_alloc(mfd, strategy, flags, len, (void **)&map, &map_len);
		ASSERT_LT(0, win) TH_LOG("round %d", round);
		EXPECT_TRUE(all_zero(map, map_len)) {
			TH_LOG("round %d (%s): mapping of %zu bytes not zero", round,
			       mt_strategy_name(strategy), map_len);
		}
		memset(got, 0xee, len);
		op = mt_get(MPIRMA_TYPE_BYTE, 0, 0, got, len);
		EXPECT_EQ(0, mt_rma1(mfd, win, &op));
		EXPECT_TRUE(all_zero(got, len));
		/* garbage for the next round to find, if pages were not zeroed */
		for (i = 0; i < map_len; i++)
			map[i] = 0xa0 + (i & 0xf);
		EXPECT_EQ(0, mt_win_free(mfd, win));
		munmap(map, map_len);
	}
	free(got);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---------------------------------------------------------------- copy-out */

/*
 * Every struct the module writes back: poisoned before the call, every
 * byte afterwards is an input the caller set, a documented output, or
 * (for arrays and reserved fields) zero; never poison left in an output,
 * never anything written past the caller's size.
 */
TEST(copy_out_carries_no_stale_bytes)
{
	size_t page = page_size(), len;
	struct {
		struct mpirma_win_query q;
		uint8_t tail[64];
	} big;
	struct mpirma_win_query q;
	struct mpirma_win_stats st;
	struct mpirma_win_placement pl;
	struct mpirma_query qu;
	struct mpirma_msg msg;
	struct mpirma_op ops[2], before[2];
	uint64_t counts[64], v = 42, back = 0;
	uint8_t buf[64];
	int dev, job, mfd, win, k, nodes;
	void *map;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	win = solo_alloc(mfd, MPIRMA_ATOM_DEFAULT, 0, page, &map, &len);
	ASSERT_LT(0, win);

	/* QUERY: op_type_mask beyond nr_ops is zero */
	mt_arg_init(&qu);
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_QUERY, &qu));
	ASSERT_GE(16, qu.nr_ops);
	for (k = qu.nr_ops; k < 16; k++)
		EXPECT_EQ(0, qu.op_type_mask[k]);
	EXPECT_NE(POISON64, qu.features);
	nodes = qu.nr_numa_nodes;

	/* WIN_QUERY: all outputs written, reserved 0 */
	ASSERT_EQ(0, mt_win_query(mfd, win, 0, &q));
	EXPECT_EQ(0, q.reserved);
	EXPECT_NE(POISON32, (uint32_t)q.worker);
	EXPECT_NE(POISON32, (uint32_t)q.numa_node);
	EXPECT_NE(POISON64, q.mmap_length);
	EXPECT_NE(POISON64, q.seg_offset);
	/* the first version's size: nothing written past it */
	mt_poison(&q);
	q.size = offsetof(struct mpirma_win_query, worker);
	q.flags = 0;
	q.win_id = win;
	q.rank = 0;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_WIN_QUERY, &q));
	EXPECT_EQ(POISON32, (uint32_t)q.worker);
	EXPECT_EQ(POISON32, q.reserved);
	EXPECT_EQ(1, q.nranks);
	/* larger than the kernel's: a zero tail stays zero */
	memset(&big, 0, sizeof(big));
	big.q.size = sizeof(big);
	big.q.win_id = win;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_WIN_QUERY, &big));
	EXPECT_TRUE(all_zero(big.tail, sizeof(big.tail)));

	/* WIN_STATS: counters of kinds that do not exist are zero */
	ASSERT_EQ(0, mt_win_stats(mfd, win, &st));
	for (k = MPIRMA_NR_KINDS; k < 8; k++)
		EXPECT_EQ(0, st.ops[k]);
	EXPECT_EQ(0, st.reserved);
	EXPECT_NE(POISON64, st.atomic_contended);
	EXPECT_NE(POISON64, st.pages);

	/* PLACEMENT: counts beyond nr_node_ids are not written */
	memset(counts, 0xcc, sizeof(counts));
	mt_arg_init(&pl);
	pl.win_id = win;
	pl.rank = 0;
	pl.counts = (uintptr_t)counts;
	pl.nr_nodes = MT_ARRAY_SIZE(counts);
	pl.reserved = 0;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_WIN_PLACEMENT, &pl));
	EXPECT_EQ(nodes, (int)pl.nr_nodes);
	ASSERT_GE(64, nodes);
	for (k = 0; k < nodes; k++)
		EXPECT_NE(POISON64, counts[k]);
	for (k = nodes; k < 64; k++)
		EXPECT_EQ(POISON64, counts[k]);
	EXPECT_EQ(1, pl.pages);

	/* MSG_RECV: the header is written, the buffer only up to msg_len */
	memset(&msg, 0, sizeof(msg));
	msg.size = sizeof(msg);
	msg.peer = 0;
	msg.tag = 3;
	msg.buf = (uintptr_t)"hello";
	msg.len = 5;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_MSG_SEND, &msg));
	mt_arg_init(&msg);
	memset(buf, 0xcc, sizeof(buf));
	msg.flags = MPIRMA_MSG_NOWAIT;
	msg.peer = MPIRMA_ANY_SOURCE;
	msg.tag = MPIRMA_ANY_TAG;
	msg.context = 0;
	msg.buf = (uintptr_t)buf;
	msg.len = sizeof(buf);
	msg.msg_len = 0;
	msg.source = 0;
	msg.msg_tag = 0;
	ASSERT_EQ(0, mt_ioctl(mfd, MPIRMA_IOC_MSG_RECV, &msg));
	EXPECT_EQ(5, msg.msg_len);
	EXPECT_EQ(0, msg.source);
	EXPECT_EQ(3, msg.msg_tag);
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	for (k = 5; k < (int)sizeof(buf); k++)
		EXPECT_EQ(0xcc, buf[k]);

	/* RMA: only each operation's status is written back */
	ops[0] = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &v, 1);
	ops[1] = mt_get(MPIRMA_TYPE_UINT64, 0, 0, &back, 1);
	ops[0].status = ops[1].status = (int32_t)POISON32;
	memcpy(before, ops, sizeof(ops));
	ASSERT_EQ(0, mt_rma(mfd, win, ops, 2, NULL));
	EXPECT_EQ(42, back);
	for (k = 0; k < 2; k++) {
		EXPECT_EQ(0, ops[k].status);
		ops[k].status = before[k].status;
		EXPECT_EQ(0, memcmp(&ops[k], &before[k], sizeof(ops[k])));
	}

	munmap(map, len);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---------------------------------------------------------------- overflow */

static int create_err(int mfd, uint32_t flavor, uint64_t base, uint64_t length)
{
	struct mpirma_win_create wc;
	uint32_t me = 0;

	memset(&wc, 0, sizeof(wc));
	wc.size = sizeof(wc);
	wc.flavor = flavor;
	wc.disp_unit = 1;
	wc.base = base;
	wc.length = length;
	wc.ranks = (uintptr_t)&me;
	wc.nranks = 1;
	return mt_ioctl(mfd, MPIRMA_IOC_WIN_CREATE, &wc);
}

/*
 * Every size, count or displacement whose arithmetic does not fit 64 bits
 * is rejected; a huge one that fits is out of range or out of memory.
 */
TEST(overflowing_sizes_rejected)
{
	size_t page = page_size(), len;
	struct mpirma_block blk[2];
	uint64_t src[4] = { 0 }, res[4];
	struct mpirma_op op;
	struct mpirma_msg msg;
	int dev, job, mfd, win, w8;
	void *map;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	win = solo_alloc(mfd, MPIRMA_ATOM_DEFAULT, 0, page, &map, &len);
	ASSERT_LT(0, win);
	{
		struct mt_win w = {
			.flavor = MPIRMA_FLAVOR_ALLOC, .length = page, .disp_unit = 8,
			.nranks = 1,
		};

		w8 = mt_win_create(mfd, &w);
		ASSERT_LT(0, w8);
	}

	/* window sizes */
	EXPECT_EQ(-EOVERFLOW, create_err(mfd, MPIRMA_FLAVOR_ALLOC, 0, 1ULL << 63));
	EXPECT_EQ(-EOVERFLOW, create_err(mfd, MPIRMA_FLAVOR_ALLOC, 0, UINT64_MAX));
	EXPECT_EQ(-ENOMEM, create_err(mfd, MPIRMA_FLAVOR_ALLOC, 0, 1ULL << 62));
	/* user memory that wraps or leaves user space cannot be pinned */
	EXPECT_EQ(-EFAULT, create_err(mfd, MPIRMA_FLAVOR_USER, UINT64_MAX - page + 1,
				      2 * page));
	EXPECT_EQ(-EFAULT, create_err(mfd, MPIRMA_FLAVOR_USER, (uintptr_t)src, UINT64_MAX));
	EXPECT_EQ(-EFAULT, create_err(mfd, MPIRMA_FLAVOR_USER, (uintptr_t)src, 1ULL << 62));

	/* target_disp * disp_unit */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 1ULL << 61, src, 1);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, w8, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 1ULL << 60, src, 1);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, w8, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, UINT64_MAX / 8 / 4, src, 1);
	EXPECT_EQ(-ERANGE, mt_rma1(mfd, w8, &op));
	/* count * element size */
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 1ULL << 61);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 1ULL << 40);
	EXPECT_EQ(-ERANGE, mt_rma1(mfd, win, &op));
	/* a block's disp + len */
	blk[0].disp = INT64_MAX - 4;
	blk[0].len = 8;
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 1);
	op.target = mt_blocks(NULL, blk, 1, 1, 8);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	/* a block longer than S64_MAX */
	blk[0].disp = 0;
	blk[0].len = 1ULL << 63;
	op.target = mt_blocks(NULL, blk, 1, 1, 8);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	/* bytes per repetition * count */
	blk[0].len = 1ULL << 32;
	op = mt_put(MPIRMA_TYPE_BYTE, 0, 0, src, 1ULL << 32);
	op.target = mt_blocks(NULL, blk, 1, 1ULL << 33, 1ULL << 32);
	op.origin = mt_blocks(src, blk, 1, 1ULL << 33, 1ULL << 32);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	/* (count - 1) * extent */
	blk[0].len = 8;
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 4);
	op.target = mt_blocks(NULL, blk, 1, 4, INT64_MAX / 2);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	op.target = mt_blocks(NULL, blk, 1, 4, INT64_MIN / 2);
	EXPECT_EQ(-EOVERFLOW, mt_rma1(mfd, win, &op));
	/* a result side whose user address wraps is a fault, not a write */
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, res, 2);
	op.result.addr = UINT64_MAX - 8;
	EXPECT_EQ(-EFAULT, mt_rma1(mfd, win, &op));
	blk[0].disp = -16;
	blk[0].len = 16;
	op.result = mt_blocks((void *)8, blk, 1, 1, 16);
	EXPECT_EQ(-EFAULT, mt_rma1(mfd, win, &op));

	/* limits of a batch and a layout */
	{
		struct mpirma_rma rma;

		memset(&rma, 0, sizeof(rma));
		rma.size = sizeof(rma);
		rma.win_id = win;
		rma.nops = MPIRMA_MAX_BATCH + 1;
		rma.ops = (uintptr_t)&op;
		rma.op_size = sizeof(op);
		EXPECT_EQ(-EINVAL, mt_ioctl(mfd, MPIRMA_IOC_RMA, &rma));
		rma.nops = 1;
		rma.op_size = UINT32_MAX;
		EXPECT_EQ(-E2BIG, mt_ioctl(mfd, MPIRMA_IOC_RMA, &rma));
	}
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, src, 1);
	op.target = mt_blocks(NULL, blk, MPIRMA_MAX_BLOCKS + 1, 1, 8);
	EXPECT_EQ(-EINVAL, mt_rma1(mfd, win, &op));

	/* a message larger than the machine */
	memset(&msg, 0, sizeof(msg));
	msg.size = sizeof(msg);
	msg.buf = (uintptr_t)src;
	msg.len = 1ULL << 62;
	EXPECT_EQ(-ENOMEM, mt_ioctl(mfd, MPIRMA_IOC_MSG_SEND, &msg));
	msg.len = UINT64_MAX;
	EXPECT_EQ(-ENOMEM, mt_ioctl(mfd, MPIRMA_IOC_MSG_SEND, &msg));

	/* nothing was touched by any of it */
	EXPECT_TRUE(all_zero(map, page));
	munmap(map, len);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * A compare_and_swap whose target is a block list acts on the element the
 * list names (the bounds check is done on it), not on the displacement
 * alone: elsewhere it would be the wrong element, or past the window.
 */
TEST(cas_target_block_list)
{
	size_t page = page_size(), len;
	struct mpirma_block blk;
	uint64_t nv = 7, cmp = 0, old = 99;
	struct mpirma_op op;
	int dev, job, mfd, win;
	uint8_t *map;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	mfd = mt_solo_job(dev, &job);
	ASSERT_LE(0, mfd);
	win = solo_alloc(mfd, MPIRMA_ATOM_DEFAULT, 0, page, (void **)&map, &len);
	ASSERT_LT(0, win);

	/* displacement 0, the element at byte 64 */
	blk.disp = 64;
	blk.len = 8;
	memset(map, 0, page);
	map[0] = 0xee;
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, 0, &nv, &cmp, &old);
	op.target = mt_blocks(NULL, &blk, 1, 1, 8);
	EXPECT_EQ(0, mt_rma1(mfd, win, &op));
	EXPECT_EQ(0, old);
	EXPECT_EQ(7, *(uint64_t *)(map + 64));
	EXPECT_EQ(0xee, map[0]);

	/* displacement past the end, the element back inside: the last 8 bytes */
	blk.disp = -16;
	nv = 9;
	cmp = 0;
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, page + 8, &nv, &cmp, &old);
	op.target = mt_blocks(NULL, &blk, 1, 1, 8);
	EXPECT_EQ(0, mt_rma1(mfd, win, &op));
	EXPECT_EQ(0, old);
	EXPECT_EQ(9, *(uint64_t *)(map + page - 8));

	munmap(map, len);
	close(mfd);
	close(job);
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

TEST_HARNESS_MAIN
