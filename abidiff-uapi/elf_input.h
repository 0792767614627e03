/* The ELF side of the DWARF reader: what a file is before libdw sees it.
 * Sniffing and checking the file (check_elf), the linker's view of a .o
 * whose type units sit in COMDAT groups (merge_grouped), giving back the
 * pages of relocations libdwfl has applied, ar archives member by member,
 * and dwz supplements (open_alt). Nothing here reads a DIE. */
#ifndef AU_ELF_INPUT_H
#define AU_ELF_INPUT_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf_reader.h"
#include "error.h"

/* [off, off + size) lies in a file of total bytes (no wrap-around). */
static inline bool in_file(uint64_t off, uint64_t size, uint64_t total)
{
	return size <= total && off <= total - size;
}

struct input_facts {
	bool big_endian;
	unsigned address_size;
	unsigned machine;         /* e_machine */
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

/* Checks that the file is a readable ELF file and gathers its facts, so
 * that the common bad inputs get a precise reason rather than libdwfl's
 * generic one. */
struct au_error *check_elf(const char *path, int fd, struct input_facts *f);

/* A private copy of a .o whose debug sections sit in COMDAT groups (type
 * units), with each name's sections and relocations joined as the linker
 * would: *ret_fd is a memfd holding it. */
struct au_error *merge_grouped(const char *path, int fd, int *ret_fd);

/* Gives back the pages of the debug relocation sections of elf's raw image
 * (libdwfl has applied them and never reads them again). */
void drop_applied_relocations(Elf *elf, const struct input_facts *f);

bool has_symtab(Elf *elf);

/* fd is an ar archive ("!<arch>\n"). */
bool is_archive(int fd);

/* Calls read_member on each member of the archive at fd (not the symbol and
 * name tables), with a label "path(member)" and a memfd holding the member,
 * which read_member closes; stops at the first error. Closes fd. */
typedef struct au_error *archive_member_fn(const char *label, int fd, void *arg);
struct au_error *each_archive_member(const char *path, int fd, archive_member_fn *read_member, void *arg,
				     size_t *members);

/* A dwz supplement, once found and opened. */
struct alt_file {
	int fd;
	Elf *elf;
	Dwarf *dw;
};

/* Finds, opens and checks the supplement named in the main file and gives
 * it to dw (dwarf_setalt); none is needed when the file names none. A
 * supplement with only .debug_str, which libdw will not open, is given as a
 * private copy (alt->fd a memfd) that adds an empty .debug_line. */
struct au_error *open_alt(const char *path, Dwarf *dw, const struct dwarf_read_options *opts,
			  struct alt_file *alt, bool *has_alt);
void close_alt(struct alt_file *alt);

#endif
