/* Unit tests for the model and the comparer, on models built by hand: no
 * compiler, no DWARF, so each rule of compare.c is tested alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "conventions.h"
#include "model.h"
#include "show.h"

#include "check.h"

struct mdef {
	const char *name;
	unsigned offset; /* bytes */
	unsigned size;
	const char *key;
};

static struct layout_type *agg(struct layout_model *m, enum layout_kind kind, const char *name, unsigned size,
			       const struct mdef *defs, size_t n)
{
	struct layout_type *t = au_arena_alloc(&m->arena, sizeof(*t));
	t->kind = kind;
	t->name = name;
	t->size = size;
	t->members = au_arena_alloc(&m->arena, (n ? n : 1) * sizeof(*t->members));
	t->nmembers = n;
	for (size_t i = 0; i < n; i++) {
		struct layout_member *lm = &t->members[i];
		lm->name = defs[i].name;
		lm->bit_offset = 8ull * defs[i].offset;
		struct layout_member_type *lt = au_arena_alloc(&m->arena, sizeof(*lt));
		lt->size = defs[i].size;
		lt->key = defs[i].key;
		lt->name = defs[i].key;
		if (strncmp(defs[i].key, "struct ", 7) == 0)
			lt->embeds = defs[i].key;
		lm->type = lt;
	}
	if (name)
		au_layout_model_add(m, t);
	return t;
}

/* The member's type is the anonymous struct or union u (agg gives each
 * member a type record of its own). */
static void holds(struct layout_member *lm, struct layout_type *u)
{
	((struct layout_member_type *)lm->type)->layout = u;
}

static enum finding_status status(const struct comparison *c, const char *name)
{
	for (size_t i = 0; i < c->nfindings; i++)
		if (strcmp(c->findings[i]->name, name) == 0)
			return c->findings[i]->status;
	return STATUS_UNCHANGED;
}

static void test_statuses(void)
{
	struct layout_model a, b;
	au_layout_model_init(&a, "old");
	au_layout_model_init(&b, "new");
	/* same */
	agg(&a, LAYOUT_STRUCT, "struct same", 4, (struct mdef[]){ { "x", 0, 4, "u32" } }, 1);
	agg(&b, LAYOUT_STRUCT, "struct same", 4, (struct mdef[]){ { "x", 0, 4, "u32" } }, 1);
	/* alias added through an anonymous union */
	agg(&a, LAYOUT_STRUCT, "struct al", 2, (struct mdef[]){ { "class", 0, 1, "u8" }, { "cmd", 1, 1, "u8" } }, 2);
	struct layout_type *u = agg(&b, LAYOUT_UNION, NULL, 1,
				    (struct mdef[]){ { "class", 0, 1, "u8" }, { "_class", 0, 1, "u8" } }, 2);
	struct layout_type *al = agg(&b, LAYOUT_STRUCT, "struct al", 2,
				     (struct mdef[]){ { NULL, 0, 1, "union{}" }, { "cmd", 1, 1, "u8" } }, 2);
	holds(&al->members[0], u);
	/* renamed */
	agg(&a, LAYOUT_STRUCT, "struct rn", 1, (struct mdef[]){ { "class", 0, 1, "u8" } }, 1);
	agg(&b, LAYOUT_STRUCT, "struct rn", 1, (struct mdef[]){ { "_class", 0, 1, "u8" } }, 1);
	/* type change with the same size */
	agg(&a, LAYOUT_STRUCT, "struct ty", 8, (struct mdef[]){ { "p", 0, 8, "*void" } }, 1);
	agg(&b, LAYOUT_STRUCT, "struct ty", 8, (struct mdef[]){ { "p", 0, 8, "u64" } }, 1);
	/* member gone with no alias */
	agg(&a, LAYOUT_STRUCT, "struct gone", 8, (struct mdef[]){ { "a", 0, 4, "u32" }, { "b", 4, 4, "u32" } }, 2);
	agg(&b, LAYOUT_STRUCT, "struct gone", 8, (struct mdef[]){ { "a", 0, 4, "u32" } }, 1);
	/* embedding: inner swaps members, outer holds it by value */
	agg(&a, LAYOUT_STRUCT, "struct in", 8, (struct mdef[]){ { "x", 0, 4, "u32" }, { "y", 4, 4, "u32" } }, 2);
	agg(&b, LAYOUT_STRUCT, "struct in", 8, (struct mdef[]){ { "y", 0, 4, "u32" }, { "x", 4, 4, "u32" } }, 2);
	agg(&a, LAYOUT_STRUCT, "struct out", 8, (struct mdef[]){ { "i", 0, 8, "struct in" } }, 1);
	agg(&b, LAYOUT_STRUCT, "struct out", 8, (struct mdef[]){ { "i", 0, 8, "struct in" } }, 1);
	/* only on one side */
	agg(&a, LAYOUT_STRUCT, "struct old_only", 1, (struct mdef[]){ { "x", 0, 1, "u8" } }, 1);
	agg(&b, LAYOUT_STRUCT, "struct new_only", 1, (struct mdef[]){ { "x", 0, 1, "u8" } }, 1);
	au_layout_model_sort(&a);
	au_layout_model_sort(&b);

	struct comparison c;
	au_compare_models(&a, &b, &(struct compare_options){ 0 }, &c);
	CHECK(status(&c, "struct same") == STATUS_UNCHANGED);
	CHECK(status(&c, "struct al") == STATUS_ALIASED);
	CHECK(status(&c, "struct rn") == STATUS_RENAMED);
	CHECK(status(&c, "struct ty") == STATUS_CHANGED);
	CHECK(status(&c, "struct gone") == STATUS_CHANGED);
	CHECK(status(&c, "struct in") == STATUS_CHANGED);
	CHECK(status(&c, "struct out") == STATUS_CHANGED);
	CHECK(status(&c, "struct old_only") == STATUS_REMOVED);
	CHECK(status(&c, "struct new_only") == STATUS_ADDED);
	CHECK(c.incompatible);
	CHECK(c.counts[STATUS_UNCHANGED] == 1);
	CHECK(c.nfindings == 8);
	/* Findings come sorted by name. */
	for (size_t i = 1; i < c.nfindings; i++)
		CHECK(strcmp(c.findings[i - 1]->name, c.findings[i]->name) < 0);
	au_comparison_deinit(&c);

	/* --common-only drops added and removed; the reverse direction swaps them. */
	au_compare_models(&a, &b, &(struct compare_options){ .common_only = true }, &c);
	CHECK(status(&c, "struct old_only") == STATUS_UNCHANGED);
	CHECK(status(&c, "struct new_only") == STATUS_UNCHANGED);
	CHECK(c.counts[STATUS_REMOVED] == 0 && c.counts[STATUS_ADDED] == 0);
	au_comparison_deinit(&c);
	au_compare_models(&b, &a, &(struct compare_options){ 0 }, &c);
	CHECK(status(&c, "struct al") == STATUS_ALIASED);
	CHECK(status(&c, "struct new_only") == STATUS_REMOVED);
	au_comparison_deinit(&c);

	/* Sorted models pair in one walk; unsorted ones by look-up: the same findings. */
	CHECK(a.sorted && b.sorted);
	struct comparison walked;
	au_compare_models(&a, &b, &(struct compare_options){ 0 }, &walked);
	a.sorted = false;
	au_compare_models(&a, &b, &(struct compare_options){ 0 }, &c);
	CHECK(c.nfindings == walked.nfindings && c.old_types == walked.old_types && c.new_types == walked.new_types);
	for (size_t i = 0; i < c.nfindings && i < walked.nfindings; i++)
		CHECK(strcmp(c.findings[i]->name, walked.findings[i]->name) == 0 &&
		      c.findings[i]->status == walked.findings[i]->status);
	au_comparison_deinit(&c);
	au_comparison_deinit(&walked);
	au_layout_model_deinit(&a);
	au_layout_model_deinit(&b);
}

/* sorted holds only while the types are in name order, each name once. */
static void test_sorted_flag(void)
{
	struct layout_model m;
	au_layout_model_init(&m, "m");
	agg(&m, LAYOUT_STRUCT, "struct b", 1, (struct mdef[]){ { "x", 0, 1, "u8" } }, 1);
	agg(&m, LAYOUT_STRUCT, "struct a", 1, (struct mdef[]){ { "x", 0, 1, "u8" } }, 1);
	CHECK(!m.sorted);
	au_layout_model_sort(&m);
	CHECK(m.sorted && strcmp(m.types[0]->name, "struct a") == 0);
	/* A second type of one name (a reader appending before renaming). */
	au_layout_model_append(&m, agg(&m, LAYOUT_STRUCT, NULL, 2, (struct mdef[]){ { "y", 0, 2, "u16" } }, 1));
	CHECK(!m.sorted);
	m.types[2]->name = "struct a";
	au_layout_model_sort(&m);
	CHECK(!m.sorted);
	au_layout_model_deinit(&m);
}

static void test_flatten(void)
{
	struct layout_model m;
	au_layout_model_init(&m, "m");
	struct layout_type *u = agg(&m, LAYOUT_UNION, NULL, 4, (struct mdef[]){ { "a", 0, 4, "u32" }, { "b", 0, 4, "s32" } }, 2);
	struct layout_type *s = agg(&m, LAYOUT_STRUCT, "struct s", 12,
				    (struct mdef[]){ { "x", 0, 4, "u32" }, { NULL, 4, 4, "union{}" }, { "z", 8, 0, "struct{}0" } }, 3);
	holds(&s->members[1], u);
	struct flat_member *f;
	size_t n = au_layout_flatten(s, &f);
	/* x, a and b reachable by name at absolute offsets; the empty filler is not. */
	CHECK(n == 3);
	CHECK(n == 3 && strcmp(f[0].member->name, "x") == 0 && f[0].bit_offset == 0);
	CHECK(n == 3 && strcmp(f[1].member->name, "a") == 0 && f[1].bit_offset == 32);
	CHECK(n == 3 && strcmp(f[2].member->name, "b") == 0 && f[2].bit_offset == 32);
	free(f);
	au_layout_model_deinit(&m);
}

static enum severity severity_of(const struct comparison *c, const char *name)
{
	for (size_t i = 0; i < c->nfindings; i++)
		if (strcmp(c->findings[i]->name, name) == 0)
			return c->findings[i]->severity;
	return SEVERITY_NONE;
}

static bool has_reason(const struct comparison *c, const char *name, enum reason r)
{
	for (size_t i = 0; i < c->nfindings; i++)
		if (strcmp(c->findings[i]->name, name) == 0)
			return c->findings[i]->reasons >> r & 1;
	return false;
}

/* The one table: every reason named, graded and explained, names unique. */
static void test_conventions_table(void)
{
	for (int i = 0; i < REASON_COUNT; i++) {
		CHECK(au_conventions[i].name && au_conventions[i].meaning && *au_conventions[i].meaning);
		CHECK(au_conventions[i].severity >= SEVERITY_SAFE && au_conventions[i].severity <= SEVERITY_BREAK);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(au_conventions[i].name, au_conventions[j].name) != 0);
	}
	CHECK(au_conventions[REASON_SENTINEL].severity == SEVERITY_SAFE);
	CHECK(au_conventions[REASON_TAIL_GROWTH].severity == SEVERITY_REVIEW);
	CHECK(au_conventions[REASON_MOVED].severity == SEVERITY_BREAK);
	CHECK(au_reasons_severity(0) == SEVERITY_NONE);
	CHECK(au_reasons_severity((reason_set)1 << REASON_ALIAS | (reason_set)1 << REASON_OVERLAP) == SEVERITY_REVIEW);
	CHECK(au_severity_parse("review") == SEVERITY_REVIEW && au_severity_parse("bogus") == SEVERITY_NONE);
}

static void test_names(void)
{
	const char *sentinels[] = { "__IFLA_MAX", "IFLA_MAX", "MAX_BPF_LINK_TYPE", "NUM_NL80211_BANDS",
				    "__DEVLINK_ATTR_MAX", "IORING_OP_LAST", "HASH_ALGO__LAST", "__FOO_AFTER_LAST",
				    "__ETHTOOL_LINK_MODE_MASK_NBITS", "RDMA_NLDEV_NUM_OPS", "__LINUX_MIB_XFRMMAX",
				    "FOO_CNT", NULL };
	const char *not_sentinels[] = { "IFLA_ADDRESS", "MAX", "LAST", "PKT_ATTR_PORT", "IPSTATS_MIB_OUTPKTS",
					"MAXIMUM_MODE", "FOO_SIZES", NULL };
	for (const char **p = sentinels; *p; p++)
		CHECK(au_is_sentinel_name(*p));
	for (const char **p = not_sentinels; *p; p++)
		CHECK(!au_is_sentinel_name(*p));
	const char *reserved[] = { "reserved", "__reserved", "reserved2", "__reserved_1", "resv", "rsvd8", "res",
				   "pad", "pad1", "__pad0", "padding", "unused", "__spare3", "_align", NULL };
	const char *not_reserved[] = { "resolve", "padded_len", "spare_parts", "flags", "response", "", NULL };
	for (const char **p = reserved; *p; p++)
		CHECK(au_is_reserved_name(*p));
	for (const char **p = not_reserved; *p; p++)
		CHECK(!au_is_reserved_name(*p));
	CHECK(au_is_cxx_keyword("class") && au_is_cxx_keyword("requires") && !au_is_cxx_keyword("klass"));
}

/* Each rule of the table alone, on hand-built models, both ways where the
 * reverse differs. */
static void test_severities(void)
{
	struct layout_model a, b;
	au_layout_model_init(&a, "old");
	au_layout_model_init(&b, "new");
	/* reserved member put to use */
	agg(&a, LAYOUT_STRUCT, "struct rsv", 12, (struct mdef[]){ { "fd", 0, 4, "u32" }, { "reserved", 4, 8, "[2]u32" } }, 2);
	agg(&b, LAYOUT_STRUCT, "struct rsv", 12,
	    (struct mdef[]){ { "fd", 0, 4, "u32" }, { "flags", 4, 4, "u32" }, { "reserved", 8, 4, "[1]u32" } }, 3);
	/* a hole filled */
	agg(&a, LAYOUT_STRUCT, "struct hole", 8, (struct mdef[]){ { "a", 0, 1, "u8" }, { "b", 4, 4, "u32" } }, 2);
	agg(&b, LAYOUT_STRUCT, "struct hole", 8,
	    (struct mdef[]){ { "a", 0, 1, "u8" }, { "c", 1, 1, "u8" }, { "b", 4, 4, "u32" } }, 3);
	/* growth at the tail */
	agg(&a, LAYOUT_STRUCT, "struct tail", 8, (struct mdef[]){ { "a", 0, 8, "u64" } }, 1);
	agg(&b, LAYOUT_STRUCT, "struct tail", 16, (struct mdef[]){ { "a", 0, 8, "u64" }, { "b", 8, 8, "u64" } }, 2);
	/* growth that moves a member: not at the tail */
	agg(&a, LAYOUT_STRUCT, "struct mid", 8, (struct mdef[]){ { "a", 0, 4, "u32" }, { "z", 4, 4, "u32" } }, 2);
	agg(&b, LAYOUT_STRUCT, "struct mid", 12,
	    (struct mdef[]){ { "a", 0, 4, "u32" }, { "n", 4, 4, "u32" }, { "z", 8, 4, "u32" } }, 3);
	/* pad renamed */
	agg(&a, LAYOUT_STRUCT, "struct padn", 4, (struct mdef[]){ { "op", 0, 2, "u16" }, { "pad", 2, 2, "u16" } }, 2);
	agg(&b, LAYOUT_STRUCT, "struct padn", 4, (struct mdef[]){ { "op", 0, 2, "u16" }, { "flags", 2, 2, "u16" } }, 2);
	/* a sentinel, and a constant with a sentinel's name */
	struct layout_type *e1 = agg(&a, LAYOUT_ENUM, "enum attr", 4, NULL, 0);
	struct layout_type *e2 = agg(&b, LAYOUT_ENUM, "enum attr", 4, NULL, 0);
	static const struct layout_enumerator ev1[] = { { "A_X", 0, false }, { "A_Y", 1, false }, { "__A_MAX", 2, false } };
	static const struct layout_enumerator ev2[] = {
		{ "A_X", 0, false }, { "A_Y", 1, false }, { "A_Z", 2, false }, { "__A_MAX", 3, false } };
	e1->enumerators = (struct layout_enumerator *)ev1;
	e1->nenumerators = 3;
	e2->enumerators = (struct layout_enumerator *)ev2;
	e2->nenumerators = 4;
	struct layout_type *l1 = agg(&a, LAYOUT_ENUM, "enum lim", 4, NULL, 0);
	struct layout_type *l2 = agg(&b, LAYOUT_ENUM, "enum lim", 4, NULL, 0);
	static const struct layout_enumerator lv1[] = { { "L_MIN", 4, false }, { "L_MAX_LEN", 16, false } };
	static const struct layout_enumerator lv2[] = { { "L_MIN", 4, false }, { "L_MAX_LEN", 32, false } };
	l1->enumerators = (struct layout_enumerator *)lv1;
	l1->nenumerators = 2;
	l2->enumerators = (struct layout_enumerator *)lv2;
	l2->nenumerators = 2;
	au_layout_model_sort(&a);
	au_layout_model_sort(&b);

	struct comparison c;
	au_compare_models(&a, &b, &(struct compare_options){ 0 }, &c);
	CHECK(severity_of(&c, "struct rsv") == SEVERITY_SAFE && has_reason(&c, "struct rsv", REASON_RESERVED_REUSE));
	CHECK(severity_of(&c, "struct hole") == SEVERITY_SAFE && has_reason(&c, "struct hole", REASON_PADDING_REUSE));
	CHECK(severity_of(&c, "struct tail") == SEVERITY_REVIEW && has_reason(&c, "struct tail", REASON_TAIL_GROWTH));
	CHECK(severity_of(&c, "struct mid") == SEVERITY_BREAK && has_reason(&c, "struct mid", REASON_MOVED));
	CHECK(severity_of(&c, "struct padn") == SEVERITY_SAFE && has_reason(&c, "struct padn", REASON_PAD_RENAMED));
	CHECK(severity_of(&c, "enum attr") == SEVERITY_SAFE && has_reason(&c, "enum attr", REASON_SENTINEL));
	CHECK(severity_of(&c, "enum lim") == SEVERITY_BREAK && has_reason(&c, "enum lim", REASON_ENUMERATOR_VALUE));
	CHECK(c.incompatible);
	CHECK(c.severities[SEVERITY_BREAK] == 2 && c.severities[SEVERITY_REVIEW] == 1 && c.severities[SEVERITY_SAFE] == 4);
	au_comparison_deinit(&c);

	/* Strict: the evolution idioms are breaks; review fails with --fail-on=review. */
	au_compare_models(&a, &b, &(struct compare_options){ .strict = true }, &c);
	CHECK(severity_of(&c, "struct rsv") == SEVERITY_BREAK);
	CHECK(severity_of(&c, "struct tail") == SEVERITY_BREAK);
	CHECK(severity_of(&c, "enum attr") == SEVERITY_BREAK);
	au_comparison_deinit(&c);
	/* Backwards, every one of them is a break. */
	au_compare_models(&b, &a, &(struct compare_options){ 0 }, &c);
	CHECK(severity_of(&c, "struct rsv") == SEVERITY_BREAK);
	CHECK(severity_of(&c, "struct hole") == SEVERITY_BREAK);
	CHECK(severity_of(&c, "struct tail") == SEVERITY_BREAK);
	CHECK(severity_of(&c, "struct padn") == SEVERITY_BREAK);
	CHECK(severity_of(&c, "enum attr") == SEVERITY_BREAK);
	au_comparison_deinit(&c);
	au_layout_model_deinit(&a);
	au_layout_model_deinit(&b);

	/* Only review findings: compatible, unless --fail-on=review. */
	au_layout_model_init(&a, "old");
	au_layout_model_init(&b, "new");
	agg(&a, LAYOUT_STRUCT, "struct tail", 8, (struct mdef[]){ { "a", 0, 8, "u64" } }, 1);
	agg(&b, LAYOUT_STRUCT, "struct tail", 16, (struct mdef[]){ { "a", 0, 8, "u64" }, { "b", 8, 8, "u64" } }, 2);
	au_compare_models(&a, &b, &(struct compare_options){ 0 }, &c);
	CHECK(!c.incompatible);
	au_comparison_deinit(&c);
	au_compare_models(&a, &b, &(struct compare_options){ .fail_on = SEVERITY_REVIEW }, &c);
	CHECK(c.incompatible);
	au_comparison_deinit(&c);
	au_layout_model_deinit(&a);
	au_layout_model_deinit(&b);
}

static void test_strmap(void)
{
	struct strmap map;
	au_strmap_init(&map);
	char keys[20000][12];
	for (int i = 0; i < 20000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		au_strmap_put(&map, keys[i], (void *)(long)(i + 1));
	}
	int ok = 1;
	for (int i = 0; i < 20000; i++)
		ok &= au_strmap_get(&map, keys[i]) == (void *)(long)(i + 1);
	CHECK(ok);
	CHECK(au_strmap_get(&map, "absent") == NULL);
	CHECK(map.count == 20000);
	au_strmap_deinit(&map);
	au_strmap_init(&map);
	for (uint64_t i = 0; i < 5000; i++)
		au_strmap_iput(&map, i * 4096, (void *)(i + 1));
	CHECK(au_strmap_iget(&map, 4096 * 4999) == (void *)5000);
	CHECK(au_strmap_iget(&map, 3) == NULL);
	au_strmap_deinit(&map);
}

/* A user names a type as they write it: a bare tag, struct/union TAG, a
 * typedef (of a typedef) of a tagged aggregate, a typedef'd anonymous one. */
static void test_resolve(void)
{
	struct layout_model m;
	au_layout_model_init(&m, "m");
	agg(&m, LAYOUT_STRUCT, "struct s", 4, (struct mdef[]){ { "x", 0, 4, "u32" } }, 1);
	agg(&m, LAYOUT_UNION, "union u", 4, (struct mdef[]){ { "i", 0, 4, "s32" } }, 1);
	agg(&m, LAYOUT_STRUCT, "anon_t", 4, (struct mdef[]){ { "y", 0, 4, "u32" } }, 1);
	au_layout_model_add_typedef(&m, "s_t", "struct s");
	au_layout_model_add_typedef(&m, "s_t2", "s_t");
	au_layout_model_add_typedef(&m, "loop1", "loop2");   /* corrupt input: a cycle */
	au_layout_model_add_typedef(&m, "loop2", "loop1");
	struct layout_type *s = au_layout_model_find(&m, "struct s"), *u = au_layout_model_find(&m, "union u");
	CHECK(au_layout_model_resolve(&m, "s") == s);
	CHECK(au_layout_model_resolve(&m, "struct s") == s);
	CHECK(au_layout_model_resolve(&m, "s_t") == s);
	CHECK(au_layout_model_resolve(&m, "s_t2") == s);
	CHECK(au_layout_model_resolve(&m, "u") == u);
	CHECK(au_layout_model_resolve(&m, "union u") == u);
	CHECK(au_layout_model_resolve(&m, "anon_t") == au_layout_model_find(&m, "anon_t"));
	CHECK(au_layout_model_resolve(&m, "struct u") == NULL);   /* a union asked for as a struct */
	CHECK(au_layout_model_resolve(&m, "nope") == NULL);
	CHECK(au_layout_model_resolve(&m, "loop1") == NULL);
	au_layout_model_deinit(&m);
}

/* hl_mem_in: union { struct { a; b; } alloc; struct { handle; b; } x; } ->
 * x.handle becomes x.addr and x grows by c inside the union's room. */
static struct layout_type *mem_in(struct layout_model *m, bool renamed)
{
	struct layout_type *alloc = agg(m, LAYOUT_STRUCT, NULL, 16, (struct mdef[]){ { "a", 0, 8, "u64" }, { "b", 8, 8, "u64" } }, 2);
	struct layout_type *big = agg(m, LAYOUT_STRUCT, NULL, 24,
				      (struct mdef[]){ { "p", 0, 8, "u64" }, { "q", 8, 8, "u64" }, { "r", 16, 8, "u64" } }, 3);
	struct layout_type *x = renamed ? agg(m, LAYOUT_STRUCT, NULL, 24,
					      (struct mdef[]){ { "addr", 0, 8, "u64" }, { "b", 8, 8, "u64" }, { "c", 16, 8, "u64" } }, 3)
					: agg(m, LAYOUT_STRUCT, NULL, 16, (struct mdef[]){ { "handle", 0, 8, "u64" }, { "b", 8, 8, "u64" } }, 2);
	struct layout_type *un = agg(m, LAYOUT_UNION, NULL, 24,
				     (struct mdef[]){ { "alloc", 0, 16, renamed ? "struct{A}" : "struct{A}" },
						      { "big", 0, 24, "struct{B}" },
						      { "x", 0, renamed ? 24 : 16, renamed ? "struct{X2}" : "struct{X1}" } }, 3);
	holds(&un->members[0], alloc);
	holds(&un->members[1], big);
	holds(&un->members[2], x);
	struct layout_type *t = agg(m, LAYOUT_STRUCT, "struct mem_in", 24, (struct mdef[]){ { NULL, 0, 24, "union{}" } }, 1);
	holds(&t->members[0], un);
	return t;
}

static const struct change *find_change(const struct comparison *c, const char *type, enum change_kind kind,
					const char *member)
{
	for (size_t i = 0; i < c->nfindings; i++)
		for (size_t j = 0; strcmp(c->findings[i]->name, type) == 0 && j < c->findings[i]->nchanges; j++) {
			const struct change *ch = &c->findings[i]->changes[j];
			const char *name = ch->old_member.member ? ch->old_member.name : ch->new_member.name;
			if (ch->kind == kind && name && strcmp(name, member) == 0)
				return ch;
		}
	return NULL;
}

static void test_rename_in_union(void)
{
	struct layout_model o, n;
	au_layout_model_init(&o, "old");
	au_layout_model_init(&n, "new");
	mem_in(&o, false);
	mem_in(&n, true);
	struct compare_options opts = { 0 };
	struct comparison c;
	au_compare_models(&o, &n, &opts, &c);
	const struct change *r = find_change(&c, "struct mem_in", CHANGE_RENAMED, "x.handle");
	CHECK(r && strcmp(r->new_member.name, "x.addr") == 0 && r->reasons == (reason_set)1 << REASON_RENAMED);
	/* alloc.a and big.p share the slot: no alias of theirs went or came. */
	CHECK(!find_change(&c, "struct mem_in", CHANGE_ALIAS_REMOVED, "x.handle"));
	CHECK(!find_change(&c, "struct mem_in", CHANGE_ALIAS_ADDED, "x.addr"));
	/* x.c is x's growth inside the union's room, as x's own change is. */
	const struct change *a = find_change(&c, "struct mem_in", CHANGE_MEMBER_ADDED, "x.c");
	CHECK(a && a->reasons == (reason_set)1 << REASON_PADDING_REUSE && !a->other);
	CHECK(!find_change(&c, "struct mem_in", CHANGE_ALIAS_ADDED, "x.c"));
	CHECK(severity_of(&c, "struct mem_in") == SEVERITY_BREAK);
	au_comparison_deinit(&c);
	au_layout_model_deinit(&o);
	au_layout_model_deinit(&n);
}

/* show's rows: dotted paths at absolute offsets, holes; two layouts
 * paired by path, marked by what differs. */
static void test_show(void)
{
	struct layout_model m;
	au_layout_model_init(&m, "m");
	struct layout_type *io = agg(&m, LAYOUT_STRUCT, NULL, 4, (struct mdef[]){ { "dir", 0, 1, "u8" }, { "port", 2, 2, "u16" } }, 2);
	struct layout_type *a = agg(&m, LAYOUT_STRUCT, "struct a", 12,
				    (struct mdef[]){ { "x", 0, 2, "u16" }, { "io", 4, 4, "struct{io}" }, { "gone", 8, 4, "u32" } }, 3);
	holds(&a->members[1], io);
	struct layout_type *b = agg(&m, LAYOUT_STRUCT, "struct b", 16,
				    (struct mdef[]){ { "x", 0, 4, "u32" }, { "io", 4, 4, "struct{io}" }, { "new", 8, 8, "u64" } }, 3);
	holds(&b->members[1], io);
	struct arena ar;
	au_arena_init(&ar);
	struct show_layout la, lb;
	au_show_layout(a, &ar, &la);
	au_show_layout(b, &ar, &lb);
	/* x, a hole, io, io.dir, io.port (at 4 + 2 = byte 6), gone; the hole inside io. */
	CHECK(la.nrows == 7);
	CHECK(la.nrows == 7 && la.rows[1].kind == SHOW_HOLE && la.rows[1].bit_offset == 16 && la.rows[1].bit_size == 16);
	CHECK(la.nrows == 7 && strcmp(la.rows[3].path, "io.dir") == 0 && la.rows[3].depth == 2);
	CHECK(la.nrows == 7 && la.rows[4].kind == SHOW_HOLE && la.rows[4].depth == 2 && la.rows[4].bit_offset == 40);
	CHECK(la.nrows == 7 && strcmp(la.rows[5].path, "io.port") == 0 && la.rows[5].bit_offset == 48);
	CHECK(la.holes == 1 && la.hole_bits == 16 && lb.holes == 0);
	struct show_pair *p;
	size_t n = au_show_pair(&la, &lb, &p);
	/* x differs in size and type; the hole only in a; io and its rows the
	 * same; gone only in a, new only in b. */
	CHECK(n == 8);
	CHECK(n == 8 && p[0].a && p[0].b && p[0].what == (SHOW_DIFF_SIZE | SHOW_DIFF_TYPE));
	CHECK(n == 8 && p[1].a && !p[1].b && p[1].a->kind == SHOW_HOLE);
	CHECK(n == 8 && p[2].a && p[2].b && p[2].what == 0 && strcmp(p[2].a->path, "io") == 0);
	CHECK(n == 8 && p[6].a && !p[6].b && strcmp(p[6].a->path, "gone") == 0);
	CHECK(n == 8 && !p[7].a && p[7].b && strcmp(p[7].b->path, "new") == 0);
	free(p);
	au_arena_deinit(&ar);
	au_layout_model_deinit(&m);
}

int main(void)
{
	test_resolve();
	test_rename_in_union();
	test_show();
	test_statuses();
	test_sorted_flag();
	test_flatten();
	test_conventions_table();
	test_names();
	test_severities();
	test_strmap();
	return check_summary("unit");
}
