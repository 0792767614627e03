/* Reads raw BTF (such as a running kernel's /sys/kernel/btf/vmlinux) into a
 * layout model with libbpf, so the kernel's own view of a UAPI struct can be
 * compared with what C and C++ programs see. BTF has no declaring files. */
#ifndef AU_BTF_READER_H
#define AU_BTF_READER_H

#include "error.h"
#include "model.h"

struct au_error *au_btf_read_layouts(const char *path, struct layout_model *model);
/* The same from fd, opened by au_open_input; the reader closes it. */
struct au_error *au_btf_read_layouts_fd(const char *path, int fd, struct layout_model *model);
/* fd may also be an ELF file with a .BTF section. With base (a path: raw BTF
 * or ELF), fd's BTF is split BTF on it, as a module's is on vmlinux's: the
 * model then holds the types fd's BTF itself defines. */
struct au_error *au_btf_read_layouts_split_fd(const char *path, int fd, const char *base, struct layout_model *model);

#endif
