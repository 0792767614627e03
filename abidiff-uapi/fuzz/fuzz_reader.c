/* libFuzzer targets for the two readers. The input is an object file (DWARF
 * target) or raw BTF (BTF target); both go through a memfd so the readers
 * see a path, as they do in the tool. A crash, a leak or a sanitizer report
 * fails the run; a rejected input is fine.
 *
 * An input may hold two files, OLD then NEW: it is split where the second
 * one's magic number starts (an ELF header, or BTF's 0xeb9f at a 4-byte
 * boundary), and the two models are diffed, so the comparer's code that
 * reports changes is fuzzed too; the corpus is seeded with pairs of fixture
 * objects. An input with no second magic is diffed against itself. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf_reader.h"
#include "compare.h"
#include "dwarf_reader.h"
#include "report.h"
#include "show.h"

#ifndef FUZZ_BTF
#define FUZZ_BTF 0
#endif

/* Where NEW starts in an OLD+NEW input, or size when there is no NEW. */
static size_t split_point(const uint8_t *data, size_t size)
{
	for (size_t i = 4; i + 4 <= size; i++) {
		if (FUZZ_BTF ? (i % 4 == 0 && ((data[i] == 0x9f && data[i + 1] == 0xeb) ||
					       (data[i] == 0xeb && data[i + 1] == 0x9f)))
			     : memcmp(data + i, "\177ELF", 4) == 0)
			return i;
	}
	return size;
}

/* Reads one part through a memfd, as the tool reads a path. */
static struct au_error *read_part(const uint8_t *data, size_t size, struct layout_model *m, int *fdp)
{
	int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	*fdp = fd;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	au_layout_model_init(m, path);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		return au_error_format("memfd");
	struct au_error *err = FUZZ_BTF ? au_btf_read_layouts(path, m) : au_dwarf_read_layouts(path, m);
	if (!err)
		au_layout_model_sort(m);
	return err;
}

static void run_all(const struct layout_model *o, const struct layout_model *n, bool strict)
{
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return;
	struct comparison c;
	struct compare_options opts = { 0 };
	opts.strict = strict;
	au_compare_models(o, n, &opts, &c);
	au_report_diff_json(null, &c, o->path, n->path);
	au_report_diff_text(null, &c, o->path, n->path);
	au_report_diff_sarif(null, &c, o->path, n->path);
	au_report_diff_junit(null, &c, o, n, o->path, n->path);
	au_report_dump_text(null, o);
	au_report_dump_json(null, o);
	au_comparison_deinit(&c);
	/* show: each type of OLD beside NEW's of that name (rows, pairs, both
	 * reports), reached the way a user names it. */
	struct arena a;
	au_arena_init(&a);
	au_report_show_json_begin(null, o->path, n->path);
	for (size_t i = 0; i < o->ntypes && i < 256; i++) {
		struct show_layout l[2];
		au_show_layout(o->types[i], &a, &l[0]);
		au_show_layout(au_layout_model_resolve(n, o->types[i]->name), &a, &l[1]);
		au_report_show_text(null, &l[0], &l[1], o->path, n->path);
		au_report_show_json_type(null, o->types[i]->name, &l[0], &l[1], i == 0);
		au_arena_reset(&a);
	}
	au_report_show_json_end(null);
	au_arena_deinit(&a);
	fclose(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut = split_point(data, size);
	struct layout_model m[2];
	int fds[2] = { -1, -1 };
	struct au_error *err = read_part(data, cut, &m[0], &fds[0]);
	bool two = cut < size;
	struct au_error *err2 = two ? read_part(data + cut, size - cut, &m[1], &fds[1]) : NULL;
	if (!err && !err2) {
		const struct layout_model *n = two ? &m[1] : &m[0];
		/* Both ways, and strict: removals and additions, every grading. */
		run_all(&m[0], n, false);
		if (two)
			run_all(n, &m[0], true);   /* also dumps NEW */
	}
	au_error_destroy(err);
	au_error_destroy(err2);
	au_layout_model_deinit(&m[0]);
	if (two)
		au_layout_model_deinit(&m[1]);
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return 0;
}
