// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl ABI of /dev/mpirma: for every command the size contract (short
 * struct EINVAL, non-zero unknown tail E2BIG, zero tail as the exact size,
 * more than a page E2BIG), unknown flags and reserved fields EINVAL, the
 * wrong kind of fd ENOTTY, outputs written into poisoned structs, QUERY's
 * fields, and the RMA batch contract.
 *
 * The commands and their hooks are abi/cmds.c's.  Everything runs in a
 * one-rank job, so collectives return at once.
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
#include "abi/abi.h"

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

	ret = mt_ioctl(abi_cmd_fd(c, fd), cmd->cmd, buf);

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
	for (i = 0; i < abi_ncmds; i++) {
		const struct abi_cmd *cmd = &abi_cmds[i];

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
	for (i = 0; i < abi_ncmds; i++) {
		const struct abi_cmd *cmd = &abi_cmds[i];
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
	for (i = 0; i < abi_ncmds; i++) {
		const struct abi_cmd *cmd = &abi_cmds[i];

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
