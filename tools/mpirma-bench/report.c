// SPDX-License-Identifier: GPL-2.0
/*
 * mpirma-bench: the report, once every job is over: the node's topology,
 * the tables (medians and spreads of the repetitions, ratios against the
 * reference strategy), the wrong results, the CSV and the gnuplot plot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, min and max of @n values; NaN when there are none. */
static void stats3(const double *v, unsigned int n, double *med, double *min, double *max)
{
	double s[MAX_REPS];

	if (!n) {
		*med = *min = *max = NAN;
		return;
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	*min = s[0];
	*max = s[n - 1];
	*med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The median of a cell, NaN when it has no valid figure. */
static double cell_median(const struct cell *c)
{
	double med, min, max;

	if (c->wrong)
		return NAN;
	stats3(c->val, c->nreps, &med, &min, &max);
	return med;
}

/* ------------------------------------------------------------ topology */

/* "0-3,8" from a libnuma CPU mask; the number of CPUs in it. */
static int cpulist(struct bitmask *m, char *buf, size_t len)
{
	int cpu, first = -1, count = 0, ncpu = numa_num_possible_cpus();
	size_t off = 0;

	buf[0] = 0;
	for (cpu = 0; cpu <= ncpu; cpu++) {
		bool set = cpu < ncpu && numa_bitmask_isbitset(m, cpu);

		if (set) {
			count++;
			if (first < 0)
				first = cpu;
			continue;
		}
		if (first < 0 || off >= len)
			continue;
		if (first == cpu - 1)
			off += snprintf(buf + off, len - off, "%s%d", off ? "," : "", first);
		else
			off += snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", first,
					cpu - 1);
		first = -1;
	}
	if (!count)
		snprintf(buf, len, "none");
	return count;
}

/* The first line of /proc/cpuinfo starting with @key, its value in @buf. */
static bool cpuinfo(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096], *colon;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (strncmp(line, key, strlen(key)) || !colon)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		found = true;
	}
	fclose(f);
	return found;
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (fgets(buf, len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

static char topo_summary[256];		/* for the plot's title */

/*
 * Print where this ran: nodes, their CPUs and memory, distances, the CPU
 * model and whether a hypervisor is present.  Emulated NUMA (QEMU -numa)
 * declares nodes and distances but has uniform latency, so the note says
 * the figures carry no NUMA speed effects.
 */
void print_topology(FILE *f, const struct mpirma_query *mq)
{
	char model[256] = "unknown", flags[4096] = "", vendor[128], cpus[256];
	int node, max_node, a, b, nodes = 0, ncpu, max_cpn = 0;
	bool hypervisor, numa = numa_available() >= 0;
	struct bitmask *m = numa ? numa_allocate_cpumask() : NULL;
	struct utsname u;
	long long size, free_mem;

	uname(&u);
	cpuinfo("model name", model, sizeof(model));
	cpuinfo("flags", flags, sizeof(flags));
	hypervisor = strstr(flags, " hypervisor") != NULL;
	read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));

	fprintf(f, "machine: %s %s, %ld CPUs online, CPU \"%s\", %s%s%s%s\n", u.sysname,
		u.release, sysconf(_SC_NPROCESSORS_ONLN), model,
		hypervisor ? "under a hypervisor" : "no hypervisor reported",
		*vendor ? " (system vendor " : "", vendor, *vendor ? ")" : "");
	max_node = numa ? numa_max_node() : 0;
	for (node = 0; numa && node <= max_node; node++) {
		numa_bitmask_clearall(m);
		if (numa_node_to_cpus(node, m) < 0)
			continue;
		ncpu = cpulist(m, cpus, sizeof(cpus));
		size = numa_node_size64(node, &free_mem);
		if (!ncpu && size <= 0)
			continue;
		nodes++;
		max_cpn = ncpu > max_cpn ? ncpu : max_cpn;
		fprintf(f, "  node %d: %d CPU%s (%s), %lld MiB\n", node, ncpu, ncpu == 1 ? "" : "s",
			cpus, size > 0 ? size >> 20 : 0);
	}
	if (numa && max_node > 0) {
		fprintf(f, "  node distances (as declared):");
		for (a = 0; a <= max_node; a++) {
			fprintf(f, "%s", a ? " |" : "");
			for (b = 0; b <= max_node; b++)
				fprintf(f, " %d", numa_distance(a, b));
		}
		fputc('\n', f);
	}
	if (!numa)
		fprintf(f, "  no NUMA support (libnuma): one node\n");
	fprintf(f, "topology: %d NUMA node%s (kernel nr_node_ids %u), up to %d CPU%s per node\n",
		nodes ? nodes : 1, nodes == 1 ? "" : "s", mq->nr_numa_nodes, max_cpn,
		max_cpn == 1 ? "" : "s");
	fprintf(f, "NOTE: emulated NUMA has uniform latency: %s\n",
		hypervisor ? "this machine is virtual, so the node distances above are "
		"declared, not real,\n      and nothing here shows a NUMA speed effect; "
		"only ratios measured in this one run mean anything" :
		"this machine reports no hypervisor, so the distances\n"
		"      above come from its firmware; still compare only ratios within one run");
	snprintf(topo_summary, sizeof(topo_summary), "%d node%s, %ld CPUs%s", nodes ? nodes : 1,
		 nodes == 1 ? "" : "s", sysconf(_SC_NPROCESSORS_ONLN),
		 hypervisor ? ", virtual: emulated NUMA has uniform latency, only ratios count" :
		 "");
	if (m)
		numa_free_cpumask(m);
}

/* ------------------------------------------------------------ report */

/* "123.4k": 4 significant digits with an SI suffix (op/s); GB/s as is. */
static const char *fmt_val(char *buf, size_t len, double v, bool bytes)
{
	static const char sfx[] = " kMGT";
	unsigned int i = 0;

	if (isnan(v))
		return "-";
	if (bytes) {
		snprintf(buf, len, "%.4g", v);
		return buf;
	}
	while (v >= 1000 && i < sizeof(sfx) - 2) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, i ? "%.4g%c" : "%.4g", v, sfx[i]);
	return buf;
}

/* Spread of a cell as percentages of its median: "-3/+2%". */
static const char *fmt_spread(char *buf, size_t len, const struct cell *c)
{
	double med, min, max;

	stats3(c->val, c->nreps, &med, &min, &max);
	if (isnan(med) || med <= 0)
		return "";
	snprintf(buf, len, "-%.0f/+%.0f%%", (1 - min / med) * 100, (max / med - 1) * 100);
	return buf;
}

#define COLW 26

static void print_row_cell(FILE *f, const struct cell *c, const struct cell *ref, bool bytes)
{
	char v[32], sp[32], ratio[16] = "", text[96];
	double med = cell_median(c), rmed = ref ? cell_median(ref) : NAN;

	if (c->wrong) {
		fprintf(f, " | %-*s", COLW - 3, "WRONG (see below)");
		return;
	}
	if (!c->nreps) {
		fprintf(f, " | %-*s", COLW - 3, "-");
		return;
	}
	if (!isnan(rmed) && rmed > 0)
		snprintf(ratio, sizeof(ratio), "%.2fx", med / rmed);
	snprintf(text, sizeof(text), "%-7s %6s %s", fmt_val(v, sizeof(v), med, bytes), ratio,
		 fmt_spread(sp, sizeof(sp), c));
	fprintf(f, " | %-*s", COLW - 3, text);
}

static void print_tables(FILE *f)
{
	const char *refname = opt.ref ? strategy_names[opt.ref] : NULL;
	unsigned int w, i, ci, fl, s;
	char hdr[64];

	for (w = 0; w < NR_WORKLOADS; w++) {
		if (!opt.wl[w])
			continue;
		fprintf(f, "\n%s: %s", workloads[w].name, workloads[w].what);
		if (w == W_CONTENDED || w == W_DISJOINT)
			fprintf(f, ", %s, %u per ioctl", opt.dbl ? "double" : "int64", opt.batch);
		else if (w == W_LARGE)
			fprintf(f, ", %llu KiB of %s, 1 per ioctl",
				(unsigned long long)opt.large >> 10, opt.dbl ? "double" : "int64");
		else if (w == W_FETCH_OP)
			fprintf(f, ", %u per ioctl", opt.batch);
		fprintf(f, " [%s%s]\n", w == W_CAS ? "successful increments, " : "",
			workloads[w].unit);
		fprintf(f, "%5s", "");
		for (i = 0; i < opt.nstrats; i++)
			fprintf(f, " | %-*s", COLW - 3, strategy_names[opt.strats[i]]);
		fprintf(f, "\n%5s", "ranks");
		snprintf(hdr, sizeof(hdr), "%-7s %6s %s", "median", refname ? "ratio" : "",
			 "min/max");
		for (i = 0; i < opt.nstrats; i++)
			fprintf(f, " | %-*s", COLW - 3, hdr);
		fputc('\n', f);
		for (ci = 0; ci < opt.ncounts; ci++) {
			fprintf(f, "%5u", opt.counts[ci]);
			for (i = 0; i < opt.nstrats; i++) {
				s = opt.strats[i];
				print_row_cell(f, &res->cell[ci][w][s],
					       refname ? &res->cell[ci][w][opt.ref] : NULL,
					       workloads[w].bytes);
			}
			fputc('\n', f);
		}
	}

	fprintf(f, "\nfloors (no strategy involved): null ioctl [ioctl/s], memcpy of %llu KiB [GB/s]\n",
		(unsigned long long)opt.large >> 10);
	fprintf(f, "%5s", "ranks");
	for (fl = 0; fl < NR_FLOORS; fl++)
		fprintf(f, " | %-*s", COLW - 3, floors[fl].name);
	fputc('\n', f);
	for (ci = 0; ci < opt.ncounts; ci++) {
		fprintf(f, "%5u", opt.counts[ci]);
		for (fl = 0; fl < NR_FLOORS; fl++)
			print_row_cell(f, &res->floor[ci][fl], NULL, floors[fl].bytes);
		fputc('\n', f);
	}

	/* what the kernel counted: explains lock vs striped */
	fprintf(f, "\nlock contention: update sections that found the strategy's lock taken, per\n"
		"operation (median; native counts only its fallback lock, delegate has none)\n");
	fprintf(f, "%-10s %5s", "workload", "ranks");
	for (i = 0; i < opt.nstrats; i++)
		fprintf(f, " %9s", strategy_names[opt.strats[i]]);
	fputc('\n', f);
	for (w = 0; w < NR_WORKLOADS; w++) {
		if (!opt.wl[w])
			continue;
		for (ci = 0; ci < opt.ncounts; ci++) {
			fprintf(f, "%-10s %5u", workloads[w].name, opt.counts[ci]);
			for (i = 0; i < opt.nstrats; i++) {
				const struct cell *c = &res->cell[ci][w][opt.strats[i]];
				double med, min, max;

				stats3(c->cont, c->nreps, &med, &min, &max);
				if (opt.strats[i] == MPIRMA_ATOM_DELEGATE || isnan(med))
					fprintf(f, " %9s", "-");
				else
					fprintf(f, " %9.3g", med);
			}
			fputc('\n', f);
		}
	}
}

/*
 * The tables go through a memory stream so that padded columns leave no
 * blanks at the ends of lines (the output is meant to be pasted as is).
 */
void print_tables_trimmed(FILE *f)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, n;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		print_tables(f);
		return;
	}
	print_tables(m);
	fclose(m);
	/* strtok_r would drop empty lines: walk the newlines by hand */
	for (line = buf; line && *line; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = 0;
		for (n = strlen(line); n && line[n - 1] == ' '; n--)
			;
		fprintf(f, "%.*s\n", (int)n, line);
	}
	free(buf);
}

/* The wrong cells, one line each; their number. */
unsigned int print_wrong(FILE *f)
{
	unsigned int w, ci, s, n = 0, checked = 0;

	for (ci = 0; ci < opt.ncounts; ci++)
		for (w = 0; w < NR_WORKLOADS; w++)
			for (s = 0; s < MPIRMA_NR_STRATEGIES; s++) {
				const struct cell *c = &res->cell[ci][w][s];

				checked += c->nreps;
				if (c->wrong) {
					fprintf(f, "WRONG: %s\n", c->why);
					n++;
				}
			}
	if (!n)
		fprintf(f, "\ncorrectness: all %u repetitions verified exact (totals; fetch_op and cas:\n"
			"the values seen form a permutation, in order per rank)\n", checked);
	return n;
}

static void csv_cell(FILE *f, const char *wl, uint32_t ranks, const char *impl,
		     const char *metric, const double *v, unsigned int n, const char *unit)
{
	double med, min, max;
	const char *fmt = !strcmp(unit, "op/s") ? "%.1f" : "%.6g";

	stats3(v, n, &med, &min, &max);
	if (isnan(med))
		return;
	fprintf(f, "%s,%u,%s,%s,", wl, ranks, impl, metric);
	fprintf(f, fmt, med);
	fputc(',', f);
	fprintf(f, fmt, min);
	fputc(',', f);
	fprintf(f, fmt, max);
	fprintf(f, ",%s\n", unit);
}

int write_csv(const char *path)
{
	unsigned int ci, w, i, s, fl;
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path, strerror(errno));
		return 1;
	}
	/* the columns of the MPI-level benchmark, with strategy for impl */
	fprintf(f, "workload,ranks,strategy,metric,median,min,max,unit\n");
	for (w = 0; w < NR_WORKLOADS; w++)
		for (ci = 0; ci < opt.ncounts && opt.wl[w]; ci++)
			for (i = 0; i < opt.nstrats; i++) {
				const struct cell *c;

				s = opt.strats[i];
				c = &res->cell[ci][w][s];
				if (c->wrong)
					continue;	/* a wrong result has no figure */
				csv_cell(f, workloads[w].name, opt.counts[ci], strategy_names[s],
					 "throughput", c->val, c->nreps, workloads[w].unit);
				if (w == W_CAS)
					csv_cell(f, "cas", opt.counts[ci], strategy_names[s],
						 "attempts", c->tries, c->nreps, "op/s");
				if (s != MPIRMA_ATOM_DELEGATE)
					csv_cell(f, workloads[w].name, opt.counts[ci],
						 strategy_names[s], "lock_contended", c->cont,
						 c->nreps, "per_op");
			}
	for (fl = 0; fl < NR_FLOORS; fl++)
		for (ci = 0; ci < opt.ncounts; ci++)
			csv_cell(f, floors[fl].name, opt.counts[ci], "floor", "throughput",
				 res->floor[ci][fl].val, res->floor[ci][fl].nreps,
				 floors[fl].unit);
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path, strerror(errno));
		return 1;
	}
	return 0;
}

/* A gnuplot single-quoted string: '' stands for '. */
static void gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/*
 * The gnuplot script, data included: one panel per workload (figure against
 * ranks, bars from min to max, one line per strategy) and one of the ratios
 * against the reference at the largest rank count.  Kept beside the PNG so
 * the plot can be restyled without measuring again.
 */
static void write_gnuplot(FILE *f, const char *png)
{
	unsigned int ci, w, i, top = opt.ncounts - 1, npanels = 0;
	double med, min, max;

	for (w = 0; w < NR_WORKLOADS; w++)
		npanels += opt.wl[w];
	npanels += opt.ref != 0;
	fprintf(f, "# %s: generated by %s; run: gnuplot THIS_FILE\n", png, PROG);
	fprintf(f, "set terminal pngcairo size 1500,%d noenhanced font ',10'\nset output ",
		npanels > 3 ? 950 : 500);
	gp_string(f, png);
	fprintf(f, "\nnames = '");
	for (i = 0; i < opt.nstrats; i++)
		fprintf(f, "%s%s", i ? " " : "", strategy_names[opt.strats[i]]);
	fprintf(f, "'\nNS = %u\n", opt.nstrats);

	for (w = 0; w < NR_WORKLOADS; w++) {
		if (!opt.wl[w])
			continue;
		fprintf(f, "$%s << EOD\n", workloads[w].name);
		for (ci = 0; ci < opt.ncounts; ci++) {
			fprintf(f, "%u", opt.counts[ci]);
			for (i = 0; i < opt.nstrats; i++) {
				const struct cell *c = &res->cell[ci][w][opt.strats[i]];

				if (c->wrong)
					med = min = max = NAN;
				else
					stats3(c->val, c->nreps, &med, &min, &max);
				fprintf(f, " %.6g %.6g %.6g", med, min, max);
			}
			fputc('\n', f);
		}
		fprintf(f, "EOD\n");
	}
	if (opt.ref) {
		fprintf(f, "$ratio << EOD\nworkload");
		for (i = 0; i < opt.nstrats; i++)
			fprintf(f, " %s", strategy_names[opt.strats[i]]);
		fputc('\n', f);
		for (w = 0; w < NR_WORKLOADS; w++) {
			double ref;

			if (!opt.wl[w])
				continue;
			ref = cell_median(&res->cell[top][w][opt.ref]);
			fprintf(f, "%s", workloads[w].name);
			for (i = 0; i < opt.nstrats; i++)
				fprintf(f, " %.4g",
					cell_median(&res->cell[top][w][opt.strats[i]]) / ref);
			fputc('\n', f);
		}
		fprintf(f, "EOD\n");
	}

	fprintf(f, "set multiplot layout %d,3 title ", npanels > 3 ? 2 : 1);
	{
		char title[512];

		snprintf(title, sizeof(title),
			 "mpirma-bench: atomicity strategies, median of %u repetitions (bars: min..max); %s",
			 opt.reps, topo_summary);
		gp_string(f, title);
	}
	fprintf(f, "\nset grid ytics\nset key top left\nset xlabel 'ranks'\n");
	fprintf(f, "set xtics (");
	for (ci = 0; ci < opt.ncounts; ci++)
		fprintf(f, "%s%u", ci ? ", " : "", opt.counts[ci]);
	fprintf(f, ")\n");
	if (opt.counts[top] > 4)
		fprintf(f, "set logscale x 2\nset xrange [%g:%g]\n", opt.counts[0] / 1.3,
			opt.counts[top] * 1.3);
	else
		fprintf(f, "set xrange [%g:%g]\n", opt.counts[0] - 0.5, opt.counts[top] + 0.5);
	/* headroom above the data for the key; SI prefixes on op/s */
	fprintf(f, "set yrange [0:*]\nset offsets 0, 0, graph 0.3, 0\n");
	for (w = 0; w < NR_WORKLOADS; w++) {
		char title[160];

		if (!opt.wl[w])
			continue;
		snprintf(title, sizeof(title), "%s [%s%s]", workloads[w].name,
			 w == W_CAS ? "increments/s" : workloads[w].unit,
			 w == W_LARGE ? ", target bytes" : "");
		fprintf(f, "set title ");
		gp_string(f, title);
		fprintf(f, "\nset ylabel '%s'\nset format y '%s'\n",
			workloads[w].bytes ? "GB/s" : "op/s",
			workloads[w].bytes ? "%g" : "%.1s%c");
		/* strategies side by side around each rank count */
		fprintf(f, "plot for [i=1:NS] $%s using ($1%s(i-(NS+1)/2.0)*%s):(column(3*i-1)):"
			"(column(3*i)):(column(3*i+1)) with yerrorlines lw 2 pt 7 lt i "
			"title word(names, i)\n", workloads[w].name,
			opt.counts[top] > 4 ? "*2**(" : "+(",
			opt.counts[top] > 4 ? "0.03)" : "0.06)");
	}
	if (opt.ref) {
		char title[96];

		snprintf(title, sizeof(title), "ratio against %s at %u rank%s",
			 strategy_names[opt.ref], opt.counts[top], opt.counts[top] == 1 ? "" : "s");
		fprintf(f, "unset logscale x\nset autoscale x\nunset xlabel\nset title ");
		gp_string(f, title);
		fprintf(f, "\nset ylabel 'x %s'\nset style data histograms\n"
			"set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
			"set xtics auto\nset key top right\nset yrange [0:*]\nset format y '%%g'\n"
			"set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n"
			"plot for [i=2:NS+1] $ratio using i:xtic(1) lt (i-1) title columnheader(i)\n",
			strategy_names[opt.ref]);
	}
	fprintf(f, "unset multiplot\n");
}

/* Write FILE.gp beside FILE.png and run gnuplot on it; 0 on success. */
int write_plot(const char *png)
{
	size_t n = strlen(png);
	char *gp = malloc(n + 4);
	int status, ret = 1;
	FILE *f;
	pid_t pid;

	if (!gp)
		return 1;
	memcpy(gp, png, n + 1);
	if (n > 4 && !strcmp(png + n - 4, ".png"))
		gp[n - 4] = 0;
	strcat(gp, ".gp");
	f = fopen(gp, "w");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", PROG, gp, strerror(errno));
		goto out;
	}
	write_gnuplot(f, png);
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", PROG, gp, strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", gp, (char *)NULL);
		fprintf(stderr, "%s: gnuplot: %s (install gnuplot-nox: make deps)\n", PROG,
			strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "%s: running gnuplot: %s\n", PROG, strerror(errno));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: gnuplot %s failed\n", PROG, gp);
		goto out;
	}
	ret = 0;
out:
	free(gp);
	return ret;
}
