// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shmq.c - the transport under point-to-point messages and collectives
 * (mpirma_msg_send/recv, p2p.h): queues in shared memory polled in user
 * space, and the kernel mailbox for what does not fit them
 * (docs/lib.md, "Message transport").
 *
 * At MPI_Init the ranks allocate one job-wide window with the module
 * (FLAVOR_ALLOC, mapped whole by every rank).  Rank r's part holds a ring
 * per sender, written by that sender only and read by r only: a message is
 * a record there (header, then data).  A message larger than a quarter of
 * the ring goes through the kernel mailbox (one copy in, one out), and a
 * record written after it names it: a receiver takes records in ring order,
 * so messages from one sender keep their order whichever way they went.
 *
 * Receives take the oldest message matching (source, tag, context), as
 * the kernel mailbox does.  Records a receive does not take are copied out
 * to a list (unexpected, in arrival order), so a ring never fills with
 * messages nobody asked for yet.  Sends never wait (buffered, as the
 * kernel's): a message that finds its ring full is copied to a queue of
 * its destination (overflow) that every later call moves on.
 *
 * Waits poll for mpirma_proc.spin, then sleep in the kernel on a bell: the
 * waiter raises a flag in the rings it waits on (rx_sleeps for data,
 * tx_waits for room), looks once more and sleeps in MPIRMA_IOC_MSG_RECV on
 * the bell context; whoever changes such a ring and takes the flag rings
 * the bell, a zero-byte kernel message.  That kernel wait fails with
 * EOWNERDEAD when the rank is gone, so a dead peer ends a wait with an
 * error.  With MPI_THREAD_MULTIPLE waits poll and pause instead (another
 * thread may take what a bell announced) and ask the kernel now and then
 * whether the peer lives.
 *
 * Without the window (MPIRMA_SHMQ=0, an old module, no memory) every
 * message goes through the kernel mailbox.  State under the library lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"
#include "p2p.h"

#define SHMQ_LINE	64		/* records and ring headers: cache lines */
#define SHMQ_SEG_BYTES	(1U << 20)	/* a rank's rings, together ... */
#define SHMQ_RING_MIN	(8U << 10)	/* ... each at least ... */
#define SHMQ_RING_MAX	(256U << 10)	/* ... and at most */
#define SHMQ_WIN_CTX	3		/* the window's creation context */
#define SHMQ_BELL_CTX	UINT64_MAX	/* kernel context of the bells */
#define SHMQ_LIVE_EVERY	256		/* threads: pauses between liveness checks */

/* A ring's header, in the receiver's part: a line per writer. */
struct shmq_ring {
	uint64_t tail;		/* bytes written, by the sender */
	uint32_t tx_waits;	/* the sender waits for room: ring its bell */
	char pad0[SHMQ_LINE - 12];
	uint64_t head;		/* bytes consumed, by the receiver */
	uint32_t rx_sleeps;	/* the receiver sleeps: ring its bell */
	char pad1[SHMQ_LINE - 12];
};

enum { REC_DATA = 1, REC_KERNEL = 2, REC_PAD = 3 };

/* A record's header; the data follows (REC_DATA). */
struct shmq_rec {
	uint32_t kind;
	int32_t tag;
	uint64_t ctx;
	uint64_t len;		/* the message's length in bytes */
	uint64_t reserved;
};

/* A message out of its ring: unexpected, or waiting in an overflow queue. */
struct shmq_msg {
	struct shmq_msg *next;
	struct shmq_rec rec;
	uint32_t peer;		/* unexpected: the source; overflow: the destination */
	char data[];		/* REC_DATA: rec.len bytes */
};

struct shmq_list {
	struct shmq_msg *head, *tail;
};

static struct {
	bool on;
	char *map;
	size_t map_len;
	char **part;		/* each rank's part of the mapping */
	uint32_t n;
	uint32_t me;
	uint64_t ring;		/* bytes of a ring's data, a power of two */
	uint64_t eager;		/* larger messages go through the kernel */
	uint32_t scan;		/* where an any-source look starts */
	int bells_due;		/* bells rung for this rank, not yet taken */
	int nover;		/* messages in overflow queues */
	struct shmq_list unexpected;
	struct shmq_list *over;	/* per destination */
} q;

static void list_add(struct shmq_list *l, struct shmq_msg *m)
{
	m->next = NULL;
	if (l->tail)
		l->tail->next = m;
	else
		l->head = m;
	l->tail = m;
}

static void list_del(struct shmq_list *l, struct shmq_msg *m,
		     struct shmq_msg *prev)
{
	if (prev)
		prev->next = m->next;
	else
		l->head = m->next;
	if (l->tail == m)
		l->tail = prev;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static inline void fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Rank @dst's ring from @src, and its data. */
static struct shmq_ring *ring_of(uint32_t dst, uint32_t src)
{
	return (struct shmq_ring *)q.part[dst] + src;
}

static char *ring_data(uint32_t dst, uint32_t src)
{
	return q.part[dst] + q.n * sizeof(struct shmq_ring) + src * q.ring;
}

static uint64_t rec_bytes(uint64_t len)
{
	return (sizeof(struct shmq_rec) + len + SHMQ_LINE - 1) &
	       ~(uint64_t)(SHMQ_LINE - 1);
}

/* ------------------------------------------------------------ kernel */

static int kmsg_send(uint32_t peer, int tag, uint64_t ctx, const void *buf,
		     size_t len)
{
	struct mpirma_msg m = {
		.size = sizeof(m),
		.peer = peer,
		.tag = tag,
		.context = ctx,
		.buf = (uintptr_t)buf,
		.len = len,
	};

	return mpirma_ioctl(MPIRMA_IOC_MSG_SEND, &m);
}

static int kmsg_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		     void *buf, size_t len, struct mpirma_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->size = sizeof(*m);
	m->flags = flags;
	m->peer = peer;
	m->tag = tag;
	m->context = ctx;
	m->buf = (uintptr_t)buf;
	m->len = len;
	if (flags & MPIRMA_MSG_NOWAIT)
		return mpirma_ioctl(MPIRMA_IOC_MSG_RECV, m);
	return mpirma_ioctl_wait(MPIRMA_IOC_MSG_RECV, m);
}

/* ------------------------------------------------------------ bells */

/* Rings @peer's bell if its flag @f is up (this side changed its ring). */
static void bell_ring(uint32_t peer, uint32_t *f)
{
	fence();
	if (__atomic_load_n(f, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(f, 0, __ATOMIC_ACQ_REL))
		kmsg_send(peer, 0, SHMQ_BELL_CTX, NULL, 0);
}

static void flag_raise(uint32_t *f)
{
	__atomic_store_n(f, 1, __ATOMIC_RELAXED);
}

/* Takes flag @f down again; if a peer took it, its bell is on the way. */
static void flag_lower(uint32_t *f)
{
	if (!__atomic_exchange_n(f, 0, __ATOMIC_ACQ_REL))
		q.bells_due++;
}

/*
 * Sleeps until a bell from @peer (MPIRMA_ANY_SOURCE: anyone) comes, once
 * stale bells are taken.  0, or -EOWNERDEAD when @peer (any rank) is gone.
 */
static int bell_wait(uint32_t peer)
{
	struct mpirma_msg m;
	int ret;

	while (q.bells_due > 0 &&
	       !kmsg_recv(MPIRMA_MSG_NOWAIT, MPIRMA_ANY_SOURCE, MPIRMA_ANY_TAG,
			  SHMQ_BELL_CTX, NULL, 0, &m))
		q.bells_due--;
	ret = kmsg_recv(0, peer, MPIRMA_ANY_TAG, SHMQ_BELL_CTX, NULL, 0, &m);
	if (!ret)
		q.bells_due--;
	return ret;
}

/* Is @peer gone?  (A bell it left does not count as an answer.) */
static bool peer_gone(uint32_t peer)
{
	struct mpirma_msg m;

	return kmsg_recv(MPIRMA_MSG_NOWAIT | MPIRMA_MSG_PEEK, peer,
			 MPIRMA_ANY_TAG, SHMQ_BELL_CTX, NULL, 0, &m) ==
	       -EOWNERDEAD;
}

/* ------------------------------------------------------------ sending */

/* Rank @dst's ring from this rank has room for @len bytes of data. */
static bool ring_room(uint32_t dst, uint64_t len)
{
	struct shmq_ring *rg = ring_of(dst, q.me);
	uint64_t tail = rg->tail, pos = tail & (q.ring - 1);
	uint64_t need = rec_bytes(len);

	if (pos + need > q.ring)
		need += q.ring - pos;
	return q.ring - (tail - __atomic_load_n(&rg->head, __ATOMIC_ACQUIRE)) >=
	       need;
}

/* Writes record @h (and @len bytes of @data) into @dst's ring: it has room. */
static void ring_write(uint32_t dst, const struct shmq_rec *h,
		       const void *data, uint64_t len)
{
	struct shmq_ring *rg = ring_of(dst, q.me);
	char *base = ring_data(dst, q.me);
	uint64_t tail = rg->tail, pos = tail & (q.ring - 1);
	uint64_t need = rec_bytes(len);

	if (pos + need > q.ring) {
		struct shmq_rec pad = { .kind = REC_PAD };

		memcpy(base + pos, &pad, sizeof(pad));
		tail += q.ring - pos;
		pos = 0;
	}
	memcpy(base + pos, h, sizeof(*h));
	if (len)
		memcpy(base + pos + sizeof(*h), data, len);
	__atomic_store_n(&rg->tail, tail + need, __ATOMIC_RELEASE);
	bell_ring(dst, &rg->rx_sleeps);
}

/* Queues record @h (and its data) for @dst behind what waits there. */
static int over_add(uint32_t dst, const struct shmq_rec *h, const void *data,
		    uint64_t len)
{
	struct shmq_msg *m = malloc(sizeof(*m) + len);

	if (!m)
		return -ENOMEM;
	m->rec = *h;
	m->peer = dst;
	if (len)
		memcpy(m->data, data, len);
	list_add(&q.over[dst], m);
	q.nover++;
	return 0;
}

/* Moves what the overflow queues hold into rings with room. */
static void over_flush(void)
{
	uint32_t d;

	for (d = 0; q.nover && d < q.n; d++) {
		struct shmq_list *l = &q.over[d];
		struct shmq_msg *m;

		while ((m = l->head)) {
			uint64_t len = m->rec.kind == REC_DATA ? m->rec.len : 0;

			if (!ring_room(d, len))
				break;
			ring_write(d, &m->rec, m->data, len);
			list_del(l, m, NULL);
			free(m);
			q.nover--;
		}
	}
}

/* Drops what waits for @dst (gone, or finalizing). */
static void over_drop(uint32_t dst)
{
	struct shmq_msg *m;

	while ((m = q.over[dst].head)) {
		list_del(&q.over[dst], m, NULL);
		free(m);
		q.nover--;
	}
}

static int shm_send(uint32_t dst, int tag, uint64_t ctx, const void *buf,
		    size_t len)
{
	struct shmq_rec h = { .kind = REC_DATA, .tag = tag, .ctx = ctx,
			      .len = len };
	uint64_t inline_len = len;
	int ret;

	if (dst >= q.n)
		return -ENXIO;
	if (tag < 0)
		return -EINVAL;
	if (len > q.eager) {
		/* The data waits in the kernel; the record says where. */
		ret = kmsg_send(dst, tag, ctx, buf, len);
		if (ret)
			return ret;
		h.kind = REC_KERNEL;
		inline_len = 0;
	}
	over_flush();
	if (!q.over[dst].head && ring_room(dst, inline_len)) {
		ring_write(dst, &h, buf, inline_len);
		return 0;
	}
	/* A full ring: is anybody still reading it? */
	if (peer_gone(dst))
		return -EOWNERDEAD;
	return over_add(dst, &h, buf, inline_len);
}

/* ------------------------------------------------------------ receiving */

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

static uint64_t rec_inline(const struct shmq_rec *h)
{
	return h->kind == REC_DATA ? h->len : 0;
}

/* Hands ring @src's bytes up to @head back; a sender waiting for room hears. */
static void ring_consume(uint32_t src, uint64_t head)
{
	struct shmq_ring *rg = ring_of(q.me, src);

	__atomic_store_n(&rg->head, head, __ATOMIC_RELEASE);
	bell_ring(src, &rg->tx_waits);
}

/* The first record of this rank's ring from @src (at *@head), or NULL. */
static const struct shmq_rec *ring_first(uint32_t src, uint64_t *head)
{
	struct shmq_ring *rg = ring_of(q.me, src);
	uint64_t h = rg->head, pos;
	const struct shmq_rec *r;

	for (;;) {
		if (h == __atomic_load_n(&rg->tail, __ATOMIC_ACQUIRE))
			return NULL;
		pos = h & (q.ring - 1);
		r = (const struct shmq_rec *)(ring_data(q.me, src) + pos);
		if (r->kind != REC_PAD) {
			*head = h;
			return r;
		}
		h += q.ring - pos;
		ring_consume(src, h);
	}
}

/* Has ring @src something unread? */
static bool ring_ready(uint32_t src)
{
	struct shmq_ring *rg = ring_of(q.me, src);

	return rg->head != __atomic_load_n(&rg->tail, __ATOMIC_ACQUIRE);
}

/* Record @h of ring @src (at @head) out to the unexpected list. */
static int ring_to_unexpected(uint32_t src, const struct shmq_rec *h,
			      uint64_t head)
{
	uint64_t len = rec_inline(h);
	struct shmq_msg *m = malloc(sizeof(*m) + len);

	if (!m)
		return -ENOMEM;
	m->rec = *h;
	m->peer = src;
	if (len)
		memcpy(m->data, h + 1, len);
	list_add(&q.unexpected, m);
	ring_consume(src, head + rec_bytes(len));
	return 0;
}

static void describe(struct mpirma_msg *m, uint32_t src,
		     const struct shmq_rec *h)
{
	m->source = src;
	m->msg_tag = h->tag;
	m->msg_len = h->len;
}

/*
 * The message of record @h from @src (its data at @data) into @buf of
 * @len bytes; the kernel's part was sent before its record, so it is
 * there (taken without waiting: nothing else may run meanwhile).
 */
static int take(uint32_t src, const struct shmq_rec *h, const void *data,
		void *buf, size_t len)
{
	struct mpirma_msg k;

	if (h->kind == REC_KERNEL)
		return kmsg_recv(MPIRMA_MSG_NOWAIT, src, h->tag, h->ctx, buf,
				 len, &k);
	if (len && h->len)
		memcpy(buf, data, len < h->len ? len : h->len);
	return 0;
}

/* The oldest unexpected message matching @p: taken or described. */
static int try_unexpected(unsigned int flags, const struct pattern *p,
			  void *buf, size_t len, struct mpirma_msg *m)
{
	struct shmq_msg *e, *prev = NULL;
	int ret;

	for (e = q.unexpected.head; e; prev = e, e = e->next) {
		if (!rec_matches(e->peer, &e->rec, p))
			continue;
		describe(m, e->peer, &e->rec);
		if (flags & MPIRMA_MSG_PEEK)
			return 1;
		list_del(&q.unexpected, e, prev);
		ret = take(e->peer, &e->rec, e->data, buf, len);
		free(e);
		return ret ? ret : 1;
	}
	return 0;
}

/* The same from ring @src, moving what does not match out of the way. */
static int try_ring(uint32_t src, unsigned int flags, const struct pattern *p,
		    void *buf, size_t len, struct mpirma_msg *m)
{
	const struct shmq_rec *h;
	uint64_t head;
	int ret;

	while ((h = ring_first(src, &head))) {
		if (rec_matches(src, h, p)) {
			describe(m, src, h);
			if (flags & MPIRMA_MSG_PEEK)
				return ring_to_unexpected(src, h, head) ?: 1;
			ret = take(src, h, h + 1, buf, len);
			ring_consume(src, head + rec_bytes(rec_inline(h)));
			return ret ? ret : 1;
		}
		ret = ring_to_unexpected(src, h, head);
		if (ret)
			return ret;
	}
	return 0;
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
		return try_ring(p->peer, flags, p, buf, len, m);
	for (i = 0; i < q.n; i++) {
		src = (q.scan + i) % q.n;
		ret = try_ring(src, flags, p, buf, len, m);
		if (ret) {
			q.scan = (src + 1) % q.n;
			return ret;
		}
	}
	return 0;
}

/* Reads every ring out to the unexpected list (a wait that must not block others). */
static int drain_all(void)
{
	const struct shmq_rec *h;
	uint64_t head;
	uint32_t s;
	int ret;

	for (s = 0; s < q.n; s++)
		while ((h = ring_first(s, &head))) {
			ret = ring_to_unexpected(s, h, head);
			if (ret)
				return ret;
		}
	return 0;
}

/* ------------------------------------------------------------ waiting */

struct waiter {
	unsigned int rounds;
	int spins;		/* mpirma_wait_pause's, with threads */
	double end;
};

/*
 * Sleeps until a bell says @peer's ring (any ring) may have data, or a
 * queue in overflow may have room.  0 or -errno.
 */
static int sleep_round(uint32_t peer)
{
	uint32_t lo = peer == MPIRMA_ANY_SOURCE ? 0 : peer;
	uint32_t hi = peer == MPIRMA_ANY_SOURCE ? q.n : peer + 1;
	uint32_t bell = peer, s;
	bool ready = false;
	int ret = 0;

	for (s = lo; s < hi; s++)
		flag_raise(&ring_of(q.me, s)->rx_sleeps);
	for (s = 0; q.nover && s < q.n; s++)
		if (q.over[s].head) {
			flag_raise(&ring_of(s, q.me)->tx_waits);
			if (s != peer)
				bell = MPIRMA_ANY_SOURCE;
		}
	fence();
	for (s = lo; s < hi && !ready; s++)
		ready = ring_ready(s);
	for (s = 0; q.nover && s < q.n && !ready; s++)
		ready = q.over[s].head &&
			ring_room(s, rec_inline(&q.over[s].head->rec));
	if (!ready)
		ret = bell_wait(bell);
	for (s = lo; s < hi; s++)
		flag_lower(&ring_of(q.me, s)->rx_sleeps);
	for (s = 0; q.nover && s < q.n; s++)
		if (q.over[s].head)
			flag_lower(&ring_of(s, q.me)->tx_waits);
	/* Woken for anyone's death: is the one waited for gone? */
	if (ret == -EOWNERDEAD && bell != peer)
		ret = peer_gone(peer) ? -EOWNERDEAD : 0;
	return ret;
}

/*
 * One round of a wait for @peer (MPIRMA_ANY_SOURCE: anyone): moves the
 * overflow on, then polls, pauses or sleeps.  0, or -EOWNERDEAD when the
 * peer is gone (the caller looks once more before it fails).
 */
static int wait_round(struct waiter *w, uint32_t peer)
{
	double now;

	over_flush();
	if (mpirma_threads) {
		mpirma_wait_pause(&w->spins);
		if (++w->rounds % SHMQ_LIVE_EVERY)
			return 0;
		return peer_gone(peer) ? -EOWNERDEAD : 0;
	}
	if (w->rounds++ & 63) {
		cpu_relax();
		return 0;
	}
	now = PMPI_Wtime();
	if (w->rounds == 1)
		w->end = now + mpirma_proc.spin;
	if (now < w->end)
		return 0;
	return sleep_round(peer);
}

static int shm_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		    void *buf, size_t len, struct mpirma_msg *m)
{
	struct pattern p = { .peer = peer, .tag = tag, .ctx = ctx };
	struct waiter w = { 0 };
	int ret, gone = 0;

	if (flags & ~(MPIRMA_MSG_NOWAIT | MPIRMA_MSG_PEEK) ||
	    (tag < 0 && tag != MPIRMA_ANY_TAG))
		return -EINVAL;
	if (peer != MPIRMA_ANY_SOURCE && peer >= q.n)
		return -ENXIO;
	over_flush();
	for (;;) {
		ret = try_recv(flags, &p, buf, len, m);
		if (ret)
			return ret < 0 ? ret : 0;
		if (gone)
			return gone;
		if (flags & MPIRMA_MSG_NOWAIT)
			return -EAGAIN;
		gone = wait_round(&w, peer);
		if (gone && gone != -EOWNERDEAD)
			return gone;
	}
}

/* ------------------------------------------------------------ entry */

int mpirma_msg_send(int job_rank, int tag, uint64_t ctx, const void *buf,
		    size_t len)
{
	if (q.on)
		return shm_send((uint32_t)job_rank, tag, ctx, buf, len);
	return kmsg_send((uint32_t)job_rank, tag, ctx, buf, len);
}

/*
 * Without the queues a waiting receive first polls the kernel for
 * mpirma_proc.spin (init.c says why), then sleeps there.  Not with
 * threads: their receives poll anyway (p2p.c), and a poll here would hold
 * the library lock.
 */
int mpirma_msg_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		    void *buf, size_t len, struct mpirma_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->size = sizeof(*m);
	if (q.on)
		return shm_recv(flags, peer, tag, ctx, buf, len, m);
	if (!(flags & MPIRMA_MSG_NOWAIT) && mpirma_proc.spin > 0 &&
	    !mpirma_threads) {
		double end = PMPI_Wtime() + mpirma_proc.spin;
		int ret;

		do {
			ret = kmsg_recv(flags | MPIRMA_MSG_NOWAIT, peer, tag,
					ctx, buf, len, m);
			if (ret != -EAGAIN)
				return ret;
		} while (PMPI_Wtime() < end);
	}
	return kmsg_recv(flags, peer, tag, ctx, buf, len, m);
}

void mpirma_shmq_progress(void)
{
	if (q.on && q.nover)
		over_flush();
}

bool mpirma_shmq_on(void)
{
	return q.on;
}

/* ------------------------------------------------------------ setup */

/* Ring bytes for @n ranks: a power of two within the bounds. */
static uint64_t ring_size(uint32_t n)
{
	uint64_t r = SHMQ_RING_MAX;

	while (r > SHMQ_RING_MIN && r * n > SHMQ_SEG_BYTES)
		r >>= 1;
	return r;
}

/* Creates and maps the window; 0 or -errno (then nothing is kept). */
static int shm_map(uint64_t seg, uint32_t *win_id)
{
	struct mpirma_win_create wc = {
		.size = sizeof(wc),
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.strategy = MPIRMA_ATOM_LOCK,
		.disp_unit = 1,
		.length = seg,
		.nranks = q.n,
		.context = SHMQ_WIN_CTX,
	};
	struct mpirma_win_query wq = { .size = sizeof(wq) };
	uint32_t *ranks = malloc(q.n * sizeof(*ranks)), r;
	int ret;

	q.part = calloc(q.n, sizeof(*q.part));
	if (!ranks || !q.part) {
		free(ranks);
		return -ENOMEM;
	}
	for (r = 0; r < q.n; r++)
		ranks[r] = r;
	wc.ranks = (uintptr_t)ranks;
	ret = mpirma_ioctl_wait(MPIRMA_IOC_WIN_CREATE, &wc);
	free(ranks);
	if (ret)
		return ret;
	*win_id = wc.win_id;
	wq.win_id = wc.win_id;
	wq.rank = q.me;
	ret = mpirma_ioctl(MPIRMA_IOC_WIN_QUERY, &wq);
	if (ret)
		return ret;
	q.map = mmap(NULL, wq.mmap_length, PROT_READ | PROT_WRITE, MAP_SHARED,
		     mpirma_proc.fd, (off_t)wq.mmap_offset);
	if (q.map == MAP_FAILED) {
		q.map = NULL;
		return -errno;
	}
	q.map_len = wq.mmap_length;
	for (r = 0; r < q.n; r++) {
		wq.rank = r;
		ret = mpirma_ioctl(MPIRMA_IOC_WIN_QUERY, &wq);
		if (ret)
			return ret;
		if (wq.seg_offset + seg > q.map_len)
			return -EINVAL;
		q.part[r] = q.map + wq.seg_offset;
	}
	return 0;
}

static void shm_unmap(void)
{
	if (q.map)
		munmap(q.map, q.map_len);
	q.map = NULL;
	free(q.part);
	q.part = NULL;
	free(q.over);
	q.over = NULL;
}

/*
 * Do all ranks have their mapping?  Each tells every other one through
 * the kernel mailbox; the queues are used only if all of them do.
 */
static int shm_agree(int mine, bool *all)
{
	struct mpirma_msg m;
	uint32_t r;
	int theirs, ret;

	*all = mine;
	for (r = 0; r < q.n; r++)
		if (r != q.me) {
			ret = kmsg_send(r, 0, SHMQ_BELL_CTX - 1, &mine,
					sizeof(mine));
			if (ret)
				return ret;
		}
	for (r = 0; r < q.n; r++)
		if (r != q.me) {
			ret = kmsg_recv(0, r, 0, SHMQ_BELL_CTX - 1, &theirs,
					sizeof(theirs), &m);
			if (ret)
				return ret;
			*all = *all && theirs;
		}
	return 0;
}

int mpirma_shmq_setup(void)
{
	const char *v = getenv("MPIRMA_SHMQ");
	uint64_t seg;
	uint32_t win_id = 0;
	bool all;
	int ret;

	if (v && *v && strcmp(v, "0") && strcmp(v, "1"))
		return mpirma_err(MPI_ERR_OTHER, "MPIRMA_SHMQ=%s: 0 (messages "
				  "through the kernel) or 1 (shared-memory "
				  "queues, the default)", v);
	if ((v && !strcmp(v, "0")) ||
	    !(mpirma_proc.query.features & MPIRMA_FEAT_WIN_ALLOC))
		return MPI_SUCCESS;
	q.n = (uint32_t)mpirma_proc.size;
	q.me = (uint32_t)mpirma_proc.rank;
	q.ring = ring_size(q.n);
	q.eager = q.ring / 4;
	seg = q.n * (sizeof(struct shmq_ring) + q.ring);
	ret = shm_map(seg, &win_id);
	if (!ret) {
		q.over = calloc(q.n, sizeof(*q.over));
		if (!q.over)
			ret = -ENOMEM;
	}
	if (shm_agree(!ret, &all) || !all) {
		shm_unmap();
		return MPI_SUCCESS;
	}
	q.on = true;
	return MPI_SUCCESS;
}

int mpirma_shmq_quiesce(void)
{
	struct waiter w = { 0 };
	uint32_t d;
	int ret;

	if (!q.on)
		return 0;
	while (q.nover) {
		ret = drain_all();
		if (!ret)
			ret = wait_round(&w, MPIRMA_ANY_SOURCE);
		if (ret) {
			/* Nobody will read what is left for the gone. */
			for (d = 0; d < q.n; d++)
				if (q.over[d].head && peer_gone(d))
					over_drop(d);
			if (ret != -EOWNERDEAD)
				return ret;
		}
	}
	return 0;
}

void mpirma_shmq_teardown(void)
{
	struct shmq_msg *m;

	if (!q.on)
		return;
	while ((m = q.unexpected.head)) {
		q.unexpected.head = m->next;
		free(m);
	}
	q.unexpected.tail = NULL;
	for (uint32_t d = 0; d < q.n; d++)
		over_drop(d);
	shm_unmap();
	q.on = false;
}
