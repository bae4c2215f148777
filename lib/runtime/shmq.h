/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shmq.h - the shared-memory queues under point-to-point messages and
 * collectives (docs/lib.md, "Message transport"): their layout in the
 * job-wide window and this process's state.  Private to shmq.c (setup,
 * the transport's entry), shmq_ring.c (units into and out of the rings),
 * shmq_lean.c (MPI_Send's and MPI_Recv's lean lane) and shmq_wait.c
 * (polling and bells).
 *
 * Units: a small message is one unit (REC_DATA), a larger one a REC_FIRST
 * unit and REC_MORE units of up to shmq.frag bytes each (unit_chunk()).
 * Every unit from one sender to one receiver has the next number of that
 * pair (seq, from 1).
 * It goes into the receiver's ring from that sender when there is room,
 * else into the kernel mailbox (spilled: MPIRMA_IOC_MSG_SEND, which
 * buffers without bound, so a send never waits); the sender then
 * publishes its number (struct shmq_ring.sent).  The receiver takes units
 * in number order from wherever they are, so messages keep their order.
 *
 * One copy: a message of at least shmq.onecopy bytes (.onecopy_nb from a
 * nonblocking send) may instead go as a REC_OFFER unit naming a kernel
 * offer of the sender's pages (MPIRMA_IOC_MSG_OFFER).  A receive that
 * matches it has the kernel copy the pages into its buffer
 * (MPIRMA_IOC_MSG_TAKE), saying so before (struct shmq_ring.taking: the
 * sender then helps it copy, MPIRMA_IOC_MSG_HELP) and after (.taken); a
 * sender that sees nobody take it soon withdraws the offer and sends the
 * data as REC_MORE units.  A
 * nonblocking send's offer goes as a REC_RDV unit instead, never
 * withdrawn: the receiver takes it when it meets it and answers its token
 * (shmq_offer.c).
 */
#ifndef MPIRMA_LIB_SHMQ_H
#define MPIRMA_LIB_SHMQ_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "copy.h"
#include "internal.h"
#include "runtime.h"
#include "p2p.h"

#define SHMQ_LINE	64		/* units and ring headers: cache lines */
#define SHMQ_BELL_CTX	UINT64_MAX	/* kernel contexts: bells, ... */
#define SHMQ_SPILL_CTX	(UINT64_MAX - 1)	/* ... and spilled units */
#define SHMQ_ACK_CTX	(UINT64_MAX - 2)	/* synchronous sends' acks */

/*
 * A ring's header, in the receiver's part of the window: one line written
 * by the sender, one by the receiver, and the sleep flag on a line of its
 * own, which the sender reads after every unit: it stays in both caches
 * until the receiver sleeps, where on @head's line it would travel to the
 * sender and back with each message.
 */
struct shmq_ring {
	uint64_t tail;		/* bytes written */
	uint64_t sent;		/* number of the last unit sent, ring or kernel */
	uint32_t room_wait;	/* the sender waits for room (shmq_ring.c) */
	char pad0[SHMQ_LINE - 20];
	uint64_t head;		/* bytes consumed */
	uint64_t taking;	/* number of the REC_OFFER unit being taken */
	uint64_t taken;		/* number of the last REC_OFFER unit taken */
	char pad1[SHMQ_LINE - 24];
	uint32_t rx_sleeps;	/* the receiver sleeps: ring its bell */
	char pad2[SHMQ_LINE - 4];
};

/* What a sender knows of its ring to one receiver. */
struct shmq_out {
	uint64_t seq;		/* number of the last unit sent */
	uint64_t head;		/* the ring's head when last read */
	uint64_t stall;		/* the head a wait for room ended at in vain */
	bool stalled;		/* @stall is set: no wait until the head moves */
};

enum { REC_DATA = 1, REC_FIRST, REC_MORE, REC_PAD, REC_OFFER, REC_RDV };

/* A unit's header; chunk bytes of data follow, in the ring or the kernel. */
struct shmq_rec {
	uint32_t kind;
	int32_t tag;
	uint64_t ctx;
	uint64_t len;		/* the whole message's length */
	uint64_t chunk;		/* data bytes in this unit */
	uint64_t seq;
	uint64_t offer;		/* REC_OFFER: the kernel's id of the offer */
	uint64_t sync;		/* a synchronous send's token, else 0 */
};

/* A message out of the rings, received before anyone asked for it. */
struct shmq_msg {
	struct shmq_msg *next;
	struct shmq_rec rec;	/* its first unit's header */
	uint32_t src;
	bool complete;		/* every unit is in @data */
	char data[];		/* rec.len bytes */
};

/* A message being put together from the units of one sender. */
struct shmq_build {
	bool active;
	char *dst;		/* a receive's buffer, or an unexpected message */
	uint64_t cap;		/* bytes @dst holds (the rest is cut off) */
	uint64_t got;		/* bytes of the message come so far */
	uint64_t len;
	bool *done;		/* set once got == len */
};

/* The queues of this process; under the library lock. */
struct shmq_state {
	bool on;
	char *map;		/* the window, mapped whole */
	size_t map_len;
	char **part;		/* each rank's part of the mapping */
	uint32_t n;		/* job ranks */
	uint32_t me;
	uint64_t ring;		/* bytes of a ring's data, a power of two */
	uint64_t frag;		/* the most data in one unit */
	uint64_t onecopy;	/* messages this large go by one copy; 0 never */
	uint64_t onecopy_nb;	/* the same for nonblocking sends */
	uint32_t offer_flags;	/* a blocking send's MPIRMA_IOC_MSG_OFFER's */
	uint32_t scan;		/* where an any-source look starts */
	int bells_due;		/* bells rung for this rank, not yet taken */
	uint64_t *next;		/* per sender: the number of the unit due */
	struct shmq_out *out;	/* per receiver */
	uint64_t sync_next;	/* the last synchronous send's token */
	struct shmq_build *build;	/* per sender */
	struct shmq_msg *uhead, *utail;	/* unexpected, in arrival order */
	uint64_t uq_gen;	/* messages added to them so far */
};

extern struct shmq_state shmq;

/*
 * Did a wait for room in the ring to @o's receiver end in vain at @head,
 * the ring's head still (it has taken nothing since)?
 */
static inline bool shmq_out_stalled(const struct shmq_out *o, uint64_t head)
{
	return o->stalled && o->stall == head;
}

/* Rank @dst's ring from @src, and its data. */
static inline struct shmq_ring *shmq_ring_of(uint32_t dst, uint32_t src)
{
	return (struct shmq_ring *)shmq.part[dst] + src;
}

static inline char *shmq_ring_data(uint32_t dst, uint32_t src)
{
	return shmq.part[dst] + shmq.n * sizeof(struct shmq_ring) +
	       src * shmq.ring;
}

/* Ring bytes a unit of @chunk data bytes takes: whole lines. */
static inline uint64_t shmq_rec_bytes(uint64_t chunk)
{
	return (sizeof(struct shmq_rec) + chunk + SHMQ_LINE - 1) &
	       ~(uint64_t)(SHMQ_LINE - 1);
}

static inline void shmq_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* shmq.c: the kernel mailbox, 0 or -errno. */
int shmq_kmsg_send(uint32_t peer, int tag, uint64_t ctx, const void *buf,
		   size_t len);
int shmq_kmsg_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		   void *buf, size_t len, struct mpirma_msg *m);

/*
 * shmq_ring.c: the transport's send and receive (p2p.h's semantics).
 * @sync: a synchronous send's token (shmq_sync.c), else 0.
 */
int shmq_send(uint32_t dst, int tag, uint64_t ctx, const void *buf,
	      size_t len, uint64_t sync);
int shmq_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
	      void *buf, size_t len, struct mpirma_msg *m);
/* Has @src sent a unit not yet taken? */
bool shmq_unit_ready(uint32_t src);
/*
 * Unit @h (its seq set here) with its data into @dst's ring, waiting for
 * room (*@wait: while the receiver takes units; cleared once a wait was
 * in vain), or else spilled; then published.  0 or -errno.
 */
int shmq_unit_send(uint32_t dst, struct shmq_rec *h, const void *data,
		   bool *wait);

/* shmq_offer.c: one-copy messages. */
/* May a message of @len bytes to @dst go by one copy? */
bool shmq_offer_fits(uint32_t dst, size_t len);
/* The same for a nonblocking send's: also a smaller one that would spill. */
bool shmq_rdv_fits(uint32_t dst, size_t len);
/*
 * A blocking send's: offers @buf to @dst in a REC_OFFER unit (@h's header)
 * and waits a little for the take.  1 taken, 0 not offered, 2 offered and
 * withdrawn (the data must follow as REC_MORE units), or -errno.
 */
int shmq_offer_send(uint32_t dst, struct shmq_rec *h, const void *buf,
		    size_t len);
/*
 * A nonblocking send's: offers @buf to @dst in a REC_RDV unit whose token
 * the receiver answers once it has the data (*@a: p2p.h).  1 sent, 0 not
 * offered (send it as units), or -errno.
 */
int shmq_offer_rdv(uint32_t dst, int tag, uint64_t ctx, const void *buf,
		   size_t len, struct mpirma_msg_ack *a);
/*
 * Helps @dst copy offer @id of unit @seq if it has begun to take it: true
 * once no part of the copy is left to claim.
 */
bool shmq_offer_help(uint32_t dst, uint64_t seq, uint64_t id);
/* Ends offer @id if it stands: 0 withdrawn, -ENOENT over already. */
int shmq_offer_end(uint64_t id);
/*
 * The receiver's: offer unit @seq (offer @id, from @src) into @buf of
 * @cap bytes, by the kernel, said in @src's ring.  0 or -errno (ENOENT
 * withdrawn, EFAULT a bad @buf: MPIRMA_IOC_MSG_TAKE's).
 */
int shmq_offer_take(uint32_t src, uint64_t seq, uint64_t id, void *buf,
		    uint64_t cap);

/*
 * shmq_sync.c: a receive took message @h of @src: acks a synchronous
 * send, saying whether a REC_RDV unit's offer is still @standing.
 */
void shmq_sync_answer(uint32_t src, const struct shmq_rec *h, bool standing);

static inline void shmq_sync_taken(uint32_t src, const struct shmq_rec *h)
{
	shmq_sync_answer(src, h, false);
}

/* shmq_wait.c */
/* After publishing a unit for @peer: ring its bell if it sleeps. */
void shmq_bell_ring(uint32_t peer);
/*
 * Polls @peer's ring flat out for a while (not where a wait must yield,
 * advance the host or let go of the lock): has a unit come?
 */
bool shmq_spin(uint32_t peer);
/* Is @peer (MPIRMA_ANY_SOURCE: any rank) gone? */
bool shmq_peer_gone(uint32_t peer);
/*
 * One round of a wait for a unit from @peer (MPIRMA_ANY_SOURCE: anyone):
 * polls, pauses or sleeps.  0, or -EOWNERDEAD when the peer is gone (the
 * caller looks once more before it fails), or another -errno.
 */
int shmq_wait_round(struct mpirma_poller *w, uint32_t peer);

/*
 * Writing units, inline in shmq_ring.c and shmq_lean.c: under emulation
 * a call and its return cost more than these bodies.
 *
 * Has rank @dst's ring from this rank room for a unit of @chunk bytes?
 * The head last read says so mostly; only when it does not is the
 * receiver's line read again (and so left in its cache while it has room).
 */
static inline bool shmq_ring_room(uint32_t dst, uint64_t chunk)
{
	struct shmq_ring *rg = shmq_ring_of(dst, shmq.me);
	struct shmq_out *o = &shmq.out[dst];
	uint64_t tail = rg->tail, pos = tail & (shmq.ring - 1);
	uint64_t need = shmq_rec_bytes(chunk);

	if (pos + need > shmq.ring)
		need += shmq.ring - pos;	/* a REC_PAD to the end first */
	if (shmq.ring - (tail - o->head) >= need)
		return true;
	o->head = __atomic_load_n(&rg->head, __ATOMIC_ACQUIRE);
	return shmq.ring - (tail - o->head) >= need;
}

/* Writes unit @h and its data into @dst's ring, which has room. */
static inline void shmq_ring_write(uint32_t dst, const struct shmq_rec *h,
				   const void *data)
{
	struct shmq_ring *rg = shmq_ring_of(dst, shmq.me);
	char *base = shmq_ring_data(dst, shmq.me);
	uint64_t tail = rg->tail, pos = tail & (shmq.ring - 1);

	if (pos + shmq_rec_bytes(h->chunk) > shmq.ring) {
		const struct shmq_rec pad = { .kind = REC_PAD };

		memcpy(base + pos, &pad, sizeof(pad));
		tail += shmq.ring - pos;
		pos = 0;
	}
	memcpy(base + pos, h, sizeof(*h));
	if (h->chunk)
		mpirma_copy(base + pos + sizeof(*h), data, h->chunk);
	__atomic_store_n(&rg->tail, tail + shmq_rec_bytes(h->chunk),
			 __ATOMIC_RELEASE);
}

/* Unit @seq to @dst is in its ring or spilled: says so, rings its bell. */
static inline void shmq_unit_publish(uint32_t dst, uint64_t seq)
{
	shmq.out[dst].seq = seq;
	__atomic_store_n(&shmq_ring_of(dst, shmq.me)->sent, seq,
			 __ATOMIC_RELEASE);
	shmq_bell_ring(dst);
}

#endif /* MPIRMA_LIB_SHMQ_H */
