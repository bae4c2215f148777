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

#define PROG		"rma_bench"
#define MAX_REPS	50
#define MAX_SIZES	16
#define MAX_BATCHES	8
#define LINE		64		/* bytes: scaling puts each origin on its own line */
#define SCATTER_ELEMS	8192		/* doubles the batched workload scatters over */
#define MAX_THREADS	16		/* --threads */
#define THREAD_CLOCK_OPS 32		/* threads: operations per clock reading */

enum flavor { FL_ALLOCATE, FL_CREATE, NR_FLAVORS };
static const char *const flavor_names[NR_FLAVORS] = { "allocate", "create" };

enum workload { W_CONTENDED, W_BATCHED, W_LATENCY, W_BANDWIDTH, W_SCALING, NR_WORKLOADS };
static const char *const workload_names[NR_WORKLOADS] = {
	"contended", "batched", "latency", "bandwidth", "scaling",
};

/* What one repetition does; see the header comment. */
enum kind {
	K_CONTENDED, K_SCATTER, K_DISJOINT,
	K_ACC, K_GET_ACC, K_FETCH_OP, K_CAS, K_PUT, K_GET, K_PINGPONG,
	K_BW_ACC, K_BW_PUT,
	K_THR_DISJOINT, K_THR_SAME,
};

static const char *const latency_names[] = {
	[K_ACC] = "accumulate", [K_GET_ACC] = "get_accumulate",
	[K_FETCH_OP] = "fetch_and_op", [K_CAS] = "compare_and_swap",
	[K_PUT] = "put", [K_GET] = "get", [K_PINGPONG] = "pingpong",
};

/* The latency rows: microseconds per operation. */
static bool is_latency(enum kind k)
{
	return k >= K_ACC && k <= K_PINGPONG;
}

/* Pingpong's messages, on a communicator of its own. */
enum { TAG_PING = 1, TAG_PONG, TAG_STOP };
static MPI_Comm pp_comm = MPI_COMM_NULL;
static uint64_t pp_echoed;	/* rank 0: pings echoed in the repetition */

/* The value the get latency reads back: set by the target before. */
#define GET_MARK	42.5

static struct {
	bool wl[NR_WORKLOADS];
	bool fl[NR_FLAVORS];
	unsigned int reps;
	double cell_time;		/* seconds, all repetitions of a cell */
	size_t sizes[MAX_SIZES];	/* bandwidth sizes, bytes, multiples of 8 */
	unsigned int nsizes;
	unsigned int batches[MAX_BATCHES];
	unsigned int nbatches;
	const char *impl;
	const char *csv;
	bool remote;			/* --remote */
	unsigned int threads;		/* --threads: the threaded workload alone */
} opt;

static int rank, nranks;
static int first_origin;		/* the lowest rank that may be an origin */
static FILE *csv;

#include "bench_mpi.h"
static unsigned int wrong;		/* rank 0: repetitions that failed verification */
static uint64_t thread_ops[MAX_THREADS];	/* rank 0: the threads' counts */

/* One window: rank 0's memory is the target of everything. */
struct win {
	MPI_Win w;
	enum flavor fl;
	unsigned char *base;		/* this rank's window memory */
	size_t bytes;			/* rank 0's window size */
	void *malloced;			/* FL_CREATE: free after MPI_Win_free */
};

/* One cell: what the repetitions do and who does it. */
struct cell {
	enum kind kind;
	const char *workload;		/* CSV name, the flavor is appended */
	int first, norigins;		/* origins: ranks first..first+norigins-1 */
	size_t bytes;			/* bandwidth: bytes per operation */
	unsigned int batch;		/* operations per flush */
};

/* ------------------------------------------------------------ helpers */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *xmalloc(size_t len)
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

/* ------------------------------------------------------------ one repetition */

/* Batched: the element the j-th operation of rank r updates. */
static unsigned int scatter_idx(int r, uint64_t j)
{
	return (unsigned int)(((uint64_t)r * 977 + j * 613) & (SCATTER_ELEMS - 1));
}

/* Put bandwidth: the value rank r writes at element i of its range. */
static double put_val(int r, size_t i)
{
	return (double)(r + 1) * 1e7 + (double)i;
}

static size_t region_bytes(const struct cell *c)
{
	switch (c->kind) {
	case K_SCATTER:
		return SCATTER_ELEMS * sizeof(double);
	case K_DISJOINT:
		return (size_t)nranks * LINE;
	case K_THR_DISJOINT:
		return MAX_THREADS * LINE;
	case K_BW_ACC:
		return c->bytes;
	case K_BW_PUT:
		return (size_t)nranks * c->bytes;
	default:
		return sizeof(double);
	}
}

/*
 * The origin's loop; returns the operations done, counts wrong fetched
 * values in *bad.  src holds the origin data, res receives fetched data.
 */
static uint64_t origin_loop(const struct cell *c, const struct win *wn, double *src,
			    double rep_time, double *elapsed, uint64_t *bad)
{
	MPI_Win w = wn->w;
	const int n = (int)(c->bytes / sizeof(double));
	const MPI_Aint put_disp = (MPI_Aint)rank * (MPI_Aint)c->bytes;
	const MPI_Aint line_disp = (MPI_Aint)rank * LINE;
	double one = 1.0, dres = 0, t0, t;
	int64_t one64 = 1, i64res = 0, cmp, next;
	uint64_t ops = 0;
	unsigned int b;

	MPI_Win_lock_all(0, w);
	t0 = now();
	do {
		switch (c->kind) {
		case K_CONTENDED:
		case K_ACC:
			MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, w);
			break;
		case K_SCATTER:
			for (b = 0; b < c->batch; b++)
				MPI_Accumulate(&one, 1, MPI_DOUBLE, 0,
					       (MPI_Aint)scatter_idx(rank, ops + b) * 8, 1,
					       MPI_DOUBLE, MPI_SUM, w);
			break;
		case K_DISJOINT:
			MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, line_disp, 1, MPI_DOUBLE,
				       MPI_SUM, w);
			break;
		case K_GET_ACC:
			MPI_Get_accumulate(&one, 1, MPI_DOUBLE, &dres, 1, MPI_DOUBLE, 0, 0, 1,
					   MPI_DOUBLE, MPI_SUM, w);
			break;
		case K_FETCH_OP:
			MPI_Fetch_and_op(&one64, &i64res, MPI_INT64_T, 0, 0, MPI_SUM, w);
			break;
		case K_CAS:
			cmp = (int64_t)ops;
			next = cmp + 1;
			MPI_Compare_and_swap(&next, &cmp, &i64res, MPI_INT64_T, 0, 0, w);
			break;
		case K_PUT:
			dres = (double)(ops + 1);
			MPI_Put(&dres, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, w);
			break;
		case K_GET:
			dres = 0;
			MPI_Get(&dres, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, w);
			break;
		case K_BW_ACC:
			MPI_Accumulate(src, n, MPI_DOUBLE, 0, 0, n, MPI_DOUBLE, MPI_SUM, w);
			break;
		case K_BW_PUT:
			MPI_Put(src, n, MPI_DOUBLE, 0, put_disp, n, MPI_DOUBLE, w);
			break;
		case K_THR_DISJOINT:
		case K_THR_SAME:
			break;		/* threads_loop()'s */
		case K_PINGPONG:
			break;		/* pingpong_loop()'s */
		}
		MPI_Win_flush(0, w);
		/* what came back must be what the serial order implies */
		switch (c->kind) {
		case K_GET_ACC:
			*bad += dres != (double)ops;
			break;
		case K_FETCH_OP:
		case K_CAS:
			*bad += i64res != (int64_t)ops;
			break;
		case K_GET:
			*bad += dres != GET_MARK;
			break;
		default:
			break;
		}
		ops += c->kind == K_SCATTER ? c->batch : 1;
		t = now();
	} while (t - t0 < rep_time);
	MPI_Win_unlock_all(w);
	*elapsed = t - t0;
	return ops;
}

/* Line r of @v (one per origin, @who r) holds the count @ops[r]. */
static bool lines_hold(const double *v, const uint64_t *ops, int n,
		       const char *who, char *why, size_t whylen)
{
	int r;

	for (r = 0; r < n; r++)
		if (v[r * LINE / 8] != (double)ops[r]) {
			snprintf(why, whylen, "%s %d's line holds %.17g, expected %"
				 PRIu64, who, r, v[r * LINE / 8], ops[r]);
			return false;
		}
	return true;
}

/* Rank 0, inside an exclusive epoch on itself: check the target memory. */
static bool check_target(const struct cell *c, const struct win *wn, const uint64_t *ops,
			 char *why, size_t whylen)
{
	const double *v = (const double *)wn->base;
	uint64_t total = 0, *count;
	size_t i, n;
	int r;

	for (r = 0; r < nranks; r++)
		total += ops[r];
	switch (c->kind) {
	case K_CONTENDED:
	case K_ACC:
	case K_GET_ACC:
		if (v[0] != (double)total)
			goto mismatch0;
		return true;
	case K_FETCH_OP:
	case K_CAS:
		if (*(const int64_t *)wn->base != (int64_t)total) {
			snprintf(why, whylen, "target holds %" PRId64 ", expected %" PRIu64,
				 *(const int64_t *)wn->base, total);
			return false;
		}
		return true;
	case K_PUT:
		if (v[0] != (double)total)
			goto mismatch0;
		return true;
	case K_GET:
		if (v[0] != GET_MARK) {
			snprintf(why, whylen, "a get changed the target to %.17g", v[0]);
			return false;
		}
		return true;
	case K_PINGPONG:
		if (pp_echoed != total) {
			snprintf(why, whylen, "rank 0 echoed %" PRIu64 " pings of %" PRIu64,
				 pp_echoed, total);
			return false;
		}
		return true;
	case K_SCATTER:
		count = calloc(SCATTER_ELEMS, sizeof(*count));
		if (!count) {
			snprintf(why, whylen, "out of memory");
			return false;
		}
		for (r = 0; r < nranks; r++)
			for (i = 0; i < ops[r]; i++)
				count[scatter_idx(r, i)]++;
		for (i = 0; i < SCATTER_ELEMS && v[i] == (double)count[i]; i++)
			;
		if (i < SCATTER_ELEMS)
			snprintf(why, whylen, "element %zu holds %.17g, expected %" PRIu64,
				 i, v[i], count[i]);
		free(count);
		return i == SCATTER_ELEMS;
	case K_THR_SAME:
		if (v[0] != (double)total)
			goto mismatch0;
		return true;
	case K_THR_DISJOINT:
		return lines_hold(v, thread_ops, c->norigins, "thread", why, whylen);
	case K_DISJOINT:
		return lines_hold(v, ops, nranks, "rank", why, whylen);
	case K_BW_ACC:
		n = c->bytes / sizeof(double);
		for (i = 0; i < n; i++)
			if (v[i] != (double)total) {
				snprintf(why, whylen, "element %zu holds %.17g, expected %" PRIu64,
					 i, v[i], total);
				return false;
			}
		return true;
	case K_BW_PUT:
		n = c->bytes / sizeof(double);
		for (r = 0; r < nranks; r++)
			for (i = 0; i < n; i++)
				if (v[r * n + i] != (ops[r] ? put_val(r, i) : 0)) {
					snprintf(why, whylen, "rank %d's range, element %zu holds "
						 "%.17g", r, i, v[r * n + i]);
					return false;
				}
		return true;
	}
	return true;
mismatch0:
	snprintf(why, whylen, "target holds %.17g, expected %" PRIu64, v[0], total);
	return false;
}

/* Rank 0: its own window memory, as the repetition must find it. */
static void prepare_target(const struct cell *c, const struct win *wn)
{
	if (rank != 0)
		return;
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wn->w);
	memset(wn->base, 0, region_bytes(c));
	if (c->kind == K_GET)
		*(double *)wn->base = GET_MARK;
	MPI_Win_unlock(0, wn->w);
}

/* One thread of the threaded workload. */
struct thread_arg {
	const struct cell *c;
	MPI_Win w;
	int t;
	double rep_time;
	uint64_t ops;
	double elapsed;
};

static void *thread_loop(void *p)
{
	struct thread_arg *a = p;
	const MPI_Aint disp = a->c->kind == K_THR_DISJOINT ? (MPI_Aint)a->t * LINE : 0;
	double one = 1.0, t0 = now(), t;

	/*
	 * The clock is read every THREAD_CLOCK_OPS operations only: under
	 * emulation (TCG) reading it serializes the vCPUs, so reading it per
	 * operation would measure the clock, not the threads.
	 */
	do {
		for (int i = 0; i < THREAD_CLOCK_OPS; i++) {
			MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, disp, 1, MPI_DOUBLE, MPI_SUM,
				       a->w);
			MPI_Win_flush(0, a->w);
		}
		a->ops += THREAD_CLOCK_OPS;
		t = now();
	} while (t - t0 < a->rep_time);
	a->elapsed = t - t0;
	return NULL;
}

/*
 * Pingpong's origin: 8 bytes to rank 0 and back, until its clock says the
 * repetition is over, then a stop; counts echoes that differ in *@bad.
 */
static uint64_t pingpong_loop(double rep_time, double *elapsed, uint64_t *bad)
{
	double v = 0, back, t0 = now(), t;
	uint64_t ops = 0;

	do {
		v = (double)ops;
		MPI_Send(&v, 1, MPI_DOUBLE, 0, TAG_PING, pp_comm);
		MPI_Recv(&back, 1, MPI_DOUBLE, 0, TAG_PONG, pp_comm, MPI_STATUS_IGNORE);
		*bad += back != v;
		ops++;
		t = now();
	} while (t - t0 < rep_time);
	MPI_Send(&v, 0, MPI_DOUBLE, 0, TAG_STOP, pp_comm);
	*elapsed = t - t0;
	return ops;
}

/* Pingpong at rank 0: echoes rank @origin's pings until its stop. */
static void pingpong_echo(int origin)
{
	MPI_Status st;
	double v;

	pp_echoed = 0;
	for (;;) {
		MPI_Recv(&v, 1, MPI_DOUBLE, origin, MPI_ANY_TAG, pp_comm, &st);
		if (st.MPI_TAG == TAG_STOP)
			break;
		MPI_Send(&v, 1, MPI_DOUBLE, origin, TAG_PONG, pp_comm);
		pp_echoed++;
	}
}

/*
 * The origin of the threaded workload: c->norigins threads in one lock_all
 * epoch; their counts go to @per (MAX_THREADS), the sum is returned.
 */
static uint64_t threads_loop(const struct cell *c, const struct win *wn, double rep_time,
			     double *elapsed, uint64_t *per)
{
	struct thread_arg a[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	uint64_t ops = 0;
	int t;

	MPI_Win_lock_all(0, wn->w);
	for (t = 0; t < c->norigins; t++) {
		a[t] = (struct thread_arg){ c, wn->w, t, rep_time, 0, 0 };
		if (pthread_create(&th[t], NULL, thread_loop, &a[t])) {
			fprintf(stderr, "%s: pthread_create failed\n", PROG);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	*elapsed = 0;
	for (t = 0; t < c->norigins; t++) {
		pthread_join(th[t], NULL);
		per[t] = a[t].ops;
		ops += a[t].ops;
		if (a[t].elapsed > *elapsed)
			*elapsed = a[t].elapsed;
	}
	MPI_Win_unlock_all(wn->w);
	return ops;
}

/*
 * One repetition on every rank; rank 0 gets the figure (NAN when the
 * repetition computed something wrong).
 */
static double one_rep(const struct cell *c, const struct win *wn, double *src, double rep_time)
{
	const bool threaded = c->kind == K_THR_DISJOINT || c->kind == K_THR_SAME;
	bool origin = threaded ? rank == c->first :
		      rank >= c->first && rank < c->first + c->norigins;
	uint64_t ops = 0, bad = 0, sumbad = 0, *all = NULL, per[MAX_THREADS] = { 0 };
	double elapsed = 0, maxel = 0, fig = 0;
	char why[200] = "";
	bool ok = true;
	int r;

	prepare_target(c, wn);
	MPI_Barrier(MPI_COMM_WORLD);
	if (origin && threaded)
		ops = threads_loop(c, wn, rep_time, &elapsed, per);
	else if (origin && c->kind == K_PINGPONG)
		ops = pingpong_loop(rep_time, &elapsed, &bad);
	else if (origin)
		ops = origin_loop(c, wn, src, rep_time, &elapsed, &bad);
	else if (c->kind == K_PINGPONG && rank == 0)
		pingpong_echo(c->first);
	MPI_Barrier(MPI_COMM_WORLD);
	if (threaded)
		MPI_Reduce(per, thread_ops, MAX_THREADS, MPI_UINT64_T, MPI_SUM, 0,
			   MPI_COMM_WORLD);

	if (rank == 0)
		all = xmalloc(nranks * sizeof(*all));
	MPI_Gather(&ops, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	MPI_Reduce(&elapsed, &maxel, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&bad, &sumbad, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (bad)
		fprintf(stderr, "%s: rank %d: %s.%s: %" PRIu64 " fetched values were wrong\n",
			PROG, rank, c->workload, flavor_names[wn->fl], bad);
	if (rank == 0) {
		uint64_t total = 0;

		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wn->w);
		ok = check_target(c, wn, all, why, sizeof(why));
		MPI_Win_unlock(0, wn->w);
		if (!ok)
			fprintf(stderr, "%s: %s.%s, %d origins: WRONG: %s\n", PROG,
				c->workload, flavor_names[wn->fl], c->norigins, why);
		for (r = 0; r < nranks; r++)
			total += all[r];
		if (is_latency(c->kind))
			fig = maxel / (double)total * 1e6;		/* us per op */
		else if (c->kind == K_BW_ACC || c->kind == K_BW_PUT)
			fig = (double)total * (double)c->bytes / maxel / 1e9;	/* GB/s */
		else
			fig = (double)total / maxel;			/* op/s */
		free(all);
		if (!ok || sumbad)
			fig = NAN;
	}
	return fig;
}

/* All repetitions of one cell; rank 0 writes its row. */
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
