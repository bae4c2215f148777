/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpiexec's shared definitions.  tools/mpiexec.c has the options, the
 * launcher's messages and main; bind.c the CPUs and NUMA nodes ranks are
 * bound to; job.c the job in the module, each rank's exec and the wait
 * for them all, with the teardown when one fails or time runs out.
 */
#ifndef MPIEXEC_LAUNCH_H
#define MPIEXEC_LAUNCH_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

/* Exit statuses of the launcher itself (the ranks' own pass through). */
#define EX_SETUP	1	/* device, job or fork failed */
#define EX_USAGE	2
#define EX_TIMEOUT	124	/* as timeout(1) */
#define EX_NOEXEC	126	/* as the shell: found but not executable */
#define EX_NOTFOUND	127	/* as the shell: command not found */

/* How long ranks get between SIGTERM and SIGKILL when the job is torn down. */
#define KILL_GRACE_MS	2000

enum bind_to { BIND_NONE, BIND_CORE, BIND_NUMA, NR_BIND };
enum map_by { MAP_CORE, MAP_NUMA, NR_MAP };

struct options {
	unsigned long nranks;
	enum bind_to bind;
	enum map_by map;
	bool bind_set, map_set;
	unsigned long timeout_s;	/* 0: none */
	long stdin_rank;		/* -1: all ranks, -2: none */
	int verbose;
	char **argv;			/* the program and its arguments */
};

/* One rank: its process and, once reaped, how it ended. */
struct rank {
	pid_t pid;
	bool live;
	int status;		/* wait status */
	cpu_set_t *cpus;	/* binding, NULL: none */
	size_t cpus_size;
	int node;		/* for the report: -1 unless bound to a node */
};

/* The CPUs the launcher may use, and which NUMA node each is on. */
struct topology {
	int ncpus;
	int *cpu;		/* allowed CPU numbers, ascending */
	int *cpu_node;		/* node of cpu[i] */
	int nnodes;		/* nodes with at least one allowed CPU */
	int *node;		/* their numbers, ascending */
};

/* The state of the wait loop. */
struct job {
	struct rank *rank;
	unsigned long n;
	unsigned long live;
	int exit_status;	/* -1 until something failed */
	bool tearing;		/* SIGTERM sent, SIGKILL pending */
	bool killed;		/* SIGKILL sent */
	uint64_t kill_at;
};

extern const char *prog;
extern int verbose;

/* mpiexec.c: "mpiexec: MESSAGE" on stderr in one write(); die() exits */
void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...);
void __attribute__((noreturn, format(printf, 2, 3))) die(int status, const char *fmt, ...);

/* bind.c */
void topology_read(struct topology *t);
void plan_binding(const struct options *o, const struct topology *t,
		  unsigned long r, struct rank *rk);
void format_cpus(const struct rank *rk, char *buf, size_t len);

/* job.c */
int open_device(void);
uint32_t max_ranks(int dev);
int create_job(int dev, uint32_t n, uint64_t *job_id);
void __attribute__((noreturn))
exec_rank(const struct options *o, const char *path, int job_fd,
	  unsigned long r, const struct rank *rk, pid_t launcher,
	  const sigset_t *orig_mask);
void teardown(struct job *j, int sig);
void reap(struct job *j);
int wait_job(struct job *j, const struct options *o, const sigset_t *set);
#endif /* MPIEXEC_LAUNCH_H */
