// SPDX-License-Identifier: GPL-2.0
/*
 * mpirma-stat: a sample as text (the one-shot view, and each frame of the
 * refreshing one) or as JSON.
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
const char *debugfs_why(int err, char *buf, size_t len)
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
void print_text(FILE *f, const struct sample *s, bool watch, double interval)
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

void print_json(FILE *f, const struct sample *s)
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
