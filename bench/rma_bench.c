// SPDX-License-Identifier: GPL-2.0
/*
 * rma_bench: node-local MPI RMA, measured through the standard MPI API only.
 *
 * The very same source builds with mpirma's mpicc, Open MPI's and MPICH's,
 * so that the three can be compared side by side in one run (bench/run,
 * make bench).  No header other than mpi.h and the C/POSIX ones.
 *
 * Every workload runs on two window flavors: MPI_Win_allocate, and
 * MPI_Win_create on ordinary malloc() memory.  Synchronisation is always
 * passive target: the origins hold MPI_Win_lock_all for a repetition and
 * complete every operation (or batch) with MPI_Win_flush.  The target is
 * rank 0's window.
 *
 *   contended   every rank: MPI_Accumulate(SUM) of one double into the same
 *               element, one per flush                          [op/s]
 *   batched     every rank: B accumulates of one double per flush, to
 *               scattered elements (B = 64, 1024)               [op/s]
 *   latency     rank 1 alone, one operation of 8 bytes per flush: accumulate,
 *               get_accumulate, fetch_and_op, compare_and_swap, put, get [us];
 *               and pingpong, the floor under them: rank 1 sends 8 bytes to
 *               rank 0 and waits for them back, on the MPI's point to point
 *               (no window: the same row beside each flavor)         [us]
 *   bandwidth   MPI_Accumulate(SUM, double) of S bytes, every rank into the
 *               same range; MPI_Put of S bytes, every rank into its own
 *               range; S = 4 KiB .. 4 MiB                         [GB/s]
 *   scaling     k = 1..N-1 origins (ranks 1..k), each accumulating into its
 *               own cache line of rank 0, one per flush          [op/s]
 *   threads     (--threads T, alone: MPI_THREAD_MULTIPLE) k = 1..T threads
 *               of one origin rank in one lock_all epoch, each accumulating
 *               one double per flush into its own cache line of rank 0
 *               (threads_disjoint) or into the same element (threads_same);
 *               the N column is k                                [op/s]
 *
 * With --remote the origins of every workload are the ranks on other nodes
 * than rank 0 (MPI_COMM_TYPE_SHARED), which must be the last ones (block
 * placement): so that across nodes every operation measured is remote,
 * rank 0's operations on its own memory no longer hiding them.
 *
 * Method: a repetition is time-bounded (--time / --reps per repetition):
 * each origin runs until its own clock says the repetition is over; the
 * figure is the operations of all origins over the longest origin's time.
 * Every repetition is verified exactly (totals, per-element counts, the
 * values fetched), so a fast wrong answer cannot win: a wrong repetition
 * fails the run.  Rank 0 writes one CSV row per cell with the median, min
 * and max over the repetitions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "../tools/cli.h"
#include "rma_bench/rma.h"

const char *const flavor_names[NR_FLAVORS] = { "allocate", "create" };
MPI_Comm pp_comm = MPI_COMM_NULL;
uint64_t pp_echoed;

struct options opt;

int rank, nranks;
int first_origin;		/* the lowest rank that may be an origin */
FILE *csv;

#include "bench_mpi.h"
unsigned int wrong;		/* rank 0: repetitions that failed verification */
uint64_t thread_ops[MAX_THREADS];	/* rank 0: the threads' counts */

/* ------------------------------------------------------------ helpers */

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void *xmalloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p) {
		fprintf(stderr, "%s: rank %d: out of memory (%zu bytes)\n", PROG, rank, len);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpiexec -n N %s [OPTIONS]\n"
		"Node-local MPI RMA through the standard API; one CSV row per cell.\n\n"
		"  -w, --workloads LIST  contended,batched,latency,bandwidth,scaling (default all)\n"
		"  -f, --flavors LIST    allocate,create (default both)\n"
		"  -t, --time SECONDS    per cell, all repetitions together (default 1)\n"
		"  -R, --reps N          repetitions per cell, 1..%d (default 5)\n"
		"  -s, --sizes LIST      bandwidth sizes, K/M suffix (default 4K,64K,1M,4M)\n"
		"  -b, --batches LIST    accumulates per flush of batched (default 64,1024)\n"
		"  -q, --quick           smoke test: 2 repetitions, 0.05 s per cell, sizes 4K,64K\n"
		"  -r, --remote          origins: only the ranks on other nodes than rank 0\n"
		"  -T, --threads T       only the threaded workload, 1..T threads (1..%d) of one\n"
		"                        rank (the MPI must grant MPI_THREAD_MULTIPLE)\n"
		"      --impl NAME       the CSV's impl column (default: from the library version)\n"
		"      --csv FILE        append the rows to FILE instead of printing them\n"
		"  -h, --help            this text\n\n"
		"CSV: workload,ranks,impl,metric,median,min,max,unit; workload names end in\n"
		".allocate or .create (the window flavor).  Exit status 1 when a result was\n"
		"wrong.\n", PROG, MAX_REPS, MAX_THREADS);
}

static size_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!errno && end != s && *s != '-') {
		if (*end == 'K' || *end == 'k')
			v <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			v <<= 20, end++;
	}
	if (errno || end == s || *end || *s == '-' || v < 8 || v > (64ULL << 20) || v % 8)
		usage_error("--sizes: '%s' is not a multiple of 8 bytes from 8 to 64M", s);
	return v;
}

/* Calls fn for each item of a comma-separated list. */
static void for_each_item(const char *what, const char *s, void (*fn)(const char *item))
{
	char *copy, *tok, *save = NULL;

	if (!*s || *s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		usage_error("%s: empty item in '%s'", what, s);
	copy = xmalloc(strlen(s) + 1);
	strcpy(copy, s);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		fn(tok);
	free(copy);
}

static void add_workload(const char *item)
{
	opt.wl[cli_choice("--workloads", item, workload_names, NR_WORKLOADS,
			  "contended, batched, latency, bandwidth or scaling")] = true;
}

static void add_flavor(const char *item)
{
	opt.fl[cli_choice("--flavors", item, flavor_names, NR_FLAVORS,
			  "allocate or create")] = true;
}

static void add_size(const char *item)
{
	if (opt.nsizes == MAX_SIZES)
		usage_error("--sizes: at most %d sizes", MAX_SIZES);
	opt.sizes[opt.nsizes++] = parse_size(item);
}

static void add_batch(const char *item)
{
	if (opt.nbatches == MAX_BATCHES)
		usage_error("--batches: at most %d", MAX_BATCHES);
	opt.batches[opt.nbatches++] = cli_ulong("--batches", item, 1, 65536);
}

static void parse_options(int argc, char **argv)
{
	enum { O_IMPL = 256, O_CSV };
	static const struct option longopts[] = {
		{ "workloads", required_argument, NULL, 'w' },
		{ "flavors", required_argument, NULL, 'f' },
		{ "time", required_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'R' },
		{ "sizes", required_argument, NULL, 's' },
		{ "batches", required_argument, NULL, 'b' },
		{ "quick", no_argument, NULL, 'q' },
		{ "remote", no_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 'T' },
		{ "impl", required_argument, NULL, O_IMPL },
		{ "csv", required_argument, NULL, O_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool quick = false, have_w = false, have_f = false, have_t = false, have_r = false;
	int c, i;

	while ((c = getopt_long(argc, argv, "w:f:t:R:s:b:qrT:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			for_each_item("--workloads", optarg, add_workload);
			have_w = true;
			break;
		case 'f':
			for_each_item("--flavors", optarg, add_flavor);
			have_f = true;
			break;
		case 't':
			opt.cell_time = cli_seconds("--time", optarg, 0.001, 3600);
			have_t = true;
			break;
		case 'R':
			opt.reps = cli_ulong("--reps", optarg, 1, MAX_REPS);
			have_r = true;
			break;
		case 's':
			for_each_item("--sizes", optarg, add_size);
			break;
		case 'b':
			for_each_item("--batches", optarg, add_batch);
			break;
		case 'q':
			quick = true;
			break;
		case 'r':
			opt.remote = true;
			break;
		case 'T':
			opt.threads = cli_ulong("--threads", optarg, 1, MAX_THREADS);
			break;
		case O_IMPL:
			opt.impl = optarg;
			break;
		case O_CSV:
			opt.csv = optarg;
			break;
		case 'h':
			if (rank == 0)
				usage(stdout);
			MPI_Finalize();
			exit(0);
		default:
			if (rank == 0)
				usage(stderr);
			MPI_Finalize();
			exit(2);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (opt.threads && have_w)
		usage_error("--threads runs alone (MPI_THREAD_MULTIPLE would change what "
			    "the other workloads measure): no --workloads with it");
	for (i = 0; !have_w && !opt.threads && i < NR_WORKLOADS; i++)
		opt.wl[i] = true;
	for (i = 0; !have_f && i < NR_FLAVORS; i++)
		opt.fl[i] = true;
	if (!have_r)
		opt.reps = quick ? 2 : 5;
	if (!have_t)
		opt.cell_time = quick ? 0.05 : 1.0;
	if (!opt.nsizes && quick)
		for_each_item("--sizes", "4K,64K", add_size);
	if (!opt.nsizes)
		for_each_item("--sizes", "4K,64K,1M,4M", add_size);
	if (!opt.nbatches)
		for_each_item("--batches", "64,1024", add_batch);
}

/* The impl column: --impl, else recognised from the library's version. */
static const char *detect_impl(const char *version)
{
	if (opt.impl)
		return opt.impl;
	if (strstr(version, "mpirma"))
		return "mpirma";
	if (strstr(version, "Open MPI"))
		return "openmpi";
	if (strstr(version, "MPICH"))
		return "mpich";
	return "unknown";
}

/* ------------------------------------------------------------ windows */

static size_t max_size(void)
{
	size_t m = 0;
	unsigned int i;

	for (i = 0; opt.wl[W_BANDWIDTH] && i < opt.nsizes; i++)
		if (opt.sizes[i] > m)
			m = opt.sizes[i];
	return m;
}

/* Rank 0's window holds the largest cell: nranks ranges of the largest size. */
static void win_open(struct win *wn, enum flavor fl)
{
	size_t need = (size_t)nranks * max_size();
	MPI_Aint len;

	if (need < SCATTER_ELEMS * sizeof(double))
		need = SCATTER_ELEMS * sizeof(double);
	if (need < (size_t)nranks * LINE)
		need = (size_t)nranks * LINE;
	memset(wn, 0, sizeof(*wn));
	wn->fl = fl;
	wn->bytes = need;
	/* the origins' windows are never targeted, but must exist */
	len = rank == 0 ? (MPI_Aint)need : LINE;
	if (fl == FL_ALLOCATE) {
		MPI_Win_allocate(len, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wn->base, &wn->w);
	} else {
		wn->malloced = xmalloc(len);
		wn->base = wn->malloced;
		MPI_Win_create(wn->base, len, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wn->w);
	}
	memset(wn->base, 0, len);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void win_close(struct win *wn)
{
	MPI_Win_free(&wn->w);
	free(wn->malloced);
}

static void run_cell(const struct cell *c, const struct win *wn, double *src)
{
	double v[MAX_REPS], rep_time = opt.cell_time / opt.reps, med;
	const char *metric, *unit;
	unsigned int i, n = 0;
	double t0 = now();

	for (i = 0; i < opt.reps; i++) {
		double f = one_rep(c, wn, src, rep_time);

		if (rank == 0 && isnan(f))
			wrong++;
		else if (rank == 0)
			v[n++] = f;
	}
	if (rank != 0 || n == 0)
		return;
	if (is_latency(c->kind)) {
		metric = "latency";
		unit = "us";
	} else if (c->kind == K_BW_ACC || c->kind == K_BW_PUT) {
		metric = "bandwidth";
		unit = "GB/s";
	} else {
		metric = "throughput";
		unit = "op/s";
	}
	med = bench_median(v, (int)n);
	/* a cell with a wrong repetition reports nothing: the run fails */
	if (n < opt.reps)
		return;
	fprintf(csv, "%s.%s,%d,%s,%s,%.6g,%.6g,%.6g,%s\n", c->workload, flavor_names[wn->fl],
		c->norigins, opt.impl, metric, med, v[0], v[n - 1], unit);
	fflush(csv);
	fprintf(stderr, "%s: %-8s %-26s %-8s %2d origins: median %-9.4g %-4s (%.1f s)\n", PROG,
		opt.impl, c->workload, flavor_names[wn->fl], c->norigins,
		med, unit, now() - t0);
}

/* ------------------------------------------------------------ workloads */

/*
 * The origins: with --remote the ranks not on rank 0's node, which must be
 * the last ones; else every rank (rank 0 only as the target of latency and
 * scaling when there is another).
 */
static void find_origins(void)
{
	int on0 = 0, mine, first = nranks, bad = 0;
	MPI_Comm node;

	if (!opt.remote) {
		first_origin = 0;
		return;
	}
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	/* a rank shares rank 0's node when its node communicator holds rank 0 */
	mine = rank == 0;
	MPI_Allreduce(&mine, &on0, 1, MPI_INT, MPI_MAX, node);
	MPI_Comm_free(&node);
	mine = on0 ? nranks : rank;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	mine = on0 && rank > first;
	MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (first == nranks)
		usage_error("--remote: every rank is on rank 0's node");
	if (bad)
		usage_error("--remote: the ranks on other nodes than rank 0 must be the last "
			    "(place them by block)");
	first_origin = first;
}

static void run_flavor(enum flavor fl, double *src)
{
	const int all = nranks - first_origin;	/* every origin */
	const int one = first_origin ? first_origin : nranks > 1;	/* a lone origin */
	static char names[MAX_SIZES * 2 + MAX_BATCHES + 8][64];
	unsigned int nn = 0, i;
	struct cell c;
	struct win wn;
	int k;

	win_open(&wn, fl);
	if (opt.wl[W_CONTENDED]) {
		c = (struct cell){ K_CONTENDED, "contended", first_origin, all, 8, 1 };
		run_cell(&c, &wn, src);
	}
	for (i = 0; opt.wl[W_BATCHED] && i < opt.nbatches; i++) {
		snprintf(names[nn], sizeof(names[nn]), "batched_%u", opt.batches[i]);
		c = (struct cell){ K_SCATTER, names[nn++], first_origin, all, 8,
				   opt.batches[i] };
		run_cell(&c, &wn, src);
	}
	for (k = K_ACC; opt.wl[W_LATENCY] && k <= K_PINGPONG; k++) {
		if (k == K_PINGPONG && nranks < 2)
			break;		/* no other rank to echo */
		snprintf(names[nn], sizeof(names[nn]), "latency_%s", latency_names[k]);
		/* one origin alone, so that the target is another process */
		c = (struct cell){ k, names[nn++], one, 1, 8, 1 };
		run_cell(&c, &wn, src);
	}
	for (i = 0; opt.wl[W_BANDWIDTH] && i < opt.nsizes; i++) {
		size_t s = opt.sizes[i];
		char sz[24];

		if (s % (1 << 20) == 0)
			snprintf(sz, sizeof(sz), "%zuM", s >> 20);
		else if (s % (1 << 10) == 0)
			snprintf(sz, sizeof(sz), "%zuK", s >> 10);
		else
			snprintf(sz, sizeof(sz), "%zu", s);
		snprintf(names[nn], sizeof(names[nn]), "bandwidth_accumulate_%s", sz);
		c = (struct cell){ K_BW_ACC, names[nn++], first_origin, all, s, 1 };
		run_cell(&c, &wn, src);
		snprintf(names[nn], sizeof(names[nn]), "bandwidth_put_%s", sz);
		c = (struct cell){ K_BW_PUT, names[nn++], first_origin, all, s, 1 };
		/* each rank's own range: its values, so misplaced data shows */
		for (size_t e = 0; e < s / sizeof(double); e++)
			src[e] = put_val(rank, e);
		run_cell(&c, &wn, src);
		for (size_t e = 0; e < s / sizeof(double); e++)
			src[e] = 1.0;
	}
	/* origins one..one+k-1; a single rank can only target itself */
	for (k = 1; opt.wl[W_SCALING] && k <= (nranks > one ? nranks - one : 1); k++) {
		c = (struct cell){ K_DISJOINT, "scaling", one, k, 8, 1 };
		run_cell(&c, &wn, src);
	}
	/* k threads of the lone origin: to their own lines, to one element */
	for (k = 1; k <= (int)opt.threads; k++) {
		c = (struct cell){ K_THR_DISJOINT, "threads_disjoint", one, k, 8, 1 };
		run_cell(&c, &wn, src);
	}
	for (k = 1; k <= (int)opt.threads; k++) {
		c = (struct cell){ K_THR_SAME, "threads_same", one, k, 8, 1 };
		run_cell(&c, &wn, src);
	}
	win_close(&wn);
}

int main(int argc, char **argv)
{
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	unsigned int total_wrong;
	double start, *src;
	size_t i, n;
	int len, f, provided = MPI_THREAD_SINGLE, want = MPI_THREAD_SINGLE;

	/* --threads needs MPI_THREAD_MULTIPLE, the rest the default level */
	for (f = 1; f < argc; f++)
		if (!strncmp(argv[f], "-T", 2) || !strncmp(argv[f], "--threads", 9))
			want = MPI_THREAD_MULTIPLE;
	if (want == MPI_THREAD_SINGLE)
		MPI_Init(&argc, &argv);
	else
		MPI_Init_thread(&argc, &argv, want, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	parse_options(argc, argv);
	if (opt.threads && provided < MPI_THREAD_MULTIPLE)
		usage_error("--threads: this MPI grants thread level %d, not "
			    "MPI_THREAD_MULTIPLE", provided);
	MPI_Get_library_version(version, &len);
	/* the impl column, fixed once */
	opt.impl = detect_impl(version);
	find_origins();
	MPI_Comm_dup(MPI_COMM_WORLD, &pp_comm);

	csv = bench_csv_open(opt.csv);
	if (rank == 0) {
		/* the first line of a multi-line version string is enough */
		version[strcspn(version, "\n")] = 0;
		fprintf(stderr, "%s: %s (%s), %d ranks, %u x %.3g s per cell\n", PROG,
			opt.impl, version, nranks, opt.reps, opt.cell_time / opt.reps);
	}

	n = max_size() / sizeof(double);
	src = xmalloc((n ? n : 1) * sizeof(double));
	for (i = 0; i < n; i++)
		src[i] = 1.0;

	start = now();
	for (f = 0; f < NR_FLAVORS; f++)
		if (opt.fl[f])
			run_flavor(f, src);
	free(src);

	MPI_Comm_free(&pp_comm);
	MPI_Bcast(&wrong, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
	total_wrong = wrong;
	if (rank == 0) {
		fprintf(stderr, "%s: %s: %u wrong repetitions, %.1f s\n", PROG, opt.impl,
			total_wrong, now() - start);
		if (csv != stdout)
			fclose(csv);
	}
	MPI_Finalize();
	return total_wrong ? 1 : 0;
}
