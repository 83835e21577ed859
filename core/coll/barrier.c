/*
 * barrier.c - the self-clearing credit barrier and the barrier collective.
 *
 * PyPTO (lower_composite_ops_pass.cpp EmitBarrier /
 * EmitEpilogueReset) and its builtin (barrier/templates/kernel.cpp.in):
 *
 *   barrier(g):  for peer != me: notify(peer, <my cell>, +1, add)
 *                for src  != me: wait(<src's cell>, >= g)
 *   epilogue:    for src  != me: notify(me, <src's cell>, -total, add)
 *
 * g counts 1, 2, 3, ... within one call; total is the number of barriers
 * of the call on that cell set.  Notifies go out in peer order 0..N-1 and
 * waits are issued in the same order, as PyPTO's loops do.
 *
 * Decisions:
 * - Composite and builtin barrier are the same program (the builtin kernel
 *   is barrier g=1 then -1).  They differ only in the signal shapes
 *   validate.c accepts: [N,1] for the composite, [N] or [N,1] for the
 *   builtin.
 * - The builtin kernel returns without touching anything when N > 16
 *   (kMaxSupportedRanks); that case builds an empty program, and
 *   coll_warning() says so.
 * - With one rank a barrier has no peers and emits nothing (PyPTO's loops
 *   are empty too), so no op carries UOP_F_BARRIER.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "coll-int.h"

void
emit_init(struct emit *e, struct prog *p, const struct coll_args *a,
    int nranks, int rank)
{
	memset(e, 0, sizeof *e);
	e->p = p;
	e->a = a;
	e->n = nranks;
	e->me = rank;
	e->coll = coll_kind_name(a->kind);
}

struct cellset
emit_mesh_cells(const struct emit *e)
{
	const struct win_ref *s = &e->a->sig;
	struct cellset cs = { 0, s->ndim >= 2 ? s->shape[1] : 1 };

	return cs;
}

struct cellset
emit_ring_row(const struct emit *e, uint64_t row)
{
	struct cellset cs = { row * e->a->sig.shape[1], 1 };

	return cs;
}

enum dtype
emit_dtype(const struct emit *e)
{
	return e->a->buf.dtype;
}

uint64_t
ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

uint64_t
round_up(uint64_t a, uint64_t b)
{
	return ceil_div(a, b) * b;
}

static uint64_t
cell_off(const struct emit *e, struct cellset cs, int rank)
{
	return e->a->sig.off + 4 * (cs.base + (uint64_t)rank * cs.step);
}

printflike(2, 0) static uint32_t
vintern(struct prog *p, const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof buf, fmt, ap);
	return prog_str(p, buf);
}

struct uop *
emit_signal(struct emit *e, enum uop_kind kind, int peer, uint64_t cell,
    int32_t value, uint8_t op, uint8_t flags, uint32_t name, uint32_t phase)
{
	struct uop u;

	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)kind;
	u.dtype = DT_I32;
	u.op = op;
	u.flags = flags;
	u.peer = peer;
	u.value = value;
	u.dst = cell;
	u.count = 1;
	u.name = name;
	u.phase = phase;
	return prog_add(e->p, &u);
}

void
emit_barrier(struct emit *e, struct cellset cs, int32_t gen,
    const char *phase, const char *span, ...)
{
	char base[224], name[256];
	uint32_t ph, nn, nw;
	uint8_t flags = UOP_F_BARRIER;
	va_list ap;

	if (e->n < 2)
		return;
	va_start(ap, span);
	vsnprintf(base, sizeof base, span, ap);
	va_end(ap);
	ph = prog_str(e->p, phase);
	snprintf(name, sizeof name, "%s.notify", base);
	nn = prog_str(e->p, name);
	snprintf(name, sizeof name, "%s.wait", base);
	nw = prog_str(e->p, name);
	for (int peer = 0; peer < e->n; peer++) {
		if (peer == e->me)
			continue;
		emit_signal(e, UOP_NOTIFY, peer, cell_off(e, cs, e->me), 1,
		    NOTIFY_ADD, flags, nn, ph);
		flags = 0;
	}
	for (int src = 0; src < e->n; src++) {
		if (src == e->me)
			continue;
		/* a wait names, in peer, the rank whose credits it counts */
		emit_signal(e, UOP_WAIT, src, cell_off(e, cs, src), gen,
		    CMP_GE, 0, nw, ph);
	}
}

void
emit_epilogue(struct emit *e, struct cellset cs, int32_t total)
{
	char name[128];
	uint32_t ph = prog_str(e->p, e->epi_phase != NULL ? e->epi_phase :
	    "epilogue"), nm;

	snprintf(name, sizeof name, "%s.epilogue", e->coll);
	nm = prog_str(e->p, e->epi_span != NULL ? e->epi_span : name);
	for (int src = 0; src < e->n; src++) {
		if (src == e->me)
			continue;
		emit_signal(e, UOP_NOTIFY, e->me, cell_off(e, cs, src), -total,
		    NOTIFY_ADD, UOP_F_EPILOGUE, nm, ph);
	}
}

printflike(11, 0) static void
add_data_op(struct emit *e, enum uop_kind kind, uint8_t op,
    enum uop_space dsp, uint64_t dst, enum uop_space ssp, uint64_t src,
    int peer, uint64_t count, const char *phase, const char *span,
    va_list ap)
{
	struct uop u;

	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)kind;
	u.dtype = (uint8_t)emit_dtype(e);
	u.op = op;
	u.dsp = (uint8_t)dsp;
	u.ssp = (uint8_t)ssp;
	u.peer = peer;
	u.dst = dst;
	u.src = src;
	u.count = count;
	u.name = vintern(e->p, span, ap);
	u.phase = prog_str(e->p, phase);
	prog_add(e->p, &u);
}

void
emit_copy(struct emit *e, enum uop_space dsp, uint64_t dst,
    enum uop_space ssp, uint64_t src, int peer, uint64_t count,
    const char *phase, const char *span, ...)
{
	va_list ap;

	va_start(ap, span);
	add_data_op(e, UOP_COPY, 0, dsp, dst, ssp, src, peer, count, phase,
	    span, ap);
	va_end(ap);
}

void
emit_reduce(struct emit *e, enum uop_space dsp, uint64_t dst,
    enum uop_space ssp, uint64_t src, int peer, uint64_t count,
    const char *phase, const char *span, ...)
{
	va_list ap;

	va_start(ap, span);
	add_data_op(e, UOP_REDUCE, (uint8_t)e->a->op, dsp, dst, ssp, src, peer,
	    count, phase, span, ap);
	va_end(ap);
}

void
emit_get(struct emit *e, uint64_t dst, int peer, uint64_t src,
    uint64_t count, const char *phase, const char *span, ...)
{
	va_list ap;

	va_start(ap, span);
	add_data_op(e, UOP_GET, 0, SP_OWN, dst, SP_PEER, src, peer, count,
	    phase, span, ap);
	va_end(ap);
}

void
emit_put(struct emit *e, int peer, uint64_t dst, uint64_t src,
    uint64_t count, const char *phase, const char *span, ...)
{
	va_list ap;

	va_start(ap, span);
	add_data_op(e, UOP_PUT, ATOMIC_NONE, SP_PEER, dst, SP_OWN, src, peer,
	    count, phase, span, ap);
	va_end(ap);
}

void
coll_build_barrier(struct emit *e)
{
	struct cellset cs = emit_mesh_cells(e);

	if (e->a->impl == IMPL_BUILTIN && e->n > COLL_BUILTIN_MAX_RANKS)
		return;
	emit_barrier(e, cs, 1, "barrier", "barrier");
	emit_epilogue(e, cs, 1);
}
