/* ELF input for the DWARF reader: checks, COMDAT-grouped debug sections,
 * applied relocations, archives and dwz supplements (elf_input.h). */
#define _GNU_SOURCE
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_input.h"
#include "input.h"
#include "xmem.h"

static bool section_is(const char *n, const char *want)
{
	size_t wl = strlen(want);
	if (strncmp(n, ".zdebug_", 8) == 0 && strcmp(n + 8, want + 7) == 0)
		return true;
	return strncmp(n, want, wl) == 0 && (n[wl] == '\0' || strcmp(n + wl, ".dwo") == 0);
}

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

/* Not ELF at all: an archive we cannot read, LLVM bitcode, anything else. */
static struct au_error *check_magic(const char *path, const unsigned char *ident, ssize_t got)
{
	if (got >= 8 && memcmp(ident, "!<thin>\n", 8) == 0)
		return au_error_format("%s: thin archive: not supported (give its members)", path);
	if (got >= 4 && memcmp(ident, "BC\xc0\xde", 4) == 0)
		return au_error_format("%s: LLVM bitcode (an LTO-only object, built with -flto): no DWARF; build "
				       "without -flto, or with -ffat-lto-objects", path);
	if (got < 4 || memcmp(ident, ELFMAG, SELFMAG) != 0)
		return au_error_format("%s: not an ELF object file", path);
	if (got < EI_NIDENT)
		return au_error_format("%s: truncated ELF file (%zd bytes)", path, got);
	return NULL;
}

/* Every section header is readable, named and inside the file; notes what
 * the sections say about the input. */
static struct au_error *check_sections(const char *path, Elf *elf, size_t shstrndx, uint64_t file_size,
				       struct input_facts *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return au_error_format("%s: corrupt section table: %s", path, elf_errmsg(-1));
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n)
			return au_error_format("%s: corrupt section table: a section name is outside its string table",
					       path);
		if (sh.sh_type != SHT_NOBITS && !in_file(sh.sh_offset, sh.sh_size, file_size))
			return au_error_format("%s: truncated: section %s runs past the end of the file", path, n);
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
	return NULL;
}

struct au_error *check_elf(const char *path, int fd, struct input_facts *f)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return au_error_format("%s: %s", path, strerror(errno));
	unsigned char ident[EI_NIDENT];
	ssize_t got = pread(fd, ident, sizeof(ident), 0);
	struct au_error *err = check_magic(path, ident, got);
	if (err)
		return err;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
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
		f->machine = eh.e_machine;
		err = check_sections(path, elf, shstrndx, (uint64_t)st.st_size, f);
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

enum { MAX_PARTS = 1024 };

/* One merge: the file as it is (orig), the copy that grows (img), and its
 * section table. */
struct merge {
	const char *path;
	unsigned char *orig;
	struct growbuf img;
	Elf *elf;
	GElf_Ehdr eh;
	struct elf_layout L;
	size_t shnum, symtab;
	GElf_Shdr *sh;
	const char **names;
	bool *done;
	/* The sections of the name being merged, the ungrouped one first, and
	 * where each starts in the merged section. */
	size_t parts[MAX_PARTS], np;
	uint64_t bases[MAX_PARTS], sizes[MAX_PARTS];
	size_t data_start;
};

/* Reads the section table of the file into mg. */
static struct au_error *merge_load_sections(struct merge *mg, uint64_t file_size)
{
	size_t shstrndx;
	if (!mg->elf || !gelf_getehdr(mg->elf, &mg->eh) || elf_getshdrnum(mg->elf, &mg->shnum) != 0 ||
	    elf_getshdrstrndx(mg->elf, &shstrndx) != 0 || mg->shnum >= SHN_LORESERVE) {
		mg->shnum = 0;
		return au_error_format("%s: corrupt section table: %s", mg->path, elf_errmsg(-1));
	}
	mg->L = (struct elf_layout){ .be = mg->eh.e_ident[EI_DATA] == ELFDATA2MSB,
				     .is64 = mg->eh.e_ident[EI_CLASS] == ELFCLASS64, .shentsize = mg->eh.e_shentsize };
	if (mg->L.shentsize != (mg->L.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
	    !in_file(mg->eh.e_shoff, (uint64_t)mg->shnum * mg->L.shentsize, file_size)) {
		size_t shentsize = mg->L.shentsize;
		mg->shnum = 0;
		return au_error_format("%s: corrupt section table (entry size %zu)", mg->path, shentsize);
	}
	mg->sh = au_xmalloc(mg->shnum * sizeof(*mg->sh));
	mg->names = au_xmalloc(mg->shnum * sizeof(*mg->names));
	mg->done = au_xmalloc(mg->shnum);
	memset(mg->done, 0, mg->shnum);
	for (size_t i = 0; i < mg->shnum; i++) {
		Elf_Scn *scn = elf_getscn(mg->elf, i);
		if (!scn || !gelf_getshdr(scn, &mg->sh[i]) ||
		    !(mg->names[i] = elf_strptr(mg->elf, shstrndx, mg->sh[i].sh_name)))
			return au_error_format("%s: corrupt section table: %s", mg->path, elf_errmsg(-1));
		if (mg->sh[i].sh_type != SHT_NOBITS && !in_file(mg->sh[i].sh_offset, mg->sh[i].sh_size, file_size))
			return au_error_format("%s: truncated: section %s runs past the end of the file", mg->path,
					       mg->names[i]);
	}
	for (size_t i = 1; i < mg->shnum; i++)
		if (mg->sh[i].sh_type == SHT_SYMTAB)
			mg->symtab = i;
	return NULL;
}

/* Appends the data of every part to the image, uncompressed. */
static struct au_error *merge_append_data(struct merge *mg, const char *name)
{
	for (size_t k = 0; k < mg->np; k++) {
		const void *src = mg->orig + mg->sh[mg->parts[k]].sh_offset;
		uint64_t len = mg->sh[mg->parts[k]].sh_size;
		if (mg->sh[mg->parts[k]].sh_flags & SHF_COMPRESSED) {
			/* -gz: the merged section is written uncompressed. */
			Elf_Scn *scn = elf_getscn(mg->elf, mg->parts[k]);
			Elf_Data *d = scn && elf_compress(scn, 0, 0) >= 0 ? elf_getdata(scn, NULL) : NULL;
			if (!d || (d->d_size && !d->d_buf))
				return au_error_format("%s: corrupt compressed %s: %s", mg->path, name, elf_errmsg(-1));
			src = d->d_buf;
			len = d->d_size;
		}
		size_t at = grow_append(&mg->img, src, len, k ? 1 : 16);
		if (k == 0)
			mg->data_start = at;
		mg->bases[k] = at - mg->data_start;
		mg->sizes[k] = len;
	}
	return NULL;
}

/* The relocations of every part, concatenated with their offsets moved, in
 * the section of the first one (*rel_primary; the others are unnamed). */
static struct au_error *merge_relocations(struct merge *mg, const char *name, size_t *rel_primary,
					  size_t *rel_start, size_t *rel_len)
{
	const struct elf_layout *L = &mg->L;
	unsigned rel_type = 0;
	*rel_primary = *rel_start = *rel_len = 0;
	for (size_t k = 0; k < mg->np; k++) {
		for (size_t j = 1; j < mg->shnum; j++) {
			const GElf_Shdr *rs = &mg->sh[j];
			if ((rs->sh_type != SHT_RELA && rs->sh_type != SHT_REL) || rs->sh_info != mg->parts[k])
				continue;
			if (*rel_primary && (rs->sh_type != rel_type || rs->sh_link != mg->sh[*rel_primary].sh_link))
				return au_error_format("%s: mixed relocation sections for %s: not supported", mg->path,
						       name);
			if (!*rel_primary) {
				*rel_primary = j;
				rel_type = rs->sh_type;
			}
			size_t entsize = rs->sh_entsize ? rs->sh_entsize
					 : L->is64 ? (rel_type == SHT_RELA ? 24 : 16) : (rel_type == SHT_RELA ? 12 : 8);
			size_t at = grow_append(&mg->img, mg->orig + rs->sh_offset, rs->sh_size, *rel_len ? 1 : 8);
			if (!*rel_len)
				*rel_start = at;
			*rel_len = at + rs->sh_size - *rel_start;
			for (size_t e = 0; e + entsize <= rs->sh_size; e += entsize) {
				unsigned char *p = mg->img.data + at + e;
				unsigned w = L->is64 ? 8 : 4;
				put_uint(p, w, L->be, get_uint(p, w, L->be) + mg->bases[k]);
			}
			if (j != *rel_primary) {
				GElf_Shdr hide = *rs;
				hide.sh_name = 0;
				hide.sh_type = SHT_PROGBITS;
				hide.sh_flags &= ~(uint64_t)SHF_GROUP;
				shdr_put(mg->img.data, &mg->eh, L, j, &hide);
			}
		}
	}
	return NULL;
}

/* Section symbols of the other parts point into the merged one. */
static void merge_section_symbols(struct merge *mg)
{
	const struct elf_layout *L = &mg->L;
	unsigned symsize = L->is64 ? 24 : 16;
	if (!mg->symtab)
		return;
	for (uint64_t e = 0; e + symsize <= mg->sh[mg->symtab].sh_size; e += symsize) {
		unsigned char *p = mg->img.data + mg->sh[mg->symtab].sh_offset + e;
		unsigned char *shndx = p + (L->is64 ? 6 : 14);
		unsigned char *value = p + (L->is64 ? 8 : 4);
		uint64_t ndx = get_uint(shndx, 2, L->be);
		for (size_t k = 1; k < mg->np; k++) {
			if (ndx != mg->parts[k])
				continue;
			put_uint(shndx, 2, L->be, mg->parts[0]);
			put_uint(value, L->is64 ? 8 : 4, L->be, get_uint(value, L->is64 ? 8 : 4, L->be) + mg->bases[k]);
		}
	}
}

/* Joins every section called as section i is (and of its type). */
static struct au_error *merge_one_name(struct merge *mg, size_t i)
{
	/* All sections of this name; the ungrouped one first. */
	mg->np = 0;
	for (int grouped = 0; grouped < 2; grouped++)
		for (size_t j = i; j < mg->shnum && mg->np < MAX_PARTS; j++)
			if (!mg->done[j] && mg->sh[j].sh_type == mg->sh[i].sh_type &&
			    strcmp(mg->names[j], mg->names[i]) == 0 && !!(mg->sh[j].sh_flags & SHF_GROUP) == grouped)
				mg->parts[mg->np++] = j;
	for (size_t k = 0; k < mg->np; k++)
		mg->done[mg->parts[k]] = true;
	/* One section of the name, in a group (a .o with a single type unit):
	 * still taken out of its group, which libdw does not read. */
	if (mg->np < 2 && !(mg->sh[i].sh_flags & SHF_GROUP))
		return NULL;
	struct au_error *err = merge_append_data(mg, mg->names[i]);
	size_t rel_primary, rel_start, rel_len;
	if (!err)
		err = merge_relocations(mg, mg->names[i], &rel_primary, &rel_start, &rel_len);
	if (err)
		return err;
	merge_section_symbols(mg);
	GElf_Shdr merged = mg->sh[mg->parts[0]];
	merged.sh_offset = mg->data_start;
	merged.sh_size = mg->bases[mg->np - 1] + mg->sizes[mg->np - 1];
	merged.sh_flags &= ~(uint64_t)(SHF_GROUP | SHF_COMPRESSED);
	shdr_put(mg->img.data, &mg->eh, &mg->L, mg->parts[0], &merged);
	for (size_t k = 1; k < mg->np; k++) {
		GElf_Shdr hide = mg->sh[mg->parts[k]];
		hide.sh_name = 0;
		hide.sh_flags &= ~(uint64_t)SHF_GROUP;
		shdr_put(mg->img.data, &mg->eh, &mg->L, mg->parts[k], &hide);
	}
	if (rel_primary) {
		GElf_Shdr rel = mg->sh[rel_primary];
		rel.sh_offset = rel_start;
		rel.sh_size = rel_len;
		rel.sh_info = (uint32_t)mg->parts[0];
		rel.sh_flags &= ~(uint64_t)SHF_GROUP;
		shdr_put(mg->img.data, &mg->eh, &mg->L, rel_primary, &rel);
	}
	return NULL;
}

struct au_error *merge_grouped(const char *path, int fd, int *ret_fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return au_error_format("%s: %s", path, strerror(errno));
	struct merge *mg = au_xmalloc(sizeof(*mg));
	memset(mg, 0, sizeof(*mg));
	mg->path = path;
	size_t got = 0;
	int rerr = au_read_all(fd, (size_t)st.st_size, &mg->orig, &got);
	if (rerr || got != (size_t)st.st_size) {
		free(mg->orig);
		free(mg);
		return au_error_format("%s: read error: %s", path, rerr ? strerror(rerr) : "the file changed size");
	}
	mg->img = (struct growbuf){ .data = au_xmalloc((size_t)st.st_size + 4096), .cap = (size_t)st.st_size + 4096 };
	memcpy(mg->img.data, mg->orig, (size_t)st.st_size);
	mg->img.len = (size_t)st.st_size;
	mg->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct au_error *err = merge_load_sections(mg, (uint64_t)st.st_size);
	for (size_t i = 1; i < mg->shnum && !err; i++) {
		if (mg->done[i] || strncmp(mg->names[i], ".debug_", 7) != 0 || mg->sh[i].sh_type == SHT_NOBITS)
			continue;
		err = merge_one_name(mg, i);
	}
	if (!err) {
		int mfd = au_private_file("abidiff-uapi-merged");
		if (mfd < 0 || write(mfd, mg->img.data, mg->img.len) != (ssize_t)mg->img.len) {
			err = au_error_format("%s: cannot make a merged copy: %s", path, strerror(errno));
			if (mfd >= 0)
				close(mfd);
		} else {
			*ret_fd = mfd;
		}
	}
	free(mg->sh);
	free(mg->names);
	free(mg->done);
	elf_end(mg->elf);
	free(mg->img.data);
	free(mg->orig);
	free(mg);
	return err;
}

/* ---- Relocations applied ----
 * In a relocatable object (every header unit uapi-check compiles) the
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
void drop_applied_relocations(Elf *elf, const struct input_facts *f)
{
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

bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/* ---- Archives ---- */

bool is_archive(int fd)
{
	unsigned char magic[8];
	return pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) && memcmp(magic, "!<arch>\n", 8) == 0;
}

struct au_error *each_archive_member(const char *path, int fd, archive_member_fn *read_member, void *arg,
				     size_t *members)
{
	struct au_error *err = NULL;
	*members = 0;
	Elf *ar = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!ar || elf_kind(ar) != ELF_K_AR) {
		err = au_error_format("%s: corrupt archive: %s", path, elf_errmsg(-1));
		elf_end(ar);
		close(fd);
		return err;
	}
	Elf_Cmd cmd = ELF_C_READ_MMAP;
	Elf *m;
	while (!err && (m = elf_begin(fd, cmd, ar))) {
		Elf_Arhdr *h = elf_getarhdr(m);
		const char *name = h && h->ar_name ? h->ar_name : "?";
		if (name[0] != '/') {   /* "/" and "//": the symbol and name tables */
			char *label = au_xasprintf("%s(%s)", path, name);
			size_t size = 0;
			char *raw = elf_rawfile(m, &size);
			int mfd = raw && size ? au_private_file("abidiff-uapi-member") : -1;
			if (!raw || !size) {
				err = au_error_format("%s: an empty or unreadable member", label);
			} else if (mfd < 0 || write(mfd, raw, size) != (ssize_t)size) {
				err = au_error_format("%s: %s", label, strerror(errno));
				if (mfd >= 0)
					close(mfd);
			} else {
				err = read_member(label, mfd, arg);   /* closes mfd */
			}
			(*members)++;
			free(label);
		}
		cmd = elf_next(m);
		elf_end(m);
	}
	elf_end(ar);
	close(fd);
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

static bool same_build_id(Elf *elf, const void *id, ssize_t len)
{
	const void *got;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &got);
	return n == len && memcmp(got, id, (size_t)len) == 0;
}

/* Where the supplement may be: the --alt files first (matched by build ID,
 * or by name for .debug_sup), then the recorded name (absolute, or relative
 * to the object's directory), then its file name beside the object. Returns
 * how many; each cands[i] is malloc'd. */
static size_t alt_candidates(const char *path, const char *name, const struct dwarf_read_options *opts,
			     char **cands)
{
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
	free(dir);
	return nc;
}

/* A supplement that holds only strings: dwz -m writes one when its objects
 * share strings (the same long member names) and no types. libdw 0.188 will
 * not open an ELF file without .debug_info, .debug_line or .debug_frame ("no
 * DWARF information"), yet every name in the objects lies in its
 * .debug_str. Such a file has .debug_str and none of those (nor
 * .debug_types). */
static bool debug_section(const char *n, const char *want)
{
	return strcmp(n, want) == 0 || (strncmp(n, ".zdebug_", 8) == 0 && strcmp(n + 8, want + 7) == 0);
}

static bool strings_only(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool str = false;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!n)
			return false;
		if (debug_section(n, ".debug_info") || debug_section(n, ".debug_types") ||
		    debug_section(n, ".debug_line") || debug_section(n, ".debug_frame"))
			return false;
		if (debug_section(n, ".debug_str") && sh.sh_type != SHT_NOBITS && sh.sh_size)
			str = true;
	}
	return str;
}

/* A DWARF 2 line table header with no files and no program: the least
 * .debug_line libdw takes as DWARF. Nothing reads it (the supplement has no
 * unit to name it). */
static void minimal_line_table(unsigned char out[29], bool be)
{
	static const unsigned char opcode_lengths[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	put_uint(out, 4, be, 25);         /* unit_length: the 29 bytes after these 4 */
	put_uint(out + 4, 2, be, 2);      /* version */
	put_uint(out + 6, 4, be, 19);     /* header_length: what follows, to the end */
	out[10] = 1;                      /* minimum_instruction_length */
	out[11] = 1;                      /* default_is_stmt */
	out[12] = (unsigned char)-5;      /* line_base */
	out[13] = 14;                     /* line_range */
	out[14] = 13;                     /* opcode_base */
	memcpy(out + 15, opcode_lengths, sizeof(opcode_lengths));
	out[27] = 0;                      /* no include directories */
	out[28] = 0;                      /* no file names */
}

/* A section of the strings-only copy: its name (appended to the name
 * table), type, flags and contents; buf NULL for the name table itself, as
 * it is once its own name is in. */
struct section_spec {
	const char *name;
	GElf_Word type;
	GElf_Xword flags, entsize, align;
	void *buf;
	size_t size;
};

/* Adds the section s to out; NULL (libelf's error set) when it cannot. */
static Elf_Scn *new_section(Elf *out, struct growbuf *names, const struct section_spec *s)
{
	Elf_Scn *o = elf_newscn(out);
	Elf_Data *d = o ? elf_newdata(o) : NULL;
	GElf_Shdr osh;
	if (!d || !gelf_getshdr(o, &osh))
		return NULL;
	size_t at = grow_append(names, s->name, strlen(s->name) + 1, 1);
	d->d_buf = s->buf ? s->buf : names->data;
	d->d_size = s->buf ? s->size : names->len;
	d->d_type = ELF_T_BYTE;
	d->d_align = s->align;
	osh.sh_name = (uint32_t)at;
	osh.sh_type = s->type;
	osh.sh_flags = s->flags;
	osh.sh_entsize = s->entsize;
	osh.sh_addralign = s->align;
	gelf_update_shdr(o, &osh);
	return o;
}

/* The supplement's debug sections (compressed ones too) into out, as they are. */
static struct au_error *copy_debug_sections(const char *path, const char *alt_path, Elf *elf, size_t shstrndx,
					    Elf *out, struct growbuf *names)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!n)
			return au_error_format("%s: its dwz supplement %s has a corrupt section table: %s", path, alt_path,
					       elf_errmsg(-1));
		if ((strncmp(n, ".debug_", 7) != 0 && strncmp(n, ".zdebug_", 8) != 0) || sh.sh_type == SHT_NOBITS)
			continue;
		Elf_Data *src = elf_rawdata(scn, NULL);
		struct section_spec spec = { .name = n, .type = sh.sh_type, .flags = sh.sh_flags, .entsize = sh.sh_entsize,
					     .align = sh.sh_addralign ? sh.sh_addralign : 1,
					     .buf = src ? src->d_buf : NULL, .size = src ? src->d_size : 0 };
		if (!src || !new_section(out, names, &spec))
			return au_error_format("%s: its dwz supplement %s: section %s unreadable: %s", path, alt_path, n,
					       elf_errmsg(-1));
	}
	return NULL;
}

/* A private copy (a memfd) of the strings-only supplement elf: its debug
 * sections as they are (compressed ones too), a minimal .debug_line added,
 * and a section name table; no program headers, nothing else. *ret_fd and
 * *ret_elf are the copy, read back. */
static struct au_error *strings_only_copy(const char *path, const char *alt_path, Elf *elf, int *ret_fd,
					  Elf **ret_elf)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return au_error_format("%s: its dwz supplement %s has a corrupt ELF header: %s", path, alt_path,
				       elf_errmsg(-1));
	int mfd = au_private_file("abidiff-uapi-alt");
	if (mfd < 0)
		return au_error_format("%s: cannot copy its dwz supplement %s: %s", path, alt_path, strerror(errno));
	struct au_error *err = NULL;
	bool be = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	unsigned char line[29];
	minimal_line_table(line, be);
	struct growbuf names = { 0 };
	grow_append(&names, "", 1, 1);
	Elf *out = elf_begin(mfd, ELF_C_WRITE, NULL);
	GElf_Ehdr oh;
	if (!out || !gelf_newehdr(out, gelf_getclass(elf)) || !gelf_getehdr(out, &oh)) {
		err = au_error_format("%s: cannot copy its dwz supplement %s: %s", path, alt_path, elf_errmsg(-1));
		goto out;
	}
	memcpy(oh.e_ident, eh.e_ident, EI_NIDENT);
	oh.e_type = eh.e_type;
	oh.e_machine = eh.e_machine;
	oh.e_version = EV_CURRENT;
	oh.e_flags = eh.e_flags;
	err = copy_debug_sections(path, alt_path, elf, shstrndx, out, &names);
	const struct section_spec line_spec = { .name = ".debug_line", .type = SHT_PROGBITS, .align = 1, .buf = line,
						.size = sizeof(line) };
	const struct section_spec names_spec = { .name = ".shstrtab", .type = SHT_STRTAB, .align = 1 };
	Elf_Scn *names_scn = NULL;
	if (!err && (!new_section(out, &names, &line_spec) || !(names_scn = new_section(out, &names, &names_spec))))
		err = au_error_format("%s: cannot copy its dwz supplement %s: %s", path, alt_path, elf_errmsg(-1));
	if (!err) {
		oh.e_shstrndx = (uint16_t)elf_ndxscn(names_scn);
		if (!gelf_update_ehdr(out, &oh) || elf_update(out, ELF_C_WRITE) < 0)
			err = au_error_format("%s: cannot copy its dwz supplement %s: %s", path, alt_path, elf_errmsg(-1));
	}
out:
	elf_end(out);
	free(names.data);
	if (!err) {
		*ret_elf = elf_begin(mfd, ELF_C_READ_MMAP, NULL);
		if (!*ret_elf)
			err = au_error_format("%s: cannot copy its dwz supplement %s: %s", path, alt_path, elf_errmsg(-1));
	}
	if (err)
		close(mfd);
	else
		*ret_fd = mfd;
	return err;
}

struct au_error *open_alt(const char *path, Dwarf *dw, const struct dwarf_read_options *opts,
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
	size_t nc = alt_candidates(path, name, opts, cands);
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
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
		if (!adw && strings_only(elf)) {
			/* Only strings: read them through a copy libdw accepts. */
			int cfd = -1;
			Elf *celf = NULL;
			err = strings_only_copy(path, cands[i], elf, &cfd, &celf);
			if (!err && !(adw = dwarf_begin_elf(celf, DWARF_C_READ, NULL)))
				err = au_error_format("%s: its dwz supplement %s (strings only) has unreadable DWARF: %s",
						      path, cands[i], dwarf_errmsg(-1));
			elf_end(elf);
			close(fd);
			elf = celf;
			fd = cfd;
			if (err) {
				elf_end(elf);
				if (fd >= 0)
					close(fd);
				break;
			}
		} else if (!adw) {
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
	return err;
}

void close_alt(struct alt_file *alt)
{
	if (alt->dw)
		dwarf_end(alt->dw);
	if (alt->elf)
		elf_end(alt->elf);
	if (alt->fd >= 0)
		close(alt->fd);
}
