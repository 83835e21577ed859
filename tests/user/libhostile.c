/*
 * libhostile.c - what a buggy library can do from inside a rank, for the
 * tests: `load` it, then `call` one of these.
 *
 *	smash(buf, "dtype", 3, 0x41)	window slot 3's dtype := 0x41
 *	spin()				never returns (a call that hangs)
 *	stop()				raise(SIGSTOP) on itself
 *
 * smash() finds the segment header the way any code could: from a window
 * pointer, the start of the mapping that holds it, checked for the magic.  Fields: used dtype ndim off
 * count bytes name (window slot), nranks area_size board_off (header),
 * coll (the collective in progress), state wait_off (this rank's board
 * slot: `slot` is the rank).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seg.h"

int smash(void *win, const char *what, int slot, long long v);
void spin(void);
int stop(void);

/* The segment is one mapping, its header the first page: the mapping
 * that holds p, from /proc/self/maps.  (Walking down page by page to the
 * magic read every untouched page of the span rings on the way, each a
 * new tmpfs page: a second on an idle machine, over ten under load.) */
static struct seg_header *
header_of(void *p)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	struct seg_header *h = NULL;
	unsigned long lo, hi;
	char *line = NULL;
	size_t cap = 0;

	while (fp != NULL && h == NULL && getline(&line, &cap, fp) > 0) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo <= (uintptr_t)p && (uintptr_t)p < hi)
			h = (struct seg_header *)lo;
	}
	free(line);
	if (fp != NULL)
		fclose(fp);
	if (h != NULL && h->magic == SEG_MAGIC)
		return h;
	for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;; a -= 4096) {
		h = (struct seg_header *)a;
		if (h->magic == SEG_MAGIC)
			return h;
	}
}

int
smash(void *win, const char *what, int slot, long long v)
{
	struct seg_header *h = header_of(win);
	struct seg_window *w = &h->windows[slot & (SEG_MAX_WINDOWS - 1)];
	struct seg_rank *b = (struct seg_rank *)((char *)h + h->board_off) + slot;

	if (strcmp(what, "used") == 0)
		w->used = (uint8_t)v;
	else if (strcmp(what, "dtype") == 0)
		w->dtype = (uint8_t)v;
	else if (strcmp(what, "ndim") == 0)
		w->ndim = (uint8_t)v;
	else if (strcmp(what, "off") == 0)
		w->off = (uint64_t)v;
	else if (strcmp(what, "count") == 0)
		w->count = (uint64_t)v;
	else if (strcmp(what, "bytes") == 0)
		w->bytes = (uint64_t)v;
	else if (strcmp(what, "name") == 0)
		memset(w->name, 'A', sizeof w->name);
	else if (strcmp(what, "coll") == 0) {
		memset(&h->cur_coll, (int)v, sizeof h->cur_coll);
		atomic_store(&h->cur_coll_id, 99);
	}
	else if (strcmp(what, "state") == 0)
		atomic_store(&b->state, (uint32_t)v);
	else if (strcmp(what, "wait_off") == 0)
		atomic_store(&b->wait_off, (uint64_t)v);
	else if (strcmp(what, "nranks") == 0)	/* last: b is computed first */
		h->nranks = (uint32_t)v;
	else if (strcmp(what, "area_size") == 0)
		h->area_size = (uint64_t)v;
	else if (strcmp(what, "board_off") == 0)
		h->board_off = (uint64_t)v;
	else
		return -1;
	return 0;
}

void
spin(void)
{
	for (volatile unsigned long i = 0;; i++)
		;
}

int
stop(void)
{
	return raise(SIGSTOP);
}
