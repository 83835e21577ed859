/*
 * u64map.h - an open-addressing hash map from 64-bit keys to 64-bit
 * values, for the explorer's tables (cells, end states, counted states).
 * Key 0 is reserved (callers map their keys away from it).  The table
 * grows at half full; a pointer from u64map_slot() is valid until the
 * next insertion.
 *
 * Ownership: u64map_release() frees what the map allocated; a zeroed
 * struct u64map is an empty map.
 */
#ifndef COLLDB_U64MAP_H
#define COLLDB_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys; /* 0: empty slot */
	uint64_t *vals;
	size_t n, cap;
};

/* The value of key, inserted (as 0) if absent; *fresh says which. */
uint64_t *u64map_slot(struct u64map *m, uint64_t key, int *fresh);
/* The value of key, or NULL. */
uint64_t *u64map_find(const struct u64map *m, uint64_t key);
void u64map_release(struct u64map *m);

#endif
