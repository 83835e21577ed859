/*
 * run.c - `colldb run [-n N] [--batch] [-x FILE]... [--] PROGRAM [ARGS...]`:
 * N copies of a program linked with libcolldb become the ranks of a
 * session (SPEC §2, §7).
 *
 * The shell makes the session segment as for its own agents, then starts
 * each rank with fork + execvp, passing COLLDB_SEG_FD, COLLDB_SOCK_FD,
 * COLLDB_RANK and COLLDB_NRANKS in the environment (core/api.c reads
 * them), its stdout and stderr on a pipe (printed as "[rank N] text") and
 * stdin on /dev/null, in its own process group (the terminal's ^C is the
 * shell's) and killed if the shell dies.  Before it starts, every board
 * slot is put in step mode, so each rank stops inside cdb_init() until
 * `continue` or `step`; --batch leaves them free running.
 *
 * A user rank announces every call as a job (MSG_PROG or MSG_COLL, then
 * DONE: core/proto.h), so where/ranks/diagnose see its program.  Between
 * calls it is `running` in its own code.  What the prompt aims at it
 * (notify, put, get, fill, set) the shell carries out one-sided on the
 * segment, at once, whatever the rank is doing; a wait, a collective,
 * start, free, load and call are refused (run_refusal()).
 *
 * Exit status: --batch, the worst rank's (exit status, or 128 + signal),
 * or 3 when every rank left was blocked with no progress for --timeout
 * seconds (default 10, 0 = never); with a prompt or scripts, the script
 * status as for `colldb` itself.  Ranks still alive when the session ends
 * are killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "futex.h"
#include "proto.h"
#include "shell.h"
#include "shm.h"
#include "xmalloc.h"

#define START_WAIT_NS (10ull * 1000000000u)

static struct session run_session;
static int batch_mode;
static volatile sig_atomic_t batch_interrupted;

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: colldb run [-n N] [--batch] [-x FILE]... [--echo] [--timeout SECS]\n"
	    "                  [--name NAME] [--] PROGRAM [ARGS...]\n"
	    "\n"
	    "Start N copies of PROGRAM (default 4), a program linked with libcolldb,\n"
	    "as the ranks of a session.  Each rank stops in cdb_init(); 'continue',\n"
	    "'step', 'break' and 'where' work on its calls.  -x FILE runs a script of\n"
	    "commands (so does stdin when it is not a terminal).  --batch runs the\n"
	    "ranks without a prompt, like mpirun: output lines are prefixed\n"
	    "'[rank N]', the exit status is the worst rank's (128 + signal for a\n"
	    "signal), 3 if every rank left hangs for --timeout seconds (default 10).\n");
}

static const char *
signame(int sig)
{
	static char buf[32];
	const char *n = sigabbrev_np(sig);

	if (n == NULL)
		snprintf(buf, sizeof buf, "signal %d", sig);
	else
		snprintf(buf, sizeof buf, "SIG%s", n);
	return buf;
}

/* ---- starting the ranks ---------------------------------------------------- */

/* Can PROGRAM be executed (PATH searched as execvp does)?  0 or errno. */
static int
find_program(const char *prog)
{
	const char *path = getenv("PATH");
	int err = ENOENT;

	if (strchr(prog, '/') != NULL)
		return access(prog, X_OK) == 0 ? 0 : errno;
	if (path == NULL)
		path = "/usr/bin:/bin";
	while (*path != '\0') {
		size_t n = strcspn(path, ":");
		char *f = xasprintf("%.*s%s%s", (int)n, path, n ? "/" : "", prog);
		struct stat st;

		if (stat(f, &st) == 0 && S_ISREG(st.st_mode)) {
			err = access(f, X_OK) == 0 ? 0 : errno;
			free(f);
			if (err == 0)
				return 0;
		} else {
			free(f);
		}
		path += n + (path[n] == ':');
	}
	return err;
}

static int
spawn_user(struct session *s, int r, char **argv, char **cause)
{
	struct rankproc *rp = &s->rp[r];
	pid_t shell = getpid(), pid;
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
		char num[16];
		sigset_t none;

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != shell)
			_exit(127);
		rank_child_fds(s, sv, outp);
		snprintf(num, sizeof num, "%d", s->seg.fd);
		setenv("COLLDB_SEG_FD", num, 1);
		snprintf(num, sizeof num, "%d", sv[1]);
		setenv("COLLDB_SOCK_FD", num, 1);
		snprintf(num, sizeof num, "%d", r);
		setenv("COLLDB_RANK", num, 1);
		snprintf(num, sizeof num, "%d", s->nranks);
		setenv("COLLDB_NRANKS", num, 1);
		signal(SIGPIPE, SIG_DFL);	/* the shell ignores it */
		signal(SIGINT, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "colldb run: cannot execute %s: %s\n", argv[0],
		    strerror(errno));
		_exit(127);
	}
	rankproc_started(rp, pid, sv, outp);
	return 0;
}

static int
run_open(struct session *s, int nranks, const char *name, char **argv,
    char **cause)
{
	if (session_prepare(s, nranks, name, 0, cause) != 0)
		return -1;
	s->user = 1;
	/* the ranks inherit the descriptor: no name needed */
	seg_unlink(&s->seg);
	session_register(s);
	for (int r = 0; r < nranks && !batch_mode; r++)
		atomic_store(&seg_board(&s->seg, r)->mode, RUN_STEP);
	for (int r = 0; r < nranks; r++) {
		if (spawn_user(s, r, argv, cause) != 0) {
			session_close(s);
			return -1;
		}
	}
	s->idle_since = mono_ns();
	return 0;
}

static int
in_init(struct session *s, int r)
{
	struct seg_rank *b = seg_board(&s->seg, r);
	char title[SEG_TITLE_MAX];
	struct uop cur;

	if (rank_state_of(s, r) != RS_STOPPED || atomic_load(&b->nops) != 0)
		return 0;
	seg_read_cur(b, &cur, title, sizeof title);
	return strcmp(title, "cdb_init") == 0;
}

/* Wait until every rank stopped in cdb_init (or is gone); say which did
 * not, and what the prompt has to work with. */
static void
wait_started(struct session *s, const char *prog)
{
	uint64_t deadline = mono_ns() + START_WAIT_NS;
	int stopped = 0;

	for (;;) {
		int left = 0;

		session_pump(s, 5);
		for (int r = 0; r < s->nranks; r++)
			left += rank_alive(s, r) && !in_init(s, r);
		if (left == 0 || mono_ns() > deadline)
			break;
	}
	out_flush_events();
	for (int r = 0; r < s->nranks; r++) {
		if (in_init(s, r))
			stopped++;
		else if (rank_alive(s, r))
			out_printf("rank %d has not reached cdb_init (%s)\n", r,
			    rank_state_name(rank_state_of(s, r)));
	}
	if (stopped > 0)
		out_printf("%d rank%s of %s stopped in cdb_init; 'continue' runs them\n",
		    stopped, stopped == 1 ? "" : "s", prog);
	session_update_gate(s);
}

/* ---- --batch ------------------------------------------------------------------ */

static void
on_batch_sigint(int sig)
{
	(void)sig;
	batch_interrupted = 1;
}

static int
worst_status(struct session *s)
{
	int worst = 0;

	for (int r = 0; r < s->nranks; r++) {
		int st = s->rp[r].wstatus, code;

		code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) :
		    WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		worst = MAX(worst, code);
	}
	return worst;
}

static int
run_batch(struct session *s)
{
	int live;

	signal(SIGINT, on_batch_sigint);
	for (;;) {
		session_pump(s, 100);	/* runs the hang watchdog, too */
		out_flush_events();
		live = 0;
		for (int r = 0; r < s->nranks; r++)
			live += s->rp[r].alive;	/* exec'd ones too: their end and output */
		if (live == 0)
			return worst_status(s);
		if (batch_interrupted) {
			fprintf(stderr, "colldb run: interrupted; killing %d rank%s\n", live,
			    live == 1 ? "" : "s");
			return 130;
		}
		if (s->watchdog_fired) {
			/* its diagnosis is out; nothing will move again: where
			 * each rank is, in the program's own lines */
			struct strbuf sb = STRBUF_INIT;

			for (int r = 0; r < s->nranks; r++) {
				if (!rank_alive(s, r))
					continue;
				strbuf_reset(&sb);
				where_line(s, r, &sb);
				out_printf("%s\n", sb.buf);
			}
			strbuf_release(&sb);
			fprintf(stderr, "colldb run: hang; killing %d rank%s\n", live,
			    live == 1 ? "" : "s");
			return EXIT_HANG;
		}
	}
}

/* ---- the entry point -------------------------------------------------------- */

static void
cleanup(void)
{
	if (run_session.seg.h != NULL)
		session_close(&run_session);
	le_free();
}

int
run_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "echo", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "name", required_argument, NULL, 'N' },
		{ "timeout", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct session *s = &run_session;
	struct shell_opts o;
	int have_tty, c, err, rc = EXIT_OK;
	char *cause = NULL;

	shell_opts_init(&o);
	argv[0] = (char *)"colldb run";	/* getopt's messages name the command */
	while ((c = getopt_long(argc, argv, "+n:x:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			if (shell_opt_last(c, optarg, "colldb run", &o, usage) != 0)
				return EXIT_USAGE;
		}
	}
	batch_mode = o.batch;
	if (optind >= argc) {
		fprintf(stderr, "colldb run: missing PROGRAM\n");
		usage(stderr);
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if (batch_mode && o.nx > 0) {
		fprintf(stderr, "colldb run: --batch runs no commands; drop -x %s\n", o.xfiles[0]);
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if (!shell_opts_scripts_ok(&o, "colldb run")) {
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if ((err = find_program(argv[optind])) != 0) {
		fprintf(stderr, "colldb run: %s: %s\n", argv[optind], strerror(err));
		shell_opts_release(&o);
		return err == ENOENT ? 127 : 126;
	}

	have_tty = isatty(STDIN_FILENO);
	settings_init(&s->set);
	s->set.echo = o.echo;
	if (o.timeout >= 0)
		s->set.timeout = o.timeout;
	s->interactive = !batch_mode && ((have_tty && o.nx == 0) ||
	    getenv("COLLDB_FAKETTY") != NULL);
	s->batch = !s->interactive;
	if (o.name[0] == '\0')
		snprintf(o.name, sizeof o.name, "colldb-%d", (int)getpid());
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	sess = s;
	if (run_open(s, o.nranks, o.name, argv + optind, &cause) != 0) {
		fprintf(stderr, "colldb run: cannot start %d ranks: %s\n", o.nranks, cause);
		free(cause);
		shell_opts_release(&o);
		return EXIT_FAIL;
	}
	atexit(cleanup);
	if (batch_mode) {
		rc = run_batch(s);
		shell_opts_release(&o);
		fflush(stdout);
		return rc;
	}
	le_init("colldb", have_tty && s->interactive);
	wait_started(s, argv[optind]);
	for (size_t i = 0; i < o.nx && !script.quit; i++) {
		if (script_run_file(s, o.xfiles[i]) != 0) {
			rc = EXIT_FAIL;
			break;
		}
	}
	if (!script.quit && rc == EXIT_OK) {
		if (s->interactive)
			rc = repl_run(s);
		else if (!have_tty)
			rc = script_run_stream(s, stdin, "<stdin>") == 0 ? EXIT_OK : EXIT_FAIL;
	}
	if (!s->interactive && !script.quit) {
		int alive = 0;
		for (int r = 0; r < s->nranks; r++)
			alive += rank_alive(s, r);
		if (alive > 0)
			out_warning("the commands ended with %d rank%s of %s still running; they are stopped now (--batch runs the program to its end)",
			    alive, alive == 1 ? "" : "s", argv[optind]);
	}
	shell_opts_release(&o);
	fflush(stdout);
	return rc;
}

/* ---- user ranks inside the session -------------------------------------------- */

void
run_msg(struct session *s, int r, const struct msg_hdr *h, const void *payload)
{
	struct prog *p = NULL;
	char *cause = NULL, *desc;
	unsigned flags = 0;

	struct site site;
	struct job *j;

	memset(&site, 0, sizeof site);
	if (h->type == MSG_PROG && h->len >= sizeof site) {
		memcpy(&site, payload, sizeof site);
		if ((p = prog_decode((const char *)payload + sizeof site,
		    h->len - sizeof site, &cause)) == NULL) {
			out_event(r, "[rank %d] sent a bad program: %s", r, cause);
			free(cause);
			return;
		}
		desc = xstrdup(p->title);
	} else if (h->type == MSG_COLL && h->len > sizeof(struct coll_msg)) {
		const struct coll_msg *cm = payload;
		const char *title = (const char *)payload + sizeof *cm;

		p = coll_build(&cm->args, s->nranks, r);
		desc = xstrndup(title, h->len - sizeof *cm);
		flags = JOB_COLL;
		site = cm->site;
	} else {
		return;	/* HELLO: the board already says it attached */
	}
	site.file[sizeof site.file - 1] = '\0';
	j = session_track(s, r, h->tag, p, desc, flags);
	j->site = site;
}

int
run_rank_settled(struct session *s, int r)
{
	struct seg_rank *b = seg_board(&s->seg, r);
	uint64_t off;

	if (!rank_alive(s, r))
		return 1;
	if (atomic_load(&b->interrupt) || atomic_load(&b->abort))
		return 0;
	switch (rank_state_of(s, r)) {
	case RS_STOPPED:
		return atomic_load(&b->ctl_seen) == atomic_load(&b->ctl);
	case RS_BLOCKED:
		off = atomic_load(&b->wait_off);
		return !wait_cmp_holds((enum wait_cmp)atomic_load(&b->wait_cmp),
		    atomic_load((_Atomic int32_t *)(seg_area(&s->seg, r) + off)),
		    atomic_load(&b->wait_expected));
	default:
		return 0;	/* its own code runs, or it is leaving */
	}
}

/* "TITLE [step k/K PHASE]: OP (now V) [breakpoint N]" from the board;
 * prog, if it is the program the board shows, names the phase. */
static void
board_position(struct session *s, int r, const struct prog *prog,
    struct strbuf *sb, int verbose)
{
	struct seg_rank *b = seg_board(&s->seg, r);
	enum rank_state st = rank_state_of(s, r);
	uint32_t pc = atomic_load(&b->pc), nops = atomic_load(&b->nops);
	char title[SEG_TITLE_MAX];
	struct uop cur;

	seg_read_cur(b, &cur, title, sizeof title);
	if (prog != NULL && pc < prog->nops)
		cur = prog->ops[pc];
	strbuf_addstr(sb, title);
	if (nops > 1) {
		const char *phase = prog != NULL ? prog_str_at(prog, cur.phase) : "";
		strbuf_addf(sb, " step %u/%u%s%s", pc + 1, nops, phase[0] ? " " : "",
		    phase);
	}
	strbuf_addstr(sb, ": ");
	describe_uop(&s->seg, &cur, r, sb);
	if (cur.kind == UOP_WAIT && (st == RS_BLOCKED || st == RS_STOPPED))
		strbuf_addf(sb, " (now %d)", atomic_load((_Atomic int32_t *)(seg_area(
		    &s->seg, r) + cur.dst)));
	if (verbose && st == RS_STOPPED && atomic_load(&b->stop_reason) == STOP_BREAK)
		break_stop_text(b, sb);
	else if (verbose && st == RS_STOPPED &&
	    atomic_load(&b->stop_reason) == STOP_INTERRUPT)
		strbuf_addstr(sb, "  [interrupted]");
}

/* Where user rank r is, from its board and its announced call. */
static void
describe_user(struct session *s, int r, struct strbuf *sb, int verbose)
{
	struct seg_rank *b = seg_board(&s->seg, r);
	enum rank_state st = rank_state_of(s, r);
	struct job *j = rank_job(s, r);
	uint32_t tag = atomic_load(&b->prog_tag), pc, nops;
	char title[SEG_TITLE_MAX];
	struct uop cur;

	if (st == RS_STARTING) {
		strbuf_addstr(sb, "before cdb_init");
		return;
	}
	if (st == RS_EXITED) {
		strbuf_addstr(sb, "after cdb_finalize");
		return;
	}
	pc = atomic_load(&b->pc);
	nops = atomic_load(&b->nops);
	seg_read_cur(b, &cur, title, sizeof title);
	if (nops == 0 && st == RS_STOPPED) {
		strbuf_addf(sb, "in %s", title);
		if (verbose && atomic_load(&b->stop_reason) == STOP_INTERRUPT)
			strbuf_addstr(sb, "  [interrupted]");
		return;
	}
	if (pc >= nops && st == RS_RUNNING) {
		strbuf_addf(sb, "in its own code after %s", title);
		return;
	}
	board_position(s, r, j != NULL && j->tag == tag ? j->prog : NULL, sb,
	    verbose);
}

int
run_describe(struct session *s, int r, struct strbuf *sb, int verbose)
{
	struct seg_rank *b = seg_board(&s->seg, r);
	enum rank_state st = rank_state_of(s, r);
	struct job *j = rank_job(s, r);
	uint32_t tag = atomic_load(&b->prog_tag);

	if (!s->user) {
		/* an agent in a load or call: the call, or inside it the
		 * callee's own cdb_* op */
		if (j == NULL || !(j->flags & JOB_CALL) ||
		    (st != RS_RUNNING && st != RS_STOPPED && st != RS_BLOCKED))
			return 0;
		strbuf_addf(sb, "%s%s", j->prog->ops[0].kind == UOP_CALL ? "call " : "",
		    j->desc);
		if (tag != j->tag) {
			strbuf_addstr(sb, " > ");
			board_position(s, r, NULL, sb, verbose);
		}
		return 1;
	}
	if (rank_alive(s, r))
		describe_user(s, r, sb, verbose);
	return 1;
}

void
run_rank_gone(struct session *s, int r, int st)
{
	struct rankproc *rp = &s->rp[r];
	struct seg_rank *b = seg_board(&s->seg, r);
	enum rank_state was = rank_state_of(s, r);
	struct strbuf ctx = STRBUF_INIT;
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;

	if (was == RS_STARTING) {
		strbuf_addstr(&ctx, " before cdb_init");
	} else if (was != RS_EXITED) {
		if (!WIFSIGNALED(st))
			strbuf_addstr(&ctx, " without cdb_finalize,");
		strbuf_addstr(&ctx, rp->jobs != NULL ? " during " : " ");
		describe_user(s, r, &ctx, 0);
	}
	if (WIFSIGNALED(st)) {
		seg_set_state(b, RS_DEAD);
		rp->death = xasprintf("killed by %s%s", signame(WTERMSIG(st)), ctx.buf);
		out_event(r, "[rank %d] died: %s", r, rp->death);
	} else {
		seg_set_state(b, RS_EXITED);
		rp->death = xasprintf("exited with status %d%s", code, ctx.buf);
		/* like mpirun, --batch is quiet about ranks that ended well */
		if (!batch_mode || code != 0 || was != RS_EXITED)
			out_event(r, "[rank %d] %s", r, rp->death);
	}
	strbuf_release(&ctx);
}

/* A store the shell made for rank r may satisfy the wait it sleeps in:
 * notify wakes its waiter itself, a plain store (set, fill) does not. */
static void
wake_after_fill(struct exec *ex, const struct uop *u, void *arg)
{
	struct session *s = arg;
	struct seg_rank *b = seg_board(&s->seg, ex->t->rank);
	uint64_t off = atomic_load(&b->wait_off);

	if (atomic_load(&b->sleeping) && off >= u->dst &&
	    off < u->dst + u->count * dtype_size((enum dtype)u->dtype))
		futex_wake(seg_area(&s->seg, ex->t->rank) + off, 1 << 30);
}

int
run_submit(struct cmdctx *ctx, int r, struct prog *p, char *desc)
{
	struct session *s = ctx->s;
	struct transport t;
	struct exec ex;
	char *cause = NULL;
	int rc = -1;

	shm_transport_init(&t, &s->seg, r);
	t.nonblock = 1;
	exec_init(&ex, &t);
	ex.after_op = wake_after_fill;
	ex.after_arg = s;
	exec_reserve(&ex, p->acc_bytes);
	for (size_t i = 0; i < p->nops; i++) {
		if (exec_check(&p->ops[i], s->nranks, s->seg.h->area_size,
			p->acc_bytes, &cause) != 0)
			goto out;
	}
	for (size_t i = 0; i < p->nops; i++) {
		int32_t seen;
		int x = exec_uop(&ex, &p->ops[i], &seen, &cause);

		if (x == EXEC_PENDING) {
			cause_set(&cause, "the shell cannot wait for rank %d", r);
			goto out;
		}
		if (x != EXEC_OK)
			goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		out_error("%s for rank %d: %s", desc, r, cause);
	free(cause);
	exec_release(&ex);
	t.ops->close(&t);
	prog_free(p);
	free(desc);
	return rc;
}

const char *
run_refusal(const struct cmd_entry *e)
{
	static const struct {
		const char *name, *why;
	} why[] = {
		{ "wait", "only a rank can block, and these ranks run their program; "
		    "'break wait' stops them at the program's own waits" },
		{ "start", "these ranks run their program's own calls; 'step' and "
		    "'break' stop them before those" },
		{ "free", "the program keeps pointers into its windows; they live "
		    "until the session ends" },
		{ "bench", "bench times colldb's own collectives; these ranks run "
		    "their program" },
		{ "tree", "tree shows the spans of colldb's own bench; 'trace save' "
		    "exports these ranks' spans" },
		{ "load", "load and call run in colldb's own ranks (colldb -n N); "
		    "these ranks are the program" },
		{ "call", "load and call run in colldb's own ranks (colldb -n N); "
		    "these ranks are the program" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(why); i++) {
		if (strcmp(why[i].name, e->name) == 0)
			return why[i].why;
	}
	return "these ranks run their program's own collectives; the shell "
	    "cannot issue one for them";
}
