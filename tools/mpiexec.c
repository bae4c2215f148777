// SPDX-License-Identifier: GPL-2.0
/*
 * mpiexec: start an MPI job of N ranks on this node.
 *
 * The launcher contract (docs/lib.md, "Processes and startup"):
 *
 *  1. open /dev/mpirma and create a job of N ranks (MPIRMA_IOC_JOB_CREATE);
 *  2. fork N children; each inherits the job fd (close-on-exec cleared) and
 *     finds it in MPIRMA_JOB_FD, its rank in MPIRMA_RANK and N in
 *     MPIRMA_SIZE; MPI_Init joins the job with them;
 *  3. once every child is forked, close the launcher's own job fd, so that
 *     the kernel counts a rank that never joins as gone (waits on it end
 *     with EOWNERDEAD instead of hanging);
 *  4. wait: the first rank that fails (non-zero exit or a signal) takes the
 *     rest down (SIGTERM, SIGKILL after a grace period) and its status is
 *     the launcher's.
 *
 * The children stay in the launcher's process group, so a Ctrl-C from the
 * terminal reaches every rank at once; the launcher also keeps their pids
 * and forwards the signals it receives itself, and each child dies with the
 * launcher (PR_SET_PDEATHSIG), so no rank outlives a killed launcher.
 *
 * The launcher is single-threaded and waits with every signal it cares
 * about blocked (sigtimedwait), so there are no signal handlers and no
 * races between a child's exit and the timers.
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
#include "cli.h"
#include "mpiexec/launch.h"

#ifndef MPIRMA_VERSION
#define MPIRMA_VERSION "unknown"
#endif

static const char *const bind_names[NR_BIND] = {
	[BIND_NONE] = "none", [BIND_CORE] = "core", [BIND_NUMA] = "numa",
};
static const char *const map_names[NR_MAP] = {
	[MAP_CORE] = "core", [MAP_NUMA] = "numa",
};

const char *prog = "mpiexec";
int verbose;

/*
 * "mpiexec: MESSAGE\n" on stderr in one write(), so that it cannot be cut
 * in two by the output of ranks writing to the same terminal or pipe.
 */
static void vnote(const char *fmt, va_list ap)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%s: ", prog);

	if (n < 0 || n >= (int)sizeof(buf) - 1)
		n = 0;
	n += vsnprintf(buf + n, sizeof(buf) - 1 - n, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return;	/* nowhere left to complain */
}

void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

void __attribute__((noreturn, format(printf, 2, 3)))
die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
	exit(status);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [-n N] [OPTIONS] PROGRAM [ARGS...]\n"
"Run N copies of PROGRAM as the ranks of one MPI job on this node, through\n"
"the mpirma kernel module (/dev/mpirma).\n"
"\n"
"Options:\n"
"  -n, -np, -c N            number of ranks (default 1)\n"
"  -x NAME[=VALUE]          set NAME in the ranks' environment (NAME alone:\n"
"  --env NAME[=VALUE]         pass the launcher's value; every variable is\n"
"                             passed anyway); repeatable\n"
"  -genv NAME VALUE         the same, MPICH style\n"
"  --bind-to core|numa|none bind each rank to one core or to the cores of\n"
"                           one NUMA node (default none)\n"
"  --map-by core|numa       place consecutive ranks on consecutive cores\n"
"                           (default), or round-robin over the NUMA nodes;\n"
"                           --map-by numa alone implies --bind-to numa\n"
"  --stdin RANK|all|none    who reads the launcher's stdin (default 0; the\n"
"                           others read /dev/null)\n"
"  --timeout SECONDS        kill the job after SECONDS, exit 124 (0: never;\n"
"                           default $MPIEXEC_TIMEOUT or 0)\n"
"  --oversubscribe          accepted for compatibility; no effect\n"
"  -v, --verbose            report the job, the ranks and their exits\n"
"  -h, --help               this text\n"
"      --version            print the version\n"
"\n"
"Exit status: 0 when every rank exits 0; otherwise the first failing rank's\n"
"exit status, or 128+N if it was killed by signal N.  The launcher's own:\n"
"1 setup failure, 2 usage, 124 timeout, 126/127 PROGRAM not executable/found.\n",
		prog);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", prog);
	exit(EX_USAGE);
}

/* -x NAME=VALUE sets; -x NAME keeps the launcher's value (passed anyway). */
static void set_env(const char *opt, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char *name;

	if (eq == spec || !*spec)
		usage_error("%s wants NAME[=VALUE], not '%s'", opt, spec);
	if (!eq)
		return;
	name = strndup(spec, eq - spec);
	if (!name || setenv(name, eq + 1, 1))
		die(EX_SETUP, "%s %s: %s", opt, spec, strerror(errno));
	free(name);
}

/*
 * The option's value: "--opt=value", "--optvalue" for short options given
 * as "-n4", or the next argument.
 */
static const char *opt_value(int argc, char **argv, int *i, const char *opt,
			     const char **inline_val)
{
	const char *v = *inline_val;

	if (v) {
		*inline_val = NULL;	/* taken */
		return v;
	}
	if (*i + 1 >= argc)
		usage_error("option %s needs an argument", opt);
	return argv[++*i];
}

static bool is(const char *arg, const char *a, const char *b)
{
	return !strcmp(arg, a) || (b && !strcmp(arg, b));
}

static void parse_args(int argc, char **argv, struct options *o)
{
	const char *env_timeout = getenv("MPIEXEC_TIMEOUT");
	int i;

	o->nranks = 1;
	o->stdin_rank = 0;
	if (env_timeout && *env_timeout)
		o->timeout_s = cli_ulong("MPIEXEC_TIMEOUT", env_timeout, 0,
					   INT_MAX / 1000);

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq;
		char name[32];
		const char *inl = NULL, *val;	/* inline value: --opt=VAL, -nVAL */

		if (!strcmp(arg, "--")) {
			i++;
			break;
		}
		if (arg[0] != '-' || !arg[1])
			break;		/* the program */
		/* --name=value and -name=value */
		eq = strchr(arg, '=');
		if (eq && (size_t)(eq - arg) < sizeof(name)) {
			memcpy(name, arg, eq - arg);
			name[eq - arg] = 0;
			inl = eq + 1;
			arg = name;
		}
		/* -n4: digits glued to -n */
		if (!inl && arg[1] == 'n' && arg[2] >= '0' && arg[2] <= '9') {
			inl = arg + 2;
			arg = "-n";
		}

		if (is(arg, "-n", "-np") || is(arg, "--np", "--n") ||
		    is(arg, "-c", NULL)) {
			val = opt_value(argc, argv, &i, arg, &inl);
			o->nranks = cli_ulong(arg, val, 1, ULONG_MAX);
		} else if (is(arg, "-x", "--env") || is(arg, "-env", NULL)) {
			val = opt_value(argc, argv, &i, arg, &inl);
			set_env(arg, val);
		} else if (is(arg, "-genv", "--genv")) {
			const char *name_arg = opt_value(argc, argv, &i, arg, &inl);
			const char *value, *none = NULL;

			if (!*name_arg || strchr(name_arg, '='))
				usage_error("%s wants NAME VALUE", arg);
			value = opt_value(argc, argv, &i, arg, &none);
			if (setenv(name_arg, value, 1))
				die(EX_SETUP, "%s %s: %s", arg, name_arg,
				    strerror(errno));
		} else if (is(arg, "--bind-to", "-bind-to")) {
			val = opt_value(argc, argv, &i, arg, &inl);
			o->bind = cli_choice(arg, val, bind_names, NR_BIND,
					     "core, numa or none");
			o->bind_set = true;
		} else if (is(arg, "--map-by", "-map-by")) {
			val = opt_value(argc, argv, &i, arg, &inl);
			o->map = cli_choice(arg, val, map_names, NR_MAP,
					    "core or numa");
			o->map_set = true;
		} else if (is(arg, "--stdin", "-stdin")) {
			val = opt_value(argc, argv, &i, arg, &inl);
			if (!strcmp(val, "all"))
				o->stdin_rank = -1;
			else if (!strcmp(val, "none"))
				o->stdin_rank = -2;
			else
				o->stdin_rank = cli_ulong(arg, val, 0,
							    MPIRMA_MAX_RANKS - 1);
		} else if (is(arg, "--timeout", "-timeout")) {
			val = opt_value(argc, argv, &i, arg, &inl);
			o->timeout_s = cli_ulong(arg, val, 0, INT_MAX / 1000);
		} else if (is(arg, "--oversubscribe", "-oversubscribe")) {
			/* one node, no slots to exceed */
		} else if (is(arg, "-v", "--verbose")) {
			o->verbose++;
		} else if (is(arg, "-h", "--help")) {
			usage(stdout);
			exit(0);
		} else if (is(arg, "--version", "-V")) {
			printf("%s (mpirma) %s\n", prog, MPIRMA_VERSION);
			exit(0);
		} else {
			usage_error("unknown option '%s'", argv[i]);
		}
		if (inl)
			usage_error("option %s takes no value", arg);
	}
	if (i >= argc)
		usage_error("no program to run");
	o->argv = argv + i;
	/* mapping onto NUMA nodes without binding would mean nothing */
	if (o->map == MAP_NUMA && !o->bind_set)
		o->bind = BIND_NUMA;
}

/*
 * Find PROGRAM as execvp() will, so that a typo is one clear message from
 * the launcher instead of N from the ranks.  Returns the path to exec.
 */
static char *resolve_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	struct stat st;
	char *full;
	bool found = false;

	if (strchr(name, '/')) {
		if (stat(name, &st))
			die(errno == ENOENT ? EX_NOTFOUND : EX_NOEXEC, "%s: %s",
			    name, strerror(errno));
		if (!S_ISREG(st.st_mode) || access(name, X_OK))
			die(EX_NOEXEC, "%s: not an executable file", name);
		return strdup(name);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		size_t dlen;

		end = strchrnul(p, ':');
		dlen = end - p;
		/* an empty PATH entry is the current directory */
		if (asprintf(&full, "%.*s%s%s", (int)dlen, p, dlen ? "/" : "",
			     name) < 0)
			die(EX_SETUP, "out of memory");
		if (!stat(full, &st) && S_ISREG(st.st_mode)) {
			found = true;
			if (!access(full, X_OK))
				return full;
		}
		free(full);
		if (!*end)
			break;
	}
	if (found)
		die(EX_NOEXEC, "%s: permission denied", name);
	die(EX_NOTFOUND, "%s: command not found (a program in the current "
	    "directory is ./%s)", name, name);
}

int main(int argc, char **argv)
{
	static const int waited[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct options o = { 0 };
	struct topology topo = { 0 };
	sigset_t set, orig_mask;
	struct job j = { 0 };
	uint64_t job_id;
	uint32_t maxr;
	int dev, job_fd;
	pid_t self = getpid();
	unsigned long r;
	char *path;
	size_t k;

	if (argv[0] && *argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		prog = slash ? slash + 1 : argv[0];
	}
	parse_args(argc, argv, &o);
	verbose = o.verbose;
	path = resolve_program(o.argv[0]);

	dev = open_device();
	maxr = max_ranks(dev);
	if (o.nranks > maxr)
		usage_error("-n %lu: this kernel runs at most %u ranks per job",
			    o.nranks, maxr);
	if (o.stdin_rank >= (long)o.nranks)
		usage_error("--stdin %ld: there are only %lu ranks", o.stdin_rank,
			    o.nranks);

	j.n = o.nranks;
	j.exit_status = -1;
	j.rank = calloc(j.n, sizeof(*j.rank));
	if (!j.rank)
		die(EX_SETUP, "out of memory");
	for (r = 0; r < j.n; r++)
		j.rank[r].node = -1;
	if (o.bind != BIND_NONE) {
		topology_read(&topo);
		if (verbose && o.bind == BIND_CORE && j.n > (unsigned long)topo.ncpus)
			note("%lu ranks on %d CPUs: several ranks share a core",
			     j.n, topo.ncpus);
		for (r = 0; r < j.n; r++)
			plan_binding(&o, &topo, r, &j.rank[r]);
	}

	/*
	 * Block what the wait loop waits for before the first fork, so no
	 * child's exit can be missed.  SIGCHLD must not be ignored (an
	 * inherited SIG_IGN would reap the ranks behind our back).
	 */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&set);
	for (k = 0; k < sizeof(waited) / sizeof(waited[0]); k++)
		sigaddset(&set, waited[k]);
	sigprocmask(SIG_BLOCK, &set, &orig_mask);

	job_fd = create_job(dev, j.n, &job_id);
	close(dev);
	if (verbose)
		note("job %llu: %lu rank(s) of %s, job fd %d",
		     (unsigned long long)job_id, j.n, path, job_fd);
	fflush(NULL);	/* nothing buffered may be written twice */

	for (r = 0; r < j.n; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			note("fork for rank %lu: %s", r, strerror(errno));
			close(job_fd);
			j.exit_status = EX_SETUP;
			teardown(&j, SIGKILL);
			j.killed = true;
			return wait_job(&j, &o, &set);
		}
		if (pid == 0)
			exec_rank(&o, path, job_fd, r, &j.rank[r], self,
				  &orig_mask);
		j.rank[r].pid = pid;
		j.rank[r].live = true;
		j.live++;
		if (verbose) {
			char cpus[256];

			if (!j.rank[r].cpus) {
				note("rank %lu: pid %d, not bound", r, (int)pid);
				continue;
			}
			format_cpus(&j.rank[r], cpus, sizeof(cpus));
			if (j.rank[r].node >= 0)
				note("rank %lu: pid %d, bound to node %d (cpus %s)",
				     r, (int)pid, j.rank[r].node, cpus);
			else
				note("rank %lu: pid %d, bound to cpus %s", r,
				     (int)pid, cpus);
		}
	}
	/* every rank has its copy: a rank that never joins now counts as gone */
	close(job_fd);
	return wait_job(&j, &o, &set);
}
