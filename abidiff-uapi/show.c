/* The per-type view: rows of one layout, and two layouts paired. */
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "strmap.h"

struct row_buf {
	struct show_row *v;
	size_t n, cap;
	struct arena *a;
};

static struct show_row *push_row(struct row_buf *b, enum show_row_kind kind, unsigned depth, const char *key,
				 uint64_t bit_offset, uint64_t bit_size)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		b->v = au_xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	struct show_row *r = &b->v[b->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->depth = depth;
	r->key = key;
	r->bit_offset = bit_offset;
	r->bit_size = bit_size;
	return r;
}

/* The bits a member covers: an anonymous member its layout's size. */
static uint64_t member_bits(const struct layout_member *m)
{
	return au_member_anon(m) ? 8 * au_member_anon(m)->size : au_member_bits(m);
}

/* The key of a member in its parent (kp: the parent's key prefix). An
 * anonymous member has no name: its place among its parent's anonymous
 * members, and its kind, pair it (C's union at one revision is C++'s
 * union at the other; a struct that became a union does not pair). */
static const char *member_key(struct arena *a, const char *kp, const char *path, const struct layout_member *m,
			      size_t anon_index)
{
	if (au_member_anon(m))
		return au_arena_printf(a, "%s{%s#%zu}", kp, au_layout_kind_name(au_member_anon(m)->kind), anon_index);
	if (path)
		return path;
	return au_arena_printf(a, "%s(unnamed bitfield at bit %llu)", kp, (unsigned long long)m->bit_offset);
}

/* The rows of t's members at base bits, depth deep: prefix is the path so
 * far ("io." inside io), kp the key prefix of the enclosing anonymous
 * members. Holes are found per struct level, as pahole shows them. */
static void walk(struct row_buf *b, const struct layout_type *t, uint64_t base, unsigned depth, const char *prefix,
		 const char *kp)
{
	if (depth > 4096)   /* beyond the readers' nesting limit */
		return;
	struct layout_gap *gaps;
	uint64_t padding;
	size_t ngaps = au_layout_gaps(t, base, &gaps, &padding), g = 0, anon = 0;
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct layout_member *m = &t->members[i];
		uint64_t off = base + m->bit_offset;
		const char *path = m->name ? (*prefix ? au_arena_concat3(b->a, prefix, m->name, "") : m->name) : NULL;
		const char *key = member_key(b->a, kp, path, m, au_member_anon(m) ? anon++ : 0);
		for (; g < ngaps && gaps[g].bit_offset < off; g++)
			push_row(b, SHOW_HOLE, depth, au_arena_concat3(b->a, "(hole before ", key, ")"), gaps[g].bit_offset,
				 gaps[g].bit_size);
		if (au_member_anon(m)) {
			struct show_row *r = push_row(b, SHOW_OPEN, depth, key, off, member_bits(m));
			r->member = m;
			r->aggregate = au_member_anon(m);
			walk(b, au_member_anon(m), off, depth + 1, prefix, au_arena_concat3(b->a, key, "/", ""));
			r = push_row(b, SHOW_CLOSE, depth, au_arena_concat3(b->a, key, "/end", ""), off, member_bits(m));
			r->aggregate = au_member_anon(m);
			continue;
		}
		struct show_row *r = push_row(b, SHOW_MEMBER, depth, key, off, member_bits(m));
		r->path = path;
		r->member = m;
		/* union { ... } u: its members follow it, under u. */
		if (au_member_nested(m)) {
			const char *inner = au_arena_concat3(b->a, path, ".", "");
			walk(b, au_member_nested(m), off, depth + 1, inner, inner);
		}
	}
	if (padding && depth > 1)
		push_row(b, SHOW_PADDING, depth, au_arena_concat3(b->a, kp, "(padding)", ""), base + 8 * t->size - padding,
			 padding);
	free(gaps);
}

void au_show_layout(const struct layout_type *t, struct arena *a, struct show_layout *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->type = t;
	if (!t)
		return;
	struct row_buf b = { .a = a };
	if (t->kind == LAYOUT_ENUM) {
		for (size_t i = 0; i < t->nenumerators; i++)
			push_row(&b, SHOW_ENUMERATOR, 1, t->enumerators[i].name, 0, 0)->enumerator = &t->enumerators[i];
	} else if (t->kind != LAYOUT_CONSTANT) {
		walk(&b, t, 0, 1, "", "");
		struct layout_gap *gaps;
		ret->holes = au_layout_gaps(t, 0, &gaps, &ret->padding_bits);
		for (size_t i = 0; i < ret->holes; i++)
			ret->hole_bits += gaps[i].bit_size;
		free(gaps);
	}
	ret->nrows = b.n;
	ret->rows = b.n ? au_arena_memdup(a, b.v, b.n * sizeof(*b.v)) : NULL;
	free(b.v);
}

/* A member's storage is the same: bytes, bitfield width, flexibility. */
static bool same_size(const struct show_row *x, const struct show_row *y)
{
	if (x->bit_size != y->bit_size)
		return false;
	if (!x->member || !y->member)
		return true;
	return x->member->is_bitfield == y->member->is_bitfield && x->member->flexible == y->member->flexible &&
	       au_member_size(x->member) == au_member_size(y->member);
}

static unsigned row_differences(const struct show_row *x, const struct show_row *y)
{
	unsigned what = 0;
	if (x->kind != y->kind)
		return SHOW_DIFF_TYPE;
	if (x->kind == SHOW_ENUMERATOR)
		return x->enumerator->value != y->enumerator->value ? SHOW_DIFF_VALUE : 0;
	if (x->kind == SHOW_CLOSE)
		return 0;   /* its SHOW_OPEN says it all */
	if (x->bit_offset != y->bit_offset)
		what |= SHOW_DIFF_OFFSET;
	if (!same_size(x, y))
		what |= SHOW_DIFF_SIZE;
	if (x->kind == SHOW_MEMBER) {
		/* A member of anonymous type on both sides: its rows that
		 * follow say what differs inside; its key would only repeat it. */
		bool nested = au_member_nested(x->member) && au_member_nested(y->member);
		if (nested ? au_member_nested(x->member)->kind != au_member_nested(y->member)->kind
			   : strcmp(x->member->type->key, y->member->type->key) != 0)
			what |= SHOW_DIFF_TYPE;
	}
	return what;
}

static void push_pair(struct show_pair **v, size_t *n, size_t *cap, const struct show_row *a, const struct show_row *b)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = au_xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[*n].a = a;
	(*v)[*n].b = b;
	(*v)[*n].what = a && b ? row_differences(a, b) : 0;
	(*n)++;
}

size_t au_show_pair(const struct show_layout *a, const struct show_layout *b, struct show_pair **ret)
{
	struct strmap in_a, in_b;   /* key -> index + 1 (the first row of a key) */
	au_strmap_init(&in_a);
	au_strmap_init(&in_b);
	for (size_t i = a->nrows; i-- > 0;)
		au_strmap_put(&in_a, a->rows[i].key, (void *)(uintptr_t)(i + 1));
	for (size_t j = b->nrows; j-- > 0;)
		au_strmap_put(&in_b, b->rows[j].key, (void *)(uintptr_t)(j + 1));
	bool *used = au_xcalloc(b->nrows + 1, sizeof(*used));
	struct show_pair *v = NULL;
	size_t n = 0, cap = 0, cursor = 0;
	for (size_t i = 0; i < a->nrows; i++) {
		size_t j = (size_t)(uintptr_t)au_strmap_get(&in_b, a->rows[i].key);
		/* A repeated key (corrupt input) pairs once, the first time. */
		if (!j || used[j - 1] || (size_t)(uintptr_t)au_strmap_get(&in_a, a->rows[i].key) != i + 1) {
			push_pair(&v, &n, &cap, &a->rows[i], NULL);
			continue;
		}
		j--;
		/* b's rows before this one that a does not have come first, in
		 * b's order; those a has wait for their own pair. */
		for (; cursor < j; cursor++)
			if (!used[cursor] && !au_strmap_get(&in_a, b->rows[cursor].key)) {
				used[cursor] = true;
				push_pair(&v, &n, &cap, NULL, &b->rows[cursor]);
			}
		if (cursor <= j)
			cursor = j + 1;
		used[j] = true;
		push_pair(&v, &n, &cap, &a->rows[i], &b->rows[j]);
	}
	for (size_t j = 0; j < b->nrows; j++)
		if (!used[j])
			push_pair(&v, &n, &cap, NULL, &b->rows[j]);
	free(used);
	au_strmap_deinit(&in_a);
	au_strmap_deinit(&in_b);
	*ret = v;
	return n;
}
