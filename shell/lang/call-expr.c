/*
 * call-expr.c - the syntax of `call [LIB:]SYM(ARGS) [-> TYPE]`: a pure parser
 * (no session, no I/O; tests/unit/check_ffi.c) and the conversion of a
 * literal with its cast into a typed call argument.  Window names, &buf[i],
 * rank, nranks, domain_rank and domain_size are resolved by cmd-call.c
 * against the session.
 *
 *   call   := [IDENT ':'] IDENT '(' [arg {',' arg}] ')' ['->' TYPE]
 *   arg    := ['(' TYPE ')'] atom
 *   atom   := INT | FLOAT | "STRING" | 'STRING' | IDENT | '&' REGION | NULL
 *
 * INT is decimal or 0x hex with an optional sign; FLOAT is what strtod()
 * reads with a '.', an exponent, inf or nan.  "..." strings take \n \t \\
 * \" escapes; '...' strings are literal.  IDENT is a window name or one of
 * the integers call_name_is_int() names (rank, nranks, domain_rank,
 * domain_size).  Casts: i8 i16 i32 i64 u8 u16 u32 u64 f32 f64, on numbers
 * and those integers.  Without a cast an integer is i32 when it fits, else i64
 * (u64 past INT64_MAX), and a float is f64, as in C.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lang/call-expr.h"
#include "lang/parse.h"
#include "xmalloc.h"

struct lexer {
	const char *s;
	size_t i;
	char **cause;
	size_t *col, *len;
};

static int fail(struct lexer *lx, size_t col, size_t len, const char *fmt, ...)
    printflike(4, 5);

static int
fail(struct lexer *lx, size_t col, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (lx->cause != NULL) {
		va_start(ap, fmt);
		*lx->cause = xvasprintf(fmt, ap);
		va_end(ap);
	}
	if (lx->col != NULL)
		*lx->col = col;
	if (lx->len != NULL)
		*lx->len = len ? len : 1;
	return -1;
}

static void
skip_space(struct lexer *lx)
{
	while (isspace((unsigned char)lx->s[lx->i]))
		lx->i++;
}

static size_t
ident_len(const char *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)p[0]) && p[0] != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

/* Length of a token that is not punctuation (for messages). */
static size_t
word_len(const char *p)
{
	size_t n = strcspn(p, ",() \t");

	return n ? n : 1;
}

static int
parse_string(struct lexer *lx, struct call_word *a)
{
	struct strbuf sb = STRBUF_INIT;
	char q = lx->s[lx->i];
	size_t start = lx->i++;

	for (;;) {
		char c = lx->s[lx->i];

		if (c == '\0') {
			strbuf_release(&sb);
			return fail(lx, start, lx->i - start,
			    "unterminated string");
		}
		lx->i++;
		if (c == q)
			break;
		if (q == '"' && c == '\\') {
			char e = lx->s[lx->i];
			if (e == '\0')
				continue;
			lx->i++;
			if (e == '0') {
				strbuf_release(&sb);
				return fail(lx, lx->i - 2, 2,
				    "strings cannot hold \\0");
			}
			strbuf_addch(&sb,
			    e == 'n'	 ? '\n' :
				e == 't' ? '\t' :
					   e);
			continue;
		}
		strbuf_addch(&sb, c);
	}
	a->kind = CW_STR;
	a->s = strbuf_detach(&sb, NULL);
	return 0;
}

/* An unsigned 64-bit integer past INT64_MAX: decimal or 0x hex. */
static int
parse_u64(const char *s, uint64_t *out)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, hex ? 16 : 10);
	return errno == 0 && *end == '\0' && end != s + (hex ? 2 : 0) ? 0 : -1;
}

/* A number: as much of the text as strtod or the integer parser takes. */
static int
parse_num(struct lexer *lx, struct call_word *a)
{
	const char *p = lx->s + lx->i;
	size_t n = strcspn(p, ",) \t");
	char *text = xstrndup(p, n), *end, *cause = NULL;
	int is_float = strpbrk(text, ".eEnN") != NULL &&
	    !(text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) &&
	    !(text[0] == '-' && text[1] == '0' &&
		(text[2] == 'x' || text[2] == 'X'));
	int rc = 0;

	if (is_float) {
		a->kind = CW_FLOAT;
		errno = 0;
		a->f = strtod(text, &end);
		if (*end != '\0' || end == text ||
		    (errno == ERANGE && isinf(a->f)))
			rc = -1; /* 1e400 is no double */
	} else if (parse_int(text, &a->i, 0, &cause) == 0) {
		a->kind = CW_INT;
	} else if (parse_u64(text, &a->u) == 0) {
		a->kind = CW_INT;
		a->big = 1; /* past INT64_MAX */
	} else {
		rc = -1;
	}
	free(cause);
	free(text);
	if (rc != 0)
		return fail(lx, lx->i, n, "bad number '%.*s'", (int)n, p);
	lx->i += n;
	return 0;
}

static const char *const cast_names = "i8 i16 i32 i64 u8 u16 u32 u64 f32 f64";

static int
parse_arg(struct lexer *lx, struct call_word *a)
{
	const char *p;
	size_t n, atom;

	memset(a, 0, sizeof *a);
	a->cast = CT__COUNT;
	skip_space(lx);
	a->col = lx->i;
	if (lx->s[lx->i] == '(') {
		size_t c0 = lx->i + 1, k;
		char t[8];

		k = strcspn(lx->s + c0, ")");
		if (lx->s[c0 + k] != ')' || k == 0 || k >= sizeof t)
			return fail(lx, lx->i, word_len(lx->s + lx->i),
			    "bad cast (expected (TYPE) with TYPE one of %s)",
			    cast_names);
		memcpy(t, lx->s + c0, k);
		t[k] = '\0';
		if (call_type_from_name(t, &a->cast) != 0 ||
		    a->cast == CT_VOID || a->cast == CT_PTR)
			return fail(lx, c0, k,
			    "unknown type '%s' in a cast (expected %s)", t,
			    cast_names);
		lx->i = c0 + k + 1;
		skip_space(lx);
	}
	p = lx->s + lx->i;
	atom = lx->i;
	if (*p == '"' || *p == '\'') {
		if (parse_string(lx, a) != 0)
			return -1;
	} else if (*p == '&') {
		n = ident_len(p + 1);
		if (n > 0 && p[1 + n] == '[') {
			const char *close = strchr(p + 1 + n, ']');
			n = close != NULL ?
			    (size_t)(close - (p + 1)) + 1 :
			    strlen(p + 1); /* region_resolve says what is wrong */
		}
		if (n == 0) {
			n = strcspn(p + 1, ",) \t");
			return fail(lx, lx->i, n + 1,
			    "bad address '%.*s' (expected &WINDOW or &WINDOW[INDEX])",
			    (int)n + 1, p);
		}
		a->kind = CW_ADDR;
		a->s = xstrndup(p + 1, n);
		lx->i += n + 1;
	} else if ((n = ident_len(p)) > 0) {
		a->s = xstrndup(p, n);
		a->kind = strcmp(a->s, "NULL") == 0 ? CW_NULL : CW_NAME;
		lx->i += n;
	} else if (isdigit((unsigned char)*p) || *p == '-' || *p == '+' ||
	    *p == '.') {
		if (parse_num(lx, a) != 0)
			return -1;
	} else {
		n = word_len(p);
		return fail(lx, lx->i, n,
		    "bad argument '%.*s' (expected a number, a string, a window, &WINDOW[I], rank, nranks, domain_rank, domain_size or NULL)",
		    (int)n, p);
	}
	a->len = lx->i - a->col;
	if (a->cast != CT__COUNT &&
	    (a->kind == CW_STR || a->kind == CW_ADDR || a->kind == CW_NULL ||
		(a->kind == CW_NAME && !call_name_is_int(a->s))))
		return fail(lx, a->col, a->len,
		    "a cast applies to numbers, rank, nranks, domain_rank and domain_size, not to '%.*s'",
		    (int)(lx->i - atom), lx->s + atom);
	return 0;
}

int
call_name_is_int(const char *s)
{
	return strcmp(s, "rank") == 0 || strcmp(s, "nranks") == 0 ||
	    strcmp(s, "domain_rank") == 0 || strcmp(s, "domain_size") == 0;
}

void
call_expr_release(struct call_expr *c)
{
	free(c->lib);
	free(c->sym);
	free(c->text);
	for (int i = 0; i < c->nargs; i++)
		free(c->args[i].s);
	memset(c, 0, sizeof *c);
}

static int
parse_ret(struct lexer *lx, struct call_expr *c)
{
	const char *p;
	size_t n;

	skip_space(lx);
	if (lx->s[lx->i] == '\0')
		return 0;
	if (strncmp(lx->s + lx->i, "->", 2) != 0)
		return fail(lx, lx->i, word_len(lx->s + lx->i),
		    "unexpected '%.*s' after the call (expected -> TYPE)",
		    (int)word_len(lx->s + lx->i), lx->s + lx->i);
	lx->i += 2;
	skip_space(lx);
	p = lx->s + lx->i;
	n = strcspn(p, " \t");
	if (n == 0)
		return fail(lx, lx->i ? lx->i - 1 : 0, 2,
		    "missing return type after -> (expected " CALL_RET_TYPES ")");
	{
		char *t = xstrndup(p, n);
		int ok = call_type_from_name(t, &c->ret) == 0;
		free(t);
		if (!ok)
			return fail(lx, lx->i, n,
			    "unknown return type '%.*s' (expected " CALL_RET_TYPES
			    ")",
			    (int)n, p);
	}
	c->ret_col = lx->i;
	lx->i += n;
	skip_space(lx);
	if (lx->s[lx->i] != '\0')
		return fail(lx, lx->i, word_len(lx->s + lx->i),
		    "unexpected '%.*s' after the return type",
		    (int)word_len(lx->s + lx->i), lx->s + lx->i);
	return 0;
}

int
call_expr_parse(const char *text, struct call_expr *c, char **cause,
    size_t *col, size_t *len)
{
	struct lexer lx = { text, 0, cause, col, len };
	size_t n, start;

	memset(c, 0, sizeof *c);
	c->ret = CT_I32;
	skip_space(&lx);
	start = lx.i;
	if ((n = ident_len(text + lx.i)) > 0 && text[lx.i + n] == ':') {
		c->lib = xstrndup(text + lx.i, n);
		c->lib_col = lx.i;
		lx.i += n + 1;
		n = ident_len(text + lx.i);
	}
	if (n == 0) {
		n = word_len(text + lx.i);
		fail(&lx, lx.i, n,
		    "bad function '%.*s' (expected [LIB:]SYMBOL(ARGS))", (int)n,
		    text + lx.i);
		goto err;
	}
	c->sym = xstrndup(text + lx.i, n);
	c->sym_col = lx.i;
	lx.i += n;
	skip_space(&lx);
	if (text[lx.i] != '(') {
		fail(&lx, c->sym_col, n,
		    "'%s' needs an argument list, like %s() or %s(buf, 4)",
		    c->sym, c->sym, c->sym);
		goto err;
	}
	lx.i++;
	skip_space(&lx);
	if (text[lx.i] == ')') {
		lx.i++;
	} else {
		for (;;) {
			struct call_word a;

			if (parse_arg(&lx, &a) != 0) {
				free(a.s);
				goto err;
			}
			if (c->nargs == CALL_MAX_ARGS) {
				fail(&lx, a.col, a.len,
				    "too many arguments (at most %d)",
				    CALL_MAX_ARGS);
				free(a.s);
				goto err;
			}
			c->args[c->nargs++] = a;
			skip_space(&lx);
			if (text[lx.i] == ',') {
				lx.i++;
				continue;
			}
			if (text[lx.i] == ')') {
				lx.i++;
				break;
			}
			fail(&lx, lx.i, word_len(text + lx.i),
			    text[lx.i] == '\0' ?
				"missing ')' after the arguments" :
				"expected ',' or ')' after an argument, got '%.*s'",
			    (int)word_len(text + lx.i), text + lx.i);
			goto err;
		}
	}
	c->text = xstrndup(text + start, lx.i - start);
	if (parse_ret(&lx, c) != 0)
		goto err;
	return 0;
err:
	call_expr_release(c);
	return -1;
}

static const struct {
	int64_t lo;
	uint64_t hi;
} int_range[CT__COUNT] = {
	[CT_I8] = { INT8_MIN, INT8_MAX },
	[CT_I16] = { INT16_MIN, INT16_MAX },
	[CT_I32] = { INT32_MIN, INT32_MAX },
	[CT_I64] = { INT64_MIN, INT64_MAX },
	[CT_U8] = { 0, UINT8_MAX },
	[CT_U16] = { 0, UINT16_MAX },
	[CT_U32] = { 0, UINT32_MAX },
	[CT_U64] = { 0, UINT64_MAX },
};

int
call_word_number(const struct call_word *a, struct call_arg *out, char **cause)
{
	enum call_type t = a->cast;

	memset(out, 0, sizeof *out);
	if (a->kind == CW_FLOAT) {
		if (t != CT__COUNT && call_type_is_int(t))
			return cause_set(cause, "(%s) needs an integer, got %g",
			    call_type_name(t), a->f);
		if (t == CT_F32 && isfinite(a->f) && isinf((float)a->f))
			return cause_set(cause, "%g does not fit (f32)", a->f);
		out->kind = CA_FLOAT;
		out->type = t == CT__COUNT ? CT_F64 : t;
		out->f = a->f;
		return 0;
	}
	if (t == CT_F32 || t == CT_F64) {
		out->kind = CA_FLOAT;
		out->type = t;
		out->f = a->big ? (double)a->u : (double)a->i;
		return 0;
	}
	out->kind = CA_INT;
	if (t == CT__COUNT)
		t = a->big				   ? CT_U64 :
		    a->i >= INT32_MIN && a->i <= INT32_MAX ? CT_I32 :
							     CT_I64;
	if (a->big ? a->u > int_range[t].hi :
		     a->i < int_range[t].lo ||
		    (a->i > 0 && (uint64_t)a->i > int_range[t].hi)) {
		if (a->big)
			return cause_set(cause, "%llu does not fit (%s)",
			    (unsigned long long)a->u, call_type_name(t));
		return cause_set(cause, "%lld does not fit (%s)",
		    (long long)a->i, call_type_name(t));
	}
	out->type = t;
	out->i = a->big ? (int64_t)a->u : a->i;
	return 0;
}
