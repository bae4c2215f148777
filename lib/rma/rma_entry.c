// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma_entry.c - the entry points of the communication calls: MPI_Put,
 * MPI_Get, MPI_Accumulate and MPI_Get_accumulate in their plain,
 * request-based (MPI_Rput...) and large-count (MPI_Put_c...) forms, and
 * MPI_Fetch_and_op and MPI_Compare_and_swap.  Each fills struct
 * mpirma_rma_args and hands it to the engine, mpirma_rma_call()
 * (lib/rma/rma.c).
 *
 * The four forms of a call differ only in the type of their counts and in
 * the request, so each call's forms are generated from one definition
 * (RMA_FORMS()); each form is still a function of its own name, which its
 * errors name (MPIRMA_FUNC), and which the hybrid layer renames.
 *
 * The request-based calls complete at once: they are never queued, so their
 * request is born complete (which the standard allows).
 */
#include "runtime.h"
#include "request.h"
#include "rma_args.h"
#include "win.h"

/*
 * A request-based call: the operation is complete when mpirma_rma_call()
 * returns, so its request is born complete.  MPI class (recorded).
 */
static int rma_call_req(MPI_Win win, const struct mpirma_rma_args *a,
			MPI_Request *request)
{
	int ret;

	if (!request)
		return mpirma_err(MPI_ERR_ARG, "request is NULL");
	*request = MPI_REQUEST_NULL;
	ret = mpirma_rma_call(win, a, true);
	if (ret)
		return ret;
	return mpirma_request_new_done(MPI_COMM_NULL, win, MPI_SUCCESS,
				       request);
}

/*
 * The body of every form of put, get, accumulate and get_accumulate.
 * @request: NULL for the forms without one.  @fn: the call's name (errors
 * name the form the program called).
 *
 * With MPI_THREAD_MULTIPLE the communication calls do not take the library
 * lock: what they read of the window (epoch state, extents, mappings) only
 * the synchronization calls change, handles are looked up without a lock
 * (lib/base/internal.h), nothing is queued, and the direct path and the
 * kernel are safe to enter from any number of threads.  Only a request
 * (mpirma_request_new_done()) takes the lock.
 */
static int rma_entry(MPI_Win win, const struct mpirma_rma_args *a,
		     MPI_Request *request, const char *fn)
{
	if (mpirma_unlikely(mpirma_proc.state != MPIRMA_STATE_RUNNING))
		return mpirma_not_running(fn);
	return mpirma_raise_win(win, request ? rma_call_req(win, a, request) :
				mpirma_rma_call(win, a, false), fn, NULL);
}

/*
 * Each call of four forms is described once: RMA_PARAMS_<k>(count type),
 * its parameters as include/mpi.h has them (but the request; RMA_NOWIN_<k>
 * also without the window, which the layer's entries take first), and
 * RMA_ARGS_<k>, its struct mpirma_rma_args in the parameters' names.  The
 * origin buffer of a get is the kernel's result side; a put has no op.
 */
#define RMA_PARAMS_ORIGIN(count_t)					\
	const void *origin_addr, count_t origin_count,			\
	MPI_Datatype origin_datatype
#define RMA_PARAMS_TARGET(count_t)					\
	int target_rank, MPI_Aint target_disp, count_t target_count,	\
	MPI_Datatype target_datatype
#define RMA_ARGS_ORIGIN							\
	.oaddr = origin_addr, .ocount = origin_count, .otype = origin_datatype
#define RMA_ARGS_TARGET							\
	.trank = target_rank, .tdisp = target_disp,			\
	.tcount = target_count, .ttype = target_datatype

#define RMA_PARAMS_PUT(count_t)	RMA_NOWIN_PUT(count_t), MPI_Win win
#define RMA_NOWIN_PUT(count_t)						\
	RMA_PARAMS_ORIGIN(count_t), RMA_PARAMS_TARGET(count_t)
#define RMA_ARGS_PUT							\
	{ .kind = MPIRMA_KIND_PUT, RMA_ARGS_ORIGIN, RMA_ARGS_TARGET }

#define RMA_PARAMS_GET(count_t)	RMA_NOWIN_GET(count_t), MPI_Win win
#define RMA_NOWIN_GET(count_t)						\
	void *origin_addr, count_t origin_count,			\
	MPI_Datatype origin_datatype, RMA_PARAMS_TARGET(count_t)
#define RMA_ARGS_GET							\
	{ .kind = MPIRMA_KIND_GET, .raddr = origin_addr,		\
	  .rcount = origin_count, .rtype = origin_datatype, RMA_ARGS_TARGET }

#define RMA_PARAMS_ACC(count_t)	RMA_NOWIN_ACC(count_t), MPI_Win win
#define RMA_NOWIN_ACC(count_t)						\
	RMA_PARAMS_ORIGIN(count_t), RMA_PARAMS_TARGET(count_t), MPI_Op op
#define RMA_ARGS_ACC							\
	{ .kind = MPIRMA_KIND_ACC, RMA_ARGS_ORIGIN, RMA_ARGS_TARGET, .op = op }

#define RMA_PARAMS_GET_ACC(count_t)	RMA_NOWIN_GET_ACC(count_t), MPI_Win win
#define RMA_NOWIN_GET_ACC(count_t)					\
	RMA_PARAMS_ORIGIN(count_t), void *result_addr, count_t result_count, \
	MPI_Datatype result_datatype, RMA_PARAMS_TARGET(count_t), MPI_Op op
#define RMA_ARGS_GET_ACC						\
	{ .kind = MPIRMA_KIND_GET_ACC, RMA_ARGS_ORIGIN,			\
	  .raddr = result_addr, .rcount = result_count,			\
	  .rtype = result_datatype, RMA_ARGS_TARGET, .op = op }

/* PMPI_@name and MPI_@name: request-based call @k, counts of @count_t. */
#define RMA_DEFINE_REQ(name, k, count_t)				\
int PMPI_##name(RMA_PARAMS_##k(count_t), MPI_Request *request)		\
{									\
	struct mpirma_rma_args a = RMA_ARGS_##k;			\
									\
	return rma_entry(win, &a, request, MPIRMA_FUNC);		\
}									\
MPIRMA_ALIAS(name)

/*
 * The parameters' names of call @k (RMA_NAMES_<k>) and its lean lane
 * (RMA_LEAN_<k>, lib/rma/rma_lean.c), true when that has done the call.
 */
#define RMA_NAMES_PUT							\
	origin_addr, origin_count, origin_datatype, target_rank,	\
	target_disp, target_count, target_datatype, win
#define RMA_NAMES_GET	RMA_NAMES_PUT
#define RMA_NAMES_ACC							\
	origin_addr, origin_count, origin_datatype, target_rank,	\
	target_disp, target_count, target_datatype, op, win
#define RMA_NAMES_GET_ACC						\
	origin_addr, origin_count, origin_datatype, result_addr,	\
	result_count, result_datatype, target_rank, target_disp,	\
	target_count, target_datatype, op, win

/*
 * The lean lane of call @k on window @lw (mpirma_lean_window(), NULL: none),
 * in the parameters' names: true when it has done the call.
 */
#define RMA_LEAN_PUT(lw)						\
	mpirma_lean_move(lw, true, (void *)origin_addr, origin_count,	\
			 origin_datatype, target_rank, target_disp,	\
			 target_count, target_datatype)
#define RMA_LEAN_GET(lw)						\
	mpirma_lean_move(lw, false, origin_addr, origin_count,		\
			 origin_datatype, target_rank, target_disp,	\
			 target_count, target_datatype)
#define RMA_LEAN_ACC(lw)						\
	mpirma_lean_acc(lw, origin_addr, origin_count, origin_datatype,	\
			NULL, 0, 0, target_rank, target_disp, target_count, \
			target_datatype, op)
#define RMA_LEAN_GET_ACC(lw)						\
	mpirma_lean_acc(lw, origin_addr, origin_count, origin_datatype,	\
			result_addr, result_count, result_datatype,	\
			target_rank, target_disp, target_count,		\
			target_datatype, op)

/*
 * A plain call: the lean lane, else the general one, in a function of its
 * own so that the lean one keeps no registers for it.
 */
#define RMA_DEFINE_LEAN(name, k, count_t)				\
static __attribute__((noinline)) int					\
rma_general_##name(RMA_PARAMS_##k(count_t), const char *fn)		\
{									\
	struct mpirma_rma_args a = RMA_ARGS_##k;			\
									\
	return rma_entry(win, &a, NULL, fn);				\
}									\
									\
int PMPI_##name(RMA_PARAMS_##k(count_t))				\
{									\
	if (RMA_LEAN_##k(mpirma_window_get(win)))			\
		return MPI_SUCCESS;					\
	return rma_general_##name(RMA_NAMES_##k, MPIRMA_FUNC);		\
}									\
MPIRMA_ALIAS(name)

/* The four forms of call @k: @name, @rname (request-based) and their _c. */
#define RMA_FORMS(k, name, rname)					\
	RMA_DEFINE_LEAN(name, k, int)					\
	RMA_DEFINE_LEAN(name##_c, k, MPI_Count)				\
	RMA_DEFINE_REQ(rname, k, int)					\
	RMA_DEFINE_REQ(rname##_c, k, MPI_Count)

RMA_FORMS(PUT, Put, Rput)
RMA_FORMS(GET, Get, Rget)
RMA_FORMS(ACC, Accumulate, Raccumulate)
RMA_FORMS(GET_ACC, Get_accumulate, Rget_accumulate)

/*
 * The layer's entry mpirma_at_@fn for call @k (rma_args.h), with the
 * large-count form's general lane: @hot places it.
 */
#define RMA_DEFINE_AT(name, k, fn, hot)					\
hot int mpirma_at_##fn(const struct mpirma_at_win *aw,			\
		       RMA_NOWIN_##k(MPI_Count))			\
{									\
	MPI_Win win = aw->win;						\
									\
	if (RMA_LEAN_##k(aw->lw))					\
		return MPI_SUCCESS;					\
	return mpirma_at_done(aw, rma_general_##name##_c(RMA_NAMES_##k,	\
							 "MPI_" #fn),	\
			      "MPI_" #fn);				\
}

/* Each in the page of the layer's call (MPIRMA_AT_ENTRY). */
#define RMA_AT_FORMS(name, k)						\
	RMA_DEFINE_AT(name, k, name, MPIRMA_AT_ENTRY(name))		\
	RMA_DEFINE_AT(name, k, name##_c, MPIRMA_AT_ENTRY(name##_c))

RMA_AT_FORMS(Put, PUT)
RMA_AT_FORMS(Get, GET)
RMA_AT_FORMS(Accumulate, ACC)
RMA_AT_FORMS(Get_accumulate, GET_ACC)

/*
 * The one-element calls have one form each: the lean lane, else the
 * general one (fop_general(), cas_general()), in a function of its own (so
 * that the lean one keeps no registers for it), which takes the library
 * lock as other API calls do.
 */
static inline int one_general(const struct mpirma_rma_args *a, MPI_Win win,
			      const char *fn)
{
	MPIRMA_LOCK_GUARD();

	if (mpirma_unlikely(mpirma_proc.state != MPIRMA_STATE_RUNNING))
		return mpirma_not_running(fn);
	return mpirma_raise_win(win, mpirma_rma_call(win, a, false), fn, NULL);
}

static __attribute__((noinline)) int
fop_general(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
	    int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	return one_general(&(struct mpirma_rma_args){
		.kind = MPIRMA_KIND_GET_ACC, .oaddr = origin_addr,
		.ocount = 1, .otype = datatype, .raddr = result_addr,
		.rcount = 1, .rtype = datatype, .trank = target_rank,
		.tdisp = target_disp, .tcount = 1, .ttype = datatype,
		.op = op, .single = true,
	}, win, "MPI_Fetch_and_op");
}

/* Fetch-and-op on the window @lw of @win: the lean lane, else the general. */
static __always_inline int fop_call(struct mpirma_window *lw,
				    const void *origin_addr, void *result_addr,
				    MPI_Datatype datatype, int target_rank,
				    MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	if (mpirma_lean_fop(lw, origin_addr, result_addr, datatype,
			    target_rank, target_disp, op))
		return MPI_SUCCESS;
	return fop_general(origin_addr, result_addr, datatype, target_rank,
			   target_disp, op, win);
}

MPIRMA_AT_ENTRY(Fetch_and_op) int
mpirma_at_Fetch_and_op(const struct mpirma_at_win *aw, const void *origin_addr,
		       void *result_addr, MPI_Datatype datatype,
		       int target_rank, MPI_Aint target_disp, MPI_Op op)
{
	return mpirma_at_done(aw, fop_call(aw->lw, origin_addr, result_addr,
					   datatype, target_rank, target_disp,
					   op, aw->win), "MPI_Fetch_and_op");
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr,
		      MPI_Datatype datatype, int target_rank,
		      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	return fop_call(mpirma_window_get(win), origin_addr, result_addr,
			datatype, target_rank, target_disp, op, win);
}
MPIRMA_ALIAS(Fetch_and_op)

static __attribute__((noinline)) int
cas_general(const void *origin_addr, const void *compare_addr,
	    void *result_addr, MPI_Datatype datatype, int target_rank,
	    MPI_Aint target_disp, MPI_Win win)
{
	return one_general(&(struct mpirma_rma_args){
		.kind = MPIRMA_KIND_CAS, .oaddr = origin_addr, .ocount = 1,
		.otype = datatype, .raddr = result_addr, .rcount = 1,
		.rtype = datatype, .caddr = compare_addr,
		.trank = target_rank, .tdisp = target_disp, .tcount = 1,
		.ttype = datatype, .single = true,
	}, win, "MPI_Compare_and_swap");
}

/* Compare-and-swap on the window @lw of @win: the lean lane, else the general. */
static __always_inline int cas_call(struct mpirma_window *lw,
				    const void *origin_addr,
				    const void *compare_addr, void *result_addr,
				    MPI_Datatype datatype, int target_rank,
				    MPI_Aint target_disp, MPI_Win win)
{
	if (mpirma_lean_cas(lw, origin_addr, compare_addr, result_addr,
			    datatype, target_rank, target_disp))
		return MPI_SUCCESS;
	return cas_general(origin_addr, compare_addr, result_addr, datatype,
			   target_rank, target_disp, win);
}

MPIRMA_AT_ENTRY(Compare_and_swap) int
mpirma_at_Compare_and_swap(const struct mpirma_at_win *aw,
			   const void *origin_addr, const void *compare_addr,
			   void *result_addr, MPI_Datatype datatype,
			   int target_rank, MPI_Aint target_disp)
{
	return mpirma_at_done(aw, cas_call(aw->lw, origin_addr, compare_addr,
					   result_addr, datatype, target_rank,
					   target_disp, aw->win),
			      "MPI_Compare_and_swap");
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
			  void *result_addr, MPI_Datatype datatype,
			  int target_rank, MPI_Aint target_disp, MPI_Win win)
{
	return cas_call(mpirma_window_get(win), origin_addr, compare_addr,
			result_addr, datatype, target_rank, target_disp, win);
}
MPIRMA_ALIAS(Compare_and_swap)
