/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * runtime.h - what lib/runtime/ offers the layer above it (lib/rma/):
 * groups, communicators, requests.  lib/base/ knows none of it: it reaches
 * communicators only through their registered struct mpirma_kind_ops.
 */
#ifndef MPIRMA_LIB_RUNTIME_H
#define MPIRMA_LIB_RUNTIME_H

#include "internal.h"

struct mpirma_topo;

/* ------------------------------------------------------------ groups */

/**
 * struct mpirma_group - an ordered set of job ranks (lib/runtime/group.c)
 * @refs: handles and communicators holding it
 * @size: number of members
 * @rank: the caller's rank in the group, or MPI_UNDEFINED
 * @ranks: job ranks in group-rank order
 */
struct mpirma_group {
	int refs;
	int size;
	int rank;
	int *ranks;
};

/* The group of a handle (MPI_GROUP_EMPTY included), or NULL. */
struct mpirma_group *mpirma_group_get(MPI_Group g);
/*
 * New group handle of @n job ranks (copied); MPI_SUCCESS or
 * MPI_ERR_NO_MEM (recorded with mpirma_err).  n == 0 gives MPI_GROUP_EMPTY.
 */
int mpirma_group_new(int n, const int *job_ranks, MPI_Group *out);

/* ------------------------------------------------------------ communicators */

/**
 * struct mpirma_comm - a communicator (lib/runtime/comm.c; inter-communicators
 *	lib/runtime/intercomm.c)
 * @hdr: error handler, attributes, name
 * @handle: its MPI_Comm
 * @refs: 1 for the handle, +1 for each user that must outlive MPI_Comm_free
 *	(pending requests); freed when 0
 * @size: number of ranks
 * @rank: the caller's rank
 * @ranks: job ranks in comm-rank order
 * @job2rank: comm rank of each job rank (mpirma_proc.size entries), or -1
 * @ctx: context id; p2p uses mpirma_ctx_p2p(), collectives mpirma_ctx_coll()
 * @info: hints given by MPI_Comm_set_info / dup_with_info (MPI_INFO_NULL)
 * @topo: process topology (lib/runtime/topo.h), or NULL
 * @inter: an inter-communicator: @size, @rank, @ranks and @job2rank are
 *	the local group, point-to-point ranks name the remote group
 * @rsize, @rranks, @rjob2rank: inter: the remote group, as @size...
 * @local: inter: the local group as an intra-communicator object (no
 *	handle, same context: its messages only ever come from local members)
 *	for the local steps of collectives
 * @nbc_seq: nonblocking collectives started on it: each one's tag (nbc.c)
 * @spare_ctx, @spares, @spare_span: context ids every member set aside
 *	for this communicator's MPI_Comm_idup (the next one, how many are
 *	left, the distance between two), so that idup needs no agreement and
 *	so never waits (comm_dup.c); each spare owns the @spare_span - 1 ids
 *	after it, the spares of the communicator its idup makes
 */
struct mpirma_comm {
	struct mpirma_objhdr hdr;
	MPI_Comm handle;
	int refs;
	int size;
	int rank;
	int *ranks;
	int *job2rank;
	uint64_t ctx;
	MPI_Info info;
	struct mpirma_topo *topo;
	bool inter;
	int rsize;
	int *rranks;
	int *rjob2rank;
	struct mpirma_comm *local;
	uint64_t nbc_seq;
	uint64_t spare_ctx;
	int spares;
	uint64_t spare_span;
};

/*
 * A new communicator's context @ctx is taken: the caller's next free id
 * moves past it and past the MPIRMA_CTX_BLOCK ids after it, which become the
 * new communicator's spares (every member does the same with the same @ctx):
 * 32 spares, each with 32 for the idup it makes, each with 30 in turn.
 */
#define MPIRMA_CTX_BLOCK 32768
static inline void mpirma_ctx_take(uint64_t ctx)
{
	mpirma_proc.next_ctx = ctx + 1 + MPIRMA_CTX_BLOCK;
}

/*
 * Gives @c the spares of the @len ids from @first (comm.c): at most 32,
 * evenly spread.
 */
void mpirma_comm_set_spares(struct mpirma_comm *c, uint64_t first,
			    uint64_t len);

/* The communicator of a handle (MPI_COMM_WORLD/SELF included), or NULL. */
struct mpirma_comm *mpirma_comm_get(MPI_Comm comm);
/*
 * The communicator argument of a communication call: MPI_SUCCESS with *@c
 * set, or MPI_ERR_COMM recorded ("MPI_COMM_NULL" / "invalid communicator N").
 */
int mpirma_comm_check(MPI_Comm comm, struct mpirma_comm **c);

/*
 * The hints of @info a communicator keeps, in a new info (*@out;
 * MPI_INFO_NULL for none): the standard's ("mpi_" keys: its assertions).
 * None changes what mpirma does, and MPI_Comm_get_info returns no hint
 * the implementation ignores, so other keys are dropped.  MPI class.
 */
int mpirma_comm_hints(MPI_Info info, MPI_Info *out);

/*
 * In an API function: @var = the communicator of @handle, or the function
 * returns MPI_ERR_COMM raised on MPI_COMM_WORLD ("invalid communicator N").
 */
#define MPIRMA_GET_COMM(var, handle)					\
	do {								\
		(var) = mpirma_comm_get(handle);			\
		if (!(var))						\
			return mpirma_raise(MPI_ERR_COMM, MPIRMA_FUNC,	\
					    "invalid communicator %d",	\
					    (handle));			\
	} while (0)

/* MPIRMA_QUERY() of a communicator (struct mpirma_comm *o). */
#define MPIRMA_COMM_QUERY(name, type, expr)				\
	MPIRMA_QUERY(name, MPI_Comm, struct mpirma_comm, MPIRMA_GET_COMM, \
		     type, expr)

void mpirma_comm_ref(struct mpirma_comm *c);
void mpirma_comm_unref(struct mpirma_comm *c);

static inline uint64_t mpirma_ctx_p2p(const struct mpirma_comm *c)
{
	return 2 * c->ctx;
}

static inline uint64_t mpirma_ctx_coll(const struct mpirma_comm *c)
{
	return 2 * c->ctx + 1;
}

/*
 * Peer rank -> job rank (rank must be valid): a member of the group, or of
 * the remote group of an inter-communicator.
 */
static inline int mpirma_comm_job_rank(const struct mpirma_comm *c, int rank)
{
	return c->inter ? c->rranks[rank] : c->ranks[rank];
}

/* Job rank -> peer rank, or MPI_UNDEFINED when not a peer. */
static inline int mpirma_comm_rank_of_job(const struct mpirma_comm *c,
					  int job_rank)
{
	const int *map = c->inter ? c->rjob2rank : c->job2rank;
	int r = (job_rank >= 0 && job_rank < mpirma_proc.size) ?
		map[job_rank] : -1;
	return r < 0 ? MPI_UNDEFINED : r;
}

/* The number of peers: the size, or an inter-communicator's remote size. */
static inline int mpirma_comm_peer_size(const struct mpirma_comm *c)
{
	return c->inter ? c->rsize : c->size;
}

/*
 * MPI_SUCCESS for an intra-communicator; MPI_ERR_COMM (recorded) for an
 * inter-communicator, which @what does not take.
 */
int mpirma_comm_intra_only(const struct mpirma_comm *c, const char *what);

/*
 * A new communicator handle of @n job ranks (the caller among them) with
 * context @ctx, inheriting @parent's error handler (comm.c).  MPI class.
 */
int mpirma_comm_new(struct mpirma_comm *parent, int n, const int *ranks,
		    uint64_t ctx, MPI_Comm *out);

/*
 * Undoes mpirma_comm_new for a communicator the user has not seen yet
 * (comm.c).
 */
void mpirma_comm_discard(MPI_Comm handle);

/*
 * The duplicate of inter-communicator @c (intercomm.c), with context *@ctx
 * (one of c's spares), or NULL: agreed on (collective).  MPI class.
 */
int mpirma_intercomm_dup(struct mpirma_comm *c, const uint64_t *ctx,
			 MPI_Comm *out);
/*
 * MPI_Comm_split of inter-communicator @c (intercomm.c): the members of
 * each colour in both groups, MPI_COMM_NULL where the remote group has none.
 * Collective over both groups.  MPI class.
 */
int mpirma_intercomm_split(struct mpirma_comm *c, int color, int key,
			   MPI_Comm *newcomm);

/*
 * A context id unique for every member of @parent: the MAX of the members'
 * mpirma_proc.next_ctx.  Collective over @parent.  MPI class.
 */
int mpirma_comm_new_context(struct mpirma_comm *parent, uint64_t *ctx);

/*
 * A context id unique for every one of @n job ranks @ranks (the caller is
 * @ranks[@rank]): the MAX of their next free ids, gathered in kernel
 * context @kctx with @tag, where no other communication of theirs may
 * take it.  Collective over those ranks alone (MPI_Comm_create_group, the
 * session calls of comm_pset.c).  MPI class.
 */
int mpirma_members_context(int n, const int *ranks, int rank, uint64_t kctx,
			   int tag, uint64_t *ctx);

/*
 * Kernel context of the agreements of MPI_Comm_create_from_group and
 * MPI_Intercomm_create_from_groups (comm_pset.c): the collective context
 * of id 3, which no communicator has (ids 3 ... 15 are never given).
 */
#define MPIRMA_KCTX_PSET	(2 * 3 + 1)

/*
 * A new inter-communicator handle (intercomm.c): the local group @lranks
 * (the caller among them), the remote group @rranks, context @ctx,
 * @parent's error handler.  MPI class.
 */
int mpirma_intercomm_new(struct mpirma_comm *parent, int ln,
			 const int *lranks, int rn, const int *rranks,
			 uint64_t ctx, MPI_Comm *out);

/*
 * Internal byte-level collectives over @c's collective context (comm.c;
 * coll.c may build on them).  Each member contributes @len bytes; @recv gets
 * size * len bytes in rank order.  MPI class.
 */
int mpirma_coll_allgather_bytes(struct mpirma_comm *c, const void *send,
				size_t len, void *recv);

/*
 * Internal tags on the collective context used by comm.c; coll.c uses tags
 * below 0x7f000000.
 */
#define MPIRMA_TAG_COMM_ALLGATHER	0x7f000001
#define MPIRMA_TAG_INTERCOMM		0x7f000002	/* leaders' exchange */

/* ------------------------------------------------------------ requests */

struct mpirma_request;

/**
 * struct mpirma_request_ops - what a kind of request does (p2p, rma...)
 * @progress: try to complete @r; with @block, return only when it is
 *	complete.  Sets r->done and r->status when it completes.  Returns
 *	MPI_SUCCESS or an MPI class (recorded with mpirma_err).
 * @cancel: MPI_Cancel, or NULL when the kind cannot be cancelled; called
 *	on a complete request too (a generalized request's cancel_fn is).
 *	MPI class.
 * @free: MPI_Request_free, when the kind frees its own way (generalized
 *	requests keep their handle until MPI_Grequest_complete); NULL: a
 *	complete request is destroyed, a pending one loses its handle and
 *	is destroyed when it completes.  A persistent kind with @free (the
 *	persistent collectives) is freed only when inactive: freeing an
 *	active one is MPI_ERR_REQUEST.  MPI class.
 * @start: MPI_Start of a persistent request, inactive (checked): begins
 *	one operation, sets r->active.  MPI class.
 * @release: frees what the kind allocated (not @r itself); may be NULL.
 *	MPI class (a generalized request's free_fn's), which the wait or
 *	test that frees the request returns.
 */
struct mpirma_request_ops {
	int (*progress)(struct mpirma_request *r, int block);
	int (*cancel)(struct mpirma_request *r);
	int (*free)(struct mpirma_request *r);
	int (*release)(struct mpirma_request *r);
	int (*start)(struct mpirma_request *r);
};

/**
 * struct mpirma_request - the common head of every request (request_pool.c)
 * @ops: the kind's operations
 * @handle: its MPI_Request
 * @done: complete; @status is valid
 * @comm: where errors of the request are raised (or MPI_COMM_NULL)
 * @win: where errors of the request are raised (or MPI_WIN_NULL)
 * @status: the completion status
 * @persistent: made by MPI_Send_init & co. (p2p_persist.c) or
 *	MPI_Bcast_init & co. (nbc.c): completing it makes it inactive, not
 *	freed
 * @active: a persistent request between MPI_Start and its completion;
 *	an inactive one counts as MPI_REQUEST_NULL in the waits and tests
 * @pooled: its memory is a block of request_pool.c's pool, returned there
 * @shared: the one request of every send complete at its call, never freed
 *
 * A kind embeds this first in its own struct, allocated with
 * mpirma_request_alloc(size of the kind's struct).
 */
struct mpirma_request {
	const struct mpirma_request_ops *ops;
	MPI_Request handle;
	int done;
	MPI_Comm comm;
	MPI_Win win;
	MPI_Status status;
	bool persistent;
	bool active;
	bool pooled;
	bool shared;
};

/*
 * request_pool.c: allocates @size (>= sizeof(struct mpirma_request))
 * zeroed bytes and a handle.  MPI class.
 */
int mpirma_request_alloc(size_t size, const struct mpirma_request_ops *ops,
			 struct mpirma_request **out);
/*
 * request_pool.c: ops->release, then the handle and memory.  Returns
 * ops->release's class.
 */
int mpirma_request_destroy(struct mpirma_request *r);
/*
 * request_pool.c: *@out is the request of a send that completed at its
 * call, one for them all.  MPI class.
 */
int mpirma_request_send_done(MPI_Request *out);
/* request_pool.c: frees the pool of request blocks. */
void mpirma_request_teardown(void);
/* request_pool.c: the request of a handle, or NULL. */
struct mpirma_request *mpirma_request_get(MPI_Request req);

/* ------------------------------------------------------------ runtime-private */

/*
 * init.c: MPI_Init and every session hold the library joined to the job:
 * the first hold joins it (@required: the thread level asked), the last
 * release leaves it (a job barrier, then everything is freed).  MPI class.
 */
int mpirma_hold(int required);
int mpirma_release(void);
/* comm.c: MPI_COMM_WORLD and MPI_COMM_SELF at init (MPI class). */
int mpirma_comm_setup(void);
/* comm.c: MPI_Finalize deletes the attributes of MPI_COMM_SELF, then of
 * MPI_COMM_WORLD (delete callbacks run while MPI still works)... */
void mpirma_comm_finalize_self(void);
/* ...and frees the communicators, groups and other objects left at the end. */
void mpirma_comm_teardown(void);
/* group.c: MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL for two job-rank lists. */
int mpirma_ranks_compare(int n1, const int *r1, int n2, const int *r2);
/* group.c: frees the groups left at MPI_Finalize. */
void mpirma_group_teardown(void);
/*
 * comm.c: MPI_Comm_split without raising: MPI class, cause recorded.
 * The new communicator inherits @comm's error handler.
 */
int mpirma_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
/* topo.c: gives @to a copy of @from's topology (MPI_Comm_dup).  MPI class. */
int mpirma_topo_copy(const struct mpirma_comm *from, struct mpirma_comm *to);

/* A polling wait's pace (poll.c); zeroed before its first look. */
struct mpirma_poller {
	unsigned int rounds;	/* looks so far */
	int spins;		/* mpirma_wait_pause's, with threads */
	double end;		/* of the flat-out polls */
	double yield_at;	/* the next sched_yield() among them */
};

/*
 * The pause after a look that found nothing: true when the wait has polled
 * long enough and its caller should sleep in the kernel (never with
 * threads, where it pauses without the library lock).
 */
bool mpirma_poll_step(struct mpirma_poller *p);

/*
 * Looks a wait may take at the word it waits for with no call between
 * (shmq_spin(), for MPI_Recv's lean lane) before it goes its general way:
 * a peer that answers at once answers within them (a look is a load and
 * a compare: nanoseconds on hardware, tens of them under emulation, where
 * a round of calls costs ten times that).
 */
#define MPIRMA_FLAT_LOOKS	1024
/*
 * May a wait take them now: every rank has a CPU, no other thread needs
 * the library lock, no host needs advancing?
 */
bool mpirma_poll_flat(void);

/*
 * What every wait of the transport advances while it polls: nonblocking
 * collectives at each look, the receives a synchronous sender may wait
 * for at every 16th.  True while there is such work, when a message from
 * any rank may be what the wait needs.
 */
bool mpirma_poll_progress(const struct mpirma_poller *p);

/*
 * The hybrid layer's (mpirma_set_host_progress(), rma_args.h): advances
 * the host MPI, which a wait in the engine must do as the host's own
 * waits would (a peer may wait in the host for this rank's progress);
 * NULL standalone.
 */
extern void (*mpirma_host_progress)(void);

/*
 * A wait's look at the host under the layer: mpirma_host_progress() at
 * every 16th look; true when there is a host, whose messages would not
 * wake a sleep in the kernel.
 */
bool mpirma_poll_host(const struct mpirma_poller *p);

#endif /* MPIRMA_LIB_RUNTIME_H */
