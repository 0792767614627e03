/* A growable string: the one way this code builds a string of unknown
 * length (type keys, paths). Always NUL-terminated; memory per xmem.h, so
 * no call fails. */
#ifndef AU_STRBUF_H
#define AU_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "arena.h"

struct strbuf {
	char *s;          /* NULL until the first addition; see strbuf_str */
	size_t len, cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void strbuf_init(struct strbuf *b);
void strbuf_release(struct strbuf *b);
void strbuf_add(struct strbuf *b, const char *p, size_t n);
void strbuf_puts(struct strbuf *b, const char *s);
void strbuf_putc(struct strbuf *b, char c);
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Cuts the string to n bytes (n <= len). */
void strbuf_truncate(struct strbuf *b, size_t n);
/* The string so far ("" when empty); valid until the next change. */
const char *strbuf_str(const struct strbuf *b);
/* A copy in the arena; b is unchanged. */
char *strbuf_arena_copy(const struct strbuf *b, struct arena *a);

#endif
