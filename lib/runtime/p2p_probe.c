// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p_probe.c - probes: MPI_Probe and MPI_Iprobe, and the matched probes
 * MPI_Mprobe and MPI_Improbe with their receives MPI_Mrecv and MPI_Imrecv.
 *
 * A probe peeks at the oldest message that matches and that no posted
 * receive takes (those get theirs at the next progress pass).  A matched
 * probe then receives that very message into a buffer of its own, so no
 * other receive or probe can match it any more, and hands it out as an
 * MPI_Message; MPI_Mrecv unpacks it into the program's buffer.  The
 * receive names the message's source and tag: messages from one sender
 * keep their order, so the oldest match is the message peeked at (the
 * library lock is held throughout).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "datatype.h"
#include "request.h"
#include "p2p.h"

/**
 * struct p2p_message - a message a matched probe took out of matching
 * @comm: where it came (its errors are raised there)
 * @source, @tag: the sender's rank in @comm, the message's tag
 * @len: bytes in @data
 */
struct p2p_message {
	MPI_Comm comm;
	int source;
	int tag;
	size_t len;
	char data[];
};

/*
 * Looks for a message that no queued receive takes (@flags 0: wait for
 * one).  *@found tells whether there is one; then *@m describes it (job
 * rank, tag, length) and @status too.  *@c: the communicator.  MPI class.
 */
static int probe(int source, int tag, MPI_Comm comm, unsigned int flags,
		 int *found, MPI_Status *status, struct mpirma_comm **c,
		 struct mpirma_msg *m)
{
	uint32_t src;
	int32_t ktag;
	int ret;

	ret = mpirma_comm_check(comm, c);
	if (!ret)
		ret = mpirma_p2p_source_check(*c, source, tag);
	if (ret)
		return ret;
	*found = 0;
	if (source == MPI_PROC_NULL) {
		*found = 1;
		mpirma_p2p_null_status(status);
		return MPI_SUCCESS;
	}
	src = mpirma_p2p_src(*c, source);
	ktag = mpirma_p2p_tag(tag);
	for (;;) {
		mpirma_p2p_progress();
		ret = mpirma_msg_recv(flags | MPIRMA_MSG_PEEK, src, ktag,
				      mpirma_ctx_p2p(*c), NULL, 0, m);
		if (ret == -EAGAIN)
			return MPI_SUCCESS;
		if (ret < 0)
			return mpirma_err_errno(ret, "probe");
		/* A queued receive gets it at the next progress pass. */
		if (mpirma_p2p_claimed(mpirma_ctx_p2p(*c), m->source,
				       m->msg_tag))
			continue;
		*found = 1;
		mpirma_status_user(status,
				   mpirma_comm_rank_of_job(*c, m->source),
				   m->msg_tag, m->msg_len);
		return MPI_SUCCESS;
	}
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	struct mpirma_comm *c;
	struct mpirma_msg m;
	int found;

	MPIRMA_CHECK_INIT();
	return RAISE_COMM(comm, probe(source, tag, comm, 0, &found, status,
				      &c, &m), NULL);
}
MPIRMA_ALIAS(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
		MPI_Status *status)
{
	struct mpirma_comm *c;
	struct mpirma_msg m;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!flag)
		return RAISE_COMM(comm, MPI_ERR_ARG, "flag is NULL");
	ret = probe(source, tag, comm, MPIRMA_MSG_NOWAIT, flag, status, &c, &m);
	if (!ret && !*flag)
		mpirma_poll_missed();
	return RAISE_COMM(comm, ret, NULL);
}
MPIRMA_ALIAS(Iprobe)

/* ------------------------------------------------------------ matched */

/* Probe, then take the message found into a new message handle. */
static int mprobe(int source, int tag, MPI_Comm comm, unsigned int flags,
		  int *found, MPI_Message *message, MPI_Status *status)
{
	struct p2p_message *pm;
	struct mpirma_comm *c;
	struct mpirma_msg m, got;
	int ret, h;

	if (!message)
		return mpirma_err(MPI_ERR_ARG, "message is NULL");
	*message = MPI_MESSAGE_NULL;
	ret = probe(source, tag, comm, flags, found, status, &c, &m);
	if (ret || !*found)
		return ret;
	if (source == MPI_PROC_NULL) {
		*message = MPI_MESSAGE_NO_PROC;
		return MPI_SUCCESS;
	}
	pm = malloc(sizeof(*pm) + (m.msg_len ? m.msg_len : 1));
	if (!pm)
		return mpirma_err(MPI_ERR_NO_MEM, "no memory for a message of "
				  "%llu bytes", (unsigned long long)m.msg_len);
	ret = mpirma_msg_recv(0, m.source, m.msg_tag, mpirma_ctx_p2p(c),
			      pm->data, m.msg_len, &got);
	if (ret < 0) {
		free(pm);
		return mpirma_err_errno(ret, "taking the probed message");
	}
	pm->comm = comm;
	pm->source = mpirma_comm_rank_of_job(c, m.source);
	pm->tag = m.msg_tag;
	pm->len = m.msg_len;
	h = mpirma_handle_alloc(MPIRMA_HK_MESSAGE, pm);
	if (h < 0) {
		/* Taken but not handed out: as good as a receive's loss. */
		free(pm);
		return mpirma_err(MPI_ERR_NO_MEM, "no handle for the message");
	}
	*message = h;
	return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
		MPI_Status *status)
{
	int found;

	MPIRMA_CHECK_INIT();
	return RAISE_COMM(comm, mprobe(source, tag, comm, 0, &found, message,
				       status), NULL);
}
MPIRMA_ALIAS(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
		 MPI_Message *message, MPI_Status *status)
{
	int ret;

	MPIRMA_CHECK_INIT();
	if (!flag)
		return RAISE_COMM(comm, MPI_ERR_ARG, "flag is NULL");
	ret = mprobe(source, tag, comm, MPIRMA_MSG_NOWAIT, flag, message, status);
	if (!ret && !*flag)
		mpirma_poll_missed();
	return RAISE_COMM(comm, ret, NULL);
}
MPIRMA_ALIAS(Improbe)

/*
 * The receive of a matched message: unpacked into @count of @dt at @buf,
 * the message freed and *@message set to MPI_MESSAGE_NULL.  *@comm: where
 * to raise.  MPI class.
 */
static int mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
		 MPI_Status *status, MPI_Comm *comm)
{
	struct p2p_message *pm;
	struct mpirma_dtype *t;
	size_t cap;
	int ret;

	*comm = MPI_COMM_WORLD;
	if (!message)
		return mpirma_err(MPI_ERR_ARG, "message is NULL");
	if (*message == MPI_MESSAGE_NO_PROC) {
		mpirma_p2p_null_status(status);
		*message = MPI_MESSAGE_NULL;
		return MPI_SUCCESS;
	}
	pm = mpirma_handle_get(MPIRMA_HK_MESSAGE, *message);
	if (!pm)
		return mpirma_err(MPI_ERR_REQUEST, "invalid message %d (not "
				  "from MPI_Mprobe or MPI_Improbe, or "
				  "received already)", *message);
	*comm = pm->comm;
	ret = mpirma_buf_check(count, dt, &t);
	if (ret)
		return ret;
	cap = (size_t)count * t->size;
	mpirma_dtype_unpack(t, pm->data, pm->len < cap ? pm->len : cap, buf,
			    count);
	mpirma_status_user(status, pm->source, pm->tag,
			   pm->len < cap ? pm->len : cap);
	ret = pm->len > cap ?
	      mpirma_err(MPI_ERR_TRUNCATE, "the message has %zu bytes, the "
			 "buffer room for %zu", pm->len, cap) : MPI_SUCCESS;
	mpirma_handle_free(MPIRMA_HK_MESSAGE, *message);
	free(pm);
	*message = MPI_MESSAGE_NULL;
	return ret;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype,
	       MPI_Message *message, MPI_Status *status)
{
	MPI_Comm comm;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mrecv(buf, count, datatype, message, status, &comm);
	return RAISE_COMM(comm, ret, NULL);
}
MPIRMA_ALIAS(Mrecv)

/* The message is here already: the request is born complete. */
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype,
		MPI_Message *message, MPI_Request *request)
{
	MPI_Status st;
	MPI_Comm comm;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!request)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "request is NULL");
	*request = MPI_REQUEST_NULL;
	ret = mrecv(buf, count, datatype, message, &st, &comm);
	if (ret && ret != MPI_ERR_TRUNCATE)
		return RAISE_COMM(comm, ret, NULL);
	/* the request's own status carries the class (mrecv leaves it) */
	st.MPI_ERROR = ret;
	ret = mpirma_request_new_done(comm, MPI_WIN_NULL, ret, request);
	if (!ret) {
		struct mpirma_request *r = mpirma_request_get(*request);

		if (r)
			r->status = st;
	}
	return RAISE_COMM(comm, ret, NULL);
}
MPIRMA_ALIAS(Imrecv)

MPI_Fint PMPI_Message_c2f(MPI_Message message)
{
	return (MPI_Fint)message;
}
MPIRMA_ALIAS(Message_c2f)

MPI_Message PMPI_Message_f2c(MPI_Fint message)
{
	return (MPI_Message)message;
}
MPIRMA_ALIAS(Message_f2c)
