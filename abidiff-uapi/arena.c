#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct arena_chunk {
	struct arena_chunk *next;
	max_align_t data[];
};

enum { ARENA_CHUNK_SIZE = 256 * 1024 };

void au_arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void au_arena_deinit(struct arena *a)
{
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	memset(a, 0, sizeof(*a));
}

void *au_arena_alloc(struct arena *a, size_t size)
{
	size = (size + _Alignof(max_align_t) - 1) & ~(size_t)(_Alignof(max_align_t) - 1);
	if (!a->head || a->capacity - a->used < size) {
		size_t cap = size > ARENA_CHUNK_SIZE / 4 ? size : ARENA_CHUNK_SIZE;
		struct arena_chunk *c = au_xmalloc(sizeof(*c) + cap);
		a->total += sizeof(*c) + cap;
		if (cap == size && a->head) {
			/* A big block goes behind the current chunk so the
			 * chunk's free space is not wasted. */
			c->next = a->head->next;
			a->head->next = c;
			memset(c->data, 0, size);
			return c->data;
		}
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->capacity = cap;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += size;
	memset(p, 0, size);
	return p;
}

void *au_arena_memdup(struct arena *a, const void *p, size_t size)
{
	void *q = au_arena_alloc(a, size ? size : 1);
	if (size)
		memcpy(q, p, size);
	return q;
}

char *au_arena_strdup(struct arena *a, const char *s)
{
	return s ? au_arena_memdup(a, s, strlen(s) + 1) : NULL;
}

char *au_arena_printf(struct arena *a, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return au_arena_strdup(a, "");
	if ((size_t)n < sizeof(buf))
		return au_arena_memdup(a, buf, (size_t)n + 1);
	char *p = au_arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
