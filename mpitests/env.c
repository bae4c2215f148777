// SPDX-License-Identifier: GPL-2.0
/*
 * env: the environment functions.  MPI_Init_thread (the level granted is
 * at most... whatever was asked, and MPI_Query_thread agrees),
 * MPI_Initialized / MPI_Finalized before, during and after, MPI_Wtime
 * (monotonic, and CLOCK_MONOTONIC's time also where it reads the TSC) and
 * MPI_Wtick, MPI_Get_version, MPI_Get_library_version,
 * MPI_Get_processor_name, MPI_Alloc_mem / MPI_Free_mem, MPI_Is_thread_main,
 * MPI_Abort's absence here; and the launcher contract: rank and size are
 * the ones mpiexec set in MPIRMA_RANK / MPIRMA_SIZE (a singleton when they
 * are unset).  The tool information interface (MPI_T) before MPI_Init,
 * while MPI runs and after MPI_Finalize is in env/tool.c.
 *
 * Runs with any number of ranks, and without mpiexec.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mtest.h"
#include "tool.h"

int main(int argc, char **argv)
{
	const char *env_rank = getenv("MPIRMA_RANK");
	const char *env_size = getenv("MPIRMA_SIZE");
	char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int flag = -1, provided = -1, q = -1, v, sv, len, size, i;
	double t0, t1, tick;
	char *mem;

	/* before MPI_Init: Initialized and Finalized are callable */
	MPI_Initialized(&flag);
	if (flag != 0) {
		fprintf(stderr, "MPI_Initialized before init: %d\n", flag);
		return 1;
	}
	MPI_Finalized(&flag);
	if (flag != 0) {
		fprintf(stderr, "MPI_Finalized before init: %d\n", flag);
		return 1;
	}

	tool_before_init();
	mtest_init_thread(&argc, &argv, "env", MPI_THREAD_FUNNELED, &provided);

	mtest_section("init");
	flag = -1;
	CHECK_MPI(MPI_Initialized(&flag));
	CHECK_EQ(flag, 1, "MPI_Initialized");
	flag = -1;
	CHECK_MPI(MPI_Finalized(&flag));
	CHECK_EQ(flag, 0, "MPI_Finalized");
	CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
	      "provided = %d", provided);
	CHECK_MPI(MPI_Query_thread(&q));
	CHECK_EQ(q, provided, "MPI_Query_thread");
	flag = -1;
	CHECK_MPI(MPI_Is_thread_main(&flag));
	CHECK_EQ(flag, 1, "MPI_Is_thread_main");

	mtest_section("launcher");
	CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
	CHECK_EQ(size, mtest_size, "size");
	if (env_rank && env_size) {
		CHECK_EQ(mtest_rank, atoi(env_rank), "rank vs MPIRMA_RANK");
		CHECK_EQ(mtest_size, atoi(env_size), "size vs MPIRMA_SIZE");
	} else {
		CHECK_EQ(mtest_size, 1, "singleton size");
		CHECK_EQ(mtest_rank, 0, "singleton rank");
	}
	/* the launcher's job fd is closed by MPI_Init */
	if (getenv("MPIRMA_JOB_FD")) {
		int fd = atoi(getenv("MPIRMA_JOB_FD"));
		char path[64], link[128] = "";

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (readlink(path, link, sizeof(link) - 1) > 0)
			CHECK(!strstr(link, "mpirma-job"),
			      "job fd %d still open after MPI_Init", fd);
	}
	CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &size));
	CHECK_EQ(size, 1, "size of MPI_COMM_SELF");
	CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &i));
	CHECK_EQ(i, 0, "rank in MPI_COMM_SELF");

	mtest_section("version");
	CHECK_MPI(MPI_Get_version(&v, &sv));
	CHECK_EQ(v, MPI_VERSION, "version");
	CHECK_EQ(sv, MPI_SUBVERSION, "subversion");
	CHECK(v >= 3, "MPI version %d.%d, want >= 3", v, sv);
	len = -1;
	CHECK_MPI(MPI_Get_library_version(lib, &len));
	CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING &&
	      (int)strlen(lib) == len, "library version length %d", len);
	len = -1;
	CHECK_MPI(MPI_Get_processor_name(name, &len));
	CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME &&
	      (int)strlen(name) == len, "processor name length %d", len);

	mtest_section("time");
	tick = MPI_Wtick();
	CHECK(tick > 0 && tick <= 0.01, "MPI_Wtick = %g", tick);
	t0 = MPI_Wtime();
	{
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	t1 = MPI_Wtime();
	CHECK(t1 - t0 >= 0.049 && t1 - t0 < 30, "50 ms measured as %g s",
	      t1 - t0);
	for (i = 0; i < 1000; i++) {
		double t = MPI_Wtime();

		if (!CHECK(t >= t1, "MPI_Wtime went back: %.9f < %.9f", t, t1))
			break;
		t1 = t;
	}
	/*
	 * CLOCK_MONOTONIC, also where it comes from the TSC: each answer
	 * between the clock read before and after it (20 us of slack: the
	 * counter's rate is timed over a millisecond at first).
	 */
	for (i = 0; i < 200000; i++) {
		struct timespec b, e;
		double t;

		clock_gettime(CLOCK_MONOTONIC, &b);
		t = MPI_Wtime();
		clock_gettime(CLOCK_MONOTONIC, &e);
		if (!CHECK(t >= b.tv_sec + b.tv_nsec * 1e-9 - 20e-6 &&
			   t <= e.tv_sec + e.tv_nsec * 1e-9 + 20e-6,
			   "MPI_Wtime %.9f outside the clock's %ld.%09ld-%ld.%09ld",
			   t, (long)b.tv_sec, b.tv_nsec, (long)e.tv_sec,
			   e.tv_nsec))
			break;
	}

	mtest_section("alloc_mem");
	mem = NULL;
	CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
	CHECK(mem != NULL, "MPI_Alloc_mem gave NULL");
	if (mem) {
		memset(mem, 0x5a, 1 << 20);
		CHECK_MPI(MPI_Free_mem(mem));
	}
	mem = NULL;
	CHECK_MPI(MPI_Alloc_mem(0, MPI_INFO_NULL, &mem));
	if (mem)
		CHECK_MPI(MPI_Free_mem(mem));

	tool_running();

	mtest_section("barrier");
	for (i = 0; i < 20; i++)
		CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

	i = mtest_finish();
	return tool_after_finalize() ? 1 : i;
}
