/* DWARF -> layout model: the entry points. An archive is read member by
 * member into one model; each ELF file is checked (elf_input.c), opened
 * through libdwfl (relocations applied), given its dwz supplement, and
 * walked twice (dwarf_walk.c), reading types as they are met
 * (dwarf_types.c). The parts share struct reader (dwarf_internal.h). */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_internal.h"
#include "elf_input.h"
#include "input.h"
#include "typekey.h"

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

struct archive_read {
	struct layout_model *model;
	const struct dwarf_read_options *opts;
};

static struct au_error *read_member(const char *label, int fd, void *arg)
{
	struct archive_read *a = arg;
	return read_fd(label, fd, a->model, a->opts, true);
}

/* An ar archive (a static library): every member is read into the one
 * model, as the units of a library are (a name that members define with
 * different layouts is an ODR conflict). A member with no DWARF, or that
 * cannot be read, is an error naming it; members that define no type are
 * an empty model, as a single object is. */
static struct au_error *read_archive(const char *path, int fd, struct layout_model *model,
				     const struct dwarf_read_options *opts)
{
	struct archive_read a = { model, opts };
	size_t members = 0;
	struct au_error *err = each_archive_member(path, fd, read_member, &a, &members);
	if (!err && members == 0)
		err = au_error_format("%s: an archive with no members", path);
	return err;
}

struct au_error *au_dwarf_read_layouts_fd(const char *path, int fd, struct layout_model *model,
				       const struct dwarf_read_options *opts)
{
	elf_version(EV_CURRENT);
	if (is_archive(fd))
		return read_archive(path, fd, model, opts);
	return read_fd(path, fd, model, opts, false);
}

/* Checks the file before libdw sees it; a .o whose type units sit in COMDAT
 * groups is replaced by the linker's view of it (*fd then a memfd). Closes
 * *fd on error. */
static struct au_error *prepare_input(const char *path, int *fd, struct input_facts *facts)
{
	struct au_error *err = check_elf(path, *fd, facts);
	if (!err && !facts->has_debug_info) {
		if (facts->has_lto || facts->has_llvm_bitcode)
			err = au_error_format("%s: an LTO-only object (built with -flto): its code is LTO bytecode with "
					      "no DWARF; build without -flto, or with -ffat-lto-objects", path);
		else
			err = au_error_format("%s: no DWARF debug information (stripped, or built without -g)", path);
	}
	if (!err && facts->grouped_debug) {
		int mfd = -1;
		err = merge_grouped(path, *fd, &mfd);
		if (!err) {
			close(*fd);
			*fd = mfd;
		}
	}
	if (err)
		close(*fd);
	return err;
}

/* The file's DWARF through libdwfl, which takes fd (and closes it) and
 * applies the relocations of a .o. *own_dw: a Dwarf opened here, for a file
 * libdwfl will not give one (the caller ends it). */
static struct au_error *open_dwarf(const char *path, int fd, const struct input_facts *facts, Dwfl **ret_dwfl,
				   Dwarf **ret_dw, Dwarf **own_dw)
{
	struct au_error *err;
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
	if (dw && !facts->grouped_debug) {
		GElf_Addr b;
		drop_applied_relocations(dwfl_module_getelf(mod, &b), facts);
	}
	*own_dw = NULL;
	if (!dw) {
		/* libdwfl wants a symbol table, which a dwz supplement lacks; with
		 * no symbols there is nothing to relocate, so libdw reads it. */
		GElf_Addr b;
		Elf *elf = dwfl_module_getelf(mod, &b);
		if (elf && !has_symtab(elf))
			dw = *own_dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	}
	if (!dw) {
		err = au_error_format("%s: unreadable DWARF: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return err;
	}
	*ret_dwfl = dwfl;
	*ret_dw = dw;
	return NULL;
}

static void reader_init(struct reader *r)
{
	au_intmap_init(&r->infos);
	au_arena_init(&r->scratch);
	au_arena_init(&r->info_mem);
	au_arena_init(&r->type_tmp);
	au_intmap_init(&r->member_types);
	r->body = &r->model->arena;
	au_arena_init(&r->anon_tmp);
	au_arena_init(&r->dup_tmp);
	au_strmap_init(&r->anon_shapes);
	au_strset_init(&r->names);
	au_strmap_init(&r->anon_names);
	au_strmap_init(&r->ptr_names);
	au_strmap_init(&r->qual_names);
	au_strmap_init(&r->decl_scopes);
	au_strmap_init(&r->files);
	au_intmap_init(&r->file_memo);
	au_intmap_init(&r->const_types);
	au_strmap_init(&r->visited[0]);
	au_strmap_init(&r->visited[1]);
	au_strmap_init(&r->odr_keys);
	au_intmap_init(&r->nested);
}

static void reader_deinit(struct reader *r)
{
	au_strmap_deinit(&r->odr_keys);
	au_intmap_deinit(&r->nested);
	au_strmap_deinit(&r->anon_shapes);
	au_arena_deinit(&r->anon_tmp);
	au_arena_deinit(&r->dup_tmp);
	au_intmap_deinit(&r->infos);
	au_arena_deinit(&r->scratch);
	au_arena_deinit(&r->info_mem);
	au_arena_deinit(&r->type_tmp);
	au_intmap_deinit(&r->member_types);
	au_strset_deinit(&r->names);
	au_strmap_deinit(&r->anon_names);
	au_strmap_deinit(&r->ptr_names);
	au_strmap_deinit(&r->qual_names);
	au_strmap_deinit(&r->decl_scopes);
	au_strmap_deinit(&r->files);
	au_intmap_deinit(&r->file_memo);
	au_intmap_deinit(&r->const_types);
	au_strmap_deinit(&r->visited[0]);
	au_strmap_deinit(&r->visited[1]);
}

/* What the unit headers say before the walk: whether there are type units
 * (also in split units: DW_UT_type, or DWARF 4's .debug_types), and
 * whether a name may be defined in more than one unit (a library, dwz
 * partial units, or an earlier archive member). */
static void scan_units(struct reader *r, Dwarf *dw)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t ut;
	have_type_units = false;
	while (!have_type_units && dwarf_get_units(dw, cu, &next, &version, &ut, NULL, NULL) == 0) {
		cu = next;
		have_type_units = ut == DW_UT_type || ut == DW_UT_split_type || ut == DW_UT_skeleton;
	}
	cu = NULL;
	int n = 0;
	while (n < 2 && dwarf_get_units(dw, cu, &next, &version, &ut, NULL, NULL) == 0) {
		cu = next;
		n += ut == DW_UT_compile || ut == DW_UT_skeleton || ut == DW_UT_partial;
	}
	r->multi_unit = n > 1 || r->model->ntypes > 0;
}

/* Both passes over every unit, then the duplicate definitions sorted out. */
static void read_units(struct reader *r, Dwarf *dw)
{
	/* Pass 1 over all units first: a typedef in one place may name an
	 * anonymous aggregate that a member elsewhere uses. */
	for (int pass = 0; pass < 2 && !r->err; pass++) {
		walk_units(r, dw, r->path, pass);
		if (pass == 0) {
			/* Pass 2 adds a type for the named aggregates and enums pass
			 * 1 met, and for the anonymous ones a typedef names: the name
			 * map is sized once rather than grown eight times. Counting
			 * every aggregate DIE instead (the anonymous ones nested in
			 * members too) reserved eight times the slots a 100k-struct
			 * object needs: 50 MiB of its diff's peak. */
			au_strmap_reserve(&r->model->by_name, r->model->ntypes + r->aggregates + r->anon_names.count);
			/* A typedef of the type itself wins over one of a pointer to it. */
			for (size_t i = 0; i < r->ptr_names.capacity; i++) {
				struct strmap_slot *sl = &r->ptr_names.slots[i];
				if (sl->key && !au_strmap_iget(&r->anon_names, sl->k))
					au_strmap_iput(&r->anon_names, sl->k, sl->value);
			}
		}
	}
	if (!r->err && r->odr_conflicts) {
		split_scoped(r);
		order_definitions(r);
	}
}

/* Debug information that is there but cannot be walked is an error, never
 * an empty model. Readable debug information that defines no struct, union
 * or enum (a struct only declared; an enum no longer emitted; a unit of
 * functions) is an empty model: it compares as "every type added" or
 * "every type removed", like any other. */
static void check_read(struct reader *r, bool member)
{
	if (!r->err && r->units == 0)
		r->err = au_error_format("%s: no DWARF compilation units", r->path);
	else if (!r->err && r->model->ntypes == 0 && r->definitions && !member)
		/* Definitions were met but none can be paired: a model with
		 * nothing in it would pass any change. */
		r->err = au_error_format("%s: none of the %zu struct, union or enum definitions in its debug information "
					 "(%zu units) has a name to compare it by", r->path, r->definitions, r->units / 2);
}

static struct au_error *read_fd(const char *path, int fd, struct layout_model *model,
				const struct dwarf_read_options *opts, bool member)
{
	struct reader r = { .model = model, .path = path };
	r.cycle.mt = au_member_type_new(&model->arena, "?", TYPEKEY_CYCLE, NULL, NULL, 0, NULL);
	struct input_facts facts = { 0 };
	struct au_error *err = prepare_input(path, &fd, &facts);
	if (err)
		return err;
	r.big_endian = facts.big_endian;
	r.address_size = facts.address_size;
	model->address_size = facts.address_size;
	model->machine = facts.machine;
	model->byte_order = facts.big_endian ? BYTE_ORDER_BIG : BYTE_ORDER_LITTLE;
	Dwfl *dwfl = NULL;
	Dwarf *dw = NULL, *own_dw = NULL;
	err = open_dwarf(path, fd, &facts, &dwfl, &dw, &own_dw);
	if (err)
		return err;
	reader_init(&r);
	struct alt_file alt = { .fd = -1 };
	add_regions(&r, dwarf_getelf(dw), path);
	if (!r.err)
		r.err = open_alt(path, dw, opts, &alt, &r.has_alt);
	if (alt.elf)
		add_regions(&r, alt.elf, path);
	/* The names taken from .debug_str need no entry (intern): what is left
	 * is the types' spellings and keys ("struct foo", "u32", "char[16]")
	 * and the few names written in .debug_info itself, about one for 150
	 * bytes of .debug_str (4,324 for 644 KB in a whole UAPI, 22,278 for
	 * 3.6 MB in a Debian vmlinux): sized from it, the set seldom grows. */
	au_strset_reserve(&r.names, r.str_bytes / 128);
	scan_units(&r, dw);
	read_units(&r, dw);
	check_read(&r, member);
	reader_deinit(&r);
	if (own_dw)
		dwarf_end(own_dw);
	dwfl_end(dwfl);
	close_alt(&alt);
	return r.err;
}
