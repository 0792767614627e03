/* One error convention for every layer: a fallible function returns a
 * struct au_error * (NULL on success) that carries a message fit for the
 * user, and its out-parameters come last and are untouched on failure.
 * Library code never prints; main.c decides what the user sees. */
#ifndef AU_ERROR_H
#define AU_ERROR_H

struct au_error {
	char *message;
};

/* An error whose message is formatted like printf. Never returns NULL
 * (running out of memory goes to xmem.h's policy). */
struct au_error *au_error_format(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Accepts NULL. */
void au_error_destroy(struct au_error *err);

#endif
