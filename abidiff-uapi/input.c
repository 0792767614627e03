#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "xmem.h"

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


/* Reads the whole file from offset 0, in as many reads as it takes: sysfs
 * files (/sys/kernel/btf/vmlinux) hand out a page or so per read. */
int au_read_all(int fd, size_t hint, unsigned char **ret, size_t *ret_len)
{
	size_t cap = hint ? hint : 65536, len = 0;
	unsigned char *buf = au_xmalloc(cap);
	for (;;) {
		if (len == cap) {
			/* No input of ours is this large. */
			if (cap >= ((size_t)1 << 31)) {
				free(buf);
				return EFBIG;
			}
			buf = au_xrealloc(buf, 2 * cap);
			cap *= 2;
		}
		ssize_t n = pread(fd, buf + len, cap - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

int au_private_file(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd >= 0)
		return fd;
	int saved = errno;
	const char *dir = getenv("TMPDIR");
	char *path = au_xasprintf("%s/%s.XXXXXX", dir && *dir ? dir : "/tmp", name);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	else
		errno = saved;
	free(path);
	return fd;
}
