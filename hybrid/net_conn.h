/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * net_conn.h - what net.c (setting up, connecting, accepting) and
 * net_io.c (frames) share: the connections and the transport's state.
 */
#ifndef MPIRMA_HYBRID_NET_CONN_H
#define MPIRMA_HYBRID_NET_CONN_H

#include "locks.h"
#include "net.h"

/*
 * The own transport's side of net.h's calls (net.c, net_io.c,
 * net_serve.c), which transport.c makes when the agents use it.
 */
int net_own_start(void);
void net_own_stop(void);
int net_own_send(int peer, uint32_t tag, const void *a, size_t alen,
		 const void *b, size_t blen, struct hy_nrecv *r, void *rbuf,
		 size_t rcap, uint32_t rtag);
void net_own_post(struct hy_nrecv *r, int peer, uint32_t tag, void *buf,
		  size_t cap);
int net_own_test(struct hy_nrecv *r, int wait_ms);
void net_own_sleep(bool paced);
int net_own_drain(hy_net_frame_fn *frame);
void net_own_wake(void);
void net_own_reply(int origin, uint32_t tag, const void *a, size_t alen,
		   const void *b, size_t blen);

/* A frame on the wire: this, then @len bytes. */
struct net_frame {
	uint32_t len;
	uint32_t tag;
};

/*
 * Frames in shared memory (net_ring.c), for a connection within one
 * machine: one ring each way, a producer's tail and a consumer's head,
 * each on a line of its own, and the consumer's @asleep, which tells the
 * producer to ring the socket's bell.
 */
#define NET_RING_BYTES	(1u << 20)
#define NET_TAG_BELL	0xfffffffeu	/* on the socket: wake up */
#define NET_TAG_ONSOCKET 0xffffffffu	/* in a ring: the frame is on the socket */
#define NET_LOOK_GAP	32	/* looks at the rings per look at the sockets */

struct net_ring {
	_Alignas(64) uint64_t head;
	_Alignas(64) uint64_t tail;
	_Alignas(64) uint32_t asleep;
	_Alignas(64) char data[NET_RING_BYTES];
};

struct net_shm {
	struct net_ring req;	/* origin -> agent */
	struct net_ring rep;	/* agent -> origin */
};

/* A frame that came before its receive was posted (origin side). */
struct net_unexp {
	struct net_unexp *next;
	uint32_t tag;
	size_t len;
	char data[];
};

/**
 * struct net_conn - one connection
 * @lock: @fd's writes, its connecting, @out (the agent's queue)
 * @fd: the socket, -1 before it is made or once the peer is gone
 * @peer: the peer's world rank (on the agent's side once it said hello)
 * @gone: the peer's process is gone (nothing more comes or goes)
 * @out: bytes the socket did not take yet, @outlen of them from @outoff
 *	(the agent's replies: it never blocks on a write)
 * @posted: the origin's posted receives on this connection (net.rx_lock)
 * @unexp: frames that came before their receive (net.rx_lock)
 * @hello: the agent's side has checked the peer's hello
 * @want_out: epoll watches @fd for room (@out is not empty)
 * @shm: the rings of a connection within one machine (NULL: frames on
 *	the socket), @tx the one this side writes, @rx the one it reads
 * @backlog: the agent's replies that wait for room in @tx, in order
 */
struct net_conn {
	struct hy_mutex lock;
	int fd;
	int peer;
	bool gone;
	char *out;
	size_t outlen, outoff, outcap;
	struct hy_nrecv *posted;
	struct net_unexp *unexp;
	bool hello;
	bool want_out;
	struct net_shm *shm;
	struct net_ring *tx, *rx;
	struct net_unexp *backlog;
};

/* What an origin says first on a connection. */
struct net_hello {
	uint64_t key[2];
	uint32_t magic;
	uint32_t rank;
};

#define NET_MAGIC	0x6d726e31	/* "mrn1" */

/**
 * struct net_state - the transport of this process
 * @key: the job's secret, from rank 0 over the host (a hello must have it)
 * @me: this process's world rank; @size: the world's
 * @ep: the agent's epoll set; @evfd: its wake (net_own_wake)
 * @lunix, @ltcp: the listening sockets (-1: none)
 * @out: per world rank, the connection to its agent (origin side)
 * @in: per world rank, the connection from it (agent side), once known
 * @rx_lock: @out's receives, and @rx_busy: a thread reads for all;
 *	@rxwake ends its poll() when a frame to itself is delivered
 * @inbox: the agent's frame buffer, @inbox_cap bytes
 * @rxbuf: the origin side's, for frames from rings (rx_busy's)
 * @looks: the origin side's looks at its rings, to poll() the sockets
 *	every NET_LOOK_GAP of them
 */
struct net_state {
	uint64_t key[2];
	int me, size;
	int ep, evfd, lunix, ltcp, rxwake;
	struct net_conn *out;
	struct net_conn **in;
	struct hy_mutex rx_lock;
	bool rx_busy;
	char *inbox;
	size_t inbox_cap;
	char *rxbuf;
	size_t rxbuf_cap;
	unsigned int looks;
};

extern struct net_state net;

/* net.c: connects @c (to world rank @c->peer's agent); @c->lock held. */
int net_connect(struct net_conn *c);

/* net.c: accepts a connection on listening socket @lfd (agent). */
void net_accept(int lfd);

/* net.c: reads and checks @c's hello (agent); false: closed it. */
bool net_hello(struct net_conn *c);

/* net.c: @c's peer is gone: closes it (agent side: removes it). */
void net_close(struct net_conn *c, bool agent);

/*
 * net.c: out of memory where a peer would wait forever for what could not
 * be kept: ends the job (MPI_Abort).
 */
void net_oom(void);

/*
 * net_ring.c: net_ring_put() writes a frame into @c->tx: 0, -EAGAIN (no
 * room now), -EMSGSIZE (never fits: send a NET_TAG_ONSOCKET marker, then
 * the frame on the socket); c->lock held.  net_ring_get() reads the next
 * frame of @c->rx (from the socket after a marker) into *@buf (grown to
 * *@cap): 1, 0 when none, -errno.  net_ring_ready(): is one there?
 * net_ring_bells() takes the bells off the socket; net_ring_sleep() says
 * whether this side sleeps (the producer then rings).  net_ring_create()
 * makes the rings (origin; the memfd to send), net_ring_attach() maps them
 * (agent; closes the fd), net_ring_free() unmaps.
 */
int net_ring_put(struct net_conn *c, uint32_t tag, const void *a, size_t alen,
		 const void *b, size_t blen);
int net_ring_get(struct net_conn *c, struct net_frame *f, char **buf,
		 size_t *cap);
bool net_ring_ready(const struct net_conn *c);
bool net_ring_bells(struct net_conn *c);
void net_ring_sleep(struct net_conn *c, bool asleep);
int net_ring_create(struct net_conn *c);
bool net_ring_attach(struct net_conn *c, int fd);
void net_ring_free(struct net_conn *c);

/*
 * net_ring.c, over every ring this process reads: net_rings_ready(), is a
 * frame there for the agent's side?  net_rings_sleep() marks the agent's
 * rings and those with receives posted asleep, each in @set (room for 2 *
 * net.size, from net_sleep_set()), and returns how many; net_rings_wake()
 * takes the marks back.
 */
bool net_rings_ready(void);
int net_rings_sleep(struct net_conn **set);
void net_rings_wake(struct net_conn **set, int n);
struct net_conn **net_sleep_set(void);

/*
 * net_io.c: a kept copy of a frame of @tag (@a, then @b; out of memory,
 * ends the job); net_deliver_self() gives a frame from this process's
 * agent to itself to its receive, or keeps it.
 */
struct net_unexp *net_frame_copy(uint32_t tag, const void *a, size_t alen,
				 const void *b, size_t blen);
void net_deliver_self(uint32_t tag, const void *a, size_t alen,
		      const void *b, size_t blen);

/*
 * net_io.c: reads exactly @len bytes from @fd; 0 or -errno (EOF:
 * -ECONNRESET).  Called with no connection's lock held: while it waits
 * it pushes the agent's queued replies (net_own_push).
 */
int net_read(int fd, void *buf, size_t len);

/*
 * net_serve.c: sends what the agent's connections have queued, as much as
 * their sockets take; no connection's lock held.  A frame's sender may be
 * waiting for one of those replies before it sends the frame's rest: two
 * processes that get large blocks from each other over TCP each read the
 * start of its reply and waited for the rest, which the other's queue
 * held.
 */
void net_own_push(void);

#endif /* MPIRMA_HYBRID_NET_CONN_H */
