/* rank.c - serve the shell, run programs through the gate; see rank.h. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "brk.h"
#include "call.h"
#include "coll.h"
#include "futex.h"
#include "oneside.h"
#include "rank.h"
#include "shm.h"
#include "span.h"
#include "xmalloc.h"

enum { GATE_GO, GATE_ABORT };

/* ---- fork() in a rank (rank.h) ---------------------------------------- */

volatile sig_atomic_t rank_forked;
static struct rank_ctx *fork_rc;    /* the rank this process is, or NULL */
static _Thread_local int lib_depth; /* rank_run()s on this thread */
static _Thread_local const char *lib_doing;
static int fork_said;

static void
say_add(char *buf, size_t *n, size_t max, const char *t)
{
	size_t len = strlen(t);

	if (*n + len < max) {
		memcpy(buf + *n, t, len);
		*n += len;
	}
}

/* "colldb: rank R forked " a b c "\n" on stderr: async-signal-safe (a
 * signal handler may be what forked) */
static void
fork_say(int rank, const char *a, const char *b, const char *c)
{
	char buf[256], num[12];
	size_t n = 0;
	int i = (int)sizeof num - 1;
	unsigned v = (unsigned)rank;

	num[i] = '\0';
	do {
		num[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 && i > 0);
	say_add(buf, &n, sizeof buf, "colldb: rank ");
	say_add(buf, &n, sizeof buf, num + i);
	say_add(buf, &n, sizeof buf, " forked ");
	say_add(buf, &n, sizeof buf, a);
	say_add(buf, &n, sizeof buf, b);
	say_add(buf, &n, sizeof buf, c);
	say_add(buf, &n, sizeof buf, "\n");
	(void)!write(STDERR_FILENO, buf, n);
}

static void
fork_parent(void)
{
	if (fork_rc == NULL)
		return;
	if (lib_depth > 0) {
		fork_say(fork_rc->rank, "inside ",
		    lib_doing != NULL ? lib_doing : "a colldb operation",
		    ": the child exits at once (it would "
		    "run the operation a second time)");
	} else if (!fork_said) {
		fork_said = 1;
		fork_say(fork_rc->rank,
		    "with its windows mapped: libcolldb "
		    "refuses the child",
		    " (it would act as the same rank)", "");
	}
}

static void
fork_child(void)
{
	if (fork_rc == NULL)
		return;
	if (lib_depth > 0)
		_exit(RANK_FORK_EXIT);
	rank_forked = 1;
	if (fork_rc->sock >= 0)
		close(fork_rc->sock); /* the shell's line is the rank's */
	fork_rc->sock = -1;
	fork_rc = NULL;
}

const char *
rank_lib_enter(const char *doing)
{
	const char *was = lib_doing;

	lib_depth++;
	if (doing != NULL)
		lib_doing = doing; /* the innermost says the most */
	return was;
}

void
rank_lib_leave(const char *was)
{
	if (lib_depth > 0)
		lib_depth--;
	lib_doing = was;
}

int
rank_lib_suspend(void)
{
	int d = lib_depth;

	lib_depth = 0;
	return d;
}

void
rank_lib_resume(int saved)
{
	lib_depth = saved;
}

static void
fork_register(void)
{
	pthread_atfork(NULL, fork_parent, fork_child);
}

/* How long a rank whose transport needs progress sleeps between polls
 * while it waits for the shell: idle_nap_ns() (measured: a put across
 * hosts to a rank polling every 100 us completes in about 1 ms; an idle
 * rank then backs off to 20 ms naps, so it costs little). */
static uint64_t
idle_slice(uint64_t since)
{
	return idle_nap_ns(mono_ns() - since);
}

/* Sleep while *word == val: on its futex, or driving the transport. */
static void
idle_wait(struct rank_ctx *rc, _Atomic uint32_t *word, uint32_t val)
{
	uint64_t t0;

	if (rc->t.ops->progress == NULL) {
		while (atomic_load(word) == val)
			futex_wait((void *)word, val, 0);
		return;
	}
	t0 = mono_ns();
	while (atomic_load(word) == val) {
		rc->t.ops->progress(&rc->t);
		futex_wait((void *)word, val, idle_slice(t0));
	}
}

/* Wait until the shell's socket has something (driving the transport
 * meanwhile when it needs it). */
static void
idle_recv(struct rank_ctx *rc)
{
	struct pollfd p = { rc->sock, POLLIN, 0 };
	uint64_t t0 = mono_ns();

	if (rc->t.ops->progress == NULL)
		return; /* proto_recv() blocks */
	for (;;) {
		uint64_t ns = idle_slice(t0);
		struct timespec ts = { 0, (long)ns };

		rc->t.ops->progress(&rc->t);
		if (ppoll(&p, 1, &ts, NULL) != 0)
			return;
	}
}

int
rank_attach(struct rank_ctx *rc, int seg_fd, int sock, int rank, char **cause)
{
	memset(rc, 0, sizeof *rc);
	if (seg_attach_fd(&rc->seg, seg_fd, 1, cause) != 0)
		return -1;
	if (rank < 0 || rank >= rc->seg.nranks) {
		seg_close(&rc->seg);
		return cause_set(cause, "rank %d out of range", rank);
	}
	shm_transport_init(&rc->t, &rc->seg, rank);
	rank_bind(rc, sock, rank);
	return 0;
}

void
rank_bind(struct rank_ctx *rc, int sock, int rank)
{
	rc->rank = rank;
	rc->sock = sock;
	rc->board = seg_board(&rc->seg, rank);
	rc->board->pid = (int32_t)getpid();
	exec_init(&rc->ex, &rc->t);
	seg_set_state(rc->board, RS_IDLE);
	{
		static pthread_once_t once = PTHREAD_ONCE_INIT;

		pthread_once(&once, fork_register);
	}
	fork_rc = rc;
}

void
rank_detach(struct rank_ctx *rc)
{
	if (fork_rc == rc)
		fork_rc = NULL;
	free(rc->result);
	rc->result = NULL;
	exec_release(&rc->ex);
	if (rc->t.ops != NULL)
		rc->t.ops->close(&rc->t);
	seg_close(&rc->seg);
}

static int
take_credit(struct seg_rank *b)
{
	uint32_t c = atomic_load(&b->credits);

	while (c > 0) {
		if (atomic_compare_exchange_weak(&b->credits, &c, c - 1))
			return 1;
	}
	return 0;
}

/* Decide whether to run micro-op pc; may sleep while stopped.  u is NULL
 * for a hold (no micro-op: no breakpoint can match). */
static int
gate(struct rank_ctx *rc, uint32_t pc, const struct uop *u,
    enum stop_reason forced)
{
	struct seg_rank *b = rc->board;

	for (;;) {
		uint32_t ctl = atomic_load(&b->ctl);
		enum stop_reason why = STOP_NONE;
		uint32_t bp = 0;

		atomic_store(&b->ctl_seen, ctl);
		if (atomic_exchange(&b->abort, 0))
			return GATE_ABORT;
		if (forced != STOP_NONE && atomic_load(&b->skip_pc) != pc + 1) {
			/* Sticky until the shell releases this pc (skip_pc, as
			 * for a breakpoint): the kick that follows an interrupt
			 * may arrive after the rank already stopped here. */
			why = forced;
		} else if (atomic_exchange(&b->interrupt, 0)) {
			why = forced = STOP_INTERRUPT; /* sticky too */
		} else if (u != NULL && atomic_load(&b->skip_pc) != pc + 1 &&
		    (bp = brk_match(&rc->seg, rc->rank, &rc->site, pc, u)) != 0) {
			why = STOP_BREAK;
			atomic_store(&b->credits, 0);
		} else if (atomic_load(&b->mode) == RUN_STEP && !take_credit(b)) {
			why = STOP_STEP;
		}
		if (why == STOP_NONE) {
			atomic_store(&b->skip_pc, 0);
			return GATE_GO;
		}
		atomic_store(&b->stop_reason, why);
		atomic_store(&b->stop_break, bp);
		transport_before_block(&rc->t, 1);
		seg_set_state(b, RS_STOPPED);
		idle_wait(rc, &b->ctl, ctl);
		seg_set_state(b, RS_RUNNING);
		atomic_store(&b->stop_reason, STOP_NONE);
	}
}

/* What a span records besides the time: the value a wait saw, the cell's
 * value right after a notify (read back: the line is still ours). */
static unsigned
span_value(struct rank_ctx *rc, const struct uop *u, int32_t seen, int32_t *value)
{
	uint8_t *area;

	if (u->kind == UOP_WAIT) {
		*value = seen;
		return SPAN_R_VALUE;
	}
	if (u->kind != UOP_NOTIFY ||
	    (area = rc->t.ops->area(&rc->t, u->peer)) == NULL)
		return 0;
	*value = atomic_load_explicit((_Atomic int32_t *)(area + u->dst),
	    memory_order_relaxed);
	return SPAN_R_VALUE;
}

/*
 * The executor reads a described program through a window of RUN_WIN
 * micro-ops, filled from the generator as it goes (the whole program is
 * never held); a materialised one directly.  Every op is checked before
 * it runs: a materialised program all of it before the first op, a
 * described one window by window (its generator was checked with the
 * arguments, so a failure there is a malformed message).  A repetition
 * (bench) was validated by its first run.
 */
#define RUN_WIN 256

struct run_win {
	struct prog_rd rd;
	const struct uop *ops; /* ops [base, base + n) */
	uint64_t base, n;
	struct uop buf[RUN_WIN];
};

static int
win_fill(struct rank_ctx *rc, const struct prog *p, struct run_win *w,
    uint64_t pc, char **cause)
{
	w->base = pc;
	w->n = prog_rd_fill(&w->rd, pc, w->buf, RUN_WIN);
	w->ops = w->buf;
	for (uint64_t i = 0; i < w->n && !rc->checked; i++) {
		if (exec_check(&w->buf[i], rc->seg.nranks, rc->seg.area_size,
			p->acc_bytes, cause) != 0)
			return -1;
	}
	return 0;
}

/*
 * A described program run many times in a row (bench: one message, many
 * repetitions) is generated once, before the first, when it is short
 * enough: regenerating it window by window cost 10-14% of a 2-rank mesh
 * allreduce of 1-4 MiB (perf: mesh_block, prog_rd_fill, gen_*).  The ops
 * are the generator's, so every repetition runs the same program.
 */
#define RUN_MEMO_MAX 32768 /* micro-ops: 1.8 MB */

static struct uop *
run_memo(const struct prog *p)
{
	uint64_t len = prog_len(p);
	struct prog_rd rd;
	struct uop *m;

	if (p->gen == NULL || len == 0 || len > RUN_MEMO_MAX)
		return NULL;
	m = xmalloc(len * sizeof *m);
	prog_rd_init(&rd, p);
	if (prog_rd_fill(&rd, 0, m, len) != len) {
		free(m);
		return NULL;
	}
	return m;
}

static enum span_detail
detail_of(unsigned flags)
{
	if (flags & PROG_F_SPANS_ROOTS)
		return SPAN_DETAIL_ROOTS;
	if (flags & PROG_F_SPANS_PHASES)
		return SPAN_DETAIL_PHASES;
	return SPAN_DETAIL_OPS;
}

#define store_rel(obj, v) \
	atomic_store_explicit((obj), (v), memory_order_release)

/* The board's progress counter: one writer (this rank), so no RMW. */
static inline void
progress_add(struct seg_rank *b, uint64_t n)
{
	atomic_store_explicit(&b->progress,
	    atomic_load_explicit(&b->progress, memory_order_relaxed) + n,
	    memory_order_relaxed);
}

static int run_prog(struct rank_ctx *rc, const struct prog *p, uint32_t tag,
    unsigned flags, struct done_info *di, char **cause);

int
rank_run(struct rank_ctx *rc, const struct prog *p, uint32_t tag,
    unsigned flags, struct done_info *di, char **cause)
{
	const char *was;
	int st;

	if (rank_forked) {
		/* forked after its cdb_* call checked, before the program ran:
		 * it would run the program as a second copy of the rank */
		memset(di, 0, sizeof *di);
		return cause_set(cause,
			   "this process is a fork() of a rank: "
			   "libcolldb belongs to the rank itself"),
		       DONE_ERROR;
	}
	was = rank_lib_enter(p->title); /* a fork from here on is inside it */
	st = run_prog(rc, p, tag, flags, di, cause);
	rank_lib_leave(was);
	return st;
}

static int
run_prog(struct rank_ctx *rc, const struct prog *p, uint32_t tag,
    unsigned flags, struct done_info *di, char **cause)
{
	struct seg_rank *b = rc->board;
	struct span_writer sw;
	struct run_win *w = NULL;
	uint64_t t0, t1 = 0;	  /* clock read only with spans on */
	uint64_t running_ns, now; /* the state's clock reads, which the
					 * root's start and end share */
	_Atomic uint32_t *active = &rc->seg.h->gate_active;
	enum stop_reason forced = STOP_NONE;
	enum span_detail detail = detail_of(flags);
	int status = DONE_OK;
	int first = (flags & PROG_F_START) != 0; /* stop before op 1 even
							 * if gate_active lags */
	uint64_t len = prog_len(p);
	const struct uop *ops = p->mops;
	uint64_t wbase = 0, wn = p->nmops;
	uint32_t pc = 0;

	memset(di, 0, sizeof *di);
	if (len >= UINT32_MAX) {
		cause_set(cause, "program of %llu micro-ops is too long",
		    (unsigned long long)len);
		return DONE_ERROR;
	}
	di->nops = (uint32_t)len;
	if (p->gen != NULL && (rc->memo == NULL || rc->memo_of != p)) {
		w = xmalloc(sizeof *w);
		prog_rd_init(&w->rd, p);
		if (len > 0 && win_fill(rc, p, w, 0, cause) != 0) {
			free(w);
			return DONE_ERROR;
		}
		ops = w->ops;
		wn = w->n;
	} else {
		/* Materialised, or described and generated once for every
		 * repetition (rank_serve).  Validate everything first: a bad
		 * program is an error, not a write into another rank's
		 * memory. */
		if (p->gen != NULL) {
			ops = rc->memo;
			wn = len;
		}
		for (uint64_t i = 0; i < wn && !rc->checked; i++) {
			if (exec_check(&ops[i], rc->seg.nranks,
				rc->seg.area_size, p->acc_bytes, cause) != 0)
				return DONE_ERROR;
		}
	}
	/*
	 * Release stores, then the state's seq_cst one (a full barrier on
	 * x86) publishes them all at once: one fence a call instead of ten
	 * (each was 10-20 ns, a 4 KiB allreduce takes about 1 us).
	 */
	if (!(flags & PROG_F_USER)) {
		store_rel(&b->mode, (flags & PROG_F_START) ? RUN_STEP : RUN_FREE);
		store_rel(&b->credits, 0);
		store_rel(&b->interrupt, 0); /* meant for a program that ended */
	}
	store_rel(&b->skip_pc, 0);
	store_rel(&b->abort, 0);
	store_rel(&b->prog_tag, tag);
	store_rel(&b->nops, (uint32_t)len);
	store_rel(&b->pc, 0);
	seg_write_cur(b, len ? &ops[0] : &(struct uop){ 0 }, p->title);
	running_ns = mono_ns();
	seg_set_state_at(b, RS_RUNNING, running_ns);
	exec_prepare(&rc->ex, p);
	span_writer_begin(&sw,
	    (flags & PROG_F_NOSPANS) ? NULL : seg_spans(&rc->seg, rc->rank),
	    rc->seg.span_bytes, p, rc->rank, tag, rc->iter, detail);
	if (sw.ring != NULL && detail == SPAN_DETAIL_OPS)
		t1 = running_ns;

	while (pc < len) {
		const struct uop *u;
		uint32_t step = 1;
		int gated = 0;
		int rc_;

		if (pc - wbase >= wn) {
			if (win_fill(rc, p, w, pc, cause) != 0) {
				status = DONE_ERROR;
				break;
			}
			ops = w->ops;
			wbase = w->base;
			wn = w->n;
		}
		u = &ops[pc - wbase];
		atomic_store_explicit(&b->pc, pc, memory_order_relaxed);
		seg_write_cur(b, u, NULL);
		t0 = t1;
		if (atomic_load_explicit(active, memory_order_relaxed) ||
		    forced != STOP_NONE || first) {
			if (gate(rc, pc, u, forced) == GATE_ABORT) {
				status = DONE_ABORTED;
				break;
			}
			forced = STOP_NONE;
			first = 0;
			gated = 1;
			if (sw.ring != NULL && detail == SPAN_DETAIL_OPS)
				t0 = mono_ns(); /* time stopped at the gate
						 * is nobody's */
		}
		if (detail == SPAN_DETAIL_OPS) {
			span_op_start(&sw, pc, t0);
		} else if (span_boundary(&sw, pc)) {
			t1 = pc == 0 && !gated ? running_ns : mono_ns();
			sw.last_end = t1;
			span_op_start(&sw, pc, t1);
		}
		if (u->kind == UOP_CALL || u->kind == UOP_LOAD) {
			free(rc->result);
			rc->result = NULL;
			rc_ = call_exec(rc, p, u, &rc->result, cause);
		} else if ((detail != SPAN_DETAIL_OPS || sw.ring == NULL) &&
		    !gated && pc + 1 - wbase < wn && !span_boundary(&sw, pc + 1) &&
		    exec_fusable(&rc->ex, u, u + 1)) {
			/* free running and no span between the two: nobody
			 * can tell the pair from one pass */
			rc_ = exec_fused(&rc->ex, u, u + 1);
			step = 2;
		} else {
			rc_ = exec_uop(&rc->ex, u, &di->seen, cause);
		}
		if (sw.ring != NULL && detail == SPAN_DETAIL_OPS &&
		    (rc_ == EXEC_OK || rc_ == EXEC_GAVEUP)) {
			int32_t v = 0;
			unsigned f = span_value(rc, u, di->seen, &v);

			t1 = mono_ns();
			span_op_end(&sw, pc, t0, t1, v,
			    f | (rc_ == EXEC_GAVEUP ? SPAN_R_GAVEUP : 0));
		}
		if (rc_ == EXEC_INTERRUPTED) {
			/* No longer blocked before the flag clears, so the shell
			 * never sees "blocked, nothing pending" on the way to
			 * the gate (it would stop settling too early). */
			seg_set_state(b, RS_RUNNING);
			atomic_store(&b->interrupt, 0);
			if (!(flags & PROG_F_RESUMABLE)) {
				status = DONE_ABORTED;
				break;
			}
			forced = STOP_INTERRUPT;
			continue;
		}
		if (rc_ == EXEC_ENDED) {
			status = DONE_ABORTED; /* cause says how */
			break;
		}
		if (rc_ == EXEC_GAVEUP)
			di->gaveup++;
		else if (rc_ != EXEC_OK) {
			status = DONE_ERROR;
			break;
		}
		progress_add(b, step);
		pc += step;
	}
	free(w);
	now = mono_ns();
	if (sw.ring != NULL && (detail != SPAN_DETAIL_OPS || status != DONE_OK))
		t1 = now;
	span_writer_end(&sw, t1);
	if (rc->t.ops->flush != NULL)
		rc->t.ops->flush(&rc->t); /* its writes seen before its DONE */
	di->pc = pc;
	store_rel(&b->pc, pc);
	if (flags & PROG_F_USER) {
		seg_set_state_at(b, RS_RUNNING, now); /* back in the user's code */
		return status;
	}
	store_rel(&b->mode, RUN_FREE);
	store_rel(&b->interrupt, 0);
	seg_set_state_at(b, RS_IDLE, now);
	return status;
}

void
rank_hold(struct rank_ctx *rc, const char *title)
{
	struct seg_rank *b = rc->board;

	atomic_store(&b->nops, 0);
	atomic_store(&b->pc, 0);
	atomic_store(&b->prog_tag, 0);
	seg_write_cur(b, &(struct uop){ 0 }, title);
	seg_set_state(b, RS_RUNNING);
	while (gate(rc, 0, NULL, STOP_NONE) == GATE_ABORT)
		; /* nothing to abandon: stay */
	atomic_store(&b->skip_pc, 0);
}

static void
reply(struct rank_ctx *rc, uint32_t tag, int status, const struct done_info *di,
    const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	struct msg_hdr h = { .type = MSG_DONE, .tag = tag, .status = status };

	strbuf_add(&sb, di, sizeof *di);
	if (text != NULL)
		strbuf_addstr(&sb, text);
	h.len = (uint32_t)sb.len;
	proto_send(rc->sock, &h, sb.buf);
	strbuf_release(&sb);
}

int
rank_serve(struct rank_ctx *rc)
{
	struct msg_hdr h = { .type = MSG_HELLO, .status = (int32_t)getpid() };

	if (proto_send(rc->sock, &h, NULL) != 0)
		return 1;
	for (;;) {
		struct done_info di = { 0 };
		struct prog *p = NULL;
		char *cause = NULL;
		uint32_t repeat = 1, first = 0;
		void *payload;
		int st;

		idle_recv(rc);
		st = proto_recv(rc->sock, &h, &payload);
		if (st <= 0)
			return st == 0 ? 0 : 1;
		switch (h.type) {
		case MSG_QUIT:
			free(payload);
			return 0;
		case MSG_PROG:
			p = prog_decode(payload, h.len, &cause);
			break;
		case MSG_COLL:
			if (h.len == sizeof(struct coll_msg)) {
				struct coll_msg *cm = payload;
				p = coll_build(&cm->args, rc->seg.nranks,
				    rc->rank);
				prog_add_deferred(p, cm->defer,
				    MIN(cm->ndefer, DEFER_MAX));
				repeat = cm->repeat > 1 ? cm->repeat : 1;
				first = cm->first_iter;
			} else {
				cause_set(&cause, "malformed collective message");
			}
			break;
		default:
			if (rc->other != NULL) {
				char *text = NULL;
				st = rc->other(rc, &h, payload, &text);
				free(payload);
				reply(rc, h.tag, st, &di, text);
				free(text);
				continue;
			}
			cause_set(&cause, "unexpected message %u", h.type);
		}
		free(payload);
		if (p == NULL) {
			reply(rc, h.tag, DONE_ERROR, &di, cause);
		} else {
			st = DONE_OK;
			rc->memo = repeat > 1 ? run_memo(p) : NULL;
			rc->memo_of = p;
			for (uint32_t k = 0; k < repeat && st == DONE_OK; k++) {
				rc->iter = first + k;
				rc->checked = k > 0;
				st = rank_run(rc, p, h.tag,
				    h.flags & ~PROG_F_USER, &di, &cause);
			}
			rc->iter = 0;
			rc->checked = 0;
			free(rc->memo);
			rc->memo = NULL;
			rc->memo_of = NULL;
			reply(rc, h.tag, st, &di,
			    cause != NULL ? cause : rc->result);
		}
		free(rc->result);
		rc->result = NULL;
		free(cause);
		prog_free(p);
	}
}

int
rank_pin(int rank, int nranks)
{
	cpu_set_t allowed, one;
	int n, seen = 0;

	if (getenv("COLLDB_NO_PIN") != NULL)
		return 0;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return 0;
	n = CPU_COUNT(&allowed);
	if (nranks > RANK_PIN_PER_CPU * n)
		return 0; /* a crowd: the scheduler balances it better */
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		if (seen++ == rank % n) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			return sched_setaffinity(0, sizeof one, &one) == 0;
		}
	}
	return 0;
}

int
rank_agent_main(int argc, char **argv)
{
	struct rank_ctx rc;
	char *cause = NULL;
	int rc_;

	if (argc != 5) {
		fprintf(stderr, "usage: colldb --agent SEGFD SOCKFD RANK\n");
		return 2;
	}
	/* Die with the shell; ignore the terminal's job-control keys (the
	 * shell owns the terminal and forwards what matters). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 1;
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	call_end_install(); /* interrupt ends a call that never returns */
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }); /* no core files */
	if (rank_attach(&rc, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
		&cause) != 0) {
		fprintf(stderr, "colldb agent: %s\n", cause);
		free(cause);
		return 1;
	}
	rank_pin(rc.rank, rc.seg.nranks);
	{
		/* exec of /proc/self/exe names the process "exe" */
		char comm[16];
		snprintf(comm, sizeof comm, "colldb-rank%d", rc.rank);
		prctl(PR_SET_NAME, comm);
	}
	rc_ = rank_serve(&rc);
	rank_detach(&rc);
	return rc_;
}
