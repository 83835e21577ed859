/*
 * rank-user.c - ranks that are a user program's processes (`colldb run`,
 * docs/libcolldb.md).
 *
 * Each rank is PROGRAM started with fork + execvp, with COLLDB_SEG_FD,
 * COLLDB_SOCK_FD, COLLDB_RANK and COLLDB_NRANKS in its environment
 * (core/api.c reads them), in its own process group (the terminal's ^C is
 * the shell's) and killed if the shell dies.  Before they start, every
 * board slot is put in step mode, so each rank stops inside cdb_init()
 * until `continue` or `step`; --batch leaves them free running.
 *
 * A user rank announces every call as a job (MSG_PROG or MSG_COLL, then
 * DONE: core/proto.h), so where/ranks/diagnose see its program.  Between
 * calls it is `running` in its own code.  What the prompt aims at it
 * (notify, put, get, fill, set) the shell carries out one-sided on the
 * segment, at once, whatever the rank is doing (user_submit()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "oneside.h"
#include "out/out.h"
#include "outbox.h"
#include "proto.h"
#include "session-int.h"
#include "xmalloc.h"

/* The outbox of the rank being started (rank_spawn's child inherits
 * it), or -1. */
static int spawn_outbox = -1;

static void
user_exec(struct session *s, int r, int sock, pid_t parent, void *arg)
{
	struct user_ranks *u = arg;
	char num[16];
	sigset_t none;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	snprintf(num, sizeof num, "%d", s->seg.fd);
	setenv("COLLDB_SEG_FD", num, 1);
	snprintf(num, sizeof num, "%d", sock);
	setenv("COLLDB_SOCK_FD", num, 1);
	snprintf(num, sizeof num, "%d", r);
	setenv("COLLDB_RANK", num, 1);
	snprintf(num, sizeof num, "%d", s->nranks);
	setenv("COLLDB_NRANKS", num, 1);
	if (spawn_outbox >= 0 && fcntl(spawn_outbox, F_SETFD, 0) == 0) {
		snprintf(num, sizeof num, "%d", spawn_outbox);
		setenv("COLLDB_OUTBOX_FD", num, 1);
	}
	signal(SIGPIPE, SIG_DFL); /* the shell ignores it */
	signal(SIGINT, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(u->argv[0], u->argv);
	fprintf(stderr, "colldb run: cannot execute %s: %s\n", u->argv[0],
	    strerror(errno));
}

/* Rank r's outbox (core/outbox.h): a memfd the shell maps and the rank
 * inherits; its descriptor, or -1 + cause. */
static int
outbox_make(struct session *s, int r, char **cause)
{
	size_t len = outbox_bytes(s->nranks);
	int fd = memfd_create("colldb-outbox", MFD_CLOEXEC);
	void *mem;

	if (fd < 0)
		return cause_set(cause, "memfd_create: %s", strerror(errno));
	if (ftruncate(fd, (off_t)len) != 0 ||
	    (mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
		MAP_FAILED) {
		cause_set(cause, "the outbox of rank %d: %s", r, strerror(errno));
		close(fd);
		return -1;
	}
	s->rp[r].outbox = mem;
	s->rp[r].outbox_len = len;
	return fd;
}

static int
user_open(struct session *s, char **cause)
{
	struct user_ranks *u = s->kind_arg;

	/* the ranks inherit the descriptor: no name needed */
	seg_unlink(&s->seg);
	session_register(s);
	for (int r = 0; r < s->nranks && !u->batch; r++)
		ctl_step_mode(&s->seg, r);
	for (int r = 0; r < s->nranks; r++) {
		int rc;

		if ((spawn_outbox = outbox_make(s, r, cause)) < 0)
			return -1;
		rc = rank_spawn(s, r, user_exec, u, cause);
		close(spawn_outbox);
		spawn_outbox = -1;
		if (rc != 0)
			return -1;
	}
	return 0;
}

/*
 * The programs rank r announced last, by the bytes that announced them: a
 * program's loop announces the same few calls over and over (the same
 * site, the same program; the tag and the cell's value travel in the
 * header), and decoding or building each anew was a quarter of the
 * shell's work per call.  A hit shares the program (prog_ref()).
 */
#define MEMO_SLOTS 8

struct user_memo {
	struct memo_slot {
		uint32_t type;
		size_t len;
		void *bytes;
		struct prog *p;
	} slot[MEMO_SLOTS];
	unsigned next;
};

static struct prog *
memo_find(struct session *s, int r, const struct msg_hdr *h, const void *payload)
{
	struct user_memo *m = s->rp[r].user_memo;

	for (int i = 0; m != NULL && i < MEMO_SLOTS; i++) {
		struct memo_slot *e = &m->slot[i];
		if (e->p != NULL && e->type == h->type && e->len == h->len &&
		    memcmp(e->bytes, payload, h->len) == 0)
			return prog_ref(e->p);
	}
	return NULL;
}

static void
memo_keep(struct session *s, int r, const struct msg_hdr *h,
    const void *payload, struct prog *p)
{
	struct user_memo *m = s->rp[r].user_memo;
	struct memo_slot *e;

	if (m == NULL)
		m = s->rp[r].user_memo = xcalloc(1, sizeof *m);
	e = &m->slot[m->next++ % MEMO_SLOTS];
	free(e->bytes);
	prog_free(e->p);
	e->type = h->type;
	e->len = h->len;
	e->bytes = xmalloc(h->len > 0 ? h->len : 1);
	memcpy(e->bytes, payload, h->len);
	e->p = prog_ref(p);
}

void
user_memo_release(struct rankproc *rp)
{
	struct user_memo *m = rp->user_memo;

	for (int i = 0; m != NULL && i < MEMO_SLOTS; i++) {
		free(m->slot[i].bytes);
		prog_free(m->slot[i].p);
	}
	free(m);
	rp->user_memo = NULL;
}

/* A call announced: track it as a job, so where and diagnose see it. */
static void
user_message(struct session *s, int r, const struct msg_hdr *h,
    const void *payload)
{
	const struct coll_msg *cm = NULL;
	struct prog *p = NULL;
	char *cause = NULL, *desc;
	unsigned flags = 0;
	struct site site;
	struct job *j;

	memset(&site, 0, sizeof site);
	if (h->type == MSG_PROG && h->len >= sizeof site) {
		memcpy(&site, payload, sizeof site);
		if ((p = memo_find(s, r, h, payload)) == NULL) {
			if ((p = prog_decode((const char *)payload + sizeof site,
				 h->len - sizeof site, &cause)) == NULL) {
				out_event(r, "[rank %d] sent a bad program: %s",
				    r, cause);
				free(cause);
				return;
			}
			memo_keep(s, r, h, payload, p);
		}
		desc = xstrdup(p->title);
	} else if (h->type == MSG_COLL && h->len > sizeof(struct coll_msg)) {
		const char *title = (const char *)payload + sizeof *cm;

		cm = payload;
		if ((p = memo_find(s, r, h, payload)) == NULL) {
			p = coll_build(&cm->args, s->nranks, r);
			memo_keep(s, r, h, payload, p);
		}
		desc = xstrndup(title, h->len - sizeof *cm);
		flags = JOB_COLL;
		site = cm->site;
	} else {
		return; /* HELLO: the board already says it attached */
	}
	site.file[sizeof site.file - 1] = '\0';
	j = session_track(s, r, h->tag, p, desc, flags,
	    cm != NULL ? &cm->args : NULL);
	j->site = site;
	if (h->type == MSG_PROG && (h->flags & PROG_F_SEEN)) {
		j->flags |= JOB_SEEN;
		j->seen = (int32_t)h->reserved;
	}
	for (int i = 0; i < s->nhooks; i++) {
		if (s->hooks[i]->job_begin != NULL)
			s->hooks[i]->job_begin(s, r, j,
			    cm != NULL ? &cm->args : NULL);
	}
}

static int
user_settled(struct session *s, int r)
{
	if (!rank_alive(s, r))
		return 1;
	return rank_board_settled(s, r);
}

/* Where user rank r is, from its board and its announced call. */
void
where_user(struct session *s, int r, struct strbuf *sb, int verbose)
{
	struct job *j = rank_job(s, r);
	struct view_board b;
	char title[SEG_TITLE_MAX];
	struct uop cur;

	view_board(&s->view, r, &b);
	if (b.state == RS_STARTING) {
		strbuf_addstr(sb, "before cdb_init");
		return;
	}
	if (b.state == RS_EXITED) {
		strbuf_addstr(sb, "after cdb_finalize");
		return;
	}
	view_cur(&s->view, r, &cur, title, sizeof title);
	if (b.nops == 0 && b.state == RS_STOPPED) {
		strbuf_addf(sb, "in %s", title);
		if (verbose && b.stop_reason == STOP_INTERRUPT)
			strbuf_addstr(sb, "  [interrupted]");
		return;
	}
	if (b.pc >= b.nops && b.state == RS_RUNNING) {
		strbuf_addf(sb, "in its own code after %s", title);
		return;
	}
	/* in a call the shell has not read yet: it is in the outbox (the
	 * rank wrote it before it ran the call) */
	if ((j == NULL || j->tag != b.prog_tag) && session_drain_outbox(s, r))
		j = rank_job(s, r);
	describe_position(s, r,
	    j != NULL && j->tag == b.prog_tag ? j->prog : NULL, sb, verbose);
}

static void
user_describe(struct session *s, int r, struct strbuf *sb, int verbose)
{
	if (rank_alive(s, r))
		where_user(s, r, sb, verbose);
}

static void
user_gone(struct session *s, int r, int st)
{
	struct rankproc *rp = &s->rp[r];
	struct user_ranks *u = s->kind_arg;

	if (rp->pid > 0)
		kill(-rp->pid, SIGKILL); /* what it forked goes too */
	user_end(s, r, st, u->batch);
}

void
user_end(struct session *s, int r, int st, int batch)
{
	struct rankproc *rp = &s->rp[r];
	struct seg_rank *b = seg_board(&s->seg, r);
	enum rank_state was = rank_state_of(s, r);
	struct strbuf ctx = STRBUF_INIT;
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;

	rp->ended_early = was != RS_EXITED;
	if (was == RS_STARTING) {
		strbuf_addstr(&ctx, " before cdb_init");
	} else if (was != RS_EXITED) {
		if (!WIFSIGNALED(st))
			strbuf_addstr(&ctx, " without cdb_finalize,");
		strbuf_addstr(&ctx, rp->jobs != NULL ? " during " : " ");
		where_user(s, r, &ctx, 0);
	}
	if (WIFSIGNALED(st)) {
		seg_set_state(b, RS_DEAD);
		rp->death = xasprintf("killed by %s%s",
		    signal_name(WTERMSIG(st)), ctx.buf);
		out_event(r, "[rank %d] died: %s", r, rp->death);
	} else {
		seg_set_state(b, RS_EXITED);
		rp->death = xasprintf("exited with status %d%s", code, ctx.buf);
		/* like mpirun, --batch is quiet about ranks that ended well */
		if (!batch || code != 0 || was != RS_EXITED)
			out_event(r, "[rank %d] %s", r, rp->death);
	}
	strbuf_release(&ctx);
}

/* Carry out p for rank r in the shell, one-sided on the segment. */
static int
user_submit(struct session *s, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, struct job **jp, char **cause)
{
	char *why = NULL;
	int rc;

	(void)flags;
	(void)pflags;
	*jp = NULL;
	if ((rc = oneside_run(&s->seg, r, p, &why)) != 0)
		cause_set(cause, "%s for rank %d: %s", desc, r, why);
	free(why);
	prog_free(p);
	free(desc);
	return rc;
}

/* A user rank is always somewhere in its program: interrupt stops it. */
static int
user_interrupt(struct session *s, int r)
{
	ctl_interrupt(&s->seg, r);
	return 1;
}

/* What the program forked dies with it. */
static void
user_kill(struct session *s, int r, int sig)
{
	kill(s->rp[r].pid, sig);
	kill(-s->rp[r].pid, sig);
}

const struct rank_kind rank_kind_user = {
	.name = "user",
	.own_code = 1,
	.open = user_open,
	.message = user_message,
	.describe = user_describe,
	.settled = user_settled,
	.gone = user_gone,
	.submit = user_submit,
	.interrupt = user_interrupt,
	.kill = user_kill,
	.not_stopped_hint = " (they run their program; 'break' stops them)",
};
