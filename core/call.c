/* call.c - LOAD and CALL micro-ops through dlopen and libffi; see call.h. */
#include <dlfcn.h>
#include <ffi.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-int.h"
#include "call.h"
#include "exec.h"
#include "rank.h"
#include "xmalloc.h"

#define US '\x1f'

struct lib {
	char *name;
	char *path;
	void *handle;
};

/* The libraries this rank process loaded, in load order. */
static struct lib *libs;
static size_t nlibs;

static const char *const type_names[CT__COUNT] = {
	"void",
	"i8",
	"i16",
	"i32",
	"i64",
	"u8",
	"u16",
	"u32",
	"u64",
	"f32",
	"f64",
	"ptr",
};

const char *
call_type_name(enum call_type t)
{
	return (unsigned)t < CT__COUNT ? type_names[t] : "?";
}

int
call_type_from_name(const char *s, enum call_type *out)
{
	for (int i = 0; i < CT__COUNT; i++) {
		if (strcmp(type_names[i], s) == 0) {
			*out = (enum call_type)i;
			return 0;
		}
	}
	return -1;
}

int
call_type_is_int(enum call_type t)
{
	return t >= CT_I8 && t <= CT_U64;
}

void
call_desc_release(struct call_desc *d)
{
	free(d->lib);
	free(d->sym);
	for (int i = 0; i < d->nargs; i++)
		free(d->args[i].s);
	memset(d, 0, sizeof *d);
}

static void
add_escaped(struct strbuf *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '%')
			strbuf_addstr(out, "%25");
		else if (*s == US)
			strbuf_addstr(out, "%1F");
		else
			strbuf_addch(out, *s);
	}
}

void
call_load_encode(const char *name, const char *path, struct strbuf *out)
{
	strbuf_addch(out, 'L');
	strbuf_addch(out, US);
	add_escaped(out, name);
	strbuf_addch(out, US);
	add_escaped(out, path);
}

void
call_desc_encode(const struct call_desc *d, struct strbuf *out)
{
	strbuf_addch(out, 'C');
	strbuf_addch(out, US);
	add_escaped(out, d->lib != NULL ? d->lib : "");
	strbuf_addch(out, US);
	add_escaped(out, d->sym);
	strbuf_addch(out, US);
	strbuf_addstr(out, call_type_name(d->ret));
	for (int i = 0; i < d->nargs; i++) {
		const struct call_arg *a = &d->args[i];

		strbuf_addch(out, US);
		switch (a->kind) {
		case CA_INT:
			strbuf_addf(out, "n%s:%" PRId64,
			    call_type_name(a->type), a->i);
			break;
		case CA_FLOAT:
			strbuf_addf(out, "f%s:%a", call_type_name(a->type), a->f);
			break;
		case CA_STR:
			strbuf_addstr(out, "s:");
			add_escaped(out, a->s);
			break;
		case CA_WIN:
			strbuf_addf(out, "w:%" PRIu64, a->off);
			break;
		default:
			strbuf_addstr(out, "z:");
		}
	}
}

/* Split text at US into fields (unescaped, owned); returns the count or
 * -1 when there are more than max. */
static void free_fields(char **f, int n);

static int
split_fields(const char *text, char **f, int max)
{
	int n = 0;

	for (const char *p = text;;) {
		struct strbuf sb = STRBUF_INIT;

		if (n == max) {
			free_fields(f, n);
			return -1;
		}
		for (; *p != '\0' && *p != US; p++) {
			if (p[0] == '%' && p[1] == '2' && p[2] == '5') {
				strbuf_addch(&sb, '%');
				p += 2;
			} else if (p[0] == '%' && p[1] == '1' && p[2] == 'F') {
				strbuf_addch(&sb, US);
				p += 2;
			} else {
				strbuf_addch(&sb, *p);
			}
		}
		f[n++] = strbuf_detach(&sb, NULL);
		if (*p == '\0')
			return n;
		p++;
	}
}

static void
free_fields(char **f, int n)
{
	for (int i = 0; i < n; i++)
		free(f[i]);
}

static int
decode_arg(const char *f, struct call_arg *a, char **cause)
{
	const char *colon = strchr(f, ':');
	char tname[8], *end;

	if (colon == NULL)
		return cause_set(cause, "malformed call argument '%s'", f);
	memset(a, 0, sizeof *a);
	a->type = CT_PTR;
	switch (f[0]) {
	case 's':
		a->kind = CA_STR;
		a->s = xstrdup(colon + 1);
		return 0;
	case 'w':
		a->kind = CA_WIN;
		a->off = strtoull(colon + 1, &end, 10);
		return *end == '\0' && colon[1] != '\0' ?
		    0 :
		    cause_set(cause, "malformed window argument '%s'", f);
	case 'z':
		a->kind = CA_NULL;
		return 0;
	case 'n':
	case 'f':
		break;
	default:
		return cause_set(cause, "malformed call argument '%s'", f);
	}
	if ((size_t)(colon - f - 1) >= sizeof tname)
		return cause_set(cause, "malformed call argument '%s'", f);
	memcpy(tname, f + 1, (size_t)(colon - f - 1));
	tname[colon - f - 1] = '\0';
	if (call_type_from_name(tname, &a->type) != 0)
		return cause_set(cause, "unknown argument type '%s'", tname);
	if (f[0] == 'n') {
		a->kind = CA_INT;
		if (!call_type_is_int(a->type))
			return cause_set(cause, "integer argument of type %s",
			    tname);
		a->i = strtoll(colon + 1, &end, 10);
	} else {
		a->kind = CA_FLOAT;
		if (a->type != CT_F32 && a->type != CT_F64)
			return cause_set(cause, "float argument of type %s",
			    tname);
		a->f = strtod(colon + 1, &end);
	}
	if (*end != '\0' || colon[1] == '\0')
		return cause_set(cause, "malformed call argument '%s'", f);
	return 0;
}

int
call_desc_decode(const char *text, struct call_desc *d, char **cause)
{
	char *f[CALL_MAX_ARGS + 4];
	int n = split_fields(text, f, (int)ARRAY_SIZE(f)), rc = -1;

	memset(d, 0, sizeof *d);
	if (n < 0)
		return cause_set(cause, "too many call arguments (at most %d)",
		    CALL_MAX_ARGS);
	if (n < 4 || strcmp(f[0], "C") != 0) {
		cause_set(cause, "malformed call descriptor");
		goto out;
	}
	if (call_type_from_name(f[3], &d->ret) != 0) {
		cause_set(cause, "bad return type '%s'", f[3]);
		goto out;
	}
	d->lib = xstrdup(f[1]);
	d->sym = xstrdup(f[2]);
	for (int i = 4; i < n; i++) {
		if (decode_arg(f[i], &d->args[d->nargs], cause) != 0) {
			free(d->args[d->nargs].s);
			call_desc_release(d);
			goto out;
		}
		d->nargs++;
	}
	rc = 0;
out:
	free_fields(f, n);
	return rc;
}

static struct lib *
lib_find(const char *name)
{
	for (size_t i = 0; i < nlibs; i++) {
		if (strcmp(libs[i].name, name) == 0)
			return &libs[i];
	}
	return NULL;
}

static int
do_load(const char *text, char **cause)
{
	char *f[3];
	int n = split_fields(text, f, 3), rc = -1;
	void *h;

	if (n != 3 || strcmp(f[0], "L") != 0 || f[1][0] == '\0') {
		cause_set(cause, "malformed load descriptor");
		goto out;
	}
	if (lib_find(f[1]) != NULL) {
		cause_set(cause, "a library named '%s' is already loaded", f[1]);
		goto out;
	}
	dlerror();
	h = dlopen(f[2], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		cause_set(cause, "%s", e != NULL ? e : "dlopen failed");
		goto out;
	}
	libs = xreallocarray(libs, nlibs + 1, sizeof *libs);
	libs[nlibs].name = xstrdup(f[1]);
	libs[nlibs].path = xstrdup(f[2]);
	libs[nlibs].handle = h;
	nlibs++;
	rc = 0;
out:
	if (n > 0)
		free_fields(f, n);
	return rc;
}

static void *
resolve(const struct call_desc *d, char **cause)
{
	struct lib *l;
	void *fn;

	if (d->lib[0] != '\0') {
		if ((l = lib_find(d->lib)) == NULL) {
			cause_set(cause, "no library named '%s' is loaded",
			    d->lib);
			return NULL;
		}
		dlerror();
		fn = dlsym(l->handle, d->sym);
		if (fn == NULL)
			cause_set(cause, "unknown symbol '%s' in %s (%s)",
			    d->sym, l->name, l->path);
		return fn;
	}
	for (size_t i = 0; i < nlibs; i++) {
		if ((fn = dlsym(libs[i].handle, d->sym)) != NULL)
			return fn;
	}
	if ((fn = dlsym(RTLD_DEFAULT, d->sym)) != NULL)
		return fn;
	cause_set(cause,
	    "unknown symbol '%s' (not in %s nor in the rank process)", d->sym,
	    nlibs ? "any loaded library" : "a loaded library");
	return NULL;
}

static ffi_type *
ffi_of(enum call_type t)
{
	static ffi_type *const types[CT__COUNT] = {
		[CT_VOID] = &ffi_type_void,
		[CT_I8] = &ffi_type_sint8,
		[CT_I16] = &ffi_type_sint16,
		[CT_I32] = &ffi_type_sint32,
		[CT_I64] = &ffi_type_sint64,
		[CT_U8] = &ffi_type_uint8,
		[CT_U16] = &ffi_type_uint16,
		[CT_U32] = &ffi_type_uint32,
		[CT_U64] = &ffi_type_uint64,
		[CT_F32] = &ffi_type_float,
		[CT_F64] = &ffi_type_double,
		[CT_PTR] = &ffi_type_pointer,
	};

	return (unsigned)t < CT__COUNT ? types[t] : &ffi_type_pointer;
}

union value {
	int8_t i8;
	int16_t i16;
	int32_t i32;
	int64_t i64;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	float f32;
	double f64;
	void *p;
};

/* The value of argument a, in its C type. */
static int
arg_value(struct rank_ctx *rc, const struct call_arg *a, union value *v,
    char **cause)
{
	memset(v, 0, sizeof *v);
	switch (a->kind) {
	case CA_STR:
		v->p = a->s;
		return 0;
	case CA_NULL:
		v->p = NULL;
		return 0;
	case CA_WIN:
		if (a->off >= rc->seg.area_size)
			return cause_set(cause,
			    "window offset %llu outside the window area",
			    (unsigned long long)a->off);
		v->p = seg_area(&rc->seg, rc->rank) + a->off;
		return 0;
	case CA_FLOAT:
		if (a->type == CT_F32)
			v->f32 = (float)a->f;
		else
			v->f64 = a->f;
		return 0;
	default:
		break;
	}
	if (a->type == CT_I8)
		v->i8 = (int8_t)a->i;
	else if (a->type == CT_I16)
		v->i16 = (int16_t)a->i;
	else if (a->type == CT_I32)
		v->i32 = (int32_t)a->i;
	else if (a->type == CT_U8)
		v->u8 = (uint8_t)a->i;
	else if (a->type == CT_U16)
		v->u16 = (uint16_t)a->i;
	else if (a->type == CT_U32)
		v->u32 = (uint32_t)a->i;
	else
		v->i64 = a->i;
	return 0;
}

static char *
format_result(struct rank_ctx *rc, enum call_type ret, const void *rv)
{
	union {
		ffi_arg a;
		ffi_sarg s;
		double d;
		void *p;
		int64_t l;
	} r;
	uint8_t *area = seg_area(&rc->seg, rc->rank);

	float f;

	/* libffi widens an integer result to ffi_arg; a float stays one */
	memcpy(&r, rv, sizeof r);
	memcpy(&f, rv, sizeof f);
	switch (ret) {
	case CT_VOID:
		return xstrdup("void");
	case CT_I8:
		return xasprintf("i8 %d", (int)(int8_t)r.s);
	case CT_I16:
		return xasprintf("i16 %d", (int)(int16_t)r.s);
	case CT_I32:
		return xasprintf("i32 %" PRId32, (int32_t)r.s);
	case CT_I64:
		return xasprintf("i64 %" PRId64, r.l);
	case CT_U8:
		return xasprintf("u8 %u", (unsigned)(uint8_t)r.a);
	case CT_U16:
		return xasprintf("u16 %u", (unsigned)(uint16_t)r.a);
	case CT_U32:
		return xasprintf("u32 %" PRIu32, (uint32_t)r.a);
	case CT_U64:
		return xasprintf("u64 %" PRIu64, (uint64_t)r.l);
	case CT_F32:
		return xasprintf("f32 %.9g", (double)f);
	case CT_F64:
		return xasprintf("f64 %.17g", r.d);
	default:
		if (r.p == NULL)
			return xstrdup("ptr NULL");
		if ((uint8_t *)r.p >= area &&
		    (uint8_t *)r.p < area + rc->seg.area_size)
			return xasprintf("ptr area+%llu",
			    (unsigned long long)((uint8_t *)r.p - area));
		return xasprintf("ptr %p", r.p);
	}
}

/* 1 while the called function's own code runs (CALL_END_SIGNAL ends it),
 * 2 while it is inside libcolldb (the signal waits for the gate). */
static volatile sig_atomic_t call_state;
static sigjmp_buf call_env;

static void
on_call_end(int sig)
{
	(void)sig;
	if (call_state == 1) {
		call_state = 0;
		siglongjmp(call_env, 1);
	}
}

void
call_end_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_call_end; /* no SA_RESTART: a futex wait returns */
	sigemptyset(&sa.sa_mask);
	sigaction(CALL_END_SIGNAL, &sa, NULL);
}

void
call_nested_enter(void)
{
	if (call_state == 1)
		call_state = 2;
}

void
call_nested_leave(void)
{
	if (call_state == 2)
		call_state = 1;
}

/* The call itself, alone in its frame so nothing else lives across the
 * jump: 0 when fn returned, 1 when CALL_END_SIGNAL ended it. */
static __attribute__((noinline)) int
call_guarded(ffi_cif *cif, void (*fn)(void), void *rv, void **ptrs)
{
	int lib = rank_lib_suspend(); /* the function's code is not colldb's */

	if (sigsetjmp(call_env, 1) != 0) {
		rank_lib_resume(lib);
		return 1;
	}
	call_state = 1;
	ffi_call(cif, fn, rv, ptrs);
	call_state = 0;
	if (rank_forked)
		_exit(0); /* a fork's child: the agent is the parent's */
	rank_lib_resume(lib);
	return 0;
}

static int
do_call(struct rank_ctx *rc, const char *text, char **result, char **cause)
{
	struct call_desc d;
	ffi_cif cif;
	ffi_type *types[CALL_MAX_ARGS];
	union value vals[CALL_MAX_ARGS];
	void *ptrs[CALL_MAX_ARGS];
	union {
		ffi_arg a;
		double d;
		void *p;
		int64_t l;
		unsigned char pad[16];
	} rv;
	void (*fn)(void);
	void *sym;
	int rc_ = -1;

	if (call_desc_decode(text, &d, cause) != 0)
		return -1;
	if ((sym = resolve(&d, cause)) == NULL)
		goto out;
	for (int i = 0; i < d.nargs; i++) {
		if (arg_value(rc, &d.args[i], &vals[i], cause) != 0)
			goto out;
		types[i] = ffi_of(d.args[i].type);
		ptrs[i] = &vals[i];
	}
	if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)d.nargs,
		ffi_of(d.ret), types) != FFI_OK) {
		cause_set(cause, "libffi cannot prepare a call to %s", d.sym);
		goto out;
	}
	memset(&rv, 0, sizeof rv);
	memcpy(&fn, &sym, sizeof fn); /* object to function pointer */
	api_nest_begin(rc);
	rc_ = call_guarded(&cif, fn, &rv, ptrs);
	if (rc_ != 0)
		cause_set(cause,
		    "the function did not return: ended by a signal "
		    "(SIG%s); what it held is lost",
		    sigabbrev_np(CALL_END_SIGNAL));
	api_nest_end();
	if (rc_ == 0)
		*result = format_result(rc, d.ret, &rv);
out:
	call_desc_release(&d);
	return rc_;
}

int
call_exec(struct rank_ctx *rc, const struct prog *p, const struct uop *u,
    char **result, char **cause)
{
	const char *text = prog_str_at(p, (uint32_t)u->src);
	int rc_;

	*result = NULL;
	if (u->src >= p->nstrs)
		return cause_set(cause, "malformed %s micro-op",
		    uop_kind_name(u->kind));
	if (u->kind == UOP_LOAD)
		rc_ = do_load(text, cause);
	else
		rc_ = do_call(rc, text, result, cause);
	return rc_ == 0 ? EXEC_OK : rc_ == 1 ? EXEC_ENDED : EXEC_ERROR;
}
