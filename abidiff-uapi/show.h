/* The per-type view (`abidiff-uapi show`): one struct, union or enum laid
 * out row by row as a developer reads it in pahole, with every member of
 * an anonymous type expanded under its dotted path (kvm_run's io.port) at
 * its absolute offset, and the holes and padding between them; and two
 * such layouts (C and C++, two architectures, two revisions) paired row by
 * row, each pair marked with what differs. It decides nothing about
 * compatibility (that is compare.c's) and words nothing (report_show.c). */
#ifndef AU_SHOW_H
#define AU_SHOW_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "model.h"

enum show_row_kind {
	SHOW_MEMBER,       /* a named member (or an unnamed bitfield): path, offset, size, type */
	SHOW_OPEN,         /* an anonymous struct or union member begins: offset, size */
	SHOW_CLOSE,        /* ... and ends */
	SHOW_HOLE,         /* bits no member holds, between members of a struct */
	SHOW_PADDING,      /* bits after the last member of a nested struct */
	SHOW_ENUMERATOR,   /* an enum's constant */
};

struct show_row {
	enum show_row_kind kind;
	unsigned depth;               /* 1 for the type's own members */
	/* The name C code reaches a member by: its own name, or a dotted path
	 * through named members of anonymous type ("io.port"); NULL for an
	 * unnamed bitfield and for rows that are no member. */
	const char *path;
	/* What pairs this row with its counterpart in another layout of the
	 * type: the path of a member, the place of an anonymous member among
	 * its parent's, the member a hole precedes. */
	const char *key;
	const struct layout_member *member;           /* SHOW_MEMBER, SHOW_OPEN */
	const struct layout_type *aggregate;          /* SHOW_OPEN, SHOW_CLOSE: the anonymous struct or union */
	const struct layout_enumerator *enumerator;   /* SHOW_ENUMERATOR */
	uint64_t bit_offset;          /* absolute, from the start of the type */
	uint64_t bit_size;            /* bits it covers (a member's storage, a hole's size) */
};

struct show_layout {
	const struct layout_type *type;   /* NULL: the type is not in that object */
	size_t nrows;
	struct show_row *rows;            /* in declaration order, in the arena */
	size_t holes;                     /* in the type's own struct level, as dump counts them */
	uint64_t hole_bits;
	uint64_t padding_bits;            /* after the last member, at the top */
};

/* The rows of t (NULL gives an empty layout), allocated in a. */
void au_show_layout(const struct layout_type *t, struct arena *a, struct show_layout *ret);

/* What differs between two paired rows (bits). */
enum show_diff {
	SHOW_DIFF_OFFSET = 1,
	SHOW_DIFF_SIZE = 2,   /* bytes, bit size or flexible-array-ness */
	SHOW_DIFF_TYPE = 4,   /* canonical type, or struct against union */
	SHOW_DIFF_VALUE = 8,  /* an enumerator's value */
};

struct show_pair {
	const struct show_row *a, *b;   /* one of them NULL: the row is on one side only */
	unsigned what;                  /* enum show_diff bits, when both are there */
};

/* Pairs the rows of a and b by key, in a's order, each row of b placed
 * after the rows of a that come before it in b. Returns the count; *ret
 * is malloc'd (caller frees). */
size_t au_show_pair(const struct show_layout *a, const struct show_layout *b, struct show_pair **ret);

#endif
