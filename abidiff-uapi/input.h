/* Opening inputs: every reader opens a file exactly once, through here. */
#ifndef AU_INPUT_H
#define AU_INPUT_H

#include "error.h"

/* Opens path for reading: without blocking (a FIFO with no writer must not
 * hang the tool), and only if it is a non-empty regular file (a FIFO, a
 * socket or a device is refused at once, naming what it is). Returns the fd,
 * in blocking mode, or -1 with *err set. */
int au_open_input(const char *path, struct au_error **err);

#endif
