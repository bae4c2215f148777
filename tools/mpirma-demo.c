// SPDX-License-Identifier: GPL-2.0
/*
 * mpirma-demo: the smallest complete use of /dev/mpirma.
 *
 * Creates a job of RANKS processes; every rank joins, takes part in two
 * windows (kernel-allocated memory, and rank 0's own malloc'ed memory) and,
 * under lock_all, accumulates rank + 1 into rank 0's int64 (and a double)
 * ITERS times, 64 operations per ioctl.  After a fence rank 0 checks the
 * totals.  Exit status 0 iff every total is right.
 *
 * Uses only libc and the uapi header: an example to copy from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpirma_uapi.h"

#define PROG		"mpirma-demo"
#define BATCH		64
#define MAX_DEMO_RANKS	256		/* processes this demo will fork */
#define MAX_ITERS	100000000UL

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-n RANKS] [-i ITERS]\n"
		"  -n RANKS  processes in the job, 1..%d (default 4)\n"
		"  -i ITERS  accumulates per rank, 1..%lu (default 1000)\n",
		PROG, MAX_DEMO_RANKS, MAX_ITERS);
}

static unsigned long parse(const char *opt, const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < 1 || v > max) {
		fprintf(stderr, "%s: %s wants a number from 1 to %lu, not '%s'\n",
			PROG, opt, max, s);
		usage(stderr);
		exit(2);
	}
	return v;
}

/* Report a failed call and exit: "mpirma-demo: rank 2: WIN_LOCK: ..." */
static void __attribute__((noreturn, format(printf, 2, 3)))
die(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static int xioctl(int rank, int fd, unsigned long cmd, const char *name,
		  void *arg)
{
	if (ioctl(fd, cmd, arg) < 0)
		die(errno, "rank %d: %s", rank, name);
	return 0;
}

static uint32_t win_create(int rank, int mfd, uint32_t nranks, uint32_t flavor,
			   void *base, uint64_t length, uint64_t context)
{
	static uint32_t group[MAX_DEMO_RANKS];
	struct mpirma_win_create wc;
	uint32_t r;

	for (r = 0; r < nranks; r++)
		group[r] = r;
	memset(&wc, 0, sizeof(wc));
	wc.size = sizeof(wc);
	wc.flavor = flavor;
	wc.disp_unit = 1;
	wc.base = (uintptr_t)base;
	wc.length = length;
	wc.ranks = (uintptr_t)group;
	wc.nranks = nranks;
	wc.context = context;
	xioctl(rank, mfd, MPIRMA_IOC_WIN_CREATE, "WIN_CREATE", &wc);
	return wc.win_id;
}

static void win_sync(int rank, int mfd, unsigned long cmd, const char *name,
		     uint32_t win, uint32_t target, uint32_t flags)
{
	struct mpirma_win_sync ws = {
		.size = sizeof(ws),
		.flags = flags,
		.win_id = win,
		.rank = target,
	};

	xioctl(rank, mfd, cmd, name, &ws);
}

/* @n accumulates of *val (type, SUM) into rank 0 at @disp, BATCH per ioctl. */
static void accumulate(int rank, int mfd, uint32_t win, unsigned int type,
		       const void *val, uint64_t disp, unsigned long n)
{
	struct mpirma_op ops[BATCH];
	struct mpirma_rma rma;
	unsigned long done = 0;
	unsigned int k;

	memset(ops, 0, sizeof(ops));
	for (k = 0; k < BATCH; k++) {
		ops[k].kind = MPIRMA_KIND_ACC;
		ops[k].type = type;
		ops[k].op = MPIRMA_OP_SUM;
		ops[k].target_rank = 0;
		ops[k].target_disp = disp;
		ops[k].origin.addr = (uintptr_t)val;
		ops[k].origin.count = 1;
		ops[k].target.count = 1;
	}
	while (done < n) {
		unsigned int batch = n - done < BATCH ? n - done : BATCH;

		memset(&rma, 0, sizeof(rma));
		rma.size = sizeof(rma);
		rma.win_id = win;
		rma.nops = batch;
		rma.ops = (uintptr_t)ops;
		rma.op_size = sizeof(ops[0]);
		xioctl(rank, mfd, MPIRMA_IOC_RMA, "RMA", &rma);
		if (rma.nfailed) {
			for (k = 0; k < batch; k++)
				if (ops[k].status)
					die(-ops[k].status,
					    "rank %d: RMA operation %u of %u",
					    rank, k, batch);
		}
		done += batch;
	}
}

static int report(const char *what, uint32_t nranks, unsigned long iters,
		  int64_t got, int64_t want)
{
	printf("%s: %u rank%s x %lu accumulate%s into one %s: %lld, expected %lld: %s\n",
	       PROG, nranks, nranks == 1 ? "" : "s", iters,
	       iters == 1 ? "" : "s", what, (long long)got, (long long)want,
	       got == want ? "OK" : "WRONG");
	return got == want ? 0 : 1;
}

static int run_rank(int job_fd, int rank, uint32_t nranks, unsigned long iters)
{
	struct mpirma_job_join jj;
	int64_t *user_mem = NULL;
	int64_t ival = rank + 1;
	double dval = rank + 1;
	uint32_t walloc, wuser;
	int mfd, bad = 0;

	memset(&jj, 0, sizeof(jj));
	jj.size = sizeof(jj);
	jj.rank = rank;
	xioctl(rank, job_fd, MPIRMA_IOC_JOB_JOIN, "JOB_JOIN", &jj);
	mfd = jj.member_fd;
	close(job_fd);

	/* rank 0 holds the memory; the others take part with none */
	if (rank == 0) {
		user_mem = calloc(4, sizeof(*user_mem));
		if (!user_mem)
			die(ENOMEM, "rank 0: malloc");
	}
	walloc = win_create(rank, mfd, nranks, MPIRMA_FLAVOR_ALLOC, NULL,
			    rank ? 0 : 16, 1);
	wuser = win_create(rank, mfd, nranks, MPIRMA_FLAVOR_USER, user_mem,
			   rank ? 0 : 4 * sizeof(*user_mem), 2);

	/* passive target: shared locks on everyone, atomic accumulates */
	win_sync(rank, mfd, MPIRMA_IOC_WIN_LOCK, "WIN_LOCK(ALL)", walloc,
		 MPIRMA_RANK_ALL, MPIRMA_SYNC_SHARED);
	win_sync(rank, mfd, MPIRMA_IOC_WIN_LOCK, "WIN_LOCK(ALL)", wuser,
		 MPIRMA_RANK_ALL, MPIRMA_SYNC_SHARED);
	accumulate(rank, mfd, walloc, MPIRMA_TYPE_INT64, &ival, 0, iters);
	accumulate(rank, mfd, walloc, MPIRMA_TYPE_DOUBLE, &dval, 8, iters);
	accumulate(rank, mfd, wuser, MPIRMA_TYPE_INT64, &ival, 0, iters);
	win_sync(rank, mfd, MPIRMA_IOC_WIN_UNLOCK, "WIN_UNLOCK(ALL)", walloc,
		 MPIRMA_RANK_ALL, 0);
	win_sync(rank, mfd, MPIRMA_IOC_WIN_UNLOCK, "WIN_UNLOCK(ALL)", wuser,
		 MPIRMA_RANK_ALL, 0);

	/* everyone is done once the fence returns */
	win_sync(rank, mfd, MPIRMA_IOC_WIN_FENCE, "WIN_FENCE", walloc, 0, 0);
	win_sync(rank, mfd, MPIRMA_IOC_WIN_FENCE, "WIN_FENCE", wuser, 0, 0);

	if (rank == 0) {
		int64_t want = (int64_t)iters * nranks * (nranks + 1) / 2;
		struct { int64_t i; double d; } got;
		struct mpirma_op op;
		struct mpirma_rma rma;

		/* read the kernel-allocated window with a GET (it could also
		 * be mmap'ed); the user window is our own memory
		 */
		memset(&op, 0, sizeof(op));
		op.kind = MPIRMA_KIND_GET;
		op.type = MPIRMA_TYPE_BYTE;
		op.target.count = sizeof(got);
		op.result.addr = (uintptr_t)&got;
		op.result.count = sizeof(got);
		memset(&rma, 0, sizeof(rma));
		rma.size = sizeof(rma);
		rma.win_id = walloc;
		rma.nops = 1;
		rma.ops = (uintptr_t)&op;
		rma.op_size = sizeof(op);
		xioctl(rank, mfd, MPIRMA_IOC_RMA, "RMA(GET)", &rma);
		if (op.status)
			die(-op.status, "rank 0: GET");
		bad |= report("int64 (alloc window)", nranks, iters, got.i, want);
		bad |= report("int64 (user window)", nranks, iters, user_mem[0],
			      want);
		bad |= report("double (alloc window)", nranks, iters,
			      (int64_t)got.d, want);
		fflush(stdout);
	}
	win_sync(rank, mfd, MPIRMA_IOC_WIN_FREE, "WIN_FREE", walloc, 0, 0);
	win_sync(rank, mfd, MPIRMA_IOC_WIN_FREE, "WIN_FREE", wuser, 0, 0);
	close(mfd);
	free(user_mem);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long nranks = 4, iters = 1000;
	struct mpirma_job_create jc;
	pid_t pids[MAX_DEMO_RANKS];
	int dev, opt, failed = 0;
	unsigned long r;

	while ((opt = getopt(argc, argv, "n:i:h")) != -1) {
		switch (opt) {
		case 'n':
			nranks = parse("-n", optarg, MAX_DEMO_RANKS);
			break;
		case 'i':
			iters = parse("-i", optarg, MAX_ITERS);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", PROG, argv[optind]);
		usage(stderr);
		return 2;
	}

	dev = open(MPIRMA_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		int err = errno;

		fprintf(stderr, "%s: %s: %s%s\n", PROG, MPIRMA_DEVICE,
			strerror(err),
			err == ENOENT ? " \u2014 is the module loaded?" :
			err == EACCES ? " \u2014 do you have permission?" : "");
		return 1;
	}
	memset(&jc, 0, sizeof(jc));
	jc.size = sizeof(jc);
	jc.nranks = nranks;
	if (ioctl(dev, MPIRMA_IOC_JOB_CREATE, &jc) < 0)
		die(errno, "JOB_CREATE(%lu ranks)", nranks);
	close(dev);

	fflush(NULL);
	for (r = 0; r < nranks; r++) {
		pids[r] = fork();
		if (pids[r] < 0) {
			int err = errno;

			while (r--)
				kill(pids[r], SIGKILL);
			die(err, "fork");
		}
		if (pids[r] == 0)
			exit(run_rank(jc.job_fd, r, nranks, iters));
	}
	/* the children joined (or will); only they hold member fds */
	close(jc.job_fd);

	for (r = 0; r < nranks; r++) {
		int status;

		if (waitpid(pids[r], &status, 0) < 0)
			die(errno, "waitpid");
		if (WIFSIGNALED(status)) {
			fprintf(stderr, "%s: rank %lu killed by signal %d\n",
				PROG, r, WTERMSIG(status));
			failed = 1;
		} else if (WEXITSTATUS(status)) {
			failed = 1;
		}
	}
	return failed;
}
