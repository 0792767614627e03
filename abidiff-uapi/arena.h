/* A bump allocator: a layout model is built once, read many times and freed
 * whole, so its thousands of small strings and arrays live in one arena.
 * Running out of memory goes to the one policy of xmem.h. */
#ifndef AU_ARENA_H
#define AU_ARENA_H

#include <stddef.h>

#include "xmem.h"

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	size_t used;      /* bytes used in head */
	size_t capacity;  /* bytes available in head */
	size_t total;     /* bytes obtained from malloc, for the benchmark */
};

void au_arena_init(struct arena *a);
void au_arena_deinit(struct arena *a);
/* Frees everything allocated in a but keeps one chunk for the next
 * allocations: a scratch arena used over and over. */
void au_arena_reset(struct arena *a);
void *au_arena_alloc(struct arena *a, size_t size);          /* zeroed */
void *au_arena_memdup(struct arena *a, const void *p, size_t size);
char *au_arena_strdup(struct arena *a, const char *s);       /* NULL stays NULL */
/* a, b and c joined (none NULL): the keys' common case, without printf. */
char *au_arena_concat3(struct arena *a, const char *s1, const char *s2, const char *s3);
char *au_arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
