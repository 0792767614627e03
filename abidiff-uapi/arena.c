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

void au_arena_reset(struct arena *a)
{
	if (!a->head)
		return;
	struct arena_chunk *c = a->head->next;
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head->next = NULL;
	a->used = 0;
	a->total = sizeof(*a->head) + a->capacity;
}

/* size bytes at an address aligned to align (a power of two, at most
 * max_align_t's): strings take align 1, so that each costs its length and
 * not a multiple of 16 (a model holds millions of short names). */
static void *alloc(struct arena *a, size_t size, size_t align)
{
	size_t at = a->head ? (a->used + align - 1) & ~(align - 1) : 0;
	if (!a->head || at > a->capacity || a->capacity - at < size) {
		size_t cap = size > ARENA_CHUNK_SIZE / 4 ? size : ARENA_CHUNK_SIZE;
		struct arena_chunk *c = au_xmalloc(sizeof(*c) + cap);
		a->total += sizeof(*c) + cap;
		if (cap == size && a->head) {
			/* A big block goes behind the current chunk so the
			 * chunk's free space is not wasted. */
			c->next = a->head->next;
			a->head->next = c;
			return c->data;
		}
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->capacity = cap;
		at = 0;
	}
	void *p = (char *)a->head->data + at;
	a->used = at + size;
	return p;
}

void *au_arena_alloc(struct arena *a, size_t size)
{
	void *p = alloc(a, size, _Alignof(max_align_t));
	memset(p, 0, size);
	return p;
}

static char *string_copy(struct arena *a, const char *s, size_t len)
{
	char *p = alloc(a, len + 1, 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *au_arena_memdup(struct arena *a, const void *p, size_t size)
{
	if (!size)
		return au_arena_alloc(a, 1);
	/* Not zeroed first: every byte is written once, by the copy. */
	return memcpy(alloc(a, size, _Alignof(max_align_t)), p, size);
}

char *au_arena_strdup(struct arena *a, const char *s)
{
	return s ? string_copy(a, s, strlen(s)) : NULL;
}

char *au_arena_concat3(struct arena *a, const char *s1, const char *s2, const char *s3)
{
	size_t l1 = strlen(s1), l2 = strlen(s2), l3 = strlen(s3);
	char *p = alloc(a, l1 + l2 + l3 + 1, 1);
	memcpy(p, s1, l1);
	memcpy(p + l1, s2, l2);
	memcpy(p + l1 + l2, s3, l3);
	p[l1 + l2 + l3] = '\0';
	return p;
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
		return string_copy(a, buf, (size_t)n);
	char *p = alloc(a, (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
