// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * agent_slots.c - the agent's windows and their locks.  Each window that
 * spans nodes has a slot in every member's agent: the engine window's
 * kernel id and this process's rank in it (what serving needs), and the
 * lock of this process's part of the window, which the agent keeps for
 * every origin, local and remote alike, so that MPI_LOCK_EXCLUSIVE excludes
 * both.  Requests that cannot be granted wait in arrival order and are
 * granted first come first served; a grant is a frame of no bytes with tag
 * HY_TAG_GRANT + slot (net.h).
 * An epoch message (wire.h) is a request too: granted at once, its
 * serving thread applies it; queued, it is copied, and the release that
 * grants it puts it on the ready list, which serving threads apply.
 *
 * Called by agent.c (lookups, lock requests, freeing at stop) and span.c
 * (open and close); sends grants through net_io.c.
 */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "errors.h"
#include "locks.h"
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
 * A slot: @target for serving; the lock: @shared holders, or @excl, and the
 * requests waiting in arrival order (@wait, @nwait of @capwait).
 */
struct agent_slot {
	bool used;
	struct hy_slot_target target;
	int shared;
	bool excl;
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
static int live;

/* Queued epochs granted since, in grant order, for hy_slot_ready(). */
static struct lock_wait *ready;
static int nready, capready;

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

/* Can slot @s's lock be granted as @type now? */
static bool lock_fits(const struct agent_slot *s, int type)
{
	return !s->excl && (type == HY_LOCK_SHARED || !s->shared);
}

/* Takes slot @s's lock as @type; slots_lock held. */
static void lock_take(struct agent_slot *s, int type)
{
	if (type == HY_LOCK_EXCL)
		s->excl = true;
	else
		s->shared++;
}

/* Grants slot @k's lock as @type to @origin; slots_lock held. */
static void lock_grant(int k, int type, int origin)
{
	hy_mutex_assert_held(&slots_lock);
	lock_take(&slots[k], type);
	/* never blocks: what the socket does not take waits in a queue */
	hy_net_reply(origin, HY_TAG_GRANT + (uint32_t)k, NULL, 0, NULL, 0);
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

/* Queues @origin's request of @type behind slot @s's waiting ones. */
static void lock_wait_add(struct agent_slot *s, int origin, int type)
{
	wait_push(&s->wait, &s->nwait, &s->capwait,
		  &(struct lock_wait){ .origin = origin, .type = type });
}

/*
 * Releases slot @k's lock and grants what it can from the front: a plain
 * request gets its grant message, an epoch goes to the ready list.
 */
static void lock_release(int k)
{
	struct agent_slot *s = &slots[k];

	if (s->excl)
		s->excl = false;
	else if (s->shared)
		s->shared--;
	while (s->nwait && lock_fits(s, s->wait[0].type)) {
		if (s->wait[0].epoch) {
			lock_take(s, s->wait[0].type);
			wait_push(&ready, &nready, &capready, &s->wait[0]);
		} else {
			lock_grant(k, s->wait[0].type, s->wait[0].origin);
		}
		memmove(s->wait, s->wait + 1,
			sizeof(*s->wait) * (size_t)--s->nwait);
	}
}

/*
 * A lock or unlock from @origin.  A request that cannot be granted waits
 * behind those before it (a shared one does not overtake a waiting
 * exclusive one); an unlock grants what it can from the front.  Out of
 * memory for a waiting request ends the job: its origin would wait
 * forever.  A request for a slot not in use is dropped: a window is freed
 * collectively, so no lock can come for it.
 */
void hy_slot_serve_lock(const struct ship_hdr *h, int origin)
{
	int k = (int)h->slot;

	hy_mutex_lock(&slots_lock);
	if (k < nslots && slots[k].used) {
		if (h->kind != HY_KIND_LOCK)
			lock_release(k);
		else if (!slots[k].nwait && lock_fits(&slots[k], h->op))
			lock_grant(k, h->op, origin);
		else
			lock_wait_add(&slots[k], origin, h->op);
	}
	hy_mutex_unlock(&slots_lock);
}

/*
 * This process's lock of its own part of the window in slot @k, without a
 * message to itself: granted at once when it fits (true); else queued as
 * @origin's (this process's world rank) request, whose grant
 * comes as a message like a remote origin's (false).  A program that
 * locks its own part between every access (OpenCoarrays reads even its
 * own image's coarrays so) no longer waits for its own agent's pace.
 */
bool hy_slot_lock_self(int k, int type, int origin)
{
	bool granted = false;

	hy_mutex_lock(&slots_lock);
	if (k >= 0 && k < nslots && slots[k].used) {
		granted = !slots[k].nwait && lock_fits(&slots[k], type);
		if (!granted)
			lock_wait_add(&slots[k], origin, type);
		else
			lock_take(&slots[k], type);
	}
	hy_mutex_unlock(&slots_lock);
	return granted;
}

/*
 * An epoch message @h of @n bytes from @origin: true when its lock is
 * taken now (the caller applies it); else it waits, copied, like any
 * request, or is dropped when its slot is not in use (false).
 */
bool hy_slot_epoch(const struct ship_hdr *h, size_t n, int origin)
{
	int k = (int)h->slot, type = h->op;
	struct lock_wait e = { .origin = origin, .type = type, .len = n };
	bool granted = false;

	hy_mutex_lock(&slots_lock);
	if (k < nslots && slots[k].used) {
		granted = !slots[k].nwait && lock_fits(&slots[k], type);
		if (granted) {
			lock_take(&slots[k], type);
		} else {
			e.epoch = malloc(n);
			if (!e.epoch)
				PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
			memcpy(e.epoch, h, n);
			wait_push(&slots[k].wait, &slots[k].nwait,
				  &slots[k].capwait, &e);
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

/*
 * Gives back slot @k's lock: what hy_slot_lock_self() (or its queued
 * grant) or an applied epoch took.
 */
void hy_slot_release(int k)
{
	hy_mutex_lock(&slots_lock);
	if (k >= 0 && k < nslots && slots[k].used)
		lock_release(k);
	hy_mutex_unlock(&slots_lock);
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
	};
	sp->myslot = k;
	__atomic_add_fetch(&live, 1, __ATOMIC_RELEASE);
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
	__atomic_sub_fetch(&live, 1, __ATOMIC_RELEASE);
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
	__atomic_store_n(&live, 0, __ATOMIC_RELEASE);
	hy_mutex_unlock(&slots_lock);
}

int hy_slots_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_ACQUIRE);
}
