/*
 * call-expr.h - the syntax of `call [LIB:]SYM(ARGS) [-> TYPE]`, as a pure
 * parser (no session, no I/O; tests/unit/check_ffi.c).  cmd/cmd-call.c
 * resolves window names, &buf[i], rank, nranks, domain_rank and
 * domain_size against the session.
 *
 * Ownership: a struct call_expr owns its strings; call_expr_release()
 * frees them.
 */
#ifndef COLLDB_CALL_EXPR_H
#define COLLDB_CALL_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "call.h"

enum call_word_kind {
	CW_INT,	  /* i (or u when big) */
	CW_FLOAT, /* f */
	CW_STR,	  /* s: the text, unquoted */
	CW_NAME,  /* s: a window name, or an integer call_name_is_int() names */
	CW_ADDR,  /* s: the region after '&' ("buf[4]", "sig[1,0]") */
	CW_NULL,
};

struct call_word {
	enum call_word_kind kind;
	enum call_type cast; /* CT__COUNT when none */
	int64_t i;
	uint64_t u;
	int big; /* an integer past INT64_MAX: in u */
	double f;
	char *s;	 /* owned */
	size_t col, len; /* where it is in the text */
};

struct call_expr {
	char *lib;  /* NULL when no LIB: was given (owned) */
	char *sym;  /* owned */
	char *text; /* "SYM(ARGS)" as typed, for messages (owned) */
	size_t lib_col, sym_col, ret_col;
	enum call_type ret; /* CT_I32 unless -> TYPE */
	int nargs;
	struct call_word args[CALL_MAX_ARGS];
};

/* Parse `[LIB:]SYM(ARGS) [-> TYPE]`; 0, or -1 with *cause and the column
 * and length of the bad part of text.  Release with call_expr_release(). */
int call_expr_parse(const char *text, struct call_expr *c, char **cause,
    size_t *col, size_t *len);
void call_expr_release(struct call_expr *c);
/* Whether a CW_NAME is one of the integers the shell fills in per rank:
 * rank, nranks (the world's), domain_rank, domain_size (the call's comm
 * domain's: the rank's place among its members, their count). */
int call_name_is_int(const char *s);
/* A number argument (CW_INT / CW_FLOAT) with its cast as a typed call
 * argument; 0 or -1 + cause (does not fit, float to an integer type). */
int call_word_number(const struct call_word *a, struct call_arg *out,
    char **cause);

#endif
