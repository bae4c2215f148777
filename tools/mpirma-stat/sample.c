// SPDX-License-Identifier: GPL-2.0
/*
 * mpirma-stat: one sample of what the module exports (the sysfs counters,
 * the debugfs job and worker lists, the node topology), parsed by key so
 * that an older or newer module still shows what both know, and the rates
 * between two samples.
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

#include "stat.h"

/* ------------------------------------------------------------------ basics */

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

double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The path @fmt names, below --root, into @buf. */
const char *path_of(char *buf, size_t len, const char *fmt, ...)
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
bool read_line(const char *path, char *out, size_t len)
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
bool debugfs_mounted(void)
{
	char path[512];
	struct statfs st;

	if (*root)	/* a test tree: a plain directory stands for it */
		return access(path_of(path, sizeof(path), DEBUGFS_ROOT), F_OK) == 0;
	return statfs(DEBUGFS_ROOT, &st) == 0 && st.f_type == DEBUGFS_MAGIC;
}

void sample_read(struct sample *s)
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

void sample_free(struct sample *s)
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
void compute_rates(struct sample *cur, const struct sample *prev)
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
