/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * p2p.h - point-to-point messages inside the library (p2p*.c): the raw
 * kernel mailbox calls that coll.c builds on, and the hooks request.c uses
 * to progress and to wait for posted receives.
 */
#ifndef MPIRMA_LIB_P2P_H
#define MPIRMA_LIB_P2P_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/*
 * The transport (shmq.c): shared-memory queues between the job's ranks,
 * the kernel mailbox (MPIRMA_IOC_MSG_SEND/RECV) where they are off; both
 * with the mailbox's semantics (struct mpirma_msg in mpirma_uapi.h).
 *
 * Sends @len bytes to job rank @job_rank, buffered (never waits).  0 or
 * -errno.
 */
int mpirma_msg_send(int job_rank, int tag, uint64_t ctx, const void *buf,
		    size_t len);

/*
 * A synchronous send (shmq_sync.c): sent as mpirma_msg_send() sends, with
 * a token in *@token for mpirma_msg_sync_wait(); 0 when nothing will
 * answer (the kernel mailbox: complete as a standard send).
 */
int mpirma_msg_send_sync(int job_rank, int tag, uint64_t ctx,
			 const void *buf, size_t len, uint64_t *token);
/*
 * Has a receive at job rank @job_rank taken the message of @token?  1
 * yes, 0 not yet (only when not @block), or -errno (-EOWNERDEAD: the rank
 * is gone).  Waiting, it progresses everything else (request.h): a
 * receive of this rank may be what the peer waits for.
 */
int mpirma_msg_sync_wait(int job_rank, uint64_t token, bool block);

/*
 * What has come for receives, as a number that changes when messages go to
 * the unexpected ones; and has nothing come from job rank @src since
 * mpirma_msg_gen() said @gen (no unit due from it in its ring or the
 * kernel, no message set aside)?  false where it cannot tell (the kernel
 * mailbox, any source).  A receive whose look found nothing need not look
 * again while that holds.
 */
uint64_t mpirma_msg_gen(void);
bool mpirma_msg_quiet(uint32_t src, uint64_t gen);

/*
 * A nonblocking send (shmq_offer.c) of a message of @len bytes to job
 * rank @job_rank for which mpirma_msg_onecopy() said yes goes by one copy
 * when the kernel takes its offer: *@a then says what
 * mpirma_msg_ack_wait() waits for, the receiver's answer once it has the
 * data; else it is sent as mpirma_msg_send() sends and a->token is 0.
 * 0 or -errno.
 */
struct mpirma_msg_ack {
	uint64_t token;		/* the answer's; 0: nothing to wait for */
	uint64_t seq;		/* the offer's unit, whose copy the wait helps */
	uint64_t offer;		/* the kernel's offer while it may stand, else 0 */
};
bool mpirma_msg_onecopy(int job_rank, size_t len);
int mpirma_msg_isend(int job_rank, int tag, uint64_t ctx, const void *buf,
		     size_t len, struct mpirma_msg_ack *a);
/* mpirma_msg_sync_wait() for such a send, which helps the receiver copy. */
int mpirma_msg_ack_wait(int job_rank, struct mpirma_msg_ack *a, bool block);
/*
 * Withdraws the offer of such a send: true when nobody has or will have
 * its data (MPI_Cancel; its receiver skips it), false when it was taken
 * (or is being copied: waits for that).  Once complete, ends an offer the
 * receive left standing.
 */
bool mpirma_msg_offer_withdraw(struct mpirma_msg_ack *a);

/*
 * Receives the oldest message matching @peer (a job rank or
 * MPIRMA_ANY_SOURCE), @tag (or MPIRMA_ANY_TAG) and @ctx; @flags
 * MPIRMA_MSG_*.  *@m receives msg_len, source and msg_tag.  0 or -errno
 * (-EAGAIN with NOWAIT, -EOWNERDEAD when the source is gone).
 */
int mpirma_msg_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		    void *buf, size_t len, struct mpirma_msg *m);

/*
 * At MPI_Init, once every rank has joined: the queues, if every rank can
 * map them (collective; MPIRMA_SHMQ=0 keeps the kernel mailbox).  MPI
 * class.  At MPI_Finalize, after the last barrier: teardown unmaps them.
 */
int mpirma_shmq_setup(void);
void mpirma_shmq_teardown(void);
/* Are the queues in use? */
bool mpirma_shmq_on(void);

/* One non-blocking pass over the posted receives, in posting order. */
void mpirma_p2p_progress(void);
/*
 * Should a wait in the transport advance the posted receives (with
 * mpirma_p2p_progress())?  A synchronous sender may wait for one of them
 * while this rank waits for something else; not while p2p.c itself waits
 * for one.
 */
bool mpirma_p2p_progress_due(void);

/*
 * The lean lane (shmq_lean.c) of the standard and ready sends, blocking or
 * not, and of MPI_Recv: true once it has sent or received the message
 * (@status filled); false when the call is not its case, with nothing
 * done: the general path then checks and runs it.
 */
bool mpirma_lean_send(const void *buf, int count, MPI_Datatype dt, int dest,
		      int tag, MPI_Comm comm);
bool mpirma_lean_recv(void *buf, int count, MPI_Datatype dt, int source,
		      int tag, MPI_Comm comm, MPI_Status *status);
/*
 * MPI_Irecv's: the message already in the ring is taken into a request
 * made complete (true, *@ret its class: on an error nothing is taken);
 * false leaves the call to the general path, which posts the receive,
 * without checking again when *@c is set: the arguments were the lane's
 * case (a rank of communicator *@c, a contiguous predefined datatype).
 */
bool mpirma_lean_irecv(void *buf, int count, MPI_Datatype dt, int source,
		       int tag, MPI_Comm comm, MPI_Request *request, int *ret,
		       struct mpirma_comm **c);
/*
 * Are a receive's arguments valid, and its case one the lane may take
 * (once nothing posted or unexpected stands in its way)?  MPI_Sendrecv
 * sends by the lane only then: its send may not leave when its receive
 * would fail the general path's checks.
 */
bool mpirma_lean_recv_ok(int count, MPI_Datatype dt, int source, int tag,
			 MPI_Comm comm);
/*
 * A posted receive's: the first of p2p.c's queue that could take a
 * message from job rank @src with @tag (or MPIRMA_ANY_TAG) on @ctx takes
 * the one due from @src straight out of the ring when it is a single unit
 * of at most @cap bytes, nothing waits in the unexpected list and nothing
 * from @src is half put together: true, *@m filled as a transport receive
 * fills it.  False: nothing done.
 */
bool mpirma_lean_take(uint32_t src, int32_t tag, uint64_t ctx, void *buf,
		      size_t cap, struct mpirma_msg *m);
/* Are receives posted (waiting in p2p.c's queue)? */
bool mpirma_p2p_posted(void);

/* For the probes (p2p_probe.c). */
struct mpirma_comm;
/* The transport's source and tag of a receive's (@source, @tag) on @c. */
static inline uint32_t mpirma_p2p_src(const struct mpirma_comm *c, int source)
{
	return source == MPI_ANY_SOURCE ? MPIRMA_ANY_SOURCE :
	       (uint32_t)mpirma_comm_job_rank(c, source);
}

static inline int32_t mpirma_p2p_tag(int tag)
{
	return tag == MPI_ANY_TAG ? MPIRMA_ANY_TAG : tag;
}

/* A receive's source and tag; MPI class (recorded). */
int mpirma_p2p_source_check(const struct mpirma_comm *c, int source,
			    int tag);
/* MPI_PROC_NULL's status of a receive (@status may be MPI_STATUS_IGNORE). */
void mpirma_p2p_null_status(MPI_Status *status);
/* Does a posted receive on @ctx take a message from job rank @src, @tag? */
bool mpirma_p2p_claimed(uint64_t ctx, uint32_t src, int32_t tag);

/*
 * For persistent requests (p2p_persist.c).  The checks of a send (@send:
 * @peer is the destination) or a receive, giving the communicator and
 * datatype; a send of checked arguments; a receive posted with checked
 * arguments, as MPI_Irecv posts it, its request in *@out.  MPI classes.
 */
struct mpirma_comm;
struct mpirma_dtype;
int mpirma_p2p_check(bool send, MPI_Comm comm, int count, MPI_Datatype dt,
		     int peer, int tag, struct mpirma_comm **c,
		     struct mpirma_dtype **t);
int mpirma_p2p_send(struct mpirma_comm *c, const void *buf, int count,
		    struct mpirma_dtype *t, int dest, int tag);
/* The same, synchronous: the token for mpirma_msg_sync_wait() in *@token. */
int mpirma_p2p_send_sync(struct mpirma_comm *c, const void *buf, int count,
			 struct mpirma_dtype *t, int dest, int tag,
			 uint64_t *token);
/*
 * A nonblocking send of @len contiguous bytes at @data to comm rank @dest
 * (checked, not PROC_NULL) by one copy (p2p_sync.c), its request in
 * *@request: complete once the receiver has the data.  For sizes
 * mpirma_msg_onecopy() says yes to.  MPI class.
 */
int mpirma_p2p_isend_onecopy(struct mpirma_comm *c, const void *data,
			     size_t len, int dest, int tag,
			     MPI_Request *request);
/*
 * A buffered send of checked arguments, counted against the attached
 * buffer until its receive takes it (p2p_bsend.c).  MPI class.
 */
int mpirma_p2p_bsend(struct mpirma_comm *c, const void *buf, int count,
		     struct mpirma_dtype *t, int dest, int tag);
/*
 * A synchronous send of checked arguments as a request in *@out, complete
 * once its receive has taken it (p2p_sync.c).  MPI class.
 */
int mpirma_p2p_ssend_post(struct mpirma_comm *c, const void *buf, int count,
			  struct mpirma_dtype *t, int dest, int tag,
			  struct mpirma_request **out);
int mpirma_p2p_post(struct mpirma_comm *c, void *buf, int count,
		    struct mpirma_dtype *t, int source, int tag,
		    struct mpirma_request **out);
/**
 * struct mpirma_p2p_args - what a persistent point-to-point request
 *	(p2p_persist.c, partitioned: p2p_part.c) keeps of its call: the
 *	arguments, checked at init, with references on the communicator and
 *	datatype; and the receive it started, NULL when none is in flight
 */
struct mpirma_p2p_args {
	void *buf;
	int count;
	struct mpirma_dtype *t;
	int peer;
	int tag;
	struct mpirma_comm *c;
	struct mpirma_request *inner;
};

/*
 * Fills @a (taking the references) for persistent request @r on @comm,
 * which becomes r's communicator for errors (p2p_persist.c).
 */
void mpirma_p2p_args_set(struct mpirma_request *r, MPI_Comm comm,
			 struct mpirma_p2p_args *a, const void *buf, int count,
			 struct mpirma_dtype *t, int peer, int tag,
			 struct mpirma_comm *c);
/* Destroys the started receive, drops the references (none if unset). */
void mpirma_p2p_args_release(struct mpirma_p2p_args *a);

/*
 * A persistent request @r's started receive *@inner progressed (@block:
 * to its end); once done, its status is r's, r is done and *@inner is
 * destroyed and NULL (p2p_persist.c; partitioned receives, p2p_part.c).
 */
void mpirma_p2p_inner_progress(struct mpirma_request *r,
			       struct mpirma_request **inner, int block);
/* A blocking receive, arguments checked here; its class (status filled). */
int mpirma_p2p_recv(void *buf, int count, MPI_Datatype dt, int source,
		    int tag, MPI_Comm comm, MPI_Status *status);

/*
 * Waits in the kernel until a message may have arrived for one of the @n
 * pending requests (Waitany/Waitsome).  Returns true when it did wait
 * there; false when it cannot (not all of them are posted receives of one
 * communicator), and the caller must poll.
 */
bool mpirma_p2p_block_any(struct mpirma_request *const *reqs, int n);

/* Raises a class on @comm in the caller's name; a success costs no call. */
#define RAISE_COMM(comm, cls, ...) ({					\
	int cls_ = (cls);						\
									\
	cls_ ? mpirma_raise_comm((comm), cls_, MPIRMA_FUNC, __VA_ARGS__) : \
	       MPI_SUCCESS;						\
})

#endif /* MPIRMA_LIB_P2P_H */
