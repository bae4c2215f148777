// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shmq_sync.c - synchronous sends over the shared-memory queues: the
 * transport's part of MPI_Ssend, MPI_Issend and MPI_Ssend_init, which
 * complete only once a receive has taken their message (p2p_sync.c).
 *
 * The message carries a token, this process's count of its synchronous
 * sends (struct shmq_rec.sync).  Whatever takes it out of the queues for
 * a receive (a look with MPIRMA_MSG_PEEK does not) answers with an empty
 * message on SHMQ_ACK_CTX whose tag is the token; the sender waits for
 * that message from that rank.  A receive that takes the message, not
 * one that finishes receiving it, answers: the standard asks only that
 * the receive has started.  Without the queues (the kernel mailbox) there
 * is no token, and a synchronous send completes as a standard one does.
 */
#include <errno.h>
#include <string.h>

#include "nbc.h"
#include "p2p.h"
#include "request.h"
#include "shmq.h"

static int ack_tag(uint64_t token)
{
	return (int)(token & INT32_MAX);
}

/*
 * shmq.h.  The answer is empty, or one byte when a REC_RDV unit's offer
 * still stands (its take failed): only then must its sender withdraw it,
 * a system call every other one-copy send is spared.
 */
void shmq_sync_answer(uint32_t src, const struct shmq_rec *h, bool standing)
{
	static const char stands = 1;

	/* An error means the sender is gone: nobody waits for the answer. */
	if (h->sync)
		(void)shmq_send(src, ack_tag(h->sync), SHMQ_ACK_CTX, &stands,
				standing, 0);
}

/* p2p.h */
int mpirma_msg_sync_wait(int job_rank, uint64_t token, bool block)
{
	struct mpirma_msg_ack a = { .token = token };

	return mpirma_msg_ack_wait(job_rank, &a, block);
}

/* p2p.h */
int mpirma_msg_ack_wait(int job_rank, struct mpirma_msg_ack *a, bool block)
{
	uint64_t token = a->token;
	uint32_t peer = (uint32_t)job_rank;
	struct mpirma_poller w = { 0 };
	struct mpirma_msg m;
	int ret, gone = 0;
	char stands;

	if (!token)
		return 1;
	for (;;) {
		/*
		 * The peer may wait for a receive of ours first (each sends
		 * synchronously to the other, both receives posted): they
		 * advance here, and any rank's message may be theirs.  And
		 * before the look for the answer, which moves the units
		 * before it out of the way: a one-copy unit a receive of
		 * ours waits for would go to the unexpected ones, copied
		 * twice.
		 */
		if (block)
			mpirma_progress();
		memset(&m, 0, sizeof(m));
		m.size = sizeof(m);
		ret = shmq_recv(MPIRMA_MSG_NOWAIT, peer, ack_tag(token),
				SHMQ_ACK_CTX, &stands, sizeof(stands), &m);
		if (ret != -EAGAIN) {
			if (!ret && !m.msg_len)
				a->offer = 0;	/* the take ended it */
			return ret ? ret : 1;
		}
		/* Help until no part of the copy is left to claim. */
		if (a->offer && a->seq &&
		    shmq_offer_help(peer, a->seq, a->offer))
			a->seq = 0;
		if (!block)
			return 0;
		if (gone)
			return gone;
		gone = shmq_wait_round(&w, mpirma_p2p_progress_due() ||
				       mpirma_nbc_pending() ?
				       MPIRMA_ANY_SOURCE : peer);
		if (gone && gone != -EOWNERDEAD)
			return gone;
	}
}
