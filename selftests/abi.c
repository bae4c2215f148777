// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl ABI of /dev/mpirma: for every command the size contract (short
 * struct EINVAL, non-zero unknown tail E2BIG, zero tail as the exact size,
 * more than a page E2BIG), unknown flags and reserved fields EINVAL, the
 * wrong kind of fd ENOTTY, outputs written into poisoned structs, QUERY's
 * fields, and the RMA batch contract.
 *
 * Everything runs in a one-rank job, so collectives return at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"
#include "reference.h"

#define BUF_SIZE	8192
#ifndef offsetofend
#define offsetofend(T, m)	(offsetof(T, m) + sizeof(((T *)0)->m))
#endif
#define MAX_ARG_SIZE	4096	/* larger sizes are E2BIG */

struct abi_ctx {
	int dev;
	int job;
	int mfd;
	uint32_t win;		/* ALLOC, 4096 bytes, group {0} */
	uint64_t features;
	int tmp_fd;		/* a per-call job fd */
	uint32_t tmp_win;	/* a per-call window */
};

enum fd_kind { FD_DEV, FD_JOB, FD_MEMBER, FD_TMP_JOB };

static const uint32_t rank0[1] = { 0 };
static char attach_mem[4096] __attribute__((aligned(4096)));
static uint64_t rma_word;

struct abi_cmd {
	const char *name;
	unsigned long cmd;
	size_t size;
	enum fd_kind fd;
	uint64_t feature;	/* required MPIRMA_FEAT_*, or 0 */
	size_t reserved_off;	/* offset of a reserved __u32, or 0 */
	uint32_t bad_flags[4];	/* flag values that must be EINVAL */
	unsigned int nbad_flags;
	void (*fill)(struct abi_ctx *c, void *buf);
	int (*before)(struct abi_ctx *c);
	int (*after_ok)(struct abi_ctx *c, void *buf);
	int (*after_fail)(struct abi_ctx *c, void *buf);
	size_t v0_size;		/* the struct's first version, if it grew */
};

static int cmd_fd(struct abi_ctx *c, enum fd_kind k)
{
	switch (k) {
	case FD_DEV:
		return c->dev;
	case FD_JOB:
		return c->job;
	case FD_MEMBER:
		return c->mfd;
	default:
		return c->tmp_fd;
	}
}

/* ---- fill: valid arguments for each command ---- */

static void fill_query(struct abi_ctx *c, void *buf)
{
	(void)c;
	(void)buf;
}

static void fill_job_create(struct abi_ctx *c, void *buf)
{
	struct mpirma_job_create *a = buf;

	(void)c;
	a->nranks = 2;
}

static void fill_job_join(struct abi_ctx *c, void *buf)
{
	struct mpirma_job_join *a = buf;

	(void)c;
	a->rank = 0;
}

static void fill_win_create(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_create *a = buf;

	(void)c;
	a->flavor = MPIRMA_FLAVOR_ALLOC;
	a->disp_unit = 1;
	a->length = 4096;
	a->ranks = (uintptr_t)rank0;
	a->nranks = 1;
}

static void fill_sync_win(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_sync *a = buf;

	a->win_id = c->win;
}

static void fill_sync_tmp(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_sync *a = buf;

	a->win_id = c->tmp_win;
}

static void fill_lock(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_sync *a = buf;

	a->win_id = c->win;
	a->rank = 0;
	a->flags = MPIRMA_SYNC_SHARED;
}

static void fill_unlock(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_sync *a = buf;

	a->win_id = c->win;
	a->rank = 0;
}

static void fill_win_query(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_query *a = buf;

	a->win_id = c->win;
	a->rank = 0;
}

static void fill_win_stats(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_stats *a = buf;

	a->win_id = c->win;
}

static void fill_win_stats_add(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_stats_add *a = buf;

	a->win_id = c->win;
	a->ops[MPIRMA_KIND_ACC] = 1;
	a->bytes = 8;
}

static void fill_win_placement(struct abi_ctx *c, void *buf)
{
	static uint64_t counts[64];
	struct mpirma_win_placement *a = buf;

	a->win_id = c->win;
	a->counts = (uintptr_t)counts;
	a->nr_nodes = MT_ARRAY_SIZE(counts);
}

static void fill_attach(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_attach *a = buf;

	a->win_id = c->tmp_win;
	a->base = (uintptr_t)attach_mem;
	a->length = sizeof(attach_mem);
}

static void fill_detach(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_attach *a = buf;

	a->win_id = c->tmp_win;
	a->base = (uintptr_t)attach_mem;
}

static void fill_rma(struct abi_ctx *c, void *buf)
{
	static struct mpirma_op op;
	struct mpirma_rma *a = buf;

	op = mt_put(MPIRMA_TYPE_UINT64, 0, 8, &rma_word, 1);
	a->win_id = c->win;
	a->nops = 1;
	a->ops = (uintptr_t)&op;
	a->op_size = sizeof(op);
}

static void fill_group(struct abi_ctx *c, void *buf)
{
	struct mpirma_win_group *a = buf;

	a->win_id = c->win;
	a->nranks = 1;
	a->ranks = (uintptr_t)rank0;
}

/* ---- before / after: set up preconditions and undo effects ---- */

static int close_out_fd(int fd)
{
	return fd >= 0 && close(fd) == 0 ? 0 : -EBADF;
}

static int after_job_create(struct abi_ctx *c, void *buf)
{
	(void)c;
	return close_out_fd(((struct mpirma_job_create *)buf)->job_fd);
}

static int before_tmp_job(struct abi_ctx *c)
{
	c->tmp_fd = mt_job_create(c->dev, 1, NULL);
	return c->tmp_fd < 0 ? c->tmp_fd : 0;
}

static int after_join_ok(struct abi_ctx *c, void *buf)
{
	int ret = close_out_fd(((struct mpirma_job_join *)buf)->member_fd);

	close(c->tmp_fd);
	return ret;
}

/* The failed join had no effect: rank 0 can still join. */
static int after_join_fail(struct abi_ctx *c, void *buf)
{
	int mfd = mt_job_join(c->tmp_fd, 0);

	(void)buf;
	close(c->tmp_fd);
	return mfd < 0 ? mfd : close_out_fd(mfd);
}

static int after_win_create(struct abi_ctx *c, void *buf)
{
	return mt_win_free(c->mfd, ((struct mpirma_win_create *)buf)->win_id);
}

static int tmp_win(struct abi_ctx *c, uint32_t flavor)
{
	struct mt_win w = {
		.flavor = flavor,
		.length = flavor == MPIRMA_FLAVOR_DYNAMIC ? 0 : 4096,
		.nranks = 1,
	};
	int ret = mt_win_create(c->mfd, &w);

	if (ret < 0)
		return ret;
	c->tmp_win = ret;
	return 0;
}

static int before_tmp_win(struct abi_ctx *c)
{
	return tmp_win(c, MPIRMA_FLAVOR_ALLOC);
}

/* The failed free had no effect: the window can still be freed. */
static int after_free_fail(struct abi_ctx *c, void *buf)
{
	(void)buf;
	return mt_win_free(c->mfd, c->tmp_win);
}

static int before_dynamic(struct abi_ctx *c)
{
	return tmp_win(c, MPIRMA_FLAVOR_DYNAMIC);
}

static int after_attach_ok(struct abi_ctx *c, void *buf)
{
	int ret = mt_win_detach(c->mfd, c->tmp_win, attach_mem);

	(void)buf;
	return mt_win_free(c->mfd, c->tmp_win) ?: ret;
}

static int after_free_tmp(struct abi_ctx *c, void *buf)
{
	(void)buf;
	return mt_win_free(c->mfd, c->tmp_win);
}

static int before_detach(struct abi_ctx *c)
{
	return before_dynamic(c) ?:
	       mt_win_attach(c->mfd, c->tmp_win, attach_mem, sizeof(attach_mem));
}

static int after_detach_fail(struct abi_ctx *c, void *buf)
{
	return mt_win_detach(c->mfd, c->tmp_win, attach_mem) ?:
	       after_free_tmp(c, buf);
}

static int after_lock(struct abi_ctx *c, void *buf)
{
	(void)buf;
	return mt_unlock(c->mfd, c->win, 0);
}

static int before_lock(struct abi_ctx *c)
{
	return mt_lock(c->mfd, c->win, 0, MPIRMA_SYNC_SHARED);
}

static int do_post(struct abi_ctx *c)
{
	return mt_post(c->mfd, c->win, rank0, 1);
}

static int do_start(struct abi_ctx *c)
{
	return mt_start(c->mfd, c->win, rank0, 1);
}

static int do_complete(struct abi_ctx *c, void *buf)
{
	(void)buf;
	return mt_complete(c->mfd, c->win);
}

static int do_wait(struct abi_ctx *c, void *buf)
{
	(void)buf;
	return mt_wait(c->mfd, c->win, 0);
}

static int after_post_ok(struct abi_ctx *c, void *buf)
{
	return do_start(c) ?: do_complete(c, buf) ?: do_wait(c, buf);
}

static int after_start_ok(struct abi_ctx *c, void *buf)
{
	return do_complete(c, buf) ?: do_wait(c, buf);
}

static int after_start_fail(struct abi_ctx *c, void *buf)
{
	return after_post_ok(c, buf);
}

static int before_complete(struct abi_ctx *c)
{
	return do_post(c) ?: do_start(c);
}

static int after_complete_fail(struct abi_ctx *c, void *buf)
{
	return do_complete(c, buf) ?: do_wait(c, buf);
}

static int before_wait(struct abi_ctx *c)
{
	return do_post(c) ?: do_start(c) ?: do_complete(c, NULL);
}

#define SYNC_UNKNOWN	(1U << 4)	/* first MPIRMA_SYNC_* bit not defined */

static const struct abi_cmd cmds[] = {
	{ "QUERY", MPIRMA_IOC_QUERY, sizeof(struct mpirma_query), FD_DEV,
	  .fill = fill_query, .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2 },
	{ "JOB_CREATE", MPIRMA_IOC_JOB_CREATE, sizeof(struct mpirma_job_create),
	  FD_DEV, .fill = fill_job_create, .after_ok = after_job_create,
	  .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2 },
	{ "JOB_JOIN", MPIRMA_IOC_JOB_JOIN, sizeof(struct mpirma_job_join),
	  FD_TMP_JOB, .fill = fill_job_join, .before = before_tmp_job,
	  .after_ok = after_join_ok, .after_fail = after_join_fail,
	  .reserved_off = offsetof(struct mpirma_job_join, reserved),
	  .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2 },
	{ "WIN_CREATE", MPIRMA_IOC_WIN_CREATE, sizeof(struct mpirma_win_create),
	  FD_MEMBER, .fill = fill_win_create, .after_ok = after_win_create,
	  .bad_flags = { 1U << 4, 1U << 31, MPIRMA_WIN_NODE | MPIRMA_WIN_INTERLEAVE },
	  .nbad_flags = 3 },
	{ "WIN_FREE", MPIRMA_IOC_WIN_FREE, sizeof(struct mpirma_win_sync),
	  FD_MEMBER, .fill = fill_sync_tmp, .before = before_tmp_win,
	  .after_fail = after_free_fail,
	  .bad_flags = { MPIRMA_SYNC_SHARED, SYNC_UNKNOWN, 1U << 31 },
	  .nbad_flags = 3 },
	{ "WIN_QUERY", MPIRMA_IOC_WIN_QUERY, sizeof(struct mpirma_win_query),
	  FD_MEMBER, .fill = fill_win_query,
	  .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2,
	  .v0_size = offsetofend(struct mpirma_win_query, my_rank) },
	{ "WIN_PLACEMENT", MPIRMA_IOC_WIN_PLACEMENT, sizeof(struct mpirma_win_placement),
	  FD_MEMBER, MPIRMA_FEAT_PLACEMENT,
	  offsetof(struct mpirma_win_placement, reserved),
	  .fill = fill_win_placement, .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2 },
	{ "WIN_ATTACH", MPIRMA_IOC_WIN_ATTACH, sizeof(struct mpirma_win_attach),
	  FD_MEMBER, MPIRMA_FEAT_WIN_DYNAMIC,
	  offsetof(struct mpirma_win_attach, reserved),
	  .fill = fill_attach, .before = before_dynamic,
	  .after_ok = after_attach_ok, .after_fail = after_free_tmp,
	  .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2 },
	{ "WIN_DETACH", MPIRMA_IOC_WIN_DETACH, sizeof(struct mpirma_win_attach),
	  FD_MEMBER, MPIRMA_FEAT_WIN_DYNAMIC,
	  offsetof(struct mpirma_win_attach, reserved),
	  .fill = fill_detach, .before = before_detach,
	  .after_ok = after_free_tmp, .after_fail = after_detach_fail,
	  .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2 },
	{ "WIN_STATS", MPIRMA_IOC_WIN_STATS, sizeof(struct mpirma_win_stats),
	  FD_MEMBER, MPIRMA_FEAT_STATS,
	  offsetof(struct mpirma_win_stats, reserved),
	  .fill = fill_win_stats, .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2,
	  .v0_size = offsetofend(struct mpirma_win_stats, pages) },
	{ "WIN_STATS_ADD", MPIRMA_IOC_WIN_STATS_ADD, sizeof(struct mpirma_win_stats_add),
	  FD_MEMBER, MPIRMA_FEAT_STATS_ADD,
	  offsetof(struct mpirma_win_stats_add, reserved),
	  .fill = fill_win_stats_add, .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2 },
	{ "RMA", MPIRMA_IOC_RMA, sizeof(struct mpirma_rma), FD_MEMBER,
	  .fill = fill_rma, .bad_flags = { 1, 1U << 31 }, .nbad_flags = 2 },
	{ "WIN_FENCE", MPIRMA_IOC_WIN_FENCE, sizeof(struct mpirma_win_sync),
	  FD_MEMBER, .fill = fill_sync_win,
	  .bad_flags = { MPIRMA_SYNC_SHARED, MPIRMA_SYNC_TEST, SYNC_UNKNOWN,
			 1U << 31 }, .nbad_flags = 4 },
	{ "WIN_LOCK", MPIRMA_IOC_WIN_LOCK, sizeof(struct mpirma_win_sync),
	  FD_MEMBER, .fill = fill_lock, .after_ok = after_lock,
	  /* neither or both lock types, TEST, an unknown bit */
	  .bad_flags = { 0, MPIRMA_SYNC_SHARED | MPIRMA_SYNC_EXCLUSIVE,
			 MPIRMA_SYNC_SHARED | MPIRMA_SYNC_TEST,
			 MPIRMA_SYNC_SHARED | SYNC_UNKNOWN }, .nbad_flags = 4 },
	{ "WIN_UNLOCK", MPIRMA_IOC_WIN_UNLOCK, sizeof(struct mpirma_win_sync),
	  FD_MEMBER, .fill = fill_unlock, .before = before_lock,
	  .after_fail = after_lock,
	  .bad_flags = { MPIRMA_SYNC_SHARED, MPIRMA_SYNC_NOWAIT, SYNC_UNKNOWN },
	  .nbad_flags = 3 },
	{ "WIN_POST", MPIRMA_IOC_WIN_POST, sizeof(struct mpirma_win_group),
	  FD_MEMBER, MPIRMA_FEAT_PSCW, .fill = fill_group,
	  .after_ok = after_post_ok, .bad_flags = { 1, 1U << 31 },
	  .nbad_flags = 2 },
	{ "WIN_START", MPIRMA_IOC_WIN_START, sizeof(struct mpirma_win_group),
	  FD_MEMBER, MPIRMA_FEAT_PSCW, .fill = fill_group,
	  .before = do_post, .after_ok = after_start_ok,
	  .after_fail = after_start_fail, .bad_flags = { 1, 1U << 31 },
	  .nbad_flags = 2 },
	{ "WIN_COMPLETE", MPIRMA_IOC_WIN_COMPLETE, sizeof(struct mpirma_win_sync),
	  FD_MEMBER, MPIRMA_FEAT_PSCW, .fill = fill_sync_win,
	  .before = before_complete, .after_ok = do_wait,
	  .after_fail = after_complete_fail,
	  .bad_flags = { MPIRMA_SYNC_SHARED, MPIRMA_SYNC_TEST, 1U << 31 },
	  .nbad_flags = 3 },
	{ "WIN_WAIT", MPIRMA_IOC_WIN_WAIT, sizeof(struct mpirma_win_sync),
	  FD_MEMBER, MPIRMA_FEAT_PSCW, .fill = fill_sync_win,
	  .before = before_wait, .after_fail = do_wait,
	  .bad_flags = { MPIRMA_SYNC_SHARED, MPIRMA_SYNC_NOWAIT, SYNC_UNKNOWN },
	  .nbad_flags = 3 },
};

/*
 * Issue @c with argument size @size, the bytes past the struct being zero
 * except @tail_byte at @tail_pos (relative to the end of the struct), and
 * @flags (unless ~0) and a reserved value.  Runs the before/after hooks.
 * Returns the ioctl's result; *hook_err gets a hook's failure.
 */
static int issue(struct abi_ctx *c, const struct abi_cmd *cmd, uint8_t *buf,
		 uint32_t size, size_t tail_pos, uint8_t tail_byte,
		 uint32_t flags, uint32_t reserved, enum fd_kind fd,
		 int *hook_err, bool *tail_clobbered)
{
	int ret, err = 0;
	size_t i;

	if (cmd->before) {
		err = cmd->before(c);
		if (err) {
			*hook_err = err;
			return -EPROTO;
		}
	}
	memset(buf, 0, BUF_SIZE);
	cmd->fill(c, buf);
	memcpy(buf, &size, 4);
	if (flags != ~0U)
		memcpy(buf + 4, &flags, 4);
	if (cmd->reserved_off)
		memcpy(buf + cmd->reserved_off, &reserved, 4);
	if (tail_byte)
		buf[cmd->size + tail_pos] = tail_byte;

	ret = mt_ioctl(cmd_fd(c, fd), cmd->cmd, buf);

	*tail_clobbered = false;
	if (ret >= 0)
		for (i = cmd->size; i < BUF_SIZE; i++)
			if (buf[i] && !(tail_byte && i == cmd->size + tail_pos))
				*tail_clobbered = true;
	if (ret >= 0 && cmd->after_ok)
		err = cmd->after_ok(c, buf);
	else if (ret < 0 && cmd->after_fail)
		err = cmd->after_fail(c, buf);
	*hook_err = err;
	return ret;
}

FIXTURE(abi) {
	struct abi_ctx c;
	struct mpirma_query q;
	uint8_t *buf;
};

FIXTURE_SETUP(abi)
{
	int ret;

	self->c.dev = self->c.job = self->c.mfd = -1;
	MT_REQUIRE_DEVICE();
	self->buf = malloc(BUF_SIZE);
	ASSERT_NE(NULL, self->buf);
	self->c.dev = mt_open();
	ASSERT_LE(0, self->c.dev);
	ASSERT_EQ(0, mt_query(self->c.dev, &self->q));
	self->c.features = self->q.features;
	self->c.mfd = mt_solo_job(self->c.dev, &self->c.job);
	ASSERT_LE(0, self->c.mfd);
	ret = mt_win_create_all(self->c.mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 4096);
	ASSERT_LT(0, ret);
	self->c.win = ret;
}

FIXTURE_TEARDOWN(abi)
{
	if (self->c.mfd >= 0)
		close(self->c.mfd);
	if (self->c.job >= 0)
		close(self->c.job);
	if (self->c.dev >= 0)
		close(self->c.dev);
	free(self->buf);
}

static bool have(struct abi_ctx *c, const struct abi_cmd *cmd)
{
	return !cmd->feature || (c->features & cmd->feature);
}

TEST_F(abi, query_fields)
{
	struct mpirma_query q;
	unsigned int o;
	int fds[3] = { self->c.dev, self->c.job, self->c.mfd };
	int i;

	MT_SETUP_SKIPPED();
	for (i = 0; i < 3; i++) {
		/* QUERY works on every kind of mpirma fd, identically */
		ASSERT_EQ(0, mt_query(fds[i], &q));
		EXPECT_EQ(sizeof(q), q.size);
		EXPECT_EQ(0, q.flags);
		EXPECT_EQ(self->q.features, q.features);
		EXPECT_EQ(MPIRMA_MAX_RANKS, q.max_ranks);
		EXPECT_EQ(MPIRMA_MAX_BATCH, q.max_batch);
		EXPECT_EQ(MPIRMA_NR_TYPES, q.nr_types);
		EXPECT_EQ(MPIRMA_NR_OPS, q.nr_ops);
		EXPECT_EQ(MPIRMA_NR_STRATEGIES, q.nr_strategies);
		/* the module's choice is a concrete strategy */
		EXPECT_LT(q.default_strategy, q.nr_strategies);
		EXPECT_NE(MPIRMA_ATOM_DEFAULT, q.default_strategy);
		EXPECT_EQ((uint32_t)sysconf(_SC_PAGESIZE), q.page_size);
		EXPECT_EQ((uint32_t)mt_nr_node_ids(), q.nr_numa_nodes);
		for (o = 0; o < MT_ARRAY_SIZE(q.op_type_mask); o++) {
			uint64_t want = o < MPIRMA_NR_OPS ? ref_op_type_mask(o) : 0;

			if (q.op_type_mask[o] != want)
				TH_LOG("op_type_mask[%s] = %#llx, expected %#llx",
				       ref_op_name(o),
				       (unsigned long long)q.op_type_mask[o],
				       (unsigned long long)want);
			EXPECT_EQ(want, q.op_type_mask[o]);
		}
	}
	/* what the tests below rely on */
	EXPECT_TRUE(q.features & MPIRMA_FEAT_WIN_USER);
	EXPECT_TRUE(q.features & MPIRMA_FEAT_WIN_ALLOC);
}

TEST_F(abi, size_contract)
{
	/* Sizes are absolute, or relative to the current or first version. */
	enum { ABS, CUR, V0 };
	static const struct {
		const char *what;
		int base;
		int64_t size;
		size_t tail_pos;	/* where past the struct @tail_byte goes */
		uint8_t tail_byte;
		int expect;
	} v[] = {
		{ "size 0", ABS, 0, 0, 0, -EINVAL },
		{ "size 8", ABS, 8, 0, 0, -EINVAL },
		{ "first version - 1", V0, -1, 0, 0, -EINVAL },
		{ "first version - 4", V0, -4, 0, 0, -EINVAL },
		{ "first version", V0, 0, 0, 0, 0 },
		{ "exact", CUR, 0, 0, 0, 0 },
		{ "zero tail", CUR, 64, 0, 0, 0 },
		{ "zero tail to 4096", ABS, MAX_ARG_SIZE, 0, 0, 0 },
		{ "tail byte 0 set", CUR, 8, 0, 1, -E2BIG },
		{ "last tail byte set", CUR, 64, 63, 0x80, -E2BIG },
		{ "4097", ABS, MAX_ARG_SIZE + 1, 0, 0, -E2BIG },
		{ "4 GiB - 2", ABS, 0xfffffffe, 0, 0, -E2BIG },
	};
	unsigned int i, j, checked = 0;

	MT_SETUP_SKIPPED();
	for (i = 0; i < MT_ARRAY_SIZE(cmds); i++) {
		const struct abi_cmd *cmd = &cmds[i];

		if (!have(&self->c, cmd))
			continue;
		for (j = 0; j < MT_ARRAY_SIZE(v); j++) {
			size_t v0 = cmd->v0_size ? cmd->v0_size : cmd->size;
			uint32_t size = v[j].base == ABS ? (uint32_t)v[j].size :
					v[j].base == V0 ? (uint32_t)(v0 + v[j].size) :
					(uint32_t)(cmd->size + v[j].size);
			int hook_err, ret;
			bool clobbered;

			ret = issue(&self->c, cmd, self->buf, size, v[j].tail_pos,
				    v[j].tail_byte, ~0U, 0, cmd->fd, &hook_err,
				    &clobbered);
			if (ret != v[j].expect)
				TH_LOG("%s, %s (size %u): %d (%s), expected %d (%s)",
				       cmd->name, v[j].what, size, ret,
				       strerror(-ret), v[j].expect,
				       strerror(-v[j].expect));
			EXPECT_EQ(v[j].expect, ret);
			if (hook_err)
				TH_LOG("%s, %s: setup/cleanup failed: %s",
				       cmd->name, v[j].what, strerror(-hook_err));
			EXPECT_EQ(0, hook_err);
			if (clobbered)
				TH_LOG("%s, %s: wrote past the kernel's struct",
				       cmd->name, v[j].what);
			EXPECT_FALSE(clobbered);
			checked++;
		}
	}
	TH_LOG("%u size cases checked", checked);
}

TEST_F(abi, unknown_flags_and_reserved)
{
	unsigned int i, j;

	MT_SETUP_SKIPPED();
	for (i = 0; i < MT_ARRAY_SIZE(cmds); i++) {
		const struct abi_cmd *cmd = &cmds[i];
		int hook_err, ret;
		bool clobbered;

		if (!have(&self->c, cmd))
			continue;
		for (j = 0; j < cmd->nbad_flags; j++) {
			ret = issue(&self->c, cmd, self->buf, cmd->size, 0, 0,
				    cmd->bad_flags[j], 0, cmd->fd, &hook_err,
				    &clobbered);
			if (ret != -EINVAL)
				TH_LOG("%s flags %#x: %d (%s), expected EINVAL",
				       cmd->name, cmd->bad_flags[j], ret,
				       strerror(-ret));
			EXPECT_EQ(-EINVAL, ret);
			EXPECT_EQ(0, hook_err);
		}
		if (!cmd->reserved_off)
			continue;
		ret = issue(&self->c, cmd, self->buf, cmd->size, 0, 0, ~0U, 1,
			    cmd->fd, &hook_err, &clobbered);
		if (ret != -EINVAL)
			TH_LOG("%s reserved 1: %d (%s), expected EINVAL",
			       cmd->name, ret, strerror(-ret));
		EXPECT_EQ(-EINVAL, ret);
		EXPECT_EQ(0, hook_err);
	}
}

TEST_F(abi, wrong_fd)
{
	static const char *const kind_name[] = { "device", "job", "member" };
	unsigned int i;
	int k;

	MT_SETUP_SKIPPED();
	for (i = 0; i < MT_ARRAY_SIZE(cmds); i++) {
		const struct abi_cmd *cmd = &cmds[i];

		if (!have(&self->c, cmd))
			continue;
		for (k = FD_DEV; k <= FD_MEMBER; k++) {
			bool allowed;
			int hook_err, ret;
			bool clobbered;

			switch (cmd->cmd) {
			case MPIRMA_IOC_QUERY:
				allowed = true;
				break;
			case MPIRMA_IOC_JOB_CREATE:
				allowed = k == FD_DEV;
				break;
			case MPIRMA_IOC_JOB_JOIN:
				allowed = k == FD_JOB;
				break;
			default:
				allowed = k == FD_MEMBER;
				break;
			}
			if (allowed)
				continue;
			ret = issue(&self->c, cmd, self->buf, cmd->size, 0, 0,
				    ~0U, 0, k, &hook_err, &clobbered);
			if (ret != -ENOTTY)
				TH_LOG("%s on the %s fd: %d (%s), expected ENOTTY",
				       cmd->name, kind_name[k], ret,
				       strerror(-ret));
			EXPECT_EQ(-ENOTTY, ret);
			EXPECT_EQ(0, hook_err);
		}
	}
	/* the commands without a struct */
	EXPECT_EQ(0, mt_ioctl(self->c.dev, MPIRMA_IOC_NULL, NULL));
	EXPECT_EQ(0, mt_ioctl(self->c.job, MPIRMA_IOC_NULL, NULL));
	EXPECT_EQ(0, mt_ioctl(self->c.mfd, MPIRMA_IOC_NULL, NULL));
	EXPECT_EQ(-ENOTTY, mt_job_barrier(self->c.dev));
	EXPECT_EQ(-ENOTTY, mt_job_barrier(self->c.job));
	EXPECT_EQ(0, mt_job_barrier(self->c.mfd));
}

TEST_F(abi, unknown_commands)
{
	static const unsigned int nrs[] = {
		0x03, 0x0f, 0x11, 0x1f, 0x28, 0x2f, 0x31, 0x3f, 0x49, 0x7f, 0xff,
	};
	int fds[3] = { self->c.dev, self->c.job, self->c.mfd };
	struct mpirma_query q;
	unsigned int i, k;

	MT_SETUP_SKIPPED();
	for (i = 0; i < MT_ARRAY_SIZE(nrs); i++) {
		for (k = 0; k < 3; k++) {
			int ret;

			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			ret = mt_ioctl(fds[k], _IOWR(MPIRMA_IOC_MAGIC, nrs[i],
						     struct mpirma_query), &q);
			if (ret != -ENOTTY)
				TH_LOG("command nr %#x on fd kind %u: %d",
				       nrs[i], k, ret);
			EXPECT_EQ(-ENOTTY, ret);
		}
	}
	/* another driver's magic */
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	EXPECT_EQ(-ENOTTY, mt_ioctl(self->c.dev, _IOWR('x', 0x00,
						       struct mpirma_query), &q));
	/* dispatch is by number: the size encoded in the command is not the
	 * contract, the struct's own size field is
	 */
	mt_arg_init(&q);
	EXPECT_EQ(0, mt_ioctl(self->c.dev, _IOWR(MPIRMA_IOC_MAGIC, 0x00, __u64),
			      &q));
	EXPECT_EQ(MPIRMA_NR_TYPES, q.nr_types);
}

TEST_F(abi, outputs_written)
{
	struct mpirma_job_create jc;
	struct mpirma_job_join jj;
	struct mpirma_win_create wc;
	struct mpirma_win_query wq;
	struct mpirma_win_stats st;
	uint32_t ranks[2] = { 1, 0 };
	int job, m0, m1, k;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, mt_job_create_raw(self->c.dev, 2, &jc));
	job = jc.job_fd;
	ASSERT_LE(0, job);
	EXPECT_EQ(FD_CLOEXEC, fcntl(job, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(2, jc.nranks);
	EXPECT_NE(0xccccccccccccccccULL, jc.job_id);

	ASSERT_EQ(0, mt_job_join_raw(job, 1, &jj));
	m1 = jj.member_fd;
	ASSERT_LE(0, m1);
	EXPECT_EQ(FD_CLOEXEC, fcntl(m1, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(2, jj.nranks);
	EXPECT_EQ(jc.job_id, jj.job_id);
	EXPECT_EQ(1, jj.rank);
	m0 = mt_job_join(job, 0);
	ASSERT_LE(0, m0);

	/* a window over job ranks {1, 0}: needs both, so fork rank 0 */
	fflush(NULL);
	k = fork();
	ASSERT_LE(0, k);
	if (k == 0) {
		struct mt_win w = {
			.flavor = MPIRMA_FLAVOR_ALLOC, .length = 100,
			.disp_unit = 4, .ranks = ranks, .nranks = 2,
			.context = 7,
		};

		close(m1);
		_exit(mt_win_create(m0, &w) > 0 ? 0 : 1);
	}
	close(m0);
	mt_poison(&wc);
	wc.size = sizeof(wc);
	wc.flags = 0;
	wc.flavor = MPIRMA_FLAVOR_ALLOC;
	wc.strategy = MPIRMA_ATOM_DEFAULT;
	wc.disp_unit = 8;
	wc.numa_node = 0;
	wc.base = 0;
	wc.length = 5000;
	wc.ranks = (uintptr_t)ranks;
	wc.nranks = 2;
	wc.context = 7;
	ASSERT_EQ(0, mt_ioctl(m1, MPIRMA_IOC_WIN_CREATE, &wc));
	{
		int status;

		ASSERT_EQ(k, waitpid(k, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	EXPECT_LT(0, wc.win_id);
	EXPECT_NE(0xccccccccU, wc.win_id);

	/* window rank 0 is job rank 1 (the caller) */
	ASSERT_EQ(0, mt_win_query(m1, wc.win_id, 0, &wq));
	EXPECT_EQ(5000, wq.length);
	EXPECT_EQ(8, wq.disp_unit);
	EXPECT_EQ(MPIRMA_FLAVOR_ALLOC, wq.flavor);
	EXPECT_NE(0xccccccccccccccccULL, wq.mmap_offset);
	EXPECT_LE(5000 + 100, wq.mmap_length);
	EXPECT_EQ(0, wq.mmap_length % self->q.page_size);
	EXPECT_EQ(0, wq.seg_offset);
	EXPECT_LE(-1, wq.numa_node);
	EXPECT_LT(wq.numa_node, (int)self->q.nr_numa_nodes);
	EXPECT_EQ(self->q.default_strategy, wq.strategy);
	EXPECT_EQ(2, wq.nranks);
	EXPECT_EQ(0, wq.my_rank);
	ASSERT_EQ(0, mt_win_query(m1, wc.win_id, 1, &wq));
	EXPECT_EQ(100, wq.length);
	EXPECT_EQ(4, wq.disp_unit);
	EXPECT_EQ(0, wq.seg_offset % self->q.page_size);
	EXPECT_LE(5000, wq.seg_offset);
	EXPECT_EQ(0, wq.my_rank);

	if (self->q.features & MPIRMA_FEAT_STATS) {
		ASSERT_EQ(0, mt_win_stats(m1, wc.win_id, &st));
		for (k = 0; k < 8; k++)
			EXPECT_EQ(0, st.ops[k]);
		EXPECT_EQ(0, st.bytes);
		EXPECT_EQ(0, st.lock_waits);
		EXPECT_EQ(0, st.atomic_contended);
		/* 5000 bytes and 100 bytes, each on its own pages */
		EXPECT_LE(3, st.pages);
		EXPECT_GE(16, st.pages);
	}
	close(m1);
	close(job);
}

TEST_F(abi, rma_batch_contract)
{
	struct {
		struct mpirma_op op;
		uint8_t tail[24];
	} big[2];
	struct mpirma_op ops[2];
	struct mpirma_rma r;
	uint64_t v = 0x1122334455667788ULL, got = 0;
	uint32_t nfailed;
	uint8_t *bad;

	MT_SETUP_SKIPPED();
	/* nops 0: nothing to do, with or without an ops pointer */
	EXPECT_EQ(0, mt_rma(self->c.mfd, self->c.win, NULL, 0, &nfailed));
	EXPECT_EQ(0, nfailed);

	/* too many operations */
	ops[0] = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &v, 1);
	EXPECT_EQ(-EINVAL, mt_rma(self->c.mfd, self->c.win, ops,
				  MPIRMA_MAX_BATCH + 1, NULL));

	/* unknown window */
	EXPECT_EQ(-ENOENT, mt_rma(self->c.mfd, self->c.win + 1000, ops, 1, NULL));
	EXPECT_EQ(-ENOENT, mt_rma(self->c.mfd, 0, ops, 1, NULL));

	/* an ops array that cannot be read */
	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bad);
	EXPECT_EQ(-EFAULT, mt_rma(self->c.mfd, self->c.win,
				  (struct mpirma_op *)bad, 1, NULL));
	EXPECT_EQ(-EFAULT, mt_rma(self->c.mfd, self->c.win,
				  (struct mpirma_op *)8, 1, NULL));
	munmap(bad, 4096);

	/* op_size smaller than version 1 of struct mpirma_op */
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.win_id = self->c.win;
	r.nops = 1;
	r.ops = (uintptr_t)ops;
	r.op_size = sizeof(struct mpirma_op) - 8;
	EXPECT_EQ(-EINVAL, mt_ioctl(self->c.mfd, MPIRMA_IOC_RMA, &r));
	r.op_size = 0;
	EXPECT_EQ(-EINVAL, mt_ioctl(self->c.mfd, MPIRMA_IOC_RMA, &r));

	/* larger op_size with zero tails: the stride is op_size */
	memset(big, 0, sizeof(big));
	big[0].op = mt_put(MPIRMA_TYPE_UINT64, 0, 16, &v, 1);
	big[1].op = mt_get(MPIRMA_TYPE_UINT64, 0, 16, &got, 1);
	r.ops = (uintptr_t)big;
	r.nops = 2;
	r.op_size = sizeof(big[0]);
	r.nfailed = 0xcccccccc;
	ASSERT_EQ(0, mt_ioctl(self->c.mfd, MPIRMA_IOC_RMA, &r));
	EXPECT_EQ(0, r.nfailed);
	EXPECT_EQ(0, big[0].op.status);
	EXPECT_EQ(0, big[1].op.status);
	EXPECT_EQ(v, got);
	EXPECT_EQ(0, big[1].tail[0]);

	/* the largest batch: every operation applied, in order */
	{
		struct mpirma_op *many = calloc(MPIRMA_MAX_BATCH, sizeof(*many));
		uint64_t one = 1, total = 0, zero = 0;
		uint32_t i;

		ASSERT_NE(NULL, many);
		many[0] = mt_put(MPIRMA_TYPE_UINT64, 0, 24, &zero, 1);
		for (i = 1; i < MPIRMA_MAX_BATCH - 1; i++)
			many[i] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 24,
					 &one, 1);
		many[i] = mt_get(MPIRMA_TYPE_UINT64, 0, 24, &total, 1);
		ASSERT_EQ(0, mt_rma(self->c.mfd, self->c.win, many,
				    MPIRMA_MAX_BATCH, &nfailed));
		EXPECT_EQ(0, nfailed);
		EXPECT_EQ(MPIRMA_MAX_BATCH - 2, total);
		free(many);
	}

	/*
	 * A non-zero tail fails that operation only (status E2BIG); the others
	 * of the batch are still attempted.
	 */
	big[1].tail[23] = 1;
	big[0].op.status = big[1].op.status = 0x5a5a;
	ASSERT_EQ(0, mt_ioctl(self->c.mfd, MPIRMA_IOC_RMA, &r));
	EXPECT_EQ(1, r.nfailed);
	EXPECT_EQ(0, big[0].op.status);
	EXPECT_EQ(-E2BIG, big[1].op.status);
	big[1].tail[23] = 0;
	big[0].tail[0] = 0x10;
	ASSERT_EQ(0, mt_ioctl(self->c.mfd, MPIRMA_IOC_RMA, &r));
	EXPECT_EQ(1, r.nfailed);
	EXPECT_EQ(-E2BIG, big[0].op.status);
	EXPECT_EQ(0, big[1].op.status);
}

TEST_HARNESS_MAIN
