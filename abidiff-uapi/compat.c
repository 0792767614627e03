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
 * A finding left with no cause gets other, with its first change.
 *
 * Each cause records facts (struct compat_cause: sizes, offsets, alignments
 * on each ABI, declared types, typedef chains); report_compat.c words them. */
#define _GNU_SOURCE
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

/* Something only one side has is on the 64-bit ABI: old says which side. */
static bool only_on_64(const struct classifier *k, bool old)
{
	return old == k->old_is_64;
}

static bool same_member(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_abi(const struct compat_abi *a, const struct compat_abi *b)
{
	return a->size == b->size && a->offset == b->offset && a->value == b->value &&
	       au_same_str(a->declared, b->declared) && au_same_str(a->chain, b->chain);
}

/* Two causes of the type as a whole state the same facts. */
static bool same_facts(const struct compat_cause *a, const struct compat_cause *b)
{
	return a->fact == b->fact && au_same_str(a->type, b->type) && au_same_str(a->decl.type, b->decl.type) &&
	       au_same_str(a->decl.name, b->decl.name) && same_abi(&a->abi64, &b->abi64) &&
	       same_abi(&a->abi32, &b->abi32) && au_same_str(a->type_name, b->type_name) && a->only_64 == b->only_64 &&
	       a->array == b->array && au_same_str(a->via, b->via) && au_same_str(a->inner, b->inner) &&
	       a->anonymous == b->anonymous && a->anon_kind == b->anon_kind &&
	       au_same_str(a->anon_first, b->anon_first) && au_same_str(a->within, b->within) &&
	       a->itself == b->itself && a->align32 == b->align32;
}

/* x, unless a cause of its kind is recorded already for its member (or,
 * for the type as a whole, for the same change or the same facts). */
static void add(struct classifier *k, const struct compat_cause *x, uint64_t where)
{
	for (size_t i = 0; i < k->n; i++) {
		const struct compat_cause *y = &k->buf[i];
		if (y->cause == x->cause && same_member(y->member, x->member) &&
		    (x->member || (x->change ? y->change == x->change : !y->change && same_facts(y, x))))
			return;
	}
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->buf = au_xrealloc(k->buf, k->cap * sizeof(*k->buf));
		k->where = au_xrealloc(k->where, k->cap * sizeof(*k->where));
	}
	k->buf[k->n] = *x;
	k->where[k->n] = where;
	k->n++;
}

/* "other": the change itself, worded by the reporters. */
static void add_change(struct classifier *k, const char *member, uint64_t where, const struct change *ch)
{
	add(k, &(struct compat_cause){ .cause = COMPAT_OTHER, .member = member, .fact = COMPAT_FACT_CHANGE, .change = ch },
	    where);
}

/* The member as a header declares it: its type's name and its path. */
static struct compat_decl decl_of(const struct flat_member *fm)
{
	return (struct compat_decl){ .type = fm->member->type->name, .name = fm->name };
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
	unsigned al = t32->size % 4 == 0 ? 4 : t32->size % 2 == 0 ? 2 : 1;
	add(k, &(struct compat_cause){ .cause = COMPAT_ALIGN8, .member = fm.name, .fact = COMPAT_FACT_TRAILING_PADDING,
				       .decl = decl_of(&fm), .abi64.size = t64->size, .abi32.size = t32->size,
				       .within = prefix, .align32 = al },
	    where);
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
	struct compat_cause x = {
		.member = f64->name, .decl = decl_of(f64),
		.abi64 = { .size = m64->type->size, .declared = m64->type->name, .chain = m64->type->chain },
		.abi32 = { .size = m32->type->size, .declared = m32->type->name, .chain = m32->type->chain },
	};
	uint64_t where = f64->bit_offset;
	bool same_decl = au_same_str(m64->type->name, m32->type->name);
	/* A typedef that ends in long on the 64-bit ABI and in a 32-bit integer
	 * on the other (__statfs_word: __kernel_long_t or __u32 by word size) is
	 * long's width too; ending in anything else, it is declared per ABI. */
	bool long_like = (h32 & HOLD_LONG) || (!same_decl && au_typekey_is_integer(key32, 32));
	int w = width_kind(h32 | (h64 & ~(unsigned)HOLD_LONG) | (long_like ? h64 & HOLD_LONG : 0));
	if (w < 0 && m32->type->embeds && is_time_struct(m32->type->embeds) && au_same_str(m32->type->embeds, m64->type->embeds))
		w = COMPAT_TIME_WIDTH;
	const char *inner;
	if (w >= 0) {
		const struct layout_member *shown = h32 & (HOLD_LONG | HOLD_TIME | HOLD_SIZE | HOLD_POINTER) ? m32 : m64;
		x.cause = (enum compat_cause_kind)w;
		x.fact = COMPAT_FACT_MEMBER_WIDTH;
		x.array = au_typekey_is_array(m32->type->key);
		x.via = shown->type->chain;
	} else if (key32 && key64 && au_typekey_is_anon(key64) &&
		   (w = width_kind(anon_key_holds(a, key64, key32, &inner))) >= 0) {
		x.cause = (enum compat_cause_kind)w;
		x.fact = COMPAT_FACT_ANON_MEMBER_WIDTH;
		x.inner = inner;
	} else if (m32->type->embeds && au_same_str(m32->type->embeds, m64->type->embeds)) {
		x.cause = COMPAT_MEMBER_TYPE;
		x.fact = COMPAT_FACT_MEMBER_TYPE_SIZE;
		x.type = m32->type->embeds;
	} else if (au_typekey_is_array(m32->type->key) && au_typekey_is_array(m64->type->key) &&
		   au_same_str(key32, key64)) {
		x.cause = COMPAT_OTHER;
		x.fact = COMPAT_FACT_ARRAY_LENGTH;
	} else if (!same_decl) {
		x.cause = COMPAT_ARCH_IFDEF;
		x.fact = COMPAT_FACT_DECLARED_PER_ABI;
	} else if (!au_same_str(m64->type->chain, m32->type->chain)) {
		x.cause = COMPAT_ARCH_IFDEF;
		x.fact = COMPAT_FACT_TYPEDEF_PER_ABI;
	} else {
		x.cause = COMPAT_OTHER;
		x.fact = COMPAT_FACT_MEMBER_SIZE;
	}
	add(k, &x, where);
}

/* Something that moved (a member, path name, declared as subject's decl
 * says, or an anonymous member as subject says, name NULL): at an offset
 * that is no multiple of 8 on the 32-bit side, while what it holds (h) is
 * 8-aligned on the 64-bit ABI. */
static bool moved_alignment(struct classifier *k, const char *name, struct compat_cause subject, bool itself,
			    uint64_t off64, uint64_t off32, unsigned h)
{
	if (off32 % 64 == 0 || off64 % 64 != 0 || !(h & (HOLD_FIXED8 | HOLD_POINTER | HOLD_LONG | HOLD_TIME | HOLD_SIZE)))
		return false;
	uint64_t o32 = off32 / 8, o64 = off64 / 8;
	struct compat_cause x = subject;
	x.member = name;
	x.fact = COMPAT_FACT_MOVED;
	x.abi64.offset = o64;
	x.abi32.offset = o32;
	x.align32 = o32 % 4 == 0 ? 4 : o32 % 2 == 0 ? 2 : 1;
	x.itself = itself;
	if (h & HOLD_FIXED8) {
		x.cause = COMPAT_ALIGN8;
		add(k, &x, off64);
	}
	int w = width_kind(h);
	if (w >= 0) {
		x.cause = (enum compat_cause_kind)w;
		add(k, &x, off64);
	}
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
	if (!moved_alignment(k, f64->name, (struct compat_cause){ .decl = decl_of(f32) },
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

/* One anonymous member, x on the 64-bit side and y on the 32-bit one, that
 * moved or changed size: whether a cause is found. */
static bool anonymous_member(struct classifier *k, const struct anon_ref *x, const struct anon_ref *y)
{
	struct flat_member *fl;
	size_t nf = au_layout_flatten(y->t, &fl);
	struct compat_cause subject = { .anonymous = true, .anon_kind = y->t->kind,
					.anon_first = nf ? fl[0].name : NULL };
	free(fl);
	bool found = false;
	if (x->bit_offset != y->bit_offset)
		found = moved_alignment(k, NULL, subject, false, x->bit_offset, y->bit_offset, type_holds(k, y->t, 0));
	struct flat_member fm;
	if (x->t->size != y->t->size && y->t->size % 8 && x->t->size % 8 == 0 && first_fixed8(k, y->t, NULL, &fm)) {
		/* The alignment stated is 4, as i386 aligns an 8-byte scalar. */
		struct compat_cause c = subject;
		c.cause = COMPAT_ALIGN8;
		c.fact = COMPAT_FACT_ANON_TRAILING_PADDING;
		c.abi64.size = x->t->size;
		c.abi32.size = y->t->size;
		c.decl = decl_of(&fm);
		c.align32 = 4;
		add(k, &c, x->bit_offset);
		found = true;
	}
	return found;
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
	for (size_t i = 0; n64 == n32 && i < n64; i++) {
		const struct anon_ref *x = &v64[i], *y = &v32[i];
		if (x->t->kind != y->t->kind || (x->bit_offset == y->bit_offset && x->t->size == y->t->size))
			continue;
		if (anonymous_member(k, x, y))
			add_range(k, x->bit_offset, x->bit_offset + 8 * x->t->size);
	}
	free(v64);
	free(v32);
}

static void only_one_side(struct classifier *k, const struct flat_member *fm, bool old)
{
	struct compat_cause x = { .cause = COMPAT_ARCH_IFDEF, .member = fm->name, .fact = COMPAT_FACT_MEMBER_ONE_ABI,
				  .decl = decl_of(fm), .only_64 = only_on_64(k, old) };
	struct compat_abi *side = x.only_64 ? &x.abi64 : &x.abi32;
	side->offset = fm->bit_offset / 8;
	side->size = fm->member->type->size;
	add(k, &x, fm->bit_offset);
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

/* Pass 1, a common member's change. A member of anonymous type
 * (union { ... } u) that moved may be misaligned itself; its size is its
 * contents' business (pass 2). A member that moved inside one already
 * blamed moved with it. */
static void member_change(struct classifier *k, const struct change *ch)
{
	if (au_member_nested(ch->old_member.member) && au_member_nested(ch->new_member.member)) {
		const struct flat_member *f64 = side64(k, ch);
		if ((ch->what & DIFF_OFFSET) && !cause_at_or_around(k, f64->name) && moved_align8(k, ch))
			add_range(k, f64->bit_offset, f64->bit_offset + 8 * f64->member->type->size);
	} else if (ch->what & (DIFF_SIZE | DIFF_BIT_SIZE | DIFF_TYPE)) {
		width_cause(k, ch);
	} else if (!cause_at_or_around(k, side64(k, ch)->name)) {
		moved_align8(k, ch);
	}
}

/* A member whose named type differs itself. */
static void embedded_change(struct classifier *k, const struct change *ch)
{
	const struct flat_member *f64 = side64(k, ch);
	bool time = is_time_struct(ch->other);
	add(k, &(struct compat_cause){ .cause = time ? COMPAT_TIME_WIDTH : COMPAT_MEMBER_TYPE, .member = f64->name,
				       .type = time ? NULL : ch->other, .fact = COMPAT_FACT_EMBEDDED,
				       .decl = decl_of(f64) },
	    f64->bit_offset);
}

static void enumerator_one_side(struct classifier *k, const struct change *ch)
{
	const struct layout_enumerator *e = ch->old_enum ? ch->old_enum : ch->new_enum;
	add(k, &(struct compat_cause){ .cause = COMPAT_ARCH_IFDEF, .member = e->name, .fact = COMPAT_FACT_ENUMERATOR_ONE_ABI,
				       .only_64 = only_on_64(k, ch->old_enum != NULL) },
	    UINT64_MAX);
}

static void enumerator_value(struct classifier *k, const struct change *ch)
{
	uint64_t v64 = (uint64_t)(k->old_is_64 ? ch->old_enum : ch->new_enum)->value;
	uint64_t v32 = (uint64_t)(k->old_is_64 ? ch->new_enum : ch->old_enum)->value;
	/* _IOR(...) and friends encode the size of their type in
	 * bits 16-29: the type's size differs, not the request. */
	if (((v64 ^ v32) & ~(uint64_t)0x3fff0000) == 0)
		add(k, &(struct compat_cause){ .cause = COMPAT_OTHER, .member = ch->old_enum->name,
					       .fact = COMPAT_FACT_IOCTL_SIZE,
					       .abi64 = { .value = v64, .size = v64 >> 16 & 0x3fff },
					       .abi32 = { .value = v32, .size = v32 >> 16 & 0x3fff } },
		    UINT64_MAX);
	else
		add_change(k, ch->old_enum->name, UINT64_MAX, ch);
}

/* Pass 1: every change but the nested members' and the moves. */
static void classify_change(struct classifier *k, const struct change *ch)
{
	switch (ch->kind) {
	case CHANGE_MEMBER:
		member_change(k, ch);
		break;
	case CHANGE_EMBEDDED:
		embedded_change(k, ch);
		break;
	case CHANGE_MEMBER_REMOVED:
	case CHANGE_ALIAS_REMOVED:
		only_one_side(k, &ch->old_member, true);
		break;
	case CHANGE_MEMBER_ADDED:
	case CHANGE_ALIAS_ADDED:
		only_one_side(k, &ch->new_member, false);
		break;
	case CHANGE_RENAMED:
		only_one_side(k, &ch->old_member, true);
		only_one_side(k, &ch->new_member, false);
		break;
	case CHANGE_ENUMERATOR_ADDED:
	case CHANGE_ENUMERATOR_REMOVED:
		enumerator_one_side(k, ch);
		break;
	case CHANGE_SIZE:
		break;
	case CHANGE_ENUMERATOR_VALUE:
		enumerator_value(k, ch);
		break;
	case CHANGE_CONSTANT_VALUE:
	case CHANGE_CONSTANT_MOVED:
		/* A #define the two ABIs evaluate differently (sizeof,
		 * __BITS_PER_LONG): informational, as ioctl numbers are. */
		add_change(k, NULL, UINT64_MAX, ch);
		break;
	case CHANGE_KIND:
	case CHANGE_ALIGNMENT:
	case CHANGE_ODR_CONFLICT:
		add_change(k, NULL, UINT64_MAX, ch);
		break;
	}
}

/* Pass 3: a member that only moved needs a cause before it. */
static void unexplained_move(struct classifier *k, const struct change *ch)
{
	const struct flat_member *f64 = side64(k, ch), *f32 = side32(k, ch);
	bool explained = cause_at_or_around(k, f64->name);
	for (size_t j = 0; j < k->nranges && !explained; j++)
		explained = k->ranges[j][0] <= f64->bit_offset && f64->bit_offset < k->ranges[j][1];
	for (size_t j = 0; j < k->n && !explained; j++)
		explained = k->where[j] == UINT64_MAX || k->where[j] < f64->bit_offset || k->where[j] < f32->bit_offset;
	if (!explained)
		add(k, &(struct compat_cause){ .cause = COMPAT_OTHER, .member = f64->name,
					       .fact = COMPAT_FACT_UNEXPLAINED_MOVE, .decl = decl_of(f64),
					       .abi64.offset = f64->bit_offset / 8, .abi32.offset = f32->bit_offset / 8 },
		    f64->bit_offset);
}

/* The causes of a type both ABIs have (t64 and t32). */
static void classify_common(struct classifier *k, const struct type_finding *f, const struct layout_type *t64,
			    const struct layout_type *t32)
{
	for (size_t i = 0; i < f->nchanges; i++)
		classify_change(k, &f->changes[i]);
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
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct change *ch = &f->changes[i];
		if (ch->kind == CHANGE_MEMBER && ch->what == DIFF_OFFSET)
			unexplained_move(k, ch);
	}
	if (t64->size != t32->size && k->n == 0)
		add(k, &(struct compat_cause){ .cause = COMPAT_OTHER, .fact = COMPAT_FACT_UNEXPLAINED_SIZE,
					       .abi64.size = t64->size, .abi32.size = t32->size },
		    UINT64_MAX);
}

static void classify(struct classifier *k, struct type_finding *f)
{
	k->n = 0;
	k->nranges = 0;
	k->nmoves = 0;
	if (!f->old_type || !f->new_type)
		add(k, &(struct compat_cause){ .cause = COMPAT_ARCH_IFDEF, .fact = COMPAT_FACT_TYPE_ONE_ABI,
					       .type_name = f->name, .only_64 = only_on_64(k, f->old_type != NULL) },
		    UINT64_MAX);
	else
		classify_common(k, f, k->old_is_64 ? f->old_type : f->new_type, k->old_is_64 ? f->new_type : f->old_type);
	if (k->n == 0 && f->nchanges)
		add_change(k, NULL, UINT64_MAX, &f->changes[0]);
	else if (k->n == 0)
		add(k, &(struct compat_cause){ .cause = COMPAT_OTHER, .fact = COMPAT_FACT_LAYOUTS_DIFFER }, UINT64_MAX);
	f->ncauses = k->n;
	f->causes = au_arena_memdup(&k->c->arena, k->buf, k->n * sizeof(*k->buf));
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
