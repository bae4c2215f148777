// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of MPI_Wtime (lib/base/wtime.c, lib/base/tsc_clock.h).
 *
 * With a counter and a clock the test drives: answers are the clock's
 * until a rate is known, then the counter's within a nanosecond of the
 * clock; a pair interrupted between its reads anchors nothing; a clock
 * that slews keeps answers within the bound the header gives; a counter
 * that goes back makes the answer the clock's; answers never go back.
 * Then the choice: MPI_Wtime takes the counter only where the
 * clocksource file says tsc and MPIRMA_WTIME_TSC is not 0, and checks the
 * file again after WTIME_RECHECK anchors.  Last, on this host's own clock,
 * each answer lies between clock readings taken around it.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "../lib/base/tool.h"
#include "unit_check.h"

/* The driven counter and clock; with real set, this host's. */
static bool real;
static uint64_t tsc;		/* ticks; 3 per ns */
static uint64_t skew;		/* ticks the counter reads behind */
static long clock_reads;
static uint64_t step = 30;	/* ticks each read of the counter adds */
static uint64_t stall;		/* ticks the next clock read takes */
static uint64_t stall_before;	/* ... of them before it reads */
static double slew = 1.0;	/* clock ns per true ns */
static int64_t slew_from;	/* the true ns the slew starts at */

static int64_t truth(void)
{
	int64_t ns = (int64_t)(tsc / 3);

	return ns <= slew_from ? ns :
	       slew_from + (int64_t)((double)(ns - slew_from) * slew);
}

static uint64_t fake_tsc(void)
{
	tsc += step;
	return tsc - skew;
}

static int64_t fake_clock(void)
{
	int64_t ns;

	tsc += stall_before;
	ns = truth();
	tsc += stall - stall_before + step;	/* the rest passes after */
	stall = 0;
	stall_before = 0;
	clock_reads++;
	return ns;
}

#define TSC_READ()	(real ? __rdtsc() : fake_tsc())
#define TSC_READ_ORDERED() (real ? (_mm_lfence(), __rdtsc()) : fake_tsc())
#define TSC_CLOCK_NS()	(real ? mpirma_clock_ns() : fake_clock())

static char source_file[64];
#define WTIME_CLOCKSOURCE source_file

bool mpirma_env_on(const char *name)
{
	const char *v = getenv(name);

	return !v || strcmp(v, "0");
}

void mpirma_cvar_register(const struct mpirma_cvar *v)
{
	(void)v;
}

#include "../lib/base/wtime.c"

static void reset(void)
{
	memset(&wtime_clock, 0, sizeof(wtime_clock));
	wtime_how = 0;
	wtime_anchors = 0;
	tsc = 1000000;
	skew = 0;
	step = 30;
	stall = 0;
	stall_before = 0;
	slew = 1.0;
	slew_from = 0;
}

static void write_source(const char *what)
{
	FILE *f = fopen(source_file, "w");

	if (!f) {
		perror(source_file);
		exit(2);
	}
	fputs(what, f);
	fclose(f);
}

static int64_t answer_ns(void)
{
	return (int64_t)(PMPI_Wtime() * 1e9 + 0.5);
}

/*
 * The driven clock for @ms milliseconds: each answer at most @tol ns
 * outside the truth before and after its call.
 */
static void run(const char *what, int ms, int64_t tol, bool want_counter)
{
	int64_t a, t0, t1, off, prev = 0, worst = 0;
	int64_t end = truth() + (int64_t)ms * 1000000;
	long from_counter = 0, calls = 0;
	bool back = false;

	while (truth() < end) {
		long reads = clock_reads;

		t0 = truth();
		a = answer_ns();
		t1 = truth();
		off = a < t0 ? t0 - a : a > t1 ? a - t1 : 0;
		if (off > worst)
			worst = off;
		back |= a < prev;
		prev = a;
		from_counter += clock_reads == reads;
		calls++;
	}
	checkf(worst <= tol, "%s: off by %lld ns (at most %lld)", what,
	       (long long)worst, (long long)tol);
	checkf(!back, "%s: an answer went back", what);
	checkf(want_counter ? from_counter > calls / 2 : from_counter == 0,
	       "%s: %ld of %ld answers from the counter", what, from_counter,
	       calls);
}

static void driven(void)
{
	int64_t a, t0;

	reset();
	write_source("tsc\n");
	/* the first millisecond: the clock's answers, exact */
	run("before a rate", 1, 1, false);
	checkf(wtime_how == 1, "tsc: MPI_Wtime chose %d", wtime_how);
	answer_ns();
	checkf(wtime_clock.period > 0, "no rate after a millisecond");
	/*
	 * A pair's counter is its middle, 15 ticks after its clock read: 5 ns
	 * behind, and a rounding.
	 */
	run("from the counter", 20, 6, true);

	/* an interrupt between the reads of a pair anchors nothing */
	tsc += wtime_clock.period;	/* the next call takes a pair */
	stall = 3 * 1000000;		/* it takes a millisecond */
	t0 = truth();
	a = answer_ns();
	checkf(a >= t0 && a <= t0 + 30, "interrupted pair: %lld against %lld",
	       (long long)a, (long long)t0);
	run("after an interrupted pair", 5, 6, true);

	/* the clock slews 500 ppm: off by at most the rate's error a period */
	slew_from = truth();
	slew = 1.0005;
	run("slewing clock", 50, 520, true);

	/*
	 * The first pair interrupted after its clock read (its middle half a
	 * millisecond after that), the one 50 ms later that times the rate
	 * too, around its read: the rate 1% off, which the anchors after
	 * would keep within 0.1% of, answers 10 us off a period.  A narrow
	 * pair times the rate again.
	 */
	reset();
	stall = 3 * 1000000;
	answer_ns();
	tsc += 3 * 50000000ULL;
	stall = 3 * 1000000 + 60;
	stall_before = stall / 2;
	answer_ns();
	checkf(wtime_clock.period > 0, "no rate from the wide pairs");
	tsc += wtime_clock.period;	/* the next call takes a pair */
	run("after interrupted first pairs", 20, 6, true);

	/*
	 * The counter goes back half a millisecond, then jumps ahead a
	 * millisecond (another CPU's, out of step): answers stay the clock's
	 * but for the skew within a period, and never go back.
	 */
	reset();
	run("warm-up", 3, 6, true);
	a = answer_ns();
	skew = 3 * 500000;
	checkf(answer_ns() >= a, "counter back: answer went back");
	/* the clock stands until the counter is back where it was */
	run("after the counter went back", 5, 500000 + 6, true);
	tsc += wtime_clock.period;
	skew -= 3 * 1500000;
	answer_ns();
	run("after the counter jumped", 5, 1000006, true);
	run("a period later", 5, 6, true);
}

static void choice(void)
{
	reset();
	write_source("hpet\n");
	run("hpet", 3, 1, false);
	checkf(wtime_how == 2, "hpet: MPI_Wtime chose %d", wtime_how);

	reset();
	write_source("tsc\n");
	setenv("MPIRMA_WTIME_TSC", "0", 1);
	run("MPIRMA_WTIME_TSC=0", 3, 1, false);
	checkf(wtime_how == 2, "MPIRMA_WTIME_TSC=0: MPI_Wtime chose %d",
	       wtime_how);
	checkf(wtime_tsc_read() == 0, "the control variable says %d",
	       wtime_tsc_read());
	unsetenv("MPIRMA_WTIME_TSC");

	/* the kernel gives up the TSC: seen within WTIME_RECHECK anchors */
	reset();
	write_source("tsc\n");
	run("tsc", 3, 6, true);
	checkf(wtime_tsc_read() == 1, "the control variable says %d",
	       wtime_tsc_read());
	write_source("hpet\n");
	run("the kernel left the TSC", WTIME_RECHECK + 10, 6, true);
	checkf(wtime_how == 2, "after the switch MPI_Wtime chose %d",
	       wtime_how);
	run("hpet after the switch", 3, 1, false);
}

/* This host's clock: each answer between the clock before and after it. */
static void host(void)
{
	int64_t c0, c1, a, worst = 0;
	long i, outside = 0;

	reset();
	real = true;
	write_source("tsc\n");
	for (i = 0; i < 2000000; i++) {
		c0 = mpirma_clock_ns();
		a = answer_ns();
		c1 = mpirma_clock_ns();
		/* 2 us: a rate timed over the first millisecond at worst */
		if (a < c0 - 2000 || a > c1 + 2000) {
			outside++;
			if (llabs(a - c0) > worst)
				worst = llabs(a - c0);
		}
	}
	checkf(!outside, "host: %ld answers outside their clock readings "
	       "(up to %lld ns)", outside, (long long)worst);
	real = false;
}

int main(void)
{
	snprintf(source_file, sizeof(source_file), "/tmp/test_wtime.%d",
		 (int)getpid());
	driven();
	choice();
	host();
	unlink(source_file);
	return unit_summary();
}
