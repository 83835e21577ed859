/*
 * mpi-peer.c - `make bench`: the MPI peers colldb is measured against,
 * written against the MPI-3 API only, built twice (Open MPI's mpicc and
 * MPICH's mpicc.mpich) from this one file.  Figures, not tests.
 *
 *   mpi-peer allreduce [-b MIN] [-e MAX] [-f FACTOR] [-w WARMUP] [-t SECS]
 *	MPI_Allreduce(MPI_IN_PLACE, f32, MPI_SUM) of MIN, MIN*FACTOR, ... MAX
 *	bytes, measured as colldb's bench measures its allreduce: every rank
 *	times each call, the calls run back to back (no barrier between
 *	them), a round's time is the maximum over ranks, and the figure is
 *	the median round.  The buffer is touched before the first call and
 *	holds zeros, like bench's.  Rounds per size: as many as fit in SECS
 *	(default 0.2) after WARMUP (default 3) calls, at least 5, at most
 *	100000 (rank 0's choice, broadcast).  Rank 0 prints one line per
 *	size:  BYTES ROUNDS MEDIAN_US MIN_US MAX_US
 *   mpi-peer rma [-n ROUNDS]
 *	Passive-target RMA ping-pong between ranks 0 and 1 (notify/wait as
 *	colldb's mpi transport maps them): inside MPI_Win_lock_all, rank 0
 *	adds 1 to rank 1's cell with MPI_Accumulate + MPI_Win_flush and
 *	polls its own cell (MPI_Win_sync between reads) until rank 1 has
 *	done the same back.  Rank 0 prints the median round trip in us.
 *	MPICH only moves RMA while something drives its progress engine,
 *	so its polling loop also calls MPI_Iprobe.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "median.h"

#ifdef MPICH_VERSION
#define NEEDS_PROGRESS 1
#else
#define NEEDS_PROGRESS 0
#endif

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: mpi-peer allreduce [-b MIN] [-e MAX] [-f FACTOR] [-w WARMUP] [-t SECS]\n"
	    "       mpi-peer rma [-n ROUNDS]\n");
	MPI_Abort(MPI_COMM_WORLD, 2);
}

static uint64_t
bytes_arg(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end != '\0' || v == 0)
		usage();
	return v;
}

static void
one_size(float *buf, uint64_t bytes, int warmup, double secs, int me)
{
	int count = (int)(bytes / sizeof(float));
	double t, mine, slowest;
	double *times, *worst;
	long rounds;

	for (int i = 0; i < warmup; i++)
		MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM,
		    MPI_COMM_WORLD);
	/* rounds from the slowest rank's cost of one more call */
	t = now_us();
	MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM,
	    MPI_COMM_WORLD);
	mine = now_us() - t;
	MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	rounds = (long)(secs * 1e6 / (slowest > 0.01 ? slowest : 0.01));
	rounds = rounds < 5 ? 5 : rounds > 100000 ? 100000 : rounds;
	MPI_Bcast(&rounds, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	times = malloc((size_t)rounds * sizeof *times);
	worst = malloc((size_t)rounds * sizeof *worst);
	if (times == NULL || worst == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	for (long i = 0; i < rounds; i++) {
		t = now_us();
		MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM,
		    MPI_COMM_WORLD);
		times[i] = now_us() - t;
	}
	MPI_Reduce(times, worst, (int)rounds, MPI_DOUBLE, MPI_MAX, 0,
	    MPI_COMM_WORLD);
	if (me == 0) {
		double lo = worst[0], hi = worst[0];

		for (long i = 1; i < rounds; i++) {
			lo = worst[i] < lo ? worst[i] : lo;
			hi = worst[i] > hi ? worst[i] : hi;
		}
		printf("%llu %ld %.3f %.3f %.3f\n", (unsigned long long)bytes,
		    rounds, median_double(worst, (size_t)rounds), lo, hi);
		fflush(stdout);
	}
	free(times);
	free(worst);
}

static int
allreduce_main(int argc, char **argv, int me)
{
	uint64_t min = 4096, max = 64u << 20, factor = 16;
	double secs = 0.2;
	int warmup = 3, c;
	float *buf;

	while ((c = getopt(argc, argv, "b:e:f:w:t:")) != -1) {
		switch (c) {
		case 'b':
			min = bytes_arg(optarg);
			break;
		case 'e':
			max = bytes_arg(optarg);
			break;
		case 'f':
			factor = bytes_arg(optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			usage();
		}
	}
	if (factor < 2 || min > max || max > (uint64_t)INT32_MAX)
		usage();
	buf = malloc(max);
	if (buf == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, 0, max);
	for (uint64_t b = min; b <= max; b *= factor)
		one_size(buf, b / sizeof(float) * sizeof(float), warmup, secs,
		    me);
	free(buf);
	return 0;
}

/* Poll own cell until it reaches want. */
static void
rma_wait(MPI_Win win, volatile int32_t *cell, int32_t want)
{
	for (;;) {
		MPI_Win_sync(win);
		if (*cell >= want)
			return;
		if (NEEDS_PROGRESS) {
			int flag;
			MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
			    &flag, MPI_STATUS_IGNORE);
		}
	}
}

static void
rma_notify(MPI_Win win, int peer)
{
	int32_t one = 1;

	MPI_Accumulate(&one, 1, MPI_INT32_T, peer, 0, 1, MPI_INT32_T, MPI_SUM,
	    win);
	MPI_Win_flush(peer, win);
}

static int
rma_main(int argc, char **argv, int me, int n)
{
	long rounds = 100000;
	int32_t *cell;
	double *rt = NULL;
	MPI_Win win;
	int c;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n')
			usage();
		rounds = atol(optarg);
	}
	if (n < 2 || rounds < 1)
		usage();
	MPI_Win_allocate(64, sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD,
	    &cell, &win);
	*cell = 0;
	if (me == 0 && (rt = malloc((size_t)rounds * sizeof *rt)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Win_lock_all(0, win);
	MPI_Barrier(MPI_COMM_WORLD);
	for (int32_t i = 1; i <= rounds && me < 2; i++) {
		if (me == 0) {
			double t = now_us();
			rma_notify(win, 1);
			rma_wait(win, cell, i);
			rt[i - 1] = now_us() - t;
		} else {
			rma_wait(win, cell, i);
			rma_notify(win, 0);
		}
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 0)
		printf("%.3f\n", median_double(rt, (size_t)rounds));
	free(rt);
	MPI_Win_free(&win);
	return 0;
}

int
main(int argc, char **argv)
{
	int me, n, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "allreduce") == 0)
		rc = allreduce_main(argc - 1, argv + 1, me);
	else if (strcmp(argv[1], "rma") == 0)
		rc = rma_main(argc - 1, argv + 1, me, n);
	else
		usage();
	MPI_Finalize();
	return rc;
}
