/* The kernel's conventions for extending its UAPI: the one table that says
 * which differences break existing programs, which need a person to look,
 * and which are the kernel's own safe ways of growing an ABI. The comparer
 * finds differences; this table alone names and grades them. */
#ifndef AU_CONVENTIONS_H
#define AU_CONVENTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* In order: a finding's severity is the most severe of its changes. */
enum severity {
	SEVERITY_NONE,
	SEVERITY_SAFE,     /* breaks no program built against OLD, by the kernel's conventions */
	SEVERITY_REVIEW,   /* safe only if the kernel side copes (size-versioned structs), or suspicious */
	SEVERITY_BREAK,    /* breaks programs built against OLD, at run time or at compile time */
	SEVERITY_COUNT
};

enum reason {
	/* break */
	REASON_MOVED,              /* an existing member's offset changed */
	REASON_RESIZED,            /* an existing member's size or bit size changed */
	REASON_RETYPED,            /* an existing member's canonical type changed */
	REASON_MEMBER_REMOVED,     /* a member name is gone (programs naming it stop compiling) */
	REASON_RENAMED,            /* a member name is gone, another stands in its slot */
	REASON_REMOVED,            /* the type is gone */
	REASON_ENUMERATOR_VALUE,   /* a named constant changed its value */
	REASON_ENUMERATOR_REMOVED, /* a named constant is gone */
	REASON_SIZE_CHANGED,       /* the size changed other than by growth at the tail */
	REASON_KIND_CHANGED,       /* struct, union and enum swapped */
	REASON_ALIGNMENT_CHANGED,  /* explicit alignment changed */
	REASON_CONTAINS_BREAK,     /* holds by value a type whose change breaks */
	/* review */
	REASON_TAIL_GROWTH,        /* grows only by members appended at the end */
	REASON_OVERLAP,            /* a new name over an existing member with another size or type */
	REASON_SENTINEL_REMOVED,   /* a count or maximum enumerator is gone */
	REASON_MEMBER_ADDED,       /* strict: a name only one side has */
	REASON_CONTAINS_REVIEW,    /* holds by value a type whose change needs review */
	/* safe */
	REASON_SENTINEL,           /* a count or maximum enumerator moved because values were added */
	REASON_RESERVED_REUSE,     /* a reserved member shrank or went, and new members took its place */
	REASON_PADDING_REUSE,      /* a new member in what was a hole or trailing padding */
	REASON_PAD_RENAMED,        /* a reserved member got a real name, same slot */
	REASON_NEW_ALTERNATIVE,    /* a new union alternative, the union's size kept */
	REASON_ALIAS,              /* a second name for a slot: same offset, size and type */
	REASON_FLEXIBLE_SPELLING,  /* T x[0], T x[] or __DECLARE_FLEX_ARRAY: the same 0-byte tail */
	REASON_FLEX_FILLER,        /* __DECLARE_FLEX_ARRAY's empty struct __empty_X went, X beside it */
	REASON_CONTAINS_SAFE,      /* holds by value a type whose change is safe */
	REASON_ADDED,              /* a new type */
	REASON_ENUMERATOR_ADDED,   /* a new named constant */
	REASON_CXX_KEYWORD,        /* strict, C against C++: a C name that C++ reserves, kept in its slot */
	REASON_ODR_CONFLICT,       /* one name, two different layouts in one object */
	/* #define constants (the driver's constants unit) */
	REASON_CONSTANT_VALUE,     /* break: a constant changed its value */
	REASON_CONSTANT_REMOVED,   /* break: a constant is gone */
	REASON_VERSION_INCREASED,  /* review: a version constant grew */
	REASON_CONSTANT_ADDED,     /* safe: a new constant */
	REASON_CONSTANT_MOVED,     /* safe: a name moved between an enumerator and a #define, same value */
	REASON_COUNT
};

typedef uint64_t reason_set;   /* bit (1 << enum reason) */

struct convention {
	const char *name;          /* as in the JSON "reasons" and docs/severities.md */
	enum severity severity;
	const char *meaning;       /* one line, for docs/severities.md and --help=reasons */
};

/* The table, indexed by enum reason. */
extern const struct convention au_conventions[REASON_COUNT];

const char *au_severity_name(enum severity s);
/* Parses "break", "review" or "safe"; returns SEVERITY_NONE for anything else. */
enum severity au_severity_parse(const char *s);

/* The empty struct that 6.1's __DECLARE_FLEX_ARRAY puts before flexible
 * array X (none in C, 1 byte in C++): a member named __empty_X of at most
 * 1 byte whose type key is a struct's; flex is then "X". NULL otherwise. */
const char *au_flex_filler_of(const char *name, uint64_t size, const char *key);

/* The most severe reason in a set (SEVERITY_NONE for the empty set). */
enum severity au_reasons_severity(reason_set r);

/* A name that may be a count or maximum that moves when values are added:
 * a word MAX, NUM, CNT, COUNT, LAST, NBITS, MASK or SIZE (__FOO_MAX,
 * FOO_MAX, MAX_FOO, NUM_FOO, FOO_NUM_OPS, FOO_CNT, __FOO_AFTER_LAST,
 * FOO_NBITS, FOO_MASK), or a word ending in MAX (__FOO_XFRMMAX). The name
 * alone is not enough: the comparer also requires the value to follow from
 * the enumerator before it (one past it, equal to it, one less than a
 * sentinel before it, or all the bits up to it), on both sides, so that a
 * constant such as FOO_MAX_LEN = 16 is never taken for one. */
bool au_is_sentinel_name(const char *name);

/* A version number by its name: a word VERSION (FOO_VERSION, FOO_API_VERSION,
 * FOO_VERSION_MINOR, VERSION_FOO). */
bool au_is_version_name(const char *name);

/* A system call number: __NR_foo (and __NR3264_foo of asm-generic). */
bool au_is_syscall_name(const char *name);

/* A member that holds no data yet, by its name: reserved, resv, rsvd, res,
 * pad, padding, unused, spare, __spareN, __align..., with or without leading
 * underscores, digits or a trailing _N. */
bool au_is_reserved_name(const char *name);

/* A C++ keyword or alternative token, which a C member may be named but a
 * C++ one may not. */
bool au_is_cxx_keyword(const char *name);

#endif
