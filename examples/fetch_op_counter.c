// SPDX-License-Identifier: GPL-2.0
/*
 * fetch_op_counter: a shared counter, the classic use of MPI_Fetch_and_op.
 *
 * Rank 0's window holds two counters.  Under one passive-target epoch on
 * all processes (MPI_Win_lock_all), every process repeatedly
 *
 *  - takes a ticket: MPI_Fetch_and_op(+1, MPI_SUM) on counter 0 returns the
 *    value before the increment, so the tickets of all processes together
 *    must be exactly 0, 1, ..., total - 1, each once;
 *  - adds an amount to counter 1 with MPI_Get_accumulate(MPI_SUM), which
 *    also returns the previous value: sorted by those previous values, the
 *    operations must form one unbroken chain from 0, each starting where
 *    the one before ended.
 *
 * Both hold only if every read-modify-write is atomic, however many
 * processes hit the counter at the same time.  MPI_Win_flush completes
 * each operation so that its result can be used at once.  At the end every
 * process reads both counters with MPI_Fetch_and_op(MPI_NO_OP), an atomic
 * read.
 *
 * Usage: mpiexec -n P fetch_op_counter [k]    (k: tickets per process)
 * Exits 1 if anything is wrong.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define DEFAULT_K	50

struct step {
	long old;	/* counter 1 before this operation */
	long amount;	/* what it added */
};

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static int cmp_step(const void *a, const void *b)
{
	return cmp_long(&((const struct step *)a)->old,
			&((const struct step *)b)->old);
}

int main(int argc, char **argv)
{
	int rank, p, k = DEFAULT_K, i, ok = 1;
	long *counters, *tickets, *all_tickets = NULL, one = 1, total;
	long final[2];
	struct step *steps, *all_steps = NULL;
	MPI_Datatype step_type;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc > 1)
		k = atoi(argv[1]);
	if (k < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: fetch_op_counter [k >= 1]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	total = (long)p * k;

	/* the counters live at rank 0; the others expose nothing */
	MPI_Win_allocate(rank == 0 ? 2 * sizeof(long) : 0, sizeof(long),
			 MPI_INFO_NULL, MPI_COMM_WORLD, &counters, &win);
	if (rank == 0) {
		/* MPI_Win_allocate memory is ours to initialise; do it in an
		 * epoch so the other processes see it
		 */
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		counters[0] = counters[1] = 0;
		MPI_Win_unlock(0, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	tickets = malloc(k * sizeof(long));
	steps = malloc(k * sizeof(struct step));
	if (!tickets || !steps)
		MPI_Abort(MPI_COMM_WORLD, 1);

	MPI_Win_lock_all(0, win);
	for (i = 0; i < k; i++) {
		MPI_Fetch_and_op(&one, &tickets[i], MPI_LONG, 0, 0, MPI_SUM, win);
		MPI_Win_flush(0, win);

		steps[i].amount = rank + 1 + i % 3;
		MPI_Get_accumulate(&steps[i].amount, 1, MPI_LONG,
				   &steps[i].old, 1, MPI_LONG, 0, 1, 1,
				   MPI_LONG, MPI_SUM, win);
		MPI_Win_flush(0, win);
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);	/* everybody is done */

	/* the final values, read atomically */
	MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
	MPI_Fetch_and_op(NULL, &final[0], MPI_LONG, 0, 0, MPI_NO_OP, win);
	MPI_Fetch_and_op(NULL, &final[1], MPI_LONG, 0, 1, MPI_NO_OP, win);
	MPI_Win_unlock(0, win);
	if (final[0] != total) {
		fprintf(stderr, "rank %d: counter 0 = %ld, want %ld\n", rank,
			final[0], total);
		ok = 0;
	}

	/* gather everything at rank 0 */
	MPI_Type_contiguous(2, MPI_LONG, &step_type);
	MPI_Type_commit(&step_type);
	if (rank == 0) {
		all_tickets = malloc(total * sizeof(long));
		all_steps = malloc(total * sizeof(struct step));
		if (!all_tickets || !all_steps)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gather(tickets, k, MPI_LONG, all_tickets, k, MPI_LONG, 0,
		   MPI_COMM_WORLD);
	MPI_Gather(steps, k, step_type, all_steps, k, step_type, 0,
		   MPI_COMM_WORLD);
	MPI_Type_free(&step_type);

	if (rank == 0) {
		long l, sum = 0;

		/* the tickets are a permutation of 0 .. total-1 */
		qsort(all_tickets, total, sizeof(long), cmp_long);
		for (l = 0; l < total; l++)
			if (all_tickets[l] != l) {
				fprintf(stderr, "tickets: position %ld holds %ld\n",
					l, all_tickets[l]);
				ok = 0;
				break;
			}
		/* get_accumulate: one chain 0 -> ... -> final[1] */
		qsort(all_steps, total, sizeof(struct step), cmp_step);
		for (l = 0; l < total; l++) {
			if (all_steps[l].old != sum) {
				fprintf(stderr, "get_accumulate: operation %ld saw "
					"%ld, want %ld\n", l, all_steps[l].old, sum);
				ok = 0;
				break;
			}
			sum += all_steps[l].amount;
		}
		if (final[1] != sum) {
			fprintf(stderr, "counter 1 = %ld, want %ld\n", final[1],
				sum);
			ok = 0;
		}
		printf("fetch_op_counter: %d processes x %d: counter = %ld, "
		       "tickets 0..%ld each once, get_accumulate total = %ld: %s\n",
		       p, k, final[0], total - 1, final[1],
		       ok ? "correct" : "WRONG");
		free(all_tickets);
		free(all_steps);
	}
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);

	free(tickets);
	free(steps);
	MPI_Win_free(&win);
	MPI_Finalize();
	return ok ? 0 : 1;
}
