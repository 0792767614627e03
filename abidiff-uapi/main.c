/* abidiff-uapi: the command line. It parses options and wires the reader,
 * the comparer and the reporters together; it decides nothing about
 * layouts. Exit status: 0 compatible (or dump done), 1 incompatible,
 * 2 usage error or bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_reader.h"
#include "compare.h"
#include "compat.h"
#include "dwarf_reader.h"
#include "input.h"
#include "model.h"
#include "report.h"

#ifndef AU_VERSION
#define AU_VERSION "0.0.0"
#endif

enum { EXIT_COMPATIBLE = 0, EXIT_INCOMPATIBLE = 1, EXIT_TROUBLE = 2 };
enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF, FORMAT_JUNIT };
enum { MAX_HEADER_DIRS = 64 };

static const char usage_text[] =
	"Usage: abidiff-uapi dump FILE [OPTION]...\n"
	"  or:  abidiff-uapi diff OLD NEW [OPTION]...\n"
	"Read the DWARF (or BTF) of compiled objects and report type layouts.\n"
	"\n"
	"  dump   the layout of every struct, union, enum and typedef'd anonymous\n"
	"         aggregate in FILE: sizes, member offsets, bitfields, holes, padding\n"
	"  diff   compare the layouts in OLD and NEW, pairing types by name; exit 0\n"
	"         when compatible, 1 when incompatible\n"
	"\n"
	"Options:\n"
	"      --format=text|json|sarif|junit  output format (default text); sarif\n"
	"                          (SARIF 2.1.0) and junit (JUnit XML) are for diff\n"
	"      --type=NAME         only this type (\"struct foo\", \"enum bar\", a typedef\n"
	"                          name); may be repeated\n"
	"      --headers=DIR       only types declared in a file under DIR; file names\n"
	"                          are then shown relative to DIR; may be repeated\n"
	"                          (BTF has no files: with --btf it narrows the DWARF\n"
	"                          side, and types pair by name)\n"
	"      --common-only       diff: compare only types present on both sides\n"
	"      --strict            diff: OLD and NEW must have one ABI (C against C++,\n"
	"                          a series that changes no layout): the kernel's\n"
	"                          evolution idioms (sentinels, reserved members put\n"
	"                          to use, tail growth, pad renames) count as breaks\n"
	"      --compat            diff: OLD and NEW are one revision built for a 64-bit\n"
	"                          ABI and for its 32-bit one (x86_64 and i386, arm64\n"
	"                          and arm): every finding gets its causes (long-width,\n"
	"                          pointer-width, size_t-width, time-width, align8,\n"
	"                          arch-ifdef, member-type, other); implies --strict\n"
	"      --fail-on=break|review  diff: the severity that makes the verdict\n"
	"                          incompatible (default break)\n"
	"      --btf               read OLD (diff) or FILE (dump) as raw BTF, such as\n"
	"                          /sys/kernel/btf/vmlinux, instead of DWARF (raw BTF\n"
	"                          is also recognised by its magic number, on either side)\n"
	"                          or the .BTF section of an ELF file (a vmlinux, a .ko)\n"
	"      --btf-base=FILE     with --btf: OLD (or FILE) is split BTF on FILE's (raw\n"
	"                          BTF or ELF), as a module's is on vmlinux's; only the\n"
	"                          types the split BTF itself defines are compared\n"
	"      --alt=FILE          a dwz supplement (dwz -m FILE) for the inputs that\n"
	"                          need one, matched by build ID; may be repeated. By\n"
	"                          default it is looked for where the input names it\n"
	"                          and beside the input; a missing one is an error\n"
	"  -o, --output=FILE       write the report to FILE (atomically) instead of\n"
	"                          standard output; FILE may only replace a regular\n"
	"                          file, and keeps its mode\n"
	"      --help              display this help and exit\n"
	"      --version           output version information and exit\n"
	"\n"
	"Exit status: 0 compatible (or dump written), 1 incompatible, 2 usage error\n"
	"or unreadable input (a one-line reason naming the file goes to stderr).\n";

struct options {
	const char *command;
	const char *files[2];
	int nfiles;
	enum format format;
	const char *types[64];
	int ntypes;
	const char *header_dirs[MAX_HEADER_DIRS];
	char *header_real[MAX_HEADER_DIRS];
	int nheaders;
	bool common_only;
	bool strict;
	bool compat;
	enum severity fail_on;
	bool btf;
	const char *btf_base;
	const char *output;
	struct dwarf_read_options dwarf;
};

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("abidiff-uapi: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'abidiff-uapi --help' for more information.\n", stderr);
	return EXIT_TROUBLE;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_FORMAT = 256, OPT_TYPE, OPT_HEADERS, OPT_COMMON, OPT_BTF, OPT_HELP, OPT_VERSION, OPT_STRICT,
	       OPT_FAIL_ON, OPT_ALT, OPT_BTF_BASE, OPT_COMPAT };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "headers", required_argument, NULL, OPT_HEADERS },
		{ "common-only", no_argument, NULL, OPT_COMMON },
		{ "btf", no_argument, NULL, OPT_BTF },
		{ "btf-base", required_argument, NULL, OPT_BTF_BASE },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "compat", no_argument, NULL, OPT_COMPAT },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "alt", required_argument, NULL, OPT_ALT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				o->format = FORMAT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				o->format = FORMAT_JSON;
			else if (strcmp(optarg, "sarif") == 0)
				o->format = FORMAT_SARIF;
			else if (strcmp(optarg, "junit") == 0)
				o->format = FORMAT_JUNIT;
			else
				return usage_error("invalid --format '%s' (text, json, sarif or junit)", optarg);
			break;
		case OPT_TYPE:
			if (o->ntypes == (int)(sizeof(o->types) / sizeof(o->types[0])))
				return usage_error("too many --type options");
			o->types[o->ntypes++] = optarg;
			break;
		case OPT_HEADERS:
			if (o->nheaders == MAX_HEADER_DIRS)
				return usage_error("too many --headers options");
			o->header_dirs[o->nheaders++] = optarg;
			break;
		case OPT_COMMON:
			o->common_only = true;
			break;
		case OPT_BTF:
			o->btf = true;
			break;
		case OPT_BTF_BASE:
			o->btf_base = optarg;
			break;
		case OPT_STRICT:
			o->strict = true;
			break;
		case OPT_COMPAT:
			o->compat = true;
			break;
		case OPT_FAIL_ON:
			o->fail_on = au_severity_parse(optarg);
			if (o->fail_on != SEVERITY_BREAK && o->fail_on != SEVERITY_REVIEW)
				return usage_error("invalid --fail-on '%s' (break or review)", optarg);
			break;
		case OPT_ALT:
			if (o->dwarf.nalt == MAX_ALT_FILES)
				return usage_error("too many --alt options");
			o->dwarf.alt[o->dwarf.nalt++] = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_HELP:
			fputs(usage_text, stdout);
			exit(EXIT_COMPATIBLE);
		case OPT_VERSION:
			printf("abidiff-uapi %s\n", AU_VERSION);
			exit(EXIT_COMPATIBLE);
		case ':':
			return usage_error("option '%s' requires an argument", argv[optind - 1]);
		default:
			return usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
	}
	for (; optind < argc; optind++) {
		if (!o->command)
			o->command = argv[optind];
		else if (o->nfiles < 2)
			o->files[o->nfiles++] = argv[optind];
		else
			return usage_error("extra operand '%s'", argv[optind]);
	}
	return -1;
}

static bool keep_type(const struct layout_type *t, void *arg)
{
	const struct options *o = arg;
	if (o->ntypes) {
		bool found = false;
		for (int i = 0; i < o->ntypes && !found; i++)
			found = strcmp(o->types[i], t->name) == 0;
		if (!found)
			return false;
	}
	if (!o->nheaders)
		return true;
	if (!t->file)
		return false;
	for (int i = 0; i < o->nheaders; i++) {
		const char *dirs[2] = { o->header_dirs[i], o->header_real[i] };
		for (int k = 0; k < 2; k++) {
			size_t n = dirs[k] ? strlen(dirs[k]) : 0;
			while (n > 1 && dirs[k][n - 1] == '/')
				n--;
			if (n && strncmp(t->file, dirs[k], n) == 0 && t->file[n] == '/') {
				/* The file name as a user includes it: linux/foo.h. */
				((struct layout_type *)t)->file = t->file + n + 1;
				return true;
			}
		}
	}
	return false;
}

static bool keep_named(const struct layout_type *t, void *arg)
{
	const struct options *o = arg;
	for (int i = 0; i < o->ntypes; i++)
		if (strcmp(o->types[i], t->name) == 0)
			return true;
	return false;
}

/* Raw BTF starts with its magic, 0xeB9F, in the file's byte order; an ELF
 * object starts with 0x7f 'E' 'L' 'F'. */
static bool is_raw_btf(int fd)
{
	unsigned char m[2];
	return pread(fd, m, 2, 0) == 2 && ((m[0] == 0x9f && m[1] == 0xeb) || (m[0] == 0xeb && m[1] == 0x9f));
}

/* Each input is opened once (without blocking, regular files only), its
 * kind told by its first bytes, and the reader given that descriptor. */
static struct au_error *load(const char *path, bool btf, const struct options *o, struct layout_model *m)
{
	layout_model_init(m, path);
	struct au_error *err = NULL;
	int fd = au_open_input(path, &err);
	if (fd < 0)
		return err;
	btf = btf || is_raw_btf(fd);
	/* --btf-base applies to OLD (or dump's FILE), the side --btf names. */
	const char *base = path == o->files[0] ? o->btf_base : NULL;
	err = btf ? btf_read_layouts_split_fd(path, fd, base, m) : dwarf_read_layouts_fd(path, fd, m, &o->dwarf);
	if (err)
		return err;
	/* BTF records no declaring files: --headers narrows the DWARF side, and
	 * pairing by name does the rest. */
	if (o->ntypes || (o->nheaders && !btf))
		layout_model_filter(m, btf ? keep_named : keep_type, (void *)o);
	layout_model_sort(m);
	return NULL;
}

/* The report goes to stdout, or with --output to a temporary file beside
 * the target that is renamed over it only when complete: a failure never
 * leaves half a report under the target's name. All input has been read
 * before the first byte is written. */
struct sink {
	FILE *f;
	char *tmp;
};

static int sink_open(const struct options *o, struct sink *ret)
{
	ret->tmp = NULL;
	if (!o->output) {
		ret->f = stdout;
		return 0;
	}
	/* Only a regular file is ever replaced (never a device node, a FIFO,
	 * a directory or a symlink, whatever the user's privileges), and it
	 * keeps its mode; a new file gets the mode the umask allows. */
	struct stat st;
	bool exists = lstat(o->output, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "abidiff-uapi: %s: %s: not replaced (only a regular file is)\n", o->output,
			S_ISLNK(st.st_mode) ? "is a symbolic link" : S_ISDIR(st.st_mode) ? "is a directory"
			: S_ISFIFO(st.st_mode) ? "is a pipe (FIFO)" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
			? "is a device" : "is not a regular file");
		return EXIT_TROUBLE;
	}
	if (asprintf(&ret->tmp, "%s.tmpXXXXXX", o->output) < 0)
		return EXIT_TROUBLE;
	int fd = mkstemp(ret->tmp);
	mode_t mode;
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fd >= 0 && exists && fchown(fd, st.st_uid, st.st_gid) != 0 && geteuid() == 0)
		fprintf(stderr, "abidiff-uapi: %s: cannot keep its owner: %s\n", o->output, strerror(errno));
	if (fd >= 0 && fchmod(fd, mode) != 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 || !(ret->f = fdopen(fd, "w"))) {
		fprintf(stderr, "abidiff-uapi: %s: %s\n", o->output, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(ret->tmp);
		}
		free(ret->tmp);
		return EXIT_TROUBLE;
	}
	return 0;
}

static int sink_close(const struct options *o, struct sink *s)
{
	bool ok = !ferror(s->f);
	ok = (s->f == stdout ? fflush(s->f) == 0 : fclose(s->f) == 0) && ok;
	int rc = 0;
	if (!ok || (s->tmp && rename(s->tmp, o->output) != 0)) {
		fprintf(stderr, "abidiff-uapi: %s: %s\n", o->output ? o->output : "standard output",
			strerror(errno ? errno : EIO));
		if (s->tmp)
			unlink(s->tmp);
		rc = EXIT_TROUBLE;
	}
	free(s->tmp);
	return rc;
}

/* --compat: one side a 64-bit ABI's object, the other a 32-bit one's (an
 * object against itself is allowed, and can only find nothing). */
static bool compat_inputs_ok(const struct options *o, const struct layout_model *m)
{
	struct stat a, b;
	if (stat(o->files[0], &a) == 0 && stat(o->files[1], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return true;
	for (int i = 0; i < 2; i++)
		if (!m[i].address_size) {
			fprintf(stderr, "abidiff-uapi: %s: --compat needs the address size, which raw BTF does not record\n",
				o->files[i]);
			return false;
		}
	if (m[0].address_size == m[1].address_size) {
		fprintf(stderr, "abidiff-uapi: %s and %s: both are %u-bit objects; --compat compares a 64-bit ABI's "
			"object with its 32-bit ABI's\n", o->files[0], o->files[1], 8 * m[0].address_size);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	int rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (!o.command)
		return usage_error("missing command (dump or diff)");
	bool diff = strcmp(o.command, "diff") == 0;
	if (!diff && strcmp(o.command, "dump") != 0)
		return usage_error("unknown command '%s' (dump or diff)", o.command);
	if (o.nfiles != (diff ? 2 : 1))
		return usage_error("%s", diff ? "diff needs two files, OLD and NEW" : "dump needs one FILE");
	if (o.common_only && !diff)
		return usage_error("--common-only applies to diff only");
	if (!diff && (o.format == FORMAT_SARIF || o.format == FORMAT_JUNIT))
		return usage_error("--format=sarif and --format=junit apply to diff only");
	if ((o.strict || o.fail_on) && !diff)
		return usage_error("--strict and --fail-on apply to diff only");
	if (o.compat && (!diff || o.format == FORMAT_SARIF || o.format == FORMAT_JUNIT))
		return usage_error("--compat applies to diff, in text or json");
	if (o.btf_base && !o.btf)
		return usage_error("--btf-base needs --btf (the split BTF is OLD, or dump's FILE)");
	for (int i = 0; i < o.nheaders; i++) {
		o.header_real[i] = realpath(o.header_dirs[i], NULL);
		if (!o.header_real[i]) {
			fprintf(stderr, "abidiff-uapi: %s: %s\n", o.header_dirs[i], strerror(errno));
			rc = EXIT_TROUBLE;
			goto out_headers;
		}
	}

	struct layout_model models[2];
	int loaded = 0;
	struct au_error *err = NULL;
	for (; loaded < o.nfiles && !err; loaded++)
		err = load(o.files[loaded], o.btf && loaded == 0, &o, &models[loaded]);
	if (err) {
		/* Names in a message may come from a corrupt file: keep it one line. */
		for (char *p = err->message; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		fprintf(stderr, "abidiff-uapi: %s\n", err->message);
		au_error_destroy(err);
		rc = EXIT_TROUBLE;
		goto out;
	}

	if (o.compat && !compat_inputs_ok(&o, models)) {
		rc = EXIT_TROUBLE;
		goto out;
	}

	struct sink sink;
	rc = sink_open(&o, &sink);
	if (rc)
		goto out;
	errno = 0;
	if (diff) {
		struct compare_options copts = { .common_only = o.common_only, .strict = o.strict || o.compat,
						 .fail_on = o.fail_on ? o.fail_on : SEVERITY_BREAK };
		struct comparison cmp;
		compare_models(&models[0], &models[1], &copts, &cmp);
		if (o.compat)
			compat_classify(&cmp, &models[0], &models[1]);
		if (o.format == FORMAT_JSON)
			report_diff_json(sink.f, &cmp, o.files[0], o.files[1]);
		else if (o.format == FORMAT_SARIF)
			report_diff_sarif(sink.f, &cmp, o.files[0], o.files[1]);
		else if (o.format == FORMAT_JUNIT)
			report_diff_junit(sink.f, &cmp, &models[0], &models[1], o.files[0], o.files[1]);
		else
			report_diff_text(sink.f, &cmp, o.files[0], o.files[1]);
		rc = cmp.incompatible ? EXIT_INCOMPATIBLE : EXIT_COMPATIBLE;
		comparison_deinit(&cmp);
	} else {
		if (o.format == FORMAT_JSON)
			report_dump_json(sink.f, &models[0]);
		else
			report_dump_text(sink.f, &models[0]);
		rc = EXIT_COMPATIBLE;
	}
	int src = sink_close(&o, &sink);
	if (src)
		rc = src;
out:
	for (int i = 0; i < loaded; i++)
		layout_model_deinit(&models[i]);
out_headers:
	for (int i = 0; i < o.nheaders; i++)
		free(o.header_real[i]);
	return rc;
}
