/* Text reports. dump mirrors pahole's layout, which kernel developers
 * already read: offset and size as comments, holes and padding called out. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "report.h"
#include "strbuf.h"

static void gap_text(FILE *out, int indent, const char *what, uint64_t bits)
{
	fprintf(out, "%*s/* XXX ", indent, "");
	if (bits % 8 == 0)
		fprintf(out, "%" PRIu64 " byte%s %s */\n", bits / 8, bits == 8 ? "" : "s", what);
	else
		fprintf(out, "%" PRIu64 " bit%s %s */\n", bits, bits == 1 ? "" : "s", what);
}

/* "char name[16]" rather than "char[16] name", as the header spells it. */
static void declarator(struct strbuf *b, const struct layout_member *m, int depth)
{
	const char *t = m->type->name, *dims = strchr(t, '[');
	const char *name = m->name ? m->name : "";
	int w = 26 - 8 * (depth - 1);   /* names line up across nesting levels */
	if (w < 8)
		w = 8;
	if (dims)
		au_strbuf_printf(b, "%-*.*s %s%s", w, (int)(dims - t), t, name, dims);
	else
		au_strbuf_printf(b, "%-*s %s", w, t, name);
	if (m->is_bitfield)
		au_strbuf_printf(b, ":%" PRIu32, m->bit_size);
	au_strbuf_putc(b, ';');
}

static void tabs(FILE *out, int n)
{
	for (int i = 0; i < n; i++)
		fputc('\t', out);
}

static void members_text(FILE *out, const struct layout_type *t, uint64_t base, int depth)
{
	struct layout_gap *gaps;
	uint64_t padding;
	size_t ngaps = au_layout_gaps(t, base, &gaps, &padding);
	size_t g = 0;
	int width = 48 - 8 * (depth - 1);   /* comments line up as pahole's do */
	if (width < 24)
		width = 24;
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct layout_member *m = &t->members[i];
		uint64_t off = base + m->bit_offset;
		for (; g < ngaps && gaps[g].bit_offset < off; g++) {
			tabs(out, depth);
			gap_text(out, 0, "hole, try to pack", gaps[g].bit_size);
		}
		tabs(out, depth);
		if (au_member_anon(m)) {
			fprintf(out, "%s {\n", au_layout_kind_name(au_member_anon(m)->kind));
			members_text(out, au_member_anon(m), off, depth + 1);
			tabs(out, depth);
			fprintf(out, "%-*s /* %5" PRIu64 " %5" PRIu64 " */\n", width, "};", off / 8, au_member_anon(m)->size);
			continue;
		}
		struct strbuf b = STRBUF_INIT;
		declarator(&b, m, depth);
		const char *decl = au_strbuf_str(&b);
		if (m->is_bitfield)
			fprintf(out, "%-*s /* %5" PRIu64 ":%2" PRIu64 " %3" PRIu64 " */\n", width, decl, off / 8, off % 8,
				m->type->size);
		else
			fprintf(out, "%-*s /* %5" PRIu64 " %5" PRIu64 " */\n", width, decl, off / 8, m->type->size);
		au_strbuf_release(&b);
	}
	if (padding && depth > 1) {
		tabs(out, depth);
		gap_text(out, 0, "padding", padding);
	}
	free(gaps);
}

void au_report_constant_text(FILE *out, const struct layout_constant *k)
{
	if (k->is_string) {
		fputc('"', out);
		/* nbytes holds the terminating NUL; an embedded one shows as \0 */
		for (size_t i = 0; i + 1 < k->nbytes || (i < k->nbytes && k->bytes[i]); i++) {
			unsigned char ch = k->bytes[i];
			if (ch == '"' || ch == '\\')
				fprintf(out, "\\%c", ch);
			else if (ch < 0x20 || ch >= 0x7f)
				fprintf(out, "\\%03o", ch);
			else
				fputc(ch, out);
		}
		fputc('"', out);
	} else if (k->is_unsigned || k->value >= 0) {
		uint64_t v = (uint64_t)k->value;
		fprintf(out, v > 9 ? "%" PRIu64 " (%#" PRIx64 ")" : "%" PRIu64, v, v);
	} else {
		fprintf(out, "%" PRId64, k->value);
	}
}

static void type_text(FILE *out, const struct layout_type *t)
{
	if (t->kind == LAYOUT_CONSTANT) {
		fprintf(out, "%s ", t->name);
		au_report_constant_text(out, t->constant);
		if (t->file)
			fprintf(out, " /* %s:%u, %" PRIu64 " bytes%s */", t->file, t->line, t->size,
				au_is_syscall_name(au_constant_macro(t)) ? ", syscall number" : "");
		fputs("\n\n", out);
		return;
	}
	if (t->file)
		fprintf(out, "/* %s:%u */\n", t->file, t->line);
	const char *name = t->name;
	bool typedefd = t->is_typedef;
	if (typedefd)
		fprintf(out, "typedef %s {\n", au_layout_kind_name(t->kind));
	else if (t->anonymous)
		fprintf(out, "enum { /* anonymous */\n");
	else
		fprintf(out, "%s {\n", name);
	if (t->kind == LAYOUT_ENUM) {
		for (size_t i = 0; i < t->nenumerators; i++) {
			const struct layout_enumerator *e = &t->enumerators[i];
			if (e->is_unsigned)
				fprintf(out, "\t%s = %" PRIu64 ",\n", e->name, (uint64_t)e->value);
			else
				fprintf(out, "\t%s = %" PRId64 ",\n", e->name, e->value);
		}
		fprintf(out, "}%s%s; /* size: %" PRIu64 " */\n\n", typedefd ? " " : "", typedefd ? name : "", t->size);
		return;
	}
	members_text(out, t, 0, 1);
	struct layout_gap *gaps;
	uint64_t padding, holes = 0;
	size_t ngaps = au_layout_gaps(t, 0, &gaps, &padding);
	for (size_t i = 0; i < ngaps; i++)
		holes += gaps[i].bit_size;
	free(gaps);
	fprintf(out, "\n\t/* size: %" PRIu64, t->size);
	if (t->align)
		fprintf(out, ", align: %" PRIu64, t->align);
	fprintf(out, ", members: %zu */\n", t->nmembers);
	if (ngaps)
		fprintf(out, "\t/* holes: %zu, sum holes: %" PRIu64 " bits */\n", ngaps, holes);
	if (padding) {
		if (padding % 8 == 0)
			fprintf(out, "\t/* padding: %" PRIu64 " */\n", padding / 8);
		else
			fprintf(out, "\t/* padding: %" PRIu64 " bits */\n", padding);
	}
	fprintf(out, "}%s%s;\n\n", typedefd ? " " : "", typedefd ? name : "");
}

char *au_report_type_text(const struct layout_type *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		au_out_of_memory();
	type_text(f, t);
	if (fclose(f) != 0)
		au_out_of_memory();
	return buf;
}

void au_report_dump_text(FILE *out, const struct layout_model *m)
{
	for (size_t i = 0; i < m->ntypes; i++) {
		type_text(out, m->types[i]);
		/* Every definition of a name that units of the object disagree on. */
		for (const struct layout_type *d = m->types[i]->odr_next; d; d = d->odr_next) {
			fprintf(out, "/* another definition of %s, with another layout (one definition rule) */\n", d->name);
			type_text(out, d);
		}
	}
}

/* "offset 4, size 4", or for bitfields "bit 35 (byte 4 bit 3), 5 bits". */
static void where(char *buf, size_t n, const struct flat_member *fm)
{
	if (fm->member->is_bitfield || fm->bit_offset % 8)
		snprintf(buf, n, "bit %" PRIu64 " (byte %" PRIu64 " bit %" PRIu64 "), %" PRIu64 " bit%s", fm->bit_offset,
			 fm->bit_offset / 8, fm->bit_offset % 8, au_member_bits(fm->member),
			 au_member_bits(fm->member) == 1 ? "" : "s");
	else
		snprintf(buf, n, "offset %" PRIu64 ", size %" PRIu64, fm->bit_offset / 8, fm->member->type->size);
}

static void offset_text(char *buf, size_t n, uint64_t bits, bool bitwise)
{
	if (bitwise)
		snprintf(buf, n, "bit %" PRIu64 " (byte %" PRIu64 " bit %" PRIu64 ")", bits, bits / 8, bits % 8);
	else
		snprintf(buf, n, "%" PRIu64, bits / 8);
}

void au_report_change_text(FILE *out, const struct change *ch)
{
	char a[160], b[160];
	const struct layout_member *om = ch->old_member.member, *nm = ch->new_member.member;
	switch (ch->kind) {
	case CHANGE_KIND:
		fprintf(out, "kind: %s -> %s", au_layout_kind_name(ch->old_value), au_layout_kind_name(ch->new_value));
		break;
	case CHANGE_SIZE:
		fprintf(out, "size: %" PRIu64 " -> %" PRIu64 " bytes", ch->old_value, ch->new_value);
		break;
	case CHANGE_ALIGNMENT:
		fprintf(out, "alignment: %" PRIu64 " -> %" PRIu64 " bytes", ch->old_value, ch->new_value);
		break;
	case CHANGE_MEMBER: {
		bool bitwise = om->is_bitfield || nm->is_bitfield || ch->old_member.bit_offset % 8 ||
			       ch->new_member.bit_offset % 8;
		const char *sep = "";
		fprintf(out, "member %s:", ch->old_member.name);
		if (ch->what & DIFF_OFFSET) {
			offset_text(a, sizeof(a), ch->old_member.bit_offset, bitwise);
			offset_text(b, sizeof(b), ch->new_member.bit_offset, bitwise);
			fprintf(out, " %s %s -> %s", bitwise ? "moved from" : "offset", a, b);
			sep = ";";
		}
		if (ch->what & DIFF_BIT_SIZE) {
			fprintf(out, "%s bit size %" PRIu64 " -> %" PRIu64, sep, au_member_bits(om), au_member_bits(nm));
			if (!(ch->what & DIFF_OFFSET)) {
				offset_text(a, sizeof(a), ch->new_member.bit_offset, true);
				fprintf(out, " at %s", a);
			}
			sep = ";";
		}
		if ((ch->what & DIFF_SIZE) && !(om->is_bitfield && nm->is_bitfield)) {
			fprintf(out, "%s size %" PRIu64 " -> %" PRIu64 " bytes%s", sep, om->type->size, nm->type->size,
				om->flexible != nm->flexible ? " (flexible array)" : "");
			sep = ";";
		}
		if (ch->what & DIFF_TYPE)
			fprintf(out, "%s type %s -> %s", sep, om->type->name, nm->type->name);
		break;
	}
	case CHANGE_MEMBER_REMOVED:
		where(a, sizeof(a), &ch->old_member);
		fprintf(out, "member %s removed (was %s, %s)", ch->old_member.name, om->type->name, a);
		break;
	case CHANGE_MEMBER_ADDED:
		where(b, sizeof(b), &ch->new_member);
		if (ch->other)
			fprintf(out, "member %s added, overlapping %s with another size or type, so no alias (%s, %s)",
				ch->new_member.name, ch->other, nm->type->name, b);
		else
			fprintf(out, "member %s added (%s, %s)", ch->new_member.name, nm->type->name, b);
		break;
	case CHANGE_ALIAS_ADDED:
		where(b, sizeof(b), &ch->new_member);
		fprintf(out, "alias %s added for %s (%s, %s)", ch->new_member.name, ch->other, nm->type->name, b);
		break;
	case CHANGE_ALIAS_REMOVED:
		where(a, sizeof(a), &ch->old_member);
		fprintf(out, "alias %s of %s removed (%s, %s)", ch->old_member.name, ch->other, om->type->name, a);
		break;
	case CHANGE_RENAMED:
		where(a, sizeof(a), &ch->old_member);
		fprintf(out, "member %s renamed to %s (%s, %s)", ch->old_member.name, ch->new_member.name, om->type->name, a);
		break;
	case CHANGE_ENUMERATOR_VALUE:
		fprintf(out, "enumerator %s: %" PRId64 " -> %" PRId64 "", ch->old_enum->name, ch->old_enum->value,
			ch->new_enum->value);
		break;
	case CHANGE_ENUMERATOR_REMOVED:
		if (ch->other)
			fprintf(out, "enumerator %s (%" PRId64 ") is now %s, with the same value", ch->old_enum->name,
				ch->old_enum->value, ch->other);
		else
			fprintf(out, "enumerator %s removed (was %" PRId64 ")", ch->old_enum->name, ch->old_enum->value);
		break;
	case CHANGE_ENUMERATOR_ADDED:
		fprintf(out, "enumerator %s added (%" PRId64 ")", ch->new_enum->name, ch->new_enum->value);
		break;
	case CHANGE_EMBEDDED:
		fprintf(out, "member %s: its type %s changed layout", ch->old_member.name, ch->other);
		break;
	case CHANGE_ODR_CONFLICT:
		fprintf(out, "defined with %" PRIu64 " different layouts in NEW (one definition rule; OLD: %" PRIu64 ")",
			ch->new_value, ch->old_value);
		break;
	case CHANGE_CONSTANT_VALUE:
		fputs("value ", out);
		au_report_constant_text(out, ch->old_constant);
		fputs(" -> ", out);
		au_report_constant_text(out, ch->new_constant);
		break;
	case CHANGE_CONSTANT_MOVED:
		fprintf(out, "now enumerator %s of %s, with the same value %" PRId64, ch->new_enum->name, ch->other,
			ch->new_enum->value);
		break;
	}
}

static void reasons_text(FILE *out, reason_set r)
{
	const char *sep = "";
	for (int i = 0; i < REASON_COUNT; i++)
		if (r >> i & 1) {
			fprintf(out, "%s%s", sep, au_conventions[i].name);
			sep = ", ";
		}
}

/* --compat: a finding's causes, each "cause: NAME: detail"; a cause that
 * is a change of its own is worded as the change. */
static void causes_text(FILE *out, const struct type_finding *f)
{
	for (size_t i = 0; i < f->ncauses; i++) {
		const struct compat_cause *x = &f->causes[i];
		fprintf(out, "  cause: %s: ", au_compat_cause_name(x->cause));
		au_report_compat_cause_text(out, x);
		fputc('\n', out);
	}
}

static void compat_summary_text(FILE *out, const struct comparison *c)
{
	const struct compat_summary *s = c->compat;
	fprintf(out, "compat: OLD %u-bit, NEW %u-bit; findings by cause:", s->old_bits, s->new_bits);
	for (int i = 0; i < COMPAT_CAUSE_COUNT; i++)
		fprintf(out, "%s %s %zu", i ? "," : "", au_compat_cause_name(i), s->counts[i]);
	fputc('\n', out);
}

void au_report_diff_text(FILE *out, const struct comparison *c, const char *old_path, const char *new_path)
{
	fprintf(out, "abidiff-uapi: %s -> %s\n", old_path, new_path);
	for (size_t i = 0; i < c->nfindings; i++) {
		const struct type_finding *f = c->findings[i];
		const struct layout_type *t = f->new_type ? f->new_type : f->old_type;
		fprintf(out, "\n%s: %s", f->name, au_finding_status_name(f->status));
		if (t->file)
			fprintf(out, " (%s:%u)", t->file, t->line);
		if (t->kind == LAYOUT_CONSTANT) {
			if (au_is_syscall_name(au_constant_macro(t)))
				fputs(", syscall number", out);
			if (!f->new_type || !f->old_type) {
				fputs(", value ", out);
				au_report_constant_text(out, t->constant);
			}
		} else if (f->old_type && f->new_type && f->old_type->size == f->new_type->size)
			fprintf(out, ", size %" PRIu64, f->new_type->size);
		else if (f->old_type && !f->new_type)
			fprintf(out, ", was size %" PRIu64, f->old_type->size);
		else if (f->new_type && !f->old_type)
			fprintf(out, ", size %" PRIu64, f->new_type->size);
		fputc('\n', out);
		fprintf(out, "  severity: %s (", au_severity_name(f->severity));
		reasons_text(out, f->reasons);
		fputs(")\n", out);
		for (size_t j = 0; j < f->nchanges; j++) {
			const struct change *ch = &f->changes[j];
			fprintf(out, "  %-6s ", au_severity_name(ch->severity));
			au_report_change_text(out, ch);
			fputs(" [", out);
			reasons_text(out, ch->reasons);
			fputs("]\n", out);
		}
		if (c->compat)
			causes_text(out, f);
	}
	size_t compared = c->counts[STATUS_UNCHANGED] + c->counts[STATUS_ALIASED] + c->counts[STATUS_EXTENDED] +
			  c->counts[STATUS_RENAMED] + c->counts[STATUS_CHANGED];
	fprintf(out, "\nsummary: %zu old types, %zu new types, %zu compared: %zu unchanged, %zu changed, %zu removed, "
		     "%zu added, %zu aliased, %zu renamed, %zu extended\n",
		c->old_types, c->new_types, compared, c->counts[STATUS_UNCHANGED], c->counts[STATUS_CHANGED],
		c->counts[STATUS_REMOVED], c->counts[STATUS_ADDED], c->counts[STATUS_ALIASED],
		c->counts[STATUS_RENAMED], c->counts[STATUS_EXTENDED]);
	fprintf(out, "severities: %zu break, %zu review, %zu safe%s\n", c->severities[SEVERITY_BREAK],
		c->severities[SEVERITY_REVIEW], c->severities[SEVERITY_SAFE], c->strict ? " (strict)" : "");
	if (c->compat)
		compat_summary_text(out, c);
	fprintf(out, "verdict: %s (fails on %s)\n", c->incompatible ? "incompatible" : "compatible",
		au_severity_name(c->fail_on));
}
