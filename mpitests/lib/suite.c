// SPDX-License-Identifier: GPL-2.0
/*
 * suite: several MPI tests in one job.  Under a host MPI each launch costs
 * seconds in the VM (Open MPI's most), so the tests that need the same
 * rank count and environment run in one launch, one after the other
 * (mpitests/run: a list entry NAME+NAME+...).  Each test is its usual
 * source with main renamed mtest_main_NAME; mtest_init and mtest_finish
 * see that MPI is already initialized and leave it so.  Between tests the
 * error handler of MPI_COMM_WORLD is put back and every rank meets in a
 * barrier, so one test's leftovers do not reach the next.
 *
 * Usage: mpiexec -n N suite NAME[@ARG,ARG...]...   A member's arguments
 * (MAX_ARGS at most) follow its name, commas between them, as the list's
 * args= gives a program its own.  Exit status: 1 when a test failed, 2
 * for an unknown NAME or too many arguments.  MTEST_SUITE_TIMES set: rank 0
 * says how long each member took (to stderr).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

/* MTEST_SUITE_TESTS: X(name) for every member, from the build. */
#define X(t)	int mtest_main_##t(int argc, char **argv);
MTEST_SUITE_TESTS
#undef X

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} tests[] = {
#define X(t)	{ #t, mtest_main_##t },
	MTEST_SUITE_TESTS
#undef X
};

#define NTESTS	(sizeof(tests) / sizeof(tests[0]))
#define MAX_ARGS	16

/* The index of the test a member word NAME[@ARGS] names, or NTESTS. */
static size_t find(const char *word)
{
	size_t n = strcspn(word, "@"), k;

	for (k = 0; k < NTESTS && (strncmp(word, tests[k].name, n) ||
				   tests[k].name[n]); k++)
		;
	return k;
}

/* The number of arguments of member word NAME[@A,B...]. */
static int nargs(const char *word)
{
	const char *rest = strchr(word, '@');
	int n = 0;

	for (const char *c = rest; c && *c; c++)
		n += *c == '@' || *c == ',';
	return n;
}

/* Runs member word NAME[@A,B...] as NAME A B ...; its exit status. */
static int run(size_t k, char *word)
{
	char *targv[MAX_ARGS + 2] = { (char *)tests[k].name };
	char *rest = strchr(word, '@');
	int targc = 1;

	for (char *a = rest ? strtok(rest + 1, ",") : NULL; a;
	     a = strtok(NULL, ","))
		targv[targc++] = a;
	return tests[k].main(targc, targv);
}

/*
 * The level the members ask for: MPI_THREAD_MULTIPLE when one of them
 * wants it, else what MPI_Init gives, so that the others run at the level
 * they run at alone.
 */
static int level(int argc, char **argv)
{
	static const char *const multiple[] = { "threads", "grequest" };

	for (int i = 1; i < argc; i++)
		for (size_t k = 0; k < sizeof(multiple) / sizeof(*multiple); k++)
			if (find(argv[i]) == find(multiple[k]))
				return MPI_THREAD_MULTIPLE;
	return MPI_THREAD_SINGLE;
}

int main(int argc, char **argv)
{
	int provided, status = 0, rank, i;
	bool times;
	double start;
	size_t k;

	/* Unknown names first: the job ends before it has started a test. */
	for (i = 1; i < argc; i++) {
		if (find(argv[i]) == NTESTS) {
			fprintf(stderr, "suite: no test '%s' in this suite\n",
				argv[i]);
			return 2;
		}
		if (nargs(argv[i]) > MAX_ARGS) {
			fprintf(stderr, "suite: '%s': more than %d arguments\n",
				argv[i], MAX_ARGS);
			return 2;
		}
	}
	MPI_Init_thread(&argc, &argv, level(argc, argv), &provided);
	mtest_in_suite = true;
	times = getenv("MTEST_SUITE_TIMES") != NULL;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (i = 1; i < argc; i++) {
		k = find(argv[i]);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
		MPI_Barrier(MPI_COMM_WORLD);
		start = MPI_Wtime();
		if (run(k, argv[i]))
			status = 1;
		if (times && rank == 0)
			fprintf(stderr, "# suite: %s: %.2f s\n", tests[k].name,
				MPI_Wtime() - start);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return status;
}
