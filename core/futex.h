/*
 * futex.h - shared (inter-process) futex wait/wake on 32-bit words that
 * live in a MAP_SHARED mapping.  Never FUTEX_PRIVATE_FLAG: waiters and
 * wakers are different processes.
 */
#ifndef COLLDB_FUTEX_H
#define COLLDB_FUTEX_H

#include <stdint.h>

#include "common.h"

/* Sleep while *addr == val (or until woken / a signal / timeout_ns, 0 =
 * forever).  Returns 0 when woken or when *addr != val, -1 on timeout or
 * interruption by a signal. */
int futex_wait(void *addr, uint32_t val, uint64_t timeout_ns);
/* Wake up to n waiters on addr; returns how many were woken. */
int futex_wake(void *addr, int n);

/* One spin-loop pause instruction. */
static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#endif
