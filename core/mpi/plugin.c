/*
 * plugin.c - the MPI calls of the mpi transport (core/mpi-plugin.h has the
 * contract).  Built once per MPI with that MPI's compiler wrapper into
 * libcolldb-mpi-FLAVOR.so; it includes nothing of colldb but that header,
 * and calls nothing back.
 */
#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../mpi-plugin.h"

/* colldb's own words after the area: the f16/bf16 add lock */
#define TAIL 64
#define CHUNK (1 << 30)

static MPI_Win win = MPI_WIN_NULL;
static uint8_t *base;
static uint64_t area_bytes;
static int me, world, inited_here;
/* MPICH: a waiting rank yields between its polls (CDB_MPI_YIELD_NS) */
static int mpich;
/* the window is MPI_WIN_UNIFIED (both MPIs give it for Win_allocate) */
static int unified;

static int
fail(char **cause, const char *what, int err)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (cause != NULL) {
		MPI_Error_string(err, msg, &len);
		*cause = malloc(strlen(what) + (size_t)len + 3);
		if (*cause != NULL)
			sprintf(*cause, "%s: %.*s", what, len, msg);
	}
	return -1;
}

static void
version_of(char *out, size_t len)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int n = 0, a = 0, b = 0, c = 0;

	MPI_Get_library_version(lib, &n);
	if (sscanf(lib, "Open MPI v%d.%d.%d", &a, &b, &c) == 3)
		snprintf(out, len, "Open MPI %d.%d.%d", a, b, c);
	else if (strstr(lib, "MPICH Version:") != NULL &&
	    sscanf(strstr(lib, "MPICH Version:") + 14, " %d.%d.%d", &a, &b,
		&c) >= 2)
		snprintf(out, len, "MPICH %d.%d.%d", a, b, c);
	else
		snprintf(out, len, "%.*s", (int)strcspn(lib, ",\n"), lib);
}

static int
p_init(int serialized, int *rank, int *size, char *version, size_t version_len,
    char **cause)
{
	int want = serialized ? MPI_THREAD_SERIALIZED : MPI_THREAD_FUNNELED;
	int up = 0, got = 0, err;

	MPI_Initialized(&up);
	if (!up) {
		if ((err = MPI_Init_thread(NULL, NULL, want, &got)) != MPI_SUCCESS)
			return fail(cause, "MPI_Init_thread", err);
		inited_here = 1;
	} else {
		MPI_Query_thread(&got);
	}
	if (got < want) {
		if (cause != NULL && (*cause = malloc(96)) != NULL)
			snprintf(*cause, 96,
			    "this MPI gives thread level %d, colldb needs %d",
			    got, want);
		return -1;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &world);
	*rank = me;
	*size = world;
	version_of(version, version_len);
	mpich = strncmp(version, "MPICH", 5) == 0;
	return 0;
}

static int
p_win(uint64_t area, uint8_t **out, char **cause)
{
	MPI_Info info;
	int err;

	area_bytes = area;
	MPI_Info_create(&info);
	/* notify is MPI_SUM or MPI_REPLACE on one int: let the library use
	 * its fastest path for those */
	MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
	MPI_Info_set(info, "same_disp_unit", "true");
	err = MPI_Win_allocate((MPI_Aint)(area + TAIL), 1, info, MPI_COMM_WORLD,
	    &base, &win);
	MPI_Info_free(&info);
	if (err != MPI_SUCCESS)
		return fail(cause, "MPI_Win_allocate", err);
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	memset(base + area, 0, TAIL);
	{
		int *model = NULL, flag = 0;

		MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
		unified = flag && model != NULL && *model == MPI_WIN_UNIFIED;
	}
	if ((err = MPI_Win_lock_all(MPI_MODE_NOCHECK, win)) != MPI_SUCCESS)
		return fail(cause, "MPI_Win_lock_all", err);
	MPI_Win_sync(win);
	/* every rank's lock word is zero before anyone takes one */
	MPI_Barrier(MPI_COMM_WORLD);
	*out = base;
	return 0;
}

static int
p_notify(int peer, uint64_t off, int32_t v, int replace)
{
	if (MPI_Accumulate(&v, 1, MPI_INT32_T, peer, (MPI_Aint)off, 1,
		MPI_INT32_T, replace ? MPI_REPLACE : MPI_SUM, win) != MPI_SUCCESS)
		return -1;
	return MPI_Win_flush(peer, win) == MPI_SUCCESS ? 0 : -1;
}

static MPI_Datatype
mpi_type(int elem, size_t *size)
{
	switch (elem) {
	case ME_I8:
		*size = 1;
		return MPI_INT8_T;
	case ME_I16:
		*size = 2;
		return MPI_INT16_T;
	case ME_I32:
		*size = 4;
		return MPI_INT32_T;
	case ME_I64:
		*size = 8;
		return MPI_INT64_T;
	case ME_F32:
		*size = 4;
		return MPI_FLOAT;
	default:
		*size = 8;
		return MPI_DOUBLE;
	}
}

enum rma_kind { RMA_PUT, RMA_ADD, RMA_GET };

/* count elements of t (esz bytes each) between buf and peer's window at
 * off, in pieces MPI's int counts can hold; complete after a flush. */
static int
rma(enum rma_kind k, int peer, uint64_t off, void *buf, size_t count,
    MPI_Datatype t, size_t esz)
{
	uint8_t *p = buf;
	size_t per = CHUNK / esz;

	while (count > 0) {
		int n = count > per ? (int)per : (int)count, err;

		if (k == RMA_GET)
			err = MPI_Get(p, n, t, peer, (MPI_Aint)off, n, t, win);
		else if (k == RMA_PUT)
			err = MPI_Put(p, n, t, peer, (MPI_Aint)off, n, t, win);
		else
			err = MPI_Accumulate(p, n, t, peer, (MPI_Aint)off, n, t,
			    MPI_SUM, win);
		if (err != MPI_SUCCESS)
			return -1;
		p += (size_t)n * esz;
		off += (uint64_t)n * esz;
		count -= (size_t)n;
	}
	return 0;
}

static int
p_put(int peer, uint64_t off, const void *src, size_t bytes)
{
	return rma(RMA_PUT, peer, off, (void *)(uintptr_t)src, bytes, MPI_BYTE,
	    1);
}

static int
p_put_add(int peer, uint64_t off, const void *src, size_t count, int elem)
{
	size_t esz;
	MPI_Datatype t = mpi_type(elem, &esz);

	return rma(RMA_ADD, peer, off, (void *)(uintptr_t)src, count, t, esz);
}

static int
p_get(int peer, uint64_t off, void *dst, size_t bytes)
{
	if (rma(RMA_GET, peer, off, dst, bytes, MPI_BYTE, 1) != 0)
		return -1;
	return MPI_Win_flush(peer, win) == MPI_SUCCESS ? 0 : -1;
}

static int
p_flush(int peer)
{
	int err = peer < 0 ? MPI_Win_flush_all(win) : MPI_Win_flush(peer, win);

	return err == MPI_SUCCESS ? 0 : -1;
}

/*
 * Before a notify.  In the unified model a store to the window "is
 * eventually visible to remote get or accumulate calls without additional
 * RMA calls" (MPI-3.1, 11.4): what is left is the processor's ordering of
 * those stores before the notify's own, a fence.  MPI_Win_sync there cost
 * Open MPI's osc pt2pt (across hosts) a progress pass per notify: 1.5x
 * the round trip (bench/mpi.sh).
 */
static void
p_sync(void)
{
	if (unified)
		__atomic_thread_fence(__ATOMIC_RELEASE);
	else
		MPI_Win_sync(win);
}

static void
p_poll(void)
{
	int flag = 0;

	/* MPICH moves one-sided operations only inside MPI calls; a bare
	 * MPI_Win_sync poll hung it (docs/design.md, "MPI progress") */
	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
	    MPI_STATUS_IGNORE);
	MPI_Win_sync(win);
}

static uint64_t
p_wait_yield_ns(void)
{
	return mpich ? CDB_MPI_YIELD_NS : 0;
}

static void
p_lock(int peer)
{
	int one = 1, zero = 0, old = 1;

	for (;;) {
		MPI_Compare_and_swap(&one, &zero, &old, MPI_INT, peer,
		    (MPI_Aint)area_bytes, win);
		MPI_Win_flush(peer, win);
		if (old == 0)
			return;
		p_poll();
	}
}

static void
p_unlock(int peer)
{
	int zero = 0, old;

	MPI_Fetch_and_op(&zero, &old, MPI_INT, peer, (MPI_Aint)area_bytes,
	    MPI_REPLACE, win);
	MPI_Win_flush(peer, win);
}

/* ---- the same operations, written directly against MPI (bench) --------- */

/* Poll own cell until it reaches want: the loop core/mpi.c's wait runs
 * (CDB_MPI_SPIN polls, then polls with a sched_yield() between them for
 * p_wait_yield_ns(), then 100 us sleeps), without the rest of colldb. */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
raw_wait(uint64_t off, int32_t want)
{
	volatile int32_t *cell = (volatile int32_t *)(base + off);
	struct timespec nap = { 0, 100000 };
	uint64_t yield_end = 0;

	for (long i = 0;; i++) {
		p_poll();
		if (__atomic_load_n(cell, __ATOMIC_ACQUIRE) >= want)
			return;
		if (i < CDB_MPI_SPIN)
			continue;
		if (yield_end == 0)
			yield_end = now_ns() + p_wait_yield_ns();
		if (now_ns() < yield_end)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
}

static void
raw_reset(uint64_t off)
{
	int32_t zero = 0;

	MPI_Barrier(MPI_COMM_WORLD);
	__atomic_store_n((int32_t *)(base + off), zero, __ATOMIC_RELEASE);
	MPI_Win_sync(win);
	MPI_Barrier(MPI_COMM_WORLD);
}

static int
p_raw_bench(const struct mpi_raw_args *a, double *secs)
{
	uint32_t n = a->iters > 0 ? a->iters : 1;
	uint64_t cell = a->off + a->bytes;
	double t0 = 0;
	float *in = NULL, *out = NULL;

	*secs = 0;
	if (a->kind == RAW_ALLREDUCE) {
		size_t count = a->bytes / sizeof(float);

		in = calloc(count ? count : 1, sizeof *in);
		out = calloc(count ? count : 1, sizeof *out);
		if (in == NULL || out == NULL) {
			free(in);
			free(out);
			return -1;
		}
		for (uint32_t i = 0; i <= n; i++) {
			if (i == 1) {
				MPI_Barrier(MPI_COMM_WORLD);
				t0 = MPI_Wtime();
			}
			MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM,
			    MPI_COMM_WORLD);
		}
		*secs = (MPI_Wtime() - t0) / n;
		free(in);
		free(out);
		MPI_Barrier(MPI_COMM_WORLD);
		return 0;
	}
	if (world < 2 || a->off + a->bytes + 4 > area_bytes)
		return -1;
	raw_reset(cell);
	for (uint32_t i = 0; i <= n; i++) {
		if (i == 1)
			t0 = MPI_Wtime();
		if (me == 0) {
			if (a->kind == RAW_PUTBW) {
				p_put(1, a->off, base + a->off, a->bytes);
				MPI_Win_flush(1, win);
			}
			p_notify(1, cell, 1, 0);
			raw_wait(cell, (int32_t)i + 1);
		} else if (me == 1) {
			raw_wait(cell, (int32_t)i + 1);
			p_notify(0, cell, 1, 0);
		}
	}
	*secs = (MPI_Wtime() - t0) / n;
	raw_reset(cell);
	return 0;
}

static void
p_finalize(void)
{
	if (win != MPI_WIN_NULL) {
		MPI_Win_unlock_all(win);
		MPI_Win_free(&win);
	}
	if (inited_here)
		MPI_Finalize();
}

static void
p_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

static const struct mpi_plugin plugin = {
	.abi = CDB_MPI_PLUGIN_ABI,
	.init = p_init,
	.win = p_win,
	.notify = p_notify,
	.put = p_put,
	.put_add = p_put_add,
	.get = p_get,
	.flush = p_flush,
	.sync = p_sync,
	.poll = p_poll,
	.wait_yield_ns = p_wait_yield_ns,
	.lock = p_lock,
	.unlock = p_unlock,
	.raw_bench = p_raw_bench,
	.finalize = p_finalize,
	.abort = p_abort,
};

const struct mpi_plugin *
cdb_mpi_plugin(void)
{
	return &plugin;
}
