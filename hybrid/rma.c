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
 * to the target's agent (ship.c), which applies it through the module
 * there: so the host's RMA carries nothing, and its bugs (MPICH 4.0.2's
 * puts to MPI_Win_create windows landing past the target's memory, Open
 * MPI 4.1's op/type table) reach no window mpirma serves.  Without agents
 * (MPIRMA_SPAN_ACCUMULATE=host) every operation to another node, and every
 * accumulate-like one, is the host's.
 *
 * The request-based forms return a host generalized request that is
 * already complete: the engine completes an R-operation locally before it
 * returns, so MPI_Wait and MPI_Test of the host see a finished request.
 */
#include <limits.h>

#include "hybrid.h"
#include "ship.h"

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

int hy_request_done(MPI_Request *req)
{
	int ret = PMPI_Grequest_start(grq_query, grq_free, grq_cancel, NULL,
				      req);

	return ret ? ret : PMPI_Grequest_complete(*req);
}

/* Converts the two datatypes of a call; host class. */
static int two_types(MPI_Datatype a, MPII_Datatype *ia, MPI_Datatype b,
		     MPII_Datatype *ib)
{
	int ret = hy_type(a, ia);

	return ret ? ret : hy_type(b, ib);
}

/* The engine's request of an R-call, waited for; host class. */
static int inner_wait(int code, MPII_Request *ireq)
{
	int ret = hy_inner(code);

	if (!ret)
		ret = hy_inner(MPII_Wait(ireq, MPII_STATUS_IGNORE));
	return ret;
}

/* Do counts fit the engine's plain calls (else its _c forms)? */
static bool fits(MPI_Count a, MPI_Count b, MPI_Count c)
{
	return a <= INT_MAX && b <= INT_MAX && c <= INT_MAX;
}

/*
 * The four operations that have R-forms, on an engine window with hy.lock
 * held: @req NULL for the plain call, else the R-call, waited for (the
 * engine completes it locally at once); @fn the call's name.  Counts are
 * MPI_Count for MPI 4.0's large-count forms.  Host class.
 */
static int put(struct hy_win *w, const void *oaddr, MPI_Count ocount,
	       MPI_Datatype otype, int target, MPI_Aint tdisp, MPI_Count tcount,
	       MPI_Datatype ttype, MPII_Request *req, const char *fn)
{
	MPII_Datatype iot, itt;
	int ret = two_types(otype, &iot, ttype, &itt);

	if (!ret)
		ret = hy_span_access(w, target);
	if (ret)
		return ret;
	if (hy_remote(w, target)) {
		struct mpirma_rma_args a = {
			.kind = MPIRMA_KIND_PUT, .oaddr = oaddr,
			.ocount = ocount, .otype = iot, .trank = target,
			.tdisp = tdisp, .tcount = tcount, .ttype = itt,
		};

		return hy_ship(w, &a, fn);
	}
	if (!req && fits(ocount, tcount, 0))
		return hy_inner(MPII_Put(oaddr, (int)ocount, iot,
					 hy_rank(w, target), tdisp,
					 (int)tcount, itt, w->inner));
	if (!req)
		return hy_inner(MPII_Put_c(oaddr, ocount, iot,
					   hy_rank(w, target), tdisp, tcount,
					   itt, w->inner));
	return inner_wait(MPII_Rput_c(oaddr, ocount, iot, hy_rank(w, target),
				      tdisp, tcount, itt, w->inner, req), req);
}

static int get(struct hy_win *w, void *oaddr, MPI_Count ocount,
	       MPI_Datatype otype, int target, MPI_Aint tdisp,
	       MPI_Count tcount, MPI_Datatype ttype, MPII_Request *req,
	       const char *fn)
{
	MPII_Datatype iot, itt;
	int ret = two_types(otype, &iot, ttype, &itt);

	if (!ret)
		ret = hy_span_access(w, target);
	if (ret)
		return ret;
	if (hy_remote(w, target)) {
		struct mpirma_rma_args a = {
			.kind = MPIRMA_KIND_GET, .raddr = oaddr,
			.rcount = ocount, .rtype = iot, .trank = target,
			.tdisp = tdisp, .tcount = tcount, .ttype = itt,
		};

		return hy_ship(w, &a, fn);
	}
	if (!req && fits(ocount, tcount, 0))
		return hy_inner(MPII_Get(oaddr, (int)ocount, iot,
					 hy_rank(w, target), tdisp,
					 (int)tcount, itt, w->inner));
	if (!req)
		return hy_inner(MPII_Get_c(oaddr, ocount, iot,
					   hy_rank(w, target), tdisp, tcount,
					   itt, w->inner));
	return inner_wait(MPII_Rget_c(oaddr, ocount, iot, hy_rank(w, target),
				      tdisp, tcount, itt, w->inner, req), req);
}

static int acc(struct hy_win *w, const void *oaddr, MPI_Count ocount,
	       MPI_Datatype otype, int target, MPI_Aint tdisp,
	       MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
	       MPII_Request *req, const char *fn)
{
	MPII_Datatype iot, itt;
	MPII_Op iop;
	int ret = two_types(otype, &iot, ttype, &itt);

	if (!ret)
		ret = hy_op(op, &iop);
	if (!ret)
		ret = hy_span_access(w, target);
	if (ret)
		return ret;
	if (hy_remote(w, target)) {
		struct mpirma_rma_args a = {
			.kind = MPIRMA_KIND_ACC, .oaddr = oaddr,
			.ocount = ocount, .otype = iot, .trank = target,
			.tdisp = tdisp, .tcount = tcount, .ttype = itt,
			.op = iop,
		};

		return hy_ship(w, &a, fn);
	}
	if (!req && fits(ocount, tcount, 0))
		return hy_inner(MPII_Accumulate(oaddr, (int)ocount, iot,
						hy_rank(w, target), tdisp,
						(int)tcount, itt, iop,
						w->inner));
	if (!req)
		return hy_inner(MPII_Accumulate_c(oaddr, ocount, iot,
						  hy_rank(w, target), tdisp,
						  tcount, itt, iop, w->inner));
	return inner_wait(MPII_Raccumulate_c(oaddr, ocount, iot,
					     hy_rank(w, target), tdisp, tcount,
					     itt, iop, w->inner, req), req);
}

static int get_acc(struct hy_win *w, const void *oaddr, MPI_Count ocount,
		   MPI_Datatype otype, void *raddr, MPI_Count rcount,
		   MPI_Datatype rtype, int target, MPI_Aint tdisp,
		   MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
		   MPII_Request *req, const char *fn)
{
	MPII_Datatype iot = MPII_DATATYPE_NULL, irt, itt;
	MPII_Op iop;
	int ret = MPI_SUCCESS;

	/* With MPI_NO_OP the origin type may be anything, even null. */
	if (op != MPI_NO_OP || otype != MPI_DATATYPE_NULL)
		ret = hy_type(otype, &iot);
	if (!ret)
		ret = two_types(rtype, &irt, ttype, &itt);
	if (!ret)
		ret = hy_op(op, &iop);
	if (!ret)
		ret = hy_span_access(w, target);
	if (ret)
		return ret;
	if (hy_remote(w, target)) {
		struct mpirma_rma_args a = {
			.kind = MPIRMA_KIND_GET_ACC, .oaddr = oaddr,
			.ocount = ocount, .otype = iot, .raddr = raddr,
			.rcount = rcount, .rtype = irt, .trank = target,
			.tdisp = tdisp, .tcount = tcount, .ttype = itt,
			.op = iop,
		};

		return hy_ship(w, &a, fn);
	}
	if (!req && fits(ocount, rcount, tcount))
		return hy_inner(MPII_Get_accumulate(oaddr, (int)ocount, iot,
						    raddr, (int)rcount, irt,
						    hy_rank(w, target), tdisp,
						    (int)tcount, itt, iop,
						    w->inner));
	if (!req)
		return hy_inner(MPII_Get_accumulate_c(oaddr, ocount, iot,
						      raddr, rcount, irt,
						      hy_rank(w, target),
						      tdisp, tcount, itt, iop,
						      w->inner));
	return inner_wait(MPII_Rget_accumulate_c(oaddr, ocount, iot, raddr,
						 rcount, irt,
						 hy_rank(w, target), tdisp,
						 tcount, itt, iop, w->inner,
						 req), req);
}

/* The end of an R-call on an engine window: the program's request. */
static int r_done(struct hy_win *w, int ret, MPI_Request *req, const char *fn)
{
	if (!ret)
		ret = hy_request_done(req);
	else
		*req = MPI_REQUEST_NULL;
	return hy_done(w, ret, fn);
}

int MPI_Put(const void *oaddr, int ocount, MPI_Datatype otype, int target,
	    MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
	struct hy_win *w = hy_enter_to(win, target);
	int ret;

	if (!w)
		return PMPI_Put(oaddr, ocount, otype, target, tdisp, tcount,
				ttype, win);
	ret = put(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, NULL,
		  "MPI_Put");
	hy_unlock();
	return hy_done(w, ret, "MPI_Put");
}

int MPI_Rput(const void *oaddr, int ocount, MPI_Datatype otype, int target,
	     MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win,
	     MPI_Request *req)
{
	struct hy_win *w = hy_enter_to(win, target);
	MPII_Request ireq;
	int ret;

	if (!w)
		return PMPI_Rput(oaddr, ocount, otype, target, tdisp, tcount,
				 ttype, win, req);
	ret = put(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, &ireq,
		  "MPI_Rput");
	hy_unlock();
	return r_done(w, ret, req, "MPI_Rput");
}

int MPI_Get(void *oaddr, int ocount, MPI_Datatype otype, int target,
	    MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
	struct hy_win *w = hy_enter_to(win, target);
	int ret;

	if (!w)
		return PMPI_Get(oaddr, ocount, otype, target, tdisp, tcount,
				ttype, win);
	ret = get(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, NULL,
		  "MPI_Get");
	hy_unlock();
	return hy_done(w, ret, "MPI_Get");
}

int MPI_Rget(void *oaddr, int ocount, MPI_Datatype otype, int target,
	     MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win,
	     MPI_Request *req)
{
	struct hy_win *w = hy_enter_to(win, target);
	MPII_Request ireq;
	int ret;

	if (!w)
		return PMPI_Rget(oaddr, ocount, otype, target, tdisp, tcount,
				 ttype, win, req);
	ret = get(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, &ireq,
		  "MPI_Rget");
	hy_unlock();
	return r_done(w, ret, req, "MPI_Rget");
}

int MPI_Accumulate(const void *oaddr, int ocount, MPI_Datatype otype,
		   int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
		   MPI_Op op, MPI_Win win)
{
	struct hy_win *w = hy_enter_acc(win, target);
	int ret;

	if (!w)
		return PMPI_Accumulate(oaddr, ocount, otype, target, tdisp,
				       tcount, ttype, op, win);
	ret = acc(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, op,
		  NULL, "MPI_Accumulate");
	hy_unlock();
	return hy_done(w, ret, "MPI_Accumulate");
}

int MPI_Raccumulate(const void *oaddr, int ocount, MPI_Datatype otype,
		    int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
		    MPI_Op op, MPI_Win win, MPI_Request *req)
{
	struct hy_win *w = hy_enter_acc(win, target);
	MPII_Request ireq;
	int ret;

	if (!w)
		return PMPI_Raccumulate(oaddr, ocount, otype, target, tdisp,
					tcount, ttype, op, win, req);
	ret = acc(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, op,
		  &ireq, "MPI_Raccumulate");
	hy_unlock();
	return r_done(w, ret, req, "MPI_Raccumulate");
}

int MPI_Get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype,
		       void *raddr, int rcount, MPI_Datatype rtype, int target,
		       MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
		       MPI_Op op, MPI_Win win)
{
	struct hy_win *w = hy_enter_acc(win, target);
	int ret;

	if (!w)
		return PMPI_Get_accumulate(oaddr, ocount, otype, raddr, rcount,
					   rtype, target, tdisp, tcount, ttype,
					   op, win);
	ret = get_acc(w, oaddr, ocount, otype, raddr, rcount, rtype, target,
		      tdisp, tcount, ttype, op, NULL, "MPI_Get_accumulate");
	hy_unlock();
	return hy_done(w, ret, "MPI_Get_accumulate");
}

int MPI_Rget_accumulate(const void *oaddr, int ocount, MPI_Datatype otype,
			void *raddr, int rcount, MPI_Datatype rtype,
			int target, MPI_Aint tdisp, int tcount,
			MPI_Datatype ttype, MPI_Op op, MPI_Win win,
			MPI_Request *req)
{
	struct hy_win *w = hy_enter_acc(win, target);
	MPII_Request ireq;
	int ret;

	if (!w)
		return PMPI_Rget_accumulate(oaddr, ocount, otype, raddr,
					    rcount, rtype, target, tdisp,
					    tcount, ttype, op, win, req);
	ret = get_acc(w, oaddr, ocount, otype, raddr, rcount, rtype, target,
		      tdisp, tcount, ttype, op, &ireq, "MPI_Rget_accumulate");
	hy_unlock();
	return r_done(w, ret, req, "MPI_Rget_accumulate");
}

int MPI_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype type,
		     int target, MPI_Aint tdisp, MPI_Op op, MPI_Win win)
{
	struct hy_win *w = hy_enter_acc(win, target);
	MPII_Datatype it;
	MPII_Op iop;
	int ret;

	if (!w)
		return PMPI_Fetch_and_op(oaddr, raddr, type, target, tdisp, op,
					 win);
	ret = hy_type(type, &it);
	if (!ret)
		ret = hy_op(op, &iop);
	if (!ret)
		ret = hy_span_access(w, target);
	if (!ret && hy_remote(w, target)) {
		struct mpirma_rma_args a = {
			.kind = MPIRMA_KIND_GET_ACC, .oaddr = oaddr,
			.ocount = 1, .otype = it, .raddr = raddr, .rcount = 1,
			.rtype = it, .trank = target, .tdisp = tdisp,
			.tcount = 1, .ttype = it, .op = iop, .single = true,
		};

		ret = hy_ship(w, &a, "MPI_Fetch_and_op");
	} else if (!ret) {
		ret = hy_inner(MPII_Fetch_and_op(oaddr, raddr, it,
						 hy_rank(w, target), tdisp, iop,
						 w->inner));
	}
	hy_unlock();
	return hy_done(w, ret, "MPI_Fetch_and_op");
}

int MPI_Compare_and_swap(const void *oaddr, const void *caddr, void *raddr,
			 MPI_Datatype type, int target, MPI_Aint tdisp,
			 MPI_Win win)
{
	struct hy_win *w = hy_enter_acc(win, target);
	MPII_Datatype it;
	int ret;

	if (!w)
		return PMPI_Compare_and_swap(oaddr, caddr, raddr, type, target,
					     tdisp, win);
	ret = hy_type(type, &it);
	if (!ret)
		ret = hy_span_access(w, target);
	if (!ret && hy_remote(w, target)) {
		struct mpirma_rma_args a = {
			.kind = MPIRMA_KIND_CAS, .oaddr = oaddr, .ocount = 1,
			.otype = it, .raddr = raddr, .rcount = 1, .rtype = it,
			.caddr = caddr, .trank = target, .tdisp = tdisp,
			.tcount = 1, .ttype = it, .single = true,
		};

		ret = hy_ship(w, &a, "MPI_Compare_and_swap");
	} else if (!ret) {
		ret = hy_inner(MPII_Compare_and_swap(oaddr, caddr, raddr, it,
						     hy_rank(w, target), tdisp,
						     w->inner));
	}
	hy_unlock();
	return hy_done(w, ret, "MPI_Compare_and_swap");
}

#if MPI_VERSION >= 4
/*
 * MPI 4.0's large-count forms, where the host declares them (MPICH 4; Open
 * MPI 4.1 has none): the same paths with MPI_Count counts.
 */
int MPI_Put_c(const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
	      int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype,
	      MPI_Win win)
{
	struct hy_win *w = hy_enter_to(win, target);
	int ret;

	if (!w)
		return PMPI_Put_c(oaddr, ocount, otype, target, tdisp, tcount,
				  ttype, win);
	ret = put(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, NULL,
		  "MPI_Put_c");
	hy_unlock();
	return hy_done(w, ret, "MPI_Put_c");
}

int MPI_Rput_c(const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
	       int target, MPI_Aint tdisp, MPI_Count tcount,
	       MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
	struct hy_win *w = hy_enter_to(win, target);
	MPII_Request ireq;
	int ret;

	if (!w)
		return PMPI_Rput_c(oaddr, ocount, otype, target, tdisp, tcount,
				   ttype, win, req);
	ret = put(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, &ireq,
		  "MPI_Rput_c");
	hy_unlock();
	return r_done(w, ret, req, "MPI_Rput_c");
}

int MPI_Get_c(void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
	      MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
	struct hy_win *w = hy_enter_to(win, target);
	int ret;

	if (!w)
		return PMPI_Get_c(oaddr, ocount, otype, target, tdisp, tcount,
				  ttype, win);
	ret = get(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, NULL,
		  "MPI_Get_c");
	hy_unlock();
	return hy_done(w, ret, "MPI_Get_c");
}

int MPI_Rget_c(void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
	       MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype,
	       MPI_Win win, MPI_Request *req)
{
	struct hy_win *w = hy_enter_to(win, target);
	MPII_Request ireq;
	int ret;

	if (!w)
		return PMPI_Rget_c(oaddr, ocount, otype, target, tdisp, tcount,
				   ttype, win, req);
	ret = get(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, &ireq,
		  "MPI_Rget_c");
	hy_unlock();
	return r_done(w, ret, req, "MPI_Rget_c");
}

int MPI_Accumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
		     int target, MPI_Aint tdisp, MPI_Count tcount,
		     MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
	struct hy_win *w = hy_enter_acc(win, target);
	int ret;

	if (!w)
		return PMPI_Accumulate_c(oaddr, ocount, otype, target, tdisp,
					 tcount, ttype, op, win);
	ret = acc(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, op,
		  NULL, "MPI_Accumulate_c");
	hy_unlock();
	return hy_done(w, ret, "MPI_Accumulate_c");
}

int MPI_Raccumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
		      int target, MPI_Aint tdisp, MPI_Count tcount,
		      MPI_Datatype ttype, MPI_Op op, MPI_Win win,
		      MPI_Request *req)
{
	struct hy_win *w = hy_enter_acc(win, target);
	MPII_Request ireq;
	int ret;

	if (!w)
		return PMPI_Raccumulate_c(oaddr, ocount, otype, target, tdisp,
					  tcount, ttype, op, win, req);
	ret = acc(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, op,
		  &ireq, "MPI_Raccumulate_c");
	hy_unlock();
	return r_done(w, ret, req, "MPI_Raccumulate_c");
}

int MPI_Get_accumulate_c(const void *oaddr, MPI_Count ocount,
			 MPI_Datatype otype, void *raddr, MPI_Count rcount,
			 MPI_Datatype rtype, int target, MPI_Aint tdisp,
			 MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
			 MPI_Win win)
{
	struct hy_win *w = hy_enter_acc(win, target);
	int ret;

	if (!w)
		return PMPI_Get_accumulate_c(oaddr, ocount, otype, raddr,
					     rcount, rtype, target, tdisp,
					     tcount, ttype, op, win);
	ret = get_acc(w, oaddr, ocount, otype, raddr, rcount, rtype, target,
		      tdisp, tcount, ttype, op, NULL, "MPI_Get_accumulate_c");
	hy_unlock();
	return hy_done(w, ret, "MPI_Get_accumulate_c");
}

int MPI_Rget_accumulate_c(const void *oaddr, MPI_Count ocount,
			  MPI_Datatype otype, void *raddr, MPI_Count rcount,
			  MPI_Datatype rtype, int target, MPI_Aint tdisp,
			  MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
			  MPI_Win win, MPI_Request *req)
{
	struct hy_win *w = hy_enter_acc(win, target);
	MPII_Request ireq;
	int ret;

	if (!w)
		return PMPI_Rget_accumulate_c(oaddr, ocount, otype, raddr,
					      rcount, rtype, target, tdisp,
					      tcount, ttype, op, win, req);
	ret = get_acc(w, oaddr, ocount, otype, raddr, rcount, rtype, target,
		      tdisp, tcount, ttype, op, &ireq,
		      "MPI_Rget_accumulate_c");
	hy_unlock();
	return r_done(w, ret, req, "MPI_Rget_accumulate_c");
}
#endif /* MPI_VERSION >= 4 */
