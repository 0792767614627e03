#include <ctype.h>
#include <string.h>

#include "conventions.h"
#include "typekey.h"

/* One row per reason. docs/severities.md's "Severities and reasons" table is this
 * table; tests/unit checks every row has a name, a severity and a meaning. */
const struct convention au_conventions[REASON_COUNT] = {
	[REASON_MOVED] = { "moved", SEVERITY_BREAK, "an existing member's offset changed" },
	[REASON_RESIZED] = { "resized", SEVERITY_BREAK, "an existing member's size or bit size changed" },
	[REASON_RETYPED] = { "retyped", SEVERITY_BREAK, "an existing member's canonical type changed" },
	[REASON_MEMBER_REMOVED] = { "member-removed", SEVERITY_BREAK,
				    "a member (not a reserved one) is gone: programs naming it stop compiling" },
	[REASON_RENAMED] = { "renamed", SEVERITY_BREAK, "a member name is gone and another stands in its slot" },
	[REASON_REMOVED] = { "removed", SEVERITY_BREAK, "the type is gone" },
	[REASON_ENUMERATOR_VALUE] = { "enumerator-value", SEVERITY_BREAK,
				      "a named constant (not a sentinel) changed its value" },
	[REASON_ENUMERATOR_REMOVED] = { "enumerator-removed", SEVERITY_BREAK,
					"a named constant (not a sentinel) is gone" },
	[REASON_SIZE_CHANGED] = { "size-changed", SEVERITY_BREAK,
				  "the size changed other than by members appended at the end" },
	[REASON_KIND_CHANGED] = { "kind-changed", SEVERITY_BREAK, "struct, union or enum turned into another" },
	[REASON_ALIGNMENT_CHANGED] = { "alignment-changed", SEVERITY_BREAK, "the explicit alignment changed" },
	[REASON_CONTAINS_BREAK] = { "contains-break", SEVERITY_BREAK,
				    "holds by value a type whose change breaks" },
	[REASON_TAIL_GROWTH] = { "tail-growth", SEVERITY_REVIEW,
				 "grows only by members appended at the end: safe for size-versioned structs "
				 "(perf_event_attr, clone_args, open_how, DRM ioctl arguments), and it changes "
				 "the number of every ioctl that passes it" },
	[REASON_OVERLAP] = { "overlap", SEVERITY_REVIEW,
			     "a new name over an existing member with another size or type: no alias" },
	[REASON_SENTINEL_REMOVED] = { "sentinel-removed", SEVERITY_REVIEW,
				      "a count or maximum enumerator is gone (often kept as a macro)" },
	[REASON_MEMBER_ADDED] = { "member-added", SEVERITY_REVIEW,
				  "with --strict: a member only the new side has (not an alias)" },
	[REASON_CONTAINS_REVIEW] = { "contains-review", SEVERITY_REVIEW,
				     "holds by value a type whose change needs review" },
	[REASON_SENTINEL] = { "sentinel", SEVERITY_SAFE,
			      "a count or maximum enumerator (__FOO_MAX, FOO_CNT, ...) at the end of its enum "
			      "moved because values were added" },
	[REASON_RESERVED_REUSE] = { "reserved-reuse", SEVERITY_SAFE,
				    "a reserved or pad member shrank or went, and new members took its place" },
	[REASON_PADDING_REUSE] = { "padding-reuse", SEVERITY_SAFE,
				   "a new member in what was a hole or trailing padding" },
	[REASON_PAD_RENAMED] = { "pad-renamed", SEVERITY_SAFE,
				 "a reserved or pad member got a real name at the same offset, size and type" },
	[REASON_NEW_ALTERNATIVE] = { "new-alternative", SEVERITY_SAFE,
				     "a new alternative in an existing union, whose size is kept" },
	[REASON_ALIAS] = { "alias", SEVERITY_SAFE, "a second name for a slot, with the same offset, size and type" },
	[REASON_FLEXIBLE_SPELLING] = { "flexible-spelling", SEVERITY_SAFE,
				       "T x[0], T x[] or __DECLARE_FLEX_ARRAY: the same zero-size tail" },
	[REASON_FLEX_FILLER] = { "flex-filler", SEVERITY_SAFE,
				 "the empty struct __DECLARE_FLEX_ARRAY puts before a flexible array (1 byte in C++) "
				 "went: no program names it" },
	[REASON_CONTAINS_SAFE] = { "contains-safe-change", SEVERITY_SAFE,
				   "holds by value a type whose change is safe" },
	[REASON_ADDED] = { "added", SEVERITY_SAFE, "a new type" },
	[REASON_ENUMERATOR_ADDED] = { "enumerator-added", SEVERITY_SAFE, "a new named constant" },
	[REASON_CXX_KEYWORD] = { "cxx-keyword", SEVERITY_SAFE,
				 "C against C++: a C member name that C++ reserves, kept in the same slot "
				 "under another name" },
	[REASON_ODR_CONFLICT] = { "odr-conflict", SEVERITY_BREAK,
				  "one name has two different layouts in NEW, not the set of layouts OLD has" },
	[REASON_CONSTANT_VALUE] = { "constant-value", SEVERITY_BREAK,
				    "a #define constant (not a sentinel) changed its value: a syscall number, a flag, "
				    "an attribute id, a string compared byte by byte" },
	[REASON_CONSTANT_REMOVED] = { "constant-removed", SEVERITY_BREAK,
				      "a #define constant (not a sentinel) is gone: programs naming it stop compiling" },
	[REASON_VERSION_INCREASED] = { "version-increased", SEVERITY_REVIEW,
				       "a version constant (FOO_VERSION, FOO_API_VERSION) grew: programs that "
				       "compare it may see a version they do not know" },
	[REASON_CONSTANT_ADDED] = { "constant-added", SEVERITY_SAFE, "a new #define constant" },
	[REASON_CONSTANT_MOVED] = { "constant-moved", SEVERITY_SAFE,
				    "a name moved between an enumerator and a #define constant, with the same value: "
				    "programs that use it still compile and get the same value" },
};

const char *au_severity_name(enum severity s)
{
	static const char *const names[SEVERITY_COUNT] = { "none", "safe", "review", "break" };
	return s < SEVERITY_COUNT ? names[s] : "?";
}

enum severity au_severity_parse(const char *s)
{
	for (int i = SEVERITY_SAFE; i < SEVERITY_COUNT; i++)
		if (strcmp(s, au_severity_name(i)) == 0)
			return i;
	return SEVERITY_NONE;
}

enum severity au_reasons_severity(reason_set r)
{
	enum severity s = SEVERITY_NONE;
	for (int i = 0; i < REASON_COUNT; i++)
		if ((r >> i & 1) && au_conventions[i].severity > s)
			s = au_conventions[i].severity;
	return s;
}

/* Splits NAME at underscores into at most 16 words, upper-cased, so that
 * __FOO_MAX and foo_max are read the same way. */
struct words {
	char buf[128];
	const char *w[16];
	int n;
	int leading_underscores;
};

static void split_words(const char *name, struct words *ret)
{
	ret->n = 0;
	ret->leading_underscores = 0;
	while (*name == '_') {
		name++;
		ret->leading_underscores++;
	}
	size_t len = strlen(name);
	if (len >= sizeof(ret->buf))
		len = sizeof(ret->buf) - 1;
	for (size_t i = 0; i < len; i++)
		ret->buf[i] = (char)toupper((unsigned char)name[i]);
	ret->buf[len] = 0;
	char *p = ret->buf;
	while (*p && ret->n < 16) {
		char *e = strchr(p, '_');
		if (e)
			*e = 0;
		if (*p)
			ret->w[ret->n++] = p;
		if (!e)
			break;
		p = e + 1;
	}
}

static bool word_in(const char *w, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(w, *set) == 0)
			return true;
	return false;
}

bool au_is_sentinel_name(const char *name)
{
	static const char *const words[] = { "MAX", "CNT", "COUNT", "LAST", "NBITS", "NUM", "MASK", "SIZE", NULL };
	struct words w;
	if (!name)
		return false;
	split_words(name, &w);
	if (w.n < 2)
		return false;
	/* IFLA_MAX, __IFLA_MAX, MAX_BPF_LINK_TYPE, RDMA_NLDEV_NUM_OPS,
	 * __ETHTOOL_LINK_MODE_MASK_NBITS, HASH_ALGO__LAST, __LINUX_MIB_XFRMMAX;
	 * __FOO_AFTER_LAST ends in LAST. */
	for (int i = 0; i < w.n; i++) {
		if (word_in(w.w[i], words))
			return true;
		size_t len = strlen(w.w[i]);
		if (len > 3 && strcmp(w.w[i] + len - 3, "MAX") == 0)
			return true;
	}
	return false;
}

bool au_is_reserved_name(const char *name)
{
	static const char *const stems[] = {
		"reserved", "reserve", "resv", "rsvd", "rsv", "res", "pad", "padding", "unused",
		"spare", "align", "resvd", NULL,
	};
	if (!name)
		return false;
	while (*name == '_')
		name++;
	char buf[64];
	size_t n = strlen(name);
	if (n == 0 || n >= sizeof(buf))
		return false;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)name[i]);
	buf[n] = 0;
	/* rsvd8, reserved_2, __pad1, pad_0: the stem, then digits and underscores. */
	while (n && (isdigit((unsigned char)buf[n - 1]) || buf[n - 1] == '_'))
		buf[--n] = 0;
	for (const char *const *s = stems; *s; s++)
		if (strcmp(buf, *s) == 0)
			return true;
	return false;
}

bool au_is_cxx_keyword(const char *name)
{
	static const char *const kw[] = {
		"alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
		"case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
		"const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
		"co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
		"else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
		"if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
		"nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
		"reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
		"static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
		"throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
		"virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", NULL,
	};
	if (!name)
		return false;
	for (const char *const *k = kw; *k; k++)
		if (strcmp(name, *k) == 0)
			return true;
	return false;
}

bool au_is_version_name(const char *name)
{
	struct words w;
	if (!name)
		return false;
	split_words(name, &w);
	for (int i = 0; i < w.n; i++)
		if (strcmp(w.w[i], "VERSION") == 0)
			return true;
	return false;
}

bool au_is_syscall_name(const char *name)
{
	return name && (strncmp(name, "__NR_", 5) == 0 || strncmp(name, "__NR3264_", 9) == 0);
}

const char *au_flex_filler_of(const char *name, uint64_t size, const char *key)
{
	static const char prefix[] = "__empty_";
	if (!name || strncmp(name, prefix, sizeof(prefix) - 1) != 0 || size > 1 || !au_typekey_is_struct(key))
		return NULL;
	return name + sizeof(prefix) - 1;
}
