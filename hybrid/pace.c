// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pace.c - the agent's paced sleeps between polls (pace.h).
 */
#include <sys/prctl.h>

#include "pace.h"

static long long clamp_ns(long long ns, long long lo, long long hi)
{
	return ns < lo ? lo : ns > hi ? hi : ns;
}

void hy_pace_reset(struct hy_pace *p)
{
	p->pace_ns = 0;
	p->last_cpu = -1;
}

bool hy_pace_next(struct hy_pace *p, bool served, struct timespec *ts)
{
	static __thread bool slack_set;
	struct timespec now;
	long long cpu;

	if (served) {
		hy_pace_reset(p);
		return false;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	cpu = now.tv_sec * 1000000000LL + now.tv_nsec;
	if (p->last_cpu >= 0)
		p->round_ns += (cpu - p->last_cpu - p->round_ns) / 8;
	p->last_cpu = cpu;
	p->pace_ns = clamp_ns(p->pace_ns ? 2 * p->pace_ns : p->round_ns,
			      HY_PACE_MIN_NS,
			      clamp_ns(HY_PACE_SHARE * p->round_ns,
				       HY_PACE_MIN_NS, HY_PACE_MAX_NS));
	/* sleeps as asked: the default slack (50 us) made each one long */
	if (!slack_set) {
		prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
		slack_set = true;
	}
	*ts = (struct timespec){ .tv_nsec = (long)p->pace_ns };
	return true;
}
