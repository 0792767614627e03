/* The comparer: two layout models in, findings out. It pairs types by name
 * (hash lookups, so the cost is linear in the number of types) and decides,
 * for each pair, what changed and whether it breaks the ABI or the API. */
#ifndef AU_COMPARE_H
#define AU_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "conventions.h"
#include "model.h"

/* In order of severity: a type's status is its most severe change. */
enum finding_status {
	STATUS_UNCHANGED,
	STATUS_ALIASED,   /* only extra names sharing a slot with a common member */
	STATUS_EXTENDED,  /* members or enumerators added, nothing moved */
	STATUS_ADDED,     /* only in NEW */
	STATUS_RENAMED,   /* a name gone, another in its slot, no common name: API break */
	STATUS_REMOVED,   /* only in OLD */
	STATUS_CHANGED,   /* a layout break */
	STATUS_COUNT
};

enum change_kind {
	CHANGE_KIND,              /* struct <-> union <-> enum */
	CHANGE_SIZE,
	CHANGE_ALIGNMENT,
	CHANGE_MEMBER,            /* a common member differs: see what */
	CHANGE_MEMBER_REMOVED,
	CHANGE_MEMBER_ADDED,      /* other: the member it overlaps with another size or type */
	CHANGE_ALIAS_ADDED,
	CHANGE_ALIAS_REMOVED,
	CHANGE_RENAMED,
	CHANGE_ENUMERATOR_VALUE,
	CHANGE_ENUMERATOR_REMOVED,
	CHANGE_ENUMERATOR_ADDED,
	CHANGE_EMBEDDED,          /* a by-value member whose own type changed */
	CHANGE_ODR_CONFLICT,      /* NEW defines the name with new_value different layouts (OLD: old_value) */
	CHANGE_CONSTANT_VALUE,    /* a #define constant's value: old_constant -> new_constant */
	/* A name that is a #define on one side and an enumerator with the
	 * same value on the other: other names where it is now. */
	CHANGE_CONSTANT_MOVED,
};

enum member_diff {
	DIFF_OFFSET = 1,
	DIFF_BIT_SIZE = 2,
	DIFF_SIZE = 4,
	DIFF_TYPE = 8,
};

struct change {
	enum change_kind kind;
	/* What the change is (status): it moves, resizes or removes something.
	 * Whether that breaks programs is severity's business. */
	bool layout;
	enum severity severity;                 /* from reasons, by the conventions table */
	reason_set reasons;
	unsigned what;                          /* enum member_diff bits, for CHANGE_MEMBER */
	struct flat_member old_member, new_member;  /* .member NULL when absent */
	const char *other;                      /* alias_of, overlapped member, or embedded type */
	const struct layout_enumerator *old_enum, *new_enum;
	const struct layout_constant *old_constant, *new_constant;
	uint64_t old_value, new_value;          /* sizes, alignments, kinds */
};

struct compat_cause;     /* compat.h: --compat's causes */
struct compat_summary;

struct type_finding {
	const char *name;
	enum finding_status status;
	enum severity severity;                 /* the most severe of its changes */
	reason_set reasons;                     /* all its changes' reasons */
	const struct layout_type *old_type, *new_type;   /* NULL when absent */
	size_t nchanges;
	struct change *changes;
	/* --compat: why the layout differs between the ABIs (compat.c), else 0. */
	size_t ncauses;
	const struct compat_cause *causes;
};

struct compare_options {
	bool common_only;   /* compare only types present on both sides */
	/* One ABI expected on both sides (C against C++ of one revision, a
	 * series that must change no layout): the kernel's evolution idioms
	 * (sentinels, reserved reuse, tail growth, pad renames) do not apply. */
	bool strict;
	/* The verdict is incompatible when a finding is this severe or more
	 * (SEVERITY_BREAK when 0). */
	enum severity fail_on;
};

struct comparison {
	struct arena arena;
	size_t nfindings;               /* types that differ, sorted by name */
	struct type_finding **findings;
	size_t counts[STATUS_COUNT];    /* every compared type, by status */
	size_t severities[SEVERITY_COUNT]; /* findings, by severity */
	size_t reasons[REASON_COUNT];   /* findings carrying each reason */
	size_t old_types, new_types;
	bool strict;
	bool common_only;
	enum severity fail_on;
	bool incompatible;
	const struct compat_summary *compat;   /* --compat (compat_classify), else NULL */
};

void au_compare_models(const struct layout_model *old_model, const struct layout_model *new_model,
		    const struct compare_options *opts, struct comparison *ret);
void au_comparison_deinit(struct comparison *c);

const char *au_finding_status_name(enum finding_status s);

#endif
