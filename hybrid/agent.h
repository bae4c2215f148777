/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * agent.h - the agent: a thread of every process of a job whose windows
 * span nodes, which applies the operations origins on other nodes ship to
 * this process (agent.c), and keeps the locks of this process's part of
 * each such window (agent_slots.c).
 */
#ifndef MPIRMA_HYBRID_AGENT_H
#define MPIRMA_HYBRID_AGENT_H

#include <time.h>

#include "hybrid.h"
#include "wire.h"

/*
 * agent.c: hy_agent_start() and hy_agent_stop() are collective over
 * MPI_COMM_WORLD (at hy_start and hy_stop); with @report, the stop says on
 * stderr what the agent served and the CPU time it took.
 */
int hy_agent_start(void);
void hy_agent_stop(bool report);

/*
 * One round of a program thread's wait for @req[0..@n-1] (waits.c), which
 * the host sets to MPI_REQUEST_NULL as they complete (their statuses into
 * @stat, unless NULL): tests them without waiting, and, unless another
 * thread is serving, serves what has come for the agent (hy_agent_serve),
 * so a remote origin is answered without waking the agent.
 * hy_agent_waiting(+1/-1) brackets a wait: while program threads wait, the
 * agent rests.  The host's error, or MPI_SUCCESS; on the agents' own
 * transport one request's own error (its status written with it), not
 * MPI_ERR_IN_STATUS, so a wait for one receive reports as MPI_Recv would.
 */
#define HY_WAIT_REQS	3	/* requests of one wait, at most */
int hy_agent_assist(int n, MPI_Request *req, MPI_Status *stat);
void hy_agent_waiting(int delta);

/*
 * The engine's block hook (mpirma_set_block_hook()): +1 as a program
 * thread sleeps in the module, -1 as it wakes.  Meanwhile the agent polls
 * without its paced sleeps: an origin of another node may be what the
 * sleeper's peers wait for (OpenCoarrays' reads of image 1 while image 1
 * waits in MPI_Win_allocate).
 */
void hy_agent_sleeping(int delta);

/* @clock's time in ns (the agent's paces and its report). */
long long hy_clock_ns(clockid_t clock);

/* Serves what has come, unless another thread serves: messages served. */
int hy_agent_serve(void);

/*
 * How many messages the calling program thread has served so far, in its
 * waits and at MPI_Win_lock (a count that wraps): a wait during which it
 * grew is not idle (waits.c's naps).
 */
unsigned int hy_agent_assisted(void);

/*
 * A program thread's look at what has come as it enters the layer's
 * synchronization (MPI_Win_lock), now and then (see agent.c).
 */
void hy_agent_poll(void);

/* agent_slots.c: what serving needs of a slot. */
struct hy_slot_target {
	uint32_t win_id;	/* the engine window's kernel id */
	uint32_t erank;		/* this process's rank in it */
};

/* Slot @slot's target, or false when no window has that slot. */
bool hy_slot_target(uint32_t slot, struct hy_slot_target *out);

/* A lock or unlock request @h from @origin (its world rank). */
void hy_slot_serve_lock(const struct ship_hdr *h, int origin);

/*
 * The node's lock words (lockword.c): HY_LW_SLOTS per process, one per
 * slot.  hy_slot_words_start() and _stop() are collective over the node's
 * module job (the agents' start and stop); start is false when the engine
 * gave no shared memory.  hy_slot_word() is the word of @slot of world
 * rank @world's agent, NULL for a rank of another node.
 */
#define HY_LW_SLOTS	4096
bool hy_slot_words_start(void);
void hy_slot_words_stop(void);
uint64_t *hy_slot_word(int world, int slot);

/*
 * hy_slot_release() gives back the lock an applied epoch took.
 * hy_slot_retry() grants what waits for slot @slot's lock, as a
 * HY_KIND_RETRY would: a release of this process's own found the agent
 * waiting (hy_lw_release).
 */
void hy_slot_release(int slot);
void hy_slot_retry(int slot);

/*
 * An epoch message @h of @n bytes from @origin: true when its lock was
 * taken at once (apply it now), false when it waits.  hy_slot_ready()
 * hands over, in grant order, the waiting epochs a release has granted
 * since (their copies, to free after applying them).
 */
bool hy_slot_epoch(const struct ship_hdr *h, size_t n, int origin);
bool hy_slot_ready(struct ship_hdr **epoch, size_t *len, int *origin);

/*
 * Applies the epochs granted while they waited, or wakes the agent to,
 * when another thread is serving: after this process gave back its own
 * lock.
 */
void hy_agent_serve_ready(void);

/*
 * A new spanning window's slot in this process's agent (in
 * @w->span->myslot); hy_slot_close() takes it back.  Host class: out of
 * memory, or more windows at once than the host's tags can name.
 */
int hy_slot_open(struct hy_win *w);
void hy_slot_close(struct hy_win *w);

/* Frees every slot (the agent has stopped). */
void hy_slots_free(void);

/*
 * The slots in use: this process's windows that span nodes.  Without one
 * no origin ships to this process, and its receives need not serve.
 */
extern int hy_live_slots;	/* agent_slots.c's count, read inline by waits */

static inline int hy_slots_live(void)
{
	return __atomic_load_n(&hy_live_slots, __ATOMIC_ACQUIRE);
}

#endif /* MPIRMA_HYBRID_AGENT_H */
