/*
 * kern-bw.c - `make bench`, data path part: the reduce/convert kernels
 * (core/kern.h) at each level the CPU has (scalar: the reference loops of
 * dtype.c as -O2 builds them; generic: the -O3 loops for the baseline ISA;
 * avx2: the same with AVX2, f16 through F16C), on what a chunk of an
 * allreduce touches: 16 KiB of data (one chunk, in cache) and 64 MiB (from
 * memory).  GB/s counts the bytes read (both sources).  Figures, not tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"
#include "kern.h"
#include "median.h"

#define SAMPLES 9

struct job {
	const char *what;
	enum dtype adt, bdt; /* the two sources */
	int fused;	     /* acc = a op b (else in place: a op= b) */
};

static const struct job jobs[] = {
	{ "f32 sum, acc op= x (reduce)", DT_F32, DT_F32, 0 },
	{ "f32 sum, acc = a op b (fused load+reduce)", DT_F32, DT_F32, 1 },
	{ "f16 sum into f32 acc (fused, widened)", DT_F16, DT_F16, 1 },
	{ "bf16 sum into f32 acc (fused, widened)", DT_BF16, DT_BF16, 1 },
	{ "f32 acc -> f16 (store, rounded)", DT_F32, DT_F16, 2 },
	{ "i32 sum, acc op= x", DT_I32, DT_I32, 0 },
};

/* ns per pass over n elements: the median of SAMPLES timings of enough
 * passes to take ~2 ms. */
static double
time_job(const struct job *j, void *acc, void *a, void *b, size_t n)
{
	uint64_t t[SAMPLES];
	size_t reps = n >= (1u << 22) ? 1 : (1u << 22) / n;

	for (int s = 0; s < SAMPLES; s++) {
		uint64_t t0 = mono_ns();

		for (size_t r = 0; r < reps; r++) {
			if (j->fused == 2)
				kern_convert(DT_F16, b, DT_F32, acc, n);
			else if (j->fused && j->adt == DT_F32)
				kern_reduce(DT_F32, RED_SUM, acc, a, b, n);
			else if (j->fused)
				kern_reduce_f32(RED_SUM, acc, j->adt, a, j->bdt,
				    b, n);
			else
				kern_reduce(j->adt, RED_SUM, acc, acc, b, n);
		}
		t[s] = (mono_ns() - t0) / reps;
	}
	return (double)median_u64(t, SAMPLES);
}

int
main(void)
{
	static const size_t sizes[] = { 16u << 10, 64u << 20 };
	enum kern_level best = kern_level();

	printf("  %-44s %8s", "kernel (GB/s read; x = over scalar)", "bytes");
	for (int l = 0; l <= (int)best; l++)
		printf(" %14s", kern_level_name((enum kern_level)l));
	printf("\n");
	for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
		const struct job *j = &jobs[k];

		for (size_t z = 0; z < 2; z++) {
			size_t n = sizes[z] / 4; /* elements of f32 */
			float *acc = malloc(n * 4);
			void *a = malloc(n * 4), *b = malloc(n * 4);
			double scalar = 0;
			size_t rd = n *
			    (j->fused == 2 ?
				    4 :
				    dtype_size(j->adt) + dtype_size(j->bdt));

			memset(acc, 0, n * 4);
			memset(a, 0, n * 4);
			memset(b, 0, n * 4);
			printf("  %-44s %8s", j->what, z ? "64M" : "16k");
			for (int l = 0; l <= (int)best; l++) {
				double ns;

				kern_force((enum kern_level)l);
				ns = time_job(j, acc, a, b, n);
				if (l == 0)
					scalar = ns;
				printf(" %7.2f %5.1fx", (double)rd / ns,
				    scalar / ns);
			}
			printf("\n");
			free(acc);
			free(a);
			free(b);
		}
	}
	kern_force(best);
	return 0;
}
