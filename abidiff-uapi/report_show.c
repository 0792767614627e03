/* show's reports: one type's expanded layout in pahole's look, or two side
 * by side with the rows that differ marked as diff -y marks them
 * ('|' differs, '<' only on the left, '>' only on the right); and the
 * same as JSON. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "show.h"
#include "strbuf.h"

#ifndef AU_VERSION
#define AU_VERSION "0.0.0"
#endif

enum { INDENT = 4 };

static void gap_words(struct strbuf *b, uint64_t bits, const char *what)
{
	if (bits % 8 == 0)
		au_strbuf_printf(b, "/* XXX %" PRIu64 " byte%s %s */", bits / 8, bits == 8 ? "" : "s", what);
	else
		au_strbuf_printf(b, "/* XXX %" PRIu64 " bit%s %s */", bits, bits == 1 ? "" : "s", what);
}

/* "char io.data[8]", as the header spells the declarator, the type part
 * padded so that names line up across nesting levels. */
static void member_decl(struct strbuf *b, const struct show_row *r)
{
	const struct layout_member *m = r->member;
	const char *t = m->type->name, *dims = strchr(t, '[');
	int w = 24 - INDENT * ((int)r->depth - 1);
	if (w < 8)
		w = 8;
	au_strbuf_printf(b, "%-*.*s %s%s", w, dims ? (int)(dims - t) : (int)strlen(t), t, r->path ? r->path : "",
			 dims ? dims : "");
	if (m->is_bitfield)
		au_strbuf_printf(b, ":%" PRIu32, m->bit_size);
	au_strbuf_putc(b, ';');
}

/* The row's declaration part (indented) into b, its offset comment into c
 * (empty for rows with none). */
static void row_text(struct strbuf *b, struct strbuf *c, const struct show_row *r)
{
	au_strbuf_printf(b, "%*s", (int)(INDENT * r->depth), "");
	switch (r->kind) {
	case SHOW_MEMBER:
		member_decl(b, r);
		if (r->member->is_bitfield)
			au_strbuf_printf(c, "/* %5" PRIu64 ":%2" PRIu64 " %3" PRIu64 " */", r->bit_offset / 8,
					 r->bit_offset % 8, au_member_size(r->member));
		else
			au_strbuf_printf(c, "/* %5" PRIu64 " %5" PRIu64 " */", r->bit_offset / 8,
					 au_member_size(r->member));
		break;
	case SHOW_OPEN:
		au_strbuf_printf(b, "%s {", au_layout_kind_name(r->aggregate->kind));
		au_strbuf_printf(c, "/* %5" PRIu64 " %5" PRIu64 " */", r->bit_offset / 8, r->aggregate->size);
		break;
	case SHOW_CLOSE:
		au_strbuf_puts(b, "};");
		break;
	case SHOW_HOLE:
		gap_words(b, r->bit_size, "hole, try to pack");
		break;
	case SHOW_PADDING:
		gap_words(b, r->bit_size, "padding");
		break;
	case SHOW_ENUMERATOR:
		if (r->enumerator->is_unsigned)
			au_strbuf_printf(b, "%s = %" PRIu64 ",", r->enumerator->name, (uint64_t)r->enumerator->value);
		else
			au_strbuf_printf(b, "%s = %" PRId64 ",", r->enumerator->name, r->enumerator->value);
		break;
	}
}

/* One side's lines: the head (file, opening), one per row, the foot
 * (summary lines keyed so that two sides pair, the closing line). */
enum { FOOT_SIZE, FOOT_HOLES, FOOT_PADDING, FOOT_CLOSE, FOOT_COUNT };

struct side {
	const char *head[2];
	const char **rows;
	const char *foot[FOOT_COUNT];   /* NULL: no such line */
	size_t width;
};

static void close_lines(struct side *s, const struct show_layout *l, struct arena *a)
{
	const struct layout_type *t = l->type;
	const char *tail = t->is_typedef ? t->name : "";
	if (t->kind == LAYOUT_ENUM) {
		s->foot[FOOT_CLOSE] = au_arena_printf(a, "}%s%s; /* size: %" PRIu64 " */", *tail ? " " : "", tail, t->size);
		return;
	}
	size_t members = t->nmembers;
	s->foot[FOOT_SIZE] = t->align ? au_arena_printf(a, "%*s/* size: %" PRIu64 ", align: %" PRIu64 ", members: %zu */",
						       INDENT, "", t->size, t->align, members)
				      : au_arena_printf(a, "%*s/* size: %" PRIu64 ", members: %zu */", INDENT, "", t->size,
						       members);
	if (l->holes)
		s->foot[FOOT_HOLES] = au_arena_printf(a, "%*s/* holes: %zu, sum holes: %" PRIu64 " bits */", INDENT, "",
						      l->holes, l->hole_bits);
	if (l->padding_bits)
		s->foot[FOOT_PADDING] = l->padding_bits % 8 == 0
			? au_arena_printf(a, "%*s/* padding: %" PRIu64 " */", INDENT, "", l->padding_bits / 8)
			: au_arena_printf(a, "%*s/* padding: %" PRIu64 " bits */", INDENT, "", l->padding_bits);
	s->foot[FOOT_CLOSE] = au_arena_printf(a, "}%s%s;", *tail ? " " : "", tail);
}

static void side_lines(struct side *s, const struct show_layout *l, const char *what, struct arena *a)
{
	memset(s, 0, sizeof(*s));
	const struct layout_type *t = l->type;
	if (!t) {
		s->head[1] = au_arena_printf(a, "/* no %s here */", what);
		s->width = strlen(s->head[1]);
		return;
	}
	if (t->file)
		s->head[0] = au_arena_printf(a, "/* %s:%u */", t->file, t->line);
	s->head[1] = t->is_typedef ? au_arena_printf(a, "typedef %s {", au_layout_kind_name(t->kind))
		     : t->anonymous ? "enum { /* anonymous */"
				    : au_arena_printf(a, "%s {", t->name);
	s->rows = au_arena_alloc(a, (l->nrows + 1) * sizeof(*s->rows));
	struct strbuf *decl = au_xcalloc(2 * l->nrows + 2, sizeof(*decl)), *com = decl + l->nrows + 1;
	size_t col = 0;
	for (size_t i = 0; i < l->nrows; i++) {
		row_text(&decl[i], &com[i], &l->rows[i]);
		if (com[i].len && decl[i].len + 1 > col)
			col = decl[i].len + 1;   /* comments line up, as pahole's do */
	}
	for (size_t i = 0; i < l->nrows; i++) {
		if (com[i].len)
			au_strbuf_printf(&decl[i], "%*s%s", (int)(col - decl[i].len), "", au_strbuf_str(&com[i]));
		s->rows[i] = au_strbuf_arena_copy(&decl[i], a);
		au_strbuf_release(&decl[i]);
		au_strbuf_release(&com[i]);
	}
	free(decl);
	close_lines(s, l, a);
	for (size_t i = 0; i < 2; i++)
		if (s->head[i] && strlen(s->head[i]) > s->width)
			s->width = strlen(s->head[i]);
	for (size_t i = 0; i < l->nrows; i++)
		if (strlen(s->rows[i]) > s->width)
			s->width = strlen(s->rows[i]);
	for (size_t i = 0; i < FOOT_COUNT; i++)
		if (s->foot[i] && strlen(s->foot[i]) > s->width)
			s->width = strlen(s->foot[i]);
}

static const char *what_name(const struct show_layout *a, const struct show_layout *b, const char *asked)
{
	return a->type ? a->type->name : b && b->type ? b->type->name : asked;
}

/* A mark, the left column padded to w, the right one; no trailing blanks. */
static void pair_line(FILE *out, char mark, int w, const char *x, const char *y)
{
	char *line = NULL;
	int n = asprintf(&line, "%c %-*s   %s", mark, w, x ? x : "", y ? y : "");
	if (n < 0)
		au_out_of_memory();
	while (n > 0 && line[n - 1] == ' ')
		line[--n] = 0;
	fprintf(out, "%s\n", line);
	free(line);
}

void au_report_show_text(FILE *out, const struct show_layout *a, const struct show_layout *b, const char *a_path,
			 const char *b_path)
{
	struct arena ar;
	au_arena_init(&ar);
	struct side l, r;
	side_lines(&l, a, what_name(a, b, "type"), &ar);
	if (!b) {
		for (int i = 0; i < 2; i++)
			if (l.head[i])
				fprintf(out, "%s\n", l.head[i]);
		for (size_t i = 0; i < a->nrows; i++)
			fprintf(out, "%s\n", l.rows[i]);
		if (a->type->kind != LAYOUT_ENUM)
			fputc('\n', out);
		for (int i = 0; i < FOOT_COUNT; i++)
			if (l.foot[i])
				fprintf(out, "%s\n", l.foot[i]);
		fputc('\n', out);
		au_arena_deinit(&ar);
		return;
	}
	side_lines(&r, b, what_name(a, b, "type"), &ar);
	int w = (int)(l.width > strlen(a_path) ? l.width : strlen(a_path));
	pair_line(out, ' ', w, a_path, b_path);
	for (int i = 0; i < 2; i++)
		if (l.head[i] || r.head[i])
			pair_line(out, ' ', w, l.head[i], r.head[i]);
	struct show_pair *pairs;
	size_t n = au_show_pair(a, b, &pairs);
	for (size_t i = 0; i < n; i++) {
		const struct show_pair *p = &pairs[i];
		const char *x = p->a ? l.rows[p->a - a->rows] : NULL, *y = p->b ? r.rows[p->b - b->rows] : NULL;
		pair_line(out, !p->a ? '>' : !p->b ? '<' : p->what ? '|' : ' ', w, x, y);
	}
	free(pairs);
	pair_line(out, ' ', w, NULL, NULL);
	for (int i = 0; i < FOOT_COUNT; i++) {
		const char *x = l.foot[i], *y = r.foot[i];
		if (!x && !y)
			continue;
		bool differs = i != FOOT_CLOSE && a->type && b->type && (!x || !y || strcmp(x, y) != 0);
		pair_line(out, differs ? '|' : ' ', w, x, y);
	}
	fputc('\n', out);
	au_arena_deinit(&ar);
}

/* ---------------------------------------------------------------- JSON */

static void row_json(FILE *out, const struct show_row *r)
{
	if (!r) {
		fputs("null", out);
		return;
	}
	switch (r->kind) {
	case SHOW_MEMBER:
		fprintf(out, "{\"row\":\"member\",\"depth\":%u,\"path\":", r->depth);
		au_report_json_string(out, r->path);
		fprintf(out, ",\"offset\":%" PRIu64 ",\"bit_offset\":%" PRIu64 ",\"size\":%" PRIu64, r->bit_offset / 8,
			r->bit_offset, au_member_size(r->member));
		if (r->member->is_bitfield)
			fprintf(out, ",\"bit_size\":%" PRIu32, r->member->bit_size);
		if (r->member->flexible)
			fputs(",\"flexible\":true", out);
		fputs(",\"type\":", out);
		au_report_json_string(out, r->member->type->name);
		fputs(",\"key\":", out);
		au_report_json_string(out, r->member->type->key);
		break;
	case SHOW_OPEN:
		fprintf(out, "{\"row\":\"%s\",\"depth\":%u,\"offset\":%" PRIu64 ",\"bit_offset\":%" PRIu64 ",\"size\":%" PRIu64,
			au_layout_kind_name(r->aggregate->kind), r->depth, r->bit_offset / 8, r->bit_offset,
			r->aggregate->size);
		break;
	case SHOW_HOLE:
	case SHOW_PADDING:
		fprintf(out, "{\"row\":\"%s\",\"depth\":%u,\"bit_offset\":%" PRIu64 ",\"bit_size\":%" PRIu64,
			r->kind == SHOW_HOLE ? "hole" : "padding", r->depth, r->bit_offset, r->bit_size);
		if (r->bit_offset % 8 == 0 && r->bit_size % 8 == 0)
			fprintf(out, ",\"offset\":%" PRIu64 ",\"size\":%" PRIu64, r->bit_offset / 8, r->bit_size / 8);
		break;
	case SHOW_ENUMERATOR:
		fputs("{\"row\":\"enumerator\",\"depth\":1,\"name\":", out);
		au_report_json_string(out, r->enumerator->name);
		if (r->enumerator->is_unsigned)
			fprintf(out, ",\"value\":%" PRIu64, (uint64_t)r->enumerator->value);
		else
			fprintf(out, ",\"value\":%" PRId64, r->enumerator->value);
		break;
	case SHOW_CLOSE:
		fputs("{\"row\":\"end\"", out);   /* never written: the depths say where a block ends */
		break;
	}
	fputc('}', out);
}

static void side_json(FILE *out, const struct show_layout *l)
{
	const struct layout_type *t = l->type;
	if (!t) {
		fputs("null", out);
		return;
	}
	fputs("{\"name\":", out);
	au_report_json_string(out, t->name);
	fprintf(out, ",\"kind\":\"%s\"", au_layout_kind_name(t->kind));
	if (t->is_typedef)
		fputs(",\"typedef\":true", out);
	if (t->anonymous)
		fputs(",\"anonymous\":true", out);
	fputs(",\"file\":", out);
	au_report_json_string(out, t->file);
	fprintf(out, ",\"line\":%u,\"size\":%" PRIu64, t->line, t->size);
	if (t->align)
		fprintf(out, ",\"align\":%" PRIu64, t->align);
	fprintf(out, ",\"members\":%zu,\"holes\":%zu,\"hole_bits\":%" PRIu64 ",\"padding_bits\":%" PRIu64 "}",
		t->kind == LAYOUT_ENUM ? t->nenumerators : t->nmembers, l->holes, l->hole_bits, l->padding_bits);
}

/* What differs between the two sides' summaries. */
static void summary_differences_json(FILE *out, const struct show_layout *a, const struct show_layout *b)
{
	fputs(",\"differs\":[", out);
	int k = 0;
	if (a->type && b->type) {
		const struct layout_type *x = a->type, *y = b->type;
		const char *what[5];
		bool diff[5] = { x->kind != y->kind, x->size != y->size, x->align != y->align,
				 a->holes != b->holes || a->hole_bits != b->hole_bits, a->padding_bits != b->padding_bits };
		what[0] = "kind", what[1] = "size", what[2] = "align", what[3] = "holes", what[4] = "padding";
		for (int i = 0; i < 5; i++)
			if (diff[i])
				fprintf(out, "%s\"%s\"", k++ ? "," : "", what[i]);
	}
	fputc(']', out);
}

static void pair_json(FILE *out, const struct show_pair *p)
{
	static const char *const what[] = { "offset", "size", "type", "value" };
	const char *mark = !p->a ? "only_b" : !p->b ? "only_a" : p->what ? "differs" : "same";
	fprintf(out, "{\"mark\":\"%s\"", mark);
	if (p->what) {
		fputs(",\"what\":[", out);
		for (int i = 0, k = 0; i < 4; i++)
			if (p->what & (1u << i))
				fprintf(out, "%s\"%s\"", k++ ? "," : "", what[i]);
		fputc(']', out);
	}
	fputs(",\"a\":", out);
	row_json(out, p->a);
	fputs(",\"b\":", out);
	row_json(out, p->b);
	fputc('}', out);
}

void au_report_show_json_begin(FILE *out, const char *a_path, const char *b_path)
{
	fputs("{\"tool\":\"abidiff-uapi\",\"version\":\"" AU_VERSION "\",\"command\":\"show\",\"objects\":[", out);
	au_report_json_string(out, a_path);
	if (b_path) {
		fputc(',', out);
		au_report_json_string(out, b_path);
	}
	fputs("],\"types\":[", out);
}

void au_report_show_json_type(FILE *out, const char *name, const struct show_layout *a, const struct show_layout *b,
			      bool first)
{
	fputs(first ? "\n{\"name\":" : ",\n{\"name\":", out);
	au_report_json_string(out, name);
	fputs(",\"sides\":[", out);
	side_json(out, a);
	if (b) {
		fputc(',', out);
		side_json(out, b);
	}
	fputc(']', out);
	if (b)
		summary_differences_json(out, a, b);
	fputs(",\"rows\":[", out);
	int k = 0;
	if (!b) {
		for (size_t i = 0; i < a->nrows; i++)
			if (a->rows[i].kind != SHOW_CLOSE) {
				fputs(k++ ? "," : "", out);
				row_json(out, &a->rows[i]);
			}
	} else {
		struct show_pair *pairs;
		size_t n = au_show_pair(a, b, &pairs);
		for (size_t i = 0; i < n; i++) {
			const struct show_row *r = pairs[i].a ? pairs[i].a : pairs[i].b;
			if (r->kind == SHOW_CLOSE)
				continue;
			fputs(k++ ? "," : "", out);
			pair_json(out, &pairs[i]);
		}
		free(pairs);
	}
	fputs("]}", out);
}

void au_report_show_expanded_json(FILE *out, const struct layout_type *t)
{
	struct arena a;
	au_arena_init(&a);
	struct show_layout l;
	au_show_layout(t, &a, &l);
	fputc('[', out);
	for (size_t i = 0, k = 0; i < l.nrows; i++)
		if (l.rows[i].kind == SHOW_MEMBER && l.rows[i].path) {
			fputs(k++ ? "," : "", out);
			row_json(out, &l.rows[i]);
		}
	fputc(']', out);
	au_arena_deinit(&a);
}

void au_report_show_json_end(FILE *out)
{
	fputs("\n]}\n", out);
}
