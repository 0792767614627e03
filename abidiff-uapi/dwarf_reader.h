/* Reads the DWARF of an ELF object (relocatable, shared or executable;
 * DWARF 4 or 5; gcc or clang; ELF32 or ELF64; compressed sections; type
 * units; split DWARF .dwo files; dwz supplements) into a layout model.
 * Relocatable objects go through libdwfl, which applies the .rela.debug_*
 * relocations that plain dwarf_begin() leaves undone. */
#ifndef AU_DWARF_READER_H
#define AU_DWARF_READER_H

#include <stddef.h>

#include "error.h"
#include "model.h"

enum { MAX_ALT_FILES = 8 };

struct dwarf_read_options {
	/* Candidate dwz supplements (--alt): the one whose build ID (or, for
	 * DWARF 5 .debug_sup, file name) the object names is used. */
	const char *alt[MAX_ALT_FILES];
	size_t nalt;
};

/* Fills an initialised model. On error the model holds a partial read and
 * must still be deinitialised; the error names the file and the reason. */
struct au_error *au_dwarf_read_layouts(const char *path, struct layout_model *model);
struct au_error *au_dwarf_read_layouts_opts(const char *path, struct layout_model *model,
					 const struct dwarf_read_options *opts);
/* The same from fd, opened by au_open_input; the reader closes it. */
struct au_error *au_dwarf_read_layouts_fd(const char *path, int fd, struct layout_model *model,
				       const struct dwarf_read_options *opts);

#endif
