/* Unit tests for strbuf.c and the out-of-memory policy of xmem.c. */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xmem.h"

#include "check.h"

/* Under AddressSanitizer (tests/run-all's second pass) an impossible
 * allocation must return NULL as it does without it, not stop the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static jmp_buf oom_jump;
static int oom_calls;

static void on_oom(void)
{
	oom_calls++;
	longjmp(oom_jump, 1);
}

static void test_strbuf(void)
{
	struct strbuf b = STRBUF_INIT;
	CHECK(strcmp(au_strbuf_str(&b), "") == 0 && b.len == 0);
	au_strbuf_puts(&b, "fn(");
	au_strbuf_putc(&b, 'x');
	au_strbuf_printf(&b, "%d;%s", 42, "y");
	au_strbuf_add(&b, ")zzz", 1);
	CHECK(strcmp(au_strbuf_str(&b), "fn(x42;y)") == 0);
	CHECK(b.len == strlen("fn(x42;y)"));
	au_strbuf_truncate(&b, 3);
	CHECK(strcmp(au_strbuf_str(&b), "fn(") == 0 && b.len == 3);
	au_strbuf_truncate(&b, 10);   /* beyond the end: unchanged */
	CHECK(strcmp(au_strbuf_str(&b), "fn(") == 0);
	/* Growth well past the first allocation, and a long printf. */
	for (int i = 0; i < 10000; i++)
		au_strbuf_putc(&b, 'a' + i % 26);
	CHECK(b.len == 10003 && b.s[b.len] == '\0' && b.s[3] == 'a' && b.s[10002] == 'a' + 9999 % 26);
	char big[5000];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	au_strbuf_printf(&b, "<%s>", big);
	CHECK(b.len == 10003 + 5001 && b.s[10003] == '<' && b.s[b.len - 1] == '>' && strlen(b.s) == b.len);
	struct arena a;
	au_arena_init(&a);
	char *copy = au_strbuf_arena_copy(&b, &a);
	CHECK(strcmp(copy, b.s) == 0 && copy != b.s);
	au_strbuf_release(&b);
	CHECK(b.s == NULL && b.len == 0 && b.cap == 0);
	struct strbuf e = STRBUF_INIT;
	CHECK(strcmp(au_strbuf_arena_copy(&e, &a), "") == 0);
	au_arena_deinit(&a);
}

static void test_oom(void)
{
	au_set_out_of_memory_handler(on_oom);
	/* Allocations that cannot succeed reach the handler, never return NULL. */
	if (setjmp(oom_jump) == 0) {
		void *p = au_xcalloc(SIZE_MAX / 2, 4);
		CHECK(p == NULL && !"au_xcalloc returned");
	}
	CHECK(oom_calls == 1);
	if (setjmp(oom_jump) == 0) {
		void *p = au_xmalloc(SIZE_MAX - 64);
		CHECK(p == NULL && !"au_xmalloc returned");
	}
	CHECK(oom_calls == 2);
	if (setjmp(oom_jump) == 0) {
		struct strbuf b = STRBUF_INIT;
		au_strbuf_add(&b, "x", SIZE_MAX - 8);
		CHECK(!"au_strbuf_add returned");
	}
	CHECK(oom_calls == 3);
	/* And ordinary ones work. */
	char *s = au_xasprintf("%s-%d", "a", 7);
	CHECK(strcmp(s, "a-7") == 0);
	free(s);
	s = au_xstrdup("dup");
	CHECK(strcmp(s, "dup") == 0);
	free(s);
	au_set_out_of_memory_handler(NULL);
}

int main(void)
{
	test_strbuf();
	test_oom();
	return check_summary("unit-strbuf");
}
