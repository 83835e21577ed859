/*
 * mpi-plugin.h - what libcolldb asks of an MPI library, and nothing else.
 *
 * colldb itself links no MPI: the MPI calls live in a small plugin,
 * core/mpi/plugin.c, built once per MPI found (make: with `mpicc` into
 * libcolldb-mpi-openmpi.so, with `mpicc.mpich` into libcolldb-mpi-mpich.so).
 * A rank of an mpi session (an agent, or a user program under `colldb run
 * -t mpi`) dlopen()s the plugin of the MPI it was launched by (the shell
 * names it in COLLDB_MPI_PLUGIN) and calls cdb_mpi_plugin() for this
 * table.  The plugin includes this header only: it calls back into
 * nothing, so a statically linked user program works as well as the
 * colldb binary.
 *
 * The window: one MPI_Win_allocate of area bytes (plus a few words of
 * colldb's own at its end) per session, made at start-up and kept under
 * MPI_Win_lock_all(MPI_MODE_NOCHECK) until the end; offsets are bytes into
 * it, the same on every rank.  Which thread calls: the rank's main thread
 * only (MPI_THREAD_FUNNELED), except that a user program's progress
 * thread calls poll() too, never at the same time as the main thread
 * calls MPI (a mutex: core/remote-rank.h): init(serialized = 1) asks for
 * MPI_THREAD_SERIALIZED then.  Not MPI_THREAD_MULTIPLE: Open MPI's osc
 * pt2pt, the one that works across hosts, refuses to make a window
 * under it ("The OSC pt2pt component does not support
 * MPI_THREAD_MULTIPLE in this release").
 *
 * Return values: 0 success, -1 failure (*cause, the caller's to free, for
 * the functions that take one; an MPI error otherwise aborts the job).
 */
#ifndef COLLDB_MPI_PLUGIN_H
#define COLLDB_MPI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define CDB_MPI_PLUGIN_ABI 4
#define CDB_MPI_PLUGIN_SYM "cdb_mpi_plugin"
/* A wait polls this many times (MPI_Iprobe + MPI_Win_sync + a load of
 * the cell), then, on an MPI whose wait_yield_ns() is not 0, polls with a
 * sched_yield() between polls until it has waited that long, then sleeps
 * 100 us between polls. */
#define CDB_MPI_SPIN 2000
/* ... or for this long, whichever ends first (a loaded machine: see
 * mpi_wait()). */
#define CDB_MPI_QUIET_NS 1000000ull
/* MPICH's: a peer's put into the waiting rank moves only while it polls
 * (its one-sided operations progress only inside MPI calls), and
 * sleeping from the 2000th poll on held its 64 MiB put to 0.6-0.8 GB/s on
 * one host and 0.2 across hosts; yielding took it to 1-6 and 0.5
 * (bench/mpi.sh).  Open MPI's put on one host needs no poll from the
 * target and lost a quarter (10 to 7 GB/s) to a target yielding beside
 * it, so it gets 0. */
#define CDB_MPI_YIELD_NS 200000000ull

/* put_add's element types (enum dtype's integer and float kinds that MPI
 * has a type for). */
enum mpi_elem { ME_I8, ME_I16, ME_I32, ME_I64, ME_F32, ME_F64 };

/* The raw-MPI benchmarks bench runs beside colldb's own ops
 * (raw_bench()): the same operation written directly against MPI. */
enum mpi_raw {
	RAW_RTT,       /* rank 0 <-> 1: accumulate + flush, poll the cell */
	RAW_PUTBW,     /* rank 0 -> 1: put bytes + flush + notify, 1 acks */
	RAW_ALLREDUCE, /* every rank: MPI_Allreduce of count f32 (sum) */
};

struct mpi_raw_args {
	int kind;	/* enum mpi_raw */
	uint32_t iters; /* timed repetitions (after one untimed) */
	uint64_t bytes; /* RAW_PUTBW: bytes; RAW_ALLREDUCE: f32 x 4 */
	uint64_t off;	/* where in the window (RAW_PUTBW/RTT: the
				 * data at off, the cell at off + bytes) */
};

struct mpi_plugin {
	int abi; /* CDB_MPI_PLUGIN_ABI */
	/* MPI_Init_thread (unless MPI is up already); world rank and size;
	 * the library's name and version ("Open MPI 4.1.4", "MPICH 4.0.2"). */
	int (*init)(int serialized, int *rank, int *size, char *version,
	    size_t version_len, char **cause);
	/* The window (collective): its base. */
	int (*win)(uint64_t area, uint8_t **base, char **cause);
	/* peer's i32 cell at off += v (replace 0) or = v (replace 1), then
	 * flush: complete at the target when this returns. */
	int (*notify)(int peer, uint64_t off, int32_t v, int replace);
	/* bytes from src to peer at off; complete after flush(peer). */
	int (*put)(int peer, uint64_t off, const void *src, size_t bytes);
	/* element-wise atomic add of count elements; complete after flush. */
	int (*put_add)(int peer, uint64_t off, const void *src, size_t count,
	    int elem);
	/* bytes of peer's window at off into dst (complete on return). */
	int (*get)(int peer, uint64_t off, void *dst, size_t bytes);
	/* Complete every operation to peer (-1: to every rank). */
	int (*flush)(int peer);
	/* This rank's stores to its window made visible (MPI_Win_sync). */
	void (*sync)(void);
	/* Drive progress once (MPI_Iprobe) and sync. */
	void (*poll)(void);
	/* How long a wait polls with sched_yield() between polls before it
	 * sleeps between them (CDB_MPI_YIELD_NS or 0; after init). */
	uint64_t (*wait_yield_ns)(void);
	/* Cross-rank lock on peer's colldb word (MPI_Compare_and_swap), for
	 * the read-modify-write of types MPI cannot add (f16, bf16). */
	void (*lock)(int peer);
	void (*unlock)(int peer);
	/* Seconds of MPI_Wtime per iteration of args on this rank (rank 0's
	 * figure is the one reported); collective over the world. */
	int (*raw_bench)(const struct mpi_raw_args *args, double *secs);
	/* Free the window and MPI_Finalize (collective). */
	void (*finalize)(void);
	/* MPI_Abort the job (a rank that cannot join the session). */
	void (*abort)(int code);
};

typedef const struct mpi_plugin *(*cdb_mpi_plugin_fn)(void);
const struct mpi_plugin *cdb_mpi_plugin(void);

#endif
