// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * init.c - the MPI environment: joining the job, finalizing, aborting,
 * clocks, versions, MPI_Alloc_mem.
 *
 * Startup (docs/lib.md): under the launcher the environment carries
 * MPIRMA_JOB_FD, MPIRMA_RANK and MPIRMA_SIZE; the process joins the job with
 * them, closes the job fd and keeps the member fd.  Without them it is a
 * singleton: it opens /dev/mpirma, creates a job of one and joins it.  The
 * variables are removed after joining, so a program this one starts runs
 * as its own singleton instead of trying to join a job fd it does not have.
 *
 * MPI_Init and MPI_Session_init (session.c) both hold the joined library
 * (mpirma_hold): the first joins the job, the last MPI_Finalize or
 * MPI_Session_finalize leaves it (mpirma_release), once per process.
 *
 * Thread level: whatever is asked, up to MPI_THREAD_MULTIPLE, with which
 * every call takes the library lock (lib/base/thread.c); a later holder
 * may raise it, never lower it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "runtime.h"
#include "p2p.h"
#include "tool.h"

static pthread_t main_thread;

/* Parses a non-negative decimal int; -1 if it is not one. */
static int parse_nonneg(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > INT_MAX)
		return -1;
	return (int)v;
}

/*
 * Finds the job fd and rank: from the launcher's environment or by creating
 * a job of one.  Returns MPI_SUCCESS or a class with the cause recorded.
 */
static int find_job(int *job_fd, int *rank, int *size)
{
	const char *efd = getenv("MPIRMA_JOB_FD");
	const char *erank = getenv("MPIRMA_RANK");
	const char *esize = getenv("MPIRMA_SIZE");
	struct mpirma_job_create jc = { .size = sizeof(jc), .nranks = 1 };
	int dev;

	if (efd || erank || esize) {
		*job_fd = parse_nonneg(efd);
		*rank = parse_nonneg(erank);
		*size = parse_nonneg(esize);
		if (*job_fd < 0 || *rank < 0 || *size < 1 || *rank >= *size)
			return mpirma_err(MPI_ERR_OTHER,
				"bad launcher environment MPIRMA_JOB_FD=%s "
				"MPIRMA_RANK=%s MPIRMA_SIZE=%s (start the "
				"program with mpiexec, or without these "
				"variables)", efd ? efd : "(unset)",
				erank ? erank : "(unset)",
				esize ? esize : "(unset)");
		if (fcntl(*job_fd, F_GETFD) < 0)
			return mpirma_err(MPI_ERR_OTHER,
				"MPIRMA_JOB_FD=%d is not an open file "
				"descriptor (was the program started by "
				"mpiexec?)", *job_fd);
		mpirma_proc.singleton = false;
		return MPI_SUCCESS;
	}

	dev = open(MPIRMA_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return mpirma_err(MPI_ERR_OTHER, "cannot open %s: %s (%s)",
				  MPIRMA_DEVICE, strerror(errno),
				  errno == EACCES || errno == EPERM ?
				  "check the device's permissions" :
				  "is the mpirma module loaded?");
	if (ioctl(dev, MPIRMA_IOC_JOB_CREATE, &jc) < 0) {
		int e = errno;

		close(dev);
		return mpirma_err_errno(-e, "creating a job of one");
	}
	close(dev);
	*job_fd = jc.job_fd;
	*rank = 0;
	*size = 1;
	mpirma_proc.singleton = true;
	return MPI_SUCCESS;
}

static int join_job(void)
{
	struct mpirma_job_join jj = { .size = sizeof(jj) };
	int job_fd = -1, rank = 0, size = 0, ret;

	ret = find_job(&job_fd, &rank, &size);
	if (ret)
		return ret;
	jj.rank = rank;
	ret = ioctl(job_fd, MPIRMA_IOC_JOB_JOIN, &jj) < 0 ? -errno : 0;
	close(job_fd);
	if (ret)
		return mpirma_err_errno(ret, "joining the job as rank %d", rank);
	if ((int)jj.nranks != size) {
		close(jj.member_fd);
		return mpirma_err(MPI_ERR_OTHER, "the job has %u ranks but "
				  "MPIRMA_SIZE says %d", jj.nranks, size);
	}
	unsetenv("MPIRMA_JOB_FD");
	unsetenv("MPIRMA_RANK");
	unsetenv("MPIRMA_SIZE");
	mpirma_proc.fd = jj.member_fd;
	mpirma_proc.rank = rank;
	mpirma_proc.size = size;
	mpirma_proc.job_id = jj.job_id;
	return MPI_SUCCESS;
}

/*
 * How long a waiting receive polls before it sleeps in the kernel
 * (mpirma_msg_recv): MPIRMA_SPIN_US, else 1 ms where every rank of the job
 * can have a CPU of this node, else 0 (a polling rank would take the CPU
 * of the rank it waits for).  A peer that answers at once does so within a
 * microsecond through the queues, while a sleep and its wake-up cost tens
 * of microseconds on a node and hundreds in an emulated VM (bench/msg_bench).
 *
 * Then, MPIRMA_YIELD_US, it polls giving up its CPU after each look
 * (sched_yield): 200 us where the ranks outnumber the CPUs, else 0.  The
 * rank it waits for then runs on that CPU at once instead of after a
 * sleep and a wake-up: a barrier of 4 ranks on 2 CPUs took 260-310 us
 * sleeping at once, 100-175 us with this (Open MPI, which yields in its
 * polls: 117-122 us).
 */
#define SPIN_US_DEFAULT		1000
#define YIELD_US_DEFAULT	200
#define SPIN_US_MAX		1000000

/* The default of @name (MPIRMA_SPIN_US, _YIELD_US) in a job of @size. */
static int wait_default(const char *name, int size)
{
	bool crowded = sysconf(_SC_NPROCESSORS_ONLN) < size;

	if (!strcmp(name, "MPIRMA_SPIN_US"))
		return crowded ? 0 : SPIN_US_DEFAULT;
	return crowded ? YIELD_US_DEFAULT : 0;
}

/* @name's microseconds in a job of @size; -1 for a bad value. */
static int wait_us(const char *name, int size)
{
	const char *v = getenv(name);
	int us;

	if (!v || !*v)
		return wait_default(name, size);
	us = parse_nonneg(v);
	return us > SPIN_US_MAX ? -1 : us;
}

/* @name's microseconds into *@secs; MPI class. */
static int wait_setting(const char *name, double *secs)
{
	int us = wait_us(name, mpirma_proc.size);

	if (us < 0)
		return mpirma_err(MPI_ERR_OTHER, "%s=%s is not a number of "
				  "microseconds from 0 to %d", name,
				  getenv(name), SPIN_US_MAX);
	*secs = us * 1e-6;
	return MPI_SUCCESS;
}

static int spin_setting(void)
{
	int ret;

	ret = wait_setting("MPIRMA_SPIN_US", &mpirma_proc.spin);
	if (!ret)
		ret = wait_setting("MPIRMA_YIELD_US", &mpirma_proc.yield_spin);
	return ret;
}

/*
 * The two as MPI_T control variables (lib/base/tool.h), in microseconds:
 * a process may change them alone while MPI runs, each wait reading them
 * as it starts.  Before MPI_Init they read what MPI_Init will take (the
 * default where the value is bad: MPI_Init fails on it).
 */
static int wait_read(const char *name, double secs)
{
	int size, us;

	if (mpirma_proc.state != MPIRMA_STATE_PRE_INIT)
		return (int)(secs * 1e6 + 0.5);
	size = parse_nonneg(getenv("MPIRMA_SIZE"));
	if (size < 1)
		size = 1;	/* a singleton */
	us = wait_us(name, size);
	return us < 0 ? wait_default(name, size) : us;
}

static int wait_write(double *secs, int us)
{
	if (mpirma_proc.state != MPIRMA_STATE_RUNNING)
		return MPI_T_ERR_CVAR_SET_NOT_NOW;
	if (us < 0 || us > SPIN_US_MAX)
		return MPI_T_ERR_INVALID;
	*secs = us * 1e-6;
	return MPI_SUCCESS;
}

static int spin_read(void)
{
	return wait_read("MPIRMA_SPIN_US", mpirma_proc.spin);
}

static int spin_write(int us)
{
	return wait_write(&mpirma_proc.spin, us);
}

static int yield_read(void)
{
	return wait_read("MPIRMA_YIELD_US", mpirma_proc.yield_spin);
}

static int yield_write(int us)
{
	return wait_write(&mpirma_proc.yield_spin, us);
}

MPIRMA_CVARS(wait,
	{
		.name = "MPIRMA_SPIN_US",
		.desc = "microseconds a waiting receive polls before it "
			"sleeps in the kernel, 0 to 1000000; by default 1000, "
			"0 where the job's ranks outnumber the CPUs",
		.cat = MPIRMA_TCAT_WAIT,
		.scope = MPI_T_SCOPE_LOCAL,
		.read = spin_read,
		.write = spin_write,
	},
	{
		.name = "MPIRMA_YIELD_US",
		.desc = "microseconds a waiting receive then polls yielding "
			"its CPU after each look, 0 to 1000000; by default 0, "
			"200 where the job's ranks outnumber the CPUs",
		.cat = MPIRMA_TCAT_WAIT,
		.scope = MPI_T_SCOPE_LOCAL,
		.read = yield_read,
		.write = yield_write,
	},
)

/* MPIRMA_STRICT_TYPES (lib/base/datatype.c), MPIRMA_WTIME_TSC (wtime.c) */
static int switch_settings(void)
{
	return mpirma_env_switch_check("MPIRMA_STRICT_TYPES",
			      "1 (MPI_CHAR and MPI_WCHAR only in MPI_REPLACE "
			      "and MPI_NO_OP, as the standard's table) or 0 (as "
			      "C integers, the default)") ?:
	       mpirma_env_switch_check("MPIRMA_WTIME_TSC",
			      "1 (MPI_Wtime from the TSC where the kernel's "
			      "clock is, the default) or 0 (clock_gettime())");
}

/*
 * Who holds the library joined to the job: MPI_Init (the World model) and
 * each live session (session.c), which may come in any order.  The first
 * joins, the last to leave finalizes; MPI_Initialized and MPI_Finalized
 * answer for the World model alone (world_state), while mpirma_proc.state
 * says whether the library can be used at all.
 */
static int holders;
static int world_state = MPIRMA_STATE_PRE_INIT;

/* The thread level @required asks, within what exists. */
static int thread_level_of(int required)
{
	return required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE :
	       required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
}

/* Joins the job: once per process, whoever comes first.  MPI class. */
static int join(int required)
{
	int ret;

	ret = join_job();
	if (!ret)
		ret = spin_setting();
	if (!ret)
		ret = switch_settings();
	if (ret)
		return ret;

	mpirma_proc.query.size = sizeof(mpirma_proc.query);
	ret = mpirma_ioctl(MPIRMA_IOC_QUERY, &mpirma_proc.query);
	if (ret)
		return mpirma_err_errno(ret, "MPIRMA_IOC_QUERY");
	if (!(mpirma_proc.query.features & MPIRMA_FEAT_MSG))
		return mpirma_err(MPI_ERR_OTHER, "the mpirma module has no "
				  "messages (MPIRMA_FEAT_MSG): it is older "
				  "than this library");

	mpirma_proc.next_ctx = MPIRMA_CTX_FIRST;
	mpirma_proc.thread_level = thread_level_of(required);
	mpirma_threads = mpirma_proc.thread_level == MPI_THREAD_MULTIPLE;
	main_thread = pthread_self();
	ret = mpirma_comm_setup();
	if (ret)
		return ret;
	mpirma_proc.state = MPIRMA_STATE_RUNNING;

	/* Everyone has joined before anyone talks to anyone. */
	ret = mpirma_ioctl(MPIRMA_IOC_JOB_BARRIER, NULL);
	if (ret)
		return mpirma_err_errno(ret, "job barrier");
	return mpirma_shmq_setup();
}

int mpirma_hold(int required)
{
	int ret;

	if (mpirma_proc.state == MPIRMA_STATE_FINALIZED)
		return mpirma_err(MPI_ERR_OTHER, "MPI is finalized: the "
				  "process has left its job and cannot join "
				  "it again");
	if (mpirma_proc.state == MPIRMA_STATE_PRE_INIT) {
		ret = join(required);
		if (ret)
			return ret;
	} else if (thread_level_of(required) > mpirma_proc.thread_level) {
		/* a later holder may ask more; no call is in flight now */
		mpirma_proc.thread_level = thread_level_of(required);
		mpirma_threads = mpirma_proc.thread_level ==
				 MPI_THREAD_MULTIPLE;
	}
	holders++;
	return MPI_SUCCESS;
}

int mpirma_release(void)
{
	int ret;

	if (--holders > 0)
		return MPI_SUCCESS;
	ret = mpirma_ioctl_wait(MPIRMA_IOC_JOB_BARRIER, NULL);
	if (ret)
		return mpirma_err_errno(ret, "job barrier");
	mpirma_shmq_teardown();
	mpirma_comm_teardown();
	mpirma_request_teardown();
	close(mpirma_proc.fd);
	mpirma_proc.fd = -1;
	mpirma_proc.state = MPIRMA_STATE_FINALIZED;
	return MPI_SUCCESS;
}

static int init(int required, int *provided, const char *fn)
{
	int ret;

	if (world_state != MPIRMA_STATE_PRE_INIT)
		return mpirma_raise(MPI_ERR_OTHER, fn,
				    "MPI is already %s",
				    world_state == MPIRMA_STATE_RUNNING ?
				    "initialized" : "finalized");
	ret = mpirma_hold(required);
	if (ret)
		return mpirma_raise(ret, fn, NULL);
	world_state = MPIRMA_STATE_RUNNING;
	if (provided)
		*provided = mpirma_proc.thread_level;
	return MPI_SUCCESS;
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	(void)argc;
	(void)argv;
	return init(required, provided, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Init_thread)

int PMPI_Init(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return init(MPI_THREAD_SINGLE, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Init)

int PMPI_Finalize(void)
{
	MPIRMA_CHECK_INIT();
	if (world_state != MPIRMA_STATE_RUNNING)
		return mpirma_raise(MPI_ERR_OTHER, MPIRMA_FUNC, "MPI_Init was "
				    "not called (only sessions hold MPI: end "
				    "them with MPI_Session_finalize)");
	/*
	 * MPI-2.2: MPI_COMM_SELF's attributes are deleted first, at
	 * MPI_Finalize even while a session keeps the library, and their
	 * callbacks still see MPI running (MPI_Finalized says false).
	 */
	mpirma_comm_finalize_self();
	world_state = MPIRMA_STATE_FINALIZED;
	return mpirma_raise(mpirma_release(), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Finalize)

int PMPI_Initialized(int *flag)
{
	*flag = world_state != MPIRMA_STATE_PRE_INIT;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Initialized)

int PMPI_Finalized(int *flag)
{
	*flag = world_state == MPIRMA_STATE_FINALIZED;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Finalized)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
	/*
	 * Every process of the job goes: this one exits, the launcher kills
	 * the others when it sees a non-zero status, and whoever waits for
	 * this rank in the kernel gets EOWNERDEAD.
	 */
	fprintf(stderr, "mpirma: rank %d: MPI_Abort(comm %d, errorcode %d)\n",
		mpirma_proc.state == MPIRMA_STATE_RUNNING ? mpirma_proc.rank : 0,
		comm, errorcode);
	mpirma_abort_job(errorcode);
}
MPIRMA_ALIAS(Abort)

int PMPI_Get_version(int *version, int *subversion)
{
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
	int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
			 "mpirma %s (MPI %d.%d, one-sided communication in "
			 "the kernel)", MPIRMA_VERSION, MPI_VERSION,
			 MPI_SUBVERSION);

	*resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ?
		n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Get_library_version)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
	MPIRMA_CHECK_INIT();
	if (gethostname(name, MPI_MAX_PROCESSOR_NAME) < 0)
		snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
	name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
	*resultlen = (int)strlen(name);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Get_processor_name)

int PMPI_Query_thread(int *provided)
{
	MPIRMA_CHECK_INIT();
	*provided = mpirma_proc.thread_level;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
	MPIRMA_CHECK_INIT();
	*flag = pthread_equal(pthread_self(), main_thread);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Is_thread_main)

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	void *p;

	(void)info;
	MPIRMA_CHECK_INIT();
	if (size < 0)
		return mpirma_raise(MPI_ERR_SIZE, MPIRMA_FUNC,
				    "negative size %ld", size);
	/* Cache-line aligned, and never NULL, even for size 0. */
	if (posix_memalign(&p, 64, size ? (size_t)size : 1))
		return mpirma_raise(MPI_ERR_NO_MEM, MPIRMA_FUNC,
				    "cannot allocate %ld bytes", size);
	*(void **)baseptr = p;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Alloc_mem)

int PMPI_Free_mem(void *base)
{
	MPIRMA_CHECK_INIT();
	free(base);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Free_mem)

int PMPI_Pcontrol(const int level, ...)
{
	(void)level;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Pcontrol)
