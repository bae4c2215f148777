// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation and pin failures: with the fault-injecting build of the module
 * (make fault-module; kmod/fault.h), every operation class is walked with
 * n = 1, 2, ...: the n-th allocation or pin of this process fails, until an
 * n is reached that the operation no longer gets to.  So every unwind path
 * runs.  After each injected failure the errno must be ENOMEM or EMFILE
 * (or the module must have absorbed the failure and succeeded), the same
 * operation without injection must then succeed (the failure left nothing
 * half done), and after closing everything the module's counters must read
 * zero.  The kernel log is scanned by selftests/run.
 *
 * Window-creating and RMA cases run under every atomicity strategy.  Each
 * case prints "# fault-walk: CASE STRATEGY points=N absorbed=M"; the number
 * of failure points injected is the sum of N.
 *
 * Skips when the loaded module was not built with fault injection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define FAULT_PARAM(name)	"/sys/module/mpirma/parameters/" name
#define PAGE		4096
#define WIN_PAGES	3
#define BIG_PAGES	600	/* the kernel pins 512 pages per call */
#define MAX_POINTS	200	/* more in one operation would be a bug */

/* What one walk step has open; everything is closed after each step. */
struct fi_state {
	int dev, job, mfd;
	uint32_t win;
	uint32_t strategy;
	void *mem;		/* USER memory or the region to attach */
	size_t len;
	size_t win_len;		/* 0: WIN_PAGES pages */
	int extra_fd;		/* an fd the operation created */
	int64_t buf[3 * PAGE / 8];
	int64_t res[3 * PAGE / 8];
};

/*
 * A case: setup (not injected) brings the state to just before the
 * operation; op is the one step that is walked.  op must be repeatable
 * after it failed.
 */
struct fi_case {
	const char *name;
	bool per_strategy;
	int (*setup)(struct fi_state *s);
	int (*op)(struct fi_state *s);
};

/* ---- the knob ---- */

static int write_param(const char *path, unsigned int v)
{
	char buf[16];
	int fd, n, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%u\n", v);
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/* Fail this process's @n-th fault point from now on (0: none). */
static int arm(unsigned int n)
{
	return write_param(FAULT_PARAM("fault_nth"), n);
}

/* ---- setups ---- */

static void state_init(struct fi_state *s, uint32_t strategy)
{
	memset(s, 0, sizeof(*s));
	s->dev = s->job = s->mfd = s->extra_fd = -1;
	s->strategy = strategy;
}

static void state_close(struct fi_state *s)
{
	mt_close(&s->extra_fd);
	mt_close(&s->mfd);
	mt_close(&s->job);
	mt_close(&s->dev);
	if (s->mem)
		munmap(s->mem, s->len);
	state_init(s, s->strategy);
}

static int setup_dev(struct fi_state *s)
{
	s->dev = mt_open();
	return s->dev < 0 ? s->dev : 0;
}

static int setup_job(struct fi_state *s)
{
	int ret = setup_dev(s);

	if (ret)
		return ret;
	s->job = mt_job_create(s->dev, 1, NULL);
	return s->job < 0 ? s->job : 0;
}

static int setup_member(struct fi_state *s)
{
	int ret = setup_job(s);

	if (ret)
		return ret;
	s->mfd = mt_job_join(s->job, 0);
	return s->mfd < 0 ? s->mfd : 0;
}

/* USER memory of WIN_PAGES pages plus a bit, not page aligned. */
static int setup_user_mem(struct fi_state *s)
{
	int ret = setup_member(s);

	if (ret)
		return ret;
	s->len = (WIN_PAGES + 1) * PAGE;
	s->mem = mt_anon(s->len);
	if (!s->mem)
		return -ENOMEM;
	memset(s->mem, 0, s->len);
	return 0;
}

static int create(struct fi_state *s, uint32_t flavor, uint32_t flags, int32_t node)
{
	struct mt_win w = {
		.flags = flags,
		.flavor = flavor,
		.strategy = s->strategy,
		.numa_node = node,
		.nranks = 1,
		.length = s->win_len ? s->win_len : WIN_PAGES * PAGE,
	};
	int ret;

	if (flavor == MPIRMA_FLAVOR_DYNAMIC)
		w.length = 0;
	if (flavor == MPIRMA_FLAVOR_USER)
		w.base = (char *)s->mem + 100;
	ret = mt_win_create(s->mfd, &w);
	if (ret < 0)
		return ret;
	s->win = ret;
	return 0;
}

/* More pages than one pin call takes: a pin can fail half done. */
static int setup_big_user_mem(struct fi_state *s)
{
	int ret = setup_member(s);

	if (ret)
		return ret;
	s->win_len = BIG_PAGES * PAGE;
	s->len = (BIG_PAGES + 1) * PAGE;
	s->mem = mt_anon(s->len);
	return s->mem ? 0 : -ENOMEM;
}

static int setup_user_win(struct fi_state *s)
{
	int ret = setup_user_mem(s);

	return ret ? ret : create(s, MPIRMA_FLAVOR_USER, 0, 0);
}

static int setup_dynamic_win(struct fi_state *s)
{
	int ret = setup_user_mem(s);

	return ret ? ret : create(s, MPIRMA_FLAVOR_DYNAMIC, 0, 0);
}

static int setup_posted(struct fi_state *s)
{
	static const uint32_t self[] = { 0 };
	int ret = setup_user_win(s);

	return ret ? ret : mt_post(s->mfd, s->win, self, 1);
}

/* ---- operations ---- */

static int op_job_create(struct fi_state *s)
{
	s->extra_fd = mt_job_create(s->dev, 2, NULL);
	return s->extra_fd < 0 ? s->extra_fd : 0;
}

static int op_job_join(struct fi_state *s)
{
	s->mfd = mt_job_join(s->job, 0);
	return s->mfd < 0 ? s->mfd : 0;
}

/* A window op: on failure the window is not there, so it can be repeated. */
static int op_win_user(struct fi_state *s)
{
	return create(s, MPIRMA_FLAVOR_USER, 0, 0);
}

static int op_win_user_big(struct fi_state *s)
{
	return create(s, MPIRMA_FLAVOR_USER, 0, 0);
}

static int op_win_alloc(struct fi_state *s)
{
	return create(s, MPIRMA_FLAVOR_ALLOC, 0, 0);
}

static int op_win_alloc_node(struct fi_state *s)
{
	return create(s, MPIRMA_FLAVOR_ALLOC, MPIRMA_WIN_NODE, 0);
}

static int op_win_alloc_interleave(struct fi_state *s)
{
	return create(s, MPIRMA_FLAVOR_ALLOC, MPIRMA_WIN_INTERLEAVE, 0);
}

static int op_win_dynamic(struct fi_state *s)
{
	return create(s, MPIRMA_FLAVOR_DYNAMIC, 0, 0);
}

static int op_attach(struct fi_state *s)
{
	return mt_win_attach(s->mfd, s->win, (char *)s->mem + 100, WIN_PAGES * PAGE);
}

static int op_win_free(struct fi_state *s)
{
	int ret = mt_win_free(s->mfd, s->win);

	if (!ret)
		s->win = 0;
	return ret;
}

/* The batch's ioctl error, else the first failing operation's status. */
static int batch(struct fi_state *s, struct mpirma_op *ops, uint32_t n)
{
	uint32_t i;
	int ret;

	ret = mt_rma(s->mfd, s->win, ops, n, NULL);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (ops[i].status)
			return ops[i].status;
	return 0;
}

/* Every kind, contiguous and with block layouts (their own allocations). */
static int op_rma(struct fi_state *s)
{
	static const struct mpirma_block blk[] = {
		{ .disp = 16, .len = 8 }, { .disp = 0, .len = 8 },
	};
	int64_t one = 1, cmp = 0, old;
	struct mpirma_op ops[6];

	ops[0] = mt_put(MPIRMA_TYPE_INT64, 0, 0, s->buf, 16);
	ops[1] = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, 0, s->buf, 6);
	ops[1].origin = mt_blocks(s->buf, blk, 2, 3, 32);
	ops[1].target = mt_blocks(NULL, blk, 2, 3, 32);
	ops[2] = mt_get_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, 8, s->buf, s->res, 4);
	ops[3] = mt_get(MPIRMA_TYPE_INT64, 0, 0, s->res, 6);
	ops[3].result = mt_blocks(s->res, blk, 2, 3, 32);
	ops[4] = mt_cas(MPIRMA_TYPE_INT64, 0, 64, &one, &cmp, &old);
	ops[5] = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, 128, s->buf, 16);
	return batch(s, ops, MT_ARRAY_SIZE(ops));
}

/* An accumulate over the whole window: delegated pieces for every page. */
static int op_acc_window(struct fi_state *s)
{
	struct mpirma_op op = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, 0, s->buf,
				     WIN_PAGES * PAGE / 8);

	return batch(s, &op, 1);
}

static int op_lock_all(struct fi_state *s)
{
	int ret = mt_lock(s->mfd, s->win, MPIRMA_RANK_ALL, MPIRMA_SYNC_SHARED);

	return ret ? ret : mt_unlock(s->mfd, s->win, MPIRMA_RANK_ALL);
}

static int op_lock_excl(struct fi_state *s)
{
	int ret = mt_lock(s->mfd, s->win, 0, MPIRMA_SYNC_EXCLUSIVE);

	return ret ? ret : mt_unlock(s->mfd, s->win, 0);
}

static int op_fence(struct fi_state *s)
{
	return mt_fence(s->mfd, s->win);
}

static int op_post(struct fi_state *s)
{
	static const uint32_t self[] = { 0 };

	return mt_post(s->mfd, s->win, self, 1);
}

static int op_start(struct fi_state *s)
{
	static const uint32_t self[] = { 0 };

	return mt_start(s->mfd, s->win, self, 1);
}

static int op_placement(struct fi_state *s)
{
	struct mpirma_win_placement p;
	uint64_t counts[64];

	mt_arg_init(&p);
	p.win_id = s->win;
	p.rank = 0;
	p.counts = (uintptr_t)counts;
	p.nr_nodes = MT_ARRAY_SIZE(counts);
	p.reserved = 0;
	return mt_ioctl(s->mfd, MPIRMA_IOC_WIN_PLACEMENT, &p);
}

static int msg(struct fi_state *s, unsigned long cmd, uint32_t flags)
{
	struct mpirma_msg m;

	mt_arg_init(&m);
	m.flags = flags;
	m.peer = 0;
	m.tag = 7;
	m.context = 1;
	m.buf = (uintptr_t)s->buf;
	m.len = sizeof(s->buf);
	m.msg_len = 0;
	m.source = 0;
	m.msg_tag = 0;
	return mt_ioctl(s->mfd, cmd, &m);
}

static int op_msg_send(struct fi_state *s)
{
	return msg(s, MPIRMA_IOC_MSG_SEND, 0);
}

static int op_msg_recv(struct fi_state *s)
{
	return msg(s, MPIRMA_IOC_MSG_RECV, MPIRMA_MSG_NOWAIT);
}

static int setup_sent(struct fi_state *s)
{
	int ret = setup_member(s);

	return ret ? ret : op_msg_send(s);
}

/* ---- the walk ---- */

/* Close everything; the counters must be back at zero. */
static bool state_close_check(struct fi_state *s, char *why, size_t len)
{
	state_close(s);
	if (!mt_counters_zero(5000, why, len))
		return false;
	if (mt_counter("message_bytes") != 0) {
		snprintf(why, len, "message_bytes = %ld", mt_counter("message_bytes"));
		return false;
	}
	return true;
}

static void walk(struct __test_metadata *_metadata, const struct fi_case *c, uint32_t strategy)
{
	unsigned int n, points = 0, absorbed = 0;
	struct fi_state *s;
	char why[64];
	long calls;
	int ret;

	s = malloc(sizeof(*s));
	ASSERT_NE(NULL, s);
	state_init(s, strategy);
	for (n = 1; n <= MAX_POINTS; n++) {
		ASSERT_EQ(0, c->setup(s)) TH_LOG("%s: setup", c->name);
		ASSERT_EQ(0, arm(n));
		ret = c->op(s);
		calls = mt_read_long(FAULT_PARAM("fault_calls"));
		ASSERT_EQ(0, arm(0));
		if (calls < n) {
			/* Nothing was injected: the operation must work. */
			EXPECT_EQ(0, ret) TH_LOG("%s/%s: fails without injection: %s", c->name,
						 mt_strategy_name(strategy), strerror(-ret));
			EXPECT_TRUE(state_close_check(s, why, sizeof(why)))
				TH_LOG("%s: after success: %s", c->name, why);
			break;
		}
		points++;
		if (ret) {
			EXPECT_TRUE(ret == -ENOMEM || ret == -EMFILE)
				TH_LOG("%s/%s point %u: unexpected %s", c->name,
				       mt_strategy_name(strategy), n, strerror(-ret));
			/* Nothing half done: the same step works now. */
			ret = c->op(s);
			EXPECT_EQ(0, ret) TH_LOG("%s/%s point %u: retry: %s", c->name,
						 mt_strategy_name(strategy), n, strerror(-ret));
		} else {
			absorbed++;
		}
		EXPECT_TRUE(state_close_check(s, why, sizeof(why)))
			TH_LOG("%s/%s point %u: %s", c->name, mt_strategy_name(strategy), n, why);
		if (!_metadata->passed)
			break;
	}
	state_close(s);
	free(s);
	EXPECT_GE(MAX_POINTS, n) TH_LOG("%s: more than %d fault points", c->name, MAX_POINTS);
	fprintf(stderr, "# fault-walk: %s %s points=%u absorbed=%u\n", c->name,
		c->per_strategy ? mt_strategy_name(strategy) : "-", points, absorbed);
}

#define CASE(n, strat, set)	\
	static const struct fi_case case_##n = { #n, strat, set, op_##n };
CASE(job_create, false, setup_dev)
CASE(job_join, false, setup_job)
CASE(win_user, true, setup_user_mem)
CASE(win_user_big, false, setup_big_user_mem)
CASE(win_alloc, true, setup_member)
CASE(win_alloc_node, true, setup_member)
CASE(win_alloc_interleave, true, setup_member)
CASE(win_dynamic, true, setup_member)
CASE(attach, false, setup_dynamic_win)
CASE(win_free, false, setup_user_win)
CASE(rma, true, setup_user_win)
CASE(acc_window, true, setup_user_win)
CASE(lock_all, false, setup_user_win)
CASE(lock_excl, false, setup_user_win)
CASE(fence, false, setup_user_win)
CASE(post, false, setup_user_win)
CASE(start, false, setup_posted)
CASE(placement, false, setup_user_win)
CASE(msg_send, false, setup_member)
CASE(msg_recv, false, setup_sent)

FIXTURE(fi) {
	int unused;
};

FIXTURE_VARIANT(fi) {
	const struct fi_case *c;
};

#define VARIANT(n)	FIXTURE_VARIANT_ADD(fi, n) { .c = &case_##n };
VARIANT(job_create)
VARIANT(job_join)
VARIANT(win_user)
VARIANT(win_user_big)
VARIANT(win_alloc)
VARIANT(win_alloc_node)
VARIANT(win_alloc_interleave)
VARIANT(win_dynamic)
VARIANT(attach)
VARIANT(win_free)
VARIANT(rma)
VARIANT(acc_window)
VARIANT(lock_all)
VARIANT(lock_excl)
VARIANT(fence)
VARIANT(post)
VARIANT(start)
VARIANT(placement)
VARIANT(msg_send)
VARIANT(msg_recv)

/*
 * Without the fault build every case would skip, one process each (seconds
 * under emulation): skip the whole program at once instead.
 */
static void __attribute__((constructor)) skip_without_fault_build(void)
{
	if (mt_device_present() && !access(FAULT_PARAM("fault_nth"), W_OK))
		return;
	printf("TAP version 13\n1..0 # SKIP mpirma.ko is not the fault-injecting build"
	       " (make fault-module)\n");
	exit(0);
}

FIXTURE_SETUP(fi)
{
}

FIXTURE_TEARDOWN(fi)
{
	arm(0);
}

#define WALK_STRATEGY(name, ID)	walk(_metadata, variant->c, MPIRMA_ATOM_##ID);

TEST_F_TIMEOUT(fi, walk, 300)
{
	MT_SETUP_SKIPPED();
	if (variant->c->per_strategy) {
		MT_FOR_EACH_STRATEGY(WALK_STRATEGY)
	} else {
		walk(_metadata, variant->c, MPIRMA_ATOM_DEFAULT);
	}
}

TEST_HARNESS_MAIN
