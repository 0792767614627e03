/* debug-exit: end the QEMU guest with a status for the host. Writes CODE to QEMU's isa-debug-exit
 * port 0xf4 (after ioperm), which makes QEMU exit with (CODE << 1) | 1.
 * Usage: debug-exit CODE. Returns only when the port is unavailable (exit 1). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

int main(int argc, char **argv)
{
	unsigned int code = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 0;

	if (ioperm(0xf4, 4, 1) < 0) {
		perror("debug-exit: ioperm");
		return 1;
	}
	outl(code, 0xf4);
	fprintf(stderr, "debug-exit: still running after writing to port 0xf4\n");
	return 1;
}
