/* futex.c - shared futex wrappers; see futex.h. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "futex.h"

int
futex_wait(void *addr, uint32_t val, uint64_t timeout_ns)
{
	struct timespec ts, *tp = NULL;
	long rc;

	if (timeout_ns != 0) {
		ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
		ts.tv_nsec = (long)(timeout_ns % 1000000000u);
		tp = &ts;
	}
	rc = syscall(SYS_futex, addr, FUTEX_WAIT, val, tp, NULL, 0);
	if (rc == 0 || errno == EAGAIN)
		return 0;
	return -1;
}

int
futex_wake(void *addr, int n)
{
	long rc = syscall(SYS_futex, addr, FUTEX_WAKE, n, NULL, NULL, 0);

	return rc < 0 ? 0 : (int)rc;
}

uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
idle_nap_ns(uint64_t waited_ns)
{
	if (waited_ns < 10000000u)
		return 100000u;
	return MIN(waited_ns / 10, 20000000u);
}
