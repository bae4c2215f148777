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

#include "mpirma_uapi.h"
#include "cli.h"

#define PROG		"mpirma-bench"
#define MAX_RANKS	256		/* processes one job forks */
#define MAX_REPS	50
#define MAX_COUNTS	32		/* rank counts in one run */
#define MAX_BATCH	4096
#define LINE		64		/* bytes per cache line (disjoint stride) */
/*
 * fetch_op and CAS record every value a rank saw, to check afterwards that
 * all of them together are a permutation; this bounds the memory that takes
 * (8 MiB per rank, a 128 KiB bit per rank).  A repetition that reaches it
 * simply ends early: the rate is still operations / elapsed time.
 */
#define REC_CAP		(1U << 20)

/* ------------------------------------------------------------ workloads */

enum workload { W_CONTENDED, W_DISJOINT, W_LARGE, W_FETCH_OP, W_CAS, NR_WORKLOADS };
enum floor { F_NULL, F_MEMCPY, NR_FLOORS };

struct workload_desc {
	const char *name;	/* CSV and option key */
	const char *what;	/* table heading */
	const char *unit;
	bool bytes;		/* figure in GB/s of target bytes, not op/s */
	bool record;		/* fetch_op/CAS: record values, permutation check */
};

static const struct workload_desc workloads[NR_WORKLOADS] = {
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

static const struct workload_desc floors[NR_FLOORS] = {
	[F_NULL] = { "null_ioctl", "MPIRMA_IOC_NULL, the floor of any call into the kernel",
		     "op/s", false, false },
	[F_MEMCPY] = { "memcpy", "user-space memcpy of the large size, the bandwidth floor",
		       "GB/s", true, false },
};

static const char *const strategy_names[MPIRMA_NR_STRATEGIES] = {
	[MPIRMA_ATOM_DEFAULT] = "default",
	[MPIRMA_ATOM_LOCK] = "lock",
	[MPIRMA_ATOM_STRIPED] = "striped",
	[MPIRMA_ATOM_NATIVE] = "native",
	[MPIRMA_ATOM_DELEGATE] = "delegate",
	[MPIRMA_ATOM_BULK] = "bulk",
};

/* ------------------------------------------------------------ options */

static struct options {
	uint32_t counts[MAX_COUNTS];	/* rank counts, ascending */
	unsigned int ncounts;
	unsigned int strats[MPIRMA_NR_STRATEGIES];	/* strategy ids, in column order */
	unsigned int nstrats;
	unsigned int ref;		/* the ratios' reference: a strategy id, 0 = none */
	bool wl[NR_WORKLOADS];
	unsigned int reps;
	double cell_time;		/* seconds per cell, all repetitions */
	unsigned int batch;
	uint64_t large;			/* bytes of the large accumulate */
	bool dbl;			/* element type of the accumulates: double */
	bool pin;
	const char *csv, *plot;
} opt;

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

/* ------------------------------------------------------------ results */

/* One cell: a (rank count, workload, strategy), or a floor. */
struct cell {
	unsigned int nreps;
	bool wrong;
	double val[MAX_REPS];		/* the figure: op/s or GB/s */
	double tries[MAX_REPS];		/* CAS: attempts/s */
	double cont[MAX_REPS];		/* lock sections found taken, per operation */
	char why[288];			/* the first wrong result */
};

/* What one rank reports at the end of a repetition. */
struct slot {
	uint64_t ops;			/* operations done (CAS: successful ones) */
	uint64_t tries;			/* CAS attempts */
	double t0, t1;			/* CLOCK_MONOTONIC, seconds */
	int bad;			/* its own checks failed: why[] says how */
	char why[160];
} __attribute__((aligned(LINE)));

struct results {
	struct cell cell[MAX_COUNTS][NR_WORKLOADS][MPIRMA_NR_STRATEGIES];
	struct cell floor[MAX_COUNTS][NR_FLOORS];
	int target_node;		/* node of rank 0's window memory, -2: unknown */
	int worker;			/* delegate worker serving it, -2: unknown */
	/* bitmap words the last repetition may have set (jobs share the bitmap) */
	size_t bitmap_dirty;
	struct slot slot[MAX_RANKS];
};

static struct results *res;		/* MAP_SHARED, set before any fork */
static uint64_t *bitmap;		/* MAP_SHARED, fetch_op/CAS permutation */
static size_t bitmap_words;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Tools link without libm: the two helpers it would have given us. */
static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, min and max of @n values; NaN when there are none. */
static void stats3(const double *v, unsigned int n, double *med, double *min, double *max)
{
	double s[MAX_REPS];

	if (!n) {
		*med = *min = *max = NAN;
		return;
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	*min = s[0];
	*max = s[n - 1];
	*med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The median of a cell, NaN when it has no valid figure. */
static double cell_median(const struct cell *c)
{
	double med, min, max;

	if (c->wrong)
		return NAN;
	stats3(c->val, c->nreps, &med, &min, &max);
	return med;
}

/* ------------------------------------------------------------ a rank */

/* Everything a rank process uses. */
struct rank {
	uint32_t rank, nranks;
	unsigned int ci;		/* index of this rank count in opt.counts */
	int mfd;
	double rep_time;
	int64_t *rec;			/* fetch_op/CAS values seen, REC_CAP */
	uint8_t *buf;			/* origin of large, memcpy source */
	uint8_t *buf2;			/* memcpy destination; rank 0: GET back */
	uint8_t *zero;			/* rank 0: zeros to reset the target */
	struct mpirma_op ops[MAX_BATCH];
};

/* Report a failed call and exit: "mpirma-bench: rank 2: RMA(ACC): ..." */
static void __attribute__((noreturn, format(printf, 3, 4)))
rank_die(const struct rank *r, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: rank %u of %u: ", PROG, r->rank, r->nranks);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s%s", strerror(err),
			err == ENOMEM ? " (RLIMIT_MEMLOCK? try ulimit -l or a smaller --large-size)" :
			"");
	fputc('\n', stderr);
	exit(1);
}

static void xioctl(const struct rank *r, unsigned long cmd, const char *what, void *arg)
{
	if (ioctl(r->mfd, cmd, arg) < 0)
		rank_die(r, errno, "%s", what);
}

static void barrier(const struct rank *r)
{
	/* our stores to the shared results before the others read them */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	xioctl(r, MPIRMA_IOC_JOB_BARRIER, "JOB_BARRIER", NULL);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* One MPIRMA_IOC_RMA batch; any failed operation is fatal. */
static void rma(const struct rank *r, uint32_t win, struct mpirma_op *ops, uint32_t n,
		const char *what)
{
	struct mpirma_rma b = {
		.size = sizeof(b),
		.win_id = win,
		.nops = n,
		.ops = (uintptr_t)ops,
		.op_size = sizeof(*ops),
	};
	uint32_t k;

	xioctl(r, MPIRMA_IOC_RMA, what, &b);
	if (b.nfailed)
		for (k = 0; k < n; k++)
			if (ops[k].status)
				rank_die(r, -ops[k].status, "%s: operation %u of %u", what, k, n);
}

static uint32_t win_create(const struct rank *r, uint32_t strategy, uint64_t len,
			   uint64_t context)
{
	static uint32_t group[MAX_RANKS];
	struct mpirma_win_create wc;
	uint32_t i;

	for (i = 0; i < r->nranks; i++)
		group[i] = i;
	memset(&wc, 0, sizeof(wc));
	wc.size = sizeof(wc);
	/* kernel pages on rank 0's node (the node of the CPU it is pinned to) */
	wc.flavor = MPIRMA_FLAVOR_ALLOC;
	wc.strategy = strategy;
	wc.disp_unit = 1;
	wc.length = r->rank ? 0 : len;
	wc.ranks = (uintptr_t)group;
	wc.nranks = r->nranks;
	wc.context = context;
	xioctl(r, MPIRMA_IOC_WIN_CREATE, "WIN_CREATE", &wc);
	return wc.win_id;
}

static void win_free(const struct rank *r, uint32_t win)
{
	struct mpirma_win_sync ws = { .size = sizeof(ws), .win_id = win };

	xioctl(r, MPIRMA_IOC_WIN_FREE, "WIN_FREE", &ws);
}

static void win_stats(const struct rank *r, uint32_t win, struct mpirma_win_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->win_id = win;
	xioctl(r, MPIRMA_IOC_WIN_STATS, "WIN_STATS", st);
}

static struct mpirma_layout contig(const void *addr, uint64_t count)
{
	return (struct mpirma_layout){ .addr = (uintptr_t)addr, .count = count };
}

/* PUT (@put) or GET @len bytes at offset 0 of rank 0. */
static void copy_target(const struct rank *r, uint32_t win, void *buf, uint64_t len,
			bool put)
{
	struct mpirma_op op;

	memset(&op, 0, sizeof(op));
	op.kind = put ? MPIRMA_KIND_PUT : MPIRMA_KIND_GET;
	op.type = MPIRMA_TYPE_BYTE;
	op.target = contig(NULL, len);
	if (put)
		op.origin = contig(buf, len);
	else
		op.result = contig(buf, len);
	rma(r, win, &op, 1, put ? "RMA(PUT zeros)" : "RMA(GET check)");
}

/* The bytes of rank 0's window a workload uses. */
static uint64_t target_len(enum workload w, uint32_t nranks)
{
	switch (w) {
	case W_DISJOINT:
		return (uint64_t)nranks * LINE;
	case W_LARGE:
		return opt.large;
	default:
		return LINE;
	}
}

static unsigned int acc_type(void)
{
	return opt.dbl ? MPIRMA_TYPE_DOUBLE : MPIRMA_TYPE_INT64;
}

/*
 * Origin element i of rank r in the large accumulate: varies with i so that
 * an element applied at the wrong place is caught, small enough that every
 * sum is exact in a double.
 */
static int64_t large_val(uint32_t rank, uint64_t i)
{
	return rank + 1 + (int64_t)(i % 7);
}

/* An accumulate element of value @v in the element type, at @p. */
static void put_elem(void *p, int64_t v)
{
	double d = v;

	if (opt.dbl)
		memcpy(p, &d, 8);
	else
		memcpy(p, &v, 8);
}

/* Element at @p as an exact integer; false if a double is not one. */
static bool get_elem(const void *p, int64_t *v)
{
	double d;

	if (!opt.dbl) {
		memcpy(v, p, 8);
		return true;
	}
	memcpy(&d, p, 8);
	*v = (int64_t)d;
	return d == (double)*v;
}

/* The origin values of this rank, and the operations, for workload @w. */
static void prepare(struct rank *r, enum workload w, unsigned int *batch)
{
	static int64_t one = 1;
	static uint8_t val[8];
	uint64_t i, n;
	unsigned int k;

	memset(r->ops, 0, sizeof(r->ops));
	put_elem(val, r->rank + 1);
	switch (w) {
	case W_CONTENDED:
	case W_DISJOINT:
		*batch = opt.batch;
		for (k = 0; k < *batch; k++) {
			r->ops[k].kind = MPIRMA_KIND_ACC;
			r->ops[k].type = acc_type();
			r->ops[k].op = MPIRMA_OP_SUM;
			r->ops[k].target_disp = w == W_DISJOINT ? (uint64_t)r->rank * LINE : 0;
			r->ops[k].origin = contig(val, 1);
			r->ops[k].target = contig(NULL, 1);
		}
		break;
	case W_LARGE:
		*batch = 1;
		n = opt.large / 8;
		for (i = 0; i < n; i++)
			put_elem(r->buf + i * 8, large_val(r->rank, i));
		r->ops[0].kind = MPIRMA_KIND_ACC;
		r->ops[0].type = acc_type();
		r->ops[0].op = MPIRMA_OP_SUM;
		r->ops[0].origin = contig(r->buf, n);
		r->ops[0].target = contig(NULL, n);
		break;
	case W_FETCH_OP:
		*batch = opt.batch;
		for (k = 0; k < *batch; k++) {
			r->ops[k].kind = MPIRMA_KIND_GET_ACC;
			r->ops[k].type = MPIRMA_TYPE_INT64;
			r->ops[k].op = MPIRMA_OP_SUM;
			r->ops[k].origin = contig(&one, 1);
			r->ops[k].target = contig(NULL, 1);
			r->ops[k].result = contig(NULL, 1);	/* set per batch */
		}
		break;
	case W_CAS:
		*batch = 1;
		r->ops[0].kind = MPIRMA_KIND_CAS;
		r->ops[0].type = MPIRMA_TYPE_INT64;
		r->ops[0].target = contig(NULL, 1);	/* the rest per attempt */
		break;
	default:
		break;
	}
}

/* The timed loop of one repetition: fills this rank's slot. */
static void timed_loop(struct rank *r, enum workload w, uint32_t win, unsigned int batch)
{
	struct slot *sl = &res->slot[r->rank];
	uint64_t done = 0, tries = 0;
	int64_t guess = 0, next, old;
	double t0, t, deadline;
	unsigned int k, n;

	if (w == W_CAS) {
		r->ops[0].origin = contig(&next, 1);
		r->ops[0].result = contig(&old, 1);
		r->ops[0].compare = (uintptr_t)&guess;
	}
	t0 = now();
	deadline = t0 + r->rep_time;
	do {
		switch (w) {
		case W_CAS:
			/* one increment attempt; on failure retry from what we saw */
			next = guess + 1;
			rma(r, win, r->ops, 1, "RMA(CAS)");
			tries++;
			if (old == guess)
				r->rec[done++] = guess++;
			else
				guess = old;
			break;
		case W_FETCH_OP:
			n = batch < REC_CAP - done ? batch : REC_CAP - done;
			for (k = 0; k < n; k++)
				r->ops[k].result.addr = (uintptr_t)&r->rec[done + k];
			rma(r, win, r->ops, n, "RMA(GET_ACC)");
			done += n;
			break;
		default:
			rma(r, win, r->ops, batch, "RMA(ACC)");
			done += batch;
			break;
		}
		t = now();
	} while (t < deadline && (!workloads[w].record || done < REC_CAP));
	sl->ops = done;
	sl->tries = tries;
	sl->t0 = t0;
	sl->t1 = t;
	sl->bad = 0;
}

static void __attribute__((format(printf, 2, 3)))
slot_bad(struct slot *sl, const char *fmt, ...)
{
	va_list ap;

	if (sl->bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(sl->why, sizeof(sl->why), fmt, ap);
	va_end(ap);
}

/*
 * fetch_op and CAS, on every rank: the values this rank saw must increase
 * (its operations are applied in order), lie below the final total T, and
 * no other rank may have seen one of them: T values in [0, T) without
 * duplicates are exactly a permutation, i.e. every increment happened once.
 */
static void check_values(struct rank *r)
{
	struct slot *sl = &res->slot[r->rank];
	uint64_t total = 0, i, v, bit;
	uint32_t q;

	for (q = 0; q < r->nranks; q++)
		total += res->slot[q].ops;
	for (i = 0; i < sl->ops; i++) {
		v = (uint64_t)r->rec[i];
		if (i && r->rec[i] <= r->rec[i - 1]) {
			slot_bad(sl, "rank %u saw %lld after %lld (order)", r->rank,
				 (long long)r->rec[i], (long long)r->rec[i - 1]);
			break;
		}
		if (v >= total) {
			slot_bad(sl, "rank %u saw %llu, beyond the %llu increments done",
				 r->rank, (unsigned long long)v, (unsigned long long)total);
			break;
		}
		bit = __atomic_fetch_or(&bitmap[v / 64], 1ULL << (v % 64), __ATOMIC_RELAXED);
		if (bit & (1ULL << (v % 64))) {
			slot_bad(sl, "value %llu seen twice (rank %u and another)",
				 (unsigned long long)v, r->rank);
			break;
		}
	}
}

/* Rank 0, after a repetition: compare the window with what must be there. */
static void verify(struct rank *r, enum workload w, uint32_t win, struct cell *c,
		   const char *where)
{
	uint64_t len = target_len(w, r->nranks), total = 0, i, n;
	int64_t want, got;
	uint32_t q;

	copy_target(r, win, r->buf2, len, false);
	for (q = 0; q < r->nranks; q++) {
		total += res->slot[q].ops;
		if (res->slot[q].bad && !c->wrong) {
			char why[sizeof(res->slot[q].why)];

			/* a copy: both strings live in the shared results */
			memcpy(why, res->slot[q].why, sizeof(why));
			why[sizeof(why) - 1] = 0;
			c->wrong = true;
			snprintf(c->why, sizeof(c->why), "%s: %s", where, why);
		}
	}
	switch (w) {
	case W_CONTENDED:
		for (want = 0, q = 0; q < r->nranks; q++)
			want += (int64_t)res->slot[q].ops * (q + 1);
		if (!get_elem(r->buf2, &got) || got != want)
			goto wrong;
		break;
	case W_DISJOINT:
		for (q = 0; q < r->nranks; q++) {
			want = (int64_t)res->slot[q].ops * (q + 1);
			if (!get_elem(r->buf2 + (size_t)q * LINE, &got) || got != want)
				goto wrong;
		}
		break;
	case W_LARGE:
		n = len / 8;
		for (i = 0; i < n; i++) {
			for (want = 0, q = 0; q < r->nranks; q++)
				want += (int64_t)res->slot[q].ops * large_val(q, i);
			if (!get_elem(r->buf2 + i * 8, &got) || got != want)
				goto wrong;
		}
		break;
	default:
		memcpy(&got, r->buf2, 8);
		want = total;
		if (got != want)
			goto wrong;
		break;
	}
	return;
wrong:
	if (!c->wrong) {
		c->wrong = true;
		snprintf(c->why, sizeof(c->why), "%s: target holds %lld, expected %lld",
			 where, (long long)got, (long long)want);
	}
}

/* One repetition of workload @w under strategy @s, all ranks. */
static void one_rep(struct rank *r, enum workload w, unsigned int s, uint32_t win,
		    unsigned int batch)
{
	struct cell *c = &res->cell[r->ci][w][s];
	struct mpirma_win_stats st0, st1;
	uint64_t len = target_len(w, r->nranks), total = 0, tries = 0, dops;
	double t0 = INFINITY, t1 = 0;
	unsigned int kind = r->ops[0].kind;
	char where[96];
	uint32_t q;

	if (r->rank == 0) {
		copy_target(r, win, r->zero, len, true);
		if (workloads[w].record) {
			memset(bitmap, 0, res->bitmap_dirty * sizeof(*bitmap));
			res->bitmap_dirty = 0;
		}
		win_stats(r, win, &st0);
	}
	barrier(r);
	timed_loop(r, w, win, batch);
	barrier(r);
	if (workloads[w].record) {
		check_values(r);
		barrier(r);
	}
	if (r->rank)
		return;

	win_stats(r, win, &st1);
	snprintf(where, sizeof(where), "%s, %s, %u rank%s, repetition %u",
		 workloads[w].name, strategy_names[s], r->nranks, r->nranks == 1 ? "" : "s",
		 c->nreps + 1);
	verify(r, w, win, c, where);
	for (q = 0; q < r->nranks; q++) {
		total += res->slot[q].ops;
		tries += res->slot[q].tries;
		t0 = dmin(t0, res->slot[q].t0);
		t1 = dmax(t1, res->slot[q].t1);
	}
	c->val[c->nreps] = workloads[w].bytes ? total * (double)opt.large / (t1 - t0) / 1e9 :
		total / (t1 - t0);
	c->tries[c->nreps] = tries / (t1 - t0);
	if (workloads[w].record) {
		/* the ranks set bits below total only (or failed the check) */
		res->bitmap_dirty = total / 64 + 1;
		if (res->bitmap_dirty > bitmap_words)
			res->bitmap_dirty = bitmap_words;
	}
	dops = st1.ops[kind] - st0.ops[kind];
	c->cont[c->nreps] = dops ? (double)(st1.atomic_contended - st0.atomic_contended) / dops :
		0;
	c->nreps++;
}

static void run_workload(struct rank *r, enum workload w)
{
	uint32_t win[MPIRMA_NR_STRATEGIES] = { 0 };
	double start = now();
	unsigned int batch = 1, i, j, s;
	uint64_t len = target_len(w, r->nranks);

	for (i = 0; i < opt.nstrats; i++) {
		s = opt.strats[i];
		win[s] = win_create(r, s, len, (uint64_t)w * MPIRMA_NR_STRATEGIES + s + 1);
	}
	if (r->rank == 0 && res->target_node == -2) {
		/* where the target memory is, and who serves it when delegated */
		struct mpirma_win_query wq = { .size = sizeof(wq), .rank = 0 };

		for (i = 0; i < opt.nstrats; i++) {
			wq.win_id = win[opt.strats[i]];
			xioctl(r, MPIRMA_IOC_WIN_QUERY, "WIN_QUERY", &wq);
			res->target_node = wq.numa_node;
			if (opt.strats[i] == MPIRMA_ATOM_DELEGATE)
				res->worker = wq.worker;
		}
	}
	prepare(r, w, &batch);
	for (i = 0; i < opt.reps; i++)
		for (j = 0; j < opt.nstrats; j++) {
			s = opt.strats[(i + j) % opt.nstrats];
			one_rep(r, w, s, win[s], batch);
		}
	for (i = 0; i < opt.nstrats; i++)
		win_free(r, win[opt.strats[i]]);
	if (r->rank == 0)
		fprintf(stderr, "%s: %u rank%s: %s done in %.1f s\n", PROG, r->nranks,
			r->nranks == 1 ? "" : "s", workloads[w].name, now() - start);
}

/* The floors: the same timed loop around something no strategy touches. */
static void run_floor(struct rank *r, enum floor f)
{
	struct cell *c = &res->floor[r->ci][f];
	struct slot *sl = &res->slot[r->rank];
	double t, deadline, t0, t1;
	uint64_t done, total;
	unsigned int rep;
	uint32_t q;

	for (rep = 0; rep < opt.reps; rep++) {
		barrier(r);
		done = 0;
		t0 = now();
		deadline = t0 + r->rep_time;
		do {
			if (f == F_NULL) {
				xioctl(r, MPIRMA_IOC_NULL, "NULL", NULL);
			} else {
				memcpy(r->buf2, r->buf, opt.large);
				/* the copy is used: the compiler may not drop it */
				__asm__ volatile("" : : "r"(r->buf2) : "memory");
			}
			done++;
			t = now();
		} while (t < deadline);
		sl->ops = done;
		sl->t0 = t0;
		sl->t1 = t;
		barrier(r);
		if (r->rank)
			continue;
		t0 = INFINITY;
		t1 = 0;
		for (total = 0, q = 0; q < r->nranks; q++) {
			total += res->slot[q].ops;
			t0 = dmin(t0, res->slot[q].t0);
			t1 = dmax(t1, res->slot[q].t1);
		}
		c->val[c->nreps++] = floors[f].bytes ?
			total * (double)opt.large / (t1 - t0) / 1e9 : total / (t1 - t0);
	}
}

static void *xalloc(const struct rank *r, size_t len)
{
	void *p = calloc(1, len);

	if (!p)
		rank_die(r, ENOMEM, "malloc(%zu)", len);
	return p;
}

static int rank_main(int job_fd, uint32_t rank, uint32_t nranks, unsigned int ci)
{
	struct mpirma_job_join jj = { .size = sizeof(jj), .rank = rank };
	struct rank *r = calloc(1, sizeof(*r));
	unsigned int w;

	if (!r) {
		fprintf(stderr, "%s: rank %u: out of memory\n", PROG, rank);
		return 1;
	}
	r->rank = rank;
	r->nranks = nranks;
	r->ci = ci;
	r->mfd = job_fd;
	r->rep_time = opt.cell_time / opt.reps;
	xioctl(r, MPIRMA_IOC_JOB_JOIN, "JOB_JOIN", &jj);
	r->mfd = jj.member_fd;
	close(job_fd);

	/* untouched pages cost nothing: rec is only written as far as used */
	r->rec = xalloc(r, (size_t)REC_CAP * sizeof(*r->rec));
	r->buf = xalloc(r, opt.large);
	r->buf2 = xalloc(r, opt.large > (uint64_t)nranks * LINE ? opt.large :
			 (uint64_t)nranks * LINE);
	r->zero = xalloc(r, opt.large > (uint64_t)nranks * LINE ? opt.large :
			 (uint64_t)nranks * LINE);

	run_floor(r, F_NULL);
	run_floor(r, F_MEMCPY);
	for (w = 0; w < NR_WORKLOADS; w++)
		if (opt.wl[w])
			run_workload(r, w);
	barrier(r);
	close(r->mfd);
	return 0;
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

/* ------------------------------------------------------------ topology */

/* "0-3,8" from a libnuma CPU mask; the number of CPUs in it. */
static int cpulist(struct bitmask *m, char *buf, size_t len)
{
	int cpu, first = -1, count = 0, ncpu = numa_num_possible_cpus();
	size_t off = 0;

	buf[0] = 0;
	for (cpu = 0; cpu <= ncpu; cpu++) {
		bool set = cpu < ncpu && numa_bitmask_isbitset(m, cpu);

		if (set) {
			count++;
			if (first < 0)
				first = cpu;
			continue;
		}
		if (first < 0 || off >= len)
			continue;
		if (first == cpu - 1)
			off += snprintf(buf + off, len - off, "%s%d", off ? "," : "", first);
		else
			off += snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", first,
					cpu - 1);
		first = -1;
	}
	if (!count)
		snprintf(buf, len, "none");
	return count;
}

/* The first line of /proc/cpuinfo starting with @key, its value in @buf. */
static bool cpuinfo(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096], *colon;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (strncmp(line, key, strlen(key)) || !colon)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		found = true;
	}
	fclose(f);
	return found;
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (fgets(buf, len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

static char topo_summary[256];		/* for the plot's title */

/*
 * Print where this ran: nodes, their CPUs and memory, distances, the CPU
 * model and whether a hypervisor is present.  Emulated NUMA (QEMU -numa)
 * declares nodes and distances but has uniform latency, so the note says
 * the figures carry no NUMA speed effects.
 */
static void print_topology(FILE *f, const struct mpirma_query *mq)
{
	char model[256] = "unknown", flags[4096] = "", vendor[128], cpus[256];
	int node, max_node, a, b, nodes = 0, ncpu, max_cpn = 0;
	bool hypervisor, numa = numa_available() >= 0;
	struct bitmask *m = numa ? numa_allocate_cpumask() : NULL;
	struct utsname u;
	long long size, free_mem;

	uname(&u);
	cpuinfo("model name", model, sizeof(model));
	cpuinfo("flags", flags, sizeof(flags));
	hypervisor = strstr(flags, " hypervisor") != NULL;
	read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));

	fprintf(f, "machine: %s %s, %ld CPUs online, CPU \"%s\", %s%s%s%s\n", u.sysname,
		u.release, sysconf(_SC_NPROCESSORS_ONLN), model,
		hypervisor ? "under a hypervisor" : "no hypervisor reported",
		*vendor ? " (system vendor " : "", vendor, *vendor ? ")" : "");
	max_node = numa ? numa_max_node() : 0;
	for (node = 0; numa && node <= max_node; node++) {
		numa_bitmask_clearall(m);
		if (numa_node_to_cpus(node, m) < 0)
			continue;
		ncpu = cpulist(m, cpus, sizeof(cpus));
		size = numa_node_size64(node, &free_mem);
		if (!ncpu && size <= 0)
			continue;
		nodes++;
		max_cpn = ncpu > max_cpn ? ncpu : max_cpn;
		fprintf(f, "  node %d: %d CPU%s (%s), %lld MiB\n", node, ncpu, ncpu == 1 ? "" : "s",
			cpus, size > 0 ? size >> 20 : 0);
	}
	if (numa && max_node > 0) {
		fprintf(f, "  node distances (as declared):");
		for (a = 0; a <= max_node; a++) {
			fprintf(f, "%s", a ? " |" : "");
			for (b = 0; b <= max_node; b++)
				fprintf(f, " %d", numa_distance(a, b));
		}
		fputc('\n', f);
	}
	if (!numa)
		fprintf(f, "  no NUMA support (libnuma): one node\n");
	fprintf(f, "topology: %d NUMA node%s (kernel nr_node_ids %u), up to %d CPU%s per node\n",
		nodes ? nodes : 1, nodes == 1 ? "" : "s", mq->nr_numa_nodes, max_cpn,
		max_cpn == 1 ? "" : "s");
	fprintf(f, "NOTE: emulated NUMA has uniform latency: %s\n",
		hypervisor ? "this machine is virtual, so the node distances above are "
		"declared, not real,\n      and nothing here shows a NUMA speed effect; "
		"only ratios measured in this one run mean anything" :
		"this machine reports no hypervisor, so the distances\n"
		"      above come from its firmware; still compare only ratios within one run");
	snprintf(topo_summary, sizeof(topo_summary), "%d node%s, %ld CPUs%s", nodes ? nodes : 1,
		 nodes == 1 ? "" : "s", sysconf(_SC_NPROCESSORS_ONLN),
		 hypervisor ? ", virtual: emulated NUMA has uniform latency, only ratios count" :
		 "");
	if (m)
		numa_free_cpumask(m);
}

/* ------------------------------------------------------------ report */

/* "123.4k": 4 significant digits with an SI suffix (op/s); GB/s as is. */
static const char *fmt_val(char *buf, size_t len, double v, bool bytes)
{
	static const char sfx[] = " kMGT";
	unsigned int i = 0;

	if (isnan(v))
		return "-";
	if (bytes) {
		snprintf(buf, len, "%.4g", v);
		return buf;
	}
	while (v >= 1000 && i < sizeof(sfx) - 2) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, i ? "%.4g%c" : "%.4g", v, sfx[i]);
	return buf;
}

/* Spread of a cell as percentages of its median: "-3/+2%". */
static const char *fmt_spread(char *buf, size_t len, const struct cell *c)
{
	double med, min, max;

	stats3(c->val, c->nreps, &med, &min, &max);
	if (isnan(med) || med <= 0)
		return "";
	snprintf(buf, len, "-%.0f/+%.0f%%", (1 - min / med) * 100, (max / med - 1) * 100);
	return buf;
}

#define COLW 26

static void print_row_cell(FILE *f, const struct cell *c, const struct cell *ref, bool bytes)
{
	char v[32], sp[32], ratio[16] = "", text[96];
	double med = cell_median(c), rmed = ref ? cell_median(ref) : NAN;

	if (c->wrong) {
		fprintf(f, " | %-*s", COLW - 3, "WRONG (see below)");
		return;
	}
	if (!c->nreps) {
		fprintf(f, " | %-*s", COLW - 3, "-");
		return;
	}
	if (!isnan(rmed) && rmed > 0)
		snprintf(ratio, sizeof(ratio), "%.2fx", med / rmed);
	snprintf(text, sizeof(text), "%-7s %6s %s", fmt_val(v, sizeof(v), med, bytes), ratio,
		 fmt_spread(sp, sizeof(sp), c));
	fprintf(f, " | %-*s", COLW - 3, text);
}

static void print_tables(FILE *f)
{
	const char *refname = opt.ref ? strategy_names[opt.ref] : NULL;
	unsigned int w, i, ci, fl, s;
	char hdr[64];

	for (w = 0; w < NR_WORKLOADS; w++) {
		if (!opt.wl[w])
			continue;
		fprintf(f, "\n%s: %s", workloads[w].name, workloads[w].what);
		if (w == W_CONTENDED || w == W_DISJOINT)
			fprintf(f, ", %s, %u per ioctl", opt.dbl ? "double" : "int64", opt.batch);
		else if (w == W_LARGE)
			fprintf(f, ", %llu KiB of %s, 1 per ioctl",
				(unsigned long long)opt.large >> 10, opt.dbl ? "double" : "int64");
		else if (w == W_FETCH_OP)
			fprintf(f, ", %u per ioctl", opt.batch);
		fprintf(f, " [%s%s]\n", w == W_CAS ? "successful increments, " : "",
			workloads[w].unit);
		fprintf(f, "%5s", "");
		for (i = 0; i < opt.nstrats; i++)
			fprintf(f, " | %-*s", COLW - 3, strategy_names[opt.strats[i]]);
		fprintf(f, "\n%5s", "ranks");
		snprintf(hdr, sizeof(hdr), "%-7s %6s %s", "median", refname ? "ratio" : "",
			 "min/max");
		for (i = 0; i < opt.nstrats; i++)
			fprintf(f, " | %-*s", COLW - 3, hdr);
		fputc('\n', f);
		for (ci = 0; ci < opt.ncounts; ci++) {
			fprintf(f, "%5u", opt.counts[ci]);
			for (i = 0; i < opt.nstrats; i++) {
				s = opt.strats[i];
				print_row_cell(f, &res->cell[ci][w][s],
					       refname ? &res->cell[ci][w][opt.ref] : NULL,
					       workloads[w].bytes);
			}
			fputc('\n', f);
		}
	}

	fprintf(f, "\nfloors (no strategy involved): null ioctl [ioctl/s], memcpy of %llu KiB [GB/s]\n",
		(unsigned long long)opt.large >> 10);
	fprintf(f, "%5s", "ranks");
	for (fl = 0; fl < NR_FLOORS; fl++)
		fprintf(f, " | %-*s", COLW - 3, floors[fl].name);
	fputc('\n', f);
	for (ci = 0; ci < opt.ncounts; ci++) {
		fprintf(f, "%5u", opt.counts[ci]);
		for (fl = 0; fl < NR_FLOORS; fl++)
			print_row_cell(f, &res->floor[ci][fl], NULL, floors[fl].bytes);
		fputc('\n', f);
	}

	/* what the kernel counted: explains lock vs striped */
	fprintf(f, "\nlock contention: update sections that found the strategy's lock taken, per\n"
		"operation (median; native counts only its fallback lock, delegate has none)\n");
	fprintf(f, "%-10s %5s", "workload", "ranks");
	for (i = 0; i < opt.nstrats; i++)
		fprintf(f, " %9s", strategy_names[opt.strats[i]]);
	fputc('\n', f);
	for (w = 0; w < NR_WORKLOADS; w++) {
		if (!opt.wl[w])
			continue;
		for (ci = 0; ci < opt.ncounts; ci++) {
			fprintf(f, "%-10s %5u", workloads[w].name, opt.counts[ci]);
			for (i = 0; i < opt.nstrats; i++) {
				const struct cell *c = &res->cell[ci][w][opt.strats[i]];
				double med, min, max;

				stats3(c->cont, c->nreps, &med, &min, &max);
				if (opt.strats[i] == MPIRMA_ATOM_DELEGATE || isnan(med))
					fprintf(f, " %9s", "-");
				else
					fprintf(f, " %9.3g", med);
			}
			fputc('\n', f);
		}
	}
}

/*
 * The tables go through a memory stream so that padded columns leave no
 * blanks at the ends of lines (the output is meant to be pasted as is).
 */
static void print_tables_trimmed(FILE *f)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, n;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		print_tables(f);
		return;
	}
	print_tables(m);
	fclose(m);
	/* strtok_r would drop empty lines: walk the newlines by hand */
	for (line = buf; line && *line; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = 0;
		for (n = strlen(line); n && line[n - 1] == ' '; n--)
			;
		fprintf(f, "%.*s\n", (int)n, line);
	}
	free(buf);
}

/* The wrong cells, one line each; their number. */
static unsigned int print_wrong(FILE *f)
{
	unsigned int w, ci, s, n = 0, checked = 0;

	for (ci = 0; ci < opt.ncounts; ci++)
		for (w = 0; w < NR_WORKLOADS; w++)
			for (s = 0; s < MPIRMA_NR_STRATEGIES; s++) {
				const struct cell *c = &res->cell[ci][w][s];

				checked += c->nreps;
				if (c->wrong) {
					fprintf(f, "WRONG: %s\n", c->why);
					n++;
				}
			}
	if (!n)
		fprintf(f, "\ncorrectness: all %u repetitions verified exact (totals; fetch_op and cas:\n"
			"the values seen form a permutation, in order per rank)\n", checked);
	return n;
}

static void csv_cell(FILE *f, const char *wl, uint32_t ranks, const char *impl,
		     const char *metric, const double *v, unsigned int n, const char *unit)
{
	double med, min, max;
	const char *fmt = !strcmp(unit, "op/s") ? "%.1f" : "%.6g";

	stats3(v, n, &med, &min, &max);
	if (isnan(med))
		return;
	fprintf(f, "%s,%u,%s,%s,", wl, ranks, impl, metric);
	fprintf(f, fmt, med);
	fputc(',', f);
	fprintf(f, fmt, min);
	fputc(',', f);
	fprintf(f, fmt, max);
	fprintf(f, ",%s\n", unit);
}

static int write_csv(const char *path)
{
	unsigned int ci, w, i, s, fl;
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path, strerror(errno));
		return 1;
	}
	/* the columns of the MPI-level benchmark, with strategy for impl */
	fprintf(f, "workload,ranks,strategy,metric,median,min,max,unit\n");
	for (w = 0; w < NR_WORKLOADS; w++)
		for (ci = 0; ci < opt.ncounts && opt.wl[w]; ci++)
			for (i = 0; i < opt.nstrats; i++) {
				const struct cell *c;

				s = opt.strats[i];
				c = &res->cell[ci][w][s];
				if (c->wrong)
					continue;	/* a wrong result has no figure */
				csv_cell(f, workloads[w].name, opt.counts[ci], strategy_names[s],
					 "throughput", c->val, c->nreps, workloads[w].unit);
				if (w == W_CAS)
					csv_cell(f, "cas", opt.counts[ci], strategy_names[s],
						 "attempts", c->tries, c->nreps, "op/s");
				if (s != MPIRMA_ATOM_DELEGATE)
					csv_cell(f, workloads[w].name, opt.counts[ci],
						 strategy_names[s], "lock_contended", c->cont,
						 c->nreps, "per_op");
			}
	for (fl = 0; fl < NR_FLOORS; fl++)
		for (ci = 0; ci < opt.ncounts; ci++)
			csv_cell(f, floors[fl].name, opt.counts[ci], "floor", "throughput",
				 res->floor[ci][fl].val, res->floor[ci][fl].nreps,
				 floors[fl].unit);
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path, strerror(errno));
		return 1;
	}
	return 0;
}

/* A gnuplot single-quoted string: '' stands for '. */
static void gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/*
 * The gnuplot script, data included: one panel per workload (figure against
 * ranks, bars from min to max, one line per strategy) and one of the ratios
 * against the reference at the largest rank count.  Kept beside the PNG so
 * the plot can be restyled without measuring again.
 */
static void write_gnuplot(FILE *f, const char *png)
{
	unsigned int ci, w, i, top = opt.ncounts - 1, npanels = 0;
	double med, min, max;

	for (w = 0; w < NR_WORKLOADS; w++)
		npanels += opt.wl[w];
	npanels += opt.ref != 0;
	fprintf(f, "# %s: generated by %s; run: gnuplot THIS_FILE\n", png, PROG);
	fprintf(f, "set terminal pngcairo size 1500,%d noenhanced font ',10'\nset output ",
		npanels > 3 ? 950 : 500);
	gp_string(f, png);
	fprintf(f, "\nnames = '");
	for (i = 0; i < opt.nstrats; i++)
		fprintf(f, "%s%s", i ? " " : "", strategy_names[opt.strats[i]]);
	fprintf(f, "'\nNS = %u\n", opt.nstrats);

	for (w = 0; w < NR_WORKLOADS; w++) {
		if (!opt.wl[w])
			continue;
		fprintf(f, "$%s << EOD\n", workloads[w].name);
		for (ci = 0; ci < opt.ncounts; ci++) {
			fprintf(f, "%u", opt.counts[ci]);
			for (i = 0; i < opt.nstrats; i++) {
				const struct cell *c = &res->cell[ci][w][opt.strats[i]];

				if (c->wrong)
					med = min = max = NAN;
				else
					stats3(c->val, c->nreps, &med, &min, &max);
				fprintf(f, " %.6g %.6g %.6g", med, min, max);
			}
			fputc('\n', f);
		}
		fprintf(f, "EOD\n");
	}
	if (opt.ref) {
		fprintf(f, "$ratio << EOD\nworkload");
		for (i = 0; i < opt.nstrats; i++)
			fprintf(f, " %s", strategy_names[opt.strats[i]]);
		fputc('\n', f);
		for (w = 0; w < NR_WORKLOADS; w++) {
			double ref;

			if (!opt.wl[w])
				continue;
			ref = cell_median(&res->cell[top][w][opt.ref]);
			fprintf(f, "%s", workloads[w].name);
			for (i = 0; i < opt.nstrats; i++)
				fprintf(f, " %.4g",
					cell_median(&res->cell[top][w][opt.strats[i]]) / ref);
			fputc('\n', f);
		}
		fprintf(f, "EOD\n");
	}

	fprintf(f, "set multiplot layout %d,3 title ", npanels > 3 ? 2 : 1);
	{
		char title[512];

		snprintf(title, sizeof(title),
			 "mpirma-bench: atomicity strategies, median of %u repetitions (bars: min..max); %s",
			 opt.reps, topo_summary);
		gp_string(f, title);
	}
	fprintf(f, "\nset grid ytics\nset key top left\nset xlabel 'ranks'\n");
	fprintf(f, "set xtics (");
	for (ci = 0; ci < opt.ncounts; ci++)
		fprintf(f, "%s%u", ci ? ", " : "", opt.counts[ci]);
	fprintf(f, ")\n");
	if (opt.counts[top] > 4)
		fprintf(f, "set logscale x 2\nset xrange [%g:%g]\n", opt.counts[0] / 1.3,
			opt.counts[top] * 1.3);
	else
		fprintf(f, "set xrange [%g:%g]\n", opt.counts[0] - 0.5, opt.counts[top] + 0.5);
	/* headroom above the data for the key; SI prefixes on op/s */
	fprintf(f, "set yrange [0:*]\nset offsets 0, 0, graph 0.3, 0\n");
	for (w = 0; w < NR_WORKLOADS; w++) {
		char title[160];

		if (!opt.wl[w])
			continue;
		snprintf(title, sizeof(title), "%s [%s%s]", workloads[w].name,
			 w == W_CAS ? "increments/s" : workloads[w].unit,
			 w == W_LARGE ? ", target bytes" : "");
		fprintf(f, "set title ");
		gp_string(f, title);
		fprintf(f, "\nset ylabel '%s'\nset format y '%s'\n",
			workloads[w].bytes ? "GB/s" : "op/s",
			workloads[w].bytes ? "%g" : "%.1s%c");
		/* strategies side by side around each rank count */
		fprintf(f, "plot for [i=1:NS] $%s using ($1%s(i-(NS+1)/2.0)*%s):(column(3*i-1)):"
			"(column(3*i)):(column(3*i+1)) with yerrorlines lw 2 pt 7 lt i "
			"title word(names, i)\n", workloads[w].name,
			opt.counts[top] > 4 ? "*2**(" : "+(",
			opt.counts[top] > 4 ? "0.03)" : "0.06)");
	}
	if (opt.ref) {
		char title[96];

		snprintf(title, sizeof(title), "ratio against %s at %u rank%s",
			 strategy_names[opt.ref], opt.counts[top], opt.counts[top] == 1 ? "" : "s");
		fprintf(f, "unset logscale x\nset autoscale x\nunset xlabel\nset title ");
		gp_string(f, title);
		fprintf(f, "\nset ylabel 'x %s'\nset style data histograms\n"
			"set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
			"set xtics auto\nset key top right\nset yrange [0:*]\nset format y '%%g'\n"
			"set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n"
			"plot for [i=2:NS+1] $ratio using i:xtic(1) lt (i-1) title columnheader(i)\n",
			strategy_names[opt.ref]);
	}
	fprintf(f, "unset multiplot\n");
}

/* Write FILE.gp beside FILE.png and run gnuplot on it; 0 on success. */
static int write_plot(const char *png)
{
	size_t n = strlen(png);
	char *gp = malloc(n + 4);
	int status, ret = 1;
	FILE *f;
	pid_t pid;

	if (!gp)
		return 1;
	memcpy(gp, png, n + 1);
	if (n > 4 && !strcmp(png + n - 4, ".png"))
		gp[n - 4] = 0;
	strcat(gp, ".gp");
	f = fopen(gp, "w");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", PROG, gp, strerror(errno));
		goto out;
	}
	write_gnuplot(f, png);
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", PROG, gp, strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", gp, (char *)NULL);
		fprintf(stderr, "%s: gnuplot: %s (install gnuplot-nox: make deps)\n", PROG,
			strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "%s: running gnuplot: %s\n", PROG, strerror(errno));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: gnuplot %s failed\n", PROG, gp);
		goto out;
	}
	ret = 0;
out:
	free(gp);
	return ret;
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
