// SPDX-License-Identifier: GPL-2.0
/*
 * mpirma-stat: a live view of what the mpirma module is doing: its jobs,
 * their windows (flavor, strategy, size and node of every rank), operation
 * counts, lock contention and the load of the delegation workers.
 *
 * Everything comes from files the module already exports; the tool never
 * opens /dev/mpirma, so looking cannot change what is looked at (no job, no
 * pinned page, no counter moves because of it):
 *
 *   /sys/class/misc/mpirma/{jobs,windows,pages_pinned,pages_allocated,
 *	message_bytes}		module-wide counters, readable by anyone
 *   /sys/module/mpirma/{version,parameters/atomicity}
 *   /sys/devices/system/node	the topology (nodes and their CPUs)
 *   /sys/kernel/debug/mpirma/jobs, .../workers
 *				per job, window, rank and worker; debugfs is
 *				root only, so without root the view is the
 *				counters and the topology, and says why
 *
 * The debugfs lines are "key value" pairs after a fixed prefix (see
 * kmod/stats.c); fields are looked up by key and unknown ones skipped, so
 * an older or newer module still shows what both know.
 *
 * Modes: one-shot text (the default when stdout is not a terminal), one-shot
 * JSON, and a refreshing view (the default on a terminal) that redraws
 * every interval with ANSI escapes, shows rates computed from the previous
 * sample, quits on q or Ctrl-C and always gives the terminal back as it
 * found it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#ifndef MPIRMA_VERSION
#define MPIRMA_VERSION "unknown"
#endif

#define EX_OK		0
#define EX_FAIL		1	/* module not loaded, or nothing readable */
#define EX_USAGE	2

#define SYSFS_DIR	"/sys/class/misc/mpirma"
#define MODULE_DIR	"/sys/module/mpirma"
#define NODE_DIR	"/sys/devices/system/node"
#define DEBUGFS_ROOT	"/sys/kernel/debug"
#define DEBUGFS_DIR	DEBUGFS_ROOT "/mpirma"
#define DEBUGFS_MAGIC	0x64626720	/* linux/magic.h */

#define NR_KINDS	5	/* MPIRMA_NR_KINDS, in debugfs order */
/* Per window counters with a rate: the kinds, then these three. */
#define C_BYTES		(NR_KINDS + 0)
#define C_LOCK_WAITS	(NR_KINDS + 1)
#define C_CONTENDED	(NR_KINDS + 2)
#define NR_COUNTERS	(NR_KINDS + 3)

static const char *const kind_names[NR_KINDS] = { "put", "get", "acc", "get_acc", "cas" };

/* The module-wide counters, by their sysfs names. */
static const char *const counter_names[] = {
	"jobs", "windows", "pages_pinned", "pages_allocated", "message_bytes",
};
#define NR_MODCOUNTERS	(sizeof(counter_names) / sizeof(counter_names[0]))

static const char *prog = "mpirma-stat";
/* --root: read every file below this directory instead of / (testing). */
static const char *root = "";

/* ------------------------------------------------------------------ data */

struct rank_info {
	unsigned int rank, job_rank;
	unsigned long long size;	/* bytes */
	unsigned int disp_unit;
	int node;			/* asked for; -1 none or interleaved */
	long long pages;		/* -1: not reported (older module) */
	char *on;			/* "0:3,1:1", "-", or NULL: not reported */
	bool dynamic;			/* regions/attached are meaningful */
	unsigned int regions;
	unsigned long long attached;
	bool interleave, left;
};

struct win_info {
	unsigned int id;
	char flavor[16], strategy[16];
	unsigned int nranks;
	unsigned long long c[NR_COUNTERS];	/* ops by kind, bytes, ... */
	long long pages;			/* -1: not reported */
	long long direct;			/* of the ops, applied in user space; -1: not reported */
	struct rank_info *ranks;
	size_t nr, cap;
	bool has_rate;
	double rate[NR_COUNTERS];
};

struct pending_info {
	unsigned int arrived, nranks;
};

struct job_info {
	unsigned long long id;
	unsigned int nranks, joined, gone;
	struct win_info *wins;
	size_t nr, cap;
	struct pending_info *pending;
	size_t npending, pcap;
};

struct worker_info {
	unsigned int id;
	int node, pid;
	unsigned long long items;
	bool has_rate;
	double rate;
};

struct node_info {
	int id;
	int cpus;
	char cpulist[64];
	int workers;			/* -1: unknown (no debugfs) */
};

struct sample {
	double t;			/* CLOCK_MONOTONIC seconds */
	time_t wall;
	bool loaded;
	char modver[32];		/* "" when unknown */
	char atomicity[32];		/* the module's default strategy */
	long long counter[NR_MODCOUNTERS];	/* -1: unreadable */

	struct node_info *nodes;
	size_t nnodes;
	int ncpus;

	int jobs_err;			/* 0, or errno reading debugfs jobs */
	struct job_info *jobs;
	size_t njobs, jcap;

	int workers_err;
	struct worker_info *workers;
	size_t nworkers, wcap;
};

/* ------------------------------------------------------------------ basics */

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport(prog, false, fmt, ap);
	va_end(ap);
	exit(EX_FAIL);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* Room for one more element of an array that grows by doubling. */
#define GROW(arr, nr, cap)						\
	do {								\
		if ((nr) == (cap)) {					\
			(cap) = (cap) ? 2 * (cap) : 8;			\
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
		}							\
	} while (0)

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The path @fmt names, below --root, into @buf. */
static const char *path_of(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static const char *path_of(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(buf, len, "%s", root);

	if (n < 0 || (size_t)n >= len)
		die("--root %s: too long", root);
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return buf;
}

/*
 * A whole file, NUL-terminated, in a malloc()ed buffer; NULL with errno set
 * on failure.  debugfs and sysfs files report size 0, so read to EOF.
 */
static char *slurp(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = xrealloc(NULL, cap);
	for (;;) {
		if (cap - len < 2048) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			free(buf);
			close(fd);
			errno = err;
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

/* The first line of a small file, newline cut; false if unreadable. */
static bool read_line(const char *path, char *out, size_t len)
{
	char *s = slurp(path);

	if (!s)
		return false;
	snprintf(out, len, "%s", s);
	out[strcspn(out, "\n")] = 0;
	free(s);
	return true;
}

static long long read_number(const char *path)
{
	char line[64], *end;
	long long v;

	if (!read_line(path, line, sizeof(line)))
		return -1;
	errno = 0;
	v = strtoll(line, &end, 10);
	return errno || end == line ? -1 : v;
}

/*
 * Walk a kernel CPU or node list ("0-3,8,10-11"), calling @fn for each
 * number; the count.  Empty lists are valid (a node without CPUs).
 */
static int walk_list(const char *list, void (*fn)(int v, void *arg), void *arg)
{
	const char *p = list;
	int n = 0;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p)
			break;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1)
				break;
			p = end;
		}
		for (; a <= b; a++, n++)
			if (fn)
				fn((int)a, arg);
		if (*p == ',')
			p++;
	}
	return n;
}

/* ------------------------------------------------------------------ parsing */

#define MAX_TOKENS	96

struct kv {
	const char *key[MAX_TOKENS], *val[MAX_TOKENS];	/* val NULL: a flag */
	int n;
};

/* Keys whose value is a word, not a number. */
static bool word_valued(const char *key)
{
	return !strcmp(key, "flavor") || !strcmp(key, "strategy") || !strcmp(key, "on");
}

/*
 * "key value key value flag" from token @i on.  A key we know takes the
 * next token; an unknown key takes it if it looks like a number (or "-"),
 * otherwise it is a bare flag: fields a future module adds are skipped
 * whichever kind they are.
 */
static void kv_parse(struct kv *kv, char **tok, int ntok, int i)
{
	kv->n = 0;
	while (i < ntok && kv->n < MAX_TOKENS) {
		const char *k = tok[i];
		const char *v = i + 1 < ntok ? tok[i + 1] : NULL;

		if (v && (word_valued(k) || isdigit((unsigned char)v[0]) || v[0] == '-')) {
			kv->key[kv->n] = k;
			kv->val[kv->n++] = v;
			i += 2;
		} else {
			kv->key[kv->n] = k;
			kv->val[kv->n++] = NULL;
			i++;
		}
	}
}

static const char *kv_get(const struct kv *kv, const char *key)
{
	int i;

	for (i = 0; i < kv->n; i++)
		if (kv->val[i] && !strcmp(kv->key[i], key))
			return kv->val[i];
	return NULL;
}

static bool kv_flag(const struct kv *kv, const char *key)
{
	int i;

	for (i = 0; i < kv->n; i++)
		if (!kv->val[i] && !strcmp(kv->key[i], key))
			return true;
	return false;
}

static unsigned long long kv_ull(const struct kv *kv, const char *key, unsigned long long dflt)
{
	const char *v = kv_get(kv, key);

	return v ? strtoull(v, NULL, 10) : dflt;
}

static long long kv_ll(const struct kv *kv, const char *key, long long dflt)
{
	const char *v = kv_get(kv, key);

	return v ? strtoll(v, NULL, 10) : dflt;
}

/* Split @line in place on blanks. */
static int tokenize(char *line, char **tok, int max)
{
	int n = 0;
	char *save, *t;

	for (t = strtok_r(line, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	return n;
}

static void parse_rank(struct win_info *w, char **tok, int ntok)
{
	struct rank_info *r;
	struct kv kv;
	const char *on;

	GROW(w->ranks, w->nr, w->cap);
	r = &w->ranks[w->nr++];
	memset(r, 0, sizeof(*r));
	kv_parse(&kv, tok, ntok, 2);
	r->rank = strtoul(tok[1], NULL, 10);
	r->job_rank = kv_ull(&kv, "job_rank", r->rank);
	r->size = kv_ull(&kv, "size", 0);
	r->disp_unit = kv_ull(&kv, "disp_unit", 1);
	r->node = kv_ll(&kv, "node", -1);
	r->pages = kv_ll(&kv, "pages", -1);
	on = kv_get(&kv, "on");
	r->on = on ? strdup(on) : NULL;
	r->dynamic = kv_get(&kv, "attached") != NULL;
	r->regions = kv_ull(&kv, "regions", 0);
	r->attached = kv_ull(&kv, "attached", 0);
	r->interleave = kv_flag(&kv, "interleave");
	r->left = kv_flag(&kv, "left");
}

static void parse_window(struct job_info *j, char **tok, int ntok)
{
	struct win_info *w;
	struct kv kv;
	int k;

	GROW(j->wins, j->nr, j->cap);
	w = &j->wins[j->nr++];
	memset(w, 0, sizeof(*w));
	kv_parse(&kv, tok, ntok, 2);
	w->id = strtoul(tok[1], NULL, 10);
	snprintf(w->flavor, sizeof(w->flavor), "%s", kv_get(&kv, "flavor") ?: "?");
	snprintf(w->strategy, sizeof(w->strategy), "%s", kv_get(&kv, "strategy") ?: "?");
	w->nranks = kv_ull(&kv, "ranks", 0);
	for (k = 0; k < NR_KINDS; k++)
		w->c[k] = kv_ull(&kv, kind_names[k], 0);
	w->c[C_BYTES] = kv_ull(&kv, "bytes", 0);
	w->c[C_LOCK_WAITS] = kv_ull(&kv, "lock_waits", 0);
	w->c[C_CONTENDED] = kv_ull(&kv, "contended", 0);
	w->pages = kv_ll(&kv, "pages", -1);
	w->direct = kv_ll(&kv, "direct", -1);
}

/* /sys/kernel/debug/mpirma/jobs; see kmod/stats.c for the format. */
static void parse_jobs(struct sample *s, char *text)
{
	struct job_info *job = NULL;
	struct win_info *win = NULL;
	char *save, *line, *tok[MAX_TOKENS];
	unsigned int a, n;
	int ntok;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* before tokenizing: this one line is not key-value */
		if (sscanf(line, " pending window: %u of %u", &a, &n) == 2) {
			if (job) {
				GROW(job->pending, job->npending, job->pcap);
				job->pending[job->npending++] = (struct pending_info){ a, n };
			}
			continue;
		}
		ntok = tokenize(line, tok, MAX_TOKENS);
		if (ntok < 2)
			continue;
		if (!strcmp(tok[0], "job")) {
			struct kv kv;

			GROW(s->jobs, s->njobs, s->jcap);
			job = &s->jobs[s->njobs++];
			memset(job, 0, sizeof(*job));
			kv_parse(&kv, tok, ntok, 2);
			job->id = strtoull(tok[1], NULL, 10);
			job->nranks = kv_ull(&kv, "ranks", 0);
			job->joined = kv_ull(&kv, "joined", 0);
			job->gone = kv_ull(&kv, "gone", 0);
			win = NULL;
		} else if (!strcmp(tok[0], "window") && job) {
			parse_window(job, tok, ntok);
			win = &job->wins[job->nr - 1];
		} else if (!strcmp(tok[0], "rank") && win) {
			parse_rank(win, tok, ntok);
		}
	}
}

static void parse_workers(struct sample *s, char *text)
{
	char *save, *line;
	struct worker_info w;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		memset(&w, 0, sizeof(w));
		if (sscanf(line, "worker %u node %d pid %d items %llu", &w.id, &w.node, &w.pid,
			   &w.items) != 4)
			continue;
		GROW(s->workers, s->nworkers, s->wcap);
		s->workers[s->nworkers++] = w;
	}
}

/* ------------------------------------------------------------------ sampling */

static void add_node(int v, void *arg)
{
	struct sample *s = arg;
	struct node_info *n;

	s->nodes = xrealloc(s->nodes, (s->nnodes + 1) * sizeof(*s->nodes));
	n = &s->nodes[s->nnodes++];
	memset(n, 0, sizeof(*n));
	n->id = v;
	n->workers = -1;
}

/* Nodes and their CPUs; a kernel without NUMA is one node 0 with every CPU. */
static void read_topology(struct sample *s)
{
	char path[512], list[4096];
	size_t i;

	if (read_line(path_of(path, sizeof(path), NODE_DIR "/online"), list, sizeof(list)))
		walk_list(list, add_node, s);
	if (!s->nnodes)
		add_node(0, s);
	for (i = 0; i < s->nnodes; i++) {
		struct node_info *n = &s->nodes[i];

		if (!read_line(path_of(path, sizeof(path), NODE_DIR "/node%d/cpulist", n->id),
			       list, sizeof(list)) &&
		    !(s->nnodes == 1 &&
		      read_line(path_of(path, sizeof(path), "/sys/devices/system/cpu/online"),
				list, sizeof(list))))
			list[0] = 0;
		n->cpus = walk_list(list, NULL, NULL);
		snprintf(n->cpulist, sizeof(n->cpulist), "%s", n->cpus ? list : "-");
		s->ncpus += n->cpus;
	}
}

/* Whether anything is mounted at /sys/kernel/debug as debugfs. */
static bool debugfs_mounted(void)
{
	char path[512];
	struct statfs st;

	if (*root)	/* a test tree: a plain directory stands for it */
		return access(path_of(path, sizeof(path), DEBUGFS_ROOT), F_OK) == 0;
	return statfs(DEBUGFS_ROOT, &st) == 0 && st.f_type == DEBUGFS_MAGIC;
}

static void sample_read(struct sample *s)
{
	char path[512];
	char *text;
	size_t i, k;

	memset(s, 0, sizeof(*s));
	s->t = now_mono();
	s->wall = time(NULL);
	s->loaded = access(path_of(path, sizeof(path), SYSFS_DIR), F_OK) == 0;
	read_topology(s);
	if (!s->loaded)
		return;
	for (k = 0; k < NR_MODCOUNTERS; k++)
		s->counter[k] = read_number(path_of(path, sizeof(path), SYSFS_DIR "/%s",
						    counter_names[k]));
	read_line(path_of(path, sizeof(path), MODULE_DIR "/version"), s->modver,
		  sizeof(s->modver));
	read_line(path_of(path, sizeof(path), MODULE_DIR "/parameters/atomicity"),
		  s->atomicity, sizeof(s->atomicity));

	text = slurp(path_of(path, sizeof(path), DEBUGFS_DIR "/jobs"));
	s->jobs_err = text ? 0 : errno;
	if (text)
		parse_jobs(s, text);
	free(text);
	text = slurp(path_of(path, sizeof(path), DEBUGFS_DIR "/workers"));
	s->workers_err = text ? 0 : errno;
	if (text) {
		parse_workers(s, text);
		for (i = 0; i < s->nnodes; i++)
			s->nodes[i].workers = 0;
		for (k = 0; k < s->nworkers; k++)
			for (i = 0; i < s->nnodes; i++)
				if (s->nodes[i].id == s->workers[k].node)
					s->nodes[i].workers++;
	}
	free(text);
}

static void sample_free(struct sample *s)
{
	size_t j, w, r;

	for (j = 0; j < s->njobs; j++) {
		for (w = 0; w < s->jobs[j].nr; w++) {
			for (r = 0; r < s->jobs[j].wins[w].nr; r++)
				free(s->jobs[j].wins[w].ranks[r].on);
			free(s->jobs[j].wins[w].ranks);
		}
		free(s->jobs[j].wins);
		free(s->jobs[j].pending);
	}
	free(s->jobs);
	free(s->workers);
	free(s->nodes);
	memset(s, 0, sizeof(*s));
}

/*
 * Rates from the previous sample of the same window or worker.  A counter
 * that went down means a different object with a reused id (the module was
 * reloaded): no rate rather than a wrong one.
 */
static void compute_rates(struct sample *cur, const struct sample *prev)
{
	double dt = cur->t - prev->t;
	size_t j, w, pj, pw, k;

	if (dt <= 0)
		return;
	for (j = 0; j < cur->njobs; j++) {
		for (pj = 0; pj < prev->njobs; pj++)
			if (prev->jobs[pj].id == cur->jobs[j].id)
				break;
		if (pj == prev->njobs)
			continue;
		for (w = 0; w < cur->jobs[j].nr; w++) {
			struct win_info *cw = &cur->jobs[j].wins[w];

			for (pw = 0; pw < prev->jobs[pj].nr; pw++) {
				const struct win_info *p = &prev->jobs[pj].wins[pw];

				if (p->id != cw->id)
					continue;
				cw->has_rate = true;
				for (k = 0; k < NR_COUNTERS; k++) {
					if (cw->c[k] < p->c[k])
						cw->has_rate = false;
					else
						cw->rate[k] = (cw->c[k] - p->c[k]) / dt;
				}
				break;
			}
		}
	}
	for (w = 0; w < cur->nworkers; w++) {
		struct worker_info *cw = &cur->workers[w];

		for (pw = 0; pw < prev->nworkers; pw++) {
			const struct worker_info *p = &prev->workers[pw];

			if (p->id == cw->id && p->pid == cw->pid && cw->items >= p->items) {
				cw->has_rate = true;
				cw->rate = (cw->items - p->items) / dt;
			}
		}
	}
}

/* ------------------------------------------------------------------ text */

/* Exact below ten million (fits a column), then k/M/G/T with one decimal. */
static const char *fmt_count(char *buf, size_t len, unsigned long long v)
{
	static const char units[] = "kMGTPE";
	double d = v;
	int u = -1;

	if (v < 10000000ULL) {
		snprintf(buf, len, "%llu", v);
		return buf;
	}
	while (d >= 1000 && u < 5) {
		d /= 1000;
		u++;
	}
	snprintf(buf, len, "%.1f%c", d, units[u]);
	return buf;
}

static const char *fmt_rate(char *buf, size_t len, bool valid, double v)
{
	if (!valid)
		snprintf(buf, len, "-");
	else if (v < 10000)
		snprintf(buf, len, "%.1f", v);
	else
		fmt_count(buf, len, (unsigned long long)(v + 0.5));
	return buf;
}

/* Bytes in binary units, exact below 1 KiB. */
static const char *fmt_size(char *buf, size_t len, unsigned long long v)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, len, "%llu B", v);
		return buf;
	}
	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	/* "4 KiB" for exact sizes, "1.5 MiB" for others */
	snprintf(buf, len, d < 10 && d != (double)(unsigned long long)d ? "%.1f %s" : "%.0f %s",
		 d, units[u]);
	return buf;
}

/*
 * The node(s) a rank's memory is on: from where its pages are ("0:3,1:1"
 * shows as "0,1"), or, from a module that does not report that, the node it
 * asked for.
 */
static const char *fmt_rank_node(char *buf, size_t len, const struct rank_info *r)
{
	const char *p;
	size_t n = 0;

	if (!r->on) {
		if (r->node >= 0)
			snprintf(buf, len, "%d", r->node);
		else
			snprintf(buf, len, "-");
		return buf;
	}
	if (!strcmp(r->on, "-")) {
		snprintf(buf, len, "-");
		return buf;
	}
	buf[0] = 0;
	for (p = r->on; *p && n + 1 < len; ) {
		size_t id = strcspn(p, ":,");
		int w = snprintf(buf + n, len - n, "%s%.*s", n ? "," : "", (int)id, p);

		if (w < 0 || (size_t)w >= len - n)
			break;	/* cut: the JSON has the whole list */
		n += w;
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	return buf;
}

/* Why debugfs could not be read, as the user needs to hear it. */
static const char *debugfs_why(int err, char *buf, size_t len)
{
	if (err == EACCES || err == EPERM)
		snprintf(buf, len, "%s: %s: jobs, windows and workers need root (debugfs)",
			 DEBUGFS_DIR, strerror(err));
	else if (err == ENOENT && !debugfs_mounted())
		snprintf(buf, len, "debugfs is not mounted at %s (mount -t debugfs none %s): "
			 "no jobs, windows or workers to show", DEBUGFS_ROOT, DEBUGFS_ROOT);
	else
		snprintf(buf, len, "%s: %s: no jobs, windows or workers to show", DEBUGFS_DIR,
			 strerror(err));
	return buf;
}

static void print_topology(FILE *f, const struct sample *s)
{
	int workers = 0;
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		workers += s->nodes[i].workers > 0 ? s->nodes[i].workers : 0;
	fprintf(f, "topology: %zu node%s, %d CPU%s", s->nnodes, s->nnodes == 1 ? "" : "s",
		s->ncpus, s->ncpus == 1 ? "" : "s");
	if (!s->workers_err)
		fprintf(f, ", %d worker%s", workers, workers == 1 ? "" : "s");
	fprintf(f, "\n  %4s %5s %-16s %7s\n", "node", "cpus", "cpulist", "workers");
	for (i = 0; i < s->nnodes; i++) {
		const struct node_info *n = &s->nodes[i];

		if (n->workers >= 0)
			fprintf(f, "  %4d %5d %-16s %7d\n", n->id, n->cpus, n->cpulist, n->workers);
		else
			fprintf(f, "  %4d %5d %-16s %7s\n", n->id, n->cpus, n->cpulist, "?");
	}
}

static void print_window(FILE *f, const struct win_info *w, bool watch)
{
	char b[NR_COUNTERS][32], node[64], size[32];
	size_t i;
	int k;

	fprintf(f, "  window %u: %s, strategy %s, %u rank%s", w->id, w->flavor, w->strategy,
		w->nranks, w->nranks == 1 ? "" : "s");
	if (w->pages >= 0)
		fprintf(f, ", %lld page%s", w->pages, w->pages == 1 ? "" : "s");
	if (w->direct >= 0)
		fprintf(f, ", %s ops direct", fmt_count(b[0], sizeof(b[0]), w->direct));
	fputc('\n', f);

	/* 79 columns: five kinds, bytes, lock waits, contended sections */
	fprintf(f, "    %-5s", "");
	for (k = 0; k < NR_KINDS; k++)
		fprintf(f, " %7s", kind_names[k]);
	fprintf(f, " %8s %10s %9s\n", "bytes", "lock_waits", "contended");
	fprintf(f, "    %-5s", "total");
	for (k = 0; k < NR_KINDS; k++)
		fprintf(f, " %7s", fmt_count(b[k], sizeof(b[k]), w->c[k]));
	fprintf(f, " %8s %10s %9s\n", fmt_size(b[C_BYTES], sizeof(b[C_BYTES]), w->c[C_BYTES]),
		fmt_count(b[C_LOCK_WAITS], sizeof(b[0]), w->c[C_LOCK_WAITS]),
		fmt_count(b[C_CONTENDED], sizeof(b[0]), w->c[C_CONTENDED]));
	if (watch) {
		fprintf(f, "    %-5s", "/s");
		for (k = 0; k < NR_COUNTERS; k++)
			fmt_rate(b[k], sizeof(b[k]), w->has_rate, w->rate[k]);
		if (w->has_rate)
			fmt_size(b[C_BYTES], sizeof(b[C_BYTES]),
				 (unsigned long long)(w->rate[C_BYTES] + 0.5));
		for (k = 0; k < NR_KINDS; k++)
			fprintf(f, " %7s", b[k]);
		fprintf(f, " %8s %10s %9s\n", b[C_BYTES], b[C_LOCK_WAITS], b[C_CONTENDED]);
	}

	fprintf(f, "    %4s %8s %10s %9s %-8s %7s\n", "rank", "job_rank",
		strcmp(w->flavor, "dynamic") ? "size" : "attached",
		strcmp(w->flavor, "dynamic") ? "disp_unit" : "regions", "node", "pages");
	for (i = 0; i < w->nr; i++) {
		const struct rank_info *r = &w->ranks[i];
		char pages[32];

		if (r->pages >= 0)
			snprintf(pages, sizeof(pages), "%lld", r->pages);
		else
			snprintf(pages, sizeof(pages), "?");
		fprintf(f, "    %4u %8u %10s %9u %-8s %7s%s%s\n", r->rank, r->job_rank,
			fmt_size(size, sizeof(size), r->dynamic ? r->attached : r->size),
			r->dynamic ? r->regions : r->disp_unit,
			fmt_rank_node(node, sizeof(node), r), pages,
			r->interleave ? "  interleaved" : "", r->left ? "  left" : "");
	}
}

static void print_workers(FILE *f, const struct sample *s, bool watch)
{
	char b[32], r[32];
	size_t i;

	fprintf(f, "workers: %zu\n", s->nworkers);
	if (!s->nworkers)
		return;
	fprintf(f, "  %6s %4s %8s %12s", "worker", "node", "pid", "items");
	fprintf(f, watch ? " %9s\n" : "\n", "items/s");
	for (i = 0; i < s->nworkers; i++) {
		const struct worker_info *w = &s->workers[i];

		fprintf(f, "  %6u %4d %8d %12s", w->id, w->node, w->pid,
			fmt_count(b, sizeof(b), w->items));
		if (watch)
			fprintf(f, " %9s", fmt_rate(r, sizeof(r), w->has_rate, w->rate));
		fputc('\n', f);
	}
}

/* The whole view; @watch adds the rate rows and columns. */
static void print_text(FILE *f, const struct sample *s, bool watch, double interval)
{
	char when[64], why[512];
	size_t j, w, p;
	struct tm tm;

	localtime_r(&s->wall, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "mpirma %s, default strategy %s  %s", s->modver[0] ? s->modver : "?",
		s->atomicity[0] ? s->atomicity : "?", when);
	if (watch)
		fprintf(f, "  every %.1f s, q quits", interval);
	fputc('\n', f);
	if (!s->loaded) {
		fprintf(f, "the mpirma module is not loaded (no %s)\n", SYSFS_DIR);
		return;
	}
	fprintf(f, "counters: jobs %lld, windows %lld, pages pinned %lld allocated %lld, "
		"message bytes %lld\n", s->counter[0], s->counter[1], s->counter[2],
		s->counter[3], s->counter[4]);
	print_topology(f, s);

	if (s->jobs_err) {
		fprintf(f, "\n%s\n", debugfs_why(s->jobs_err, why, sizeof(why)));
		return;
	}
	if (!s->njobs)
		fprintf(f, "\nno jobs\n");
	for (j = 0; j < s->njobs; j++) {
		const struct job_info *job = &s->jobs[j];

		fprintf(f, "\njob %llu: %u rank%s, %u joined, %u gone, %zu window%s\n", job->id,
			job->nranks, job->nranks == 1 ? "" : "s", job->joined, job->gone,
			job->nr, job->nr == 1 ? "" : "s");
		for (w = 0; w < job->nr; w++)
			print_window(f, &job->wins[w], watch);
		for (p = 0; p < job->npending; p++)
			fprintf(f, "  window being created: %u of %u ranks arrived\n",
				job->pending[p].arrived, job->pending[p].nranks);
	}
	fputc('\n', f);
	if (s->workers_err)
		fprintf(f, "workers: %s\n", debugfs_why(s->workers_err, why, sizeof(why)));
	else
		print_workers(f, s, watch);
}

/* ------------------------------------------------------------------ JSON */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A number, or null when the kernel did not report it. */
static void json_ll(FILE *f, long long v)
{
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%lld", v);
}

static void json_rank(FILE *f, const struct rank_info *r)
{
	char list[256], *p, *save;

	fprintf(f, "            {\"rank\": %u, \"job_rank\": %u, \"size\": %llu, "
		"\"disp_unit\": %u, \"node\": %d, \"pages\": ", r->rank, r->job_rank, r->size,
		r->disp_unit, r->node);
	json_ll(f, r->pages);
	/* "0:3,1:1" becomes {"0": 3, "1": 1}: pages per node, now */
	fputs(", \"pages_on\": ", f);
	if (!r->on) {
		fputs("null", f);
	} else {
		fputc('{', f);
		snprintf(list, sizeof(list), "%s", r->on);
		for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
			char *colon = strchr(p, ':');

			if (!colon)
				continue;
			*colon = 0;
			fprintf(f, "%s\"%d\": %llu", p == list ? "" : ", ", atoi(p),
				strtoull(colon + 1, NULL, 10));
		}
		fputc('}', f);
	}
	if (r->dynamic)
		fprintf(f, ", \"regions\": %u, \"attached\": %llu", r->regions, r->attached);
	fprintf(f, ", \"interleave\": %s, \"left\": %s}", r->interleave ? "true" : "false",
		r->left ? "true" : "false");
}

static void json_window(FILE *f, const struct win_info *w)
{
	size_t i;
	int k;

	fprintf(f, "        {\"id\": %u, \"flavor\": ", w->id);
	json_str(f, w->flavor);
	fputs(", \"strategy\": ", f);
	json_str(f, w->strategy);
	fprintf(f, ", \"ranks\": %u, \"pages\": ", w->nranks);
	json_ll(f, w->pages);
	fputs(",\n         \"ops\": {", f);
	for (k = 0; k < NR_KINDS; k++)
		fprintf(f, "%s\"%s\": %llu", k ? ", " : "", kind_names[k], w->c[k]);
	fprintf(f, "}, \"bytes\": %llu, \"lock_waits\": %llu, \"contended\": %llu, \"direct\": ",
		w->c[C_BYTES], w->c[C_LOCK_WAITS], w->c[C_CONTENDED]);
	json_ll(f, w->direct);
	fputs(",\n", f);
	fputs("         \"members\": [\n", f);
	for (i = 0; i < w->nr; i++) {
		json_rank(f, &w->ranks[i]);
		fputs(i + 1 < w->nr ? ",\n" : "\n", f);
	}
	fputs("         ]}", f);
}

static void print_json(FILE *f, const struct sample *s)
{
	char why[512];
	size_t i, j, w;

	fputs("{\n  \"tool_version\": ", f);
	json_str(f, MPIRMA_VERSION);
	fprintf(f, ",\n  \"time\": %lld,\n  \"module\": {\"loaded\": %s", (long long)s->wall,
		s->loaded ? "true" : "false");
	if (s->loaded) {
		fputs(", \"version\": ", f);
		if (s->modver[0])
			json_str(f, s->modver);
		else
			fputs("null", f);
		fputs(", \"default_strategy\": ", f);
		if (s->atomicity[0])
			json_str(f, s->atomicity);
		else
			fputs("null", f);
	}
	fputs("},\n  \"counters\": {", f);
	for (i = 0; i < NR_MODCOUNTERS; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "", counter_names[i]);
		json_ll(f, s->loaded ? s->counter[i] : -1);
	}
	fputs("},\n  \"topology\": {\"nodes\": [", f);
	for (i = 0; i < s->nnodes; i++) {
		const struct node_info *n = &s->nodes[i];

		fprintf(f, "%s\n    {\"node\": %d, \"cpus\": %d, \"cpulist\": ", i ? "," : "",
			n->id, n->cpus);
		json_str(f, n->cpus ? n->cpulist : "");
		fputs(", \"workers\": ", f);
		json_ll(f, n->workers);
		fputc('}', f);
	}
	fputs("\n  ]},\n  \"debugfs\": {\"readable\": ", f);
	fputs(s->loaded && !s->jobs_err && !s->workers_err ? "true" : "false", f);
	fputs(", \"error\": ", f);
	if (!s->loaded)
		json_str(f, "module not loaded");
	else if (s->jobs_err || s->workers_err)
		json_str(f, debugfs_why(s->jobs_err ?: s->workers_err, why, sizeof(why)));
	else
		fputs("null", f);
	fputs("},\n  \"jobs\": ", f);
	if (!s->loaded || s->jobs_err) {
		fputs("null", f);
	} else {
		fputc('[', f);
		for (j = 0; j < s->njobs; j++) {
			const struct job_info *job = &s->jobs[j];

			fprintf(f, "%s\n    {\"id\": %llu, \"ranks\": %u, \"joined\": %u, "
				"\"gone\": %u, \"pending_windows\": [", j ? "," : "", job->id,
				job->nranks, job->joined, job->gone);
			for (i = 0; i < job->npending; i++)
				fprintf(f, "%s{\"arrived\": %u, \"ranks\": %u}", i ? ", " : "",
					job->pending[i].arrived, job->pending[i].nranks);
			fputs("],\n     \"windows\": [\n", f);
			for (w = 0; w < job->nr; w++) {
				json_window(f, &job->wins[w]);
				fputs(w + 1 < job->nr ? ",\n" : "\n", f);
			}
			fputs("     ]}", f);
		}
		fputs(s->njobs ? "\n  ]" : "]", f);
	}
	fputs(",\n  \"workers\": ", f);
	if (!s->loaded || s->workers_err) {
		fputs("null", f);
	} else {
		fputc('[', f);
		for (i = 0; i < s->nworkers; i++)
			fprintf(f, "%s\n    {\"id\": %u, \"node\": %d, \"pid\": %d, \"items\": %llu}",
				i ? "," : "", s->workers[i].id, s->workers[i].node,
				s->workers[i].pid, s->workers[i].items);
		fputs(s->nworkers ? "\n  ]" : "]", f);
	}
	fputs("\n}\n", f);
}

/* ------------------------------------------------------------------ terminal */

/*
 * The refreshing view changes the terminal: no echo and no line buffering
 * on stdin (so q works without Enter; signals stay on, so Ctrl-C and
 * Ctrl-Z still do), the alternate screen and a hidden cursor on stdout.
 * term_restore() undoes all of it; it runs on every way out, and around a
 * Ctrl-Z stop.
 */
static struct {
	bool raw;			/* stdin's termios changed */
	struct termios saved;
	bool screen;			/* alternate screen entered */
} term;

static volatile sig_atomic_t got_quit, got_winch, got_tstp;

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		got_winch = 1;
	else if (sig == SIGTSTP)
		got_tstp = 1;
	else
		got_quit = 1;
}

static void write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			got_quit = 1;	/* the terminal is gone: nothing to show on */
			return;
		}
		buf += n;
		len -= n;
	}
}

static void term_restore(void)
{
	if (term.screen) {
		/* show the cursor, leave the alternate screen */
		static const char leave[] = "\033[?25h\033[?1049l";

		write_all(STDOUT_FILENO, leave, sizeof(leave) - 1);
		term.screen = false;
	}
	if (term.raw) {
		tcsetattr(STDIN_FILENO, TCSADRAIN, &term.saved);
		term.raw = false;
	}
}

/*
 * Keys without Enter, if stdin is our terminal and we are in its foreground
 * process group.  A background process (started with &, or by timeout(1),
 * which makes its own process group) would be stopped by SIGTTOU for
 * changing the terminal, and by SIGTTIN for reading it; it goes without
 * keys and quits on a signal instead.  Tried again on every wait, so a job
 * brought to the foreground gets its keys.
 */
static void term_keys(bool keys)
{
	struct termios t;
	pid_t fg;

	if (!keys || term.raw)
		return;
	fg = tcgetpgrp(STDIN_FILENO);
	if (fg < 0 || fg != getpgrp() || tcgetattr(STDIN_FILENO, &term.saved))
		return;
	t = term.saved;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &t) == 0)
		term.raw = true;
}

static void term_enter(bool ansi, bool keys)
{
	term_keys(keys);
	if (ansi) {
		/* alternate screen, hidden cursor, cleared */
		static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";

		write_all(STDOUT_FILENO, enter, sizeof(enter) - 1);
		term.screen = true;
	}
}

/* Ctrl-Z: give the terminal back, stop, take it again when continued. */
static void suspend(bool ansi, bool keys, const sigset_t *blocked)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t tstp;

	term_restore();
	sigaction(SIGTSTP, &sa, NULL);
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	raise(SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &tstp, NULL);	/* stops here until SIGCONT */
	sigprocmask(SIG_BLOCK, blocked, NULL);
	sa.sa_handler = on_signal;
	sigaction(SIGTSTP, &sa, NULL);
	got_tstp = 0;
	term_enter(ansi, keys);
	got_winch = 1;	/* redraw at once: the screen was the shell's */
}

/*
 * One frame on the terminal: from the top left, each line cut to the width
 * and cleared to its end, at most as many lines as fit, the rest cleared.
 * Redrawing over the old frame rather than clearing first does not flicker.
 */
static void draw_frame(const char *text)
{
	struct winsize ws = { 0 };
	unsigned int rows = 24, cols = 80, row = 0, total = 0;
	const char *p;
	char *out = NULL, more[64];
	size_t len = 0;
	FILE *f;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		rows = ws.ws_row;
		cols = ws.ws_col;
	}
	for (p = text; *p; p++)
		total += *p == '\n';
	f = open_memstream(&out, &len);
	if (!f)
		die("out of memory");
	fputs("\033[H", f);
	for (p = text; *p && row + 1 < rows; row++) {
		size_t n = strcspn(p, "\n");

		/* room for a last line saying what did not fit */
		if (total > rows - 1 && row + 2 == rows)
			break;
		fprintf(f, "%.*s\033[K\n", (int)(n < cols ? n : cols), p);
		p += n;
		if (*p == '\n')
			p++;
	}
	if (total > row) {
		snprintf(more, sizeof(more), "... %u more lines (a taller terminal shows them)",
			 total - row);
		fprintf(f, "%.*s\033[K\n", (int)cols, more);
	}
	fputs("\033[J", f);
	fclose(f);
	write_all(STDOUT_FILENO, out, len);
	free(out);
}

static int watch(double interval)
{
	bool ansi = isatty(STDOUT_FILENO), keys = isatty(STDIN_FILENO);
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGTSTP };
	struct sample cur, prev;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t blocked, orig;
	bool have_prev = false;
	size_t i;

	/*
	 * Signals are blocked except inside ppoll(): a signal arriving between
	 * a check and the wait still ends the wait, and no other call is ever
	 * interrupted.  SIGPIPE is ignored so that a closed output ends the
	 * loop through write_all(), with the terminal restored.
	 */
	sigemptyset(&blocked);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* what the shell ignores for a background job stays ignored */
		if (sigs[i] != SIGTERM && sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaddset(&blocked, sigs[i]);
		sigaction(sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_BLOCK, &blocked, &orig);
	atexit(term_restore);
	term_enter(ansi, keys);

	memset(&prev, 0, sizeof(prev));
	while (!got_quit) {
		char *text = NULL;
		size_t len = 0;
		double next;
		FILE *f;

		sample_read(&cur);
		if (have_prev)
			compute_rates(&cur, &prev);
		f = open_memstream(&text, &len);
		if (!f)
			die("out of memory");
		print_text(f, &cur, true, interval);
		fclose(f);
		if (ansi) {
			draw_frame(text);
		} else {
			/* a log of frames, one after the other */
			write_all(STDOUT_FILENO, text, len);
			write_all(STDOUT_FILENO, "\n", 1);
		}
		free(text);
		sample_free(&prev);
		prev = cur;
		have_prev = true;

		next = now_mono() + interval;
		while (!got_quit && !got_winch) {
			struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
			double left = next - now_mono();
			struct timespec ts;
			bool reading;
			char c[64];
			ssize_t n;
			int ret;

			if (left <= 0)
				break;
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
			term_keys(keys);
			reading = keys && term.raw;
			ret = ppoll(reading ? &pfd : NULL, reading ? 1 : 0, &ts, &orig);
			if (got_tstp)
				suspend(ansi, keys, &blocked);
			if (ret <= 0 || !reading)
				continue;
			n = read(STDIN_FILENO, c, sizeof(c));
			if (n <= 0) {
				keys = false;	/* hung up: keep showing, stop reading */
				continue;
			}
			if (memchr(c, 'q', n) || memchr(c, 'Q', n))
				got_quit = 1;
			else if (memchr(c, ' ', n) || memchr(c, 'r', n))
				break;	/* refresh now */
		}
		got_winch = 0;
	}
	sample_free(&prev);
	term_restore();
	return EX_OK;
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [--once | -w [SECONDS]] [--json]\n"
"Show the jobs, windows, operation counts, lock contention and worker load\n"
"of the mpirma kernel module, from its sysfs counters and debugfs files\n"
"(jobs, windows and workers need root).\n"
"\n"
"Options:\n"
"  -1, --once               print one view and exit (the default when stdout\n"
"                           is not a terminal)\n"
"  -w, --watch [SECONDS]    redraw every SECONDS (default 1) with rates per\n"
"                           second; q or Ctrl-C quits (the default on a\n"
"                           terminal)\n"
"  -j, --json               one view as JSON, for scripts\n"
"      --root DIR           read /sys below DIR instead (for testing)\n"
"  -h, --help               this text\n"
"  -V, --version            print the version\n"
"\n"
"Exit status: 0 shown, 1 the module is not loaded, 2 usage.\n",
		prog);
}

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport(prog, true, fmt, ap);
	va_end(ap);
	exit(EX_USAGE);
}

static void print_version(void)
{
	char path[512], ver[32];

	printf("%s (mpirma) %s\n", prog, MPIRMA_VERSION);
	if (read_line(path_of(path, sizeof(path), MODULE_DIR "/version"), ver, sizeof(ver)))
		printf("module mpirma %s loaded\n", ver);
	else if (access(path_of(path, sizeof(path), SYSFS_DIR), F_OK) == 0)
		printf("module mpirma loaded\n");
	else
		printf("module mpirma not loaded\n");
}

int main(int argc, char **argv)
{
	enum { OPT_ROOT = 256 };
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, '1' },
		{ "watch", optional_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool once = false, json = false, watch_set = false;
	double interval = 1.0;
	struct sample s;
	int c, ret;

	if (argv[0] && strrchr(argv[0], '/'))
		prog = strrchr(argv[0], '/') + 1;
	else if (argv[0])
		prog = argv[0];
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+1w::jhV", longopts, NULL)) != -1) {
		switch (c) {
		case '1':
			once = true;
			break;
		case 'w':
			watch_set = true;
			/* "-w 2" as well as "-w2" and "--watch=2" */
			if (optarg)
				interval = cli_seconds("--watch", optarg, 0.1, 86400);
			else if (optind < argc && (isdigit((unsigned char)argv[optind][0]) ||
						   argv[optind][0] == '.'))
				interval = cli_seconds("--watch", argv[optind++],
						       0.1, 86400);
			break;
		case 'j':
			json = true;
			break;
		case OPT_ROOT:
			root = optarg;
			break;
		case 'h':
			usage(stdout);
			return EX_OK;
		case 'V':
			print_version();
			return EX_OK;
		default:
			if (optopt == OPT_ROOT)
				usage_error("--root wants a directory");
			if (optopt > 0 && optopt < 128 && isprint(optopt))
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (once && watch_set)
		usage_error("--once and --watch exclude each other");
	if (json && watch_set)
		usage_error("--json is one-shot; it does not combine with --watch");
	if (!once && !json && !watch_set)
		watch_set = isatty(STDOUT_FILENO);

	sample_read(&s);
	if (!s.loaded) {
		if (json)
			print_json(stdout, &s);
		fprintf(stderr, "%s: the mpirma module is not loaded (no %s%s): load it with "
			"'modprobe mpirma' as root\n", prog, root, SYSFS_DIR);
		sample_free(&s);
		return EX_FAIL;
	}
	if (watch_set) {
		sample_free(&s);
		return watch(interval);
	}
	if (json) {
		print_json(stdout, &s);
		/* the reason belongs in the JSON, and in front of a person too */
		if (s.jobs_err || s.workers_err) {
			char why[512];

			fprintf(stderr, "%s: %s\n", prog,
				debugfs_why(s.jobs_err ?: s.workers_err, why, sizeof(why)));
		}
	} else {
		print_text(stdout, &s, false, 0);
	}
	sample_free(&s);
	ret = fflush(stdout) || ferror(stdout) ? EX_FAIL : EX_OK;
	if (ret)
		fprintf(stderr, "%s: writing the output: %s\n", prog, strerror(errno));
	return ret;
}
