#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmem.h"

static void (*oom_handler)(void);

void au_set_out_of_memory_handler(void (*handler)(void))
{
	oom_handler = handler;
}

void au_out_of_memory(void)
{
	if (oom_handler)
		oom_handler();
	abort();
}

void *au_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		au_out_of_memory();
	return p;
}

void *au_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		au_out_of_memory();
	return p;
}

void *au_xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (!q)
		au_out_of_memory();
	return q;
}

char *au_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(au_xmalloc(n), s, n);
}

char *au_xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		au_out_of_memory();
	return s;
}

char *au_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = au_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
