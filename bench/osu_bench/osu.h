/* SPDX-License-Identifier: GPL-2.0 */
/*
 * osu_bench's shared definitions.  bench/osu_bench.c has the options,
 * main, the windows, the table of rows and their CSV lines;
 * osu_bench/values.c the typed values, data patterns and checks;
 * osu_bench/rows.c how a row issues, synchronizes, times and verifies
 * its operations; osu_bench/floor.c the rows of memcpy() alone.
 */
#ifndef OSU_BENCH_H
#define OSU_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#define PROG		"osu_bench"
#define MAX_ROUNDS	16
#define MAX_SIZES	16
#define WINDOW		64		/* operations per synchronization, bandwidth */
#define MAX_ITERS	(1L << 24)
#define MAX_BYTES	(1UL << 20)	/* per operation */

enum op {
	OP_PUT, OP_GET, OP_ACC, OP_GACC, OP_FOP, OP_CAS,
	OP_PUT_BW, OP_GET_BW, OP_PUT_BIBW, OP_BUSY_PUT,
	OP_COPY, OP_COPY_BW,		/* the floor: memcpy() alone (floor.c) */
	NR_OPS
};
extern const char *const op_names[NR_OPS];

enum sync { S_FLUSH, S_LOCK, S_LOCK_ALL, S_FENCE, S_PSCW, NR_SYNCS };
extern const char *const sync_names[NR_SYNCS];
#define SYNC_BIT(s)	(1U << (s))
#define ALL_SYNCS	((1U << NR_SYNCS) - 1)
#define PASSIVE_SYNCS	(SYNC_BIT(S_FLUSH) | SYNC_BIT(S_LOCK) | SYNC_BIT(S_LOCK_ALL))

enum type { T_CHAR, T_INT, T_FLOAT, T_DOUBLE, NR_TYPES };
extern const char *const type_names[NR_TYPES];
extern const size_t type_sizes[NR_TYPES];

enum flavor { F_ALLOCATE, F_CREATE, F_DYNAMIC, NR_FLAVORS };
extern const char *const flavor_names[NR_FLAVORS];

extern int rank, nranks, peer;
extern FILE *csv;

struct options {
	const char *impl;
	const char *csv;
	double time;			/* seconds per round */
	int rounds;
	size_t sizes[MAX_SIZES];
	int nsizes;
	bool ops[NR_OPS];
	unsigned int syncs;		/* filter, SYNC_BIT()s */
	bool all_syncs;
	bool types[NR_TYPES];
	bool flavors[NR_FLAVORS];
	bool calls_only;		/* no clock reads per iteration */
};
extern struct options opt;

/* one window: this rank's memory and where the peer's starts */
struct win {
	MPI_Win w;
	enum flavor fl;
	unsigned char *base;		/* this rank's window memory */
	void *mem;			/* create, dynamic: to free */
	MPI_Aint peer_base;		/* displacement of the peer's byte 0 */
};

/* one row and what the ranks counted while it ran */
struct row {
	enum op op;
	enum sync sync;
	enum type type;
	size_t bytes;			/* per operation */
	const struct win *wn;
	unsigned int seed;		/* the row's data patterns */
	int count;			/* elements per operation (prepare()) */
	MPI_Datatype dt;		/* the elements' datatype (prepare()) */
	char name[96];
	uint64_t issued;		/* operations this rank issued */
	uint64_t bad;			/* wrong values this rank saw */
	bool fault;			/* some rank had an error or a wrong value */
	int err;			/* this rank's first MPI error */
	char errstr[MPI_MAX_ERROR_STRING + 64];
};

extern unsigned char *sbuf, *rbuf;		/* WINDOW x the largest size */
extern unsigned char *ones, *minus;		/* +1 and -1 of the row's type */
extern unsigned char cas_cmp[8], cas_new[8];
extern MPI_Group peer_group;
extern size_t max_bytes;
extern unsigned int nwrong, nerror;

#define TRI_HALF	100
#define CK(r, call)	check_rc((r), (call), #call)

/*
 * The accumulating rows add +1 for 100 operations, then -1 for 100, and
 * so on: the target's value stays in 0..100, where every type (MPI_CHAR
 * too) computes exactly and no MPI's overflow behaviour (the standard
 * defines none) decides the check, while a lost or repeated operation
 * still shows.  tri(n) is the value after n operations, step(k) the k-th
 * one's addend.
 */
static inline int64_t tri(uint64_t n)
{
	uint64_t m = n % (2 * TRI_HALF);

	return (int64_t)(m <= TRI_HALF ? m : 2 * TRI_HALF - m);
}

static inline bool step_up(uint64_t k)
{
	return (k - 1) % (2 * TRI_HALF) < TRI_HALF;
}

/* @v as an element of type @t (char: its low byte, whatever its sign). */
static inline void typed_value(enum type t, int64_t v, unsigned char *out)
{
	int i = (int)v;
	float f = (float)v;
	double d = (double)v;

	switch (t) {
	case T_CHAR:
		out[0] = (unsigned char)(v & 0xff);
		break;
	case T_INT:
		memcpy(out, &i, sizeof(i));
		break;
	case T_FLOAT:
		memcpy(out, &f, sizeof(f));
		break;
	case T_DOUBLE:
		memcpy(out, &d, sizeof(d));
		break;
	case NR_TYPES:
		break;
	}
}

/* values.c */
double now(void);
void *xalloc(size_t len);
MPI_Datatype mpi_type(enum type t);
void fill_typed(enum type t, void *p, size_t count, int64_t v);
long typed_mismatch(enum type t, const void *p, size_t count, int64_t v);
unsigned char pattern(int pat, unsigned int seed, size_t i);
long pattern_mismatch(int pat, unsigned int seed, const unsigned char *p,
		      size_t from, size_t len);
void describe(const struct row *r, const unsigned char *p, size_t at, uint64_t n,
	      char *why, size_t len);
void check_rc(struct row *r, int rc, const char *call);

/*
 * OSU 7.4 reads MPI_Wtime at rank 0 before and after each iteration of
 * every loop (t_graph_start, t_graph_end: for its graphs and tail
 * latencies, with or without them), so every column pays for its clock
 * as it does under OSU.  --calls-only leaves them out: the calls alone,
 * for the layer's cost per call (under emulation a clock read costs more
 * while the peer polls Open MPI's progress engine, which reads the clock
 * too: docs/benchmarks.md, "The layer's cost per call, and the clock").
 */
extern volatile double osu_clock_sink;

static inline void osu_clock(void)
{
	if (!opt.calls_only)
		osu_clock_sink = MPI_Wtime();
}

/* An OSU loop's iterations between two looks at the budget. */
#define OSU_BLOCK	20

/* rows.c */
bool is_bw(enum op o);
int64_t expected(const struct row *r, uint64_t n);
unsigned int possible_syncs(enum op o);
unsigned int default_syncs(enum op o);
double measure(struct row *r);
/* The row's figure from @iters iterations in @t seconds (0: none). */
double figure(const struct row *r, double t, long iters);

/* floor.c */
static inline bool is_floor(enum op o)
{
	return o == OP_COPY || o == OP_COPY_BW;
}
double measure_floor(struct row *r);

/* osu_bench.c: the row's CSV line from its @n figures @v */
void report(const struct row *r, double *v, int n);

#endif /* OSU_BENCH_H */
