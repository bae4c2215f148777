// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the hybrid layer's lock-order checker (hybrid/locks.c):
 * takes in the written order pass, a trylock counts as held, and a take
 * against the order (the span lock, then hy.lock) aborts the process with
 * both locks' names on stderr.  The aborting takes run in child processes.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../hybrid/locks.c"

#include "unit_check.h"

static struct hy_mutex state = HY_MUTEX_INIT(HY_LOCK_STATE);
static struct hy_mutex span = HY_MUTEX_INIT(HY_LOCK_SPAN);
static struct hy_mutex serve = HY_MUTEX_INIT(HY_LOCK_SERVE);
static struct hy_mutex conn = HY_MUTEX_INIT(HY_LOCK_NET_CONN);

/*
 * Runs @fn in a child with stderr to a pipe: whether it died of SIGABRT,
 * and what it wrote, in @out.
 */
static int aborts(void (*fn)(void), char *out, size_t len)
{
	int fd[2], status = 0;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		fn();
		_exit(0);
	}
	close(fd[1]);
	while ((n = read(fd[0], out + got, len - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void span_then_state(void)
{
	hy_mutex_lock(&span);
	hy_mutex_lock(&state);
}

static void conn_then_serve_after_trylock(void)
{
	if (hy_mutex_trylock(&conn))
		_exit(3);
	hy_mutex_lock(&serve);
}

static void span_twice(void)
{
	struct hy_mutex other = HY_MUTEX_INIT(HY_LOCK_SPAN);

	hy_mutex_lock(&span);
	hy_mutex_lock(&other);
}

static void assert_unheld(void)
{
	hy_mutex_assert_held(&serve);
}

int main(void)
{
	char out[1024];

	setenv("MPIRMA_LOCK_CHECK", "1", 1);
	hy_locks_init();
	check(hy_lock_check, "MPIRMA_LOCK_CHECK=1 turns the checker on", 0, 1);

	/* In order: every rank above the ones held. */
	hy_mutex_lock(&state);
	hy_mutex_lock(&span);
	hy_mutex_assert_held(&span);
	hy_mutex_lock(&conn);
	hy_mutex_unlock(&conn);
	hy_mutex_unlock(&span);
	hy_mutex_unlock(&state);
	check(held.n == 0, "nothing held after the releases", held.n, 0);

	check(aborts(span_then_state, out, sizeof(out)) == 1,
	      "hy.lock taken under the span lock aborts", 0, 1);
	check(strstr(out, "hy.lock") && strstr(out, "hy_span.lock"),
	      "the message names both locks", 0, 1);
	if (!strstr(out, "hy.lock"))
		printf("stderr was: %s\n", out);
	check(aborts(conn_then_serve_after_trylock, out, sizeof(out)) == 1,
	      "a trylocked lock counts as held", 0, 1);
	check(aborts(span_twice, out, sizeof(out)) == 1,
	      "two locks of one rank abort", 0, 1);
	check(aborts(assert_unheld, out, sizeof(out)) == 1,
	      "asserting a lock not held aborts", 0, 1);

	/* Off: the same order taken against the rules goes unchecked. */
	setenv("MPIRMA_LOCK_CHECK", "0", 1);
	hy_locks_init();
	check(!hy_lock_check, "MPIRMA_LOCK_CHECK=0 turns it off", 1, 0);
	check(aborts(span_then_state, out, sizeof(out)) == 0,
	      "unchecked, the wrong order does not abort", 1, 0);
	return unit_summary();
}
