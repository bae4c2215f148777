// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * transport.c - which transport carries the agents' frames (net.h), and
 * net.h's calls, made on it.
 *
 * The own transport (net_own_*) leaves the host at the program's thread
 * level; the host's (net_host_*) needs MPI_THREAD_MULTIPLE, where both
 * hosts lock around every call.  Own is the default everywhere
 * (MPIRMA_AGENT_TRANSPORT=auto or own): where ranks outnumber the node's
 * CPUs the host's had been, but 4 ranks on 2 vCPUs at two logical nodes
 * under Open MPI (one boot, five launches of each, medians) gave its
 * barrier 1.10, an 8-byte bcast 1.47 and an allreduce 1.13 times Open MPI
 * alone, the own one 0.87-1.11 on every message row; with the own
 * transport's waits no longer yielding twice a round, its put + flush +
 * barrier was 225-455 us against 411-465 and mpi4py's RMA tests 297 and
 * 352 s against 324 and 417 (docs/history.md).  "host" chooses the host's,
 * used only when every rank chose it and was granted MPI_THREAD_MULTIPLE,
 * so all ranks use the same one.
 */
#include "agent.h"
#include "env.h"
#include "net.h"
#include "net_conn.h"
#include "net_host.h"
#include "transport.h"

enum { PICK_AUTO, PICK_OWN, PICK_HOST };

/* The agents use the host's messages (set once, before the agents start). */
static bool on_host;

static int pick(void)
{
	static const char *const words[] = { "auto", "own", "host" };

	return hy_env_word("MPIRMA_AGENT_TRANSPORT", words, 3);
}

bool hy_transport_want_host(void)
{
	return pick() == PICK_HOST;
}

bool hy_transport_choose(bool multiple)
{
	int mine = multiple && hy_transport_want_host(), all;

	PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	on_host = all;
	return on_host;
}

bool hy_transport_on_host(void)
{
	return on_host;
}

int hy_net_start(void)
{
	return on_host ? net_host_start() : net_own_start();
}

void hy_net_stop(void)
{
	if (on_host)
		net_host_stop();
	else
		net_own_stop();
}

int hy_net_send(int peer, uint32_t tag, const void *a, size_t alen,
		const void *b, size_t blen, struct hy_nrecv *r, void *rbuf,
		size_t rcap, uint32_t rtag)
{
	return on_host ?
	       net_host_send(peer, tag, a, alen, b, blen, r, rbuf, rcap, rtag) :
	       net_own_send(peer, tag, a, alen, b, blen, r, rbuf, rcap, rtag);
}

void hy_net_post(struct hy_nrecv *r, int peer, uint32_t tag, void *buf,
		 size_t cap)
{
	if (on_host)
		net_host_post(r, peer, tag, buf, cap);
	else
		net_own_post(r, peer, tag, buf, cap);
}

/* The own transport's alone: the host's receives are host requests. */
int hy_net_test(struct hy_nrecv *r, int wait_ms)
{
	return net_own_test(r, wait_ms);
}

void hy_net_sleep(void)
{
	if (on_host)
		net_host_sleep();
	else
		net_own_sleep(hy.crowded && hy_slots_live());
}

int hy_net_drain(hy_net_frame_fn *frame)
{
	return on_host ? net_host_drain(frame) : net_own_drain(frame);
}

void hy_net_wake(void)
{
	if (on_host)
		net_host_wake();
	else
		net_own_wake();
}

void hy_net_reply(int origin, uint32_t tag, const void *a, size_t alen,
		  const void *b, size_t blen)
{
	if (on_host)
		net_host_reply(origin, tag, a, alen, b, blen);
	else
		net_own_reply(origin, tag, a, alen, b, blen);
}
