/* u64map.c - an open-addressing map of 64-bit keys; see u64map.h. */
#include <stdlib.h>

#include "u64map.h"
#include "xmalloc.h"

static size_t
slot_of(uint64_t key, size_t cap)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 17) & (cap - 1);
}

static size_t
probe(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t i;

	for (i = slot_of(key, cap); keys[i] != 0 && keys[i] != key;
	     i = (i + 1) & (cap - 1))
		;
	return i;
}

static void
grow(struct u64map *m)
{
	struct u64map o = *m;

	m->cap = o.cap ? 2 * o.cap : 256;
	m->keys = xcalloc(m->cap, sizeof *m->keys);
	m->vals = xcalloc(m->cap, sizeof *m->vals);
	for (size_t j = 0; j < o.cap; j++) {
		size_t i;

		if (o.keys[j] == 0)
			continue;
		i = probe(m->keys, m->cap, o.keys[j]);
		m->keys[i] = o.keys[j];
		m->vals[i] = o.vals[j];
	}
	free(o.keys);
	free(o.vals);
}

uint64_t *
u64map_slot(struct u64map *m, uint64_t key, int *fresh)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	i = probe(m->keys, m->cap, key);
	*fresh = m->keys[i] == 0;
	if (*fresh) {
		m->keys[i] = key;
		m->vals[i] = 0;
		m->n++;
	}
	return &m->vals[i];
}

uint64_t *
u64map_find(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	i = probe(m->keys, m->cap, key);
	return m->keys[i] == key ? &m->vals[i] : NULL;
}

void
u64map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = m->vals = NULL;
	m->n = m->cap = 0;
}
