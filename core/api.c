/*
 * api.c - libcolldb: the world (init, finalize, standalone ranks),
 * windows, errors, locations and spans, and the runner every operation
 * goes through.  See colldb.h for the contract, api-int.h for the shape.
 */
#define CDB_NO_LOCATION
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api-int.h"
#include "call.h"
#include "colldb.h"
#include "outbox.h"
#include "proto.h"
#include "remote-rank.h"
#include "xmalloc.h"

_Static_assert(CDB_F64 == (int)DT_F64 && CDB_I32 == (int)DT_I32,
    "enum cdb_dtype follows enum dtype");
_Static_assert(CDB_PROD == (int)RED_PROD, "enum cdb_reduce follows reduce_op");
_Static_assert(CDB_SET == (int)NOTIFY_SET && CDB_GE == (int)CMP_GE,
    "notify ops and comparisons follow prog.h");
_Static_assert(CDB_NAME_MAX == SEG_NAME_MAX - 1 && CDB_MAX_DIMS == COLLDB_MAX_DIMS,
    "limits follow seg.h");

enum api_mode {
	API_NONE,  /* cdb_init not called */
	API_ALONE, /* standalone world */
	API_RUN,   /* a rank of a `colldb run` session */
	API_DONE,  /* finalized */
};

static struct {
	enum api_mode mode;
	struct rank_ctx rc;
	struct rank_ctx *nest; /* the agent rank running a CALL */
	uint32_t next_tag;     /* this rank's calls, for program tags */
	uint64_t nops;	       /* operations issued, for "prog op N" */
	const char *at_file;   /* cdb_at(), for the next operation */
	int at_line;
	const char *fn;	  /* the public function running */
	char loc[48];	  /* its location: "ring.c:42", "ring op 3" */
	struct site site; /* the same as a call site (breakpoints) */
	char spans[CDB_SPAN_DEPTH][CDB_NAME_MAX + 1];
	int nspans;
	char errmsg[256];
	pid_t *children; /* standalone rank 0: ranks 1.. */
	int nchildren;
	struct remote *remote; /* a rank of an mpi session (remote.h) */
	struct outbox_w ob;    /* announcements and DONEs go here (outbox.h) */
	int ob_on;	       /* ... when the shell gave this rank one */
	struct strbuf msg;     /* ... built here: its room is kept (a malloc,
				* reallocs and a free a call were half of
				* what announcing cost the rank) */
} api;

static const char *const errors[] = {
	[0] = "success",
	[1] = "not initialised",
	[2] = "invalid argument",
	[3] = "not a window region",
	[4] = "shape or dtype mismatch",
	[5] = "no space for the window",
	[6] = "abandoned by the debugger",
	[7] = "another rank failed",
	[8] = "system error",
};

const char *
cdb_strerror(int err)
{
	if (err > 0 || -err >= (int)ARRAY_SIZE(errors))
		return "unknown error";
	return errors[-err];
}

const char *
cdb_errmsg(void)
{
	return api.errmsg;
}

void
cdb_at(const char *file, int line)
{
	api.at_file = file;
	api.at_line = line;
}

static struct rank_ctx *
ctx(void)
{
	if (api.nest != NULL)
		return api.nest;
	return api.mode == API_ALONE || api.mode == API_RUN ? &api.rc : NULL;
}

/* Someone shows what this rank prints: the shell, as an event. */
static int
shell_listens(void)
{
	return api.nest != NULL || api.mode == API_RUN;
}

int
api_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(api.errmsg, sizeof api.errmsg, fmt, ap);
	va_end(ap);
	if (shell_listens())
		fprintf(stderr, "colldb: %s: %s: %s\n", api.loc, api.fn,
		    api.errmsg);
	return err;
}

static int no_world(const char *fn);

/*
 * The call sites seen last: a program's loop calls from a few lines over
 * and over, and wording a site (its file's last component, "ring.c:42")
 * was a fifth of a notify's instructions.  Keyed by the __FILE__ pointer
 * the macro passed (the same literal each time), the line and the
 * function name's pointer.
 */
#define SITE_CACHE 8

static struct site_memo {
	const char *file, *fn;
	int line;
	struct site site;
	char loc[sizeof api.loc];
} site_memo[SITE_CACHE];
static unsigned site_next;

static void
site_word(const char *fn)
{
	struct site_memo *m;
	enum api_fn f = FN_NONE;
	const char *base;

	for (int i = 0; i < SITE_CACHE; i++) {
		m = &site_memo[i];
		if (m->file == api.at_file && m->line == api.at_line &&
		    m->fn == fn) {
			api.site = m->site;
			memcpy(api.loc, m->loc, sizeof api.loc);
			return;
		}
	}
	(void)api_fn_from_name(fn, &f);
	site_set(&api.site, api.at_file, api.at_line, f);
	base = strrchr(api.at_file, '/');
	snprintf(api.loc, sizeof api.loc, "%s:%d",
	    base != NULL ? base + 1 : api.at_file, api.at_line);
	m = &site_memo[site_next++ % SITE_CACHE];
	m->file = api.at_file;
	m->fn = fn;
	m->line = api.at_line;
	m->site = api.site;
	memcpy(m->loc, api.loc, sizeof api.loc);
}

struct rank_ctx *
api_begin(const char *fn)
{
	struct rank_ctx *rc = ctx();

	api.fn = fn;
	api.errmsg[0] = '\0';
	api.nops++;
	if (api.at_file != NULL) {
		site_word(fn);
	} else {
		enum api_fn f = FN_NONE;

		(void)api_fn_from_name(fn, &f);
		site_set(&api.site, NULL, 0, f);
		snprintf(api.loc, sizeof api.loc, "%.24s op %llu",
		    program_invocation_short_name, (unsigned long long)api.nops);
	}
	api.at_file = NULL;
	if (rank_forked) {
		/* a fork() of the rank: the windows, board and socket are the
		 * parent's (core/rank.h) */
		api_fail(CDB_ERR_INIT,
		    "this process is a fork() of a rank: "
		    "libcolldb belongs to the rank itself");
		return NULL;
	}
	if (rc == NULL)
		no_world(fn);
	return rc;
}

void
api_leave(const char **was)
{
	rank_lib_leave(*was);
}

/* ---- running programs ----------------------------------------------------- */

/* To the shell: through the outbox when there is one (core/outbox.h).
 * A failed send means the shell is gone; the rank dies with it. */
static void
send_hdr(struct rank_ctx *rc, const struct msg_hdr *h, const void *payload)
{
	if (api.ob_on && h->type != MSG_HELLO)
		(void)outbox_put(&api.ob, h, payload);
	else
		(void)proto_send(rc->sock, h, payload);
}

static void
send_msg(struct rank_ctx *rc, uint32_t type, uint32_t tag, int32_t status,
    const struct strbuf *payload)
{
	struct msg_hdr h = { .type = type, .tag = tag, .status = status };

	h.len = payload != NULL ? (uint32_t)payload->len : 0;
	send_hdr(rc, &h, payload != NULL ? payload->buf : NULL);
}

/*
 * The rank is about to show itself stopped, or blocked (transport.h).  A
 * stop is the shell's to report at once ("stopped before ring.c:75 ...",
 * with the call): ring.  A wait that blocks is read by the shell at its
 * next pump (it reads the outbox whether rung or not; settling pumps
 * every millisecond), so it rings only as the policy says: in a
 * ping-pong whose ranks share CPUs with the shell most waits block
 * briefly, and a bell each woke the shell onto a CPU a rank needed.
 */
static void
before_block(struct transport *t, int stop)
{
	(void)t;
	if (!api.ob_on)
		return;
	if (stop)
		outbox_kick(&api.ob);
	else
		outbox_maybe_kick(&api.ob);
}

/* api.msg, emptied. */
static struct strbuf *
msg_buf(void)
{
	if (api.msg.buf == NULL)
		strbuf_init(&api.msg, 1024);
	strbuf_reset(&api.msg);
	return &api.msg;
}

static void
announce(struct rank_ctx *rc, uint32_t tag, const struct prog *p,
    const struct coll_args *coll)
{
	struct strbuf *sb = msg_buf();

	if (coll != NULL) {
		struct coll_msg *cm;

		/* built in place: it is a few KB */
		strbuf_grow(sb, sizeof *cm);
		cm = (struct coll_msg *)(void *)sb->buf;
		memset(cm, 0, sizeof *cm);
		cm->args = *coll;
		coll_args_unname(&cm->args);
		cm->site = api.site;
		strbuf_setlen(sb, sizeof *cm);
		strbuf_addstr(sb, p->title);
		strbuf_addch(sb, '\0');
		send_msg(rc, MSG_COLL, tag, 0, sb);
	} else {
		struct msg_hdr h = { .type = MSG_PROG, .tag = tag };
		const uint8_t *area = rc->t.ops->area(&rc->t, rc->rank);

		strbuf_add(sb, &api.site, sizeof api.site);
		prog_encode(p, sb);
		if (p->gen == NULL && p->nmops == 1 &&
		    p->mops[0].kind == UOP_WAIT && area != NULL &&
		    p->mops[0].dst + 4 <= rc->t.area_size) {
			/* what the cell holds now, before the wait runs */
			h.flags = PROG_F_SEEN;
			h.reserved = (uint32_t)
			    atomic_load_explicit((const _Atomic int32_t
							 *)(const void *)(area +
						     p->mops[0].dst),
				memory_order_acquire);
		}
		h.len = (uint32_t)sb->len;
		send_hdr(rc, &h, sb->buf);
	}
}

static void
title(char *buf, size_t len, const struct prog *p, int coll)
{
	size_t n = 0;

	if (api.nspans == 0 && !coll && strlen(api.loc) < len) {
		strcpy(buf, api.loc); /* the common case, without snprintf */
		return;
	}
	buf[0] = '\0';
	for (int i = 0; i < api.nspans && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s > ", api.spans[i]);
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s", api.loc);
	if (coll && n < len)
		snprintf(buf + n, len - n, " %s", p->title);
}

/* Span names: the open spans, then each op's own dotted name (a
 * collective's "allreduce.rs.row0...") or, for one op, its kind
 * ("reduce-scatter.put"). */
static void
name_ops(struct prog *p, int coll)
{
	struct strbuf pre = STRBUF_INIT, nm = STRBUF_INIT;

	for (int i = 0; i < api.nspans; i++)
		strbuf_addf(&pre, "%s.", api.spans[i]);
	if (p->gen != NULL && pre.len > 0)
		p->name_prefix = xstrdup(pre.buf); /* the generated ops' */
	for (size_t i = 0; i < p->nmops && (pre.len > 0 || !coll); i++) {
		strbuf_reset(&nm);
		strbuf_add(&nm, pre.buf, pre.len);
		strbuf_addstr(&nm,
		    coll ? prog_str_at(p, p->mops[i].name) :
			   uop_kind_name((enum uop_kind)p->mops[i].kind));
		p->mops[i].name = prog_str(p, nm.buf);
	}
	strbuf_release(&pre);
	strbuf_release(&nm);
}

static int run_titled(struct rank_ctx *rc, struct prog *p,
    const struct coll_args *coll);

int
api_run(struct rank_ctx *rc, struct prog *p, const struct coll_args *coll)
{
	char t[SEG_TITLE_MAX];
	int err;

	name_ops(p, coll != NULL);
	title(t, sizeof t, p, coll != NULL);
	free(p->title);
	p->title = xstrdup(t);
	err = run_titled(rc, p, coll);
	prog_free(p);
	return err;
}

/*
 * A call of one op outside any span (cdb_notify, cdb_wait, cdb_put...)
 * reuses its kind's program: the same one op, named after its kind,
 * titled with the call's location, is all such a program ever is.  A
 * program built and freed per call (its title, string table, index and
 * ops: a dozen mallocs and frees) was about 2 000 of the 6 400
 * instructions a notify or wait took the rank under `colldb run -t mpi`
 * (callgrind).  Busy while it runs: a call made inside it (a signal
 * handler's) builds its own.
 */
static struct {
	struct prog *p;
	int busy;
} one_prog[UOP__COUNT];

int
api_run_op(struct rank_ctx *rc, const struct uop *u)
{
	struct prog *p;
	int err;

	if (api.nspans > 0 || u->kind >= UOP__COUNT || one_prog[u->kind].busy ||
	    strlen(api.loc) >= SEG_TITLE_MAX) {
		p = prog_new("");
		prog_add(p, u);
		return api_run(rc, p, NULL);
	}
	if ((p = one_prog[u->kind].p) == NULL) {
		p = prog_new(api.loc);
		prog_add(p, u);
		p->mops[0].name =
		    prog_str(p, uop_kind_name((enum uop_kind)u->kind));
		one_prog[u->kind].p = p;
	} else {
		uint32_t name = p->mops[0].name;

		p->mops[0] = *u;
		p->mops[0].name = name;
		if (strcmp(p->title, api.loc) != 0) {
			free(p->title);
			p->title = xstrdup(api.loc);
		}
	}
	one_prog[u->kind].busy = 1;
	err = run_titled(rc, p, NULL);
	one_prog[u->kind].busy = 0;
	return err;
}

/* Run p, named and titled; the caller keeps it. */
static int
run_titled(struct rank_ctx *rc, struct prog *p, const struct coll_args *coll)
{
	struct seg_rank *b = rc->board;
	struct done_info di;
	struct uop cur;
	struct site saved_site = rc->site;
	char saved[SEG_TITLE_MAX];
	uint32_t tag = 0, pc = 0, nops = 0, ptag = 0;
	int nested = api.nest != NULL, st, err = CDB_OK;
	char *cause = NULL;
	const char *was;

	/* From here the call is colldb's: a fork (a signal handler's) is
	 * inside it (core/rank.h), as in rank_run, which nests. */
	was = rank_lib_enter(p->title);
	if (nested) {
		/* the call's own position comes back afterwards */
		pc = atomic_load(&b->pc);
		nops = atomic_load(&b->nops);
		ptag = atomic_load(&b->prog_tag);
		seg_read_cur(b, &cur, saved, sizeof saved);
	} else {
		/* unique across ranks; never 0 (wraps after 16M calls, or
		 * 4G / N on more than 256 ranks) */
		uint32_t mult =
		    rc->seg.nranks > 256 ? (uint32_t)rc->seg.nranks : 256;

		if (++api.next_tag >= UINT32_MAX / mult)
			api.next_tag = 1;
		tag = api.next_tag * mult + (uint32_t)rc->rank;
		if (api.mode == API_RUN)
			announce(rc, tag, p, coll);
	}
	rc->site = api.site;
	b->site = api.site;
	if (nested)
		call_nested_enter(); /* the shell's signal waits */
	if (api.remote != NULL)
		remote_busy(api.remote, 1);
	st = rank_run(rc, p, tag,
	    PROG_F_USER | PROG_F_RESUMABLE | (nested ? PROG_F_NOSPANS : 0), &di,
	    &cause);
	if (api.remote != NULL)
		remote_busy(api.remote, 0);
	if (nested)
		call_nested_leave();
	if (nested) {
		rc->site = saved_site;
		b->site = saved_site;
		atomic_store(&b->nops, nops);
		atomic_store(&b->pc, pc);
		atomic_store(&b->prog_tag, ptag);
		seg_write_cur(b, &cur, saved);
	} else if (api.mode == API_RUN) {
		struct strbuf *sb = msg_buf();

		strbuf_add(sb, &di, sizeof di);
		if (cause != NULL)
			strbuf_addstr(sb, cause);
		send_msg(rc, MSG_DONE, tag, st, sb);
		if (api.ob_on)
			outbox_maybe_kick(&api.ob);
	}
	if (st == DONE_ABORTED) {
		snprintf(api.errmsg, sizeof api.errmsg,
		    "abandoned by the debugger after %u of %u micro-ops", di.pc,
		    di.nops);
		err = CDB_ERR_ABORTED;
	} else if (st != DONE_OK) {
		snprintf(api.errmsg, sizeof api.errmsg, "%s",
		    cause != NULL ? cause : "the operation failed");
		err = CDB_ERR_SYSTEM;
	}
	free(cause);
	rank_lib_leave(was); /* before p (and the title it names) goes */
	return err;
}

void
api_nest_begin(struct rank_ctx *rc)
{
	api.nest = rc;
}

void
api_nest_end(void)
{
	api.nest = NULL;
}

/* ---- the world -------------------------------------------------------------- */

static int
env_int(const char *name, long lo, long hi, long *out)
{
	const char *v = getenv(name);
	char *end;

	if (v == NULL)
		return 0;
	errno = 0;
	*out = strtol(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || *out < lo || *out > hi)
		return -1;
	return 1;
}

/*
 * A rank of an mpi session that ends by itself tells the shell how, before
 * MPI ends the job (core/remote.h, MSG_END): a fatal signal's handler and
 * an exit handler have the control thread ship the calls it queued (its
 * outbox is in its own memory, core/outbox.h), its last lines and spans,
 * and the signal or the exit status, and wait for the shell's answer, so
 * the report and the batch status are the shm transport's.  Then the
 * signal goes on to the handler that was there before MPI_Init (the
 * default, or the program's own): Open MPI's prints a backtrace that the
 * dying process could not ship whole (its control thread goes with it),
 * and a report that had it one time in two was worse than one without.
 * On shm the shell reads the outbox and reaps the process itself, and no
 * handler is needed.  SIGKILL and _exit() cannot be heard: the calls
 * since the last bell (1 ms at most) are lost with the process, and the
 * shell sees its connection close.
 */
static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction crash_pre[ARRAY_SIZE(crash_sigs)];

static void
on_crash(int sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(crash_sigs); i++) {
		if (crash_sigs[i] == sig)
			sigaction(sig, &crash_pre[i], NULL);
	}
	if (api.remote != NULL && api.mode == API_RUN)
		remote_ending(api.remote, sig, REMOTE_END_HOLD_MS);
	raise(sig); /* delivered once this returns, to what was there */
}

/* The handlers before MPI_Init installs its own. */
static void
crash_before_mpi(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(crash_sigs); i++)
		sigaction(crash_sigs[i], NULL, &crash_pre[i]);
}

static void
crash_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_crash;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(crash_sigs); i++)
		sigaction(crash_sigs[i], &sa, NULL);
}

/* exit() or a return from main() before cdb_finalize. */
static void
mpi_on_exit(int status, void *arg)
{
	(void)arg;
	if (api.remote == NULL || api.mode != API_RUN)
		return;
	remote_ending(api.remote, (status & 0xff) << 8, REMOTE_END_HOLD_MS);
	if (!rank_forked)
		remote_leave(api.remote); /* its last words reach the shell */
}

/* A rank of an mpi session (`colldb run -t mpi`): the shell is reached
 * over TCP, the peers through MPI (core/remote.h). */
static int
init_mpi(void)
{
	static struct remote rm;
	char *cause = NULL;

	crash_before_mpi();
	if (remote_open(&rm, &api.rc, REMOTE_USER, &cause) != 0 ||
	    remote_progress_start(&rm, &cause) != 0) {
		api_fail(CDB_ERR_INIT, "cannot join the colldb session: %s",
		    cause);
		free(cause);
		return CDB_ERR_INIT;
	}
	api.remote = &rm;
	if (rm.outbox != NULL &&
	    outbox_w_init(&api.ob, rm.outbox, rm.outbox_len, api.rc.sock, 0) ==
		0) {
		api.ob_on = 1;
		api.rc.t.before_block = before_block;
		crash_install();
	}
	on_exit(mpi_on_exit, NULL);
	unsetenv("COLLDB_SHELL");
	unsetenv("COLLDB_MPI_PLUGIN");
	api.mode = API_RUN;
	send_msg(&api.rc, MSG_HELLO, 0, (int32_t)getpid(), NULL);
	remote_busy(&rm, 1);
	rank_hold(&api.rc, "cdb_init");
	remote_busy(&rm, 0);
	return CDB_OK;
}

/* The outbox the shell made for this rank (COLLDB_OUTBOX_FD, outbox.h);
 * without one (an older colldb) every message goes on the socket. */
static void
outbox_attach(int sock)
{
	struct stat st;
	long fd;
	void *mem;

	if (env_int("COLLDB_OUTBOX_FD", 0, 1 << 20, &fd) != 1)
		return;
	fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	if (fstat((int)fd, &st) != 0 || st.st_size <= 0 ||
	    (mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, (int)fd, 0)) == MAP_FAILED) {
		close((int)fd);
		return;
	}
	close((int)fd); /* the mapping stays */
	if (outbox_w_init(&api.ob, mem, (size_t)st.st_size, sock, 0) != 0) {
		munmap(mem, (size_t)st.st_size);
		return;
	}
	api.ob_on = 1;
	api.rc.t.before_block = before_block;
}

static int
init_run(void)
{
	long seg_fd, sock, rank;
	char *cause = NULL;

	if (env_int("COLLDB_SEG_FD", 0, 1 << 20, &seg_fd) != 1 ||
	    env_int("COLLDB_SOCK_FD", 0, 1 << 20, &sock) != 1 ||
	    env_int("COLLDB_RANK", 0, SEG_MAX_RANKS - 1, &rank) != 1)
		return api_fail(CDB_ERR_INIT,
		    "bad COLLDB_SEG_FD, COLLDB_SOCK_FD or COLLDB_RANK in the environment");
	if (rank_attach(&api.rc, (int)seg_fd, (int)sock, (int)rank, &cause) != 0) {
		api_fail(CDB_ERR_INIT, "cannot join the colldb session: %s",
		    cause);
		free(cause);
		return CDB_ERR_INIT;
	}
	fcntl((int)seg_fd, F_SETFD, FD_CLOEXEC);
	fcntl((int)sock, F_SETFD, FD_CLOEXEC);
	outbox_attach((int)sock);
	unsetenv("COLLDB_SEG_FD");
	unsetenv("COLLDB_SOCK_FD");
	unsetenv("COLLDB_RANK");
	unsetenv("COLLDB_NRANKS");
	unsetenv("COLLDB_OUTBOX_FD");
	fflush(stdout);
	setvbuf(stdout, NULL, _IOLBF, 0);
	api.mode = API_RUN;
	send_msg(&api.rc, MSG_HELLO, 0, (int32_t)getpid(), NULL);
	/* The shell decides when we leave (not under --batch: at once). */
	rank_hold(&api.rc, "cdb_init");
	return CDB_OK;
}

static void
reap_message(int r, int st, char *buf, size_t len)
{
	if (WIFSIGNALED(st))
		snprintf(buf, len, "rank %d was killed by signal %d (%s)", r,
		    WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "rank %d exited with status %d", r,
		    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Standalone rank 0: wait for ranks 1..N-1; the first failure's message
 * goes to errmsg.  kill: end them first (rank 0 leaves without
 * cdb_finalize). */
static int
reap_children(int killing)
{
	int err = CDB_OK;

	for (int i = 0; i < api.nchildren; i++) {
		int st = 0;

		if (killing)
			kill(api.children[i], SIGKILL);
		while (waitpid(api.children[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!killing && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
			char msg[128];
			reap_message(i + 1, st, msg, sizeof msg);
			fprintf(stderr, "colldb: %s\n", msg);
			if (err == CDB_OK)
				snprintf(api.errmsg, sizeof api.errmsg, "%s",
				    msg);
			err = CDB_ERR_RANK;
		}
	}
	free(api.children);
	api.children = NULL;
	api.nchildren = 0;
	return err;
}

static void
at_exit(void)
{
	if (api.nchildren > 0) {
		fprintf(stderr,
		    "colldb: rank 0 exited without cdb_finalize; ending ranks 1-%d\n",
		    api.nchildren);
		reap_children(1);
	}
}

static int
init_alone(void)
{
	struct seg s;
	long n = CDB_STANDALONE_RANKS;
	int rank = 0, fd, given;
	pid_t parent = getpid();
	char *cause = NULL;

	if ((given = env_int("COLLDB_NRANKS", 1, SEG_MAX_RANKS, &n)) < 0)
		return api_fail(CDB_ERR_ARG,
		    "COLLDB_NRANKS='%s': expected 1..%d ranks",
		    getenv("COLLDB_NRANKS"), SEG_MAX_RANKS);
	if (given == 0)
		fprintf(stderr,
		    "colldb: %s: COLLDB_NRANKS is not set; running %d ranks\n",
		    program_invocation_short_name, CDB_STANDALONE_RANKS);
	if (seg_create(&s, "standalone", (int)n, seg_default_area((int)n), 4096,
		&cause) != 0) {
		api_fail(CDB_ERR_SYSTEM, "cannot create the shared memory: %s",
		    cause);
		free(cause);
		return CDB_ERR_SYSTEM;
	}
	seg_unlink(&s);
	fflush(NULL);
	api.children = xcalloc((size_t)n, sizeof *api.children);
	for (int r = 1; r < n; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			api_fail(CDB_ERR_SYSTEM, "fork: %s", strerror(errno));
			reap_children(1);
			seg_close(&s);
			return CDB_ERR_SYSTEM;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			rank = r;
			free(api.children);
			api.children = NULL;
			api.nchildren = 0;
			break;
		}
		api.children[api.nchildren++] = pid;
	}
	fd = fcntl(s.fd, F_DUPFD_CLOEXEC, 0);
	seg_close(&s);
	if (fd < 0 || rank_attach(&api.rc, fd, -1, rank, &cause) != 0) {
		api_fail(CDB_ERR_SYSTEM, "cannot map the shared memory: %s",
		    cause != NULL ? cause : strerror(errno));
		free(cause);
		if (fd >= 0)
			close(fd);
		if (rank != 0)
			_exit(1);
		reap_children(1);
		return CDB_ERR_SYSTEM;
	}
	api.mode = API_ALONE;
	if (rank == 0 && api.nchildren > 0)
		atexit(at_exit);
	return CDB_OK;
}

int
cdb_init(void)
{
	api.fn = "cdb_init";
	api.errmsg[0] = '\0';
	snprintf(api.loc, sizeof api.loc, "%.24s", program_invocation_short_name);
	if (api.nest != NULL || api.mode == API_ALONE || api.mode == API_RUN)
		return CDB_OK;
	if (api.mode == API_DONE)
		return api_fail(CDB_ERR_INIT, "cdb_init after cdb_finalize");
	if (getenv("COLLDB_SEG_FD") != NULL)
		return init_run();
	if (remote_wanted())
		return init_mpi();
	return init_alone();
}

int
cdb_finalize(void)
{
	int err = CDB_OK;

	api.fn = "cdb_finalize";
	api.errmsg[0] = '\0';
	if (api.nest != NULL)
		return CDB_OK;
	if (api.mode != API_ALONE && api.mode != API_RUN)
		return api_fail(CDB_ERR_INIT,
		    api.mode == API_DONE ? "cdb_finalize called twice" :
					   "cdb_init has not been called");
	/* The shell tells a finalized rank from one that exited early by
	 * this state; the socket stays open until the process ends. */
	if (api.ob_on && api.mode == API_RUN)
		outbox_kick(&api.ob);
	seg_set_state(api.rc.board, RS_EXITED);
	if (api.remote != NULL) {
		remote_close(api.remote); /* MPI_Finalize: the others too */
		api.remote = NULL;
		api.ob_on = 0; /* remote_close() let the outbox go */
	} else {
		rank_detach(&api.rc);
	}
	if (api.mode == API_ALONE && api.nchildren > 0)
		err = reap_children(0);
	api.mode = API_DONE;
	return err;
}

/* cdb_rank() and cdb_nranks() without a world: say why, as api_begin does */
static int
no_world(const char *fn)
{
	api.fn = fn;
	return api_fail(CDB_ERR_INIT,
	    api.mode == API_DONE ? "called after cdb_finalize" :
				   "cdb_init has not been called");
}

int
cdb_rank(void)
{
	struct rank_ctx *rc = ctx();

	return rc != NULL ? rc->rank : no_world("cdb_rank");
}

int
cdb_nranks(void)
{
	struct rank_ctx *rc = ctx();

	return rc != NULL ? rc->seg.nranks : no_world("cdb_nranks");
}

/* ---- windows ----------------------------------------------------------------- */

static int
name_ok(const char *name)
{
	if (name == NULL)
		return api_fail(CDB_ERR_ARG, "window name is NULL");
	if (name[0] == '\0' || strlen(name) > CDB_NAME_MAX)
		return api_fail(CDB_ERR_ARG,
		    "window name '%s' must be 1..%d characters", name,
		    CDB_NAME_MAX);
	for (const char *p = name; *p != '\0'; p++) {
		int c = (unsigned char)*p;
		if (!(c == '_' || (c >= 'a' && c <= 'z') ||
			(c >= 'A' && c <= 'Z') ||
			(p > name && c >= '0' && c <= '9')))
			return api_fail(CDB_ERR_ARG,
			    "bad window name '%s' (letters, digits and _, not a digit first)",
			    name);
	}
	return CDB_OK;
}

static void
shape_text(char *buf, size_t len, int ndim, const uint64_t *shape, enum dtype dt)
{
	size_t n = (size_t)snprintf(buf, len, "[");

	for (int d = 0; d < ndim && n < len; d++)
		n += (size_t)snprintf(buf + n, len - n, "%s%llu", d ? "," : "",
		    (unsigned long long)shape[d]);
	if (n < len)
		snprintf(buf + n, len - n, "] %s", dtype_name(dt));
}

/*
 * cdb_alloc and cdb_alloc_shape run no program but are the rank's last
 * call all the same: outside any program, the board's title becomes
 * "ring.c:40 cdb_alloc_shape", so that where says "in its own code
 * after" it, not after the call before (cdb_init).  (The lookups,
 * cdb_local and cdb_window, change nothing and leave it.)
 */
static void
note_call(struct rank_ctx *rc, const char *fn)
{
	struct seg_rank *b = rc->board;
	char t[SEG_TITLE_MAX];
	struct uop cur;

	if (b == NULL || atomic_load(&b->pc) < atomic_load(&b->nops))
		return; /* inside a program (a call from `call`): its title */
	seg_read_cur(b, &cur, t, sizeof t);
	snprintf(t, sizeof t, "%s %s", api.loc, fn);
	seg_write_cur(b, &cur, t);
}

static int
alloc_common(const char *name, int ndim, const uint64_t *shape, enum dtype dt,
    unsigned flags, void **local)
{
	API_BEGIN(rc, flags & WIN_BYTES ? "cdb_alloc" : "cdb_alloc_shape");
	struct seg_window *w;
	char *cause = NULL;
	int err = CDB_OK;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if (local == NULL)
		return api_fail(CDB_ERR_ARG, "local is NULL");
	if ((err = name_ok(name)) != CDB_OK)
		return err;
	seg_lock(&rc->seg);
	w = seg_win_find(&rc->seg, name);
	if (w == NULL && api.remote != NULL && rc == &api.rc) {
		/* the table is the shell's: it places the window */
		if ((w = remote_alloc(api.remote, name, shape, ndim, dt, flags,
			 &cause)) == NULL) {
			err = api_fail(CDB_ERR_NOSPACE, "%s", cause);
			free(cause);
			seg_unlock(&rc->seg);
			return err;
		}
	}
	if (w != NULL) {
		int same = w->ndim == ndim && w->dtype == dt &&
		    (w->flags & WIN_BYTES) == (flags & WIN_BYTES) &&
		    memcmp(w->shape, shape, (size_t)ndim * sizeof *shape) == 0;
		if (!same) {
			char have[96], want[96];
			shape_text(have, sizeof have, w->ndim, w->shape,
			    (enum dtype)w->dtype);
			shape_text(want, sizeof want, ndim, shape, dt);
			err = api_fail(CDB_ERR_SHAPE,
			    "window '%s' exists as %s; this rank asked for %s",
			    name, have, want);
		}
	} else if ((w = seg_win_alloc(&rc->seg, name, shape, ndim, dt, flags,
			&cause)) == NULL) {
		err = api_fail(CDB_ERR_NOSPACE, "%s", cause);
		free(cause);
	}
	if (err == CDB_OK)
		*local = seg_area(&rc->seg, rc->rank) + w->off;
	seg_unlock(&rc->seg);
	note_call(rc, api.fn);
	return err;
}

int
cdb_alloc(const char *name, size_t bytes, void **local)
{
	uint64_t shape = bytes;

	if (bytes == 0) {
		API_BEGIN(rc, "cdb_alloc");
		if (rc == NULL)
			return CDB_ERR_INIT;
		return api_fail(CDB_ERR_ARG, "size must be at least 1 byte");
	}
	return alloc_common(name, 1, &shape, DT_U8, WIN_BYTES, local);
}

int
cdb_alloc_shape(const char *name, int ndim, const size_t *shape,
    enum cdb_dtype dtype, void **local)
{
	uint64_t dims[COLLDB_MAX_DIMS], count = 1;

	if (ndim < 1 || ndim > CDB_MAX_DIMS || shape == NULL ||
	    (unsigned)dtype > CDB_F64 || dtype == CDB_U8) {
		API_BEGIN(rc, "cdb_alloc_shape");
		if (rc == NULL)
			return CDB_ERR_INIT;
		if (shape == NULL)
			return api_fail(CDB_ERR_ARG, "shape is NULL");
		if (ndim < 1 || ndim > CDB_MAX_DIMS)
			return api_fail(CDB_ERR_ARG,
			    "ndim %d out of range (1..%d)", ndim, CDB_MAX_DIMS);
		return api_fail(CDB_ERR_ARG,
		    "bad dtype %d (CDB_I8..CDB_F64; use cdb_alloc for bytes)",
		    (int)dtype);
	}
	for (int d = 0; d < ndim; d++) {
		dims[d] = shape[d];
		if (shape[d] == 0 || count > UINT64_MAX / shape[d]) {
			API_BEGIN(rc, "cdb_alloc_shape");
			if (rc == NULL)
				return CDB_ERR_INIT;
			return api_fail(CDB_ERR_ARG, "bad dimension %zu (#%d)",
			    shape[d], d);
		}
		count *= shape[d];
	}
	return alloc_common(name, ndim, dims, (enum dtype)dtype, 0, local);
}

void *
cdb_local(const char *name)
{
	API_BEGIN(rc, "cdb_local");
	struct seg_window *w;
	void *p = NULL;

	if (rc == NULL)
		return NULL;
	if (name == NULL) {
		api_fail(CDB_ERR_ARG, "window name is NULL");
		return NULL;
	}
	seg_lock(&rc->seg);
	if ((w = seg_win_find(&rc->seg, name)) != NULL)
		p = seg_area(&rc->seg, rc->rank) + w->off;
	seg_unlock(&rc->seg);
	if (p == NULL)
		api_fail(CDB_ERR_WINDOW, "no window named '%s'", name);
	return p;
}

/*
 * The windows api_region() found last, while the window table's win_seq
 * stays what it was: finding a window syncs this rank's checked copy of
 * the whole table (seg_win_sync, 128 slots: a third of a notify's
 * instructions), and a program calls on the same few windows.  Every
 * alloc and free bumps win_seq; a copy that stays is one seg_win_sync
 * checked.
 */
#define WIN_CACHE 4

static struct {
	const struct seg *seg;
	uint32_t seq;
	struct seg_window *w[WIN_CACHE];
	unsigned next;
} win_memo;

static struct seg_window *
win_find(struct rank_ctx *rc, uint64_t off)
{
	uint32_t seq =
	    atomic_load_explicit(&rc->seg.h->win_seq, memory_order_acquire);
	struct seg_window *w;

	if (win_memo.seg != &rc->seg || win_memo.seq != seq) {
		memset(&win_memo, 0, sizeof win_memo);
		win_memo.seg = &rc->seg;
		win_memo.seq = seq;
	}
	for (int i = 0; i < WIN_CACHE; i++) {
		w = win_memo.w[i];
		if (w != NULL && w->used && off >= w->off &&
		    off < w->off + w->bytes)
			return w;
	}
	if ((w = seg_win_at(&rc->seg, off)) != NULL)
		win_memo.w[win_memo.next++ % WIN_CACHE] = w;
	return w;
}

int
api_region(struct rank_ctx *rc, const char *what, const void *ptr,
    uint64_t count, struct seg_window **wp, uint64_t *offp)
{
	const uint8_t *area = seg_area(&rc->seg, rc->rank), *p = ptr;
	struct seg_window *w;
	uint64_t off, esz, first;

	if (ptr == NULL)
		return api_fail(CDB_ERR_ARG, "%s is NULL", what);
	if (p < area || p >= area + rc->seg.area_size ||
	    (w = win_find(rc, (uint64_t)(p - area))) == NULL)
		return api_fail(CDB_ERR_WINDOW,
		    "%s does not point into a window of this rank", what);
	off = (uint64_t)(p - area);
	esz = dtype_size((enum dtype)w->dtype);
	if ((off - w->off) % esz != 0)
		return api_fail(CDB_ERR_WINDOW,
		    "%s is not aligned to an element of '%s' (%s)", what,
		    w->name, dtype_name((enum dtype)w->dtype));
	first = (off - w->off) / esz;
	if (count > w->count - first)
		return api_fail(CDB_ERR_WINDOW,
		    "count %llu runs past the end of '%s' (%llu elements from element %llu)",
		    (unsigned long long)count, w->name,
		    (unsigned long long)w->count, (unsigned long long)first);
	*wp = w;
	*offp = off;
	return CDB_OK;
}

int
cdb_window(const void *ptr, struct cdb_window *out)
{
	API_BEGIN(rc, "cdb_window");
	struct seg_window *w;
	uint64_t off;
	int err;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if (out == NULL)
		return api_fail(CDB_ERR_ARG, "out is NULL");
	if ((err = api_region(rc, "ptr", ptr, 1, &w, &off)) != CDB_OK)
		return err;
	memset(out, 0, sizeof *out);
	out->name = w->name;
	out->dtype = (enum cdb_dtype)w->dtype;
	out->ndim = w->ndim;
	for (int d = 0; d < w->ndim; d++)
		out->shape[d] = (size_t)w->shape[d];
	out->count = (size_t)w->count;
	out->bytes = (size_t)w->bytes;
	out->base = seg_area(&rc->seg, rc->rank) + w->off;
	out->index = (size_t)((off - w->off) / dtype_size((enum dtype)w->dtype));
	return CDB_OK;
}

/* ---- spans -------------------------------------------------------------------- */

int
cdb_span_begin(const char *name)
{
	API_BEGIN(rc, "cdb_span_begin");
	if (rc == NULL)
		return CDB_ERR_INIT;
	if (name == NULL || name[0] == '\0' || strlen(name) > CDB_NAME_MAX)
		return api_fail(CDB_ERR_ARG,
		    "span name must be 1..%d characters", CDB_NAME_MAX);
	if (api.nspans == CDB_SPAN_DEPTH)
		return api_fail(CDB_ERR_ARG,
		    "spans nested deeper than %d (at '%s')", CDB_SPAN_DEPTH,
		    name);
	snprintf(api.spans[api.nspans++], sizeof api.spans[0], "%s", name);
	return CDB_OK;
}

int
cdb_span_end(void)
{
	API_BEGIN(rc, "cdb_span_end");
	if (rc == NULL)
		return CDB_ERR_INIT;
	if (api.nspans == 0)
		return api_fail(CDB_ERR_ARG, "no span is open");
	api.nspans--;
	return CDB_OK;
}
