/*
 * check_gen.c - described collectives (core/coll/gen.c): every way of
 * reading a rank's program gives the same micro-ops, span names and
 * phases: in order through one reader (what prog_materialise() keeps), at
 * random (each lookup on its own: the generators' closed forms and the
 * ring's prefix table), backwards (hints that do not help), and in
 * windows (what the executor reads); and "who still owes this cell",
 * answered from the collective's structure (prog_gen_owed), is what a
 * scan of the materialised program finds.  Every collective, mode and
 * impl on N = 1..9 (and a few larger), several dtypes and sizes.
 *
 * Until the materialised builders were deleted this test compared the
 * generators with them, op for op over the same cases (the commit that
 * brought the generators); the plan and coll-sweep goldens pin the
 * programs since.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "prog.h"
#include "strbuf.h"
#include "xmalloc.h"

struct layout {
	uint64_t next;
};

static struct win_ref
win(struct layout *l, const char *name, enum dtype dt, int ndim, ...)
{
	struct win_ref w;
	va_list ap;

	memset(&w, 0, sizeof w);
	w.name = name;
	w.dtype = dt;
	w.ndim = ndim;
	w.count = 1;
	va_start(ap, ndim);
	for (int i = 0; i < ndim; i++) {
		w.shape[i] = va_arg(ap, uint64_t);
		w.count *= w.shape[i];
	}
	va_end(ap);
	w.off = l->next;
	l->next += (w.count * dtype_size(dt) + 31) / 32 * 32;
	return w;
}

static uint64_t ncases, nops_total;

static void
same_op(const struct uop *a, const struct uop *b, const char *what, uint64_t pc)
{
	if (!(a->kind == b->kind && a->dtype == b->dtype && a->op == b->op &&
		a->flags == b->flags && a->dsp == b->dsp && a->ssp == b->ssp &&
		a->peer == b->peer && a->value == b->value && a->dst == b->dst &&
		a->src == b->src && a->count == b->count && a->fval == b->fval))
		ck_abort_msg("%s: op %llu differs: kind %d/%d peer %d/%d value %d/%d "
			     "dst %llu/%llu "
			     "src %llu/%llu count %llu/%llu flags %d/%d op %d/%d",
		    what, (unsigned long long)pc, a->kind, b->kind, a->peer,
		    b->peer, a->value, b->value, (unsigned long long)a->dst,
		    (unsigned long long)b->dst, (unsigned long long)a->src,
		    (unsigned long long)b->src, (unsigned long long)a->count,
		    (unsigned long long)b->count, a->flags, b->flags, a->op,
		    b->op);
}

/* Owed runs collected from prog_gen_owed(). */
struct runs {
	struct prog_owe v[64];
	int n;
};

static void
collect(void *arg, const struct prog_owe *o)
{
	struct runs *r = arg;

	if (r->n >= 64)
		ck_abort_msg("too many runs");
	r->v[r->n++] = *o;
}

/* The same from a scan of the materialised ops. */
static void
scan_owed(const struct prog *old, uint64_t from, int t, uint64_t off,
    struct runs *r)
{
	r->n = 0;
	for (uint64_t k = from; k < old->nmops; k++) {
		const struct uop *u = &old->mops[k];
		struct prog_owe *c;

		if (u->kind != UOP_NOTIFY || u->peer != t || u->dst != off)
			continue;
		c = r->n > 0 ? &r->v[r->n - 1] : NULL;
		if (c != NULL && c->op == u->op && c->value == u->value) {
			c->count++;
			continue;
		}
		if (r->n >= 64)
			ck_abort_msg("too many runs");
		c = &r->v[r->n++];
		c->pc = k;
		c->count = 1;
		c->op = u->op;
		c->value = u->value;
	}
}

static void
check_owed(const struct prog *old, const struct prog *p, int n, const char *what)
{
	int me = p->rank;

	for (int t = 0; t < n; t++) {
		uint64_t seen[8];
		int nseen = 0;

		if (t == me)
			continue;
		/* every cell me notifies on t, and one it does not */
		for (uint64_t k = 0; k < old->nmops && nseen < 7; k++) {
			const struct uop *u = &old->mops[k];
			int dup = 0;

			if (u->kind != UOP_NOTIFY || u->peer != t)
				continue;
			for (int i = 0; i < nseen; i++)
				dup |= seen[i] == u->dst;
			if (!dup)
				seen[nseen++] = u->dst;
		}
		seen[nseen++] = old->nmops ? old->mops[0].dst + 4 : 4;
		for (int i = 0; i < nseen; i++) {
			uint64_t len = old->nmops;
			uint64_t froms[] = { 0, 1, len / 3, len / 2, len - 1,
				len };

			for (size_t f = 0; f < ARRAY_SIZE(froms); f++) {
				struct runs want, got = { .n = 0 };

				if (froms[f] > len)
					continue;
				scan_owed(old, froms[f], t, seen[i], &want);
				if (prog_gen_may_owe(p, t, seen[i]))
					prog_gen_owed(p, froms[f], t, seen[i],
					    collect, &got);
				if (!(got.n == want.n))
					ck_abort_msg("%s: owed to %d at %llu from %llu: "
						     "%d runs, "
						     "want %d",
					    what, t, (unsigned long long)seen[i],
					    (unsigned long long)froms[f], got.n,
					    want.n);
				for (int k = 0; k < got.n; k++)
					if (!(got.v[k].pc == want.v[k].pc &&
						got.v[k].count == want.v[k].count &&
						got.v[k].op == want.v[k].op &&
						got.v[k].value == want.v[k].value))
						ck_abort_msg("%s: owed run %d to %d: pc "
							     "%llu/%llu "
							     "count %llu/%llu",
						    what, k, t,
						    (unsigned long long)got.v[k].pc,
						    (unsigned long long)want
							.v[k]
							.pc,
						    (unsigned long long)got.v[k].count,
						    (unsigned long long)want
							.v[k]
							.count);
			}
		}
	}
}

/* Rank r of a on n ranks: described == materialised. */
static void
compare_rank(const struct coll_args *a, struct prog_gen *g, int n, int r,
    const char *what0)
{
	struct prog *p = coll_prog(g, r), *old = prog_materialise(p);
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	struct prog_rd rd;
	struct uop u, win[37];
	char what[256];
	uint64_t len = prog_len(p);

	snprintf(what, sizeof what, "%s rank %d", what0, r);
	if (!(len == old->nmops))
		ck_abort_msg("%s: %llu ops, want %zu", what,
		    (unsigned long long)len, old->nmops);
	if (!(p->acc_bytes == old->acc_bytes))
		ck_abort_msg("%s: acc %zu, want %zu", what, p->acc_bytes,
		    old->acc_bytes);
	ck_assert_str_eq(p->title, old->title);
	/* in order, through one reader */
	prog_rd_init(&rd, p);
	for (uint64_t pc = 0; pc < len; pc++) {
		if (prog_rd_op(&rd, pc, &u) != 0)
			ck_abort_msg("%s: no op %llu", what,
			    (unsigned long long)pc);
		same_op(&u, &old->mops[pc], what, pc);
		strbuf_reset(&x);
		strbuf_reset(&y);
		prog_rd_name(&rd, pc, &x);
		strbuf_addstr(&y, prog_str_at(old, old->mops[pc].name));
		if (!(strcmp(x.buf, y.buf) == 0))
			ck_abort_msg("%s: op %llu name '%s', "
				     "want '%s'",
			    what, (unsigned long long)pc, x.buf, y.buf);
		strbuf_reset(&x);
		strbuf_reset(&y);
		prog_rd_phase(&rd, pc, &x);
		strbuf_addstr(&y, prog_str_at(old, old->mops[pc].phase));
		if (!(strcmp(x.buf, y.buf) == 0))
			ck_abort_msg("%s: op %llu phase "
				     "'%s', want '%s'",
			    what, (unsigned long long)pc, x.buf, y.buf);
	}
	ck_assert_int_eq(prog_rd_op(&rd, len, &u), -1);
	/* at random: each lookup on its own, and backwards through a reader */
	for (uint64_t k = 0; k < len; k += 1 + len / 53) {
		uint64_t pc = (k * 7919) % len;
		if (prog_op(p, pc, &u) != 0)
			ck_abort_msg("%s: no op %llu", what,
			    (unsigned long long)pc);
		same_op(&u, &old->mops[pc], what, pc);
	}
	prog_rd_init(&rd, p);
	for (uint64_t pc = len; pc-- > 0;) {
		prog_rd_op(&rd, pc, &u);
		same_op(&u, &old->mops[pc], what, pc);
		if (pc > 5000)
			pc -= pc / 50;
	}
	/* in windows, as the executor reads */
	prog_rd_init(&rd, p);
	for (uint64_t pc = 0; pc < len;) {
		size_t got = prog_rd_fill(&rd, pc, win, ARRAY_SIZE(win));
		if (got == 0)
			ck_abort_msg("%s: empty window", what);
		for (size_t i = 0; i < got; i++)
			same_op(&win[i], &old->mops[pc + i], what, pc + i);
		pc += got;
	}
	if (len * (uint64_t)n < 40000)
		check_owed(old, p, n, what);
	ncases++;
	nops_total += len;
	strbuf_release(&x);
	strbuf_release(&y);
	prog_free(old);
	prog_free(p);
}

static void
compare(const struct coll_args *a, int n)
{
	char what[200], *cause = NULL;
	struct prog_gen *g;

	snprintf(what, sizeof what,
	    "%s mode=%s impl=%s%s core_num=%d dtype=%s count=%llu "
	    "root=%d domain=%d n=%d",
	    coll_kind_name(a->kind), a->mode == MODE_RING ? "ring" : "mesh",
	    a->impl == IMPL_BUILTIN ? "builtin" : "composite",
	    a->neighbour ? "-neighbour" : "", a->core_num,
	    dtype_name(a->buf.dtype), (unsigned long long)a->buf.count, a->root,
	    a->domain, n);
	if (coll_validate(a, n, &cause, NULL) != 0) {
		free(cause);
		return;
	}
	g = coll_describe(a, n);
	for (int r = 0; r < n; r++) {
		if (coll_dense(a, r) >= 0)
			compare_rank(a, g, n, r, what);
	}
	prog_gen_put(g);
}

static void
base(struct coll_args *a, enum coll_kind k, enum coll_impl impl)
{
	memset(a, 0, sizeof *a);
	a->kind = k;
	a->impl = impl;
	a->strict = false;
	a->has_sig = true;
	a->op = RED_SUM;
}

/* Domain variant dv of an n-rank world (0: none): its members. */
static int
domain(struct coll_args *a, int n, int dv)
{
	if (dv == 0)
		return n;
	a->domain = 1;
	for (int r = 0; r < n; r++) {
		if (dv == 1 ? r % 2 == 1 : r != 0)
			a->members[r / 64] |= 1ull << (r % 64);
	}
	return coll_size(a, n);
}

static const int worlds[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17 };

/* Allreduce variants: mesh, ring, their builtins, the neighbour ring, the
 * builtin mesh on core_num blocks. */
enum {
	AR_MESH,
	AR_RING,
	AR_MESH_B,
	AR_RING_B,
	AR_NEIGHBOUR,
	AR_CORES,
	AR__COUNT
};

static void
allreduce_case(int n, int dv, int v, enum dtype dt, uint64_t size, int z)
{
	struct layout l = { 64 };
	struct coll_args a;
	uint64_t m;

	base(&a, COLL_ALLREDUCE, v >= AR_MESH_B ? IMPL_BUILTIN : IMPL_COMPOSITE);
	m = (uint64_t)domain(&a, n, dv);
	a.mode = v == AR_RING || v == AR_RING_B || v == AR_NEIGHBOUR ?
	    MODE_RING :
	    MODE_MESH;
	a.neighbour = v == AR_NEIGHBOUR;
	a.core_num = v == AR_CORES ? 2 + z % 3 : 0;
	a.op = (enum reduce_op)(z % RED__COUNT);
	a.buf = win(&l, "buf", dt, 1, size);
	if (a.mode == MODE_RING)
		a.sig = win(&l, "sig", DT_I32, 2,
		    a.impl == IMPL_BUILTIN ? 2 * m - 1 : 2 * m - 2, m);
	else if (v == AR_CORES)
		a.sig = win(&l, "sig", DT_I32, 2, m, (uint64_t)(1 + z % 4));
	else if (a.impl == IMPL_BUILTIN && z % 2)
		a.sig = win(&l, "sig", DT_I32, 2, m + 2, (uint64_t)3);
	else if (a.impl == IMPL_BUILTIN)
		a.sig = win(&l, "sig", DT_I32, 1, m);
	else
		a.sig = win(&l, "sig", DT_I32, 2, m + (uint64_t)(z % 3),
		    (uint64_t)1);
	compare(&a, n);
}

START_TEST(test_allreduce)
{
	int n = worlds[_i];
	uint64_t nn = (uint64_t)n;
	uint64_t sizes[] = { 1, 2, nn > 1 ? nn - 1 : 3, nn, 3 * nn, 1001,
		4096 * nn + 5, 8192 * nn, 300, 257 };
	static const enum dtype dts[] = { DT_F32, DT_F16, DT_BF16, DT_I8, DT_F64 };

	for (int dv = 0; dv < (n > 2 ? 3 : 1); dv++) {
		for (int v = 0; v < AR__COUNT; v++) {
			for (size_t k = 0; k < ARRAY_SIZE(sizes) * 5; k++) {
				size_t z = k % ARRAY_SIZE(sizes), d = k / 10;

				/* many chunks: f32 and f16 on small worlds */
				if (sizes[z] > 4000 && (n > 9 || d > 1 || dv))
					continue;
				allreduce_case(n, dv, v, dts[d], sizes[z],
				    (int)(z + d));
			}
		}
	}
}
END_TEST

static void
other_case(int n, int dv, enum coll_kind k, enum coll_impl impl, uint64_t size,
    int root, int z)
{
	struct layout l = { 32 };
	struct coll_args a;
	enum dtype dt = z % 2 ? DT_F32 : DT_I32;
	uint64_t m;

	base(&a, k, impl);
	m = (uint64_t)domain(&a, n, dv);
	a.root = root;
	switch (k) {
	case COLL_BROADCAST:
		a.buf = win(&l, "buf", dt, 1, size);
		break;
	case COLL_ALLGATHER:
		a.src = win(&l, "src", dt, 2, (uint64_t)1, size);
		a.buf = win(&l, "dst", dt, 2, m, size);
		break;
	case COLL_ALL_TO_ALL:
		a.src = win(&l, "src", dt, 2, m, size);
		a.buf = win(&l, "dst", dt, 2, m, size);
		break;
	case COLL_ALL_TO_ALL_V:
		a.src = win(&l, "src", dt, 2, 2 * m, size);
		a.buf = win(&l, "dst", dt, 2, 2 * m, size);
		a.scount = win(&l, "sc", DT_I32, 1, m);
		a.rcount = win(&l, "rc", DT_I32, 2, m, (uint64_t)1);
		break;
	case COLL_REDUCE_SCATTER:
		a.buf = win(&l, "buf", dt, 2, m, size);
		break;
	default:
		break;
	}
	if (impl == IMPL_BUILTIN && z % 2)
		a.sig = win(&l, "sig", DT_I32, 1, m + 1);
	else
		a.sig = win(&l, "sig", DT_I32, 2, m, (uint64_t)1);
	compare(&a, n);
}

START_TEST(test_others)
{
	int n = worlds[_i];
	uint64_t sizes[] = { 1, 5, 256, 257, 1000 };
	static const enum coll_kind kinds[] = { COLL_BARRIER, COLL_BROADCAST,
		COLL_ALLGATHER, COLL_REDUCE_SCATTER, COLL_ALL_TO_ALL,
		COLL_ALL_TO_ALL_V };

	for (int dv = 0; dv < (n > 2 ? 3 : 1); dv++) {
		for (size_t k = 0; k < ARRAY_SIZE(kinds) * 2; k++) {
			for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
				int roots =
				    kinds[k / 2] == COLL_BROADCAST ? n : 1;

				for (int root = 0; root < roots; root += 1 + n / 4)
					other_case(n, dv, kinds[k / 2],
					    (enum coll_impl)(k % 2), sizes[z],
					    root, (int)z);
			}
		}
	}
}
END_TEST

/*
 * Worlds far beyond what can be materialised: a ring on 1024 ranks is
 * 8.4 million micro-ops a rank.  Random lookups (the table) agree with
 * reading in order from a little before them (the walk from a hint), and
 * the owed notifies of a row are its 2C barriers' one each.
 */
START_TEST(test_big)
{
	static const int ns[] = { 1024, 4096 };
	int n = ns[_i];
	uint64_t nn = (uint64_t)n;
	struct layout l = { 0 };
	struct coll_args a;
	struct prog_gen *g;
	char *cause = NULL;

	base(&a, COLL_ALLREDUCE, IMPL_COMPOSITE);
	a.mode = MODE_RING;
	a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)64 << 10);
	a.sig = win(&l, "sig", DT_I32, 2, 2 * nn - 2, nn);
	ck_assert_int_eq(coll_validate(&a, n, &cause, NULL), 0);
	g = coll_describe(&a, n);
	for (int r = 0; r < n; r += n / 3) {
		struct prog *p = coll_prog(g, r);
		uint64_t len = prog_len(p);
		struct prog_rd rd;
		struct uop u, v;
		struct runs got = { .n = 0 };

		/* C = 1: 2(N-1) steps of 2 barriers and 2 or 3 data ops */
		ck_assert_uint_ge(len, 2 * (nn - 1) * 4 * (nn - 1));
		for (uint64_t k = 1; k < 64; k++) {
			uint64_t pc = (k * 0x9e3779b97f4a7c15ull) % len;
			uint64_t at = pc > 5000 ? pc - 5000 : 0;

			ck_assert_int_eq(prog_op(p, pc, &u), 0);
			prog_rd_init(&rd, p);
			for (; at <= pc; at++)
				prog_rd_op(&rd, at, &v);
			same_op(&u, &v, "big", pc);
		}
		/* rank r + 1 waits on row 5's cell of r: r owes it 2 */
		prog_gen_owed(p, 0, (r + 1) % n,
		    a.sig.off + 4 * (5 * nn + (uint64_t)r), collect, &got);
		ck_assert_int_eq(got.n, 1);
		ck_assert_uint_eq(got.v[0].count, 2);
		prog_free(p);
	}
	prog_gen_put(g);
}
END_TEST

/* A program through the wire: prog_decode() keeps it in one block, and
 * the copy reads, grows and is shared (prog_ref) like any other. */
START_TEST(test_wire)
{
	struct prog *p = prog_new("ring.c:42 > step"), *q;
	struct strbuf sb = STRBUF_INIT;
	struct uop u;
	char *cause = NULL;
	size_t at = 0;

	memset(&u, 0, sizeof u);
	for (int i = 0; i < 5; i++) {
		char name[32];

		snprintf(name, sizeof name, "allreduce.rs.row%d", i % 3);
		u.kind = i % 2 ? UOP_WAIT : UOP_NOTIFY;
		u.value = i + 1;
		u.dst = (uint64_t)i * 4;
		u.name = prog_str(p, name);
		prog_add(p, &u);
	}
	p->acc_bytes = 64;
	prog_encode(p, &sb);
	q = prog_decode(sb.buf, sb.len, &cause);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(q->pack);
	ck_assert_str_eq(q->title, p->title);
	ck_assert_uint_eq(q->nmops, 5);
	ck_assert_uint_eq(q->nstrs, p->nstrs);
	ck_assert_uint_eq(q->acc_bytes, 64);
	for (size_t i = 0; i < q->nmops; i++) {
		ck_assert_int_eq(q->mops[i].value, (int32_t)i + 1);
		ck_assert_str_eq(prog_str_at(q, q->mops[i].name),
		    prog_str_at(p, p->mops[i].name));
	}
	/* shared: the last owner frees it (valgrind/ASan see the rest) */
	ck_assert_ptr_eq(prog_ref(q), q);
	prog_free(q);
	ck_assert_str_eq(q->title, p->title);
	/* growing copies it out of its block first */
	u.value = 9;
	prog_add(q, &u);
	ck_assert_ptr_null(q->pack);
	ck_assert_uint_eq(prog_str(q, "allreduce.rs.row1"), p->mops[1].name);
	ck_assert_uint_eq(prog_str(q, "new"), p->nstrs);
	ck_assert_int_eq(q->mops[5].value, 9);
	ck_assert_str_eq(q->title, p->title);
	prog_free(q);
	/* truncated anywhere: refused, nothing leaked */
	for (size_t n = 0; n < sb.len; n++) {
		ck_assert_ptr_null(prog_decode(sb.buf, n, &cause));
		free(cause);
		cause = NULL;
	}
	/* not one op: prog_wire_op() says so */
	ck_assert_int_eq(prog_wire_op(sb.buf, sb.len, &at), -1);
	strbuf_release(&sb);
	prog_free(p);
}
END_TEST

/* A program of one op: prog_wire_op() finds its op in the bytes, as
 * prog_decode() reads it; truncated, it is refused. */
START_TEST(test_wire_op)
{
	struct prog *p = prog_new("pp.c:12: wait sig[1] >= 7"), *q;
	struct strbuf sb = STRBUF_INIT;
	struct uop u, got;
	size_t at = 0;

	memset(&u, 0, sizeof u);
	u.kind = UOP_WAIT;
	u.op = CMP_GE;
	u.value = 7;
	u.dst = 12;
	u.name = prog_str(p, "wait");
	prog_add(p, &u);
	prog_encode(p, &sb);
	ck_assert_int_eq(prog_wire_op(sb.buf, sb.len, &at), 0);
	ck_assert_uint_le(at + sizeof got, sb.len);
	memcpy(&got, sb.buf + at, sizeof got);
	q = prog_decode(sb.buf, sb.len, NULL);
	ck_assert_ptr_nonnull(q);
	ck_assert_mem_eq(&got, &q->mops[0], sizeof got);
	ck_assert_int_eq(got.value, 7);
	ck_assert_uint_eq(got.dst, 12);
	prog_free(q);
	for (size_t n = 0; n < at + sizeof got; n++)
		ck_assert_int_eq(prog_wire_op(sb.buf, n, &at), -1);
	sb.buf[0] = 'X'; /* not a program */
	ck_assert_int_eq(prog_wire_op(sb.buf, sb.len, &at), -1);
	strbuf_release(&sb);
	prog_free(p);
}
END_TEST

START_TEST(test_counted)
{
	/* the loops above really compared something */
	ck_assert_uint_gt(ncases, 1000);
	ck_assert_uint_gt(nops_total, 1000000);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("gen");
	TCase *tc = tcase_create("gen");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_allreduce, 0, (int)ARRAY_SIZE(worlds));
	tcase_add_loop_test(tc, test_others, 0, (int)ARRAY_SIZE(worlds));
	tcase_add_loop_test(tc, test_big, 0, 2);
	tcase_add_test(tc, test_wire);
	tcase_add_test(tc, test_wire_op);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (failed == 0) {
		/* a separate case so the count covers every loop above */
		s = suite_create("gen-count");
		tc = tcase_create("count");
		tcase_add_test(tc, test_counted);
		suite_add_tcase(s, tc);
		sr = srunner_create(s);
		srunner_set_fork_status(sr, CK_NOFORK);
		srunner_run_all(sr, CK_NORMAL);
		failed = srunner_ntests_failed(sr);
		srunner_free(sr);
	}
	return failed == 0 ? 0 : 1;
}
