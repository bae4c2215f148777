/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rma_bench's shared definitions.  bench/rma_bench.c has the options, the
 * windows, the workloads, each cell's CSV line and main;
 * rma_bench/rep.c one repetition of a cell: the origins' loops, the
 * threads' and the ping-pong's, and the target's verification.
 */
#ifndef RMA_BENCH_H
#define RMA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#define PROG		"rma_bench"
#define MAX_REPS	50
#define MAX_SIZES	16
#define MAX_BATCHES	8
#define LINE		64		/* bytes: scaling puts each origin on its own line */
#define SCATTER_ELEMS	8192		/* doubles the batched workload scatters over */
#define MAX_THREADS	16		/* --threads */
#define THREAD_CLOCK_OPS 32		/* threads: operations per clock reading */

enum flavor { FL_ALLOCATE, FL_CREATE, NR_FLAVORS };
extern const char *const flavor_names[NR_FLAVORS];

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
static inline bool is_latency(enum kind k)
{
	return k >= K_ACC && k <= K_PINGPONG;
}

/* Pingpong's messages, on a communicator of its own. */
enum { TAG_PING = 1, TAG_PONG, TAG_STOP };
extern MPI_Comm pp_comm;
extern uint64_t pp_echoed;	/* rank 0: pings echoed in the repetition */

/* The value the get latency reads back: set by the target before. */
#define GET_MARK	42.5

struct options {
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
};
extern struct options opt;

extern int rank, nranks;
extern int first_origin;		/* the lowest rank that may be an origin */
extern FILE *csv;
extern unsigned int wrong;		/* rank 0: repetitions that failed verification */
extern uint64_t thread_ops[MAX_THREADS];	/* rank 0: the threads' counts */

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

/* rma_bench.c */
double now(void);
void *xmalloc(size_t len);

/* rep.c */
double put_val(int r, size_t i);
double one_rep(const struct cell *c, const struct win *wn, double *src, double rep_time);

#endif /* RMA_BENCH_H */
