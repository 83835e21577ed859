/*
 * common.h - small macros shared by every layer (internal to colldb).
 *
 * BUG() is for broken invariants only: it prints where and aborts.
 * Everything else reports errors through return codes and a cause string.
 */
#ifndef COLLDB_COMMON_H
#define COLLDB_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define printflike(f, a) __attribute__((format(printf, f, a)))
#define noreturn_ __attribute__((noreturn))

#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
noreturn_ printflike(3, 4) void bug_at(const char *file, int line,
    const char *fmt, ...);

/* Set *cause to a newly allocated message (if cause is not NULL); returns -1. */
printflike(2, 3) int cause_set(char **cause, const char *fmt, ...);

/* CLOCK_MONOTONIC in nanoseconds (core/futex.c). */
uint64_t mono_ns(void);

/* How long a loop that polls for an event (the mpi transport's waits, which
 * must drive MPI: core/mpi.c, core/rank.c, core/remote.c) sleeps between
 * polls once it has waited waited_ns: 100 us for the first 10 ms, then a
 * tenth of the time waited, at most 20 ms.  An idle or long-blocked rank
 * then wakes 50 times a second, and an event it polls for is seen at most
 * a tenth of its wait (and 20 ms) late (core/futex.c). */
uint64_t idle_nap_ns(uint64_t waited_ns);

#endif
