/* The DWARF reader's #define constants: the variables of the driver's
 * constants unit, read as "#define NAME" constants of the model. */
#include <string.h>

#include <dwarf.h>

#include "dwarf_internal.h"
#include "typekey.h"

/* ---------------------------------------------------------------- #define constants */

/* The integer type a constant's type comes to (through typedefs and
 * qualifiers): true with its size and signedness; false for anything else
 * (a float, a pointer, an aggregate). */
static bool integer_type(Dwarf_Die *type, uint64_t *size, bool *is_unsigned)
{
	Dwarf_Word enc, bytes;
	int tag = dwarf_tag(type);
	if (tag == DW_TAG_enumeration_type) {
		Dwarf_Die under;
		*is_unsigned = false;
		if (die_type(type, &under) && attr_udata(&under, DW_AT_encoding, &enc))
			*is_unsigned = enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char || enc == DW_ATE_boolean;
		if (!attr_udata(type, DW_AT_byte_size, &bytes))
			return false;
		*size = bytes;
		return true;
	}
	if (tag != DW_TAG_base_type || !attr_udata(type, DW_AT_encoding, &enc) ||
	    !attr_udata(type, DW_AT_byte_size, &bytes))
		return false;
	switch (enc) {
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		*is_unsigned = false;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_boolean:
	case DW_ATE_UTF:
		*is_unsigned = true;
		break;
	default:
		return false;
	}
	*size = bytes;
	return true;
}

/* Typedefs and qualifiers peeled off. */
static bool plain_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	if (!die_type(die, ret))
		return false;
	for (int i = 0; i < 64; i++) {
		int tag = dwarf_tag(ret);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
			return true;
		if (!die_type(ret, ret))
			return false;
	}
	return false;
}

/* A char array's length, or -1 when the type is no array of 1-byte
 * integers. */
static int64_t char_array_length(Dwarf_Die *type)
{
	Dwarf_Die elem;
	Dwarf_Word bytes;
	uint64_t size;
	bool is_unsigned;
	if (dwarf_tag(type) != DW_TAG_array_type || !plain_type(type, &elem) ||
	    !integer_type(&elem, &size, &is_unsigned) || size != 1 || dwarf_aggregate_size(type, &bytes) != 0)
		return -1;
	return (int64_t)bytes;
}

/* What a constant's type comes to, found once per type DIE: a unit of 27k
 * constants has a few dozen types (const int, const char[N], ...). */
struct constant_type {
	enum { CONSTANT_OTHER, CONSTANT_STRING, CONSTANT_INTEGER } kind;
	uint64_t size;            /* a string's length (with its NUL), an integer's bytes */
	bool is_unsigned;
};

static const struct constant_type *constant_type(struct reader *r, Dwarf_Die *die)
{
	Dwarf_Die first, type;
	if (!die_type(die, &first))
		return NULL;
	struct constant_type *c = au_intmap_get(&r->const_types, die_key(&first));
	if (c)
		return c;
	c = au_arena_alloc(&r->scratch, sizeof(*c));
	c->kind = CONSTANT_OTHER;
	if (plain_type(die, &type)) {
		int64_t length = char_array_length(&type);
		if (length >= 0) {
			c->kind = CONSTANT_STRING;
			c->size = (uint64_t)length;
		} else if (integer_type(&type, &c->size, &c->is_unsigned)) {
			c->kind = CONSTANT_INTEGER;
		}
	}
	au_intmap_put(&r->const_types, die_key(&first), c);
	return c;
}

/* The driver's constants unit (uapi_check/constants.py) gives each #define
 * of the headers a variable __abidiff_uapi_define__NAME with a
 * DW_AT_const_value: the compiler's value of NAME. It becomes the constant
 * "#define NAME" of the model; a variable of any other type, or without a
 * value, is not one (the driver counts those it does not find). */
void read_constant(struct reader *r, Dwarf_Die *die)
{
	const char *n = die_name(r, die);
	size_t plen = sizeof(AU_DEFINE_VARIABLE) - 1;
	Dwarf_Attribute attr;
	const struct constant_type *ct;
	if (!n || strncmp(n, AU_DEFINE_VARIABLE, plen) != 0 || !n[plen] ||
	    !dwarf_attr(die, DW_AT_const_value, &attr) || !(ct = constant_type(r, die)) || ct->kind == CONSTANT_OTHER)
		return;
	struct layout_constant *k = au_arena_alloc(&r->model->arena, sizeof(*k));
	memset(k, 0, sizeof(*k));
	uint64_t size = ct->size;
	if (ct->kind == CONSTANT_STRING) {
		k->is_string = true;
		if (attr.form == DW_FORM_block || attr.form == DW_FORM_block1 || attr.form == DW_FORM_block2 ||
		    attr.form == DW_FORM_block4) {
			Dwarf_Block b;
			if (dwarf_formblock(&attr, &b) != 0)
				return;
			k->bytes = au_arena_memdup(&r->model->arena, b.data, b.length);
			k->nbytes = b.length;
		} else {
			const char *s = dwarf_formstring(&attr);
			if (!s || !string_ok(r, s))
				return;
			k->nbytes = strlen(s) + 1;
			k->bytes = (const unsigned char *)au_arena_memdup(&r->model->arena, s, k->nbytes);
		}
	} else {
		k->is_unsigned = ct->is_unsigned;
		if (attr.form == DW_FORM_sdata || attr.form == DW_FORM_implicit_const) {
			Dwarf_Sword s;
			if (dwarf_formsdata(&attr, &s) != 0)
				return;
			k->value = s;
		} else {
			/* As for enumerators: gcc writes negative values as sdata,
			 * and a dataN value is the number itself (data1 225 for
			 * an int 225). */
			Dwarf_Word u;
			if (dwarf_formudata(&attr, &u) != 0)
				return;
			k->value = (int64_t)u;
		}
	}
	struct layout_type *t = au_arena_alloc(&r->model->arena, sizeof(*t));
	memset(t, 0, sizeof(*t));
	t->kind = LAYOUT_CONSTANT;
	t->name = au_typekey_constant(&r->model->arena, n + plen);
	t->size = size;
	t->constant = k;
	t->file = decl_file(r, die);
	int line;
	if (dwarf_decl_line(die, &line) == 0 && line > 0)
		t->line = (unsigned)line;
	struct layout_type *first = au_layout_model_find(r->model, t->name);
	if (!first) {
		au_layout_model_add(r->model, t);
		return;
	}
	for (struct layout_type *d = first; d; d = d->odr_next) {
		if (d->kind == LAYOUT_CONSTANT && au_constant_equal(d->constant, k))
			return;   /* the same constant from another unit */
		if (!d->odr_next) {
			d->odr_next = t;   /* two units disagree on it */
			r->odr_conflicts++;
			return;
		}
	}
}
