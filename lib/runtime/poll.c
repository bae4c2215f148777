// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * poll.c - the pace of a wait that polls shared memory for another rank:
 * the shared-memory queues (lib/runtime/shmq_wait.c) and fences and PSCW
 * epochs in a window's lock table (lib/rma/win_counters.c).
 *
 * Under the hybrid layer every such wait also advances the host now and
 * then (mpirma_poll_host()), and never sleeps in the kernel, where a
 * host message would not wake it: it yields instead.
 *
 * It polls for mpirma_proc.spin (init.c: 1 ms where every rank has a CPU,
 * else not at all; a sched_yield() every POLL_YIELD_EVERY among the
 * polls), then for mpirma_proc.yield_spin with a sched_yield() after each
 * look (200 us where ranks outnumber CPUs), then tells its caller to sleep
 * in the kernel.  With MPI_THREAD_MULTIPLE it pauses without the library
 * lock instead and never sleeps there: another thread may take what the
 * sleeper waits for.
 */
#include <sched.h>

#include "nbc.h"
#include "p2p.h"
#include "runtime.h"

/*
 * Seconds between two sched_yield()s while polling flat out: two ranks
 * the scheduler has put on one CPU (mpiexec binds none) otherwise pass
 * the CPU once a time slice, a millisecond per message; with the yield
 * the peer runs within this.  Alone on its CPU the call returns at once.
 */
#define POLL_YIELD_EVERY	25e-6
#define RELAX_AFTER	4096	/* polls before each poll pauses the CPU */
/*
 * Polls before the first advance of the host, then one in 16: a peer that
 * comes within them costs no call (under MPICH an MPI_Iprobe was 0.6 of a
 * fence's 1.5 us), and a peer that waits for the host's progress waits a
 * few microseconds longer.
 */
#define HOST_AFTER	256

bool mpirma_poll_step(struct mpirma_poller *p)
{
	double now;

	if (mpirma_threads) {
		mpirma_wait_pause(&p->spins);
		p->rounds++;
		return false;
	}
	/*
	 * The first polls go flat out: a pause in each made an 8-byte
	 * ping-pong 10-20% slower in the VM, and a peer that answers at
	 * once answers within them.
	 */
	if (p->rounds++ & 63) {
		if (p->rounds > RELAX_AFTER)
			mpirma_cpu_relax();
		return false;
	}
	/*
	 * The clock at once: where ranks outnumber CPUs (no flat-out polls)
	 * the first round already yields.
	 */
	now = PMPI_Wtime();
	if (p->rounds == 1) {
		p->end = now + mpirma_proc.spin;
		p->yield_at = now + POLL_YIELD_EVERY;
	}
	if (now < p->end) {
		if (now >= p->yield_at) {
			sched_yield();
			p->yield_at = now + POLL_YIELD_EVERY;
		}
		return false;
	}
	if (now < p->end + mpirma_proc.yield_spin) {
		sched_yield();
		return false;
	}
	return true;
}

bool mpirma_poll_flat(void)
{
	return mpirma_proc.spin > 0 && !mpirma_threads &&
	       !mpirma_host_progress;
}

bool mpirma_poll_progress(const struct mpirma_poller *p)
{
	bool due = false;

	if (mpirma_nbc_pending()) {
		mpirma_nbc_progress();
		due = true;
	}
	if (mpirma_p2p_progress_due()) {
		if (!(p->rounds & 15))
			mpirma_p2p_progress();
		due = true;
	}
	return due;
}

void (*mpirma_host_progress)(void);

bool mpirma_poll_host(const struct mpirma_poller *p)
{
	if (!mpirma_host_progress)
		return false;
	if (p->rounds >= HOST_AFTER && (p->rounds & 15) == 15)
		mpirma_host_progress();
	return true;
}

void mpirma_set_host_progress(void (*fn)(void))
{
	mpirma_host_progress = fn;
}
