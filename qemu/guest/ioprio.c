/* ioprio: set and read back this process's I/O priority with ioprio_set/ioprio_get, building and
 * splitting the values with the macros of the patched <linux/ioprio.h> (IOPRIO_PRIO_VALUE,
 * IOPRIO_PRIO_CLASS, IOPRIO_PRIO_DATA/LEVEL). Built as C and as C++, so the macros must work in both.
 * Prints one line per class and exits 0 when every value reads back as set, 1 otherwise. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/ioprio.h>

struct ioprio_case {
	const char *name;
	int ioclass;
	int level;
};

int main(void)
{
	static const struct ioprio_case cases[] = {
		{ "RT", IOPRIO_CLASS_RT, 2 },
		{ "BE", IOPRIO_CLASS_BE, 5 },
		{ "IDLE", IOPRIO_CLASS_IDLE, 0 },
		{ "BE", IOPRIO_CLASS_BE, 7 },
	};
	int failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ioprio_case *c = &cases[i];
		long value = IOPRIO_PRIO_VALUE(c->ioclass, c->level), got;

		if (syscall(SYS_ioprio_set, (long)IOPRIO_WHO_PROCESS, 0L, value) < 0) {
			printf("ioprio: ioprio_set(%s, %d): %s\n", c->name, c->level, strerror(errno));
			failed = 1;
			continue;
		}
		got = syscall(SYS_ioprio_get, (long)IOPRIO_WHO_PROCESS, 0L);
		if (got < 0) {
			printf("ioprio: ioprio_get: %s\n", strerror(errno));
			failed = 1;
			continue;
		}
		int ok = got == value && (int)IOPRIO_PRIO_CLASS(got) == c->ioclass &&
			 (int)IOPRIO_PRIO_DATA(got) == c->level && (int)IOPRIO_PRIO_LEVEL(got) == c->level;
		printf("ioprio %s level %d: set 0x%lx got 0x%lx class %d data %d %s\n", c->name, c->level,
		       value, got, (int)IOPRIO_PRIO_CLASS(got), (int)IOPRIO_PRIO_DATA(got), ok ? "ok" : "MISMATCH");
		failed |= !ok;
	}
	return failed;
}
