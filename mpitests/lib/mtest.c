// SPDX-License-Identifier: GPL-2.0
/*
 * mtest: checks and the summary of the MPI-level tests (see mtest.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <time.h>
#include <unistd.h>

#include "mtest.h"

int mtest_rank, mtest_size;
bool mtest_in_suite;

static const char *test_name = "mpitest";
static const char *section = "";
static long checks, failures;

/*
 * In the test VM mpitests/run starts the tests with address randomization
 * off (QEMU then reuses its translation of the shared libraries from one
 * process to the next).  Every rank would map and allocate at the same
 * addresses as its peers, and a rank that took its own address for a
 * peer's would pass.  Each process moves what it maps and allocates from
 * here on by an amount of its own (both regions stay reserved).
 */
static void vary_layout(void)
{
	static bool done;
	static void *volatile heap_pad;
	int persona = personality(0xffffffff);
	size_t k;

	if (done || persona == -1 || !(persona & ADDR_NO_RANDOMIZE))
		return;
	done = true;
	k = (size_t)getpid() % 61 + 1;
	if (mmap(NULL, k << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED)
		perror("mtest: mmap");
	heap_pad = malloc(k << 10);
	if (!heap_pad)
		perror("mtest: malloc");
}

/* A test begins: its name, and nothing counted yet (a suite runs many). */
static void begin(const char *name)
{
	vary_layout();
	test_name = name;
	section = "";
	checks = 0;
	failures = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);
}

void mtest_init(int *argc, char ***argv, const char *name)
{
	if (!mtest_in_suite)
		MPI_Init(argc, argv);
	begin(name);
}

void mtest_init_thread(int *argc, char ***argv, const char *name,
		       int required, int *provided)
{
	if (!mtest_in_suite)
		MPI_Init_thread(argc, argv, required, provided);
	else
		MPI_Query_thread(provided);
	begin(name);
}

void mtest_section(const char *what)
{
	section = what;
}

void mtest_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

bool mtest_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (ok)
		return true;
	if (++failures > MTEST_MAX_REPORTS) {
		if (failures == MTEST_MAX_REPORTS + 1)
			fprintf(stderr, "rank %d: more failures, not shown\n",
				mtest_rank);
		return false;
	}
	/* one fprintf: lines of different ranks do not interleave */
	{
		char msg[512];

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		fprintf(stderr, "rank %d: %s:%d: %s%s%s\n", mtest_rank, file,
			line, section, *section ? ": " : "", msg);
	}
	return false;
}

int mtest_run(int *argc, char ***argv, const char *name,
	      const mtest_fn *tests)
{
	mtest_init(argc, argv, name);
	for (; *tests; tests++)
		(*tests)();
	return mtest_finish();
}

long mtest_failures(void)
{
	return failures;
}

int mtest_finish(void)
{
	long total = failures;

	/* a broken collective must not hide failures: each rank also
	 * returns its own verdict
	 */
	MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (total < failures)
		total = failures;
	if (mtest_rank == 0)
		printf("# %s: %d rank(s), %ld checks on rank 0, %ld failed on "
		       "all ranks\n", test_name, mtest_size, checks, total);
	fflush(stdout);
	if (!mtest_in_suite)
		MPI_Finalize();
	return total ? 1 : 0;
}

int mtest_class(int rc)
{
	int cls = rc;

	if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS)
		cls = rc;
	return cls;
}

const char *mtest_class_name(int cls)
{
	static char buf[32];

	switch (cls) {
#define C(x)	case x: return #x
	C(MPI_SUCCESS);
	C(MPI_ERR_BUFFER);
	C(MPI_ERR_COUNT);
	C(MPI_ERR_TYPE);
	C(MPI_ERR_TAG);
	C(MPI_ERR_COMM);
	C(MPI_ERR_RANK);
	C(MPI_ERR_REQUEST);
	C(MPI_ERR_ROOT);
	C(MPI_ERR_GROUP);
	C(MPI_ERR_OP);
	C(MPI_ERR_TOPOLOGY);
	C(MPI_ERR_DIMS);
	C(MPI_ERR_ARG);
	C(MPI_ERR_UNKNOWN);
	C(MPI_ERR_TRUNCATE);
	C(MPI_ERR_OTHER);
	C(MPI_ERR_INTERN);
	C(MPI_ERR_PENDING);
	C(MPI_ERR_IN_STATUS);
	C(MPI_ERR_INFO);
	C(MPI_ERR_INFO_KEY);
	C(MPI_ERR_INFO_VALUE);
	C(MPI_ERR_INFO_NOKEY);
	C(MPI_ERR_KEYVAL);
	C(MPI_ERR_NO_MEM);
	C(MPI_ERR_BASE);
	C(MPI_ERR_WIN);
	C(MPI_ERR_SIZE);
	C(MPI_ERR_DISP);
	C(MPI_ERR_LOCKTYPE);
	C(MPI_ERR_ASSERT);
	C(MPI_ERR_RMA_CONFLICT);
	C(MPI_ERR_RMA_SYNC);
	C(MPI_ERR_RMA_RANGE);
	C(MPI_ERR_RMA_ATTACH);
	C(MPI_ERR_RMA_SHARED);
	C(MPI_ERR_RMA_FLAVOR);
#ifdef MPI_ERR_PROC_ABORTED
	C(MPI_ERR_PROC_ABORTED);
#endif
#undef C
	}
	snprintf(buf, sizeof(buf), "class %d", cls);
	return buf;
}
