/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpirma-stat's shared definitions.  tools/mpirma-stat.c has main, the
 * options and the refreshing terminal view; sample.c reads a sample (sysfs,
 * debugfs, the topology) and computes the rates between two; print.c
 * prints one as text or JSON.
 */
#ifndef MPIRMA_STAT_H
#define MPIRMA_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

/* the module's version this tool was built with (the Makefile gives it) */
#ifndef MPIRMA_VERSION
#define MPIRMA_VERSION "unknown"
#endif

#define EX_OK		0
#define EX_FAIL		1	/* module not loaded, or nothing readable */
#define EX_USAGE	2

#define SYSFS_DIR	"/sys/class/misc/mpirma"
#define MODULE_DIR	"/sys/module/mpirma"
#define NODE_DIR	"/sys/devices/system/node"
#define DEBUGFS_ROOT	"/sys/kernel/debug"
#define DEBUGFS_DIR	DEBUGFS_ROOT "/mpirma"
#define DEBUGFS_MAGIC	0x64626720	/* linux/magic.h */

#define NR_KINDS	5	/* MPIRMA_NR_KINDS, in debugfs order */
/* Per window counters with a rate: the kinds, then these three. */
#define C_BYTES		(NR_KINDS + 0)
#define C_LOCK_WAITS	(NR_KINDS + 1)
#define C_CONTENDED	(NR_KINDS + 2)
#define NR_COUNTERS	(NR_KINDS + 3)
#define NR_MODCOUNTERS	5	/* counter_names[] */

extern const char *const kind_names[NR_KINDS];
/* The module-wide counters, by their sysfs names. */
extern const char *const counter_names[NR_MODCOUNTERS];
extern const char *prog;
/* --root: read every file below this directory instead of / (testing). */
extern const char *root;

/* ------------------------------------------------------------------ data */

struct rank_info {
	unsigned int rank, job_rank;
	unsigned long long size;	/* bytes */
	unsigned int disp_unit;
	int node;			/* asked for; -1 none or interleaved */
	long long pages;		/* -1: not reported (older module) */
	char *on;			/* "0:3,1:1", "-", or NULL: not reported */
	bool dynamic;			/* regions/attached are meaningful */
	unsigned int regions;
	unsigned long long attached;
	bool interleave, left;
};

struct win_info {
	unsigned int id;
	char flavor[16], strategy[16];
	unsigned int nranks;
	unsigned long long c[NR_COUNTERS];	/* ops by kind, bytes, ... */
	long long pages;			/* -1: not reported */
	long long direct;			/* of the ops, applied in user space; -1: not reported */
	struct rank_info *ranks;
	size_t nr, cap;
	bool has_rate;
	double rate[NR_COUNTERS];
};

struct pending_info {
	unsigned int arrived, nranks;
};

struct job_info {
	unsigned long long id;
	unsigned int nranks, joined, gone;
	struct win_info *wins;
	size_t nr, cap;
	struct pending_info *pending;
	size_t npending, pcap;
};

struct worker_info {
	unsigned int id;
	int node, pid;
	unsigned long long items;
	bool has_rate;
	double rate;
};

struct node_info {
	int id;
	int cpus;
	char cpulist[64];
	int workers;			/* -1: unknown (no debugfs) */
};

struct sample {
	double t;			/* CLOCK_MONOTONIC seconds */
	time_t wall;
	bool loaded;
	char modver[32];		/* "" when unknown */
	char atomicity[32];		/* the module's default strategy */
	long long counter[NR_MODCOUNTERS];	/* -1: unreadable */

	struct node_info *nodes;
	size_t nnodes;
	int ncpus;

	int jobs_err;			/* 0, or errno reading debugfs jobs */
	struct job_info *jobs;
	size_t njobs, jcap;

	int workers_err;
	struct worker_info *workers;
	size_t nworkers, wcap;
};

/* mpirma-stat.c: "mpirma-stat: message" on stderr, and exit(EX_FAIL) */
void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...);

/* sample.c */
double now_mono(void);
const char *path_of(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool read_line(const char *path, char *out, size_t len);
bool debugfs_mounted(void);
void sample_read(struct sample *s);
void sample_free(struct sample *s);
void compute_rates(struct sample *cur, const struct sample *prev);

/* print.c */
const char *debugfs_why(int err, char *buf, size_t len);
void print_text(FILE *f, const struct sample *s, bool watch, double interval);
void print_json(FILE *f, const struct sample *s);

#endif /* MPIRMA_STAT_H */
