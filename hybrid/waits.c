// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * waits.c - the layer's waits that serve while they wait.
 *
 * While agents run (windows span nodes), operations from other nodes come
 * to this process's agent over its own sockets (net.h).  A thread of the
 * program that waits in the layer (for a reply, a lock grant, a barrier,
 * the layer's own collectives in window creation) polls the host and
 * those sockets in turn and serves what has come itself (hy_agent_assist)
 * while the agent rests: a remote origin is answered at once, without a
 * thread switch, which under emulation cost a put and its flush 300 us
 * against 25.  The program's MPI_Recv serves so while the process has a
 * window that spans nodes, and its MPI_Barrier, MPI_Reduce, MPI_Allreduce
 * and MPI_Bcast on a communicator such a window was created over
 * (hy_coll_serves); elsewhere they are the host's calls, at the host's
 * cost and at the program's thread level.  Where the node has more ranks
 * than CPUs (hy.crowded), or with hy.yield, the polls yield the CPU
 * between rounds.  With hy.yield (the host's blocking calls spin) the
 * program's barriers, reductions and broadcasts all wait so, as do its
 * MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Sendrecv, and
 * MPI_Send and MPI_Recv (poll_wait), and a wait idle for long naps
 * (yield_or_nap), counted on the node (idle.c): while the ranks that do
 * not nap fit the node's CPUs and no agent serves, the point-to-point
 * calls and the waits for requests are the host's blocking ones again
 * (host_blocks).  Without agents and yield, each wait is the host's
 * blocking call.
 *
 * Called by origin.c, span.c, win.c and sync.c; calls agent.c, idle.c and
 * waits_args.c.
 */
#include <sched.h>
#include <time.h>

#include "agent.h"
#include "coll.h"
#include "errors.h"
#include "idle.h"
#include "lockword.h"
#include "net.h"
#include "net_host.h"
#include "transport.h"
#include "waits.h"
#include "waits_args.h"

/*
 * Messages up to this many bytes keep the host's blocking call (once a
 * probe has seen them, for a receive): a ping-pong to 8 KiB took no
 * longer so; larger ones may go in pieces, each waiting for the peer
 * (poll_wait).
 */
#define YIELD_WHOLE 16384

/* Does a wait serve the agent: a window here spans nodes? */
static inline __attribute__((always_inline)) bool agent_serves(void)
{
	return hy.agent && hy_slots_live();
}

/*
 * Are the program's point-to-point calls and waits for requests the
 * host's blocking ones?  Where the layer does not yield, and where it does
 * while the node's ranks that do not nap fit its CPUs (idle.c) and no
 * agent serves, a thread that wants a CPU too.
 */
static inline __attribute__((always_inline)) bool host_blocks(void)
{
	if (!hy.yield)
		return true;
	hy_idle.calls++;
	if (!hy_cpus_spare() || agent_serves())
		return false;
	hy_idle.spared++;
	return true;
}

/* Waits poll the host: to serve the agent's messages, or to yield. */
static bool waits_poll(void)
{
	return hy.agent || hy.yield;
}

/*
 * A wait's pause between two polls where the layer yields (the host spins
 * and ranks outnumber CPUs).  It first spins, as the host's own wait would,
 * SPIN_ROUNDS rounds and, where no agent runs, SPIN_NS at least: about what
 * a yield and the switch back cost on hardware, within which a ping-pong's
 * reply comes when both ranks run (natively, after 32 rounds alone, half a
 * microsecond, an 8-byte ping-pong of MPICH's took 4-5 us against 0.8-1.1).
 * Agents are threads that want the CPUs too: at two logical nodes under
 * emulation the longer spin made ping-pongs 2-7 times slower in 3 launches
 * of 6.  Then it yields at every round.  Once it has been idle for
 * NAP_AFTER_NS it naps between rounds for an eighth of that time (at most
 * NAP_MAX_NS), so it ends at most that much late: a rank idle in a long wait
 * that only yielded still took a turn on a CPU at each round, between the
 * ranks at work (MPICH, 4 ranks on 2 CPUs, two of them in MPI_Bcast beside
 * an 8-byte ping-pong: 78 us a message, 4.6 so; 90 and 11 at two logical
 * nodes).  A wait that serves the agent's messages is not idle: its clock
 * starts again, so a stream of remote operations is served at the pace of
 * yields, as by the agent itself after a frame (net_host.c).
 */
#define SPIN_ROUNDS	32
#define SPIN_NS		5000LL
#define NAP_AFTER_NS	1000000LL
#define NAP_MAX_NS	1000000LL
#define NAP_CLOCK_EVERY	16	/* rounds between two clock reads */

/*
 * A wait's pauses: when it was last found idle (0: not yet read), when its
 * spin ends (0: not yet read, -1: spun), its rounds, and
 * hy_agent_assisted() when it last looked.
 */
struct pause {
	long long start;
	long long spin_end;
	unsigned int rounds;
	unsigned int served;
	bool napped;		/* counted idle on the node (idle.c) */
};

/* The end of a wait that paused by @p. */
static void pause_end(struct pause *p)
{
	hy_agent_waiting(-1);
	if (p->napped)
		hy_idle_leave();
}

static void yield_or_nap(struct pause *p)
{
	struct timespec ts = { 0 };
	unsigned int served;
	long long now, ns;

	p->rounds++;
	served = hy_agent_assisted();
	if (served != p->served) {
		p->served = served;
		p->start = 0;
		if (p->napped)
			hy_idle_leave();
		p->napped = false;
	}
	if (p->rounds <= SPIN_ROUNDS)
		return;
	if (p->spin_end >= 0 && !hy.agent) {
		now = hy_clock_ns(CLOCK_MONOTONIC);
		if (!p->spin_end)
			p->spin_end = now + SPIN_NS;
		if (now < p->spin_end)
			return;
		p->spin_end = -1;	/* spun: no more clock reads for it */
	}
	sched_yield();
	if (p->rounds % NAP_CLOCK_EVERY)
		return;
	now = hy_clock_ns(CLOCK_MONOTONIC);
	if (!p->start)
		p->start = now;
	if (now - p->start < NAP_AFTER_NS)
		return;
	if (!p->napped)
		hy_idle_enter();
	p->napped = true;
	ns = (now - p->start) / 8;
	ts.tv_nsec = ns < NAP_MAX_NS ? ns : NAP_MAX_NS;
	nanosleep(&ts, NULL);
}

/*
 * Between two polls of a wait that serves: yields where CPUs are short
 * (on the host's transport, where the host spins: its rounds that serve
 * wait in the host's own wait otherwise, agent.c).  A round that tested
 * the host's requests has yielded already where the host does not spin
 * (@host_polled): Open MPI's test yields when idle on a node it knows
 * oversubscribed, and a second yield made each round a second switch.
 */
static void poll_pause(struct pause *p, bool host_polled)
{
	if (hy.yield)
		yield_or_nap(p);
	else if (hy.crowded && !hy_transport_on_host() &&
		 !(host_polled && !HY_HOST_SPINS))
		sched_yield();
}

/*
 * PMPI_Waitall of @req, serving while it waits: the host's requests and
 * the agent's sockets cannot be waited for in one call, so it polls both.
 */
static int wait_status(int n, MPI_Request *req, MPI_Status *stat)
{
	struct pause p = { 0 };
	int ret = MPI_SUCCESS, k;

	if (!waits_poll())
		return PMPI_Waitall(n, req, stat ? stat : MPI_STATUSES_IGNORE);
	hy_agent_waiting(1);
	for (;;) {
		for (k = 0; k < n && req[k] == MPI_REQUEST_NULL; k++)
			;
		if (k == n)
			break;
		ret = hy_agent_assist(n, req, stat);
		if (ret != MPI_SUCCESS)
			break;
		poll_pause(&p, true);
	}
	pause_end(&p);
	return ret;
}

/*
 * No host request among them: it looks at the replies and the agent's
 * connections in turn, and yields between looks where CPUs are short
 * (poll_pause), as the hosts' own waits do there.  Sleeping in poll()
 * until the reply's bell instead made each round trip a thread's wake-up
 * through the kernel: mpi4py's RMA tests at two logical nodes, 4 ranks on
 * 2 CPUs, took 1.2-1.4 times as long as on the host's transport in one
 * boot, and 0.97-1.25 times polling in another (docs/history.md, "The
 * agents' own transport where ranks outnumber CPUs").
 */
int hy_wait_net(struct hy_nrecv *r)
{
	struct pause p = { 0 };
	int got;

	/* a host request: one wait with the inbox (net_host.c) */
	if (hy_transport_on_host())
		return net_host_wait(r, wait_status);
	got = hy_net_test(r, 0);
	if (got & HY_NET_DONE)
		return r->status;
	hy_agent_waiting(1);
	while (!(got & HY_NET_DONE)) {
		if (got & HY_NET_INCOMING)
			hy_agent_serve();
		else if (!got)
			poll_pause(&p, false);	/* another reads: it may spin */
		got = hy_net_test(r, 0);
	}
	pause_end(&p);
	return r->status;
}

/*
 * A node-local holder gives the word back soon, or a remote one after its
 * round trips: the wait spins, then yields, then naps (yield_or_nap) even
 * where the layer does not yield, for it may be long.
 */
void hy_wait_word(uint64_t *word, int type)
{
	struct pause p = { 0 };

	if (hy_lw_try(word, type))
		return;
	hy_lw_enqueue(word);
	hy_agent_waiting(1);
	while (!hy_lw_try_queued(word, type)) {
		hy_agent_serve();
		yield_or_nap(&p);
	}
	pause_end(&p);
}

int hy_wait(int n, MPI_Request *req)
{
	return wait_status(n, req, NULL);
}

/* The wait of a nonblocking call that returned @ret and set *@req. */
static int wait_started(int ret, MPI_Request *req)
{
	return ret != MPI_SUCCESS ? ret : hy_wait(1, req);
}

/*
 * Do the program's collectives on @comm wait by polling?  Where the layer
 * yields, all of them: a rank idle in the host's spinning collective kept
 * the ranks that poll and yield off the CPU (MPICH, 4 ranks on 2 CPUs: an
 * 8-byte ping-pong beside two ranks in MPI_Bcast, 10 us alone, 21-83
 * through the layer).  Else those that serve.  The same answer on every
 * member: hy.yield is the job's, agents run in every process or in none,
 * and a communicator's mark is set by all its members at once (coll.c).
 */
static bool coll_serves(MPI_Comm comm)
{
	return hy.yield || (hy.agent && hy_coll_serves(comm));
}

/* The barrier whose wait serves. */
static int serving_barrier(MPI_Comm comm)
{
	MPI_Request req;
	bool done;
	int ret;

	ret = hy_coll_barrier(comm, &done);
	if (done)
		return ret;
	return wait_started(PMPI_Ibarrier(comm, &req), &req);
}

int hy_wait_barrier(MPI_Comm comm)
{
	return waits_poll() ? serving_barrier(comm) : PMPI_Barrier(comm);
}

/* The nonblocking allreduce and a wait that serves. */
static int wait_iallreduce(const void *in, void *out, int count,
			   MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	MPI_Request req;
	bool done;
	int ret;

	ret = hy_coll_allreduce(in, out, count, type, op, comm, &done);
	if (done)
		return ret;
	return wait_started(PMPI_Iallreduce(in, out, count, type, op, comm,
					    &req), &req);
}

int hy_wait_allreduce(const void *in, void *out, int count, MPI_Datatype type,
		      MPI_Op op, MPI_Comm comm)
{
	if (!waits_poll())
		return PMPI_Allreduce(in, out, count, type, op, comm);
	return wait_iallreduce(in, out, count, type, op, comm);
}

int hy_wait_comm_dup(MPI_Comm comm, MPI_Comm *out)
{
	MPI_Request req;

	if (!waits_poll())
		return PMPI_Comm_dup(comm, out);
	return wait_started(PMPI_Comm_idup(comm, out, &req), &req);
}

int hy_wait_allgather(const void *in, int count, MPI_Datatype type, void *out,
		      MPI_Comm comm)
{
	MPI_Request req;

	if (!waits_poll())
		return PMPI_Allgather(in, count, type, out, count, type, comm);
	return wait_started(PMPI_Iallgather(in, count, type, out, count, type,
					    comm, &req), &req);
}

/*
 * What a wait that polls waits for: @n requests @req, all of them (their
 * statuses into @st), any one (its index into *@index, its status into
 * @st) or some (*@outcount of them, @indices); or with none, a message of
 * @source with @tag on @comm (the probe's status into @st).
 */
struct poll_for {
	enum { POLL_ALL, POLL_ANY, POLL_SOME, POLL_PROBE } kind;
	int n;
	MPI_Request *req;
	MPI_Status *st;
	int *index, *outcount, *indices;
	int source, tag;
	MPI_Comm comm;
};

/* One look: the host's error, or MPI_SUCCESS and *@flag once done. */
static int poll_test(const struct poll_for *f, int *flag)
{
	int ret;

	switch (f->kind) {
	case POLL_PROBE:
		return PMPI_Iprobe(f->source, f->tag, f->comm, flag, f->st);
	case POLL_ANY:
		return PMPI_Testany(f->n, f->req, f->index, flag, f->st);
	case POLL_SOME:
		ret = PMPI_Testsome(f->n, f->req, f->outcount, f->indices,
				    f->st);
		*flag = *f->outcount != 0;	/* MPI_UNDEFINED: none active */
		return ret;
	default:
		return f->n == 1 ? PMPI_Test(f->req, flag, f->st) :
		       PMPI_Testall(f->n, f->req, flag, f->st);
	}
}

/*
 * A wait that polls for @f, serving the agent between rounds without
 * blocking in it, and yielding the CPU where the layer yields or CPUs are
 * short.  Where the layer yields (the host spins and ranks outnumber
 * CPUs), a transfer in pieces must not wait inside the host's blocking
 * call: it spins there while the peer that has to take or give the next
 * piece waits for its CPU until the scheduler's next tick (MPICH, 4 ranks
 * on 2 CPUs: a ping-pong of 32 KiB took 7 ms).
 */
static int poll_wait(const struct poll_for *f)
{
	struct pause p = { 0 };
	int flag = 0, ret;

	hy_agent_waiting(1);
	for (;;) {
		ret = poll_test(f, &flag);
		if (ret != MPI_SUCCESS || flag)
			break;
		hy_agent_serve();
		if (hy.yield)
			yield_or_nap(&p);
		else if (hy.crowded)
			sched_yield();
	}
	pause_end(&p);
	return ret;
}

/* poll_wait() for all of @n requests @req, statuses into @st. */
static int poll_all(int n, MPI_Request *req, MPI_Status *st)
{
	return poll_wait(&(struct poll_for){ .kind = POLL_ALL, .n = n,
					     .req = req, .st = st });
}

/*
 * The receive posted, then a wait that serves (@serve), or one that
 * polls and yields; @by HY_RAISE_BY_LAYER: the wait's error raised on
 * @comm's handler (the host's test returned it).
 */
static int posted_recv(void *buf, int count, MPI_Datatype type, int source,
		       int tag, MPI_Comm comm, MPI_Status *status, bool serve,
		       enum hy_recv_raise by)
{
	MPI_Request req;
	MPI_Status st;
	int ret;

	ret = PMPI_Irecv(buf, count, type, source, tag, comm, &req);
	if (ret != MPI_SUCCESS)
		return ret;
	if (!serve) {
		ret = poll_all(1, &req, status);
	} else {
		ret = wait_status(1, &req, &st);
		/* done, with its own error or none (agent.h) */
		if (req == MPI_REQUEST_NULL && status != MPI_STATUS_IGNORE)
			*status = st;
	}
	if (ret != MPI_SUCCESS && by == HY_RAISE_BY_LAYER)
		PMPI_Comm_call_errhandler(comm, ret);
	return ret;
}

/*
 * MPI_Recv that serves (@serve) or yields: the host's MPI_Recv for a bad
 * receive (which names it).  Where errors on @comm are fatal, PMPI_Irecv
 * and a wait that serves, or polls and yields.  Else probes that serve
 * (and yield where the layer yields) until the message is there, then the
 * host's MPI_Recv for a truncating receive, else PMPI_Irecv and a wait
 * that serves, or yields.  A receive the program posted earlier matches
 * its message as it arrives, before any probe sees it, and the receive
 * then takes the earliest message that matches, the one the probe saw, so
 * the standard's matching order holds.
 */
static __attribute__((noinline)) int
recv_polled(void *buf, int count, MPI_Datatype type, int source, int tag,
	    MPI_Comm comm, MPI_Status *status)
{
	bool serve = agent_serves();
	enum hy_recv_raise by;
	int ret, room, bytes;
	MPI_Status st;

	/* MPI_Recv has asked host_blocks() already */
	if (!hy_probe_args_ok(source, tag, comm) ||
	    !hy_buffer_args_ok(count, type, &room))
		return PMPI_Recv(buf, count, type, source, tag, comm, status);
	/*
	 * Where the error comes back as MPI_Recv's would, the receive is
	 * posted and polled: a probe first made the host take the message
	 * twice, into its queue of unexpected ones and out again (MPICH, 2
	 * ranks, forced yield, natively: 1.08-1.31 times the host's MPI_Recv
	 * from 8 B to 8 KiB against 1.00-1.05).  A truncation then returns
	 * MPI_ERR_TRUNCATE, or aborts in the name of MPI_Test.
	 */
	by = hy_recv_raise(comm, serve);
	if (by != HY_RAISE_AFTER_PROBE)
		return posted_recv(buf, count, type, source, tag, comm, status,
				   serve, by);
	ret = poll_wait(&(struct poll_for){ .kind = POLL_PROBE, .st = &st,
					    .source = source, .tag = tag,
					    .comm = comm });
	if (ret != MPI_SUCCESS)
		return ret;
	/*
	 * The message is there: a truncating receive is the host's MPI_Recv,
	 * which reports it under its own name (in a wait of several requests,
	 * its error would be another call's, or fatal).  Else a receive that
	 * takes the earliest that matches (the one the probe saw) and a wait
	 * that serves, or one that yields for a message that may come in
	 * pieces.
	 */
	if (PMPI_Get_count(&st, MPI_BYTE, &bytes) != MPI_SUCCESS ||
	    bytes == MPI_UNDEFINED || bytes > room ||
	    (!serve && bytes <= YIELD_WHOLE))
		return PMPI_Recv(buf, count, type, source, tag, comm, status);
	return posted_recv(buf, count, type, source, tag, comm, status, serve,
			   HY_RAISE_AFTER_PROBE);
}

/*
 * MPI_Send where the layer yields: a message that may go in pieces waits
 * for its receiver with the CPU yielded (poll_wait).  Elsewhere, and for
 * arguments the host would refuse, the host's call.
 */
static __attribute__((noinline)) int
send_yielding(const void *buf, int count, MPI_Datatype type, int dest,
	      int tag, MPI_Comm comm)
{
	MPI_Request req;
	int bytes, ret;

	/* the cheapest test first: most messages are small */
	if (!hy_buffer_args_ok(count, type, &bytes) || bytes <= YIELD_WHOLE ||
	    tag < 0 || dest == MPI_ANY_SOURCE ||
	    !hy_probe_args_ok(dest, tag, comm))
		return PMPI_Send(buf, count, type, dest, tag, comm);
	ret = PMPI_Isend(buf, count, type, dest, tag, comm, &req);
	if (ret == MPI_SUCCESS)
		ret = poll_all(1, &req, MPI_STATUS_IGNORE);
	return ret;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
	     MPI_Comm comm)
{
	/* a jump to the host's, without a frame of the layer's */
	if (host_blocks())
		return PMPI_Send(buf, count, type, dest, tag, comm);
	return send_yielding(buf, count, type, dest, tag, comm);
}

/*
 * The program's waits where the layer yields: a rank idle in them polls,
 * yields and naps as in the layer's own waits, where the host's call spun
 * while the ranks at work waited for a CPU.  Elsewhere, and for arguments
 * the host would refuse, the host's calls, unwrapped.
 */
int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	if (host_blocks() || !req)
		return PMPI_Wait(req, status);
	return poll_all(1, req, status);
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	if (host_blocks() || count <= 0 || !reqs)
		return PMPI_Waitall(count, reqs, statuses);
	return poll_all(count, reqs, statuses);
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
	if (host_blocks() || count <= 0 || !reqs || !index)
		return PMPI_Waitany(count, reqs, index, status);
	return poll_wait(&(struct poll_for){ .kind = POLL_ANY, .n = count,
					     .req = reqs, .index = index,
					     .st = status });
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount,
		 int indices[], MPI_Status statuses[])
{
	if (host_blocks() || incount <= 0 || !reqs || !outcount || !indices)
		return PMPI_Waitsome(incount, reqs, outcount, indices,
				     statuses);
	return poll_wait(&(struct poll_for){ .kind = POLL_SOME, .n = incount,
					     .req = reqs, .outcount = outcount,
					     .indices = indices,
					     .st = statuses });
}

/*
 * MPI_Sendrecv where the layer yields: its two halves started, then the
 * waits above.  The host's call for arguments it would refuse, which it
 * reports under its own name, and where a test would raise an error on
 * another communicator than @comm (MPICH's, on a communicator not the
 * world whose errors do not end the job).
 */
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
		 int stag, void *rbuf, int rcount, MPI_Datatype rtype,
		 int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
	MPI_Request req[2];
	int sbytes, rbytes, ret, r;

	if (host_blocks() || stag < 0 || dest == MPI_ANY_SOURCE ||
	    !hy_probe_args_ok(dest, stag, comm) ||
	    !hy_probe_args_ok(source, rtag, comm) ||
	    !hy_buffer_args_ok(scount, stype, &sbytes) ||
	    !hy_buffer_args_ok(rcount, rtype, &rbytes) ||
	    hy_recv_raise(comm, false) != HY_RAISE_BY_HOST)
		return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf,
				     rcount, rtype, source, rtag, comm, status);
	ret = PMPI_Irecv(rbuf, rcount, rtype, source, rtag, comm, &req[0]);
	if (ret != MPI_SUCCESS)
		return ret;
	ret = PMPI_Isend(sbuf, scount, stype, dest, stag, comm, &req[1]);
	if (ret != MPI_SUCCESS) {
		PMPI_Cancel(&req[0]);
		PMPI_Wait(&req[0], MPI_STATUS_IGNORE);
		return ret;
	}
	/* one at a time: each request's own error, not MPI_ERR_IN_STATUS */
	ret = poll_all(1, &req[0], status);
	r = poll_all(1, &req[1], MPI_STATUS_IGNORE);
	return ret != MPI_SUCCESS ? ret : r;
}

int MPI_Barrier(MPI_Comm comm)
{
	if (coll_serves(comm))
		return serving_barrier(comm);
	return PMPI_Barrier(comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
	     MPI_Comm comm, MPI_Status *status)
{
	/* the common case first, a jump to the host's: a call costs, emulated */
	if (!agent_serves() && host_blocks())
		return PMPI_Recv(buf, count, type, source, tag, comm, status);
	return recv_polled(buf, count, type, source, tag, comm, status);
}

/*
 * The program's reductions and broadcast on a communicator whose
 * collectives serve (OpenCoarrays' image 0 waits in MPI_Reduce while image
 * 1 reads its coarrays, each read left to the agent's next poll
 * otherwise).  Every member decides alike (coll_serves): a blocking
 * collective does not match a nonblocking one.  Elsewhere, the host's
 * call, unwrapped.
 */
int MPI_Reduce(const void *in, void *out, int count, MPI_Datatype type,
	       MPI_Op op, int root, MPI_Comm comm)
{
	MPI_Request req;

	if (!coll_serves(comm))
		return PMPI_Reduce(in, out, count, type, op, root, comm);
	return wait_started(PMPI_Ireduce(in, out, count, type, op, root, comm,
					 &req), &req);
}

int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type,
		  MPI_Op op, MPI_Comm comm)
{
	if (!coll_serves(comm))
		return PMPI_Allreduce(in, out, count, type, op, comm);
	return wait_iallreduce(in, out, count, type, op, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
	      MPI_Comm comm)
{
	MPI_Request req;
	bool done;
	int ret;

	if (!coll_serves(comm))
		return PMPI_Bcast(buf, count, type, root, comm);
	ret = hy_coll_bcast(buf, count, type, root, comm, &done);
	if (done)
		return ret;
	return wait_started(PMPI_Ibcast(buf, count, type, root, comm, &req),
			    &req);
}
