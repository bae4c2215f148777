/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pace.h - the agent's paced sleeps between looks at its inbox, where it
 * polls instead of being woken: on the host's transport always, on its
 * own where ranks outnumber the node's CPUs (net_serve.c).  After a look
 * that served a frame it looks again at once; idle, it sleeps twice as
 * long each round, from the cost of a round (a running mean of its CPU
 * time, so the agent takes about 1/HY_PACE_SHARE of a CPU) up to
 * HY_PACE_SHARE rounds' cost and HY_PACE_MAX_NS at most, for the latency
 * of the first frame after a pause.  One struct hy_pace per polling
 * thread (the agent's); no lock.
 */
#ifndef MPIRMA_HYBRID_PACE_H
#define MPIRMA_HYBRID_PACE_H

#include <stdbool.h>
#include <time.h>

#define HY_PACE_MIN_NS	2000		/* the agent's sleeps: 2 us ... */
#define HY_PACE_MAX_NS	2000000		/* ... to 2 ms */
#define HY_PACE_SHARE	20		/* idle: a sleep of 20 rounds' cost */

struct hy_pace {
	long long round_ns;	/* a round's CPU time, a running mean */
	long long pace_ns;	/* the last sleep; 0: none since a frame */
	long long last_cpu;	/* the thread's CPU time then; -1: none */
};

#define HY_PACE_INIT { .round_ns = HY_PACE_MIN_NS, .last_cpu = -1 }

/* The thread rested, or a frame came: its next sleep is short again. */
void hy_pace_reset(struct hy_pace *p);

/*
 * The next sleep in @ts, or false when the last look served a frame
 * (@served) and the thread should look again at once.
 */
bool hy_pace_next(struct hy_pace *p, bool served, struct timespec *ts);

#endif
