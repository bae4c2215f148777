// SPDX-License-Identifier: GPL-2.0
/*
 * killpoint: the last rank is killed with SIGKILL at a random point of real
 * work, through the real launcher; nobody may hang.
 *
 * Usage: killpoint [SEED], with at least 2 ranks.  Every iteration creates
 * a window (MPI_Win_allocate), accumulates into rank 0 under an exclusive
 * lock, fences twice and frees the window.  From SEED (default: the time,
 * broadcast by rank 0 and printed) every rank derives the same plan: the
 * iteration and the point at which the victim arms a thread that kills the
 * process after a random 0-20 ms, while the victim goes on into
 *
 *   create   the window creation (collective, allocating)
 *   lock     its exclusive lock epoch on rank 0 (it dies holding the lock)
 *   acc      a 256 KiB accumulate (the delegate strategy: updates in flight)
 *   fence    a fence
 *
 * The survivors ignore SIGTERM, as in die.c, so that they have the time
 * to show they were not stuck before the launcher's SIGKILL: each prints
 * "survivor_ok" with the call that failed; mpitests/run counts those lines,
 * and mpiexec's status is the victim's, 137.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#define WIN_LONGS	(64 * 1024)		/* 512 KiB windows */
#define BIG		(32 * 1024)		/* the victim's accumulate */
#define ITERATIONS	4

enum point { P_CREATE, P_LOCK, P_ACC, P_FENCE, NR_POINTS };
static const char *const point_name[] = { "create", "lock", "acc", "fence" };

static int rank, size, victim;
static unsigned int kill_delay_ms;
static long big[BIG];

static void *killer(void *arg)
{
	struct timespec ts = { 0, kill_delay_ms * 1000000L };

	(void)arg;
	nanosleep(&ts, NULL);
	raise(SIGKILL);
	return NULL;
}

/* The victim at its point: die from another thread, soon, wherever it is. */
static void arm(int point, int i, int plan_i, int plan_point)
{
	pthread_t t;

	if (rank != victim || i != plan_i || point != plan_point)
		return;
	if (pthread_create(&t, NULL, killer, NULL))
		raise(SIGKILL);
}

static void __attribute__((noreturn)) survived(const char *call, int rc)
{
	char s[MPI_MAX_ERROR_STRING] = "";
	int cls = rc, len;

	if (rank == victim)
		_exit(5);	/* the victim must die, not fail */
	MPI_Error_class(rc, &cls);
	MPI_Error_string(cls, s, &len);
	printf("survivor_ok rank %d: %s returned %s (%d)\n", rank, call, s, cls);
	fflush(stdout);
	_exit(0);
}

#define CHECK(call, expr)					\
	do {							\
		int rc_ = (expr);				\
								\
		if (rc_ != MPI_SUCCESS)				\
			survived(call, rc_);			\
	} while (0)

int main(int argc, char **argv)
{
	unsigned long seed = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	int plan_i, plan_point, i, n;
	long *mem;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		fprintf(stderr, "killpoint: needs 2 ranks or more\n");
		return 2;
	}
	victim = size - 1;
	if (rank != victim)
		signal(SIGTERM, SIG_IGN);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (!seed)
		seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
	srand(seed);
	plan_i = rand() % ITERATIONS;
	plan_point = rand() % NR_POINTS;
	kill_delay_ms = rand() % 21;
	if (rank == 0) {
		printf("killpoint: seed %lu: the victim dies %u ms after %s of iteration %d\n",
		       seed, kill_delay_ms, point_name[plan_point], plan_i);
		fflush(stdout);
	}
	for (n = 0; n < BIG; n++)
		big[n] = n;

	for (i = 0; i < ITERATIONS; i++) {
		arm(P_CREATE, i, plan_i, plan_point);
		CHECK("MPI_Win_allocate", MPI_Win_allocate(WIN_LONGS * sizeof(long), sizeof(long),
							   MPI_INFO_NULL, MPI_COMM_WORLD,
							   &mem, &win));
		MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

		CHECK("MPI_Win_lock", MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
		arm(P_LOCK, i, plan_i, plan_point);
		if (rank == victim && i == plan_i && plan_point == P_LOCK)
			usleep(100 * 1000);	/* dies holding the lock */
		CHECK("MPI_Accumulate", MPI_Accumulate(big, 64, MPI_LONG, 0, 0, 64, MPI_LONG,
						       MPI_SUM, win));
		CHECK("MPI_Win_unlock", MPI_Win_unlock(0, win));

		CHECK("MPI_Win_fence", MPI_Win_fence(0, win));
		arm(P_ACC, i, plan_i, plan_point);
		n = rank == victim ? BIG : 64;
		CHECK("MPI_Accumulate", MPI_Accumulate(big, n, MPI_LONG, 0, 0, n, MPI_LONG,
						       MPI_SUM, win));
		arm(P_FENCE, i, plan_i, plan_point);
		CHECK("MPI_Win_fence", MPI_Win_fence(0, win));
		CHECK("MPI_Win_free", MPI_Win_free(&win));
	}
	/* The killer may still be on its way: the victim waits for it. */
	if (rank == victim)
		for (;;)
			pause();
	CHECK("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
	printf("survivor_wrong rank %d: a barrier with the victim succeeded\n", rank);
	return 3;
}
