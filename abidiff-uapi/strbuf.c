#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

void au_strbuf_init(struct strbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void au_strbuf_release(struct strbuf *b)
{
	free(b->s);
	au_strbuf_init(b);
}

/* Room for n more bytes and the NUL. */
static void reserve(struct strbuf *b, size_t n)
{
	if (n >= (size_t)-1 / 2 - b->len)
		au_out_of_memory();
	if (b->len + n + 1 <= b->cap)
		return;
	size_t cap = b->cap ? 2 * b->cap : 64;
	while (cap < b->len + n + 1)
		cap *= 2;
	b->s = au_xrealloc(b->s, cap);
	b->cap = cap;
}

void au_strbuf_add(struct strbuf *b, const char *p, size_t n)
{
	reserve(b, n);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void au_strbuf_puts(struct strbuf *b, const char *s)
{
	au_strbuf_add(b, s, strlen(s));
}

void au_strbuf_putc(struct strbuf *b, char c)
{
	au_strbuf_add(b, &c, 1);
}

void au_strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;   /* an invalid format: nothing our formats do */
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void au_strbuf_truncate(struct strbuf *b, size_t n)
{
	if (n < b->len) {
		b->len = n;
		b->s[n] = '\0';
	}
}

const char *au_strbuf_str(const struct strbuf *b)
{
	return b->s ? b->s : "";
}

char *au_strbuf_arena_copy(const struct strbuf *b, struct arena *a)
{
	return au_arena_strdup(a, au_strbuf_str(b));
}
