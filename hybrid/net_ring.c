// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net_ring.c - frames in shared memory between two processes of one
 * machine (net_conn.h): the connection's socket carries only what does
 * not fit a ring (a marker in the ring says a frame is on the socket) and
 * bells, frames of no bytes that wake a consumer that sleeps.  A ring is
 * one producer's and one consumer's: head is the consumer's, tail the
 * producer's, each read by the other with acquire and written with
 * release.  Frames in a ring cost no system call, where under emulation
 * each one a socket needs costs several microseconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net_conn.h"

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void ring_write(struct net_ring *r, uint64_t at, const void *src,
		       size_t n)
{
	size_t off = at % NET_RING_BYTES, first = NET_RING_BYTES - off;

	if (!n)
		return;
	if (first >= n) {
		memcpy(r->data + off, src, n);
		return;
	}
	memcpy(r->data + off, src, first);
	memcpy(r->data, (const char *)src + first, n - first);
}

static void ring_read(const struct net_ring *r, uint64_t at, void *dst,
		      size_t n)
{
	size_t off = at % NET_RING_BYTES, first = NET_RING_BYTES - off;

	if (!n)
		return;
	if (first >= n) {
		memcpy(dst, r->data + off, n);
		return;
	}
	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, n - first);
}

/* Wakes @c's consumer if it sleeps: a bell on the socket. */
static void ring_bell(struct net_conn *c, struct net_ring *r)
{
	static const struct net_frame bell = { .tag = NET_TAG_BELL };

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* a queue being sent (large frames, marked in the ring) wakes it too */
	if (!__atomic_load_n(&r->asleep, __ATOMIC_SEQ_CST) || c->fd < 0 ||
	    c->outlen)
		return;
	if (send(c->fd, &bell, sizeof(bell), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* full: the consumer has bytes to read anyway */
	}
}

int net_ring_put(struct net_conn *c, uint32_t tag, const void *a, size_t alen,
		 const void *b, size_t blen)
{
	struct net_ring *r = c->tx;
	struct net_frame f = { .len = (uint32_t)(alen + blen), .tag = tag };
	size_t need = sizeof(f) + pad8(alen + blen);
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->tail;

	if (need > NET_RING_BYTES / 4)
		return -EMSGSIZE;
	if (NET_RING_BYTES - (tail - head) < need)
		return -EAGAIN;
	ring_write(r, tail, &f, sizeof(f));
	ring_write(r, tail + sizeof(f), a, alen);
	ring_write(r, tail + sizeof(f) + alen, b, blen);
	__atomic_store_n(&r->tail, tail + need, __ATOMIC_RELEASE);
	ring_bell(c, r);
	return 0;
}

bool net_ring_ready(const struct net_conn *c)
{
	const struct net_ring *r = c->rx;

	return r && __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) != r->head;
}

/*
 * Reads a frame off @c's socket into *@buf (grown to *@cap), skipping
 * bells; 0 or -errno.
 */
static int socket_frame(struct net_conn *c, struct net_frame *f, char **buf,
			size_t *cap)
{
	int e;

	do
		e = net_read(c->fd, f, sizeof(*f));
	while (!e && f->tag == NET_TAG_BELL);
	if (e)
		return e;
	if (f->len > *cap) {
		char *q = realloc(*buf, f->len);

		if (!q)
			net_oom();
		*buf = q;
		*cap = f->len;
	}
	return net_read(c->fd, *buf, f->len);
}

int net_ring_get(struct net_conn *c, struct net_frame *f, char **buf,
		 size_t *cap)
{
	struct net_ring *r = c->rx;
	uint64_t head = r->head;

	if (__atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == head)
		return 0;
	ring_read(r, head, f, sizeof(*f));
	if (f->tag == NET_TAG_ONSOCKET) {
		__atomic_store_n(&r->head, head + sizeof(*f), __ATOMIC_RELEASE);
		return socket_frame(c, f, buf, cap) ? -ECONNRESET : 1;
	}
	if (f->len > *cap) {
		char *q = realloc(*buf, f->len);

		if (!q)
			net_oom();
		*buf = q;
		*cap = f->len;
	}
	ring_read(r, head + sizeof(*f), *buf, f->len);
	__atomic_store_n(&r->head, head + sizeof(*f) + pad8(f->len),
			 __ATOMIC_RELEASE);
	return 1;
}

bool net_ring_bells(struct net_conn *c)
{
	struct net_frame f;
	ssize_t n;

	while ((n = recv(c->fd, &f, sizeof(f), MSG_DONTWAIT | MSG_PEEK)) ==
	       sizeof(f) && f.tag == NET_TAG_BELL)
		if (recv(c->fd, &f, sizeof(f), MSG_DONTWAIT) != sizeof(f))
			break;
	/* end of file: the peer is gone */
	return n != 0;
}

void net_ring_sleep(struct net_conn *c, bool asleep)
{
	/* a count: the agent and a waiting thread may both sleep on it */
	if (c->rx)
		__atomic_add_fetch(&c->rx->asleep, asleep ? 1 : -1,
				   __ATOMIC_SEQ_CST);
}

int net_ring_create(struct net_conn *c)
{
	int fd = memfd_create("mpirma-agent", MFD_CLOEXEC);
	struct net_shm *shm;

	if (fd < 0)
		return -1;
	if (ftruncate(fd, sizeof(*shm))) {
		close(fd);
		return -1;
	}
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	if (shm == MAP_FAILED) {
		close(fd);
		return -1;
	}
	c->shm = shm;
	c->tx = &shm->req;
	c->rx = &shm->rep;
	return fd;
}

bool net_ring_attach(struct net_conn *c, int fd)
{
	struct net_shm *shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);

	close(fd);
	if (shm == MAP_FAILED)
		return false;
	c->shm = shm;
	c->tx = &shm->rep;
	c->rx = &shm->req;
	return true;
}

void net_ring_free(struct net_conn *c)
{
	if (c->shm)
		munmap(c->shm, sizeof(struct net_shm));
	c->shm = NULL;
	c->tx = c->rx = NULL;
}

/* Is anything there for the agent's side, looked at in its rings? */
bool net_rings_ready(void)
{
	for (int p = 0; p < net.size; p++) {
		struct net_conn *c = __atomic_load_n(&net.in[p],
						     __ATOMIC_ACQUIRE);

		if (c && !c->gone && (net_ring_ready(c) || c->backlog))
			return true;
	}
	return false;
}

/*
 * Marks the rings this process reads asleep (the agent's side, and those
 * with receives posted), each in @set (room for 2 * net.size): their
 * producers ring the bell until net_rings_wake(); returns how many.
 */
int net_rings_sleep(struct net_conn **set)
{
	int n = 0;

	for (int p = 0; p < net.size; p++) {
		struct net_conn *c = __atomic_load_n(&net.in[p],
						     __ATOMIC_ACQUIRE);

		if (c && !c->gone && c->rx)
			set[n++] = c;
		if (net.out[p].posted && net.out[p].rx)
			set[n++] = &net.out[p];
	}
	for (int k = 0; k < n; k++)
		net_ring_sleep(set[k], true);
	return n;
}

void net_rings_wake(struct net_conn **set, int n)
{
	for (int k = 0; k < n; k++)
		net_ring_sleep(set[k], false);
}

struct net_conn **net_sleep_set(void)
{
	struct net_conn **set = malloc(sizeof(*set) * 2 * (size_t)net.size);

	if (!set)
		net_oom();
	return set;
}
