// SPDX-License-Identifier: GPL-2.0
/*
 * osu_bench - the call sequences of the OSU Micro-Benchmarks' one-sided
 * tests (OMB 7.4: osu_put_latency, osu_get_latency, osu_acc_latency,
 * osu_get_acc_latency, osu_fop_latency, osu_cas_latency, osu_put_bw,
 * osu_get_bw, osu_put_bibw), written anew for this project, all in one
 * launch of two ranks, the same source built with each MPI's mpicc.
 *
 * Rank 0 is the origin and rank 1 the target, as in OSU.  Operations on
 * MPI_CHAR unless a datatype is named; MPI_SUM for the accumulates.
 *
 *   put, get          one operation of N bytes per synchronization
 *   acc, get_acc      MPI_Accumulate, MPI_Get_accumulate of N bytes of a
 *                     datatype (get_acc under an exclusive lock, as OSU)
 *   fop, cas          MPI_Fetch_and_op, MPI_Compare_and_swap of one element
 *   put_bw, get_bw    64 operations of N bytes to consecutive slots per
 *                     synchronization (OSU's window size)        [MB/s]
 *   put_bibw          both ranks put 64 x N bytes to each other per
 *                     synchronization, both directions counted  [MB/s]
 *   busy_put          put and flush while the target computes (no MPI
 *                     call until the origin is done): whether passive
 *                     target progress needs the target           [us]
 *   copy, copy_bw     the floor: memcpy() of N bytes (copy_bw: 64 x N)
 *                     at rank 0 into its own window memory, no MPI call
 *                     (osu_bench/floor.c), allocated window, SYNC "none"
 *
 * Synchronizations (OSU's -s):
 *   flush     MPI_Win_lock(target) held; each operation (batch) MPI_Win_flush
 *   lock      MPI_Win_lock / MPI_Win_unlock around each operation (batch)
 *   lock_all  MPI_Win_lock_all / MPI_Win_unlock_all around each
 *   fence     latency: rank 0 fence, op, fence, fence; rank 1 fence, fence,
 *             op, fence (a round trip: the time per iteration halved, as
 *             OSU); bandwidth: fence, 64 ops, fence
 *   pscw      latency: rank 0 start, op, complete, post, wait; rank 1 post,
 *             wait, start, op, complete (halved); bandwidth: start, 64 ops,
 *             complete against post, wait; put_bibw: post, start, 64 ops,
 *             complete, wait on both
 * In the passive ones the target waits in an MPI call (as in OSU), except
 * busy_put's.
 *
 * Window flavors (OSU's -w): allocate (MPI_Win_allocate), create
 * (MPI_Win_create on page-aligned malloc memory), dynamic
 * (MPI_Win_create_dynamic and MPI_Win_attach; displacements are
 * addresses).  One window per flavor serves every row.
 *
 * Method: per row a warm-up, then --rounds rounds of --time seconds each,
 * the row the median, min and max over the rounds.  In the passive
 * synchronizations (and busy_put) the origin runs until its clock ends the
 * round; fence and pscw need the same calls on both ranks, so they run
 * chunks of a calibrated count (a tenth of a round) until the round's
 * time is spent.  The figure is rank 0's time over its iterations.  As in
 * OSU 7.4, rank 0 reads MPI_Wtime before and after each iteration (its
 * t_graph_start and t_graph_end), so each column pays for its own clock;
 * the latency rows under flush run as OSU's loop does, the call and the
 * flush between those reads and nothing else (osu_loop()), the budget
 * checked every 20 iterations (--calls-only: without the reads, the
 * latency rows written as metric "call").  Every row is verified: the
 * target's memory afterwards (the last put's data and sequence number,
 * the accumulated value of every element, a get's source unchanged),
 * and after every round the values the origin fetched last (get's data,
 * get_accumulate's, fetch_and_op's and compare_and_swap's old values,
 * which the serial order of the operations fixes).  A wrong row prints
 * WRONG, is written as "wrong" and fails the run, so that a fast wrong
 * answer cannot win; an MPI error (windows return errors) is written as
 * "error" and fails the run too, the other rows still run.
 *
 * Output: CSV rows workload,ranks,impl,metric,median,min,max,unit (the
 * format of rma_bench and msg_bench), workload OP.SYNC.TYPE.FLAVOR_BYTES,
 * e.g. acc.flush.int.allocate_1024 (fop and cas: BYTES the element's).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "../tools/cli.h"
#include "osu_bench/osu.h"

const char *const op_names[NR_OPS] = {
	"put", "get", "acc", "get_acc", "fop", "cas",
	"put_bw", "get_bw", "put_bibw", "busy_put", "copy", "copy_bw",
};
const char *const sync_names[NR_SYNCS] = {
	"flush", "lock", "lock_all", "fence", "pscw",
};
const char *const type_names[NR_TYPES] = { "char", "int", "float", "double" };
const size_t type_sizes[NR_TYPES] = { 1, sizeof(int), sizeof(float), sizeof(double) };
const char *const flavor_names[NR_FLAVORS] = { "allocate", "create", "dynamic" };

int rank, nranks, peer;
FILE *csv;

#include "bench_mpi.h"

struct options opt;

unsigned char *sbuf, *rbuf;		/* WINDOW x the largest size */
unsigned char *ones, *minus;		/* +1 and -1 of the row's type */
unsigned char cas_cmp[8], cas_new[8];
MPI_Group peer_group;
size_t max_bytes;
unsigned int nwrong, nerror;

void report(const struct row *r, double *v, int n)
{
	const bool bw = is_bw(r->op);
	const char *metric = bw ? "bandwidth" : opt.calls_only ? "call" : "latency";
	const char *unit = bw ? "MB/s" : "us";
	double med;

	if (rank != 0)
		return;
	if (r->err || r->bad || n == 0) {
		const char *what = r->bad ? "wrong" : "error";

		fprintf(csv, "%s,%d,%s,%s,%s,%s,%s,%s\n", r->name, nranks, opt.impl, metric,
			what, what, what, unit);
		fflush(csv);
		if (r->bad)
			nwrong++;
		else
			nerror++;
		return;
	}
	med = bench_median(v, n);
	fprintf(csv, "%s,%d,%s,%s,%.6g,%.6g,%.6g,%s\n", r->name, nranks, opt.impl, metric,
		med, v[0], v[n - 1], unit);
	fflush(csv);
}

/* ------------------------------------------------------------ windows */

static void win_open(struct win *wn, enum flavor fl, size_t bytes)
{
	MPI_Aint mine, addrs[2];

	memset(wn, 0, sizeof(*wn));
	wn->fl = fl;
	switch (fl) {
	case F_ALLOCATE:
		MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wn->base,
				 &wn->w);
		break;
	case F_CREATE:
		wn->mem = xalloc(bytes);
		wn->base = wn->mem;
		MPI_Win_create(wn->base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
			       &wn->w);
		break;
	case F_DYNAMIC:
		wn->mem = xalloc(bytes);
		wn->base = wn->mem;
		MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wn->w);
		MPI_Win_attach(wn->w, wn->base, (MPI_Aint)bytes);
		MPI_Get_address(wn->base, &mine);
		MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
		wn->peer_base = addrs[peer];
		break;
	case NR_FLAVORS:
		break;
	}
	MPI_Win_set_errhandler(wn->w, MPI_ERRORS_RETURN);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void win_close(struct win *wn)
{
	if (wn->fl == F_DYNAMIC)
		MPI_Win_detach(wn->w, wn->base);
	MPI_Win_free(&wn->w);
	free(wn->mem);
}

/* ------------------------------------------------------------ the rows */

/* One family (op, sync, type, flavor) at each of its sizes. */
static void family(enum op o, enum sync s, enum type t, const struct win *wn)
{
	static unsigned int seed;
	size_t sizes[MAX_SIZES];
	int ns = 0;
	double t0 = now(), last = 0;
	struct row r;

	if (o == OP_FOP || o == OP_CAS) {
		sizes[ns++] = type_sizes[t];
	} else if (o == OP_BUSY_PUT) {
		/* the smallest and the largest size */
		sizes[ns++] = opt.sizes[0];
		if (opt.nsizes > 1)
			sizes[ns++] = opt.sizes[opt.nsizes - 1];
	} else {
		memcpy(sizes, opt.sizes, sizeof(sizes[0]) * (size_t)opt.nsizes);
		ns = opt.nsizes;
	}
	for (int i = 0; i < ns; i++) {
		memset(&r, 0, sizeof(r));
		r.op = o;
		r.sync = s;
		r.type = t;
		r.bytes = sizes[i];
		r.wn = wn;
		r.seed = ++seed;
		snprintf(r.name, sizeof(r.name), "%s.%s.%s.%s_%zu", op_names[o],
			 is_floor(o) ? "none" : sync_names[s], type_names[t],
			 flavor_names[wn->fl], sizes[i]);
		last = is_floor(o) ? measure_floor(&r) : measure(&r);
	}
	r.name[strrchr(r.name, '_') - r.name] = 0;	/* the family */
	if (rank == 0)
		fprintf(stderr, "%s: %-15s %-28s %2d size%s, last %-9.4g %-4s %5.1f s\n", PROG,
			opt.impl, r.name, ns, ns == 1 ? " " : "s", last,
			is_bw(o) ? "MB/s" : "us", now() - t0);
}

static void run_flavor(enum flavor fl)
{
	struct win wn;

	win_open(&wn, fl, WINDOW * max_bytes);
	for (int o = 0; o < NR_OPS; o++) {
		unsigned int syncs = opt.all_syncs ? possible_syncs(o) : default_syncs(o);

		if (!opt.ops[o])
			continue;
		if (is_floor(o)) {
			/* one window's memory is like another's to memcpy() */
			if (fl == F_ALLOCATE)
				family(o, S_FLUSH, T_CHAR, &wn);
			continue;
		}
		for (int s = 0; s < NR_SYNCS; s++) {
			if (!(syncs & opt.syncs & SYNC_BIT(s)))
				continue;
			if (o != OP_ACC && o != OP_GACC && o != OP_FOP && o != OP_CAS) {
				family(o, s, T_CHAR, &wn);
				continue;
			}
			for (int t = 0; t < NR_TYPES; t++) {
				/* compare_and_swap takes no floating point type */
				if (!opt.types[t] || (o == OP_CAS && (t == T_FLOAT || t == T_DOUBLE)))
					continue;
				family(o, s, t, &wn);
			}
		}
	}
	win_close(&wn);
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpiexec -n 2 %s [OPTIONS]\n"
		"The OSU one-sided benchmarks' call sequences, every one in one launch\n"
		"(see the source's head); one CSV row per shape and size.\n\n"
		"  -o, --ops LIST      put,get,acc,get_acc,fop,cas,put_bw,get_bw,put_bibw,busy_put,\n"
		"                      copy,copy_bw (default all)\n"
		"  -s, --syncs LIST    only these of flush,lock,lock_all,fence,pscw (default:\n"
		"                      put all five, put_bibw fence and pscw, the rest flush)\n"
		"  -A, --all-syncs     every op with every synchronization it can have\n"
		"  -T, --types LIST    char,int,float,double for acc, get_acc, fop and cas\n"
		"                      (cas: the integer ones; default all)\n"
		"  -w, --flavors LIST  allocate,create,dynamic (default all)\n"
		"  -m, --sizes LIST    bytes per operation, multiples of 8 up to 1M, K/M suffix\n"
		"                      (default 8,64,256,1K,4K,8K,16K); busy_put: the first, last\n"
		"  -t, --time S        seconds per round (default 0.035)\n"
		"  -r, --rounds R      rounds per row, 1 to %d (default 3)\n"
		"  -q, --quick         smoke test: sizes 8,4K, 0.002 s, 2 rounds\n"
		"      --calls-only    no MPI_Wtime before and after each iteration (OSU reads\n"
		"                      it twice): the calls alone, latency rows as metric call\n"
		"      --impl NAME     the CSV's impl column (default: from the library version)\n"
		"      --csv FILE      append the rows to FILE (rank 0) instead of stdout\n"
		"  -h, --help          this text\n\n"
		"CSV: workload,ranks,impl,metric,median,min,max,unit, workload\n"
		"OP.SYNC.TYPE.FLAVOR_BYTES.  Exit status 1 when a row was wrong or failed.\n",
		PROG, MAX_ROUNDS);
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
	if (errno || end == s || *end || *s == '-' || v < 8 || v > MAX_BYTES || v % 8)
		usage_error("--sizes: '%s' is not a multiple of 8 bytes from 8 to 1M", s);
	return v;
}

/* Calls @fn for each item of a comma-separated list. */
static void for_each_item(const char *what, const char *s, void (*fn)(const char *item))
{
	char *copy, *tok, *save = NULL;

	if (!*s || *s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		usage_error("%s: empty item in '%s'", what, s);
	copy = strdup(s);
	if (!copy)
		usage_error("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		fn(tok);
	free(copy);
}

static void add_op(const char *s)
{
	opt.ops[cli_choice("--ops", s, op_names, NR_OPS,
			   "put, get, acc, get_acc, fop, cas, put_bw, get_bw, put_bibw, busy_put, "
			   "copy or copy_bw")] = true;
}

static void add_sync(const char *s)
{
	opt.syncs |= SYNC_BIT(cli_choice("--syncs", s, sync_names, NR_SYNCS,
					 "flush, lock, lock_all, fence or pscw"));
}

static void add_type(const char *s)
{
	opt.types[cli_choice("--types", s, type_names, NR_TYPES,
			     "char, int, float or double")] = true;
}

static void add_flavor(const char *s)
{
	opt.flavors[cli_choice("--flavors", s, flavor_names, NR_FLAVORS,
			       "allocate, create or dynamic")] = true;
}

static void add_size(const char *s)
{
	size_t v = parse_size(s);

	if (opt.nsizes == MAX_SIZES)
		usage_error("--sizes: at most %d sizes", MAX_SIZES);
	if (opt.nsizes && v <= opt.sizes[opt.nsizes - 1])
		usage_error("--sizes: list them from the smallest up ('%s')", s);
	opt.sizes[opt.nsizes++] = v;
}

static void parse_options(int argc, char **argv)
{
	enum { O_IMPL = 256, O_CSV, O_CALLS };
	static const struct option longopts[] = {
		{ "ops", required_argument, NULL, 'o' },
		{ "syncs", required_argument, NULL, 's' },
		{ "all-syncs", no_argument, NULL, 'A' },
		{ "types", required_argument, NULL, 'T' },
		{ "flavors", required_argument, NULL, 'w' },
		{ "sizes", required_argument, NULL, 'm' },
		{ "time", required_argument, NULL, 't' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "quick", no_argument, NULL, 'q' },
		{ "impl", required_argument, NULL, O_IMPL },
		{ "csv", required_argument, NULL, O_CSV },
		{ "calls-only", no_argument, NULL, O_CALLS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool quick = false, have_t = false, have_r = false, any;
	int c, i;

	while ((c = getopt_long(argc, argv, "o:s:AT:w:m:t:r:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': for_each_item("--ops", optarg, add_op); break;
		case 's': for_each_item("--syncs", optarg, add_sync); break;
		case 'A': opt.all_syncs = true; break;
		case 'T': for_each_item("--types", optarg, add_type); break;
		case 'w': for_each_item("--flavors", optarg, add_flavor); break;
		case 'm': for_each_item("--sizes", optarg, add_size); break;
		case 't':
			opt.time = cli_seconds("--time", optarg, 0.0001, 60);
			have_t = true;
			break;
		case 'r':
			opt.rounds = (int)cli_ulong("--rounds", optarg, 1, MAX_ROUNDS);
			have_r = true;
			break;
		case 'q': quick = true; break;
		case O_IMPL: opt.impl = optarg; break;
		case O_CSV: opt.csv = optarg; break;
		case O_CALLS: opt.calls_only = true; break;
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
	for (i = 0, any = false; i < NR_OPS; i++)
		any |= opt.ops[i];
	for (i = 0; !any && i < NR_OPS; i++)
		opt.ops[i] = true;
	if (!opt.syncs)
		opt.syncs = ALL_SYNCS;
	for (i = 0, any = false; i < NR_TYPES; i++)
		any |= opt.types[i];
	for (i = 0; !any && i < NR_TYPES; i++)
		opt.types[i] = true;
	for (i = 0, any = false; i < NR_FLAVORS; i++)
		any |= opt.flavors[i];
	for (i = 0; !any && i < NR_FLAVORS; i++)
		opt.flavors[i] = true;
	if (!opt.nsizes)
		for_each_item("--sizes", quick ? "8,4K" : "8,64,256,1K,4K,8K,16K", add_size);
	if (!have_t)
		opt.time = quick ? 0.002 : 0.035;
	if (!have_r)
		opt.rounds = quick ? 2 : 3;
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

int main(int argc, char **argv)
{
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	MPI_Group world;
	double start;
	int len, bad, i;

	/* help without MPI (and without the module) */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	parse_options(argc, argv);
	if (nranks != 2)
		usage_error("runs on exactly 2 ranks (as OSU's one-sided tests), not %d", nranks);
	peer = 1 - rank;
	MPI_Get_library_version(version, &len);
	opt.impl = detect_impl(version);
	csv = bench_csv_open(opt.csv);
	if (rank == 0) {
		version[strcspn(version, "\n")] = 0;
		fprintf(stderr, "%s: %s (%s), %d rounds x %.3g s per row\n", PROG, opt.impl,
			version, opt.rounds, opt.time);
	}

	max_bytes = opt.sizes[opt.nsizes - 1];
	sbuf = xalloc(WINDOW * max_bytes);
	rbuf = xalloc(WINDOW * max_bytes);
	ones = xalloc(max_bytes);
	minus = xalloc(max_bytes);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &peer, &peer_group);
	MPI_Group_free(&world);

	start = now();
	for (int f = 0; f < NR_FLAVORS; f++)
		if (opt.flavors[f])
			run_flavor(f);

	MPI_Group_free(&peer_group);
	free(sbuf);
	free(rbuf);
	free(ones);
	free(minus);
	bad = nwrong || nerror;
	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		fprintf(stderr, "%s: %s: %u wrong rows, %u failed rows, %.1f s\n", PROG,
			opt.impl, nwrong, nerror, now() - start);
		if (csv != stdout)
			fclose(csv);
	}
	MPI_Finalize();
	return bad ? 1 : 0;
}
