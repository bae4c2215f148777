// SPDX-License-Identifier: GPL-2.0
/*
 * mpirma-bench: the atomicity strategies side by side, in one run.
 *
 * For every rank count, every workload and every strategy (lock, striped,
 * native, delegate, bulk) it forks the ranks of one job, as mpirma-demo
 * does, and measures aggregate throughput at the ioctl level (no MPI library):
 *
 *   contended  accumulate SUM, all ranks into one element of rank 0
 *   disjoint   accumulate SUM, each rank into its own cache line of rank 0
 *   large      accumulate SUM of --large-size bytes, all ranks, same range
 *   fetch_op   get_accumulate SUM +1 on one int64 of rank 0
 *   cas        compare_and_swap increment loop on one int64 of rank 0
 *
 * plus two floors that involve no strategy: a null ioctl and memcpy.
 *
 * Every repetition is verified exactly (a benchmark that computes wrong
 * results fails): totals for the accumulates, and for fetch_op and CAS
 * that the values the ranks saw form a permutation of 0..T-1.
 *
 * Methodology, and why:
 *  - All strategies of a workload have a window at once and the
 *    repetitions interleave them (rep r starts with strategy r mod S), so
 *    slow drift of a shared machine hits every strategy alike: only
 *    ratios measured side by side mean anything, above all under TCG.
 *  - A repetition is time-bounded (--time / --reps) rather than
 *    count-bounded, so the run takes the same time on fast and slow
 *    machines; the figure is total operations / (last end - first start).
 *  - Ranks are pinned to CPUs (rank r to the r-th allowed CPU) so the
 *    window memory of rank 0 has a known node and runs are comparable.
 *
 * Results live in a MAP_SHARED region the parent created before forking:
 * rank 0 of each job writes its cells, the parent prints the table, the CSV
 * and the plot once every job is over.  The table, CSV and plot code is
 * written for "columns of implementations against a reference column", so
 * that the later MPI-level benchmark can reuse its shape.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <numa.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mpirma-bench/bench.h"

/* ------------------------------------------------------------ workloads */

const struct workload_desc workloads[NR_WORKLOADS] = {
	[W_CONTENDED] = { "contended", "accumulate SUM, all ranks into one element of rank 0",
			  "op/s", false, false },
	[W_DISJOINT] = { "disjoint", "accumulate SUM, each rank into its own cache line of rank 0",
			 "op/s", false, false },
	[W_LARGE] = { "large", "accumulate SUM, all ranks into the same range of rank 0",
		      "GB/s", true, false },
	[W_FETCH_OP] = { "fetch_op", "get_accumulate SUM +1 (fetch_and_op) on one int64 of rank 0",
			 "op/s", false, true },
	[W_CAS] = { "cas", "compare_and_swap increment loop on one int64 of rank 0, 1 per ioctl",
		    "op/s", false, true },
};

const struct workload_desc floors[NR_FLOORS] = {
	[F_NULL] = { "null_ioctl", "MPIRMA_IOC_NULL, the floor of any call into the kernel",
		     "op/s", false, false },
	[F_MEMCPY] = { "memcpy", "user-space memcpy of the large size, the bandwidth floor",
		       "GB/s", true, false },
};

const char *const strategy_names[MPIRMA_NR_STRATEGIES] = {
	[MPIRMA_ATOM_DEFAULT] = "default",
	[MPIRMA_ATOM_LOCK] = "lock",
	[MPIRMA_ATOM_STRIPED] = "striped",
	[MPIRMA_ATOM_NATIVE] = "native",
	[MPIRMA_ATOM_DELEGATE] = "delegate",
	[MPIRMA_ATOM_BULK] = "bulk",
};

/* What the parent maps before it forks, for the ranks and the report. */
struct results *res;
uint64_t *bitmap;
size_t bitmap_words;

/* ------------------------------------------------------------ options */

struct options opt;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS]\n"
		"Compare mpirma's atomicity strategies side by side (needs /dev/mpirma).\n"
		"  -n, --max-ranks N       largest rank count (default: online CPUs); counts\n"
		"                          1..N when N <= 4, else 1, 2, 4, ... and N\n"
		"  -r, --ranks LIST        the rank counts instead, e.g. 1,2,4\n"
		"  -s, --strategies LIST   default lock,striped,native,delegate,bulk\n"
		"  -w, --workloads LIST    default contended,disjoint,large,fetch_op,cas;\n"
		"                          none: only the floors\n"
		"  -t, --time SECONDS      per cell, all repetitions together (default 1)\n"
		"  -R, --reps N            repetitions per cell, 1..%d (default 5)\n"
		"  -b, --batch N           operations per ioctl for contended, disjoint\n"
		"                          and fetch_op, 1..%d (default 64)\n"
		"  -L, --large-size BYTES  the large accumulate, K/M suffix (default 1M)\n"
		"      --type double|int64 element type of the accumulates (default double)\n"
		"  -q, --quick             smoke test: 3 repetitions, 0.1 s per cell, ranks 1\n"
		"                          and 2, 64K large (explicit options still win)\n"
		"      --csv FILE          write workload,ranks,strategy,metric,median,min,max,unit\n"
		"      --plot FILE.png     render the results with gnuplot (script kept as\n"
		"                          FILE.gp)\n"
		"      --no-pin            do not pin rank r to the r-th allowed CPU\n"
		"  -h, --help              this text\n"
		"Exit status: 0 all results verified, 1 a wrong result or a failure, 2 usage.\n",
		PROG, MAX_REPS, MAX_BATCH);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport(PROG, true, fmt, ap);
	va_end(ap);
	exit(2);
}

/* "1048576", "1024K", "1M" */
static uint64_t parse_size(const char *opt_name, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!errno && end != s && *s != '-') {
		if (*end == 'K' || *end == 'k') {
			v <<= 10;
			end++;
		} else if (*end == 'M' || *end == 'm') {
			v <<= 20;
			end++;
		}
		if (!*end && v >= 8 && v <= (256ULL << 20) && v % 8 == 0)
			return v;
	}
	usage_error("%s wants a multiple of 8 bytes from 8 to 256M, not '%s'",
		    opt_name, s);
}

/* A comma-separated list; calls @fn(item) for each.  Empty items are errors. */
static void parse_list(const char *opt_name, const char *s,
		       void (*fn)(const char *opt_name, const char *item))
{
	char *copy = strdup(s), *save = NULL, *tok;

	if (!copy) {
		perror(PROG);
		exit(1);
	}
	if (!*s || s[strlen(s) - 1] == ',' || *s == ',' || strstr(s, ",,"))
		usage_error("%s: empty item in '%s'", opt_name, s);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		fn(opt_name, tok);
	free(copy);
}

static void add_count(const char *opt_name, const char *item)
{
	uint32_t n = cli_ulong(opt_name, item, 1, MAX_RANKS);
	unsigned int i;

	if (opt.ncounts == MAX_COUNTS)
		usage_error("%s: at most %d rank counts", opt_name, MAX_COUNTS);
	/* keep the list sorted and unique: rows of the table go up */
	for (i = 0; i < opt.ncounts && opt.counts[i] < n; i++)
		;
	if (i < opt.ncounts && opt.counts[i] == n)
		return;
	memmove(&opt.counts[i + 1], &opt.counts[i],
		(opt.ncounts - i) * sizeof(opt.counts[0]));
	opt.counts[i] = n;
	opt.ncounts++;
}

static void add_strategy(const char *opt_name, const char *item)
{
	unsigned int id, i;

	for (id = MPIRMA_ATOM_LOCK; id < MPIRMA_NR_STRATEGIES; id++)
		if (!strcmp(item, strategy_names[id]))
			break;
	if (id == MPIRMA_NR_STRATEGIES)
		usage_error("%s: unknown strategy '%s' (lock, striped, native, delegate, bulk)",
			    opt_name, item);
	for (i = 0; i < opt.nstrats; i++)
		if (opt.strats[i] == id)
			return;
	opt.strats[opt.nstrats++] = id;
}

static void add_workload(const char *opt_name, const char *item)
{
	unsigned int w;

	/* the floors alone (rma_bench takes its reference floors from here) */
	if (!strcmp(item, "none"))
		return;
	for (w = 0; w < NR_WORKLOADS; w++)
		if (!strcmp(item, workloads[w].name)) {
			opt.wl[w] = true;
			return;
		}
	usage_error("%s: unknown workload '%s' (contended, disjoint, large, fetch_op, cas)",
		    opt_name, item);
}

static void parse_options(int argc, char **argv)
{
	enum { O_TYPE = 256, O_CSV, O_PLOT, O_NO_PIN };
	static const struct option longopts[] = {
		{ "max-ranks", required_argument, NULL, 'n' },
		{ "ranks", required_argument, NULL, 'r' },
		{ "strategies", required_argument, NULL, 's' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "time", required_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'R' },
		{ "batch", required_argument, NULL, 'b' },
		{ "large-size", required_argument, NULL, 'L' },
		{ "type", required_argument, NULL, O_TYPE },
		{ "quick", no_argument, NULL, 'q' },
		{ "csv", required_argument, NULL, O_CSV },
		{ "plot", required_argument, NULL, O_PLOT },
		{ "no-pin", no_argument, NULL, O_NO_PIN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long max_ranks = ncpu > 0 ? (unsigned long)ncpu : 1;
	bool quick = false, have_n = false, have_w = false, have_t = false;
	bool have_reps = false, have_large = false;
	int c;

	if (max_ranks > MAX_RANKS)
		max_ranks = MAX_RANKS;
	opt.batch = 64;
	opt.dbl = true;
	opt.pin = true;
	while ((c = getopt_long(argc, argv, "n:r:s:w:t:R:b:L:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			max_ranks = cli_ulong("--max-ranks", optarg, 1, MAX_RANKS);
			have_n = true;
			break;
		case 'r':
			parse_list("--ranks", optarg, add_count);
			break;
		case 's':
			parse_list("--strategies", optarg, add_strategy);
			break;
		case 'w':
			parse_list("--workloads", optarg, add_workload);
			have_w = true;
			break;
		case 't':
			opt.cell_time = cli_seconds("--time", optarg, 0.001, 3600);
			have_t = true;
			break;
		case 'R':
			opt.reps = cli_ulong("--reps", optarg, 1, MAX_REPS);
			have_reps = true;
			break;
		case 'b':
			opt.batch = cli_ulong("--batch", optarg, 1, MAX_BATCH);
			break;
		case 'L':
			opt.large = parse_size("--large-size", optarg);
			have_large = true;
			break;
		case O_TYPE:
			if (strcmp(optarg, "double") && strcmp(optarg, "int64"))
				usage_error("--type is double or int64, not '%s'", optarg);
			opt.dbl = !strcmp(optarg, "double");
			break;
		case 'q':
			quick = true;
			break;
		case O_CSV:
			opt.csv = optarg;
			break;
		case O_PLOT:
			opt.plot = optarg;
			break;
		case O_NO_PIN:
			opt.pin = false;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (have_n && opt.ncounts)
		usage_error("--max-ranks and --ranks exclude each other");

	/* --quick supplies defaults; options given explicitly still win */
	if (!have_reps)
		opt.reps = quick ? 3 : 5;
	if (!have_t)
		opt.cell_time = quick ? 0.1 : 1.0;
	if (!have_large)
		opt.large = quick ? 64 << 10 : 1 << 20;
	if (quick && !have_n && !opt.ncounts && max_ranks > 2)
		max_ranks = 2;
	if (!opt.ncounts) {
		unsigned long n;

		/* every count for small machines, powers of two beyond */
		for (n = 1; n <= max_ranks; n = n < 4 ? n + 1 : n * 2)
			opt.counts[opt.ncounts++] = n;
		if (opt.counts[opt.ncounts - 1] != max_ranks)
			opt.counts[opt.ncounts++] = max_ranks;
	}
	if (!opt.nstrats)
		for (c = MPIRMA_ATOM_LOCK; c < MPIRMA_NR_STRATEGIES; c++)
			opt.strats[opt.nstrats++] = c;
	if (!have_w)
		for (c = 0; c < NR_WORKLOADS; c++)
			opt.wl[c] = true;
	/* the window spinlock is the reference, when it is measured */
	for (c = 0; c < (int)opt.nstrats; c++)
		if (opt.strats[c] == MPIRMA_ATOM_LOCK)
			opt.ref = MPIRMA_ATOM_LOCK;
}

/* ------------------------------------------------------------ the parent */

static int allowed_cpus[CPU_SETSIZE];
static int nallowed;

static void pin(uint32_t rank)
{
	cpu_set_t set;

	if (!opt.pin || !nallowed)
		return;
	CPU_ZERO(&set);
	CPU_SET(allowed_cpus[rank % nallowed], &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		fprintf(stderr, "%s: rank %u: sched_setaffinity: %s (running unpinned)\n",
			PROG, rank, strerror(errno));
}

/* One job of @nranks processes through every workload; 0 if all went well. */
static int run_count(unsigned int ci)
{
	uint32_t nranks = opt.counts[ci], q;
	struct mpirma_job_create jc = { .size = sizeof(jc), .nranks = nranks };
	pid_t pids[MAX_RANKS];
	int dev, failed = 0, status;

	dev = open(MPIRMA_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0 || ioctl(dev, MPIRMA_IOC_JOB_CREATE, &jc) < 0) {
		fprintf(stderr, "%s: %s: %s\n", PROG, dev < 0 ? MPIRMA_DEVICE : "JOB_CREATE",
			strerror(errno));
		if (dev >= 0)
			close(dev);
		return 1;
	}
	close(dev);
	fflush(NULL);
	for (q = 0; q < nranks; q++) {
		pids[q] = fork();
		if (pids[q] < 0) {
			fprintf(stderr, "%s: fork: %s\n", PROG, strerror(errno));
			while (q--)
				kill(pids[q], SIGKILL);
			close(jc.job_fd);
			for (q = 0; q < nranks && pids[q] > 0; q++)
				waitpid(pids[q], NULL, 0);
			return 1;
		}
		if (pids[q] == 0) {
			/* a rank must not outlive a parent that died */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pin(q);
			exit(rank_main(jc.job_fd, q, nranks, ci));
		}
	}
	/* only the ranks hold member fds now: a rank that dies ends the job */
	close(jc.job_fd);
	for (q = 0; q < nranks; q++) {
		if (waitpid(pids[q], &status, 0) < 0) {
			fprintf(stderr, "%s: waitpid: %s\n", PROG, strerror(errno));
			failed = 1;
		} else if (WIFSIGNALED(status)) {
			fprintf(stderr, "%s: %u ranks: rank %u killed by signal %d\n", PROG,
				nranks, q, WTERMSIG(status));
			failed = 1;
		} else if (WEXITSTATUS(status)) {
			failed = 1;
		}
	}
	return failed;
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	struct mpirma_query mq = { .size = sizeof(mq) };
	unsigned int ci, w, s, i, nwrong;
	double start = now();
	cpu_set_t set;
	int dev, failed = 0, cpu;
	size_t len;

	parse_options(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);

	dev = open(MPIRMA_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		int err = errno;

		fprintf(stderr, "%s: %s: %s%s\n", PROG, MPIRMA_DEVICE, strerror(err),
			err == ENOENT ? " (is the module loaded? try tools/mpirma-vm -- ...)" : "");
		return 1;
	}
	if (ioctl(dev, MPIRMA_IOC_QUERY, &mq) < 0) {
		fprintf(stderr, "%s: QUERY: %s\n", PROG, strerror(errno));
		return 1;
	}
	close(dev);
	for (i = 0; i < opt.nstrats; i++)
		if (opt.strats[i] >= mq.nr_strategies) {
			fprintf(stderr, "%s: this module does not know strategy %s\n", PROG,
				strategy_names[opt.strats[i]]);
			return 1;
		}
	if (opt.counts[opt.ncounts - 1] > mq.max_ranks) {
		fprintf(stderr, "%s: the module allows at most %u ranks\n", PROG, mq.max_ranks);
		return 1;
	}

	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		   -1, 0);
	bitmap_words = (size_t)opt.counts[opt.ncounts - 1] * REC_CAP / 64;
	len = bitmap_words * sizeof(*bitmap);
	bitmap = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED || bitmap == MAP_FAILED) {
		fprintf(stderr, "%s: mmap: %s\n", PROG, strerror(errno));
		return 1;
	}
	res->target_node = -2;
	res->worker = -2;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set))
				allowed_cpus[nallowed++] = cpu;

	printf("%s: strategies", PROG);
	for (i = 0; i < opt.nstrats; i++)
		printf("%s %s", i ? "," : "", strategy_names[opt.strats[i]]);
	printf("; ranks");
	for (ci = 0; ci < opt.ncounts; ci++)
		printf("%s %u", ci ? "," : "", opt.counts[ci]);
	printf("; %u repetitions x %.3g s per cell\n", opt.reps, opt.cell_time / opt.reps);
	print_topology(stdout, &mq);
	if (opt.pin && nallowed) {
		printf("ranks pinned: rank r on CPU");
		for (i = 0; i < (unsigned int)nallowed && i < opt.counts[opt.ncounts - 1]; i++)
			printf("%s %d (node %d)", i ? "," : "", allowed_cpus[i],
			       numa_available() >= 0 ? numa_node_of_cpu(allowed_cpus[i]) : 0);
		printf("%s\n", opt.counts[opt.ncounts - 1] > (unsigned int)nallowed ?
		       ", then round robin" : "");
	} else {
		printf("ranks not pinned\n");
	}
	printf("module default strategy: %s\n",
	       mq.default_strategy < MPIRMA_NR_STRATEGIES ?
	       strategy_names[mq.default_strategy] : "unknown");

	for (ci = 0; ci < opt.ncounts && !failed; ci++)
		failed = run_count(ci);
	if (failed)
		fprintf(stderr, "%s: a rank failed; the figures below are incomplete\n", PROG);

	if (res->target_node != -2)
		printf("target: rank 0's window memory (kernel pages) on node %d; delegate: "
		       "served by worker %d\n", res->target_node, res->worker);
	print_tables_trimmed(stdout);
	nwrong = print_wrong(stdout);
	if (opt.csv && write_csv(opt.csv))
		failed = 1;
	if (opt.plot && write_plot(opt.plot))
		failed = 1;
	printf("run time: %.1f s\n", now() - start);

	/* a cell must have all its repetitions to count as measured */
	for (ci = 0; ci < opt.ncounts && !failed; ci++)
		for (w = 0; w < NR_WORKLOADS; w++)
			for (i = 0; i < opt.nstrats && opt.wl[w]; i++) {
				s = opt.strats[i];
				if (res->cell[ci][w][s].nreps != opt.reps)
					failed = 1;
			}
	return failed || nwrong ? 1 : 0;
}
