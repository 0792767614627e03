/* Reporters: a model (dump) or a comparison (diff) out as text or JSON.
 * They only format; every decision was made by the reader or the comparer. */
#ifndef AU_REPORT_H
#define AU_REPORT_H

#include <stdio.h>

#include "compare.h"
#include "model.h"

void report_dump_text(FILE *out, const struct layout_model *m);
void report_dump_json(FILE *out, const struct layout_model *m);
void report_diff_text(FILE *out, const struct comparison *c, const char *old_path, const char *new_path);
void report_diff_json(FILE *out, const struct comparison *c, const char *old_path, const char *new_path);

/* One type's layout as dump's text shows it; malloc'd (caller frees). */
char *report_type_text(const struct layout_type *t);

/* Shared by both reporters: a hole or padding in a struct's layout. */
struct layout_gap {
	uint64_t bit_offset;   /* absolute */
	uint64_t bit_size;
};
/* The holes between the members of a struct (not a union) at one level,
 * starting at base bits; returns the count, *ret malloc'd. Trailing padding
 * goes in *padding_bits. */
size_t layout_gaps(const struct layout_type *t, uint64_t base, struct layout_gap **ret, uint64_t *padding_bits);

#endif
