/*
 * libkern.c - a library to `load` into colldb's ranks and `call`:
 *
 *	cc -shared -fPIC -Icore -o libkern.so docs/examples/libkern.c
 *	(colldb) alloc buf [256] f32
 *	(colldb) load ./libkern.so
 *	(colldb) call scale(buf, 256, 2.0) -> i32
 *	(colldb) @1 call kern:ring_sum(buf, tmp, sig, rank, nranks)
 *
 * Window names become this rank's pointers, `rank` and `nranks` ints.
 * The functions cover every argument and return kind `call` has (the
 * tests use them), plus one that uses libcolldb from inside the rank and
 * one that crashes.  Build it without -lcolldb: its cdb_* references
 * resolve to the colldb process that loads it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "colldb.h"

/* The interface (a real library would have it in libkern.h). */
int scale(float *x, int n, double f);
int64_t sum_ints(int8_t a, int16_t b, int32_t c, int64_t d, uint8_t e,
    uint16_t f, uint32_t g, uint64_t h);
double mix(float a, double b);
float halve(float x);
int8_t as_i8(int64_t x);
int16_t as_i16(int64_t x);
uint8_t as_u8(int64_t x);
uint16_t as_u16(int64_t x);
uint32_t as_u32(int64_t x);
uint64_t as_u64(int64_t x);
int64_t length(const char *s);
float *nth(float *x, int i);
void *same(void *p);
void store(int32_t *cell, int32_t v);
int whoami(int rank, int nranks);
int crash(void);
int ring_sum(float *x, float *tmp, int32_t *sig, int rank, int nranks);

/* i32 return; pointer, int and double arguments. */
int
scale(float *x, int n, double f)
{
	for (int i = 0; i < n; i++)
		x[i] = (float)(x[i] * f);
	return n;
}

/* Every integer width, signed and unsigned; i64 return. */
int64_t
sum_ints(int8_t a, int16_t b, int32_t c, int64_t d, uint8_t e, uint16_t f,
    uint32_t g, uint64_t h)
{
	return a + b + c + d + e + f + (int64_t)g + (int64_t)h;
}

/* f32 and f64 arguments; f64 return. */
double
mix(float a, double b)
{
	return (double)a * 0.5 + b;
}

/* f32 return. */
float
halve(float x)
{
	return x / 2;
}

/* The narrow integer returns: x cut to the width, as C converts it. */
int8_t
as_i8(int64_t x)
{
	return (int8_t)x;
}

int16_t
as_i16(int64_t x)
{
	return (int16_t)x;
}

uint8_t
as_u8(int64_t x)
{
	return (uint8_t)x;
}

uint16_t
as_u16(int64_t x)
{
	return (uint16_t)x;
}

uint32_t
as_u32(int64_t x)
{
	return (uint32_t)x;
}

uint64_t
as_u64(int64_t x)
{
	return (uint64_t)x;
}

/* A string argument; i64 return. */
int64_t
length(const char *s)
{
	return s != NULL ? (int64_t)strlen(s) : -1;
}

/* Pointer return into a window (the shell names it: &buf[i]). */
float *
nth(float *x, int i)
{
	return x + i;
}

/* A null pointer: return kind ptr, argument NULL. */
void *
same(void *p)
{
	return p;
}

/* void return: stores into a cell (&sig[i] or a window). */
void
store(int32_t *cell, int32_t v)
{
	*cell = v;
}

/* rank and nranks as arguments. */
int
whoami(int rank, int nranks)
{
	printf("rank %d of %d\n", rank, nranks);
	fflush(stdout);
	return rank * 100 + nranks;
}

/* Crashes its rank (the session goes on without it). */
int
crash(void)
{
	volatile int *p = NULL;

	return *p;
}

/*
 * libcolldb inside a called function: a ring sum of one float per rank,
 * x[0] of every rank added up into x[0], through tmp (>= nranks floats)
 * and sig ([nranks,nranks] i32, all zero).  Each cdb_* call runs through
 * the rank's gate, so `break wait` stops it mid-call.
 */
int
ring_sum(float *x, float *tmp, int32_t *sig, int rank, int nranks)
{
	int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
	float acc = x[0];
	int err;

	tmp[rank] = x[0];
	for (int s = 0; s < nranks - 1; s++) {
		int from = ((rank - s) % nranks + nranks) % nranks;

		if ((err = cdb_put(&tmp[from], next, &tmp[from], 1, 0)) != CDB_OK ||
		    (err = cdb_notify(next, &sig[s * nranks + rank], 1, CDB_ADD)) != CDB_OK ||
		    (err = cdb_wait(&sig[s * nranks + prev], CDB_GE, 1)) != CDB_OK)
			return err;
		acc += tmp[((from - 1) % nranks + nranks) % nranks];
	}
	x[0] = acc;
	return CDB_OK;
}
