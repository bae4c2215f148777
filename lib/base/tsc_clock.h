/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tsc_clock.h - CLOCK_MONOTONIC read from the TSC (MPI_Wtime, wtime.c).
 *
 * Where the kernel keeps CLOCK_MONOTONIC on the TSC, a clock_gettime() is
 * the TSC scaled by the vDSO, but its call and its sequence count cost
 * more than the counter: 47-52 ns against 16 in a KVM guest on an AMD
 * EPYC, 0.12-0.17 us against 0.03-0.05 in QEMU's emulation; OSU's latency
 * loops read MPI_Wtime twice per operation.  Here a thread scales the
 * counter itself: it reads clock and counter together (a pair), learns
 * the counter's rate from its first pair and one at least TSC_ANCHOR_NS
 * later, and from then on answers from the counter, anchored to a fresh
 * pair every TSC_ANCHOR_NS.  The rate is averaged since the first pair,
 * so its error falls as the process runs; an answer is off by at most
 * that error times a period (below 0.1 us once a second has passed, on
 * hardware from the start).
 * A pair that took long (an interrupt between its reads) anchors
 * nothing: the call answers with its clock reading, which is exact; if
 * the first pair took long, the rate is timed again from a narrow one.  A
 * counter that went back or jumped (a rate 0.1% off the last: a CPU out
 * of step) starts the timing over.  Answers never go back within a
 * thread.
 *
 * The readers are macros so that the unit test (tests/test_wtime.c) can
 * drive the clock and the counter; TSC_ANCHORED(c), if defined, runs at
 * each new anchor.
 */
#ifndef MPIRMA_LIB_TSC_CLOCK_H
#define MPIRMA_LIB_TSC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define TSC_ANCHOR_NS	1000000		/* a new pair every millisecond */

#ifndef TSC_READ
#include <x86intrin.h>
/*
 * An answer reads the counter as it comes (a fence would double its cost:
 * 36 ns against 16 on an AMD EPYC), so it may run a few dozen cycles ahead
 * of the instructions before it; a pair's reads wait for them (lfence), as
 * the vDSO's do, for the pair to be tight.
 */
#define TSC_READ()		__rdtsc()
#define TSC_READ_ORDERED()	(_mm_lfence(), __rdtsc())
#endif

#ifndef TSC_CLOCK_NS
#define TSC_CLOCK_NS()	mpirma_clock_ns()	/* internal.h */
#endif

/* One thread's scale of the counter (zeroed: knows nothing yet). */
struct tsc_clock {
	uint64_t base_tsc;	/* the first pair: where the rate is timed from */
	int64_t base_ns;
	uint64_t width;		/* ticks the narrowest pair took */
	uint64_t anchor_tsc;	/* the last pair answers are scaled from */
	int64_t anchor_ns;
	uint64_t period;	/* ticks of TSC_ANCHOR_NS; 0: rate unknown */
	uint64_t mult;		/* ns per tick, times 2^32 */
	double ns_per_tick;
	int64_t last;		/* the last answer */
};

/* A pair: the clock, and the counter at its middle; the ticks it took. */
static inline uint64_t tsc_pair(int64_t *ns, uint64_t *tsc)
{
	uint64_t a = TSC_READ_ORDERED(), b;

	*ns = TSC_CLOCK_NS();
	b = TSC_READ_ORDERED();
	*tsc = a + (b - a) / 2;
	return b - a;
}

/* Did a pair of @w ticks take long beside one of @narrow (an interrupt)? */
static inline bool tsc_pair_slow(uint64_t w, uint64_t narrow)
{
	return w > 2 * narrow + 64;
}

/*
 * The answer when the counter has run past the anchor's period (or no
 * rate is known yet): the clock, and maybe a new anchor or a first rate.
 */
static __attribute__((noinline)) int64_t tsc_clock_anchor(struct tsc_clock *c)
{
	int64_t ns, since;
	uint64_t tsc, w = tsc_pair(&ns, &tsc);
	double rate, off;

	/*
	 * The rate is timed from the narrowest pair; once known, again from
	 * one beside which the base pair took long: it was interrupted, its
	 * middle up to half its width off its clock (a 2 ms first pair, a
	 * rate 2% off after 50 ms, answers 20 us ahead of the clock).
	 */
	if (!c->width || (c->period ? tsc_pair_slow(c->width, w) :
				      w < c->width))
		goto base;
	if (tsc_pair_slow(w, c->width))
		return ns;		/* interrupted: no anchor on it */
	since = ns - c->base_ns;
	if (since < TSC_ANCHOR_NS)
		return ns;
	if (tsc <= c->base_tsc || (c->period && tsc < c->anchor_tsc))
		goto base;		/* the counter went back */
	rate = (double)since / (double)(tsc - c->base_tsc);
	off = rate > c->ns_per_tick ? rate - c->ns_per_tick :
				      c->ns_per_tick - rate;
	if (c->period && off > c->ns_per_tick / 1000)
		goto base;		/* or jumped: start over */
	c->ns_per_tick = rate;
	c->period = (uint64_t)(TSC_ANCHOR_NS / rate);
	c->mult = (uint64_t)(rate * 4294967296.0 + 0.5);
	c->anchor_tsc = tsc;
	c->anchor_ns = ns;
#ifdef TSC_ANCHORED
	TSC_ANCHORED(c);
#endif
	return ns;
base:
	c->base_tsc = tsc;
	c->base_ns = ns;
	c->width = w ? w : 1;
	c->period = 0;
	return ns;
}

/* CLOCK_MONOTONIC in nanoseconds, never less than this clock's last. */
static inline int64_t tsc_clock_ns(struct tsc_clock *c)
{
	uint64_t d = TSC_READ() - c->anchor_tsc;
	int64_t ns;

	/*
	 * In integers, as the vDSO scales: emulators run each floating-point
	 * instruction as a call (QEMU's TCG: 0.18 us an answer in doubles).
	 * Within a period d * mult stays below 2^53.
	 */
	if (__builtin_expect(d < c->period, 1))
		ns = c->anchor_ns + (int64_t)((d * c->mult) >> 32);
	else
		ns = tsc_clock_anchor(c);
	if (ns < c->last)
		ns = c->last;
	c->last = ns;
	return ns;
}

#endif /* MPIRMA_LIB_TSC_CLOCK_H */
