// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shmq_ring.c - messages into and out of the shared-memory queues: units
 * into the rings or spilled to the kernel, and back in number order
 * (shmq.h says what units are).
 *
 * Sending never waits: a unit that finds no room in its ring is spilled.
 * Only the units of a large message to another rank wait a little for
 * room while the reader is taking them (it is receiving that message),
 * since a spill costs two copies; once one has waited in vain, the rest
 * of the message spills at once.  The units of one message are numbered
 * one after the other: the sender sends nothing else to that receiver
 * meanwhile (it holds the library lock throughout), so whoever takes a
 * REC_MORE unit adds it to the message its sender is putting together
 * (shmq.build): a receive's buffer, or an unexpected message.
 *
 * Receiving takes the oldest message that matches, like the kernel
 * mailbox: first from the unexpected list (messages taken out of the
 * rings before anyone asked for them, in arrival order), then from the
 * rings, moving every message that does not match to that list, so a ring
 * never stays full of messages nobody has asked for yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shmq.h"
#include "tool.h"

/* A unit taken from its sender: its header and where its data is. */
struct unit {
	struct shmq_rec rec;
	const char *data;
	void *spilled;		/* the kernel's unit (header and data), or NULL */
	uint64_t end;		/* in the ring: where it ends, the new head */
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ------------------------------------------------------------ sending */

/*
 * Waits for room for @chunk bytes while @dst takes units, at a wait's
 * pace (poll.c): false once it has taken none for as long as a wait polls
 * before it sleeps (and at once with threads, which must not hold the
 * lock so long).  Where ranks outnumber CPUs that is the yields' time, not
 * none: a sender that gave up at once spilled, two copies and a system
 * call each side for every unit, while the receiver waited for a CPU
 * (4 ranks on 2 CPUs, bcast of 64 KiB: 40% of the root's units spilled,
 * 267-515 us a bcast against 179-362 with the wait).
 * A receiver that let one such wait pass is not waited for again until it
 * has taken something: OSU's osu_bibw sends 64 messages each way before
 * either receives, and each one past the ring's room waited its
 * millisecond (16 KiB: 250 MB/s).
 * Nor is one that waits for room in its ring to this rank itself: each
 * would wait out its millisecond for the other (perf, osu_bibw 256 KiB:
 * 15% of the time in these waits).
 */
static bool room_wait(uint32_t dst, uint64_t chunk)
{
	struct shmq_ring *rg = shmq_ring_of(dst, shmq.me);
	const uint32_t *back = &shmq_ring_of(shmq.me, dst)->room_wait;
	uint64_t head = __atomic_load_n(&rg->head, __ATOMIC_ACQUIRE), now;
	struct shmq_out *o = &shmq.out[dst];
	struct mpirma_poller w = { 0 };
	bool room = false;

	if (mpirma_threads || shmq_out_stalled(o, head))
		return false;
	o->stalled = false;
	/* Dekker's order: at least one of two waiting for each other sees it */
	__atomic_store_n(&rg->room_wait, 1, __ATOMIC_RELAXED);
	shmq_fence();
	while (!(room = shmq_ring_room(dst, chunk))) {
		now = __atomic_load_n(&rg->head, __ATOMIC_ACQUIRE);
		if (now != head) {
			head = now;
			w = (struct mpirma_poller){ 0 };
		}
		if (__atomic_load_n(back, __ATOMIC_RELAXED) ||
		    mpirma_poll_step(&w)) {
			o->stall = head;
			o->stalled = true;
			break;
		}
	}
	__atomic_store_n(&rg->room_wait, 0, __ATOMIC_RELEASE);
	return room;
}

/* Unit @h with its data into the kernel mailbox, as one message. */
static int unit_spill(uint32_t dst, const struct shmq_rec *h,
		      const void *data)
{
	char *msg = malloc(sizeof(*h) + h->chunk);
	int ret;

	if (!msg)
		return -ENOMEM;
	memcpy(msg, h, sizeof(*h));
	if (h->chunk)
		mpirma_copy(msg + sizeof(*h), data, h->chunk);
	ret = shmq_kmsg_send(dst, (int)(h->seq & INT32_MAX), SHMQ_SPILL_CTX,
			     msg, sizeof(*h) + h->chunk);
	free(msg);
	return ret;
}

/* shmq.h */
int shmq_unit_send(uint32_t dst, struct shmq_rec *h, const void *data,
		   bool *wait)
{
	int ret;

	h->seq = shmq.out[dst].seq + 1;
	if (shmq_ring_room(dst, h->chunk) ||
	    (*wait && (*wait = room_wait(dst, h->chunk)))) {
		shmq_ring_write(dst, h, data);
	} else {
		/* the receiver is not taking this one: no more waits */
		*wait = false;
		ret = unit_spill(dst, h, data);
		if (ret)
			return ret;
		mpirma_counters.spills++;
	}
	shmq_unit_publish(dst, h->seq);
	return 0;
}

/*
 * The data in each unit of a message of @len bytes: one unit up to
 * PIPE_MIN, else at least two, so that the receiver copies one out while
 * the sender copies the next in.  Under emulation a ping-pong of 8 KiB
 * took 12.9-16.1 us in one unit and 10.7-13.6 in two, of 64 KiB 68-95 us
 * in one and 38-63 in units of 8 KiB; on hardware a unit costs less than
 * copying 4 KiB.
 */
#define PIPE_MIN	4096

static uint64_t unit_chunk(size_t len)
{
	uint64_t half;

	if (len <= PIPE_MIN)
		return min_u64(len, shmq.frag);
	half = (len / 2 + SHMQ_LINE - 1) & ~(uint64_t)(SHMQ_LINE - 1);
	return min_u64(half, shmq.frag);
}

int shmq_send(uint32_t dst, int tag, uint64_t ctx, const void *buf,
	      size_t len, uint64_t sync)
{
	struct shmq_rec h = { .tag = tag, .ctx = ctx, .len = len,
			      .sync = sync };
	uint64_t off = 0, unit = unit_chunk(len);
	/* Units may wait for room while the receiver takes them. */
	bool wait = len > unit && dst != shmq.me, more = false;
	int ret;

	if (dst >= shmq.n)
		return -ENXIO;
	if (tag < 0)
		return -EINVAL;
	if (shmq_offer_fits(dst, len)) {
		ret = shmq_offer_send(dst, &h, buf, len);
		if (ret == 1 || ret < 0)
			return ret < 0 ? ret : 0;
		more = ret == 2;
	}
	do {
		h.kind = more ? REC_MORE : len <= unit ? REC_DATA :
			 off ? REC_MORE : REC_FIRST;
		h.chunk = min_u64(len - off, unit);
		ret = shmq_unit_send(dst, &h, (const char *)buf + off, &wait);
		if (ret)
			return ret;
		off += h.chunk;
	} while (off < len);
	return 0;
}

/* ------------------------------------------------------------ units */

bool shmq_unit_ready(uint32_t src)
{
	return __atomic_load_n(&shmq_ring_of(shmq.me, src)->sent,
			       __ATOMIC_ACQUIRE) >= shmq.next[src];
}

/* The spilled unit @seq of @src from the kernel (it is there). */
static int unit_unspill(uint32_t src, uint64_t seq, struct unit *u)
{
	size_t cap = sizeof(struct shmq_rec) + shmq.frag;
	struct mpirma_msg m;
	int ret;

	u->spilled = malloc(cap);
	if (!u->spilled)
		return -ENOMEM;
	ret = shmq_kmsg_recv(MPIRMA_MSG_NOWAIT, src, (int)(seq & INT32_MAX),
			     SHMQ_SPILL_CTX, u->spilled, cap, &m);
	if (!ret && (m.msg_len < sizeof(u->rec) || m.msg_len > cap))
		ret = -EPROTO;
	if (!ret) {
		memcpy(&u->rec, u->spilled, sizeof(u->rec));
		if (u->rec.seq != seq ||
		    u->rec.chunk != m.msg_len - sizeof(u->rec))
			ret = -EPROTO;
	}
	if (ret) {
		free(u->spilled);
		u->spilled = NULL;
		return ret == -EAGAIN ? -EPROTO : ret;
	}
	u->data = (const char *)u->spilled + sizeof(u->rec);
	u->end = 0;
	return 1;
}

/*
 * Takes the unit due from @src into *@u: 1, 0 when none is, or -errno.
 * unit_put() finishes it; nothing else takes from @src meanwhile.
 */
static int unit_get(uint32_t src, struct unit *u)
{
	struct shmq_ring *rg = shmq_ring_of(shmq.me, src);
	const char *base = shmq_ring_data(shmq.me, src);
	uint64_t due = shmq.next[src], h = rg->head, pos;
	const struct shmq_rec *r;

	if (__atomic_load_n(&rg->sent, __ATOMIC_ACQUIRE) < due)
		return 0;
	/* Published: first in the ring, or else spilled. */
	while (h != __atomic_load_n(&rg->tail, __ATOMIC_ACQUIRE)) {
		pos = h & (shmq.ring - 1);
		r = (const struct shmq_rec *)(base + pos);
		if (r->kind == REC_PAD) {
			h += shmq.ring - pos;
			__atomic_store_n(&rg->head, h, __ATOMIC_RELEASE);
			continue;
		}
		if (r->seq != due)
			break;
		u->rec = *r;
		u->data = (const char *)(r + 1);
		u->spilled = NULL;
		u->end = h + shmq_rec_bytes(r->chunk);
		return 1;
	}
	return unit_unspill(src, due, u);
}

/* Done with unit @u of @src: its ring room goes back to the sender. */
static void unit_put(uint32_t src, struct unit *u)
{
	if (u->end)
		__atomic_store_n(&shmq_ring_of(shmq.me, src)->head, u->end,
				 __ATOMIC_RELEASE);
	free(u->spilled);
	shmq.next[src]++;
}

/* ------------------------------------------------------------ messages */

/* Starts putting @src's message of first unit @u together in @dst. */
static void build_start(uint32_t src, const struct unit *u, char *dst,
			uint64_t cap, bool *done)
{
	uint64_t n = min_u64(u->rec.chunk, cap);

	if (n)
		mpirma_copy(dst, u->data, n);
	shmq.build[src] = (struct shmq_build){
		.active = true, .dst = dst, .cap = cap, .got = u->rec.chunk,
		.len = u->rec.len, .done = done };
	*done = false;
}

/* A REC_MORE unit @u of @src into the message it belongs to. */
static void build_feed(uint32_t src, const struct unit *u)
{
	struct shmq_build *b = &shmq.build[src];

	if (!b->active)
		return;		/* its receive failed: dropped */
	if (b->got < b->cap)
		mpirma_copy(b->dst + b->got, u->data,
			    min_u64(u->rec.chunk, b->cap - b->got));
	b->got += u->rec.chunk;
	if (b->got >= b->len) {
		b->active = false;
		*b->done = true;
	}
}

/*
 * The next unit from @src that starts a message, the units before it
 * added to their message; stops (0) once *@stop.  1, 0 or -errno.
 */
static int unit_first(uint32_t src, struct unit *u, const bool *stop)
{
	int ret;

	while (!(stop && *stop)) {
		ret = unit_get(src, u);
		if (ret <= 0 || u->rec.kind != REC_MORE)
			return ret;
		build_feed(src, u);
		unit_put(src, u);
	}
	return 0;
}

/* Waits until the message @src is putting together is complete (*@done). */
static int build_wait(uint32_t src, bool *done)
{
	struct mpirma_poller w = { 0 };
	struct unit u;
	int ret, gone = 0;

	for (;;) {
		ret = unit_first(src, &u, done);
		if (*done)
			return 0;
		if (ret) {
			/* a new message amid this one: the sender broke it */
			if (ret > 0)
				unit_put(src, &u);
			ret = ret > 0 ? -EPROTO : ret;
			break;
		}
		if (gone) {
			ret = gone;
			break;
		}
		gone = shmq_wait_round(&w, src);
		if (gone && gone != -EOWNERDEAD) {
			ret = gone;
			break;
		}
	}
	shmq.build[src].active = false;
	return ret;
}

/*
 * REC_RDV unit @u of @src into @buf of @cap bytes: the kernel copies, then
 * the sender hears (also when the take failed: its request ends, and the
 * offer with it).  0, -ECANCELED when MPI_Cancel withdrew the offer (the
 * message is as never sent, and nobody waits for an answer), or -errno.
 */
static int rdv_take(uint32_t src, struct unit *u, void *buf, uint64_t cap)
{
	int ret = shmq_offer_take(src, u->rec.seq, u->rec.offer, buf, cap);

	if (ret == -ENOENT && !shmq_peer_gone(src))
		ret = -ECANCELED;
	else
		shmq_sync_answer(src, &u->rec, ret && ret != -ENOENT);
	unit_put(src, u);
	return ret;
}

/*
 * First unit @u of a message from @src out to the unexpected list.  0,
 * -ECANCELED (a cancelled one: none), or -errno.
 */
static int to_unexpected(uint32_t src, struct unit *u)
{
	struct shmq_msg *m = malloc(sizeof(*m) + u->rec.len);
	int ret;

	if (!m) {
		/* lost; its REC_MOREs are dropped, its sender not left waiting */
		shmq_sync_answer(src, &u->rec, u->rec.kind == REC_RDV);
		unit_put(src, u);
		return -ENOMEM;
	}
	m->next = NULL;
	m->rec = u->rec;
	m->src = src;
	if (u->rec.kind == REC_RDV) {
		/* taken now: its sender waits for that */
		m->rec.sync = 0;
		m->complete = true;
		ret = rdv_take(src, u, m->data, u->rec.len);
		if (ret) {
			free(m);
			return ret;
		}
	} else if (u->rec.kind == REC_FIRST || u->rec.kind == REC_OFFER) {
		build_start(src, u, m->data, u->rec.len, &m->complete);
		unit_put(src, u);
	} else {
		if (u->rec.chunk)
			mpirma_copy(m->data, u->data, u->rec.chunk);
		m->complete = true;
		unit_put(src, u);
	}
	if (shmq.utail)
		shmq.utail->next = m;
	else
		shmq.uhead = m;
	shmq.utail = m;
	shmq.uq_gen++;
	return 0;
}

/* What a receive takes: a source (or any), a tag (or any), a context. */
struct pattern {
	uint32_t peer;
	int32_t tag;
	uint64_t ctx;
};

static bool rec_matches(uint32_t src, const struct shmq_rec *h,
			const struct pattern *p)
{
	return h->ctx == p->ctx &&
	       (p->peer == MPIRMA_ANY_SOURCE || p->peer == src) &&
	       (p->tag == MPIRMA_ANY_TAG || h->tag == p->tag);
}

static void describe(struct mpirma_msg *m, uint32_t src,
		     const struct shmq_rec *h)
{
	m->source = src;
	m->msg_tag = h->tag;
	m->msg_len = h->len;
}

/* The oldest unexpected message matching @p: 1 taken or described, 0 none. */
static int try_unexpected(unsigned int flags, const struct pattern *p,
			  void *buf, size_t len, struct mpirma_msg *m)
{
	struct shmq_msg *e, *prev = NULL;
	int ret;

	for (e = shmq.uhead; e; prev = e, e = e->next) {
		if (!rec_matches(e->src, &e->rec, p))
			continue;
		describe(m, e->src, &e->rec);
		if (flags & MPIRMA_MSG_PEEK)
			return 1;
		/* Ours now, even while its last units still come. */
		if (prev)
			prev->next = e->next;
		else
			shmq.uhead = e->next;
		if (shmq.utail == e)
			shmq.utail = prev;
		shmq_sync_taken(e->src, &e->rec);
		/* An offer none of whose data has come: straight into @buf. */
		if (e->rec.kind == REC_OFFER && !e->complete &&
		    shmq.build[e->src].dst == e->data &&
		    !shmq.build[e->src].got &&
		    !shmq_offer_take(e->src, e->rec.seq, e->rec.offer, buf,
				     len)) {
			shmq.build[e->src].active = false;
			free(e);
			return 1;
		}
		ret = e->complete ? 0 : build_wait(e->src, &e->complete);
		if (!ret && len && e->rec.len)
			mpirma_copy(buf, e->data, min_u64(len, e->rec.len));
		free(e);
		return ret ? ret : 1;
	}
	return 0;
}

/* The same from @src's units, moving what does not match out of the way. */
static int try_src(uint32_t src, unsigned int flags, const struct pattern *p,
		   void *buf, size_t len, struct mpirma_msg *m)
{
	struct unit u;
	bool done;
	int ret;

	for (;;) {
		ret = unit_first(src, &u, NULL);
		if (ret <= 0)
			return ret;
		if (!rec_matches(src, &u.rec, p) || (flags & MPIRMA_MSG_PEEK)) {
			bool match = rec_matches(src, &u.rec, p);

			if (match)
				describe(m, src, &u.rec);
			ret = to_unexpected(src, &u);
			if (ret == -ECANCELED)
				continue;
			if (ret || match)
				return ret ? ret : 1;
			continue;
		}
		describe(m, src, &u.rec);
		if (u.rec.kind == REC_RDV) {
			ret = rdv_take(src, &u, buf, len);
			if (ret == -ECANCELED)
				continue;
			return ret ? ret : 1;
		}
		shmq_sync_taken(src, &u.rec);
		if (u.rec.kind == REC_DATA) {
			if (len && u.rec.chunk)
				mpirma_copy(buf, u.data, min_u64(len, u.rec.chunk));
			unit_put(src, &u);
			return 1;
		}
		if (u.rec.kind == REC_OFFER &&
		    !shmq_offer_take(src, u.rec.seq, u.rec.offer, buf, len)) {
			unit_put(src, &u);
			return 1;
		}
		build_start(src, &u, buf, len, &done);
		unit_put(src, &u);
		ret = build_wait(src, &done);
		return ret ? ret : 1;
	}
}

/* One look for a message: 1 found, 0 none, or -errno. */
static int try_recv(unsigned int flags, const struct pattern *p, void *buf,
		    size_t len, struct mpirma_msg *m)
{
	uint32_t i, src;
	int ret = try_unexpected(flags, p, buf, len, m);

	if (ret)
		return ret;
	if (p->peer != MPIRMA_ANY_SOURCE)
		return try_src(p->peer, flags, p, buf, len, m);
	for (i = 0; i < shmq.n; i++) {
		src = (shmq.scan + i) % shmq.n;
		ret = try_src(src, flags, p, buf, len, m);
		if (ret) {
			shmq.scan = (src + 1) % shmq.n;
			return ret;
		}
	}
	return 0;
}

int shmq_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
	      void *buf, size_t len, struct mpirma_msg *m)
{
	struct pattern p = { .peer = peer, .tag = tag, .ctx = ctx };
	struct mpirma_poller w = { 0 };
	uint32_t wait_peer = peer;
	int ret, gone = 0;

	if (flags & ~(MPIRMA_MSG_NOWAIT | MPIRMA_MSG_PEEK) ||
	    (tag < 0 && tag != MPIRMA_ANY_TAG))
		return -EINVAL;
	if (peer != MPIRMA_ANY_SOURCE && peer >= shmq.n)
		return -ENXIO;
	for (;;) {
		ret = try_recv(flags, &p, buf, len, m);
		if (ret)
			return ret < 0 ? ret : 0;
		if (gone)
			return gone;
		if (flags & MPIRMA_MSG_NOWAIT)
			return -EAGAIN;
		/*
		 * Nonblocking collectives and posted receives advance while
		 * anything waits, and a message for one of them from any rank
		 * must wake us.
		 */
		if (mpirma_poll_progress(&w))
			wait_peer = MPIRMA_ANY_SOURCE;
		gone = shmq_wait_round(&w, wait_peer);
		if (gone && gone != -EOWNERDEAD)
			return gone;
	}
}
