// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: random and mutated ioctls against /dev/mpirma.
 *
 * Each of --procs worker processes owns a small world of jobs, member fds
 * and windows (USER, ALLOC, DYNAMIC, every strategy) and issues --calls in
 * total: argument structs that are valid, or valid with one to three fields
 * mutated (interesting values, flipped bits, sizes too small, too large or
 * with a non-zero tail), argument pointers that are NULL, kernel,
 * non-canonical, read-only or straddle an unmapped page, RMA batches with
 * huge counts and overlapping or wrapping layouts, calls on freed windows,
 * on closed fds and on fds of the wrong kind or job, unknown commands,
 * mmap()s at random offsets, and ranks in forked children that are killed
 * in the middle of a collective.
 *
 * The module must answer every call with success or an errno of the
 * documented table (mpirma_uapi.h); anything else is a failure, listed with
 * the call that produced it.  A periodic timer interrupts calls that wait
 * (a collective nobody else joins), so waits and their withdrawal are
 * fuzzed too and no call blocks for long.  Every few thousand calls a
 * canary job, which the fuzzer never touches otherwise, must still compute
 * exact results.  At the end every process must have its RLIMIT_MEMLOCK
 * charge (VmPin) back at 0 and the module's counters must read 0; a worker
 * that makes no progress for --stall seconds is a hang.
 *
 * Workers drop CAP_IPC_LOCK and run under a small RLIMIT_MEMLOCK, so huge
 * window sizes fail with ENOMEM instead of exhausting the VM's memory.
 *
 * Deterministic per seed (printed): the same seed issues the same calls,
 * up to what the kernel's answers (ids, timing of interrupted waits) change.
 *
 * Usage: fuzz [--calls N] [--seed S] [--procs P] [--stall SECS] [-v]
 * Prints TAP (one test case) so selftests/run counts it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>


#include "fuzz/fuzz.h"

/* ---- a thread racing the worker on the same fds and windows ---- */

/*
 * While the worker frees windows, closes fds and kills ranks, a second
 * thread uses them: RMA, queries, attach/detach, non-blocking locks, mmap.
 * It works on a snapshot of the worker's tables, refreshed often, so it
 * also calls on fds and windows that just went away (or whose fd number
 * was reused); it never closes, frees or creates anything itself.
 */
struct racer {
	struct worker *main;
	struct worker self;
	uint64_t seed;
	volatile int stop;
};

static void racer_mmap(struct worker *w)
{
	struct fz_win *fw = pick_win(w);
	size_t len = (1 + below(2)) * w->a.page;
	void *p;

	if (!fw)
		return;
	w->what = "mmap (racing)";
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, win_fd(w, fw),
		 (off_t)fw->id << 32);
	BUMP(w->st->calls);
	if (p == MAP_FAILED)
		return;
	/*
	 * A USER window's first page holds whatever the process keeps before
	 * the window's base (the fuzz's own state, maybe): only read it.
	 */
	if (fw->flavor == MPIRMA_FLAVOR_ALLOC)
		((volatile uint8_t *)p)[0] = 1;
	else
		(void)((volatile uint8_t *)p)[0];
	munmap(p, len);
}

static void *racer_run(void *arg)
{
	static __thread uint8_t buf[ARGBUF_LEN] __attribute__((aligned(64)));
	struct racer *rc = arg;
	struct worker *w = &rc->self;
	unsigned int n = 0;

	rng = rc->seed;
	while (!rc->stop) {
		if (!(n++ % 32)) {
			memcpy(w->jobs, rc->main->jobs, sizeof(w->jobs));
			memcpy(w->wins, rc->main->wins, sizeof(w->wins));
		}
		memset(buf, 0, sizeof(buf));
		switch (below(10)) {
		case 0:
			do_win_query(w, buf);
			break;
		case 1:
			do_win_stats(w, buf);
			break;
		case 2:
			do_win_placement(w, buf);
			break;
		case 3:
			do_win_attach(w, buf, below(2));
			break;
		case 4:		/* locks that never wait */
			w->what = "WIN_LOCK (racing)";
			{
				struct mpirma_win_sync *s = (void *)buf;
				struct fz_win *fw = pick_win(w);

				s->size = sizeof(*s);
				s->flags = MPIRMA_SYNC_NOWAIT | (chance(50) ? MPIRMA_SYNC_SHARED :
								  MPIRMA_SYNC_EXCLUSIVE);
				s->win_id = pick_win_id(fw);
				fz_ioctl(w, win_fd(w, fw), MPIRMA_IOC_WIN_LOCK, s);
				s->flags = 0;
				fz_ioctl(w, win_fd(w, fw), MPIRMA_IOC_WIN_UNLOCK, s);
			}
			break;
		case 5:
			racer_mmap(w);
			break;
		default:
			do_rma(w, buf);
			break;
		}
	}
	return NULL;
}

static int racer_start(struct racer *rc, struct worker *w, pthread_t *tid)
{
	rc->main = w;
	rc->self = *w;
	rc->self.a.ops = area(AREA_OPS_RACER);
	/* its own read-only page: the worker makes its page writable at times */
	rc->self.a.ro = area(AREA_RO) + 16 * w->a.page;
	if (scratch_map(rc->self.a.ops, OPS_LEN, PROT_READ | PROT_WRITE) ||
	    scratch_map(rc->self.a.ro, w->a.page, PROT_READ))
		return -ENOMEM;
	rc->seed = rnd();
	return -pthread_create(tid, NULL, racer_run, rc);
}

/* ---- a worker ---- */

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A crash of the fuzzer itself: say where (the instruction relative to
 * on_crash, for addr2line with nm's address of on_crash), then die of it.
 */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	uintptr_t ip = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	char msg[200];
	int n;

	n = snprintf(msg, sizeof(msg), "# fuzz: worker %d: signal %d at address %p, "
		     "ip on_crash%+ld, last call %s\n", (int)getpid(), sig, si->si_addr,
		     (long)(ip - (uintptr_t)on_crash), crash_what ? crash_what : "?");
	if (n > 0 && write(2, msg, n) < 0)
		_exit(128 + sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Open fds of this process. */
static int nr_fds(void)
{
	char path[64];
	int n = 0, fd;

	for (fd = 0; fd < NOFILE_LIMIT; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!access(path, F_OK))
			n++;
	}
	return n;
}

/* VmPin of this process, in kB; -1 if unknown. */
static void worker_close_all(struct worker *w)
{
	int j, r;

	for (r = 0; r < MAX_WINS; r++) {
		if (w->wins[r].map)
			munmap(w->wins[r].map, w->wins[r].map_len);
		w->wins[r].map = NULL;
	}
	for (j = 0; j < MAX_JOBS; j++) {
		if (w->jobs[j].jfd >= 0)
			close(w->jobs[j].jfd);
		w->jobs[j].jfd = -1;
		for (r = 0; r < MAX_RANKS; r++) {
			if (w->jobs[j].mfd[r] >= 0)
				close(w->jobs[j].mfd[r]);
			w->jobs[j].mfd[r] = -1;
		}
	}
	mt_solo_close(&w->canary_alloc);
	mt_solo_close(&w->canary_user);
}

static int worker_run(int idx, uint64_t seed, uint64_t calls, struct worker_stats *st)
{
	static uint8_t argbuf[ARGBUF_LEN] __attribute__((aligned(64)));
	struct rlimit ml = { MEMLOCK_LIMIT, MEMLOCK_LIMIT };
	struct rlimit nf = { NOFILE_LIMIT, NOFILE_LIMIT };
	struct itimerval tv = { { 0, TIMER_US }, { 0, TIMER_US } };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct worker *w = calloc(1, sizeof(*w));
	struct racer *rc = calloc(1, sizeof(*rc));
	uint64_t next_canary = CANARY_EVERY;
	pthread_t racer_tid;
	int j, r, ret, fds;
	long pin;

	if (!w || !rc)
		return 1;
	w->idx = idx;
	w->st = st;
	rng = seed;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (mt_drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &ml) || setrlimit(RLIMIT_NOFILE, &nf)) {
		report(w, "cannot drop CAP_IPC_LOCK or set the limits: %s", strerror(errno));
		return 1;
	}
	if (arena_init(&w->a)) {
		report(w, "cannot map the arena");
		return 1;
	}
	fds = nr_fds();
	w->dev = mt_open();
	w->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (j = 0; j < MAX_JOBS; j++) {
		w->jobs[j].jfd = -1;
		w->jobs[j].nranks = 1;
		for (r = 0; r < MAX_RANKS; r++)
			w->jobs[j].mfd[r] = -1;
	}
	ret = canary_open(w);
	if (w->dev < 0 || ret) {
		report(w, "setup failed: dev %d, canary %d", w->dev, ret);
		return 1;
	}
	/* a one-rank job to start from, so that window calls happen at once */
	w->jobs[0].jfd = mt_job_create(w->dev, 1, NULL);
	w->jobs[0].mfd[0] = w->jobs[0].jfd >= 0 ? mt_job_join(w->jobs[0].jfd, 0) : -1;

	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	setitimer(ITIMER_REAL, &tv, NULL);
	if (racer_start(rc, w, &racer_tid)) {
		report(w, "cannot start the racing thread");
		return 1;
	}

	while (st->calls < calls) {
		unsigned int dice = below(1000);

		memset(argbuf, 0, sizeof(argbuf));
		if (dice < 30)
			do_query(w, argbuf);
		else if (dice < 45)
			do_null(w, argbuf);
		else if (dice < 85)
			do_job_create(w, argbuf);
		else if (dice < 135)
			do_job_join(w, argbuf);
		else if (dice < 150)
			do_close(w);
		else if (dice < 230)
			do_win_create(w, argbuf);
		else if (dice < 260)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_FREE, "WIN_FREE");
		else if (dice < 280)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_FENCE, "WIN_FENCE");
		else if (dice < 310)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_LOCK, "WIN_LOCK");
		else if (dice < 340)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_UNLOCK, "WIN_UNLOCK");
		else if (dice < 355)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_COMPLETE, "WIN_COMPLETE");
		else if (dice < 370)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_WAIT, "WIN_WAIT");
		else if (dice < 385)
			do_win_group(w, argbuf, true);
		else if (dice < 395)
			do_win_group(w, argbuf, false);
		else if (dice < 430)
			do_win_query(w, argbuf);
		else if (dice < 450)
			do_win_stats(w, argbuf);
		else if (dice < 470)
			do_win_placement(w, argbuf);
		else if (dice < 500)
			do_win_attach(w, argbuf, false);
		else if (dice < 515)
			do_win_attach(w, argbuf, true);
		else if (dice < 545)
			do_msg(w, argbuf, true);
		else if (dice < 575)
			do_msg(w, argbuf, false);
		else if (dice < 580)
			do_barrier(w);
		else if (dice < 610)
			do_random_cmd(w, argbuf);
		else if (dice < 630)
			do_mmap(w);
		else if (dice < 633)
			do_fork_rank(w, argbuf);
		else
			do_rma(w, argbuf);

		if (st->calls >= next_canary) {
			canary_check(w);
			next_canary += CANARY_EVERY;
		}
	}
	canary_check(w);
	rc->stop = 1;
	pthread_join(racer_tid, NULL);

	tv.it_value.tv_usec = 0;
	tv.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &tv, NULL);
	worker_close_all(w);
	for (j = 0; j < MAX_WINS; j++)
		win_mem_release(w->wins[j].base, w->wins[j].base_len);
	close(w->dev);
	close(w->devnull);
	/* every fd a call made is known to the fuzzer, and closed now */
	st->fds_left = nr_fds() - fds;
	if (st->fds_left)
		report(w, "%d fds open after closing everything", st->fds_left);
	/* every charge is given back once every fd is closed */
	for (j = 0; j < 50 && (pin = mt_vmpin_kb()) > 0; j++)
		mt_sleep_ms(100);
	if (pin != 0) {
		st->vmpin_left = pin;
		report(w, "VmPin is %ld kB after closing everything", pin);
	}
	return 0;
}

/* ---- the parent ---- */

static const char *errno_name(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "ok";
	case ENOTTY: return "ENOTTY";
	case E2BIG: return "E2BIG";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOENT: return "ENOENT";
	case ENXIO: return "ENXIO";
	case ERANGE: return "ERANGE";
	case EOVERFLOW: return "EOVERFLOW";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EOWNERDEAD: return "EOWNERDEAD";
	case EBUSY: return "EBUSY";
	case EDEADLK: return "EDEADLK";
	case ENOLCK: return "ENOLCK";
	case EAGAIN: return "EAGAIN";
	case EINTR: return "EINTR";
	case EBADF: return "EBADF";
	case ENODEV: return "ENODEV";
	case EMFILE: return "EMFILE";
	default:
		snprintf(buf, sizeof(buf), "errno %d", e);
		return buf;
	}
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--calls N] [--seed S] [--procs P] [--stall SECS] [-v]\n"
		"  --calls N     ioctls in total over all workers (default 30000)\n"
		"  --seed S      random seed (default: from the clock; printed)\n"
		"  --procs P     worker processes, 1..%d (default 2)\n"
		"  --stall SECS  a worker without progress this long hangs (default 60)\n"
		"Environment: MPIRMA_FUZZ_CALLS, MPIRMA_FUZZ_SEED, MPIRMA_FUZZ_PROCS\n",
		prog, MAX_PROCS);
}

/* Print the kernel stack of a stuck worker (root only). */
static void show_stack(pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   %s", line);
	fclose(f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "calls", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "procs", required_argument, NULL, 'p' },
		{ "stall", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t calls = 30000, seed, total = 0, unexpected = 0, canary = 0;
	uint64_t by_errno[NR_ERRNO] = { 0 }, op_by_errno[NR_ERRNO] = { 0 };
	uint64_t last[MAX_PROCS] = { 0 };
	unsigned int stall = 60, procs = 2, i, e, alive;
	uint64_t t0, t_last[MAX_PROCS];
	pid_t pid[MAX_PROCS];
	bool failed = false, verbose = false, hung = false;
	struct shared *sh;
	double secs;
	char why[64];
	int opt;

	seed = (uint64_t)time(NULL) * 1000003ULL ^ (uint64_t)getpid();
	if (getenv("MPIRMA_FUZZ_CALLS"))
		calls = strtoull(getenv("MPIRMA_FUZZ_CALLS"), NULL, 0);
	if (getenv("MPIRMA_FUZZ_SEED"))
		seed = strtoull(getenv("MPIRMA_FUZZ_SEED"), NULL, 0);
	if (getenv("MPIRMA_FUZZ_PROCS"))
		procs = strtoul(getenv("MPIRMA_FUZZ_PROCS"), NULL, 0);
	while ((opt = getopt_long(argc, argv, "n:s:p:t:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': calls = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'p': procs = strtoul(optarg, NULL, 0); break;
		case 't': stall = strtoul(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		case 'h': usage(argv[0]); return 0;
		default: usage(argv[0]); return 2;
		}
	}
	if (!procs || procs > MAX_PROCS || !calls) {
		usage(argv[0]);
		return 2;
	}
	printf("TAP version 13\n1..1\n");
	printf("# fuzz: --calls %" PRIu64 " --seed %" PRIu64 " --procs %u\n", calls, seed, procs);
	fflush(stdout);
	if (!mt_device_present()) {
		printf("ok 1 fuzz # SKIP %s missing\n", MPIRMA_DEVICE);
		return 0;
	}
	sh = mt_shm(sizeof(*sh));
	if (!sh) {
		printf("not ok 1 fuzz # no shared memory\n");
		return 1;
	}
	t0 = mt_now_ms();
	for (i = 0; i < procs; i++) {
		uint64_t share = calls / procs + (i < calls % procs);

		fflush(NULL);
		pid[i] = fork();
		if (pid[i] < 0) {
			printf("not ok 1 fuzz # fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid[i] == 0) {
			int rc = worker_run(i, seed + i * 0x1000193ULL, share, &sh->w[i]);

			sh->w[i].done = 1;
			_exit(rc);
		}
		t_last[i] = t0;
	}

	/* the watchdog: a worker whose count does not move is stuck */
	for (alive = procs; alive;) {
		mt_sleep_ms(500);
		alive = 0;
		for (i = 0; i < procs; i++) {
			int status;

			if (pid[i] <= 0)
				continue;
			if (waitpid(pid[i], &status, WNOHANG) == pid[i]) {
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					printf("# worker %u (seed %" PRIu64 ") died: status %#x\n",
					       i, (uint64_t)(seed + i * 0x1000193ULL), status);
					failed = true;
				}
				pid[i] = 0;
				continue;
			}
			alive++;
			if (sh->w[i].calls != last[i]) {
				last[i] = sh->w[i].calls;
				t_last[i] = mt_now_ms();
			} else if (mt_now_ms() - t_last[i] > stall * 1000ULL) {
				printf("# worker %u: no progress for %u s after %" PRIu64
				       " calls: hung; its kernel stack:\n", i, stall, last[i]);
				show_stack(pid[i]);
				kill(pid[i], SIGKILL);
				hung = true;
				failed = true;
			}
		}
		if (verbose) {
			for (total = 0, i = 0; i < procs; i++)
				total += sh->w[i].calls;
			printf("# %" PRIu64 " calls\n", total);
			fflush(stdout);
		}
	}
	secs = (mt_now_ms() - t0) / 1000.0;

	for (total = 0, i = 0; i < procs; i++) {
		struct worker_stats *st = &sh->w[i];

		total += st->calls;
		unexpected += st->unexpected;
		canary += st->canary_failures;
		for (e = 0; e < NR_ERRNO; e++) {
			by_errno[e] += st->by_errno[e];
			op_by_errno[e] += st->op_by_errno[e];
		}
		for (e = 0; e < st->nreports; e++)
			printf("# worker %u: %s\n", i, st->reports[e].text);
		if (st->vmpin_left || st->fds_left)
			failed = true;
	}
	printf("# fuzz: %" PRIu64 " calls in %.1f s: %.0f calls/s\n", total, secs,
	       secs > 0 ? total / secs : 0.0);
	printf("# fuzz: results:");
	for (e = 0; e < NR_ERRNO; e++)
		if (by_errno[e])
			printf(" %s %" PRIu64, errno_name(e), by_errno[e]);
	printf("\n# fuzz: RMA operation statuses:");
	for (e = 0; e < NR_ERRNO; e++)
		if (op_by_errno[e])
			printf(" %s %" PRIu64, errno_name(e), op_by_errno[e]);
	printf("\n");
	if (unexpected || canary)
		failed = true;
	printf("# fuzz: %" PRIu64 " unexpected results, %" PRIu64 " canary failures%s\n",
	       unexpected, canary, hung ? ", a worker hung" : "");
	if (!mt_counters_zero(5000, why, sizeof(why))) {
		printf("# fuzz: module counter not zero after the run: %s\n", why);
		failed = true;
	}
	printf("%s 1 fuzz (seed %" PRIu64 ")\n", failed ? "not ok" : "ok", seed);
	return failed ? 1 : 0;
}
