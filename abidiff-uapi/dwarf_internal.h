/* What the parts of the DWARF reader share: the state of one read (struct
 * reader) and the helpers each part calls. Private to the reader: the
 * public API is dwarf_reader.h.
 *
 *   dwarf_reader.c  the entry points: an object or an archive, libdwfl
 *                   opened, the reader set up, the two passes run
 *   dwarf_util.c    errors, string bounds, names, attributes, declaring files
 *   dwarf_walk.c    the DIE walk (units, imported units, namespaces) and the
 *                   duplicate definitions of one name
 *   dwarf_types.c   one type DIE -> what a member of it shows; aggregates
 *   elf_input.c     the ELF file before libdw sees it (elf_input.h)
 */
#ifndef AU_DWARF_INTERNAL_H
#define AU_DWARF_INTERNAL_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "dwarf_reader.h"
#include "strmap.h"

/* Types nest (pointers, typedefs, arrays, anonymous members) as deep as a
 * program likes; the recursion that reads them stops at MAX_DEPTH levels,
 * and a type that goes deeper is an error naming it, never a silent cut. */
enum { MAX_DEPTH = 1024 };

/* What we know of one type DIE, computed once. 24 bytes: a read holds one
 * per type DIE. What a member of the type shows (its spelling, key, chain,
 * embedded aggregate and size) is the model's record in mt, made when the
 * type is read and shared by every member of that type. */
struct type_info {
	const struct layout_member_type *mt;   /* NULL only while busy */
	struct layout_type *layout;   /* an anonymous struct/union: its layout, read once */
	bool has_size;
	bool flexible;            /* an array with no elements */
	bool busy;                /* being computed: a cycle in corrupt input */
};

struct reader {
	struct layout_model *model;
	const char *path;
	bool big_endian;
	unsigned address_size;
	struct intmap infos;          /* DIE -> struct type_info * */
	struct arena info_mem;        /* the type_infos: freed with infos (forget_unit_types) */
	struct arena scratch;         /* per read: freed when the read ends */
	struct intmap member_types;   /* hash -> struct member_type_node list (dwarf_types.c) */
	struct arena type_tmp;        /* strings of one unit's types, until they are interned */
	bool imports;                 /* a unit imported another (dwz): its types are kept for all */
	struct strset names;          /* names copied into the model, each once */
	struct strmap anon_names;     /* aggregate DIE -> typedef name */
	struct strmap ptr_names;      /* aggregate DIE -> "*P" of typedef struct {...} *P */
	struct strmap qual_names;     /* aggregate DIE in a namespace -> "ns::name" */
	struct strmap decl_scopes;    /* declaration DIE in a class -> that class's model name */
	struct strmap visited[2];     /* units read, per pass */
	/* Aggregate DIEs with children that pass 2 visits (types, namespaces,
	 * variables, imports), found in pass 1: pass 2 walks no others'
	 * children, mostly members it would pass over. */
	struct intmap nested;
	bool nested_seen;             /* such a child met in the walk under way */
	size_t units, definitions;
	size_t aggregates;            /* named aggregates and enums pass 1 met: size the model's name map */
	bool has_alt;
	bool multi_unit;              /* more than one compile unit: names may repeat */
	struct strmap odr_keys;       /* layout_type * -> its definition key */
	/* Anonymous aggregates of the same layout share one model record: the
	 * same union { __u64 raw; struct { __u32 lo, hi; }; } in thousands of
	 * types is kept once. read_aggregate puts a type, its members and its
	 * enumerators in body: the model's arena, or anon_tmp while an
	 * anonymous one is read, until it is found again or copied. */
	struct arena *body;
	struct arena anon_tmp;
	struct arena dup_tmp;         /* a name's later definition, until it is found new */
	unsigned anon_depth;
	struct strmap anon_shapes;    /* au_typekey_anon key -> struct shared_anon * */
	unsigned long top_seq;        /* counts the types read at the top */
	size_t odr_conflicts;
	struct intmap const_types;    /* a constant's type DIE -> struct constant_type (dwarf_constants.c) */
	struct strmap files;          /* interned declaring files */
	struct intmap file_memo;      /* libdw's file name -> struct file_memo */
	const char *comp_dir;
	const char *default_comp_dir; /* for units that have none */
	bool no_files;                /* this unit's file table is unreadable */
	struct au_error *err;
	const char *current;          /* the named type being read, for messages */
	/* The stand-in for a type met again while it is being read. Per read,
	 * not static: it caches a member type made in this model's arena. */
	struct type_info cycle;
	/* The debug sections' data in memory, to check strings (see die_name). */
	struct region {
		const unsigned char *base, *end;
	} regions[256];
	size_t nregions;
	size_t last_region;           /* where the last string checked lay */
	Elf *elfs[64];                /* files whose sections are in regions */
	size_t nelfs;
	size_t str_bytes;             /* the size of the .debug_str sections among them */
	/* The .debug_str sections that end in a NUL, where the compiler and
	 * linker keep each string once: each is copied into the model whole
	 * when its file is opened, and a name found in one is that copy's
	 * string at the same offset (attr_name), kept with no hashing, probing
	 * or comparing (intern). Other strings go through names. */
	struct str_section {
		const char *base, *end;
		const char *copy;     /* in the model's arena */
	} strs[8];
	size_t nstrs;
};

/* ---- dwarf_util.c */

/* The first error is the one reported; later ones (from unwinding nested
 * reads) are dropped. */
void set_error(struct reader *r, struct au_error *err);
/* Names the type being read when its nesting passes MAX_DEPTH. */
void too_deep(struct reader *r);
/* A string libdw handed out lies in one of the object's debug sections,
 * NUL-terminated there; the second also trusts one outside every section
 * (a path libdw joined itself). */
bool string_ok(struct reader *r, const char *str);
bool string_ok_or_built(struct reader *r, const char *str);
/* Records the debug sections of one ELF file in memory, once per file. */
void add_regions(struct reader *r, Elf *elf, const char *file);
const char *attr_name(struct reader *r, Dwarf_Attribute *attr);
const char *die_name(struct reader *r, Dwarf_Die *die);
/* A copy of s in the model, one per distinct string. */
const char *intern(struct reader *r, const char *s);
bool is_declaration(Dwarf_Die *die);
/* Lexically normalised absolute path of a declaring file, or NULL. */
const char *decl_file(struct reader *r, Dwarf_Die *die);
const char *aggregate_prefix(int tag);
bool is_aggregate_tag(int tag);

/* A DIE's identity across every unit and file read (the main object, its
 * type units, split units, a dwz supplement): its address in the mapped
 * section, where offsets alone repeat between sections and files. */
static inline uint64_t die_key(const Dwarf_Die *die)
{
	return (uint64_t)(uintptr_t)die->addr;
}

/* Set when the file has type units: only then can a reference land on a
 * signature stub, and the look-up costs an attribute scan per reference. */
extern __thread bool have_type_units;

/* A declaration that stands for a type unit's type (DW_AT_signature, as
 * gcc writes with -fdebug-types-section) is replaced by that type. */
static inline void resolve_signature(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;
	if (dwarf_attr(die, DW_AT_signature, &attr) && dwarf_formref_die(&attr, &t))
		*die = t;
}

static inline bool attr_type(Dwarf_Attribute *attr, Dwarf_Die *ret)
{
	if (!attr || !dwarf_formref_die(attr, ret))
		return false;
	if (have_type_units)
		resolve_signature(ret);
	return true;
}

static inline bool die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	return attr_type(dwarf_attr(die, DW_AT_type, &attr), ret);
}

static inline bool attr_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *ret)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr(die, name, &attr))
		return false;
	return dwarf_formudata(&attr, ret) == 0;
}

/* ---- dwarf_types.c */

/* What a member of the type at die shows, read once per DIE. */
struct type_info *type_info_of(struct reader *r, Dwarf_Die *die, int depth);
/* The layout of the struct, union or enum at die, called name (NULL for an
 * anonymous one), in r->body. */
struct layout_type *read_aggregate(struct reader *r, Dwarf_Die *die, const char *name, int depth);

/* ---- dwarf_walk.c */

/* Every unit of dw, for pass 0 (typedef names, namespaces) or pass 1
 * (definitions). */
void walk_units(struct reader *r, Dwarf *dw, const char *file, int pass);
/* Between two units: what is known of the last one's type DIEs is dropped,
 * unless other units may refer to them (imports, type units). */
void forget_unit_types(struct reader *r);
/* After pass 1, when some name has more than one layout: the types C++
 * nests in different classes renamed apart, and each name's layouts put in
 * layout order. */
void split_scoped(struct reader *r);
/* dwarf_constants.c: a CU-level variable of the driver's constants unit
 * (AU_DEFINE_VARIABLE NAME, with DW_AT_const_value) as "#define NAME". */
#define AU_DEFINE_VARIABLE "__abidiff_uapi_define__"
void read_constant(struct reader *r, Dwarf_Die *die);
void order_definitions(struct reader *r);

#endif
