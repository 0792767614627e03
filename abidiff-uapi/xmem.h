/* The one out-of-memory policy. Running out of memory is not an input
 * error, and no caller can do better than stop: every allocation outside
 * libdw and libbpf goes through these, which never return NULL. When memory
 * runs out they call the handler the program installed (abidiff-uapi's
 * main prints one line and exits 2); with none installed (the unit tests,
 * the fuzzers) they abort(). This is the one place library code may end
 * the process, and it does so without printing. */
#ifndef AU_XMEM_H
#define AU_XMEM_H

#include <stdarg.h>
#include <stddef.h>

/* handler must not return. */
void au_set_out_of_memory_handler(void (*handler)(void));
__attribute__((noreturn)) void au_out_of_memory(void);

void *au_xmalloc(size_t size);
void *au_xcalloc(size_t n, size_t size);     /* also checks n * size for overflow */
void *au_xrealloc(void *p, size_t size);
char *au_xstrdup(const char *s);
char *au_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *au_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
