/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lockword.h - the lock of one process's part of a window that spans
 * nodes, kept in a word the processes of its node share (lockword.c); the
 * words are agent_slots.c's.
 */
#ifndef MPIRMA_HYBRID_LOCKWORD_H
#define MPIRMA_HYBRID_LOCKWORD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A node-local origin's side (HY_LOCK_SHARED or HY_LOCK_EXCL as @type).
 * hy_lw_try() takes the lock when it is free for @type and nobody waits
 * for it; else hy_lw_enqueue() counts the caller among the waiters, whose
 * hy_lw_try_queued() takes it as soon as it is free for @type (and counts
 * it out).  hy_lw_release() gives back what the caller holds and returns
 * the word as it was: with HY_LW_AGENT set, the agent has requests waiting
 * and must be told.
 */
#define HY_LW_AGENT	(1ULL << 62)
bool hy_lw_try(uint64_t *w, int type);
void hy_lw_enqueue(uint64_t *w);
bool hy_lw_try_queued(uint64_t *w, int type);
uint64_t hy_lw_release(uint64_t *w);

/*
 * The agent's side, for origins of other nodes (slots lock held):
 * hy_lw_agent_take() takes the lock for a request when it is free for
 * @type, with @defer (a new request, or the next after a grant) only when
 * no node-local origin waits, without it (told of a release) before them.
 * When a holder keeps it out, it sets HY_LW_AGENT, so that the release
 * tells it, and goes first then; when only waiters do, HY_LW_AGENT alone.
 * hy_lw_agent_idle() clears both once no request waits.  hy_lw_reset()
 * clears a word for a new window.
 */
bool hy_lw_agent_take(uint64_t *w, int type, bool defer);
void hy_lw_agent_idle(uint64_t *w);
void hy_lw_reset(uint64_t *w);

#endif /* MPIRMA_HYBRID_LOCKWORD_H */
