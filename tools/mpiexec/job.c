// SPDX-License-Identifier: GPL-2.0
/*
 * mpiexec: the job.  It is created in the module, each rank forked with
 * its member fd and environment and bound, then waited for; when one fails,
 * or --timeout runs out, the others get SIGTERM, then SIGKILL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <numa.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpirma_uapi.h"
#include "launch.h"

/* ---------------------------------------------------------------- job */

int open_device(void)
{
	int fd = open(MPIRMA_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	switch (errno) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		die(EX_SETUP, "cannot open %s: %s: is the mpirma module loaded? "
		    "(modprobe mpirma)", MPIRMA_DEVICE, strerror(errno));
	case EACCES:
	case EPERM:
		die(EX_SETUP, "cannot open %s: %s: check its mode (the udev rule "
		    "99-mpirma.rules makes it 0666)", MPIRMA_DEVICE,
		    strerror(errno));
	default:
		die(EX_SETUP, "cannot open %s: %s", MPIRMA_DEVICE, strerror(errno));
	}
}

uint32_t max_ranks(int dev)
{
	struct mpirma_query q;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	if (ioctl(dev, MPIRMA_IOC_QUERY, &q) || !q.max_ranks)
		return MPIRMA_MAX_RANKS;
	return q.max_ranks;
}

/* A job of @n ranks; its fd, inheritable across exec. */
int create_job(int dev, uint32_t n, uint64_t *job_id)
{
	struct mpirma_job_create jc;

	memset(&jc, 0, sizeof(jc));
	jc.size = sizeof(jc);
	jc.nranks = n;
	if (ioctl(dev, MPIRMA_IOC_JOB_CREATE, &jc))
		die(EX_SETUP, "cannot create a job of %u ranks: %s", n,
		    strerror(errno));
	/* the kernel returns it close-on-exec; the ranks need it after exec */
	if (fcntl(jc.job_fd, F_SETFD, 0))
		die(EX_SETUP, "fcntl(job fd): %s", strerror(errno));
	*job_id = jc.job_id;
	return jc.job_fd;
}

static void setenv_num(const char *name, unsigned long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%lu", v);
	if (setenv(name, buf, 1)) {
		note("setenv %s: %s", name, strerror(errno));
		_exit(EX_SETUP);
	}
}

/* In the child: become rank @r and exec the program.  Never returns. */
void __attribute__((noreturn))
exec_rank(const struct options *o, const char *path, int job_fd,
	  unsigned long r, const struct rank *rk, pid_t launcher,
	  const sigset_t *orig_mask)
{
	int err;

	/* die with the launcher, whatever kills it */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != launcher)
		_exit(EX_SETUP);
	setenv_num("MPIRMA_JOB_FD", job_fd);
	setenv_num("MPIRMA_RANK", r);
	setenv_num("MPIRMA_SIZE", o->nranks);
	if (rk->cpus && sched_setaffinity(0, rk->cpus_size, rk->cpus)) {
		note("rank %lu: sched_setaffinity: %s", r, strerror(errno));
		_exit(EX_SETUP);
	}
	if (o->stdin_rank != -1 && o->stdin_rank != (long)r) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0) {
			note("rank %lu: /dev/null: %s", r, strerror(errno));
			_exit(EX_SETUP);
		}
		if (null != STDIN_FILENO)
			close(null);
	}
	/* the launcher's blocked signals must not stay blocked in the rank */
	sigprocmask(SIG_SETMASK, orig_mask, NULL);
	execv(path, o->argv);
	err = errno;
	note("rank %lu: cannot execute %s: %s", r, path, strerror(err));
	_exit(err == ENOENT ? EX_NOTFOUND : EX_NOEXEC);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The wait status as a shell would report it: code, or 128 + signal. */
static int shell_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EX_SETUP;
}

static void describe(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (%s)%s",
			 WTERMSIG(status), strsignal(WTERMSIG(status)),
			 WCOREDUMP(status) ? ", core dumped" : "");
	else
		snprintf(buf, len, "ended with wait status %#x", status);
}

static void signal_live(struct job *j, int sig)
{
	unsigned long r;

	for (r = 0; r < j->n; r++)
		if (j->rank[r].live)
			kill(j->rank[r].pid, sig);
}

/* Take the job down: @sig now, SIGKILL after the grace period. */
void teardown(struct job *j, int sig)
{
	if (j->tearing)
		return;
	j->tearing = true;
	j->kill_at = now_ms() + KILL_GRACE_MS;
	signal_live(j, sig);
}

/* Reap every child that has ended; the first failure starts the teardown. */
void reap(struct job *j)
{
	char why[96];
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		unsigned long r;

		for (r = 0; r < j->n && j->rank[r].pid != pid; r++)
			;
		if (r == j->n || !j->rank[r].live)
			continue;
		j->rank[r].live = false;
		j->rank[r].status = status;
		j->live--;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			if (verbose)
				note("rank %lu (pid %d) exited with status 0", r,
				     (int)pid);
			continue;
		}
		describe(status, why, sizeof(why));
		if (j->exit_status < 0) {
			j->exit_status = shell_status(status);
			note("rank %lu (pid %d) %s%s", r, (int)pid, why,
			     j->live ? "; killing the other ranks" : "");
			teardown(j, SIGTERM);
		} else if (verbose) {
			note("rank %lu (pid %d) %s", r, (int)pid, why);
		}
	}
}

/* Wait for every rank; the launcher's exit status. */
int wait_job(struct job *j, const struct options *o, const sigset_t *set)
{
	uint64_t deadline = o->timeout_s ? now_ms() + o->timeout_s * 1000 : 0;

	while (j->live) {
		uint64_t now = now_ms(), until = 0;
		struct timespec ts;
		siginfo_t si;
		int sig;

		if (deadline && !j->tearing && now >= deadline) {
			note("timeout after %lu s: killing the job", o->timeout_s);
			if (j->exit_status < 0)
				j->exit_status = EX_TIMEOUT;
			teardown(j, SIGTERM);
		}
		if (j->tearing && !j->killed && now >= j->kill_at) {
			if (verbose)
				note("%lu rank(s) still alive after %d ms: SIGKILL",
				     j->live, KILL_GRACE_MS);
			signal_live(j, SIGKILL);
			j->killed = true;
		}
		if (deadline && !j->tearing)
			until = deadline;
		if (j->tearing && !j->killed)
			until = j->kill_at;
		if (until) {
			uint64_t ms = until > now ? until - now : 0;

			ts.tv_sec = ms / 1000;
			ts.tv_nsec = (ms % 1000) * 1000000;
			sig = sigtimedwait(set, &si, &ts);
		} else {
			sig = sigwaitinfo(set, &si);
		}
		if (sig < 0) {
			if (errno != EAGAIN && errno != EINTR)
				die(EX_SETUP, "sigtimedwait: %s", strerror(errno));
			continue;
		}
		if (sig == SIGCHLD) {
			reap(j);
			continue;
		}
		/*
		 * A signal to the launcher is meant for the job.  (A Ctrl-C
		 * from the terminal has reached the ranks already.)  A
		 * second one does not wait for the grace period.
		 */
		if (j->tearing) {
			signal_live(j, SIGKILL);
			j->killed = true;
			continue;
		}
		if (verbose)
			note("got signal %d (%s): passing it on to the ranks",
			     sig, strsignal(sig));
		if (j->exit_status < 0)
			j->exit_status = 128 + sig;
		teardown(j, sig);
	}
	return j->exit_status < 0 ? 0 : j->exit_status;
}
