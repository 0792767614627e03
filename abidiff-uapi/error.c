#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"

struct au_error au_error_nomem = { .message = "out of memory" };

struct au_error *au_error_format(const char *fmt, ...)
{
	struct au_error *err = malloc(sizeof(*err));
	if (!err)
		return &au_error_nomem;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&err->message, fmt, ap);
	va_end(ap);
	if (n < 0) {
		free(err);
		return &au_error_nomem;
	}
	return err;
}

void au_error_destroy(struct au_error *err)
{
	if (!err || err == &au_error_nomem)
		return;
	free(err->message);
	free(err);
}
