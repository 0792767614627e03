/* The unit tests' one harness: CHECK counts a check and names the failed
 * condition with its place; check_summary prints the counts and gives the
 * exit status. Each test program includes it once. */
#ifndef AU_TEST_CHECK_H
#define AU_TEST_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond)                                                                  \
	do {                                                                         \
		checks++;                                                            \
		if (!(cond)) {                                                       \
			failures++;                                                  \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                    \
	} while (0)

static inline int check_summary(const char *name)
{
	printf("%s: %d checks\n%d passed, %d failed\n", name, checks, checks - failures, failures);
	return failures ? 1 : 0;
}

#endif
