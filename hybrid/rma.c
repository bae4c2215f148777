// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma.c - the communication calls under the layer.  On the engine's windows
 * each call is the engine's call with the host's values converted
 * (convert.c); the engine chooses its path (direct, queued, or at once
 * through the module) as in standalone mpirma.  On every other window the
 * host's own call runs.
 *
 * On a window that spans nodes, an operation to a node-local target is the
 * engine's (on its part of the window), and one to another node is shipped
 * to the target's agent (origin.c), which applies it through the module
 * there: so the host's RMA carries nothing, and its bugs (MPICH 4.0.2's
 * puts to MPI_Win_create windows landing past the target's memory, Open
 * MPI 4.1's op/type table) reach no window mpirma serves.  Without agents
 * (MPIRMA_SPAN_ACCUMULATE=host) every operation to another node, and every
 * accumulate-like one, is the host's.
 *
 * The request-based forms return a host generalized request that is
 * already complete: the engine completes an R-operation locally before it
 * returns, so MPI_Wait and MPI_Test of the host see a finished request.
 *
 * Every call, in its plain, request-based and large-count forms, has one
 * body (rma_op); the entry points only gather their arguments
 * (HY_RMA_ENTRY).
 */
#include "convert.h"
#include "errors.h"
#include "origin.h"
#include "rma_args.h"
#include "span.h"
#include "win.h"

static int grq_query(void *state, MPI_Status *status)
{
	(void)state;
	status->MPI_SOURCE = MPI_UNDEFINED;
	status->MPI_TAG = MPI_UNDEFINED;
	status->MPI_ERROR = MPI_SUCCESS;
	PMPI_Status_set_elements(status, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(status, 0);
	return MPI_SUCCESS;
}

static int grq_free(void *state)
{
	(void)state;
	return MPI_SUCCESS;
}

static int grq_cancel(void *state, int complete)
{
	(void)state;
	(void)complete;
	return MPI_SUCCESS;
}

/* A request that is already complete, for the R-forms. */
static int request_done(MPI_Request *req)
{
	int ret = PMPI_Grequest_start(grq_query, grq_free, grq_cancel, NULL,
				      req);

	return ret ? ret : PMPI_Grequest_complete(*req);
}

/**
 * struct hy_rma - the arguments of any RMA call, host values
 * @kind: MPIRMA_KIND_*; fetch_and_op is MPIRMA_KIND_GET_ACC with @single
 * @oaddr, @ocount, @otype: the origin side (puts, accumulates)
 * @raddr, @rcount, @rtype: the result side (gets: the origin buffer)
 * @caddr: compare_and_swap's compare value
 * @large: the call is a large-count form (its name ends in _c)
 */
struct hy_rma {
	int kind;
	const void *oaddr;
	MPI_Count ocount;
	MPI_Datatype otype;
	void *raddr;
	MPI_Count rcount;
	MPI_Datatype rtype;
	const void *caddr;
	int target;
	MPI_Aint tdisp;
	MPI_Count tcount;
	MPI_Datatype ttype;
	MPI_Op op;
	bool single;
	bool large;
};

/* The engine's values of a call's datatypes and op. */
struct rma_inner {
	MPII_Datatype otype;
	MPII_Datatype rtype;
	MPII_Datatype ttype;
	MPII_Op op;
};

/* The engine's values of @c's datatypes and op, into @v; host class. */
static int rma_convert(const struct hy_rma *c, struct rma_inner *v)
{
	bool acc = c->kind == MPIRMA_KIND_ACC || c->kind == MPIRMA_KIND_GET_ACC;
	bool result = c->kind != MPIRMA_KIND_PUT && c->kind != MPIRMA_KIND_ACC;
	/* With MPI_NO_OP the origin type may be anything, even null. */
	bool origin = c->kind != MPIRMA_KIND_GET &&
		      (c->op != MPI_NO_OP || c->otype != MPI_DATATYPE_NULL);
	int ret = MPI_SUCCESS;

	*v = (struct rma_inner){ MPII_DATATYPE_NULL, MPII_DATATYPE_NULL,
				 MPII_DATATYPE_NULL, MPII_OP_NULL };
	if (origin)
		ret = hy_type(c->otype, &v->otype);
	if (!ret && result)
		ret = hy_type(c->rtype, &v->rtype);
	if (!ret)
		ret = hy_type(c->ttype, &v->ttype);
	if (!ret && acc)
		ret = hy_op(c->op, &v->op);
	return ret;
}

/* The engine's arguments of @c, with its engine values @v. */
static inline struct mpirma_rma_args rma_args(const struct hy_rma *c,
					      const struct rma_inner *v)
{
	return (struct mpirma_rma_args){
		.kind = c->kind, .oaddr = c->oaddr, .ocount = c->ocount,
		.otype = v->otype, .raddr = c->raddr, .rcount = c->rcount,
		.rtype = v->rtype, .caddr = c->caddr, .trank = c->target,
		.tdisp = c->tdisp, .tcount = c->tcount, .ttype = v->ttype,
		.op = v->op, .single = c->single,
	};
}

/*
 * Ships @c (engine values @v) to its target on another node; @defer: its
 * result may wait for the call that completes it (not an R-call).  Host
 * class.
 */
static int rma_ship(struct hy_win *w, const struct hy_rma *c,
		    const struct rma_inner *v, bool defer, const char *fn)
{
	const struct mpirma_rma_args a = rma_args(c, v);

	return hy_ship(w, &a, defer, fn);
}

/*
 * The engine's call for @c (engine values @v) to engine rank @r: the
 * large-count form (the counts may not fit an int), or with @req the
 * request-based one, waited for (the engine completes it locally at
 * once).  Host class.
 */
static int rma_engine(struct hy_win *w, const struct hy_rma *c,
		      const struct rma_inner *v, int r, MPII_Request *req)
{
	const void *o = c->oaddr;
	void *res = c->raddr;
	int ret;

	switch (c->kind) {
	case MPIRMA_KIND_PUT:
		ret = req ? MPII_Rput_c(o, c->ocount, v->otype, r, c->tdisp,
					c->tcount, v->ttype, w->inner, req) :
		      MPII_Put_c(o, c->ocount, v->otype, r, c->tdisp,
				 c->tcount, v->ttype, w->inner);
		break;
	case MPIRMA_KIND_GET:
		ret = req ? MPII_Rget_c(res, c->rcount, v->rtype, r, c->tdisp,
					c->tcount, v->ttype, w->inner, req) :
		      MPII_Get_c(res, c->rcount, v->rtype, r, c->tdisp,
				 c->tcount, v->ttype, w->inner);
		break;
	case MPIRMA_KIND_ACC:
		ret = req ? MPII_Raccumulate_c(o, c->ocount, v->otype, r,
					       c->tdisp, c->tcount, v->ttype,
					       v->op, w->inner, req) :
		      MPII_Accumulate_c(o, c->ocount, v->otype, r, c->tdisp,
					c->tcount, v->ttype, v->op, w->inner);
		break;
	case MPIRMA_KIND_CAS:
		ret = MPII_Compare_and_swap(o, c->caddr, res, v->ttype, r,
					    c->tdisp, w->inner);
		break;
	default:
		if (c->single)
			ret = MPII_Fetch_and_op(o, res, v->ttype, r, c->tdisp,
						v->op, w->inner);
		else if (req)
			ret = MPII_Rget_accumulate_c(o, c->ocount, v->otype,
						     res, c->rcount, v->rtype,
						     r, c->tdisp, c->tcount,
						     v->ttype, v->op,
						     w->inner, req);
		else
			ret = MPII_Get_accumulate_c(o, c->ocount, v->otype,
						    res, c->rcount, v->rtype,
						    r, c->tdisp, c->tcount,
						    v->ttype, v->op, w->inner);
		break;
	}
	ret = hy_inner(ret);
	if (!ret && req)
		ret = hy_inner(MPII_Wait(req, MPII_STATUS_IGNORE));
	return ret;
}

/*
 * The body of every RMA call on an engine window, with hy.lock held: @req
 * NULL for the plain call, else the engine's request of the R-call; @fn
 * the call's name.  Host class.
 */
static int rma_op(struct hy_win *w, const struct hy_rma *c,
		  MPII_Request *req, const char *fn)
{
	struct rma_inner v;
	int ret = rma_convert(c, &v);

	if (!ret)
		ret = hy_span_access(w, c->target);
	if (ret)
		return ret;
	if (hy_remote(w, c->target))
		return rma_ship(w, c, &v, !req, fn);
	return rma_engine(w, c, &v, hy_rank(w, c->target), req);
}

/*
 * The engine's entry of @c for the layer (mpirma_at_NAME(), rma_args.h),
 * engine values @v, on @w: the engine's lean lane, else its general one,
 * which raises a failure on the program's window (mpirma_at_failed,
 * win.c).  Called last, so that the call ends with a jump to the entry.
 */
#define RMA_AT(c, name, ...)						\
	((c)->large ? mpirma_at_##name##_c(__VA_ARGS__) :		\
		      mpirma_at_##name(__VA_ARGS__))

static inline __attribute__((always_inline)) int
rma_at(const struct hy_win *w, const struct hy_rma *c,
       const struct rma_inner *v)
{
	switch (c->kind) {
	case MPIRMA_KIND_PUT:
		return RMA_AT(c, Put, &w->at, c->oaddr, c->ocount, v->otype,
			      c->target, c->tdisp, c->tcount, v->ttype);
	case MPIRMA_KIND_GET:
		return RMA_AT(c, Get, &w->at, c->raddr, c->rcount, v->rtype,
			      c->target, c->tdisp, c->tcount, v->ttype);
	case MPIRMA_KIND_CAS:
		return mpirma_at_Compare_and_swap(&w->at, c->oaddr, c->caddr,
						  c->raddr, v->ttype,
						  c->target, c->tdisp);
	case MPIRMA_KIND_ACC:
		return RMA_AT(c, Accumulate, &w->at, c->oaddr, c->ocount,
			      v->otype, c->target, c->tdisp, c->tcount,
			      v->ttype, v->op);
	default:
		if (c->single)
			return mpirma_at_Fetch_and_op(&w->at, c->oaddr,
						      c->raddr, v->ttype,
						      c->target, c->tdisp,
						      v->op);
		return RMA_AT(c, Get_accumulate, &w->at, c->oaddr, c->ocount,
			      v->otype, c->raddr, c->rcount, v->rtype,
			      c->target, c->tdisp, c->tcount, v->ttype, v->op);
	}
}

/*
 * The fast lane of the plain calls: on a window of this node's engine that
 * spans no nodes, to a target rank, with predefined datatypes (or derived
 * ones converted lately, hy_type_derived()) and a predefined op, the
 * window, with the engine's values of the datatypes and op in @v, for the
 * engine's entry for the layer (rma_at()), without hy.lock, so the layer
 * adds a window lookup and the conversions to what the call costs
 * standalone.  NULL: the general path decides (and reports every error of
 * the conversions).  Inline everywhere, so that @c is never built in
 * memory here.
 */
static inline __attribute__((always_inline)) struct hy_win *
rma_fast(MPI_Win win, const struct hy_rma *c, struct rma_inner *v,
	 bool last_only)
{
	bool acc = c->kind == MPIRMA_KIND_ACC || c->kind == MPIRMA_KIND_GET_ACC;
	bool result = c->kind != MPIRMA_KIND_PUT && c->kind != MPIRMA_KIND_ACC;

	*v = (struct rma_inner){ MPII_DATATYPE_NULL, MPII_DATATYPE_NULL,
				 MPII_DATATYPE_NULL, MPII_OP_NULL };
	if (c->target < 0)
		return NULL;
	v->ttype = hy_type_fast(c->ttype, last_only);
	if (v->ttype == MPII_DATATYPE_NULL)
		return NULL;
	if (c->kind != MPIRMA_KIND_GET)
		v->otype = c->otype == c->ttype ? v->ttype :
			   hy_type_fast(c->otype, last_only);
	if (result)
		v->rtype = c->rtype == c->ttype ? v->ttype :
			   hy_type_fast(c->rtype, last_only);
	if (acc)
		v->op = hy_op_fast(c->op, last_only);
	if ((c->kind != MPIRMA_KIND_GET && v->otype == MPII_DATATYPE_NULL) ||
	    (result && v->rtype == MPII_DATATYPE_NULL) ||
	    (acc && v->op == MPII_OP_NULL))
		return NULL;
	return last_only ? hy_win_cached(win) : hy_win_fast(win);
}

/*
 * Where @win's call @c goes: the engine's window, with hy.lock taken, or
 * NULL when the host serves it (hy_enter_to, hy_enter_acc).
 */
static struct hy_win *rma_enter(MPI_Win win, const struct hy_rma *c)
{
	if (c->kind == MPIRMA_KIND_PUT || c->kind == MPIRMA_KIND_GET)
		return hy_enter_to(win, c->target);
	return hy_enter_acc(win, c->target);
}

/*
 * Runs @c on the engine's window @w (hy.lock held, released here) in the
 * name of @fn; @req: the program's request of an R-call, or NULL.
 */
static int rma_call(struct hy_win *w, const struct hy_rma *c,
		    MPI_Request *req, const char *fn)
{
	MPII_Request ireq;
	int ret = rma_op(w, c, req ? &ireq : NULL, fn);

	hy_unlock();
	if (req && !ret)
		ret = request_done(req);
	else if (req)
		*req = MPI_REQUEST_NULL;
	return hy_raise(w->host, ret, fn);
}

/*
 * The entry points of put, get, accumulate and get_accumulate: their
 * parameters (COUNT: int, or MPI_Count in the large-count forms), the
 * host's call's arguments, and struct hy_rma from them.  Every field is
 * named, so the compiler clears nothing first (a rep stos, which
 * emulators run a step at a time).
 */
#define RMA_FIELDS(KIND, OADDR, OCOUNT, OTYPE, RADDR, RCOUNT, RTYPE, OP) \
	.kind = (KIND), .oaddr = (OADDR), .ocount = (OCOUNT), \
	.otype = (OTYPE), .raddr = (RADDR), .rcount = (RCOUNT), \
	.rtype = (RTYPE), .caddr = NULL, .target = target, .tdisp = tdisp, \
	.tcount = tcount, .ttype = ttype, .op = (OP), .single = false

#define PUT_PARAMS(COUNT) const void *oaddr, COUNT ocount, \
	MPI_Datatype otype, int target, MPI_Aint tdisp, COUNT tcount, \
	MPI_Datatype ttype, MPI_Win win
#define PUT_ARGS oaddr, ocount, otype, target, tdisp, tcount, ttype, win
#define PUT_FIELDS RMA_FIELDS(MPIRMA_KIND_PUT, oaddr, ocount, otype, NULL, \
			      0, MPI_DATATYPE_NULL, MPI_OP_NULL)

#define GET_PARAMS(COUNT) void *oaddr, COUNT ocount, MPI_Datatype otype, \
	int target, MPI_Aint tdisp, COUNT tcount, MPI_Datatype ttype, \
	MPI_Win win
#define GET_ARGS PUT_ARGS
#define GET_FIELDS RMA_FIELDS(MPIRMA_KIND_GET, NULL, 0, MPI_DATATYPE_NULL, \
			      oaddr, ocount, otype, MPI_OP_NULL)

#define ACC_PARAMS(COUNT) const void *oaddr, COUNT ocount, \
	MPI_Datatype otype, int target, MPI_Aint tdisp, COUNT tcount, \
	MPI_Datatype ttype, MPI_Op op, MPI_Win win
#define ACC_ARGS oaddr, ocount, otype, target, tdisp, tcount, ttype, op, win
#define ACC_FIELDS RMA_FIELDS(MPIRMA_KIND_ACC, oaddr, ocount, otype, NULL, \
			      0, MPI_DATATYPE_NULL, op)

#define GACC_PARAMS(COUNT) const void *oaddr, COUNT ocount, \
	MPI_Datatype otype, void *raddr, COUNT rcount, MPI_Datatype rtype, \
	int target, MPI_Aint tdisp, COUNT tcount, MPI_Datatype ttype, \
	MPI_Op op, MPI_Win win
#define GACC_ARGS oaddr, ocount, otype, raddr, rcount, rtype, target, tdisp, \
	tcount, ttype, op, win
#define GACC_FIELDS RMA_FIELDS(MPIRMA_KIND_GET_ACC, oaddr, ocount, otype, \
			       raddr, rcount, rtype, op)

/*
 * The general path of an entry point MPI_NAME on @win: its arguments
 * (FIELDS), and HOST_ARGS for the host's own call when the host serves
 * @win; @req, the program's request of an R-call, or NULL.  Both lists in
 * parentheses.
 */
#define HY_LIST(...) __VA_ARGS__
#define HY_RMA_RUN(NAME, FIELDS, HOST_ARGS, req)			\
	do {								\
		const struct hy_rma c = { HY_LIST FIELDS };		\
		struct hy_win *w = rma_enter(win, &c);			\
									\
		if (!w)							\
			return PMPI_##NAME HOST_ARGS;			\
		return rma_call(w, &c, req, "MPI_" #NAME);		\
	} while (0)

/*
 * A plain call MPI_NAME: the fast lane with the last window, datatype and
 * op looked up, which calls nothing before the engine, else, in a function of
 * its own (rma_slow_NAME) so that the first keeps no registers for it, the
 * fast lane with any predefined ones, else the general path.
 * PARAMS(COUNT): its parameters; ARGS and FIELDS as above, both in
 * parentheses.
 */
/* HY_LARGE_<COUNT>: are counts of type COUNT a large-count form's? */
#define HY_LARGE_int false
#define HY_LARGE_void false
#define HY_LARGE_MPI_Count true
/* The fast lane of HY_RMA_PLAIN's tier @last_only: returns if it serves. */
#define HY_RMA_FAST(COUNT, FIELDS, last_only)				\
	do {								\
		const struct hy_rma f = { HY_LIST FIELDS,		\
					  .large = HY_LARGE_##COUNT };	\
		struct rma_inner v;					\
		struct hy_win *w = rma_fast(win, &f, &v, last_only);	\
									\
		if (w)							\
			return rma_at(w, &f, &v);			\
	} while (0)

#define HY_RMA_PLAIN(NAME, COUNT, PARAMS, ARGS, FIELDS)			\
static __attribute__((noinline)) int rma_slow_##NAME(PARAMS(COUNT))	\
{									\
	HY_RMA_FAST(COUNT, FIELDS, false);				\
	HY_RMA_RUN(NAME, FIELDS, ARGS, NULL);				\
}									\
									\
HY_PAIR(NAME) int MPI_##NAME(PARAMS(COUNT))				\
{									\
	HY_RMA_FAST(COUNT, FIELDS, true);				\
	return rma_slow_##NAME ARGS;					\
}

/*
 * MPI_NAME and its request-based form MPI_RNAME, with counts of type
 * COUNT, from the call's PARAMS, ARGS and FIELDS.
 */
#define HY_RMA_ENTRY(NAME, RNAME, COUNT, PARAMS, ARGS, FIELDS)		\
HY_RMA_PLAIN(NAME, COUNT, PARAMS, (ARGS), (FIELDS))			\
									\
int MPI_##RNAME(PARAMS(COUNT), MPI_Request *req)			\
{									\
	HY_RMA_RUN(RNAME, (FIELDS), (ARGS, req), req);			\
}

HY_RMA_ENTRY(Put, Rput, int, PUT_PARAMS, PUT_ARGS, PUT_FIELDS)
HY_RMA_ENTRY(Get, Rget, int, GET_PARAMS, GET_ARGS, GET_FIELDS)
HY_RMA_ENTRY(Accumulate, Raccumulate, int, ACC_PARAMS, ACC_ARGS, ACC_FIELDS)
HY_RMA_ENTRY(Get_accumulate, Rget_accumulate, int, GACC_PARAMS, GACC_ARGS,
	     GACC_FIELDS)

#if MPI_VERSION >= 4
/* MPI 4.0's large-count forms, where the host declares them (MPICH 4). */
HY_RMA_ENTRY(Put_c, Rput_c, MPI_Count, PUT_PARAMS, PUT_ARGS, PUT_FIELDS)
HY_RMA_ENTRY(Get_c, Rget_c, MPI_Count, GET_PARAMS, GET_ARGS, GET_FIELDS)
HY_RMA_ENTRY(Accumulate_c, Raccumulate_c, MPI_Count, ACC_PARAMS, ACC_ARGS,
	     ACC_FIELDS)
HY_RMA_ENTRY(Get_accumulate_c, Rget_accumulate_c, MPI_Count, GACC_PARAMS,
	     GACC_ARGS, GACC_FIELDS)
#endif /* MPI_VERSION >= 4 */

#define FOP_PARAMS(COUNT) const void *oaddr, void *raddr, MPI_Datatype type, \
	int target, MPI_Aint tdisp, MPI_Op op, MPI_Win win
#define FOP_ARGS oaddr, raddr, type, target, tdisp, op, win
#define FOP_FIELDS .kind = MPIRMA_KIND_GET_ACC, .oaddr = oaddr, .ocount = 1, \
	.otype = type, .raddr = raddr, .rcount = 1, .rtype = type, \
	.caddr = NULL, .target = target, .tdisp = tdisp, .tcount = 1, \
	.ttype = type, .op = op, .single = true

HY_RMA_PLAIN(Fetch_and_op, void, FOP_PARAMS, (FOP_ARGS), (FOP_FIELDS))

#define CAS_PARAMS(COUNT) const void *oaddr, const void *caddr, void *raddr, \
	MPI_Datatype type, int target, MPI_Aint tdisp, MPI_Win win
#define CAS_ARGS oaddr, caddr, raddr, type, target, tdisp, win
#define CAS_FIELDS .kind = MPIRMA_KIND_CAS, .oaddr = oaddr, .ocount = 1, \
	.otype = type, .raddr = raddr, .rcount = 1, .rtype = type, \
	.caddr = caddr, .target = target, .tdisp = tdisp, .tcount = 1, \
	.ttype = type, .op = MPI_OP_NULL, .single = true

HY_RMA_PLAIN(Compare_and_swap, void, CAS_PARAMS, (CAS_ARGS), (CAS_FIELDS))
