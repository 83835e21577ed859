/*
 * proc.c - the rank processes: the one fork helper both kinds use, and
 * how their end is seen.
 *
 * A rank's end is seen by SIGCHLD, not only by its socket closing: a rank
 * may exec another program (the socket closes, the process runs on and
 * writes), or leave a child holding the socket (the process is gone, the
 * socket stays open).  The handler writes to a pipe that every poll of
 * the session watches (session_pollfds()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session-int.h"

static int chld_pipe[2] = { -1, -1 };

static void
on_sigchld(int sig)
{
	int e = errno;

	(void)sig;
	if (write(chld_pipe[1], "c", 1) < 0) {
		/* full: a wake-up is already pending */
	}
	errno = e;
}

void
proc_watch_children(void)
{
	struct sigaction sa;

	if (chld_pipe[0] >= 0 || pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

int
proc_chld_fd(void)
{
	return chld_pipe[0];
}

int
proc_chld_pending(void)
{
	char c[64];

	return chld_pipe[0] >= 0 && read(chld_pipe[0], c, sizeof c) > 0;
}

/* In a new rank's child: /dev/null on stdin, the output pipe on stdout
 * and stderr, the segment and socket fds kept across exec. */
static void
child_fds(struct session *s, const int sv[2], const int outp[2])
{
	int devnull = open("/dev/null", O_RDONLY);

	if (devnull >= 0) {
		dup2(devnull, 0);
		if (devnull != 0)
			close(devnull);
	}
	dup2(outp[1], 1);
	dup2(outp[1], 2);
	/* the two it needs survive the exec; everything else is CLOEXEC */
	fcntl(s->seg.fd, F_SETFD, 0);
	fcntl(sv[1], F_SETFD, 0);
}

int
rank_spawn(struct session *s, int r, rank_exec_fn exec, void *arg, char **cause)
{
	struct rankproc *rp = &s->rp[r];
	pid_t parent = getpid(), pid;
	int sv[2], outp[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return cause_set(cause, "socketpair: %s", strerror(errno));
	if (pipe2(outp, O_CLOEXEC) != 0) {
		close(sv[0]);
		close(sv[1]);
		return cause_set(cause, "pipe: %s", strerror(errno));
	}
	if ((pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		close(outp[0]);
		close(outp[1]);
		return cause_set(cause, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		child_fds(s, sv, outp);
		exec(s, r, sv[1], parent, arg);
		_exit(127);
	}
	close(sv[1]);
	close(outp[1]);
	rp->pid = pid;
	rp->sock = sv[0];
	rp->out = outp[0];
	rp->alive = 1;
	fcntl(rp->out, F_SETFL, O_NONBLOCK);
	return 0;
}

const char *
signal_name(int sig)
{
	static char buf[32];
	const char *n = sigabbrev_np(sig);

	if (n == NULL)
		snprintf(buf, sizeof buf, "signal %d", sig);
	else
		snprintf(buf, sizeof buf, "SIG%s", n);
	return buf;
}

int
rank_frozen(struct session *s, int r)
{
	char path[64], buf[512], *p;
	int fd, frozen = 0;
	ssize_t n;

	if (!s->rp[r].alive || s->rp[r].pid <= 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)s->rp[r].pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "PID (comm) S ...": the state after the last ')'; t is a tracing
	 * stop (ptrace), T a stop by a signal */
	if ((p = strrchr(buf, ')')) != NULL && p[1] == ' ') {
		if (p[2] == 't')
			frozen = RANK_FROZEN_TRACED;
		else if (p[2] == 'T')
			frozen = RANK_FROZEN_SIGNAL;
	}
	return frozen;
}
