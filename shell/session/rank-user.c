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
 * What the shell keeps of user rank r's announcements (rank-user.c's
 * rp->user_memo).
 *
 * Its programs, by the bytes that announced them: a program's loop
 * announces the same few calls over and over, and decoding or building
 * each anew was a quarter of the shell's work per call.  A collective's
 * bytes are its whole announcement; a call of one op is kept by its
 * shape, the announcement with the op's operands zeroed (op_mask()): its
 * site, title, kind and names, which name its spans, while the operands
 * (a wait's expected value, most often) change from call to call.
 *
 * And the announcement read last, held: when the next record of the same
 * read is its end (DONE_OK), the call was over before the shell knew of
 * it, and it goes to the hooks as a struct user_call, with no job, no
 * program of its own and no description (user_call_end()); otherwise it
 * becomes a job as the read ends or the next record comes (user_flush()).
 */
#define MEMO_SLOTS 8

struct user_memo {
	struct memo_slot {
		uint32_t type;
		size_t len;
		char *bytes; /* len bytes and a NUL */
		struct prog *p;
	} slot[MEMO_SLOTS];
	unsigned next;
	struct strbuf shape; /* the announcement read last, masked */
	int held;	     /* h, hslot and op are an announcement's */
	int one;	     /* ... of a call of one op */
	struct msg_hdr h;
	int hslot;
	struct uop op; /* one: its op, operands and all */
};

/* The operands of a call of one op: what its shape leaves out. */
static void
op_mask(struct uop *u)
{
	u->peer = 0;
	u->value = 0;
	u->dst = 0;
	u->src = 0;
	u->count = 0;
	u->fval = 0;
}

static struct user_memo *
memo_of(struct session *s, int r)
{
	if (s->rp[r].user_memo == NULL) {
		s->rp[r].user_memo = xcalloc(1, sizeof *s->rp[r].user_memo);
		strbuf_init(&s->rp[r].user_memo->shape, 0);
	}
	return s->rp[r].user_memo;
}

static int
memo_find(const struct user_memo *m, uint32_t type, const char *bytes, size_t len)
{
	for (int i = 0; i < MEMO_SLOTS; i++) {
		const struct memo_slot *e = &m->slot[i];
		if (e->p != NULL && e->type == type && e->len == len &&
		    memcmp(e->bytes, bytes, len) == 0)
			return i;
	}
	return -1;
}

/* Keep p (taken) for bytes; its slot. */
static int
memo_keep(struct user_memo *m, uint32_t type, const char *bytes, size_t len,
    struct prog *p)
{
	int i = (int)(m->next++ % MEMO_SLOTS);
	struct memo_slot *e = &m->slot[i];

	free(e->bytes);
	prog_free(e->p);
	e->type = type;
	e->len = len;
	e->bytes = xmalloc(len + 1);
	memcpy(e->bytes, bytes, len);
	e->bytes[len] = '\0';
	e->p = p;
	return i;
}

void
user_memo_release(struct rankproc *rp)
{
	struct user_memo *m = rp->user_memo;

	for (int i = 0; m != NULL && i < MEMO_SLOTS; i++) {
		free(m->slot[i].bytes);
		prog_free(m->slot[i].p);
	}
	if (m != NULL)
		strbuf_release(&m->shape);
	free(m);
	rp->user_memo = NULL;
}

/* The held announcement as a job, so where and diagnose see it. */
static void
held_track(struct session *s, int r, struct user_memo *m)
{
	const struct memo_slot *e = &m->slot[m->hslot];
	const struct coll_msg *cm = NULL;
	struct prog *p;
	char *desc;
	unsigned flags = 0;
	struct job *j;

	m->held = 0;
	if (m->h.type == MSG_COLL) {
		cm = (const void *)e->bytes;
		p = prog_ref(e->p);
		desc = xstrdup(e->bytes + sizeof *cm);
		flags = JOB_COLL;
	} else if (m->one) {
		/* its own program: its op's operands are its own */
		p = prog_decode(e->bytes + sizeof(struct site),
		    e->len - sizeof(struct site), NULL);
		if (p == NULL)
			BUG("a kept announcement no longer decodes");
		p->mops[0] = m->op;
		desc = xstrdup(p->title);
	} else {
		p = prog_ref(e->p);
		desc = xstrdup(p->title);
	}
	j = session_track(s, r, m->h.tag, p, desc, flags,
	    cm != NULL ? &cm->args : NULL);
	memcpy(&j->site, cm != NULL ? &cm->site : (const void *)e->bytes,
	    sizeof j->site);
	if (m->h.type == MSG_PROG && (m->h.flags & PROG_F_SEEN)) {
		j->flags |= JOB_SEEN;
		j->seen = (int32_t)m->h.reserved;
	}
	for (int i = 0; i < s->nhooks; i++) {
		if (s->hooks[i]->job_begin != NULL)
			s->hooks[i]->job_begin(s, r, j,
			    cm != NULL ? &cm->args : NULL);
	}
}

void
user_flush(struct session *s, int r)
{
	struct user_memo *m = s->rp[r].user_memo;

	if (m != NULL && m->held)
		held_track(s, r, m);
}

int
user_call_end(struct session *s, int r, uint32_t tag, const struct job_end *e)
{
	struct user_memo *m = s->rp[r].user_memo;
	const struct memo_slot *k;
	struct user_call c;

	if (m == NULL || !m->held)
		return 0;
	if (m->h.tag != tag || e->status != DONE_OK) {
		held_track(s, r, m); /* as a job, ended as one */
		return 0;
	}
	m->held = 0;
	k = &m->slot[m->hslot];
	memset(&c, 0, sizeof c);
	c.tag = tag;
	c.prog = k->p;
	if (m->h.type == MSG_COLL) {
		const struct coll_msg *cm = (const void *)k->bytes;

		c.title = k->bytes + sizeof *cm;
		c.site = &cm->site;
		c.coll = &cm->args;
	} else {
		c.title = k->p->title;
		c.site = (const void *)k->bytes;
		c.op = &m->op;
		c.seen_set = (m->h.flags & PROG_F_SEEN) != 0;
		c.seen = (int32_t)m->h.reserved;
	}
	session_call_done(s, r, &c, e);
	return 1;
}

/* A call announced: held until its end or the end of the read. */
static void
user_message(struct session *s, int r, const struct msg_hdr *h,
    const void *payload)
{
	struct user_memo *m;
	struct site *site;
	size_t at = 0;
	int k, one = 0;

	user_flush(s, r);
	if (h->type == MSG_PROG && h->len >= sizeof(struct site)) {
		one = prog_wire_op((const char *)payload + sizeof *site,
			  h->len - sizeof *site, &at) == 0;
		at += sizeof *site;
	} else if (!(h->type == MSG_COLL && h->len > sizeof(struct coll_msg))) {
		return; /* HELLO: the board already says it attached */
	}
	m = memo_of(s, r);
	strbuf_reset(&m->shape);
	strbuf_add(&m->shape, payload, h->len);
	/* the site as the shell reads it: its file's name ends in it */
	site = h->type == MSG_COLL ?
	    &((struct coll_msg *)(void *)m->shape.buf)->site :
	    (struct site *)(void *)m->shape.buf;
	site->file[sizeof site->file - 1] = '\0';
	if (one) {
		struct uop shape;

		memcpy(&m->op, m->shape.buf + at, sizeof m->op);
		shape = m->op;
		op_mask(&shape);
		memcpy(m->shape.buf + at, &shape, sizeof shape);
	}
	if ((k = memo_find(m, h->type, m->shape.buf, m->shape.len)) < 0) {
		struct prog *p;
		char *cause = NULL;

		if (h->type == MSG_COLL) {
			p = coll_build(&((const struct coll_msg *)(const void *)
					       m->shape.buf)
					    ->args,
			    s->nranks, r);
		} else if ((p = prog_decode(m->shape.buf + sizeof *site,
				h->len - sizeof *site, &cause)) == NULL) {
			out_event(r, "[rank %d] sent a bad program: %s", r,
			    cause);
			free(cause);
			return;
		}
		k = memo_keep(m, h->type, m->shape.buf, m->shape.len, p);
	}
	m->h = *h;
	m->hslot = k;
	m->one = one;
	m->held = 1;
	if (h->type == MSG_PROG && !one)
		held_track(s, r, m); /* not a call of this library's */
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
