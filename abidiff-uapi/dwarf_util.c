/* The DWARF reader's shared helpers: errors, string bounds, names,
 * attributes and declaring files (dwarf_internal.h). */
#define _GNU_SOURCE
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"
#include "strbuf.h"
#include "xmem.h"

__thread bool have_type_units;

/* The first error is the one reported; later ones (from unwinding nested
 * reads) are dropped. */
void set_error(struct reader *r, struct au_error *err)
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
static bool in_region(const struct region *g, const unsigned char *p)
{
	return p >= g->base && p < g->end;
}

/* Most strings lie in the section of the one before (.debug_str): that
 * region is tried first. */
static bool string_in_sections(struct reader *r, const char *str, bool outside_ok)
{
	const unsigned char *p = (const unsigned char *)str;
	if (!str)
		return false;
	size_t i = r->last_region;
	if (i >= r->nregions || !in_region(&r->regions[i], p))
		for (i = 0; i < r->nregions && !in_region(&r->regions[i], p); i++)
			;
	if (i == r->nregions)
		return outside_ok;
	r->last_region = i;
	return memchr(p, '\0', (size_t)(r->regions[i].end - p)) != NULL;
}

bool string_ok(struct reader *r, const char *str)
{
	return string_in_sections(r, str, false);
}

/* For strings libdw may also build itself (a declaring file joined to its
 * directory): checked when they point into a section, trusted otherwise. */
bool string_ok_or_built(struct reader *r, const char *str)
{
	return string_in_sections(r, str, true);
}

/* Records the debug sections of one ELF file (the object, a split unit's
 * .dwo, a dwz supplement) in memory, once per file. A string section that
 * does not end in a NUL lets any of its strings run off the end, inside
 * libdw too (its line table reader calls strlen on them; found by
 * fuzz-dwarf), so such a file is corrupt: an error names the section. */
void add_regions(struct reader *r, Elf *elf, const char *file)
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
			bool str = bl == 9 && strncmp(base, "debug_str", 9) == 0;
			if (str)
				r->str_bytes += d->d_size;
			if ((str || (bl == 14 && strncmp(base, "debug_line_str", 14) == 0)) &&
			    ((const char *)d->d_buf)[d->d_size - 1] != '\0')
				set_error(r, au_error_format("%s: corrupt %s: its last string is not terminated", file, n));
			else if (str && r->nstrs < sizeof(r->strs) / sizeof(r->strs[0]))
				r->strs[r->nstrs++] = (struct str_section){
					d->d_buf, (const char *)d->d_buf + d->d_size,
					au_arena_memdup(&r->model->arena, d->d_buf, d->d_size) };
		}
	}
}

/* s in one of the .debug_str sections the model keeps a copy of: its
 * string in that copy, else NULL. */
static const char *str_copy(const struct reader *r, const char *s)
{
	uintptr_t p = (uintptr_t)s;
	for (size_t i = 0; i < r->nstrs; i++) {
		const struct str_section *g = &r->strs[i];
		if (p >= (uintptr_t)g->base && p < (uintptr_t)g->end)
			return g->copy + (p - (uintptr_t)g->base);
	}
	return NULL;
}

/* A name in a kept .debug_str is handed out as the model's copy, which
 * ends in a NUL like its section: libdw's string is never read, and needs
 * no bounds scan. */
const char *attr_name(struct reader *r, Dwarf_Attribute *attr)
{
	/* Bounds first: even the first byte may lie outside every section. */
	const char *n = attr ? dwarf_formstring(attr) : NULL;
	const char *c = n ? str_copy(r, n) : NULL;
	if (c)
		return *c ? c : NULL;
	return n && string_ok(r, n) && *n ? n : NULL;
}

const char *die_name(struct reader *r, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	return attr_name(r, dwarf_attr(die, DW_AT_name, &attr));
}

/* A copy of s in the model (libdw's strings go away with the Dwfl), one per
 * distinct string: thousands of members are called "reserved" or "flags". */
static const char *copy_to_arena(void *arena, const char *s)
{
	return au_arena_strdup(arena, s);
}

const char *intern(struct reader *r, const char *s)
{
	if (!s)
		return NULL;
	uintptr_t p = (uintptr_t)s;
	for (size_t i = 0; i < r->nstrs; i++) {
		const struct str_section *g = &r->strs[i];
		if (p >= (uintptr_t)g->copy && p < (uintptr_t)g->copy + (size_t)(g->end - g->base))
			return s;   /* the model's own copy already (attr_name) */
	}
	const char *c = str_copy(r, s);
	return c ? c : au_strset_intern(&r->names, s, copy_to_arena, &r->model->arena);
}

bool is_declaration(Dwarf_Die *die)
{
	bool flag = false;
	Dwarf_Attribute attr;
	if (dwarf_attr(die, DW_AT_declaration, &attr))
		dwarf_formflag(&attr, &flag);
	return flag;
}

/* A unit's types name a few of its files many times over; libdw hands out
 * the same string for each, so the path made from it is remembered, with
 * the unit directory it was joined to. */
struct file_memo {
	const char *comp_dir;
	const char *path;
};

/* Lexically normalised absolute path of a declaring file. */
const char *decl_file(struct reader *r, Dwarf_Die *die)
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

const char *aggregate_prefix(int tag)
{
	switch (tag) {
	case DW_TAG_union_type: return "union";
	case DW_TAG_enumeration_type: return "enum";
	default: return "struct";
	}
}

bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

/* Names the type being read when its nesting passes MAX_DEPTH. */
void too_deep(struct reader *r)
{
	set_error(r, au_error_format("%s: %s nests types deeper than %d levels (pointers, typedefs, arrays or "
				     "anonymous members): not read", r->path,
				     r->current ? r->current : "a type", MAX_DEPTH));
}
