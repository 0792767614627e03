/* BTF -> layout model, with the same names and canonical keys as the DWARF
 * reader (see model.h), so the comparer cannot tell the two apart. */
#define _GNU_SOURCE
#include <bpf/btf.h>
#include <linux/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_reader.h"
#include "input.h"
#include "typekey.h"

/* As in the DWARF reader: deeper nesting is an error, never a silent cut. */
enum { MAX_DEPTH = 1024 };

struct btf_info {
	const char *display, *key, *embeds;
	uint64_t size;
	bool flexible, done, busy;
	struct layout_type *layout;   /* an anonymous struct/union: its layout, read once */
	const struct layout_member_type *member_type;   /* what members of this type share, made once */
};

struct btf_reader {
	const struct btf *btf;
	struct layout_model *model;
	struct btf_info *infos;      /* by type id */
	const char **anon_names;     /* by type id: typedef naming an anonymous aggregate */
	uint32_t n;
	struct strmap names;         /* string offset -> copy in the model's arena */
	struct au_error *err;
	/* The stand-ins for void and for a type that cannot be read. Per read,
	 * not static: they cache a member type made in this model's arena. */
	struct btf_info void_info, bad_info;
};

/* Names are copied once into the model: libbpf's strings go with the btf. */
static const char *name_of(struct btf_reader *r, uint32_t off)
{
	if (off == 0)
		return NULL;
	const char *copy = au_strmap_iget(&r->names, off);
	if (copy)
		return copy;
	const char *s = btf__name_by_offset(r->btf, off);
	if (!s || !*s)
		return NULL;
	copy = au_arena_strdup(&r->model->arena, s);
	au_strmap_iput(&r->names, off, (void *)copy);
	return copy;
}

static struct btf_info *info_of(struct btf_reader *r, uint32_t id, int depth);
static struct layout_type *read_aggregate(struct btf_reader *r, uint32_t id, const char *name, int depth);

static const char *kind_prefix(const struct btf_type *t)
{
	return btf_is_union(t) ? "union" : (btf_is_enum(t) || btf_is_enum64(t)) ? "enum" : "struct";
}

/* info_of, one kind at a time: each fills ti (t is the type, name its
 * name or NULL). */
static void info_int(struct btf_reader *r, struct btf_info *ti, const struct btf_type *t, const char *name)
{
	uint32_t enc = btf_int_encoding(t);
	enum layout_base base = enc & BTF_INT_BOOL ? BASE_BOOL : enc & BTF_INT_SIGNED ? BASE_SIGNED : BASE_UNSIGNED;
	if (name && strcmp(name, "char") == 0 && base != BASE_BOOL)
		base = BASE_CHAR;
	ti->size = t->size;
	ti->display = name ? name : "?";
	/* The width of the type, as DWARF's base types give it. */
	ti->key = au_typekey_base(&r->model->arena, base, 8 * (uint64_t)t->size, name);
}

static void info_float(struct btf_reader *r, struct btf_info *ti, const struct btf_type *t, const char *name)
{
	ti->size = t->size;
	ti->display = name ? name : "?";
	ti->key = au_typekey_base(&r->model->arena, BASE_FLOAT, 8 * (uint64_t)t->size, name);
}

static void info_pointer(struct btf_reader *r, struct btf_info *ti, const struct btf_type *t, int depth)
{
	struct arena *a = &r->model->arena;
	const struct btf_info *tt = info_of(r, t->type, depth + 1);
	ti->display = strcmp(tt->display, "function") == 0 ? "function *" : au_arena_printf(a, "%s *", tt->display);
	ti->key = au_typekey_pointer(a, TYPEKEY_POINTER, tt->key);
	ti->size = 8;
}

/* A typedef, a qualifier or a tag: the type it names, under another
 * display (and, for a typedef of an anonymous aggregate, another key). */
static void info_alias(struct btf_reader *r, struct btf_info *ti, const struct btf_type *t, const char *name,
		       int depth)
{
	struct arena *a = &r->model->arena;
	const struct btf_info *tt = info_of(r, t->type, depth + 1);
	*ti = *tt;
	ti->member_type = NULL;   /* the display and key may differ */
	if (btf_is_typedef(t) && name) {
		ti->display = name;
		/* A typedef of an anonymous aggregate is that type's name, even
		 * when deduplication gave the aggregate to another typedef too. */
		if (t->type < r->n && r->anon_names[t->type]) {
			const struct btf_type *target = btf__type_by_id(r->btf, t->type);
			ti->key = au_typekey_typedef(name);
			ti->embeds = btf_is_composite(target) ? name : NULL;
		}
	}
	else if (btf_is_const(t))
		ti->display = au_arena_printf(a, "const %s", tt->display);
	else if (btf_is_volatile(t))
		ti->display = au_arena_printf(a, "volatile %s", tt->display);
}

static void info_array(struct btf_reader *r, struct btf_info *ti, const struct btf_type *t, int depth)
{
	struct arena *a = &r->model->arena;
	const struct btf_array *arr = btf_array(t);
	const struct btf_info *tt = info_of(r, arr->type, depth + 1);
	/* BTF folds int x[2][3] into nested arrays: the key is built the
	 * same way DWARF's dimension list builds it. */
	if (arr->nelems) {
		/* int x[2][3] is an array of 2 arrays of 3: "int[2][3]". */
		const char *dims = strchr(tt->display, '[');
		ti->display = dims ? au_arena_printf(a, "%.*s[%u]%s", (int)(dims - tt->display), tt->display, arr->nelems, dims)
				   : au_arena_printf(a, "%s[%u]", tt->display, arr->nelems);
		/* Keys count elements, as the DWARF reader's do: an array of
		 * arrays folds into one. */
		ti->key = au_typekey_array_fold(a, arr->nelems, tt->key);
	} else {
		ti->display = au_arena_printf(a, "%s[]", tt->display);
		ti->key = au_typekey_array(a, 0, true, tt->key);
		ti->flexible = true;
	}
	ti->size = (uint64_t)arr->nelems * tt->size;
	ti->embeds = tt->embeds;
}

static void info_func_proto(struct btf_reader *r, struct btf_info *ti, const struct btf_type *t, int depth)
{
	const struct btf_param *p = btf_params(t);
	struct typekey_fn fn;
	au_typekey_fn_init(&fn);
	for (uint16_t i = 0; i < btf_vlen(t); i++)
		au_typekey_fn_param(&fn, p[i].type ? info_of(r, p[i].type, depth + 1)->key : TYPEKEY_VARARGS);
	ti->key = au_typekey_fn_finish(&fn, &r->model->arena, info_of(r, t->type, depth + 1)->key);
	ti->display = "function";
}

/* A struct, union, enum or forward declaration (type id): named, named
 * by a typedef, or anonymous, whose layout is read here. */
static void info_tagged(struct btf_reader *r, struct btf_info *ti, uint32_t id, const struct btf_type *t,
			const char *name, int depth)
{
	struct arena *a = &r->model->arena;
	const char *prefix = btf_is_fwd(t) ? (btf_kflag(t) ? "union" : "struct") : kind_prefix(t);
	ti->size = btf_is_fwd(t) ? 0 : t->size;
	bool aggregate = !btf_is_enum(t) && !btf_is_enum64(t);
	if (name) {
		ti->key = au_typekey_named(a, prefix, name);
		ti->display = ti->key;
		ti->embeds = aggregate ? ti->display : NULL;
	} else if (r->anon_names[id]) {
		ti->display = ti->key = r->anon_names[id];
		ti->embeds = aggregate ? ti->display : NULL;
	} else if (btf_is_fwd(t)) {
		ti->display = prefix;
		ti->key = au_typekey_untagged_fwd(prefix);
	} else {
		struct layout_type *lt = read_aggregate(r, id, NULL, depth + 1);
		ti->display = btf_is_union(t) ? "union {...}" : btf_is_any_enum(t) ? "enum {...}" : "struct {...}";
		ti->key = au_typekey_anon(a, lt);
		ti->layout = lt;
	}
}

static struct btf_info *info_of(struct btf_reader *r, uint32_t id, int depth)
{
	if (id == 0)
		return &r->void_info;
	if (id >= r->n)
		return &r->bad_info;
	struct btf_info *ti = &r->infos[id];
	if (ti->done)
		return ti;
	if (depth > MAX_DEPTH && !r->err)
		r->err = au_error_format("types nest deeper than %d levels: not read", MAX_DEPTH);
	if (ti->busy || depth > MAX_DEPTH)
		return &r->bad_info;
	ti->busy = true;
	const struct btf_type *t = btf__type_by_id(r->btf, id);
	const char *name = t ? name_of(r, t->name_off) : NULL;
	switch (t ? btf_kind(t) : BTF_KIND_UNKN) {
	case BTF_KIND_INT:
		info_int(r, ti, t, name);
		break;
	case BTF_KIND_FLOAT:
		info_float(r, ti, t, name);
		break;
	case BTF_KIND_PTR:
		info_pointer(r, ti, t, depth);
		break;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		info_alias(r, ti, t, name, depth);
		break;
	case BTF_KIND_ARRAY:
		info_array(r, ti, t, depth);
		break;
	case BTF_KIND_FUNC_PROTO:
		info_func_proto(r, ti, t, depth);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		info_tagged(r, ti, id, t, name, depth);
		break;
	default:
		ti->display = name ? name : "?";
		ti->key = au_typekey_unknown(&r->model->arena, "btf", t ? btf_kind(t) : -1, ti->display);
		break;
	}
	if (!ti->key) {
		ti->key = TYPEKEY_UNKNOWN;
		ti->display = "?";
	}
	ti->busy = false;
	ti->done = true;
	return ti;
}

/* The id a type resolves to through typedefs and qualifiers. */
static uint32_t strip_id(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	for (int i = 0; t && i < MAX_DEPTH && (btf_is_typedef(t) || btf_is_mod(t)); i++) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

static struct layout_type *read_aggregate(struct btf_reader *r, uint32_t id, const char *name, int depth)
{
	struct arena *a = &r->model->arena;
	const struct btf_type *t = btf__type_by_id(r->btf, id);
	struct layout_type *lt = au_arena_alloc(a, sizeof(*lt));
	lt->name = name;
	lt->size = t->size;
	lt->kind = btf_is_union(t) ? LAYOUT_UNION : (btf_is_enum(t) || btf_is_enum64(t)) ? LAYOUT_ENUM : LAYOUT_STRUCT;
	/* Only these kinds carry member arrays that libbpf has checked; a
	 * forward declaration's vlen means nothing and may be garbage. */
	uint16_t vlen = btf_is_composite(t) || btf_is_enum(t) || btf_is_enum64(t) ? btf_vlen(t) : 0;
	if (depth > MAX_DEPTH) {
		if (!r->err)
			r->err = au_error_format("%s nests types deeper than %d levels: not read",
						 name ? name : "a type", MAX_DEPTH);
		return lt;
	}
	if (btf_is_enum(t) || btf_is_enum64(t)) {
		/* 32-bit enumerators: kflag says signed; ENUM64: kflag says signed too. */
		lt->enumerators = au_arena_alloc(a, (vlen ? vlen : 1) * sizeof(*lt->enumerators));
		for (uint16_t i = 0; i < vlen; i++) {
			struct layout_enumerator *le = &lt->enumerators[lt->nenumerators];
			uint32_t name_off;
			if (btf_is_enum(t)) {
				const struct btf_enum *e = &btf_enum(t)[i];
				name_off = e->name_off;
				le->value = btf_kflag(t) ? (int64_t)e->val : (int64_t)(uint32_t)e->val;
			} else {
				const struct btf_enum64 *e = &btf_enum64(t)[i];
				name_off = e->name_off;
				le->value = (int64_t)btf_enum64_value(e);
				le->is_unsigned = !btf_kflag(t) && le->value < 0;
			}
			le->name = name_of(r, name_off);
			if (le->name)
				lt->nenumerators++;
		}
		return lt;
	}
	const struct btf_member *m = btf_members(t);
	lt->members = au_arena_alloc(a, (vlen ? vlen : 1) * sizeof(*lt->members));
	for (uint16_t i = 0; i < vlen; i++) {
		struct layout_member *lm = &lt->members[lt->nmembers++];
		lm->name = name_of(r, m[i].name_off);
		struct btf_info *ti = info_of(r, m[i].type, depth + 1);
		if (!ti->member_type)
			ti->member_type = au_member_type_new(a, ti->display, ti->key, NULL, ti->embeds, ti->size,
							     ti->layout);
		lm->type = ti->member_type;
		lm->flexible = ti->flexible;
		lm->bit_offset = btf_member_bit_offset(t, i);
		uint32_t bits = btf_member_bitfield_size(t, i);
		uint32_t sid = strip_id(r->btf, m[i].type);
		const struct btf_type *st = sid < r->n ? btf__type_by_id(r->btf, sid) : NULL;
		if (!bits && st && btf_is_int(st) && btf_int_bits(st) != 8 * st->size) {
			/* Old-style bitfield: the width lives in the int type. */
			bits = btf_int_bits(st);
			lm->bit_offset += btf_int_offset(st);
		}
		lm->is_bitfield = bits != 0;
		lm->bit_size = bits;
	}
	lt->nflat = au_layout_count_flat(lt);
	if (lt->nflat > LAYOUT_MAX_FLAT && !r->err)
		r->err = au_error_format("corrupt BTF: %s %s expands to over %d members", au_layout_kind_name(lt->kind),
					 name ? name : "(anonymous)", LAYOUT_MAX_FLAT);
	return lt;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

struct au_error *au_btf_read_layouts(const char *path, struct layout_model *model)
{
	/* Opened once, without blocking, and read whole: a pipe is refused at
	 * once rather than read (or waited for) twice. */
	struct au_error *oerr = NULL;
	int fd = au_open_input(path, &oerr);
	if (fd < 0)
		return oerr;
	return au_btf_read_layouts_fd(path, fd, model);
}

/* The .BTF section of an ELF file, copied, or NULL when it has none. */
static unsigned char *elf_btf_copy(Elf *e, size_t *btf_size)
{
	size_t shstrndx;
	unsigned char *copy = NULL;
	if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
		for (Elf_Scn *scn = elf_nextscn(e, NULL); scn && !copy; scn = elf_nextscn(e, scn)) {
			GElf_Shdr sh;
			const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			Elf_Data *d = name && strcmp(name, ".BTF") == 0 && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
			if (d && d->d_buf && d->d_size) {
				copy = au_xmalloc(d->d_size);
				memcpy(copy, d->d_buf, d->d_size);
				*btf_size = d->d_size;
			}
		}
	}
	return copy;
}

/* The .BTF section of an ELF image in memory (a vmlinux, a module's .ko). */
static unsigned char *elf_btf_section(unsigned char *data, size_t size, size_t *btf_size)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)data, size);
	unsigned char *copy = elf_btf_copy(e, btf_size);
	elf_end(e);
	return copy;
}

/* A regular ELF file is mapped, not read: a distribution's vmlinux is some
 * 60 MB, of which .BTF is a tenth, and a kernel's modules are each compared
 * on it, so reading it whole cost 0.2 s of system time a run. Returns 1 and
 * the copied section (NULL when there is none) for an ELF file, 0 for
 * anything else (the caller reads it whole). */
static int mapped_elf_btf(int fd, const struct stat *st, unsigned char **btf, size_t *btf_size)
{
	unsigned char magic[4];
	if (!S_ISREG(st->st_mode) || pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, "\177ELF", 4) != 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	*btf = elf_btf_copy(e, btf_size);
	elf_end(e);
	return 1;
}

/* libbpf 1.1 has no btf__new_split (1.3 has): the bytes already read go
 * through a memory file to btf__parse_raw_split. */
static struct btf *new_split(const unsigned char *data, size_t size, struct btf *base)
{
	int mfd = au_private_file("abidiff-uapi-btf");
	if (mfd < 0)
		return NULL;
	struct btf *btf = NULL;
	char procpath[64];
	snprintf(procpath, sizeof(procpath), "/proc/self/fd/%d", mfd);
	if (write(mfd, data, size) == (ssize_t)size)
		btf = btf__parse_raw_split(procpath, base);
	int e = errno;
	close(mfd);
	errno = e;
	return btf;
}

/* Raw BTF or an ELF file's .BTF section from fd (closed here), split on base
 * when base is not NULL. */
static struct au_error *parse_fd(const char *path, int fd, struct btf *base, struct btf **ret)
{
	*ret = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size > (1LL << 31)) {
		close(fd);
		return au_error_format("%s: %s", path, st.st_size > (1LL << 31) ? "too large for BTF" : strerror(errno));
	}
	unsigned char *data = NULL;
	size_t size = 0;
	struct btf_header hdr;
	int elf = mapped_elf_btf(fd, &st, &data, &size);
	if (!elf) {
		int rerr = au_read_all(fd, (size_t)st.st_size, &data, &size);
		if (rerr) {
			close(fd);
			return au_error_format("%s: read error: %s", path, strerror(rerr));
		}
	}
	close(fd);
	if (size > ((size_t)1 << 31)) {
		free(data);
		return au_error_format("%s: too large for BTF", path);
	}
	if (!elf && size < sizeof(hdr)) {
		free(data);
		return au_error_format("%s: not raw BTF: %zu bytes, shorter than a BTF header", path, size);
	}
	if (!elf)
		memcpy(&hdr, data, sizeof(hdr));
	if (elf || (hdr.magic != BTF_MAGIC && memcmp(data, "\177ELF", 4) == 0)) {
		size_t btf_size = size;
		unsigned char *btf_data = elf ? data : elf_btf_section(data, size, &btf_size);
		if (!elf)
			free(data);
		if (!btf_data || btf_size < sizeof(hdr)) {
			free(btf_data);
			return au_error_format("%s: an ELF file with no .BTF section (--btf reads raw BTF, such as "
					       "/sys/kernel/btf/vmlinux, or the .BTF of a vmlinux or a .ko)", path);
		}
		data = btf_data;
		size = btf_size;
		memcpy(&hdr, data, sizeof(hdr));
	}
	if (hdr.magic != BTF_MAGIC) {
		free(data);
		return au_error_format("%s: not raw BTF (no BTF magic number)", path);
	}
	/* libbpf 1.1 does not check that the sections are 4-byte aligned, and
	 * then reads btf_type words at odd addresses (undefined behaviour, found
	 * by fuzz-btf); newer libbpf and the kernel's verifier reject it. */
	if (hdr.hdr_len % 4 || hdr.type_off % 4 || hdr.type_len % 4) {
		free(data);
		return au_error_format("%s: corrupt BTF: its type section is not 4-byte aligned", path);
	}
	libbpf_set_print(silent);
	errno = 0;
	struct btf *btf = base ? new_split(data, size, base) : btf__new(data, (uint32_t)size);
	int e = errno;
	free(data);
	if (!btf || libbpf_get_error(btf))
		return au_error_format("%s: corrupt BTF%s (%s)", path, base ? ", or not split BTF on its base" : "",
				       strerror(e ? e : EINVAL));
	*ret = btf;
	return NULL;
}

/* What each typedef of a tagged aggregate or of another typedef stands for
 * (typedef struct foo foo_t), through qualifiers, so that a user may name
 * the aggregate by it, as the DWARF reader records it. */
static void note_typedefs(struct btf_reader *r, uint32_t first)
{
	for (uint32_t id = first; id < r->n; id++) {
		const struct btf_type *t = btf__type_by_id(r->btf, id);
		const char *name = btf_is_typedef(t) ? name_of(r, t->name_off) : NULL;
		if (!name)
			continue;
		const struct btf_type *tt = NULL;
		uint32_t tid = t->type;
		for (int i = 0; i < 16 && tid && tid < r->n; i++) {
			tt = btf__type_by_id(r->btf, tid);
			if (!btf_is_mod(tt))
				break;
			tid = tt->type;
		}
		const char *tn = tt && tid && tid < r->n ? name_of(r, tt->name_off) : NULL;
		if (!tn || btf_is_mod(tt))
			continue;
		const char *target = NULL;
		if (btf_is_typedef(tt))
			target = tn;
		else if (btf_is_composite(tt) || btf_is_enum(tt) || btf_is_enum64(tt))
			target = au_typekey_named(&r->model->arena, kind_prefix(tt), tn);
		if (target)
			au_layout_model_add_typedef(r->model, name, target);
	}
}

struct au_error *au_btf_read_layouts_fd(const char *path, int fd, struct layout_model *model)
{
	return au_btf_read_layouts_split_fd(path, fd, NULL, model);
}

/* Pass 1: the anonymous aggregates that typedefs name. */
static void name_anonymous_types(struct btf_reader *r)
{
	const struct btf *btf = r->btf;
	struct arena *a = &r->model->arena;
	for (uint32_t id = 1; id < r->n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!btf_is_typedef(t) || !t->name_off || !name_of(r, t->name_off) || t->type >= r->n)
			continue;
		const struct btf_type *target = btf__type_by_id(btf, t->type);
		if ((btf_is_composite(target) || btf_is_enum(target) || btf_is_enum64(target)) &&
		    !name_of(r, target->name_off) && !r->anon_names[t->type])
			r->anon_names[t->type] = au_typekey_typedef(au_arena_strdup(a, name_of(r, t->name_off)));
	}
	/* An anonymous aggregate named only through a pointer typedef
	 * (typedef struct {...} *Ptr) is called "*Ptr", as the DWARF reader
	 * calls it. */
	for (uint32_t id = 1; id < r->n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!btf_is_typedef(t) || !name_of(r, t->name_off) || t->type >= r->n)
			continue;
		const struct btf_type *p = btf__type_by_id(btf, t->type);
		if (!btf_is_ptr(p) || p->type >= r->n || r->anon_names[p->type])
			continue;
		const struct btf_type *target = btf__type_by_id(btf, p->type);
		if ((btf_is_composite(target) || btf_is_enum(target) || btf_is_enum64(target)) &&
		    !name_of(r, target->name_off))
			r->anon_names[p->type] = au_typekey_ptr_typedef(a, name_of(r, t->name_off));
	}
}

/* The name type id t defines (a tagged type, or a typedef of an anonymous
 * aggregate, directly or through a pointer), and in *target the id whose
 * layout it is; NULL when it defines none. */
static const char *definition_name(struct btf_reader *r, uint32_t id, const struct btf_type *t, uint32_t *target)
{
	const struct btf *btf = r->btf;
	*target = id;
	if (btf_is_composite(t) || btf_is_enum(t) || btf_is_enum64(t)) {
		const char *n = name_of(r, t->name_off);
		return n ? au_typekey_named(&r->model->arena, kind_prefix(t), n) : NULL;
	}
	if (btf_is_typedef(t) && t->type < r->n && r->anon_names[t->type]) {
		*target = t->type;
		return name_of(r, t->name_off);
	}
	if (btf_is_typedef(t) && t->type < r->n && btf_is_ptr(btf__type_by_id(btf, t->type))) {
		uint32_t pt = btf__type_by_id(btf, t->type)->type;
		if (pt < r->n && au_typekey_is_ptr_typedef_of(r->anon_names[pt], name_of(r, t->name_off))) {
			*target = pt;
			return r->anon_names[pt];
		}
	}
	return NULL;
}

/* An anonymous enum (type id): named after its first enumerator, as the
 * DWARF reader names it. */
static void read_anonymous_enum(struct btf_reader *r, uint32_t id)
{
	struct layout_model *model = r->model;
	struct layout_type *lt = read_aggregate(r, id, NULL, 0);
	if (r->err)
		return;
	if (lt->nenumerators) {
		lt->name = au_typekey_anon_enum_name(&model->arena, lt->enumerators[0].name);
		lt->anonymous = true;
		if (!au_layout_model_find(model, lt->name))
			au_layout_model_add(model, lt);
	}
}

/* Pass 2: every named definition from type id first on, and every typedef
 * of an anonymous aggregate: BTF deduplication lets two typedefs share one
 * anonymous struct, and each name is a type of its own to a C programmer.
 * The first of a duplicated name wins. */
static void read_definitions(struct btf_reader *r, uint32_t first)
{
	for (uint32_t id = first; id < r->n; id++) {
		const struct btf_type *t = btf__type_by_id(r->btf, id);
		uint32_t target;
		const char *name = definition_name(r, id, t, &target);
		if (!name && (btf_is_enum(t) || btf_is_enum64(t)) && !t->name_off && btf_vlen(t) && !r->anon_names[id]) {
			read_anonymous_enum(r, id);
		} else if (name && !au_layout_model_find(r->model, name)) {
			struct layout_type *lt = read_aggregate(r, target, name, 0);
			lt->is_typedef = btf_is_typedef(t);
			au_layout_model_add(r->model, lt);
		} else {
			continue;
		}
		if (r->err)
			return;
	}
}

struct au_error *au_btf_read_layouts_split_fd(const char *path, int fd, const char *base, struct layout_model *model)
{
	struct btf *base_btf = NULL, *btf;
	struct au_error *err = NULL;
	if (base) {
		int bfd = au_open_input(base, &err);
		if (bfd < 0) {
			close(fd);
			return err;
		}
		if ((err = parse_fd(base, bfd, NULL, &base_btf))) {
			close(fd);
			return err;
		}
	}
	if ((err = parse_fd(path, fd, base_btf, &btf))) {
		btf__free(base_btf);
		return err;
	}
	/* Split BTF: the model holds the split's own types (ids from the
	 * base's count on); base types are read only where a member uses them. */
	uint32_t first = base_btf ? btf__type_cnt(base_btf) : 1;
	struct btf_reader r = {
		.btf = btf, .model = model, .n = btf__type_cnt(btf),
		.void_info = { .display = "void", .key = TYPEKEY_VOID, .done = true },
		.bad_info = { .display = "?", .key = TYPEKEY_CYCLE, .done = true },
	};
	au_strmap_init(&r.names);
	r.infos = au_xcalloc(r.n, sizeof(*r.infos));
	r.anon_names = au_xcalloc(r.n, sizeof(*r.anon_names));
	name_anonymous_types(&r);
	note_typedefs(&r, first);
	model->byte_order = btf__endianness(btf) == BTF_BIG_ENDIAN ? BYTE_ORDER_BIG : BYTE_ORDER_LITTLE;
	read_definitions(&r, first);
	free(r.infos);
	free(r.anon_names);
	au_strmap_deinit(&r.names);
	btf__free(btf);
	btf__free(base_btf);
	if (r.err) {
		struct au_error *err = au_error_format("%s: %s", path, r.err->message);
		au_error_destroy(r.err);
		return err;
	}
	return NULL;
}
