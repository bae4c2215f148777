// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win_pscw.c - generalized active target synchronization:
 * MPI_Win_post, start, complete, wait and test.
 *
 * Posts and completes are counters in the window's lock table
 * (win_counters.c); where the kernel made none and messages use the
 * shared-memory queues, messages in the window's synchronization context
 * (win_sync.h), polled in user space; else the kernel matches them
 * (MPIRMA_IOC_WIN_POST...).
 * Errors never break synchronization (win_sync.c says how): a complete
 * that found a bad operation is still sent, and a failed wait still ends
 * the exposure epoch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "request.h"
#include "p2p.h"
#include "rma_args.h"
#include "win.h"
#include "win_sync.h"

#define POST_ASSERTS	(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)

/* Groups up to this size are translated on the stack. */
#define PSCW_GROUP_BUF	64

/*
 * The members of @group as window ranks, in @buf (PSCW_GROUP_BUF entries)
 * or, for a larger group, a new array: *out, which the caller frees when
 * it is not @buf.  MPI class (recorded): MPI_ERR_GROUP for an invalid
 * group or a member outside the window.
 */
static int group_to_window(const struct mpirma_window *w, MPI_Group group,
			   uint32_t *buf, uint32_t **out, uint32_t *n)
{
	struct mpirma_group *g = mpirma_group_get(group);
	uint32_t *wr = buf;
	int i, jr;

	*out = buf;
	*n = 0;
	if (!g || group == MPI_GROUP_NULL)
		return mpirma_err(MPI_ERR_GROUP, "invalid group %d", group);
	if (g->size > PSCW_GROUP_BUF) {
		wr = malloc(g->size * sizeof(*wr));
		if (!wr)
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	for (i = 0; i < g->size; i++) {
		jr = g->ranks[i];
		if (jr < 0 || jr >= mpirma_proc.size || w->rank_of[jr] < 0) {
			if (wr != buf)
				free(wr);
			return mpirma_err(MPI_ERR_GROUP, "rank %d of the group "
					  "is not in the window", i);
		}
		wr[i] = (uint32_t)w->rank_of[jr];
	}
	*out = wr;
	*n = (uint32_t)g->size;
	return MPI_SUCCESS;
}

/*
 * PSCW over the queues, in the window's synchronization context: a post
 * is a message from the target to each origin of its group, a complete
 * one from the origin to each target of its group.  A start receives one
 * post from each of its targets and a wait one complete from each of its
 * origins, so posts and completes are matched per pair and in order, as
 * the kernel's counters match them (docs/kmod.md, "PSCW"); an early post
 * for a later epoch waits in the queue for its start.  A peer that has
 * died fails the start or wait that needs it.
 */
/* One synchronization message to window rank @to; MPI class (recorded). */
static int sync_send(const struct mpirma_window *w, int tag, uint32_t to,
		     const char *what)
{
	int ret = mpirma_win_msg_send(w, tag, to, 0);

	return ret < 0 ? mpirma_err_errno(ret, "%s to window rank %u", what,
					  to) : MPI_SUCCESS;
}

/* Receives one from window rank @from: 0, -EAGAIN (@nowait), -errno. */
static int sync_recv(const struct mpirma_window *w, int tag, uint32_t from,
		     bool nowait)
{
	uint8_t got;

	return mpirma_win_msg_recv(w, tag, from, nowait, &got);
}

static int pscw_post(struct mpirma_window *w, const uint32_t *ranks,
		     uint32_t n)
{
	int first = MPI_SUCCESS;
	uint32_t i;

	memset(w->in_post, 0, w->size);
	for (i = 0; i < n; i++)
		w->in_post[ranks[i]] = 1;
	if (w->counters) {
		mpirma_win_counters_post(w, ranks, n);
		return MPI_SUCCESS;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < n; i++)
		first = mpirma_first_err(first, sync_send(w, MPIRMA_WIN_MSG_POST,
							  ranks[i], "post"));
	return first;
}

/* Waits for every target's post, even after one has failed. */
static int pscw_start(struct mpirma_window *w, const uint32_t *ranks,
		      uint32_t n)
{
	int ret, first = MPI_SUCCESS;
	uint32_t i;

	if (w->counters)
		return mpirma_win_counters_start(w, ranks, n);
	for (i = 0; i < n; i++) {
		ret = sync_recv(w, MPIRMA_WIN_MSG_POST, ranks[i], false);
		if (ret < 0 && !first)
			first = mpirma_err_errno(ret, "waiting for the post "
						 "of window rank %u", ranks[i]);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return first;
}

static int pscw_complete(struct mpirma_window *w)
{
	int first = MPI_SUCCESS;
	int i;

	if (w->counters) {
		mpirma_win_counters_complete(w);
		return MPI_SUCCESS;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < w->size; i++)
		if (w->in_start[i])
			first = mpirma_first_err(first, sync_send(w,
						MPIRMA_WIN_MSG_COMPLETE,
						(uint32_t)i, "complete"));
	return first;
}

/*
 * The completes of the posted group not yet in: 0 once all are, -EAGAIN
 * (@test) while one is missing, else the first -errno (each origin is
 * still waited for).
 */
static int pscw_wait(struct mpirma_window *w, bool test)
{
	int i, ret, first = 0;

	if (w->counters)
		return mpirma_win_counters_wait(w, test);
	for (i = 0; i < w->size; i++) {
		if (!w->in_post[i])
			continue;
		ret = sync_recv(w, MPIRMA_WIN_MSG_COMPLETE, (uint32_t)i, test);
		if (ret == -EAGAIN && test)
			return -EAGAIN;
		w->in_post[i] = 0;
		if (ret < 0 && !first)
			first = ret;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return first;
}

/* PSCW on the counters or over the queues, not in the kernel? */
static bool in_user_space(const struct mpirma_window *w)
{
	return w->counters || mpirma_shmq_on();
}

/* WIN_POST or WIN_START with @group; MPI class (recorded). */
static int group_ioctl(const struct mpirma_window *w, unsigned long cmd,
		       const uint32_t *ranks, uint32_t n, const char *what)
{
	struct mpirma_win_group g;
	int ret;

	memset(&g, 0, sizeof(g));
	g.size = sizeof(g);
	g.win_id = w->id;
	g.nranks = n;
	g.ranks = (uint64_t)(uintptr_t)ranks;
	ret = mpirma_ioctl_wait(cmd, &g);
	return ret ? mpirma_err_errno(ret, "%s", what) : MPI_SUCCESS;
}

static int win_post(MPI_Group group, int assert, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	uint32_t buf[PSCW_GROUP_BUF], *ranks, n;
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (assert & ~POST_ASSERTS)
		return mpirma_err(MPI_ERR_ASSERT, "assertion 0x%x has bits "
				  "MPI_Win_post does not know", assert);
	if (w->posted)
		return mpirma_err(MPI_ERR_RMA_SYNC, "an exposure epoch "
				  "(MPI_Win_post) is already open");
	ret = group_to_window(w, group, buf, &ranks, &n);
	if (ret)
		return ret;
	/* NOCHECK changes nothing: posting never waits. */
	if (in_user_space(w))
		ret = pscw_post(w, ranks, n);
	else
		ret = group_ioctl(w, MPIRMA_IOC_WIN_POST, ranks, n,
				  "MPIRMA_IOC_WIN_POST");
	if (ranks != buf)
		free(ranks);
	if (ret)
		return ret;
	w->posted = true;
	return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_post(group, assert, win), MPIRMA_FUNC,
				NULL);
}
MPIRMA_ALIAS(Win_post)

MPIRMA_AT_ENTRY(Win_post) int
mpirma_at_Win_post(const struct mpirma_at_win *aw, int group, int assert)
{
	return SYNC_AT(aw, "MPI_Win_post", win_post(group, assert, aw->win));
}

static int win_start(MPI_Group group, int assert, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	uint32_t buf[PSCW_GROUP_BUF], *ranks, n, i;
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (assert & ~MPI_MODE_NOCHECK)
		return mpirma_err(MPI_ERR_ASSERT, "assertion 0x%x: only "
				  "MPI_MODE_NOCHECK applies to MPI_Win_start",
				  assert);
	if (w->started)
		return mpirma_err(MPI_ERR_RMA_SYNC, "an access epoch "
				  "(MPI_Win_start) is already open");
	if (mpirma_win_passive(w))
		return mpirma_err(MPI_ERR_RMA_SYNC, "a passive-target epoch "
				  "(lock) is open on this window");
	ret = group_to_window(w, group, buf, &ranks, &n);
	if (ret)
		return ret;
	/*
	 * Even with NOCHECK the kernel's start runs: the posts have already
	 * happened, so it does not wait, and it consumes them so that
	 * complete and wait stay matched.
	 */
	if (in_user_space(w))
		ret = pscw_start(w, ranks, n);
	else
		ret = group_ioctl(w, MPIRMA_IOC_WIN_START, ranks, n,
				  "MPIRMA_IOC_WIN_START");
	if (!ret) {
		memset(w->in_start, 0, w->size);
		for (i = 0; i < n; i++)
			w->in_start[ranks[i]] = 1;
		w->started = true;
	}
	if (ranks != buf)
		free(ranks);
	return ret;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_start(group, assert, win),
				MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_start)

MPIRMA_AT_ENTRY(Win_start) int
mpirma_at_Win_start(const struct mpirma_at_win *aw, int group, int assert)
{
	return SYNC_AT(aw, "MPI_Win_start", win_start(group, assert, aw->win));
}

static int win_complete(MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (!w->started)
		return mpirma_err(MPI_ERR_RMA_SYNC, "no access epoch "
				  "(MPI_Win_start) is open");
	/* The targets wait in MPI_Win_wait for this complete: always sent. */
	ret = mpirma_win_drain(w);
	if (in_user_space(w))
		ret = mpirma_first_err(ret, pscw_complete(w));
	else
		ret = mpirma_first_err(ret, mpirma_sync_ioctl(w,
				MPIRMA_IOC_WIN_COMPLETE, 0, 0,
				"MPIRMA_IOC_WIN_COMPLETE"));
	memset(w->in_start, 0, w->size);
	w->started = false;
	return ret;
}

int PMPI_Win_complete(MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_complete(win), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_complete)

MPIRMA_AT_ENTRY(Win_complete) int
mpirma_at_Win_complete(const struct mpirma_at_win *aw)
{
	return SYNC_AT(aw, "MPI_Win_complete", win_complete(aw->win));
}

/* Wait (@flag NULL) or test; MPI class (recorded). */
static int win_wait(MPI_Win win, int *flag)
{
	struct mpirma_window *w = mpirma_window_check(win);
	struct mpirma_win_sync s;
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (!w->posted)
		return mpirma_err(MPI_ERR_RMA_SYNC, "no exposure epoch "
				  "(MPI_Win_post) is open");
	if (in_user_space(w)) {
		ret = pscw_wait(w, !!flag);
	} else {
		mpirma_sync_arg(&s, w, flag ? MPIRMA_SYNC_TEST : 0, 0);
		ret = mpirma_ioctl_wait(MPIRMA_IOC_WIN_WAIT, &s);
	}
	if (flag && ret == -EAGAIN) {
		*flag = 0;
		return MPI_SUCCESS;
	}
	/* Failed or not, the exposure epoch is over: the window stays usable. */
	w->posted = false;
	if (flag)
		*flag = 1;
	return ret ? mpirma_err_errno(ret, "%s", in_user_space(w) ?
				      "waiting for the completes" :
				      "MPIRMA_IOC_WIN_WAIT") : MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_wait(win, NULL), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_wait)

MPIRMA_AT_ENTRY(Win_wait) int
mpirma_at_Win_wait(const struct mpirma_at_win *aw)
{
	return SYNC_AT(aw, "MPI_Win_wait", win_wait(aw->win, NULL));
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
	MPIRMA_CHECK_INIT();
	if (!flag)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"flag is NULL");
	return mpirma_raise_win(win, win_wait(win, flag), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_test)
