/* Opening inputs: every reader opens a file exactly once, through here. */
#ifndef AU_INPUT_H
#define AU_INPUT_H

#include <stddef.h>

#include "error.h"

/* Opens path for reading: without blocking (a FIFO with no writer must not
 * hang the tool), and only if it is a non-empty regular file (a FIFO, a
 * socket or a device is refused at once, naming what it is). Returns the fd,
 * in blocking mode, or -1 with *err set. */
int au_open_input(const char *path, struct au_error **err);

/* Reads all of fd (hint: the expected size) into a malloc'd buffer. Returns
 * 0, or an errno value. */
int au_read_all(int fd, size_t hint, unsigned char **ret, size_t *ret_len);

/* A private, anonymous, writable file (close it to free it): a memfd, or
 * where the kernel has none (a tiny kernel without CONFIG_MEMFD_CREATE, a
 * sandbox that forbids it) an unlinked file in $TMPDIR or /tmp. Returns the
 * fd, or -1 with errno set. */
int au_private_file(const char *name);

#endif
