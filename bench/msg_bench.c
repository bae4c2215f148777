// SPDX-License-Identifier: GPL-2.0
/*
 * msg_bench - what an RMA program pays around its RMA: messages, barriers
 * and small collectives, the same source built with each MPI's mpicc.
 *
 * Rows (per size, medians over --rounds rounds, each round as many
 * iterations as fill --time seconds, counted once by rank 0 and broadcast
 * so that every rank runs the same loop):
 *   pingpong_N	ranks 0 and 1, MPI_Send/MPI_Recv of N bytes: half a round
 *		trip (latency, us) and N / that (bandwidth, MB/s); the other
 *		ranks wait in the broadcast that ends the round
 *   barrier	MPI_Barrier (us)
 *   allreduce_N	MPI_Allreduce of N bytes of doubles, MPI_SUM (us)
 *   bcast_N	MPI_Bcast of N bytes from rank 0 (us)
 *   put_flush_barrier	MPI_Put of 8 bytes to the next rank, MPI_Win_flush,
 *		MPI_Barrier, in a lock_all epoch (IMB's truly passive put)
 *
 * --entry-pairs: each round of the message rows also runs the same steps
 * through the profiling entries (PMPI_Send, PMPI_Barrier...), right before
 * or after (the order alternates), as many as fill the round at their own
 * pace, and a row "entry_cost" gives the median over rounds of MPI_ time
 * over PMPI_ time per step.  Under the hybrid layer, which wraps some MPI_
 * calls, PMPI_ is the host's own call: the ratio is what the layer adds,
 * free of the spread between launches (up to 2x in a VM); elsewhere both
 * are the same call and the ratio shows the noise.
 *
 * Output: CSV rows workload,ranks,impl,metric,median,min,max,unit (the
 * format of rma_bench, so bench/summary's tools read both).
 */
#include <getopt.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "msg_bench"
#include "../tools/cli.h"

#define MAX_ROUNDS 16

static int rank, size;

static struct {
	const char *impl;
	const char *csv;
	double time;
	int rounds;
	size_t pp_max;
	size_t coll_max;
	bool pairs;
	bool errors_return;
	bool window_open;
} opt = { "mpi", NULL, 0.2, 3, 4 << 20, 64 << 10, false, false, false };

/* The message steps' entry: MPI_NAME, or PMPI_NAME while timing the pair. */
static bool use_pmpi;
#define ENTRY(name)	(use_pmpi ? PMPI_##name : MPI_##name)

static FILE *csv;

#include "bench_mpi.h"

static void usage(void)
{
	if (rank == 0)
		printf("Usage: %s [--impl NAME] [--csv FILE] [--time S] [--rounds R]\n"
		       "          [--pingpong-max BYTES] [--coll-max BYTES] [--thread-multiple]\n"
		       "          [--entry-pairs] [--errors-return] [--window-open]\n"
		       "Messages, barriers and small collectives (see the source's head).\n"
		       "  --impl NAME          the implementation column of the rows\n"
		       "  --csv FILE           append rows to FILE (rank 0) instead of stdout\n"
		       "  --time S             seconds per round and size (default 0.2)\n"
		       "  --rounds R           rounds per row, 1 to %d (default 3)\n"
		       "  --pingpong-max BYTES largest ping-pong (default 4194304)\n"
		       "  --coll-max BYTES     largest allreduce and bcast (default 65536)\n"
		       "  --thread-multiple    MPI_Init_thread(MPI_THREAD_MULTIPLE), the level\n"
		       "                       the hybrid layer asks of its host for its agents\n"
		       "  --entry-pairs        also time the message rows through PMPI_ in the\n"
		       "                       same rounds: rows entry_cost (MPI_ over PMPI_)\n"
		       "  --errors-return      MPI_ERRORS_RETURN on MPI_COMM_WORLD, as mpi4py sets\n"
		       "  --window-open        a window on MPI_COMM_WORLD open through the message\n"
		       "                       rows (under the layer at two logical nodes every\n"
		       "                       MPI_Recv then serves the agent as it waits)\n",
		       PROG, MAX_ROUNDS);
}

typedef void (*step_fn)(void *buf, size_t n);

static MPI_Win win;

static void step_pingpong(void *buf, size_t n)
{
	if (rank == 0) {
		ENTRY(Send)(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
		ENTRY(Recv)(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		ENTRY(Recv)(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
		ENTRY(Send)(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
	}
}

static void step_barrier(void *buf, size_t n)
{
	(void)buf;
	(void)n;
	ENTRY(Barrier)(MPI_COMM_WORLD);
}

static void step_allreduce(void *buf, size_t n)
{
	char *b = buf;

	ENTRY(Allreduce)(b, b + n, (int)(n / sizeof(double)), MPI_DOUBLE,
			 MPI_SUM, MPI_COMM_WORLD);
}

static void step_bcast(void *buf, size_t n)
{
	ENTRY(Bcast)(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void step_put_flush_barrier(void *buf, size_t n)
{
	int to = (rank + 1) % size;

	MPI_Put(buf, (int)n, MPI_BYTE, to, 0, (int)n, MPI_BYTE, win);
	MPI_Win_flush(to, win);
	MPI_Barrier(MPI_COMM_WORLD);
}

/* Seconds per call of @fn over @iters iterations; all ranks take part. */
static double timed(step_fn fn, void *buf, size_t n, long iters)
{
	double t;

	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	for (long i = 0; i < iters; i++)
		fn(buf, n);
	t = MPI_Wtime() - t;
	/* rank 0 is in every step; its time is the row's */
	MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return t / (double)iters;
}

/* timed() through the profiling entries. */
static double timed_pmpi(step_fn fn, void *buf, size_t n, long iters)
{
	double t;

	use_pmpi = true;
	t = timed(fn, buf, n, iters);
	use_pmpi = false;
	return t;
}

static void row(const char *workload, const char *metric, const double *v,
		int n, const char *unit)
{
	double s[MAX_ROUNDS], med;

	if (rank != 0)
		return;
	memcpy(s, v, sizeof(*v) * (size_t)n);
	med = bench_median(s, n);
	fprintf(csv, "%s,%d,%s,%s,%.6g,%.6g,%.6g,%s\n", workload, size, opt.impl,
		metric, med, s[0], s[n - 1], unit);
	fflush(csv);
}

/*
 * The iteration count of a round of @fn at size @n through the entries
 * use_pmpi names: grown until a run of at least CALIBRATE_MIN steps takes a
 * tenth of the round, then scaled to the round.  The same on every rank
 * (timed() broadcasts rank 0's time).  A size's first step is not timed:
 * under MPICH, 4 ranks on the VM's 2 CPUs, the first 32 KiB ping-pong took
 * tens of ms, and that one step taken for the rate left 4-7 steps a round,
 * the row then the loop's start (216-860 us against 75-375 through PMPI_,
 * 296-1,296 steps).
 */
#define CALIBRATE_MIN 16

static long calibrate(step_fn fn, void *buf, size_t n)
{
	long iters = 1;
	double t;

	timed(fn, buf, n, 1);
	for (;;) {
		t = timed(fn, buf, n, iters) * (double)iters;
		if ((t >= opt.time / 10 && iters >= CALIBRATE_MIN) ||
		    iters >= 1L << 24)
			break;
		iters *= t > 0 ? 4 : 16;
	}
	iters = (long)((double)iters * opt.time / (t > 0 ? t : opt.time / 10));
	return iters < 1 ? 1 : iters;
}

/*
 * One workload at size @n: a calibration of the iteration count, then the
 * rounds.  Prints latency in us and, with @bw, bandwidth in MB/s.  The
 * pair's PMPI_ loop has a count of its own: where the host's call is many
 * times slower than the layer's (MPICH's spinning collectives, 4 ranks on
 * 2 CPUs), the layer's count made each launch 5 times as long.
 */
static void measure(const char *name, step_fn fn, void *buf, size_t n, bool bw,
		    double scale, bool pairs)
{
	double lat[MAX_ROUNDS], band[MAX_ROUNDS], plat[MAX_ROUNDS];
	double cost[MAX_ROUNDS];
	long iters, piters = 0;

	pairs = pairs && opt.pairs;
	iters = calibrate(fn, buf, n);
	if (pairs) {
		use_pmpi = true;
		piters = calibrate(fn, buf, n);
		use_pmpi = false;
	}
	for (int r = 0; r < opt.rounds; r++) {
		/* the pair's PMPI_ loop first in every other round */
		if (pairs && r % 2)
			plat[r] = timed_pmpi(fn, buf, n, piters) * 1e6 * scale;
		lat[r] = timed(fn, buf, n, iters) * 1e6 * scale;
		band[r] = lat[r] > 0 ? (double)n / lat[r] : 0;
		if (pairs && !(r % 2))
			plat[r] = timed_pmpi(fn, buf, n, piters) * 1e6 * scale;
		if (pairs)
			cost[r] = plat[r] > 0 ? lat[r] / plat[r] : 0;
	}
	row(name, "latency", lat, opt.rounds, "us");
	if (bw)
		row(name, "bandwidth", band, opt.rounds, "MB/s");
	if (pairs)
		row(name, "entry_cost", cost, opt.rounds, "x");
}

/* Runs small ping-pongs, then barriers, for about a round each. */
static void measure_warmup(void *buf)
{
	double end;
	int more;

	for (int k = 0; k < 2; k++) {
		end = MPI_Wtime() + opt.time;
		do {
			for (int i = 0; i < 256; i++) {
				if (k)
					step_barrier(buf, 0);
				else
					step_pingpong(buf, 8);
			}
			more = MPI_Wtime() < end;
			MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
		} while (more);
	}
}

/* --thread-multiple, read before MPI_Init, which chooses the level. */
static bool want_multiple(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--thread-multiple"))
			return true;
	return false;
}

/* The size after @n: @factor times it, the last one @max, then 0. */
static size_t next_size(size_t n, size_t factor, size_t max)
{
	if (n >= max)
		return 0;
	return n * factor < max ? n * factor : max;
}

static void parse(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "impl", required_argument, NULL, 'i' },
		{ "csv", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 't' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "pingpong-max", required_argument, NULL, 'p' },
		{ "coll-max", required_argument, NULL, 'm' },
		{ "thread-multiple", no_argument, NULL, 'T' },
		{ "entry-pairs", no_argument, NULL, 'e' },
		{ "errors-return", no_argument, NULL, 'E' },
		{ "window-open", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (c) {
		case 'i': opt.impl = optarg; break;
		case 'c': opt.csv = optarg; break;
		case 't': opt.time = cli_seconds("--time", optarg, 0.001, 60); break;
		case 'r':
			opt.rounds = (int)cli_ulong("--rounds", optarg, 1, MAX_ROUNDS);
			break;
		case 'p':
			opt.pp_max = cli_ulong("--pingpong-max", optarg, 8, 1 << 28);
			break;
		case 'm':
			opt.coll_max = cli_ulong("--coll-max", optarg, 8, 1 << 26);
			break;
		case 'T': break;	/* read before MPI_Init (main) */
		case 'e': opt.pairs = true; break;
		case 'E': opt.errors_return = true; break;
		case 'W': opt.window_open = true; break;
		case 'h':
			usage();
			MPI_Finalize();
			exit(0);
		default:
			usage_error("unknown option");
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

int main(int argc, char **argv)
{
	size_t cap;
	char name[64];
	char *buf;
	void *wbase, *obase;
	MPI_Win open_win = MPI_WIN_NULL;

	if (want_multiple(argc, argv)) {
		int provided;

		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	} else {
		MPI_Init(&argc, &argv);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	parse(argc, argv);
	if (size < 2)
		usage_error("needs at least 2 ranks, not %d", size);
	csv = bench_csv_open(opt.csv);
	cap = 2 * (opt.pp_max > opt.coll_max ? opt.pp_max : opt.coll_max);
	buf = calloc(1, cap);
	if (!buf) {
		fprintf(stderr, "%s: out of memory (%zu bytes)\n", PROG, cap);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (opt.errors_return)
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (opt.window_open)
		MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &obase,
				 &open_win);

	/*
	 * Untimed, a round's worth of small messages and barriers first: the
	 * first row otherwise carries the start-up of every implementation
	 * (the emulator translating the code, ranks finding their CPUs).
	 */
	measure_warmup(buf);
	for (size_t n = 8; n; n = next_size(n, 4, opt.pp_max)) {
		snprintf(name, sizeof(name), "pingpong_%zu", n);
		measure(name, step_pingpong, buf, n, true, 0.5, true);
	}
	measure("barrier", step_barrier, buf, 0, false, 1, true);
	for (size_t n = 8; n; n = next_size(n, 8, opt.coll_max)) {
		snprintf(name, sizeof(name), "allreduce_%zu", n);
		measure(name, step_allreduce, buf, n, false, 1, true);
	}
	for (size_t n = 8; n; n = next_size(n, 8, opt.coll_max)) {
		snprintf(name, sizeof(name), "bcast_%zu", n);
		measure(name, step_bcast, buf, n, false, 1, true);
	}

	MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
	MPI_Win_lock_all(0, win);
	measure("put_flush_barrier", step_put_flush_barrier, buf, 8, false,
		1, false);
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	if (open_win != MPI_WIN_NULL)
		MPI_Win_free(&open_win);

	if (csv != stdout)
		fclose(csv);
	free(buf);
	MPI_Finalize();
	return 0;
}
