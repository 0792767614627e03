/* Unit tests for typekey.c: every builder gives the grammar of typekey.h,
 * every predicate reads back what the builders wrote, and the edge cases
 * (flexible arrays, folded dimensions, long anonymous shapes) hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "typekey.h"

#include "check.h"

#define CHECK_STR(got, want)                                                         \
	do {                                                                         \
		const char *g_ = (got), *w_ = (want);                                \
		checks++;                                                            \
		if (!g_ || !w_ || strcmp(g_, w_) != 0) {                             \
			failures++;                                                  \
			fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got, \
				g_ ? g_ : "(null)", w_ ? w_ : "(null)");             \
		}                                                                    \
	} while (0)

static void test_base(struct arena *a)
{
	CHECK_STR(au_typekey_base(a, BASE_BOOL, 8, "_Bool"), "bool8");
	CHECK_STR(au_typekey_base(a, BASE_SIGNED, 32, "int"), "s32");
	CHECK_STR(au_typekey_base(a, BASE_UNSIGNED, 64, "long unsigned int"), "u64");
	CHECK_STR(au_typekey_base(a, BASE_FLOAT, 64, "double"), "f64");
	CHECK_STR(au_typekey_base(a, BASE_COMPLEX, 128, "complex double"), "cf128");
	CHECK_STR(au_typekey_base(a, BASE_UTF, 32, "char32_t"), "utf32");
	CHECK_STR(au_typekey_base(a, BASE_CHAR, 8, "char"), "char8");
	CHECK_STR(au_typekey_base(a, BASE_OTHER, 80, "decimal"), "base:decimal:80");
	CHECK_STR(au_typekey_base(a, BASE_OTHER, 16, NULL), "base:?:16");
	/* The name does not matter for a classified base type: unsigned int == __u32. */
	CHECK_STR(au_typekey_base(a, BASE_UNSIGNED, 32, "unsigned int"), au_typekey_base(a, BASE_UNSIGNED, 32, "__u32"));
}

static void test_pointers_arrays(struct arena *a)
{
	CHECK_STR(au_typekey_pointer(a, TYPEKEY_POINTER, "u8"), "*u8");
	CHECK_STR(au_typekey_pointer(a, TYPEKEY_LREF, "u8"), "&u8");
	CHECK_STR(au_typekey_pointer(a, TYPEKEY_RREF, "u8"), "&&u8");
	CHECK_STR(au_typekey_pointer(a, TYPEKEY_MEMBER_POINTER, "s32"), "::*s32");
	CHECK_STR(au_typekey_pointer(a, TYPEKEY_POINTER, TYPEKEY_VOID), "*void");
	CHECK_STR(au_typekey_sigil(TYPEKEY_RREF), "&&");

	CHECK_STR(au_typekey_array(a, 16, false, "char8"), "[16]char8");
	CHECK_STR(au_typekey_array(a, 0, true, "u8"), "[]u8");
	CHECK_STR(au_typekey_array(a, 0, false, "u8"), "[0]u8");
	/* Folding: [2] of [3]s32 is [6]s32, as DWARF's dimension list gives it. */
	CHECK_STR(au_typekey_array_fold(a, 2, au_typekey_array(a, 3, false, "s32")), "[6]s32");
	CHECK_STR(au_typekey_array_fold(a, 2, au_typekey_array_fold(a, 3, au_typekey_array(a, 4, false, "u8"))),
		  "[24]u8");
	CHECK_STR(au_typekey_array_fold(a, 5, "u8"), "[5]u8");
	/* An array of flexible arrays, or of pointers to arrays, does not fold. */
	CHECK_STR(au_typekey_array_fold(a, 2, "[]u8"), "[2][]u8");
	CHECK_STR(au_typekey_array_fold(a, 2, "*[3]u8"), "[2]*[3]u8");

	CHECK(au_typekey_sigil_prefix("[4]*u8") == 4);
	CHECK(au_typekey_sigil_prefix("*struct foo") == 1);
	CHECK(au_typekey_sigil_prefix("[]struct{a@0:8:u8;}1") == 2);
	CHECK(au_typekey_sigil_prefix("u8") == 0);
	CHECK(au_typekey_sigil_prefix("") == 0);

	CHECK_STR(au_typekey_zero_array_element("[]u8"), "u8");
	CHECK_STR(au_typekey_zero_array_element("[0]u8"), "u8");
	CHECK(au_typekey_zero_array_element("[1]u8") == NULL);
	CHECK(au_typekey_zero_array_element("u8") == NULL);
	CHECK_STR(au_typekey_one_element("[1]u8"), "u8");
	CHECK(au_typekey_one_element("[10]u8") == NULL);
	CHECK(au_typekey_one_element("[]u8") == NULL);
}

static void test_functions(struct arena *a)
{
	struct typekey_fn f;
	au_typekey_fn_init(&f);
	CHECK_STR(au_typekey_fn_finish(&f, a, TYPEKEY_VOID), "fn(void;)");
	au_typekey_fn_init(&f);
	au_typekey_fn_param(&f, "s32");
	au_typekey_fn_param(&f, "*char8");
	au_typekey_fn_param(&f, TYPEKEY_VARARGS);
	CHECK_STR(au_typekey_fn_finish(&f, a, "s32"), "fn(s32;s32,*char8,...)");
	CHECK(f.params.s == NULL && f.params.len == 0);
	/* Many parameters: the builder grows. */
	au_typekey_fn_init(&f);
	for (int i = 0; i < 100; i++)
		au_typekey_fn_param(&f, "u8");
	const char *k = au_typekey_fn_finish(&f, a, "u8");
	CHECK(strncmp(k, "fn(u8;u8,u8,", 12) == 0 && strcmp(k + strlen(k) - 4, ",u8)") == 0);
	CHECK(strlen(k) == 7 + 100 * 2 + 99);
}

static void test_named(struct arena *a)
{
	const char *s = au_typekey_named(a, "struct", "foo");
	CHECK_STR(s, "struct foo");
	CHECK(au_typekey_is_named_aggregate(s) && au_typekey_is_named(s) && !au_typekey_is_named_enum(s));
	CHECK(!au_typekey_is_anon(s));
	CHECK_STR(au_typekey_tag_name(s), "foo");
	const char *u = au_typekey_named(a, "union", "bar");
	CHECK(au_typekey_is_named_aggregate(u));
	CHECK_STR(au_typekey_tag_name(u), "bar");
	const char *e = au_typekey_named(a, "enum", "baz");
	CHECK(au_typekey_is_named_enum(e) && au_typekey_is_named(e) && !au_typekey_is_named_aggregate(e));
	const char *ae = au_typekey_anon_enum_name(a, "FIRST");
	CHECK_STR(ae, "enum {FIRST}");
	CHECK(au_typekey_is_named_enum(ae));
	/* A typedef name is not a tagged name, and has no tag to strip. */
	CHECK(!au_typekey_is_named("uuid_le") && !au_typekey_is_anon("uuid_le"));
	CHECK_STR(au_typekey_tag_name("uuid_le"), "uuid_le");
	CHECK_STR(au_typekey_tag_name("structure"), "structure");
	CHECK(!au_typekey_is_named("structfoo") && !au_typekey_is_named("struct") && !au_typekey_is_named("enum"));

	CHECK_STR(au_typekey_scoped(a, "struct Node", "struct A"), "struct A::Node");
	CHECK_STR(au_typekey_scoped(a, "union U", "A_t"), "union A_t::U");
	CHECK_STR(au_typekey_scoped(a, "Node_t", "struct ns::A"), "ns::A::Node_t");

	const char *p = au_typekey_ptr_typedef(a, "Ptr");
	CHECK_STR(p, "*Ptr");
	CHECK(au_typekey_is_ptr_typedef_of(p, "Ptr"));
	CHECK(!au_typekey_is_ptr_typedef_of(p, "Pt"));
	CHECK(!au_typekey_is_ptr_typedef_of("Ptr", "Ptr"));
	CHECK(!au_typekey_is_ptr_typedef_of(NULL, "Ptr") && !au_typekey_is_ptr_typedef_of(p, NULL));

	CHECK_STR(au_typekey_unspecified(a, "decltype(nullptr)"), "unspecified:decltype(nullptr)");
	CHECK_STR(au_typekey_unknown(a, "tag", 0x41, "x"), "tag65:x");
	CHECK_STR(au_typekey_unknown(a, "btf", -1, "?"), "btf-1:?");
}

static void test_anon(struct arena *a)
{
	static const struct layout_member_type u32 = { .key = "u32", .size = 4 };
	static const struct layout_member_type u8 = { .key = "u8", .size = 1 };
	struct layout_member ms[2] = {
		{ .name = "lo", .bit_offset = 0, .type = &u32 },
		{ .name = "hi", .bit_offset = 32, .type = &u32 },
	};
	struct layout_type s = { .kind = LAYOUT_STRUCT, .size = 8, .nmembers = 2, .members = ms };
	const char *k = au_typekey_anon(a, &s);
	CHECK_STR(k, "struct{lo@0:32:u32;hi@32:32:u32;}8");
	CHECK(au_typekey_is_anon(k) && !au_typekey_is_named(k));
	CHECK(au_typekey_sigil_prefix(k) == 0);
	struct layout_type u = { .kind = LAYOUT_UNION, .size = 4, .nmembers = 1, .members = ms };
	CHECK_STR(au_typekey_anon(a, &u), "union{lo@0:32:u32;}4");
	CHECK(au_typekey_is_anon(au_typekey_anon(a, &u)));
	struct layout_enumerator es[2] = { { .name = "A", .value = 0 }, { .name = "B", .value = -1 } };
	struct layout_type e = { .kind = LAYOUT_ENUM, .size = 4, .nenumerators = 2, .enumerators = es };
	CHECK_STR(au_typekey_anon(a, &e), "enum{A=0;B=-1;}4");
	/* Members come in offset order whatever the declaration order. */
	struct layout_member rev[2] = { ms[1], ms[0] };
	struct layout_type s2 = { .kind = LAYOUT_STRUCT, .size = 8, .nmembers = 2, .members = rev };
	CHECK_STR(au_typekey_anon(a, &s2), k);
	/* An anonymous member's fields are reached in place: the same key. */
	struct layout_type inner = { .kind = LAYOUT_STRUCT, .size = 8, .nmembers = 2, .members = ms };
	const struct layout_member_type x = { .key = "x", .size = 8, .layout = &inner };
	struct layout_member wrap = { .type = &x };
	struct layout_type outer = { .kind = LAYOUT_STRUCT, .size = 8, .nmembers = 1, .members = &wrap };
	CHECK_STR(au_typekey_anon(a, &outer), k);
	/* A long shape becomes a hash: bounded, still distinct per shape. */
	enum { N = 64 };
	struct layout_member many[N];
	char names[N][8];
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "m%d", i);
		many[i] = (struct layout_member){ .name = names[i], .bit_offset = 8u * i,
						  .type = &u8 };
	}
	struct layout_type big = { .kind = LAYOUT_STRUCT, .size = N, .nmembers = N, .members = many };
	const char *h1 = au_typekey_anon(a, &big);
	CHECK(strncmp(h1, "struct{#", 8) == 0 && strcmp(h1 + strlen(h1) - 3, "}64") == 0);
	CHECK(strlen(h1) == strlen("struct{#") + 16 + strlen("}64"));
	CHECK(au_typekey_is_anon(h1));
	static const struct layout_member_type s8 = { .key = "s8", .size = 1 };
	many[N - 1].type = &s8;
	const char *h2 = au_typekey_anon(a, &big);
	CHECK(strcmp(h1, h2) != 0);
}

/* Template arguments as g++ and clang++ spell them pair as one name. */
/* The predicates compat.c reads keys through: every key it asks about is
 * built here by the builders first, so a builder and its predicate cannot
 * drift apart. */
static void test_compat_predicates(struct arena *a)
{
	const char *u64 = au_typekey_base(a, BASE_UNSIGNED, 64, NULL), *s32 = au_typekey_base(a, BASE_SIGNED, 32, NULL);
	const char *cf64 = au_typekey_base(a, BASE_COMPLEX, 64, NULL), *c8 = au_typekey_base(a, BASE_CHAR, 8, NULL);
	enum layout_base b;
	uint64_t bits;
	CHECK(au_typekey_base_of(cf64, &b, &bits) && b == BASE_COMPLEX && bits == 64);
	CHECK(au_typekey_base_of(c8, &b, &bits) && b == BASE_CHAR && bits == 8);
	CHECK(!au_typekey_base_of(au_typekey_base(a, BASE_OTHER, 64, "x"), &b, &bits));
	CHECK(!au_typekey_base_of("struct s64", &b, &bits) && !au_typekey_base_of("s64x", &b, &bits));
	CHECK(au_typekey_is_fixed8(u64) && au_typekey_is_fixed8(cf64) && au_typekey_is_fixed8("f64"));
	CHECK(!au_typekey_is_fixed8(s32) && !au_typekey_is_fixed8("bool64") && !au_typekey_is_fixed8("utf64"));
	CHECK(!au_typekey_is_fixed8("cf128") && !au_typekey_is_fixed8("u128"));
	CHECK(au_typekey_is_integer(s32, 32) && !au_typekey_is_integer(s32, 64) && !au_typekey_is_integer("f32", 32));
	const char *arr = au_typekey_array(a, 4, false, au_typekey_pointer(a, TYPEKEY_POINTER, u64));
	CHECK(au_typekey_is_array(arr) && !au_typekey_is_array(u64));
	CHECK_STR(au_typekey_array_element(arr), "*u64");
	CHECK(au_typekey_is_pointer(au_typekey_array_element(arr)) && !au_typekey_is_pointer(u64));
	CHECK(au_typekey_is_reference(au_typekey_pointer(a, TYPEKEY_RREF, u64)));
	CHECK_STR(au_typekey_typedef("name_t"), "name_t");
	CHECK_STR(au_typekey_untagged_fwd("union"), "union");
	CHECK(au_typekey_anon_holds("struct{a@0:32:u32;b@32:64:[2]u64;}24") == TYPEKEY_HOLDS_FIXED8);
	CHECK(au_typekey_anon_holds("union{p@0:64:*u8;}8") == TYPEKEY_HOLDS_POINTER);
	CHECK(au_typekey_anon_holds("struct{n@0:64:struct{d@0:64:f64;}8;}8") == TYPEKEY_HOLDS_FIXED8);
	CHECK(au_typekey_anon_holds("struct{a@0:32:u32;}4") == 0 && au_typekey_anon_holds("u64") == 0);
	struct typekey_item it;
	const char *p = au_typekey_anon_members("struct{a@0:32:u32;n@32:64:struct{x@0:8:u8;}1;}12");
	CHECK((p = au_typekey_anon_next(p, &it)) && it.name_len == 1 && it.name[0] == 'a' && it.key_len == 3);
	CHECK((p = au_typekey_anon_next(p, &it)) && strncmp(it.key, "struct{x@0:8:u8;}1", it.key_len) == 0);
	CHECK(au_typekey_anon_next(p, &it) == NULL);
	CHECK(au_typekey_anon_members("u32") == NULL);
}

static void test_template_names(struct arena *a)
{
	CHECK_STR(au_typekey_named(a, "struct", "_Head_base<0ul, STR&&, false>"), "struct _Head_base<0, STR&&, false>");
	CHECK_STR(au_typekey_named(a, "struct", "_Head_base<0UL, STR &&, false>"), "struct _Head_base<0, STR&&, false>");
	CHECK_STR(au_typekey_named(a, "struct", "Box<Box<char*> >"), "struct Box<Box<char*>>");
	CHECK_STR(au_typekey_named(a, "struct", "Box<Box<char *>>"), "struct Box<Box<char*>>");
	CHECK_STR(au_typekey_named(a, "struct", "X<unsigned int,4294967295u, -1ll, 0x1fULL>"),
		  "struct X<unsigned int, 4294967295, -1, 0x1f>");
	/* Digits inside a word, and a literal followed by more of a word, are no suffixes. */
	CHECK_STR(au_typekey_named(a, "struct", "Q<u8, T5ul, 1ulx>"), "struct Q<u8, T5ul, 1ulx>");
	CHECK_STR(au_typekey_named(a, "struct", "Y<(anonymous namespace)::Z, 3>"), "struct Y<(anonymous namespace)::Z, 3>");
	/* No template arguments: untouched, spaces and all. */
	CHECK_STR(au_typekey_named(a, "struct", "odd  name 3ul"), "struct odd  name 3ul");
}

/* Plain char against signed char and unsigned char of one encoding: by
 * token, at any depth, and only with the char8 side's sign known. */
static void test_equal_char(void)
{
	const enum char_signedness S = CHAR_SIGN_SIGNED, U = CHAR_SIGN_UNSIGNED, N = CHAR_SIGN_UNKNOWN,
				   M = CHAR_SIGN_MIXED;
	/* The char8 side's sign decides, whichever side that is. */
	CHECK(au_typekey_equal_char("char8", "s8", S, N));
	CHECK(au_typekey_equal_char("s8", "char8", N, S));
	CHECK(au_typekey_equal_char("char8", "u8", U, N));
	CHECK(au_typekey_equal_char("u8", "char8", S, U));
	CHECK(!au_typekey_equal_char("char8", "u8", S, S));    /* x86: char is signed */
	CHECK(!au_typekey_equal_char("char8", "s8", U, U));
	CHECK(!au_typekey_equal_char("char8", "s8", N, S));    /* the s8 side's sign says nothing */
	CHECK(!au_typekey_equal_char("s8", "char8", S, N));
	CHECK(!au_typekey_equal_char("char8", "s8", M, S));    /* units that disagree */
	CHECK(!au_typekey_equal_char("char8", "s8", N, N));    /* BTF */
	CHECK(!au_typekey_equal_char("s8", "u8", S, S));
	CHECK(!au_typekey_equal_char("char8", "s16", S, S));
	CHECK(!au_typekey_equal_char("char16", "s16", S, S));
	CHECK(!au_typekey_equal_char("char8", "bool8", S, S));
	CHECK(au_typekey_equal_char("s8", "s8", N, N));        /* equal keys are equal */
	CHECK(au_typekey_equal_char("char8", "char8", S, U));
	/* Nested: arrays, pointers, references, functions, anonymous shapes. */
	CHECK(au_typekey_equal_char("[16]char8", "[16]s8", S, S));
	CHECK(!au_typekey_equal_char("[16]char8", "[8]s8", S, S));
	CHECK(au_typekey_equal_char("*char8", "*s8", S, S));
	CHECK(au_typekey_equal_char("**[4]char8", "**[4]u8", U, N));
	CHECK(au_typekey_equal_char("&&char8", "&&s8", S, S));
	CHECK(au_typekey_equal_char("::*char8", "::*s8", S, S));
	CHECK(au_typekey_equal_char("fn(char8;*char8,s32)", "fn(s8;*s8,s32)", S, N));
	CHECK(au_typekey_equal_char("fn(s32;char8)", "fn(s32;s8)", S, N));
	CHECK(!au_typekey_equal_char("fn(char8;u8)", "fn(s8;s8)", S, N));
	CHECK(au_typekey_equal_char("struct{c@0:8:char8;n@8:8:[3]char8;}4", "struct{c@0:8:s8;n@8:8:[3]s8;}4", S, N));
	CHECK(au_typekey_equal_char("struct{c@0:8:char8;}1/a0/", "struct{c@0:8:s8;}1/a0/", S, N));
	/* Every occurrence must match, not only the first. */
	CHECK(!au_typekey_equal_char("struct{c@0:8:char8;d@8:8:char8;}2", "struct{c@0:8:s8;d@8:8:u8;}2", S, N));
	CHECK(!au_typekey_equal_char("struct{c@0:8:char8;}1", "struct{c@0:8:s8;}2", S, N));
	/* Inside a name s8 is no key. */
	CHECK(!au_typekey_equal_char("struct xchar8", "struct xs8", S, S));
	CHECK(!au_typekey_equal_char("struct char8", "struct s8", S, S));
	CHECK(!au_typekey_equal_char("*struct char8", "*struct s8", S, S));
	CHECK(!au_typekey_equal_char("struct A::char8", "struct A::s8", S, S));
	CHECK(!au_typekey_equal_char("enum {char8}", "enum {s8}", S, S));
	CHECK(!au_typekey_equal_char("unspecified:char8", "unspecified:s8", S, S));
	CHECK(!au_typekey_equal_char("base:char8:8", "base:s8:8", S, S));
	CHECK(!au_typekey_equal_char("tag5:char8", "tag5:s8", S, S));
	CHECK(!au_typekey_equal_char("char8x", "s8x", S, S));
	CHECK(!au_typekey_equal_char("xchar8", "xs8", S, S));
	CHECK(!au_typekey_equal_char("char80", "s80", S, S));
	/* Members and enumerators named char8 and s8 in anonymous shapes. */
	CHECK(!au_typekey_equal_char("struct{char8@0:8:u8;}1", "struct{s8@0:8:u8;}1", S, S));
	CHECK(!au_typekey_equal_char("enum{char8=1;}4", "enum{s8=1;}4", S, S));
	CHECK(!au_typekey_equal_char("union{a@0:8:u8;char8@0:8:u8;}1", "union{a@0:8:u8;s8@0:8:u8;}1", S, S));
	/* A function called ...fn( is no function key. */
	CHECK(!au_typekey_equal_char("struct xfn(char8)", "struct xfn(s8)", S, S));
}

int main(void)
{
	struct arena a;
	au_arena_init(&a);
	test_base(&a);
	test_pointers_arrays(&a);
	test_functions(&a);
	test_named(&a);
	test_anon(&a);
	test_compat_predicates(&a);
	test_template_names(&a);
	test_equal_char();
	au_arena_deinit(&a);
	return check_summary("unit-typekey");
}
