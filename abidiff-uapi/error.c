#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "xmem.h"

struct au_error *au_error_format(const char *fmt, ...)
{
	struct au_error *err = au_xmalloc(sizeof(*err));
	va_list ap;
	va_start(ap, fmt);
	err->message = au_xvasprintf(fmt, ap);
	va_end(ap);
	return err;
}

void au_error_destroy(struct au_error *err)
{
	if (!err)
		return;
	free(err->message);
	free(err);
}
