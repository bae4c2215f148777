// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shmq.c - the transport under point-to-point messages and collectives
 * (mpirma_msg_send/recv, p2p.h): shared-memory queues polled in user
 * space (shmq.h, shmq_ring.c, shmq_wait.c), or the kernel mailbox.
 *
 * At MPI_Init every rank maps one job-wide window it allocates with the
 * module (FLAVOR_ALLOC, mapped whole by every rank): rank r's part holds a
 * ring from each sender, written by that sender only and read by r only.
 * The pages are the module's, so nothing stays mapped or pinned after a
 * rank dies, and the kernel mailbox is still there for what does not fit
 * (spilled units) and for the bells that wake a sleeping receiver.
 * Without the window (MPIRMA_SHMQ=0, an old module, no memory on some
 * rank) every message goes through the kernel mailbox.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"
#include "nbc.h"
#include "p2p.h"
#include "shmq.h"
#include "tool.h"

/*
 * OSU's osu_bibw posts 64 sends each way before either side receives:
 * past a ring's room the rest spill (16 and 32 KiB: 976 and 1,017 MB/s
 * with rings of 512 KiB, 1,363 and 1,444 with 2 MiB; osu_bw 7-18% faster
 * too; one boot, six launches each).
 */
#define SHMQ_SEG_BYTES	(4U << 20)	/* a rank's rings, together ... */
#define SHMQ_RING_MIN	(8U << 10)	/* ... each at least ... */
#define SHMQ_RING_MAX	(2U << 20)	/* ... and at most */
/*
 * Data in one unit, at most: the receiver copies a unit out while the
 * sender copies the next in, so the two copies of a message overlap by
 * all but one unit (shmq_ring.c, unit_chunk()).
 */
#define SHMQ_FRAG_MAX	(8U << 10)
#define SHMQ_WIN_CTX	3		/* the window's creation context */
#define ONECOPY_DEFAULT	(128U << 10)	/* MPIRMA_ONECOPY unset: blocking */
#define ONECOPY_NB_DEFAULT (64U << 10)	/* ... and nonblocking sends */
#define ONECOPY_MAX	(1U << 30)

struct shmq_state shmq;

/* ------------------------------------------------------------ kernel */

int shmq_kmsg_send(uint32_t peer, int tag, uint64_t ctx, const void *buf,
		   size_t len)
{
	struct mpirma_msg m = {
		.size = sizeof(m),
		.peer = peer,
		.tag = tag,
		.context = ctx,
		.buf = (uintptr_t)buf,
		.len = len,
	};

	return mpirma_ioctl(MPIRMA_IOC_MSG_SEND, &m);
}

int shmq_kmsg_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		   void *buf, size_t len, struct mpirma_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->size = sizeof(*m);
	m->flags = flags;
	m->peer = peer;
	m->tag = tag;
	m->context = ctx;
	m->buf = (uintptr_t)buf;
	m->len = len;
	if (flags & MPIRMA_MSG_NOWAIT)
		return mpirma_ioctl(MPIRMA_IOC_MSG_RECV, m);
	return mpirma_ioctl_wait(MPIRMA_IOC_MSG_RECV, m);
}

/* ------------------------------------------------------------ entry */

/* A message of @len bytes sent (@ret 0): counted. */
static int sent(int ret, size_t len)
{
	if (!ret) {
		mpirma_counters.msgs_sent++;
		mpirma_counters.bytes_sent += len;
	}
	return ret;
}

/* A send, synchronous when @sync (a token; shmq_sync.c). */
static int msg_send(int job_rank, int tag, uint64_t ctx, const void *buf,
		    size_t len, uint64_t sync)
{
	if (shmq.on)
		return sent(shmq_send((uint32_t)job_rank, tag, ctx, buf, len,
				      sync), len);
	return sent(shmq_kmsg_send((uint32_t)job_rank, tag, ctx, buf, len),
		    len);
}

int mpirma_msg_send(int job_rank, int tag, uint64_t ctx, const void *buf,
		    size_t len)
{
	return msg_send(job_rank, tag, ctx, buf, len, 0);
}

int mpirma_msg_send_sync(int job_rank, int tag, uint64_t ctx,
			 const void *buf, size_t len, uint64_t *token)
{
	*token = shmq.on ? ++shmq.sync_next : 0;
	return msg_send(job_rank, tag, ctx, buf, len, *token);
}

/* p2p.h */
uint64_t mpirma_msg_gen(void)
{
	return shmq.uq_gen;
}

/* p2p.h */
bool mpirma_msg_quiet(uint32_t src, uint64_t gen)
{
	return shmq.on && src < shmq.n && gen == shmq.uq_gen &&
	       !shmq_unit_ready(src);
}

/* p2p.h */
bool mpirma_msg_onecopy(int job_rank, size_t len)
{
	return shmq.on && shmq_rdv_fits((uint32_t)job_rank, len);
}

/* p2p.h */
int mpirma_msg_isend(int job_rank, int tag, uint64_t ctx, const void *buf,
		     size_t len, struct mpirma_msg_ack *a)
{
	int ret;

	*a = (struct mpirma_msg_ack){ 0 };
	ret = shmq.on ? shmq_offer_rdv((uint32_t)job_rank, tag, ctx, buf, len,
				       a) : 0;
	if (!ret)
		return msg_send(job_rank, tag, ctx, buf, len, 0);
	return sent(ret < 0 ? ret : 0, len);
}

/* p2p.h */
bool mpirma_msg_offer_withdraw(struct mpirma_msg_ack *a)
{
	bool withdrawn = a->offer && !shmq_offer_end(a->offer);

	a->offer = 0;
	return withdrawn;
}

/* A message received (not only looked at): counted. */
static int received(int ret, unsigned int flags, const struct mpirma_msg *m)
{
	if (!ret && !(flags & MPIRMA_MSG_PEEK)) {
		mpirma_counters.msgs_received++;
		mpirma_counters.bytes_received += m->msg_len;
	}
	return ret;
}

/*
 * Without the queues a waiting receive first polls the kernel for
 * mpirma_proc.spin (init.c says why), then sleeps there.  Not with
 * threads: their receives poll anyway (p2p.c), and a poll here would hold
 * the library lock.  While nonblocking collectives are pending it polls,
 * advancing them (nbc.h), and pauses between polls.
 */
static int msg_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		    void *buf, size_t len, struct mpirma_msg *m)
{
	int spins = 0, ret;

	if (shmq.on) {
		memset(m, 0, sizeof(*m));
		m->size = sizeof(*m);
		return shmq_recv(flags, peer, tag, ctx, buf, len, m);
	}
	while (!(flags & MPIRMA_MSG_NOWAIT) && mpirma_nbc_pending()) {
		ret = shmq_kmsg_recv(flags | MPIRMA_MSG_NOWAIT, peer, tag, ctx,
				     buf, len, m);
		if (ret != -EAGAIN)
			return ret;
		mpirma_nbc_progress();
		mpirma_wait_pause(&spins);
	}
	if (!(flags & MPIRMA_MSG_NOWAIT) && mpirma_proc.spin > 0 &&
	    !mpirma_threads) {
		double end = PMPI_Wtime() + mpirma_proc.spin;
		int ret;

		do {
			ret = shmq_kmsg_recv(flags | MPIRMA_MSG_NOWAIT, peer,
					     tag, ctx, buf, len, m);
			if (ret != -EAGAIN)
				return ret;
		} while (PMPI_Wtime() < end);
	}
	if (!(flags & MPIRMA_MSG_NOWAIT))
		mpirma_counters.sleeps++;
	return shmq_kmsg_recv(flags, peer, tag, ctx, buf, len, m);
}

int mpirma_msg_recv(unsigned int flags, uint32_t peer, int tag, uint64_t ctx,
		    void *buf, size_t len, struct mpirma_msg *m)
{
	return received(msg_recv(flags, peer, tag, ctx, buf, len, m), flags,
			m);
}

bool mpirma_shmq_on(void)
{
	return shmq.on;
}

/* ------------------------------------------------------------ setup */

/* Ring bytes for @n ranks: a power of two within the bounds. */
static uint64_t ring_size(uint32_t n)
{
	uint64_t r = SHMQ_RING_MAX;

	while (r > SHMQ_RING_MIN && r * n > SHMQ_SEG_BYTES)
		r >>= 1;
	return r;
}

/* Creates the window of @seg bytes a rank and maps it; 0 or -errno. */
static int shm_map(uint64_t seg)
{
	struct mpirma_win_create wc = {
		.size = sizeof(wc),
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.strategy = MPIRMA_ATOM_LOCK,
		.disp_unit = 1,
		.length = seg,
		.nranks = shmq.n,
		.context = SHMQ_WIN_CTX,
	};
	struct mpirma_win_query wq = { .size = sizeof(wq) };
	uint32_t *ranks = malloc(shmq.n * sizeof(*ranks)), r;
	int ret;

	shmq.part = calloc(shmq.n, sizeof(*shmq.part));
	if (!ranks || !shmq.part) {
		free(ranks);
		return -ENOMEM;
	}
	for (r = 0; r < shmq.n; r++)
		ranks[r] = r;
	wc.ranks = (uintptr_t)ranks;
	ret = mpirma_ioctl_wait(MPIRMA_IOC_WIN_CREATE, &wc);
	free(ranks);
	if (ret)
		return ret;
	wq.win_id = wc.win_id;
	wq.rank = shmq.me;
	ret = mpirma_ioctl(MPIRMA_IOC_WIN_QUERY, &wq);
	if (ret)
		return ret;
	shmq.map = mmap(NULL, wq.mmap_length, PROT_READ | PROT_WRITE,
			MAP_SHARED, mpirma_proc.fd, (off_t)wq.mmap_offset);
	if (shmq.map == MAP_FAILED) {
		shmq.map = NULL;
		return -errno;
	}
	shmq.map_len = wq.mmap_length;
	for (r = 0; r < shmq.n; r++) {
		wq.rank = r;
		ret = mpirma_ioctl(MPIRMA_IOC_WIN_QUERY, &wq);
		if (ret)
			return ret;
		if (wq.seg_offset + seg > shmq.map_len)
			return -EINVAL;
		shmq.part[r] = shmq.map + wq.seg_offset;
	}
	return 0;
}

/* Undoes shm_map() and the arrays (the window goes with the job). */
static void shm_unmap(void)
{
	if (shmq.map)
		munmap(shmq.map, shmq.map_len);
	free(shmq.part);
	free(shmq.next);
	free(shmq.out);
	free(shmq.build);
	shmq = (struct shmq_state){ 0 };
}

/*
 * Do all ranks have their queues?  An allgather over MPI_COMM_WORLD through
 * the kernel mailbox (the queues are not on yet); used only if all do.
 * MPI class.
 */
static int shm_agree(int mine, bool *all)
{
	int n = mpirma_proc.size, *each = malloc(n * sizeof(*each)), i, ret;

	if (!each)
		return MPI_ERR_NO_MEM;
	ret = mpirma_coll_allgather_bytes(mpirma_comm_get(MPI_COMM_WORLD),
					  &mine, sizeof(mine), each);
	for (i = 0, *all = !ret; *all && i < n; i++)
		*all = each[i];
	free(each);
	return ret;
}

/*
 * MPIRMA_ONECOPY: bytes from which a message goes by one copy (0: never).
 * Unless set, 128 KiB for a blocking send and 64 KiB for a nonblocking
 * one, as measured in QEMU (docs/lib.md, "One-copy messages"): below them
 * the offer's system calls and page pinning cost more than the second
 * copy saves, where the blocking sender waits for the take and the
 * nonblocking one goes on.  On hardware, where system calls are cheaper
 * and large copies run at memory speed, a lower value may pay.
 */
static long onecopy_env(void)
{
	const char *v = getenv("MPIRMA_ONECOPY");
	char *end;
	unsigned long n;

	if (!v || !*v)
		return ONECOPY_DEFAULT;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (*end || errno || v[0] == '-' || n > ONECOPY_MAX)
		return -1;
	return (long)n;
}

static int onecopy_setting(void)
{
	const char *v = getenv("MPIRMA_ONECOPY");
	long n;

	shmq.onecopy = 0;
	shmq.onecopy_nb = 0;
	if (!(mpirma_proc.query.features & MPIRMA_FEAT_MSG_COPY))
		return MPI_SUCCESS;
	n = onecopy_env();
	if (n < 0)
		return mpirma_err(MPI_ERR_OTHER, "MPIRMA_ONECOPY=%s: bytes from "
				  "which messages go by one copy, 0 (never) "
				  "to %u", v, ONECOPY_MAX);
	shmq.onecopy = (uint64_t)n;
	/* the sender unpins its pages, while the receiver goes on */
	if (mpirma_proc.query.features & MPIRMA_FEAT_OFFER_END)
		shmq.offer_flags = MPIRMA_OFFER_SENDER_ENDS;
	shmq.onecopy_nb = v && *v ? (uint64_t)n : ONECOPY_NB_DEFAULT;
	return MPI_SUCCESS;
}

/*
 * The two as MPI_T control variables (lib/base/tool.h), fixed at MPI_Init:
 * what it made of them (the queues are off where a rank could not map
 * them; no one-copy where the module cannot), before it what it will take.
 */
static int shmq_read(void)
{
	if (mpirma_proc.state == MPIRMA_STATE_PRE_INIT)
		return mpirma_env_on("MPIRMA_SHMQ");
	return shmq.on;
}

static int onecopy_read(void)
{
	long n = onecopy_env();

	if (mpirma_proc.state == MPIRMA_STATE_PRE_INIT)
		return n < 0 ? (int)ONECOPY_DEFAULT : (int)n;
	return (int)shmq.onecopy;
}

MPIRMA_CVARS(shmq,
	{
		.name = "MPIRMA_SHMQ",
		.desc = "1: messages through queues in shared memory (the "
			"default); 0: through the kernel mailbox",
		.cat = MPIRMA_TCAT_MSG,
		.scope = MPI_T_SCOPE_READONLY,
		.read = shmq_read,
	},
	{
		.name = "MPIRMA_ONECOPY",
		.desc = "bytes from which a message goes by one copy, the "
			"kernel copying from the sender's pages (0: never; by "
			"default 128 KiB, and 64 KiB for nonblocking sends)",
		.cat = MPIRMA_TCAT_MSG,
		.scope = MPI_T_SCOPE_READONLY,
		.read = onecopy_read,
	},
)

int mpirma_shmq_setup(void)
{
	uint64_t seg;
	bool all;
	int ret;
	uint32_t r;

	ret = mpirma_env_switch_check("MPIRMA_SHMQ", "0 (messages through "
				      "the kernel) or 1 (shared-memory queues, "
				      "the default)");
	if (ret)
		return ret;
	if (!mpirma_env_on("MPIRMA_SHMQ") ||
	    !(mpirma_proc.query.features & MPIRMA_FEAT_WIN_ALLOC))
		return MPI_SUCCESS;
	shmq.n = (uint32_t)mpirma_proc.size;
	shmq.me = (uint32_t)mpirma_proc.rank;
	shmq.ring = ring_size(shmq.n);
	shmq.frag = shmq.ring / 4 < SHMQ_FRAG_MAX ? shmq.ring / 4 :
		    SHMQ_FRAG_MAX;
	seg = shmq.n * (sizeof(struct shmq_ring) + shmq.ring);
	ret = shm_map(seg);
	if (!ret) {
		shmq.next = calloc(shmq.n, sizeof(*shmq.next));
		shmq.out = calloc(shmq.n, sizeof(*shmq.out));
		shmq.build = calloc(shmq.n, sizeof(*shmq.build));
		if (!shmq.next || !shmq.out || !shmq.build)
			ret = -ENOMEM;
	}
	ret = shm_agree(!ret, &all) ?: !all;
	if (ret) {
		shm_unmap();
		return MPI_SUCCESS;
	}
	for (r = 0; r < shmq.n; r++)
		shmq.next[r] = 1;
	shmq.on = true;
	return onecopy_setting();
}

void mpirma_shmq_teardown(void)
{
	struct shmq_msg *m;

	while ((m = shmq.uhead)) {
		shmq.uhead = m->next;
		free(m);
	}
	shm_unmap();
}
