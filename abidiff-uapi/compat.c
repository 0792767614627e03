/* --compat: why a layout differs between a 64-bit ABI and its 32-bit one.
 *
 * The comparer has already paired the two layouts and listed what differs;
 * each change is explained here from the member it concerns:
 *  - a member whose size differs is explained by its type: a pointer; a
 *    typedef chain naming a time type, or size_t and its kin; a chain that
 *    ends in long or unsigned long (or, with no chain, an integer as wide as
 *    the address); a struct that differs itself (member-type); else other;
 *  - a member that only moved is explained by align8 when it holds an 8-byte
 *    fixed-width scalar (the 32-bit side's __u64, __s64, double: a pointer or
 *    a long is never 8 bytes there) and sits at an offset that is not a
 *    multiple of 8 on the 32-bit side, as i386 aligns such types to 4; else
 *    by a cause found before it, and failing that it is other;
 *  - a size that differs with no member's size to blame, in a type holding
 *    such a scalar whose 32-bit size is not a multiple of 8, is align8 too
 *    (the trailing padding);
 *  - members, enumerators or types that only one side has are arch-ifdef.
 * A finding left with no cause gets other, with its first change in words. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "typekey.h"

static const char *const cause_names[COMPAT_CAUSE_COUNT] = {
	[COMPAT_LONG_WIDTH] = "long-width",
	[COMPAT_POINTER_WIDTH] = "pointer-width",
	[COMPAT_SIZE_T_WIDTH] = "size_t-width",
	[COMPAT_TIME_WIDTH] = "time-width",
	[COMPAT_ALIGN8] = "align8",
	[COMPAT_ARCH_IFDEF] = "arch-ifdef",
	[COMPAT_MEMBER_TYPE] = "member-type",
	[COMPAT_OTHER] = "other",
};

const char *au_compat_cause_name(enum compat_cause_kind k)
{
	return k < COMPAT_CAUSE_COUNT ? cause_names[k] : "?";
}

/* Typedef names (anywhere in a member's chain) that make a width time's or
 * size_t's: the kernel's, the C library's, and glibc's internal ones. */
static const char *const time_names[] = {
	"time_t", "__kernel_time_t", "__kernel_old_time_t", "__time_t",
	"suseconds_t", "__kernel_suseconds_t", "__suseconds_t",
	"clock_t", "__kernel_clock_t", "__clock_t", NULL,
};
static const char *const size_names[] = {
	"size_t", "ssize_t", "__kernel_size_t", "__kernel_ssize_t", "__size_t", "__ssize_t",
	"ptrdiff_t", "__kernel_ptrdiff_t", "intptr_t", "uintptr_t", NULL,
};

struct classifier {
	struct comparison *c;
	const struct layout_model *m32;
	bool old_is_64;
	struct strmap findings;   /* type name -> its finding */
	struct strmap holds;      /* 32-bit type name -> what it holds (&memo_vals[mask]) */
	/* Ranges (bits, on the 64-bit side) of members of anonymous type whose
	 * cause is found: what moved inside them moved with them. */
	uint64_t (*ranges)[2];
	size_t nranges, capranges;
	/* Members found misaligned: their 64-bit offset and how far they moved. */
	uint64_t (*moves)[2];
	size_t nmoves, capmoves;
	/* The causes of the finding being classified, and where each is: the
	 * bit offset of its member (on the 64-bit side when it has one), or
	 * UINT64_MAX for the type as a whole. */
	struct compat_cause *buf;
	uint64_t *where;
	size_t n, cap;
};

static const struct flat_member *side64(const struct classifier *k, const struct change *ch)
{
	return k->old_is_64 ? &ch->old_member : &ch->new_member;
}

static const struct flat_member *side32(const struct classifier *k, const struct change *ch)
{
	return k->old_is_64 ? &ch->new_member : &ch->old_member;
}

static const char *abi_of_old(const struct classifier *k, bool old)
{
	return old == k->old_is_64 ? "64-bit" : "32-bit";
}

static bool same_member(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void add_cause(struct classifier *k, enum compat_cause_kind cause, const char *member, const char *type,
		      uint64_t where, const char *detail, const struct change *change)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->buf[i].cause == cause && same_member(k->buf[i].member, member) &&
		    (member || (change && k->buf[i].change == change) ||
		     (detail && k->buf[i].detail && strcmp(k->buf[i].detail, detail) == 0)))
			return;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->buf = au_xrealloc(k->buf, k->cap * sizeof(*k->buf));
		k->where = au_xrealloc(k->where, k->cap * sizeof(*k->where));
	}
	k->buf[k->n] = (struct compat_cause){ .cause = cause, .member = member, .type = type, .detail = detail,
					      .change = change };
	k->where[k->n] = where;
	k->n++;
}

static void add(struct classifier *k, enum compat_cause_kind cause, const char *member, const char *type,
		uint64_t where, const char *detail)
{
	add_cause(k, cause, member, type, where, detail, NULL);
}

/* "other": the change itself, worded by the reporters. */
static void add_change(struct classifier *k, const char *member, uint64_t where, const struct change *ch)
{
	add_cause(k, COMPAT_OTHER, member, NULL, where, NULL, ch);
}

/* name is one of the '>'-separated names of chain. */
static bool chain_has(const char *chain, const char *const *names)
{
	for (const char *p = chain; p && *p;) {
		const char *e = strchr(p, '>');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		for (size_t i = 0; names[i]; i++)
			if (strlen(names[i]) == len && strncmp(names[i], p, len) == 0)
				return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static const char *chain_last(const char *chain)
{
	const char *e = chain ? strrchr(chain, '>') : NULL;
	return e ? e + 1 : chain;
}

/* "__u64 x", "char name[16]", "void *p": the member as a header declares it. */
static const char *decl(struct arena *a, const struct flat_member *fm)
{
	const char *t = fm->member->type->name ? fm->member->type->name : "?", *dims = strchr(t, '[');
	int tl = dims ? (int)(dims - t) : (int)strlen(t);
	const char *sep = tl && t[tl - 1] == '*' ? "" : " ";
	return au_arena_printf(a, "%.*s%s%s%s", tl, t, sep, fm->name, dims ? dims : "");
}

/* The chain, when it goes further than one name: " (a -> b -> long)". */
static const char *via(struct arena *a, const struct layout_member *m)
{
	const char *chain = m->type->chain;
	if (!chain || !strchr(chain, '>'))
		return "";
	size_t n = 0;
	for (const char *p = chain; *p; p++)
		n += *p == '>';
	char *out = au_arena_alloc(a, strlen(chain) + 3 * n + 4), *o = out;
	*o++ = ' ';
	*o++ = '(';
	for (const char *p = chain; *p; p++) {
		if (*p == '>') {
			memcpy(o, " -> ", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = ')';
	*o = 0;
	return out;
}

/* With no chain (BTF), long is the integer as wide as the address on both
 * sides: no other integer type changes width between the two ABIs. */
static bool long_by_key(const char *k64, const char *k32)
{
	enum layout_base b64, b32;
	uint64_t n64, n32;
	return au_typekey_base_of(k64, &b64, &n64) && au_typekey_base_of(k32, &b32, &n32) && b64 == b32 &&
	       (b64 == BASE_SIGNED || b64 == BASE_UNSIGNED) && n64 == 64 && n32 == 32;
}

/* What a member's type holds, on the 32-bit side, that the 64-bit ABI
 * aligns to 8 and the 32-bit one may align to 4. */
enum {
	HOLD_FIXED8 = 1,    /* an 8-byte scalar: on the 32-bit side, necessarily fixed-width */
	HOLD_POINTER = 2,
	HOLD_LONG = 4,      /* long or unsigned long, through whatever typedefs */
	HOLD_TIME = 8,      /* ... named as a time type */
	HOLD_SIZE = 16,     /* ... named as size_t or its kin */
	HOLD_ALL = 31,
};
/* The memo's values: &memo_vals[mask]; &memo_vals[HOLD_ALL + 1] while a
 * type is being looked into (a cycle in corrupt input holds nothing). */
static char memo_vals[HOLD_ALL + 2];

static unsigned type_holds(struct classifier *k, const struct layout_type *t, int depth);

static unsigned scalar_holds(const char *key, const char *chain)
{
	unsigned h = 0;
	if (au_typekey_is_pointer(key) || au_typekey_is_reference(key))
		h |= HOLD_POINTER;
	if (au_typekey_is_fixed8(key))
		h |= HOLD_FIXED8;
	const char *last = chain_last(chain);
	if (last && (strcmp(last, "long") == 0 || strcmp(last, "unsigned long") == 0))
		h |= HOLD_LONG;
	if (chain && chain_has(chain, time_names))
		h |= HOLD_TIME;
	if (chain && chain_has(chain, size_names))
		h |= HOLD_SIZE;
	return h;
}

static unsigned member_holds(struct classifier *k, const struct layout_member *m, int depth)
{
	if (depth > 64)
		return 0;
	const char *key = au_typekey_array_element(m->type->key);
	unsigned h = scalar_holds(key, m->type->chain);
	if (m->type->layout)   /* an anonymous member's layout, or a named one's anonymous type */
		return h | type_holds(k, m->type->layout, depth + 1);
	if (!key || h & HOLD_POINTER)
		return h;
	if (au_typekey_is_anon(key)) {
		/* An anonymous type not read as a layout (an array of them): its
		 * key lists its members' keys. */
		unsigned kh = au_typekey_anon_holds(key);
		return h | (kh & TYPEKEY_HOLDS_POINTER ? HOLD_POINTER : 0) | (kh & TYPEKEY_HOLDS_FIXED8 ? HOLD_FIXED8 : 0);
	}
	if (!m->type->embeds)
		return h;
	const char *memo = au_strmap_get(&k->holds, m->type->embeds);
	if (memo)
		return memo == &memo_vals[HOLD_ALL + 1] ? 0 : (unsigned)(memo - memo_vals);
	const struct layout_type *t = au_layout_model_find(k->m32, m->type->embeds);
	if (!t || t->kind == LAYOUT_ENUM)
		return h;
	au_strmap_put(&k->holds, t->name, &memo_vals[HOLD_ALL + 1]);
	unsigned th = type_holds(k, t, depth + 1);
	au_strmap_put(&k->holds, t->name, &memo_vals[th]);
	return h | th;
}

static unsigned type_holds(struct classifier *k, const struct layout_type *t, int depth)
{
	unsigned h = 0;
	for (size_t i = 0; i < t->nmembers; i++)
		h |= member_holds(k, &t->members[i], depth);
	return h;
}

static bool member_has_fixed8(struct classifier *k, const struct layout_member *m, int depth)
{
	return member_holds(k, m, depth) & HOLD_FIXED8;
}

/* The first member of t (32-bit side) holding an 8-byte fixed-width
 * scalar, by path, or NULL. *ret is its flat member. */
static bool first_fixed8(struct classifier *k, const struct layout_type *t, const char *prefix,
			 struct flat_member *ret)
{
	struct flat_member *v;
	size_t n = au_layout_flatten_paths(t, &k->c->arena, &v);
	bool found = false;
	for (size_t i = 0; i < n && !found; i++) {
		if (au_member_nested(v[i].member) || !member_has_fixed8(k, v[i].member, 0))
			continue;
		*ret = v[i];
		if (prefix)
			ret->name = au_arena_printf(&k->c->arena, "%s.%s", prefix, v[i].name);
		found = true;
	}
	free(v);
	return found;
}

/* A type's size differs and no member's width is to blame: the 32-bit
 * side's size is no multiple of 8 although it holds an 8-byte scalar, so
 * that scalar is aligned to less than 8 there and the trailing padding
 * shrank. prefix: the path of the member whose (anonymous) type this is. */
static bool trailing_align8(struct classifier *k, const struct layout_type *t64, const struct layout_type *t32,
			    const char *prefix, uint64_t where)
{
	if (t64->size == t32->size || t32->size % 8 == 0 || t64->size % 8 != 0)
		return false;
	struct flat_member fm;
	if (!first_fixed8(k, t32, prefix, &fm))
		return false;
	struct arena *a = &k->c->arena;
	const char *what = prefix ? au_arena_printf(a, "member %s: size", prefix) : "size";
	add(k, COMPAT_ALIGN8, fm.name, NULL, where,
	    au_arena_printf(a, "%s %" PRIu64 " (32-bit) vs %" PRIu64 " (64-bit): trailing padding to a multiple of "
			    "%d, not 8, as %s is aligned to %d on the 32-bit ABI", what, t32->size, t64->size,
			 t32->size % 4 == 0 ? 4 : t32->size % 2 == 0 ? 2 : 1, decl(a, &fm),
			 t32->size % 4 == 0 ? 4 : t32->size % 2 == 0 ? 2 : 1));
	return true;
}

static bool is_time_struct(const char *name)
{
	return name && (strstr(name, "timeval") || strstr(name, "timespec"));
}

/* The cause of a width, most specific first, from what the member holds
 * (HOLD_*), or -1. */
static int width_kind(unsigned h)
{
	return h & HOLD_POINTER ? COMPAT_POINTER_WIDTH
	       : h & HOLD_TIME ? COMPAT_TIME_WIDTH
	       : h & HOLD_SIZE ? COMPAT_SIZE_T_WIDTH
	       : h & HOLD_LONG ? COMPAT_LONG_WIDTH : -1;
}

/* Two keys of an anonymous type, as the 64- and 32-bit sides spell them
 * (an array of them is not read as a layout): what their members that
 * differ hold, by key alone (keys carry no typedef chain); *first names the
 * first of them. */
static unsigned anon_key_holds(struct arena *a, const char *k64, const char *k32, const char **first)
{
	unsigned h = 0;
	*first = NULL;
	const char *p = au_typekey_anon_members(k64), *q = au_typekey_anon_members(k32);
	if (!p || !q)
		return 0;
	struct typekey_item ip, iq;
	while ((p = au_typekey_anon_next(p, &ip)) && (q = au_typekey_anon_next(q, &iq))) {
		if (ip.key_len == iq.key_len && strncmp(ip.key, iq.key, ip.key_len) == 0)
			continue;
		const char *x = au_typekey_array_element(au_arena_printf(a, "%.*s", (int)ip.key_len, ip.key));
		const char *y = au_typekey_array_element(au_arena_printf(a, "%.*s", (int)iq.key_len, iq.key));
		unsigned hi = au_typekey_is_pointer(x) || au_typekey_is_pointer(y) ? HOLD_POINTER
			      : long_by_key(x, y) ? HOLD_LONG : 0;
		if (hi && !*first)
			*first = ip.name ? au_arena_printf(a, "%.*s", (int)ip.name_len, ip.name) : "?";
		h |= hi;
	}
	return h;
}

/* A common member whose size (or type) differs: its width's cause. */
static void width_cause(struct classifier *k, const struct change *ch)
{
	struct arena *a = &k->c->arena;
	const struct flat_member *f64 = side64(k, ch), *f32 = side32(k, ch);
	const struct layout_member *m64 = f64->member, *m32 = f32->member;
	const char *key32 = au_typekey_array_element(m32->type->key), *key64 = au_typekey_array_element(m64->type->key);
	unsigned h32 = scalar_holds(key32, m32->type->chain), h64 = scalar_holds(key64, m64->type->chain);
	if (!m32->type->chain && !m64->type->chain && long_by_key(key64, key32))
		h32 |= HOLD_LONG, h64 |= HOLD_LONG;   /* BTF: no chain, the widths say it */
	const char *d = decl(a, f64), *name = f64->name;
	uint64_t where = f64->bit_offset;
	const char *sizes = au_arena_printf(a, "%" PRIu64 " bytes (64-bit) vs %" PRIu64 " (32-bit)", m64->type->size, m32->type->size);
	bool array = au_typekey_is_array(m32->type->key);
	bool same_decl = au_same_str(m64->type->name, m32->type->name);
	/* A typedef that ends in long on the 64-bit ABI and in a 32-bit integer
	 * on the other (__statfs_word: __kernel_long_t or __u32 by word size) is
	 * long's width too; ending in anything else, it is declared per ABI. */
	bool long_like = (h32 & HOLD_LONG) || (!same_decl && au_typekey_is_integer(key32, 32));
	int w = width_kind(h32 | (h64 & ~(unsigned)HOLD_LONG) | (long_like ? h64 & HOLD_LONG : 0));
	if (w < 0 && m32->type->embeds && is_time_struct(m32->type->embeds) && au_same_str(m32->type->embeds, m64->type->embeds))
		w = COMPAT_TIME_WIDTH;
	const char *what = w == COMPAT_POINTER_WIDTH ? (array ? "an array of pointers" : "a pointer")
			   : w == COMPAT_TIME_WIDTH ? "a time type"
			   : w == COMPAT_SIZE_T_WIDTH ? "a size_t type"
			   : array ? "an array of long" : "long";
	if (w >= 0) {
		const struct layout_member *shown = h32 & (HOLD_LONG | HOLD_TIME | HOLD_SIZE | HOLD_POINTER) ? m32 : m64;
		const char *decl32 = same_decl ? "" : au_arena_printf(a, ", declared %s on the 32-bit ABI", m32->type->name);
		add(k, (enum compat_cause_kind)w, name, NULL, where,
		    au_arena_printf(a, "member %s is %s%s%s: %s", d, what, via(a, shown), decl32, sizes));
	} else if (key32 && key64 && au_typekey_is_anon(key64) &&
		   (w = width_kind(anon_key_holds(a, key64, key32, &what))) >= 0) {
		add(k, (enum compat_cause_kind)w, name, NULL, where,
		    au_arena_printf(a, "member %s: an anonymous type whose member %s is %s: %s", d, what,
				 w == COMPAT_POINTER_WIDTH ? "a pointer" : "long", sizes));
	} else if (m32->type->embeds && au_same_str(m32->type->embeds, m64->type->embeds)) {
		add(k, COMPAT_MEMBER_TYPE, name, m32->type->embeds, where,
		    au_arena_printf(a, "member %s: %s differs, %s", d, m32->type->embeds, sizes));
	} else if (au_typekey_is_array(m32->type->key) && au_typekey_is_array(m64->type->key) &&
		   au_same_str(key32, key64)) {
		add(k, COMPAT_OTHER, name, NULL, where,
		    au_arena_printf(a, "member %s: %s (64-bit) vs %s (32-bit), an array whose length the header computes "
				    "per ABI: %s", d, m64->type->name, m32->type->name, sizes));
	} else if (!same_decl || !au_same_str(m64->type->chain, m32->type->chain)) {
		const char *how = !same_decl ? au_arena_printf(a, "declared %s on the 64-bit ABI and %s on the 32-bit one",
							   m64->type->name, m32->type->name)
					     : au_arena_printf(a, "%s is %s on the 64-bit ABI and %s on the 32-bit one",
							   m64->type->name, chain_last(m64->type->chain),
							   chain_last(m32->type->chain));
		add(k, COMPAT_ARCH_IFDEF, name, NULL, where, au_arena_printf(a, "member %s: %s, %s", d, how, sizes));
	} else {
		add(k, COMPAT_OTHER, name, NULL, where,
		    au_arena_printf(a, "member %s: %s (64-bit) vs %s (32-bit), %s", d, m64->type->name, m32->type->name,
				 sizes));
	}
}

/* Something that moved (a member, path name, or an anonymous member,
 * name NULL), shown as label: at an offset that is no multiple of 8 on the
 * 32-bit side, while what it holds (h) is 8-aligned on the 64-bit ABI. */
static bool moved_alignment(struct classifier *k, const char *name, const char *label, bool itself, uint64_t off64,
			    uint64_t off32, unsigned h)
{
	if (off32 % 64 == 0 || off64 % 64 != 0 || !(h & (HOLD_FIXED8 | HOLD_POINTER | HOLD_LONG | HOLD_TIME | HOLD_SIZE)))
		return false;
	struct arena *a = &k->c->arena;
	uint64_t o32 = off32 / 8, o64 = off64 / 8;
	int al = o32 % 4 == 0 ? 4 : o32 % 2 == 0 ? 2 : 1;
	const char *at = au_arena_printf(a, "%s at %" PRIu64 " (32-bit) vs %" PRIu64 " (64-bit)", label, o32, o64);
	if (h & HOLD_FIXED8)
		add(k, COMPAT_ALIGN8, name, NULL, off64,
		    au_arena_printf(a, "%s: %s aligned to %d on the 32-bit ABI", at,
				 itself ? "an 8-byte type" : "holds an 8-byte type,", al));
	int w = width_kind(h);
	if (w >= 0)
		add(k, (enum compat_cause_kind)w, name, NULL, off64,
		    au_arena_printf(a, "%s: holds %s, 8-aligned on the 64-bit ABI, %d-aligned on the 32-bit one", at,
				 w == COMPAT_POINTER_WIDTH ? "a pointer" : w == COMPAT_TIME_WIDTH ? "a time type"
				 : w == COMPAT_SIZE_T_WIDTH ? "a size_t type" : "a long", al));
	return true;
}

static bool moved_align8(struct classifier *k, const struct change *ch)
{
	const struct flat_member *f64 = side64(k, ch), *f32 = side32(k, ch);
	if (f32->member->is_bitfield)
		return false;
	/* __u32 a; __u64 b, c, d;: on i386 b is 4 bytes early, and c and d
	 * with it: only b is misaligned by its own doing. A member at the same
	 * offset (another union arm) is reported on its own. */
	uint64_t delta = f64->bit_offset - f32->bit_offset;
	for (size_t i = 0; i < k->nmoves; i++)
		if (k->moves[i][0] < f64->bit_offset && k->moves[i][1] == delta)
			return true;
	if (!moved_alignment(k, f64->name, au_arena_printf(&k->c->arena, "member %s", decl(&k->c->arena, f32)),
			       au_typekey_is_fixed8(au_typekey_array_element(f32->member->type->key)), f64->bit_offset, f32->bit_offset,
			       member_holds(k, f32->member, 0)))
		return false;
	if (k->nmoves == k->capmoves) {
		k->capmoves = k->capmoves ? 2 * k->capmoves : 8;
		k->moves = au_xrealloc(k->moves, k->capmoves * sizeof(*k->moves));
	}
	k->moves[k->nmoves][0] = f64->bit_offset;
	k->moves[k->nmoves][1] = delta;
	k->nmoves++;
	return true;
}

static void add_range(struct classifier *k, uint64_t start, uint64_t end)
{
	if (k->nranges == k->capranges) {
		k->capranges = k->capranges ? 2 * k->capranges : 8;
		k->ranges = au_xrealloc(k->ranges, k->capranges * sizeof(*k->ranges));
	}
	k->ranges[k->nranges][0] = start;
	k->ranges[k->nranges][1] = end;
	k->nranges++;
}

/* Anonymous members (struct { ... }; inside a type), depth first. */
struct anon_ref {
	const struct layout_type *t;
	uint64_t bit_offset;   /* absolute */
};

static void collect_anon(const struct layout_type *t, uint64_t base, struct anon_ref **v, size_t *n, size_t *cap,
			 int depth)
{
	if (depth > 64)
		return;
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct layout_member *m = &t->members[i];
		if (!au_member_anon(m))
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 8;
			*v = au_xrealloc(*v, *cap * sizeof(**v));
		}
		(*v)[(*n)++] = (struct anon_ref){ au_member_anon(m), base + m->bit_offset };
		collect_anon(au_member_anon(m), base + m->bit_offset, v, n, cap, depth + 1);
	}
}

/* Anonymous members that moved or changed size: the flattened members
 * inside them only show the consequences. Paired in order, when both
 * sides have as many. */
static void anonymous_members(struct classifier *k, const struct layout_type *t64, const struct layout_type *t32)
{
	struct anon_ref *v64 = NULL, *v32 = NULL;
	size_t n64 = 0, n32 = 0, c64 = 0, c32 = 0;
	collect_anon(t64, 0, &v64, &n64, &c64, 0);
	collect_anon(t32, 0, &v32, &n32, &c32, 0);
	struct arena *a = &k->c->arena;
	for (size_t i = 0; n64 == n32 && i < n64; i++) {
		const struct anon_ref *x = &v64[i], *y = &v32[i];
		if (x->t->kind != y->t->kind || (x->bit_offset == y->bit_offset && x->t->size == y->t->size))
			continue;
		struct flat_member *fl;
		size_t nf = au_layout_flatten(y->t, &fl);
		const char *label = nf ? au_arena_printf(a, "anonymous %s holding %s", au_layout_kind_name(y->t->kind), fl[0].name)
				       : au_arena_printf(a, "anonymous %s", au_layout_kind_name(y->t->kind));
		free(fl);
		bool found = false;
		if (x->bit_offset != y->bit_offset)
			found = moved_alignment(k, NULL, label, false, x->bit_offset, y->bit_offset, type_holds(k, y->t, 0));
		struct flat_member fm;
		if (x->t->size != y->t->size && y->t->size % 8 && x->t->size % 8 == 0 && first_fixed8(k, y->t, NULL, &fm)) {
			add(k, COMPAT_ALIGN8, NULL, NULL, x->bit_offset,
			    au_arena_printf(a, "%s is %" PRIu64 " bytes (32-bit) vs %" PRIu64 " (64-bit): trailing padding to "
					    "a multiple of 4, not 8, as %s is aligned to 4 on the 32-bit ABI", label,
					 y->t->size, x->t->size, decl(a, &fm)));
			found = true;
		}
		if (found)
			add_range(k, x->bit_offset, x->bit_offset + 8 * x->t->size);
	}
	free(v64);
	free(v32);
}

static void only_one_side(struct classifier *k, const struct flat_member *fm, bool old, const char *what)
{
	struct arena *a = &k->c->arena;
	add(k, COMPAT_ARCH_IFDEF, fm->name, NULL, fm->bit_offset,
	    au_arena_printf(a, "%s %s only on the %s ABI (offset %" PRIu64 ", size %" PRIu64 ")", what, decl(a, fm),
			 abi_of_old(k, old), fm->bit_offset / 8, fm->member->type->size));
}

/* A cause is recorded for the member called name itself, or for a member
 * that holds it (u for u.p.x). */
static bool cause_at_or_around(const struct classifier *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++) {
		const char *m = k->buf[i].member;
		size_t len = m ? strlen(m) : 0;
		if (m && strncmp(name, m, len) == 0 && (name[len] == 0 || name[len] == '.'))
			return true;
	}
	return false;
}

/* A nested member (u of union { ... } u): its contents were compared by
 * path; blame it only when none of them explains it. */
static void nested_member(struct classifier *k, const struct change *ch)
{
	const struct flat_member *f64 = side64(k, ch), *f32 = side32(k, ch);
	size_t len = strlen(f64->name);
	for (size_t i = 0; i < k->n; i++)
		if (k->buf[i].member && strncmp(k->buf[i].member, f64->name, len) == 0 && k->buf[i].member[len] == '.')
			return;
	if ((ch->what & DIFF_SIZE) &&
	    trailing_align8(k, au_member_nested(f64->member), au_member_nested(f32->member), f64->name, f64->bit_offset))
		return;
	if (ch->what & ~(unsigned)DIFF_OFFSET)
		add_change(k, f64->name, f64->bit_offset, ch);
}

static void classify(struct classifier *k, struct type_finding *f)
{
	struct arena *a = &k->c->arena;
	k->n = 0;
	k->nranges = 0;
	k->nmoves = 0;
	const struct layout_type *t64 = k->old_is_64 ? f->old_type : f->new_type;
	const struct layout_type *t32 = k->old_is_64 ? f->new_type : f->old_type;
	if (!f->old_type || !f->new_type) {
		add(k, COMPAT_ARCH_IFDEF, NULL, NULL, UINT64_MAX,
		    au_arena_printf(a, "%s is declared only on the %s ABI", f->name, abi_of_old(k, f->old_type != NULL)));
		goto done;
	}
	/* Pass 1: every change but the nested members' and the moves. */
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct change *ch = &f->changes[i];
		switch (ch->kind) {
		case CHANGE_MEMBER:
			/* A member of anonymous type (union { ... } u) that moved
			 * may be misaligned itself; its size is its contents'
			 * business (pass 2). A member that moved inside one
			 * already blamed moved with it. */
			if (au_member_nested(ch->old_member.member) && au_member_nested(ch->new_member.member)) {
				const struct flat_member *f64 = side64(k, ch);
				if ((ch->what & DIFF_OFFSET) && !cause_at_or_around(k, f64->name) && moved_align8(k, ch))
					add_range(k, f64->bit_offset, f64->bit_offset + 8 * f64->member->type->size);
			} else if (ch->what & (DIFF_SIZE | DIFF_BIT_SIZE | DIFF_TYPE)) {
				width_cause(k, ch);
			} else if (!cause_at_or_around(k, side64(k, ch)->name)) {
				moved_align8(k, ch);
			}
			break;
		case CHANGE_EMBEDDED: {
			const struct flat_member *f64 = side64(k, ch);
			if (is_time_struct(ch->other))
				add(k, COMPAT_TIME_WIDTH, f64->name, NULL, f64->bit_offset,
				    au_arena_printf(a, "member %s is a time type, whose layout differs", decl(a, f64)));
			else
				add(k, COMPAT_MEMBER_TYPE, f64->name, ch->other, f64->bit_offset,
				    au_arena_printf(a, "member %s: %s differs", decl(a, f64), ch->other));
			break;
		}
		case CHANGE_MEMBER_REMOVED:
		case CHANGE_ALIAS_REMOVED:
			only_one_side(k, &ch->old_member, true, "member");
			break;
		case CHANGE_MEMBER_ADDED:
		case CHANGE_ALIAS_ADDED:
			only_one_side(k, &ch->new_member, false, "member");
			break;
		case CHANGE_RENAMED:
			only_one_side(k, &ch->old_member, true, "member");
			only_one_side(k, &ch->new_member, false, "member");
			break;
		case CHANGE_ENUMERATOR_ADDED:
		case CHANGE_ENUMERATOR_REMOVED: {
			const struct layout_enumerator *e = ch->old_enum ? ch->old_enum : ch->new_enum;
			add(k, COMPAT_ARCH_IFDEF, e->name, NULL, UINT64_MAX,
			    au_arena_printf(a, "enumerator %s only on the %s ABI", e->name, abi_of_old(k, ch->old_enum != NULL)));
			break;
		}
		case CHANGE_SIZE:
			break;
		case CHANGE_ENUMERATOR_VALUE: {
			uint64_t v64 = (uint64_t)(k->old_is_64 ? ch->old_enum : ch->new_enum)->value;
			uint64_t v32 = (uint64_t)(k->old_is_64 ? ch->new_enum : ch->old_enum)->value;
			/* _IOR(...) and friends encode the size of their type in
			 * bits 16-29: the type's size differs, not the request. */
			if (((v64 ^ v32) & ~(uint64_t)0x3fff0000) == 0)
				add(k, COMPAT_OTHER, ch->old_enum->name, NULL, UINT64_MAX,
				    au_arena_printf(a, "enumerator %s is %#" PRIx64 " (64-bit) vs %#" PRIx64 " (32-bit): an "
						    "ioctl number whose size field differs (%" PRIu64 " vs %" PRIu64 " bytes)",
						 ch->old_enum->name, v64, v32, v64 >> 16 & 0x3fff, v32 >> 16 & 0x3fff));
			else
				add_change(k, ch->old_enum->name, UINT64_MAX, ch);
			break;
		}
		case CHANGE_CONSTANT_VALUE:
		case CHANGE_CONSTANT_MOVED:
			/* A #define the two ABIs evaluate differently (sizeof,
			 * __BITS_PER_LONG): informational, as ioctl numbers are. */
			add_change(k, NULL, UINT64_MAX, ch);
			break;
		case CHANGE_KIND:
		case CHANGE_ALIGNMENT:
		case CHANGE_ODR_CONFLICT: {
			const char *member = ch->kind == CHANGE_ENUMERATOR_VALUE ? ch->old_enum->name : NULL;
			add_change(k, member, UINT64_MAX, ch);
			break;
		}
		}
	}
	if (t64->kind != LAYOUT_ENUM && t32->kind != LAYOUT_ENUM)
		anonymous_members(k, t64, t32);
	/* Pass 2: nested members, whose contents have had their say. */
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct change *ch = &f->changes[i];
		if (ch->kind == CHANGE_MEMBER && au_member_nested(ch->old_member.member) && au_member_nested(ch->new_member.member))
			nested_member(k, ch);
	}
	/* The size: trailing padding that an 8-byte type aligned to 4 shrank
	 * (also beside members whose width changed, which alone would leave
	 * the size a multiple of 8); else the members' causes say it all. */
	if (t64->size != t32->size && t64->kind != LAYOUT_ENUM && t32->kind != LAYOUT_ENUM)
		trailing_align8(k, t64, t32, NULL, 8 * t64->size);
	/* Pass 3: a member that only moved needs a cause before it. */
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct change *ch = &f->changes[i];
		if (ch->kind != CHANGE_MEMBER || ch->what != DIFF_OFFSET)
			continue;
		const struct flat_member *f64 = side64(k, ch), *f32 = side32(k, ch);
		bool explained = cause_at_or_around(k, f64->name);
		for (size_t j = 0; j < k->nranges && !explained; j++)
			explained = k->ranges[j][0] <= f64->bit_offset && f64->bit_offset < k->ranges[j][1];
		for (size_t j = 0; j < k->n && !explained; j++)
			explained = k->where[j] == UINT64_MAX || k->where[j] < f64->bit_offset ||
				    k->where[j] < f32->bit_offset;
		if (!explained)
			add(k, COMPAT_OTHER, f64->name, NULL, f64->bit_offset,
			    au_arena_printf(a, "member %s at %" PRIu64 " (32-bit) vs %" PRIu64 " (64-bit), and nothing "
					    "before it explains the move", decl(a, f64), f32->bit_offset / 8,
					 f64->bit_offset / 8));
	}
	if (t64->size != t32->size && k->n == 0)
		add(k, COMPAT_OTHER, NULL, NULL, UINT64_MAX,
		    au_arena_printf(a, "size %" PRIu64 " (64-bit) vs %" PRIu64 " (32-bit), with no member to blame",
				 t64->size, t32->size));
done:
	if (k->n == 0 && f->nchanges)
		add_change(k, NULL, UINT64_MAX, &f->changes[0]);
	else if (k->n == 0)
		add(k, COMPAT_OTHER, NULL, NULL, UINT64_MAX, "the layouts differ");
	f->ncauses = k->n;
	f->causes = au_arena_memdup(a, k->buf, k->n * sizeof(*k->buf));
}

void au_compat_classify(struct comparison *c, const struct layout_model *old_model,
		     const struct layout_model *new_model)
{
	struct compat_summary *s = au_arena_alloc(&c->arena, sizeof(*s));
	bool old_is_64 = old_model->address_size >= new_model->address_size;
	s->old_bits = 8 * old_model->address_size;
	s->new_bits = 8 * new_model->address_size;
	struct classifier k = { .c = c, .m32 = old_is_64 ? new_model : old_model, .old_is_64 = old_is_64 };
	au_strmap_init(&k.findings);
	au_strmap_init(&k.holds);
	for (size_t i = 0; i < c->nfindings; i++) {
		struct type_finding *f = c->findings[i];
		classify(&k, f);
		bool seen[COMPAT_CAUSE_COUNT] = { false };
		for (size_t j = 0; j < f->ncauses; j++)
			seen[f->causes[j].cause] = true;
		for (int j = 0; j < COMPAT_CAUSE_COUNT; j++)
			s->counts[j] += seen[j];
	}
	free(k.buf);
	free(k.where);
	au_strmap_deinit(&k.findings);
	au_strmap_deinit(&k.holds);
	free(k.ranges);
	free(k.moves);
	c->compat = s;
}
