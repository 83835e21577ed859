/*
 * check_explore.c - the schedule explorer (core/explore.h) and its
 * simulator (core/sim.h).
 *
 * The reduction is checked against brute force: EXPLORE_F_NAIVE runs
 * every interleaving with the same checks, and on small cases (the known
 * bugs, and random programs) both must reach the same set of end states
 * and the same kinds of findings, with far fewer executions.  Then the
 * findings the explorer must make, and the proofs: every built-in
 * collective, mode and impl on 2, 3 and 4 ranks, called twice, is
 * exhaustively OK.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "explore.h"
#include "prog.h"
#include "xmalloc.h"

/* ---- building worlds ------------------------------------------------------ */

static struct prog *
one(enum uop_kind k, int peer, uint64_t dst, uint64_t src, uint64_t count,
    int op, int32_t value, enum dtype dt, double fval)
{
	struct prog *p = prog_new(uop_kind_name(k));
	struct uop u;

	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)k;
	u.peer = peer;
	u.dst = dst;
	u.src = src;
	u.count = count;
	u.op = (uint8_t)op;
	u.value = value;
	u.dtype = (uint8_t)dt;
	u.fval = fval;
	prog_add(p, &u);
	return p;
}

#define NOTIFY(r, c, peer, cell, v, op) \
	explore_push(x, r, c, \
	    one(UOP_NOTIFY, peer, cell, 0, 1, op, v, DT_I32, 0))
#define WAIT(r, c, cell, cmp, v) \
	explore_push(x, r, c, one(UOP_WAIT, 0, cell, 0, 1, cmp, v, DT_I32, 0))
#define PUT(r, c, peer, dst, src, n) \
	explore_push(x, r, c, one(UOP_PUT, peer, dst, src, n, 0, 0, DT_F32, 0))
#define GET(r, c, peer, dst, src, n) \
	explore_push(x, r, c, one(UOP_GET, peer, dst, src, n, 0, 0, DT_F32, 0))
#define FILL(r, c, dst, n, v) \
	explore_push(x, r, c, \
	    one(UOP_FILL, 0, dst, 0, n, FILL_VALUE, 0, DT_F32, v))

enum { SIG = 0, DATA = 32, SEEN = 64, AREA = 128 };

static struct win_ref
win(uint64_t *next, enum dtype dt, uint64_t a, uint64_t b)
{
	struct win_ref w;

	memset(&w, 0, sizeof w);
	w.dtype = dt;
	w.ndim = b ? 2 : 1;
	w.shape[0] = a;
	w.shape[1] = b;
	w.count = a * (b ? b : 1);
	w.off = *next;
	*next += (w.count * dtype_size(dt) + 31) / 32 * 32;
	return w;
}

/* Lesson 12: a broadcast, then root refills its buffer. */
static struct explore *
bcast_refill(int n)
{
	struct coll_args a;
	uint64_t next = 0;
	struct explore *x;
	uint32_t c0, c1;

	memset(&a, 0, sizeof a);
	a.kind = COLL_BROADCAST;
	a.has_sig = true;
	a.strict = true;
	a.sig = win(&next, DT_I32, (uint64_t)n, 1);
	a.buf = win(&next, DT_F32, 4, 0);
	x = explore_new(n, next);
	for (int i = 0; i < 4; i++)
		((float *)(explore_area(x, 0) + a.buf.off))[i] = 7;
	c0 = explore_call(x, XEV_F_SELFCLEAR | XEV_F_EXCLUSIVE);
	c1 = explore_call(x, 0);
	for (int r = 0; r < n; r++)
		explore_push(x, r, c0, coll_build(&a, n, r));
	FILL(0, c1, a.buf.off, 4, 9);
	return x;
}

/* Lesson 9: the data is put after the notify that announces it. */
static struct explore *
put_after_notify(void)
{
	struct explore *x = explore_new(2, AREA);

	NOTIFY(0, 0, 1, SIG, 1, NOTIFY_ADD);
	PUT(0, 0, 1, DATA, DATA, 4);
	WAIT(1, 0, SIG, CMP_GE, 1);
	GET(1, 0, 1, SEEN, DATA, 4);
	return x;
}

/* A raw handshake run twice on one cell. */
static struct explore *
reused_signal(void)
{
	struct explore *x = explore_new(2, AREA);

	for (int k = 0; k < 2; k++) {
		uint32_t c = explore_call(x, XEV_F_SELFCLEAR);

		PUT(0, c, 1, DATA, DATA, 4);
		NOTIFY(0, c, 1, SIG, 1, NOTIFY_ADD);
		WAIT(1, c, SIG, CMP_GE, 1);
		GET(1, c, 1, SEEN, DATA, 4);
	}
	return x;
}

/* Lesson 5: two ranks Set one cell, the third waits for both. */
static struct explore *
set_shared(void)
{
	struct explore *x = explore_new(3, AREA);

	NOTIFY(1, 0, 0, SIG, 1, NOTIFY_SET);
	NOTIFY(2, 0, 0, SIG, 1, NOTIFY_SET);
	WAIT(0, 0, SIG, CMP_GE, 2);
	return x;
}

/* A credit barrier that notifies only its neighbours but whose epilogue
 * clears every row, called twice. */
static struct explore *
neighbour_barrier(int n)
{
	struct explore *x = explore_new(n, AREA);

	for (int k = 0; k < 2; k++) {
		uint32_t c = explore_call(x, XEV_F_SELFCLEAR);

		for (int r = 0; r < n; r++) {
			int l = (r + n - 1) % n, rr = (r + 1) % n;

			NOTIFY(r, c, l, 4 * r, 1, NOTIFY_ADD);
			NOTIFY(r, c, rr, 4 * r, 1, NOTIFY_ADD);
			WAIT(r, c, 4 * l, CMP_GE, 1);
			WAIT(r, c, 4 * rr, CMP_GE, 1);
			for (int j = 0; j < n; j++) {
				if (j != r)
					NOTIFY(r, c, r, 4 * j, -1, NOTIFY_ADD);
			}
		}
	}
	return x;
}

static const struct explore_opts exhaustive = { .preempt = -1 };
static const struct explore_opts naive = { .preempt = -1,
	.flags = EXPLORE_F_NAIVE };

static unsigned
kinds(const struct explore *x)
{
	unsigned k = 0;

	for (int i = 0; i < XK__COUNT; i++)
		k |= (unsigned)(explore_finding(x, (enum explore_kind)i) != NULL)
		    << i;
	return k;
}

static void
run_ok(struct explore *x, const struct explore_opts *o)
{
	char *cause = NULL;

	ck_assert_msg(explore_run(x, o, &cause) == 0, "%s", cause);
}

/*
 * Explore a and b (the same world) with and without reduction: same end
 * states, same kinds of findings.  Returns the kinds; *ratio the
 * executions saved.
 */
static unsigned
same_as_brute_force(struct explore *a, struct explore *b, double *ratio)
{
	const uint64_t *ea, *eb;
	size_t na, nb;
	unsigned ka, kb;

	run_ok(a, &exhaustive);
	run_ok(b, &naive);
	ck_assert(explore_stats(a)->exhaustive);
	ck_assert(explore_stats(b)->exhaustive);
	ea = explore_end_states(a, &na);
	eb = explore_end_states(b, &nb);
	ck_assert_uint_eq(na, nb);
	ck_assert(memcmp(ea, eb, na * sizeof *ea) == 0);
	ka = kinds(a);
	kb = kinds(b);
	ck_assert_uint_eq(ka, kb);
	ck_assert_uint_le(explore_stats(a)->executions,
	    explore_stats(b)->executions);
	if (ratio != NULL)
		*ratio = (double)explore_stats(b)->executions /
		    (double)explore_stats(a)->executions;
	explore_free(a);
	explore_free(b);
	return ka;
}

/* ---- the simulator --------------------------------------------------------- */

START_TEST(test_sim_undo)
{
	struct sim *s = sim_new(2, AREA);
	uint8_t before[2][AREA];
	size_t seq, pc;
	char *cause = NULL;

	sim_push(s, 0, one(UOP_FILL, 0, DATA, 0, 4, FILL_VALUE, 0, DT_F32, 3));
	sim_push(s, 0, one(UOP_PUT, 1, DATA, DATA, 4, 0, 0, DT_F32, 0));
	sim_push(s, 0, one(UOP_NOTIFY, 1, SIG, 0, 1, NOTIFY_ADD, 5, DT_I32, 0));
	sim_push(s, 1, one(UOP_WAIT, 0, SIG, 0, 1, CMP_GE, 5, DT_I32, 0));
	ck_assert_int_eq(sim_check(s, &cause), 0);
	memcpy(before[0], sim_area(s, 0), AREA);
	memcpy(before[1], sim_area(s, 1), AREA);
	sim_record(s, 1);
	ck_assert_int_eq(sim_step(s, 1, &cause), 0); /* blocked */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(sim_step(s, 0, &cause), 1);
	ck_assert(sim_done(s, 0));
	ck_assert_int_eq(sim_cell_before(s, 2, 1, SIG), 0);
	ck_assert_int_eq(sim_cell_before(s, 3, 1, SIG), 5);
	ck_assert_int_eq(sim_step(s, 1, &cause), 1);
	ck_assert(((float *)(sim_area(s, 1) + DATA))[3] == 3.0f);
	ck_assert_uint_eq(sim_depth(s), 4);
	while (sim_depth(s) > 0)
		sim_undo(s);
	ck_assert(memcmp(before[0], sim_area(s, 0), AREA) == 0);
	ck_assert(memcmp(before[1], sim_area(s, 1), AREA) == 0);
	ck_assert_int_eq(sim_pos(s, 0, &seq, &pc), 0);
	ck_assert_uint_eq(seq, 0);
	ck_assert_uint_eq(pc, 0);
	sim_free(s);
}
END_TEST

START_TEST(test_sim_refuses_calls)
{
	struct sim *s = sim_new(1, AREA);
	struct prog *p = prog_new("call");
	struct uop u;
	char *cause = NULL;

	memset(&u, 0, sizeof u);
	u.kind = UOP_CALL;
	prog_add(p, &u);
	sim_push(s, 0, p);
	ck_assert_int_eq(sim_check(s, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "cannot be simulated"));
	free(cause);
	sim_free(s);
}
END_TEST

/* ---- against brute force ------------------------------------------------------- */

START_TEST(test_brute_force_findings)
{
	double ratio;

	ck_assert_uint_eq(same_as_brute_force(bcast_refill(2), bcast_refill(2),
			      &ratio),
	    1u << XK_RACE);
	ck_assert(ratio >= 10);
	ck_assert_uint_eq(same_as_brute_force(put_after_notify(),
			      put_after_notify(), NULL),
	    1u << XK_RACE);
	ck_assert_uint_eq(same_as_brute_force(reused_signal(), reused_signal(),
			      NULL),
	    1u << XK_RACE | 1u << XK_SIGNAL | 1u << XK_STALE);
	ck_assert_uint_eq(same_as_brute_force(set_shared(), set_shared(), NULL),
	    1u << XK_HANG);
	ck_assert_uint_eq(same_as_brute_force(neighbour_barrier(2),
			      neighbour_barrier(2), &ratio),
	    1u << XK_SIGNAL | 1u << XK_STALE);
	ck_assert(ratio >= 1000);
}
END_TEST

/* A barrier twice on 2 ranks: every interleaving, one end state. */
START_TEST(test_brute_force_barrier)
{
	struct coll_args a;
	struct explore *x[2];
	uint64_t next = 0;
	double ratio;

	memset(&a, 0, sizeof a);
	a.kind = COLL_BARRIER;
	a.has_sig = true;
	a.strict = true;
	a.sig = win(&next, DT_I32, 2, 1);
	for (int i = 0; i < 2; i++) {
		x[i] = explore_new(2, next);
		for (int k = 0; k < 2; k++) {
			uint32_t c = explore_call(x[i],
			    XEV_F_SELFCLEAR | XEV_F_EXCLUSIVE);

			for (int r = 0; r < 2; r++)
				explore_push(x[i], r, c, coll_build(&a, 2, r));
		}
	}
	ck_assert_uint_eq(same_as_brute_force(x[0], x[1], &ratio), 0);
	ck_assert(ratio >= 50);
}
END_TEST

static uint64_t
rnd(uint64_t *s, unsigned n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (*s >> 33) % n;
}

/* Random little programs: notifies (add and set), waits (>= and ==),
 * puts, gets and fills on a few cells and words, one or two calls. */
static struct explore *
random_world(uint64_t seed)
{
	uint64_t s = seed;
	int n = 2 + (int)rnd(&s, 2), calls = 1 + (int)rnd(&s, 2);
	struct explore *x = explore_new(n, 64);

	for (int c = 0; c < calls; c++) {
		uint32_t id = explore_call(x, rnd(&s, 2) ? XEV_F_SELFCLEAR : 0);

		for (int r = 0; r < n; r++) {
			int ops = (int)rnd(&s, 5);

			for (int i = 0; i < ops; i++) {
				int peer = (int)rnd(&s, (unsigned)n);
				uint64_t cell = 4 * rnd(&s, 3),
					 w = 16 + 4 * rnd(&s, 4);

				switch (rnd(&s, 6)) {
				case 0:
				case 1:
					explore_push(x, r, id,
					    one(UOP_NOTIFY, peer, cell, 0, 1,
						rnd(&s, 4) ? NOTIFY_ADD :
							     NOTIFY_SET,
						1 + (int)rnd(&s, 2) -
						    2 * (rnd(&s, 4) == 0),
						DT_I32, 0));
					break;
				case 2:
				case 3:
					explore_push(x, r, id,
					    one(UOP_WAIT, 0, cell, 0, 1,
						rnd(&s, 4) ? CMP_GE : CMP_EQ,
						(int)rnd(&s, 3), DT_I32, 0));
					break;
				case 4:
					explore_push(x, r, id,
					    one(rnd(&s, 2) ? UOP_PUT : UOP_GET,
						peer, w, 16 + 4 * rnd(&s, 4),
						1 + rnd(&s, 2), 0, 0, DT_I32, 0));
					break;
				default:
					explore_push(x, r, id,
					    one(UOP_FILL, 0, w, 0, 1 + rnd(&s, 2),
						FILL_VALUE, 0, DT_I32,
						(double)(1 + rnd(&s, 3))));
				}
			}
		}
	}
	for (int r = 0; r < n; r++) {
		if (rnd(&s, 3) == 0)
			explore_area(x, r)[4 * rnd(&s, 3)] = (uint8_t)rnd(&s, 2);
	}
	return x;
}

START_TEST(test_brute_force_random)
{
	int compared = 0, several = 0;

	for (uint64_t seed = 1; seed <= 600; seed++) {
		struct explore *a = random_world(seed), *b = random_world(seed);
		struct explore_opts o = naive;
		const uint64_t *ea, *eb;
		size_t na, nb;

		o.max = 200000;
		run_ok(b, &o);
		if (explore_stats(b)->exhaustive) {
			run_ok(a, &exhaustive);
			ea = explore_end_states(a, &na);
			eb = explore_end_states(b, &nb);
			ck_assert_msg(na == nb &&
				memcmp(ea, eb, na * sizeof *ea) == 0,
			    "seed %llu: %zu end states, brute force %zu",
			    (unsigned long long)seed, na, nb);
			ck_assert_msg(kinds(a) == kinds(b),
			    "seed %llu: findings %x, brute force %x",
			    (unsigned long long)seed, kinds(a), kinds(b));
			ck_assert_uint_le(explore_stats(a)->executions,
			    explore_stats(b)->executions);
			compared++;
			several += nb > 1;
		}
		explore_free(a);
		explore_free(b);
	}
	ck_assert_int_ge(compared, 500);
	ck_assert_int_ge(several, 50);
}
END_TEST

/* ---- findings ----------------------------------------------------------------------- */

START_TEST(test_broadcast_race)
{
	struct explore *x = bcast_refill(3);
	const struct explore_finding *f;

	run_ok(x, &exhaustive);
	ck_assert_uint_eq(kinds(x), 1u << XK_RACE);
	f = explore_finding(x, XK_RACE);
	/* the order the first execution did not take: root refills, then a
	 * slow rank copies */
	ck_assert_int_eq(f->area, 0);
	ck_assert_int_eq(f->a.at.proc, 0);
	ck_assert(f->a.write);
	ck_assert_int_gt(f->b.at.proc, 0);
	ck_assert(!f->b.write);
	ck_assert(f->replayable);
	/* and the slow rank's copy is the new data (buf is at 32) */
	ck_assert_int_eq(explore_replay(x, f, NULL), 0);
	ck_assert(
	    ((float *)(sim_area(explore_sim(x), f->b.at.proc) + 32))[0] == 9);
	explore_rewind(x);
	explore_free(x);
}
END_TEST

START_TEST(test_put_after_notify)
{
	struct explore *x = put_after_notify();
	const struct explore_finding *f;

	run_ok(x, &exhaustive);
	f = explore_finding(x, XK_RACE);
	ck_assert_ptr_nonnull(f);
	/* the stale read: rank 1 reads before rank 0's put lands */
	ck_assert_int_eq(f->a.at.proc, 1);
	ck_assert(!f->a.write);
	ck_assert_int_eq(f->b.at.proc, 0);
	ck_assert_int_eq(f->area, 1);
	ck_assert_uint_eq(f->off, DATA);
	ck_assert_uint_eq(f->len, 16);
	explore_free(x);
}
END_TEST

START_TEST(test_reused_signal)
{
	struct explore *x = reused_signal();
	const struct explore_finding *f;

	run_ok(x, &exhaustive);
	f = explore_finding(x, XK_STALE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->b.at.proc, 1);
	ck_assert_uint_eq(f->b.at.call, 1); /* the second round's wait */
	ck_assert_int_eq(f->a.at.proc, 0);
	ck_assert_uint_eq(f->call, 0); /* on the first round's credit */
	f = explore_finding(x, XK_SIGNAL);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->value, 1);
	explore_free(x);
}
END_TEST

START_TEST(test_set_shared)
{
	struct explore *x = set_shared();
	const struct explore_finding *f;
	struct diag_in in;
	struct diag_result res;

	run_ok(x, &exhaustive);
	ck_assert_uint_eq(kinds(x), 1u << XK_HANG);
	ck_assert_uint_eq(explore_stats(x)->hung, explore_stats(x)->executions);
	f = explore_finding(x, XK_HANG);
	ck_assert_int_eq(explore_replay(x, f, NULL), 0);
	explore_diag(x, f, &in);
	diag_analyze(&in, &res);
	ck_assert_int_eq(res.verdict, DIAG_HANG);
	ck_assert_int_gt(res.nfound, 0);
	ck_assert_int_eq(res.found[0].cause, CAUSE_SET_SHARED);
	diag_result_release(&res);
	explore_diag_release(&in);
	explore_rewind(x);
	explore_free(x);
}
END_TEST

START_TEST(test_neighbour_barrier)
{
	struct explore *x = neighbour_barrier(2);
	const struct explore_finding *f;

	/* two ranks: left and right are one peer, each call leaves +1 */
	run_ok(x, &exhaustive);
	ck_assert_uint_eq(kinds(x), 1u << XK_SIGNAL | 1u << XK_STALE);
	ck_assert_int_eq(explore_finding(x, XK_SIGNAL)->value, 1);
	explore_free(x);
	/* three: every peer is a neighbour, the epilogue is right */
	x = neighbour_barrier(3);
	run_ok(x, &exhaustive);
	ck_assert_uint_eq(kinds(x), 0);
	explore_free(x);
	/* four: the rows of non-neighbours go to -1 */
	x = neighbour_barrier(4);
	run_ok(x, &exhaustive);
	ck_assert_uint_eq(kinds(x), 1u << XK_SIGNAL);
	f = explore_finding(x, XK_SIGNAL);
	ck_assert_int_eq(f->value, -1);
	ck_assert_uint_eq(f->call, 0);
	explore_free(x);
}
END_TEST

START_TEST(test_bounds)
{
	struct explore *x = neighbour_barrier(4);
	struct explore_opts o = exhaustive;
	const struct explore_stats *st;

	o.max = 5;
	run_ok(x, &o);
	st = explore_stats(x);
	ck_assert_uint_eq(st->executions, 5);
	ck_assert(!st->exhaustive);
	ck_assert(st->cut & XCUT_MAX);
	ck_assert_uint_gt(st->pending, 0);
	o = exhaustive;
	o.preempt = 0;
	run_ok(x, &o);
	ck_assert(explore_stats(x)->cut & XCUT_PREEMPT);
	o = exhaustive;
	o.depth = 10;
	run_ok(x, &o);
	ck_assert(explore_stats(x)->cut & XCUT_DEPTH);
	ck_assert_uint_eq(explore_stats(x)->executions, 0);
	explore_free(x);
}
END_TEST

/* ---- proofs: the built-in collectives -------------------------------------------- */

struct pcase {
	enum coll_kind kind;
	enum coll_mode mode;
	enum coll_impl impl;
	uint64_t size; /* elements (per row for 2-D operands) */
};

static void
prove(const struct pcase *c, int n)
{
	struct coll_args a;
	struct explore *x;
	uint64_t next = 0, nn = (uint64_t)n;
	char *cause = NULL, what[96];

	memset(&a, 0, sizeof a);
	a.kind = c->kind;
	a.mode = c->mode;
	a.impl = c->impl;
	a.op = RED_SUM;
	a.has_sig = true;
	a.strict = true;
	switch (c->kind) {
	case COLL_ALLREDUCE:
	case COLL_BROADCAST:
		a.buf = win(&next, DT_F32, c->size, 0);
		break;
	case COLL_ALLGATHER:
		a.src = win(&next, DT_F32, c->size, 0);
		a.buf = win(&next, DT_F32, nn, c->size);
		break;
	case COLL_ALL_TO_ALL:
		a.src = win(&next, DT_F32, nn, c->size);
		a.buf = win(&next, DT_F32, nn, c->size);
		break;
	case COLL_REDUCE_SCATTER:
		a.buf = win(&next, DT_F32, nn, c->size);
		break;
	case COLL_ALL_TO_ALL_V:
		a.src = win(&next, DT_F32, 2 * nn, c->size);
		a.buf = win(&next, DT_F32, 2 * nn, c->size);
		a.scount = win(&next, DT_I32, nn, 0);
		a.rcount = win(&next, DT_I32, nn, 1);
		break;
	default:
		break;
	}
	if (c->kind == COLL_ALLREDUCE && c->mode == MODE_RING)
		a.sig = win(&next, DT_I32,
		    c->impl == IMPL_BUILTIN ? 2 * nn - 1 : 2 * nn - 2, nn);
	else
		a.sig = win(&next, DT_I32, nn, 1);
	snprintf(what, sizeof what, "%s mode %d impl %d size %llu on %d ranks",
	    coll_kind_name(c->kind), c->mode, c->impl,
	    (unsigned long long)c->size, n);
	ck_assert_msg(coll_validate(&a, n, &cause, NULL) == 0, "%s: %s", what,
	    cause);
	x = explore_new(n, next);
	for (int r = 0; r < n; r++) {
		uint8_t *area = explore_area(x, r);

		for (uint64_t i = 0; i < a.buf.count; i++)
			((float *)(area + a.buf.off))[i] =
			    (float)(r + 1 + (int)(i % 5));
		for (uint64_t i = 0; i < a.src.count; i++)
			((float *)(area + a.src.off))[i] =
			    (float)(10 * r + (int)(i % 7));
		for (uint64_t i = 0; i < a.scount.count; i++)
			((int32_t *)(area + a.scount.off))[i] =
			    (int32_t)((r + i) % 3);
	}
	for (int k = 0; k < 2; k++) {
		uint32_t call =
		    explore_call(x, XEV_F_SELFCLEAR | XEV_F_EXCLUSIVE);

		explore_call_signal(x, call, a.sig.off, a.sig.count * 4);
		for (int r = 0; r < n; r++)
			explore_push(x, r, call, coll_build(&a, n, r));
	}
	if (c->kind != COLL_BARRIER)
		explore_check_coll(x, &a, 2);
	ck_assert_msg(explore_run(x, &exhaustive, &cause) == 0, "%s: %s", what,
	    cause);
	ck_assert_msg(explore_stats(x)->exhaustive, "%s: not exhaustive", what);
	ck_assert_msg(kinds(x) == 0, "%s: findings %x", what, kinds(x));
	ck_assert_msg(explore_stats(x)->distinct == 1, "%s: %llu end states",
	    what, (unsigned long long)explore_stats(x)->distinct);
	explore_free(x);
}

/* Small sizes, and two chunks (16 KiB composites) or two tiles (256
 * elements, builtins). */
static const struct pcase proofs[] = {
	{ COLL_ALLREDUCE, MODE_MESH, IMPL_COMPOSITE, 5 },
	{ COLL_ALLREDUCE, MODE_MESH, IMPL_COMPOSITE, 4096 + 3 },
	{ COLL_ALLREDUCE, MODE_MESH, IMPL_BUILTIN, 5 },
	{ COLL_ALLREDUCE, MODE_MESH, IMPL_BUILTIN, 256 + 3 },
	{ COLL_ALLREDUCE, MODE_RING, IMPL_COMPOSITE, 7 },
	{ COLL_ALLREDUCE, MODE_RING, IMPL_COMPOSITE, 0 }, /* 2 chunks a segment */
	{ COLL_ALLREDUCE, MODE_RING, IMPL_BUILTIN, 0 },	  /* N per rank */
	{ COLL_ALLREDUCE, MODE_RING, IMPL_BUILTIN, 1 }, /* 2 tiles a segment */
	{ COLL_BARRIER, MODE_MESH, IMPL_COMPOSITE, 0 },
	{ COLL_BARRIER, MODE_MESH, IMPL_BUILTIN, 0 },
	{ COLL_BROADCAST, MODE_MESH, IMPL_COMPOSITE, 5 },
	{ COLL_BROADCAST, MODE_MESH, IMPL_COMPOSITE, 257 },
	{ COLL_BROADCAST, MODE_MESH, IMPL_BUILTIN, 5 },
	{ COLL_BROADCAST, MODE_MESH, IMPL_BUILTIN, 257 },
	{ COLL_ALLGATHER, MODE_MESH, IMPL_COMPOSITE, 3 },
	{ COLL_ALLGATHER, MODE_MESH, IMPL_BUILTIN, 3 },
	{ COLL_ALLGATHER, MODE_MESH, IMPL_BUILTIN, 257 },
	{ COLL_REDUCE_SCATTER, MODE_MESH, IMPL_COMPOSITE, 3 },
	{ COLL_REDUCE_SCATTER, MODE_MESH, IMPL_COMPOSITE, 257 },
	{ COLL_REDUCE_SCATTER, MODE_MESH, IMPL_BUILTIN, 3 },
	{ COLL_REDUCE_SCATTER, MODE_MESH, IMPL_BUILTIN, 257 },
	{ COLL_ALL_TO_ALL, MODE_MESH, IMPL_COMPOSITE, 3 },
	{ COLL_ALL_TO_ALL, MODE_MESH, IMPL_BUILTIN, 3 },
	{ COLL_ALL_TO_ALL, MODE_MESH, IMPL_BUILTIN, 257 },
	{ COLL_ALL_TO_ALL_V, MODE_MESH, IMPL_COMPOSITE, 3 },
	{ COLL_ALL_TO_ALL_V, MODE_MESH, IMPL_BUILTIN, 3 },
	{ COLL_ALL_TO_ALL_V, MODE_MESH, IMPL_BUILTIN, 257 },
};

START_TEST(test_proofs)
{
	int n = 2 + _i;

	for (size_t i = 0; i < sizeof proofs / sizeof proofs[0]; i++) {
		struct pcase c = proofs[i];

		if (c.kind == COLL_ALLREDUCE && c.mode == MODE_RING && c.size <= 1)
			c.size = c.impl == IMPL_BUILTIN ?
			    (c.size ? 257 * (uint64_t)n : (uint64_t)n) :
			    4097 * (uint64_t)n;
		prove(&c, n);
	}
}
END_TEST

/* ---- counting ------------------------------------------------------------------------ */

START_TEST(test_count_all)
{
	struct explore *x = put_after_notify();
	char *cause = NULL;

	/* two ranks of two steps, rank 1's wait after rank 0's notify: 3 */
	ck_assert(explore_count_all(x, 1000, &cause) == 3.0);
	explore_free(x);
	x = neighbour_barrier(2);
	ck_assert(explore_count_all(x, 100000, &cause) > 1000);
	ck_assert(explore_count_all(x, 10, &cause) < 0);
	ck_assert_ptr_nonnull(strstr(cause, "more than 10 states"));
	free(cause);
	explore_free(x);
}
END_TEST

static Suite *
explore_suite(void)
{
	Suite *s = suite_create("explore");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sim_undo);
	tcase_add_test(tc, test_sim_refuses_calls);
	tcase_add_test(tc, test_brute_force_findings);
	tcase_add_test(tc, test_brute_force_barrier);
	tcase_add_test(tc, test_brute_force_random);
	tcase_add_test(tc, test_broadcast_race);
	tcase_add_test(tc, test_put_after_notify);
	tcase_add_test(tc, test_reused_signal);
	tcase_add_test(tc, test_set_shared);
	tcase_add_test(tc, test_neighbour_barrier);
	tcase_add_test(tc, test_bounds);
	tcase_add_loop_test(tc, test_proofs, 0, 3);
	tcase_add_test(tc, test_count_all);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(explore_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
