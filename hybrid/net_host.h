/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * net_host.h - the host's side of net.h's calls (net_host.c), which
 * transport.c makes when the agents use the host's messages.
 */
#ifndef MPIRMA_HYBRID_NET_HOST_H
#define MPIRMA_HYBRID_NET_HOST_H

#include "agent.h"
#include "hybrid.h"
#include "net.h"

int net_host_start(void);
void net_host_stop(void);
int net_host_send(int peer, uint32_t tag, const void *a, size_t alen,
		  const void *b, size_t blen, struct hy_nrecv *r, void *rbuf,
		  size_t rcap, uint32_t rtag);
void net_host_post(struct hy_nrecv *r, int peer, uint32_t tag, void *buf,
		   size_t cap);
void net_host_sleep(void);
int net_host_drain(hy_net_frame_fn *frame);
void net_host_wake(void);
void net_host_reply(int origin, uint32_t tag, const void *a, size_t alen,
		    const void *b, size_t blen);

/*
 * A program thread's wait that serves (agent.c, the agent's serve lock
 * held): one host call waits (without @block: tests) for @req[0..@n-1]
 * (HY_WAIT_REQS at most, statuses into @stat unless NULL) and the inbox
 * together, and what the inbox got goes to @frame (*@served: messages
 * served).  The host's error or MPI_SUCCESS.
 */
int net_host_waitsome(int n, MPI_Request *req, MPI_Status *stat, bool block,
		      hy_net_frame_fn *frame, int *served);

/* Waits for @r with @wait (waits.c's): @r's status. */
int net_host_wait(struct hy_nrecv *r,
		  int (*wait)(int n, MPI_Request *req, MPI_Status *stat));

#endif /* MPIRMA_HYBRID_NET_HOST_H */
