// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands of selftests/abi.c: for each, valid arguments (fill),
 * the preconditions it needs (before) and the undoing of what it did,
 * whether it succeeded or failed (after_ok, after_fail).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "reference.h"

static const uint32_t rank0[1] = { 0 };
static char attach_mem[4096] __attribute__((aligned(4096)));
static uint64_t rma_word;

int abi_cmd_fd(struct abi_ctx *c, enum fd_kind k)
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

const struct abi_cmd abi_cmds[] = {
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

const unsigned int abi_ncmds = MT_ARRAY_SIZE(abi_cmds);
