// SPDX-License-Identifier: GPL-2.0
/*
 * Windows and NUMA: ALLOC windows on the node each rank asks for, where a
 * rank's pages are (WIN_PLACEMENT), interleaved windows, and USER windows,
 * which are where their owner's pages are.
 */
#define _GNU_SOURCE
#include "window.h"

/* ---- NUMA ---- */

FIXTURE(numa) {
	struct mt_solo s;	/* no window */
};

FIXTURE_VARIANT(numa) {
	int node;
};

FIXTURE_VARIANT_ADD(numa, node0) {
	.node = 0,
};

FIXTURE_VARIANT_ADD(numa, node1) {
	.node = 1,
};

FIXTURE_SETUP(numa)
{
	mt_solo_init(&self->s);
	MT_REQUIRE_DEVICE();
	if (!mt_node_online(variant->node))
		SKIP(return, "NUMA node %d is not online", variant->node);
	ASSERT_EQ(0, mt_solo_join(&self->s));
}

FIXTURE_TEARDOWN(numa)
{
	mt_solo_close(&self->s);
}

TEST_F(numa, alloc_on_node)
{
	size_t page = sysconf(_SC_PAGESIZE), len, i;
	struct mpirma_win_query q;
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.flags = MPIRMA_WIN_NODE,
		.numa_node = variant->node,
		.length = 8 * page,
		.nranks = 1,
	};
	uint8_t *map, *seg;
	int win;

	MT_SETUP_SKIPPED();
	win = mt_win_create(self->s.mfd, &w);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, mt_win_query(self->s.mfd, win, 0, &q));
	EXPECT_EQ(variant->node, q.numa_node);
	map = mt_win_map(self->s.mfd, win, &len);
	ASSERT_NE(NULL, map);
	seg = map + q.seg_offset;
	for (i = 0; i < 8; i++) {
		int node;

		seg[i * page] = 1;	/* fault it in */
		node = mt_page_node(seg + i * page);
		if (node != variant->node)
			TH_LOG("page %zu is on node %d", i, node);
		EXPECT_EQ(variant->node, node);
	}
	munmap(map, len);
	EXPECT_EQ(0, mt_win_free(self->s.mfd, win));
}

/* WIN_PLACEMENT's per-node page counts of window rank 0. */
static int placement(int mfd, int win, uint64_t *counts, uint32_t n, uint64_t *pages)
{
	struct mpirma_win_placement pl = {
		.size = sizeof(pl), .win_id = win, .counts = (uintptr_t)counts,
		.nr_nodes = n,
	};
	int ret;

	memset(counts, 0xcc, n * sizeof(*counts));
	ret = mt_ioctl(mfd, MPIRMA_IOC_WIN_PLACEMENT, &pl);
	*pages = pl.pages;
	return ret;
}

TEST_F(numa, placement_counts)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC, .flags = MPIRMA_WIN_NODE,
		.numa_node = variant->node, .length = 8 * page, .nranks = 1,
	};
	uint64_t counts[64], pages;
	int win;

	MT_SETUP_SKIPPED();
	win = mt_win_create(self->s.mfd, &w);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, placement(self->s.mfd, win, counts, 64, &pages));
	EXPECT_EQ(8, pages);
	EXPECT_EQ(8, counts[variant->node]);
	EXPECT_EQ(0, counts[!variant->node]);
	EXPECT_EQ(0, mt_win_free(self->s.mfd, win));
}

/* Pages of an interleaved window alternate over the nodes, as move_pages sees them. */
TEST(numa_interleave)
{
	size_t page = sysconf(_SC_PAGESIZE), len, i;
	int nodes[64], nnodes = 0, n, win;
	uint64_t counts[64], pages;
	struct mpirma_win_query q;
	struct mt_solo so;
	uint8_t *map;
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC, .flags = MPIRMA_WIN_INTERLEAVE,
		.length = 16 * page, .nranks = 1,
	};

	mt_solo_init(&so);
	MT_REQUIRE_DEVICE();
	for (n = 0; n < mt_nr_node_ids() && nnodes < 64; n++)
		if (mt_node_online(n))
			nodes[nnodes++] = n;
	if (nnodes < 2)
		SKIP(return, "needs 2 NUMA nodes");
	ASSERT_EQ(0, mt_solo_join(&so));
	win = mt_win_create(so.mfd, &w);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, mt_win_query(so.mfd, win, 0, &q));
	map = mt_win_map(so.mfd, win, &len);
	ASSERT_NE(NULL, map);
	for (i = 0; i < 16; i++) {
		map[q.seg_offset + i * page] = 1;
		EXPECT_EQ(nodes[i % nnodes], mt_page_node(map + q.seg_offset + i * page));
	}
	ASSERT_EQ(0, placement(so.mfd, win, counts, 64, &pages));
	EXPECT_EQ(16, pages);
	for (n = 0; n < nnodes; n++)
		EXPECT_EQ(16 / nnodes + (n < 16 % nnodes), counts[nodes[n]]);
	munmap(map, len);
	EXPECT_EQ(0, mt_win_free(so.mfd, win));
	mt_solo_close(&so);
}

/* A user-memory window reports where its pages really are. */
TEST(numa_user_placement)
{
	size_t page = sysconf(_SC_PAGESIZE), i;
	uint64_t counts[64] = { 0 }, want[64] = { 0 }, pages;
	struct mt_solo so;
	uint8_t *buf;
	int win, node;

	mt_solo_init(&so);
	MT_REQUIRE_DEVICE();
	ASSERT_EQ(0, mt_solo_join(&so));
	buf = mt_anon(12 * page);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < 12; i++)
		buf[i * page] = 1;
	win = mt_win_create_all(so.mfd, 1, MPIRMA_FLAVOR_USER, buf, 12 * page);
	ASSERT_LT(0, win);
	for (i = 0; i < 12; i++) {
		node = mt_page_node(buf + i * page);
		ASSERT_LE(0, node);
		ASSERT_GT(64, node);
		want[node]++;
	}
	ASSERT_EQ(0, placement(so.mfd, win, counts, 64, &pages));
	EXPECT_EQ(12, pages);
	EXPECT_EQ(0, memcmp(want, counts, sizeof(uint64_t) * mt_nr_node_ids()));
	EXPECT_EQ(0, mt_win_free(so.mfd, win));
	munmap(buf, 12 * page);
	mt_solo_close(&so);
}


TEST_HARNESS_MAIN
