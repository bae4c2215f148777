/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * batch.h - the origin's batches and the replies it waits for (batch.c),
 * as origin.c uses them; every call with the span's lock held
 * (hy_span.lock), and host classes.
 */
#ifndef MPIRMA_HYBRID_BATCH_H
#define MPIRMA_HYBRID_BATCH_H

#include "hybrid.h"
#include "net.h"
#include "wire.h"

/* hy_span.lazy: a lazy epoch's lock type (HY_LOCK_*), and whether it ends */
#define HY_LAZY_TYPE	3	/* the lock's type */
#define HY_LAZY_RELEASE	4	/* ... and the epoch ends with the next send */

/*
 * Where a batched operation's result goes once its reply has come: the
 * program's buffer (@l, whose blocks @l.blocks it owns), its element size,
 * its place among the batch's operations and in the reply's results.
 */
struct hy_result {
	struct mpirma_layout l;
	unsigned int size;
	uint32_t index;
	size_t off;
};


/*
 * The first shipped operation a call found failed: its reply's status, and
 * what the operation was (its kind, window rank and displacement).
 */
struct ship_failure {
	int status;
	unsigned int kind;
	int target;
	uint64_t disp;
};

/* Sends what is batched for window rank @target (-1: every rank). */
int hy_batch_send(struct hy_win *w, int target, struct ship_failure *f);

/*
 * Adds record @rec of @len bytes (with @res, an operation with @rbytes of
 * result, in a lazy epoch: @res->size becomes 0 once the batch owns its
 * blocks), or a put or accumulate @op of @nelem contiguous elements of
 * @size bytes as a run entry, to the batch for window rank @target; a
 * full batch leaves.
 */
int hy_batch_add(struct hy_win *w, int target, const struct ship_hdr *rec,
		 size_t len, struct hy_result *res, size_t rbytes,
		 struct ship_failure *f);
int hy_batch_add_run(struct hy_win *w, int target, const struct mpirma_op *op,
		     unsigned int size, uint64_t nelem, struct ship_failure *f);

/* Does a record of @len bytes with @rbytes of result join the batch as is? */
bool hy_batch_takes(struct hy_win *w, int target, size_t len, size_t rbytes);

/* Takes the lazy lock of window rank @target now, with its batch. */
int hy_epoch_real(struct hy_win *w, int target, struct ship_failure *f);

/*
 * Sends message @msg of @len bytes to window rank @target's agent, its
 * reply of @rlen bytes to come on @rtag into @reply (@rx, posted first),
 * for hy_wait_reply(), which gives a reply that could not come (its
 * target's process gone) that failure as its status.  Needs no lock.
 */
void hy_send_msg(struct hy_win *w, int target, void *msg, size_t len,
		 struct ship_reply *reply, int rlen, uint32_t rtag,
		 struct hy_nrecv *rx);
void hy_wait_reply(struct hy_nrecv *rx, struct ship_reply *reply);

/* @f as the host's class in @fn's name; hy.lock held. */
int hy_failure_class(struct hy_win *w, const struct ship_failure *f,
		     const char *fn);

#endif /* MPIRMA_HYBRID_BATCH_H */
