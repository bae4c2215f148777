/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * net.h - the agents' transport: frames of a tag and bytes from an origin
 * process to a target process's agent and back.  Two carry them
 * (transport.c picks one for the job at MPI_Init):
 *
 * - their own (net.c, net_io.c, net_serve.c, net_ring.c): a stream socket
 *   from each origin to each target it ships to, made at the first
 *   message (an abstract Unix socket within a machine, with two rings of
 *   shared memory that carry the frames; TCP between machines).  The host
 *   carries none of it, so it stays at the program's thread level: the
 *   agent sleeps in epoll_wait() and wakes when a frame comes (where
 *   ranks outnumber the node's CPUs it polls at its pace: pace.h).
 * - the host's (net_host.c): its messages on a communicator of the
 *   layer's, which needs MPI_THREAD_MULTIPLE of the host (the agent calls
 *   it beside the program's threads), and so a lock in every host call;
 *   only with MPIRMA_AGENT_TRANSPORT=host (docs/hybrid.md, "The agents'
 *   transport").
 *
 * Origin side: hy_net_send() sends a frame and may post the receive of
 * its reply first (both under one lock, so replies, which come back in
 * order, match their messages); hy_net_post() posts a receive alone (a
 * lock grant); on the own transport hy_net_test() looks at what has
 * come, and says whether the receive is done (on the host's a receive is
 * a host request, waited for with the agent's inbox: net_host_wait()).
 * A receive takes the first frame with its tag from its peer.  The waits
 * (waits.c) serve the agent meanwhile.
 *
 * Agent side: hy_net_sleep() waits until something may be there, or a
 * hy_net_wake(); hy_net_drain() serves what is there without waiting
 * (the agent, or a program thread in a wait, one at a time under the
 * agent's serve lock); hy_net_reply() answers an origin.
 *
 * Errors: on the own transport a peer whose process is gone fails the
 * receives that wait for it with -ECONNRESET; a message to it fails at
 * once.  On the host's, the host decides (both end the job).
 */
#ifndef MPIRMA_HYBRID_NET_H
#define MPIRMA_HYBRID_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct hy_nrecv - a posted receive of one frame
 * @next: the peer's posted receives, in posting order (net_io.c)
 * @buf: where its bytes go, @cap of them at most
 * @len: bytes received
 * @tag: the frame's tag it takes
 * @peer: world rank it takes it from
 * @status: 0, -ECONNRESET (the peer's process is gone), -EMSGSIZE
 * @done: received (or failed)
 * @host_req: the host's MPI_Request of the receive (net_host.c)
 */
struct hy_nrecv {
	struct hy_nrecv *next;
	void *buf;
	size_t cap;
	size_t len;
	uint32_t tag;
	int peer;
	int status;
	bool done;
	uint64_t host_req;
};

/*
 * Collective over MPI_COMM_WORLD: sets the transport up (the own one
 * listens and learns the peers' addresses).  An MPI error class.
 */
int hy_net_start(void);
void hy_net_stop(void);

/*
 * Sends a frame of @tag to the agent of world rank @peer: @a (@alen bytes)
 * then @b (@blen, may be 0).  With @r, first posts @r to receive a frame
 * of @rtag from that peer into @rbuf (@rcap bytes).  0, or -errno (then
 * @r is done and failed too).
 */
int hy_net_send(int peer, uint32_t tag, const void *a, size_t alen,
		const void *b, size_t blen, struct hy_nrecv *r, void *rbuf,
		size_t rcap, uint32_t rtag);

/* Posts @r to receive a frame of @tag from @peer into @buf (@cap bytes). */
void hy_net_post(struct hy_nrecv *r, int peer, uint32_t tag, void *buf,
		 size_t cap);

/*
 * Reads what has come for posted receives, if no other thread does,
 * waiting @wait_ms for something to come (-1: until it does; 0: not at
 * all): HY_NET_DONE when @r is done, HY_NET_INCOMING when something is
 * there for the agent's side to drain.
 */
#define HY_NET_DONE	1
#define HY_NET_INCOMING	2
int hy_net_test(struct hy_nrecv *r, int wait_ms);

/*
 * What hy_net_drain() calls per frame from world rank @origin (@tag, @len
 * bytes of @data, valid until the next frame), and with @origin -1 after
 * a hy_net_wake(); returns 1 when it served a message, else 0.
 */
typedef int hy_net_frame_fn(int origin, uint32_t tag, void *data, size_t len);

/*
 * Agent side: hy_net_sleep() returns when something is there to drain;
 * hy_net_drain() serves what is there (a few events at most) through
 * @frame, without waiting, and returns the messages served; one thread at
 * a time.  hy_net_wake() ends a hy_net_sleep() (the next drain calls
 * @frame with origin -1).
 */
void hy_net_sleep(void);
int hy_net_drain(hy_net_frame_fn *frame);
void hy_net_wake(void);

/* Answers @origin, whose frame came to this agent: @a, then @b. */
void hy_net_reply(int origin, uint32_t tag, const void *a, size_t alen,
		  const void *b, size_t blen);

#endif /* MPIRMA_HYBRID_NET_H */
