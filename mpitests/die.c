// SPDX-License-Identifier: GPL-2.0
/*
 * die: a rank dies in the middle of an epoch; nobody may hang.
 *
 * Usage: die MODE, with at least 2 ranks.  The last rank is the victim:
 * it kills itself with SIGKILL at a point given by MODE, while the others
 * (the survivors) are in, or about to enter, a call that depends on it:
 *
 *   fence     the victim has put into rank 0 and dies before the fence
 *   lock      the victim dies holding an exclusive lock on rank 0; the
 *             others wait for that lock, get it, then fence
 *   pscw      the victim has started an access epoch to rank 0 and dies
 *             before completing it; rank 0 waits for it
 *   barrier   MPI_Barrier
 *   recv      MPI_Ssend to the victim (which never receives it), then
 *             MPI_Recv from it
 *   midmsg    rank 0 receives a 128 MiB message the victim dies sending
 *             (its first units have come, the rest never will)
 *   isend     the others MPI_Isend the victim 2 MiB each (by one copy
 *             where ranks have CPUs enough: complete only once taken)
 *             and wait; it never receives
 *   fatal     as fence, with the default MPI_ERRORS_ARE_FATAL handler
 *   abort     the victim calls MPI_Abort(MPI_COMM_WORLD, 7) instead
 *
 * The survivors ignore SIGTERM, so that the launcher's teardown (SIGTERM,
 * then SIGKILL 2 s later) leaves them the time to show they were not
 * stuck: with MPI_ERRORS_RETURN each prints "survivor_ok" and the error
 * class it got; with the fatal handler the library's message ends them.
 * mpitests/run counts those lines; mpiexec's exit status is the victim's.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static int rank, size;

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void __attribute__((noreturn)) victim_dies(void)
{
	/* let the survivors block first */
	sleep_ms(300);
	raise(SIGKILL);
	for (;;)
		pause();
}

static void die_now(int sig)
{
	(void)sig;
	raise(SIGKILL);
}

/* The victim: dies 20 ms into sending rank 0 a message of 128 MiB. */
static void __attribute__((noreturn)) victim_dies_sending(void *big,
							  int len)
{
	struct itimerval it = { .it_value = { 0, 20000 } };

	sleep_ms(100);
	signal(SIGALRM, die_now);
	setitimer(ITIMER_REAL, &it, NULL);
	MPI_Send(big, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
	victim_dies();
}

static void __attribute__((noreturn)) survived(const char *call, int rc)
{
	char s[MPI_MAX_ERROR_STRING] = "";
	int cls = rc, len;

	MPI_Error_class(rc, &cls);
	MPI_Error_string(cls, s, &len);
	/* only an error counts: success would mean the dead rank took part */
	printf("%s rank %d: %s returned %s (%d)\n",
	       rc == MPI_SUCCESS ? "survivor_wrong" : "survivor_ok", rank, call,
	       rc == MPI_SUCCESS ? "MPI_SUCCESS" : s, cls);
	fflush(stdout);
	/* the job is broken: leave without MPI_Finalize */
	_exit(rc == MPI_SUCCESS ? 3 : 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fence";
	int victim, fatal = !strcmp(mode, "fatal"), rc;
	long *mem, v = 1;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		if (!strcmp(mode, "abort"))
			MPI_Abort(MPI_COMM_WORLD, 7);
		fprintf(stderr, "die: needs 2 ranks or more\n");
		return 2;
	}
	victim = size - 1;
	if (rank != victim)
		signal(SIGTERM, SIG_IGN);
	if (!fatal)
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL,
			 MPI_COMM_WORLD, &mem, &win);
	if (!fatal)
		MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

	if (!strcmp(mode, "fence") || fatal) {
		MPI_Win_fence(0, win);
		if (rank == victim) {
			MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
			victim_dies();
		}
		rc = MPI_Win_fence(0, win);
		survived("MPI_Win_fence", rc);
	} else if (!strcmp(mode, "lock")) {
		if (rank == victim) {
			MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
			MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
			MPI_Win_flush(0, win);
			MPI_Barrier(MPI_COMM_WORLD);
			victim_dies();
		}
		MPI_Barrier(MPI_COMM_WORLD);
		/* the dead holder's lock is released: this returns */
		rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		if (rc == MPI_SUCCESS) {
			MPI_Put(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
			MPI_Win_unlock(0, win);
			rc = MPI_Win_fence(0, win);
			survived("MPI_Win_fence after the lock", rc);
		}
		survived("MPI_Win_lock", rc);
	} else if (!strcmp(mode, "pscw")) {
		MPI_Group world, g;
		int zero = 0;

		MPI_Comm_group(MPI_COMM_WORLD, &world);
		if (rank == 0) {
			MPI_Group_excl(world, 1, &zero, &g);
			MPI_Win_post(g, 0, win);
			rc = MPI_Win_wait(win);
			survived("MPI_Win_wait", rc);
		}
		MPI_Group_incl(world, 1, &zero, &g);
		MPI_Win_start(g, 0, win);
		MPI_Accumulate(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
		if (rank == victim)
			victim_dies();
		MPI_Win_complete(win);
		rc = MPI_Barrier(MPI_COMM_WORLD);
		survived("MPI_Barrier after complete", rc);
	} else if (!strcmp(mode, "barrier")) {
		if (rank == victim)
			victim_dies();
		rc = MPI_Barrier(MPI_COMM_WORLD);
		survived("MPI_Barrier", rc);
	} else if (!strcmp(mode, "recv")) {
		if (rank == victim)
			victim_dies();
		rc = MPI_Ssend(&v, 1, MPI_LONG, victim, 1, MPI_COMM_WORLD);
		if (rc == MPI_SUCCESS)
			survived("MPI_Ssend", rc);
		rc = MPI_Recv(&v, 1, MPI_LONG, victim, 0, MPI_COMM_WORLD,
			      MPI_STATUS_IGNORE);
		survived("MPI_Recv", rc);
	} else if (!strcmp(mode, "midmsg")) {
		int len = 128 << 20;
		char *big = calloc(1, (size_t)len);

		if (rank == victim)
			victim_dies_sending(big, len);
		if (rank == 0) {
			rc = MPI_Recv(big, len, MPI_BYTE, victim, 0,
				      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			survived("MPI_Recv of a large message", rc);
		}
		rc = MPI_Barrier(MPI_COMM_WORLD);
		survived("MPI_Barrier", rc);
	} else if (!strcmp(mode, "isend")) {
		int len = 2 << 20;
		char *big = calloc(1, (size_t)len);
		MPI_Request rq;

		if (rank == victim)
			victim_dies();
		rc = MPI_Isend(big, len, MPI_BYTE, victim, 0, MPI_COMM_WORLD,
			       &rq);
		if (rc == MPI_SUCCESS)
			rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
		survived("MPI_Wait of a large MPI_Isend", rc);
	} else if (!strcmp(mode, "abort")) {
		if (rank == victim) {
			sleep_ms(300);
			MPI_Abort(MPI_COMM_WORLD, 7);
		}
		rc = MPI_Barrier(MPI_COMM_WORLD);
		survived("MPI_Barrier (abort)", rc);
	}
	fprintf(stderr, "die: unknown mode '%s'\n", mode);
	return 2;
}
