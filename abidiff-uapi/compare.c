#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

struct comparer {
	const struct layout_model *old_model, *new_model;
	struct comparison *out;
	struct strmap done;      /* name -> struct type_finding * (also for unchanged) */
	struct strmap busy;      /* names being compared: cycles in corrupt input */
	struct change *buf;      /* scratch list of changes for one type */
	size_t nbuf, capbuf;
	struct strmap shapes[2]; /* per side: named aggregate -> its shape key */
};

const char *finding_status_name(enum finding_status s)
{
	static const char *const names[STATUS_COUNT] = {
		"unchanged", "aliased", "extended", "added", "renamed", "removed", "changed",
	};
	return s < STATUS_COUNT ? names[s] : "?";
}

static struct change *push(struct comparer *c, enum change_kind kind, bool breaking)
{
	if (c->nbuf == c->capbuf) {
		c->capbuf = c->capbuf ? 2 * c->capbuf : 32;
		c->buf = xrealloc(c->buf, c->capbuf * sizeof(*c->buf));
	}
	struct change *ch = &c->buf[c->nbuf++];
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	ch->breaking = breaking;
	return ch;
}

static enum finding_status compare_named(struct comparer *c, const char *name);

/* The shape key of a named aggregate on one side (0 old, 1 new), as an
 * anonymous one with the same layout would have. */
static const char *shape_of(struct comparer *c, int side, const char *name)
{
	const char *k = strmap_get(&c->shapes[side], name);
	if (k)
		return k;
	const struct layout_type *t = layout_model_find(side ? c->new_model : c->old_model, name);
	if (!t)
		return NULL;
	k = layout_anon_key(&c->out->arena, t);
	strmap_put(&c->shapes[side], name, (void *)k);
	return k;
}

static size_t sigil_prefix(const char *k)
{
	size_t i = 0;
	while (k[i] && strchr("[]*0123456789", k[i]))
		i++;
	return i;
}

static bool is_anon_key(const char *k)
{
	return strncmp(k, "struct{", 7) == 0 || strncmp(k, "union{", 6) == 0;
}

static bool is_named_key(const char *k)
{
	return strncmp(k, "struct ", 7) == 0 || strncmp(k, "union ", 6) == 0;
}

/* Canonical types a (on side sa) and b (on side sb) are the same. Beyond
 * equal keys: a named struct and an anonymous one of the same shape, behind
 * the same arrays and pointers, are one layout. 6.12's __struct_group gives a
 * member the type struct TAG in C and an untagged struct in C++. */
static bool same_type(struct comparer *c, const char *a, int sa, const char *b, int sb)
{
	if (strcmp(a, b) == 0)
		return true;
	size_t p = sigil_prefix(a);
	if (p != sigil_prefix(b) || strncmp(a, b, p) != 0)
		return false;
	a += p;
	b += p;
	if (is_anon_key(a) && is_named_key(b)) {
		const char *sb_key = shape_of(c, sb, b);
		return sb_key && strcmp(a, sb_key) == 0;
	}
	if (is_named_key(a) && is_anon_key(b)) {
		const char *sa_key = shape_of(c, sa, a);
		return sa_key && strcmp(sa_key, b) == 0;
	}
	return false;
}

/* Two members occupy the same slot: same place, same width, same type. */
static bool same_slot(struct comparer *c, const struct flat_member *a, int sa, const struct flat_member *b, int sb)
{
	return a->bit_offset == b->bit_offset && member_bits(a->member) == member_bits(b->member) &&
	       a->member->is_bitfield == b->member->is_bitfield &&
	       a->member->flexible == b->member->flexible &&
	       same_type(c, a->member->type_key, sa, b->member->type_key, sb);
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
	if (a->size != b->size || a->flexible != b->flexible)
		what |= DIFF_SIZE;
	if (!same_type(c, a->type_key, 0, b->type_key, 1))
		what |= DIFF_TYPE;
	return what;
}

static const struct flat_member *find_flat(struct strmap *idx, const char *name)
{
	return strmap_get(idx, name);
}

static void index_flat(struct strmap *idx, struct flat_member *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strmap_put(idx, v[i].member->name, &v[i]);
}

static void compare_members(struct comparer *c, const struct layout_type *o, const struct layout_type *n)
{
	struct flat_member *fo, *fn;
	size_t no = layout_flatten(o, &fo), nn = layout_flatten(n, &fn);
	struct strmap io, in;
	strmap_init(&io);
	strmap_init(&in);
	index_flat(&io, fo, no);
	index_flat(&in, fn, nn);
	bool *used = xrealloc(NULL, (nn ? nn : 1) * sizeof(*used));
	memset(used, 0, (nn ? nn : 1) * sizeof(*used));

	/* Common names first: where each went. */
	for (size_t i = 0; i < no; i++) {
		const struct flat_member *nm = find_flat(&in, fo[i].member->name);
		if (!nm)
			continue;
		unsigned what = member_differences(c, &fo[i], nm);
		if (what) {
			struct change *ch = push(c, CHANGE_MEMBER, true);
			ch->what = what;
			ch->old_member = fo[i];
			ch->new_member = *nm;
		} else if (fo[i].member->embeds && nm->member->embeds &&
			   strcmp(fo[i].member->embeds, nm->member->embeds) == 0 &&
			   compare_named(c, fo[i].member->embeds) == STATUS_CHANGED) {
			struct change *ch = push(c, CHANGE_EMBEDDED, true);
			ch->old_member = fo[i];
			ch->new_member = *nm;
			ch->other = fo[i].member->embeds;
		}
	}

	/* Names only in OLD: an alias that went, a rename, or a loss. */
	for (size_t i = 0; i < no; i++) {
		if (find_flat(&in, fo[i].member->name))
			continue;
		const struct flat_member *common = NULL;
		for (size_t j = 0; j < no && !common; j++)
			if (j != i && find_flat(&in, fo[j].member->name) && same_slot(c, &fo[i], 0, &fo[j], 0))
				common = &fo[j];
		if (common) {
			struct change *ch = push(c, CHANGE_ALIAS_REMOVED, false);
			ch->old_member = fo[i];
			ch->other = common->member->name;
			continue;
		}
		size_t k;
		for (k = 0; k < nn; k++)
			if (!used[k] && !find_flat(&io, fn[k].member->name) && same_slot(c, &fo[i], 0, &fn[k], 1))
				break;
		if (k < nn) {
			used[k] = true;
			struct change *ch = push(c, CHANGE_RENAMED, false);
			ch->old_member = fo[i];
			ch->new_member = fn[k];
			continue;
		}
		struct change *ch = push(c, CHANGE_MEMBER_REMOVED, true);
		ch->old_member = fo[i];
	}

	/* Names only in NEW: an alias, an addition, or an alias gone wrong. */
	for (size_t k = 0; k < nn; k++) {
		if (used[k] || find_flat(&io, fn[k].member->name))
			continue;
		const struct flat_member *common = NULL, *overlap = NULL;
		for (size_t j = 0; j < nn && !common; j++) {
			if (j == k || !find_flat(&io, fn[j].member->name))
				continue;
			if (same_slot(c, &fn[k], 1, &fn[j], 1))
				common = &fn[j];
			else if (!overlap && fn[j].bit_offset == fn[k].bit_offset && member_bits(fn[j].member))
				overlap = &fn[j];
		}
		if (common) {
			struct change *ch = push(c, CHANGE_ALIAS_ADDED, false);
			ch->new_member = fn[k];
			ch->other = common->member->name;
		} else {
			/* A name added over an existing member with another size or
			 * type is no alias (it is named, so a caller can tell), but it
			 * moves nothing: a new union alternative, or a field carved out
			 * of reserved space. Whatever it displaces shows up as that
			 * member's own change. */
			struct change *ch = push(c, CHANGE_MEMBER_ADDED, false);
			ch->new_member = fn[k];
			ch->other = overlap ? overlap->member->name : NULL;
		}
	}
	free(used);
	free(fo);
	free(fn);
	strmap_deinit(&io);
	strmap_deinit(&in);
}

static void compare_enumerators(struct comparer *c, const struct layout_type *o, const struct layout_type *n)
{
	struct strmap io, in;
	strmap_init(&io);
	strmap_init(&in);
	for (size_t i = 0; i < o->nenumerators; i++)
		strmap_put(&io, o->enumerators[i].name, &o->enumerators[i]);
	for (size_t i = 0; i < n->nenumerators; i++)
		strmap_put(&in, n->enumerators[i].name, &n->enumerators[i]);
	for (size_t i = 0; i < o->nenumerators; i++) {
		const struct layout_enumerator *e = &o->enumerators[i], *f = strmap_get(&in, e->name);
		if (f && f->value == e->value)
			continue;
		struct change *ch = push(c, f ? CHANGE_ENUMERATOR_VALUE : CHANGE_ENUMERATOR_REMOVED, true);
		ch->old_enum = e;
		ch->new_enum = f;
	}
	for (size_t i = 0; i < n->nenumerators; i++) {
		if (strmap_get(&io, n->enumerators[i].name))
			continue;
		struct change *ch = push(c, CHANGE_ENUMERATOR_ADDED, false);
		ch->new_enum = &n->enumerators[i];
	}
	strmap_deinit(&io);
	strmap_deinit(&in);
}

static enum finding_status status_of(const struct change *v, size_t n)
{
	enum finding_status s = STATUS_UNCHANGED;
	for (size_t i = 0; i < n; i++) {
		enum finding_status t = v[i].breaking ? STATUS_CHANGED
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
	struct type_finding *f = arena_alloc(&c->out->arena, sizeof(*f));
	f->name = name;
	f->old_type = o;
	f->new_type = n;
	return f;
}

/* Compares the type called name on both sides, once; the result is kept so
 * that a struct embedding it can ask whether it changed. */
static enum finding_status compare_named(struct comparer *c, const char *name)
{
	struct type_finding *f = strmap_get(&c->done, name);
	if (f)
		return f->status;
	const struct layout_type *o = layout_model_find(c->old_model, name);
	const struct layout_type *n = layout_model_find(c->new_model, name);
	if (!o || !n)
		return STATUS_UNCHANGED; /* pairing decides added/removed */
	if (strmap_get(&c->busy, name))
		return STATUS_UNCHANGED;
	strmap_put(&c->busy, name, (void *)name);

	/* This type's changes go after whatever the caller has collected. */
	size_t start = c->nbuf;
	if (o->kind != n->kind) {
		struct change *ch = push(c, CHANGE_KIND, true);
		ch->old_value = o->kind;
		ch->new_value = n->kind;
	}
	if (o->size != n->size) {
		struct change *ch = push(c, CHANGE_SIZE, true);
		ch->old_value = o->size;
		ch->new_value = n->size;
	}
	if (o->align && n->align && o->align != n->align) {
		struct change *ch = push(c, CHANGE_ALIGNMENT, true);
		ch->old_value = o->align;
		ch->new_value = n->align;
	}
	if (o->kind == LAYOUT_ENUM && n->kind == LAYOUT_ENUM)
		compare_enumerators(c, o, n);
	else if (o->kind != LAYOUT_ENUM && n->kind != LAYOUT_ENUM)
		compare_members(c, o, n);

	f = new_finding(c, name, o, n);
	f->nchanges = c->nbuf - start;
	f->changes = f->nchanges ? arena_memdup(&c->out->arena, c->buf + start, f->nchanges * sizeof(*f->changes))
				 : NULL;
	f->status = status_of(f->changes, f->nchanges);
	c->nbuf = start;
	strmap_put(&c->done, name, f);
	return f->status;
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
	if (f->status == STATUS_CHANGED || f->status == STATUS_REMOVED || f->status == STATUS_RENAMED)
		out->incompatible = true;
	if (out->nfindings == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		out->findings = xrealloc(out->findings, *cap * sizeof(*out->findings));
	}
	out->findings[out->nfindings++] = f;
}

void compare_models(const struct layout_model *old_model, const struct layout_model *new_model,
		    const struct compare_options *opts, struct comparison *ret)
{
	memset(ret, 0, sizeof(*ret));
	arena_init(&ret->arena);
	struct comparer c = { .old_model = old_model, .new_model = new_model, .out = ret };
	strmap_init(&c.done);
	strmap_init(&c.busy);
	strmap_init(&c.shapes[0]);
	strmap_init(&c.shapes[1]);
	size_t cap = 0;
	for (size_t i = 0; i < old_model->ntypes; i++) {
		const struct layout_type *o = old_model->types[i];
		if (layout_model_find(new_model, o->name)) {
			ret->old_types++;
			compare_named(&c, o->name);
			record(&c, strmap_get(&c.done, o->name), &cap);
		} else if (!opts->common_only) {
			ret->old_types++;
			struct type_finding *f = new_finding(&c, o->name, o, NULL);
			f->status = STATUS_REMOVED;
			record(&c, f, &cap);
		}
	}
	for (size_t i = 0; i < new_model->ntypes; i++) {
		const struct layout_type *n = new_model->types[i];
		if (layout_model_find(old_model, n->name)) {
			ret->new_types++;
		} else if (!opts->common_only) {
			ret->new_types++;
			struct type_finding *f = new_finding(&c, n->name, NULL, n);
			f->status = STATUS_ADDED;
			record(&c, f, &cap);
		}
	}
	if (ret->nfindings)
		qsort(ret->findings, ret->nfindings, sizeof(*ret->findings), cmp_finding);
	free(c.buf);
	strmap_deinit(&c.done);
	strmap_deinit(&c.busy);
	strmap_deinit(&c.shapes[0]);
	strmap_deinit(&c.shapes[1]);
}

void comparison_deinit(struct comparison *c)
{
	free(c->findings);
	arena_deinit(&c->arena);
}
