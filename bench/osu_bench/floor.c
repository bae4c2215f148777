// SPDX-License-Identifier: GPL-2.0
/*
 * osu_bench: the floor under every row, memcpy() alone.  Rank 0 copies a
 * row's bytes from its buffer into its own window memory with the C
 * library's memcpy(), between the same two clock reads as OSU's loops:
 * copy one operation's bytes per iteration, copy_bw WINDOW of them to
 * consecutive slots.  No MPI moves a put's or a get's bytes faster than
 * one such copy in the same machine, so a host alone that comes within
 * a factor F of it cannot be beaten by F (bench/osu-summary says which
 * targets that puts beyond reach).  Rank 1 waits in MPI_Barrier.
 */
#include "osu.h"

/* @iters iterations at rank 0, or until @budget seconds from @t0. */
static long copy_loop(const struct row *r, long iters, double budget, double t0)
{
	const size_t n = r->bytes, per = r->op == OP_COPY_BW ? WINDOW : 1;
	unsigned char *dst = r->wn->base;
	long i = 0;

	while (i < iters) {
		for (int j = 0; j < OSU_BLOCK; j++) {
			osu_clock();
			for (size_t k = 0; k < per; k++)
				memcpy(dst + k * n, sbuf + k * n, n);
			/* the copies are stores the compiler must make */
			__asm__ __volatile__("" : : : "memory");
			osu_clock();
		}
		i += OSU_BLOCK;
		if (now() - t0 >= budget)
			break;
	}
	return i;
}

double measure_floor(struct row *r)
{
	const size_t len = (r->op == OP_COPY_BW ? WINDOW : 1) * r->bytes;
	double v[MAX_ROUNDS], t0, t;
	long iters, bad;
	int n = 0;

	if (rank == 0) {
		for (size_t i = 0; i < len; i++)
			sbuf[i] = pattern(0, r->seed, i);
		copy_loop(r, MAX_ITERS, opt.time / 10, now());
		for (int k = 0; k < opt.rounds; k++) {
			t0 = now();
			iters = copy_loop(r, MAX_ITERS, opt.time, t0);
			t = figure(r, now() - t0, iters);
			if (t <= 0)
				break;
			v[n++] = t;
		}
		bad = pattern_mismatch(0, r->seed, r->wn->base, 0, len);
		r->bad = bad >= 0;
		if (r->bad)
			fprintf(stderr, "%s: %s: WRONG: byte %ld not copied\n", PROG, r->name,
				bad);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (n < opt.rounds)
		n = 0;
	report(r, v, n);	/* sorts v */
	return n ? v[n / 2] : 0;
}
