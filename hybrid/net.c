// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net.c - the agents' transport (net.h): setting it up, connecting and
 * accepting.  Every process listens on an abstract Unix socket, named by
 * the job's secret and its world rank (peers on its machine connect
 * there), and, when the job spans machines, on a TCP port of one of its
 * addresses (MPIRMA_AGENT_IF names the interface; else the first that is
 * up and not loopback).  The secret is 128 random bits that rank 0 sends
 * over the host MPI; an origin's first words on a connection (its hello)
 * must carry it, or the agent closes the connection.  Frames are net_io.c's.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "errors.h"
#include "hybrid.h"
#include "net_conn.h"

#define NET_BACKLOG	128
#define NET_HELLO_S	10	/* a hello not said within 10 s: closed */

struct net_state net = {
	.ep = -1, .evfd = -1, .lunix = -1, .ltcp = -1, .rxwake = -1,
	.rx_lock = HY_MUTEX_INIT(HY_LOCK_NET_RX),
};

/* Where a process's agent listens. */
struct net_addr {
	int32_t machine;	/* the least world rank of its machine */
	uint32_t ip;		/* IPv4, network order (0: no TCP) */
	uint16_t port;		/* network order */
	uint16_t pad;
};

static struct net_addr *addrs;

/* The abstract Unix socket name of world rank @rank's agent. */
static socklen_t unix_name(struct sockaddr_un *sa, int rank)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
		     "mpirma-agent-%016llx%016llx-%d",
		     (unsigned long long)net.key[0],
		     (unsigned long long)net.key[1], rank);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* This machine's address for TCP (network order), or 0. */
static uint32_t tcp_address(void)
{
	const char *want = getenv("MPIRMA_AGENT_IF");
	struct ifaddrs *all, *i;
	uint32_t ip = 0;

	if (getifaddrs(&all))
		return 0;
	for (i = all; i && !ip; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_UP))
			continue;
		if (want && *want ? strcmp(i->ifa_name, want) :
				    (i->ifa_flags & IFF_LOOPBACK) != 0)
			continue;
		ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
	}
	freeifaddrs(all);
	return ip;
}

static int listen_on(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (fd < 0)
		return -errno;
	if (bind(fd, sa, len) || listen(fd, NET_BACKLOG)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* The TCP listener, its port into @a; -errno. */
static int listen_tcp(struct net_addr *a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	socklen_t len = sizeof(sa);
	int fd;

	a->ip = tcp_address();
	if (!a->ip)
		return -EADDRNOTAVAIL;
	fd = listen_on(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0),
		       (struct sockaddr *)&sa, sizeof(sa));
	if (fd >= 0 && getsockname(fd, (struct sockaddr *)&sa, &len)) {
		close(fd);
		return -errno;
	}
	a->port = sa.sin_port;
	return fd;
}

static int epoll_add(int fd, void *ptr)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ptr };

	return epoll_ctl(net.ep, EPOLL_CTL_ADD, fd, &ev);
}

/* Listens; which machine each rank is on, and where its agent listens. */
static int net_listen(struct net_addr *mine, bool machines)
{
	struct sockaddr_un su;
	socklen_t len = unix_name(&su, net.me);

	net.lunix = listen_on(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0),
			      (struct sockaddr *)&su, len);
	if (net.lunix < 0)
		return hy_fail(MPI_ERR_OTHER, "mpirma: the agent cannot listen "
			       "on a Unix socket: %s", strerror(-net.lunix));
	if (machines) {
		net.ltcp = listen_tcp(mine);
		if (net.ltcp < 0)
			return hy_fail(MPI_ERR_OTHER, "mpirma: the agent cannot "
				       "listen on TCP: %s", strerror(-net.ltcp));
	}
	net.ep = epoll_create1(EPOLL_CLOEXEC);
	net.evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	net.rxwake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (net.ep < 0 || net.evfd < 0 || net.rxwake < 0 || epoll_add(net.lunix, &net.lunix) ||
	    epoll_add(net.evfd, &net.evfd) ||
	    (net.ltcp >= 0 && epoll_add(net.ltcp, &net.ltcp)))
		return hy_fail(MPI_ERR_OTHER, "mpirma: the agent's epoll: %s",
			       strerror(errno));
	return MPI_SUCCESS;
}

int net_own_start(void)
{
	struct net_addr mine = { 0 };
	MPI_Comm machine;
	bool machines = false;
	int ret, ok, all;

	PMPI_Comm_rank(MPI_COMM_WORLD, &net.me);
	PMPI_Comm_size(MPI_COMM_WORLD, &net.size);
	if (net.me == 0 && getrandom(net.key, sizeof(net.key), 0) !=
	    sizeof(net.key))
		PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_INTERN);
	PMPI_Bcast(net.key, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, net.me,
			     MPI_INFO_NULL, &machine);
	mine.machine = net.me;
	PMPI_Allreduce(MPI_IN_PLACE, &mine.machine, 1, MPI_INT32_T, MPI_MIN,
		       machine);
	PMPI_Comm_free(&machine);
	PMPI_Allreduce(&mine.machine, &all, 1, MPI_INT, MPI_MAX,
		       MPI_COMM_WORLD);
	machines = all > 0;
	addrs = calloc((size_t)net.size, sizeof(*addrs));
	net.out = calloc((size_t)net.size, sizeof(*net.out));
	net.in = calloc((size_t)net.size, sizeof(*net.in));
	ret = addrs && net.out && net.in ? net_listen(&mine, machines) :
	      hy_fail(MPI_ERR_NO_MEM, "out of memory");
	ok = ret == MPI_SUCCESS;
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		net_own_stop();
		return ret ? ret : hy_fail(MPI_ERR_OTHER, "mpirma: another "
					   "rank's agent cannot listen");
	}
	PMPI_Allgather(&mine, sizeof(mine), MPI_BYTE, addrs, sizeof(mine),
		       MPI_BYTE, MPI_COMM_WORLD);
	for (int r = 0; r < net.size; r++) {
		hy_mutex_init(&net.out[r].lock, HY_LOCK_NET_CONN);
		net.out[r].fd = -1;
		net.out[r].peer = r;
	}
	return MPI_SUCCESS;
}

void net_oom(void)
{
	PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void conn_free(struct net_conn *c)
{
	close_fd(&c->fd);
	net_ring_free(c);
	while (c->backlog) {
		struct net_unexp *u = c->backlog;

		c->backlog = u->next;
		free(u);
	}
	while (c->unexp) {
		struct net_unexp *u = c->unexp;

		c->unexp = u->next;
		free(u);
	}
	free(c->out);
	c->out = NULL;
}

void net_own_stop(void)
{
	for (int r = 0; net.out && r < net.size; r++)
		conn_free(&net.out[r]);
	for (int r = 0; net.in && r < net.size; r++) {
		if (net.in[r]) {
			conn_free(net.in[r]);
			free(net.in[r]);
		}
	}
	close_fd(&net.lunix);
	close_fd(&net.ltcp);
	close_fd(&net.evfd);
	close_fd(&net.rxwake);
	close_fd(&net.ep);
	free(net.out);
	free(net.in);
	free(addrs);
	free(net.inbox);
	free(net.rxbuf);
	net.rxbuf = NULL;
	net.rxbuf_cap = 0;
	net.out = NULL;
	net.in = NULL;
	addrs = NULL;
	net.inbox = NULL;
	net.inbox_cap = 0;
}

static void no_delay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Writes all @len bytes of @buf to blocking @fd; 0 or -errno. */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Within one machine: the hello carries the rings' memfd (SCM_RIGHTS), so
 * frames go through shared memory (net_ring.c); 0 or -errno.
 */
static int hello_rings(struct net_conn *c, int fd, const struct net_hello *h)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)h, sizeof(*h) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int mfd = net_ring_create(c), e = 0;

	if (mfd < 0)	/* no shared memory: frames on the socket */
		return write_all(fd, h, sizeof(*h));
	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &mfd, sizeof(int));
	if (sendmsg(fd, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(*h))
		e = errno ? -errno : -EIO;
	close(mfd);
	if (e)
		net_ring_free(c);
	return e;
}

int net_connect(struct net_conn *c)
{
	const struct net_addr *a = &addrs[c->peer];
	struct net_hello hello = { .magic = NET_MAGIC, .rank = (uint32_t)net.me };
	int fd, e;

	hy_mutex_assert_held(&c->lock);
	if (a->machine == addrs[net.me].machine) {
		struct sockaddr_un su;
		socklen_t len = unix_name(&su, c->peer);

		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		e = fd < 0 || connect(fd, (struct sockaddr *)&su, len) ? -errno : 0;
	} else {
		struct sockaddr_in si = { .sin_family = AF_INET,
					  .sin_addr.s_addr = a->ip,
					  .sin_port = a->port };

		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		e = fd < 0 || connect(fd, (struct sockaddr *)&si, sizeof(si)) ?
		    -errno : 0;
		if (!e)
			no_delay(fd);
	}
	memcpy(hello.key, net.key, sizeof(hello.key));
	if (!e && a->machine == addrs[net.me].machine)
		e = hello_rings(c, fd, &hello);
	else if (!e)
		e = write_all(fd, &hello, sizeof(hello));
	if (e) {
		if (fd >= 0)
			close(fd);
		c->gone = true;
		return e;
	}
	c->fd = fd;
	return 0;
}

void net_accept(int lfd)
{
	struct timeval tv = { .tv_sec = NET_HELLO_S };
	struct net_conn *c;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	hy_mutex_init(&c->lock, HY_LOCK_NET_CONN);
	c->fd = fd;
	c->peer = -1;
	if (lfd == net.ltcp)
		no_delay(fd);
	/* a peer that connects and says nothing must not stop the agent */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (epoll_add(fd, c)) {
		close(fd);
		free(c);
	}
}

/* Reads @c's hello, and the rings' memfd if one came with it; 0 or -1. */
static int read_hello(struct net_conn *c, struct net_hello *h)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { h, sizeof(*h) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t n = recvmsg(c->fd, &m, MSG_WAITALL | MSG_CMSG_CLOEXEC);

	for (cm = CMSG_FIRSTHDR(&m); n > 0 && cm; cm = CMSG_NXTHDR(&m, cm)) {
		int fd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		if (!net_ring_attach(c, fd))
			return -1;
	}
	return n == (ssize_t)sizeof(*h) ? 0 : -1;
}

bool net_hello(struct net_conn *c)
{
	struct timeval none = { 0 };
	struct net_hello h;

	if (read_hello(c, &h) || h.magic != NET_MAGIC ||
	    memcmp(h.key, net.key, sizeof(h.key)) || h.rank >= (uint32_t)net.size ||
	    net.in[h.rank]) {
		net_close(c, true);
		return false;
	}
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
	c->peer = (int)h.rank;
	c->hello = true;
	/* read by net_own_reply in other threads (grants) */
	__atomic_store_n(&net.in[h.rank], c, __ATOMIC_RELEASE);
	return true;
}

void net_close(struct net_conn *c, bool agent)
{
	if (!agent) {
		c->gone = true;
		close_fd(&c->fd);
		return;
	}
	epoll_ctl(net.ep, EPOLL_CTL_DEL, c->fd, NULL);
	if (!c->hello) {	/* nobody else knows it */
		conn_free(c);
		free(c);
		return;
	}
	/* kept in net.in (a grant may still look it up) until net_own_stop */
	hy_mutex_lock(&c->lock);
	c->gone = true;
	close_fd(&c->fd);
	c->outlen = c->outoff = 0;
	hy_mutex_unlock(&c->lock);
}
