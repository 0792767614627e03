/* Unit tests for report_compat.c: each compat fact (compat.h) in words,
 * from hand-built causes. The compat fixtures check the wording against
 * real objects; these also cover the facts no fixture or UAPI type shows
 * (a time struct that differs itself, a size no member explains, a type
 * with no more known). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "report.h"

#include "check.h"

/* The cause's words equal want. */
static int says(const struct compat_cause *x, const char *want)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return 0;
	au_report_compat_cause_text(f, x);
	fclose(f);
	int ok = strcmp(text, want) == 0;
	if (!ok)
		fprintf(stderr, "got:  %s\nwant: %s\n", text, want);
	free(text);
	return ok;
}

static void test_member_widths(void)
{
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_LONG_WIDTH, .fact = COMPAT_FACT_MEMBER_WIDTH,
					   .decl = { "__fd_mask[16]", "__fds_bits" }, .array = true, .via = "__fd_mask>long",
					   .abi64 = { .size = 128, .declared = "__fd_mask[16]" },
					   .abi32 = { .size = 128, .declared = "__fd_mask[32]" } },
		   "member __fd_mask __fds_bits[16] is an array of long (__fd_mask -> long), declared __fd_mask[32] on "
		   "the 32-bit ABI: 128 bytes (64-bit) vs 128 (32-bit)"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_POINTER_WIDTH, .fact = COMPAT_FACT_MEMBER_WIDTH,
					   .decl = { "void *", "p" }, .via = "void *",
					   .abi64 = { .size = 8, .declared = "void *" }, .abi32 = { .size = 4, .declared = "void *" } },
		   "member void *p is a pointer: 8 bytes (64-bit) vs 4 (32-bit)"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_POINTER_WIDTH, .fact = COMPAT_FACT_ANON_MEMBER_WIDTH,
					   .decl = { "struct {...}[2]", "v" }, .inner = "ptr",
					   .abi64 = { .size = 16 }, .abi32 = { .size = 8 } },
		   "member struct {...} v[2]: an anonymous type whose member ptr is a pointer: 16 bytes (64-bit) vs 8 (32-bit)"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_ARCH_IFDEF, .fact = COMPAT_FACT_TYPEDEF_PER_ABI,
					   .decl = { "__statfs_word", "f_bsize" },
					   .abi64 = { .size = 8, .declared = "__statfs_word", .chain = "__statfs_word>__kernel_long_t>long" },
					   .abi32 = { .size = 4, .declared = "__statfs_word", .chain = "__statfs_word>__u32>unsigned int" } },
		   "member __statfs_word f_bsize: __statfs_word is long on the 64-bit ABI and unsigned int on the 32-bit "
		   "one, 8 bytes (64-bit) vs 4 (32-bit)"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_OTHER, .fact = COMPAT_FACT_ARRAY_LENGTH,
					   .decl = { "char[16]", "name" },
					   .abi64 = { .size = 16, .declared = "char[16]" }, .abi32 = { .size = 12, .declared = "char[12]" } },
		   "member char name[16]: char[16] (64-bit) vs char[12] (32-bit), an array whose length the header "
		   "computes per ABI: 16 bytes (64-bit) vs 12 (32-bit)"));
}

static void test_alignment(void)
{
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_ALIGN8, .fact = COMPAT_FACT_MOVED, .anonymous = true,
					   .anon_kind = LAYOUT_UNION, .anon_first = "a", .abi64 = { .offset = 8 },
					   .abi32 = { .offset = 4 }, .align32 = 4 },
		   "anonymous union holding a at 4 (32-bit) vs 8 (64-bit): holds an 8-byte type, aligned to 4 on the "
		   "32-bit ABI"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_ALIGN8, .fact = COMPAT_FACT_MOVED, .decl = { "__u64", "b" },
					   .itself = true, .abi64 = { .offset = 8 }, .abi32 = { .offset = 4 }, .align32 = 4 },
		   "member __u64 b at 4 (32-bit) vs 8 (64-bit): an 8-byte type aligned to 4 on the 32-bit ABI"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_TIME_WIDTH, .fact = COMPAT_FACT_MOVED,
					   .decl = { "__kernel_time_t", "t" }, .abi64 = { .offset = 16 },
					   .abi32 = { .offset = 12 }, .align32 = 4 },
		   "member __kernel_time_t t at 12 (32-bit) vs 16 (64-bit): holds a time type, 8-aligned on the 64-bit "
		   "ABI, 4-aligned on the 32-bit one"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_ALIGN8, .fact = COMPAT_FACT_TRAILING_PADDING,
					   .decl = { "__u64", "u.x" }, .within = "u", .abi64 = { .size = 16 },
					   .abi32 = { .size = 12 }, .align32 = 4 },
		   "member u: size 12 (32-bit) vs 16 (64-bit): trailing padding to a multiple of 4, not 8, as __u64 u.x "
		   "is aligned to 4 on the 32-bit ABI"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_ALIGN8, .fact = COMPAT_FACT_ANON_TRAILING_PADDING,
					   .anonymous = true, .anon_kind = LAYOUT_STRUCT, .decl = { "__u64", "x" },
					   .abi64 = { .size = 16 }, .abi32 = { .size = 12 }, .align32 = 4 },
		   "anonymous struct is 12 bytes (32-bit) vs 16 (64-bit): trailing padding to a multiple of 4, not 8, "
		   "as __u64 x is aligned to 4 on the 32-bit ABI"));
}

static void test_other_facts(void)
{
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_TIME_WIDTH, .fact = COMPAT_FACT_EMBEDDED,
					   .decl = { "struct timeval", "tv" } },
		   "member struct timeval tv is a time type, whose layout differs"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_MEMBER_TYPE, .fact = COMPAT_FACT_EMBEDDED,
					   .type = "struct foo", .decl = { "struct foo", "f" } },
		   "member struct foo f: struct foo differs"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_ARCH_IFDEF, .fact = COMPAT_FACT_MEMBER_ONE_ABI,
					   .decl = { "__u32", "pad" }, .abi32 = { .offset = 4, .size = 4 } },
		   "member __u32 pad only on the 32-bit ABI (offset 4, size 4)"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_ARCH_IFDEF, .fact = COMPAT_FACT_TYPE_ONE_ABI,
					   .type_name = "struct stat64", .only_64 = true },
		   "struct stat64 is declared only on the 64-bit ABI"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_ARCH_IFDEF, .member = "E_X",
					   .fact = COMPAT_FACT_ENUMERATOR_ONE_ABI },
		   "enumerator E_X only on the 32-bit ABI"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_OTHER, .member = "C_IOCTL", .fact = COMPAT_FACT_IOCTL_SIZE,
					   .abi64 = { .value = 0x80106301, .size = 16 }, .abi32 = { .value = 0x80086301, .size = 8 } },
		   "enumerator C_IOCTL is 0x80106301 (64-bit) vs 0x80086301 (32-bit): an ioctl number whose size field "
		   "differs (16 vs 8 bytes)"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_OTHER, .fact = COMPAT_FACT_UNEXPLAINED_MOVE,
					   .decl = { NULL, "x" }, .abi64 = { .offset = 8 }, .abi32 = { .offset = 4 } },
		   "member ? x at 4 (32-bit) vs 8 (64-bit), and nothing before it explains the move"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_OTHER, .fact = COMPAT_FACT_UNEXPLAINED_SIZE,
					   .abi64 = { .size = 24 }, .abi32 = { .size = 20 } },
		   "size 24 (64-bit) vs 20 (32-bit), with no member to blame"));
	CHECK(says(&(struct compat_cause){ .cause = COMPAT_OTHER, .fact = COMPAT_FACT_LAYOUTS_DIFFER },
		   "the layouts differ"));
}

int main(void)
{
	test_member_widths();
	test_alignment();
	test_other_facts();
	return check_summary("unit-report-compat");
}
