/* Reporters: a model (dump) or a comparison (diff) out as text or JSON.
 * They only format; every decision was made by the reader or the comparer. */
#ifndef AU_REPORT_H
#define AU_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "model.h"

void au_report_dump_text(FILE *out, const struct layout_model *m);
void au_report_dump_json(FILE *out, const struct layout_model *m);
void au_report_diff_text(FILE *out, const struct comparison *c, const char *old_path, const char *new_path);
void au_report_diff_json(FILE *out, const struct comparison *c, const char *old_path, const char *new_path);

/* SARIF 2.1.0 (one result per type that differs) and JUnit XML (one
 * testcase per compared type, a failure for each that fails the verdict),
 * for CI dashboards. File locations are relative to --headers. */
void au_report_diff_sarif(FILE *out, const struct comparison *c, const char *old_path, const char *new_path);
void au_report_diff_junit(FILE *out, const struct comparison *c, const struct layout_model *old_model,
		       const struct layout_model *new_model, const char *old_path, const char *new_path);

/* Pieces the reporters share: one change in words (no newline), and a
 * JSON string literal (names from a corrupt file may hold any byte). */
void au_report_change_text(FILE *out, const struct change *ch);
void au_report_json_string(FILE *out, const char *s);
/* --compat: one cause of a finding in words (no newline), from the facts
 * compat.c recorded (report_compat.c: the one place that words them). */
struct compat_cause;
void au_report_compat_cause_text(FILE *out, const struct compat_cause *x);
/* A constant's value as C would spell it: 16, 4294967295U-style numbers as
 * decimal with their hex, strings as a C literal. */
void au_report_constant_text(FILE *out, const struct layout_constant *k);
/* A constant's value in JSON: "value":N,"unsigned":B or "string":"..." */
void au_report_constant_json(FILE *out, const struct layout_constant *k);

/* show (report_show.c): one type's expanded layout (b NULL), or two side
 * by side with the differing rows marked; a type missing from a side has
 * an empty layout there. JSON: begin, one call per type, end. */
struct show_layout;
void au_report_show_text(FILE *out, const struct show_layout *a, const struct show_layout *b, const char *a_path,
			 const char *b_path);
void au_report_show_json_begin(FILE *out, const char *a_path, const char *b_path);
void au_report_show_json_type(FILE *out, const char *name, const struct show_layout *a, const struct show_layout *b,
			      bool first);
void au_report_show_json_end(FILE *out);
/* dump's "expanded": show's member rows of t (every named member, through
 * named members of anonymous type by dotted path), as a JSON array. */
void au_report_show_expanded_json(FILE *out, const struct layout_type *t);

/* One type's layout as dump's text shows it; malloc'd (caller frees). */
char *au_report_type_text(const struct layout_type *t);

#endif
