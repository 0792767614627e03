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

struct compat_cause {
	enum compat_cause_kind cause;
	const char *member;     /* the member's path (u.p.x), or NULL for the type as a whole */
	const char *type;       /* member-type: the member's type ("struct foo"), else NULL */
	const char *detail;     /* one line for people, or NULL when change says it */
	/* A change with no more specific cause ("other"): the reporters word
	 * it as they word any change; NULL when detail is set. */
	const struct change *change;
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
