/* One error convention for every layer: a fallible function returns a
 * struct au_error * (NULL on success) that carries a message fit for the
 * user, and its out-parameters come last and are untouched on failure.
 * Library code never prints; main.c decides what the user sees. */
#ifndef AU_ERROR_H
#define AU_ERROR_H

struct au_error {
	char *message;
};

/* An error whose message is formatted like printf. Never returns NULL: when
 * memory runs out it returns a static "out of memory" error. */
struct au_error *au_error_format(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
extern struct au_error au_error_nomem;
/* Accepts NULL and the static errors. */
void au_error_destroy(struct au_error *err);

#endif
