/*
 * check_transport.c - the shm transport and the rank runtime across real
 * processes: every test forks rank processes that attach to one segment
 * and run micro-op programs, and checks what they did.
 */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll.h"
#include "ctl.h"
#include "exec.h"
#include "futex.h"
#include "rank.h"
#include "seg.h"
#include "shm.h"

static struct seg s;
static pid_t kids[16];
static int nkids;

static void
setup(void)
{
	char *cause = NULL;

	ck_assert_msg(seg_create(&s, "unit", 4, 1 << 20, 4096, &cause) == 0,
	    "%s", cause);
	seg_unlink(&s); /* nothing leaks even if a test dies */
	nkids = 0;
}

static void
teardown(void)
{
	for (int i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	seg_close(&s);
}

/* Fork a rank that runs p and exits with its done status (+10 on error). */
static pid_t
spawn(int rank, struct prog *p, unsigned flags)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rank_ctx rc;
		struct done_info di;
		char *cause = NULL;
		int st;

		if (rank_attach(&rc, s.fd, -1, rank, &cause) != 0)
			_exit(20);
		st = rank_run(&rc, p, 1, flags, &di, &cause);
		_exit(st == DONE_ERROR ? 10 : st);
	}
	kids[nkids++] = pid;
	prog_free(p);
	return pid;
}

static int
reap(pid_t pid)
{
	int st;

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	for (int i = 0; i < nkids; i++) {
		if (kids[i] == pid)
			kids[i] = kids[--nkids];
	}
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static struct seg_window *
win(const char *name, uint64_t n, enum dtype dt)
{
	uint64_t shape[1] = { n };

	return seg_win_alloc(&s, name, shape, 1, dt, 0, NULL);
}

static struct uop
op(enum uop_kind k, int peer, uint64_t dst, int32_t v, int o)
{
	struct uop u;

	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)k;
	u.dtype = DT_I32;
	u.peer = peer;
	u.dst = dst;
	u.value = v;
	u.op = (uint8_t)o;
	u.count = 1;
	return u;
}

START_TEST(token_ring)
{
	struct seg_window *tok = win("tok", 1, DT_I32);
	const int laps = 2000, n = 4;
	pid_t pids[4];

	for (int r = 0; r < n; r++) {
		struct prog *p = prog_new("ring");
		struct uop nt =
		    op(UOP_NOTIFY, (r + 1) % n, tok->off, 1, NOTIFY_ADD);
		for (int lap = 1; lap <= laps; lap++) {
			struct uop w = op(UOP_WAIT, -1, tok->off, lap, CMP_GE);
			if (r == 0) {
				prog_add(p, &nt);
				prog_add(p, &w);
			} else {
				prog_add(p, &w);
				prog_add(p, &nt);
			}
		}
		pids[r] = spawn(r, p, 0);
	}
	for (int r = 0; r < n; r++)
		ck_assert_int_eq(reap(pids[r]), DONE_OK);
	for (int r = 0; r < n; r++)
		ck_assert_int_eq(*(int32_t *)(seg_area(&s, r) + tok->off), laps);
}
END_TEST

START_TEST(put_get_and_atomic_add)
{
	struct seg_window *x = win("x", 64, DT_F32),
			  *acc = win("acc", 64, DT_F32);
	pid_t pids[4];

	for (int r = 0; r < 4; r++) {
		for (int i = 0; i < 64; i++)
			((float *)(seg_area(&s, r) + x->off))[i] = 1.0f;
	}
	for (int r = 0; r < 4; r++) {
		struct prog *p = prog_new("adds");
		struct uop u = op(UOP_PUT, 0, acc->off, 0, ATOMIC_ADD);
		u.dtype = DT_F32;
		u.src = x->off;
		u.count = 64;
		for (int k = 0; k < 500; k++)
			prog_add(p, &u);
		pids[r] = spawn(r, p, 0);
	}
	for (int r = 0; r < 4; r++)
		ck_assert_int_eq(reap(pids[r]), DONE_OK);
	for (int i = 0; i < 64; i++)
		ck_assert(((float *)(seg_area(&s, 0) + acc->off))[i] == 2000.0f);
	/* get: rank 3 pulls rank 0's acc into its x */
	{
		struct prog *p = prog_new("get");
		struct uop u = op(UOP_GET, 0, x->off, 0, 0);
		u.dtype = DT_F32;
		u.src = acc->off;
		u.count = 64;
		prog_add(p, &u);
		ck_assert_int_eq(reap(spawn(3, p, 0)), DONE_OK);
		ck_assert(((float *)(seg_area(&s, 3) + x->off))[63] == 2000.0f);
	}
}
END_TEST

START_TEST(interrupt_cancels_wait_without_burning_cpu)
{
	struct seg_window *c = win("c", 1, DT_I32);
	struct seg_rank *b = seg_board(&s, 1);
	struct rusage ru;
	struct prog *p = prog_new("wait");
	struct uop w = op(UOP_WAIT, -1, c->off, 1, CMP_GE);
	pid_t pid;
	int st;
	double cpu;

	prog_add(p, &w);
	pid = spawn(1, p, 0);
	while (atomic_load(&b->state) != RS_BLOCKED)
		usleep(1000);
	usleep(500000);	      /* blocked half a second */
	ctl_interrupt(&s, 1); /* the flag, then the cell's wake-up */
	ck_assert_int_eq(wait4(pid, &st, 0, &ru), pid);
	nkids = 0;
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), DONE_ABORTED);
	cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	/* spin ~45 us, a few yields, then asleep in the futex */
	ck_assert_msg(cpu < 0.1, "blocked rank used %.3f s of CPU", cpu);
}
END_TEST

START_TEST(wait_giveup_like_sim)
{
	struct seg_window *c = win("c", 1, DT_I32);
	struct prog *p = prog_new("wait");
	struct uop w = op(UOP_WAIT, -1, c->off, 1, CMP_GE);

	ctl_set_wait_giveup(&s, 100);
	prog_add(p, &w);
	ck_assert_int_eq(reap(spawn(2, p, 0)), DONE_OK); /* gave up, went on */
}
END_TEST

START_TEST(step_gate_and_breakpoint)
{
	struct seg_window *c = win("c", 4, DT_I32);
	struct seg_rank *b = seg_board(&s, 0);
	struct prog *p = prog_new("steps");
	struct seg_break nb;
	pid_t pid;

	for (int i = 0; i < 4; i++) {
		struct uop u =
		    op(UOP_NOTIFY, 0, c->off + 4 * (uint64_t)i, 1, NOTIFY_ADD);
		prog_add(p, &u);
	}
	ctl_set_gate(&s, 1); /* before it is sent (ctl.h, rule 2) */
	pid = spawn(0, p, PROG_F_START);
	while (atomic_load(&b->state) != RS_STOPPED)
		usleep(1000);
	ck_assert_uint_eq(atomic_load(&b->pc), 0);
	ck_assert_int_eq(*(int32_t *)(seg_area(&s, 0) + c->off), 0);
	/* one credit: exactly one op runs, then it stops before op 2 */
	ctl_release(&s, 0, 1, 1);
	ctl_kick(&s, 0);
	while (atomic_load(&b->pc) != 1 || atomic_load(&b->state) != RS_STOPPED)
		usleep(1000);
	ck_assert_int_eq(*(int32_t *)(seg_area(&s, 0) + c->off), 1);
	ck_assert_int_eq(*(int32_t *)(seg_area(&s, 0) + c->off + 4), 0);
	/* a breakpoint on the 4th op; continue stops there */
	memset(&nb, 0, sizeof nb);
	nb.id = 1;
	nb.kinds = 1u << UOP_NOTIFY;
	nb.has_cond = 1;
	nb.cmp = CMP_EQ;
	nb.value = 1;
	nb.cell_off = c->off + 8; /* after op 3 ran */
	nb.ranks[0] = 1;
	ctl_break_set(&s, &s.h->breaks[0], &nb);
	ctl_breaks_changed(&s);
	ck_assert_int_eq(ctl_gate_needed(&s), 1);
	ctl_release(&s, 0, 0, 0); /* continue: free, past pc 1 */
	ck_assert_uint_eq(atomic_load(&b->skip_pc), 2);
	ctl_kick(&s, 0);
	while (atomic_load(&b->pc) != 3 || atomic_load(&b->state) != RS_STOPPED)
		usleep(1000);
	ck_assert_uint_eq(atomic_load(&b->stop_reason), STOP_BREAK);
	ck_assert_uint_eq(atomic_load(&b->stop_break), 1);
	ck_assert_int_eq(*(int32_t *)(seg_area(&s, 0) + c->off + 12), 0);
	ctl_release(&s, 0, 0, 0); /* past the breakpoint at pc 3 */
	ck_assert_uint_eq(atomic_load(&b->skip_pc), 4);
	ctl_kick(&s, 0);
	ck_assert_int_eq(reap(pid), DONE_OK);
	ck_assert_int_eq(*(int32_t *)(seg_area(&s, 0) + c->off + 12), 1);
}
END_TEST

START_TEST(bad_program_is_an_error_not_a_scribble)
{
	struct prog *p = prog_new("bad");
	struct uop u = op(UOP_NOTIFY, 9, 0, 1, NOTIFY_ADD);

	prog_add(p, &u);
	ck_assert_int_eq(reap(spawn(0, p, 0)), 10);
}
END_TEST

/*
 * A chunk's load (COPY own -> acc) and reduce (acc op= peer) run as one
 * pass when fused (core/exec.h): bit for bit what the two give, for
 * every dtype and op, on random bits (NaNs and subnormals included), and
 * on a whole mesh allreduce program, rank 0's view of two ranks.
 */
START_TEST(fused_load_reduce_is_bit_exact)
{
	static const enum dtype dts[] = { DT_F32, DT_F16, DT_BF16, DT_F64,
		DT_I32, DT_I8, DT_I64, DT_I16 };
	uint64_t shape[1] = { 3001 }, sig[2] = { 2, 1 };
	struct transport t;
	struct exec ex;
	uint64_t rng = 12345;

	shm_transport_init(&t, &s, 0);
	exec_init(&ex, &t);
	for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
		struct seg_window *w = seg_win_alloc(&s, "buf", shape, 1,
				      dts[d], 0, NULL),
				  *sg = seg_win_alloc(&s, "sig", sig, 2, DT_I32,
				      0, NULL);
		size_t bytes = 3001 * dtype_size(dts[d]);

		ck_assert(w != NULL && sg != NULL);
		for (int r = 0; r < 2; r++) {
			uint8_t *p = seg_area(&s, r) + w->off;
			for (size_t i = 0; i < bytes; i++) {
				rng = rng * 6364136223846793005ull +
				    1442695040888963407ull;
				p[i] = (uint8_t)(rng >> 56);
			}
		}
		for (int op = 0; op < RED__COUNT; op++) {
			struct coll_args a = { .kind = COLL_ALLREDUCE,
				.mode = MODE_MESH,
				.op = (enum reduce_op)op,
				.strict = false,
				.has_sig = true };
			struct prog *g, *p;
			void *two;
			int pairs = 0;

			seg_win_ref(w, &a.buf);
			seg_win_ref(sg, &a.sig);
			g = coll_build(&a, 2, 0);
			p = prog_materialise(g); /* every op, to pair them */
			prog_free(g);
			exec_reserve(&ex, p->acc_bytes);
			two = malloc(p->acc_bytes);
			for (size_t i = 0; i + 1 < p->nmops; i++) {
				const struct uop *u = &p->mops[i];
				int32_t seen;
				char *cause = NULL;

				if (!exec_fusable(&ex, u, u + 1))
					continue;
				pairs++;
				ck_assert_int_eq(exec_uop(&ex, u, &seen, &cause),
				    EXEC_OK);
				ck_assert_int_eq(exec_uop(&ex, u + 1, &seen,
						     &cause),
				    EXEC_OK);
				memcpy(two, ex.acc, p->acc_bytes);
				memset(ex.acc, 0x5a, p->acc_bytes);
				ck_assert_int_eq(exec_fused(&ex, u, u + 1),
				    EXEC_OK);
				ck_assert_msg(memcmp(two, ex.acc,
						  (size_t)u->count *
						      dtype_size(dtype_acc(
							  dts[d]))) == 0,
				    "%s %s: fused chunk differs",
				    dtype_name(dts[d]),
				    reduce_op_name((enum reduce_op)op));
			}
			ck_assert_int_eq(pairs, (int)((bytes + 16383) / 16384));
			free(two);
			prog_free(p);
		}
		seg_win_free(&s, sg);
		seg_win_free(&s, w);
	}
	exec_release(&ex);
	t.ops->close(&t);
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("transport");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, token_ring);
	tcase_add_test(tc, put_get_and_atomic_add);
	tcase_add_test(tc, interrupt_cancels_wait_without_burning_cpu);
	tcase_add_test(tc, wait_giveup_like_sim);
	tcase_add_test(tc, step_gate_and_breakpoint);
	tcase_add_test(tc, bad_program_is_an_error_not_a_scribble);
	tcase_add_test(tc, fused_load_reduce_is_bit_exact);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
