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
#include "report.h"

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

const char *compat_cause_name(enum compat_cause_kind k)
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
	struct strmap fixed8;     /* 32-bit type name -> &holds or &lacks */
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

static void add(struct classifier *k, enum compat_cause_kind cause, const char *member, const char *type,
		uint64_t where, const char *detail)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->buf[i].cause == cause &&
		    (k->buf[i].member == member || (k->buf[i].member && member && strcmp(k->buf[i].member, member) == 0)))
			return;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->buf = xrealloc(k->buf, k->cap * sizeof(*k->buf));
		k->where = xrealloc(k->where, k->cap * sizeof(*k->where));
	}
	k->buf[k->n] = (struct compat_cause){ .cause = cause, .member = member, .type = type, .detail = detail };
	k->where[k->n] = where;
	k->n++;
}

/* The key with its array dimensions taken off: "[4]u64" -> "u64". */
static const char *strip_arrays(const char *key)
{
	while (key && *key == '[') {
		const char *e = strchr(key, ']');
		if (!e)
			break;
		key = e + 1;
	}
	return key;
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
	const char *t = fm->member->type_name ? fm->member->type_name : "?", *dims = strchr(t, '[');
	int tl = dims ? (int)(dims - t) : (int)strlen(t);
	const char *sep = tl && t[tl - 1] == '*' ? "" : " ";
	return arena_printf(a, "%.*s%s%s%s", tl, t, sep, fm->name, dims ? dims : "");
}

/* The chain, when it goes further than one name: " (a -> b -> long)". */
static const char *via(struct arena *a, const struct layout_member *m)
{
	const char *chain = m->type_chain;
	if (!chain || !strchr(chain, '>'))
		return "";
	size_t n = 0;
	for (const char *p = chain; *p; p++)
		n += *p == '>';
	char *out = arena_alloc(a, strlen(chain) + 3 * n + 4), *o = out;
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
	return k64 && k32 && (strcmp(k64, "s64") == 0 || strcmp(k64, "u64") == 0) && k32[0] == k64[0] &&
	       strcmp(k32 + 1, "32") == 0;
}

/* A by-value 8-byte scalar key, as the 32-bit side spells it. */
static bool fixed8_key(const char *k)
{
	return k && (strcmp(k, "u64") == 0 || strcmp(k, "s64") == 0 || strcmp(k, "f64") == 0 ||
		     strcmp(k, "cf64") == 0);
}

static bool type_has_fixed8(struct classifier *k, const struct layout_type *t, int depth);
static char holds, lacks;   /* the fixed8 map's two values */

/* The member (32-bit side) is or holds an 8-byte fixed-width scalar. */
static bool member_has_fixed8(struct classifier *k, const struct layout_member *m, int depth)
{
	if (depth > 64)
		return false;
	const char *key = strip_arrays(m->type_key);
	if (fixed8_key(key))
		return true;
	if (m->anon)
		return type_has_fixed8(k, m->anon, depth + 1);
	if (m->nested)
		return type_has_fixed8(k, m->nested, depth + 1);
	if (!key || *key == '*' || *key == '&')
		return false;
	if (strncmp(key, "struct{", 7) == 0 || strncmp(key, "union{", 6) == 0) {
		/* An anonymous type not read as a layout (an array of them): its
		 * key lists its members' keys, each after ':' and dimensions. */
		for (const char *p = key; (p = strpbrk(p, "usfc")) != NULL; p++)
			if ((p[-1] == ':' || p[-1] == ']') &&
			    (strncmp(p, "u64;", 4) == 0 || strncmp(p, "s64;", 4) == 0 || strncmp(p, "f64;", 4) == 0 ||
			     strncmp(p, "cf64;", 5) == 0))
				return true;
		return false;
	}
	const char *memo = strmap_get(&k->fixed8, key);
	if (memo)
		return memo == &holds;
	const struct layout_type *t = layout_model_find(k->m32, key);
	if (!t || t->kind == LAYOUT_ENUM)
		return false;
	strmap_put(&k->fixed8, t->name, &lacks); /* a cycle in corrupt input finds none */
	bool r = type_has_fixed8(k, t, depth + 1);
	strmap_put(&k->fixed8, t->name, r ? &holds : &lacks);
	return r;
}

static bool type_has_fixed8(struct classifier *k, const struct layout_type *t, int depth)
{
	for (size_t i = 0; i < t->nmembers; i++)
		if (member_has_fixed8(k, &t->members[i], depth))
			return true;
	return false;
}

/* The first member of t (32-bit side) holding an 8-byte fixed-width
 * scalar, by path, or NULL. *ret is its flat member. */
static bool first_fixed8(struct classifier *k, const struct layout_type *t, const char *prefix,
			 struct flat_member *ret)
{
	struct flat_member *v;
	size_t n = layout_flatten_paths(t, &k->c->arena, &v);
	bool found = false;
	for (size_t i = 0; i < n && !found; i++) {
		if (v[i].member->nested || !member_has_fixed8(k, v[i].member, 0))
			continue;
		*ret = v[i];
		if (prefix)
			ret->name = arena_printf(&k->c->arena, "%s.%s", prefix, v[i].name);
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
	const char *what = prefix ? arena_printf(a, "member %s: size", prefix) : "size";
	add(k, COMPAT_ALIGN8, fm.name, NULL, where,
	    arena_printf(a, "%s %" PRIu64 " (32-bit) vs %" PRIu64 " (64-bit): trailing padding to a multiple of "
			    "%d, not 8, as %s is aligned to %d on the 32-bit ABI", what, t32->size, t64->size,
			 t32->size % 4 == 0 ? 4 : t32->size % 2 == 0 ? 2 : 1, decl(a, &fm),
			 t32->size % 4 == 0 ? 4 : t32->size % 2 == 0 ? 2 : 1));
	return true;
}

static bool is_time_struct(const char *name)
{
	return name && (strstr(name, "timeval") || strstr(name, "timespec"));
}

/* A common member whose size (or type) differs: its width's cause. */
static void width_cause(struct classifier *k, const struct change *ch)
{
	struct arena *a = &k->c->arena;
	const struct flat_member *f64 = side64(k, ch), *f32 = side32(k, ch);
	const struct layout_member *m64 = f64->member, *m32 = f32->member;
	const char *key = strip_arrays(m32->type_key);
	const char *chain = m32->type_chain ? m32->type_chain : m32->type_name;
	const char *d = decl(a, f64), *name = f64->name;
	uint64_t where = f64->bit_offset;
	const char *sizes = arena_printf(a, "%" PRIu64 " bytes (64-bit) vs %" PRIu64 " (32-bit)", m64->size, m32->size);
	bool array = m32->type_key && m32->type_key[0] == '[';
	if (key && (key[0] == '*' || key[0] == '&' || strncmp(key, "::*", 3) == 0)) {
		add(k, COMPAT_POINTER_WIDTH, name, NULL, where,
		    arena_printf(a, "member %s is %s: %s", d, array ? "an array of pointers" : "a pointer", sizes));
	} else if (chain_has(chain, time_names) || (m32->embeds && is_time_struct(m32->embeds))) {
		add(k, COMPAT_TIME_WIDTH, name, NULL, where,
		    arena_printf(a, "member %s is a time type%s: %s", d, via(a, m32), sizes));
	} else if (chain_has(chain, size_names)) {
		add(k, COMPAT_SIZE_T_WIDTH, name, NULL, where,
		    arena_printf(a, "member %s is a size_t type%s: %s", d, via(a, m32), sizes));
	} else if ((m32->type_chain && (strcmp(chain_last(chain), "long") == 0 ||
					strcmp(chain_last(chain), "unsigned long") == 0)) ||
		   (!m32->type_chain && long_by_key(strip_arrays(m64->type_key), key))) {
		add(k, COMPAT_LONG_WIDTH, name, NULL, where,
		    arena_printf(a, "member %s is %s%s: %s", d, array ? "an array of long" : "long", via(a, m32), sizes));
	} else if (m32->embeds && m64->embeds && strcmp(m32->embeds, m64->embeds) == 0) {
		add(k, COMPAT_MEMBER_TYPE, name, m32->embeds, where,
		    arena_printf(a, "member %s: %s differs, %s", d, m32->embeds, sizes));
	} else {
		add(k, COMPAT_OTHER, name, NULL, where,
		    arena_printf(a, "member %s: %s (64-bit) vs %s (32-bit), %s", d, m64->type_name, m32->type_name,
				 sizes));
	}
}

/* The member moved and holds an 8-byte fixed-width scalar that the 32-bit
 * side puts at an offset that is no multiple of 8. */
static bool moved_align8(struct classifier *k, const struct change *ch)
{
	const struct flat_member *f64 = side64(k, ch), *f32 = side32(k, ch);
	if (f32->bit_offset % 64 == 0 || f64->bit_offset % 64 != 0 || f32->member->is_bitfield ||
	    !member_has_fixed8(k, f32->member, 0))
		return false;
	struct arena *a = &k->c->arena;
	uint64_t o32 = f32->bit_offset / 8, o64 = f64->bit_offset / 8;
	bool itself = fixed8_key(strip_arrays(f32->member->type_key));
	add(k, COMPAT_ALIGN8, f64->name, NULL, f64->bit_offset,
	    arena_printf(a, "member %s at %" PRIu64 " (32-bit) vs %" PRIu64 " (64-bit): %s aligned to %d on the "
			    "32-bit ABI", decl(a, f32), o32, o64, itself ? "an 8-byte type" : "holds an 8-byte type,",
			 o32 % 4 == 0 ? 4 : o32 % 2 == 0 ? 2 : 1));
	return true;
}

static void only_one_side(struct classifier *k, const struct flat_member *fm, bool old, const char *what)
{
	struct arena *a = &k->c->arena;
	add(k, COMPAT_ARCH_IFDEF, fm->name, NULL, fm->bit_offset,
	    arena_printf(a, "%s %s only on the %s ABI (offset %" PRIu64 ", size %" PRIu64 ")", what, decl(a, fm),
			 abi_of_old(k, old), fm->bit_offset / 8, fm->member->size));
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

static const char *change_words(struct classifier *k, const struct change *ch)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		au_out_of_memory();
	report_change_text(f, ch);
	if (fclose(f) != 0)
		au_out_of_memory();
	const char *r = arena_strdup(&k->c->arena, text);
	free(text);
	return r;
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
	    trailing_align8(k, f64->member->nested, f32->member->nested, f64->name, f64->bit_offset))
		return;
	if (ch->what & ~(unsigned)DIFF_OFFSET)
		add(k, COMPAT_OTHER, f64->name, NULL, f64->bit_offset, change_words(k, ch));
}

static void classify(struct classifier *k, struct type_finding *f)
{
	struct arena *a = &k->c->arena;
	k->n = 0;
	const struct layout_type *t64 = k->old_is_64 ? f->old_type : f->new_type;
	const struct layout_type *t32 = k->old_is_64 ? f->new_type : f->old_type;
	if (!f->old_type || !f->new_type) {
		add(k, COMPAT_ARCH_IFDEF, NULL, NULL, UINT64_MAX,
		    arena_printf(a, "%s is declared only on the %s ABI", f->name, abi_of_old(k, f->old_type != NULL)));
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
			if (ch->old_member.member->nested && ch->new_member.member->nested) {
				if (ch->what & DIFF_OFFSET)
					moved_align8(k, ch);
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
				    arena_printf(a, "member %s is a time type, whose layout differs", decl(a, f64)));
			else
				add(k, COMPAT_MEMBER_TYPE, f64->name, ch->other, f64->bit_offset,
				    arena_printf(a, "member %s: %s differs", decl(a, f64), ch->other));
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
			    arena_printf(a, "enumerator %s only on the %s ABI", e->name, abi_of_old(k, ch->old_enum != NULL)));
			break;
		}
		case CHANGE_SIZE:
			break;
		case CHANGE_KIND:
		case CHANGE_ALIGNMENT:
		case CHANGE_ENUMERATOR_VALUE:
		case CHANGE_ODR_CONFLICT: {
			const char *member = ch->kind == CHANGE_ENUMERATOR_VALUE ? ch->old_enum->name : NULL;
			add(k, COMPAT_OTHER, member, NULL, UINT64_MAX, change_words(k, ch));
			break;
		}
		}
	}
	/* Pass 2: nested members, whose contents have had their say. */
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct change *ch = &f->changes[i];
		if (ch->kind == CHANGE_MEMBER && ch->old_member.member->nested && ch->new_member.member->nested)
			nested_member(k, ch);
	}
	/* The size, when no member's width accounts for it. */
	/* The size: trailing padding that an 8-byte type aligned to 4 shrank
	 * (also beside members whose width changed, which alone would leave
	 * the size a multiple of 8), else the members' causes say it all. */
	if (t64->size != t32->size && t64->kind != LAYOUT_ENUM)
		trailing_align8(k, t64, t32, NULL, 8 * t64->size);
	if (t64->size != t32->size && (t64->kind == LAYOUT_ENUM || k->n == 0))
		add(k, COMPAT_OTHER, NULL, NULL, UINT64_MAX,
		    arena_printf(a, "size %" PRIu64 " (64-bit) vs %" PRIu64 " (32-bit), with no member to blame",
				 t64->size, t32->size));
	/* Pass 3: a member that only moved needs a cause before it. */
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct change *ch = &f->changes[i];
		if (ch->kind != CHANGE_MEMBER || ch->what != DIFF_OFFSET)
			continue;
		const struct flat_member *f64 = side64(k, ch), *f32 = side32(k, ch);
		bool explained = cause_at_or_around(k, f64->name);
		for (size_t j = 0; j < k->n && !explained; j++)
			explained = k->where[j] == UINT64_MAX || k->where[j] < f64->bit_offset ||
				    k->where[j] < f32->bit_offset;
		if (!explained)
			add(k, COMPAT_OTHER, f64->name, NULL, f64->bit_offset,
			    arena_printf(a, "member %s at %" PRIu64 " (32-bit) vs %" PRIu64 " (64-bit), and nothing "
					    "before it explains the move", decl(a, f64), f32->bit_offset / 8,
					 f64->bit_offset / 8));
	}
done:
	if (k->n == 0)
		add(k, COMPAT_OTHER, NULL, NULL, UINT64_MAX,
		    f->nchanges ? change_words(k, &f->changes[0]) : "the layouts differ");
	f->ncauses = k->n;
	f->causes = arena_memdup(a, k->buf, k->n * sizeof(*k->buf));
}

void compat_classify(struct comparison *c, const struct layout_model *old_model,
		     const struct layout_model *new_model)
{
	struct compat_summary *s = arena_alloc(&c->arena, sizeof(*s));
	bool old_is_64 = old_model->address_size >= new_model->address_size;
	s->old_bits = 8 * old_model->address_size;
	s->new_bits = 8 * new_model->address_size;
	struct classifier k = { .c = c, .m32 = old_is_64 ? new_model : old_model, .old_is_64 = old_is_64 };
	strmap_init(&k.findings);
	strmap_init(&k.fixed8);
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
	strmap_deinit(&k.findings);
	strmap_deinit(&k.fixed8);
	c->compat = s;
}

void compat_json_summary(FILE *out, const struct comparison *c)
{
	const struct compat_summary *s = c->compat;
	fprintf(out, ",\"compat\":true,\"abi_bits\":{\"old\":%u,\"new\":%u},\"causes\":{", s->old_bits, s->new_bits);
	for (int i = 0; i < COMPAT_CAUSE_COUNT; i++)
		fprintf(out, "%s\"%s\":%zu", i ? "," : "", cause_names[i], s->counts[i]);
	fputc('}', out);
}

void compat_json_causes(FILE *out, const struct type_finding *f)
{
	fputs(",\"causes\":[", out);
	for (size_t i = 0; i < f->ncauses; i++) {
		const struct compat_cause *x = &f->causes[i];
		fprintf(out, "%s{\"cause\":\"%s\"", i ? "," : "", cause_names[x->cause]);
		if (x->member) {
			fputs(",\"member\":", out);
			report_json_string(out, x->member);
		}
		if (x->type) {
			fputs(",\"type\":", out);
			report_json_string(out, x->type);
		}
		fputs(",\"detail\":", out);
		report_json_string(out, x->detail);
		fputc('}', out);
	}
	fputc(']', out);
}

void compat_text_causes(FILE *out, const struct type_finding *f)
{
	for (size_t i = 0; i < f->ncauses; i++)
		fprintf(out, "  cause: %s: %s\n", cause_names[f->causes[i].cause], f->causes[i].detail);
}

void compat_text_summary(FILE *out, const struct comparison *c)
{
	const struct compat_summary *s = c->compat;
	fprintf(out, "compat: OLD %u-bit, NEW %u-bit; findings by cause:", s->old_bits, s->new_bits);
	for (int i = 0; i < COMPAT_CAUSE_COUNT; i++)
		fprintf(out, "%s %s %zu", i ? "," : "", cause_names[i], s->counts[i]);
	fputc('\n', out);
}
