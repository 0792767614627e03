/* Unit tests for what the readers own: every record a model points to lives
 * in that model's arena, so one model outlives another's read and free.
 * The BTF inputs are built here with libbpf's writer API. */
#define _POSIX_C_SOURCE 200809L
#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_reader.h"
#include "dwarf_reader.h"
#include "error.h"
#include "model.h"

#include "check.h"

/* struct s { void v; int i; }: a member of type 0 (void), which pahole never
 * writes but a corrupt or hand-made BTF may, and which the reader models
 * through its stand-in for void. */
static void write_btf_with_void_member(char *path)
{
	struct btf *b = btf__new_empty();
	int int_id = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_struct(b, "s", 4);
	btf__add_field(b, "v", 0, 0, 0);
	btf__add_field(b, "i", int_id, 0, 0);
	uint32_t size;
	const void *raw = btf__raw_data(b, &size);
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, raw, size) == (ssize_t)size);
	close(fd);
	btf__free(b);
}

static const struct layout_member *member_named(const struct layout_model *m, const char *type, const char *member)
{
	const struct layout_type *t = au_layout_model_find(m, type);
	for (size_t i = 0; t && i < t->nmembers; i++)
		if (t->members[i].name && strcmp(t->members[i].name, member) == 0)
			return &t->members[i];
	return NULL;
}

static void test_btf_stand_ins_are_per_read(const char *path)
{
	struct layout_model a, b, c;
	au_layout_model_init(&a, path);
	au_layout_model_init(&b, path);
	struct au_error *ea = au_btf_read_layouts(path, &a);
	struct au_error *eb = au_btf_read_layouts(path, &b);
	CHECK(!ea && !eb);
	const struct layout_member *va = member_named(&a, "struct s", "v");
	const struct layout_member *vb = member_named(&b, "struct s", "v");
	CHECK(va && vb);
	if (!va || !vb)
		return;
	CHECK(strcmp(va->type->name, "void") == 0 && va->type->size == 0);
	/* Two reads, two records: a record cached across reads would belong to
	 * the first model's arena and die with it. */
	CHECK(va->type != vb->type);
	au_layout_model_deinit(&a);
	au_layout_model_deinit(&b);
	/* A third read after both are gone: under AddressSanitizer a record
	 * left over from them is a use after free. */
	au_layout_model_init(&c, path);
	CHECK(!au_btf_read_layouts(path, &c));
	const struct layout_member *vc = member_named(&c, "struct s", "v");
	CHECK(vc && strcmp(vc->type->name, "void") == 0 && au_member_bits(vc) == 0);
	au_layout_model_deinit(&c);
}

/* Anonymous aggregates of one layout share one record across types (a
 * 100k-type model keeps each shape once), but never within one type: two
 * members of the same type would then share a container, which the
 * comparer reads as one union. Two that differ only in how a member's type
 * is written (u32 against unsigned int) stay apart: reports show it. */
static const struct layout_type *nested_of(const struct layout_model *m, const char *type, const char *member)
{
	const struct layout_member *lm = member_named(m, type, member);
	return lm ? au_member_nested(lm) : NULL;
}

static const struct layout_type *anon_of(const struct layout_model *m, const char *type, size_t i)
{
	const struct layout_type *t = au_layout_model_find(m, type);
	return t && i < t->nmembers ? au_member_anon(&t->members[i]) : NULL;
}

static void test_dwarf_shares_anonymous_layouts(void)
{
	char dir[] = "/tmp/au-test-anon-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char src[64], obj[64], cmd[256];
	snprintf(src, sizeof(src), "%s/a.c", dir);
	snprintf(obj, sizeof(obj), "%s/a.o", dir);
	FILE *f = fopen(src, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("typedef unsigned int u32;\n"
	      "struct a { union { u32 lo; u32 hi; } p; union { u32 lo; u32 hi; } q; union { u32 x; u32 y; }; };\n"
	      "struct b { union { u32 lo; u32 hi; } p; union { u32 x; u32 y; }; };\n"
	      "struct c { union { unsigned int lo; unsigned int hi; } p; };\n"
	      "struct a a; struct b b; struct c c;\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -g -c %s -o %s", src, obj);
	CHECK(system(cmd) == 0);
	struct layout_model m;
	au_layout_model_init(&m, obj);
	struct au_error *e = au_dwarf_read_layouts(obj, &m);
	CHECK(!e);
	if (!e) {
		const struct layout_type *ap = nested_of(&m, "struct a", "p"), *aq = nested_of(&m, "struct a", "q");
		const struct layout_type *bp = nested_of(&m, "struct b", "p"), *cp = nested_of(&m, "struct c", "p");
		CHECK(ap && aq && bp && cp);
		CHECK(ap != aq);                  /* one type: kept apart */
		CHECK(bp == ap || bp == aq);      /* another type: shared */
		CHECK(cp != ap && cp != aq);      /* another spelling */
		CHECK(anon_of(&m, "struct a", 2) && anon_of(&m, "struct a", 2) == anon_of(&m, "struct b", 1));
	}
	au_layout_model_deinit(&m);
	unlink(src);
	unlink(obj);
	rmdir(dir);
}

int main(void)
{
	test_dwarf_shares_anonymous_layouts();
	char path[] = "/tmp/au-test-readers-XXXXXX";
	write_btf_with_void_member(path);
	test_btf_stand_ins_are_per_read(path);
	unlink(path);
	return check_summary("test_readers");
}
