/* DWARF type DIEs -> what a member of each type shows (spelling, canonical
 * key, typedef chain, size), one reader per tag; struct, union and enum
 * DIEs -> layouts, anonymous ones shared by shape.
 *
 * Traps this file handles (each measured with readelf and small probes; the fixtures hold them):
 * - gcc's DWARF 5 bitfields use DW_AT_data_bit_offset; DWARF 4 and clang use
 *   the big-endian-style DW_AT_bit_offset relative to a storage unit.
 * - T[] has no bound, C's T[0] has DW_AT_count 0, g++'s T[0] has an upper
 *   bound of all ones: all three are a flexible array of size 0.
 * - Corrupt input can make type chains cycle: every recursion is bounded.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"
#include "strbuf.h"
#include "typekey.h"
#include "xmem.h"

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

static struct type_info *new_info(struct reader *r, Dwarf_Die *die)
{
	struct type_info *ti = au_arena_alloc(&r->info_mem, sizeof(*ti));
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
	if (name && strcmp(name, "char") == 0 && (base == BASE_SIGNED || base == BASE_UNSIGNED)) {
		/* Plain char keeps its own key (a kernel's BTF does not record its
		 * sign); its sign is noted in the model, so that the comparer can
		 * take another producer's char for signed char or unsigned char
		 * (icc names gcc's signed char "char"). */
		if (size == 1) {
			enum char_signedness s = base == BASE_SIGNED ? CHAR_SIGN_SIGNED : CHAR_SIGN_UNSIGNED;
			enum char_signedness *m = &r->model->char_signedness;
			*m = *m == CHAR_SIGN_UNKNOWN || *m == s ? s : CHAR_SIGN_MIXED;
		}
		base = BASE_CHAR;
	}
	return au_typekey_base(&r->type_tmp, base, 8 * size, name);
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
	d->name = au_arena_concat3(&r->type_tmp, ed, au_strbuf_str(&dims), "");
	au_strbuf_release(&dims);
	/* T[2][65] and T[130] are the same layout (and BTF, from pahole, keeps
	 * only the latter): the key counts elements. */
	d->key = au_typekey_array(&r->type_tmp, count, flexible, ek);
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
	d->key = au_typekey_fn_finish(&fn, &r->type_tmp, rk);
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

static bool same_member_type(const struct layout_member_type *a, const struct layout_member_type *b)
{
	return a == b || (a->size == b->size && a->layout == b->layout && au_same_str(a->name, b->name) &&
			  au_same_str(a->key, b->key) &&
			  au_same_str(a->chain, b->chain) && au_same_str(a->embeds, b->embeds));
}

/* One type DIE being read: what members of it will show (d), made into the
 * model's record at the end unless one already made serves (from: the
 * record of the type a typedef or qualifier names; shared: the slot of a
 * shared anonymous layout's record). */
struct type_read {
	struct reader *r;
	Dwarf_Die *die;
	int tag, depth;
	const char *name;             /* DW_AT_name, copied into the model */
	struct type_info *ti;
	struct layout_member_type d;
	const struct layout_member_type *from, **shared;
};

static void base_info(struct type_read *tr)
{
	struct reader *r = tr->r;
	struct layout_member_type *d = &tr->d;
	Dwarf_Word size = 0;
	if (tr->name && strcmp(tr->name, "void") == 0) {
		/* Some compilers (Intel's) spell void as a base type. */
		d->name = d->key = TYPEKEY_VOID;
		return;
	}
	tr->ti->has_size = attr_udata(tr->die, DW_AT_byte_size, &size);
	d->size = size;
	d->name = tr->name ? base_spelling(tr->name) : "?";
	d->key = base_key(r, tr->die, size);
	d->chain = d->name;
}

/* decltype(nullptr) */
static void unspecified_info(struct type_read *tr)
{
	struct layout_member_type *d = &tr->d;
	if (tr->name && strcmp(tr->name, "void") == 0) {
		d->name = d->key = TYPEKEY_VOID;
		return;
	}
	d->name = tr->name ? tr->name : "?";
	d->key = au_typekey_unspecified(&tr->r->type_tmp, d->name);
	d->size = tr->r->address_size;
	tr->ti->has_size = true;
}

/* Pointers, C++ references and pointers to members. */
static void pointer_info(struct type_read *tr)
{
	struct reader *r = tr->r;
	struct layout_member_type *d = &tr->d;
	int tag = tr->tag;
	enum typekey_sigil ks = tag == DW_TAG_pointer_type ? TYPEKEY_POINTER
			      : tag == DW_TAG_ptr_to_member_type ? TYPEKEY_MEMBER_POINTER
			      : tag == DW_TAG_rvalue_reference_type ? TYPEKEY_RREF : TYPEKEY_LREF;
	const char *sigil = au_typekey_sigil(ks);
	Dwarf_Die target;
	if (die_type(tr->die, &target)) {
		struct type_info *tt = type_info_of(r, &target, tr->depth + 1);
		d->name = strcmp(tt->mt->name, "function") == 0
				  ? "function *"
				  : au_arena_concat3(&r->type_tmp, tt->mt->name, " ", sigil);
		d->key = au_typekey_pointer(&r->type_tmp, ks, tt->mt->key);
	} else {
		d->name = au_arena_concat3(&r->type_tmp, "void ", sigil, "");
		d->key = au_typekey_pointer(&r->type_tmp, ks, TYPEKEY_VOID);
	}
	Dwarf_Word size = 0;
	tr->ti->has_size = attr_udata(tr->die, DW_AT_byte_size, &size);
	d->size = tr->ti->has_size ? size : r->address_size;
	tr->ti->has_size = true;
	d->chain = sigil;
}

/* Typedefs and qualifiers: the type they name, spelled their way. */
static void qualified_info(struct type_read *tr)
{
	struct reader *r = tr->r;
	struct layout_member_type *d = &tr->d;
	Dwarf_Die target;
	if (die_type(tr->die, &target)) {
		struct type_info *tt = type_info_of(r, &target, tr->depth + 1);
		*d = *tt->mt;
		tr->from = tt->mt;
		tr->ti->layout = tt->layout;
		tr->ti->has_size = tt->has_size;
		tr->ti->flexible = tt->flexible;
	} else {
		d->key = TYPEKEY_VOID;
		d->name = "void";
		d->embeds = NULL;
	}
	if (tr->tag == DW_TAG_typedef && tr->name) {
		d->name = tr->name;
		d->chain = d->chain ? au_arena_concat3(&r->type_tmp, tr->name, ">", d->chain) : tr->name;
	} else if (tr->tag == DW_TAG_const_type)
		d->name = au_arena_concat3(&r->type_tmp, "const ", d->name, "");
	else if (tr->tag == DW_TAG_volatile_type)
		d->name = au_arena_concat3(&r->type_tmp, "volatile ", d->name, "");
}

static struct layout_type *read_anonymous(struct reader *r, Dwarf_Die *die, int depth, const char **key,
					  const struct layout_member_type ***member_type);

/* A struct, union or enum held by a member: by its name (ns::S as the
 * model names it), by the typedef naming it, or, anonymous, by shape. */
static void aggregate_info(struct type_read *tr)
{
	struct reader *r = tr->r;
	struct layout_member_type *d = &tr->d;
	Dwarf_Die *die = tr->die;
	int tag = tr->tag;
	const char *name = tr->name;
	const char *prefix = aggregate_prefix(tag);
	const char *tdname = au_strmap_iget(&r->anon_names, die_key(die));
	const char *qualified = au_strmap_iget(&r->qual_names, die_key(die));
	if (qualified)
		name = qualified;   /* ns::S, as the model names it */
	Dwarf_Word size = 0;
	tr->ti->has_size = attr_udata(die, DW_AT_byte_size, &size);
	d->size = size;
	if (name) {
		d->key = au_typekey_named(&r->type_tmp, prefix, name);
		d->name = d->key;
		if (tag != DW_TAG_enumeration_type)
			d->embeds = d->name;
	} else if (tdname) {
		d->name = tdname;
		d->key = au_typekey_typedef(tdname);
		if (tag != DW_TAG_enumeration_type)
			d->embeds = tdname;
	} else {
		tr->ti->layout = read_anonymous(r, die, tr->depth + 1, &d->key, &tr->shared);
		d->name = tag == DW_TAG_union_type ? "union {...}"
			  : tag == DW_TAG_enumeration_type ? "enum {...}" : "struct {...}";
	}
	d->chain = d->name;
}

/* A tag this reader does not know; a reference to a DIE that is no type
 * at all is corrupt input. */
static void unknown_info(struct type_read *tr)
{
	struct reader *r = tr->r;
	if (!is_type_tag(tr->tag))
		set_error(r, au_error_format("%s: corrupt .debug_info: a type reference leads to DIE 0x%llx, "
					     "which is no type (tag 0x%x)", r->path,
					     (unsigned long long)dwarf_dieoffset(tr->die), (unsigned)tr->tag));
	tr->d.name = tr->name ? tr->name : "?";
	tr->d.key = au_typekey_unknown(&r->type_tmp, "tag", tr->tag, tr->d.name);
}

/* The model's record of what members of a type show, one per distinct
 * record in the read, its strings copied once (d's are in r->type_tmp): a
 * whole kernel has millions of type DIEs and a few hundred thousand
 * distinct records. */
struct member_type_node {
	const struct layout_member_type *mt;
	struct member_type_node *next;
};

static uint64_t hash_field(uint64_t h, const char *s)
{
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	h ^= s ? 0xfe : 0xff;   /* the end of a field; NULL apart from "" */
	return h * 1099511628211ULL;
}

/* Found by its contents, which are only interned for a new record. */
static const struct layout_member_type *member_type(struct reader *r, const struct layout_member_type *d)
{
	struct layout_type *layout = d->layout && d->layout->kind != LAYOUT_ENUM ? d->layout : NULL;
	uint64_t h = 1469598103934665603ULL;
	h = hash_field(hash_field(hash_field(hash_field(h, d->name), d->key), d->chain), d->embeds);
	h ^= d->size ^ ((uint64_t)(uintptr_t)layout >> 4) * 0x9e3779b97f4a7c15ULL;
	h *= 1099511628211ULL;
	struct member_type_node *first = au_intmap_get(&r->member_types, h);
	for (struct member_type_node *n = first; n; n = n->next)
		if (n->mt->size == d->size && n->mt->layout == layout && au_same_str(n->mt->name, d->name) &&
		    au_same_str(n->mt->key, d->key) && au_same_str(n->mt->chain, d->chain) &&
		    au_same_str(n->mt->embeds, d->embeds))
			return n->mt;
	struct member_type_node *n = au_arena_alloc(&r->scratch, sizeof(*n));
	n->mt = au_member_type_new(&r->model->arena, intern(r, d->name), intern(r, d->key), intern(r, d->chain),
				   intern(r, d->embeds), d->size, layout);
	n->next = first;
	au_intmap_put(&r->member_types, h, n);
	return n->mt;
}

struct type_info *type_info_of(struct reader *r, Dwarf_Die *die, int depth)
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
	struct type_read tr = { .r = r, .die = die, .tag = dwarf_tag(die), .depth = depth, .ti = ti };
	/* Copied: libdw's strings go away with the Dwfl, the model stays. */
	tr.name = intern(r, die_name(r, die));
	switch (tr.tag) {
	case DW_TAG_base_type:
		base_info(&tr);
		break;
	case DW_TAG_unspecified_type:
		unspecified_info(&tr);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		pointer_info(&tr);
		break;
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
	case DW_TAG_packed_type:
	case DW_TAG_shared_type:
		qualified_info(&tr);
		break;
	case DW_TAG_array_type:
		array_info(r, die, ti, &tr.d, depth);
		break;
	case DW_TAG_subroutine_type:
		function_info(r, die, ti, &tr.d, depth);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		aggregate_info(&tr);
		break;
	default:
		unknown_info(&tr);
		break;
	}
	tr.d.layout = ti->layout;
	if (tr.from && same_member_type(&tr.d, tr.from))
		ti->mt = tr.from;   /* a qualifier or typedef that changes nothing shown */
	else if (tr.shared && *tr.shared)
		ti->mt = *tr.shared;   /* members of one shared anonymous layout share one record */
	else
		ti->mt = member_type(r, &tr.d);
	if (tr.shared && !*tr.shared)
		*tr.shared = ti->mt;
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

/* A struct, union or enum: everything but its members and enumerators. */
static struct layout_type *new_aggregate(struct reader *r, Dwarf_Die *die, const char *name, int depth)
{
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
	/* A repeated definition's place is found only when it is kept
	 * (keep_definition). */
	if (name && r->body != &r->dup_tmp) {
		t->file = decl_file(r, die);
		int line;
		if (dwarf_decl_line(die, &line) == 0 && line > 0)
			t->line = (unsigned)line;
	}
	return t;
}

/* One DW_TAG_enumerator; false for one with no name or no value. */
static bool read_enumerator(struct reader *r, Dwarf_Die *child, struct layout_enumerator *e)
{
	Dwarf_Attribute attr;
	const char *en = die_name(r, child);
	if (!en || !dwarf_attr(child, DW_AT_const_value, &attr))
		return false;
	if (attr.form == DW_FORM_sdata || attr.form == DW_FORM_implicit_const) {
		Dwarf_Sword s;
		if (dwarf_formsdata(&attr, &s) != 0)
			return false;
		e->value = s;
		e->is_unsigned = false;
	} else {
		/* gcc and clang write negative enumerators as sdata; a
		 * dataN value is the unsigned number itself, even in a
		 * signed enum (gcc: data1 225 for 225 in an int enum). */
		Dwarf_Word u;
		if (dwarf_formudata(&attr, &u) != 0)
			return false;
		e->value = (int64_t)u;
		e->is_unsigned = (int64_t)u < 0;
	}
	/* (libdw's string, valid while the file is open, in a repeated
	 * definition: interned only when it is kept) */
	e->name = r->body == &r->dup_tmp ? en : intern(r, en);
	return true;
}

/* One pass over the children (each step of dwarf_siblingof rescans a
 * child's attributes): they are gathered in this frame's buffer, on the
 * stack while few, and copied to the arena at the end. Nested reads of
 * member types have frames and buffers of their own. */
static void read_enumerators(struct reader *r, Dwarf_Die *die, struct layout_type *t)
{
	struct layout_enumerator local[16], *buf = local;
	size_t cap = sizeof(local) / sizeof(local[0]);
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_enumerator)
				continue;
			if (t->nenumerators == cap)
				buf = grow_buffer(buf, local, &cap, sizeof(*buf));
			struct layout_enumerator *e = &buf[t->nenumerators];
			memset(e, 0, sizeof(*e));
			if (read_enumerator(r, &child, e))
				t->nenumerators++;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	t->enumerators = au_arena_memdup(r->body, buf, t->nenumerators * sizeof(*buf));
	if (buf != local)
		free(buf);
}

/* A C++ static member: a declaration, no storage in the type. */
static bool is_static_member(struct member_attrs *ma)
{
	bool decl = false;
	return ma_get(ma, MA_DECLARATION) && dwarf_formflag(ma_get(ma, MA_DECLARATION), &decl) == 0 && decl;
}

/* The name, type, bitfield width and place of one member (or base class)
 * of t in m; false, with the error set, when it cannot be read. */
static bool read_member(struct reader *r, int ctag, struct member_attrs *ma,
			const struct layout_type *t, struct layout_member *m, int depth)
{
	struct arena *a = &r->model->arena;
	const char *name = t->name;
	const char *mn = attr_name(r, ma_get(ma, MA_NAME));
	m->name = r->body == &r->dup_tmp ? mn : intern(r, mn);
	Dwarf_Die mt;
	if (!attr_type(ma_get(ma, MA_TYPE), &mt)) {
		set_error(r, au_error_format("%s: member %s of %s %s has no type", r->path,
					     mn ? mn : "(anonymous)", au_layout_kind_name(t->kind),
					     name ? name : "(anonymous)"));
		return false;
	}
	struct type_info *ti = type_info_of(r, &mt, depth + 1);
	bool virtual_base = false;
	if (ctag == DW_TAG_inheritance) {
		/* A base class is a member called "base A" ("virtual base A"),
		 * compared like any other. A virtual base's place is found at
		 * run time through the vtable: it is shown at offset 0. */
		Dwarf_Word virt = 0;
		virtual_base = ma_udata(ma, MA_VIRTUALITY, &virt) && virt != DW_VIRTUALITY_none;
		const char *bn = au_typekey_tag_name(ti->mt->name);
		m->name = mn = au_arena_printf(a, "%sbase %s", virtual_base ? "virtual " : "", bn);
	} else if (mn && strncmp(mn, "_vptr", 5) == 0 && (mn[5] == '.' || mn[5] == '$') &&
		   ma_get(ma, MA_ARTIFICIAL)) {
		/* g++ "_vptr.A", clang "_vptr$A": one name for the vtable
		 * pointer whatever the class is called. */
		m->name = mn = "_vptr (vtable pointer)";
	}
	m->type = ti->mt;
	m->flexible = ti->flexible;
	Dwarf_Word bs;
	if (ma_udata(ma, MA_BIT_SIZE, &bs)) {
		if (bs > UINT32_MAX) {
			set_error(r, au_error_format("%s: member %s of %s %s: a bitfield of %" PRIu64 " bits",
						     r->path, mn ? mn : "(anonymous)", au_layout_kind_name(t->kind),
						     name ? name : "(anonymous)", (uint64_t)bs));
			return false;
		}
		m->is_bitfield = true;
		m->bit_size = (uint32_t)bs;
	}
	if ((t->kind == LAYOUT_UNION && !ma_get(ma, MA_DATA_MEMBER_LOCATION) && !ma_get(ma, MA_DATA_BIT_OFFSET)) ||
	    virtual_base) {
		m->bit_offset = 0;
	} else if (!member_bit_offset(r, ma, au_member_bits(m), m->is_bitfield, m->type->size, &m->bit_offset)) {
		set_error(r, au_error_format("%s: member %s of %s %s: unreadable offset", r->path,
					     mn ? mn : "(anonymous)", au_layout_kind_name(t->kind),
					     name ? name : "(anonymous)"));
		return false;
	}
	return true;
}

/* The members and base classes, gathered as read_enumerators does; stops
 * at the first error. */
static void read_members(struct reader *r, Dwarf_Die *die, struct layout_type *t, int depth)
{
	struct layout_member local[16], *buf = local;
	size_t cap = sizeof(local) / sizeof(local[0]);
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			int ctag = dwarf_tag(&child);
			if (ctag != DW_TAG_member && ctag != DW_TAG_inheritance)
				continue;
			struct member_attrs ma;
			read_member_attrs(&child, &ma);
			if (is_static_member(&ma))
				continue;
			if (t->nmembers == cap)
				buf = grow_buffer(buf, local, &cap, sizeof(*buf));
			struct layout_member *m = &buf[t->nmembers];
			memset(m, 0, sizeof(*m));
			if (!read_member(r, ctag, &ma, t, m, depth))
				break;
			t->nmembers++;
			if (r->err)
				break;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	t->members = au_arena_memdup(r->body, buf, t->nmembers * sizeof(*buf));
	if (buf != local)
		free(buf);
}

struct layout_type *read_aggregate(struct reader *r, Dwarf_Die *die, const char *name, int depth)
{
	struct layout_type *t = new_aggregate(r, die, name, depth);
	if (depth > MAX_DEPTH) {
		too_deep(r);
		return t;
	}
	if (t->kind == LAYOUT_ENUM) {
		read_enumerators(r, die, t);
		return t;
	}
	read_members(r, die, t, depth);
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
