// SPDX-License-Identifier: GPL-2.0
/*
 * rsh: the remote shell of the two-VM check (tools/vm-2node).
 *
 * Open MPI's mpirun (and MPICH's hydra) start their daemons on other nodes
 * through an rsh-like agent: "AGENT HOST WORD...", which must run the words,
 * joined by blanks, with a shell on HOST and end with its status.  The test
 * VMs have no ssh, so this is the smallest such agent:
 *
 *   rsh [-p PORT] [-w SECS] HOST WORD...   the client (the agent)
 *   rsh -l ADDR -a PEER [-p PORT]          the server, in the other VM
 *
 * The server listens on ADDR only (the VMs' private link) and serves PEER
 * only; every other connection is closed unanswered.  It is for throw-away
 * test VMs whose commands run as root: it has no authentication beyond the
 * peer's address, so it must never run on a machine with a real network.
 *
 * Protocol: the client sends a 4-byte big-endian length and the command.
 * The server runs "sh -c COMMAND" in a session of its own, stdin /dev/null,
 * and sends frames: 1 byte type, 4-byte big-endian length, data; type 'o'
 * is stdout, 'e' stderr, 'x' the exit status (4 bytes: the code, or 128 +
 * signal).  If the client goes away first, the command's session gets
 * SIGTERM, then SIGKILL 5 s later: what sshd's hangup does to a session.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_PORT	7417
#define MAX_COMMAND	(1 << 20)
/* After the command exits, output of processes it left behind is still
 * relayed this long (ssh would wait for them forever). */
#define DRAIN_MS	2000
#define KILL_GRACE_S	5

static const char *prog = "rsh";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-p PORT] [-w SECS] HOST WORD...   run WORD... with sh -c on HOST\n"
		"       %s -l ADDR -a PEER [-p PORT]          serve PEER on ADDR:PORT\n"
		"  -p PORT  TCP port (default %d)\n"
		"  -w SECS  keep trying to connect for SECS seconds (default 0)\n"
		"  -l ADDR  listen on this IPv4 address (never a wildcard)\n"
		"  -a PEER  the one IPv4 address whose commands are run\n",
		prog, prog, DEFAULT_PORT);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* 1: all read, 0: EOF before the first byte, -1: error or short read */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return got ? -1 : 0;
		got += n;
	}
	return 1;
}

static int send_frame(int fd, char type, const void *data, uint32_t len)
{
	char hdr[5];
	uint32_t be = htonl(len);

	hdr[0] = type;
	memcpy(hdr + 1, &be, 4);
	if (write_all(fd, hdr, sizeof(hdr)))
		return -1;
	return len ? write_all(fd, data, len) : 0;
}

static int parse_port(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 65535)
		return -1;
	return (int)v;
}

/* ------------------------------------------------------------- client */

static int connect_to(const char *host, int port, int wait_s)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	char service[16];
	double deadline = now_s() + wait_s;
	int fd, rc, err;

	snprintf(service, sizeof(service), "%d", port);
	for (;;) {
		rc = getaddrinfo(host, service, &hints, &res);
		if (rc == 0) {
			err = 0;
			for (ai = res; ai; ai = ai->ai_next) {
				fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
				if (fd < 0) {
					err = errno;
					continue;
				}
				if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
					freeaddrinfo(res);
					return fd;
				}
				err = errno;
				close(fd);
			}
			freeaddrinfo(res);
		}
		if (now_s() >= deadline) {
			if (rc)
				fprintf(stderr, "%s: %s: %s\n", prog, host, gai_strerror(rc));
			else
				fprintf(stderr, "%s: cannot connect to %s port %d: %s\n",
					prog, host, port, strerror(err));
			return -1;
		}
		usleep(250000);
	}
}

static int client(const char *host, int port, int wait_s, char **words, int nwords)
{
	size_t len = 0;
	char *cmd, *p, hdr[5];
	uint32_t be, flen;
	int fd, i, rc;

	for (i = 0; i < nwords; i++)
		len += strlen(words[i]) + 1;
	if (len > MAX_COMMAND) {
		fprintf(stderr, "%s: command too long (%zu bytes, at most %d)\n",
			prog, len, MAX_COMMAND);
		return 255;
	}
	cmd = malloc(len + 1);
	if (!cmd) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 255;
	}
	p = cmd;
	for (i = 0; i < nwords; i++)
		p += sprintf(p, "%s%s", i ? " " : "", words[i]);
	len = p - cmd;

	fd = connect_to(host, port, wait_s);
	if (fd < 0) {
		free(cmd);
		return 255;
	}
	be = htonl(len);
	if (write_all(fd, &be, 4) || write_all(fd, cmd, len)) {
		fprintf(stderr, "%s: %s: cannot send the command: %s\n", prog, host,
			strerror(errno));
		free(cmd);
		return 255;
	}
	free(cmd);

	for (;;) {
		char buf[65536];

		rc = read_all(fd, hdr, sizeof(hdr));
		if (rc <= 0)
			break;
		memcpy(&be, hdr + 1, 4);
		flen = ntohl(be);
		if (hdr[0] == 'x' && flen == 4) {
			if (read_all(fd, &be, 4) <= 0)
				break;
			close(fd);
			return (int)(ntohl(be) & 0xff);
		}
		if ((hdr[0] != 'o' && hdr[0] != 'e') || flen > sizeof(buf))
			break;
		if (read_all(fd, buf, flen) <= 0)
			break;
		/* A reader gone away (EPIPE) is no reason to stop. */
		(void)write_all(hdr[0] == 'o' ? 1 : 2, buf, flen);
	}
	fprintf(stderr, "%s: connection to %s lost before the command ended\n", prog, host);
	close(fd);
	return 255;
}

/* ------------------------------------------------------------- server */

/* Run one command for the client on fd; never returns. */
static void serve(int fd)
{
	int out[2], err[2], st = 0, open_pipes = 2, code;
	uint32_t be, len;
	double exited_at = 0, term_at = 0;
	char *cmd;
	pid_t pid;

	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if (read_all(fd, &be, 4) <= 0)
		_exit(1);
	len = ntohl(be);
	if (len > MAX_COMMAND)
		_exit(1);
	cmd = malloc(len + 1);
	if (!cmd || read_all(fd, cmd, len) < 0)
		_exit(1);
	cmd[len] = '\0';

	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		perror("rsh: pipe");
		_exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("rsh: fork");
		_exit(1);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setsid();
		signal(SIGPIPE, SIG_DFL);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 ||
		    dup2(err[1], 2) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = out[0], .events = POLLIN },
			{ .fd = err[0], .events = POLLIN },
			{ .fd = fd, .events = POLLIN },
		};
		char buf[16384];
		int i;

		if (!exited_at && waitpid(pid, &st, WNOHANG) == pid)
			exited_at = now_s();
		if (exited_at && (!open_pipes || now_s() - exited_at > DRAIN_MS / 1e3))
			break;
		if (term_at && now_s() - term_at > KILL_GRACE_S)
			kill(-pid, SIGKILL);
		if (poll(pfd, 3, 100) < 0 && errno != EINTR)
			break;
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n > 0) {
				if (send_frame(fd, i ? 'e' : 'o', buf, n) && !term_at) {
					kill(-pid, SIGTERM);
					term_at = now_s();
				}
			} else if (n == 0 || errno != EINTR) {
				close(pfd[i].fd);
				if (i)
					err[0] = -1;
				else
					out[0] = -1;
				open_pipes--;
			}
		}
		/* The client sends nothing after the command: input is hangup. */
		if (!term_at && (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))) {
			kill(-pid, SIGTERM);
			term_at = now_s();
		}
	}
	if (WIFSIGNALED(st))
		code = 128 + WTERMSIG(st);
	else
		code = WEXITSTATUS(st);
	be = htonl(code);
	send_frame(fd, 'x', &be, 4);
	_exit(0);
}

static int server(const char *addr, const char *peer, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct in_addr allowed;
	int lfd, one = 1;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1 || sa.sin_addr.s_addr == INADDR_ANY) {
		fprintf(stderr, "%s: -l wants one IPv4 address, not %s\n", prog, addr);
		return 2;
	}
	if (inet_pton(AF_INET, peer, &allowed) != 1) {
		fprintf(stderr, "%s: -a wants an IPv4 address, not %s\n", prog, peer);
		return 2;
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 16)) {
		fprintf(stderr, "%s: cannot listen on %s port %d: %s\n", prog, addr, port,
			strerror(errno));
		return 1;
	}
	/* Connection handlers are reaped by the kernel. */
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		char who[INET_ADDRSTRLEN];
		int fd = accept4(lfd, (struct sockaddr *)&from, &flen, SOCK_CLOEXEC);
		pid_t pid;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("rsh: accept");
			return 1;
		}
		if (from.sin_family != AF_INET || from.sin_addr.s_addr != allowed.s_addr) {
			inet_ntop(AF_INET, &from.sin_addr, who, sizeof(who));
			fprintf(stderr, "%s: refused a connection from %s\n", prog, who);
			close(fd);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			close(lfd);
			serve(fd);
		}
		if (pid < 0)
			perror("rsh: fork");
		close(fd);
	}
}

int main(int argc, char **argv)
{
	const char *listen_addr = NULL, *peer = NULL;
	int port = DEFAULT_PORT, wait_s = 0, opt;

	/* "+": options end at HOST; the command's words are not ours. */
	while ((opt = getopt(argc, argv, "+p:w:l:a:h")) != -1) {
		switch (opt) {
		case 'p':
			port = parse_port(optarg);
			if (port < 0) {
				fprintf(stderr, "%s: -p wants a port 1..65535, not %s\n", prog,
					optarg);
				return 2;
			}
			break;
		case 'w':
			wait_s = parse_port(optarg);
			if (wait_s < 0) {
				fprintf(stderr, "%s: -w wants seconds 1..65535, not %s\n", prog,
					optarg);
				return 2;
			}
			break;
		case 'l':
			listen_addr = optarg;
			break;
		case 'a':
			peer = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (listen_addr || peer) {
		if (!listen_addr || !peer || optind != argc) {
			usage(stderr);
			return 2;
		}
		return server(listen_addr, peer, port);
	}
	if (argc - optind < 2) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	return client(argv[optind], port, wait_s, argv + optind + 1, argc - optind - 1);
}
