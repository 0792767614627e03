/* --compat: OLD and NEW are one revision built for a 64-bit ABI and for its
 * 32-bit one (x86_64 and i386, arm64 and arm). The comparer finds the types
 * whose layout differs as it always does; this file says why each differs,
 * from what the model records of member types (their canonical keys, their
 * typedef chains) and from the two layouts themselves. It decides no
 * severity and drops no finding: a difference it cannot explain is "other". */
#ifndef AU_COMPAT_H
#define AU_COMPAT_H

#include "compare.h"
#include "model.h"

enum compat_cause_kind {
	COMPAT_LONG_WIDTH,      /* long, unsigned long, or a typedef of them (__kernel_long_t) */
	COMPAT_POINTER_WIDTH,   /* a pointer (or an array of them) */
	COMPAT_SIZE_T_WIDTH,    /* size_t, ssize_t, __kernel_size_t, ptrdiff_t... by typedef name */
	COMPAT_TIME_WIDTH,      /* time_t, __kernel_old_time_t, suseconds, clock; struct timeval-likes */
	COMPAT_ALIGN8,          /* an 8-byte fixed-width type aligned to less than 8 on the 32-bit ABI */
	COMPAT_ARCH_IFDEF,      /* a member, enumerator or type that only one ABI has */
	COMPAT_MEMBER_TYPE,     /* a member whose own type differs (that type's finding says why) */
	COMPAT_OTHER,           /* anything else: never dropped */
	COMPAT_CAUSE_COUNT
};

/* What a cause found, and so which of its facts below are set. compat.c
 * records facts only; the reporters word them (report_compat.c). */
enum compat_fact {
	COMPAT_FACT_CHANGE,             /* change: one of the comparer's changes, worded as any */
	COMPAT_FACT_TYPE_ONE_ABI,       /* type_name is declared on one ABI only (only_64) */
	COMPAT_FACT_MEMBER_ONE_ABI,     /* decl is on one ABI only (only_64): that ABI's offset and size */
	COMPAT_FACT_ENUMERATOR_ONE_ABI, /* the enumerator member is on one ABI only (only_64) */
	COMPAT_FACT_MEMBER_WIDTH,       /* decl's width is the cause's: sizes, declared types, array, via */
	COMPAT_FACT_ANON_MEMBER_WIDTH,  /* decl is of an anonymous type whose member inner is the cause's: sizes */
	COMPAT_FACT_MEMBER_TYPE_SIZE,   /* decl's type (type) differs itself: sizes */
	COMPAT_FACT_ARRAY_LENGTH,       /* decl is an array whose length each ABI computes: declared types, sizes */
	COMPAT_FACT_DECLARED_PER_ABI,   /* decl is declared as another type on each ABI: declared types, sizes */
	COMPAT_FACT_TYPEDEF_PER_ABI,    /* decl's typedef ends in another type on each ABI: chains, sizes */
	COMPAT_FACT_MEMBER_SIZE,        /* decl's size differs, and no more is known: declared types, sizes */
	COMPAT_FACT_MOVED,              /* decl (or an anonymous member) at an offset no multiple of 8 on the
					 * 32-bit ABI: offsets, align32, itself */
	COMPAT_FACT_TRAILING_PADDING,   /* the type's size (or the nested member within's) shrank as decl is
					 * aligned to align32 on the 32-bit ABI: sizes */
	COMPAT_FACT_ANON_TRAILING_PADDING, /* the same for an anonymous member: sizes, decl, align32 */
	COMPAT_FACT_EMBEDDED,           /* decl's type differs itself (type; a time type for time-width) */
	COMPAT_FACT_IOCTL_SIZE,         /* the enumerator member is an ioctl number whose size field differs:
					 * values, sizes (the size fields) */
	COMPAT_FACT_UNEXPLAINED_MOVE,   /* decl moved (offsets) and nothing before it explains it */
	COMPAT_FACT_UNEXPLAINED_SIZE,   /* the type's sizes differ, with no member to blame */
	COMPAT_FACT_LAYOUTS_DIFFER,     /* nothing more is known */
};

/* One ABI's figures of a fact. */
struct compat_abi {
	uint64_t size;          /* bytes: the member's, type's or anonymous member's; an ioctl number's size field */
	uint64_t offset;        /* bytes: the member's or anonymous member's */
	uint64_t value;         /* an enumerator's */
	const char *declared;   /* the member's type as declared ("__u64", "char[16]", "void *"), or NULL */
	const char *chain;      /* its typedef chain ("__kernel_long_t>long"), or NULL */
};

/* A member as a header declares it ("__u64 x", "char name[16]"). */
struct compat_decl {
	const char *type;       /* its type's name ("char[16]"), or NULL when unknown */
	const char *name;       /* its path */
};

struct compat_cause {
	enum compat_cause_kind cause;
	const char *member;     /* the member's path (u.p.x), or NULL for the type as a whole */
	const char *type;       /* member-type: the member's type ("struct foo"), else NULL */
	enum compat_fact fact;
	/* COMPAT_FACT_CHANGE: a change with no more specific cause ("other"). */
	const struct change *change;
	struct compat_decl decl;
	struct compat_abi abi64, abi32;
	const char *type_name;  /* TYPE_ONE_ABI: the type */
	bool only_64;           /* *_ONE_ABI: the ABI that has it is the 64-bit one, else the 32-bit one */
	bool array;             /* MEMBER_WIDTH: the member is an array (of pointers, of long) */
	const char *via;        /* MEMBER_WIDTH: the typedef chain the width comes through, or NULL */
	const char *inner;      /* ANON_MEMBER_WIDTH: the anonymous type's member to blame */
	bool anonymous;         /* MOVED, ANON_TRAILING_PADDING: an anonymous member, not decl, moved or shrank */
	enum layout_kind anon_kind;   /* ... its kind */
	const char *anon_first; /* ... its first member's name, or NULL when it has none */
	const char *within;     /* TRAILING_PADDING: the nested member whose type shrank, NULL for the type */
	bool itself;            /* MOVED: the member is itself an 8-byte type (else it holds one) */
	unsigned align32;       /* MOVED, *TRAILING_PADDING: the alignment on the 32-bit ABI */
};

struct compat_summary {
	unsigned old_bits, new_bits;            /* 64 and 32, or 32 and 64 */
	size_t counts[COMPAT_CAUSE_COUNT];      /* findings carrying each cause */
};

const char *au_compat_cause_name(enum compat_cause_kind k);

/* Gives every finding of c its causes and sets c->compat. The models are the
 * ones c was computed from; they must have different address sizes. */
void au_compat_classify(struct comparison *c, const struct layout_model *old_model,
		     const struct layout_model *new_model);

#endif
