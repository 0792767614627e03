#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "typekey.h"

const char *au_typekey_base(struct arena *a, enum layout_base base, uint64_t bits, const char *name)
{
	static const char *const prefix[] = {
		[BASE_BOOL] = "bool", [BASE_SIGNED] = "s", [BASE_UNSIGNED] = "u",
		[BASE_FLOAT] = "f", [BASE_COMPLEX] = "cf", [BASE_UTF] = "utf", [BASE_CHAR] = "char",
	};
	if (base == BASE_OTHER)
		return au_arena_printf(a, "base:%s:%" PRIu64, name ? name : "?", bits);
	return au_arena_printf(a, "%s%" PRIu64, prefix[base], bits);
}

const char *au_typekey_sigil(enum typekey_sigil s)
{
	switch (s) {
	case TYPEKEY_POINTER: return "*";
	case TYPEKEY_LREF: return "&";
	case TYPEKEY_RREF: return "&&";
	case TYPEKEY_MEMBER_POINTER: return "::*";
	}
	return "*";
}

const char *au_typekey_pointer(struct arena *a, enum typekey_sigil s, const char *target)
{
	return au_arena_concat3(a, au_typekey_sigil(s), target, "");
}

const char *au_typekey_array(struct arena *a, uint64_t count, bool flexible, const char *elem)
{
	if (flexible)
		return au_arena_concat3(a, "[]", elem, "");
	return au_arena_printf(a, "[%" PRIu64 "]%s", count, elem);
}

const char *au_typekey_array_fold(struct arena *a, uint64_t nelems, const char *elem)
{
	uint64_t inner = 1;
	const char *ek = elem;
	if (ek[0] == '[' && ek[1] != ']') {
		char *end;
		unsigned long long n = strtoull(ek + 1, &end, 10);
		if (*end == ']') {
			inner = n;
			ek = end + 1;
		}
	}
	return au_arena_printf(a, "[%" PRIu64 "]%s", inner * nelems, ek);
}

void au_typekey_fn_init(struct typekey_fn *f)
{
	au_strbuf_init(&f->params);
}

void au_typekey_fn_param(struct typekey_fn *f, const char *key)
{
	if (f->params.len)
		au_strbuf_putc(&f->params, ',');
	au_strbuf_puts(&f->params, key);
}

const char *au_typekey_fn_finish(struct typekey_fn *f, struct arena *a, const char *ret)
{
	const char *key = au_arena_printf(a, "fn(%s;%s)", ret, au_strbuf_str(&f->params));
	au_strbuf_release(&f->params);
	return key;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Template arguments as gcc and clang spell them differently: integer
 * literal suffixes (gcc's 0ul, clang's 0) dropped, and one spacing around
 * punctuation (gcc's "STR&&", clang's "STR &&"; "> >" and ">>"): a space
 * only between two words ("unsigned int") and after a comma. Names with no
 * template arguments are left as they are. */
static void normalise_template_name(struct strbuf *out, const char *name)
{
	const char *p = name;
	while (*p) {
		if (*p == ' ' || *p == '\t') {
			while (*p == ' ' || *p == '\t')
				p++;
			size_t n = out->len;
			char prev = n ? au_strbuf_str(out)[n - 1] : '\0';
			if ((word_char(prev) || prev == ')') && (word_char(*p) || *p == '('))
				au_strbuf_putc(out, ' ');
			continue;
		}
		size_t n = out->len;
		char prev = n ? au_strbuf_str(out)[n - 1] : '\0';
		if (*p >= '0' && *p <= '9' && !word_char(prev)) {
			/* An integer literal: its digits (hex too), then its suffix
			 * (u, l, ul, lu, ll, ull, llu in any case) dropped when
			 * nothing else of a word follows. */
			const char *s = p;
			bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
			if (hex)
				p += 2;
			while ((*p >= '0' && *p <= '9') ||
			       (hex && ((*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'))))
				p++;
			const char *digits_end = p;
			while (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L')
				p++;
			if (word_char(*p))
				digits_end = p;   /* not a plain literal: keep it whole */
			au_strbuf_add(out, s, (size_t)(digits_end - s));
			continue;
		}
		au_strbuf_putc(out, *p);
		if (*p == ',' && p[1] != '\0')
			au_strbuf_putc(out, ' ');
		p++;
	}
}

const char *au_typekey_named(struct arena *a, const char *prefix, const char *name)
{
	if (!strchr(name, '<'))
		return au_arena_concat3(a, prefix, " ", name);
	struct strbuf out = STRBUF_INIT;
	au_strbuf_puts(&out, prefix);
	au_strbuf_putc(&out, ' ');
	normalise_template_name(&out, name);
	const char *res = au_strbuf_arena_copy(&out, a);
	au_strbuf_release(&out);
	return res;
}

const char *au_typekey_scoped(struct arena *a, const char *name, const char *scope)
{
	const char *own = au_typekey_tag_name(name), *sc = au_typekey_tag_name(scope);
	return au_arena_printf(a, "%.*s%s::%s", (int)(own - name), name, sc, own);
}

const char *au_typekey_anon_enum_name(struct arena *a, const char *first)
{
	return au_arena_printf(a, "enum {%s}", first);
}

const char *au_typekey_ptr_typedef(struct arena *a, const char *name)
{
	return au_arena_printf(a, "*%s", name);
}

bool au_typekey_is_ptr_typedef_of(const char *key, const char *name)
{
	return key && name && key[0] == '*' && strcmp(key + 1, name) == 0;
}

const char *au_typekey_typedef(const char *name)
{
	return name;
}

const char *au_typekey_untagged_fwd(const char *prefix)
{
	return prefix;
}

const char *au_typekey_unspecified(struct arena *a, const char *name)
{
	return au_arena_printf(a, "unspecified:%s", name);
}

const char *au_typekey_unknown(struct arena *a, const char *source, int code, const char *name)
{
	return au_arena_printf(a, "%s%d:%s", source, code, name);
}

/* The canonical key of an anonymous aggregate is its shape as C code sees
 * it: the names reachable in it, at their offsets, with their types, and its
 * size. Nesting is left out (6.12's __DECLARE_FLEX_ARRAY is a struct holding
 * an empty struct and T x[] in C, and T x[0] in C++: the same names at the
 * same places), so two anonymous types are equal exactly when every access
 * through them is. */
/* Decimal digits of v, as printf's %PRIu64 writes them (no printf: a
 * kernel's anonymous types make millions of these). */
static void put_u64(struct strbuf *b, uint64_t v)
{
	char d[24];
	size_t n = sizeof(d);
	d[--n] = 0;
	do {
		d[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	au_strbuf_puts(b, d + n);
}

/* As printf's %s writes a string, NULL included. */
static void put_str(struct strbuf *b, const char *s)
{
	au_strbuf_puts(b, s ? s : "(null)");
}

static void put_i64(struct strbuf *b, int64_t v)
{
	if (v < 0) {
		au_strbuf_putc(b, '-');
		put_u64(b, -(uint64_t)v);
	} else {
		put_u64(b, (uint64_t)v);
	}
}

const char *au_typekey_anon(struct arena *a, const struct layout_type *t)
{
	struct strbuf b = STRBUF_INIT;
	au_strbuf_puts(&b, au_layout_kind_name(t->kind));
	au_strbuf_putc(&b, '{');
	if (t->kind == LAYOUT_ENUM) {
		for (size_t i = 0; i < t->nenumerators; i++) {
			put_str(&b, t->enumerators[i].name);
			au_strbuf_putc(&b, '=');
			put_i64(&b, t->enumerators[i].value);
			au_strbuf_putc(&b, ';');
		}
	} else {
		struct flat_member *flat = NULL;
		size_t n = au_layout_flatten(t, &flat);
		for (size_t i = 0; i < n; i++) {
			const struct layout_member *m = flat[i].member;
			put_str(&b, m->name);
			au_strbuf_putc(&b, '@');
			put_u64(&b, flat[i].bit_offset);
			au_strbuf_putc(&b, ':');
			put_u64(&b, au_member_bits(m));
			au_strbuf_putc(&b, ':');
			put_str(&b, m->type->key);
			au_strbuf_putc(&b, ';');
		}
		free(flat);
	}
	/* Keys nest: an anonymous type shared by many members (BTF
	 * deduplicates them) would grow exponentially with depth. A long key is
	 * replaced by a hash of itself, which compares just as well. */
	const char *res;
	if (b.len > 256) {
		uint64_t h = 1469598103934665603ULL;
		for (size_t i = 0; i < b.len; i++) {
			h ^= (unsigned char)b.s[i];
			h *= 1099511628211ULL;
		}
		res = au_arena_printf(a, "%s{#%016" PRIx64 "}%" PRIu64, au_layout_kind_name(t->kind), h, t->size);
	} else {
		res = au_arena_printf(a, "%s}%" PRIu64, au_strbuf_str(&b), t->size);
	}
	au_strbuf_release(&b);
	return res;
}

size_t au_typekey_sigil_prefix(const char *key)
{
	size_t i = 0;
	while (key[i] && strchr("[]*0123456789", key[i]))
		i++;
	return i;
}

bool au_typekey_is_anon(const char *key)
{
	return strncmp(key, "struct{", 7) == 0 || strncmp(key, "union{", 6) == 0;
}

bool au_typekey_is_struct(const char *key)
{
	return key && strncmp(key, "struct", 6) == 0 && (key[6] == 0 || key[6] == ' ' || key[6] == '{');
}

bool au_typekey_is_named_aggregate(const char *key)
{
	return strncmp(key, "struct ", 7) == 0 || strncmp(key, "union ", 6) == 0;
}

bool au_typekey_is_named_enum(const char *key)
{
	return strncmp(key, "enum ", 5) == 0;
}

bool au_typekey_is_named(const char *key)
{
	return au_typekey_is_named_aggregate(key) || au_typekey_is_named_enum(key);
}

const char *au_typekey_tag_name(const char *key)
{
	const char *sp = strchr(key, ' ');
	return au_typekey_is_named(key) && sp ? sp + 1 : key;
}

const char *au_typekey_zero_array_element(const char *key)
{
	if (strncmp(key, "[]", 2) == 0)
		return key + 2;
	if (strncmp(key, "[0]", 3) == 0)
		return key + 3;
	return NULL;
}

const char *au_typekey_one_element(const char *key)
{
	return strncmp(key, "[1]", 3) == 0 ? key + 3 : NULL;
}

const char *au_typekey_constant(struct arena *a, const char *macro)
{
	return au_arena_concat3(a, AU_CONSTANT_PREFIX, macro, "");   /* 27k per unit: no printf */
}

const char *au_typekey_definition(struct arena *a, const struct layout_type *t)
{
	return au_arena_printf(a, "%s/a%llu/%s", au_typekey_anon(a, t), (unsigned long long)t->align,
			       t->scope ? t->scope : "");
}

/* ---- char8 against s8 and u8 (au_typekey_equal_char) ---- */

/* The key at p (in key, which starts at start) begins where a key begins
 * in the grammar: at the start, after a pointer or array sigil, after
 * "fn(", ';' or ',' of a function, or after the "@BITOFF:BITS:" of a
 * member in an anonymous shape; not inside a name ("struct s8", "A::s8",
 * "unspecified:s8", "base:s8:8"). */
static bool key_starts_at(const char *start, const char *p)
{
	if (p == start)
		return true;
	char c = p[-1];
	if (c == '*' || c == '&' || c == ']' || c == ';' || c == ',')
		return true;
	if (c == '(')
		return p - start >= 3 && strncmp(p - 3, "fn(", 3) == 0 && (p - 3 == start || !word_char(p[-4]));
	if (c != ':')
		return false;
	/* @BITOFF:BITS: */
	const char *q = p - 1;
	for (int field = 0; field < 2; field++) {
		const char *digits_end = q;
		while (q > start && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q == digits_end || q == start)
			return false;
		q--;
		if (*q != (field == 0 ? ':' : '@'))
			return false;
	}
	return true;
}

/* A key ends at the end, or before ';' ',' ')' of the key around it; and
 * '/' in au_typekey_definition's string. */
static bool key_ends_at(char c)
{
	return c == '\0' || c == ';' || c == ',' || c == ')' || c == '/';
}

static bool is_tok(const char *p, size_t n, const char *want)
{
	return strlen(want) == n && strncmp(p, want, n) == 0;
}

/* The token pa (na bytes, in a key whose own sign is sa) is char8 and pb
 * the integer that char is on that side. */
static bool char_as_int(const char *pa, size_t na, enum char_signedness sa, const char *pb, size_t nb)
{
	return is_tok(pa, na, "char8") &&
	       ((sa == CHAR_SIGN_SIGNED && is_tok(pb, nb, "s8")) || (sa == CHAR_SIGN_UNSIGNED && is_tok(pb, nb, "u8")));
}

bool au_typekey_equal_char(const char *a, const char *b, enum char_signedness sa, enum char_signedness sb)
{
	bool sa_known = sa == CHAR_SIGN_SIGNED || sa == CHAR_SIGN_UNSIGNED;
	bool sb_known = sb == CHAR_SIGN_SIGNED || sb == CHAR_SIGN_UNSIGNED;
	if (!sa_known && !sb_known)
		return strcmp(a, b) == 0;
	const char *pa = a, *pb = b;
	while (*pa || *pb) {
		if (*pa == *pb) {
			pa++;
			pb++;
			continue;
		}
		/* Back to the start of the word both are in: what precedes the
		 * mismatch is the same on both sides since the last substitution,
		 * which ended before a non-word character. */
		size_t back = 0;
		while (pa - back > a && word_char(pa[-(ptrdiff_t)back - 1]))
			back++;
		const char *ta = pa - back, *tb = pb - back;
		size_t na = 0, nb = 0;
		while (word_char(ta[na]))
			na++;
		while (word_char(tb[nb]))
			nb++;
		if (!key_starts_at(a, ta) || !key_starts_at(b, tb) || !key_ends_at(ta[na]) || !key_ends_at(tb[nb]))
			return false;
		if (!char_as_int(ta, na, sa, tb, nb) && !char_as_int(tb, nb, sb, ta, na))
			return false;
		pa = ta + na;
		pb = tb + nb;
	}
	return true;
}

const char *au_typekey_array_element(const char *key)
{
	while (key && *key == '[') {
		const char *e = strchr(key, ']');
		if (!e)
			break;
		key = e + 1;
	}
	return key;
}

bool au_typekey_is_array(const char *key)
{
	return key && key[0] == '[';
}

bool au_typekey_is_pointer(const char *key)
{
	return key && key[0] == '*';
}

bool au_typekey_is_reference(const char *key)
{
	return key && key[0] == '&';
}

bool au_typekey_base_of(const char *key, enum layout_base *base, uint64_t *bits)
{
	/* Longest prefixes first: "cf" before "f"... none is a prefix of
	 * another but "char" and "cf", told apart by what follows. */
	static const struct { const char *prefix; enum layout_base base; } classes[] = {
		{ "bool", BASE_BOOL }, { "char", BASE_CHAR }, { "utf", BASE_UTF }, { "cf", BASE_COMPLEX },
		{ "s", BASE_SIGNED }, { "u", BASE_UNSIGNED }, { "f", BASE_FLOAT },
	};
	if (!key)
		return false;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		size_t n = strlen(classes[i].prefix);
		const char *d = key + n;
		if (strncmp(key, classes[i].prefix, n) != 0 || *d < '0' || *d > '9')
			continue;
		uint64_t v = 0;
		for (; *d >= '0' && *d <= '9'; d++)
			v = 10 * v + (uint64_t)(*d - '0');
		if (*d)
			return false;
		*base = classes[i].base;
		*bits = v;
		return true;
	}
	return false;
}

bool au_typekey_is_integer(const char *key, uint64_t bits)
{
	enum layout_base b;
	uint64_t n;
	return au_typekey_base_of(key, &b, &n) && (b == BASE_SIGNED || b == BASE_UNSIGNED) && n == bits;
}

bool au_typekey_is_fixed8(const char *key)
{
	enum layout_base b;
	uint64_t n;
	return au_typekey_base_of(key, &b, &n) && n == 64 &&
	       (b == BASE_SIGNED || b == BASE_UNSIGNED || b == BASE_FLOAT || b == BASE_COMPLEX);
}

unsigned au_typekey_anon_holds(const char *key)
{
	unsigned h = 0;
	if (!key || !au_typekey_is_anon(key))
		return 0;
	/* Each member's key follows a ':' (after its bit size) or, in an
	 * array, a ']'; a bit size is digits, so it never matches. */
	for (const char *p = key + 1; *p; p++) {
		if (p[-1] != ':' && p[-1] != ']')
			continue;
		if (*p == '*')
			h |= TYPEKEY_HOLDS_POINTER;
		else if (strncmp(p, "u64;", 4) == 0 || strncmp(p, "s64;", 4) == 0 || strncmp(p, "f64;", 4) == 0 ||
			 strncmp(p, "cf64;", 5) == 0)
			h |= TYPEKEY_HOLDS_FIXED8;
	}
	return h;
}

const char *au_typekey_anon_members(const char *key)
{
	const char *p = key ? strchr(key, '{') : NULL;
	return p ? p + 1 : NULL;
}

/* The item from p: "name@off:bits:key;", the key after the last ':' at
 * its depth; returns its ';', or NULL at the shape's end. */
static const char *anon_item(const char *p, const char **key)
{
	int depth = 0;
	*key = NULL;
	for (const char *q = p; *q; q++) {
		if (*q == '{')
			depth++;
		else if (*q == '}' && depth-- == 0)
			return NULL;
		else if (*q == ':' && depth == 0)
			*key = q + 1;
		else if (*q == ';' && depth == 0)
			return q;
	}
	return NULL;
}

const char *au_typekey_anon_next(const char *p, struct typekey_item *it)
{
	const char *key, *end = p ? anon_item(p, &key) : NULL;
	if (!end || !key)
		return NULL;
	const char *at = strchr(p, '@');
	it->name = at && at < end ? p : NULL;
	it->name_len = at && at < end ? (size_t)(at - p) : 0;
	it->key = key;
	it->key_len = (size_t)(end - key);
	return end + 1;
}
