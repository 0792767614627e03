/* The layout model: what a C programmer means by "the layout of a type",
 * with no trace of DWARF or BTF. Readers build it; the comparer and the
 * reporters only read it. All memory belongs to the model's arena. */
#ifndef AU_MODEL_H
#define AU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "strmap.h"

enum layout_kind {
	LAYOUT_STRUCT,
	LAYOUT_UNION,
	LAYOUT_ENUM,
	/* A #define constant of the headers, as the compiler evaluated it
	 * (the driver's constants unit; docs/constants.md): named
	 * "#define NAME", its value in `constant`, `size` its type's bytes. */
	LAYOUT_CONSTANT,
};

struct layout_type;

/* What a member's type contributes to it: shared by every member of one
 * type (readers make one per type they meet), so that a member carries one
 * pointer instead of four and a size; a model holds millions of members. */
struct layout_member_type {
	const char *name;         /* as written: "__u32", "struct foo", "char[16]" */
	/* The canonical type: typedefs and qualifiers resolved, base types by
	 * encoding and width ("u32"), so that unsigned int == __u32 but
	 * __u32 != __s32 and void * != __u64. */
	const char *key;
	/* The names the type is reached through, for --compat (compat.c):
	 * the typedefs outermost first, then what they end in (a base type as
	 * dump spells it, "long"; "struct foo"; "*" for a pointer), joined by
	 * '>': "__kernel_size_t>__kernel_ulong_t>unsigned long". Arrays and
	 * qualifiers add nothing (an array gives its element's). NULL when the
	 * reader does not record it (BTF). */
	const char *chain;
	/* The named aggregate held by value (directly or as array elements),
	 * for "embeds a changed struct": "struct foo", or NULL. */
	const char *embeds;
	uint64_t size;            /* bytes (0 for a flexible array) */
	/* The layout of the anonymous struct or union this type is (through
	 * qualifiers), else NULL; never an enum's. Without a name, a member of
	 * this type is an anonymous member, shown in place (au_member_anon);
	 * with one, union { ... } u, which the comparer follows as u.p.x member
	 * by member (au_member_nested). Kept here, not in each member: a model
	 * holds millions of members and far fewer types. */
	struct layout_type *layout;
};

struct layout_member {
	const char *name;         /* NULL for an anonymous struct/union member or an unnamed bitfield */
	const struct layout_member_type *type;   /* never NULL */
	uint64_t bit_offset;      /* from the start of the aggregate that declares it */
	uint32_t bit_size;        /* bitfields only (is_bitfield): the width; see au_member_bits */
	bool is_bitfield;
	bool flexible;            /* a trailing T[] or T[0]: size 0 whatever the spelling */
};

/* An anonymous struct/union member's layout, or NULL. */
static inline struct layout_type *au_member_anon(const struct layout_member *m)
{
	return m->name ? NULL : m->type->layout;
}

/* A named member's anonymous struct/union type's layout, or NULL. */
static inline struct layout_type *au_member_nested(const struct layout_member *m)
{
	return m->name ? m->type->layout : NULL;
}

/* Bytes of the member's type (0 for a flexible array). */
static inline uint64_t au_member_size(const struct layout_member *m)
{
	return m->type->size;
}

struct layout_enumerator {
	const char *name;
	int64_t value;
	bool is_unsigned;         /* print value as uint64_t */
};

/* A constant's value: an integer (value, is_unsigned) or a string
 * literal's bytes, its terminating NUL included. */
struct layout_constant {
	int64_t value;
	bool is_unsigned;
	bool is_string;
	size_t nbytes;
	const unsigned char *bytes;
};

struct layout_type {
	/* 104 bytes, the small fields first: a model holds hundreds of
	 * thousands of types. */
	enum layout_kind kind;
	unsigned line;
	/* Members reached when anonymous members are expanded in place. Readers
	 * share the layout of an anonymous type between its uses, so corrupt
	 * input could make expansion exponential; readers reject a type whose
	 * count passes LAYOUT_MAX_FLAT (au_layout_count_flat stops there). */
	uint32_t nflat;
	/* An anonymous enum, named "enum {FIRST}" after its first enumerator:
	 * its enumerators are named constants, paired by name across the whole
	 * object rather than by the enum's name. */
	bool anonymous;
	/* The name is a typedef's (typedef struct {...} NAME, or "*NAME" for
	 * typedef struct {...} *NAME), not a tag: set by the readers. */
	bool is_typedef;
	/* "struct foo", "union foo", "enum foo", or the typedef name of a
	 * typedef'd anonymous aggregate; NULL for an anonymous member type. */
	const char *name;
	/* The type it is nested in, as g++ nests named types ("struct outer"),
	 * or NULL at file scope. C puts the same types at file scope. */
	const char *scope;
	/* Other definitions of this name in the same object with another layout
	 * (two units of one library disagree: an ODR violation), each read in
	 * full. The model's type is the definition whose layout sorts first, so
	 * link order changes nothing; the rest follow in that order. */
	struct layout_type *odr_next;
	const char *file;         /* declaring file, absolute when known, else NULL (line: above) */
	uint64_t size;            /* bytes */
	uint64_t align;           /* explicit alignment (DW_AT_alignment), 0 if unknown */
	size_t nmembers;
	struct layout_member *members;
	size_t nenumerators;
	struct layout_enumerator *enumerators;
	const struct layout_constant *constant;   /* LAYOUT_CONSTANT only */
};

/* The name a constant has in the model: "#define NAME". */
#define AU_CONSTANT_PREFIX "#define "
static inline const char *au_constant_macro(const struct layout_type *t)
{
	return t->name + sizeof(AU_CONSTANT_PREFIX) - 1;
}
/* Two constants' values are the same: integers by value, strings by bytes. */
bool au_constant_equal(const struct layout_constant *a, const struct layout_constant *b);

enum { LAYOUT_MAX_FLAT = 1 << 20 };
/* nflat of t from its members' (anonymous members' nflat already set), at
 * most LAYOUT_MAX_FLAT + 1. */
size_t au_layout_count_flat(const struct layout_type *t);

enum layout_lang { LANG_UNKNOWN, LANG_C, LANG_CXX, LANG_OTHER };

/* What plain char is in a model, as its producer encoded the base type
 * named "char" (DW_ATE_signed_char or DW_ATE_unsigned_char). BTF does not
 * record it: unknown. Mixed: units of one object disagree (some built
 * with -funsigned-char). Only a known sign lets the comparer take char8 as
 * s8 or u8 (au_typekey_equal_char). */
enum char_signedness { CHAR_SIGN_UNKNOWN, CHAR_SIGN_SIGNED, CHAR_SIGN_UNSIGNED, CHAR_SIGN_MIXED };

/* The byte order of the object a model was read from (raw BTF says it by
 * its magic number too). */
enum layout_byte_order { BYTE_ORDER_UNKNOWN, BYTE_ORDER_LITTLE, BYTE_ORDER_BIG };

struct layout_model {
	struct arena arena;
	const char *path;         /* where it was read from, for messages */
	enum layout_lang lang;    /* the source language of its first unit (BTF: unknown) */
	unsigned address_size;    /* bytes of a pointer (ELF class: 4 or 8), 0 if unknown (BTF) */
	enum char_signedness char_signedness;   /* plain char's sign, where the reader knows it */
	/* The ELF machine (e_machine) the object was built for, 0 if unknown
	 * (raw BTF); with address_size and byte_order it tells two objects of
	 * different ABIs apart before their layouts are compared. */
	unsigned machine;
	enum layout_byte_order byte_order;
	size_t ntypes;
	size_t capacity;
	struct layout_type **types;   /* named types, in the order read */
	/* types is in name order (au_layout_model_sort), each name once: the
	 * comparer pairs two such models in one walk. Adding a type clears it. */
	bool sorted;
	struct strmap by_name;        /* name -> struct layout_type * */
	/* typedef NAME -> the name of the type it stands for, when that is a
	 * struct, union or enum with a tag ("struct foo") or another typedef
	 * (its name): a typedef of an anonymous aggregate is that type's own
	 * name already. Names live in the arena; first definition wins. */
	struct strmap typedefs;
};

void au_layout_model_init(struct layout_model *m, const char *path);
void au_layout_model_deinit(struct layout_model *m);
/* Adds a named type; returns false (and adds nothing) if the name is taken. */
bool au_layout_model_add(struct layout_model *m, struct layout_type *t);
/* Appends t to types without indexing its name (a reader renaming types
 * rebuilds the index with au_layout_model_reindex). */
void au_layout_model_append(struct layout_model *m, struct layout_type *t);
void au_layout_model_reindex(struct layout_model *m);
struct layout_type *au_layout_model_find(const struct layout_model *m, const char *name);
/* Records that typedef name stands for target (both in the model's arena). */
void au_layout_model_add_typedef(struct layout_model *m, const char *name, const char *target);
/* The type a user means by name, as they would write it: the model's own
 * name ("struct kvm_run", "union bpf_attr", "enum foo", a typedef'd
 * anonymous aggregate's name, "#define FOO"), a bare tag ("kvm_run": the
 * struct, union or enum of that tag), or a typedef name, followed through
 * typedefs to the aggregate it names. NULL when nothing matches. */
struct layout_type *au_layout_model_resolve(const struct layout_model *m, const char *name);
/* A member type record in arena a (the readers make one per type they meet);
 * layout: the type's anonymous struct or union layout (an enum's is
 * dropped), or NULL. */
const struct layout_member_type *au_member_type_new(struct arena *a, const char *name, const char *key,
						    const char *chain, const char *embeds, uint64_t size,
						    struct layout_type *layout);
/* Sorts types by name, for stable output whatever the reader's order; sets
 * sorted unless two types share a name. */
void au_layout_model_sort(struct layout_model *m);
/* Keeps only the types for which keep() is true. */
void au_layout_model_filter(struct layout_model *m, bool (*keep)(const struct layout_type *, void *), void *arg);

const char *au_layout_kind_name(enum layout_kind kind);

/* A member reached by name, as C allows through anonymous members, with its
 * offset from the start of the outer type. */
struct flat_member {
	const struct layout_member *member;
	uint64_t bit_offset;      /* absolute */
	/* The name C code reaches it by: the member's own name, or a dotted
	 * path through named members of anonymous type ("u.p.x"). */
	const char *name;
	/* How many unions hold it, the outer type included: a new name in a
	 * union that was already there is a new alternative, while one next
	 * to a member that a union newly wraps is an attempted alias. */
	unsigned union_depth;
	/* The aggregate that declares it (the outer type, or an anonymous
	 * struct or union inside it): two names in one union are alternatives
	 * of each other, two in sibling structs are not. */
	const struct layout_type *container;
};

/* Every named member of t reachable by name, in offset order; zero-size
 * members that are not flexible arrays (the __DECLARE_FLEX_ARRAY filler)
 * carry no data and are left out. Returns the count; *ret is malloc'd (caller frees). */
size_t au_layout_flatten(const struct layout_type *t, struct flat_member **ret);
/* The same, and also through named members of anonymous type: "u" and then
 * "u.p.x" (paths allocated in a). */
size_t au_layout_flatten_paths(const struct layout_type *t, struct arena *a, struct flat_member **ret);
/* The same with the zero-size members kept: to tell a member that shrank to
 * 0 bytes (still there, and still named) from one that is gone. */
size_t au_layout_flatten_paths_all(const struct layout_type *t, struct arena *a, struct flat_member **ret);

/* A hole or padding in a struct's layout, as both reporters show it. */
struct layout_gap {
	uint64_t bit_offset;   /* absolute */
	uint64_t bit_size;
};
/* The holes between the members of a struct (not a union) at one level,
 * starting at base bits; returns the count, *ret malloc'd. Trailing padding
 * goes in *padding_bits. */
size_t au_layout_gaps(const struct layout_type *t, uint64_t base, struct layout_gap **ret, uint64_t *padding_bits);

/* Two strings that may be NULL are the same. */
static inline bool au_same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The bit size a member occupies. */
static inline uint64_t au_member_bits(const struct layout_member *m)
{
	return m->is_bitfield ? m->bit_size : 8 * m->type->size;
}

#endif
