/*
 * rank-agent.c - colldb's own ranks (`colldb -n N`): each is
 * `colldb --agent SEGFD SOCKFD RANK` (core/rank.c), runs the programs the
 * shell sends, one at a time, and reports each one's end.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "call.h"
#include "ctl.h"
#include "out/out.h"
#include "proto.h"
#include "session-int.h"
#include "xmalloc.h"

/* The binary this process runs, held open: /proc/self/exe is this very
 * file even if it was replaced since; under valgrind the path is
 * valgrind's own (its exec fails), while the descriptor it opens is the
 * program's, so fexecve() works both ways. */
static int self_fd = -1;

static void
agent_exec(struct session *s, int r, int sock, pid_t parent, void *arg)
{
	char a_seg[16], a_sock[16], a_rank[16], a0[] = "colldb", a1[] = "--agent";
	char *argv[] = { a0, a1, a_seg, a_sock, a_rank, NULL };

	(void)parent;
	(void)arg;
	snprintf(a_seg, sizeof a_seg, "%d", s->seg.fd);
	snprintf(a_sock, sizeof a_sock, "%d", sock);
	snprintf(a_rank, sizeof a_rank, "%d", r);
	if (self_fd >= 0 && strcmp(s->self_exe, "/proc/self/exe") == 0)
		fexecve(self_fd, argv, environ);
	execv(s->self_exe, argv);
	fprintf(stderr, "exec %s: %s\n", s->self_exe, strerror(errno));
}

/* Rank r said hello (or failed to): 1, 0 not yet, -1 + cause. */
static int
agent_hello(struct session *s, int r, short revents, char **cause)
{
	struct msg_hdr h;
	void *payload;

	if (!(revents & (POLLIN | POLLHUP)))
		return 0;
	if (proto_recv(s->rp[r].sock, &h, &payload) != 1 || h.type != MSG_HELLO) {
		free(payload);
		return cause_set(cause, "rank %d failed to start", r);
	}
	free(payload);
	return 1;
}

/*
 * Start every agent; once each has mapped the segment and said hello,
 * the session is registered (the segment's name went when it was made).
 * The agents start in parallel: the shell only
 * forks (the exec, the dynamic loading and the attach happen in the
 * children, on every CPU), and the hellos of those already up are read
 * while later ones are forked.
 */
static int
agent_open(struct session *s, char **cause)
{
	uint64_t deadline;
	int ready = 0, nranks = s->nranks, n = 0, rc = -1;
	struct pollfd *pfd = xreallocarray(NULL, (size_t)nranks, sizeof *pfd);
	int *map = xreallocarray(NULL, (size_t)nranks, sizeof *map);

	if (self_fd < 0)
		self_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	for (int r = 0; r < nranks; r++) {
		if (rank_spawn(s, r, agent_exec, NULL, cause) != 0)
			goto out;
		pfd[n].fd = s->rp[r].sock;
		pfd[n].events = POLLIN;
		map[n++] = r;
		if (r % 64 == 63 && poll(pfd, (nfds_t)n, 0) > 0) {
			/* take the hellos so far (their buffers stay small) */
			int k = 0;
			for (int i = 0; i < n; i++) {
				int h = agent_hello(s, map[i], pfd[i].revents,
				    cause);
				if (h < 0)
					goto out;
				if (h == 0) {
					pfd[k] = pfd[i];
					map[k++] = map[i];
				}
				ready += h;
			}
			n = k;
		}
	}
	deadline = mono_ns() + (20ull + (uint64_t)nranks / 50) * 1000000000u;
	while (ready < nranks) {
		int k = 0;

		if (n == 0 || mono_ns() > deadline) {
			cause_set(cause, "ranks did not start");
			goto out;
		}
		if (poll(pfd, (nfds_t)n, 100) < 0 && errno != EINTR) {
			cause_set(cause, "poll: %s", strerror(errno));
			goto out;
		}
		for (int i = 0; i < n; i++) {
			int h = agent_hello(s, map[i], pfd[i].revents, cause);
			if (h < 0)
				goto out;
			if (h == 0) {
				pfd[k] = pfd[i];
				map[k++] = map[i];
			}
			ready += h;
		}
		n = k;
	}
	seg_unlink(&s->seg);
	session_register(s);
	rc = 0;
out:
	free(pfd);
	free(map);
	return rc;
}

/* An agent in a load or call: the call, or inside it the callee's own
 * cdb_* op.  0 when r is not in one. */
static int
in_call(struct session *s, int r, struct strbuf *sb, int verbose)
{
	struct job *j = rank_job(s, r);
	struct view_board b;

	view_board(&s->view, r, &b);
	if (j == NULL || !(j->flags & JOB_CALL) ||
	    (b.state != RS_RUNNING && b.state != RS_STOPPED &&
		b.state != RS_BLOCKED))
		return 0;
	{
		struct uop u0;
		strbuf_addf(sb, "%s%s",
		    prog_op(j->prog, 0, &u0) == 0 && u0.kind == UOP_CALL ?
			"call " :
			"",
		    j->desc);
	}
	if (b.prog_tag != j->tag) {
		strbuf_addstr(sb, " > ");
		describe_position(s, r, NULL, sb, verbose);
	}
	return 1;
}

static void
agent_describe(struct session *s, int r, struct strbuf *sb, int verbose)
{
	struct job *j = rank_job(s, r);
	struct view_board b;
	struct uop cur;
	char title[SEG_TITLE_MAX];

	if (in_call(s, r, sb, verbose))
		return;
	view_board(&s->view, r, &b);
	if (j == NULL || b.state == RS_IDLE || b.state == RS_DEAD ||
	    b.state == RS_EXITED) {
		if (j != NULL && b.state == RS_IDLE) {
			strbuf_addstr(sb, j->desc);
			describe_unstarted(s, r, j, sb);
		}
		return;
	}
	view_cur(&s->view, r, &cur, title, sizeof title);
	if (j->prog != NULL && b.pc < prog_len(j->prog))
		prog_op(j->prog, b.pc, &cur);
	if (b.nops > 1 || (j->flags & JOB_COLL)) {
		struct strbuf ph = STRBUF_INIT;

		if (j->prog != NULL)
			prog_phase(j->prog, b.pc, &ph);
		strbuf_addf(sb, "%s step %u/%u%s%s: ", title, b.pc + 1, b.nops,
		    ph.len ? " " : "", ph.buf);
		strbuf_release(&ph);
	}
	if (b.nops == 0) {
		strbuf_setlen(sb, sb->len >= 2 ? sb->len - 2 : 0);
		return;
	}
	describe_uop(&s->view, &cur, r, sb);
	/* the cell now: why it blocks, or whether it will */
	describe_stop(&s->view, r, &b, &cur, sb, verbose);
}

static int
agent_settled(struct session *s, int r)
{
	if (!rank_alive(s, r) || s->rp[r].jobs == NULL)
		return 1;
	if (rank_state_of(s, r) == RS_BLOCKED &&
	    atomic_load(&s->seg.h->wait_giveup) != 0)
		return 0; /* it will give up by itself (set wait-giveup) */
	return rank_board_settled(s, r);
}

static void
agent_gone(struct session *s, int r, int st)
{
	struct rankproc *rp = &s->rp[r];
	struct seg_rank *b = seg_board(&s->seg, r);
	struct strbuf sb = STRBUF_INIT;

	describe_last_words(s, r, &sb);
	if (WIFSIGNALED(st)) {
		seg_set_state(b, RS_DEAD);
		rp->death =
		    xasprintf("killed by %s %s%s", signal_name(WTERMSIG(st)),
			rp->jobs != NULL ? "during " : "", sb.buf);
		out_event(r, "[rank %d] died: %s", r, rp->death);
	} else {
		seg_set_state(b, RS_EXITED);
		rp->death = xasprintf("exited with status %d %s%s",
		    WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		    rp->jobs != NULL ? "during " : "", sb.buf);
		out_event(r, "[rank %d] %s", r, rp->death);
	}
	strbuf_release(&sb);
}

/* Send p; a rank that is busy queues it behind what it does, and says so. */
static int
agent_submit(struct session *s, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, struct job **jp, char **cause)
{
	if (rank_job(s, r) != NULL) {
		struct strbuf sb = STRBUF_INIT;
		enum rank_state st = rank_state_of(s, r);
		describe_rank(s, r, &sb, 0);
		out_event(r, "[rank %d] %s is queued: rank %d is %s%s%s", r,
		    desc, r, rank_state_name(st), sb.len ? " in " : "", sb.buf);
		strbuf_release(&sb);
		flags |= JOB_ANNOUNCE;
	}
	pflags |= s->start_pflags;
	if (pflags & PROG_F_START)
		ctl_set_gate(&s->seg, 1); /* before it is sent */
	*jp = session_submit(s, r, p, desc, flags, pflags, cause);
	return *jp != NULL ? 0 : -1;
}

/* A blocked wait returns, a running program stops at its next gate, a
 * stopped rank's program is abandoned.  Nothing to do for an idle rank. */
static int
agent_interrupt(struct session *s, int r)
{
	struct job *j = rank_job(s, r);
	enum rank_state st;
	struct uop cur;
	char title[SEG_TITLE_MAX];

	if (j == NULL)
		return 0;
	st = rank_state_of(s, r);
	if (st == RS_STOPPED)
		ctl_abandon(&s->seg, r);
	else
		ctl_interrupt(&s->seg, r);
	if (rank_frozen(s, r) == RANK_FROZEN_SIGNAL) {
		out_printf("rank %d is stopped by a signal: the interrupt acts "
			   "once SIGCONT resumes it\n",
		    r);
		return 1;
	}
	if (rank_frozen(s, r) == RANK_FROZEN_TRACED) {
		out_printf("rank %d is held by a debugger: the interrupt acts "
			   "once it lets the rank go\n",
		    r);
		return 1;
	}
	/* A function that never returns reaches no gate: end it. */
	view_cur(&s->view, r, &cur, title, sizeof title);
	if (st == RS_RUNNING && cur.kind == UOP_CALL) {
		out_printf("rank %d: ending call %s with %s (the function does "
			   "not return)\n",
		    r, j->desc, signal_name(CALL_END_SIGNAL));
		/* the kind's way: an mpi rank is no process of ours (its pid
		 * is 0 here, and kill(0) signalled the shell's own group) */
		s->kind->kill(s, r, CALL_END_SIGNAL);
	}
	return 1;
}

static void
agent_kill(struct session *s, int r, int sig)
{
	kill(s->rp[r].pid, sig);
}

const struct rank_kind rank_kind_agent = {
	.name = "agent",
	.own_code = 0,
	.open = agent_open,
	.message = NULL, /* HELLO and DONE only */
	.describe = agent_describe,
	.settled = agent_settled,
	.gone = agent_gone,
	.submit = agent_submit,
	.interrupt = agent_interrupt,
	.kill = agent_kill,
	.not_stopped_hint = " (use 'start COMMAND' to run one stopped)",
};
