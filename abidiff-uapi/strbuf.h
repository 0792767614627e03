/* A growable string: the one way this code builds a string of unknown
 * length (type keys, paths). Always NUL-terminated; memory per xmem.h, so
 * no call fails. */
#ifndef AU_STRBUF_H
#define AU_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "arena.h"

struct strbuf {
	char *s;          /* NULL until the first addition; see au_strbuf_str */
	size_t len, cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void au_strbuf_init(struct strbuf *b);
void au_strbuf_release(struct strbuf *b);
void au_strbuf_add(struct strbuf *b, const char *p, size_t n);
void au_strbuf_puts(struct strbuf *b, const char *s);
void au_strbuf_putc(struct strbuf *b, char c);
void au_strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Cuts the string to n bytes (n <= len). */
void au_strbuf_truncate(struct strbuf *b, size_t n);
/* The string so far ("" when empty); valid until the next change. */
const char *au_strbuf_str(const struct strbuf *b);
/* A copy in the arena; b is unchanged. */
char *au_strbuf_arena_copy(const struct strbuf *b, struct arena *a);

#endif
