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
#include "mpirma-stat/stat.h"

const char *const kind_names[NR_KINDS] = { "put", "get", "acc", "get_acc", "cas" };

const char *const counter_names[NR_MODCOUNTERS] = {
	"jobs", "windows", "pages_pinned", "pages_allocated", "message_bytes",
};

const char *prog = "mpirma-stat";
const char *root = "";

void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport(prog, false, fmt, ap);
	va_end(ap);
	exit(EX_FAIL);
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
