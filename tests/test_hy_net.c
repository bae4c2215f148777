// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the agents' frames (hybrid/net_io.c) over socket
 * pairs, with no MPI: receives match the first frame of their tag from
 * their peer, in posting order; a frame that comes first is kept for its
 * receive; a frame longer than its receive fails it and leaves the stream
 * in step; a peer that is gone fails what waits for it; a reader's poll
 * takes in a receive another thread posts meanwhile; the agent's replies
 * never block, queue what the socket does not take and arrive whole and in
 * order; the agent reads frames, wakes, and sees a peer go, asleep or
 * polling at its pace (which grows while it finds nothing); a frame to
 * itself reaches its receive whichever comes first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../hybrid/locks.c"
#include "../hybrid/net_io.c"
#include "../hybrid/net_ring.c"
#include "../hybrid/net_serve.c"
#include "../hybrid/pace.c"

#include "unit_check.h"

#define PEERS	3

struct net_state net = {
	.ep = -1, .evfd = -1, .lunix = -1, .ltcp = -1, .rxwake = -1,
	.rx_lock = HY_MUTEX_INIT(HY_LOCK_NET_RX),
};

/* The waits' loop (waits.c's hy_wait_net, without serving): @r's status. */
static int wait_for(struct hy_nrecv *r)
{
	while (!(net_own_test(r, -1) & HY_NET_DONE))
		;
	return r->status;
}

/* net.c's, here: connections are made by the test. */
int net_connect(struct net_conn *c)
{
	c->gone = true;
	return -ECONNREFUSED;
}

void net_accept(int lfd)
{
	(void)lfd;
}

bool net_hello(struct net_conn *c)
{
	c->hello = true;
	return true;
}

void net_close(struct net_conn *c, bool agent)
{
	if (agent)
		epoll_ctl(net.ep, EPOLL_CTL_DEL, c->fd, NULL);
	c->gone = true;
	close(c->fd);
	c->fd = -1;
}

void net_oom(void)
{
	abort();
}

static struct net_conn out[PEERS], *in[PEERS];
static int far[PEERS];		/* the other end of out[p] */

/* Writes a frame of @tag with @s's bytes on @fd. */
static void frame(int fd, uint32_t tag, const char *s)
{
	struct net_frame f = { .len = (uint32_t)strlen(s), .tag = tag };

	if (write(fd, &f, sizeof(f)) != sizeof(f) ||
	    write(fd, s, f.len) != (ssize_t)f.len)
		abort();
}

static void setup_origin(void)
{
	net.me = 0;
	net.size = PEERS;
	net.out = out;
	net.in = in;
	net.rxwake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	net.ep = epoll_create1(EPOLL_CLOEXEC);
	net.evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	epoll_ctl(net.ep, EPOLL_CTL_ADD, net.evfd, &(struct epoll_event){
		  .events = EPOLLIN, .data.ptr = &net.evfd });
	for (int p = 0; p < PEERS; p++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			abort();
		hy_mutex_init(&out[p].lock, HY_LOCK_NET_CONN);
		out[p].fd = sv[0];
		out[p].peer = p;
		far[p] = sv[1];
	}
}

static void test_matching(void)
{
	struct hy_nrecv r1, r2, r3, r4;
	char b1[16] = "", b2[16] = "", b3[4] = "", b4[16] = "", got[16];
	struct net_frame f;

	check(net_own_send(1, 0, "ab", 2, "c", 1, &r1, b1, sizeof(b1), 1) == 0,
	      "a send on a connection", 0, 0);
	check(read(far[1], &f, sizeof(f)) == sizeof(f) && f.len == 3 &&
	      f.tag == 0, "its frame: header", f.len, f.tag);
	check(read(far[1], got, 3) == 3 && !memcmp(got, "abc", 3),
	      "its frame: both parts, in order", 0, 0);
	net_own_post(&r2, 1, 7, b2, sizeof(b2));
	frame(far[1], 9, "kept");	/* nobody asked for 9 yet */
	frame(far[1], 7, "grant");
	frame(far[1], 1, "reply");
	check(wait_for(&r1) == 0 && r1.len == 5 && !strcmp(b1, "reply"),
	      "the reply reaches its receive", (long)r1.len, 5);
	check(r2.done && r2.status == 0 && !strcmp(b2, "grant"),
	      "a frame for another receive, read meanwhile, reaches it",
	      r2.done, 1);
	net_own_post(&r4, 1, 9, b4, sizeof(b4));
	check(r4.done && !strcmp(b4, "kept"),
	      "a frame that came first waits for its receive", r4.done, 1);

	/* too long: the receive fails, the stream stays in step */
	net_own_post(&r3, 1, 1, b3, sizeof(b3));
	net_own_post(&r4, 1, 1, b4, sizeof(b4));
	frame(far[1], 1, "toolong");
	frame(far[1], 1, "next");
	check(wait_for(&r3) == -EMSGSIZE, "a frame longer than its receive",
	      r3.status, -EMSGSIZE);
	check(wait_for(&r4) == 0 && !strcmp(b4, "next"),
	      "the next frame is read whole", r4.status, 0);
}

static void test_gone(void)
{
	struct hy_nrecv r;
	char b[8];

	net_own_post(&r, 2, 1, b, sizeof(b));
	close(far[2]);
	check(wait_for(&r) == -ECONNRESET, "a peer gone fails its receive",
	      r.status, -ECONNRESET);
	net_own_post(&r, 2, 1, b, sizeof(b));
	check(r.done && r.status == -ECONNRESET,
	      "a receive posted after it fails at once", r.status, -ECONNRESET);
	check(net_own_send(2, 0, "x", 1, NULL, 0, &r, b, sizeof(b), 1) ==
	      -ECONNRESET && r.done, "and a send to it", r.status, 0);
}

static struct hy_nrecv thr_r;
static char thr_b[16];
static int thr_ret = 1;
static bool other_first;

/* Posts and waits on peer 0 while the main thread reads for peer 1. */
static void *second_waiter(void *unused)
{
	(void)unused;
	usleep(50000);
	net_own_post(&thr_r, 0, 3, thr_b, sizeof(thr_b));
	__atomic_store_n(&thr_ret, wait_for(&thr_r), __ATOMIC_RELEASE);
	return NULL;
}

/* Writes peer 0's frame, and peer 1's once the second waiter has it. */
static void *writer(void *unused)
{
	(void)unused;
	usleep(150000);
	frame(far[0], 3, "other");
	for (int k = 0; k < 200 && __atomic_load_n(&thr_ret, __ATOMIC_ACQUIRE);
	     k++)
		usleep(10000);
	other_first = !__atomic_load_n(&thr_ret, __ATOMIC_ACQUIRE);
	frame(far[1], 4, "mine");
	return NULL;
}

static void test_threads(void)
{
	struct hy_nrecv r;
	pthread_t t, w;
	char b[16] = "";

	net_own_post(&r, 1, 4, b, sizeof(b));
	pthread_create(&t, NULL, second_waiter, NULL);
	pthread_create(&w, NULL, writer, NULL);
	check(wait_for(&r) == 0 && !strcmp(b, "mine"),
	      "the reader's own receive", r.status, 0);
	pthread_join(t, NULL);
	pthread_join(w, NULL);
	check(other_first && !strcmp(thr_b, "other"),
	      "a receive posted while another thread reads is read at once",
	      other_first, 1);
}

static void test_self(void)
{
	struct hy_nrecv r;
	char b[8] = "";

	net_own_reply(0, 5, "me", 2, NULL, 0);
	net_own_post(&r, 0, 5, b, sizeof(b));
	check(r.done && !strcmp(b, "me"), "a frame to itself, then its receive",
	      r.done, 1);
	memset(b, 0, sizeof(b));
	net_own_post(&r, 0, 6, b, sizeof(b));
	net_own_reply(0, 6, "m", 1, "e", 1);
	check(wait_for(&r) == 0 && !strcmp(b, "me"),
	      "a receive, then the frame to itself", r.status, 0);
}

static int seen_origin;
static char seen[16];
static size_t seen_len;

static int got_frame(int origin, uint32_t tag, void *data, size_t len)
{
	(void)tag;
	seen_origin = origin;
	seen_len = len < sizeof(seen) ? len : sizeof(seen);
	if (data)
		memcpy(seen, data, seen_len);
	return origin >= 0;
}

/* net_own_drain() until it looks at the sockets (every NET_LOOK_GAP). */
static int drain(void)
{
	int served = 0;

	for (int k = 0; k < NET_LOOK_GAP; k++)
		served += net_own_drain(got_frame);
	return served;
}

/* The agent's pace: none after a frame, then longer, within its bounds. */
static void test_pace(void)
{
	struct hy_pace p = HY_PACE_INIT;
	struct timespec ts;
	long long first = 0, most = 0;
	int within = 1;

	check(!hy_pace_next(&p, true, &ts), "no sleep after a frame", 0, 0);
	for (int k = 0; k < 24; k++) {
		check(hy_pace_next(&p, false, &ts), "an idle agent sleeps",
		      0, 1);
		within &= ts.tv_sec == 0 && ts.tv_nsec >= HY_PACE_MIN_NS &&
			  ts.tv_nsec <= HY_PACE_MAX_NS;
		if (!k)
			first = ts.tv_nsec;
		if (ts.tv_nsec > most)
			most = ts.tv_nsec;
	}
	check(within, "its sleeps stay within their bounds", within, 1);
	check(most > first, "and grow while it finds nothing", most, first);
	check(!hy_pace_next(&p, true, &ts), "a frame ends the pace", 0, 0);
	hy_pace_next(&p, false, &ts);
	check(ts.tv_nsec < most, "the next sleep is short again",
	      (long)ts.tv_nsec, most);
}

static void test_agent(void)
{
	static char big[4096];
	struct net_conn *c = calloc(1, sizeof(*c));
	int sv[2], small = 4096, frames = 64, ok = 1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || !c)
		abort();
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	hy_mutex_init(&c->lock, HY_LOCK_NET_CONN);
	c->fd = sv[0];
	c->peer = 1;
	c->hello = true;
	in[1] = c;
	epoll_ctl(net.ep, EPOLL_CTL_ADD, c->fd, &(struct epoll_event){
		  .events = EPOLLIN, .data.ptr = c });

	/* replies the origin does not read yet: queued, never blocking */
	for (int k = 0; k < frames; k++) {
		memset(big, 'a' + k % 26, sizeof(big));
		net_own_reply(1, (uint32_t)k, big, sizeof(big), NULL, 0);
	}
	check(c->outlen > c->outoff, "what the socket does not take is queued",
	      (long)(c->outlen - c->outoff), 1);
	/* the origin reads; the agent sends the rest as epoll says it may */
	for (int k = 0; k < frames && ok; k++) {
		struct net_frame f;

		while (recv(sv[1], &f, sizeof(f), MSG_DONTWAIT) != sizeof(f)) {
			hy_mutex_lock(&c->lock);
			out_flush(c);
			hy_mutex_unlock(&c->lock);
		}
		for (size_t got = 0; got < sizeof(big);) {
			ssize_t n = recv(sv[1], big + got, sizeof(big) - got,
					 MSG_DONTWAIT);

			if (n > 0)
				got += (size_t)n;
			hy_mutex_lock(&c->lock);
			out_flush(c);
			hy_mutex_unlock(&c->lock);
		}
		ok = f.tag == (uint32_t)k && f.len == sizeof(big) &&
		     big[0] == 'a' + k % 26 && big[sizeof(big) - 1] == big[0];
	}
	check(ok, "queued replies arrive whole and in order", ok, 1);

	frame(sv[1], 0, "op");
	net_own_sleep(false);
	check(drain() == 1 &&
	      seen_origin == 1 && seen_len == 2 && !memcmp(seen, "op", 2),
	      "the agent reads a frame", seen_origin, 1);
	check(drain() == 0, "nothing is left to drain", 0, 0);
	net_own_wake();
	net_own_sleep(false);
	check(drain() == 0 && seen_origin == -1,
	      "a wake reaches the drain", seen_origin, -1);
	/* paced (CPUs short): a socket's frame or a wake ends the sleep */
	frame(sv[1], 0, "op");
	net_own_sleep(true);
	check(drain() == 1 && seen_origin == 1,
	      "a paced agent reads a frame", seen_origin, 1);
	net_own_sleep(true);	/* nothing there: its pace, then back */
	net_own_wake();
	net_own_sleep(true);
	check(drain() == 0 && seen_origin == -1,
	      "a wake reaches a paced agent", seen_origin, -1);
	close(sv[1]);
	net_own_sleep(false);
	drain();
	check(c->gone, "an origin gone is closed, the agent goes on",
	      c->gone, 1);
	net_own_reply(1, 0, "x", 1, NULL, 0);	/* to one gone: dropped */
	free(c->out);
	free(c);
	free(net.inbox);
}

/* The rings of a connection within one machine, both sides here. */
static void test_rings(void)
{
	struct net_conn o = { .lock = HY_MUTEX_INIT(HY_LOCK_NET_CONN) };
	struct net_conn a = { .lock = HY_MUTEX_INIT(HY_LOCK_NET_CONN) };
	static char big[NET_RING_BYTES / 2];
	char *buf = NULL;
	size_t cap = 0;
	struct net_frame f;
	int sv[2], mfd, ok = 1, k, e = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	o.fd = sv[0];
	a.fd = sv[1];
	mfd = net_ring_create(&o);
	check(mfd >= 0 && net_ring_attach(&a, mfd), "rings made and mapped",
	      mfd, 0);
	hy_mutex_lock(&o.lock);
	/* many frames of odd lengths: the ring wraps many times */
	for (k = 0; k < 20000 && ok; k++) {
		char m[40];
		int len = 1 + k % 37;

		memset(m, 'a' + k % 26, sizeof(m));
		ok = net_ring_put(&o, (uint32_t)k, m, (size_t)len / 2, m + len / 2,
				  (size_t)(len - len / 2)) == 0 &&
		     net_ring_get(&a, &f, &buf, &cap) == 1 && f.tag == (uint32_t)k &&
		     f.len == (uint32_t)len && buf[0] == 'a' + k % 26 &&
		     buf[len - 1] == buf[0];
	}
	check(ok, "frames through a ring, in order, across its wrap", k, 20000);
	check(net_ring_get(&a, &f, &buf, &cap) == 0, "an empty ring", 0, 0);
	check(net_ring_put(&o, 1, big, sizeof(big), NULL, 0) == -EMSGSIZE,
	      "a frame too long for the ring", 0, 0);
	for (k = 0; k < 8 && !e; k++)
		e = net_ring_put(&o, 2, big, NET_RING_BYTES / 4 - 64, NULL, 0);
	check(e == -EAGAIN, "a full ring says so", e, -EAGAIN);
	while (net_ring_get(&a, &f, &buf, &cap) == 1)
		;
	/* a sleeping consumer gets a bell on the socket */
	net_ring_sleep(&a, true);
	check(net_ring_put(&o, 3, "x", 1, NULL, 0) == 0 &&
	      recv(a.fd, &f, sizeof(f), MSG_PEEK | MSG_DONTWAIT) == sizeof(f) &&
	      f.tag == NET_TAG_BELL, "a sleeping reader is rung", 0, 0);
	check(net_ring_bells(&a) && recv(a.fd, &f, sizeof(f), MSG_DONTWAIT) < 0,
	      "bells are taken off the socket", 0, 0);
	/* a frame too long: a marker in the ring, the frame on the socket */
	check(net_ring_put(&o, NET_TAG_ONSOCKET, NULL, 0, NULL, 0) == 0 &&
	      write(o.fd, &(struct net_frame){ .len = 4, .tag = 9 }, 8) == 8 &&
	      write(o.fd, "long", 4) == 4, "marker and frame sent", 0, 0);
	net_ring_get(&a, &f, &buf, &cap);	/* the "x" frame first */
	check(net_ring_get(&a, &f, &buf, &cap) == 1 && f.tag == 9 &&
	      f.len == 4 && !memcmp(buf, "long", 4),
	      "a marked frame is read off the socket", f.tag, 9);
	hy_mutex_unlock(&o.lock);
	close(sv[1]);
	check(!net_ring_bells(&o) || recv(o.fd, &f, 1, MSG_DONTWAIT) == 0,
	      "a peer gone shows as end of file", 0, 0);
	net_ring_free(&o);
	net_ring_free(&a);
	close(sv[0]);
	free(buf);
}

int main(void)
{
	setenv("MPIRMA_LOCK_CHECK", "1", 1);
	hy_locks_init();
	alarm(20);	/* a hang fails the test */
	signal(SIGPIPE, SIG_IGN);
	setup_origin();
	test_matching();
	test_gone();
	test_threads();
	test_self();
	test_pace();
	test_agent();
	test_rings();
	return unit_summary();
}
