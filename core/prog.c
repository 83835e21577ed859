/* prog.c - micro-op programs; see prog.h. */
#include <stdlib.h>
#include <string.h>

#include "prog.h"
#include "xmalloc.h"

static const char *const kind_names[UOP__COUNT] = {
	[UOP_NOTIFY] = "notify", [UOP_WAIT] = "wait",	  [UOP_PUT] = "put",
	[UOP_GET] = "get",	 [UOP_REDUCE] = "reduce", [UOP_COPY] = "copy",
	[UOP_FILL] = "fill",	 [UOP_CALL] = "call",	  [UOP_LOAD] = "load",
};

static const char *const cmp_names[] = { "==", ">=", "!=", ">", "<", "<=",
	">=" };

struct prog *
prog_new(const char *title)
{
	struct prog *p = xcalloc(1, sizeof *p);

	p->title = xstrdup(title);
	prog_str(p, "");
	return p;
}

void
prog_free(struct prog *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p->shash);
	free(p->ops);
	free(p->title);
	free(p);
}

size_t
prog_mem(const struct prog *p)
{
	size_t b = sizeof *p + p->aops * sizeof *p->ops +
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
uint32_t
prog_str(struct prog *p, const char *s)
{
	size_t mask, i;

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

void
prog_shrink(struct prog *p)
{
	if (p->nops < p->aops && p->nops > 0) {
		p->ops = xreallocarray(p->ops, p->nops, sizeof *p->ops);
		p->aops = p->nops;
	}
	if (p->nstrs < p->astrs && p->nstrs > 0) {
		p->strs = xreallocarray(p->strs, p->nstrs, sizeof *p->strs);
		p->astrs = p->nstrs;
	}
	free(p->shash);	/* rebuilt if a string is interned again */
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
	if (p->nops == p->aops) {
		p->aops = p->aops ? p->aops * 2 : 16;
		p->ops = xreallocarray(p->ops, p->aops, sizeof *p->ops);
	}
	p->ops[p->nops] = *u;
	return &p->ops[p->nops++];
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
		u.peer = -1;		/* whoever writes it */
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
	struct prog_wire h = { { 'P', 'R', 'G', '1' }, (uint32_t)p->nops,
		(uint32_t)p->nstrs, (uint32_t)strlen(p->title), p->acc_bytes };

	strbuf_add(out, &h, sizeof h);
	strbuf_add(out, p->title, h.title_len + 1);
	strbuf_add(out, p->ops, p->nops * sizeof *p->ops);
	for (size_t i = 0; i < p->nstrs; i++)
		strbuf_add(out, p->strs[i], strlen(p->strs[i]) + 1);
}

struct prog *
prog_decode(const void *buf, size_t len, char **cause)
{
	const char *b = buf, *end = b + len;
	struct prog_wire h;
	struct prog *p;

	if (len < sizeof h) {
		cause_set(cause, "program too short");
		return NULL;
	}
	memcpy(&h, b, sizeof h);
	b += sizeof h;
	if (memcmp(h.magic, "PRG1", 4) != 0 || h.nstrs == 0 ||
	    (size_t)(end - b) < h.title_len + 1 ||
	    (size_t)(end - b) - h.title_len - 1 < (size_t)h.nops * sizeof(struct uop)) {
		cause_set(cause, "malformed program");
		return NULL;
	}
	p = xcalloc(1, sizeof *p);
	p->title = xstrndup(b, h.title_len);
	b += h.title_len + 1;
	p->nops = p->aops = h.nops;
	p->ops = xreallocarray(NULL, h.nops ? h.nops : 1, sizeof *p->ops);
	memcpy(p->ops, b, h.nops * sizeof *p->ops);
	b += h.nops * sizeof *p->ops;
	p->acc_bytes = h.acc_bytes;
	p->astrs = h.nstrs;
	p->strs = xreallocarray(NULL, h.nstrs, sizeof *p->strs);
	for (uint32_t i = 0; i < h.nstrs; i++) {
		size_t n = strnlen(b, (size_t)(end - b));
		if (b + n >= end) {
			p->nstrs = i;
			prog_free(p);
			cause_set(cause, "malformed program strings");
			return NULL;
		}
		p->strs[i] = xstrndup(b, n);
		p->nstrs = i + 1;
		b += n + 1;
	}
	return p;
}
