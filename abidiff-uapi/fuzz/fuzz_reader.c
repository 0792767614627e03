/* libFuzzer targets for the two readers. The input is an object file (DWARF
 * target) or raw BTF (BTF target); both go through a memfd so the readers
 * see a path, as they do in the tool. A crash, a leak or a sanitizer report
 * fails the run; a rejected input is fine. Each read is also compared with
 * itself (so the comparer and both reporters run on whatever was read). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf_reader.h"
#include "compare.h"
#include "dwarf_reader.h"
#include "report.h"

#ifndef FUZZ_BTF
#define FUZZ_BTF 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct layout_model m;
	layout_model_init(&m, path);
	struct au_error *err = FUZZ_BTF ? btf_read_layouts(path, &m) : dwarf_read_layouts(path, &m);
	if (!err) {
		layout_model_sort(&m);
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			struct comparison c;
			compare_models(&m, &m, &(struct compare_options){ 0 }, &c);
			report_diff_json(null, &c, path, path);
			report_diff_text(null, &c, path, path);
			report_dump_text(null, &m);
			report_dump_json(null, &m);
			comparison_deinit(&c);
			fclose(null);
		}
	}
	au_error_destroy(err);
	layout_model_deinit(&m);
	close(fd);
	return 0;
}
