/* Reports for CI dashboards: SARIF 2.1.0 (GitHub code scanning and other
 * static-analysis viewers) and JUnit XML (GitLab, Jenkins, most CI servers).
 * They say what the comparer decided, in those formats' words: a finding's
 * severity becomes a SARIF level, and a JUnit failure when it fails the
 * verdict. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "report.h"

#ifndef AU_VERSION
#define AU_VERSION "0.0.0"
#endif

static const char *sarif_level(enum severity s)
{
	return s == SEVERITY_BREAK ? "error" : s == SEVERITY_REVIEW ? "warning" : "note";
}

/* The reason a finding is filed under: its most severe one, the first in
 * the table's order among equals. */
static enum reason main_reason(const struct type_finding *f)
{
	enum reason best = REASON_COUNT;
	for (int i = 0; i < REASON_COUNT; i++)
		if ((f->reasons >> i & 1) &&
		    (best == REASON_COUNT || au_conventions[i].severity > au_conventions[best].severity))
			best = (enum reason)i;
	return best == REASON_COUNT ? REASON_ADDED : best;
}

/* What a finding says, in a few lines: its changes, each with its severity. */
static char *finding_text(const struct type_finding *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		au_out_of_memory();
	const struct layout_type *t = f->new_type ? f->new_type : f->old_type;
	bool constant = t->kind == LAYOUT_CONSTANT;
	fprintf(m, "%s%s: %s, %s", f->name, constant && au_is_syscall_name(au_constant_macro(t)) ? " (syscall number)" : "",
		au_finding_status_name(f->status), au_severity_name(f->severity));
	if (constant && (!f->old_type || !f->new_type)) {
		fputs(", value ", m);
		au_report_constant_text(m, t->constant);
	} else if (f->old_type && f->new_type && f->old_type->size != f->new_type->size)
		fprintf(m, ", size %llu -> %llu", (unsigned long long)f->old_type->size,
			(unsigned long long)f->new_type->size);
	for (size_t i = 0; i < f->nchanges; i++) {
		fprintf(m, "\n%s: ", au_severity_name(f->changes[i].severity));
		au_report_change_text(m, &f->changes[i]);
	}
	if (fclose(m) != 0)
		au_out_of_memory();
	return buf;
}

static const struct layout_type *located(const struct type_finding *f)
{
	return f->new_type ? f->new_type : f->old_type;
}

void au_report_diff_sarif(FILE *out, const struct comparison *c, const char *old_path, const char *new_path)
{
	fputs("{\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{\"name\":\"abidiff-uapi\",\"version\":\"" AU_VERSION
	      "\",\"rules\":[",
	      out);
	for (int i = 0; i < REASON_COUNT; i++) {
		fprintf(out, "%s{\"id\":\"%s\",\"shortDescription\":{\"text\":", i ? "," : "", au_conventions[i].name);
		au_report_json_string(out, au_conventions[i].meaning);
		fprintf(out, "},\"defaultConfiguration\":{\"level\":\"%s\"},\"properties\":{\"severity\":\"%s\"}}",
			sarif_level(au_conventions[i].severity), au_severity_name(au_conventions[i].severity));
	}
	fputs("]}},\"invocations\":[{\"executionSuccessful\":true,\"arguments\":[\"diff\",", out);
	au_report_json_string(out, old_path);
	fputc(',', out);
	au_report_json_string(out, new_path);
	fprintf(out, "]}],\"properties\":{\"verdict\":\"%s\",\"fail_on\":\"%s\",\"strict\":%s},\"results\":[",
		c->incompatible ? "incompatible" : "compatible", au_severity_name(c->fail_on), c->strict ? "true" : "false");
	for (size_t i = 0; i < c->nfindings; i++) {
		const struct type_finding *f = c->findings[i];
		const struct layout_type *t = located(f);
		enum reason r = main_reason(f);
		char *text = finding_text(f);
		fprintf(out, "%s\n{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"%s\",\"message\":{\"text\":", i ? "," : "",
			au_conventions[r].name, (int)r, sarif_level(f->severity));
		au_report_json_string(out, text);
		free(text);
		fputs("},\"locations\":[{", out);
		if (t->file) {
			fputs("\"physicalLocation\":{\"artifactLocation\":{\"uri\":", out);
			au_report_json_string(out, t->file);
			fputc('}', out);
			if (t->line)
				fprintf(out, ",\"region\":{\"startLine\":%u}", t->line);
			fputs("},", out);
		}
		fputs("\"logicalLocations\":[{\"fullyQualifiedName\":", out);
		au_report_json_string(out, f->name);
		fputs(",\"kind\":\"type\"}]}],\"partialFingerprints\":{\"abidiffUapiType/v1\":", out);
		au_report_json_string(out, f->name);
		fprintf(out, "},\"properties\":{\"severity\":\"%s\",\"status\":\"%s\",\"reasons\":[", au_severity_name(f->severity),
			au_finding_status_name(f->status));
		for (int k = 0, n = 0; k < REASON_COUNT; k++)
			if (f->reasons >> k & 1)
				fprintf(out, "%s\"%s\"", n++ ? "," : "", au_conventions[k].name);
		fputs("]}}", out);
	}
	fputs("\n]}]}\n", out);
}

static void xml_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\n': case '\t': fputc(*p, out); break;
		default:
			/* XML 1.0 allows no control characters; names from a
			 * corrupt file may hold any byte. */
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "?");
			else
				fputc(*p, out);
		}
	}
}

static const struct type_finding *finding_of(const struct comparison *c, const char *name)
{
	size_t lo = 0, hi = c->nfindings;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int k = strcmp(c->findings[mid]->name, name);
		if (k == 0)
			return c->findings[mid];
		if (k < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void testcase(FILE *out, const struct comparison *c, const char *name, const struct layout_type *t,
		     const struct type_finding *f)
{
	fputs("  <testcase classname=\"", out);
	xml_text(out, t->file ? t->file : "(unknown file)");
	fputs("\" name=\"", out);
	xml_text(out, name);
	fputs("\"", out);
	if (!f) {
		fputs("/>\n", out);
		return;
	}
	fputs(">\n", out);
	char *text = finding_text(f);
	if (f->severity >= c->fail_on) {
		fputs("    <failure message=\"", out);
		xml_text(out, au_severity_name(f->severity));
		fputs(": ", out);
		xml_text(out, au_conventions[main_reason(f)].name);
		fprintf(out, "\" type=\"%s\">", au_severity_name(f->severity));
		xml_text(out, text);
		fputs("</failure>\n", out);
	} else {
		fputs("    <system-out>", out);
		xml_text(out, text);
		fputs("</system-out>\n", out);
	}
	fputs("  </testcase>\n", out);
	free(text);
}

/* Compared: on both sides, or only on one with a finding (added, removed,
 * an anonymous enum paired by its constants). --common-only leaves the
 * one-sided ones out. */
static bool compared(const struct comparison *c, const struct layout_type *t, const struct layout_model *other)
{
	return au_layout_model_find(other, t->name) || finding_of(c, t->name) || (t->anonymous && !c->common_only);
}

void au_report_diff_junit(FILE *out, const struct comparison *c, const struct layout_model *old_model,
		       const struct layout_model *new_model, const char *old_path, const char *new_path)
{
	size_t tests = 0, failures = 0;
	for (size_t i = 0; i < old_model->ntypes; i++)
		tests += compared(c, old_model->types[i], new_model);
	for (size_t i = 0; i < new_model->ntypes; i++)
		tests += !au_layout_model_find(old_model, new_model->types[i]->name) && finding_of(c, new_model->types[i]->name);
	for (size_t i = 0; i < c->nfindings; i++)
		failures += c->findings[i]->severity >= c->fail_on;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"abidiff-uapi diff ", out);
	xml_text(out, old_path);
	fputs(" ", out);
	xml_text(out, new_path);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", tests, failures);
	for (size_t i = 0; i < old_model->ntypes; i++) {
		const struct layout_type *t = old_model->types[i];
		const struct layout_type *n = au_layout_model_find(new_model, t->name);
		if (compared(c, t, new_model))
			testcase(out, c, t->name, n ? n : t, finding_of(c, t->name));
	}
	for (size_t i = 0; i < new_model->ntypes; i++) {
		const struct layout_type *t = new_model->types[i];
		if (!au_layout_model_find(old_model, t->name) && finding_of(c, t->name))
			testcase(out, c, t->name, t, finding_of(c, t->name));
	}
	fputs("</testsuite>\n</testsuites>\n", out);
}
