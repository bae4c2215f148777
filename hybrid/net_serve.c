// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net_serve.c - the agent's side of its transport (net.h): replies that
 * never block (a backlog for a full ring, a queue for a socket that takes
 * no more, sent as epoll says it can), its sleep, and the drains that
 * serve what has come, rings first.  The origin's side is net_io.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net_conn.h"
#include "pace.h"

#define NET_DRAIN_MAX	16	/* events one net_own_drain() takes, at most */

static bool drained;	/* the agent's last drain served a frame (atomic) */

/* Sends what waits in @c's queue, as much as the socket takes; c->lock held. */
static void out_flush(struct net_conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

	hy_mutex_assert_held(&c->lock);
	while (c->outoff < c->outlen && !c->gone) {
		ssize_t k = send(c->fd, c->out + c->outoff,
				 c->outlen - c->outoff,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (k < 0) {
			c->outlen = c->outoff = 0;	/* read side sees EOF */
			break;
		}
		c->outoff += (size_t)k;
	}
	if (c->outoff == c->outlen)
		c->outlen = c->outoff = 0;
	/* epoll's interest changes only when the queue fills or empties */
	if (!c->gone && c->want_out != (c->outlen != 0)) {
		/* net_own_push reads it without the lock */
		__atomic_store_n(&c->want_out, c->outlen != 0,
				 __ATOMIC_RELAXED);
		if (c->want_out)
			ev.events |= EPOLLOUT;
		epoll_ctl(net.ep, EPOLL_CTL_MOD, c->fd, &ev);
	}
}

void net_own_push(void)
{
	for (int p = 0; p < net.size; p++) {
		struct net_conn *c = __atomic_load_n(&net.in[p],
						     __ATOMIC_ACQUIRE);

		if (!c || !__atomic_load_n(&c->want_out, __ATOMIC_RELAXED))
			continue;
		hy_mutex_lock(&c->lock);
		out_flush(c);
		hy_mutex_unlock(&c->lock);
	}
}

/* Appends @len bytes of @p to @c's queue; c->lock held.  Out of memory, ends the job. */
static void out_queue(struct net_conn *c, const void *p, size_t len)
{
	if (c->outlen + len > c->outcap) {
		size_t cap = c->outcap ? c->outcap : 4096;
		char *q;

		if (c->outoff) {	/* what was sent makes room first */
			memmove(c->out, c->out + c->outoff,
				c->outlen - c->outoff);
			c->outlen -= c->outoff;
			c->outoff = 0;
		}
		while (cap < c->outlen + len)
			cap *= 2;
		q = cap > c->outcap ? realloc(c->out, cap) : c->out;
		if (!q)
			net_oom();
		c->out = q;
		c->outcap = cap > c->outcap ? cap : c->outcap;
	}
	memcpy(c->out + c->outlen, p, len);
	c->outlen += len;
}

static void backlog_flush(struct net_conn *c);

/* Appends a frame of @tag (@a, then @b) to @c's backlog; c->lock held. */
static void backlog_add(struct net_conn *c, uint32_t tag, const void *a,
			size_t alen, const void *b, size_t blen)
{
	struct net_unexp *u = net_frame_copy(tag, a, alen, b, blen), **p;

	for (p = &c->backlog; *p; p = &(*p)->next)
		;
	*p = u;
}

void net_own_reply(int origin, uint32_t tag, const void *a, size_t alen,
		   const void *b, size_t blen)
{
	struct net_conn *c = __atomic_load_n(&net.in[origin], __ATOMIC_ACQUIRE);
	struct net_frame f = { .len = (uint32_t)(alen + blen), .tag = tag };

	if (origin == net.me) {
		net_deliver_self(tag, a, alen, b, blen);
		return;
	}
	if (!c)		/* it never connected: nothing asked for this */
		return;
	hy_mutex_lock(&c->lock);
	if (c->gone) {
		/* nobody to answer */
	} else if (c->tx) {
		backlog_add(c, tag, a, alen, b, blen);
		backlog_flush(c);
	} else {
		bool idle = c->outlen == 0;

		out_queue(c, &f, sizeof(f));
		if (alen)
			out_queue(c, a, alen);
		if (blen)
			out_queue(c, b, blen);
		if (idle)
			out_flush(c);
	}
	hy_mutex_unlock(&c->lock);
}

/*
 * The agent's frames to a connection with rings (@c->tx) never wait: one
 * that finds no room waits in @c->backlog, in order, until a drain finds
 * room (backlog_flush); one too long for the ring goes on the socket's
 * queue after a marker.  c->lock held.
 */
static void backlog_flush(struct net_conn *c)
{
	hy_mutex_assert_held(&c->lock);
	while (c->backlog) {
		struct net_unexp *u = c->backlog;
		int e = net_ring_put(c, u->tag, u->data, u->len, NULL, 0);

		if (e == -EMSGSIZE) {
			struct net_frame f = { .len = (uint32_t)u->len,
					       .tag = u->tag };
			bool idle = c->outlen == 0;

			e = net_ring_put(c, NET_TAG_ONSOCKET, NULL, 0, NULL, 0);
			if (e)
				return;	/* no room for the marker yet */
			out_queue(c, &f, sizeof(f));
			out_queue(c, u->data, u->len);
			if (idle)
				out_flush(c);
		} else if (e) {
			return;
		}
		c->backlog = u->next;
		free(u);
	}
}

void net_own_wake(void)
{
	uint64_t one = 1;

	if (write(net.evfd, &one, sizeof(one)) < 0) {
		/* the counter is full: the agent is woken anyway */
	}
}

/* Reads @c's next frame into net.inbox; false: @c is gone (closed). */
static bool next_frame(struct net_conn *c, uint32_t *tag, size_t *len)
{
	struct net_frame f;

	if (net_read(c->fd, &f, sizeof(f)))
		goto gone;
	if (f.len > net.inbox_cap) {
		char *q = realloc(net.inbox, f.len);

		if (!q)
			net_oom();
		net.inbox = q;
		net.inbox_cap = f.len;
	}
	if (net_read(c->fd, net.inbox, f.len))
		goto gone;
	*tag = f.tag;
	*len = f.len;
	return true;
gone:
	net_close(c, true);
	return false;
}

/*
 * A paced sleep (pace.h) that the sockets end early: the wakes, the
 * connections, the frames that do not fit a ring, and the bells rung while
 * a waiting program thread marked the rings asleep.
 */
static void paced_sleep(const struct timespec *ts)
{
	struct epoll_event ev;

	if (epoll_pwait2(net.ep, &ev, 1, ts, NULL) < 0 && errno == ENOSYS)
		nanosleep(ts, NULL);	/* before Linux 5.11 */
}

/*
 * @paced (transport.c: where ranks outnumber the node's CPUs, while a
 * window spans nodes): a bell would be a thread's wake-up through the
 * kernel for every frame, each taking a CPU from a rank, so the agent
 * polls its rings at its pace instead, as on the host's transport.
 * Otherwise it sleeps until a frame rings.
 */
void net_own_sleep(bool paced)
{
	static struct hy_pace pace = HY_PACE_INIT;	/* the agent's alone */
	struct net_conn **set;
	struct epoll_event ev;
	struct timespec ts;
	int n;

	if (paced) {
		if (hy_pace_next(&pace, __atomic_load_n(&drained,
							__ATOMIC_RELAXED),
				 &ts) && !net_rings_ready())
			paced_sleep(&ts);
		return;
	}
	hy_pace_reset(&pace);
	set = net_sleep_set();
	n = net_rings_sleep(set);
	/* the rings' producers ring the bell while these are asleep */
	if (!net_rings_ready()) {
		/* level-triggered: what woke it stays ready for the drain */
		while (epoll_wait(net.ep, &ev, 1, -1) < 0 && errno == EINTR)
			;
	}
	net_rings_wake(set, n);
	free(set);
}

/* Serves what the rings of the agent's connections hold (a few at most). */
static int drain_rings(hy_net_frame_fn *frame, int *budget)
{
	int served = 0;

	for (int p = 0; p < net.size && *budget > 0; p++) {
		struct net_conn *c = __atomic_load_n(&net.in[p],
						     __ATOMIC_ACQUIRE);
		struct net_frame f;

		if (!c || c->gone || !c->rx)
			continue;
		if (c->backlog) {
			hy_mutex_lock(&c->lock);
			backlog_flush(c);
			hy_mutex_unlock(&c->lock);
		}
		while (*budget > 0 &&
		       net_ring_get(c, &f, &net.inbox, &net.inbox_cap) > 0) {
			served += frame(c->peer, f.tag, net.inbox, f.len);
			--*budget;
		}
	}
	return served;
}

int net_own_drain(hy_net_frame_fn *frame)
{
	struct epoll_event ev[NET_DRAIN_MAX];
	int n, served, budget = NET_DRAIN_MAX;
	static unsigned int looks;

	served = drain_rings(frame, &budget);
	/*
	 * The sockets every NET_LOOK_GAP drains where frames come in rings
	 * (they carry connections, bells and long frames), every drain where
	 * they may come over TCP.
	 */
	if (net.ltcp < 0 && ++looks % NET_LOOK_GAP)
		goto out;
	n = epoll_wait(net.ep, ev, NET_DRAIN_MAX, 0);
	for (int k = 0; k < n; k++) {
		struct net_conn *c = ev[k].data.ptr;
		uint32_t tag;
		size_t len;

		if (ev[k].data.ptr == &net.evfd) {
			uint64_t v;

			if (read(net.evfd, &v, sizeof(v)) > 0)
				served += frame(-1, 0, NULL, 0);
			continue;
		}
		if (ev[k].data.ptr == &net.lunix || ev[k].data.ptr == &net.ltcp) {
			net_accept(*(int *)ev[k].data.ptr);
			continue;
		}
		if (ev[k].events & EPOLLOUT) {
			hy_mutex_lock(&c->lock);
			out_flush(c);
			hy_mutex_unlock(&c->lock);
		}
		if (!(ev[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
			continue;
		if (!c->hello)
			net_hello(c);
		else if (c->rx && !net_ring_bells(c))
			net_close(c, true);
		else if (!c->rx && next_frame(c, &tag, &len))
			served += frame(c->peer, tag, net.inbox, len);
	}
	served += drain_rings(frame, &budget);
out:
	__atomic_store_n(&drained, served > 0, __ATOMIC_RELAXED);
	return served;
}
