// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * agent_slots.c - the agent's windows and their locks.  Each window that
 * spans nodes has a slot in every member's agent: the engine window's
 * kernel id and this process's rank in it (what serving needs), and the
 * lock of this process's part of the window: a word (lockword.c) in memory
 * the node's processes share, one per slot, which node-local origins take
 * themselves (origin.c) and the agent takes for origins of other nodes,
 * so that MPI_LOCK_EXCLUSIVE excludes both.  Their requests that cannot be
 * granted wait here in arrival order; a grant is a frame of no bytes with
 * tag HY_TAG_GRANT + slot (net.h).
 * An epoch message (wire.h) is a request too: granted at once, its
 * serving thread applies it; queued, it is copied, and the release that
 * grants it puts it on the ready list, which serving threads apply.
 *
 * Called by agent.c (lookups, lock requests, the words at start and stop),
 * span.c (open and close) and origin.c (words, retries); sends grants
 * through net_io.c.
 */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "errors.h"
#include "locks.h"
#include "lockword.h"
#include "net.h"
#include "wire.h"

/*
 * A lock request the agent cannot grant yet: a plain one, or a whole
 * epoch (@epoch: a copy of its message, @len bytes), which is granted by
 * putting it on the ready list for a serving thread to apply.
 */
struct lock_wait {
	int origin;		/* its world rank */
	int type;		/* HY_LOCK_* */
	struct ship_hdr *epoch;
	size_t len;
};

/*
 * A slot: @target for serving; its lock @word, and the requests of other
 * nodes' origins waiting for it in arrival order (@wait, @nwait of
 * @capwait).
 */
struct agent_slot {
	bool used;
	struct hy_slot_target target;
	uint64_t *word;
	struct lock_wait *wait;
	int nwait;
	int capwait;
};

/*
 * Protects slots, nslots, every slot's fields and the ready list
 * (HY_LOCK_SLOTS).
 */
static struct hy_mutex slots_lock = HY_MUTEX_INIT(HY_LOCK_SLOTS);
static struct agent_slot *slots;
static int nslots;

/* Slots in use (atomic; changed under slots_lock): 0, nobody ships here. */
int hy_live_slots;

/* Queued epochs granted since, in grant order, for hy_slot_ready(). */
static struct lock_wait *ready;
static int nready, capready;

/*
 * The node's lock words: HY_LW_SLOTS per process, one per slot, in a
 * shared engine window over the node's module job; @words[r] is rank r's.
 * Set at the agents' start, before any slot, and cleared after the stop.
 */
static MPII_Win words_win = MPII_WIN_NULL;
static uint64_t **words;

bool hy_slot_target(uint32_t k, struct hy_slot_target *out)
{
	bool used = false;

	hy_mutex_lock(&slots_lock);
	if (k < (uint32_t)nslots && slots[k].used) {
		*out = slots[k].target;
		used = true;
	}
	hy_mutex_unlock(&slots_lock);
	return used;
}

/* Appends @e to the list @l of *@n entries, room *@cap. */
static void wait_push(struct lock_wait **l, int *n, int *cap,
		      const struct lock_wait *e)
{
	if (*n == *cap) {
		int c = *cap ? 2 * *cap : 8;
		struct lock_wait *q = realloc(*l, sizeof(*q) * (size_t)c);

		if (!q)
			PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
		*l = q;
		*cap = c;
	}
	(*l)[(*n)++] = *e;
}

/*
 * Grants slot @k's waiting requests, oldest first, while the word lets
 * the agent take the lock (@defer: behind node-local waiters, see
 * lockword.c): a plain request gets its grant message, an epoch goes to
 * the ready list.  Once none waits, node-local origins need not tell the
 * agent of their releases any more.
 */
static void grant_waiting(int k, bool defer)
{
	struct agent_slot *s = &slots[k];

	hy_mutex_assert_held(&slots_lock);
	while (s->nwait) {
		struct lock_wait *e = &s->wait[0];

		if (!hy_lw_agent_take(s->word, e->type, defer))
			return;
		if (e->epoch)
			wait_push(&ready, &nready, &capready, e);
		else	/* never blocks: what the socket does not take waits */
			hy_net_reply(e->origin, HY_TAG_GRANT + (uint32_t)k,
				     NULL, 0, NULL, 0);
		memmove(s->wait, s->wait + 1,
			sizeof(*s->wait) * (size_t)--s->nwait);
		defer = true;	/* the agent had its turn */
	}
	hy_lw_agent_idle(s->word);
}

/* Does the agent take slot @k's lock as @type for a new request now? */
static bool lock_now(int k, int type)
{
	hy_mutex_assert_held(&slots_lock);
	return !slots[k].nwait && hy_lw_agent_take(slots[k].word, type, true);
}

/*
 * Queues @origin's request of @type for slot @k behind those waiting (an
 * epoch's copy in @epoch, @len bytes, else NULL).
 */
static void lock_queue(int k, int type, int origin, struct ship_hdr *epoch,
		       size_t len)
{
	struct agent_slot *s = &slots[k];

	wait_push(&s->wait, &s->nwait, &s->capwait,
		  &(struct lock_wait){ .origin = origin, .type = type,
				       .epoch = epoch, .len = len });
}

/* Gives back what an origin of another node held of slot @k. */
static void lock_release(int k)
{
	hy_mutex_assert_held(&slots_lock);
	hy_lw_release(slots[k].word);
	grant_waiting(k, true);
}

/*
 * A lock, unlock or retry from @origin.  A lock that cannot be granted
 * waits behind those before it; an unlock grants what it can from the
 * front, and so does a retry (a node-local origin's release found the
 * agent waiting).  Out of memory for a waiting request ends the job: its
 * origin would wait forever.  A request for a slot not in use is dropped:
 * a window is freed collectively, so no lock can come for it.
 */
void hy_slot_serve_lock(const struct ship_hdr *h, int origin)
{
	int k = (int)h->slot;

	hy_mutex_lock(&slots_lock);
	if (k < nslots && slots[k].used) {
		if (h->kind == HY_KIND_UNLOCK)
			lock_release(k);
		else if (h->kind == HY_KIND_RETRY)
			grant_waiting(k, false);
		else if (lock_now(k, h->op))
			hy_net_reply(origin, HY_TAG_GRANT + (uint32_t)k, NULL,
				     0, NULL, 0);
		else
			lock_queue(k, h->op, origin, NULL, 0);
	}
	hy_mutex_unlock(&slots_lock);
}

void hy_slot_retry(int k)
{
	hy_mutex_lock(&slots_lock);
	if (k >= 0 && k < nslots && slots[k].used)
		grant_waiting(k, false);
	hy_mutex_unlock(&slots_lock);
}

/*
 * An epoch message @h of @n bytes from @origin: true when its lock is
 * taken now (the caller applies it); else it waits, copied, like any
 * request, or is dropped when its slot is not in use (false).
 */
bool hy_slot_epoch(const struct ship_hdr *h, size_t n, int origin)
{
	int k = (int)h->slot;
	struct ship_hdr *copy;
	bool granted = false;

	hy_mutex_lock(&slots_lock);
	if (k < nslots && slots[k].used) {
		granted = lock_now(k, h->op);
		if (!granted) {
			copy = malloc(n);
			if (!copy)
				PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
			memcpy(copy, h, n);
			lock_queue(k, h->op, origin, copy, n);
		}
	}
	hy_mutex_unlock(&slots_lock);
	return granted;
}

bool hy_slot_ready(struct ship_hdr **epoch, size_t *len, int *origin)
{
	bool got = false;

	hy_mutex_lock(&slots_lock);
	if (nready) {
		*epoch = ready[0].epoch;
		*len = ready[0].len;
		*origin = ready[0].origin;
		memmove(ready, ready + 1, sizeof(*ready) * (size_t)--nready);
		got = true;
	}
	hy_mutex_unlock(&slots_lock);
	return got;
}

/* Gives back slot @k's lock an applied epoch took. */
void hy_slot_release(int k)
{
	hy_mutex_lock(&slots_lock);
	if (k >= 0 && k < nslots && slots[k].used)
		lock_release(k);
	hy_mutex_unlock(&slots_lock);
}

bool hy_slot_words_start(void)
{
	MPII_Aint size;
	int n = 0, unit;
	bool ok;
	void *mine;

	hy_lock();
	ok = MPII_Comm_size(MPII_COMM_WORLD, &n) == MPII_SUCCESS &&
	     MPII_Win_allocate_shared(HY_LW_SLOTS * sizeof(uint64_t),
				      sizeof(uint64_t), MPII_INFO_NULL,
				      MPII_COMM_WORLD, &mine,
				      &words_win) == MPII_SUCCESS;
	if (ok) {
		words = calloc((size_t)n, sizeof(*words));
		ok = words;
	}
	for (int r = 0; ok && r < n; r++)
		ok = MPII_Win_shared_query(words_win, r, &size, &unit,
					   &words[r]) == MPII_SUCCESS &&
		     size == HY_LW_SLOTS * sizeof(uint64_t);
	hy_unlock();
	return ok;
}

void hy_slot_words_stop(void)
{
	hy_lock();
	if (words_win != MPII_WIN_NULL)
		MPII_Win_free(&words_win);
	hy_unlock();
	free(words);
	words = NULL;
}

uint64_t *hy_slot_word(int world, int slot)
{
	if (!words || world < 0 || world >= hy.world_size ||
	    hy.node_of[world] != hy.node || slot < 0 || slot >= HY_LW_SLOTS)
		return NULL;
	return words[hy.inner_of[world]] + slot;
}

/*
 * Slot @k's grants use tag HY_TAG_GRANT + k, at most hy.tag_ub (lowered
 * by MPIRMA_TAG_UB for tests), and tags are never reused while in use.
 */
static bool slot_tag_ok(int k)
{
	return k <= hy.tag_ub - HY_TAG_GRANT;
}

int hy_slot_open(struct hy_win *w)
{
	struct hy_span *sp = w->span;
	int k, ret = MPI_SUCCESS;

	hy_mutex_lock(&slots_lock);
	for (k = 0; k < nslots && slots[k].used; k++)
		;
	if (k >= HY_LW_SLOTS) {
		ret = hy_fail(MPI_ERR_OTHER, "too many windows span nodes at "
			      "once: %d, the most this process keeps locks "
			      "for is %d", k + 1, HY_LW_SLOTS);
		goto unlock;
	}
	if (!slot_tag_ok(k)) {
		ret = hy_fail(MPI_ERR_OTHER, "too many windows span nodes at "
			      "once: %d, the most the agents' tags (up to %d) "
			      "allow", k + 1, hy.tag_ub);
		goto unlock;
	}
	if (k == nslots) {
		struct agent_slot *s = realloc(slots, sizeof(*s) *
					       (size_t)(nslots + 8));

		if (!s) {
			ret = hy_fail(MPI_ERR_NO_MEM, "out of memory (window "
				      "that spans nodes)");
			goto unlock;
		}
		memset(s + nslots, 0, sizeof(*s) * 8);
		slots = s;
		nslots += 8;
	}
	for (int j = 0; j < slots[k].nwait; j++)
		free(slots[k].wait[j].epoch);
	free(slots[k].wait);
	slots[k] = (struct agent_slot){
		.used = true, .target.win_id = sp->win_id,
		.target.erank = (uint32_t)sp->erank[sp->me],
		.word = hy_slot_word(sp->world[sp->me], k),
	};
	/* what a window freed while locked left; nobody knows the slot yet */
	hy_lw_reset(slots[k].word);
	sp->myslot = k;
	__atomic_add_fetch(&hy_live_slots, 1, __ATOMIC_RELEASE);
unlock:
	hy_mutex_unlock(&slots_lock);
	if (ret == MPI_SUCCESS)
		hy_net_wake();	/* an agent resting with no slot (net_host.c) */
	return ret;
}

void hy_slot_close(struct hy_win *w)
{
	struct hy_span *sp = w->span;

	if (sp->myslot < 0)
		return;
	hy_mutex_lock(&slots_lock);
	slots[sp->myslot].used = false;
	__atomic_sub_fetch(&hy_live_slots, 1, __ATOMIC_RELEASE);
	hy_mutex_unlock(&slots_lock);
	sp->myslot = -1;
}

void hy_slots_free(void)
{
	hy_mutex_lock(&slots_lock);
	for (int k = 0; k < nslots; k++) {
		for (int j = 0; j < slots[k].nwait; j++)
			free(slots[k].wait[j].epoch);
		free(slots[k].wait);
	}
	for (int j = 0; j < nready; j++)
		free(ready[j].epoch);
	free(ready);
	ready = NULL;
	nready = capready = 0;
	free(slots);
	slots = NULL;
	nslots = 0;
	__atomic_store_n(&hy_live_slots, 0, __ATOMIC_RELEASE);
	hy_mutex_unlock(&slots_lock);
}
