// SPDX-License-Identifier: GPL-2.0
/*
 * One-copy messages: MPIRMA_IOC_MSG_OFFER / _TAKE / _HELP / _WITHDRAW
 * (mpirma_uapi.h, "DOC: one-copy messages").
 *
 * A sender offers the pages of a large message to one receiver; the
 * receiver's take copies them straight into its own buffer, so the data
 * crosses memory once instead of twice (into a queue, out of it).  Offered
 * pages stay pinned, and charged to the sender's RLIMIT_MEMLOCK, until the
 * offer ends; the receiver's buffer is pinned only while it is copied.
 *
 * An offer lives in job->offers, found by id (offer_at()), and moves from
 * OFFERED to COPYING (a receiver has pinned its buffer and copies) under
 * that xarray's lock, and then to TAKEN if its sender ends it itself
 * (MPIRMA_OFFER_SENDER_ENDS).  Whoever erases it from the xarray (its
 * taker, a withdrawal, its sender leaving while nobody copies) drops the
 * xarray's reference; a taker and a helper hold their own while they copy,
 * so an offer being copied survives its sender's departure.
 *
 * The copy goes in chunks claimed from a counter: the receiver copies, and
 * its sender, which waits for the take anyway, may help (MPIRMA_IOC_MSG_HELP)
 * so that two CPUs share it.  The receiver unpins its buffer only once
 * every chunk anyone claimed is done.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "copy.h"
#include "fault.h"
#include "mpirma.h"

/* A claim of the copy; checks for rescheduling and fatal signals between. */
#define TAKE_CHUNK	(32 * 1024)

/*
 * How long a taker spins for its helpers' chunks before it sleeps: about
 * one chunk's copy under QEMU, many on hardware.
 */
#define TAKE_SPIN_NS	(20 * NSEC_PER_USEC)

/*
 * An offer's id: its slot in job->offers, the lowest free one, so that a
 * lone offer sits in the xarray's head and needs no node, and above it a
 * generation, so that a receiver late with a withdrawn offer's id finds
 * nothing rather than the next offer in that slot.  Ids cycling through
 * 31 bits built and freed five xarray nodes per offer (ftrace, 128 KiB
 * ping-pong under QEMU).
 */
#define OFFER_SLOT_BITS	16
#define OFFER_SLOT_MASK	((1U << OFFER_SLOT_BITS) - 1)
#define OFFER_GEN_MAX	((u32)INT_MAX >> OFFER_SLOT_BITS)

static_assert(MPIRMA_MAX_RANKS * MPIRMA_MAX_OFFERS <= OFFER_SLOT_MASK + 1);

enum offer_state { OFFERED, COPYING, TAKEN };

struct mpirma_offer {
	struct kref ref;		/* the xarray's, and one per copier */
	struct mpirma_job *job;
	enum offer_state state;		/* under job->offers' lock */
	u32 gen;			/* the id's generation (offer_at()) */
	bool sender_ends;		/* MPIRMA_OFFER_SENDER_ENDS */
	u32 owner;			/* the offering rank */
	u32 peer;			/* the only rank that may take it */
	unsigned int offset;		/* of the data in pages[0] */
	u64 len;
	unsigned long span;		/* pages the data spans, charged to @mm */
	unsigned long npages;		/* of them pinned so far */
	struct page **pages;
	struct mm_struct *mm;		/* held with mmgrab once charged */

	/* COPYING: set by the taker before it publishes the state */
	struct page **dst;		/* the receiver's pinned pages */
	unsigned int doff;		/* of its buffer in dst[0] */
	u64 n;				/* bytes to copy */
	u32 nchunks;
	atomic_t next_chunk;		/* the next chunk to claim */
	atomic_t chunks_done;		/* woken with wake_up_var() */
};

static unsigned long span_pages(u64 addr, u64 len)
{
	return ((addr + len - 1) >> PAGE_SHIFT) - (addr >> PAGE_SHIFT) + 1;
}

/* The last reference: unpins and frees @o; its sender's count drops. */
static void offer_release(struct kref *ref)
{
	struct mpirma_offer *o = container_of(ref, struct mpirma_offer, ref);

	mpirma_unpin_range(o->pages, o->npages, false);
	if (o->mm) {
		mpirma_uncharge(o->mm, o->span);
		mmdrop(o->mm);
	}
	atomic_dec(&o->job->offers_out[o->owner]);
	kvfree(o->pages);
	kfree(o);
}

static void offer_put(struct mpirma_offer *o)
{
	kref_put(&o->ref, offer_release);
}

/* The offer of @id, or NULL. */
static struct mpirma_offer *offer_at(struct mpirma_job *job, u64 id)
{
	struct mpirma_offer *o;

	lockdep_assert_held(&job->offers.xa_lock);
	if (id > INT_MAX)
		return NULL;
	o = xa_load(&job->offers, id & OFFER_SLOT_MASK);
	return o && o->gen == id >> OFFER_SLOT_BITS ? o : NULL;
}

/* Erases @o, found by offer_at(@id); the caller drops the xarray's ref. */
static void offer_erase(struct mpirma_job *job, u64 id)
{
	lockdep_assert_held(&job->offers.xa_lock);
	__xa_erase(&job->offers, id & OFFER_SLOT_MASK);
}

int mpirma_offers_alloc(struct mpirma_job *job)
{
	xa_init_flags(&job->offers, XA_FLAGS_ALLOC);
	job->offers_out = MPIRMA_FAULT_POINT(NULL, kcalloc(job->nranks, sizeof(*job->offers_out),
							   GFP_KERNEL));
	return job->offers_out ? 0 : -ENOMEM;
}

/* Ends @rank's offers that nobody is copying: its member has gone. */
void mpirma_offers_drop_rank(struct mpirma_job *job, u32 rank)
{
	struct mpirma_offer *o;
	unsigned long id;

	xa_for_each(&job->offers, id, o) {
		xa_lock(&job->offers);
		o = xa_load(&job->offers, id);
		if (o && o->owner == rank && o->state != COPYING)
			__xa_erase(&job->offers, id);
		else
			o = NULL;
		xa_unlock(&job->offers);
		if (o)
			offer_put(o);
	}
}

void mpirma_offers_free(struct mpirma_job *job)
{
	struct mpirma_offer *o;
	unsigned long id;

	if (!job->offers_out)
		return;
	/* No member is left, so nobody is taking any. */
	xa_for_each(&job->offers, id, o) {
		xa_erase(&job->offers, id);
		offer_put(o);
	}
	xa_destroy(&job->offers);
	kfree(job->offers_out);
}

/**
 * mpirma_msg_offer - MPIRMA_IOC_MSG_OFFER
 * @m: the sender
 * @arg: its arguments; id is filled in
 *
 * Return: 0, -EINVAL, -ENXIO, -EOWNERDEAD, -ENOSPC, -EFAULT, -ENOMEM, -EINTR.
 */
int mpirma_msg_offer(struct mpirma_member *m, struct mpirma_msg_copy *arg)
{
	struct mpirma_job *job = m->job;
	struct mpirma_offer *o;
	u64 end;
	u32 slot;
	int ret;

	if ((arg->flags & ~MPIRMA_OFFER_SENDER_ENDS) || arg->reserved || arg->copied ||
	    arg->msg_len || arg->id)
		return -EINVAL;
	if (!arg->len || arg->len > MPIRMA_MSG_COPY_MAX)
		return -EINVAL;
	if (arg->peer >= job->nranks)
		return -ENXIO;
	if (mpirma_rank_gone(job, arg->peer))
		return -EOWNERDEAD;
	ret = mpirma_user_range_check(arg->buf, arg->len, &end);
	if (ret)
		return ret;
	if (atomic_inc_return(&job->offers_out[m->rank]) > MPIRMA_MAX_OFFERS) {
		atomic_dec(&job->offers_out[m->rank]);
		return -ENOSPC;
	}

	o = MPIRMA_FAULT_POINT(NULL, kzalloc(sizeof(*o), GFP_KERNEL_ACCOUNT));
	if (!o) {
		atomic_dec(&job->offers_out[m->rank]);
		return -ENOMEM;
	}
	kref_init(&o->ref);
	o->job = job;
	o->sender_ends = arg->flags & MPIRMA_OFFER_SENDER_ENDS;
	o->owner = m->rank;
	o->peer = arg->peer;
	o->len = arg->len;
	o->offset = offset_in_page(arg->buf);
	o->span = span_pages(arg->buf, arg->len);
	/* From here on offer_put() undoes whatever has been done. */
	ret = -ENOMEM;
	o->pages = MPIRMA_FAULT_POINT(NULL, kvmalloc_array(o->span, sizeof(*o->pages),
							   GFP_KERNEL_ACCOUNT));
	if (!o->pages)
		goto out_free_offer;
	ret = mpirma_charge(current->mm, o->span);
	if (ret)
		goto out_free_offer;
	o->mm = current->mm;
	mmgrab(o->mm);
	ret = mpirma_pin_range(arg->buf, o->span, 0, o->pages, &o->npages);
	if (ret)
		goto out_free_offer;
	o->gen = (u32)atomic_inc_return(&job->offer_gen) % OFFER_GEN_MAX + 1;
	ret = MPIRMA_FAULT_POINT(-ENOMEM,
				 xa_alloc(&job->offers, &slot, o, XA_LIMIT(0, OFFER_SLOT_MASK),
					  GFP_KERNEL_ACCOUNT));
	if (ret < 0)
		goto out_free_offer;
	arg->id = (u64)o->gen << OFFER_SLOT_BITS | slot;
	return 0;

out_free_offer:
	offer_put(o);
	return ret;
}

/* Copies chunk @i of @o, which is COPYING. */
static void copy_chunk(const struct mpirma_offer *o, u32 i)
{
	u64 pos = (u64)i * TAKE_CHUNK, end = min(o->n, pos + TAKE_CHUNK);
	struct mpirma_copier c;

	mpirma_copy_begin(&c, o->doff, o->offset);
	while (pos < end) {
		u64 s = o->offset + pos, d = o->doff + pos;
		size_t piece = min3(PAGE_SIZE - offset_in_page(s), PAGE_SIZE - offset_in_page(d),
				    (size_t)(end - pos));
		const char *from = kmap_local_page(o->pages[s >> PAGE_SHIFT]);
		char *to = kmap_local_page(o->dst[d >> PAGE_SHIFT]);

		mpirma_copy(&c, to + offset_in_page(d), from + offset_in_page(s), piece);
		kunmap_local(to);
		kunmap_local(from);
		pos += piece;
	}
	mpirma_copy_end(&c);
}

/*
 * Claims and copies chunks of @o until none is left, or a fatal signal
 * comes (-EINTR).
 */
static int copy_chunks(struct mpirma_offer *o)
{
	u32 i;

	while ((i = atomic_inc_return(&o->next_chunk) - 1) < o->nchunks) {
		copy_chunk(o, i);
		atomic_inc(&o->chunks_done);
		wake_up_var(&o->chunks_done);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * Waits until the @claimed chunks of @o are copied.  A helper's chunk ends
 * within about one chunk's copy of the taker's own: spin that long first,
 * since a sleep and its wake-up cost more (perf, osu_bibw at 64 KiB under
 * QEMU: 14% of the CPUs idle; osu_bw 64 KiB-1 MiB 19-39% faster with the
 * spin, one boot, five launches each).
 */
static void take_wait_helpers(struct mpirma_offer *o, u32 claimed)
{
	u64 end = ktime_get_ns() + TAKE_SPIN_NS;

	while (atomic_read(&o->chunks_done) < claimed && !need_resched() &&
	       ktime_get_ns() < end)
		cpu_relax();
	wait_var_event(&o->chunks_done, atomic_read(&o->chunks_done) >= claimed);
}

#define ANY_PEER	U32_MAX

/*
 * Offer @id of @owner to @peer (or ANY_PEER) in @state, with a reference
 * for the caller; NULL when there is none.
 */
static struct mpirma_offer *offer_get(struct mpirma_job *job, u64 id, u32 owner, u32 peer,
				      enum offer_state state)
{
	struct mpirma_offer *o;

	xa_lock(&job->offers);
	o = offer_at(job, id);
	if (o && o->owner == owner && (peer == ANY_PEER || o->peer == peer) &&
	    o->state == state)
		kref_get(&o->ref);
	else
		o = NULL;
	xa_unlock(&job->offers);
	return o;
}

/*
 * The taker's pinned buffer into @o and @o into COPYING, unless it was
 * withdrawn meanwhile (false).
 */
static bool offer_start_copy(struct mpirma_offer *o, u64 id, struct page **dst,
			     unsigned int doff, u64 n)
{
	struct mpirma_job *job = o->job;
	bool ok;

	o->dst = dst;
	o->doff = doff;
	o->n = n;
	o->nchunks = DIV_ROUND_UP(n, TAKE_CHUNK);
	atomic_set(&o->next_chunk, 0);
	atomic_set(&o->chunks_done, 0);
	xa_lock(&job->offers);
	ok = offer_at(job, id) == o && o->state == OFFERED;
	if (ok)
		o->state = COPYING;
	xa_unlock(&job->offers);
	return ok;
}

/*
 * The copy of @o (@id) is over: so is the offer, unless its sender ends it
 * itself and is still there.  Then the sender's WITHDRAW unpins its pages,
 * off the receiver's way: in a 128 KiB ping-pong under QEMU that was a
 * sixth of the take.
 */
static void offer_taken(struct mpirma_job *job, struct mpirma_offer *o, u64 id)
{
	bool erase;

	xa_lock(&job->offers);
	/* the sender's departure marks it gone before it drops its offers */
	erase = !o->sender_ends || mpirma_rank_gone(job, o->owner);
	if (erase)
		offer_erase(job, id);
	else
		o->state = TAKEN;
	xa_unlock(&job->offers);
	if (erase)
		offer_put(o);	/* the xarray's */
}

/**
 * mpirma_msg_take - MPIRMA_IOC_MSG_TAKE
 * @m: the receiver
 * @arg: its arguments; copied and msg_len are filled in
 *
 * Return: 0, -EINVAL, -ENXIO, -ENOENT, -EFAULT, -ENOMEM, -EINTR.
 */
int mpirma_msg_take(struct mpirma_member *m, struct mpirma_msg_copy *arg)
{
	struct mpirma_job *job = m->job;
	unsigned long npages = 0, pinned = 0;
	struct page **dst = NULL;
	struct mpirma_offer *o;
	bool pinned_dirty = false;
	u32 claimed;
	u64 n, end;
	int ret;

	if (arg->flags || arg->reserved || arg->copied || arg->msg_len)
		return -EINVAL;
	if (arg->peer >= job->nranks)
		return -ENXIO;
	ret = mpirma_user_range_check(arg->buf, arg->len, &end);
	if (ret)
		return ret;
	if (arg->id > INT_MAX)
		return -ENOENT;
	o = offer_get(job, arg->id, arg->peer, m->rank, OFFERED);
	if (!o)
		return -ENOENT;

	n = min(arg->len, o->len);
	if (n) {
		npages = span_pages(arg->buf, n);
		dst = MPIRMA_FAULT_POINT(NULL, kvmalloc_array(npages, sizeof(*dst), GFP_KERNEL));
		ret = dst ? mpirma_pin_range(arg->buf, npages, FOLL_WRITE, dst, &pinned) : -ENOMEM;
		if (ret) {
			/* The offer stays as it was. */
			ret = ret == -EINTR || ret == -ENOMEM ? ret : -EFAULT;
			goto out_unpin;
		}
	}
	if (!offer_start_copy(o, arg->id, dst, offset_in_page(arg->buf), n)) {
		ret = -ENOENT;
		goto out_unpin;
	}
	ret = copy_chunks(o);
	pinned_dirty = true;
	/* Stop the helpers (after a signal), then wait for what they claimed. */
	claimed = min_t(u32, atomic_xchg(&o->next_chunk, o->nchunks), o->nchunks);
	take_wait_helpers(o, claimed);
	arg->copied = ret ? 0 : n;
	arg->msg_len = o->len;
	offer_taken(job, o, arg->id);
out_unpin:
	mpirma_unpin_range(dst, pinned, pinned_dirty);
	kvfree(dst);
	offer_put(o);
	return ret;
}

/* HELP's and WITHDRAW's arguments: an id, and nothing else. */
static int sender_arg_check(const struct mpirma_msg_copy *arg)
{
	if (arg->flags || arg->reserved || arg->peer || arg->buf || arg->len ||
	    arg->copied || arg->msg_len)
		return -EINVAL;
	return arg->id > INT_MAX ? -ENOENT : 0;
}

/**
 * mpirma_msg_help - MPIRMA_IOC_MSG_HELP
 * @m: the sender
 * @arg: its arguments
 *
 * Return: 0 once no chunk of the copy is left to claim, -EINVAL, -ENOENT
 * (not being copied: not yet, or no more), -EINTR.
 */
int mpirma_msg_help(struct mpirma_member *m, struct mpirma_msg_copy *arg)
{
	struct mpirma_offer *o;
	int ret = sender_arg_check(arg);

	if (ret)
		return ret;
	o = offer_get(m->job, arg->id, m->rank, ANY_PEER, COPYING);
	if (!o)
		return -ENOENT;
	ret = copy_chunks(o);
	offer_put(o);
	return ret;
}

/**
 * mpirma_msg_withdraw - MPIRMA_IOC_MSG_WITHDRAW
 * @m: the sender
 * @arg: its arguments
 *
 * Return: 0, -EINVAL, -ENOENT (also when it ends a TAKEN offer), -EBUSY.
 */
int mpirma_msg_withdraw(struct mpirma_member *m, struct mpirma_msg_copy *arg)
{
	struct mpirma_job *job = m->job;
	struct mpirma_offer *o;
	bool erased = false;
	int ret = sender_arg_check(arg);

	if (ret)
		return ret;
	xa_lock(&job->offers);
	o = offer_at(job, arg->id);
	if (!o || o->owner != m->rank) {
		ret = -ENOENT;
	} else if (o->state == COPYING) {
		ret = -EBUSY;
	} else {
		ret = o->state == TAKEN ? -ENOENT : 0;
		offer_erase(job, arg->id);
		erased = true;
	}
	xa_unlock(&job->offers);
	if (erased)
		offer_put(o);
	return ret;
}
