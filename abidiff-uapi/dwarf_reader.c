/* DWARF -> layout model.
 *
 * Traps this file handles (each measured with readelf and small probes; the fixtures hold them):
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
#include <sys/mman.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>

#include "dwarf_reader.h"
#include "input.h"
#include "strbuf.h"
#include "typekey.h"

/* Types nest (pointers, typedefs, arrays, anonymous members) as deep as a
 * program likes; the recursion that reads them stops at MAX_DEPTH levels,
 * and a type that goes deeper is an error naming it, never a silent cut. */
enum { MAX_DEPTH = 1024 };

/* What we know of one type DIE, computed once. 24 bytes: a read holds one
 * per type DIE. What a member of the type shows (its spelling, key, chain,
 * embedded aggregate and size) is the model's record in mt, made when the
 * type is read and shared by every member of that type. */
struct type_info {
	const struct layout_member_type *mt;   /* NULL only while busy */
	struct layout_type *layout;   /* an anonymous struct/union: its layout, read once */
	bool has_size;
	bool flexible;            /* an array with no elements */
	bool busy;                /* being computed: a cycle in corrupt input */
};

struct reader {
	struct layout_model *model;
	const char *path;
	bool big_endian;
	unsigned address_size;
	struct intmap infos;          /* DIE -> struct type_info * */
	struct arena scratch;         /* the type_infos: freed when the read ends */
	struct strmap names;          /* names copied into the model, each once */
	struct strmap anon_names;     /* aggregate DIE -> typedef name */
	struct strmap ptr_names;      /* aggregate DIE -> "*P" of typedef struct {...} *P */
	struct strmap qual_names;     /* aggregate DIE in a namespace -> "ns::name" */
	struct strmap decl_scopes;    /* declaration DIE in a class -> that class's model name */
	struct strmap visited[2];     /* units read, per pass */
	size_t units, definitions;
	bool has_alt;
	bool multi_unit;              /* more than one compile unit: names may repeat */
	struct strmap odr_keys;       /* layout_type * -> its definition key */
	/* Anonymous aggregates of the same layout share one model record: the
	 * same union { __u64 raw; struct { __u32 lo, hi; }; } in thousands of
	 * types is kept once. read_aggregate puts a type, its members and its
	 * enumerators in body: the model's arena, or anon_tmp while an
	 * anonymous one is read, until it is found again or copied. */
	struct arena *body;
	struct arena anon_tmp;
	unsigned anon_depth;
	struct strmap anon_shapes;    /* au_typekey_anon key -> struct shared_anon * */
	unsigned long top_seq;        /* counts the types read at the top */
	size_t odr_conflicts;
	struct strmap files;          /* interned declaring files */
	struct intmap file_memo;      /* libdw's file name -> struct file_memo */
	const char *comp_dir;
	const char *default_comp_dir; /* for units that have none */
	bool no_files;                /* this unit's file table is unreadable */
	struct au_error *err;
	const char *current;          /* the named type being read, for messages */
	/* The stand-in for a type met again while it is being read. Per read,
	 * not static: it caches a member type made in this model's arena. */
	struct type_info cycle;
	/* The debug sections' data in memory, to check strings (see die_name). */
	struct region {
		const unsigned char *base, *end;
	} regions[256];
	size_t nregions;
	Elf *elfs[64];                /* files whose sections are in regions */
	size_t nelfs;
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

/* Records the debug sections of one ELF file (the object, a split unit's
 * .dwo, a dwz supplement) in memory, once per file. A string section that
 * does not end in a NUL lets any of its strings run off the end, inside
 * libdw too (its line table reader calls strlen on them; found by
 * fuzz-dwarf), so such a file is corrupt: an error names the section. */
static void add_regions(struct reader *r, Elf *elf, const char *file)
{
	size_t shstrndx;
	if (!elf)
		return;
	for (size_t i = 0; i < r->nelfs; i++)
		if (r->elfs[i] == elf)
			return;
	if (r->nelfs < sizeof(r->elfs) / sizeof(r->elfs[0]))
		r->elfs[r->nelfs++] = elf;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!n || (strncmp(n, ".debug_", 7) != 0 && strncmp(n, ".zdebug_", 8) != 0) || sh.sh_type == SHT_NOBITS)
			continue;
		if (r->nregions == sizeof(r->regions) / sizeof(r->regions[0])) {
			set_error(r, au_error_format("%s: more than %zu debug sections", file, r->nregions));
			return;
		}
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size) {
			r->regions[r->nregions].base = d->d_buf;
			r->regions[r->nregions].end = (const unsigned char *)d->d_buf + d->d_size;
			r->nregions++;
			const char *base = n[1] == 'z' ? n + 2 : n + 1;   /* "debug_str" of .zdebug_str too */
			size_t bl = strlen(base);
			if (bl > 4 && strcmp(base + bl - 4, ".dwo") == 0)
				bl -= 4;
			if (((bl == 9 && strncmp(base, "debug_str", 9) == 0) ||
			     (bl == 14 && strncmp(base, "debug_line_str", 14) == 0)) &&
			    ((const char *)d->d_buf)[d->d_size - 1] != '\0')
				set_error(r, au_error_format("%s: corrupt %s: its last string is not terminated", file, n));
		}
	}
}

static const char *attr_name(const struct reader *r, Dwarf_Attribute *attr)
{
	/* Bounds first: even the first byte may lie outside every section. */
	const char *n = attr ? dwarf_formstring(attr) : NULL;
	return n && string_ok(r, n) && *n ? n : NULL;
}

static const char *die_name(const struct reader *r, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	return attr_name(r, dwarf_attr(die, DW_AT_name, &attr));
}

/* A copy of s in the model (libdw's strings go away with the Dwfl), one per
 * distinct string: thousands of members are called "reserved" or "flags". */
static const char *intern(struct reader *r, const char *s)
{
	if (!s)
		return NULL;
	const char *copy = au_strmap_get(&r->names, s);
	if (!copy) {
		copy = au_arena_strdup(&r->model->arena, s);
		au_strmap_put(&r->names, copy, (void *)copy);
	}
	return copy;
}

static bool is_declaration(Dwarf_Die *die)
{
	bool flag = false;
	Dwarf_Attribute attr;
	if (dwarf_attr(die, DW_AT_declaration, &attr))
		dwarf_formflag(&attr, &flag);
	return flag;
}

/* A DIE's identity across every unit and file read (the main object, its
 * type units, split units, a dwz supplement): its address in the mapped
 * section, where offsets alone repeat between sections and files. */
static inline uint64_t die_key(const Dwarf_Die *die)
{
	return (uint64_t)(uintptr_t)die->addr;
}

/* A declaration that stands for a type unit's type (DW_AT_signature, as
 * gcc writes with -fdebug-types-section) is replaced by that type. */
static void resolve_signature(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;
	if (dwarf_attr(die, DW_AT_signature, &attr) && dwarf_formref_die(&attr, &t))
		*die = t;
}

/* Set when the file has type units: only then can a reference land on a
 * signature stub, and the look-up costs an attribute scan per reference. */
static __thread bool have_type_units;

static bool attr_type(Dwarf_Attribute *attr, Dwarf_Die *ret)
{
	if (!attr || !dwarf_formref_die(attr, ret))
		return false;
	if (have_type_units)
		resolve_signature(ret);
	return true;
}

static bool die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	return attr_type(dwarf_attr(die, DW_AT_type, &attr), ret);
}

/* The attributes a member DIE is read by, found in one pass over its
 * attributes: dwarf_attr scans them from the start for each one asked,
 * and a whole UAPI has hundreds of thousands of members. */
enum member_attr {
	MA_NAME, MA_TYPE, MA_DECLARATION, MA_BIT_SIZE, MA_DATA_MEMBER_LOCATION, MA_DATA_BIT_OFFSET,
	MA_BIT_OFFSET, MA_BYTE_SIZE, MA_VIRTUALITY, MA_ARTIFICIAL, MA_COUNT
};

struct member_attrs {
	Dwarf_Attribute a[MA_COUNT];
	unsigned have;      /* bit (1 << enum member_attr) */
};

static int collect_member_attr(Dwarf_Attribute *attr, void *arg)
{
	struct member_attrs *ma = arg;
	enum member_attr slot;
	switch (dwarf_whatattr(attr)) {
	case DW_AT_name: slot = MA_NAME; break;
	case DW_AT_type: slot = MA_TYPE; break;
	case DW_AT_declaration: slot = MA_DECLARATION; break;
	case DW_AT_bit_size: slot = MA_BIT_SIZE; break;
	case DW_AT_data_member_location: slot = MA_DATA_MEMBER_LOCATION; break;
	case DW_AT_data_bit_offset: slot = MA_DATA_BIT_OFFSET; break;
	case DW_AT_bit_offset: slot = MA_BIT_OFFSET; break;
	case DW_AT_byte_size: slot = MA_BYTE_SIZE; break;
	case DW_AT_virtuality: slot = MA_VIRTUALITY; break;
	case DW_AT_artificial: slot = MA_ARTIFICIAL; break;
	default: return DWARF_CB_OK;
	}
	/* The first of a repeated attribute, as dwarf_attr finds it. */
	if (!(ma->have & (1u << slot))) {
		ma->a[slot] = *attr;
		ma->have |= 1u << slot;
	}
	return DWARF_CB_OK;
}

static void read_member_attrs(Dwarf_Die *die, struct member_attrs *ma)
{
	ma->have = 0;
	dwarf_getattrs(die, collect_member_attr, ma, 0);
}

static Dwarf_Attribute *ma_get(struct member_attrs *ma, enum member_attr slot)
{
	return ma->have & (1u << slot) ? &ma->a[slot] : NULL;
}

static bool ma_udata(struct member_attrs *ma, enum member_attr slot, Dwarf_Word *ret)
{
	Dwarf_Attribute *attr = ma_get(ma, slot);
	return attr && dwarf_formudata(attr, ret) == 0;
}

static bool attr_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *ret)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr(die, name, &attr))
		return false;
	return dwarf_formudata(&attr, ret) == 0;
}

/* A unit's types name a few of its files many times over; libdw hands out
 * the same string for each, so the path made from it is remembered, with
 * the unit directory it was joined to. */
struct file_memo {
	const char *comp_dir;
	const char *path;
};

/* Lexically normalised absolute path of a declaring file. */
static const char *decl_file(struct reader *r, Dwarf_Die *die)
{
	if (r->no_files)
		return NULL;
	const char *f = dwarf_decl_file(die);
	struct file_memo *memo = f ? au_intmap_get(&r->file_memo, (uintptr_t)f) : NULL;
	if (memo && memo->comp_dir == r->comp_dir)
		return memo->path;
	if (!string_ok_or_built(r, f))
		return NULL;
	const char *raw = f;
	char *joined = NULL;
	if (f[0] != '/' && r->comp_dir)
		f = joined = au_xasprintf("%s/%s", r->comp_dir, f);
	/* Collapse "//", "/./" and "dir/../" without touching the disk: the
	 * headers need not exist on the machine that reads the object. */
	struct strbuf out = STRBUF_INIT;
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
			const char *o = au_strbuf_str(&out), *slash = strrchr(o, '/');
			au_strbuf_truncate(&out, slash ? (size_t)(slash - o) : 0);
			continue;
		}
		if (out.len > 0 || f[0] == '/')
			au_strbuf_putc(&out, '/');
		au_strbuf_add(&out, s, n);
	}
	/* Interned: thousands of types share a few hundred files. */
	char *res = au_strmap_get(&r->files, au_strbuf_str(&out));
	if (!res) {
		res = au_strbuf_arena_copy(&out, &r->model->arena);
		au_strmap_put(&r->files, res, res);
	}
	au_strbuf_release(&out);
	free(joined);
	if (!memo) {
		memo = au_arena_alloc(&r->scratch, sizeof(*memo));
		au_intmap_put(&r->file_memo, (uintptr_t)raw, memo);
	}
	*memo = (struct file_memo){ r->comp_dir, res };
	return res;
}

static struct type_info *type_info_of(struct reader *r, Dwarf_Die *die, int depth);
static struct layout_type *read_aggregate(struct reader *r, Dwarf_Die *die, const char *name, int depth);
static struct layout_type *read_anonymous(struct reader *r, Dwarf_Die *die, int depth, const char **key,
					  const struct layout_member_type ***member_type);

static struct type_info *new_info(struct reader *r, Dwarf_Die *die)
{
	struct type_info *ti = au_arena_alloc(&r->scratch, sizeof(*ti));
	au_intmap_put(&r->infos, die_key(die), ti);
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
	return au_typekey_base(&r->model->arena, base, 8 * size, name);
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

static void array_info(struct reader *r, Dwarf_Die *die, struct type_info *ti, struct layout_member_type *d,
		       int depth)
{
	Dwarf_Die elem;
	struct type_info *et = NULL;
	if (die_type(die, &elem))
		et = type_info_of(r, &elem, depth + 1);
	struct strbuf dims = STRBUF_INIT;
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
			if (c)
				au_strbuf_printf(&dims, "[%" PRId64 "]", c);
			else
				au_strbuf_puts(&dims, "[]");
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (dims.len == 0) {
		au_strbuf_puts(&dims, "[]");
		flexible = true;
		count = 0;
	}
	const char *ed = et ? et->mt->name : "void";
	const char *ek = et ? et->mt->key : TYPEKEY_VOID;
	d->name = au_arena_concat3(&r->model->arena, ed, au_strbuf_str(&dims), "");
	au_strbuf_release(&dims);
	/* T[2][65] and T[130] are the same layout (and BTF, from pahole, keeps
	 * only the latter): the key counts elements. */
	d->key = au_typekey_array(&r->model->arena, count, flexible, ek);
	d->embeds = et ? et->mt->embeds : NULL;
	d->chain = et ? et->mt->chain : NULL;
	ti->flexible = flexible;
	d->size = flexible ? 0 : count * (et && et->has_size ? et->mt->size : 0);
	ti->has_size = true;
}

static void function_info(struct reader *r, Dwarf_Die *die, struct type_info *ti, struct layout_member_type *d,
			  int depth)
{
	Dwarf_Die ret;
	const char *rk = TYPEKEY_VOID;
	if (die_type(die, &ret)) {
		struct type_info *rt = type_info_of(r, &ret, depth + 1);
		rk = rt->mt->key;
	}
	struct typekey_fn fn;
	au_typekey_fn_init(&fn);
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_formal_parameter) {
				Dwarf_Die pt;
				au_typekey_fn_param(&fn, die_type(&child, &pt) ? type_info_of(r, &pt, depth + 1)->mt->key
									: TYPEKEY_UNKNOWN);
			} else if (tag == DW_TAG_unspecified_parameters) {
				au_typekey_fn_param(&fn, TYPEKEY_VARARGS);
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	d->key = au_typekey_fn_finish(&fn, &r->model->arena, rk);
	d->name = "function";
	ti->has_size = false;
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

static bool is_type_tag(int tag)
{
	switch (tag) {
	case DW_TAG_base_type: case DW_TAG_unspecified_type: case DW_TAG_pointer_type:
	case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type: case DW_TAG_ptr_to_member_type:
	case DW_TAG_typedef: case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: case DW_TAG_immutable_type: case DW_TAG_packed_type: case DW_TAG_shared_type:
	case DW_TAG_array_type: case DW_TAG_subroutine_type: case DW_TAG_structure_type:
	case DW_TAG_class_type: case DW_TAG_union_type: case DW_TAG_enumeration_type:
	case DW_TAG_string_type: case DW_TAG_set_type: case DW_TAG_subrange_type: case DW_TAG_file_type:
	case DW_TAG_interface_type: case DW_TAG_coarray_type: case DW_TAG_dynamic_type:
	case DW_TAG_generic_subrange: case DW_TAG_thrown_type:
		return true;
	default:
		return false;
	}
}

/* Names the type being read when its nesting passes MAX_DEPTH. */
static void too_deep(struct reader *r)
{
	set_error(r, au_error_format("%s: %s nests types deeper than %d levels (pointers, typedefs, arrays or "
				     "anonymous members): not read", r->path,
				     r->current ? r->current : "a type", MAX_DEPTH));
}

static bool same_member_type(const struct layout_member_type *a, const struct layout_member_type *b)
{
	return a == b || (a->size == b->size && a->layout == b->layout && au_same_str(a->name, b->name) &&
			  au_same_str(a->key, b->key) &&
			  au_same_str(a->chain, b->chain) && au_same_str(a->embeds, b->embeds));
}

static struct type_info *type_info_of(struct reader *r, Dwarf_Die *die, int depth)
{
	struct type_info *ti = au_intmap_get(&r->infos, die_key(die));
	if (ti) {
		if (ti->busy)
			return &r->cycle;
		return ti;
	}
	ti = new_info(r, die);
	if (depth > MAX_DEPTH) {
		too_deep(r);
		ti->mt = au_member_type_new(&r->model->arena, "?", TYPEKEY_TOO_DEEP, NULL, NULL, 0, NULL);
		return ti;
	}
	ti->busy = true;
	int tag = dwarf_tag(die);
	/* Copied: libdw's strings go away with the Dwfl, the model stays. */
	const char *name = intern(r, die_name(r, die));
	Dwarf_Word size = 0;
	Dwarf_Die target;
	struct type_info *tt;
	/* What members of this type show; made into the model's record at the
	 * end, unless one already made serves (from, shared). */
	struct layout_member_type d = { 0 };
	const struct layout_member_type *from = NULL, **shared = NULL;
	switch (tag) {
	case DW_TAG_base_type:
		if (name && strcmp(name, "void") == 0) {
			/* Some compilers (Intel's) spell void as a base type. */
			d.name = d.key = TYPEKEY_VOID;
			break;
		}
		ti->has_size = attr_udata(die, DW_AT_byte_size, &size);
		d.size = size;
		d.name = name ? base_spelling(name) : "?";
		d.key = base_key(r, die, size);
		d.chain = d.name;
		break;
	case DW_TAG_unspecified_type: /* decltype(nullptr) */
		if (name && strcmp(name, "void") == 0) {
			d.name = d.key = TYPEKEY_VOID;
			break;
		}
		d.name = name ? name : "?";
		d.key = au_typekey_unspecified(&r->model->arena, d.name);
		d.size = r->address_size;
		ti->has_size = true;
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type: {
		enum typekey_sigil ks = tag == DW_TAG_pointer_type ? TYPEKEY_POINTER
				      : tag == DW_TAG_ptr_to_member_type ? TYPEKEY_MEMBER_POINTER
				      : tag == DW_TAG_rvalue_reference_type ? TYPEKEY_RREF : TYPEKEY_LREF;
		const char *sigil = au_typekey_sigil(ks);
		if (die_type(die, &target)) {
			tt = type_info_of(r, &target, depth + 1);
			d.name = strcmp(tt->mt->name, "function") == 0
					      ? au_arena_printf(&r->model->arena, "%s", "function *")
					      : au_arena_printf(&r->model->arena, "%s %s", tt->mt->name, sigil);
			d.key = au_typekey_pointer(&r->model->arena, ks, tt->mt->key);
		} else {
			d.name = au_arena_printf(&r->model->arena, "void %s", sigil);
			d.key = au_typekey_pointer(&r->model->arena, ks, TYPEKEY_VOID);
		}
		ti->has_size = attr_udata(die, DW_AT_byte_size, &size);
		d.size = ti->has_size ? size : r->address_size;
		ti->has_size = true;
		d.chain = sigil;
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
			d = *tt->mt;
			from = tt->mt;
			ti->layout = tt->layout;
			ti->has_size = tt->has_size;
			ti->flexible = tt->flexible;
		} else {
			d.key = TYPEKEY_VOID;
			d.name = "void";
			d.embeds = NULL;
		}
		if (tag == DW_TAG_typedef && name) {
			d.name = name;
			d.chain = d.chain ? au_arena_printf(&r->model->arena, "%s>%s", name, d.chain) : name;
		} else if (tag == DW_TAG_const_type)
			d.name = au_arena_printf(&r->model->arena, "const %s", d.name);
		else if (tag == DW_TAG_volatile_type)
			d.name = au_arena_printf(&r->model->arena, "volatile %s", d.name);
		break;
	case DW_TAG_array_type:
		array_info(r, die, ti, &d, depth);
		break;
	case DW_TAG_subroutine_type:
		function_info(r, die, ti, &d, depth);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type: {
		const char *prefix = aggregate_prefix(tag);
		const char *tdname = au_strmap_iget(&r->anon_names, die_key(die));
		const char *qualified = au_strmap_iget(&r->qual_names, die_key(die));
		if (qualified)
			name = qualified;   /* ns::S, as the model names it */
		ti->has_size = attr_udata(die, DW_AT_byte_size, &size);
		d.size = size;
		if (name) {
			d.name = au_typekey_named(&r->model->arena, prefix, name);
			d.key = d.name;
			if (tag != DW_TAG_enumeration_type)
				d.embeds = d.name;
		} else if (tdname) {
			d.name = tdname;
			d.key = tdname;
			if (tag != DW_TAG_enumeration_type)
				d.embeds = tdname;
		} else {
			ti->layout = read_anonymous(r, die, depth + 1, &d.key, &shared);
			d.name = tag == DW_TAG_union_type ? "union {...}"
				      : tag == DW_TAG_enumeration_type ? "enum {...}" : "struct {...}";
		}
		d.chain = d.name;
		break;
	}
	default:
		if (!is_type_tag(tag))
			set_error(r, au_error_format("%s: corrupt .debug_info: a type reference leads to DIE 0x%llx, "
						     "which is no type (tag 0x%x)", r->path,
						     (unsigned long long)dwarf_dieoffset(die), (unsigned)tag));
		d.name = name ? name : "?";
		d.key = au_typekey_unknown(&r->model->arena, "tag", tag, d.name);
		break;
	}
	d.layout = ti->layout;
	if (from && same_member_type(&d, from))
		ti->mt = from;   /* a qualifier or typedef that changes nothing shown */
	else if (shared && *shared)
		ti->mt = *shared;   /* members of one shared anonymous layout share one record */
	else
		ti->mt = au_member_type_new(&r->model->arena, d.name, d.key, d.chain, d.embeds, d.size, ti->layout);
	if (shared && !*shared)
		*shared = ti->mt;
	ti->busy = false;
	return ti;
}

/* The bit offset of a member from the start of its aggregate. */
static bool member_bit_offset(struct reader *r, struct member_attrs *ma, uint64_t bit_size, bool bitfield,
			      uint64_t type_size, uint64_t *ret)
{
	Dwarf_Word v;
	if (ma_udata(ma, MA_DATA_BIT_OFFSET, &v)) {
		*ret = v;
		return true;
	}
	uint64_t byte_off = 0;
	Dwarf_Attribute *attr = ma_get(ma, MA_DATA_MEMBER_LOCATION);
	if (attr) {
		if (attr->form == DW_FORM_exprloc || attr->form == DW_FORM_block ||
		    attr->form == DW_FORM_block1 || attr->form == DW_FORM_block2 || attr->form == DW_FORM_block4) {
			/* DWARF 2 style: DW_OP_plus_uconst N. */
			Dwarf_Op *ops;
			size_t nops;
			if (dwarf_getlocation(attr, &ops, &nops) != 0 || nops != 1 ||
			    (ops[0].atom != DW_OP_plus_uconst && ops[0].atom != DW_OP_constu))
				return false;
			byte_off = ops[0].number;
		} else if (dwarf_formudata(attr, &v) == 0) {
			byte_off = v;
		} else {
			return false;
		}
	}
	Dwarf_Word old_bit;
	if (bitfield && ma_udata(ma, MA_BIT_OFFSET, &old_bit)) {
		/* Old encoding: bit_offset counts from the most significant bit
		 * of a storage unit of DW_AT_byte_size (or the type's size). */
		Dwarf_Word storage = type_size;
		ma_udata(ma, MA_BYTE_SIZE, &storage);
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

/* A frame's growing array: starts in local (cap entries on the stack),
 * doubles on the heap. */
static void *grow_buffer(void *buf, void *local, size_t *cap, size_t size)
{
	void *bigger = au_xmalloc(2 * *cap * size);
	memcpy(bigger, buf, *cap * size);
	if (buf != local)
		free(buf);
	*cap *= 2;
	return bigger;
}

static struct layout_type *read_aggregate(struct reader *r, Dwarf_Die *die, const char *name, int depth)
{
	struct arena *a = &r->model->arena;
	struct layout_type *t = au_arena_alloc(r->body, sizeof(*t));
	int tag = dwarf_tag(die);
	if (depth == 0)
		r->top_seq++;
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
	if (depth > MAX_DEPTH) {
		too_deep(r);
		return t;
	}

	/* One pass over the children (each step of dwarf_siblingof rescans a
	 * child's attributes): they are gathered in this frame's buffer, on the
	 * stack while few, and copied to the arena at the end. Nested reads of
	 * member types have frames and buffers of their own. */
	Dwarf_Die child;
	if (t->kind == LAYOUT_ENUM) {
		struct layout_enumerator local[16], *buf = local;
		size_t cap = sizeof(local) / sizeof(local[0]);
		if (dwarf_child(die, &child) != 0)
			goto enum_done;
		do {
			if (dwarf_tag(&child) != DW_TAG_enumerator)
				continue;
			if (t->nenumerators == cap)
				buf = grow_buffer(buf, local, &cap, sizeof(*buf));
			struct layout_enumerator *e = &buf[t->nenumerators];
			memset(e, 0, sizeof(*e));
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
			e->name = intern(r, en);
			t->nenumerators++;
		} while (dwarf_siblingof(&child, &child) == 0);
	enum_done:
		t->enumerators = au_arena_memdup(r->body, buf, t->nenumerators * sizeof(*buf));
		if (buf != local)
			free(buf);
		return t;
	}

	struct layout_member local[16], *buf = local;
	size_t cap = sizeof(local) / sizeof(local[0]);
	if (dwarf_child(die, &child) != 0)
		goto done;
	do {
		int ctag = dwarf_tag(&child);
		if (ctag != DW_TAG_member && ctag != DW_TAG_inheritance)
			continue;
		struct member_attrs ma;
		read_member_attrs(&child, &ma);
		bool decl = false;
		if (ma_get(&ma, MA_DECLARATION) && dwarf_formflag(ma_get(&ma, MA_DECLARATION), &decl) == 0 && decl)
			continue;   /* a C++ static member */
		if (t->nmembers == cap)
			buf = grow_buffer(buf, local, &cap, sizeof(*buf));
		struct layout_member *m = &buf[t->nmembers];
		memset(m, 0, sizeof(*m));
		const char *mn = attr_name(r, ma_get(&ma, MA_NAME));
		m->name = intern(r, mn);
		Dwarf_Die mt;
		if (!attr_type(ma_get(&ma, MA_TYPE), &mt)) {
			set_error(r, au_error_format("%s: member %s of %s %s has no type", r->path,
						 mn ? mn : "(anonymous)", au_layout_kind_name(t->kind),
						 name ? name : "(anonymous)"));
			goto done;
		}
		struct type_info *ti = type_info_of(r, &mt, depth + 1);
		bool virtual_base = false;
		if (ctag == DW_TAG_inheritance) {
			/* A base class is a member called "base A" ("virtual base A"),
			 * compared like any other. A virtual base's place is found at
			 * run time through the vtable: it is shown at offset 0. */
			Dwarf_Word virt = 0;
			virtual_base = ma_udata(&ma, MA_VIRTUALITY, &virt) && virt != DW_VIRTUALITY_none;
			const char *bn = au_typekey_tag_name(ti->mt->name);
			m->name = mn = au_arena_printf(a, "%sbase %s", virtual_base ? "virtual " : "", bn);
		} else if (mn && strncmp(mn, "_vptr", 5) == 0 && (mn[5] == '.' || mn[5] == '$') &&
			   ma_get(&ma, MA_ARTIFICIAL)) {
			/* g++ "_vptr.A", clang "_vptr$A": one name for the vtable
			 * pointer whatever the class is called. */
			m->name = mn = "_vptr (vtable pointer)";
		}
		m->type = ti->mt;
		m->flexible = ti->flexible;
		Dwarf_Word bs;
		if (ma_udata(&ma, MA_BIT_SIZE, &bs)) {
			if (bs > UINT32_MAX) {
				set_error(r, au_error_format("%s: member %s of %s %s: a bitfield of %" PRIu64 " bits",
							 r->path, mn ? mn : "(anonymous)", au_layout_kind_name(t->kind),
							 name ? name : "(anonymous)", (uint64_t)bs));
				goto done;
			}
			m->is_bitfield = true;
			m->bit_size = (uint32_t)bs;
		}
		if ((t->kind == LAYOUT_UNION && !ma_get(&ma, MA_DATA_MEMBER_LOCATION) &&
		     !ma_get(&ma, MA_DATA_BIT_OFFSET)) || virtual_base) {
			m->bit_offset = 0;
		} else if (!member_bit_offset(r, &ma, au_member_bits(m), m->is_bitfield, m->type->size, &m->bit_offset)) {
			set_error(r, au_error_format("%s: member %s of %s %s: unreadable offset", r->path,
						 mn ? mn : "(anonymous)", au_layout_kind_name(t->kind),
						 name ? name : "(anonymous)"));
			goto done;
		}
		t->nmembers++;
		if (r->err)
			goto done;
	} while (dwarf_siblingof(&child, &child) == 0);
done:
	t->members = au_arena_memdup(r->body, buf, t->nmembers * sizeof(*buf));
	if (buf != local)
		free(buf);
	if (r->err)
		return t;
	t->nflat = au_layout_count_flat(t);
	if (t->nflat > LAYOUT_MAX_FLAT)
		set_error(r, au_error_format("%s: corrupt .debug_info: %s %s expands to over %d members", r->path,
					     au_layout_kind_name(t->kind), name ? name : "(anonymous)", LAYOUT_MAX_FLAT));
	return t;
}

struct shared_anon {
	struct layout_type *t;
	const char *key;
	unsigned long seq;            /* the top-level read that used it last */
	struct shared_anon *next;     /* another layout with the same key */
	const struct layout_member_type *member_type;   /* of members holding it, made once */
};

/* Everything a reader of the model can see is the same: names, places,
 * types as written and resolved, nested layouts (already shared). */
static bool same_layout(const struct layout_type *a, const struct layout_type *b)
{
	if (a->kind != b->kind || a->size != b->size || a->align != b->align || a->anonymous != b->anonymous ||
	    a->is_typedef != b->is_typedef || a->nmembers != b->nmembers || a->nenumerators != b->nenumerators ||
	    a->nflat != b->nflat || a->line != b->line || a->odr_next || b->odr_next ||
	    !au_same_str(a->name, b->name) || !au_same_str(a->scope, b->scope) || !au_same_str(a->file, b->file))
		return false;
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct layout_member *x = &a->members[i], *y = &b->members[i];
		if (x->bit_offset != y->bit_offset || x->bit_size != y->bit_size || x->is_bitfield != y->is_bitfield ||
		    x->flexible != y->flexible || !au_same_str(x->name, y->name) ||
		    !same_member_type(x->type, y->type))
			return false;
	}
	for (size_t i = 0; i < a->nenumerators; i++) {
		const struct layout_enumerator *x = &a->enumerators[i], *y = &b->enumerators[i];
		if (x->value != y->value || x->is_unsigned != y->is_unsigned || !au_same_str(x->name, y->name))
			return false;
	}
	return true;
}

/* An anonymous aggregate's layout, and its key in *key: a layout already in
 * the model when one is the same, else a copy of the one just read. Never one
 * already used by the type being read (its two members would then share a
 * container, which the comparer reads as one union). *member_type: where the
 * layout's shared member type record is kept, or NULL after an error. */
static struct layout_type *read_anonymous(struct reader *r, Dwarf_Die *die, int depth, const char **key,
					  const struct layout_member_type ***member_type)
{
	struct arena *outer = r->body, *model = &r->model->arena;
	r->body = &r->anon_tmp;
	r->anon_depth++;
	struct layout_type *t = read_aggregate(r, die, NULL, depth);
	r->anon_depth--;
	r->body = outer;
	const char *k = au_typekey_anon(&r->anon_tmp, t);
	struct shared_anon *first = au_strmap_get(&r->anon_shapes, k), *s;
	for (s = first; s && !r->err; s = s->next) {
		if (s->seq != r->top_seq && same_layout(s->t, t))
			break;
	}
	struct layout_type *res;
	if (s && !r->err) {
		s->seq = r->top_seq;
		res = s->t;
		*key = s->key;
		*member_type = &s->member_type;
	} else {
		res = au_arena_memdup(model, t, sizeof(*t));
		if (t->nmembers)
			res->members = au_arena_memdup(model, t->members, t->nmembers * sizeof(*t->members));
		if (t->nenumerators)
			res->enumerators = au_arena_memdup(model, t->enumerators,
							   t->nenumerators * sizeof(*t->enumerators));
		*key = first ? first->key : au_arena_strdup(model, k);
		if (!r->err) {
			struct shared_anon *n = au_arena_alloc(&r->scratch, sizeof(*n));
			*n = (struct shared_anon){ res, *key, r->top_seq, first, NULL };
			au_strmap_put(&r->anon_shapes, *key, n);
			*member_type = &n->member_type;
		}
	}
	if (r->anon_depth == 0)
		au_arena_reset(&r->anon_tmp);
	return res;
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
	walk_unit(r, &pu, pass);
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

/* Pass 1: remember which anonymous aggregates a typedef names, directly or
 * through a pointer (typedef struct {...} *Ptr), and the namespace of every
 * aggregate in one. */
static void visit_typedefs(struct reader *r, Dwarf_Die *child, int tag, const void *arg, int depth)
{
	const struct typedef_ctx *ctx = arg;
	const char *qual = ctx->qual;
	if (tag == DW_TAG_typedef) {
		const char *name = die_name(r, child);
		Dwarf_Die target;
		bool ptr = false;
		if (name && die_type(child, &target) && dwarf_tag(&target) == DW_TAG_pointer_type &&
		    die_type(&target, &target))
			ptr = true;
		if (name && (ptr || die_type(child, &target)) && is_aggregate_tag(dwarf_tag(&target)) &&
		    !die_name(r, &target) && !is_declaration(&target)) {
			struct strmap *m = ptr ? &r->ptr_names : &r->anon_names;
			if (!au_strmap_iget(m, die_key(&target))) {
				const char *tn = au_arena_concat3(&r->model->arena, qual, name, "");
				au_strmap_iput(m, die_key(&target),
					    (void *)(ptr ? au_typekey_ptr_typedef(&r->model->arena, tn) : tn));
			}
		}
	} else if (tag == DW_TAG_namespace) {
		struct typedef_ctx inner = { .qual = qualify(r, qual, child) };
		walk_children(r, child, 0, visit_typedefs, &inner, depth + 1);
	} else if (is_aggregate_tag(tag)) {
		const char *n = die_name(r, child);
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
			walk_children(r, child, 0, visit_typedefs, &inner, depth + 1);
		}
	}
}

/* An anonymous enum: named constants, kept as a type named after its first
 * enumerator so that the comparer can pair its enumerators by name. */
static void read_anonymous_enum(struct reader *r, Dwarf_Die *die, const char *scope)
{
	struct layout_type *t = read_aggregate(r, die, NULL, 0);
	if (r->err || t->nenumerators == 0)
		return;
	t->name = au_typekey_anon_enum_name(&r->model->arena, t->enumerators[0].name);
	if (au_layout_model_find(r->model, t->name))
		return; /* the same enum seen again (another unit, or a g++ scope) */
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
		k = au_arena_printf(&r->model->arena, "%s/a%llu/%s", au_typekey_anon(&r->model->arena, t),
				 (unsigned long long)t->align, t->scope ? t->scope : "");
		au_strmap_iput(&r->odr_keys, (uint64_t)(uintptr_t)t, (void *)k);
	}
	return k;
}

/* Another definition of first's name: dropped when some definition already
 * has its layout, else chained as an ODR conflict. */
static void add_definition(struct reader *r, struct layout_type *first, struct layout_type *t)
{
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
static void split_scoped(struct reader *r)
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
static void order_definitions(struct reader *r)
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
			struct layout_type *t = read_aggregate(r, die, name, 0);
			if (r->err)
				return;
			t->scope = own_scope;
			t->is_typedef = typedef_name;
			if (!first)
				au_layout_model_add(r->model, t);
			else
				add_definition(r, first, t);
		}
		r->definitions++;
	}
	if (tag != DW_TAG_enumeration_type)
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

static void walk_units(struct reader *r, Dwarf *dw, const char *file, int pass);

/* Every unit of one Dwarf: compile and partial units, type units (DWARF 4
 * .debug_types and DWARF 5 DW_UT_type), and through each skeleton unit the
 * split unit of its .dwo. A unit that cannot be read is an error naming the
 * file and the unit's offset: never a partial model. */
static void walk_units(struct reader *r, Dwarf *dw, const char *file, int pass)
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

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	/* Only the object's own sections: no separate debug files, no
	 * debuginfod, so a result never depends on the machine. A dwz
	 * supplement is found by au_dwarf_read_layouts itself. */
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

static bool section_is(const char *n, const char *want)
{
	size_t wl = strlen(want);
	if (strncmp(n, ".zdebug_", 8) == 0 && strcmp(n + 8, want + 7) == 0)
		return true;
	return strncmp(n, want, wl) == 0 && (n[wl] == '\0' || strcmp(n + wl, ".dwo") == 0);
}

/* [off, off + size) lies in a file of total bytes (no wrap-around). */
static bool in_file(uint64_t off, uint64_t size, uint64_t total)
{
	return size <= total && off <= total - size;
}

struct input_facts {
	bool big_endian;
	unsigned address_size;
	bool has_debug_info;      /* .debug_info or .debug_types, also as .dwo */
	bool has_lto;             /* .gnu.lto_* sections: GCC's LTO bytecode */
	bool has_llvm_bitcode;
	bool grouped_debug;       /* debug sections in COMDAT groups (type units in a .o) */
	/* The largest relocation sections of the debug sections, by place in
	 * the file: dead weight once libdwfl has applied them. */
	struct file_range {
		uint64_t off, size;
	} debug_rels[8];
	size_t ndebug_rels;
};

/* Keeps the largest debug relocation sections, at most 8. */
static void note_debug_rel(struct input_facts *f, uint64_t off, uint64_t size)
{
	size_t n = sizeof(f->debug_rels) / sizeof(f->debug_rels[0]), at = f->ndebug_rels;
	if (at == n) {
		at = 0;
		for (size_t i = 1; i < n; i++)
			if (f->debug_rels[i].size < f->debug_rels[at].size)
				at = i;
		if (f->debug_rels[at].size >= size)
			return;
	} else {
		f->ndebug_rels++;
	}
	f->debug_rels[at] = (struct file_range){ off, size };
}

/* Checks that the file is a readable ELF file with debug information, so
 * that the common bad inputs get a precise reason rather than libdwfl's
 * generic one. */
static struct au_error *check_elf(const char *path, int fd, struct input_facts *f)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return au_error_format("%s: %s", path, strerror(errno));
	unsigned char ident[EI_NIDENT];
	ssize_t got = pread(fd, ident, sizeof(ident), 0);
	if (got >= 8 && memcmp(ident, "!<thin>\n", 8) == 0)
		return au_error_format("%s: thin archive: not supported (give its members)", path);
	if (got >= 4 && memcmp(ident, "BC\xc0\xde", 4) == 0)
		return au_error_format("%s: LLVM bitcode (an LTO-only object, built with -flto): no DWARF; build "
				       "without -flto, or with -ffat-lto-objects", path);
	if (got < 4 || memcmp(ident, ELFMAG, SELFMAG) != 0)
		return au_error_format("%s: not an ELF object file", path);
	if (got < EI_NIDENT)
		return au_error_format("%s: truncated ELF file (%zd bytes)", path, got);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct au_error *err = NULL;
	GElf_Ehdr eh;
	size_t shstrndx, shnum;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = au_error_format("%s: corrupt ELF file: %s", path, elf_errmsg(-1));
	} else if (!gelf_getehdr(elf, &eh)) {
		err = au_error_format("%s: truncated or corrupt ELF header", path);
	} else if (eh.e_shoff >= (uint64_t)st.st_size && eh.e_shoff) {
		err = au_error_format("%s: truncated: its section table would start at byte %llu of %lld", path,
				      (unsigned long long)eh.e_shoff, (long long)st.st_size);
	} else if (elf_getshdrnum(elf, &shnum) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		err = au_error_format("%s: corrupt section table: %s", path, elf_errmsg(-1));
	} else if (eh.e_shoff + (uint64_t)(shnum > eh.e_shnum ? shnum : eh.e_shnum) * eh.e_shentsize >
		   (uint64_t)st.st_size) {
		err = au_error_format("%s: truncated: its section table runs past the end of the file", path);
	} else {
		f->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
		f->address_size = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;
		while (!err && (scn = elf_nextscn(elf, scn))) {
			if (!gelf_getshdr(scn, &sh)) {
				err = au_error_format("%s: corrupt section table: %s", path, elf_errmsg(-1));
				break;
			}
			const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!n) {
				err = au_error_format("%s: corrupt section table: a section name is outside its string table",
						      path);
				break;
			}
			if (sh.sh_type != SHT_NOBITS && !in_file(sh.sh_offset, sh.sh_size, (uint64_t)st.st_size)) {
				err = au_error_format("%s: truncated: section %s runs past the end of the file", path, n);
				break;
			}
			bool dbg = section_is(n, ".debug_info") || section_is(n, ".debug_types");
			if (dbg && sh.sh_type != SHT_NOBITS)
				f->has_debug_info = true;
			if (strncmp(n, ".debug_", 7) == 0 && (sh.sh_flags & SHF_GROUP))
				f->grouped_debug = true;
			if ((sh.sh_type == SHT_RELA && strncmp(n, ".rela.debug_", 12) == 0) ||
			    (sh.sh_type == SHT_REL && strncmp(n, ".rel.debug_", 11) == 0))
				note_debug_rel(f, sh.sh_offset, sh.sh_size);
			if (strncmp(n, ".gnu.lto_", 9) == 0)
				f->has_lto = true;
			if (strcmp(n, ".llvmbc") == 0 || strcmp(n, ".llvm.lto") == 0)
				f->has_llvm_bitcode = true;
		}
	}
	elf_end(elf);
	return err;
}

/* ---- Type units in a relocatable object ----
 * gcc and clang put each type unit of a .o (-fdebug-types-section) in a
 * COMDAT group of its own: several sections called .debug_types (DWARF 4)
 * or .debug_info (DWARF 5), each with its relocations. The linker keeps one
 * of each group and concatenates them; libdw reads only one section of a
 * name. So for such an object the reader makes the linker's view in a
 * private copy of the file: the sections of one name concatenated (the
 * ungrouped one first, so its offsets stay), their relocation entries
 * concatenated with their offsets moved likewise, section symbols moved,
 * and the other copies unnamed. libdwfl then applies the relocations as for
 * any object, for any architecture. */

static uint64_t get_uint(const unsigned char *p, unsigned size, bool be)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[be ? size - 1 - i : i] << (8 * i);
	return v;
}

static void put_uint(unsigned char *p, unsigned size, bool be, uint64_t v)
{
	for (unsigned i = 0; i < size; i++)
		p[be ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

struct growbuf {
	unsigned char *data;
	size_t len, cap;
};

static size_t grow_append(struct growbuf *b, const void *p, size_t n, size_t align)
{
	size_t at = (b->len + align - 1) & ~(align - 1);
	if (at + n > b->cap) {
		b->cap = 2 * (at + n) + 4096;
		b->data = au_xrealloc(b->data, b->cap);
	}
	memset(b->data + b->len, 0, at - b->len);
	if (n)
		memcpy(b->data + at, p, n);
	b->len = at + n;
	return at;
}

/* The field offsets of a section header and a symbol, per class. */
struct elf_layout {
	bool be, is64;
	unsigned shentsize;
};

static void shdr_put(unsigned char *img, const GElf_Ehdr *eh, const struct elf_layout *L, size_t idx,
		     const GElf_Shdr *sh)
{
	unsigned char *p = img + eh->e_shoff + idx * L->shentsize;
	if (L->is64) {
		put_uint(p + 0, 4, L->be, sh->sh_name);
		put_uint(p + 4, 4, L->be, sh->sh_type);
		put_uint(p + 8, 8, L->be, sh->sh_flags);
		put_uint(p + 24, 8, L->be, sh->sh_offset);
		put_uint(p + 32, 8, L->be, sh->sh_size);
		put_uint(p + 44, 4, L->be, sh->sh_info);
	} else {
		put_uint(p + 0, 4, L->be, sh->sh_name);
		put_uint(p + 4, 4, L->be, sh->sh_type);
		put_uint(p + 8, 4, L->be, sh->sh_flags);
		put_uint(p + 16, 4, L->be, sh->sh_offset);
		put_uint(p + 20, 4, L->be, sh->sh_size);
		put_uint(p + 28, 4, L->be, sh->sh_info);
	}
}

static struct au_error *merge_grouped(const char *path, int fd, int *ret_fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return au_error_format("%s: %s", path, strerror(errno));
	/* orig: the file as it is; img: the copy that grows. */
	unsigned char *orig = NULL;
	size_t got = 0;
	int rerr = au_read_all(fd, (size_t)st.st_size, &orig, &got);
	if (rerr || got != (size_t)st.st_size) {
		free(orig);
		return au_error_format("%s: read error: %s", path, rerr ? strerror(rerr) : "the file changed size");
	}
	struct growbuf img = { .data = au_xmalloc((size_t)st.st_size + 4096), .cap = (size_t)st.st_size + 4096 };
	memcpy(img.data, orig, (size_t)st.st_size);
	img.len = (size_t)st.st_size;
	struct au_error *err = NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t shnum = 0, shstrndx;
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) != 0 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0 || shnum >= SHN_LORESERVE) {
		err = au_error_format("%s: corrupt section table: %s", path, elf_errmsg(-1));
		goto out;
	}
	struct elf_layout L = { .be = eh.e_ident[EI_DATA] == ELFDATA2MSB, .is64 = eh.e_ident[EI_CLASS] == ELFCLASS64,
				.shentsize = eh.e_shentsize };
	if (L.shentsize != (L.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
	    !in_file(eh.e_shoff, (uint64_t)shnum * L.shentsize, (uint64_t)st.st_size)) {
		err = au_error_format("%s: corrupt section table (entry size %u)", path, L.shentsize);
		goto out;
	}
	GElf_Shdr *sh = au_xmalloc(shnum * sizeof(*sh));
	const char **names = au_xmalloc(shnum * sizeof(*names));
	bool *done = au_xmalloc(shnum);
	memset(done, 0, shnum);
	for (size_t i = 0; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &sh[i]) || !(names[i] = elf_strptr(elf, shstrndx, sh[i].sh_name))) {
			err = au_error_format("%s: corrupt section table: %s", path, elf_errmsg(-1));
			goto out_arrays;
		}
		if (sh[i].sh_type != SHT_NOBITS && !in_file(sh[i].sh_offset, sh[i].sh_size, (uint64_t)st.st_size)) {
			err = au_error_format("%s: truncated: section %s runs past the end of the file", path, names[i]);
			goto out_arrays;
		}
	}
	size_t symtab = 0;
	for (size_t i = 1; i < shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			symtab = i;
	unsigned symsize = L.is64 ? 24 : 16;
	for (size_t i = 1; i < shnum && !err; i++) {
		if (done[i] || strncmp(names[i], ".debug_", 7) != 0 || sh[i].sh_type == SHT_NOBITS)
			continue;
		/* All sections of this name; the ungrouped one first. */
		size_t parts[1024], np = 0;
		for (int grouped = 0; grouped < 2; grouped++)
			for (size_t j = i; j < shnum && np < 1024; j++)
				if (!done[j] && sh[j].sh_type == sh[i].sh_type && strcmp(names[j], names[i]) == 0 &&
				    !!(sh[j].sh_flags & SHF_GROUP) == grouped)
					parts[np++] = j;
		for (size_t k = 0; k < np; k++)
			done[parts[k]] = true;
		if (np < 2)
			continue;
		uint64_t bases[1024], sizes[1024];
		size_t data_start = 0;
		for (size_t k = 0; k < np; k++) {
			const void *src = orig + sh[parts[k]].sh_offset;
			uint64_t len = sh[parts[k]].sh_size;
			if (sh[parts[k]].sh_flags & SHF_COMPRESSED) {
				/* -gz: the merged section is written uncompressed. */
				Elf_Scn *scn = elf_getscn(elf, parts[k]);
				Elf_Data *d = scn && elf_compress(scn, 0, 0) >= 0 ? elf_getdata(scn, NULL) : NULL;
				if (!d || (d->d_size && !d->d_buf)) {
					err = au_error_format("%s: corrupt compressed %s: %s", path, names[i], elf_errmsg(-1));
					break;
				}
				src = d->d_buf;
				len = d->d_size;
			}
			size_t at = grow_append(&img, src, len, k ? 1 : 16);
			if (k == 0)
				data_start = at;
			bases[k] = at - data_start;
			sizes[k] = len;
		}
		if (err)
			break;
		/* Relocations of each part, with offsets moved. */
		size_t rel_primary = 0;
		size_t rel_start = 0, rel_len = 0;
		unsigned rel_type = 0;
		for (size_t k = 0; k < np; k++) {
			for (size_t j = 1; j < shnum; j++) {
				if ((sh[j].sh_type != SHT_RELA && sh[j].sh_type != SHT_REL) || sh[j].sh_info != parts[k])
					continue;
				if (rel_primary && (sh[j].sh_type != rel_type || sh[j].sh_link != sh[rel_primary].sh_link)) {
					err = au_error_format("%s: mixed relocation sections for %s: not supported", path,
							      names[i]);
					break;
				}
				if (!rel_primary) {
					rel_primary = j;
					rel_type = sh[j].sh_type;
				}
				size_t entsize = sh[j].sh_entsize ? sh[j].sh_entsize
						 : L.is64 ? (rel_type == SHT_RELA ? 24 : 16) : (rel_type == SHT_RELA ? 12 : 8);
				size_t at = grow_append(&img, orig + sh[j].sh_offset, sh[j].sh_size, rel_len ? 1 : 8);
				if (!rel_len)
					rel_start = at;
				rel_len = at + sh[j].sh_size - rel_start;
				for (size_t e = 0; e + entsize <= sh[j].sh_size; e += entsize) {
					unsigned char *p = img.data + at + e;
					unsigned w = L.is64 ? 8 : 4;
					put_uint(p, w, L.be, get_uint(p, w, L.be) + bases[k]);
				}
				if (j != rel_primary) {
					GElf_Shdr hide = sh[j];
					hide.sh_name = 0;
					hide.sh_type = SHT_PROGBITS;
					hide.sh_flags &= ~(uint64_t)SHF_GROUP;
					shdr_put(img.data, &eh, &L, j, &hide);
				}
			}
			if (err)
				break;
		}
		if (err)
			break;
		/* Section symbols of the other parts point into the merged one. */
		if (symtab) {
			for (uint64_t e = 0; e + symsize <= sh[symtab].sh_size; e += symsize) {
				unsigned char *p = img.data + sh[symtab].sh_offset + e;
				unsigned char *shndx = p + (L.is64 ? 6 : 14);
				unsigned char *value = p + (L.is64 ? 8 : 4);
				uint64_t ndx = get_uint(shndx, 2, L.be);
				for (size_t k = 1; k < np; k++) {
					if (ndx != parts[k])
						continue;
					put_uint(shndx, 2, L.be, parts[0]);
					put_uint(value, L.is64 ? 8 : 4, L.be, get_uint(value, L.is64 ? 8 : 4, L.be) + bases[k]);
				}
			}
		}
		GElf_Shdr merged = sh[parts[0]];
		merged.sh_offset = data_start;
		merged.sh_size = bases[np - 1] + sizes[np - 1];
		merged.sh_flags &= ~(uint64_t)(SHF_GROUP | SHF_COMPRESSED);
		shdr_put(img.data, &eh, &L, parts[0], &merged);
		for (size_t k = 1; k < np; k++) {
			GElf_Shdr hide = sh[parts[k]];
			hide.sh_name = 0;
			hide.sh_flags &= ~(uint64_t)SHF_GROUP;
			shdr_put(img.data, &eh, &L, parts[k], &hide);
		}
		if (rel_primary) {
			GElf_Shdr rel = sh[rel_primary];
			rel.sh_offset = rel_start;
			rel.sh_size = rel_len;
			rel.sh_info = (uint32_t)parts[0];
			rel.sh_flags &= ~(uint64_t)SHF_GROUP;
			shdr_put(img.data, &eh, &L, rel_primary, &rel);
		}
	}
	if (!err) {
		int mfd = memfd_create("abidiff-uapi-merged", MFD_CLOEXEC);
		if (mfd < 0 || write(mfd, img.data, img.len) != (ssize_t)img.len) {
			err = au_error_format("%s: cannot make a merged copy: %s", path, strerror(errno));
			if (mfd >= 0)
				close(mfd);
		} else {
			*ret_fd = mfd;
		}
	}
out_arrays:
	free(sh);
	free(names);
	free(done);
out:
	elf_end(elf);
	free(img.data);
	free(orig);
	return err;
}

/* ---- dwz supplements ---- */

static bool file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The supplement's name as .debug_sup (DWARF 5) records it. */
static const char *debug_sup_name(Elf *elf, bool *is_sup)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	*is_sup = false;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!n || strcmp(n, ".debug_sup") != 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || d->d_size < 4)
			return NULL;
		const char *p = (const char *)d->d_buf;
		*is_sup = p[2] != 0;
		if (!memchr(p + 3, '\0', d->d_size - 3))
			return NULL;
		return p + 3;
	}
	return NULL;
}

struct alt_file {
	int fd;
	Elf *elf;
	Dwarf *dw;
};

static bool same_build_id(Elf *elf, const void *id, ssize_t len)
{
	const void *got;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &got);
	return n == len && memcmp(got, id, (size_t)len) == 0;
}

/* Finds, opens and checks the supplement named in the main file: the
 * --alt files first (matched by build ID, or by name for .debug_sup), then
 * the recorded name (absolute, or relative to the object's directory), then
 * its file name beside the object. */
static struct au_error *open_alt(const char *path, Dwarf *dw, const struct dwarf_read_options *opts,
				 struct alt_file *alt, bool *has_alt)
{
	const char *name = NULL;
	const void *bid = NULL;
	ssize_t blen = dwelf_dwarf_gnu_debugaltlink(dw, &name, &bid);
	bool is_sup = false;
	if (blen <= 0) {
		blen = 0;
		name = debug_sup_name(dwarf_getelf(dw), &is_sup);
		if (is_sup || !name || !*name)
			return NULL;  /* no supplement, or this is one */
		/* libdw 0.188 resolves DW_FORM_ref_sup4/8 and strp_sup in the main
		 * file, not in the supplement: reading on would give wrong types. */
		return au_error_format("%s: its types are in the DWARF 5 supplement %s (.debug_sup, dwz -5), which "
				       "this libdw cannot follow: not read (use dwz without -5: .gnu_debugaltlink)",
				       path, name);
	}
	char *cands[MAX_ALT_FILES + 4];
	size_t nc = 0;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	for (size_t i = 0; opts && i < opts->nalt; i++)
		cands[nc++] = au_xstrdup(opts->alt[i]);
	char *dir = au_xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	const char *d = slash ? dir : ".";
	cands[nc++] = name[0] == '/' ? au_xstrdup(name) : au_xasprintf("%s/%s", d, name);
	cands[nc++] = au_xasprintf("%s/%s", d, base);
	struct au_error *err = NULL;
	bool found = false, mismatch = false;
	for (size_t i = 0; i < nc && !found; i++) {
		bool from_opt = opts && i < opts->nalt;
		if (!file_exists(cands[i]))
			continue;
		if (from_opt && !blen) {
			const char *ob = strrchr(cands[i], '/') ? strrchr(cands[i], '/') + 1 : cands[i];
			if (strcmp(ob, base) != 0)
				continue;
		}
		int fd = au_open_input(cands[i], &err);
		if (fd < 0) {
			au_error_destroy(err);
			err = NULL;
			continue;
		}
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (!elf || (blen && !same_build_id(elf, bid, blen))) {
			mismatch = mismatch || (elf && !from_opt);
			elf_end(elf);
			close(fd);
			continue;
		}
		Dwarf *adw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		if (!adw) {
			err = au_error_format("%s: its dwz supplement %s has unreadable DWARF: %s", path, cands[i],
					      dwarf_errmsg(-1));
			elf_end(elf);
			close(fd);
			break;
		}
		dwarf_setalt(dw, adw);
		alt->fd = fd;
		alt->elf = elf;
		alt->dw = adw;
		*has_alt = true;
		found = true;
	}
	if (!found && !err)
		err = au_error_format("%s: its dwz supplement %s was not found%s (looked beside the object; give it "
				      "with --alt FILE)", path, name, mismatch ? " with a matching build ID" : "");
	for (size_t i = 0; i < nc; i++)
		free(cands[i]);
	free(dir);
	return err;
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

struct au_error *au_dwarf_read_layouts(const char *path, struct layout_model *model)
{
	return au_dwarf_read_layouts_opts(path, model, NULL);
}

struct au_error *au_dwarf_read_layouts_opts(const char *path, struct layout_model *model,
					 const struct dwarf_read_options *opts)
{
	struct au_error *err = NULL;
	int fd = au_open_input(path, &err);
	if (fd < 0)
		return err;
	return au_dwarf_read_layouts_fd(path, fd, model, opts);
}

static struct au_error *read_fd(const char *path, int fd, struct layout_model *model,
				const struct dwarf_read_options *opts, bool member);

/* An ar archive (a static library): every member is read into the one
 * model, as the units of a library are (a name that members define with
 * different layouts is an ODR conflict). A member with no DWARF, or that
 * cannot be read, is an error naming it. */
static struct au_error *read_archive(const char *path, int fd, struct layout_model *model,
				     const struct dwarf_read_options *opts)
{
	struct au_error *err = NULL;
	Elf *ar = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!ar || elf_kind(ar) != ELF_K_AR) {
		err = au_error_format("%s: corrupt archive: %s", path, elf_errmsg(-1));
		elf_end(ar);
		close(fd);
		return err;
	}
	size_t members = 0;
	Elf_Cmd cmd = ELF_C_READ_MMAP;
	Elf *m;
	while (!err && (m = elf_begin(fd, cmd, ar))) {
		Elf_Arhdr *h = elf_getarhdr(m);
		const char *name = h && h->ar_name ? h->ar_name : "?";
		if (name[0] != '/') {   /* "/" and "//": the symbol and name tables */
			char *label = au_xasprintf("%s(%s)", path, name);
			size_t size = 0;
			char *raw = elf_rawfile(m, &size);
			int mfd = raw && size ? memfd_create("abidiff-uapi-member", MFD_CLOEXEC) : -1;
			if (!raw || !size) {
				err = au_error_format("%s: an empty or unreadable member", label);
			} else if (mfd < 0 || write(mfd, raw, size) != (ssize_t)size) {
				err = au_error_format("%s: %s", label, strerror(errno));
				if (mfd >= 0)
					close(mfd);
			} else {
				err = read_fd(label, mfd, model, opts, true);   /* closes mfd */
			}
			members++;
			free(label);
		}
		cmd = elf_next(m);
		elf_end(m);
	}
	elf_end(ar);
	close(fd);
	if (!err && members == 0)
		err = au_error_format("%s: an archive with no members", path);
	else if (!err && model->ntypes == 0)
		err = au_error_format("%s: no struct, union or enum definition in any of its %zu members", path, members);
	return err;
}

struct au_error *au_dwarf_read_layouts_fd(const char *path, int fd, struct layout_model *model,
				       const struct dwarf_read_options *opts)
{
	unsigned char magic[8];
	elf_version(EV_CURRENT);
	if (pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) && memcmp(magic, "!<arch>\n", 8) == 0)
		return read_archive(path, fd, model, opts);
	return read_fd(path, fd, model, opts, false);
}

/* In a relocatable object (every header unit uapi-check compiles) the
 * relocations of the debug sections take almost half as many bytes again as
 * the sections: a .o with 30 MB of .debug_info has 13 MB of
 * .rela.debug_info. libdwfl applies them all when it opens the DWARF, then
 * marks each relocation section empty and never reads it again; but its
 * pages stay resident (libelf's private, writable mapping holds them as
 * anonymous memory, so MADV_PAGEOUT cannot reclaim them) until the read
 * ends. They are given back with MADV_DONTNEED: only whole pages inside
 * those sections of the raw file image, which nothing reads after
 * dwfl_module_getdwarf (libelf's converted copies, if any, live elsewhere).
 * Not for the type-unit path, whose image is a rewritten copy. */
static void drop_applied_relocations(Dwfl_Module *mod, const struct input_facts *f)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t size = 0;
	char *raw = elf ? elf_rawfile(elf, &size) : NULL;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (size_t i = 0; raw && page && !(page & (page - 1)) && i < f->ndebug_rels; i++) {
		if (!in_file(f->debug_rels[i].off, f->debug_rels[i].size, size))
			continue;
		uintptr_t start = ((uintptr_t)raw + f->debug_rels[i].off + page - 1) & ~(page - 1);
		uintptr_t end = ((uintptr_t)raw + f->debug_rels[i].off + f->debug_rels[i].size) & ~(page - 1);
		if (end > start)
			(void)madvise((void *)start, end - start, MADV_DONTNEED);
	}
}

static struct au_error *read_fd(const char *path, int fd, struct layout_model *model,
				const struct dwarf_read_options *opts, bool member)
{
	struct reader r = { .model = model, .path = path };
	r.cycle.mt = au_member_type_new(&model->arena, "?", TYPEKEY_CYCLE, NULL, NULL, 0, NULL);
	struct input_facts facts = { 0 };
	struct au_error *err = NULL;
	err = check_elf(path, fd, &facts);
	if (!err && !facts.has_debug_info) {
		if (facts.has_lto || facts.has_llvm_bitcode)
			err = au_error_format("%s: an LTO-only object (built with -flto): its code is LTO bytecode with "
					      "no DWARF; build without -flto, or with -ffat-lto-objects", path);
		else
			err = au_error_format("%s: no DWARF debug information (stripped, or built without -g)", path);
	}
	if (!err && facts.grouped_debug) {
		int mfd = -1;
		err = merge_grouped(path, fd, &mfd);
		if (!err) {
			close(fd);
			fd = mfd;
		}
	}
	if (err) {
		close(fd);
		return err;
	}
	r.big_endian = facts.big_endian;
	r.address_size = facts.address_size;
	model->address_size = facts.address_size;
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl) {
		close(fd);
		return au_error_format("%s: %s", path, dwfl_errmsg(-1));
	}
	/* libdwfl owns fd from here, and closes it. */
	Dwfl_Module *mod = dwfl_report_offline(dwfl, path, path, fd);
	if (!mod || dwfl_report_end(dwfl, NULL, NULL) != 0) {
		err = au_error_format("%s: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return err;
	}
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	if (dw && !facts.grouped_debug)
		drop_applied_relocations(mod, &facts);
	Dwarf *own_dw = NULL;
	if (!dw) {
		/* libdwfl wants a symbol table, which a dwz supplement lacks; with
		 * no symbols there is nothing to relocate, so libdw reads it. */
		GElf_Addr b;
		Elf *elf = dwfl_module_getelf(mod, &b);
		if (elf && !has_symtab(elf))
			dw = own_dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	}
	if (!dw) {
		err = au_error_format("%s: unreadable DWARF: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return err;
	}
	au_intmap_init(&r.infos);
	au_arena_init(&r.scratch);
	r.body = &model->arena;
	au_arena_init(&r.anon_tmp);
	au_strmap_init(&r.anon_shapes);
	au_strmap_init(&r.names);
	au_strmap_init(&r.anon_names);
	au_strmap_init(&r.ptr_names);
	au_strmap_init(&r.qual_names);
	au_strmap_init(&r.decl_scopes);
	au_strmap_init(&r.files);
	au_intmap_init(&r.file_memo);
	au_strmap_init(&r.visited[0]);
	au_strmap_init(&r.visited[1]);
	struct alt_file alt = { .fd = -1 };

	add_regions(&r, dwarf_getelf(dw), path);
	if (!r.err)
		r.err = open_alt(path, dw, opts, &alt, &r.has_alt);
	if (alt.elf)
		add_regions(&r, alt.elf, path);

	/* Type units (also in split units): DW_UT_type in a unit header, or
	 * DWARF 4's .debug_types. */
	have_type_units = false;
	{
		Dwarf_CU *cu = NULL, *next;
		Dwarf_Half version;
		uint8_t ut;
		while (!have_type_units && dwarf_get_units(dw, cu, &next, &version, &ut, NULL, NULL) == 0) {
			cu = next;
			have_type_units = ut == DW_UT_type || ut == DW_UT_split_type || ut == DW_UT_skeleton;
		}
	}

	/* Several units (a library, or dwz partial units): a name may be
	 * defined in more than one. */
	{
		Dwarf_CU *cu = NULL, *next;
		Dwarf_Half version;
		uint8_t ut;
		int n = 0;
		while (n < 2 && dwarf_get_units(dw, cu, &next, &version, &ut, NULL, NULL) == 0) {
			cu = next;
			n += ut == DW_UT_compile || ut == DW_UT_skeleton || ut == DW_UT_partial;
		}
		r.multi_unit = n > 1 || model->ntypes > 0;   /* or an earlier archive member */
	}
	au_strmap_init(&r.odr_keys);

	/* Pass 1 over all units first: a typedef in one place may name an
	 * anonymous aggregate that a member elsewhere uses. */
	for (int pass = 0; pass < 2 && !r.err; pass++) {
		walk_units(&r, dw, path, pass);
		if (pass == 0) {
			/* A typedef of the type itself wins over one of a pointer to it. */
			for (size_t i = 0; i < r.ptr_names.capacity; i++) {
				struct strmap_slot *sl = &r.ptr_names.slots[i];
				if (sl->key && !au_strmap_iget(&r.anon_names, sl->k))
					au_strmap_iput(&r.anon_names, sl->k, sl->value);
			}
		}
	}
	if (!r.err && r.odr_conflicts) {
		split_scoped(&r);
		order_definitions(&r);
	}
	au_strmap_deinit(&r.odr_keys);
	if (!r.err && r.units == 0)
		r.err = au_error_format("%s: no DWARF compilation units", path);
	else if (!r.err && model->ntypes == 0 && !member)
		r.err = r.definitions
			? au_error_format("%s: none of the %zu struct, union or enum definitions in its debug information "
					  "(%zu units) has a name to compare it by", path, r.definitions, r.units / 2)
			: au_error_format("%s: its debug information (%zu unit%s) defines no struct, union or enum: "
					  "no layout to compare", path, r.units / 2, r.units / 2 == 1 ? "" : "s");
	au_strmap_deinit(&r.anon_shapes);
	au_arena_deinit(&r.anon_tmp);
	au_intmap_deinit(&r.infos);
	au_arena_deinit(&r.scratch);
	au_strmap_deinit(&r.names);
	au_strmap_deinit(&r.anon_names);
	au_strmap_deinit(&r.ptr_names);
	au_strmap_deinit(&r.qual_names);
	au_strmap_deinit(&r.decl_scopes);
	au_strmap_deinit(&r.files);
	au_intmap_deinit(&r.file_memo);
	au_strmap_deinit(&r.visited[0]);
	au_strmap_deinit(&r.visited[1]);
	if (own_dw)
		dwarf_end(own_dw);
	dwfl_end(dwfl);
	if (alt.dw)
		dwarf_end(alt.dw);
	if (alt.elf)
		elf_end(alt.elf);
	if (alt.fd >= 0)
		close(alt.fd);
	return r.err;
}
