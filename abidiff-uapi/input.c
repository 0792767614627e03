#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"

/* Opens an input once, without blocking (a FIFO with no writer must not
 * hang), and insists on a regular file. */
int au_open_input(const char *path, struct au_error **err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*err = au_error_format("%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0)
		*err = au_error_format("%s: %s", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		*err = au_error_format("%s: is a directory", path);
	else if (S_ISFIFO(st.st_mode))
		*err = au_error_format("%s: is a pipe (FIFO), not a regular file: give a file", path);
	else if (S_ISSOCK(st.st_mode))
		*err = au_error_format("%s: is a socket, not a regular file", path);
	else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		*err = au_error_format("%s: is a device, not a regular file", path);
	else if (!S_ISREG(st.st_mode))
		*err = au_error_format("%s: not a regular file", path);
	else if (st.st_size == 0)
		*err = au_error_format("%s: empty file", path);
	else {
		/* Reads block from here on: a regular file never waits. */
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		return fd;
	}
	close(fd);
	return -1;
}

