/* Canonical type keys: the one place that builds and reads them.
 *
 * A member's type key is its type with typedefs and qualifiers resolved, so
 * that two members have the same type exactly when their keys are equal
 * (unsigned int == __u32, but __u32 != __s32 and void * != __u64). Both
 * readers (DWARF and BTF) build keys only through the functions below, and
 * the comparer reads them only through the predicates below, so the two
 * readers cannot drift apart. Keys live in an arena; equal types give
 * byte-equal keys, and each key appears as "key" in the JSON output, so the
 * grammar is part of the output and must not change.
 *
 * The grammar (K is a key):
 *
 *   base      bool8 s32 u64 f64 cf128 utf32 char8   kind and width in bits
 *             base:NAME:BITS                         an encoding with no class
 *   void      void
 *   pointer   *K                                     pointer to K
 *             &K  &&K                                C++ lvalue, rvalue reference
 *             ::*K                                   C++ pointer to member
 *   array     [N]K                                   N elements of K in all (T[2][3]
 *                                                    and T[6] are both [6]K)
 *             []K                                    no elements: T[], T[0]
 *   function  fn(R;P1,P2,...)                        return key; parameter keys,
 *                                                    "..." for varargs, "?" unknown
 *   named     struct NAME  union NAME  enum NAME     a tagged type (also the model's
 *                                                    name for it; NAME may be A::B)
 *             enum {FIRST}                           the model's name of an anonymous
 *                                                    enum, after its first enumerator
 *   typedef   NAME                                   a typedef naming an anonymous
 *             *NAME                                  aggregate, or one naming a
 *                                                    pointer to one (typedef struct
 *                                                    {...} *NAME)
 *   anonymous struct{M;M;...}SIZE                    an untagged aggregate by shape:
 *             union{M;...}SIZE                       each M is NAME@BITOFF:BITS:K,
 *             enum{NAME=VALUE;...}SIZE               SIZE in bytes; a shape over
 *             struct{#HASH}SIZE                      256 bytes is replaced by a
 *                                                    64-bit FNV-1a hash of itself
 *   other     unspecified:NAME                       decltype(nullptr) and the like
 *             struct  union                          BTF: an untagged forward decl
 *             tagN:NAME  btfN:NAME                   an unknown DWARF tag / BTF kind
 *             cycle  too-deep  ?                     corrupt input (an error is
 *                                                    reported as well)
 *
 * The sigils of pointers and arrays ('*', '[', ']' and digits) prefix the
 * key they apply to; see typekey_sigil_prefix. */
#ifndef AU_TYPEKEY_H
#define AU_TYPEKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "model.h"
#include "strbuf.h"

/* Fixed keys. */
#define TYPEKEY_VOID "void"
#define TYPEKEY_CYCLE "cycle"
#define TYPEKEY_TOO_DEEP "too-deep"
#define TYPEKEY_UNKNOWN "?"
#define TYPEKEY_VARARGS "..."

/* BASE_CHAR is plain char: a type of its own, whose signedness the ABI or
 * -funsigned-char decides (Linux builds with it since 6.2), unlike signed
 * char and unsigned char. */
enum layout_base { BASE_BOOL, BASE_SIGNED, BASE_UNSIGNED, BASE_FLOAT, BASE_COMPLEX, BASE_UTF, BASE_CHAR, BASE_OTHER };
const char *au_typekey_base(struct arena *a, enum layout_base base, uint64_t bits, const char *name);

enum typekey_sigil { TYPEKEY_POINTER, TYPEKEY_LREF, TYPEKEY_RREF, TYPEKEY_MEMBER_POINTER };
/* The sigil as written in a key and in a display name: "*", "&", "&&", "::*". */
const char *au_typekey_sigil(enum typekey_sigil s);
const char *au_typekey_pointer(struct arena *a, enum typekey_sigil s, const char *target);

/* count elements of elem (flexible: none, T[] or T[0]). */
const char *au_typekey_array(struct arena *a, uint64_t count, bool flexible, const char *elem);
/* An array of nelems elements of elem, where elem may itself be an array
 * key: [N]K of [M]K' folds to [N*M]K', as DWARF's dimension lists give it. */
const char *au_typekey_array_fold(struct arena *a, uint64_t nelems, const char *elem);

/* A function key, built parameter by parameter. */
struct typekey_fn {
	struct strbuf params;   /* "P1,P2,..." so far */
};
void au_typekey_fn_init(struct typekey_fn *f);
void au_typekey_fn_param(struct typekey_fn *f, const char *key);
/* The key fn(ret;params); frees the builder's memory. */
const char *au_typekey_fn_finish(struct typekey_fn *f, struct arena *a, const char *ret);

/* "struct foo", "union foo", "enum foo": the key and the model's name of a
 * tagged type; prefix is au_layout_kind_name's ("struct", "union", "enum"). */
const char *au_typekey_named(struct arena *a, const char *prefix, const char *name);
/* A #define constant's name in the model: "#define NAME" (AU_CONSTANT_PREFIX). */
const char *au_typekey_constant(struct arena *a, const char *macro);
/* A type named in a scope, as g++ nests it: "struct A::Node" for name
 * "struct Node" and scope "struct A" (a typedef name keeps no prefix). */
const char *au_typekey_scoped(struct arena *a, const char *name, const char *scope);
/* The model's name of an anonymous enum: "enum {FIRST}", after its first
 * enumerator (a tagged enum's name, to the predicates). */
const char *au_typekey_anon_enum_name(struct arena *a, const char *first);
/* typedef struct {...} NAME: the key "NAME" of the anonymous aggregate a
 * typedef names (a name the model gives it, kept as the reader stored it). */
const char *au_typekey_typedef(const char *name);
/* BTF's untagged forward declaration: "struct" or "union" (prefix is
 * au_layout_kind_name's). */
const char *au_typekey_untagged_fwd(const char *prefix);
/* typedef struct {...} *NAME: "*NAME". */
const char *au_typekey_ptr_typedef(struct arena *a, const char *name);
/* key is "*NAME" for this typedef name. */
bool au_typekey_is_ptr_typedef_of(const char *key, const char *name);
const char *au_typekey_unspecified(struct arena *a, const char *name);
/* The key of a type the reader does not know: "tagN:NAME" (DWARF) or
 * "btfN:NAME" (BTF). */
const char *au_typekey_unknown(struct arena *a, const char *source, int code, const char *name);

/* The key of an anonymous aggregate: its kind, members and size. */
const char *au_typekey_anon(struct arena *a, const struct layout_type *t);

/* A definition's whole layout as one string (its shape, explicit
 * alignment and scope): two definitions of one name are the same layout
 * exactly when these are equal. Sorting by it orders a name's layouts. */
const char *au_typekey_definition(struct arena *a, const struct layout_type *t);

/* Predicates. */
/* The length of the pointer and array sigils that start key ("[4]*" of "[4]*u8"). */
size_t au_typekey_sigil_prefix(const char *key);
/* An anonymous struct or union by shape ("struct{...}8"). */
bool au_typekey_is_anon(const char *key);
/* A tagged struct or union ("struct foo"). */
bool au_typekey_is_named_aggregate(const char *key);
/* A struct of any form: tagged ("struct foo"), anonymous by shape
 * ("struct{...}0") or BTF's untagged forward declaration ("struct"). */
bool au_typekey_is_struct(const char *key);
/* A tagged enum ("enum foo", also the model's "enum {FIRST}"). */
bool au_typekey_is_named_enum(const char *key);
/* A tagged type of any kind: the name a model gives a type that is no typedef. */
bool au_typekey_is_named(const char *key);
/* The NAME of "struct NAME", "union NAME" or "enum NAME"; the key itself
 * for any other key. */
const char *au_typekey_tag_name(const char *key);
/* The element key of a zero-size array ("[]u8" and "[0]u8": "u8"), or NULL. */
const char *au_typekey_zero_array_element(const char *key);
/* The element key of a one-element array ("[1]u8": "u8"), or NULL. */
const char *au_typekey_one_element(const char *key);

/* The key with its array dimensions taken off ("[4]u64": "u64"); the key
 * itself when it is no array; NULL for NULL. */
const char *au_typekey_array_element(const char *key);
/* An array of any length ("[4]u64", "[]u8"). */
bool au_typekey_is_array(const char *key);
/* A pointer key ("*K", also a typedef'd pointer to an anonymous aggregate,
 * "*NAME"), or a C++ reference ("&K", "&&K"). */
bool au_typekey_is_pointer(const char *key);
bool au_typekey_is_reference(const char *key);
/* A base key ("u32", "f64", "cf64", "bool8"): its class and width in bits;
 * false (and nothing set) for any other key, "base:NAME:BITS" included. */
bool au_typekey_base_of(const char *key, enum layout_base *base, uint64_t *bits);
/* A signed or unsigned integer key of this width ("s32", "u32" for 32). */
bool au_typekey_is_integer(const char *key, uint64_t bits);
/* A by-value 8-byte scalar: "u64", "s64", "f64" or "cf64". */
bool au_typekey_is_fixed8(const char *key);

/* What the member keys of an anonymous shape ("struct{...}SIZE") hold, at
 * any depth and through array dimensions, scanned on the key alone:
 * TYPEKEY_HOLDS_POINTER for a pointer, TYPEKEY_HOLDS_FIXED8 for a by-value
 * 8-byte scalar (au_typekey_is_fixed8). 0 for any other key. */
enum { TYPEKEY_HOLDS_POINTER = 1, TYPEKEY_HOLDS_FIXED8 = 2 };
unsigned au_typekey_anon_holds(const char *key);
/* The top-level members of an anonymous shape, in order:
 *   for (p = au_typekey_anon_members(key); (p = au_typekey_anon_next(p, &it));)
 * it.name (it.name_len bytes, NULL when the item has none) and it.key
 * (it.key_len bytes) point into key. au_typekey_anon_members is NULL when
 * key has no shape; au_typekey_anon_next is NULL at the end. */
struct typekey_item {
	const char *name, *key;
	size_t name_len, key_len;
};
const char *au_typekey_anon_members(const char *key);
const char *au_typekey_anon_next(const char *p, struct typekey_item *it);

/* Keys a and b that differ as strings are still one type when they differ
 * only where one has char8 and the other s8 (u8), and plain char is signed
 * (unsigned) on the side whose key says char8: sa is a's side's sign, sb
 * b's. A producer that names a DW_ATE_signed_char type "char" (icc) and
 * one that names it "signed char" (gcc) mean one type. Token by token, at
 * any depth ("[16]char8", "*char8", "fn(char8;)", a member's key inside an
 * anonymous shape), never inside a name ("struct xs8", "struct s8", an
 * enumerator or a member called s8). Unknown or mixed signs never match;
 * s8 against u8 never does; equal keys are equal. An anonymous shape over
 * 256 bytes, replaced by its hash, is compared by the hash only. For the
 * mismatch path: it compares no faster than strcmp. */
bool au_typekey_equal_char(const char *a, const char *b, enum char_signedness sa, enum char_signedness sb);

#endif
