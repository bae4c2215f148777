/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg.h - what the message selftests share (msg.c, the channel's contract;
 * msg_wait.c, receives that wait and peers that go: one program per
 * subject, as the kselftest harness keeps its tests per program): the
 * ioctl helpers and a job of NRANKS whose every rank this process joined.
 */
#ifndef MPIRMA_SELFTEST_MSG_H
#define MPIRMA_SELFTEST_MSG_H

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define NRANKS		3
#define REACT_MS	5000	/* how soon a waiting receiver must notice */
#define LARGE_LEN	(8UL << 20)

/* A send's argument: outputs must be 0, unlike mt_arg_init()'s poison. */
static inline struct mpirma_msg send_arg(uint32_t peer, int32_t tag,
					 uint64_t ctx, const void *buf,
					 uint64_t len)
{
	struct mpirma_msg m;

	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	m.peer = peer;
	m.tag = tag;
	m.context = ctx;
	m.buf = (uintptr_t)buf;
	m.len = len;
	return m;
}

static inline int msg_send(int mfd, uint32_t peer, int32_t tag,
			   uint64_t ctx, const void *buf, uint64_t len)
{
	struct mpirma_msg m = send_arg(peer, tag, ctx, buf, len);

	return mt_ioctl(mfd, MPIRMA_IOC_MSG_SEND, &m);
}

/*
 * Receive into @buf; the outputs land in *@m, which is poisoned first so
 * that an output the kernel forgets to write is caught.  0 or -errno.
 */
static inline int msg_recv(int mfd, uint32_t peer, int32_t tag,
			   uint64_t ctx, void *buf, uint64_t len,
			   uint32_t flags, struct mpirma_msg *m)
{
	mt_arg_init(m);
	m->flags = flags;
	m->peer = peer;
	m->tag = tag;
	m->context = ctx;
	m->buf = (uintptr_t)buf;
	m->len = len;
	return mt_ioctl(mfd, MPIRMA_IOC_MSG_RECV, m);
}

/* The one-word messages most tests exchange. */
static inline int send_u64(int mfd, uint32_t peer, int32_t tag,
			   uint64_t ctx, uint64_t v)
{
	return msg_send(mfd, peer, tag, ctx, &v, sizeof(v));
}

static inline int recv_u64(int mfd, uint32_t peer, int32_t tag,
			   uint64_t ctx, uint32_t flags, uint64_t *v,
			   struct mpirma_msg *m)
{
	*v = 0;
	return msg_recv(mfd, peer, tag, ctx, v, sizeof(*v), flags, m);
}

/* Nothing matching queued (and the sources alive): NOWAIT says EAGAIN. */
static inline int probe(int mfd, uint32_t peer, int32_t tag,
			uint64_t ctx)
{
	struct mpirma_msg m;

	return msg_recv(mfd, peer, tag, ctx, NULL, 0,
			MPIRMA_MSG_NOWAIT | MPIRMA_MSG_PEEK, &m);
}

/* /sys/class/misc/mpirma/message_bytes once it settles at @want. */
static inline long message_bytes_settle(long want)
{
	return mt_counter_settle("message_bytes", want);
}

/* ---- a job of NRANKS, every rank joined by this process ---- */

FIXTURE(msg) {
	int dev, job;
	int m[NRANKS];
};

FIXTURE_SETUP(msg)
{
	struct mpirma_query q;

	MT_FIXTURE_JOB(&q, MPIRMA_FEAT_MSG, NRANKS);
}

FIXTURE_TEARDOWN(msg)
{
	mt_job_stop(&self->job, self->m, NRANKS);
	mt_close(&self->dev);
}

#endif
