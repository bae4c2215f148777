/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpirma-bench's shared definitions.  tools/mpirma-bench.c has the options,
 * the parent and main; rank.c what a rank process runs (the workloads,
 * their timed loops and checks); report.c the topology, the tables, the
 * CSV and the plot.  The parent maps struct results MAP_SHARED before it
 * forks the ranks, which fill it in.
 */
#ifndef MPIRMA_BENCH_H
#define MPIRMA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "mpirma_uapi.h"

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

extern const struct workload_desc workloads[NR_WORKLOADS];
extern const struct workload_desc floors[NR_FLOORS];
extern const char *const strategy_names[MPIRMA_NR_STRATEGIES];

/* ------------------------------------------------------------ options */

struct options {
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
};

extern struct options opt;

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

extern struct results *res;		/* MAP_SHARED, set before any fork */
extern uint64_t *bitmap;		/* MAP_SHARED, fetch_op/CAS permutation */
extern size_t bitmap_words;

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Tools link without libm: the two helpers it would have given us. */
static inline double dmin(double a, double b)
{
	return a < b ? a : b;
}

static inline double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* rank.c: the process of window rank @rank of @nranks (rank count @ci) */
int rank_main(int job_fd, uint32_t rank, uint32_t nranks, unsigned int ci);

/* report.c */
void print_topology(FILE *f, const struct mpirma_query *mq);
void print_tables_trimmed(FILE *f);
unsigned int print_wrong(FILE *f);
int write_csv(const char *path);
int write_plot(const char *png);

#endif /* MPIRMA_BENCH_H */
