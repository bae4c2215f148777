// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net_io.c - frames on the agents' connections (net.h): the origin's side.
 *
 * A frame is written whole under the connection's lock, so frames never
 * interleave: into the connection's ring within a machine (net_ring.c),
 * else on its socket.  A thread that waits for a receive reads for every
 * thread (one at a time, net.rx_busy): the rings of the connections with
 * receives posted, and their sockets with one poll(); it puts each frame
 * into the first posted receive of its tag on that connection, or keeps
 * it (struct net_unexp) for a receive posted later.  The agent's side is
 * net_serve.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "net_conn.h"

#define NET_POLL_MAX	64	/* connections a reader polls at once, at most */

/*
 * While a frame's rest has not come, the wait pushes this process's
 * queued replies out (net_own_push) and looks again after at most this
 * long: the peer may be waiting for one of them before it sends the rest.
 */
#define NET_READ_LOOK_MS	1

int net_read(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, MSG_DONTWAIT);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (!n) {
			return -ECONNRESET;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			net_own_push();
			poll(&pfd, 1, NET_READ_LOOK_MS);
		} else if (errno != EINTR) {
			return -errno;
		}
	}
	return 0;
}

/* Writes the iovecs whole (blocking), or -errno. */
static int write_iov(int fd, struct iovec *iov, int n)
{
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };

	while (m.msg_iovlen) {
		ssize_t k = sendmsg(fd, &m, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		while (m.msg_iovlen && (size_t)k >= m.msg_iov->iov_len) {
			k -= (ssize_t)m.msg_iov->iov_len;
			m.msg_iov++;
			m.msg_iovlen--;
		}
		if (m.msg_iovlen) {
			m.msg_iov->iov_base = (char *)m.msg_iov->iov_base + k;
			m.msg_iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

/*
 * The frame of @iov (its header first) into @c's ring, waiting for room
 * (the agent that reads it never waits on this side); one too long for the
 * ring goes on the socket after a marker.  c->lock held; 0 or -errno.
 */
static int ring_send(struct net_conn *c, struct iovec *iov, int n)
{
	const struct net_frame *f = iov[0].iov_base;
	int e;

	hy_mutex_assert_held(&c->lock);
	for (;;) {
		e = net_ring_put(c, f->tag, iov[1].iov_base, iov[1].iov_len,
				 n > 2 ? iov[2].iov_base : NULL,
				 n > 2 ? iov[2].iov_len : 0);
		if (e == -EMSGSIZE)
			e = net_ring_put(c, NET_TAG_ONSOCKET, NULL, 0, NULL, 0);
		else if (!e)
			return 0;
		if (!e)
			return write_iov(c->fd, iov, n);
		sched_yield();	/* -EAGAIN: full, until the agent reads */
	}
}

/* A kept copy of a frame of @tag: @a, then @b.  Out of memory, ends the job. */
struct net_unexp *net_frame_copy(uint32_t tag, const void *a, size_t alen,
				    const void *b, size_t blen)
{
	struct net_unexp *u = malloc(sizeof(*u) + alen + blen);

	if (!u)
		net_oom();
	*u = (struct net_unexp){ .tag = tag, .len = alen + blen };
	if (alen)
		memcpy(u->data, a, alen);
	if (blen)
		memcpy(u->data + alen, b, blen);
	return u;
}

/* Ends @r with @status; net.rx_lock held. */
static void recv_end(struct hy_nrecv *r, int status)
{
	r->status = status;
	r->done = true;
}

/*
 * Ends the poll() of a thread reading for all (rx_busy): a receive was
 * posted, or a frame to itself delivered, that it does not know of.
 * rx_lock held.
 */
static void rx_wake(void)
{
	uint64_t one = 1;

	if (net.rx_busy && write(net.rxwake, &one, sizeof(one)) < 0) {
		/* the counter is full: the poll ends anyway */
	}
}

/* Appends @r to @c's posted receives, or matches a kept frame; rx_lock held. */
static void post_locked(struct net_conn *c, struct hy_nrecv *r)
{
	struct net_unexp **u = &c->unexp;
	struct hy_nrecv **p = &c->posted;

	hy_mutex_assert_held(&net.rx_lock);
	for (; *u; u = &(*u)->next) {
		struct net_unexp *f = *u;

		if (f->tag != r->tag)
			continue;
		*u = f->next;
		r->len = f->len < r->cap ? f->len : r->cap;
		if (r->len)
			memcpy(r->buf, f->data, r->len);
		recv_end(r, f->len > r->cap ? -EMSGSIZE : 0);
		free(f);
		return;
	}
	if (c->gone) {
		recv_end(r, -ECONNRESET);
		return;
	}
	while (*p)
		p = &(*p)->next;
	*p = r;
	rx_wake();	/* a reader's poll must take this connection in */
}

static void recv_init(struct hy_nrecv *r, int peer, uint32_t tag, void *buf,
		      size_t cap)
{
	*r = (struct hy_nrecv){ .buf = buf, .cap = cap, .tag = tag,
				.peer = peer };
}

void net_own_post(struct hy_nrecv *r, int peer, uint32_t tag, void *buf,
		  size_t cap)
{
	recv_init(r, peer, tag, buf, cap);
	hy_mutex_lock(&net.rx_lock);
	post_locked(&net.out[peer], r);
	hy_mutex_unlock(&net.rx_lock);
}

/* @c's peer is gone: its receives fail; rx_lock held. */
static void out_gone(struct net_conn *c)
{
	hy_mutex_assert_held(&net.rx_lock);
	c->gone = true;
	while (c->posted) {
		struct hy_nrecv *r = c->posted;

		c->posted = r->next;
		recv_end(r, -ECONNRESET);
	}
}

int net_own_send(int peer, uint32_t tag, const void *a, size_t alen,
		 const void *b, size_t blen, struct hy_nrecv *r, void *rbuf,
		 size_t rcap, uint32_t rtag)
{
	struct net_conn *c = &net.out[peer];
	struct net_frame f = { .len = (uint32_t)(alen + blen), .tag = tag };
	struct iovec iov[3] = {
		{ &f, sizeof(f) }, { (void *)a, alen }, { (void *)b, blen },
	};
	int e = 0;

	if (r)
		recv_init(r, peer, rtag, rbuf, rcap);
	hy_mutex_lock(&c->lock);
	if (c->fd < 0 && !c->gone)
		e = net_connect(c);
	if (c->gone && !e)
		e = -ECONNRESET;
	if (r) {
		hy_mutex_lock(&net.rx_lock);
		if (e)
			recv_end(r, e);
		else
			post_locked(c, r);
		hy_mutex_unlock(&net.rx_lock);
	}
	if (!e)
		e = c->tx ? ring_send(c, iov, blen ? 3 : 2) :
			    write_iov(c->fd, iov, blen ? 3 : 2);
	hy_mutex_unlock(&c->lock);
	if (e && r) {
		hy_mutex_lock(&net.rx_lock);
		out_gone(c);	/* fails @r too: it is posted on @c */
		hy_mutex_unlock(&net.rx_lock);
	}
	return e;
}

/* The first receive posted on @c for @tag, taken off the list; rx_lock held. */
static struct hy_nrecv *posted_take(struct net_conn *c, uint32_t tag)
{
	for (struct hy_nrecv **p = &c->posted; *p; p = &(*p)->next) {
		struct hy_nrecv *r = *p;

		if (r->tag == tag) {
			*p = r->next;
			return r;
		}
	}
	return NULL;
}

/*
 * Reads one frame from @c and delivers it; rx_busy is this thread's (so
 * nobody else reads), rx_lock not held.
 */
static void read_frame(struct net_conn *c)
{
	struct net_frame f;
	struct net_unexp *u = NULL;
	struct hy_nrecv *r;
	int e = net_read(c->fd, &f, sizeof(f));

	hy_mutex_lock(&net.rx_lock);
	r = e ? NULL : posted_take(c, f.tag);
	hy_mutex_unlock(&net.rx_lock);
	if (!e && r) {
		size_t keep = f.len < r->cap ? f.len : r->cap;

		e = net_read(c->fd, r->buf, keep);
		for (size_t rest = f.len - keep; !e && rest;) {
			char sink[256];
			size_t k = rest < sizeof(sink) ? rest : sizeof(sink);

			e = net_read(c->fd, sink, k);
			rest -= k;
		}
		r->len = keep;
	} else if (!e) {
		u = malloc(sizeof(*u) + f.len);
		if (!u)
			net_oom();
		u->tag = f.tag;
		u->len = f.len;
		u->next = NULL;
		e = net_read(c->fd, u->data, f.len);
	}
	hy_mutex_lock(&net.rx_lock);
	if (r)
		recv_end(r, e ? e : f.len > r->cap ? -EMSGSIZE : 0);
	if (u && !e) {
		struct net_unexp **p = &c->unexp;

		while (*p)
			p = &(*p)->next;
		*p = u;
		u = NULL;
	}
	if (e)
		out_gone(c);
	hy_mutex_unlock(&net.rx_lock);
	free(u);
}

/* Frame @f (@data) from @c's ring to its receive, or kept; rx_busy ours. */
static void ring_deliver(struct net_conn *c, const struct net_frame *f,
			 const char *data)
{
	struct net_unexp *u;
	struct hy_nrecv *r;

	hy_mutex_lock(&net.rx_lock);
	r = posted_take(c, f->tag);
	if (r) {
		r->len = f->len < r->cap ? f->len : r->cap;
		if (r->len)
			memcpy(r->buf, data, r->len);
		recv_end(r, f->len > r->cap ? -EMSGSIZE : 0);
	} else {
		struct net_unexp **p = &c->unexp;

		u = net_frame_copy(f->tag, data, f->len, NULL, 0);
		while (*p)
			p = &(*p)->next;
		*p = u;
	}
	hy_mutex_unlock(&net.rx_lock);
}

/* Reads what @c's ring holds; rx_busy ours.  False: the peer is gone. */
static bool ring_reads(struct net_conn *c)
{
	struct net_frame f;
	int got;

	while ((got = net_ring_get(c, &f, &net.rxbuf, &net.rxbuf_cap)) > 0)
		ring_deliver(c, &f, net.rxbuf);
	return got == 0;
}

int net_own_test(struct hy_nrecv *r, int wait_ms)
{
	struct pollfd pfd[NET_POLL_MAX + 2];
	struct net_conn *conn[NET_POLL_MAX];
	struct net_conn **set = NULL;
	int n = 0, got = 0, sockets = 0, nset = 0;
	bool ready = false;

	hy_mutex_lock(&net.rx_lock);
	if (r->done || net.rx_busy)	/* another thread reads for all */
		goto out;
	net.rx_busy = true;
	for (int p = 0; p < net.size && n < NET_POLL_MAX; p++) {
		struct net_conn *c = &net.out[p];

		if (!c->posted || c->fd < 0)
			continue;
		pfd[n] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
		conn[n++] = c;
		sockets += !c->tx;
	}
	hy_mutex_unlock(&net.rx_lock);
	/* the rings first: no system call */
	for (int k = 0; k < n; k++) {
		if (conn[k]->tx && !ring_reads(conn[k])) {
			hy_mutex_lock(&net.rx_lock);
			out_gone(conn[k]);
			hy_mutex_unlock(&net.rx_lock);
		}
	}
	hy_mutex_lock(&net.rx_lock);
	ready = r->done;
	hy_mutex_unlock(&net.rx_lock);
	if (net_rings_ready())
		got |= HY_NET_INCOMING;
	/* sockets: one poll() for the replies, the agent's side and wakes */
	if (!ready && (sockets || wait_ms || !(++net.looks % NET_LOOK_GAP))) {
		if (wait_ms) {
			set = net_sleep_set();
			nset = net_rings_sleep(set);
			if (net_rings_ready())
				wait_ms = 0;
			for (int k = 0; k < n && wait_ms; k++)
				if (net_ring_ready(conn[k]))
					wait_ms = 0;
		}
		pfd[n] = (struct pollfd){ .fd = net.ep, .events = POLLIN };
		pfd[n + 1] = (struct pollfd){ .fd = net.rxwake,
					      .events = POLLIN };
		if (poll(pfd, (nfds_t)n + 2, wait_ms) > 0) {
			uint64_t v;

			for (int k = 0; k < n; k++) {
				if (!pfd[k].revents)
					continue;
				if (!conn[k]->tx)
					read_frame(conn[k]);
				else if (!net_ring_bells(conn[k]) ||
					 !ring_reads(conn[k])) {
					hy_mutex_lock(&net.rx_lock);
					out_gone(conn[k]);
					hy_mutex_unlock(&net.rx_lock);
				}
			}
			if (pfd[n].revents)
				got |= HY_NET_INCOMING;
			if (pfd[n + 1].revents &&
			    read(net.rxwake, &v, sizeof(v)) < 0) {
				/* drained by an earlier read */
			}
		}
		if (set)
			net_rings_wake(set, nset);
		free(set);
		if (net_rings_ready())
			got |= HY_NET_INCOMING;
	}
	hy_mutex_lock(&net.rx_lock);
	net.rx_busy = false;
out:
	if (r->done)
		got |= HY_NET_DONE;
	hy_mutex_unlock(&net.rx_lock);
	return got;
}

/*
 * A frame from this process's agent to itself (a grant of its own part's
 * lock, which it asked for without a message): to the receive posted for
 * it, or kept for one.
 */
void net_deliver_self(uint32_t tag, const void *a, size_t alen,
			 const void *b, size_t blen)
{
	struct net_conn *c = &net.out[net.me];
	struct net_unexp *u;
	struct hy_nrecv *r;

	hy_mutex_lock(&net.rx_lock);
	r = posted_take(c, tag);
	if (r && alen + blen <= r->cap) {
		if (alen)
			memcpy(r->buf, a, alen);
		if (blen)
			memcpy((char *)r->buf + alen, b, blen);
		r->len = alen + blen;
		recv_end(r, 0);
	} else if (r) {
		recv_end(r, -EMSGSIZE);
	} else {
		u = net_frame_copy(tag, a, alen, b, blen);
		u->next = c->unexp;	/* a grant: the only kind, so no order */
		c->unexp = u;
	}
	rx_wake();
	hy_mutex_unlock(&net.rx_lock);
}

