// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * node.c - MPI_Init and MPI_Finalize under the layer: the ranks of each
 * (logical) node form one module job, and the engine joins it.
 *
 * The host's launcher started the ranks, not mpirma's, so nobody inherited
 * a job fd.  Each node's first rank creates the job and hands its fd to the
 * others over a Unix socket in the abstract namespace, named by 128 random
 * bits that travel only over the host MPI (so only this job learns it), and
 * it gives the fd only to peers whose SO_PEERCRED pid and uid are those the
 * host MPI reported for its node.  Nothing lives in the file system.
 *
 * MPIRMA_LOGICAL_NODES=K splits each real node's ranks into K logical nodes
 * (contiguous blocks of node-local ranks), each its own module job, so that
 * a single machine can test traffic between nodes.  MPIRMA_REQUIRE=1 makes
 * MPI_Init fail when mpirma cannot serve a node, or windows that span nodes
 * cannot be mpirma's; otherwise that node says why once on stderr and runs
 * on the host MPI alone (MPIRMA_VERBOSE=1 says why of spanning windows).
 *
 * Windows that span nodes need an agent thread in every process (agent.c),
 * which talks over a transport of its own, or over the host's messages
 * with MPIRMA_AGENT_TRANSPORT=host (transport.c).  Only the latter needs
 * MPI_THREAD_MULTIPLE of the host, so MPI_Init asks for it only where
 * that one is chosen, and gives the program the level it asked
 * for (never more than the host granted), which MPI_Query_thread then
 * reports.  MPIRMA_SPANNING=0 leaves such windows to the host alone
 * (MPIRMA_VERBOSE says so).  The layer's windows need nothing of the host's one-sided
 * components but a window of no bytes on MPI_COMM_SELF for the handle
 * (win.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent.h"
#include "env.h"
#include "errors.h"
#include "idle.h"
#include "keyval.h"
#include "mpirma_uapi.h"
#include "node.h"
#include "transport.h"
#include "win.h"

/* How long the node's first rank waits for its peers to fetch the job fd. */
#define HY_ACCEPT_MS	60000
/* Bytes of the socket name after its prefix (hex of 16 random bytes). */
#define HY_NAME_LEN	48

/* The node-local ranks' agreement on what the first one set up. */
struct hy_setup {
	int ok;
	char name[HY_NAME_LEN];
	char why[200];
};

static void why(struct hy_setup *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why(struct hy_setup *s, const char *fmt, ...)
{
	va_list ap;

	s->ok = 0;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
}

static socklen_t sock_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* Abstract namespace: sun_path[0] is 0, the name follows. */
	memcpy(a->sun_path + 1, name, strlen(name));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   strlen(name));
}

static bool peer_is(int fd, const pid_t *pids, int n, pid_t except)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int i;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    cr.uid != getuid())
		return false;
	for (i = 0; i < n; i++)
		if (pids[i] == cr.pid && cr.pid != except)
			return true;
	return false;
}

static int send_fd(int sock, int fd)
{
	char byte = 'j';
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte;
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * The node's first rank: creates the job and a listening socket; @s says
 * how it went.  Returns the job fd and the socket, or -1s.
 */
static void leader_open(int n, struct hy_setup *s, int *job_fd, int *sock)
{
	struct mpirma_job_create jc = { .size = sizeof(jc), .nranks = (__u32)n };
	unsigned char rnd[16];
	struct sockaddr_un a;
	socklen_t alen;
	int dev, i;

	*job_fd = *sock = -1;
	s->ok = 1;
	dev = open(MPIRMA_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		why(s, "cannot open %s: %s", MPIRMA_DEVICE, strerror(errno));
		return;
	}
	if (ioctl(dev, MPIRMA_IOC_JOB_CREATE, &jc) < 0) {
		why(s, "cannot create a job of %d ranks: %s", n, strerror(errno));
		close(dev);
		return;
	}
	close(dev);
	*job_fd = jc.job_fd;
	if (n == 1)
		return;
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		why(s, "getrandom: %s", strerror(errno));
		return;
	}
	i = snprintf(s->name, sizeof(s->name), "mpirma-hybrid-");
	for (size_t k = 0; k < sizeof(rnd); k++)
		i += snprintf(s->name + i, sizeof(s->name) - (size_t)i, "%02x",
			      rnd[k]);
	*sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	alen = sock_addr(&a, s->name);
	if (*sock < 0 || bind(*sock, (struct sockaddr *)&a, alen) < 0 ||
	    listen(*sock, n) < 0)
		why(s, "cannot listen on the node's socket: %s", strerror(errno));
}

/* The node's first rank: gives the job fd to the n - 1 others. */
static int leader_serve(int sock, int job_fd, const pid_t *pids, int n)
{
	int given = 0;

	while (given < n - 1) {
		struct pollfd p = { .fd = sock, .events = POLLIN };
		int c;

		if (poll(&p, 1, HY_ACCEPT_MS) <= 0)
			return -1;
		c = accept4(sock, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		/* Only the node's own ranks of this host-MPI job. */
		if (peer_is(c, pids, n, getpid()) && send_fd(c, job_fd) == 0)
			given++;
		close(c);
	}
	return 0;
}

static int peer_fetch(const char *name, pid_t leader)
{
	struct sockaddr_un a;
	socklen_t alen = sock_addr(&a, name);
	int sock, fd = -1;

	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -1;
	if (connect(sock, (struct sockaddr *)&a, alen) == 0 &&
	    peer_is(sock, &leader, 1, 0))
		fd = recv_fd(sock);
	close(sock);
	return fd;
}

/*
 * The engine's waits (on a window's counters, in its queues, its threaded
 * receives) call this now and then: the host advances its nonblocking
 * collectives and matches the receives a synchronous sender waits for in
 * its own waits, which another rank may need of this one before it comes
 * to the fence or epoch.
 */
static void host_progress(void)
{
	int flag;

	(void)PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
			  MPI_STATUS_IGNORE);
}

/*
 * Forms the module job of this process's logical node @lnode and starts
 * the engine in it.  Collective over @lnode.  @s->ok says whether it worked
 * everywhere on the node.
 */
static void join_node(MPI_Comm lnode, struct hy_setup *s)
{
	int n, r, job_fd = -1, sock = -1, ok, provided, ret;
	pid_t me = getpid(), *pids;
	char v[32];

	PMPI_Comm_size(lnode, &n);
	PMPI_Comm_rank(lnode, &r);
	memset(s, 0, sizeof(*s));
	pids = calloc((size_t)n, sizeof(*pids));
	if (!pids) {
		why(s, "out of memory");
		n = 0;
	}
	PMPI_Allgather(&me, sizeof(me), MPI_BYTE, pids, sizeof(me), MPI_BYTE,
		       lnode);
	if (r == 0)
		leader_open(n, s, &job_fd, &sock);
	PMPI_Bcast(s, sizeof(*s), MPI_BYTE, 0, lnode);
	if (s->ok && r == 0 && n > 1 && leader_serve(sock, job_fd, pids, n))
		why(s, "a rank of this node did not fetch the job");
	else if (s->ok && r != 0 && (job_fd = peer_fetch(s->name, pids[0])) < 0)
		why(s, "cannot fetch the node's job from rank %d", 0);
	if (sock >= 0)
		close(sock);
	free(pids);

	if (s->ok) {
		snprintf(v, sizeof(v), "%d", job_fd);
		setenv("MPIRMA_JOB_FD", v, 1);
		snprintf(v, sizeof(v), "%d", r);
		setenv("MPIRMA_RANK", v, 1);
		snprintf(v, sizeof(v), "%d", n);
		setenv("MPIRMA_SIZE", v, 1);
		/*
		 * Under MPI_THREAD_MULTIPLE the layer's fast lane (rma.c)
		 * enters the engine from any thread without hy.lock.
		 */
		ret = MPII_Init_thread(NULL, NULL, hy.threads ?
				       MPII_THREAD_MULTIPLE :
				       MPII_THREAD_SERIALIZED, &provided);
		if (ret != MPII_SUCCESS) {
			char msg[MPII_MAX_ERROR_STRING];
			int len = 0;

			/* The engine's own message names the cause. */
			MPII_Error_string(ret, msg, &len);
			why(s, "%s", msg);
		} else {
			MPII_Comm_set_errhandler(MPII_COMM_WORLD,
						 MPII_ERRORS_RETURN);
			mpirma_set_host_progress(host_progress);
			mpirma_set_block_hook(hy_agent_sleeping);
			mpirma_set_wait_hook(hy_engine_waits);
			hy_win_init();
		}
	} else if (job_fd >= 0) {
		close(job_fd);
	}
	/* The node agrees: one rank that failed turns it off for all. */
	ok = s->ok;
	PMPI_Allreduce(&ok, &s->ok, 1, MPI_INT, MPI_MIN, lnode);
	if (!s->ok && ok)
		why(s, "another rank of this node could not join");
}

/*
 * Windows that span nodes get engine parts when every rank is served and
 * the agents start (unless the host applies their accumulates,
 * MPIRMA_SPAN_ACCUMULATE=host, and no agent runs).  Collective over
 * MPI_COMM_WORLD.
 */

/* MPIRMA_SPAN_ACCUMULATE: "agent" (the default) or "host". */
static bool span_host_acc(void)
{
	static const char *const words[] = { "agent", "host" };

	return hy_env_word("MPIRMA_SPAN_ACCUMULATE", words, 2) == 1;
}

/* MPIRMA_SPANNING: windows that span nodes are mpirma's (1, the default). */
static int span_wanted(void)
{
	return hy_env_int("MPIRMA_SPANNING", 1, 0, 1);
}

/*
 * Why the handles of mpirma's windows cannot be had under
 * MPI_THREAD_MULTIPLE, or NULL.  Open MPI makes them with osc sm (or ucx);
 * a job that leaves it only osc pt2pt (OMPI_MCA_osc=pt2pt), which refuses
 * every window at that level, must not be asked for it.
 */
static const char *no_handles(void)
{
#ifdef OPEN_MPI
	const char *v = getenv("OMPI_MCA_osc");
	char list[256], *save = NULL, *c;
	bool exclude, sm = false;

	if (!v || !*v)
		return NULL;
	exclude = *v == '^';
	snprintf(list, sizeof(list), "%s", v + exclude);
	for (c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save))
		sm = sm || !strcmp(c, "sm") || (!exclude && !strcmp(c, "ucx"));
	if (exclude ? !sm : sm)
		return NULL;
	return "OMPI_MCA_osc leaves Open MPI no component (sm or ucx) for "
	       "the windows' handles under MPI_THREAD_MULTIPLE";
#else
	return NULL;
#endif
}

/*
 * Returns why windows that span nodes are the host's alone although
 * mpirma serves every node and they were not turned off, or NULL.
 */
static const char *span_start(int ok, bool say)
{
	int want = span_wanted(), all;
	bool nodes = false;
	const char *why = NULL;

	for (int i = 1; i < hy.world_size; i++)
		nodes = nodes || hy.node_of[i] != hy.node_of[0];
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!nodes)
		return NULL;	/* no window can span nodes */
	hy.span_host_acc = span_host_acc();
	if (!want)
		why = "MPIRMA_SPANNING=0";
	else if (!all)
		why = "mpirma does not serve every node";
	hy.span = !why;
	if (hy.span && !hy.span_host_acc) {
		int level = MPI_THREAD_SINGLE;

		PMPI_Query_thread(&level);
		hy_transport_choose(level == MPI_THREAD_MULTIPLE);
	}
	hy_agent_start();
	if (!why && !hy.span)
		why = "the agents could not start (their sockets or thread)";
	if (say && hy.span && hy.span_host_acc)
		fprintf(stderr, "mpirma: windows that span nodes: node-local "
			"puts and gets through the module, every "
			"accumulate-like operation through " HY_HOST_NAME
			" (MPIRMA_SPAN_ACCUMULATE=host)\n");
	else if (say && hy.span)
		fprintf(stderr, "mpirma: windows that span nodes: node-local "
			"targets through the module, operations to other "
			"nodes shipped to the target's agent over %s, "
			"synchronization mpirma's over " HY_HOST_NAME
			"'s messages\n", hy_transport_on_host() ?
			HY_HOST_NAME "'s messages" : "its own sockets");
	else if (say)
		fprintf(stderr, "mpirma: windows that span nodes are "
			HY_HOST_NAME "'s alone (%s)\n", why);
	return want && all ? why : NULL;
}

/*
 * The CPUs the ranks of @node may run on between them: the union of their
 * affinity masks.  A launcher that binds each rank to a core of its own
 * (Open MPI's mpirun does by default) gives every rank a one-CPU mask; the
 * node has as many CPUs as the union.  Collective over @node.
 */
/* The CPUs this node's ranks may run on between them (node_cpus). */
static cpu_set_t node_set;
static bool node_set_known;

void hy_node_affinity(pthread_t thread)
{
	if (node_set_known)
		pthread_setaffinity_np(thread, sizeof(node_set), &node_set);
}

static int node_cpus(MPI_Comm node)
{
	cpu_set_t set;
	int n;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set)) {
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
		if (n > 0 && n < CPU_SETSIZE)
			for (int c = 0; c < n; c++)
				CPU_SET(c, &set);
	}
	PMPI_Allreduce(MPI_IN_PLACE, &set, (int)(sizeof(set) / sizeof(long)),
		       MPI_UNSIGNED_LONG, MPI_BOR, node);
	n = CPU_COUNT(&set);
	node_set = set;
	node_set_known = n > 0;
	return n > 0 ? n : 1;
}

/*
 * Every world rank's logical node and rank in its node's job (hy.node_of,
 * hy.inner_of), from this process's @node and @lrank.  Collective.
 */
static int node_map(int node, int lrank)
{
	int mine[2] = { node, lrank }, *both;

	hy.node_of = calloc((size_t)hy.world_size, sizeof(int));
	hy.inner_of = calloc((size_t)hy.world_size, sizeof(int));
	both = calloc((size_t)hy.world_size * 2, sizeof(int));
	if (!hy.node_of || !hy.inner_of || !both) {
		fprintf(stderr, "mpirma: out of memory at MPI_Init\n");
		PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
		free(both);
		return MPI_ERR_NO_MEM;
	}
	PMPI_Allgather(mine, 2, MPI_INT, both, 2, MPI_INT, MPI_COMM_WORLD);
	for (int i = 0; i < hy.world_size; i++) {
		hy.node_of[i] = both[2 * i];
		hy.inner_of[i] = both[2 * i + 1];
	}
	free(both);
	hy.node = node;
	return MPI_SUCCESS;
}

int hy_start(void)
{
	int k = hy_env_int("MPIRMA_LOGICAL_NODES", 1, 1, 1 << 16);
	int require = hy_env_int("MPIRMA_REQUIRE", 0, 0, 1);
	int verbose = hy.verbose = hy_env_int("MPIRMA_VERBOSE", 0, 0, 9);
	MPI_Comm node, lnode;
	int nsize, nrank, wrank, leader, sub, lrank, lsize, all_ok, cpus;
	struct hy_setup s;
	int level = hy.thread_level;
	const char *why_not;
	bool wtime = hy_wtime_start();

	hy_locks_init();
	/* 0: the host's MPI_TAG_UB (agent.c); lower only for tests */
	hy.tag_ub = hy_env_int("MPIRMA_TAG_UB", 0, 0, INT_MAX);
	/* The program's level: MPI_Init_thread's answer, or the host's. */
	if (level < 0)
		PMPI_Query_thread(&level);
	hy.threads = level == MPI_THREAD_MULTIPLE;
	PMPI_Comm_size(MPI_COMM_WORLD, &hy.world_size);
	PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	PMPI_Comm_group(MPI_COMM_WORLD, &hy.world_group);
	PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank,
			     MPI_INFO_NULL, &node);
	PMPI_Comm_size(node, &nsize);
	PMPI_Comm_rank(node, &nrank);
	cpus = node_cpus(node);
	hy.yield = hy_env_int("MPIRMA_YIELD", HY_HOST_SPINS && nsize > cpus, 0, 1);
	hy.crowded = nsize > cpus;
	leader = wrank;
	PMPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
	if (k > nsize)
		k = nsize;
	/* Contiguous blocks: node-local ranks [i*n/k, (i+1)*n/k). */
	sub = (int)((long)nrank * k / nsize);
	PMPI_Comm_split(node, sub, nrank, &lnode);
	PMPI_Comm_rank(lnode, &lrank);
	PMPI_Comm_size(lnode, &lsize);

	join_node(lnode, &s);
	hy.node = leader * k + sub;
	if (!s.ok && lrank == 0)
		fprintf(stderr, "mpirma: not in use on the node of rank %d "
			"(%s)%s\n", wrank, s.why,
			require ? "" : "; running on " HY_HOST_NAME " alone");
	PMPI_Comm_free(&lnode);

	/*
	 * Whether waits yield is the job's, not the node's: it chooses between
	 * a host's blocking and nonblocking collective (waits.c), which must
	 * be the same call on every rank.  One allreduce: MIN of ok, of -yield.
	 */
	{
		int mine[2] = { s.ok, -hy.yield }, all[2];

		PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		all_ok = all[0];
		hy.yield = -all[1];
	}
	hy_idle_start(node, nsize, cpus);
	PMPI_Comm_free(&node);
	if (require && !all_ok) {
		if (wrank == 0)
			fprintf(stderr, "mpirma: MPIRMA_REQUIRE=1 and mpirma "
				"cannot serve every node: MPI_Init fails\n");
		PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
		return MPI_ERR_OTHER;
	}

	/* off: a node of its own */
	if (node_map(s.ok ? hy.node : -1 - wrank, lrank))
		return MPI_ERR_NO_MEM;
	hy.active = s.ok;
	hy.logical = s.ok && k > 1;
	if (verbose && lrank == 0 && s.ok)
		fprintf(stderr, "mpirma: active on " HY_HOST_NAME ": logical "
			"node %d, %d ranks from world rank %d; %d ranks on "
			"%d CPUs of the node%s; MPI_Wtime from %s\n", hy.node,
			lsize, wrank, nsize, cpus, hy.yield ? ": waits in "
			HY_HOST_NAME " yield the CPU" : "",
			wtime ? "mpirma" : HY_HOST_NAME);
	why_not = span_start(s.ok, verbose && wrank == 0);
	if (require && why_not) {
		if (wrank == 0)
			fprintf(stderr, "mpirma: MPIRMA_REQUIRE=1 and windows "
				"that span nodes would be " HY_HOST_NAME
				"'s alone (%s): MPI_Init fails\n", why_not);
		PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
		return MPI_ERR_OTHER;
	}
	return MPI_SUCCESS;
}

/*
 * The launcher says every rank of the job is on this node, and
 * MPIRMA_LOGICAL_NODES does not split it: no window can span nodes and no
 * agent will run, so the host is not asked for MPI_THREAD_MULTIPLE, whose
 * locks make every one of its calls slower (Open MPI's and MPICH's
 * messages and barriers by 20-70% in the VM).  Read before MPI_Init, from
 * what Open MPI's mpirun and MPICH's Hydra set; false when unknown.
 */
static bool one_node_job(void)
{
	long k, world, local;

	/* as hy_start() reads it: a bad value is 1 (and it says so) */
	if (hy_env_number("MPIRMA_LOGICAL_NODES", 1, 1 << 16, &k) > 0 && k > 1)
		return false;
	return hy_launcher_ranks(&world, &local) && world == local;
}

/*
 * Only the host's transport for the agents needs MPI_THREAD_MULTIPLE
 * (transport.c): ask for it where it may be chosen.
 */
bool hy_want_threads(void)
{
	return span_wanted() && !span_host_acc() && !no_handles() &&
	       !one_node_job() && hy_transport_want_host() &&
	       access(MPIRMA_DEVICE, F_OK) == 0;
}

int MPI_Init(int *argc, char ***argv)
{
	int ret, host;

	if (!hy_want_threads()) {
		ret = PMPI_Init(argc, argv);
		return ret ? ret : hy_start();
	}
	ret = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &host);
	if (ret)
		return ret;
	hy.thread_level = MPI_THREAD_SINGLE;
	return hy_start();
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int ret, host;

	ret = PMPI_Init_thread(argc, argv, hy_want_threads() ?
			       MPI_THREAD_MULTIPLE : required, &host);
	if (ret)
		return ret;
	/* What it asked for, never more than the host gives. */
	*provided = required < host ? required : host;
	hy.thread_level = *provided;
	return hy_start();
}

int MPI_Query_thread(int *provided)
{
	if (hy.thread_level < 0)
		return PMPI_Query_thread(provided);
	*provided = hy.thread_level;
	return MPI_SUCCESS;
}

void hy_stop(void)
{
	static bool stopped;
	bool agents = hy.agent;

	if (stopped)
		return;
	stopped = true;
	/* Every window is freed: nobody ships to this agent any more. */
	hy_agent_stop(hy.verbose >= 2);
	/*
	 * Into the host's MPI_Finalize together: after the agents have
	 * talked, MPICH 4.0.2 over TCP can hang there, the ranks of one node
	 * in UCX's endpoint flush while those of another wait in the
	 * launcher's barrier, which makes no progress.
	 */
	if (agents)
		PMPI_Barrier(MPI_COMM_WORLD);
	hy_idle_stop();
	if (hy.active) {
		hy_lock();
		/* The node's ranks leave the module job together. */
		MPII_Finalize();
		hy.active = false;
		hy_unlock();
	}
	if (hy.world_group != MPI_GROUP_NULL)
		PMPI_Group_free(&hy.world_group);
	free(hy.node_of);
	free(hy.inner_of);
	hy.node_of = hy.inner_of = NULL;
}

int MPI_Finalize(void)
{
	int ret;

	hy_stop();
	ret = PMPI_Finalize();
	hy_keyval_stop();	/* the host's finalize may free windows */
	hy_win_spares_free();
	return ret;
}

/* With logical nodes, "shared memory" means the logical node. */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
			MPI_Comm *newcomm)
{
	if (hy.logical && split_type == MPI_COMM_TYPE_SHARED)
		return PMPI_Comm_split(comm, hy.node, key, newcomm);
	return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
}
