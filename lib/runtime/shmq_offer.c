// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shmq_offer.c - one-copy messages over the shared-memory queues
 * (shmq.h): the kernel copies a large message from the sender's pages
 * into the receiver's buffer, named in the rings by a REC_OFFER or
 * REC_RDV unit.
 *
 * A blocking send's REC_OFFER waits a little for its take and is
 * withdrawn when nobody takes it (the data then follows as units), so a
 * send never waits on its receiver.  A nonblocking send's REC_RDV is
 * never withdrawn: its request completes when the receiver, having had
 * the kernel copy the data, answers its token as a synchronous send's
 * (shmq_sync.c).  The receiver takes it as soon as it meets it, into the
 * receive it matches or else into an unexpected message, so a sender's
 * wait ends whenever its receiver looks at its ring at all.  OSU's
 * osu_bibw posts 64 sends each way before it waits: with REC_OFFER each
 * was withdrawn and spilled (1 MiB: 364 MB/s, 0.16x Open MPI's).
 */
#include <errno.h>
#include <sched.h>

#include "shmq.h"

/* shmq.h */
int shmq_offer_end(uint64_t id)
{
	struct mpirma_msg_copy wd = { .size = sizeof(wd), .id = id };
	int ret;

	/* EBUSY: the receiver is copying now, and the copy always ends. */
	while ((ret = mpirma_ioctl(MPIRMA_IOC_MSG_WITHDRAW, &wd)) == -EBUSY)
		mpirma_cpu_relax();
	return ret;
}

/*
 * May anything to @dst go by one copy at all: the module copies (a
 * threshold set), another rank, no threads, and a sender that may wait
 * for its take (polling, or where ranks outnumber CPUs yielding its CPU to
 * the receiver: init.c)?
 */
static bool offer_possible(uint32_t dst)
{
	return shmq.onecopy && dst != shmq.me && dst < shmq.n &&
	       !mpirma_threads &&
	       (mpirma_proc.spin > 0 || mpirma_proc.yield_spin > 0);
}

/* shmq.h */
bool shmq_offer_fits(uint32_t dst, size_t len)
{
	return offer_possible(dst) && len >= shmq.onecopy;
}

/*
 * The least a nonblocking send's message must have to go by one copy to a
 * receiver that is not taking units (it let a wait for room pass in vain
 * and has taken nothing since): the rest of its units would spill, two
 * copies and a system call for each unit on either side.
 */
#define RDV_STALLED_MIN	(32U << 10)

/* shmq.h */
bool shmq_rdv_fits(uint32_t dst, size_t len)
{
	if (!offer_possible(dst))
		return false;
	if (len >= shmq.onecopy_nb)
		return true;
	return len >= RDV_STALLED_MIN &&
	       shmq_out_stalled(&shmq.out[dst],
				__atomic_load_n(&shmq_ring_of(dst, shmq.me)->head,
						__ATOMIC_ACQUIRE));
}

/* ------------------------------------------------------------ sender */

/* Is offer unit @seq to @dst taken? */
static bool offer_taken(uint32_t dst, uint64_t seq)
{
	return __atomic_load_n(&shmq_ring_of(dst, shmq.me)->taken,
			       __ATOMIC_ACQUIRE) >= seq;
}

/*
 * shmq.h.  Once: ENOENT means the receiver is still pinning its buffer,
 * or done, or failed (a bad buffer), when no wait for it may go on.
 */
bool shmq_offer_help(uint32_t dst, uint64_t seq, uint64_t id)
{
	struct mpirma_msg_copy hp = { .size = sizeof(hp), .id = id };

	if (__atomic_load_n(&shmq_ring_of(dst, shmq.me)->taking,
			    __ATOMIC_ACQUIRE) < seq)
		return false;
	return offer_taken(dst, seq) ||
	       mpirma_ioctl(MPIRMA_IOC_MSG_HELP, &hp) != -ENOENT;
}

/*
 * Waits for @dst to take offer unit @seq (offer @id): true once it has.  A receiver
 * in a receive takes it within microseconds; one that is busy elsewhere
 * costs the sender no more than its two copies would have (at 1 GB/s,
 * plus the time to wake a sleeping receiver), and one that is sending to
 * this rank itself (a unit from it waits here) will not take it soon.
 * Where ranks outnumber CPUs it yields after each look, so that the
 * receiver it waits for may run (docs/lib.md, "One-copy messages": there
 * units instead halved the speed of 2-4 MiB ping-pongs).
 */
static bool offer_wait(uint32_t dst, uint64_t seq, uint64_t id, size_t len)
{
	double wait = 50e-6 + (double)len * 1e-9, end,
	       most = mpirma_proc.spin + mpirma_proc.yield_spin;
	bool yield = mpirma_proc.spin <= 0, helped = false;
	unsigned int i;

	end = PMPI_Wtime() + (wait < most ? wait : most);
	for (i = 1; !offer_taken(dst, seq); i++) {
		if ((yield || !(i & 63)) &&
		    (PMPI_Wtime() >= end || shmq_unit_ready(dst)))
			return false;
		if (!helped)
			helped = shmq_offer_help(dst, seq, id);
		if (yield)
			sched_yield();
		else
			mpirma_cpu_relax();
	}
	return true;
}

/* shmq.h */
int shmq_offer_send(uint32_t dst, struct shmq_rec *h, const void *buf,
		      size_t len)
{
	struct mpirma_msg_copy oc = {
		.size = sizeof(oc), .flags = shmq.offer_flags, .peer = dst,
		.buf = (uintptr_t)buf, .len = len,
	};
	bool wait = true;
	int ret;

	if (mpirma_ioctl(MPIRMA_IOC_MSG_OFFER, &oc))
		return 0;	/* e.g. RLIMIT_MEMLOCK: the queues then */
	h->kind = REC_OFFER;
	h->chunk = 0;
	h->offer = oc.id;
	ret = shmq_unit_send(dst, h, NULL, &wait);
	/* a taken offer the sender ends itself (its pages unpinned here) */
	if (!ret && offer_wait(dst, h->seq, oc.id, len) && !shmq.offer_flags)
		return 1;
	ret = shmq_offer_end(oc.id);
	if (ret == -ENOENT)
		return 1;	/* taken (its number perhaps not published yet) */
	if (ret)
		return ret;
	h->offer = 0;
	return 2;
}

/* shmq.h */
int shmq_offer_rdv(uint32_t dst, int tag, uint64_t ctx, const void *buf,
		   size_t len, struct mpirma_msg_ack *a)
{
	struct mpirma_msg_copy oc = {
		.size = sizeof(oc), .peer = dst, .buf = (uintptr_t)buf,
		.len = len,
	};
	struct shmq_rec h = { .kind = REC_RDV, .tag = tag, .ctx = ctx,
			      .len = len };
	bool wait = false;
	int ret;

	if (tag < 0 || !shmq_rdv_fits(dst, len) ||
	    mpirma_ioctl(MPIRMA_IOC_MSG_OFFER, &oc))
		return 0;	/* e.g. ENOSPC, RLIMIT_MEMLOCK: units then */
	h.offer = oc.id;
	h.sync = ++shmq.sync_next;
	ret = shmq_unit_send(dst, &h, NULL, &wait);
	if (ret) {
		shmq_offer_end(oc.id);
		return ret;
	}
	a->token = h.sync;
	a->seq = h.seq;
	a->offer = oc.id;
	return 1;
}

/* ------------------------------------------------------------ receiver */

/* shmq.h */
int shmq_offer_take(uint32_t src, uint64_t seq, uint64_t id, void *buf,
		    uint64_t cap)
{
	struct mpirma_msg_copy oc = {
		.size = sizeof(oc), .peer = src, .id = id,
		.buf = (uintptr_t)buf, .len = cap,
	};
	int ret;

	__atomic_store_n(&shmq_ring_of(shmq.me, src)->taking, seq,
			 __ATOMIC_RELEASE);
	ret = mpirma_ioctl(MPIRMA_IOC_MSG_TAKE, &oc);
	if (!ret)
		__atomic_store_n(&shmq_ring_of(shmq.me, src)->taken, seq,
				 __ATOMIC_RELEASE);
	return ret;
}
