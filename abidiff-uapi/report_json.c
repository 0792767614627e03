/* JSON reports. The schema is documented in docs/json.md and schema/; keep them in step. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "report.h"

#ifndef AU_VERSION
#define AU_VERSION "0.0.0"
#endif

void au_report_json_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "\\u%04x", *p); /* names from a corrupt file may be any bytes */
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

static void member_json(FILE *out, const struct layout_member *m, const char *name, uint64_t bit_offset)
{
	fputs("{\"name\":", out);
	au_report_json_string(out, name);
	fprintf(out, ",\"offset\":%" PRIu64 ",\"bit_offset\":%" PRIu64 ",\"size\":%" PRIu64, bit_offset / 8,
		bit_offset, m->type->size);
	if (m->is_bitfield)
		fprintf(out, ",\"bit_size\":%" PRIu32, m->bit_size);
	if (m->flexible)
		fputs(",\"flexible\":true", out);
	fputs(",\"type\":", out);
	au_report_json_string(out, m->type->name);
	fputs(",\"key\":", out);
	au_report_json_string(out, m->type->key);
}

static void members_json(FILE *out, const struct layout_type *t, uint64_t base)
{
	fputc('[', out);
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct layout_member *m = &t->members[i];
		if (i)
			fputc(',', out);
		member_json(out, m, m->name, base + m->bit_offset);
		if (au_member_anon(m)) {
			fputs(",\"kind\":", out);
			au_report_json_string(out, au_layout_kind_name(au_member_anon(m)->kind));
			fputs(",\"members\":", out);
			members_json(out, au_member_anon(m), base + m->bit_offset);
		}
		fputc('}', out);
	}
	fputc(']', out);
}

void au_report_constant_json(FILE *out, const struct layout_constant *k)
{
	if (k->is_string) {
		/* JSON strings cannot hold every byte losslessly in this
		 * escaper: the bytes also go as hex. */
		char *s = au_xmalloc(k->nbytes + 1);
		memcpy(s, k->bytes, k->nbytes);
		s[k->nbytes] = 0;
		fputs("\"string\":", out);
		au_report_json_string(out, s);
		free(s);
		fputs(",\"bytes\":\"", out);
		for (size_t i = 0; i < k->nbytes; i++)
			fprintf(out, "%02x", k->bytes[i]);
		fputc('"', out);
	} else if (k->is_unsigned) {
		fprintf(out, "\"value\":%" PRIu64 ",\"unsigned\":true", (uint64_t)k->value);
	} else {
		fprintf(out, "\"value\":%" PRId64 ",\"unsigned\":false", k->value);
	}
}

static void type_json(FILE *out, const struct layout_type *t)
{
	fputs("{\"name\":", out);
	au_report_json_string(out, t->name);
	fputs(",\"kind\":", out);
	au_report_json_string(out, au_layout_kind_name(t->kind));
	if (t->anonymous)
		fputs(",\"anonymous\":true", out);
	if (t->scope) {
		fputs(",\"scope\":", out);
		au_report_json_string(out, t->scope);
	}
	fputs(",\"file\":", out);
	au_report_json_string(out, t->file);
	fprintf(out, ",\"line\":%u,\"size\":%" PRIu64, t->line, t->size);
	if (t->kind == LAYOUT_CONSTANT) {
		fputc(',', out);
		au_report_constant_json(out, t->constant);
		if (au_is_syscall_name(au_constant_macro(t)))
			fputs(",\"syscall\":true", out);
		fputc('}', out);
		return;
	}
	if (t->align)
		fprintf(out, ",\"align\":%" PRIu64, t->align);
	if (t->kind == LAYOUT_ENUM) {
		fputs(",\"enumerators\":[", out);
		for (size_t i = 0; i < t->nenumerators; i++) {
			const struct layout_enumerator *e = &t->enumerators[i];
			fprintf(out, "%s{\"name\":", i ? "," : "");
			au_report_json_string(out, e->name);
			if (e->is_unsigned)
				fprintf(out, ",\"value\":%" PRIu64 "}", (uint64_t)e->value);
			else
				fprintf(out, ",\"value\":%" PRId64 "}", e->value);
		}
		fputs("]}", out);
		return;
	}
	fputs(",\"members\":", out);
	members_json(out, t, 0);
	struct layout_gap *gaps;
	uint64_t padding;
	size_t n = au_layout_gaps(t, 0, &gaps, &padding);
	fputs(",\"holes\":[", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s{\"bit_offset\":%" PRIu64 ",\"bit_size\":%" PRIu64 "}", i ? "," : "",
			gaps[i].bit_offset, gaps[i].bit_size);
	free(gaps);
	fprintf(out, "],\"padding_bits\":%" PRIu64, padding);
	fputs(",\"expanded\":", out);
	au_report_show_expanded_json(out, t);
	fputc('}', out);
}

void au_report_dump_json(FILE *out, const struct layout_model *m)
{
	fputs("{\"tool\":\"abidiff-uapi\",\"version\":\"" AU_VERSION "\",\"file\":", out);
	au_report_json_string(out, m->path);
	fputs(",\"types\":[", out);
	for (size_t i = 0; i < m->ntypes; i++) {
		/* Every definition of a name, also those units disagree on (ODR). */
		for (const struct layout_type *d = m->types[i]; d; d = d->odr_next) {
			fputs(i || d != m->types[i] ? ",\n" : "\n", out);
			type_json(out, d);
		}
	}
	fputs("\n]}\n", out);
}

static void flat_json(FILE *out, const struct flat_member *fm)
{
	member_json(out, fm->member, fm->name, fm->bit_offset);
	fputc('}', out);
}

static void reasons_json(FILE *out, reason_set r)
{
	fputc('[', out);
	int k = 0;
	for (int i = 0; i < REASON_COUNT; i++)
		if (r >> i & 1)
			fprintf(out, "%s\"%s\"", k++ ? "," : "", au_conventions[i].name);
	fputc(']', out);
}

/* A type's layout in the pahole look, one string per line, for showing
 * OLD and NEW side by side. */
static void layout_lines_json(FILE *out, const char *key, const struct layout_type *t)
{
	char *text = au_report_type_text(t);
	fprintf(out, ",\"%s\":[", key);
	int k = 0;
	for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!*line && !nl)
			break;
		fputs(k++ ? "," : "", out);
		au_report_json_string(out, line);
		if (!nl)
			break;
	}
	fputc(']', out);
	free(text);
}

/* Words that a text reporter writes to a stream, kept to be written as one
 * JSON string: words_begin gives the stream, words_json writes the string. */
struct words {
	char *text;
	size_t n;
	FILE *f;
};

static FILE *words_begin(struct words *w)
{
	w->text = NULL;
	w->n = 0;
	w->f = open_memstream(&w->text, &w->n);
	if (!w->f)
		au_out_of_memory();
	return w->f;
}

static void words_json(FILE *out, struct words *w)
{
	if (fclose(w->f) != 0)
		au_out_of_memory();
	au_report_json_string(out, w->text);
	free(w->text);
}

/* A change in the words of the text report, as a JSON string. */
static void change_text_json(FILE *out, const struct change *ch)
{
	struct words w;
	au_report_change_text(words_begin(&w), ch);
	words_json(out, &w);
}

/* --compat: a cause in words, as a JSON string. */
static void compat_cause_json(FILE *out, const struct compat_cause *x)
{
	struct words w;
	au_report_compat_cause_text(words_begin(&w), x);
	words_json(out, &w);
}

/* --compat: the top-level fields. */
static void compat_summary_json(FILE *out, const struct comparison *c)
{
	const struct compat_summary *s = c->compat;
	fprintf(out, ",\"compat\":true,\"abi_bits\":{\"old\":%u,\"new\":%u},\"causes\":{", s->old_bits, s->new_bits);
	for (int i = 0; i < COMPAT_CAUSE_COUNT; i++)
		fprintf(out, "%s\"%s\":%zu", i ? "," : "", au_compat_cause_name(i), s->counts[i]);
	fputc('}', out);
}

/* --compat: one finding's causes; a cause that is a change of its own is
 * worded as the change. */
static void causes_json(FILE *out, const struct type_finding *f)
{
	fputs(",\"causes\":[", out);
	for (size_t i = 0; i < f->ncauses; i++) {
		const struct compat_cause *x = &f->causes[i];
		fprintf(out, "%s{\"cause\":\"%s\"", i ? "," : "", au_compat_cause_name(x->cause));
		if (x->member) {
			fputs(",\"member\":", out);
			au_report_json_string(out, x->member);
		}
		if (x->type) {
			fputs(",\"type\":", out);
			au_report_json_string(out, x->type);
		}
		fputs(",\"detail\":", out);
		compat_cause_json(out, x);
		fputc('}', out);
	}
	fputc(']', out);
}

static void change_json(FILE *out, const struct change *ch)
{
	static const char *const kinds[] = {
		[CHANGE_KIND] = "kind",
		[CHANGE_SIZE] = "size",
		[CHANGE_ALIGNMENT] = "alignment",
		[CHANGE_MEMBER] = "member",
		[CHANGE_MEMBER_REMOVED] = "member_removed",
		[CHANGE_MEMBER_ADDED] = "member_added",
		[CHANGE_ALIAS_ADDED] = "alias_added",
		[CHANGE_ALIAS_REMOVED] = "alias_removed",
		[CHANGE_RENAMED] = "renamed",
		[CHANGE_ENUMERATOR_VALUE] = "enumerator_value",
		[CHANGE_ENUMERATOR_REMOVED] = "enumerator_removed",
		[CHANGE_ENUMERATOR_ADDED] = "enumerator_added",
		[CHANGE_EMBEDDED] = "embedded",
		[CHANGE_ODR_CONFLICT] = "odr_conflict",
		[CHANGE_CONSTANT_VALUE] = "constant_value",
		[CHANGE_CONSTANT_MOVED] = "constant_moved",
	};
	fprintf(out, "{\"change\":\"%s\",\"breaking\":%s,\"severity\":\"%s\",\"reasons\":", kinds[ch->kind],
		ch->severity == SEVERITY_BREAK ? "true" : "false", au_severity_name(ch->severity));
	reasons_json(out, ch->reasons);
	switch (ch->kind) {
	case CHANGE_KIND:
		fprintf(out, ",\"old\":\"%s\",\"new\":\"%s\"", au_layout_kind_name(ch->old_value),
			au_layout_kind_name(ch->new_value));
		break;
	case CHANGE_SIZE:
	case CHANGE_ALIGNMENT:
	case CHANGE_ODR_CONFLICT:   /* old, new: how many different layouts each side defines */
		fprintf(out, ",\"old\":%" PRIu64 ",\"new\":%" PRIu64, ch->old_value, ch->new_value);
		break;
	case CHANGE_CONSTANT_VALUE:
		fputs(",\"old\":{", out);
		au_report_constant_json(out, ch->old_constant);
		fputs("},\"new\":{", out);
		au_report_constant_json(out, ch->new_constant);
		fputc('}', out);
		break;
	case CHANGE_CONSTANT_MOVED:
		fputs(",\"enumerator\":", out);
		au_report_json_string(out, ch->new_enum->name);
		fputs(",\"now_in\":", out);
		au_report_json_string(out, ch->other);
		fprintf(out, ",\"old\":%" PRId64 ",\"new\":%" PRId64, ch->old_constant->value, ch->new_enum->value);
		break;
	case CHANGE_ENUMERATOR_VALUE:
	case CHANGE_ENUMERATOR_REMOVED:
	case CHANGE_ENUMERATOR_ADDED: {
		const struct layout_enumerator *e = ch->old_enum ? ch->old_enum : ch->new_enum;
		fputs(",\"enumerator\":", out);
		au_report_json_string(out, e->name);
		if (ch->old_enum)
			fprintf(out, ",\"old\":%" PRId64, ch->old_enum->value);
		if (ch->new_enum)
			fprintf(out, ",\"new\":%" PRId64, ch->new_enum->value);
		if (ch->other) {
			fputs(",\"now_in\":", out);
			au_report_json_string(out, ch->other);
		}
		break;
	}
	default: {
		const char *name = ch->old_member.member ? ch->old_member.name : ch->new_member.name;
		fputs(",\"member\":", out);
		au_report_json_string(out, name);
		if (ch->kind == CHANGE_MEMBER) {
			static const char *const what[] = { "offset", "bit_size", "size", "type" };
			fputs(",\"what\":[", out);
			int k = 0;
			for (int i = 0; i < 4; i++)
				if (ch->what & (1u << i))
					fprintf(out, "%s\"%s\"", k++ ? "," : "", what[i]);
			fputc(']', out);
		}
		if (ch->other) {
			fputs(ch->kind == CHANGE_EMBEDDED ? ",\"type\":"
			      : ch->kind == CHANGE_MEMBER_ADDED ? ",\"overlaps\":" : ",\"alias_of\":", out);
			au_report_json_string(out, ch->other);
		}
		if (ch->old_member.member) {
			fputs(",\"old\":", out);
			flat_json(out, &ch->old_member);
		}
		if (ch->new_member.member) {
			fputs(",\"new\":", out);
			flat_json(out, &ch->new_member);
		}
	}
	}
	/* Last, so that readers of older reports find every other field where
	 * it was: the change as the text report words it. */
	fputs(",\"text\":", out);
	change_text_json(out, ch);
	fputc('}', out);
}

void au_report_diff_json(FILE *out, const struct comparison *c, const char *old_path, const char *new_path)
{
	fputs("{\"tool\":\"abidiff-uapi\",\"version\":\"" AU_VERSION "\",\"old\":", out);
	au_report_json_string(out, old_path);
	fputs(",\"new\":", out);
	au_report_json_string(out, new_path);
	fprintf(out, ",\"verdict\":\"%s\",\"fail_on\":\"%s\",\"strict\":%s",
		c->incompatible ? "incompatible" : "compatible", au_severity_name(c->fail_on),
		c->strict ? "true" : "false");
	if (c->compat)
		compat_summary_json(out, c);
	fprintf(out, ",\"counts\":{\"old_types\":%zu,\"new_types\":%zu", c->old_types, c->new_types);
	for (int s = 0; s < STATUS_COUNT; s++)
		fprintf(out, ",\"%s\":%zu", au_finding_status_name(s), c->counts[s]);
	fputs("},\"severities\":{", out);
	for (int s = SEVERITY_SAFE, k = 0; s < SEVERITY_COUNT; s++)
		fprintf(out, "%s\"%s\":%zu", k++ ? "," : "", au_severity_name(s), c->severities[s]);
	fputs("},\"reasons\":{", out);
	for (int r = 0, k = 0; r < REASON_COUNT; r++)
		if (c->reasons[r])
			fprintf(out, "%s\"%s\":%zu", k++ ? "," : "", au_conventions[r].name, c->reasons[r]);
	fputs("},\"types\":[", out);
	for (size_t i = 0; i < c->nfindings; i++) {
		const struct type_finding *f = c->findings[i];
		const struct layout_type *t = f->new_type ? f->new_type : f->old_type;
		fputs(i ? ",\n" : "\n", out);
		fputs("{\"name\":", out);
		au_report_json_string(out, f->name);
		fprintf(out, ",\"kind\":\"%s\",\"status\":\"%s\",\"severity\":\"%s\",\"reasons\":",
			au_layout_kind_name(t->kind), au_finding_status_name(f->status), au_severity_name(f->severity));
		reasons_json(out, f->reasons);
		if (t->anonymous)
			fputs(",\"anonymous\":true", out);
		if (t->kind == LAYOUT_CONSTANT && au_is_syscall_name(au_constant_macro(t)))
			fputs(",\"syscall\":true", out);
		if (t->kind == LAYOUT_CONSTANT && (!f->old_type || !f->new_type)) {
			fputs(",\"constant\":{", out);
			au_report_constant_json(out, t->constant);
			fputc('}', out);
		}
		fputs(",\"file\":", out);
		au_report_json_string(out, t->file);
		fprintf(out, ",\"line\":%u", t->line);
		if (f->old_type)
			fprintf(out, ",\"old_size\":%" PRIu64, f->old_type->size);
		if (f->new_type)
			fprintf(out, ",\"new_size\":%" PRIu64, f->new_type->size);
		if (f->old_type && f->new_type && f->severity >= SEVERITY_REVIEW) {
			layout_lines_json(out, "old_layout", f->old_type);
			layout_lines_json(out, "new_layout", f->new_type);
		}
		if (c->compat)
			causes_json(out, f);
		fputs(",\"changes\":[", out);
		for (size_t j = 0; j < f->nchanges; j++) {
			if (j)
				fputc(',', out);
			change_json(out, &f->changes[j]);
		}
		fputs("]}", out);
	}
	fputs("\n]}\n", out);
}
