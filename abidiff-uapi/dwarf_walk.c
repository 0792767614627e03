/* The DIE walk: every unit (compile, partial, type and split units, dwz
 * imports), namespaces and the classes g++ nests types in; pass 0 learns the
 * names typedefs and namespaces give aggregates, pass 1 reads every named
 * definition. A name defined with more than one layout keeps them all.
 *
 * - g++ nests named types in their parent and gives typedef'd anonymous
 *   aggregates a linkage name; types are paired by their own name, so the
 *   walk collects named types at any depth.
 * - Declarations (DW_AT_declaration) are not definitions.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_internal.h"
#include "typekey.h"
#include "xmem.h"

/* libdw signals corrupt DIEs with negative results and DW_TAG_invalid. */
static bool walk_error(struct reader *r, int rc, Dwarf_Die *die)
{
	if (rc >= 0 && (!die || dwarf_tag(die) != DW_TAG_invalid))
		return false;
	/* dwarf_errno() clears the error it returns: keep it. */
	int e = dwarf_errno();
	if (!r->err)
		r->err = au_error_format("%s: corrupt .debug_info near offset 0x%llx: %s", r->path,
					 die ? (unsigned long long)dwarf_dieoffset(die) : 0ULL,
					 e ? dwarf_errmsg(e) : "invalid DIE");
	return true;
}

static void walk_unit(struct reader *r, Dwarf_Die *cu, int pass);

/* A DW_TAG_imported_unit (dwz): the partial unit it names, in this file or
 * in the supplement, is read as if its DIEs stood here. */
static void import_unit(struct reader *r, Dwarf_Die *die, int pass)
{
	Dwarf_Attribute attr;
	Dwarf_Die pu;
	if (!dwarf_attr(die, DW_AT_import, &attr) || !dwarf_formref_die(&attr, &pu)) {
		set_error(r, au_error_format("%s: the unit at 0x%llx imports a unit that cannot be read%s", r->path,
					     (unsigned long long)(dwarf_dieoffset(die) - dwarf_cuoffset(die)),
					     r->has_alt ? "" : " (a dwz supplement is missing?)"));
		return;
	}
	r->imports = true;
	walk_unit(r, &pu, pass);
}

/* A unit's type DIEs are met again only from the unit itself, unless a
 * unit imports another (dwz) or refers to type units: a whole kernel's
 * millions of type DIEs need not be remembered past their unit. (A
 * reference into another unit, DW_FORM_ref_addr, is read again there.) */
void forget_unit_types(struct reader *r)
{
	if (r->imports || have_type_units || r->infos.count == 0)
		return;
	au_intmap_deinit(&r->infos);
	au_intmap_init(&r->infos);
	au_arena_reset(&r->info_mem);
}

/* "ns::" prefixes of C++ namespaces, "(anonymous namespace)::" for one
 * with no name. */
static const char *qualify(struct reader *r, const char *qual, Dwarf_Die *ns)
{
	const char *n = die_name(r, ns);
	return au_arena_printf(&r->model->arena, "%s%s::", qual, n ? n : "(anonymous namespace)");
}

/* One walk over the children of a DIE for both passes: corrupt DIEs are
 * errors, nesting deeper than MAX_DEPTH is an error, an imported unit (dwz)
 * is read in place for this pass, and every other child goes to visit,
 * which may walk on below it. The walk stops at the first error. */
typedef void die_visitor(struct reader *r, Dwarf_Die *die, int tag, const void *ctx, int depth);

static void walk_children(struct reader *r, Dwarf_Die *parent, int pass, die_visitor *visit, const void *ctx,
			  int depth)
{
	Dwarf_Die child;
	int rc;
	if (depth > MAX_DEPTH) {
		too_deep(r);
		return;
	}
	if ((rc = dwarf_child(parent, &child)) > 0 || walk_error(r, rc, NULL))
		return;
	do {
		if (walk_error(r, 0, &child))
			return;
		int tag = dwarf_tag(&child);
		if (pass == 0 && (tag == DW_TAG_imported_unit || tag == DW_TAG_namespace || tag == DW_TAG_variable ||
				  is_aggregate_tag(tag)))
			r->nested_seen = true;
		if (tag == DW_TAG_imported_unit)
			import_unit(r, &child, pass);
		else
			visit(r, &child, tag, ctx, depth);
		if (r->err)
			return;
	} while ((rc = dwarf_siblingof(&child, &child)) == 0);
	walk_error(r, rc, NULL);
}

/* Where pass 1 is: the namespace prefix ("ns::") and the class it is in. */
struct typedef_ctx {
	const char *qual;
	const char *scope;
};

/* typedef struct foo foo_t (or typedef const bar_t baz_t): the model
 * records what the name stands for, so that a user may name the aggregate
 * by it. Qualifiers are looked through; pointers are not (foo_t * is no
 * struct), and an anonymous aggregate is named by the typedef already. */
static void note_typedef(struct reader *r, Dwarf_Die *td, const char *qual, const char *name)
{
	Dwarf_Die t;
	if (!die_type(td, &t))
		return;
	int tag = dwarf_tag(&t);
	for (int i = 0; i < 16 && (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
				    tag == DW_TAG_restrict_type); i++) {
		if (!die_type(&t, &t))
			return;
		tag = dwarf_tag(&t);
	}
	const char *tn = die_name(r, &t);
	if (!tn || (tag != DW_TAG_typedef && !is_aggregate_tag(tag)))
		return;
	const char *target = tag == DW_TAG_typedef ? intern(r, tn)
			     : au_typekey_named(&r->model->arena, aggregate_prefix(tag), tn);
	au_layout_model_add_typedef(r->model, au_arena_concat3(&r->model->arena, qual, name, ""), target);
}

/* Pass 1: remember which anonymous aggregates a typedef names, directly or
 * through a pointer (typedef struct {...} *Ptr), what the other typedefs
 * stand for, and the namespace of every aggregate in one. */
static void visit_typedefs(struct reader *r, Dwarf_Die *child, int tag, const void *arg, int depth)
{
	const struct typedef_ctx *ctx = arg;
	const char *qual = ctx->qual;
	if (tag == DW_TAG_typedef) {
		const char *name = die_name(r, child);
		Dwarf_Die target;
		bool ptr = false;
		if (name)
			note_typedef(r, child, qual, name);
		if (name && die_type(child, &target) && dwarf_tag(&target) == DW_TAG_pointer_type &&
		    die_type(&target, &target))
			ptr = true;
		if (name && (ptr || die_type(child, &target)) && is_aggregate_tag(dwarf_tag(&target)) &&
		    !die_name(r, &target) && !is_declaration(&target)) {
			struct strmap *m = ptr ? &r->ptr_names : &r->anon_names;
			if (!au_strmap_iget(m, die_key(&target))) {
				const char *tn = au_arena_concat3(&r->model->arena, qual, name, "");
				au_strmap_iput(m, die_key(&target),
					    (void *)(ptr ? au_typekey_ptr_typedef(&r->model->arena, tn) : au_typekey_typedef(tn)));
			}
		}
	} else if (tag == DW_TAG_namespace) {
		struct typedef_ctx inner = { .qual = qualify(r, qual, child) };
		walk_children(r, child, 0, visit_typedefs, &inner, depth + 1);
	} else if (is_aggregate_tag(tag)) {
		const char *n = die_name(r, child);
		/* Those that get a name of their own in the model: a named one,
		 * an enum (an anonymous one is keyed by its enumerators). An
		 * anonymous struct or union nested in a member gets none. */
		if (n || tag == DW_TAG_enumeration_type)
			r->aggregates++;
		if (*qual && n)
			au_strmap_iput(&r->qual_names, die_key(child),
				    (void *)au_arena_concat3(&r->model->arena, qual, n, ""));
		/* A class's member type declared here and defined elsewhere
		 * (DW_AT_specification: out of line, or in a type unit): its
		 * scope is this class. */
		if (ctx->scope && is_declaration(child))
			au_strmap_iput(&r->decl_scopes, die_key(child), (void *)ctx->scope);
		if (tag != DW_TAG_enumeration_type) {
			struct typedef_ctx inner = {
				.qual = qual,
				.scope = n ? au_typekey_named(&r->model->arena, aggregate_prefix(tag),
							      au_arena_concat3(&r->model->arena, qual, n, ""))
					   : NULL,
			};
			bool seen = r->nested_seen;
			r->nested_seen = false;
			walk_children(r, child, 0, visit_typedefs, &inner, depth + 1);
			if (r->nested_seen)
				au_intmap_put(&r->nested, die_key(child), r);
			r->nested_seen = seen;
		}
	}
}

/* A definition read into r->dup_tmp, copied into the model: its own
 * member and enumerator names interned, its place found (read_aggregate
 * leaves both to this). */
static struct layout_type *keep_definition(struct reader *r, struct layout_type *t, Dwarf_Die *die)
{
	struct arena *a = &r->model->arena;
	t = au_arena_memdup(a, t, sizeof(*t));
	if (t->nmembers)
		t->members = au_arena_memdup(a, t->members, t->nmembers * sizeof(*t->members));
	for (size_t i = 0; i < t->nmembers; i++)
		t->members[i].name = intern(r, t->members[i].name);
	if (t->nenumerators)
		t->enumerators = au_arena_memdup(a, t->enumerators, t->nenumerators * sizeof(*t->enumerators));
	for (size_t i = 0; i < t->nenumerators; i++)
		t->enumerators[i].name = intern(r, t->enumerators[i].name);
	if (t->name) {
		t->file = decl_file(r, die);
		int line;
		if (dwarf_decl_line(die, &line) == 0 && line > 0)
			t->line = (unsigned)line;
	}
	return t;
}

/* An anonymous enum: named constants, kept as a type named after its first
 * enumerator so that the comparer can pair its enumerators by name. */
static void read_anonymous_enum(struct reader *r, Dwarf_Die *die, const char *scope)
{
	r->body = &r->dup_tmp;
	struct layout_type *t = read_aggregate(r, die, NULL, 0);
	r->body = &r->model->arena;
	if (r->err || t->nenumerators == 0 ||
	    au_layout_model_find(r->model, au_typekey_anon_enum_name(&r->dup_tmp, t->enumerators[0].name))) {
		/* (found: the same enum seen again, in another unit or a g++ scope) */
		au_arena_reset(&r->dup_tmp);
		return;
	}
	struct arena *a = &r->model->arena;
	t = keep_definition(r, t, die);
	au_arena_reset(&r->dup_tmp);
	t->name = au_typekey_anon_enum_name(a, t->enumerators[0].name);
	t->anonymous = true;
	t->scope = scope;
	t->file = decl_file(r, die);
	int line;
	if (dwarf_decl_line(die, &line) == 0 && line > 0)
		t->line = (unsigned)line;
	au_layout_model_add(r->model, t);
}

/* A definition's layout as one string: two definitions are the same type
 * when their keys are equal. */
static const char *definition_key(struct reader *r, struct layout_type *t)
{
	const char *k = au_strmap_iget(&r->odr_keys, (uint64_t)(uintptr_t)t);
	if (!k) {
		k = au_typekey_definition(&r->model->arena, t);
		au_strmap_iput(&r->odr_keys, (uint64_t)(uintptr_t)t, (void *)k);
	}
	return k;
}

/* The members of a and b are the same one by one: names, places, widths
 * and types, anonymous members' layouts alike. Then their flattened views,
 * and so their definition keys, are equal; when this says false, the keys
 * decide. A whole kernel repeats each header's types in thousands of units:
 * this spares building the two keys for each repetition. */
static bool same_members(const struct layout_type *a, const struct layout_type *b, int depth)
{
	if (a == b)
		return true;
	if (depth > MAX_DEPTH || a->kind != b->kind || a->size != b->size || a->nmembers != b->nmembers ||
	    a->nenumerators != b->nenumerators)
		return false;
	for (size_t i = 0; i < a->nenumerators; i++) {
		const struct layout_enumerator *x = &a->enumerators[i], *y = &b->enumerators[i];
		if (x->value != y->value || !au_same_str(x->name, y->name))
			return false;
	}
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct layout_member *x = &a->members[i], *y = &b->members[i];
		if (x->bit_offset != y->bit_offset || x->is_bitfield != y->is_bitfield ||
		    (x->is_bitfield && x->bit_size != y->bit_size) || x->flexible != y->flexible ||
		    !au_same_str(x->name, y->name))
			return false;
		if (x->type == y->type)
			continue;
		if (x->type->size != y->type->size || !au_same_str(x->type->key, y->type->key) ||
		    (x->type->layout == NULL) != (y->type->layout == NULL))
			return false;
		if (!x->name && x->type->layout && !same_members(x->type->layout, y->type->layout, depth + 1))
			return false;
	}
	return true;
}

/* Another definition of first's name, read into r->dup_tmp: dropped when
 * some definition already has its layout, else copied into the model and
 * chained as an ODR conflict. */
static void add_definition(struct reader *r, struct layout_type *first, struct layout_type *t, Dwarf_Die *die)
{
	for (struct layout_type *d = first; d; d = d->odr_next)
		if (d->align == t->align && au_same_str(d->scope, t->scope) && same_members(d, t, 0))
			return;
	/* Into the model before its key is kept (odr_keys is keyed by address). */
	t = keep_definition(r, t, die);
	const char *k = definition_key(r, t);
	struct layout_type *last = first;
	for (struct layout_type *d = first; d; d = d->odr_next) {
		if (strcmp(definition_key(r, d), k) == 0)
			return;
		last = d;
	}
	last->odr_next = t;
	r->odr_conflicts++;
}

/* Definitions of one name in different classes (C++'s A::Node and
 * B::Node) are different types, not an ODR conflict: each is renamed after
 * its class and stands alone. The common case, one class per name, keeps
 * the own name that C gives the same type. */
void split_scoped(struct reader *r)
{
	struct layout_model *m = r->model;
	size_t n0 = m->ntypes;
	bool renamed = false;
	for (size_t i = 0; i < n0; i++) {
		struct layout_type *first = m->types[i];
		bool mixed = false;
		for (struct layout_type *d = first->odr_next; d && !mixed; d = d->odr_next)
			mixed = (d->scope == NULL) != (first->scope == NULL) ||
				(d->scope && first->scope && strcmp(d->scope, first->scope) != 0);
		if (!mixed)
			continue;
		struct layout_type *d = first->odr_next;
		first->odr_next = NULL;
		if (first->scope) {
			first->name = au_typekey_scoped(&r->model->arena, first->name, first->scope);
			renamed = true;
		}
		while (d) {
			struct layout_type *next = d->odr_next;
			d->odr_next = NULL;
			if (d->scope)
				d->name = au_typekey_scoped(&r->model->arena, d->name, d->scope);
			/* Same class again: a real second layout, chained. */
			struct layout_type *same = NULL;
			for (size_t k = 0; k < m->ntypes && !same; k++)
				if (strcmp(m->types[k]->name, d->name) == 0)
					same = m->types[k];
			if (same) {
				struct layout_type *last = same;
				while (last->odr_next)
					last = last->odr_next;
				last->odr_next = d;
			} else {
				au_layout_model_append(m, d);
			}
			d = next;
		}
	}
	if (renamed || m->ntypes != n0) {
		/* Names changed: the index is rebuilt. */
		au_layout_model_reindex(m);
	}
}

/* Puts each name's definitions in layout-key order, the first in the
 * model's own slot (its address is the model's), so that which unit came
 * first does not decide which layout is compared. */
void order_definitions(struct reader *r)
{
	for (size_t i = 0; i < r->model->ntypes; i++) {
		struct layout_type *first = r->model->types[i];
		if (!first->odr_next)
			continue;
		size_t n = 0;
		for (struct layout_type *d = first; d; d = d->odr_next)
			n++;
		struct layout_type **v = au_xmalloc(n * sizeof(*v));
		struct layout_type *copies = au_xmalloc(n * sizeof(*copies));
		const char **keys = au_xmalloc(n * sizeof(*keys));
		size_t k = 0;
		for (struct layout_type *d = first; d; d = d->odr_next, k++) {
			v[k] = d;
			copies[k] = *d;
			keys[k] = definition_key(r, d);
		}
		/* Selection of the order by key (n is small). */
		size_t *order = au_xmalloc(n * sizeof(*order));
		for (size_t a = 0; a < n; a++)
			order[a] = a;
		for (size_t a = 0; a < n; a++)
			for (size_t b = a + 1; b < n; b++)
				if (strcmp(keys[order[b]], keys[order[a]]) < 0) {
					size_t t = order[a];
					order[a] = order[b];
					order[b] = t;
				}
		for (size_t a = 0; a < n; a++) {
			*v[a] = copies[order[a]];
			v[a]->odr_next = a + 1 < n ? v[a + 1] : NULL;
		}
		free(order);
		free(keys);
		free(copies);
		free(v);
	}
}

/* Pass 2: every named definition, at any depth (g++ nests them), in any
 * namespace. ctx is the scope: the model name of the enclosing type, or NULL. */
static void visit_types(struct reader *r, Dwarf_Die *die, int tag, const void *ctx, int depth)
{
	const char *scope = ctx;
	if (tag == DW_TAG_namespace) {
		walk_children(r, die, 1, visit_types, scope, depth + 1);
		return;
	}
	if (tag == DW_TAG_variable) {
		if (!scope)
			read_constant(r, die);
		return;
	}
	if (!is_aggregate_tag(tag))
		return;
	/* "struct foo", or the typedef naming an anonymous one: the type's
	 * model name, and the scope of what g++ nests in it. */
	const char *n = au_strmap_iget(&r->qual_names, die_key(die));
	if (!n)
		n = die_name(r, die);
	const char *name = n ? au_typekey_named(&r->model->arena, aggregate_prefix(tag), n)
			     : au_strmap_iget(&r->anon_names, die_key(die));
	bool typedef_name = !n && name;
	const char *own_scope = scope;
	Dwarf_Attribute spec_attr;
	Dwarf_Die spec;
	if (dwarf_attr(die, DW_AT_specification, &spec_attr) && dwarf_formref_die(&spec_attr, &spec)) {
		/* Defined outside the class that declares it: named and
		 * scoped as the declaration is. */
		const char *ds = au_strmap_iget(&r->decl_scopes, die_key(&spec));
		if (ds)
			own_scope = ds;
		if (!n) {
			const char *sn = au_strmap_iget(&r->qual_names, die_key(&spec));
			if (!sn)
				sn = die_name(r, &spec);
			if (sn) {
				name = au_typekey_named(&r->model->arena, aggregate_prefix(tag), sn);
				typedef_name = false;
			}
		}
	}
	if (!is_declaration(die) && dwarf_hasattr(die, DW_AT_byte_size)) {
		if (!name && tag == DW_TAG_enumeration_type) {
			r->current = "an anonymous enum";
			read_anonymous_enum(r, die, own_scope);
			return;
		}
		struct layout_type *first = name ? au_layout_model_find(r->model, name) : NULL;
		/* C++ may nest two types of one name in two classes, in one unit. */
		if (name && (!first || r->multi_unit || r->model->lang == LANG_CXX)) {
			/* A name seen before (in another unit of a library) is read
			 * again: a second layout under it is kept, not dropped. */
			r->current = name;
			/* Another definition is most often the same one again:
			 * read aside, and kept only when it differs. */
			if (first)
				r->body = &r->dup_tmp;
			struct layout_type *t = read_aggregate(r, die, name, 0);
			r->body = &r->model->arena;
			if (r->err)
				return;
			t->scope = own_scope;
			t->is_typedef = typedef_name;
			if (!first)
				au_layout_model_add(r->model, t);
			else
				add_definition(r, first, t, die);
			au_arena_reset(&r->dup_tmp);
		}
		r->definitions++;
	}
	if (tag != DW_TAG_enumeration_type && au_intmap_get(&r->nested, die_key(die)))
		walk_children(r, die, 1, visit_types, name, depth + 1);
}

static enum layout_lang language_of(Dwarf_Word lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case 0x2c: /* DW_LANG_C17, DWARF 6 draft; newer compilers emit it */
		return LANG_C;
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case 0x2a: /* DW_LANG_C_plus_plus_17 */
	case 0x2b: /* DW_LANG_C_plus_plus_20 */
		return LANG_CXX;
	default:
		return LANG_OTHER;
	}
}

/* Reads one unit (a compile, partial or type unit, or a split unit), once
 * per pass whoever imports it. */
static void walk_unit(struct reader *r, Dwarf_Die *cu, int pass)
{
	if (au_strmap_iget(&r->visited[pass], die_key(cu)))
		return;
	au_strmap_iput(&r->visited[pass], die_key(cu), r);
	Dwarf *dw = dwarf_cu_getdwarf(cu->cu);
	add_regions(r, dw ? dwarf_getelf(dw) : NULL, r->path);
	if (r->err)
		return;
	const char *saved = r->comp_dir;
	bool saved_files = r->no_files;
	/* Type units and split units have no DW_AT_comp_dir: theirs is the
	 * compile unit's (the skeleton's, for a split unit). */
	r->comp_dir = r->default_comp_dir;
	Dwarf_Attribute attr;
	if (dwarf_attr(cu, DW_AT_comp_dir, &attr)) {
		const char *cd = dwarf_formstring(&attr);
		if (string_ok(r, cd)) {
			r->comp_dir = cd;
			if (!r->default_comp_dir)
				r->default_comp_dir = cd;
		}
	}
	/* libdw 0.188 asserts in dwarf_decl_file on a split unit whose file
	 * table was not read first: read it here, and use no declaring files
	 * in a unit whose table cannot be read. */
	Dwarf_Files *files;
	size_t nfiles;
	r->no_files = dwarf_getsrcfiles(cu, &files, &nfiles) != 0;
	r->units++;
	if (pass == 0 && r->model->lang == LANG_UNKNOWN && dwarf_tag(cu) != DW_TAG_type_unit) {
		Dwarf_Word lang;
		if (attr_udata(cu, DW_AT_language, &lang))
			r->model->lang = language_of(lang);
	}
	if (pass == 0)
		walk_children(r, cu, 0, visit_typedefs, &(struct typedef_ctx){ .qual = "" }, 0);
	else
		walk_children(r, cu, 1, visit_types, NULL, 0);
	r->comp_dir = saved;
	r->no_files = saved_files;
}

static const char *unit_dwo_name(struct reader *r, Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	const char *n = NULL;
	if (dwarf_attr(cu, DW_AT_dwo_name, &attr) || dwarf_attr(cu, DW_AT_GNU_dwo_name, &attr))
		n = dwarf_formstring(&attr);
	return n && string_ok(r, n) ? n : NULL;
}

/* Every unit of one Dwarf: compile and partial units, type units (DWARF 4
 * .debug_types and DWARF 5 DW_UT_type), and through each skeleton unit the
 * split unit of its .dwo. A unit that cannot be read is an error naming the
 * file and the unit's offset: never a partial model. */
void walk_units(struct reader *r, Dwarf *dw, const char *file, int pass)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t ut;
	Dwarf_Die cudie, subdie;
	unsigned long long last = 0;
	int rc;
	while (!r->err && (rc = dwarf_get_units(dw, cu, &next, &version, &ut, &cudie, &subdie)) == 0) {
		cu = next;
		if (!cudie.addr || dwarf_tag(&cudie) == DW_TAG_invalid) {
			set_error(r, au_error_format("%s: a unit at or after offset 0x%llx cannot be read (DWARF version %u, "
						     "unit type 0x%x)", file, last, (unsigned)version, (unsigned)ut));
			return;
		}
		unsigned long long off = dwarf_dieoffset(&cudie) - dwarf_cuoffset(&cudie);
		last = off;
		switch (ut) {
		case DW_UT_compile:
		case DW_UT_partial:
		case DW_UT_type:
		case DW_UT_split_compile:
		case DW_UT_split_type:
			walk_unit(r, &cudie, pass);
			forget_unit_types(r);
			/* Every string of the unit's types is interned by now. */
			au_arena_reset(&r->type_tmp);
			break;
		case DW_UT_skeleton: {
			if (!subdie.addr || dwarf_tag(&subdie) == DW_TAG_invalid) {
				Dwarf_Attribute attr;
				const char *cd = dwarf_attr(&cudie, DW_AT_comp_dir, &attr) ? dwarf_formstring(&attr) : NULL;
				const char *dwo = unit_dwo_name(r, &cudie);
				if (!dwo)
					set_error(r, au_error_format("%s: the split DWARF unit at 0x%llx names its .dwo in a "
								     "form this libdw cannot read (clang's DW_FORM_strx "
								     "in a .o): not read", file, off));
				else {
					/* A DWARF package beside the object: libdw 0.188 does
					 * not read .dwp files. */
					char *dwp = au_xasprintf("%s.dwp", r->path);
					bool has_dwp = access(dwp, F_OK) == 0;
					free(dwp);
					set_error(r, au_error_format("%s: the split DWARF unit at 0x%llx is in %s, which was "
								     "not found (looked in %s and beside %s)%s", file, off, dwo,
								     cd && string_ok(r, cd) ? cd : "(no comp_dir)", file,
								     has_dwp ? "; its .dwp package is not read by this libdw "
									       "(elfutils 0.188)" : ""));
				}
				return;
			}
			Dwarf *sd = dwarf_cu_getdwarf(subdie.cu);
			if (sd && !au_strmap_iget(&r->visited[pass], (uint64_t)(uintptr_t)sd)) {
				/* The .dwo's own type units as well as its compile unit. */
				au_strmap_iput(&r->visited[pass], (uint64_t)(uintptr_t)sd, r);
				Dwarf_Attribute attr;
				const char *cd = dwarf_attr(&cudie, DW_AT_comp_dir, &attr) ? dwarf_formstring(&attr) : NULL;
				const char *saved = r->default_comp_dir;
				r->default_comp_dir = cd && string_ok(r, cd) ? cd : saved;
				const char *dwo = unit_dwo_name(r, &cudie);
				walk_units(r, sd, dwo ? dwo : file, pass);
				r->default_comp_dir = saved;
			}
			break;
		}
		default:
			set_error(r, au_error_format("%s: the unit at 0x%llx has unit type 0x%x, which this reader does not "
						     "know: not read", file, off, (unsigned)ut));
			return;
		}
	}
	if (rc < 0 && !r->err) {
		int e = dwarf_errno();
		set_error(r, au_error_format("%s: corrupt debug information after the unit at 0x%llx: %s", file, last,
					     dwarf_errmsg(e)));
	}
}
