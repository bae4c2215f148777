/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * win_sync.h - what the files of RMA synchronization share: win_sync.c
 * (fence, locks, flushes), win_pscw.c (PSCW) and win_counters.c (fence
 * and PSCW on the lock table's counters).
 */
#ifndef MPIRMA_LIB_WIN_SYNC_H
#define MPIRMA_LIB_WIN_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "win.h"

/*
 * Fence and PSCW messages over the queues go in a context of their own,
 * one per window: the window's kernel id under a bit no communicator's
 * context reaches (theirs count up from MPIRMA_CTX_FIRST).
 */
#define MPIRMA_WIN_MSG_CTX	(1ULL << 62)
enum { MPIRMA_WIN_MSG_FENCE, MPIRMA_WIN_MSG_POST, MPIRMA_WIN_MSG_COMPLETE };

/*
 * One such message of @tag carrying @byte to window rank @to, and its
 * receive from window rank @from into *@byte (@nowait: -EAGAIN when none
 * is there): 0 or -errno.
 */
int mpirma_win_msg_send(const struct mpirma_window *w, int tag, uint32_t to,
			uint8_t byte);
int mpirma_win_msg_recv(const struct mpirma_window *w, int tag,
			uint32_t from, bool nowait, uint8_t *byte);

/*
 * Fences and PSCW on counters in the lock table (win_counters.c), where
 * the kernel made its sync area: @w->counters set, else NULL.
 */
void mpirma_win_counters_map(struct mpirma_window *w);
/* The fence's barrier: 0, or -errno (EOWNERDEAD: a rank has gone). */
int mpirma_win_counters_fence(struct mpirma_window *w);
/* Posts to window ranks @ranks[@n]; the caller has set w->in_post. */
void mpirma_win_counters_post(struct mpirma_window *w, const uint32_t *ranks,
			      uint32_t n);
/* Waits for the posts of @ranks[@n], each; MPI class (recorded). */
int mpirma_win_counters_start(struct mpirma_window *w, const uint32_t *ranks,
			      uint32_t n);
/* Completes to the started group (w->in_start). */
void mpirma_win_counters_complete(struct mpirma_window *w);
/*
 * Waits for the completes of the posted group (w->in_post), clearing each
 * origin's entry: 0, -EAGAIN (@test) while one is missing, else the first
 * -errno.
 */
int mpirma_win_counters_wait(struct mpirma_window *w, bool test);

/* The argument of a synchronization ioctl for @w. */
void mpirma_sync_arg(struct mpirma_win_sync *s,
		     const struct mpirma_window *w, uint32_t flags,
		     uint32_t rank);

/* A synchronization ioctl with no group; MPI class (recorded). */
int mpirma_sync_ioctl(struct mpirma_window *w, unsigned long cmd,
		      uint32_t flags, uint32_t rank, const char *what);

/* The error to return after all the steps of a call: the first one. */
static inline int mpirma_first_err(int first, int next)
{
	return first ? first : next;
}

/*
 * The layer's lane of a synchronization call @fn (rma_args.h, which the
 * user includes): @body on the window of @aw, a failure raised as the
 * public entry raises it and then handed to mpirma_at_done().
 */
#define SYNC_AT(aw, fn, body)						\
	mpirma_at_done(aw, mpirma_unlikely(mpirma_proc.state !=		\
					   MPIRMA_STATE_RUNNING) ?	\
		       mpirma_not_running(fn) :				\
		       mpirma_raise_win((aw)->win, (body), fn, NULL), fn)

#endif /* MPIRMA_LIB_WIN_SYNC_H */
