/*
 * call.h - the LOAD and CALL micro-ops: shared libraries and C function
 * calls inside a rank, through dlopen() and libffi (docs/libcolldb.md).
 *
 * How a call travels.  The shell (shell/lang/call-expr.c parses `call`,
 * shell/cmd/cmd-load.c and cmd-call.c submit) builds a one-op program per
 * rank.  The micro-op's src field is the index of a descriptor string in
 * the program's string table (uop.name is the span name: "load",
 * "call.SYM"), so descriptors ride in the ordinary MSG_PROG encoding and
 * `plan`-style tools see them.  The rank decodes the descriptor and runs
 * it in call_exec(), between its step gate and its status board like any
 * micro-op.  A descriptor is text fields separated by '\x1f' (ASCII unit
 * separator); '%' and '\x1f' inside a field are written %25 and %1F, so
 * every string without a NUL byte travels intact:
 *
 *   LOAD:  "L" US name US path
 *   CALL:  "C" US lib US sym US ret {US arg}     (lib "" = any, see below)
 *   arg:   "n" TYPE ":" decimal    an integer of an integer TYPE
 *          "f" TYPE ":" %a-float   f32 or f64
 *          "s:" text               a string (a char * during the call)
 *          "w:" decimal            window-area offset: this rank's pointer
 *          "z:"                    a null pointer
 *   TYPE:  i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 (ret also void, ptr)
 *
 * Symbol lookup.  With a lib name: that library (and what it links).
 * Without: every loaded library in load order, then the rank process
 * itself (colldb and libc), so `call getpid() -> i32` works.
 *
 * Results.  call_exec() leaves the return value as text for the DONE
 * reply: "void", "TYPE VALUE" for the integer types ("i32 -5", "u8 255",
 * "u64 18446744073709551615"), "f64 2.5" (%.17g), "f32 1.5" (%.9g),
 * "ptr NULL",
 * "ptr area+OFF" (into this rank's window area, so the shell can name the
 * window) or "ptr 0xHEX".
 *
 * During a call the rank's libcolldb API (core/colldb.h) is bound to this
 * rank, so a called function may use cdb_* (each op runs through the
 * gate, nested inside the call).  A function that crashes kills its rank;
 * the shell reports the death.
 *
 * Ownership: call_desc_release() frees the strings a decoded or built
 * descriptor owns; *result and *cause strings are the caller's to free.
 * The loaded-library list is per process (one rank per process) and lives
 * until exit.
 */
#ifndef COLLDB_CALL_H
#define COLLDB_CALL_H

#include <signal.h>

#include <stdint.h>

#include "prog.h"
#include "strbuf.h"

struct rank_ctx;

#define CALL_MAX_ARGS 16

enum call_type {
	CT_VOID,
	CT_I8,
	CT_I16,
	CT_I32,
	CT_I64,
	CT_U8,
	CT_U16,
	CT_U32,
	CT_U64,
	CT_F32,
	CT_F64,
	CT_PTR,
	CT__COUNT
};

enum call_arg_kind {
	CA_INT,	  /* i: an integer of an integer type */
	CA_FLOAT, /* f: f32 or f64 */
	CA_STR,	  /* s: a string */
	CA_WIN,	  /* off: this rank's window area + off */
	CA_NULL,  /* a null pointer */
};

struct call_arg {
	enum call_arg_kind kind;
	enum call_type type; /* CT_PTR for STR, WIN and NULL */
	int64_t i;	     /* CA_INT (unsigned types: the bit pattern) */
	double f;	     /* CA_FLOAT */
	char *s;	     /* CA_STR (owned) */
	uint64_t off;	     /* CA_WIN */
};

struct call_desc {
	char *lib;	    /* library name, "" = search (owned) */
	char *sym;	    /* owned */
	enum call_type ret; /* any */
	int nargs;
	struct call_arg args[CALL_MAX_ARGS];
};

/* What `call ... -> TYPE` takes, for messages. */
#define CALL_RET_TYPES \
	"void, ptr, i8, i16, i32, i64, u8, u16, u32, u64, f32 or f64"
/* "i32", "ptr", ...; call_type_from_name() returns -1 if unknown. */
const char *call_type_name(enum call_type t);
int call_type_from_name(const char *s, enum call_type *out);
int call_type_is_int(enum call_type t);

void call_desc_release(struct call_desc *d);
/* Append the CALL / LOAD descriptor text to out. */
void call_desc_encode(const struct call_desc *d, struct strbuf *out);
void call_load_encode(const char *name, const char *path, struct strbuf *out);
/* Decode a CALL descriptor; 0 or -1 + cause (d is then empty). */
int call_desc_decode(const char *text, struct call_desc *d, char **cause);

/*
 * Run LOAD or CALL micro-op u of program p on rank rc.  Returns EXEC_OK
 * (with *result set for a CALL) or EXEC_ERROR + cause: a malformed
 * descriptor, dlopen's dlerror() text, an unknown library name or symbol,
 * a window offset outside the area; or EXEC_ENDED + cause when the call
 * was ended by CALL_END_SIGNAL (below).
 */
int call_exec(struct rank_ctx *rc, const struct prog *p, const struct uop *u,
    char **result, char **cause);

/*
 * Ending a call that does not return.  A function that loops for ever
 * never reaches a step gate, so `interrupt` cannot stop it with a flag;
 * the shell sends the rank CALL_END_SIGNAL instead.  While the function's
 * own code runs, the handler (call_end_install(), agents only) jumps back
 * out of the call (siglongjmp): the op ends with EXEC_ENDED and the
 * program as abandoned.  What the function held (a lock, memory) stays
 * held: a debugger's last resort, said so in the report.  While the call
 * is inside libcolldb (a nested cdb_* op) the signal does nothing: the
 * interrupt flag ends that op at its gate instead.
 */
#define CALL_END_SIGNAL SIGUSR2
void call_end_install(void);
/* Bracket the nested libcolldb ops of a call (core/api.c). */
void call_nested_enter(void);
void call_nested_leave(void);

#endif
