/* DWARF -> layout model.
 *
 * Traps this file handles (measured, see shared/notes/dwarf-facts.md):
 * - gcc's DWARF 5 bitfields use DW_AT_data_bit_offset; DWARF 4 and clang use
 *   the big-endian-style DW_AT_bit_offset relative to a storage unit.
 * - T[] has no bound, C's T[0] has DW_AT_count 0, g++'s T[0] has an upper
 *   bound of all ones: all three are a flexible array of size 0.
 * - g++ nests named types in their parent and gives typedef'd anonymous
 *   aggregates a linkage name; types are paired by their own name, so the
 *   walk collects named types at any depth.
 * - Declarations (DW_AT_declaration) are not definitions.
 * - Corrupt input can make type chains cycle: every recursion is bounded.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf_reader.h"

enum { MAX_DEPTH = 48 };

/* What we know of one type DIE, computed once. */
struct type_info {
	const char *display;      /* as written */
	const char *key;          /* canonical */
	const char *embeds;       /* named aggregate held by value, or NULL */
	uint64_t size;
	bool has_size;
	bool flexible;            /* an array with no elements */
	bool busy;                /* being computed: a cycle in corrupt input */
	struct layout_type *layout;   /* an anonymous struct/union: its layout, read once */
};

struct reader {
	struct layout_model *model;
	const char *path;
	bool big_endian;
	unsigned address_size;
	struct strmap infos;          /* DIE offset -> struct type_info * */
	struct strmap anon_names;     /* aggregate DIE offset -> typedef name */
	struct strmap files;          /* interned declaring files */
	const char *comp_dir;
	struct au_error *err;
	/* The debug sections' data in memory, to check strings (see die_name). */
	struct region {
		const unsigned char *base, *end;
	} regions[32];
	size_t nregions;
};

/* The first error is the one reported; later ones (from unwinding nested
 * reads) are dropped. */
static void set_error(struct reader *r, struct au_error *err)
{
	if (r->err)
		au_error_destroy(err);
	else
		r->err = err;
}

static struct au_error *dw_error(const struct reader *r, const char *what)
{
	return au_error_format("%s: %s: %s", r->path, what, dwarf_errmsg(-1));
}

/* libdw 0.188 hands out strings (inline DW_FORM_string, or from
 * .debug_str and .debug_line_str) without checking that they end inside
 * their section; in a corrupt object one can run off the end (found by
 * fuzz-dwarf after 6.5 million runs). A string is used only when it lies in
 * one of the object's debug sections with a NUL before that section's end. */
static bool string_in_sections(const struct reader *r, const char *str, bool outside_ok)
{
	const unsigned char *p = (const unsigned char *)str;
	for (size_t i = 0; str && i < r->nregions; i++)
		if (p >= r->regions[i].base && p < r->regions[i].end)
			return memchr(p, '\0', (size_t)(r->regions[i].end - p)) != NULL;
	return str && outside_ok;
}

static bool string_ok(const struct reader *r, const char *str)
{
	return string_in_sections(r, str, false);
}

/* For strings libdw may also build itself (a declaring file joined to its
 * directory): checked when they point into a section, trusted otherwise. */
static bool string_ok_or_built(const struct reader *r, const char *str)
{
	return string_in_sections(r, str, true);
}

/* Finds the debug sections in memory. A string section that does not end in
 * a NUL lets any of its strings run off the end, inside libdw too (its line
 * table reader calls strlen on them; found by fuzz-dwarf), so such a file is
 * corrupt: the section's name is returned. */
static const char *find_regions(struct reader *r, Dwarf *dw)
{
	Elf *elf = dwarf_getelf(dw);
	size_t shstrndx;
	const char *bad = NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) && r->nregions < sizeof(r->regions) / sizeof(r->regions[0])) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!n || (strncmp(n, ".debug_", 7) != 0 && strncmp(n, ".zdebug_", 8) != 0) || sh.sh_type == SHT_NOBITS)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size) {
			r->regions[r->nregions].base = d->d_buf;
			r->regions[r->nregions].end = (const unsigned char *)d->d_buf + d->d_size;
			r->nregions++;
			const char *base = n[1] == 'z' ? n + 2 : n + 1;   /* "debug_str" of .zdebug_str too */
			if ((strcmp(base, "debug_str") == 0 || strcmp(base, "debug_line_str") == 0) && !bad &&
			    ((const char *)d->d_buf)[d->d_size - 1] != '\0')
				bad = n;
		}
	}
	return bad;
}

static const char *die_name(const struct reader *r, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr(die, DW_AT_name, &attr))
		return NULL;
	/* Bounds first: even the first byte may lie outside every section. */
	const char *n = dwarf_formstring(&attr);
	return n && string_ok(r, n) && *n ? n : NULL;
}

static bool is_declaration(Dwarf_Die *die)
{
	bool flag = false;
	Dwarf_Attribute attr;
	if (dwarf_attr(die, DW_AT_declaration, &attr))
		dwarf_formflag(&attr, &flag);
	return flag;
}

static bool die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr(die, DW_AT_type, &attr))
		return false;
	return dwarf_formref_die(&attr, ret) != NULL;
}

static bool attr_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *ret)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr(die, name, &attr))
		return false;
	return dwarf_formudata(&attr, ret) == 0;
}

/* Lexically normalised absolute path of a declaring file. */
static const char *decl_file(struct reader *r, Dwarf_Die *die)
{
	const char *f = dwarf_decl_file(die);
	if (!string_ok_or_built(r, f))
		return NULL;
	char *joined = NULL;
	if (f[0] != '/' && r->comp_dir) {
		if (asprintf(&joined, "%s/%s", r->comp_dir, f) < 0)
			return NULL;
		f = joined;
	}
	/* Collapse "//", "/./" and "dir/../" without touching the disk: the
	 * headers need not exist on the machine that reads the object. */
	size_t len = strlen(f);
	char *out = malloc(len + 2);
	if (!out) {
		free(joined);
		return NULL;
	}
	size_t o = 0;
	const char *p = f;
	while (*p) {
		while (*p == '/')
			p++;
		const char *s = p;
		while (*p && *p != '/')
			p++;
		size_t n = (size_t)(p - s);
		if (n == 0 || (n == 1 && s[0] == '.'))
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		if (o > 0 || f[0] == '/')
			out[o++] = '/';
		memcpy(out + o, s, n);
		o += n;
	}
	out[o] = '\0';
	/* Interned: thousands of types share a few hundred files. */
	char *res = strmap_get(&r->files, out);
	if (!res) {
		res = arena_strdup(&r->model->arena, out);
		strmap_put(&r->files, res, res);
	}
	free(out);
	free(joined);
	return res;
}

static struct type_info *type_info_of(struct reader *r, Dwarf_Die *die, int depth);
static struct layout_type *read_aggregate(struct reader *r, Dwarf_Die *die, const char *name, int depth);

static struct type_info *new_info(struct reader *r, Dwarf_Die *die)
{
	struct type_info *ti = arena_alloc(&r->model->arena, sizeof(*ti));
	strmap_iput(&r->infos, dwarf_dieoffset(die), ti);
	return ti;
}

static const char *base_key(struct reader *r, Dwarf_Die *die, uint64_t size)
{
	Dwarf_Word enc = 0;
	attr_udata(die, DW_AT_encoding, &enc);
	enum layout_base base;
	switch (enc) {
	case DW_ATE_boolean: base = BASE_BOOL; break;
	case DW_ATE_signed:
	case DW_ATE_signed_char: base = BASE_SIGNED; break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char: base = BASE_UNSIGNED; break;
	case DW_ATE_float: base = BASE_FLOAT; break;
	case DW_ATE_complex_float: base = BASE_COMPLEX; break;
	case DW_ATE_UTF: base = BASE_UTF; break;
	default: base = BASE_OTHER; break;
	}
	const char *name = die_name(r, die);
	if (name && strcmp(name, "char") == 0 && (base == BASE_SIGNED || base == BASE_UNSIGNED))
		base = BASE_CHAR;
	return layout_base_key(&r->model->arena, base, 8 * size, name);
}

/* The element count of one array dimension; -1 for "no elements" ([] or
 * [0] in any of its encodings). */
static int64_t subrange_count(Dwarf_Die *sub)
{
	Dwarf_Word v;
	Dwarf_Attribute attr;
	if (attr_udata(sub, DW_AT_count, &v))
		return v == 0 ? -1 : (int64_t)v;
	if (dwarf_attr(sub, DW_AT_upper_bound, &attr)) {
		Dwarf_Sword s;
		if (attr.form == DW_FORM_sdata || attr.form == DW_FORM_implicit_const) {
			if (dwarf_formsdata(&attr, &s) != 0)
				return -1;
			v = (Dwarf_Word)s;
		} else if (dwarf_formudata(&attr, &v) != 0) {
			return -1; /* e.g. a VLA bound in an exprloc */
		}
		Dwarf_Word lower = 0;
		attr_udata(sub, DW_AT_lower_bound, &lower);
		/* g++ writes T[0] as upper bound -1, in whatever width. */
		if (v == UINT64_MAX || v == UINT32_MAX || (int64_t)v < (int64_t)lower)
			return -1;
		return (int64_t)(v - lower + 1);
	}
	return -1;
}

static struct type_info *array_info(struct reader *r, Dwarf_Die *die, struct type_info *ti, int depth)
{
	Dwarf_Die elem;
	struct type_info *et = NULL;
	if (die_type(die, &elem))
		et = type_info_of(r, &elem, depth + 1);
	char dims[256] = "";
	size_t dl = 0;
	uint64_t count = 1;
	bool flexible = false;
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_subrange_type)
				continue;
			int64_t c = subrange_count(&child);
			if (c < 0) {
				flexible = true;
				c = 0;
			}
			count *= (uint64_t)c;
			int n = c ? snprintf(dims + dl, sizeof(dims) - dl, "[%" PRId64 "]", c)
				  : snprintf(dims + dl, sizeof(dims) - dl, "[]");
			if (n > 0 && (size_t)n < sizeof(dims) - dl)
				dl += (size_t)n;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (dl == 0) {
		strcpy(dims, "[]");
		flexible = true;
		count = 0;
	}
	const char *ed = et ? et->display : "void";
	const char *ek = et ? et->key : "void";
	ti->display = arena_printf(&r->model->arena, "%s%s", ed, dims);
	/* T[2][65] and T[130] are the same layout (and BTF, from pahole, keeps
	 * only the latter): the key counts elements. */
	ti->key = flexible ? arena_printf(&r->model->arena, "[]%s", ek)
			   : arena_printf(&r->model->arena, "[%" PRIu64 "]%s", count, ek);
	ti->embeds = et ? et->embeds : NULL;
	ti->flexible = flexible;
	ti->size = flexible ? 0 : count * (et && et->has_size ? et->size : 0);
	ti->has_size = true;
	return ti;
}

static struct type_info *function_info(struct reader *r, Dwarf_Die *die, struct type_info *ti, int depth)
{
	Dwarf_Die ret;
	const char *rk = "void";
	if (die_type(die, &ret)) {
		struct type_info *rt = type_info_of(r, &ret, depth + 1);
		rk = rt->key;
	}
	size_t cap = 64, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	buf[0] = '\0';
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			const char *k = NULL;
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_formal_parameter) {
				Dwarf_Die pt;
				k = die_type(&child, &pt) ? type_info_of(r, &pt, depth + 1)->key : "?";
			} else if (tag == DW_TAG_unspecified_parameters) {
				k = "...";
			}
			if (!k)
				continue;
			size_t need = len + strlen(k) + 2;
			if (need > cap) {
				cap = need * 2;
				char *nb = realloc(buf, cap);
				if (!nb) {
					free(buf);
					return NULL;
				}
				buf = nb;
			}
			len += (size_t)sprintf(buf + len, "%s%s", len ? "," : "", k);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	ti->key = arena_printf(&r->model->arena, "fn(%s;%s)", rk, buf);
	ti->display = "function";
	ti->has_size = false;
	free(buf);
	return ti;
}

/* gcc and clang spell base types differently; reports use one spelling so
 * that the same header gives the same report whichever compiler built it. */
static const char *base_spelling(const char *name)
{
	static const char *const map[][2] = {
		{ "long int", "long" },
		{ "long unsigned int", "unsigned long" },
		{ "short int", "short" },
		{ "short unsigned int", "unsigned short" },
		{ "long long int", "long long" },
		{ "long long unsigned int", "unsigned long long" },
		{ "__int128 unsigned", "unsigned __int128" },
	};
	for (size_t i = 0; name && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(name, map[i][0]) == 0)
			return map[i][1];
	return name;
}

static const char *aggregate_prefix(int tag)
{
	switch (tag) {
	case DW_TAG_union_type: return "union";
	case DW_TAG_enumeration_type: return "enum";
	default: return "struct";
	}
}

static struct type_info *type_info_of(struct reader *r, Dwarf_Die *die, int depth)
{
	struct type_info *ti = strmap_iget(&r->infos, dwarf_dieoffset(die));
	if (ti) {
		if (ti->busy) {
			static struct type_info cycle = { .display = "?", .key = "cycle" };
			return &cycle;
		}
		return ti;
	}
	ti = new_info(r, die);
	if (depth > MAX_DEPTH) {
		ti->display = "?";
		ti->key = "too-deep";
		return ti;
	}
	ti->busy = true;
	int tag = dwarf_tag(die);
	/* Copied: libdw's strings go away with the Dwfl, the model stays. */
	const char *name = arena_strdup(&r->model->arena, die_name(r, die));
	Dwarf_Word size = 0;
	Dwarf_Die target;
	struct type_info *tt;
	switch (tag) {
	case DW_TAG_base_type:
		ti->has_size = attr_udata(die, DW_AT_byte_size, &size);
		ti->size = size;
		ti->display = name ? base_spelling(name) : "?";
		ti->key = base_key(r, die, size);
		break;
	case DW_TAG_unspecified_type: /* decltype(nullptr) */
		ti->display = name ? name : "?";
		ti->key = arena_printf(&r->model->arena, "unspecified:%s", ti->display);
		ti->size = r->address_size;
		ti->has_size = true;
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type: {
		const char *sigil = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_ptr_to_member_type ? "::*" : "&";
		if (die_type(die, &target)) {
			tt = type_info_of(r, &target, depth + 1);
			ti->display = strcmp(tt->display, "function") == 0
					      ? arena_printf(&r->model->arena, "%s", "function *")
					      : arena_printf(&r->model->arena, "%s %s", tt->display, sigil);
			ti->key = arena_printf(&r->model->arena, "%s%s", sigil, tt->key);
		} else {
			ti->display = arena_printf(&r->model->arena, "void %s", sigil);
			ti->key = arena_printf(&r->model->arena, "%svoid", sigil);
		}
		ti->has_size = attr_udata(die, DW_AT_byte_size, &size);
		ti->size = ti->has_size ? size : r->address_size;
		ti->has_size = true;
		break;
	}
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
	case DW_TAG_packed_type:
	case DW_TAG_shared_type:
		if (die_type(die, &target)) {
			tt = type_info_of(r, &target, depth + 1);
			*ti = *tt;
		} else {
			ti->key = "void";
			ti->display = "void";
			ti->embeds = NULL;
		}
		if (tag == DW_TAG_typedef && name)
			ti->display = name;
		else if (tag == DW_TAG_const_type)
			ti->display = arena_printf(&r->model->arena, "const %s", ti->display);
		else if (tag == DW_TAG_volatile_type)
			ti->display = arena_printf(&r->model->arena, "volatile %s", ti->display);
		break;
	case DW_TAG_array_type:
		array_info(r, die, ti, depth);
		break;
	case DW_TAG_subroutine_type:
		if (!function_info(r, die, ti, depth)) {
			ti->key = "fn";
			ti->display = "function";
		}
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type: {
		const char *prefix = aggregate_prefix(tag);
		const char *tdname = strmap_iget(&r->anon_names, dwarf_dieoffset(die));
		ti->has_size = attr_udata(die, DW_AT_byte_size, &size);
		ti->size = size;
		if (name) {
			ti->display = arena_printf(&r->model->arena, "%s %s", prefix, name);
			ti->key = ti->display;
			if (tag != DW_TAG_enumeration_type)
				ti->embeds = ti->display;
		} else if (tdname) {
			ti->display = tdname;
			ti->key = tdname;
			if (tag != DW_TAG_enumeration_type)
				ti->embeds = tdname;
		} else {
			struct layout_type *t = read_aggregate(r, die, NULL, depth + 1);
			ti->display = arena_printf(&r->model->arena, "%s {...}", prefix);
			ti->key = t ? layout_anon_key(&r->model->arena, t) : prefix;
			ti->layout = t;
		}
		break;
	}
	default:
		ti->display = name ? name : "?";
		ti->key = arena_printf(&r->model->arena, "tag%d:%s", tag, ti->display);
		break;
	}
	ti->busy = false;
	return ti;
}

/* The bit offset of a member from the start of its aggregate. */
static bool member_bit_offset(struct reader *r, Dwarf_Die *m, uint64_t bit_size, bool bitfield,
			      uint64_t type_size, uint64_t *ret)
{
	Dwarf_Word v;
	if (attr_udata(m, DW_AT_data_bit_offset, &v)) {
		*ret = v;
		return true;
	}
	uint64_t byte_off = 0;
	Dwarf_Attribute attr;
	if (dwarf_attr(m, DW_AT_data_member_location, &attr)) {
		if (attr.form == DW_FORM_exprloc || attr.form == DW_FORM_block ||
		    attr.form == DW_FORM_block1 || attr.form == DW_FORM_block2 || attr.form == DW_FORM_block4) {
			/* DWARF 2 style: DW_OP_plus_uconst N. */
			Dwarf_Op *ops;
			size_t nops;
			if (dwarf_getlocation(&attr, &ops, &nops) != 0 || nops != 1 ||
			    (ops[0].atom != DW_OP_plus_uconst && ops[0].atom != DW_OP_constu))
				return false;
			byte_off = ops[0].number;
		} else if (dwarf_formudata(&attr, &v) == 0) {
			byte_off = v;
		} else {
			return false;
		}
	}
	Dwarf_Word old_bit;
	if (bitfield && attr_udata(m, DW_AT_bit_offset, &old_bit)) {
		/* Old encoding: bit_offset counts from the most significant bit
		 * of a storage unit of DW_AT_byte_size (or the type's size). */
		Dwarf_Word storage = type_size;
		attr_udata(m, DW_AT_byte_size, &storage);
		if (r->big_endian) {
			*ret = 8 * byte_off + old_bit;
		} else {
			int64_t b = (int64_t)(8 * byte_off + 8 * storage) - (int64_t)old_bit - (int64_t)bit_size;
			if (b < 0)
				return false;
			*ret = (uint64_t)b;
		}
		return true;
	}
	*ret = 8 * byte_off;
	return true;
}

static struct layout_type *read_aggregate(struct reader *r, Dwarf_Die *die, const char *name, int depth)
{
	struct arena *a = &r->model->arena;
	struct layout_type *t = arena_alloc(a, sizeof(*t));
	int tag = dwarf_tag(die);
	t->kind = tag == DW_TAG_union_type ? LAYOUT_UNION
		: tag == DW_TAG_enumeration_type ? LAYOUT_ENUM : LAYOUT_STRUCT;
	t->name = name;
	Dwarf_Word v;
	if (attr_udata(die, DW_AT_byte_size, &v))
		t->size = v;
	if (attr_udata(die, DW_AT_alignment, &v))
		t->align = v;
	if (name) {
		t->file = decl_file(r, die);
		int line;
		if (dwarf_decl_line(die, &line) == 0 && line > 0)
			t->line = (unsigned)line;
	}
	if (depth > MAX_DEPTH)
		return t;

	/* Two passes: count, then fill, so arrays live in the arena. */
	size_t n = 0;
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			int ct = dwarf_tag(&child);
			if ((t->kind == LAYOUT_ENUM && ct == DW_TAG_enumerator) ||
			    (t->kind != LAYOUT_ENUM && ct == DW_TAG_member))
				n++;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (t->kind == LAYOUT_ENUM) {
		t->enumerators = arena_alloc(a, (n ? n : 1) * sizeof(*t->enumerators));
		if (dwarf_child(die, &child) != 0)
			return t;
		do {
			if (dwarf_tag(&child) != DW_TAG_enumerator || t->nenumerators >= n)
				continue;
			struct layout_enumerator *e = &t->enumerators[t->nenumerators];
			Dwarf_Attribute attr;
			const char *en = die_name(r, &child);
			if (!en || !dwarf_attr(&child, DW_AT_const_value, &attr))
				continue;
			if (attr.form == DW_FORM_sdata || attr.form == DW_FORM_implicit_const) {
				Dwarf_Sword s;
				if (dwarf_formsdata(&attr, &s) != 0)
					continue;
				e->value = s;
				e->is_unsigned = false;
			} else {
				/* gcc and clang write negative enumerators as sdata; a
				 * dataN value is the unsigned number itself, even in a
				 * signed enum (gcc: data1 225 for 225 in an int enum). */
				Dwarf_Word u;
				if (dwarf_formudata(&attr, &u) != 0)
					continue;
				e->value = (int64_t)u;
				e->is_unsigned = (int64_t)u < 0;
			}
			e->name = arena_strdup(a, en);
			t->nenumerators++;
		} while (dwarf_siblingof(&child, &child) == 0);
		return t;
	}

	t->members = arena_alloc(a, (n ? n : 1) * sizeof(*t->members));
	if (dwarf_child(die, &child) != 0)
		return t;
	do {
		if (dwarf_tag(&child) != DW_TAG_member || t->nmembers >= n)
			continue;
		if (is_declaration(&child)) /* a C++ static member */
			continue;
		struct layout_member *m = &t->members[t->nmembers];
		const char *mn = die_name(r, &child);
		m->name = mn ? arena_strdup(a, mn) : NULL;
		Dwarf_Die mt;
		if (!die_type(&child, &mt)) {
			set_error(r, au_error_format("%s: member %s of %s %s has no type", r->path,
						 mn ? mn : "(anonymous)", layout_kind_name(t->kind),
						 name ? name : "(anonymous)"));
			return t;
		}
		struct type_info *ti = type_info_of(r, &mt, depth + 1);
		m->type_name = ti->display;
		m->type_key = ti->key;
		m->embeds = ti->embeds;
		m->size = ti->size;
		m->flexible = ti->flexible;
		if (mn && ti->layout && ti->layout->kind != LAYOUT_ENUM)
			m->nested = ti->layout;
		Dwarf_Word bs;
		if (attr_udata(&child, DW_AT_bit_size, &bs)) {
			m->is_bitfield = true;
			m->bit_size = bs;
		} else {
			m->bit_size = 8 * m->size;
		}
		if (t->kind == LAYOUT_UNION && !dwarf_hasattr(&child, DW_AT_data_member_location) &&
		    !dwarf_hasattr(&child, DW_AT_data_bit_offset)) {
			m->bit_offset = 0;
		} else if (!member_bit_offset(r, &child, m->bit_size, m->is_bitfield, m->size, &m->bit_offset)) {
			set_error(r, au_error_format("%s: member %s of %s %s: unreadable offset", r->path,
						 mn ? mn : "(anonymous)", layout_kind_name(t->kind),
						 name ? name : "(anonymous)"));
			return t;
		}
		if (!mn) {
			/* An anonymous struct/union member is shown in place; its
			 * fields are reached by their own names. */
			Dwarf_Die base = mt;
			for (int i = 0; i < MAX_DEPTH; i++) {
				int bt = dwarf_tag(&base);
				if (bt != DW_TAG_const_type && bt != DW_TAG_volatile_type && bt != DW_TAG_typedef)
					break;
				if (!die_type(&base, &base))
					break;
			}
			int bt = dwarf_tag(&base);
			if ((bt == DW_TAG_structure_type || bt == DW_TAG_union_type || bt == DW_TAG_class_type) &&
			    !die_name(r, &base) && !strmap_iget(&r->anon_names, dwarf_dieoffset(&base)))
				m->anon = type_info_of(r, &base, depth + 1)->layout;
		}
		t->nmembers++;
		if (r->err)
			return t;
	} while (dwarf_siblingof(&child, &child) == 0);
	t->nflat = layout_count_flat(t);
	if (t->nflat > LAYOUT_MAX_FLAT)
		set_error(r, au_error_format("%s: corrupt .debug_info: %s %s expands to over %d members", r->path,
					     layout_kind_name(t->kind), name ? name : "(anonymous)", LAYOUT_MAX_FLAT));
	return t;
}

static bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

/* Pass 1: remember which anonymous aggregates a typedef names. */
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

static void collect_typedefs(struct reader *r, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;
	int rc;
	if (depth > MAX_DEPTH || (rc = dwarf_child(parent, &child)) > 0 || walk_error(r, rc, NULL))
		return;
	do {
		if (walk_error(r, 0, &child))
			return;
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_typedef) {
			const char *name = die_name(r, &child);
			Dwarf_Die target;
			if (name && die_type(&child, &target) && is_aggregate_tag(dwarf_tag(&target)) &&
			    !die_name(r, &target) && !is_declaration(&target) &&
			    !strmap_iget(&r->anon_names, dwarf_dieoffset(&target)))
				strmap_iput(&r->anon_names, dwarf_dieoffset(&target), arena_strdup(&r->model->arena, name));
		} else if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
			   tag == DW_TAG_union_type || tag == DW_TAG_namespace) {
			collect_typedefs(r, &child, depth + 1);
		}
	} while (!r->err && (rc = dwarf_siblingof(&child, &child)) == 0);
	walk_error(r, rc, NULL);
}

/* An anonymous enum: named constants, kept as a type named after its first
 * enumerator so that the comparer can pair its enumerators by name. */
static void read_anonymous_enum(struct reader *r, Dwarf_Die *die, const char *scope)
{
	struct layout_type *t = read_aggregate(r, die, NULL, 0);
	if (r->err || t->nenumerators == 0)
		return;
	t->name = arena_printf(&r->model->arena, "enum {%s}", t->enumerators[0].name);
	if (layout_model_find(r->model, t->name))
		return; /* the same enum seen again (another unit, or a g++ scope) */
	t->anonymous = true;
	t->scope = scope;
	t->file = decl_file(r, die);
	int line;
	if (dwarf_decl_line(die, &line) == 0 && line > 0)
		t->line = (unsigned)line;
	layout_model_add(r->model, t);
}

/* Pass 2: every named definition, at any depth (g++ nests them). */
static void collect_types(struct reader *r, Dwarf_Die *parent, const char *scope, int depth)
{
	Dwarf_Die child;
	int rc;
	if (depth > MAX_DEPTH || (rc = dwarf_child(parent, &child)) > 0 || walk_error(r, rc, NULL))
		return;
	do {
		if (walk_error(r, 0, &child))
			return;
		int tag = dwarf_tag(&child);
		if (!is_aggregate_tag(tag))
			continue;
		/* "struct foo", or the typedef naming an anonymous one: the type's
		 * model name, and the scope of what g++ nests in it. */
		const char *n = die_name(r, &child);
		const char *name = n ? arena_printf(&r->model->arena, "%s %s", aggregate_prefix(tag), n)
				     : strmap_iget(&r->anon_names, dwarf_dieoffset(&child));
		if (!is_declaration(&child) && dwarf_hasattr(&child, DW_AT_byte_size)) {
			if (!name && tag == DW_TAG_enumeration_type) {
				read_anonymous_enum(r, &child, scope);
				if (r->err)
					return;
				continue;
			}
			if (name && !layout_model_find(r->model, name)) {
				struct layout_type *t = read_aggregate(r, &child, name, 0);
				if (r->err)
					return;
				t->scope = scope;
				layout_model_add(r->model, t);
			}
		}
		if (tag != DW_TAG_enumeration_type)
			collect_types(r, &child, name, depth + 1);
		if (r->err)
			return;
	} while ((rc = dwarf_siblingof(&child, &child)) == 0);
	walk_error(r, rc, NULL);
}

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	/* Only the object's own sections: no separate debug files, no
	 * debuginfod, so a result never depends on the machine. */
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static char *no_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &no_path,
};

/* Checks that path is a readable, non-empty ELF file, so that the common bad
 * inputs get a precise reason rather than libdwfl's generic one. */
static struct au_error *check_input(const char *path, bool *big_endian, unsigned *address_size,
				    bool *has_debug_info)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return au_error_format("%s: %s", path, strerror(errno));
	struct stat st;
	struct au_error *err = NULL;
	if (fstat(fd, &st) != 0) {
		err = au_error_format("%s: %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		err = au_error_format("%s: is a directory", path);
	} else if (!S_ISREG(st.st_mode)) {
		err = au_error_format("%s: not a regular file", path);
	} else if (st.st_size == 0) {
		err = au_error_format("%s: empty file", path);
	} else {
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (!elf || elf_kind(elf) != ELF_K_ELF) {
			err = au_error_format("%s: not an ELF object file", path);
		} else {
			GElf_Ehdr eh;
			if (!gelf_getehdr(elf, &eh)) {
				err = au_error_format("%s: truncated or corrupt ELF header", path);
			} else {
				*big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
				*address_size = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
				size_t shstrndx;
				if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
					err = au_error_format("%s: corrupt section table: %s", path, elf_errmsg(-1));
				} else {
					Elf_Scn *scn = NULL;
					GElf_Shdr sh;
					while (!*has_debug_info && (scn = elf_nextscn(elf, scn))) {
						const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
						*has_debug_info = n && (strcmp(n, ".debug_info") == 0 ||
									strcmp(n, ".zdebug_info") == 0) &&
								  sh.sh_type != SHT_NOBITS;
					}
				}
			}
		}
		elf_end(elf);
	}
	close(fd);
	return err;
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

struct au_error *dwarf_read_layouts(const char *path, struct layout_model *model)
{
	elf_version(EV_CURRENT);
	struct reader r = { .model = model, .path = path };
	bool has_debug_info = false;
	struct au_error *err = check_input(path, &r.big_endian, &r.address_size, &has_debug_info);
	if (err)
		return err;
	if (!has_debug_info)
		return au_error_format("%s: no DWARF debug information (stripped, or built without -g)", path);
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl)
		return au_error_format("%s: %s", path, dwfl_errmsg(-1));
	Dwfl_Module *mod = dwfl_report_offline(dwfl, path, path, -1);
	if (!mod || dwfl_report_end(dwfl, NULL, NULL) != 0) {
		err = au_error_format("%s: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return err;
	}
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	if (!dw) {
		err = au_error_format("%s: unreadable DWARF: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return err;
	}
	strmap_init(&r.infos);
	strmap_init(&r.anon_names);
	strmap_init(&r.files);

	const char *bad = find_regions(&r, dw);
	if (bad) {
		/* Formatted first: the section's name belongs to the Elf. */
		err = au_error_format("%s: corrupt %s: its last string is not terminated", path, bad);
		dwfl_end(dwfl);
		return err;
	}

	/* Pass 1 over all units first: a typedef in one place may name an
	 * anonymous aggregate that a member elsewhere uses. */
	for (int pass = 0; pass < 2 && !r.err; pass++) {
		Dwarf_Off off = 0, next;
		size_t hsize;
		int units = 0;
		int rc;
		while ((rc = dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) == 0) {
			Dwarf_Die cu;
			if (!dwarf_offdie(dw, off + hsize, &cu) || dwarf_tag(&cu) == DW_TAG_invalid) {
				r.err = dw_error(&r, "corrupt .debug_info");
				break;
			}
			units++;
			r.comp_dir = NULL;
			Dwarf_Attribute attr;
			if (dwarf_attr(&cu, DW_AT_comp_dir, &attr)) {
				r.comp_dir = dwarf_formstring(&attr);
				if (!string_ok(&r, r.comp_dir))
					r.comp_dir = NULL;
			}
			if (pass == 0 && model->lang == LANG_UNKNOWN) {
				Dwarf_Word lang;
				if (attr_udata(&cu, DW_AT_language, &lang))
					model->lang = language_of(lang);
			}
			if (pass == 0)
				collect_typedefs(&r, &cu, 0);
			else
				collect_types(&r, &cu, NULL, 0);
			if (r.err)
				break;
			if (next <= off) {
				r.err = au_error_format("%s: corrupt .debug_info: unit list loops", path);
				break;
			}
			off = next;
		}
		if (rc < 0 && !r.err)
			r.err = dw_error(&r, "corrupt .debug_info");
		else if (units == 0 && !r.err)
			r.err = au_error_format("%s: no DWARF compilation units", path);
	}
	strmap_deinit(&r.infos);
	strmap_deinit(&r.anon_names);
	strmap_deinit(&r.files);
	dwfl_end(dwfl);
	return r.err;
}
