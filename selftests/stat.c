// SPDX-License-Identifier: GPL-2.0
/*
 * tools/mpirma-stat against a live job: three ranks create three windows
 * (ALLOC with native atomics, USER with striped locks, ALLOC with NUMA
 * delegation placed on a node per rank), apply one operation of every kind,
 * then wait while the test runs the tool: the one-shot text and the JSON
 * must name the job, its windows and strategies with the exact operation
 * counts, every rank's size and node, and the workers' load; without root
 * the tool must still show the counters and say why the rest is missing;
 * the refreshing view must draw on a terminal, quit on q and give the
 * terminal back, and log frames to a pipe until interrupted.
 *
 * The tool is found next to the suite as staged and installed
 * (libexec/mpirma/selftests/../../../bin/mpirma-stat), or in $MPIRMA_STAT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "json.h"
#include "mt_harness.h"

#define NRANKS		3
#define NOBODY		65534
#define RUN_MS		20000	/* a tool run that takes longer is stuck */

struct shared {
	int ready;		/* ranks done with their operations */
	int release;		/* set by the test: free and exit */
	int node[NRANKS];	/* where each rank put its delegated window */
	int win[3];		/* the window ids, as rank 0 saw them */
};

static const char *jobs_file = "/sys/kernel/debug/mpirma/jobs";

/* ------------------------------------------------------------ the job */

/*
 * Every rank: one put, get, accumulate, fetch-and-op and CAS on its right
 * neighbour in the native window, one accumulate on each of the others,
 * then a fence (every operation is counted), then wait to be released.
 */
MT_RANK_FN(stat_rank)
{
	struct shared *sh = r->arg;
	uint32_t right = (r->rank + 1) % r->nranks;
	uint64_t one = 1, got = 0, old = 0, cmp = 0, *mem;
	int node = mt_nr_node_ids() > 0 ? (int)r->rank % mt_nr_node_ids() : 0;
	struct mt_win native = {
		.flavor = MPIRMA_FLAVOR_ALLOC, .strategy = MPIRMA_ATOM_NATIVE,
		.length = 4096, .nranks = r->nranks,
	};
	struct mt_win striped = {
		.flavor = MPIRMA_FLAVOR_USER, .strategy = MPIRMA_ATOM_STRIPED,
		.length = 4096, .nranks = r->nranks,
	};
	struct mt_win delegated = {
		.flavor = MPIRMA_FLAVOR_ALLOC, .strategy = MPIRMA_ATOM_DELEGATE,
		.length = 8192, .nranks = r->nranks,
	};
	struct mpirma_op ops[5];
	int w[3], i;

	if (mt_node_online(node)) {
		delegated.flags = MPIRMA_WIN_NODE;
		delegated.numa_node = node;
	} else {
		node = -1;
	}
	sh->node[r->rank] = node;
	mem = mt_anon(4096);
	ASSERT_NE(NULL, mem);
	striped.base = mem;

	w[0] = mt_win_create(r->mfd, &native);
	ASSERT_LT(0, w[0]);
	w[1] = mt_win_create(r->mfd, &striped);
	ASSERT_LT(0, w[1]);
	w[2] = mt_win_create(r->mfd, &delegated);
	ASSERT_LT(0, w[2]);
	if (r->rank == 0)
		memcpy(sh->win, w, sizeof(w));

	ops[0] = mt_put(MPIRMA_TYPE_UINT64, right, 8 * r->rank, &one, 1);
	ops[1] = mt_get(MPIRMA_TYPE_UINT64, right, 0, &got, 1);
	ops[2] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, right, 64, &one, 1);
	ops[3] = mt_get_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, right, 128, &one, &old, 1);
	ops[4] = mt_cas(MPIRMA_TYPE_UINT64, right, 256 + 8 * r->rank, &one, &cmp, &old);
	ASSERT_EQ(0, mt_fence(r->mfd, w[0]));
	ASSERT_EQ(0, mt_rma(r->mfd, w[0], ops, 5, NULL));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, ops[i].status);
	for (i = 1; i < 3; i++) {
		ops[0] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, right, 0, &one, 1);
		ASSERT_EQ(0, mt_fence(r->mfd, w[i]));
		ASSERT_EQ(0, mt_rma1(r->mfd, w[i], &ops[0]));
	}
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, mt_fence(r->mfd, w[i]));

	mt_inc(&sh->ready);
	ASSERT_TRUE(mt_wait_flag(&sh->release, 1, 120000));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, mt_win_free(r->mfd, w[i]));
}

FIXTURE(stat) {
	int dev, job;
	uint64_t job_id;
	struct shared *sh;
	struct mt_procs procs;
	bool spawned;
	char tool[PATH_MAX];
};

/* The staged or installed tool beside this suite, or $MPIRMA_STAT. */
static bool find_tool(char *path, size_t len)
{
	char self[PATH_MAX], *slash;
	const char *env = getenv("MPIRMA_STAT");
	ssize_t n;

	if (env && *env) {
		snprintf(path, len, "%s", env);
		return access(path, X_OK) == 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return false;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return false;
	*slash = 0;
	if (snprintf(path, len, "%s/../../../bin/mpirma-stat", self) >= (int)len)
		return false;
	return access(path, X_OK) == 0;
}

FIXTURE_SETUP(stat)
{
	int fd;

	self->dev = -1;
	self->job = -1;
	MT_REQUIRE_DEVICE();
	if (!find_tool(self->tool, sizeof(self->tool)))
		SKIP(return, "mpirma-stat not found (set MPIRMA_STAT)");
	fd = open(jobs_file, O_RDONLY);
	if (fd < 0)
		SKIP(return, "%s: %s", jobs_file, strerror(errno));
	close(fd);
	self->dev = mt_open();
	ASSERT_LE(0, self->dev);
	self->sh = mt_shm(sizeof(*self->sh));
	ASSERT_NE(NULL, self->sh);
	self->job = mt_job_create(self->dev, NRANKS, &self->job_id);
	ASSERT_LE(0, self->job);
	ASSERT_EQ(0, mt_spawn(&self->procs, self->job, NRANKS, stat_rank, self->sh,
			      _metadata, 0));
	self->spawned = true;
	/* a rank that failed before it was ready fails the wait, not a hang */
	if (!mt_wait_flag(&self->sh->ready, NRANKS, MT_TIMEOUT_MS)) {
		mt_set_flag(&self->sh->release, 1);
		ASSERT_EQ(0, mt_reap(&self->procs, MT_TIMEOUT_MS, 0));
		self->spawned = false;
		ASSERT_TRUE(false);
	}
}

FIXTURE_TEARDOWN(stat)
{
	if (self->spawned) {
		mt_set_flag(&self->sh->release, 1);
		EXPECT_EQ(0, mt_reap(&self->procs, MT_TIMEOUT_MS, 0));
	}
	if (self->job >= 0)
		close(self->job);
	if (self->dev >= 0) {
		close(self->dev);
		MT_EXPECT_COUNTERS_ZERO();
	}
}

/* ------------------------------------------------------------ running it */

struct run {
	int status;		/* exit status, or -1: killed (signal, timeout) */
	char *out, *err;
	size_t nout, nerr;
};

static void append(char **buf, size_t *len, const char *data, size_t n)
{
	*buf = realloc(*buf, *len + n + 1);
	if (!*buf)
		abort();
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = 0;
}

/*
 * Run the tool with @args (NULL-terminated, without argv[0]), stdin from
 * /dev/null, as @uid (0: as we are); stdout and stderr are collected.
 * Child exit 127: it could not be started.
 */
static void run_tool(const char *tool, const char *const *args, uid_t uid, struct run *res)
{
	const char *argv[16] = { tool };
	int po[2], pe[2], null, i, st;
	uint64_t deadline = mt_now_ms() + RUN_MS;
	bool open_out = true, open_err = true;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	append(&res->out, &res->nout, "", 0);
	append(&res->err, &res->nerr, "", 0);
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		res->status = -1;
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (uid && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(127);
		execv(tool, (char **)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	while ((open_out || open_err) && pid > 0 && mt_now_ms() < deadline) {
		struct pollfd pfd[2] = {
			{ .fd = open_out ? po[0] : -1, .events = POLLIN },
			{ .fd = open_err ? pe[0] : -1, .events = POLLIN },
		};
		char buf[4096];
		ssize_t n;

		if (poll(pfd, 2, 100) <= 0)
			continue;
		for (i = 0; i < 2; i++) {
			if (!pfd[i].revents)
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				*(i ? &open_err : &open_out) = false;
				continue;
			}
			if (i)
				append(&res->err, &res->nerr, buf, n);
			else
				append(&res->out, &res->nout, buf, n);
		}
	}
	close(po[0]);
	close(pe[0]);
	if (pid < 0) {
		res->status = -1;
		return;
	}
	if (open_out || open_err)
		kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void run_free(struct run *res)
{
	free(res->out);
	free(res->err);
}

/* ------------------------------------------------------------ text output */

/* The part of the text view about job @id (up to the next job or workers). */
static char *job_section(const char *out, uint64_t id)
{
	char head[64], *start, *end;

	snprintf(head, sizeof(head), "\njob %llu:", (unsigned long long)id);
	start = strstr(out, head);
	if (!start)
		return NULL;
	start++;
	end = strstr(start + 1, "\njob ");
	if (!end)
		end = strstr(start, "\nworkers");
	return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

/*
 * In a job section, the window with @strategy: its "total" row into
 * @ops (five kinds), its rank rows' node column into @node.  Returns the
 * number of rank rows, or -1 if the window is missing.
 */
static int window_rows(const char *job, const char *strategy, unsigned long long ops[5],
		       char node[][16], int max)
{
	char key[64], line[256];
	const char *p, *nl;
	int ranks = 0, rank;

	snprintf(key, sizeof(key), ", strategy %s,", strategy);
	p = strstr(job, key);
	if (!p)
		return -1;
	p = strstr(p, "\n    total");
	if (!p || sscanf(p, "\n    total %llu %llu %llu %llu %llu", &ops[0], &ops[1], &ops[2],
			 &ops[3], &ops[4]) != 5)
		return -1;
	p = strstr(p, "\n    rank job_rank");
	if (!p)
		return -1;
	for (p = strchr(p + 1, '\n'); p && *p; p = nl) {
		char size[16], unit[8], nd[16];
		unsigned int jr, du;

		p++;
		nl = strchr(p, '\n');
		snprintf(line, sizeof(line), "%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
		/* "   0   0   4 KiB   1 0   1" */
		if (sscanf(line, " %d %u %15s %7s %u %15s", &rank, &jr, size, unit, &du, nd) != 6)
			break;
		if (ranks < max)
			snprintf(node[ranks], sizeof(node[0]), "%s", nd);
		ranks++;
	}
	return ranks;
}

TEST_F(stat, once_names_job_windows_and_counts)
{
	static const char *const args[] = { "--once", NULL };
	static const char *const strategies[] = { "native", "striped", "delegate" };
	unsigned long long ops[5];
	char node[NRANKS + 1][16], want[16];
	struct run res;
	char *job;
	int i, k, n;

	MT_SETUP_SKIPPED();
	run_tool(self->tool, args, 0, &res);
	job = job_section(res.out, self->job_id);
	/* the whole output only when something is wrong with it */
	if (res.status || !job)
		TH_LOG("mpirma-stat --once, status %d:\n%s%s", res.status, res.out, res.err);
	ASSERT_EQ(0, res.status);
	EXPECT_NE(NULL, strstr(res.out, "counters: jobs "));
	EXPECT_NE(NULL, strstr(res.out, "topology: "));
	ASSERT_NE(NULL, job);
	EXPECT_NE(NULL, strstr(job, "3 ranks, 3 joined, 0 gone, 3 windows"));

	for (i = 0; i < 3; i++) {
		n = window_rows(job, strategies[i], ops, node, NRANKS + 1);
		if (n != NRANKS)
			TH_LOG("window with strategy %s: %d rank rows in\n%s", strategies[i], n,
			       job);
		ASSERT_EQ(NRANKS, n);
		/* the native window had one of each kind per rank, the others one acc */
		for (k = 0; k < 5; k++)
			EXPECT_EQ(i == 0 || k == MPIRMA_KIND_ACC ? NRANKS : 0, ops[k]);
		for (k = 0; k < NRANKS; k++) {
			/* every rank has memory, so a node is shown */
			EXPECT_STRNE("-", node[k]);
			if (i == 2 && self->sh->node[k] >= 0) {
				snprintf(want, sizeof(want), "%d", self->sh->node[k]);
				EXPECT_STREQ(want, node[k]);
			}
		}
	}
	EXPECT_NE(NULL, strstr(job, "alloc, strategy native, 3 ranks, 3 pages"));
	EXPECT_NE(NULL, strstr(job, "user, strategy striped, 3 ranks"));
	EXPECT_NE(NULL, strstr(job, "alloc, strategy delegate, 3 ranks, 6 pages"));
	EXPECT_NE(NULL, strstr(res.out, "\nworkers: "));
	free(job);
	run_free(&res);
}

TEST_F(stat, json_has_job_windows_members_and_workers)
{
	static const char *const args[] = { "--json", NULL };
	static const char *const strategies[] = { "native", "striped", "delegate" };
	const struct jv *jobs, *job, *wins, *win, *ops, *mem, *on, *workers;
	double items = 0, pages;
	struct jv root;
	struct run res;
	char key[16];
	size_t i, m;
	int k;

	MT_SETUP_SKIPPED();
	run_tool(self->tool, args, 0, &res);
	ASSERT_EQ(0, res.status);
	if (!jparse_all(res.out, &root)) {
		TH_LOG("not JSON:\n%s", res.out);
		ASSERT_TRUE(false);
	}
	EXPECT_EQ(1, jbool(jget(&root, "module"), "loaded"));
	EXPECT_EQ(1, jbool(jget(&root, "debugfs"), "readable"));
	EXPECT_LE(1, jnum(jget(&root, "counters"), "jobs"));
	EXPECT_LE(3, jnum(jget(&root, "counters"), "windows"));
	ASSERT_EQ(J_ARR, jtype(jget(&root, "topology"), "nodes"));
	EXPECT_LE(1, jget(jget(&root, "topology"), "nodes")->n);

	jobs = jget(&root, "jobs");
	job = jfind_num(jobs, "id", self->job_id);
	ASSERT_NE(NULL, job);
	EXPECT_EQ(NRANKS, jnum(job, "ranks"));
	EXPECT_EQ(NRANKS, jnum(job, "joined"));
	EXPECT_EQ(0, jnum(job, "gone"));
	wins = jget(job, "windows");
	ASSERT_NE(NULL, wins);
	EXPECT_EQ(3, wins->n);
	for (i = 0; i < 3; i++) {
		win = jfind_str(wins, "strategy", strategies[i]);
		ASSERT_NE(NULL, win);
		EXPECT_EQ(self->sh->win[i], jnum(win, "id"));
		EXPECT_STREQ(i == 1 ? "user" : "alloc", jstr(win, "flavor"));
		ops = jget(win, "ops");
		for (k = 0; k < 5; k++) {
			static const char *const kinds[] = { "put", "get", "acc", "get_acc", "cas" };

			EXPECT_EQ(i == 0 || k == MPIRMA_KIND_ACC ? NRANKS : 0, jnum(ops, kinds[k]));
		}
		EXPECT_LT(0, jnum(win, "bytes"));
		/* operations the processes applied themselves: none here */
		EXPECT_EQ(0, jnum(win, "direct"));
		mem = jget(win, "members");
		ASSERT_NE(NULL, mem);
		ASSERT_EQ(NRANKS, mem->n);
		pages = 0;
		for (m = 0; m < NRANKS; m++) {
			const struct jv *r = &mem->items[m];

			EXPECT_EQ(m, jnum(r, "rank"));
			EXPECT_EQ(i == 2 ? 8192 : 4096, jnum(r, "size"));
			EXPECT_LE(1, jnum(r, "pages"));
			on = jget(r, "pages_on");
			ASSERT_NE(NULL, on);
			ASSERT_EQ(J_OBJ, on->t);
			EXPECT_LE(1, on->n);
			if (i == 2 && self->sh->node[m] >= 0) {
				/* placed on a node: it asked for it, and it is there */
				EXPECT_EQ(self->sh->node[m], jnum(r, "node"));
				snprintf(key, sizeof(key), "%d", self->sh->node[m]);
				EXPECT_EQ(2, jnum(on, key));
			}
			pages += jnum(r, "pages");
		}
		/* USER memory may straddle pages; the window counts them all */
		EXPECT_LE(pages, jnum(win, "pages"));
	}

	/* the delegated accumulates ran on workers */
	workers = jget(&root, "workers");
	ASSERT_NE(NULL, workers);
	ASSERT_EQ(J_ARR, workers->t);
	EXPECT_LE(1, workers->n);
	for (i = 0; i < workers->n; i++)
		items += jnum(&workers->items[i], "items");
	EXPECT_LE(NRANKS, items);
	jfree(&root);
	run_free(&res);
}

/* debugfs is root's: without root the counters still show, with a reason. */
TEST_F(stat, without_root_counters_and_a_reason)
{
	static const char *const once[] = { "--once", NULL };
	static const char *const json[] = { "--json", NULL };
	char head[64];
	struct jv root;
	struct run res;

	MT_SETUP_SKIPPED();
	if (geteuid() != 0)
		SKIP(return, "not root: cannot drop to another user");
	run_tool(self->tool, once, NOBODY, &res);
	if (res.status == 127) {
		run_free(&res);
		SKIP(return, "user %d cannot run mpirma-stat", NOBODY);
	}
	if (res.status || !strstr(res.out, "need root"))
		TH_LOG("as nobody, status %d:\n%s%s", res.status, res.out, res.err);
	EXPECT_EQ(0, res.status);
	EXPECT_NE(NULL, strstr(res.out, "counters: jobs "));
	EXPECT_NE(NULL, strstr(res.out, "need root"));
	snprintf(head, sizeof(head), "\njob %llu:", (unsigned long long)self->job_id);
	EXPECT_EQ(NULL, strstr(res.out, head));
	run_free(&res);

	run_tool(self->tool, json, NOBODY, &res);
	EXPECT_EQ(0, res.status);
	EXPECT_NE(NULL, strstr(res.err, "need root"));
	ASSERT_TRUE(jparse_all(res.out, &root));
	EXPECT_EQ(0, jbool(jget(&root, "debugfs"), "readable"));
	EXPECT_EQ(J_NULL, jtype(&root, "jobs"));
	ASSERT_NE(NULL, jget(&root, "jobs"));
	EXPECT_LE(1, jnum(jget(&root, "counters"), "jobs"));
	jfree(&root);
	run_free(&res);
}

/* Read @fd into @buf for @ms (or until EOF). */
static void drain(int fd, char **buf, size_t *len, unsigned int ms)
{
	uint64_t end = mt_now_ms() + ms;
	char chunk[4096];
	ssize_t n;

	while (mt_now_ms() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n <= 0)
			return;
		append(buf, len, chunk, n);
	}
}

/*
 * Reads like drain() until @want has appeared @times times in the output,
 * or @ms have passed.  The watch tests wait for frames this way, not for a
 * fixed time: under a debug kernel on a busy host the first frame can take
 * seconds.
 */
static void drain_until(int fd, char **buf, size_t *len, const char *want, int times,
			unsigned int ms)
{
	uint64_t end = mt_now_ms() + ms;
	const char *p;
	int seen;

	while (mt_now_ms() < end) {
		drain(fd, buf, len, 100);
		for (seen = 0, p = *buf; (p = strstr(p, want)); p++)
			seen++;
		if (seen >= times)
			return;
	}
}

/* Wait up to @ms for @pid; its exit status, or -1 (killed or stuck). */
static int wait_exit(pid_t pid, unsigned int ms)
{
	uint64_t end = mt_now_ms() + ms;
	int st;

	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (mt_now_ms() >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		mt_sleep_ms(20);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* On a terminal: the alternate screen, frames, q quits, the tty restored. */
TEST_F(stat, watch_on_a_terminal_quits_on_q)
{
	struct winsize ws = { .ws_row = 60, .ws_col = 100 };
	struct termios before, during, after;
	int master, slave, status;
	char *out = NULL, head[64];
	size_t len = 0;
	pid_t pid;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, openpty(&master, &slave, NULL, NULL, &ws));
	ASSERT_EQ(0, tcgetattr(slave, &before));
	append(&out, &len, "", 0);
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* a session on the pty, as a shell would start it */
		setsid();
		ioctl(slave, TIOCSCTTY, 0);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		close(master);
		execl(self->tool, self->tool, "-w", "0.5", (char *)NULL);
		_exit(127);
	}
	/* the first frame is drawn after the terminal is set up */
	drain_until(master, &out, &len, "items/s", 1, 30000);
	ASSERT_EQ(0, tcgetattr(slave, &during));
	ASSERT_EQ(1, write(master, "q", 1));
	status = wait_exit(pid, 5000);
	drain(master, &out, &len, 200);
	ASSERT_EQ(0, tcgetattr(slave, &after));
	close(master);
	close(slave);

	EXPECT_EQ(0, status);
	/* keys without Enter while it ran, the terminal as it was afterwards */
	EXPECT_EQ(0, during.c_lflag & (ICANON | ECHO));
	EXPECT_EQ(before.c_lflag, after.c_lflag);
	EXPECT_EQ(before.c_cc[VMIN], after.c_cc[VMIN]);
	EXPECT_NE(NULL, strstr(out, "\033[?1049h"));
	EXPECT_NE(NULL, strstr(out, "\033[?1049l"));
	EXPECT_NE(NULL, strstr(out, "\033[?25h"));
	snprintf(head, sizeof(head), "job %llu:", (unsigned long long)self->job_id);
	EXPECT_NE(NULL, strstr(out, head));
	EXPECT_NE(NULL, strstr(out, "items/s"));
	free(out);
}

/* Not on a terminal: plain frames one after another, until SIGINT. */
TEST_F(stat, watch_to_a_pipe_until_interrupted)
{
	char *out = NULL, *p, head[64];
	int po[2], null, status, frames = 0;
	size_t len = 0;
	pid_t pid;

	MT_SETUP_SKIPPED();
	ASSERT_EQ(0, pipe2(po, O_CLOEXEC));
	append(&out, &len, "", 0);
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(po[1], 1);
		execl(self->tool, self->tool, "--watch=0.3", (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	/* two frames, the second with rates */
	drain_until(po[0], &out, &len, "    /s        0.0     0.0     0.0", 1, 30000);
	kill(pid, SIGINT);
	status = wait_exit(pid, 5000);
	drain(po[0], &out, &len, 200);
	close(po[0]);

	EXPECT_EQ(0, status);
	for (p = out; (p = strstr(p, "mpirma ")); p++)
		if (p == out || p[-1] == '\n')
			frames++;
	EXPECT_LE(2, frames);
	EXPECT_EQ(NULL, strchr(out, '\033'));
	snprintf(head, sizeof(head), "job %llu:", (unsigned long long)self->job_id);
	EXPECT_NE(NULL, strstr(out, head));
	/* from the second frame on, rates: nothing moves, so 0.0 per second */
	EXPECT_NE(NULL, strstr(out, "    /s        0.0     0.0     0.0"));
	free(out);
}

TEST_HARNESS_MAIN
