// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * request.c - the completion calls (MPI_Wait, Test and their -all/-any/
 * -some forms, Request_free, Request_get_status, Cancel) and progress; the
 * request objects are request_pool.c's.
 *
 * Requests of every kind share struct mpirma_request (internal.h); the kind
 * says how to progress it.  Sends complete when they are posted (the
 * transport buffers them) but for synchronous ones, which wait for their
 * receive (p2p_sync.c) as posted receives and RMA requests wait.
 *
 * Blocking: one request is waited for by its own progress(block) callback,
 * which waits in the transport (p2p.h).  Several requests of which any may
 * complete (Waitany, Waitsome) wait there when they are all posted receives
 * of one communicator (mpirma_p2p_block_any), otherwise poll with a backoff
 * that yields the CPU first and then sleeps up to a millisecond.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "nbc.h"
#include "p2p.h"
#include "request.h"

/* Pending requests whose handle MPI_Request_free already dropped. */
static struct mpirma_request **orphans;
static int norphans, orphans_cap;

/* A persistent request not started: the waits and tests take it for null. */
static bool inactive(const struct mpirma_request *r)
{
	return r->persistent && !r->active;
}

/* The request of @req for waits and tests: NULL also for an inactive one. */
static struct mpirma_request *live_get(MPI_Request req)
{
	struct mpirma_request *r = mpirma_request_get(req);

	return r && inactive(r) ? NULL : r;
}

/* ------------------------------------------------------------ progress */

/* request.h */
void mpirma_request_progress(struct mpirma_request *r, int block)
{
	int ret;

	if (r->done)
		return;
	ret = r->ops->progress(r, block);
	if (ret != MPI_SUCCESS && !r->done)
		mpirma_request_complete(r, MPI_ANY_SOURCE, MPI_ANY_TAG, ret, 0);
}

/* request.h */
void mpirma_poll_missed(void)
{
	if (mpirma_proc.spin <= 0)
		sched_yield();
}

void mpirma_progress(void)
{
	int i, n;

	mpirma_p2p_progress();
	mpirma_nbc_progress();
	for (i = 0, n = 0; i < norphans; i++) {
		struct mpirma_request *r = orphans[i];

		mpirma_request_progress(r, 0);
		if (r->done)
			mpirma_request_destroy(r);
		else
			orphans[n++] = r;
	}
	norphans = n;
}

/* ------------------------------------------------------------ completion */

/* Raises @err on the request's object (window first, then communicator). */
static int raise_on(MPI_Comm comm, MPI_Win win, int err, const char *fn)
{
	if (err == MPI_SUCCESS)
		return MPI_SUCCESS;
	if (win != MPI_WIN_NULL)
		return mpirma_raise_win(win, err, fn, NULL);
	if (comm != MPI_COMM_NULL)
		return mpirma_raise_comm(comm, err, fn, NULL);
	return mpirma_raise(err, fn, NULL);
}

/*
 * Hands a completed request's status to the caller and frees the request.
 * Returns its error class, else the class freeing it failed with (a
 * generalized request's free_fn); @comm and @win receive where to raise it.
 * @many: a call with an array of statuses, whose MPI_ERROR it sets (the
 * caller restores them unless it returns MPI_ERR_IN_STATUS).
 */
static int finish(MPI_Request *slot, struct mpirma_request *r,
		  MPI_Status *status, MPI_Comm *comm, MPI_Win *win, bool many)
{
	int err = r->status.MPI_ERROR, ret;

	if (many && status && status != MPI_STATUS_IGNORE)
		*status = r->status;
	else
		mpirma_status_out(status, &r->status);
	*comm = r->comm;
	*win = r->win;
	if (r->persistent) {	/* inactive again, ready for MPI_Start */
		r->active = false;
		r->done = 0;
		return err;
	}
	ret = mpirma_request_destroy(r);
	*slot = MPI_REQUEST_NULL;
	if (err == MPI_SUCCESS && ret != MPI_SUCCESS) {
		err = ret;
		if (many && status && status != MPI_STATUS_IGNORE)
			status->MPI_ERROR = ret;
	}
	return err;
}

/* The request of a handle slot: NULL for MPI_REQUEST_NULL; *@bad if invalid. */
static struct mpirma_request *lookup(MPI_Request h, bool *bad)
{
	struct mpirma_request *r;

	if (h == MPI_REQUEST_NULL)
		return NULL;
	r = mpirma_request_get(h);
	if (!r)
		*bad = true;
	else if (inactive(r))
		r = NULL;	/* as MPI_REQUEST_NULL */
	return r;
}

#define BAD_REQUEST(h)							\
	mpirma_raise(MPI_ERR_REQUEST, MPIRMA_FUNC, "invalid request %d", (h))

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
	struct mpirma_request *r;
	bool bad = false;
	MPI_Comm comm;
	MPI_Win win;
	int err;

	MPIRMA_CHECK_INIT();
	if (!request)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "request is NULL");
	r = lookup(*request, &bad);
	if (bad)
		return BAD_REQUEST(*request);
	if (!r) {
		if (status != MPI_STATUS_IGNORE && status)
			mpirma_status_empty(status);
		return MPI_SUCCESS;
	}
	mpirma_request_progress(r, 1);
	err = finish(request, r, status, &comm, &win, false);
	return raise_on(comm, win, err, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	struct mpirma_request *r;
	bool bad = false;
	MPI_Comm comm;
	MPI_Win win;
	int err;

	MPIRMA_CHECK_INIT();
	if (!request || !flag)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "NULL argument");
	r = lookup(*request, &bad);
	if (bad)
		return BAD_REQUEST(*request);
	mpirma_progress();
	if (!r) {
		*flag = 1;
		if (status != MPI_STATUS_IGNORE && status)
			mpirma_status_empty(status);
		return MPI_SUCCESS;
	}
	mpirma_request_progress(r, 0);
	*flag = r->done;
	if (!r->done) {
		mpirma_poll_missed();
		return MPI_SUCCESS;
	}
	err = finish(request, r, status, &comm, &win, false);
	return raise_on(comm, win, err, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Test)

/* Status slot i of an array argument, or NULL when ignored. */
static MPI_Status *status_at(MPI_Status *arr, int i)
{
	return (!arr || arr == MPI_STATUSES_IGNORE) ? NULL : &arr[i];
}

/*
 * Ends every request of @reqs, each as soon as it completes (@wait: waits
 * for it; without, the caller has seen every one done), filling statuses.
 * MPI_ERR_IN_STATUS if any failed, MPI_ERROR then set in every status
 * (otherwise left alone); where to raise in *@ecomm and *@ewin.
 */
static int finish_all(int count, MPI_Request reqs[], MPI_Status sts[],
		      bool wait, MPI_Comm *ecomm, MPI_Win *ewin)
{
	MPI_Comm comm;
	MPI_Win win;
	int i, j, failed = 0;

	*ecomm = MPI_COMM_NULL;
	*ewin = MPI_WIN_NULL;
	for (i = 0; i < count; i++) {
		struct mpirma_request *r = live_get(reqs[i]);
		MPI_Status tmp, *st = status_at(sts, i);
		int err = MPI_SUCCESS;

		if (reqs[i] == MPI_REQUEST_NULL || !r) {
			if (st)
				mpirma_status_user(st, MPI_ANY_SOURCE,
						   MPI_ANY_TAG, 0);
		} else if (r->shared) {	/* a send done at its call */
			mpirma_status_out(st, &r->status);
			reqs[i] = MPI_REQUEST_NULL;
		} else {
			if (wait)
				mpirma_request_progress(r, 1);
			err = finish(&reqs[i], r, st ? st : &tmp, &comm, &win,
				     false);
		}
		if (err && !failed++) {
			*ecomm = comm;
			*ewin = win;
			for (j = 0; j < i; j++)
				if (status_at(sts, j))
					sts[j].MPI_ERROR = MPI_SUCCESS;
		}
		if (failed && st)
			st->MPI_ERROR = err;
	}
	return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

static int check_array(int count, MPI_Request reqs[])
{
	bool bad = false;
	int i;

	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %d", count);
	if (count && !reqs)
		return mpirma_err(MPI_ERR_ARG, "request array is NULL");
	for (i = 0; i < count; i++) {
		lookup(reqs[i], &bad);
		if (bad)
			return mpirma_err(MPI_ERR_REQUEST, "invalid request %d "
					  "at index %d", reqs[i], i);
	}
	return MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[],
		 MPI_Status *array_of_statuses)
{
	MPI_Comm comm;
	MPI_Win win;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = check_array(count, array_of_requests);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	/*
	 * Every one must complete, so waiting for each in turn is as good as
	 * waiting for any: nothing another rank waits for depends on the
	 * order in which our receives complete, and a synchronous send's
	 * wait advances the posted receives its peer may wait for.  Each
	 * ends as soon as it completes: one pass over the array.
	 */
	ret = finish_all(count, array_of_requests, array_of_statuses, true,
			 &comm, &win);
	return raise_on(comm, win, ret, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Waitall)

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
		 MPI_Status *array_of_statuses)
{
	MPI_Comm comm;
	MPI_Win win;
	int i, ret;

	MPIRMA_CHECK_INIT();
	ret = check_array(count, array_of_requests);
	if (!ret && !flag)
		ret = mpirma_err(MPI_ERR_ARG, "flag is NULL");
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	mpirma_progress();
	*flag = 1;
	for (i = 0; i < count; i++) {
		struct mpirma_request *r = live_get(array_of_requests[i]);

		if (array_of_requests[i] == MPI_REQUEST_NULL || !r)
			continue;
		mpirma_request_progress(r, 0);
		if (!r->done)
			*flag = 0;
	}
	/* The standard completes none of them unless all are complete. */
	if (!*flag) {
		mpirma_poll_missed();
		return MPI_SUCCESS;
	}
	ret = finish_all(count, array_of_requests, array_of_statuses, false,
			 &comm, &win);
	return raise_on(comm, win, ret, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Testall)

/*
 * One non-blocking round over @reqs: progress each; the done ones are
 * noted in @done (if given).  Returns the number done, the number still
 * pending in *@npending (and those requests in @pending).
 */
static int round_any(int count, MPI_Request reqs[], bool *done,
		     struct mpirma_request **pending, int *npending)
{
	int i, ndone = 0;

	mpirma_progress();
	*npending = 0;
	for (i = 0; i < count; i++) {
		struct mpirma_request *r = live_get(reqs[i]);

		if (done)
			done[i] = false;
		if (reqs[i] == MPI_REQUEST_NULL || !r)
			continue;
		mpirma_request_progress(r, 0);
		if (r->done) {
			ndone++;
			if (done)
				done[i] = true;
		} else {
			pending[(*npending)++] = r;
		}
	}
	if (!ndone && *npending)
		mpirma_poll_missed();
	return ndone;
}

/*
 * Waits until at least one of the pending requests may have progressed.
 * @blocked: whether the previous wait slept in the kernel yet the following
 * round completed nothing (a message nobody here takes wakes it at once):
 * then poll instead.
 */
static void idle(struct mpirma_request **pending, int npending, bool *blocked,
		 int *spins)
{
	if (npending == 1) {
		mpirma_request_progress(pending[0], 1);
		return;
	}
	if (!*blocked && mpirma_p2p_block_any(pending, npending)) {
		*blocked = true;
		return;
	}
	mpirma_wait_pause(spins);
}

/*
 * Waitany and Waitsome (@block), Testany and Testsome.  Progresses @reqs,
 * until one is done or none is active when @block, else once; then
 * completes the first done request (the -any forms: *@index, *@flag if not
 * NULL, @one) or every done one (@index NULL: *@outcount, @indices, @sts).
 * A wait completes the requests its last round saw done, a test the ones
 * done by the end of its round.  Raised as @fn.
 */
static int some(int count, MPI_Request reqs[], bool block, int *index,
		int *flag, MPI_Status *one, int *outcount, int indices[],
		MPI_Status *sts, const char *fn)
{
	struct mpirma_request **pending;
	bool *done = NULL, blocked = false;
	int i, n = 0, npending, spins = 0, err = MPI_SUCCESS, ret, *codes;
	MPI_Comm ecomm = MPI_COMM_NULL;
	MPI_Win ewin = MPI_WIN_NULL;

	pending = malloc((count ? count : 1) * sizeof(*pending));
	codes = malloc((count ? count : 1) * sizeof(*codes));
	if (block)
		done = malloc((count ? count : 1) * sizeof(*done));
	if (!pending || !codes || (block && !done)) {
		free(pending);
		free(codes);
		free(done);
		return mpirma_raise(MPI_ERR_NO_MEM, fn, "out of memory");
	}
	for (;;) {
		int ndone = round_any(count, reqs, done, pending, &npending);

		if (!block || ndone || !npending)
			break;
		idle(pending, npending, &blocked, &spins);
	}
	free(pending);
	for (i = 0; i < count; i++) {
		struct mpirma_request *r = live_get(reqs[i]);
		MPI_Status tmp = { 0 }, *st;
		MPI_Comm comm;
		MPI_Win win;

		if (done ? !done[i] :
		    (reqs[i] == MPI_REQUEST_NULL || !r || !r->done))
			continue;
		if (index) {
			free(done);
			free(codes);
			if (flag)
				*flag = 1;
			*index = i;
			ret = finish(&reqs[i], r, one, &comm, &win, false);
			return raise_on(comm, win, ret, fn);
		}
		st = status_at(sts, n);
		indices[n] = i;
		ret = finish(&reqs[i], r, st ? st : &tmp, &comm, &win, false);
		codes[n++] = ret;
		if (ret && err == MPI_SUCCESS) {
			err = MPI_ERR_IN_STATUS;
			ecomm = comm;
			ewin = win;
		}
	}
	free(done);
	/* MPI_ERROR only with MPI_ERR_IN_STATUS, then in every status */
	for (i = 0; err && i < n; i++)
		if (status_at(sts, i))
			status_at(sts, i)->MPI_ERROR = codes[i];
	free(codes);
	if (index) {
		*index = MPI_UNDEFINED;
		/* No active request at all counts as complete, status empty. */
		if (flag)
			*flag = npending == 0;
		if (!npending && one && one != MPI_STATUS_IGNORE)
			mpirma_status_empty(one);
		return MPI_SUCCESS;
	}
	*outcount = (n || npending) ? n : MPI_UNDEFINED;
	return raise_on(ecomm, ewin, err, fn);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
		 MPI_Status *status)
{
	int ret;

	MPIRMA_CHECK_INIT();
	ret = check_array(count, array_of_requests);
	if (!ret && !index)
		ret = mpirma_err(MPI_ERR_ARG, "index is NULL");
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	return some(count, array_of_requests, true, index, NULL, status, NULL,
		    NULL, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Waitany)

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index,
		 int *flag, MPI_Status *status)
{
	int ret;

	MPIRMA_CHECK_INIT();
	ret = check_array(count, array_of_requests);
	if (!ret && (!index || !flag))
		ret = mpirma_err(MPI_ERR_ARG, "NULL argument");
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	return some(count, array_of_requests, false, index, flag, status, NULL,
		    NULL, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Testany)

/* Waitsome (@block) and Testsome: one signature, one body. */
#define SOME_DEFINE(name, block)					\
int PMPI_##name(int incount, MPI_Request array_of_requests[],		\
		int *outcount, int array_of_indices[],			\
		MPI_Status *array_of_statuses)				\
{									\
	int ret;							\
									\
	MPIRMA_CHECK_INIT();						\
	ret = check_array(incount, array_of_requests);			\
	if (!ret && (!outcount || (incount && !array_of_indices)))	\
		ret = mpirma_err(MPI_ERR_ARG, "NULL argument");		\
	if (ret)							\
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);		\
	return some(incount, array_of_requests, block, NULL, NULL, NULL, \
		    outcount, array_of_indices, array_of_statuses,	\
		    MPIRMA_FUNC);					\
}									\
MPIRMA_ALIAS(name)

SOME_DEFINE(Waitsome, true)
SOME_DEFINE(Testsome, false)

/*
 * The request argument of Request_free and Cancel, which must name an
 * existing request.  MPI class (recorded).
 */
static int active_request(MPI_Request *request, struct mpirma_request **r)
{
	if (!request)
		return mpirma_err(MPI_ERR_ARG, "request is NULL");
	/* an inactive persistent request too */
	*r = *request == MPI_REQUEST_NULL ? NULL : mpirma_request_get(*request);
	if (!*r)
		return mpirma_err(MPI_ERR_REQUEST, "invalid request %d",
				  *request);
	return MPI_SUCCESS;
}

int PMPI_Request_free(MPI_Request *request)
{
	struct mpirma_request *r;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = active_request(request, &r);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	if (r->ops->free && r->persistent && r->active)
		return raise_on(r->comm, r->win,
				mpirma_err(MPI_ERR_REQUEST, "request %d is an "
					   "active persistent collective: "
					   "complete it before freeing it",
					   *request), MPIRMA_FUNC);
	if (r->ops->free) {
		MPI_Comm comm = r->comm;
		MPI_Win win = r->win;

		ret = r->ops->free(r);
		*request = MPI_REQUEST_NULL;
		return raise_on(comm, win, ret, MPIRMA_FUNC);
	}
	mpirma_request_progress(r, 0);
	if (r->done) {
		mpirma_request_destroy(r);
	} else {
		/* Keep it until it completes, without its handle. */
		if (norphans == orphans_cap) {
			int ncap = orphans_cap ? 2 * orphans_cap : 16;
			struct mpirma_request **n =
				realloc(orphans, ncap * sizeof(*n));

			if (!n)
				return mpirma_raise(MPI_ERR_NO_MEM, MPIRMA_FUNC,
						    "out of memory");
			orphans = n;
			orphans_cap = ncap;
		}
		mpirma_handle_free(MPIRMA_HK_REQUEST, r->handle);
		r->handle = MPI_REQUEST_NULL;
		orphans[norphans++] = r;
	}
	*request = MPI_REQUEST_NULL;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Request_free)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
	struct mpirma_request *r;
	bool bad = false;

	MPIRMA_CHECK_INIT();
	if (!flag)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "flag is NULL");
	r = lookup(request, &bad);
	if (bad)
		return BAD_REQUEST(request);
	mpirma_progress();
	if (!r) {
		*flag = 1;
		if (status && status != MPI_STATUS_IGNORE)
			mpirma_status_empty(status);
		return MPI_SUCCESS;
	}
	mpirma_request_progress(r, 0);
	*flag = r->done;
	if (r->done)
		mpirma_status_out(status, &r->status);
	else
		mpirma_poll_missed();
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Request_get_status)

int PMPI_Cancel(MPI_Request *request)
{
	struct mpirma_request *r;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = active_request(request, &r);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	/*
	 * A kind without cancel (a buffered send) has completed normally;
	 * the others look at r->done themselves.
	 */
	if (r->ops->cancel)
		return raise_on(r->comm, r->win, r->ops->cancel(r), MPIRMA_FUNC);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Cancel)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
	MPIRMA_CHECK_INIT();
	if (!status || status == MPI_STATUS_IGNORE || !flag)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "NULL argument");
	*flag = status->mpirma_cancelled;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Test_cancelled)
