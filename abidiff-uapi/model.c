#define _GNU_SOURCE   /* qsort_r */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

void au_layout_model_init(struct layout_model *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	au_arena_init(&m->arena);
	au_strmap_init(&m->by_name);
	au_strmap_init(&m->typedefs);
	m->path = au_arena_strdup(&m->arena, path);
}

void au_layout_model_deinit(struct layout_model *m)
{
	free(m->types);
	au_strmap_deinit(&m->by_name);
	au_strmap_deinit(&m->typedefs);
	au_arena_deinit(&m->arena);
}

void au_layout_model_append(struct layout_model *m, struct layout_type *t)
{
	if (m->ntypes == m->capacity) {
		size_t cap = m->capacity ? 2 * m->capacity : 256;
		m->types = au_xrealloc(m->types, cap * sizeof(*m->types));
		m->capacity = cap;
	}
	m->types[m->ntypes++] = t;
	m->sorted = false;
}

bool au_layout_model_add(struct layout_model *m, struct layout_type *t)
{
	struct strmap_slot *s = au_strmap_slot(&m->by_name, t->name);   /* one probe */
	if (s->value)
		return false;
	s->value = t;
	au_layout_model_append(m, t);
	return true;
}

void au_layout_model_reindex(struct layout_model *m)
{
	au_strmap_deinit(&m->by_name);
	au_strmap_init(&m->by_name);
	for (size_t i = 0; i < m->ntypes; i++)
		au_strmap_put(&m->by_name, m->types[i]->name, m->types[i]);
}

const struct layout_member_type *au_member_type_new(struct arena *a, const char *name, const char *key,
						    const char *chain, const char *embeds, uint64_t size,
						    struct layout_type *layout)
{
	struct layout_member_type *lmt = au_arena_alloc(a, sizeof(*lmt));
	lmt->name = name;
	lmt->key = key;
	lmt->chain = chain;
	lmt->embeds = embeds;
	lmt->size = size;
	lmt->layout = layout && layout->kind != LAYOUT_ENUM ? layout : NULL;
	return lmt;
}

struct layout_type *au_layout_model_find(const struct layout_model *m, const char *name)
{
	return au_strmap_get(&m->by_name, name);
}

void au_layout_model_add_typedef(struct layout_model *m, const char *name, const char *target)
{
	if (!au_strmap_get(&m->typedefs, name))
		au_strmap_put(&m->typedefs, name, (void *)target);
}

struct layout_type *au_layout_model_resolve(const struct layout_model *m, const char *name)
{
	static const char *const tags[] = { "struct ", "union ", "enum " };
	/* typedef A B; typedef B C; ...: a chain, bounded because a corrupt
	 * file may make it a cycle. */
	for (int hops = 0; name && hops < 64; hops++) {
		struct layout_type *t = au_layout_model_find(m, name);
		if (t)
			return t;
		/* A bare tag: C keeps struct, union and enum tags in one
		 * namespace, so at most one of them exists. */
		for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]) && !strchr(name, ' '); i++) {
			char *full = au_xasprintf("%s%s", tags[i], name);
			t = au_layout_model_find(m, full);
			free(full);
			if (t)
				return t;
		}
		name = au_strmap_get(&m->typedefs, name);
	}
	return NULL;
}

/* A sort compares every two types that end up next to each other, so a
 * name held twice is met here (*dup set). */
static int cmp_type(const void *a, const void *b, void *dup)
{
	const struct layout_type *x = *(const struct layout_type *const *)a;
	const struct layout_type *y = *(const struct layout_type *const *)b;
	int d = strcmp(x->name, y->name);
	if (d == 0)
		*(bool *)dup = true;
	return d;
}

void au_layout_model_sort(struct layout_model *m)
{
	bool dup = false;
	if (m->ntypes)
		qsort_r(m->types, m->ntypes, sizeof(*m->types), cmp_type, &dup);
	m->sorted = !dup;
}

void au_layout_model_filter(struct layout_model *m, bool (*keep)(const struct layout_type *, void *), void *arg)
{
	size_t n = 0;
	au_strmap_deinit(&m->by_name);
	au_strmap_init(&m->by_name);
	for (size_t i = 0; i < m->ntypes; i++) {
		if (keep(m->types[i], arg)) {
			m->types[n++] = m->types[i];
			au_strmap_put(&m->by_name, m->types[i]->name, m->types[i]);
		}
	}
	m->ntypes = n;
}

const char *au_layout_kind_name(enum layout_kind kind)
{
	switch (kind) {
	case LAYOUT_STRUCT: return "struct";
	case LAYOUT_UNION: return "union";
	case LAYOUT_ENUM: return "enum";
	case LAYOUT_CONSTANT: return "constant";
	}
	return "?";
}

/* A zero-size member that is no flexible array holds no data: an empty
 * struct, as __DECLARE_FLEX_ARRAY puts before a flexible array in GNU C.
 * Its type's name varies (BTF deduplication may give it a typedef's, such
 * as tinyconfig's empty arch_spinlock_t), so only the size decides. */
static bool is_empty_filler(const struct layout_member *m)
{
	return m->type->size == 0 && !m->flexible && !m->is_bitfield && !au_member_anon(m);
}

struct flat_buf {
	struct flat_member *v;
	size_t n, cap;
};

static void flat_push(struct flat_buf *b, const struct layout_member *m, uint64_t off, const char *name,
		      unsigned union_depth, const struct layout_type *container)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->v = au_xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	b->v[b->n].member = m;
	b->v[b->n].bit_offset = off;
	b->v[b->n].name = name;
	b->v[b->n].union_depth = union_depth;
	b->v[b->n].container = container;
	b->n++;
}

/* paths: NULL to stop at named members; else the arena for "u.x" names,
 * and prefix the path so far ("" at the top). */
static void flatten(const struct layout_type *t, uint64_t base, struct flat_buf *b, int depth,
		    struct arena *paths, const char *prefix, unsigned union_depth, bool keep_empty)
{
	if (depth > 4096)   /* beyond the readers' limits */
		return;
	if (t->kind == LAYOUT_UNION)
		union_depth++;
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct layout_member *m = &t->members[i];
		if (m->name) {
			if (is_empty_filler(m) && !keep_empty)
				continue;
			const char *name = paths && *prefix ? au_arena_concat3(paths, prefix, m->name, "") : m->name;
			flat_push(b, m, base + m->bit_offset, name, union_depth, t);
			if (paths && au_member_nested(m))
				flatten(au_member_nested(m), base + m->bit_offset, b, depth + 1, paths,
					au_arena_concat3(paths, name, ".", ""), union_depth, keep_empty);
		} else if (au_member_anon(m)) {
			flatten(au_member_anon(m), base + m->bit_offset, b, depth + 1, paths, prefix, union_depth, keep_empty);
		}
	}
}

static int cmp_flat(const void *a, const void *b)
{
	const struct flat_member *x = a, *y = b;
	if (x->bit_offset != y->bit_offset)
		return x->bit_offset < y->bit_offset ? -1 : 1;
	return strcmp(x->name, y->name);
}

static size_t flatten_sorted(const struct layout_type *t, struct arena *paths, struct flat_member **ret,
			     bool keep_empty)
{
	struct flat_buf b = { 0 };
	flatten(t, 0, &b, 0, paths, "", 0, keep_empty);
	/* Members mostly come in order already (not a union's): a sorted
	 * run is left as it is, which glibc's merge sort would not change
	 * either, at the cost of one pass instead of a sort. */
	size_t i = 1;
	while (i < b.n && cmp_flat(&b.v[i - 1], &b.v[i]) <= 0)
		i++;
	if (i < b.n)
		qsort(b.v, b.n, sizeof(*b.v), cmp_flat);
	*ret = b.v;
	return b.n;
}

size_t au_layout_flatten(const struct layout_type *t, struct flat_member **ret)
{
	return flatten_sorted(t, NULL, ret, false);
}

size_t au_layout_flatten_paths(const struct layout_type *t, struct arena *a, struct flat_member **ret)
{
	return flatten_sorted(t, a, ret, false);
}

size_t au_layout_flatten_paths_all(const struct layout_type *t, struct arena *a, struct flat_member **ret)
{
	return flatten_sorted(t, a, ret, true);
}

size_t au_layout_gaps(const struct layout_type *t, uint64_t base, struct layout_gap **ret, uint64_t *padding_bits)
{
	size_t n = 0;
	uint64_t end = 0;
	*padding_bits = 0;
	if (t->kind != LAYOUT_STRUCT) {
		*ret = NULL;
		return 0;
	}
	/* At most one hole before each member. */
	struct layout_gap *v = au_xmalloc((t->nmembers ? t->nmembers : 1) * sizeof(*v));
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct layout_member *m = &t->members[i];
		uint64_t bits = au_member_anon(m) ? 8 * au_member_anon(m)->size : au_member_bits(m);
		if (m->bit_offset > end) {
			v[n].bit_offset = base + end;
			v[n].bit_size = m->bit_offset - end;
			n++;
		}
		if (m->bit_offset + bits > end)
			end = m->bit_offset + bits;
	}
	if (8 * t->size > end)
		*padding_bits = 8 * t->size - end;
	*ret = v;
	return n;
}

size_t au_layout_count_flat(const struct layout_type *t)
{
	size_t n = t->nmembers;
	for (size_t i = 0; i < t->nmembers; i++) {
		if (au_member_anon(&t->members[i]))
			n += au_member_anon(&t->members[i])->nflat;
		if (n > LAYOUT_MAX_FLAT)
			return LAYOUT_MAX_FLAT + 1;
	}
	return n;
}

bool au_constant_equal(const struct layout_constant *a, const struct layout_constant *b)
{
	if (a->is_string != b->is_string)
		return false;
	if (a->is_string)
		return a->nbytes == b->nbytes && memcmp(a->bytes, b->bytes, a->nbytes) == 0;
	return a->value == b->value && (a->value >= 0 || a->is_unsigned == b->is_unsigned);
}
