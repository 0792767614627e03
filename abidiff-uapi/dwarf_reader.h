/* Reads the DWARF of an ELF object (relocatable, shared or executable;
 * DWARF 4 or 5; gcc or clang; ELF32 or ELF64; compressed sections) into a
 * layout model. Relocatable objects go through libdwfl, which applies the
 * .rela.debug_* relocations that plain dwarf_begin() leaves undone. */
#ifndef AU_DWARF_READER_H
#define AU_DWARF_READER_H

#include "error.h"
#include "model.h"

/* Fills an initialised model. On error the model holds a partial read and
 * must still be deinitialised; the error names the file and the reason. */
struct au_error *dwarf_read_layouts(const char *path, struct layout_model *model);

#endif
