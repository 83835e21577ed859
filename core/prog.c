/* prog.c - micro-op programs; see prog.h. */
#include <stdlib.h>
#include <string.h>

#include "prog.h"
#include "xmalloc.h"

static const char *const kind_names[UOP__COUNT] = {
	[UOP_NOTIFY] = "notify",
	[UOP_WAIT] = "wait",
	[UOP_PUT] = "put",
	[UOP_GET] = "get",
	[UOP_REDUCE] = "reduce",
	[UOP_COPY] = "copy",
	[UOP_FILL] = "fill",
	[UOP_CALL] = "call",
	[UOP_LOAD] = "load",
};

static const char *const cmp_names[] = { "==", ">=", "!=", ">", "<", "<=", ">=" };

struct prog *
prog_new(const char *title)
{
	struct prog *p = xcalloc(1, sizeof *p);

	p->title = xstrdup(title);
	prog_str(p, "");
	return p;
}

struct prog *
prog_new_gen(const char *title, struct prog_gen *g, int rank, int grank,
    size_t acc_bytes)
{
	struct prog *p = prog_new(title);

	g->refs++;
	p->gen = g;
	p->rank = rank;
	p->grank = grank;
	p->ngen = g->ops->len(g, grank);
	p->acc_bytes = acc_bytes;
	return p;
}

void
prog_gen_put(struct prog_gen *g)
{
	if (g != NULL && --g->refs == 0)
		g->ops->free(g);
}

void
prog_free(struct prog *p)
{
	if (p == NULL)
		return;
	if (p->refs > 0) {
		p->refs--;
		return;
	}
	if (p->pack != NULL) {
		free(p->pack);
	} else {
		for (size_t i = 0; i < p->nstrs; i++)
			free(p->strs[i]);
		free(p->strs);
		free(p->mops);
		free(p->title);
	}
	free(p->shash);
	free(p->name_prefix);
	prog_gen_put(p->gen);
	free(p);
}

size_t
prog_mem(const struct prog *p)
{
	size_t b = sizeof *p + p->amops * sizeof *p->mops +
	    p->astrs * sizeof *p->strs + p->shcap * sizeof *p->shash;

	for (size_t i = 0; i < p->nstrs; i++)
		b += strlen(p->strs[i]) + 1 + 16; /* + malloc's overhead */
	return b;
}

static uint32_t
str_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static void
shash_insert(struct prog *p, uint32_t idx)
{
	size_t mask = p->shcap - 1, i = str_hash(p->strs[idx]) & mask;

	while (p->shash[i] != 0)
		i = (i + 1) & mask;
	p->shash[i] = idx + 1;
}

/*
 * Collectives on large buffers intern tens of thousands of distinct span
 * names (one per chunk), so lookup must not scan the table.
 */
static void *
memdup(const void *src, size_t n)
{
	void *d = xmalloc(n);

	memcpy(d, src, n);
	return d;
}

/* A decoded program about to change: its parts out of the one block. */
static void
unpack(struct prog *p)
{
	void *pack = p->pack;

	if (pack == NULL)
		return;
	p->pack = NULL;
	p->title = xstrdup(p->title);
	p->mops = memdup(p->mops, (p->nmops ? p->nmops : 1) * sizeof *p->mops);
	p->amops = p->nmops;
	p->strs = memdup(p->strs, (p->nstrs ? p->nstrs : 1) * sizeof *p->strs);
	p->astrs = p->nstrs;
	for (size_t i = 0; i < p->nstrs; i++)
		p->strs[i] = xstrdup(p->strs[i]);
	free(pack);
}

uint32_t
prog_str(struct prog *p, const char *s)
{
	size_t mask, i;

	unpack(p);
	if (p->shcap < 2 * (p->nstrs + 1)) {
		size_t cap = p->shcap ? p->shcap : 64;

		while (cap < 4 * (p->nstrs + 1))
			cap *= 2;
		free(p->shash);
		p->shash = xcalloc(cap, sizeof *p->shash);
		p->shcap = cap;
		for (size_t k = 0; k < p->nstrs; k++)
			shash_insert(p, (uint32_t)k);
	}
	mask = p->shcap - 1;
	for (i = str_hash(s) & mask; p->shash[i] != 0; i = (i + 1) & mask) {
		if (strcmp(p->strs[p->shash[i] - 1], s) == 0)
			return p->shash[i] - 1;
	}
	if (p->nstrs == p->astrs) {
		p->astrs = p->astrs ? p->astrs * 2 : 16;
		p->strs = xreallocarray(p->strs, p->astrs, sizeof *p->strs);
	}
	p->strs[p->nstrs] = xstrdup(s);
	p->shash[i] = (uint32_t)p->nstrs + 1;
	return (uint32_t)p->nstrs++;
}

struct prog *
prog_ref(struct prog *p)
{
	p->refs++;
	return p;
}

void
prog_shrink(struct prog *p)
{
	if (p->refs > 0 || p->pack != NULL)
		return; /* shared (others read its arrays), or exact already */
	if (p->nmops < p->amops && p->nmops > 0) {
		p->mops = xreallocarray(p->mops, p->nmops, sizeof *p->mops);
		p->amops = p->nmops;
	}
	if (p->nstrs < p->astrs && p->nstrs > 0) {
		p->strs = xreallocarray(p->strs, p->nstrs, sizeof *p->strs);
		p->astrs = p->nstrs;
	}
	free(p->shash); /* rebuilt if a string is interned again */
	p->shash = NULL;
	p->shcap = 0;
}

const char *
prog_str_at(const struct prog *p, uint32_t idx)
{
	return idx < p->nstrs ? p->strs[idx] : "";
}

struct uop *
prog_add(struct prog *p, const struct uop *u)
{
	unpack(p);
	if (p->nmops == p->amops) {
		p->amops = p->amops ? p->amops * 2 : 16;
		p->mops = xreallocarray(p->mops, p->amops, sizeof *p->mops);
	}
	p->mops[p->nmops] = *u;
	return &p->mops[p->nmops++];
}

/* ---- names ---------------------------------------------------------------- */

/* Decimal, without printf (names are formatted on the ranks' path). */
static void
add_int(struct strbuf *sb, int64_t v)
{
	char buf[24], *e = buf + sizeof buf, *b = e;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do
		*--b = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--b = '-';
	strbuf_add(sb, b, (size_t)(e - b));
}

void
blk_name_add(const struct blk_name *n, struct strbuf *sb)
{
	int ks = 0, ki = 0;

	if (n->fmt == NULL)
		return;
	for (const char *f = n->fmt; *f != '\0'; f++) {
		if (f[0] != '%' || f[1] == '\0') {
			strbuf_addch(sb, *f);
			continue;
		}
		f++;
		if (*f == 's' && ks < (int)ARRAY_SIZE(n->s))
			strbuf_addstr(sb, n->s[ks] != NULL ? n->s[ks] : "");
		else if (*f == 'd' && ki < (int)ARRAY_SIZE(n->i))
			add_int(sb, n->i[ki]);
		else
			BUG("bad block name format '%s'", n->fmt);
		ks += *f == 's';
		ki += *f == 'd';
	}
	if (n->sfx != NULL)
		strbuf_addstr(sb, n->sfx);
}

/* ---- readers ---------------------------------------------------------------- */

void
prog_rd_init(struct prog_rd *rd, const struct prog *p)
{
	memset(rd, 0, sizeof *rd);
	rd->p = p;
}

const struct blk *
prog_rd_block(struct prog_rd *rd, uint64_t pc)
{
	const struct prog *p = rd->p;

	if (pc >= p->ngen)
		BUG("block %llu of a program with %llu generated ops",
		    (unsigned long long)pc, (unsigned long long)p->ngen);
	if (rd->have && pc >= rd->b.start && pc - rd->b.start < rd->b.len)
		return &rd->b;
	p->gen->ops->block(p->gen, p->grank, pc, rd->have ? &rd->b : NULL,
	    &rd->b);
	if (pc < rd->b.start || pc - rd->b.start >= rd->b.len)
		BUG("generator: block [%llu,+%llu) does not hold %llu",
		    (unsigned long long)rd->b.start,
		    (unsigned long long)rd->b.len, (unsigned long long)pc);
	rd->have = 1;
	return &rd->b;
}

int
prog_rd_op(struct prog_rd *rd, uint64_t pc, struct uop *u)
{
	const struct prog *p = rd->p;
	const struct blk *b;

	if (pc < p->ngen) {
		b = prog_rd_block(rd, pc);
		blk_op(b, pc - b->start, u);
		return 0;
	}
	if (pc - p->ngen < p->nmops) {
		*u = p->mops[pc - p->ngen];
		return 0;
	}
	memset(u, 0, sizeof *u);
	return -1;
}

void
prog_rd_name(struct prog_rd *rd, uint64_t pc, struct strbuf *sb)
{
	const struct prog *p = rd->p;

	if (pc < p->ngen) {
		if (p->name_prefix != NULL)
			strbuf_addstr(sb, p->name_prefix);
		blk_name_add(&prog_rd_block(rd, pc)->name, sb);
	} else if (pc - p->ngen < p->nmops) {
		strbuf_addstr(sb, prog_str_at(p, p->mops[pc - p->ngen].name));
	}
}

void
prog_rd_phase(struct prog_rd *rd, uint64_t pc, struct strbuf *sb)
{
	const struct prog *p = rd->p;

	if (pc < p->ngen)
		blk_name_add(&prog_rd_block(rd, pc)->phase, sb);
	else if (pc - p->ngen < p->nmops)
		strbuf_addstr(sb, prog_str_at(p, p->mops[pc - p->ngen].phase));
}

size_t
prog_rd_fill(struct prog_rd *rd, uint64_t pc, struct uop *out, size_t max)
{
	const struct prog *p = rd->p;
	size_t n = 0;

	while (n < max && pc < p->ngen) {
		const struct blk *b = prog_rd_block(rd, pc);
		uint64_t i = pc - b->start;

		for (; i < b->len && n < max; i++, pc++)
			blk_op(b, i, &out[n++]);
	}
	for (; n < max && pc - p->ngen < p->nmops; pc++)
		out[n++] = p->mops[pc - p->ngen];
	return n;
}

struct prog *
prog_materialise(const struct prog *p)
{
	struct prog *m = prog_new(p->title);
	struct strbuf sb = STRBUF_INIT;
	struct prog_rd rd;
	uint64_t len = prog_len(p);

	m->acc_bytes = p->acc_bytes;
	m->stream_bytes = p->stream_bytes;
	prog_rd_init(&rd, p);
	for (uint64_t pc = 0; pc < len; pc++) {
		struct uop u;

		prog_rd_op(&rd, pc, &u);
		strbuf_reset(&sb);
		prog_rd_name(&rd, pc, &sb);
		u.name = prog_str(m, sb.buf);
		strbuf_reset(&sb);
		prog_rd_phase(&rd, pc, &sb);
		u.phase = prog_str(m, sb.buf);
		prog_add(m, &u);
	}
	strbuf_release(&sb);
	return m;
}

int
prog_op(const struct prog *p, uint64_t pc, struct uop *u)
{
	struct prog_rd rd;

	prog_rd_init(&rd, p);
	return prog_rd_op(&rd, pc, u);
}

void
prog_name(const struct prog *p, uint64_t pc, struct strbuf *sb)
{
	struct prog_rd rd;

	prog_rd_init(&rd, p);
	prog_rd_name(&rd, pc, sb);
}

void
prog_phase(const struct prog *p, uint64_t pc, struct strbuf *sb)
{
	struct prog_rd rd;

	prog_rd_init(&rd, p);
	prog_rd_phase(&rd, pc, sb);
}

/* ---- who owes what ----------------------------------------------------------- */

/* Consecutive owed notifies of equal op and value, merged into runs. */
struct owe_runs {
	struct prog_owe cur;
	prog_owe_fn fn;
	void *arg;
};

static void
owe_one(struct owe_runs *r, uint64_t pc, const struct uop *u)
{
	if (r->cur.count > 0 && r->cur.op == u->op && r->cur.value == u->value) {
		r->cur.count++;
		return;
	}
	if (r->cur.count > 0)
		r->fn(r->arg, &r->cur);
	r->cur.pc = pc;
	r->cur.count = 1;
	r->cur.op = u->op;
	r->cur.value = u->value;
}

static void
owe_run(void *arg, const struct prog_owe *o)
{
	struct owe_runs *r = arg;

	if (r->cur.count > 0 && r->cur.op == o->op && r->cur.value == o->value) {
		r->cur.count += o->count;
		return;
	}
	if (r->cur.count > 0)
		r->fn(r->arg, &r->cur);
	r->cur = *o;
}

/*
 * Which ops of block b are of kind, on cell off, for peer (-1: any): 0
 * none, 1 op *idx (the first), 2 every one (a block that repeats one op:
 * same peer, same cell).
 */
static int
blk_hits(const struct blk *b, int kind, int peer, uint64_t off, uint64_t *idx)
{
	int64_t p;

	if (b->t.kind != kind || (!b->peer_p && peer >= 0 && b->t.peer != peer))
		return 0;
	if (b->dst_step == 0) {
		if (b->t.dst != off)
			return 0;
		*idx = 0;
		if (b->rep == BLK_ONE)
			return !b->peer_p || peer < 0 || peer == b->me;
		if (!b->peer_p || peer < 0)
			return 2; /* every op: same cell, any peer */
		p = peer;
	} else {
		if ((int64_t)(off - b->t.dst) % b->dst_step != 0)
			return 0;
		p = (int64_t)(off - b->t.dst) / b->dst_step;
		if (b->peer_p && peer >= 0 && p != peer)
			return 0;
	}
	switch (b->rep) {
	case BLK_ONE:
		*idx = 0;
		return p == b->me && (!b->peer_p || peer < 0 || peer == b->me);
	case BLK_ALL:
		*idx = (uint64_t)p;
		return p >= 0 && (uint64_t)p < b->len;
	default:
		*idx = (uint64_t)(p - (p > b->me));
		return p >= 0 && p != b->me && *idx < b->len;
	}
}

/* World rank w in p's generator's numbering (-1: none of its ranks). */
static int
gen_dense(const struct prog *p, int w)
{
	if (w < 0 || p->gen == NULL || p->gen->ops->dense == NULL)
		return w;
	return p->gen->ops->dense(p->gen, w);
}

int
prog_find(const struct prog *p, uint64_t from, enum uop_kind kind, uint64_t off,
    int peer, struct uop *out)
{
	struct prog_rd rd;
	uint64_t pc = from, idx;
	int gpeer = gen_dense(p, peer);

	prog_rd_init(&rd, p);
	while (pc < p->ngen && (peer < 0 || gpeer >= 0)) {
		const struct blk *b = prog_rd_block(&rd, pc);

		switch (blk_hits(b, kind, gpeer, off, &idx)) {
		case 2:
			idx = pc - b->start;
			/* FALLTHROUGH */
		case 1:
			if (b->start + idx >= pc) {
				blk_op(b, idx, out);
				return 1;
			}
		}
		pc = b->start + b->len;
	}
	for (uint64_t k = pc > p->ngen ? pc - p->ngen : 0; k < p->nmops; k++) {
		const struct uop *u = &p->mops[k];
		if (u->kind == kind && u->dst == off &&
		    (peer < 0 || u->peer == peer)) {
			*out = *u;
			return 1;
		}
	}
	return 0;
}

int
prog_gen_may_owe(const struct prog *p, int t, uint64_t off)
{
	int w;

	if (p->ngen == 0)
		return 0;
	if (p->gen->ops->writer == NULL)
		return 1;
	w = p->gen->ops->writer(p->gen, off);
	return w == -2 || (w >= 0 && w == p->rank && w != t);
}

void
prog_gen_owed(const struct prog *p, uint64_t from, int t, uint64_t off,
    prog_owe_fn fn, void *arg)
{
	struct owe_runs r = { { 0 }, fn, arg };
	int gt = gen_dense(p, t);

	if (from < p->ngen && gt >= 0 && prog_gen_may_owe(p, t, off)) {
		if (p->gen->ops->owed != NULL) {
			p->gen->ops->owed(p->gen, p->grank, from, gt, off,
			    owe_run, &r);
		} else {
			struct prog_rd rd;
			uint64_t pc = from, idx;
			struct uop u;

			prog_rd_init(&rd, p);
			while (pc < p->ngen) {
				const struct blk *b = prog_rd_block(&rd, pc);

				switch (blk_hits(b, UOP_NOTIFY, gt, off, &idx)) {
				case 1:
					blk_op(b, idx, &u);
					if (b->start + idx >= from)
						owe_one(&r, b->start + idx, &u);
					break;
				case 2:
					for (uint64_t i = pc - b->start;
					     i < b->len; i++) {
						blk_op(b, i, &u);
						owe_one(&r, b->start + i, &u);
					}
					break;
				}
				pc = b->start + b->len;
			}
		}
	}
	if (r.cur.count > 0)
		fn(arg, &r.cur);
}

const char *
uop_kind_name(enum uop_kind k)
{
	return (unsigned)k < UOP__COUNT ? kind_names[k] : "?";
}

int
uop_kind_from_name(const char *s, enum uop_kind *out)
{
	for (int i = 0; i < UOP__COUNT; i++) {
		if (strcmp(kind_names[i], s) == 0) {
			*out = (enum uop_kind)i;
			return 0;
		}
	}
	return -1;
}

const char *
wait_cmp_name(enum wait_cmp c)
{
	return (unsigned)c < ARRAY_SIZE(cmp_names) ? cmp_names[c] : "?";
}

void
prog_add_deferred(struct prog *p, const struct defer_cond *c, size_t n)
{
	uint32_t name, phase;

	if (n == 0)
		return;
	name = prog_str(p, "defer_wait");
	phase = prog_str(p, "deferred");
	for (size_t i = 0; i < n; i++) {
		struct uop u;

		memset(&u, 0, sizeof u);
		u.kind = UOP_WAIT;
		u.dtype = DT_I32;
		u.op = CMP_UGE;
		u.flags = UOP_F_DEFER;
		u.peer = -1; /* whoever writes it */
		u.value = c[i].expected;
		u.dst = c[i].off;
		u.count = 1;
		u.name = name;
		u.phase = phase;
		prog_add(p, &u);
	}
}

/*
 * Wire format: "PRG1" u32 nops, u32 nstrs, u64 acc_bytes, title\0,
 * nops raw uops, then nstrs NUL-terminated strings (index 0 included).
 * Both ends are the same build on the same machine, so raw structs are fine.
 */
struct prog_wire {
	char magic[4];
	uint32_t nops;
	uint32_t nstrs;
	uint32_t title_len;
	uint64_t acc_bytes;
};

void
prog_encode(const struct prog *p, struct strbuf *out)
{
	struct prog_wire h = { { 'P', 'R', 'G', '1' }, (uint32_t)p->nmops,
		(uint32_t)p->nstrs, (uint32_t)strlen(p->title), p->acc_bytes };

	if (p->gen != NULL)
		BUG("a described program is sent as its description");
	strbuf_add(out, &h, sizeof h);
	strbuf_add(out, p->title, h.title_len + 1);
	strbuf_add(out, p->mops, p->nmops * sizeof *p->mops);
	for (size_t i = 0; i < p->nstrs; i++)
		strbuf_add(out, p->strs[i], strlen(p->strs[i]) + 1);
}

int
prog_wire_op(const void *buf, size_t len, size_t *at)
{
	struct prog_wire h;

	if (len < sizeof h)
		return -1;
	memcpy(&h, buf, sizeof h);
	if (memcmp(h.magic, "PRG1", 4) != 0 || h.nops != 1 || h.title_len >= len)
		return -1;
	*at = sizeof h + (size_t)h.title_len + 1;
	if (len - sizeof h < (size_t)h.title_len + 1 ||
	    len - *at < sizeof(struct uop))
		return -1;
	return 0;
}

struct prog *
prog_decode(const void *buf, size_t len, char **cause)
{
	const char *b = buf, *end = b + len, *sp;
	struct prog_wire h;
	struct prog *p;
	size_t sbytes, at;
	char *pack;

	if (len < sizeof h) {
		cause_set(cause, "program too short");
		return NULL;
	}
	memcpy(&h, b, sizeof h);
	b += sizeof h;
	if (memcmp(h.magic, "PRG1", 4) != 0 || h.nstrs == 0 ||
	    (size_t)(end - b) < h.title_len + 1 ||
	    (size_t)(end - b) - h.title_len - 1 <
		(size_t)h.nops * sizeof(struct uop)) {
		cause_set(cause, "malformed program");
		return NULL;
	}
	/* the strings: h.nstrs of them, each NUL-terminated inside buf */
	sp = b + h.title_len + 1 + (size_t)h.nops * sizeof(struct uop);
	sbytes = 0;
	for (uint32_t i = 0; i < h.nstrs; i++) {
		size_t n = strnlen(sp + sbytes, (size_t)(end - sp) - sbytes);
		if (sp + sbytes + n >= end || h.nstrs > (size_t)(end - sp)) {
			cause_set(cause, "malformed program strings");
			return NULL;
		}
		sbytes += n + 1;
	}
	/* One block (a decode of a user rank's call was six mallocs, most
	 * of the shell's work per call): ops, string table, title, strings.
	 * The ops come first, where malloc's alignment holds. */
	p = xcalloc(1, sizeof *p);
	pack = xmalloc((size_t)h.nops * sizeof(struct uop) +
	    (size_t)h.nstrs * sizeof(char *) + h.title_len + 1 + sbytes);
	p->pack = pack;
	p->mops = (struct uop *)(void *)pack;
	p->nmops = p->amops = h.nops;
	memcpy(p->mops, b + h.title_len + 1, h.nops * sizeof *p->mops);
	at = (size_t)h.nops * sizeof(struct uop);
	p->strs = (char **)(void *)(pack + at);
	p->nstrs = p->astrs = h.nstrs;
	at += (size_t)h.nstrs * sizeof(char *);
	p->title = pack + at;
	memcpy(p->title, b, h.title_len);
	p->title[h.title_len] = '\0';
	at += h.title_len + 1;
	memcpy(pack + at, sp, sbytes);
	for (uint32_t i = 0; i < h.nstrs; i++) {
		p->strs[i] = pack + at;
		at += strlen(pack + at) + 1;
	}
	p->acc_bytes = h.acc_bytes;
	return p;
}
