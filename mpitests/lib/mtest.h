/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mtest: what the MPI-level tests share.  Each test is a plain MPI program
 * run by mpiexec (mpitests/run); a failed check prints where and why on
 * stderr, prefixed with the rank, and the program goes on, so one run shows
 * every failure.  mtest_finish() adds up the failures of all ranks, prints
 * a summary at rank 0 and returns the exit status (0: all passed).
 *
 * Checks are meant for test code only: they evaluate their arguments once
 * and print at most MTEST_MAX_REPORTS failures per rank.
 */
#ifndef MPIRMA_MTEST_H
#define MPIRMA_MTEST_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#define MTEST_MAX_REPORTS	30

extern int mtest_rank, mtest_size;

/*
 * Set by the suite driver (suite.c), which runs several tests in one job:
 * mtest_init then finds MPI initialized and mtest_finish leaves it so.
 */
extern bool mtest_in_suite;

/* MPI_Init, rank and size; @name labels the summary line. */
void mtest_init(int *argc, char ***argv, const char *name);
/* The same with MPI_Init_thread. */
void mtest_init_thread(int *argc, char ***argv, const char *name,
		       int required, int *provided);
/* Label for failure messages until the next call ("fence", "lock", ...). */
void mtest_section(const char *what);
/* Sleeps @ms milliseconds (to let a peer run ahead, or not). */
void mtest_sleep_ms(int ms);
/* A test's list of steps, run in order by mtest_run(); NULL ends it. */
typedef void (*mtest_fn)(void);
/* mtest_init(), every step of @tests, mtest_finish(): main's return value. */
int mtest_run(int *argc, char ***argv, const char *name,
	      const mtest_fn *tests);
/* Sum failures over MPI_COMM_WORLD, print the summary, MPI_Finalize
 * (not in a suite).  Returns the exit status for main().
 */
int mtest_finish(void);

/* Record a check; on failure print the location and the formatted reason. */
bool mtest_check(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Failures so far on this rank. */
long mtest_failures(void);

/* "MPI_ERR_RMA_SYNC" for an error class, "class 17" when unknown. */
const char *mtest_class_name(int cls);
/* The error class of an MPI return code. */
int mtest_class(int rc);

#define CHECK(cond, ...)						\
	mtest_check((cond), __FILE__, __LINE__, __VA_ARGS__)

/* Integers compared as long long: "what = got, want want". */
#define CHECK_EQ(got, want, what)					\
	do {								\
		long long __g = (long long)(got), __w = (long long)(want); \
		CHECK(__g == __w, "%s = %lld, want %lld", (what), __g, __w); \
	} while (0)

/* An MPI call that must succeed. */
#define CHECK_MPI(call)							\
	do {								\
		int __rc = (call);					\
		CHECK(__rc == MPI_SUCCESS, "%s failed: %s", #call,	\
		      mtest_class_name(mtest_class(__rc)));		\
	} while (0)

/* An MPI call that must fail with error class @cls (errors must return). */
#define CHECK_CLASS(call, cls)						\
	do {								\
		int __rc = (call);					\
		CHECK(mtest_class(__rc) == (cls), "%s returned %s, want %s", \
		      #call, mtest_class_name(mtest_class(__rc)),	\
		      mtest_class_name(cls));				\
	} while (0)

#endif /* MPIRMA_MTEST_H */
