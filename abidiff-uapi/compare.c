#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "typekey.h"

struct comparer {
	const struct layout_model *old_model, *new_model;
	const struct compare_options *opts;
	bool c_to_cxx;           /* OLD is C and NEW is C++ */
	struct comparison *out;
	/* OLD's type (by address) -> struct type_finding * (also for
	 * unchanged), or &comparing while it is being compared (cycles in
	 * corrupt input): an integer key, where a name would be hashed and
	 * compared on every probe */
	struct intmap done;
	struct change *buf;      /* scratch list of changes for one type */
	size_t nbuf, capbuf;
	struct strmap shapes[2]; /* per side: named aggregate -> its shape key */
	/* Per side, built when first needed: each constant's neighbour in its
	 * header (the sentinel rule), and every enumerator by name (a name
	 * that moved between an enumerator and a #define). */
	struct constant_order *order[2];
	struct enum_index *enums[2];
};

struct constant_order;
struct enum_index;
static const char *moved_to_constant(struct comparer *c, const struct layout_enumerator *e);

const char *au_finding_status_name(enum finding_status s)
{
	static const char *const names[STATUS_COUNT] = {
		"unchanged", "aliased", "extended", "added", "renamed", "removed", "changed",
	};
	return s < STATUS_COUNT ? names[s] : "?";
}

static struct change *push(struct comparer *c, enum change_kind kind, bool layout, enum reason why)
{
	if (c->nbuf == c->capbuf) {
		c->capbuf = c->capbuf ? 2 * c->capbuf : 32;
		c->buf = au_xrealloc(c->buf, c->capbuf * sizeof(*c->buf));
	}
	struct change *ch = &c->buf[c->nbuf++];
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	ch->layout = layout;
	ch->reasons = (reason_set)1 << why;
	return ch;
}

static void because(struct change *ch, enum reason why)
{
	ch->reasons = (reason_set)1 << why;
}

static struct type_finding *compare_named(struct comparer *c, const char *name);
static struct type_finding *compare_pair(struct comparer *c, const char *name, const struct layout_type *o,
					 const struct layout_type *n);
static void compare_constant(struct comparer *c, const struct layout_type *o, const struct layout_type *n);

/* The shape key of a named aggregate on one side (0 old, 1 new), as an
 * anonymous one with the same layout would have. */
static const char *shape_of(struct comparer *c, int side, const char *name)
{
	const char *k = au_strmap_get(&c->shapes[side], name);
	if (k)
		return k;
	const struct layout_type *t = au_layout_model_find(side ? c->new_model : c->old_model, name);
	if (!t)
		return NULL;
	k = au_typekey_anon(&c->out->arena, t);
	au_strmap_put(&c->shapes[side], name, (void *)k);
	return k;
}

/* A key that is the typedef name of an anonymous aggregate on side `side`. */
static bool is_typedef_key(struct comparer *c, int side, const char *k)
{
	if (au_typekey_is_anon(k) || au_typekey_is_named(k))
		return false;
	const struct layout_type *t = au_layout_model_find(side ? c->new_model : c->old_model, k);
	return t && t->kind != LAYOUT_ENUM;
}

/* Plain char's sign on a side (0 old, 1 new). */
static enum char_signedness char_sign(const struct comparer *c, int side)
{
	return (side ? c->new_model : c->old_model)->char_signedness;
}

/* Keys a (side sa) and b (side sb), both non-NULL, name one type: equal, or
 * differing only where one side's plain char is the other's signed char or
 * unsigned char of the same encoding (au_typekey_equal_char; asked only
 * when the strings differ). */
static bool same_key(const struct comparer *c, const char *a, int sa, const char *b, int sb)
{
	return strcmp(a, b) == 0 || au_typekey_equal_char(a, b, char_sign(c, sa), char_sign(c, sb));
}

/* Canonical types a (on side sa) and b (on side sb) are the same. Beyond
 * equal keys: a named struct and an anonymous one of the same shape, behind
 * the same arrays and pointers, are one layout. 6.12's __struct_group gives a
 * member the type struct TAG in C and an untagged struct in C++. And char
 * is signed char or unsigned char, by its side's encoding (same_key). */
static bool same_type(struct comparer *c, const char *a, int sa, const char *b, int sb)
{
	if (strcmp(a, b) == 0)
		return true;
	size_t p = au_typekey_sigil_prefix(a);
	if (p != au_typekey_sigil_prefix(b) || strncmp(a, b, p) != 0)
		return false;
	const char *a0 = a, *b0 = b;
	a += p;
	b += p;
	/* uuid_le and guid_t, typedefs naming anonymous structs: the same
	 * layout under another typedef is the same type to C code. */
	if (is_typedef_key(c, 0, a) || is_typedef_key(c, 1, b)) {
		const char *ka = au_typekey_is_anon(a) ? a : shape_of(c, sa, a), *kb = au_typekey_is_anon(b) ? b : shape_of(c, sb, b);
		return ka && kb && same_key(c, ka, sa, kb, sb);
	}
	if (au_typekey_is_anon(a) && au_typekey_is_named_aggregate(b)) {
		const char *sb_key = shape_of(c, sb, b);
		return sb_key && same_key(c, a, sa, sb_key, sb);
	}
	if (au_typekey_is_named_aggregate(a) && au_typekey_is_anon(b)) {
		const char *sa_key = shape_of(c, sa, a);
		return sa_key && same_key(c, sa_key, sa, b, sb);
	}
	return au_typekey_equal_char(a0, b0, char_sign(c, sa), char_sign(c, sb));
}

/* Two members occupy the same slot: same place, same width, same type. */
static bool same_slot(struct comparer *c, const struct flat_member *a, int sa, const struct flat_member *b, int sb)
{
	return a->bit_offset == b->bit_offset && au_member_bits(a->member) == au_member_bits(b->member) &&
	       a->member->is_bitfield == b->member->is_bitfield &&
	       a->member->flexible == b->member->flexible &&
	       same_type(c, a->member->type->key, sa, b->member->type->key, sb);
}

static unsigned member_differences(struct comparer *c, const struct flat_member *o, const struct flat_member *n)
{
	const struct layout_member *a = o->member, *b = n->member;
	unsigned what = 0;
	if (o->bit_offset != n->bit_offset)
		what |= DIFF_OFFSET;
	if ((a->is_bitfield || b->is_bitfield) &&
	    (a->is_bitfield != b->is_bitfield || a->bit_size != b->bit_size))
		what |= DIFF_BIT_SIZE;
	if (a->type->size != b->type->size || a->flexible != b->flexible)
		what |= DIFF_SIZE;
	/* union { ... } u on both sides: u's contents are compared by path
	 * (u.p.x), so its anonymous type's key would only repeat them. */
	if (!(au_member_nested(a) && au_member_nested(b)) && !same_type(c, a->type->key, 0, b->type->key, 1))
		what |= DIFF_TYPE;
	return what;
}

/* Members by name: a hash map for large types, a scan for the many small
 * ones, where building a map costs more than it saves. */
struct flat_index {
	struct flat_member *v;
	size_t n;
	bool hashed;
	struct strmap map;
};

enum { FLAT_SCAN_MAX = 16 };

static void index_flat(struct flat_index *idx, struct flat_member *v, size_t n)
{
	idx->v = v;
	idx->n = n;
	idx->hashed = n > FLAT_SCAN_MAX;
	au_strmap_init(&idx->map);
	for (size_t i = 0; idx->hashed && i < n; i++)
		au_strmap_put(&idx->map, v[i].name, &v[i]);
}

static void unindex_flat(struct flat_index *idx)
{
	au_strmap_deinit(&idx->map);
}

static const struct flat_member *find_flat(const struct flat_index *idx, const char *name)
{
	if (idx->hashed)
		return au_strmap_get(&idx->map, name);
	for (size_t i = 0; i < idx->n; i++)
		if (strcmp(idx->v[i].name, name) == 0)
			return &idx->v[i];
	return NULL;
}

/* The last component of a path: the member's own name. */
static const char *leaf(const struct flat_member *fm)
{
	return fm->member->name;
}

static uint64_t end_bit(const struct flat_member *fm)
{
	return fm->bit_offset + au_member_bits(fm->member);
}

/* A member that holds data itself (not a named member of anonymous type,
 * whose contents are listed after it, nor a zero-size one). */
static bool occupies(const struct flat_member *fm)
{
	return !au_member_nested(fm->member) && au_member_bits(fm->member) > 0;
}


struct member_context {
	const struct layout_type *old_type, *new_type;
	struct flat_member *fo;
	size_t no;
	size_t start;   /* this type's first change in the comparer's buffer */
};

/* The length of the parent path of a member's path: "u.p" of "u.p.x", 0
 * at the top. */
static size_t parent_len(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? (size_t)(dot - path) : 0;
}

/* Two members' paths lie in one named member (or both at the top). */
static bool same_parent(const struct flat_member *a, const struct flat_member *b)
{
	size_t n = parent_len(a->name);
	return n == parent_len(b->name) && strncmp(a->name, b->name, n) == 0;
}

/* The old members that [start, end) overlaps: none, only reserved ones, or
 * some that hold data. */
enum overlap { OVERLAP_NONE, OVERLAP_RESERVED, OVERLAP_DATA };

static enum overlap overlapped(const struct member_context *mc, uint64_t start, uint64_t end)
{
	enum overlap r = OVERLAP_NONE;
	for (size_t i = 0; i < mc->no; i++) {
		const struct flat_member *f = &mc->fo[i];
		if (!occupies(f) || f->bit_offset >= end || end_bit(f) <= start)
			continue;
		if (!au_is_reserved_name(leaf(f)))
			return OVERLAP_DATA;
		r = OVERLAP_RESERVED;
	}
	return r;
}

/* Nothing in OLD starts at or after the end of f: it is the tail. */
static bool at_tail(const struct member_context *mc, const struct flat_member *f)
{
	uint64_t end = end_bit(f);
	for (size_t i = 0; i < mc->no; i++)
		if (occupies(&mc->fo[i]) && mc->fo[i].bit_offset >= end && &mc->fo[i] != f)
			return false;
	return true;
}

/* The grown member n reaches past what its union held before: the union
 * itself grows (its own size change says how). */
static bool at_tail_of_union(const struct member_context *mc, const struct flat_member *o,
			     const struct flat_member *n)
{
	uint64_t held = 0;
	for (size_t i = 0; i < mc->no; i++) {
		const struct flat_member *f = &mc->fo[i];
		if (f->container == o->container && end_bit(f) > held)
			held = end_bit(f);
	}
	return end_bit(n) > held;
}

/* Why a common member differs (what != 0). inner: the finding of the
 * struct it holds by value, if any (looked up before ch was pushed: a
 * lookup may compare more types and move the change buffer). */
static void grade_member(struct comparer *c, const struct member_context *mc, struct change *ch,
			 const struct type_finding *inner)
{
	const struct flat_member *o = &ch->old_member, *n = &ch->new_member;
	const char *eo = au_typekey_zero_array_element(o->member->type->key), *en = au_typekey_zero_array_element(n->member->type->key);
	if (!(ch->what & DIFF_OFFSET) && au_member_bits(o->member) == 0 && au_member_bits(n->member) == 0 && eo && en &&
	    same_type(c, eo, 0, en, 1)) {
		because(ch, REASON_FLEXIBLE_SPELLING);
		return;
	}
	/* T x[1] -> T x[] at the end of a struct whose size is kept: the old
	 * one-element array was a flexible array spelled the old way. */
	const char *e1o = au_typekey_one_element(o->member->type->key), *e1n = au_typekey_one_element(n->member->type->key);
	if (!(ch->what & DIFF_OFFSET) && mc->old_type->size == mc->new_type->size &&
	    ((e1o && en && au_member_bits(n->member) == 0 && same_type(c, e1o, 0, en, 1)) ||
	     (e1n && eo && au_member_bits(o->member) == 0 && same_type(c, eo, 0, e1n, 1)))) {
		because(ch, REASON_FLEXIBLE_SPELLING);
		return;
	}
	if (!c->opts->strict) {
		/* __u32 reserved[4] -> __u32 flags; __u32 reserved[3]: no program
		 * reads a reserved member, so where it went and how big it is now
		 * breaks nothing. What took its place is judged on its own, and so
		 * is any member it pushed. */
		if (au_is_reserved_name(leaf(o)) && au_is_reserved_name(leaf(n))) {
			because(ch, REASON_RESERVED_REUSE);
			return;
		}
		/* The last member, a struct that grew at its own tail: the outer
		 * type grows at its tail too. */
		/* A member that grew in place: a struct that grew at its own
		 * tail, or a member of anonymous type whose contents say how it
		 * grew (u.p.x). It moves nothing when it is the last member, or
		 * an alternative in a union. */
		bool grew_at_own_tail =
			(inner && strcmp(o->member->type->key, o->member->type->embeds) == 0 &&
			 (inner->reasons & ((reason_set)1 << REASON_TAIL_GROWTH)) && inner->severity <= SEVERITY_REVIEW) ||
			(au_member_nested(o->member) && au_member_nested(n->member));
		if (ch->what == DIFF_SIZE && n->member->type->size > o->member->type->size && grew_at_own_tail) {
			/* Inside the room a union already had (v4l2_format's fmt
			 * is 200 bytes whatever its alternatives need): nothing
			 * outside the member changes. */
			if (o->union_depth > 0 && end_bit(n) <= 8 * mc->old_type->size && !at_tail_of_union(mc, o, n)) {
				because(ch, REASON_PADDING_REUSE);
				return;
			}
			if (at_tail(mc, o) || o->union_depth > 0) {
				because(ch, REASON_TAIL_GROWTH);
				return;
			}
		}
	}
	ch->reasons = 0;
	if (ch->what & DIFF_OFFSET)
		ch->reasons |= (reason_set)1 << REASON_MOVED;
	if (ch->what & (DIFF_SIZE | DIFF_BIT_SIZE))
		ch->reasons |= (reason_set)1 << REASON_RESIZED;
	if (ch->what & DIFF_TYPE)
		ch->reasons |= (reason_set)1 << REASON_RETYPED;
}

/* A member added to a named member of anonymous type that grew only by
 * it (export_dmabuf_fd gaining offset after its last member): how its
 * parent's growth was judged, else NULL. */
static const struct change *parent_growth(const struct comparer *c, const struct member_context *mc,
					  const struct flat_member *n)
{
	size_t len = parent_len(n->name);
	if (!len)
		return NULL;
	const reason_set growth = (reason_set)1 << REASON_PADDING_REUSE | (reason_set)1 << REASON_TAIL_GROWTH;
	for (size_t i = mc->start; i < c->nbuf; i++) {
		const struct change *p = &c->buf[i];
		if (p->kind == CHANGE_MEMBER && p->what == DIFF_SIZE && (p->reasons & ~growth) == 0 &&
		    strlen(p->old_member.name) == len && strncmp(p->old_member.name, n->name, len) == 0 &&
		    n->bit_offset >= end_bit(&p->old_member))
			return p;
	}
	return NULL;
}

/* Why a name only NEW has is there. */
static void grade_added(struct comparer *c, const struct member_context *mc, struct change *ch,
			const struct flat_member *overlap, const struct flat_member *overlap_old)
{
	const struct flat_member *n = &ch->new_member;
	if (c->opts->strict) {
		because(ch, overlap ? REASON_OVERLAP : REASON_MEMBER_ADDED);
		return;
	}
	const struct change *grown = parent_growth(c, mc, n);
	if (grown) {
		ch->reasons = grown->reasons;
		return;
	}
	uint64_t start = n->bit_offset, end = end_bit(n), old_end = 8 * mc->old_type->size;
	if (end > old_end || (start >= old_end && old_end < 8 * mc->new_type->size)) {
		because(ch, REASON_TAIL_GROWTH);
		return;
	}
	switch (start == end ? OVERLAP_NONE : overlapped(mc, start, end)) {
	case OVERLAP_NONE:
		because(ch, REASON_PADDING_REUSE);
		return;
	case OVERLAP_RESERVED:
		because(ch, REASON_RESERVED_REUSE);
		return;
	case OVERLAP_DATA:
		break;
	}
	/* Over a member that was there. A union newly wrapped around that
	 * member, holding the new name beside it, is an attempted alias of the
	 * wrong size or type (union { __u32 or; __u16 _or; }); a name in a
	 * union that already held it, or in a struct beside the one that holds
	 * it (__struct_group, a new alternative), is a new alternative. */
	if (overlap && overlap_old && overlap->container == n->container &&
	    overlap->union_depth > overlap_old->union_depth)
		because(ch, REASON_OVERLAP);
	else if (n->union_depth > 0)
		because(ch, REASON_NEW_ALTERNATIVE);
	else
		because(ch, REASON_OVERLAP);
}

/* Marks the entries of v whose every enclosing named member is of
 * anonymous type on both sides; returns how many are kept. */
static size_t mark_paths(const struct flat_member *v, size_t n, const struct flat_index *mine,
			 const struct flat_index *theirs, bool *keep)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *dot = strrchr(v[i].name, '.');
		keep[i] = true;
		if (dot) {
			char parent[512];
			size_t len = (size_t)(dot - v[i].name);
			if (len >= sizeof(parent))
				len = sizeof(parent) - 1;
			memcpy(parent, v[i].name, len);
			parent[len] = 0;
			const struct flat_member *a = find_flat(mine, parent), *b = find_flat(theirs, parent);
			keep[i] = a && b && au_member_nested(a->member) && au_member_nested(b->member);
		}
		k += keep[i];
	}
	return k;
}

static size_t compact(struct flat_member *v, size_t n, const bool *keep)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			v[k++] = v[i];
	return k;
}

/* The two sides' members of one type, flattened to paths and indexed by
 * name, as compare_members pairs them. */
struct member_pairing {
	struct flat_member *fo, *fn;
	size_t no, nn;
	struct flat_index io, in;
	bool *used;                /* fn[k] is already paired (a rename) */
	struct flat_member *fz;    /* NEW's every path, 0-byte members too: made when first needed */
	size_t nz;
	struct flat_index iz;
	struct member_context mc;
};

static void pairing_init(struct comparer *c, struct member_pairing *p, const struct layout_type *o,
			 const struct layout_type *n)
{
	*p = (struct member_pairing){ 0 };
	p->no = au_layout_flatten_paths(o, &c->out->arena, &p->fo);
	p->nn = au_layout_flatten_paths(n, &c->out->arena, &p->fn);
	index_flat(&p->io, p->fo, p->no);
	index_flat(&p->in, p->fn, p->nn);
	/* u.p.x is compared only where both sides give u an anonymous type;
	 * where one side names u's type, u's own type key says it all. */
	bool *keep_o = au_xmalloc((p->no ? p->no : 1) * sizeof(bool));
	bool *keep_n = au_xmalloc((p->nn ? p->nn : 1) * sizeof(bool));
	size_t ko = mark_paths(p->fo, p->no, &p->io, &p->in, keep_o), kn = mark_paths(p->fn, p->nn, &p->in, &p->io, keep_n);
	if (ko != p->no || kn != p->nn) {
		p->no = compact(p->fo, p->no, keep_o);
		p->nn = compact(p->fn, p->nn, keep_n);
		unindex_flat(&p->io);
		unindex_flat(&p->in);
		index_flat(&p->io, p->fo, p->no);
		index_flat(&p->in, p->fn, p->nn);
	}
	free(keep_o);
	free(keep_n);
	p->mc = (struct member_context){ .old_type = o, .new_type = n, .fo = p->fo, .no = p->no, .start = c->nbuf };
	p->used = au_xmalloc((p->nn ? p->nn : 1) * sizeof(*p->used));
	memset(p->used, 0, (p->nn ? p->nn : 1) * sizeof(*p->used));
}

static void pairing_release(struct member_pairing *p)
{
	free(p->used);
	if (p->fz) {
		unindex_flat(&p->iz);
		free(p->fz);
	}
	unindex_flat(&p->io);
	unindex_flat(&p->in);
	free(p->fo);
	free(p->fn);
}

static bool same_embedded(const struct flat_member *a, const struct flat_member *b)
{
	return a->member->type->embeds && b->member->type->embeds &&
	       strcmp(a->member->type->embeds, b->member->type->embeds) == 0;
}

/* A name both sides have: where it went, or the change inside the named
 * type it embeds. */
static void compare_common_member(struct comparer *c, struct member_pairing *p, const struct flat_member *om,
				  const struct flat_member *nm)
{
	unsigned what = member_differences(c, om, nm);
	if (what) {
		const struct type_finding *inner = NULL;
		if ((what & DIFF_SIZE) && same_embedded(om, nm))
			inner = compare_named(c, om->member->type->embeds);
		struct change *ch = push(c, CHANGE_MEMBER, true, REASON_MOVED);
		ch->what = what;
		ch->old_member = *om;
		ch->new_member = *nm;
		grade_member(c, &p->mc, ch, inner);
	} else if (same_embedded(om, nm)) {
		struct type_finding *inner = compare_named(c, om->member->type->embeds);
		if (inner && inner->status == STATUS_CHANGED) {
			enum reason why = inner->severity == SEVERITY_BREAK	 ? REASON_CONTAINS_BREAK
					  : inner->severity == SEVERITY_REVIEW ? REASON_CONTAINS_REVIEW
									       : REASON_CONTAINS_SAFE;
			struct change *ch = push(c, CHANGE_EMBEDDED, true, why);
			ch->old_member = *om;
			ch->new_member = *nm;
			ch->other = om->member->type->embeds;
		}
	}
}

/* A member that NEW still has at 0 bytes (an empty struct, 1 byte in C++,
 * that became 0 bytes) is no loss: it shrank, and is judged so. */
static bool member_shrank_to_nothing(struct comparer *c, struct member_pairing *p, const struct flat_member *om,
				     const struct layout_type *n)
{
	if (!p->fz) {
		p->nz = au_layout_flatten_paths_all(n, &c->out->arena, &p->fz);
		index_flat(&p->iz, p->fz, p->nz);
	}
	const struct flat_member *shrunk = find_flat(&p->iz, om->name);
	if (!shrunk || au_member_size(shrunk->member) != 0 || au_member_size(om->member) == 0)
		return false;
	struct change *ch = push(c, CHANGE_MEMBER, true, REASON_MOVED);
	ch->what = member_differences(c, om, shrunk);
	ch->old_member = *om;
	ch->new_member = *shrunk;
	grade_member(c, &p->mc, ch, NULL);
	return true;
}

/* The new name, not yet paired, in om's slot: within the same struct or
 * union first (when sibling_only), else anywhere; nn when none. */
static size_t renamed_to(struct comparer *c, const struct member_pairing *p, const struct flat_member *om,
			 bool sibling_only)
{
	size_t k;
	for (k = 0; k < p->nn; k++)
		if (!p->used[k] && !find_flat(&p->io, p->fn[k].name) &&
		    (!sibling_only || same_parent(om, &p->fn[k])) && same_slot(c, om, 0, &p->fn[k], 1))
			break;
	return k;
}

/* A name only OLD has (p->fo[i]): an alias that went, a rename, or a loss. */
static void member_only_in_old(struct comparer *c, struct member_pairing *p, size_t i, const struct layout_type *n)
{
	const struct flat_member *om = &p->fo[i];
	if (member_shrank_to_nothing(c, p, om, n))
		return;
	bool keyword = c->c_to_cxx && au_is_cxx_keyword(leaf(om));
	bool reserved = !c->opts->strict && au_is_reserved_name(leaf(om));
	const struct flat_member *common = NULL;
	for (size_t j = 0; j < p->no && !common; j++)
		if (j != i && find_flat(&p->in, p->fo[j].name) && same_slot(c, om, 0, &p->fo[j], 0))
			common = &p->fo[j];
	/* A new name in its slot within the same struct or union is a
	 * rename, even when another alternative of an enclosing union
	 * shares the slot: export_dmabuf_fd.handle -> .addr is no alias
	 * of alloc.mem_size going away. Else, with such a name left, an
	 * alias went; else any new name in the slot is the rename. */
	size_t k = renamed_to(c, p, om, true);
	if (k == p->nn && common) {
		struct change *ch = push(c, CHANGE_ALIAS_REMOVED, false, keyword ? REASON_CXX_KEYWORD : REASON_MEMBER_REMOVED);
		ch->old_member = *om;
		ch->other = common->name;
		return;
	}
	if (k == p->nn)
		k = renamed_to(c, p, om, false);
	if (k < p->nn) {
		p->used[k] = true;
		struct change *ch = push(c, CHANGE_RENAMED, false,
					 keyword    ? REASON_CXX_KEYWORD
					 : reserved ? REASON_PAD_RENAMED
						    : REASON_RENAMED);
		ch->old_member = *om;
		ch->new_member = p->fn[k];
		return;
	}
	struct change *ch = push(c, CHANGE_MEMBER_REMOVED, true, reserved ? REASON_RESERVED_REUSE : REASON_MEMBER_REMOVED);
	ch->old_member = *om;
}

/* A name only NEW has (p->fn[k]): an alias, an addition, or an alias gone
 * wrong. */
static void member_only_in_new(struct comparer *c, struct member_pairing *p, size_t k)
{
	const struct flat_member *fn = p->fn;
	const struct flat_member *common = NULL, *overlap = NULL;
	/* An alias is a second name beside the first, in the same
	 * struct or union, or in a named member that is new itself
	 * (__struct_group's copy of the members). A name added to a
	 * member both sides have is that member's addition, whatever
	 * other alternatives of an outer union hold at its place. */
	size_t plen = parent_len(fn[k].name);
	bool new_parent = plen && !find_flat(&p->io, au_arena_printf(&c->out->arena, "%.*s", (int)plen, fn[k].name));
	for (size_t j = 0; j < p->nn && !common; j++) {
		if (j == k || !find_flat(&p->io, fn[j].name))
			continue;
		bool slot = same_slot(c, &fn[k], 1, &fn[j], 1);
		if (slot && (new_parent || same_parent(&fn[k], &fn[j])))
			common = &fn[j];
		else if (!slot && !overlap && fn[j].container == fn[k].container && fn[j].bit_offset == fn[k].bit_offset &&
			 au_member_bits(fn[j].member) && occupies(&fn[j]))
			overlap = &fn[j];
	}
	if (common) {
		struct change *ch = push(c, CHANGE_ALIAS_ADDED, false, REASON_ALIAS);
		ch->new_member = fn[k];
		ch->other = common->name;
		return;
	}
	/* A name added over an existing member with another size or
	 * type is no alias (it is named, so a caller can tell), but it
	 * moves nothing: a new union alternative, or a field carved out
	 * of reserved space. Whatever it displaces shows up as that
	 * member's own change. */
	struct change *ch = push(c, CHANGE_MEMBER_ADDED, false, REASON_MEMBER_ADDED);
	ch->new_member = fn[k];
	ch->other = overlap ? overlap->name : NULL;
	grade_added(c, &p->mc, ch, overlap, overlap ? find_flat(&p->io, overlap->name) : NULL);
}

static void compare_members(struct comparer *c, const struct layout_type *o, const struct layout_type *n)
{
	struct member_pairing p;
	pairing_init(c, &p, o, n);
	/* Common names first: where each went. Each OLD name is looked up in
	 * NEW once, for both loops. */
	const struct flat_member **nm = au_xmalloc((p.no ? p.no : 1) * sizeof(*nm));
	for (size_t i = 0; i < p.no; i++) {
		nm[i] = find_flat(&p.in, p.fo[i].name);
		if (nm[i])
			compare_common_member(c, &p, &p.fo[i], nm[i]);
	}
	for (size_t i = 0; i < p.no; i++)
		if (!nm[i])
			member_only_in_old(c, &p, i, n);
	free(nm);
	for (size_t k = 0; k < p.nn; k++)
		if (!p.used[k] && !find_flat(&p.io, p.fn[k].name))
			member_only_in_new(c, &p, k);
	pairing_release(&p);
}

/* ---------------------------------------------------------------- enums */

/* An enumerator with the enum that holds it, for pairing by name. */
struct enum_ref {
	const struct layout_enumerator *e;
	const struct layout_type *owner;
};

/* A count or maximum: a sentinel name, and a value that follows from the
 * enumerator declared before it: __FOO_MAX one past the last value,
 * FOO_MAX = __FOO_MAX - 1, FOO_LAST = the last value, FOO_MASK = (FOO_LAST
 * << 1) - 1, FOO_MAX = 1 << FOO_MAX_SHIFT after the last bit. A named constant that merely has such a name (FOO_MAX_LEN =
 * 16) does not follow from its neighbour, and stays a constant. */
static bool is_sentinel(const struct layout_type *owner, const struct layout_enumerator *e)
{
	size_t i = (size_t)(e - owner->enumerators);
	if (i == 0 || i >= owner->nenumerators)
		return false;
	uint64_t v = (uint64_t)e->value, p = (uint64_t)owner->enumerators[i - 1].value;
	/* __NFT_META_IIFTYPE: the enum's last enumerator, with two leading
	 * underscores, one past the value before it: the kernel's count. */
	if (i + 1 == owner->nenumerators && strncmp(e->name, "__", 2) == 0 && v == p + 1)
		return true;
	if (!au_is_sentinel_name(e->name))
		return false;
	return v == p + 1 || v == p || (v == p - 1 && au_is_sentinel_name(owner->enumerators[i - 1].name)) ||
	       (p && v == 2 * p) ||
	       (p && v == 2 * p - 1);
}

static void enum_value_changed(struct comparer *c, const struct enum_ref *o, const struct enum_ref *n)
{
	bool sentinel = !c->opts->strict && is_sentinel(o->owner, o->e) && is_sentinel(n->owner, n->e);
	struct change *ch = push(c, CHANGE_ENUMERATOR_VALUE, true,
				 sentinel ? REASON_SENTINEL : REASON_ENUMERATOR_VALUE);
	ch->old_enum = o->e;
	ch->new_enum = n->e;
}

static void enum_removed(struct comparer *c, const struct enum_ref *o)
{
	const char *now = moved_to_constant(c, o->e);
	if (now) {
		/* Renamed, the old name kept as a #define of the same value. */
		struct change *ch = push(c, CHANGE_ENUMERATOR_REMOVED, false, REASON_CONSTANT_MOVED);
		ch->old_enum = o->e;
		ch->other = now;
		return;
	}
	bool sentinel = !c->opts->strict && is_sentinel(o->owner, o->e);
	struct change *ch = push(c, CHANGE_ENUMERATOR_REMOVED, true,
				 sentinel ? REASON_SENTINEL_REMOVED : REASON_ENUMERATOR_REMOVED);
	ch->old_enum = o->e;
}

static void enum_added(struct comparer *c, const struct layout_enumerator *e)
{
	struct change *ch = push(c, CHANGE_ENUMERATOR_ADDED, false, REASON_ENUMERATOR_ADDED);
	ch->new_enum = e;
}

/* An enumerator of t by name: a scan for small enums, else the map. */
static const struct layout_enumerator *find_enumerator(const struct layout_type *t, const struct strmap *map,
						       const char *name)
{
	if (t->nenumerators > FLAT_SCAN_MAX)
		return au_strmap_get(map, name);
	for (size_t i = 0; i < t->nenumerators; i++)
		if (strcmp(t->enumerators[i].name, name) == 0)
			return &t->enumerators[i];
	return NULL;
}

static void compare_enumerators(struct comparer *c, const struct layout_type *o, const struct layout_type *n)
{
	struct strmap io, in;
	au_strmap_init(&io);
	au_strmap_init(&in);
	for (size_t i = 0; o->nenumerators > FLAT_SCAN_MAX && i < o->nenumerators; i++)
		au_strmap_put(&io, o->enumerators[i].name, &o->enumerators[i]);
	for (size_t i = 0; n->nenumerators > FLAT_SCAN_MAX && i < n->nenumerators; i++)
		au_strmap_put(&in, n->enumerators[i].name, &n->enumerators[i]);
	for (size_t i = 0; i < o->nenumerators; i++) {
		const struct layout_enumerator *e = &o->enumerators[i], *f = find_enumerator(n, &in, e->name);
		struct enum_ref ro = { e, o }, rn = { f, n };
		if (!f)
			enum_removed(c, &ro);
		else if (f->value != e->value)
			enum_value_changed(c, &ro, &rn);
	}
	for (size_t i = 0; i < n->nenumerators; i++)
		if (!find_enumerator(o, &io, n->enumerators[i].name))
			enum_added(c, &n->enumerators[i]);
	au_strmap_deinit(&io);
	au_strmap_deinit(&in);
}

/* ---------------------------------------------------------------- findings */

static enum finding_status status_of(const struct change *v, size_t n)
{
	enum finding_status s = STATUS_UNCHANGED;
	for (size_t i = 0; i < n; i++) {
		enum finding_status t = v[i].layout ? STATUS_CHANGED
				      : v[i].kind == CHANGE_RENAMED ? STATUS_RENAMED
				      : v[i].kind == CHANGE_MEMBER_ADDED || v[i].kind == CHANGE_ENUMERATOR_ADDED
					      ? STATUS_EXTENDED
					      : STATUS_ALIASED;
		if (t > s)
			s = t;
	}
	return s;
}

static struct type_finding *new_finding(struct comparer *c, const char *name, const struct layout_type *o,
					const struct layout_type *n)
{
	struct type_finding *f = au_arena_alloc(&c->out->arena, sizeof(*f));
	f->name = name;
	f->old_type = o;
	f->new_type = n;
	return f;
}

/* A removed __DECLARE_FLEX_ARRAY filler (au_flex_filler_of) beside its
 * flexible array X, which changed too (it moved into the filler's place):
 * flex-filler, besides member-removed (the name did go). */
static void grade_flex_fillers(struct change *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct flat_member *o = &v[i].old_member;
		const char *flex = v[i].kind == CHANGE_MEMBER_REMOVED
					   ? au_flex_filler_of(o->name, o->member->type->size, o->member->type->key)
					   : NULL;
		for (size_t j = 0; flex && j < n; j++)
			if (v[j].kind == CHANGE_MEMBER && strcmp(v[j].old_member.name, flex) == 0 &&
			    (v[j].old_member.member->flexible || v[j].new_member.member->flexible)) {
				v[i].reasons |= (reason_set)1 << REASON_FLEX_FILLER;
				break;
			}
	}
}

/* Moves the changes collected since start into f, and grades it. */
static void finish(struct comparer *c, struct type_finding *f, size_t start)
{
	f->nchanges = c->nbuf - start;
	f->changes = f->nchanges ? au_arena_memdup(&c->out->arena, c->buf + start, f->nchanges * sizeof(*f->changes))
				 : NULL;
	c->nbuf = start;
	f->status = status_of(f->changes, f->nchanges);
	grade_flex_fillers(f->changes, f->nchanges);
	for (size_t i = 0; i < f->nchanges; i++) {
		struct change *ch = &f->changes[i];
		ch->severity = au_reasons_severity(ch->reasons);
		f->reasons |= ch->reasons;
		if (ch->severity > f->severity)
			f->severity = ch->severity;
	}
}

/* A size that grew: growth at the tail when something this type gained
 * lies past its old end; anything else moved the end. */
static void grade_size(struct comparer *c, struct change *size, const struct change *v, size_t n)
{
	if (c->opts->strict || size->new_value < size->old_value)
		return;
	bool tail = false;
	for (size_t i = 0; i < n; i++) {
		if (&v[i] == size)
			continue;
		if (au_reasons_severity(v[i].reasons) == SEVERITY_BREAK)
			return; /* something moved: not growth at the tail */
		if (v[i].reasons & ((reason_set)1 << REASON_TAIL_GROWTH))
			tail = true;
	}
	if (tail)
		because(size, REASON_TAIL_GROWTH);
}

/* The definitions of one name on each side (the model's type and its
 * odr_next chain) are the same set of layouts, whatever their order. */
static bool same_definitions(struct comparer *c, const struct layout_type *o, const struct layout_type *n)
{
	size_t no = 0, nn = 0;
	for (const struct layout_type *d = o; d; d = d->odr_next)
		no++;
	for (const struct layout_type *d = n; d; d = d->odr_next)
		nn++;
	if (no != nn)
		return false;
	const char **ko = au_xmalloc(no * sizeof(*ko));
	size_t k = 0;
	for (const struct layout_type *d = o; d; d = d->odr_next)
		ko[k++] = au_typekey_definition(&c->out->arena, d);
	bool same = true;
	for (const struct layout_type *d = n; d && same; d = d->odr_next) {
		const char *kn = au_typekey_definition(&c->out->arena, d);
		same = false;
		for (size_t i = 0; i < no && !same; i++)
			same = ko[i] && same_key(c, ko[i], 0, kn, 1);
		for (size_t i = 0; i < no && same; i++)
			if (ko[i] && same_key(c, ko[i], 0, kn, 1)) {
				ko[i] = NULL;   /* each layout of OLD matches one of NEW */
				break;
			}
	}
	free(ko);
	return same;
}

/* The mark in done of a type being compared. */
static char comparing;

/* Compares the type called name on both sides, once; the result is kept so
 * that a struct embedding it can ask how it changed. */
static struct type_finding *compare_named(struct comparer *c, const char *name)
{
	return compare_pair(c, name, NULL, NULL);
}

/* compare_named, when the types of that name are known already (o in OLD,
 * n in NEW), or NULL. */
static struct type_finding *compare_pair(struct comparer *c, const char *name, const struct layout_type *o,
					 const struct layout_type *n)
{
	if (!o)
		o = au_layout_model_find(c->old_model, name);
	if (!o)
		return NULL; /* pairing decides added/removed */
	/* A finding already, or a comparison under way. */
	struct type_finding *seen = au_intmap_get(&c->done, (uintptr_t)o);
	if (seen)
		return seen == (void *)&comparing ? NULL : seen;
	if (!n)
		n = au_layout_model_find(c->new_model, name);
	if (!n)
		return NULL;
	au_intmap_put(&c->done, (uintptr_t)o, &comparing);
	struct type_finding *f;

	/* This type's changes go after whatever the caller has collected. */
	size_t start = c->nbuf;
	if (o->kind == LAYOUT_CONSTANT || n->kind == LAYOUT_CONSTANT) {
		/* Only constants are named "#define NAME"; the width of a
		 * constant's type (1 against 1UL) is no change of its value. */
		compare_constant(c, o, n);
		f = new_finding(c, name, o, n);
		finish(c, f, start);
		au_intmap_put(&c->done, (uintptr_t)o, f);
		return f;
	}
	if (o->kind != n->kind) {
		struct change *ch = push(c, CHANGE_KIND, true, REASON_KIND_CHANGED);
		ch->old_value = o->kind;
		ch->new_value = n->kind;
	}
	size_t size_at = SIZE_MAX;
	if (o->size != n->size) {
		size_at = c->nbuf;
		struct change *ch = push(c, CHANGE_SIZE, true, REASON_SIZE_CHANGED);
		ch->old_value = o->size;
		ch->new_value = n->size;
	}
	if (o->align && n->align && o->align != n->align) {
		struct change *ch = push(c, CHANGE_ALIGNMENT, true, REASON_ALIGNMENT_CHANGED);
		ch->old_value = o->align;
		ch->new_value = n->align;
	}
	if (o->kind == LAYOUT_ENUM && n->kind == LAYOUT_ENUM)
		compare_enumerators(c, o, n);
	else if (o->kind != LAYOUT_ENUM && n->kind != LAYOUT_ENUM)
		compare_members(c, o, n);
	if (size_at != SIZE_MAX)
		grade_size(c, &c->buf[size_at], c->buf + start, c->nbuf - start);
	if (n->odr_next && !same_definitions(c, o, n)) {
		/* Two layouts under one name in NEW, and not the ones OLD had:
		 * whichever a program got, the other unit disagrees (the
		 * definitions were read in full, and the first in layout order
		 * compared above). The same set on both sides (a library whose
		 * units always disagreed, linked in another order) is no change. */
		struct change *ch = push(c, CHANGE_ODR_CONFLICT, true, REASON_ODR_CONFLICT);
		for (const struct layout_type *d = o; d; d = d->odr_next)
			ch->old_value++;
		for (const struct layout_type *d = n; d; d = d->odr_next)
			ch->new_value++;
	}

	f = new_finding(c, name, o, n);
	finish(c, f, start);
	au_intmap_put(&c->done, (uintptr_t)o, f);
	return f;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct type_finding *x = *(const struct type_finding *const *)a;
	const struct type_finding *y = *(const struct type_finding *const *)b;
	return strcmp(x->name, y->name);
}

static void record(struct comparer *c, struct type_finding *f, size_t *cap)
{
	struct comparison *out = c->out;
	out->counts[f->status]++;
	if (f->status == STATUS_UNCHANGED)
		return;
	out->severities[f->severity]++;
	for (int i = 0; i < REASON_COUNT; i++)
		if (f->reasons >> i & 1)
			out->reasons[i]++;
	if (f->severity >= out->fail_on)
		out->incompatible = true;
	if (out->nfindings == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		out->findings = au_xrealloc(out->findings, *cap * sizeof(*out->findings));
	}
	out->findings[out->nfindings++] = f;
}

static void record_whole(struct comparer *c, const char *name, const struct layout_type *o,
			 const struct layout_type *n, size_t *cap)
{
	struct type_finding *f = new_finding(c, name, o, n);
	f->status = o ? STATUS_REMOVED : STATUS_ADDED;
	bool constant = (o ? o : n)->kind == LAYOUT_CONSTANT;
	f->reasons = (reason_set)1 << (o ? (constant ? REASON_CONSTANT_REMOVED : REASON_REMOVED)
					: (constant ? REASON_CONSTANT_ADDED : REASON_ADDED));
	f->severity = au_reasons_severity(f->reasons);
	record(c, f, cap);
}

/* ---------------------------------------------------------------- anonymous enums */

/* Every enumerator of a side by name, with its enum: anonymous enums' names
 * are only their first enumerators, so their constants pair one by one,
 * whichever enum holds them now. The anonymous enums' constants are indexed
 * at once; the named enums' only when a constant is missing from the first
 * (it may have moved into a named enum), which comparing one revision in
 * two languages never needs. */
struct enum_index {
	const struct layout_model *model;
	struct arena *arena;
	struct strmap anonymous, named;
	bool named_built;
};

static void index_into(struct enum_index *x, struct strmap *map, bool anonymous)
{
	/* The enums first, to size the map (one that grows zeroes and rehashes
	 * each time); the second pass reads only them, not every type again. */
	const struct layout_type **enums = au_xmalloc((x->model->ntypes + 1) * sizeof(*enums));
	size_t nenums = 0, n = 0;
	for (size_t i = 0; i < x->model->ntypes; i++) {
		const struct layout_type *t = x->model->types[i];
		if (t->kind == LAYOUT_ENUM && t->anonymous == anonymous) {
			enums[nenums++] = t;
			n += t->nenumerators;
		}
	}
	au_strmap_reserve(map, n);
	for (size_t i = 0; i < nenums; i++) {
		const struct layout_type *t = enums[i];
		for (size_t k = 0; k < t->nenumerators; k++) {
			struct strmap_slot *sl = au_strmap_slot(map, t->enumerators[k].name);   /* one probe */
			if (sl->value)
				continue;
			struct enum_ref *r = au_arena_alloc(x->arena, sizeof(*r));
			r->e = &t->enumerators[k];
			r->owner = t;
			sl->value = r;
		}
	}
	free(enums);
}

static void index_enumerators(const struct layout_model *m, struct arena *a, struct enum_index *ret)
{
	ret->model = m;
	ret->arena = a;
	ret->named_built = false;
	au_strmap_init(&ret->anonymous);
	au_strmap_init(&ret->named);
	index_into(ret, &ret->anonymous, true);
}

static const struct enum_ref *find_enum_ref(struct enum_index *x, const char *name)
{
	const struct enum_ref *r = au_strmap_get(&x->anonymous, name);
	if (r)
		return r;
	if (!x->named_built) {
		index_into(x, &x->named, false);
		x->named_built = true;
	}
	return au_strmap_get(&x->named, name);
}

static void unindex_enumerators(struct enum_index *x)
{
	au_strmap_deinit(&x->anonymous);
	au_strmap_deinit(&x->named);
}

/* The OLD anonymous enum that a NEW one continues: the one of its name (the
 * same first enumerator), else the holder of its first enumerator that OLD
 * has, when that holder is anonymous too. Its name first: units of one
 * object repeat constants in other enums (a kernel's Opt_err). */
static const struct layout_type *continued(const struct layout_type *n, struct enum_index *old_refs)
{
	const struct layout_type *same = au_layout_model_find(old_refs->model, n->name);
	if (same && same->kind == LAYOUT_ENUM && same->anonymous)
		return same;
	for (size_t k = 0; k < n->nenumerators; k++) {
		const struct enum_ref *r = find_enum_ref(old_refs, n->enumerators[k].name);
		if (r)
			return r->owner->anonymous ? r->owner : NULL;
	}
	return NULL;
}

/* NEW anonymous enums continuing one OLD anonymous enum, in NEW's order. */
struct sequel {
	const struct layout_type *type;
	struct sequel *next;
};

/* The enumerator called name in the NEW enums continuing an OLD one, or
 * NULL: the constant pairs there before anywhere else in NEW. */
static const struct enum_ref *in_sequels(const struct sequel *seq, const char *name, struct enum_ref *ret)
{
	for (const struct sequel *q = seq; q; q = q->next)
		for (size_t k = 0; k < q->type->nenumerators; k++)
			if (strcmp(q->type->enumerators[k].name, name) == 0) {
				*ret = (struct enum_ref){ &q->type->enumerators[k], q->type };
				return ret;
			}
	return NULL;
}

static void compare_anonymous_enums(struct comparer *c, size_t *cap)
{
	const struct layout_model *om = c->old_model, *nm = c->new_model;
	struct enum_index old_refs, new_refs;
	struct strmap sequels;
	index_enumerators(om, &c->out->arena, &old_refs);
	index_enumerators(nm, &c->out->arena, &new_refs);
	au_strmap_init(&sequels); /* OLD anonymous enum name -> struct sequel list */
	for (size_t i = 0; i < nm->ntypes; i++) {
		const struct layout_type *n = nm->types[i];
		if (!n->anonymous)
			continue;
		const struct layout_type *o = continued(n, &old_refs);
		if (!o) {
			if (!c->opts->common_only) {
				c->out->new_types++;
				record_whole(c, n->name, NULL, n, cap);
			}
			continue;
		}
		struct sequel *s = au_arena_alloc(&c->out->arena, sizeof(*s));
		s->type = n;
		struct sequel *head = au_strmap_get(&sequels, o->name);
		if (!head) {
			au_strmap_put(&sequels, o->name, s);
		} else {
			while (head->next)
				head = head->next;
			head->next = s;
		}
	}
	for (size_t i = 0; i < om->ntypes; i++) {
		const struct layout_type *o = om->types[i];
		if (!o->anonymous)
			continue;
		const struct sequel *seq = au_strmap_get(&sequels, o->name);
		bool any = seq != NULL;
		for (size_t k = 0; k < o->nenumerators && !any; k++)
			any = find_enum_ref(&new_refs, o->enumerators[k].name) != NULL;
		if (!any) {
			if (!c->opts->common_only) {
				c->out->old_types++;
				record_whole(c, o->name, o, NULL, cap);
			}
			continue;
		}
		c->out->old_types++;
		if (seq)
			c->out->new_types++;
		size_t start = c->nbuf;
		for (size_t k = 0; k < o->nenumerators; k++) {
			struct enum_ref ro = { &o->enumerators[k], o };
			struct enum_ref own;
			const struct enum_ref *rn = in_sequels(seq, ro.e->name, &own);
			if (!rn)
				rn = find_enum_ref(&new_refs, ro.e->name);
			if (!rn)
				enum_removed(c, &ro);
			else if (rn->e->value != ro.e->value)
				enum_value_changed(c, &ro, rn);
		}
		/* What the enums continuing this one added. */
		for (const struct sequel *q = seq; q; q = q->next)
			for (size_t k = 0; k < q->type->nenumerators; k++)
				if (!find_enum_ref(&old_refs, q->type->enumerators[k].name))
					enum_added(c, &q->type->enumerators[k]);
		struct type_finding *f = new_finding(c, o->name, o, seq ? seq->type : NULL);
		finish(c, f, start);
		record(c, f, cap);
	}
	au_strmap_deinit(&sequels);
	unindex_enumerators(&old_refs);
	unindex_enumerators(&new_refs);
}

/* ---------------------------------------------------------------- constants */

/* A side's constants in the order their header defines them: the constant
 * before each one in its file plays the part of the enumerator before it in
 * the sentinel rule (#define FOO_A 1, #define FOO_B 2, #define FOO_MAX 2). */
struct constant_order {
	struct strmap prev;   /* name -> the constant before it in its file */
	struct strmap last;   /* name -> itself, when it is its file's last */
};

static int cmp_place(const void *a, const void *b)
{
	const struct layout_type *x = *(const struct layout_type *const *)a;
	const struct layout_type *y = *(const struct layout_type *const *)b;
	int r = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (r)
		return r;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->name, y->name);
}

static struct constant_order *constant_order(struct comparer *c, int side)
{
	if (c->order[side])
		return c->order[side];
	const struct layout_model *m = side ? c->new_model : c->old_model;
	struct constant_order *o = au_arena_alloc(&c->out->arena, sizeof(*o));
	au_strmap_init(&o->prev);
	au_strmap_init(&o->last);
	size_t n = 0;
	const struct layout_type **v = au_xmalloc((m->ntypes + 1) * sizeof(*v));
	for (size_t i = 0; i < m->ntypes; i++)
		if (m->types[i]->kind == LAYOUT_CONSTANT)
			v[n++] = m->types[i];
	qsort(v, n, sizeof(*v), cmp_place);
	for (size_t i = 0; i < n; i++) {
		bool same_file_next = i + 1 < n && v[i + 1]->file && v[i]->file && strcmp(v[i + 1]->file, v[i]->file) == 0;
		bool same_file_prev = i > 0 && v[i - 1]->file && v[i]->file && strcmp(v[i - 1]->file, v[i]->file) == 0;
		if (same_file_prev)
			au_strmap_put(&o->prev, v[i]->name, (void *)v[i - 1]);
		if (!same_file_next)
			au_strmap_put(&o->last, v[i]->name, (void *)v[i]);
	}
	free(v);
	c->order[side] = o;
	return o;
}

/* RWF_SUPPORTED and RWF_APPEND: one family. */
static bool same_first_word(const char *a, const char *b)
{
	while (*a == '_' && *b == '_')
		a++, b++;
	const char *e = strchr(a, '_');
	size_t n = e ? (size_t)(e - a) : strlen(a);
	return n && strncmp(a, b, n) == 0 && (b[n] == '_' || b[n] == 0);
}

static struct enum_index *side_enums(struct comparer *c, int side);

/* NAME is __NAME - 1 or __NAME, the sentinel enumerator of its enum
 * (IFLA_MAX (__IFLA_MAX - 1), MAX_BPF_ATTACH_TYPE __MAX_BPF_ATTACH_TYPE). */
static bool follows_enum_sentinel(struct comparer *c, int side, const struct layout_type *t)
{
	const char *name = au_constant_macro(t);
	char buf[512];
	while (*name == '_')
		name++;
	if (!au_is_sentinel_name(name) || snprintf(buf, sizeof(buf), "__%s", name) >= (int)sizeof(buf))
		return false;
	const struct enum_ref *r = find_enum_ref(side_enums(c, side), buf);
	uint64_t v = (uint64_t)t->constant->value, w = r ? (uint64_t)r->e->value : 0;
	return r && (v == w || v + 1 == w);
}

static bool has_word(const char *name, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = strstr(name, word); p; p = strstr(p + 1, word))
		if ((p == name || p[-1] == '_') && (p[n] == 0 || p[n] == '_'))
			return true;
	return false;
}

/* On one side, a count or maximum that follows from its neighbours: the
 * enum sentinel rule (is_sentinel) with the constant defined before it in
 * its header as the enumerator before it (#define FOO_B 2, #define
 * FOO_MAX 2), also for counts named FOO_NR and N<FAMILY> (NSIGSEGV after
 * SEGV_CPERR); a constant that follows an enum's sentinel; the mask of all
 * the flags of a family, each one bit above the last (FOO_A 1, FOO_B 2,
 * FOO_C 4, FOO_ALL 7). A syscall number is none of these: __NR_b =
 * __NR_a + 1 is the pattern of every syscall table. */
static bool constant_count(struct comparer *c, int side, const struct layout_type *t)
{
	const char *name = au_constant_macro(t);
	if (t->constant->is_string || au_is_syscall_name(name))
		return false;
	if (follows_enum_sentinel(c, side, t))
		return true;
	struct constant_order *o = constant_order(c, side);
	const struct layout_type *p = au_strmap_get(&o->prev, t->name);
	if (!p || p->constant->is_string)
		return false;
	const char *pname = au_constant_macro(p);
	uint64_t v = (uint64_t)t->constant->value, pv = (uint64_t)p->constant->value;
	const struct layout_type *pp = au_strmap_get(&o->prev, p->name);
	if (pv >= 4 && (pv & (pv - 1)) == 0 && v == 2 * pv - 1 && same_first_word(name, pname) && pp &&
	    !pp->constant->is_string && (uint64_t)pp->constant->value == pv / 2 &&
	    same_first_word(name, au_constant_macro(pp)))
		return true;
	if (au_strmap_get(&o->last, t->name) && strncmp(name, "__", 2) == 0 && v == pv + 1)
		return true;
	/* N<FAMILY>: NSIGSEGV after SEGV_CPERR, the count of its family. */
	const char *us = strchr(pname, '_');
	size_t fam = us ? (size_t)(us - pname) : 0, len = strlen(name);
	if (name[0] == 'N' && fam && len > fam && strncmp(name + len - fam, pname, fam) == 0 && (v == pv || v == pv + 1))
		return true;
	bool counted = au_is_sentinel_name(name) || has_word(name, "NR");
	return counted && (v == pv + 1 || v == pv || (v == pv - 1 && au_is_sentinel_name(pname)) ||
			   (pv && v == 2 * pv) || (pv && v == 2 * pv - 1));
}

/* A mask that only gained bits (FOO_VALID_FLAGS, UFFD_API_FEATURES), by
 * its name: new flags the kernel accepts, none it stopped accepting. */
static bool mask_grew(const char *name, uint64_t a, uint64_t b)
{
	static const char *const words[] = { "MASK", "FLAGS", "FEATURES", "VALID", "SUPPORTED", "ALL", "IOCTLS", NULL };
	bool maskish = false;
	for (const char *const *w = words; *w && !maskish; w++)
		maskish = has_word(name, *w);
	return maskish && b != a && (a & ~b) == 0 && __builtin_popcountll(a) >= 2;
}

/* A range's end that moved while its start stayed (AMDKFD_COMMAND_END
 * past a new ioctl, with AMDKFD_COMMAND_START kept). */
static bool range_end_grew(struct comparer *c, const struct layout_type *o, const struct layout_type *n)
{
	const char *name = au_constant_macro(n), *end = strstr(name, "END");
	char buf[512];
	if (!end || !has_word(name, "END") || (uint64_t)n->constant->value <= (uint64_t)o->constant->value ||
	    snprintf(buf, sizeof(buf), AU_CONSTANT_PREFIX "%.*sSTART%s", (int)(end - name), name, end + 3) >=
		    (int)sizeof(buf))
		return false;
	const struct layout_type *so = au_layout_model_find(c->old_model, buf);
	const struct layout_type *sn = au_layout_model_find(c->new_model, buf);
	return so && sn && so->kind == LAYOUT_CONSTANT && sn->kind == LAYOUT_CONSTANT &&
	       au_constant_equal(so->constant, sn->constant);
}

/* A version number by its name: a word VERSION (or ending in it,
 * SUBVERSION), or the MAJOR, MINOR or PATCH of an ABI or API. */
static bool version_name(const char *name)
{
	if (au_is_version_name(name))
		return true;
	for (const char *p = name; (p = strstr(p, "VERSION")); p++)
		if (p[7] == 0 || p[7] == '_')
			return true;
	return (has_word(name, "ABI") || has_word(name, "API")) &&
	       (has_word(name, "MAJOR") || has_word(name, "MINOR") || has_word(name, "PATCH"));
}

static void compare_constant(struct comparer *c, const struct layout_type *o, const struct layout_type *n)
{
	if (o->kind != n->kind) {
		struct change *ch = push(c, CHANGE_KIND, true, REASON_KIND_CHANGED);
		ch->old_value = o->kind;
		ch->new_value = n->kind;
		return;
	}
	if (au_constant_equal(o->constant, n->constant))
		return;
	enum reason why = REASON_CONSTANT_VALUE;
	const struct layout_constant *a = o->constant, *b = n->constant;
	if (!c->opts->strict && !a->is_string && !b->is_string && !au_is_syscall_name(au_constant_macro(o))) {
		const char *name = au_constant_macro(o);
		uint64_t ua = (uint64_t)a->value, ub = (uint64_t)b->value;
		bool grew = a->is_unsigned || b->is_unsigned ? ub > ua : b->value > a->value;
		if (version_name(name) && grew)
			why = REASON_VERSION_INCREASED;
		else if ((constant_count(c, 0, o) && constant_count(c, 1, n)) || mask_grew(name, ua, ub) ||
			 range_end_grew(c, o, n))
			why = REASON_SENTINEL;
		else if (has_word(name, "RESERVED") && (ub & ~ua) == 0)
			why = REASON_RESERVED_REUSE;   /* reserved bits put to use */
	}
	struct change *ch = push(c, CHANGE_CONSTANT_VALUE, true, why);
	ch->old_constant = a;
	ch->new_constant = b;
}

static struct enum_index *side_enums(struct comparer *c, int side)
{
	if (!c->enums[side]) {
		c->enums[side] = au_arena_alloc(&c->out->arena, sizeof(*c->enums[side]));
		index_enumerators(side ? c->new_model : c->old_model, &c->out->arena, c->enums[side]);
	}
	return c->enums[side];
}

static bool same_integer(const struct layout_constant *k, const struct layout_enumerator *e)
{
	return !k->is_string && k->value == e->value;
}

/* Where an OLD enumerator's name lives in NEW as a #define of the same
 * value: "#define NAME", else NULL. */
static const char *moved_to_constant(struct comparer *c, const struct layout_enumerator *e)
{
	char buf[512];
	if (snprintf(buf, sizeof(buf), AU_CONSTANT_PREFIX "%s", e->name) >= (int)sizeof(buf))
		return NULL;
	const struct layout_type *t = au_layout_model_find(c->new_model, buf);
	return t && t->kind == LAYOUT_CONSTANT && same_integer(t->constant, e) ? t->name : NULL;
}

/* A constant only OLD has: moved into an enum of NEW with the same value,
 * or gone. */
static void record_constant_gone(struct comparer *c, const struct layout_type *o, size_t *cap)
{
	const struct enum_ref *r = find_enum_ref(side_enums(c, 1), au_constant_macro(o));
	if (r && same_integer(o->constant, r->e)) {
		size_t start = c->nbuf;
		struct change *ch = push(c, CHANGE_CONSTANT_MOVED, false, REASON_CONSTANT_MOVED);
		ch->old_constant = o->constant;
		ch->new_enum = r->e;
		ch->other = r->owner->name;
		struct type_finding *f = new_finding(c, o->name, o, NULL);
		finish(c, f, start);
		record(c, f, cap);
		return;
	}
	struct type_finding *f = new_finding(c, o->name, o, NULL);
	f->status = STATUS_REMOVED;
	bool sentinel = !c->opts->strict && !o->constant->is_string && follows_enum_sentinel(c, 0, o);
	f->reasons = (reason_set)1 << (sentinel ? REASON_SENTINEL_REMOVED : REASON_CONSTANT_REMOVED);
	f->severity = au_reasons_severity(f->reasons);
	record(c, f, cap);
}

static void release_constant_indexes(struct comparer *c)
{
	for (int side = 0; side < 2; side++) {
		if (c->order[side]) {
			au_strmap_deinit(&c->order[side]->prev);
			au_strmap_deinit(&c->order[side]->last);
		}
		if (c->enums[side])
			unindex_enumerators(c->enums[side]);
	}
}

static bool has_anonymous(const struct layout_model *m)
{
	for (size_t i = 0; i < m->ntypes; i++)
		if (m->types[i]->anonymous)
			return true;
	return false;
}

/* When both models are sorted by name with each name once, one walk of the
 * two lists pairs them, in place of a look-up of every name in the other
 * model's map: *in_new (OLD's count) gets NEW's type of each OLD name or
 * NULL, *in_old (NEW's count) whether each NEW name is in OLD. False (and
 * nothing allocated) when either model is not sorted. */
static bool pair_sorted(const struct layout_model *om, const struct layout_model *nm,
			const struct layout_type ***in_new, bool **in_old)
{
	if (!om->sorted || !nm->sorted)
		return false;
	*in_new = au_xcalloc(om->ntypes + 1, sizeof(**in_new));
	*in_old = au_xcalloc(nm->ntypes + 1, sizeof(**in_old));
	for (size_t i = 0, j = 0; i < om->ntypes && j < nm->ntypes;) {
		int d = strcmp(om->types[i]->name, nm->types[j]->name);
		if (d == 0) {
			(*in_new)[i] = nm->types[j];
			(*in_old)[j] = true;
		}
		i += d <= 0;
		j += d >= 0;
	}
	return true;
}

void au_compare_models(const struct layout_model *old_model, const struct layout_model *new_model,
		    const struct compare_options *opts, struct comparison *ret)
{
	memset(ret, 0, sizeof(*ret));
	au_arena_init(&ret->arena);
	ret->strict = opts->strict;
	ret->common_only = opts->common_only;
	ret->fail_on = opts->fail_on ? opts->fail_on : SEVERITY_BREAK;
	struct comparer c = { .old_model = old_model, .new_model = new_model, .opts = opts, .out = ret };
	c.c_to_cxx = old_model->lang == LANG_C && new_model->lang == LANG_CXX;
	au_intmap_init(&c.done);
	au_intmap_reserve(&c.done, old_model->ntypes);
	au_strmap_init(&c.shapes[0]);
	au_strmap_init(&c.shapes[1]);
	size_t cap = 0;
	const struct layout_type **in_new = NULL;
	bool *in_old = NULL;
	bool paired = pair_sorted(old_model, new_model, &in_new, &in_old);
	for (size_t i = 0; i < old_model->ntypes; i++) {
		const struct layout_type *o = old_model->types[i];
		if (o->anonymous)
			continue;
		const struct layout_type *n = paired ? in_new[i] : au_layout_model_find(new_model, o->name);
		if (n) {
			ret->old_types++;
			record(&c, compare_pair(&c, o->name, paired ? o : NULL, n), &cap);
		} else if (!opts->common_only) {
			ret->old_types++;
			if (o->kind == LAYOUT_CONSTANT)
				record_constant_gone(&c, o, &cap);
			else
				record_whole(&c, o->name, o, NULL, &cap);
		}
	}
	for (size_t i = 0; i < new_model->ntypes; i++) {
		const struct layout_type *n = new_model->types[i];
		if (n->anonymous)
			continue;
		if (paired ? in_old[i] : au_layout_model_find(old_model, n->name) != NULL) {
			ret->new_types++;
		} else if (!opts->common_only) {
			ret->new_types++;
			record_whole(&c, n->name, NULL, n, &cap);
		}
	}
	free(in_new);
	free(in_old);
	if (has_anonymous(old_model) || has_anonymous(new_model))
		compare_anonymous_enums(&c, &cap);
	if (ret->nfindings)
		qsort(ret->findings, ret->nfindings, sizeof(*ret->findings), cmp_finding);
	free(c.buf);
	release_constant_indexes(&c);
	au_intmap_deinit(&c.done);
	au_strmap_deinit(&c.shapes[0]);
	au_strmap_deinit(&c.shapes[1]);
}

void au_comparison_deinit(struct comparison *c)
{
	free(c->findings);
	au_arena_deinit(&c->arena);
}
