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

#include "abi.h"
#include "btf_reader.h"
#include "compare.h"
#include "compat.h"
#include "dwarf_reader.h"
#include "input.h"
#include "model.h"
#include "report.h"
#include "show.h"

#ifndef AU_VERSION
#define AU_VERSION "0.0.0"
#endif

enum { EXIT_COMPATIBLE = 0, EXIT_INCOMPATIBLE = 1, EXIT_TROUBLE = 2 };
enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF, FORMAT_JUNIT };
enum { MAX_HEADER_DIRS = 64, MAX_REPORTS = 4 };

static const char usage_text[] =
	"Usage: abidiff-uapi dump FILE [OPTION]...\n"
	"  or:  abidiff-uapi diff OLD NEW [OPTION]...\n"
	"  or:  abidiff-uapi show TYPE FILE [FILE2] [OPTION]...\n"
	"  or:  abidiff-uapi show --all FILE [FILE2] [OPTION]...\n"
	"Read the DWARF (or BTF) of compiled objects and report type layouts.\n"
	"\n"
	"  dump   the layout of every struct, union, enum and typedef'd anonymous\n"
	"         aggregate in FILE: sizes, member offsets, bitfields, holes, padding\n"
	"  diff   compare the layouts in OLD and NEW, pairing types by name; exit 0\n"
	"         when compatible, 1 when incompatible\n"
	"  show   one struct, union or enum as pahole shows it, every member of an\n"
	"         anonymous type expanded by its dotted path (io.port) at its absolute\n"
	"         offset; with FILE2, both layouts side by side, rows that differ\n"
	"         marked ('|' differs, '<' only in FILE, '>' only in FILE2). TYPE:\n"
	"         \"struct foo\", \"union bar\", a bare tag (foo) or a typedef name\n"
	"\n"
	"Options:\n"
	"      --format=text|json|sarif|junit  output format (default text); sarif\n"
	"                          (SARIF 2.1.0) and junit (JUnit XML) are for diff\n"
	"      --type=NAME         only this type (\"struct foo\", \"union bar\", a bare tag\n"
	"                          foo, a typedef name); may be repeated\n"
	"      --headers=DIR       only types declared in a file under DIR; file names\n"
	"                          are then shown relative to DIR; may be repeated\n"
	"                          (BTF has no files: with --btf it narrows the DWARF\n"
	"                          side, and types pair by name)\n"
	"      --all               show: every struct and union, instead of TYPE (with\n"
	"                          --type, those of them)\n"
	"      --common-only       diff: compare only types present on both sides\n"
	"      --strict            diff: OLD and NEW must have one ABI (C against C++,\n"
	"                          a series that changes no layout): the kernel's\n"
	"                          evolution idioms (sentinels, reserved members put\n"
	"                          to use, tail growth, pad renames) count as breaks\n"
	"      --compat            diff: OLD and NEW are one revision built for a 64-bit\n"
	"                          ABI and for its 32-bit one (x86_64 and i386, arm64\n"
	"                          and arm; without it, objects of two machines,\n"
	"                          classes or byte orders are refused): every finding\n"
	"                          gets its causes (long-width,\n"
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
	"      --report=FORMAT:FILE  diff: also write the report in FORMAT (text, json,\n"
	"                          sarif or junit) to FILE, as --output writes, from\n"
	"                          the same comparison; may be repeated\n"
	"  -o, --output=FILE       write the report to FILE (atomically) instead of\n"
	"                          standard output; FILE may only replace a regular\n"
	"                          file, and keeps its mode\n"
	"      --help              display this help and exit\n"
	"      --version           output version information and exit\n"
	"\n"
	"A filter (--type, --headers, --common-only) that selects nothing from\n"
	"types that are there is an error.\n"
	"\n"
	"Exit status: 0 compatible (or dump or show written), 1 incompatible, 2 usage\n"
	"error or unreadable input (a one-line reason naming the file goes to stderr).\n";

struct options {
	const char *command;
	const char *operands[3];
	int noperands;
	const char *files[2];     /* the objects among the operands */
	int nfiles;
	const char *show_type;    /* show's TYPE operand (NULL with --all) */
	bool all;
	enum format format;
	const char *types[64];
	int ntypes;
	const char *header_dirs[MAX_HEADER_DIRS];
	char *header_real[MAX_HEADER_DIRS];
	/* header_real relative to the working directory, when it lies under it: the
	 * driver's objects record their build directory as "." (-ffile-prefix-map),
	 * so their files read include/after/linux/x.h, whatever the spelling given. */
	const char *header_rel[MAX_HEADER_DIRS];
	int nheaders;
	bool common_only;
	bool strict;
	bool compat;
	enum severity fail_on;
	bool btf;
	const char *btf_base;
	const char *output;
	struct {
		enum format format;
		const char *path;
	} reports[MAX_REPORTS];   /* --report=FORMAT:FILE */
	int nreports;
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

/* The first n bytes of s: a --format name. */
static bool parse_format(const char *s, size_t n, enum format *ret)
{
	static const char *const names[] = { [FORMAT_TEXT] = "text", [FORMAT_JSON] = "json",
					     [FORMAT_SARIF] = "sarif", [FORMAT_JUNIT] = "junit" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && strncmp(s, names[i], n) == 0) {
			*ret = (enum format)i;
			return true;
		}
	return false;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_FORMAT = 256, OPT_TYPE, OPT_HEADERS, OPT_COMMON, OPT_BTF, OPT_HELP, OPT_VERSION, OPT_STRICT,
	       OPT_FAIL_ON, OPT_ALT, OPT_BTF_BASE, OPT_COMPAT, OPT_ALL, OPT_REPORT };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "headers", required_argument, NULL, OPT_HEADERS },
		{ "common-only", no_argument, NULL, OPT_COMMON },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "btf", no_argument, NULL, OPT_BTF },
		{ "btf-base", required_argument, NULL, OPT_BTF_BASE },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "compat", no_argument, NULL, OPT_COMPAT },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "alt", required_argument, NULL, OPT_ALT },
		{ "output", required_argument, NULL, 'o' },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (!parse_format(optarg, strlen(optarg), &o->format))
				return usage_error("invalid --format '%s' (text, json, sarif or junit)", optarg);
			break;
		case OPT_REPORT: {
			const char *colon = strchr(optarg, ':');
			if (o->nreports == MAX_REPORTS)
				return usage_error("too many --report options");
			if (!colon || !colon[1] || !parse_format(optarg, (size_t)(colon - optarg), &o->reports[o->nreports].format))
				return usage_error("invalid --report '%s' (FORMAT:FILE, FORMAT text, json, sarif or junit)", optarg);
			o->reports[o->nreports++].path = colon + 1;
			break;
		}
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
		case OPT_ALL:
			o->all = true;
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
		else if (o->noperands < 3)
			o->operands[o->noperands++] = argv[optind];
		else
			return usage_error("extra operand '%s'", argv[optind]);
	}
	return -1;
}

/* The part of file after the --headers directory it lies in (linux/foo.h,
 * as a user includes it), or NULL when it lies in none. */
static const char *under_headers(const struct options *o, const char *file)
{
	if (!file)
		return NULL;
	while (file[0] == '.' && file[1] == '/')
		file += 2;
	for (int i = 0; i < o->nheaders; i++) {
		const char *dirs[3] = { o->header_dirs[i], o->header_real[i], o->header_rel[i] };
		for (int k = 0; k < 3; k++) {
			const char *d = dirs[k];
			while (d && d[0] == '.' && d[1] == '/')
				d += 2;
			size_t n = d ? strlen(d) : 0;
			while (n > 1 && d[n - 1] == '/')
				n--;
			if (n && strncmp(file, d, n) == 0 && file[n] == '/')
				return file + n + 1;
		}
	}
	return NULL;
}

/* With --headers, file names are shown relative to the directory they lie in. */
static void relative_files(const struct options *o, struct layout_model *m)
{
	for (size_t i = 0; i < m->ntypes; i++) {
		const char *rel = under_headers(o, m->types[i]->file);
		if (rel)
			m->types[i]->file = rel;
	}
}

static bool keep_under_headers(const struct layout_type *t, void *arg)
{
	return under_headers(arg, t->file) != NULL;
}

static bool keep_in_set(const struct layout_type *t, void *arg)
{
	return au_strmap_get(arg, t->name) != NULL;
}

/* The models a filter may select from: those with types (and, for
 * --headers, with declaring files: BTF records none). */
struct inputs {
	struct layout_model *m;
	int n;
	bool btf[2];
};

/* "a.o" or "a.o or b.o": where a filter found nothing. */
static void name_inputs(char *buf, size_t len, const struct inputs *in, bool dwarf_only)
{
	buf[0] = 0;
	for (int k = 0, j = 0; k < in->n; k++)
		if (!(dwarf_only && in->btf[k]) && in->m[k].ntypes) {
			size_t used = strlen(buf);
			snprintf(buf + used, len - used, "%s%s", j++ ? " or " : "", in->m[k].path);
		}
}

/* --headers DIR...: directories under which no type of a non-empty (DWARF)
 * input is declared are a mistake (a path the objects do not record), not
 * an empty answer. The directories are one filter together: uapi-check
 * names both sides' include directories for every comparison, and each
 * object lies under one of them. */
static int select_headers(const struct options *o, struct inputs *in)
{
	bool any = false, found = false;
	for (int k = 0; k < in->n && !found; k++) {
		if (in->btf[k])
			continue;
		any = any || in->m[k].ntypes;
		for (size_t t = 0; t < in->m[k].ntypes && !found; t++)
			found = under_headers(o, in->m[k].types[t]->file) != NULL;
	}
	if (o->nheaders && any && !found) {
		char where[PATH_MAX * 2 + 8];
		name_inputs(where, sizeof(where), in, true);
		fprintf(stderr, "abidiff-uapi: --headers %s%s: no type of %s is declared in a file under %s\n",
			o->header_dirs[0], o->nheaders > 1 ? " ..." : "", where, o->nheaders > 1 ? "them" : "it");
		return EXIT_TROUBLE;
	}
	for (int k = 0; k < in->n && o->nheaders; k++)
		if (!in->btf[k]) {
			au_layout_model_filter(&in->m[k], keep_under_headers, (void *)o);
			relative_files(o, &in->m[k]);
		}
	return 0;
}

/* --type NAME, each: the type the name means on any input (struct kvm_run
 * for kvm_run, what a typedef names), or exit 2 naming it. */
static int select_types(const struct options *o, struct inputs *in)
{
	struct strmap keep;
	au_strmap_init(&keep);
	int rc = 0;
	for (int i = 0; i < o->ntypes && !rc; i++) {
		bool any = false, found = false;
		for (int k = 0; k < in->n; k++) {
			const struct layout_type *t = au_layout_model_resolve(&in->m[k], o->types[i]);
			any = any || in->m[k].ntypes;
			if (t) {
				au_strmap_put(&keep, t->name, (void *)t->name);
				found = true;
			}
		}
		if (any && !found) {
			char where[PATH_MAX * 2 + 8], hint[256] = "";
			name_inputs(where, sizeof(where), in, false);
			const char *bare = strchr(o->types[i], ' ');
			for (int k = 0; k < in->n && bare && !hint[0]; k++) {
				const struct layout_type *t = au_layout_model_resolve(&in->m[k], bare + 1);
				if (t)
					snprintf(hint, sizeof(hint), " (there is %s)", t->name);
			}
			fprintf(stderr, "abidiff-uapi: --type '%s': no such type in %s%s%s\n", o->types[i], where,
				o->nheaders ? " under --headers" : "", hint);
			rc = EXIT_TROUBLE;
		}
	}
	for (int k = 0; k < in->n && !rc && o->ntypes; k++)
		au_layout_model_filter(&in->m[k], keep_in_set, &keep);
	au_strmap_deinit(&keep);
	return rc;
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
static struct au_error *load(const char *path, bool btf, const struct options *o, struct layout_model *m,
			       bool *is_btf)
{
	au_layout_model_init(m, path);
	struct au_error *err = NULL;
	int fd = au_open_input(path, &err);
	if (fd < 0)
		return err;
	btf = btf || is_raw_btf(fd);
	*is_btf = btf;
	/* --btf-base applies to OLD (or dump's FILE), the side --btf names. */
	const char *base = path == o->files[0] ? o->btf_base : NULL;
	err = btf ? au_btf_read_layouts_split_fd(path, fd, base, m) : au_dwarf_read_layouts_fd(path, fd, m, &o->dwarf);
	if (err)
		return err;
	au_layout_model_sort(m);
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

static int sink_open(const char *output, struct sink *ret)
{
	ret->tmp = NULL;
	if (!output) {
		ret->f = stdout;
		return 0;
	}
	/* Only a regular file is ever replaced (never a device node, a FIFO,
	 * a directory or a symlink, whatever the user's privileges), and it
	 * keeps its mode; a new file gets the mode the umask allows. */
	struct stat st;
	bool exists = lstat(output, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "abidiff-uapi: %s: %s: not replaced (only a regular file is)\n", output,
			S_ISLNK(st.st_mode) ? "is a symbolic link" : S_ISDIR(st.st_mode) ? "is a directory"
			: S_ISFIFO(st.st_mode) ? "is a pipe (FIFO)" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
			? "is a device" : "is not a regular file");
		return EXIT_TROUBLE;
	}
	ret->tmp = au_xasprintf("%s.tmpXXXXXX", output);
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
		fprintf(stderr, "abidiff-uapi: %s: cannot keep its owner: %s\n", output, strerror(errno));
	if (fd >= 0 && fchmod(fd, mode) != 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 || !(ret->f = fdopen(fd, "w"))) {
		fprintf(stderr, "abidiff-uapi: %s: %s\n", output, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(ret->tmp);
		}
		free(ret->tmp);
		return EXIT_TROUBLE;
	}
	return 0;
}

static int sink_close(const char *output, struct sink *s)
{
	bool ok = !ferror(s->f);
	ok = (s->f == stdout ? fflush(s->f) == 0 : fclose(s->f) == 0) && ok;
	int rc = 0;
	if (!ok || (s->tmp && rename(s->tmp, output) != 0)) {
		fprintf(stderr, "abidiff-uapi: %s: %s\n", output ? output : "standard output",
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

/* diff compares layouts of one ABI: two machines, two byte orders, or a
 * 64-bit object against a 32-bit one (unless --compat asks for exactly
 * that) would report every long and pointer as a change, or nothing at all
 * where the sizes happen to agree. */
static bool same_abi(const struct options *o, const struct layout_model *m)
{
	enum abi_match match = au_abi_match(&m[0], &m[1]);
	if (match == ABI_SAME || (match == ABI_OTHER_CLASS && o->compat))
		return true;
	char a[96], b[96];
	au_abi_describe(&m[0], a, sizeof(a));
	au_abi_describe(&m[1], b, sizeof(b));
	fprintf(stderr, "abidiff-uapi: %s (%s) and %s (%s): %s\n", o->files[0], a, o->files[1], b,
		match == ABI_OTHER_CLASS ? "a 64-bit and a 32-bit object of one architecture: use --compat to "
					   "compare an ABI with its 32-bit compat ABI"
		: match == ABI_OTHER_BYTE_ORDER ? "objects of different byte orders; diff compares one ABI's layouts"
						: "objects of different machines; diff compares one ABI's layouts");
	return false;
}

/* The out-of-memory policy (xmem.h), as this program applies it. */
static void out_of_memory(void)
{
	fputs("abidiff-uapi: out of memory\n", stderr);
	exit(EXIT_TROUBLE);
}

/* The command and its operands, and the options that go with it. */
static int check_command(struct options *o)
{
	if (!o->command)
		return usage_error("missing command (dump, diff or show)");
	bool diff = strcmp(o->command, "diff") == 0, show = strcmp(o->command, "show") == 0;
	if (!diff && !show && strcmp(o->command, "dump") != 0)
		return usage_error("unknown command '%s' (dump, diff or show)", o->command);
	int first = show && !o->all ? 1 : 0;
	if (show && !o->all && o->noperands > 0)
		o->show_type = o->operands[0];
	o->nfiles = o->noperands - first;
	for (int i = 0; i < o->nfiles && i < 2; i++)
		o->files[i] = o->operands[first + i];
	if (show && (o->nfiles < 1 || o->nfiles > 2))
		return usage_error("%s", o->all ? "show --all needs one FILE or two" : "show needs TYPE and one FILE or two");
	if (!show && o->nfiles != (diff ? 2 : 1))
		return usage_error("%s", diff ? "diff needs two files, OLD and NEW" : "dump needs one FILE");
	if (o->all && !show)
		return usage_error("--all applies to show only");
	if (show && o->ntypes && !o->all)
		return usage_error("show takes its TYPE as an operand, not --type (or --all --type)");
	if (o->common_only && !diff)
		return usage_error("--common-only applies to diff only");
	if (!diff && (o->format == FORMAT_SARIF || o->format == FORMAT_JUNIT))
		return usage_error("--format=sarif and --format=junit apply to diff only");
	if ((o->strict || o->fail_on) && !diff)
		return usage_error("--strict and --fail-on apply to diff only");
	if (o->compat && (!diff || o->format == FORMAT_SARIF || o->format == FORMAT_JUNIT))
		return usage_error("--compat applies to diff, in text or json");
	if (o->nreports && !diff)
		return usage_error("--report applies to diff only");
	for (int i = 0; i < o->nreports; i++)
		if (o->compat && (o->reports[i].format == FORMAT_SARIF || o->reports[i].format == FORMAT_JUNIT))
			return usage_error("--compat applies to diff, in text or json");
	if (o->btf_base && !o->btf)
		return usage_error("--btf-base needs --btf (the split BTF is OLD, or dump's FILE)");
	return -1;
}

/* show: TYPE (or every struct and union) in one or two objects. */
static int run_show(const struct options *o, const struct layout_model *m, FILE *out)
{
	struct arena a;
	au_arena_init(&a);
	const char *b_path = o->nfiles > 1 ? o->files[1] : NULL;
	if (o->format == FORMAT_JSON)
		au_report_show_json_begin(out, o->files[0], b_path);
	struct strmap seen;   /* --all: names shown, each once */
	au_strmap_init(&seen);
	bool first = true;
	for (int k = 0; k < o->nfiles; k++) {
		for (size_t i = 0; i < (o->all ? m[k].ntypes : 1); i++) {
			const struct layout_type *t = o->all ? m[k].types[i] : NULL;
			if (t && (t->kind == LAYOUT_ENUM || t->kind == LAYOUT_CONSTANT || au_strmap_get(&seen, t->name)))
				continue;
			const char *name = t ? t->name : o->show_type;
			struct show_layout l[2];
			for (int s = 0; s < o->nfiles; s++)
				au_show_layout(t ? au_layout_model_find(&m[s], name) : au_layout_model_resolve(&m[s], name),
					       &a, &l[s]);
			if (t)
				au_strmap_put(&seen, t->name, (void *)t->name);
			if (o->format == FORMAT_JSON)
				au_report_show_json_type(out, l[0].type ? l[0].type->name : l[1].type->name, &l[0],
							 b_path ? &l[1] : NULL, first);
			else
				au_report_show_text(out, &l[0], b_path ? &l[1] : NULL, o->files[0], b_path);
			first = false;
			au_arena_reset(&a);
		}
		if (!o->all)
			break;
	}
	if (o->format == FORMAT_JSON)
		au_report_show_json_end(out);
	au_strmap_deinit(&seen);
	au_arena_deinit(&a);
	return EXIT_COMPATIBLE;
}

/* show TYPE: the type must be in one of the objects, as the user named it. */
static bool show_type_found(const struct options *o, const struct layout_model *m)
{
	if (!o->show_type)
		return true;
	for (int k = 0; k < o->nfiles; k++) {
		const struct layout_type *t = au_layout_model_resolve(&m[k], o->show_type);
		if (t && t->kind == LAYOUT_CONSTANT) {
			fprintf(stderr, "abidiff-uapi: show: '%s' is a constant; show shows a struct, union or enum\n",
				o->show_type);
			return false;
		}
		if (t)
			return true;
	}
	const char *bare = strchr(o->show_type, ' ');
	char hint[256] = "";
	for (int k = 0; k < o->nfiles && bare && !hint[0]; k++) {
		const struct layout_type *t = au_layout_model_resolve(&m[k], bare + 1);
		if (t)
			snprintf(hint, sizeof(hint), " (there is %s)", t->name);
	}
	fprintf(stderr, "abidiff-uapi: show: no type '%s' in %s%s%s%s%s\n", o->show_type, o->files[0],
		o->nfiles > 1 ? " or " : "", o->nfiles > 1 ? o->files[1] : "", o->nheaders ? " under --headers" : "",
		hint);
	return false;
}

/* One report of a comparison, in format, to path (NULL: standard output). */
static int write_diff(const char *path, enum format format, const struct comparison *cmp, const struct options *o,
		      struct layout_model *m, struct sink *sink)
{
	int rc = sink_open(path, sink);
	if (rc)
		return rc;
	errno = 0;
	if (format == FORMAT_JSON)
		au_report_diff_json(sink->f, cmp, o->files[0], o->files[1]);
	else if (format == FORMAT_SARIF)
		au_report_diff_sarif(sink->f, cmp, o->files[0], o->files[1]);
	else if (format == FORMAT_JUNIT)
		au_report_diff_junit(sink->f, cmp, &m[0], &m[1], o->files[0], o->files[1]);
	else
		au_report_diff_text(sink->f, cmp, o->files[0], o->files[1]);
	return sink_close(path, sink);
}

static int run_diff(const struct options *o, struct layout_model *m, struct sink *sink)
{
	struct compare_options copts = { .common_only = o->common_only, .strict = o->strict || o->compat,
					 .fail_on = o->fail_on ? o->fail_on : SEVERITY_BREAK };
	struct comparison cmp;
	au_compare_models(&m[0], &m[1], &copts, &cmp);
	size_t compared = cmp.counts[STATUS_UNCHANGED] + cmp.counts[STATUS_ALIASED] + cmp.counts[STATUS_EXTENDED] +
			  cmp.counts[STATUS_RENAMED] + cmp.counts[STATUS_CHANGED];
	if (o->common_only && !compared && m[0].ntypes && m[1].ntypes) {
		fprintf(stderr, "abidiff-uapi: --common-only: %s and %s have no type in common\n", o->files[0],
			o->files[1]);
		au_comparison_deinit(&cmp);
		return EXIT_TROUBLE;
	}
	if (o->compat)
		au_compat_classify(&cmp, &m[0], &m[1]);
	/* The --report files first, then --output (or standard output): each
	 * one whole, or none under its name. */
	int rc = 0;
	for (int i = 0; i < o->nreports && !rc; i++)
		rc = write_diff(o->reports[i].path, o->reports[i].format, &cmp, o, m, sink);
	if (!rc)
		rc = write_diff(o->output, o->format, &cmp, o, m, sink);
	if (!rc)
		rc = cmp.incompatible ? EXIT_INCOMPATIBLE : EXIT_COMPATIBLE;
	au_comparison_deinit(&cmp);
	return rc;
}

/* Every input read, whole, before any filter or check: a filter that
 * selects nothing is told apart from an input that has nothing. */
static int load_all(struct options *o, struct layout_model *models, int *loaded, struct inputs *in)
{
	struct au_error *err = NULL;
	for (; *loaded < o->nfiles && !err; (*loaded)++)
		err = load(o->files[*loaded], o->btf && *loaded == 0, o, &models[*loaded], &in->btf[*loaded]);
	if (err) {
		/* Names in a message may come from a corrupt file: keep it one line. */
		for (char *p = err->message; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		fprintf(stderr, "abidiff-uapi: %s\n", err->message);
		au_error_destroy(err);
		return EXIT_TROUBLE;
	}
	in->m = models;
	in->n = o->nfiles;
	int rc = select_headers(o, in);
	return rc ? rc : select_types(o, in);
}

int main(int argc, char **argv)
{
	au_set_out_of_memory_handler(out_of_memory);
	struct options o = { 0 };
	int rc = parse_options(argc, argv, &o);
	if (rc >= 0 || (rc = check_command(&o)) >= 0)
		return rc;
	bool diff = strcmp(o.command, "diff") == 0, show = strcmp(o.command, "show") == 0;
	char *cwd = o.nheaders ? realpath(".", NULL) : NULL;
	for (int i = 0; i < o.nheaders; i++) {
		o.header_real[i] = realpath(o.header_dirs[i], NULL);
		if (!o.header_real[i]) {
			fprintf(stderr, "abidiff-uapi: %s: %s\n", o.header_dirs[i], strerror(errno));
			rc = EXIT_TROUBLE;
			goto out_headers;
		}
		size_t n = cwd ? strlen(cwd) : 0;
		if (n > 1 && strncmp(o.header_real[i], cwd, n) == 0 && o.header_real[i][n] == '/')
			o.header_rel[i] = o.header_real[i] + n + 1;
	}

	struct layout_model models[2];
	struct inputs in = { 0 };
	int loaded = 0;
	rc = load_all(&o, models, &loaded, &in);
	if (rc)
		goto out;
	if ((diff && !same_abi(&o, models)) || (o.compat && !compat_inputs_ok(&o, models)) ||
	    (show && !show_type_found(&o, models))) {
		rc = EXIT_TROUBLE;
		goto out;
	}

	struct sink sink;
	if (diff) {
		rc = run_diff(&o, models, &sink);
		goto out;
	}
	rc = sink_open(o.output, &sink);
	if (rc)
		goto out;
	errno = 0;
	if (show)
		rc = run_show(&o, models, sink.f);
	else if (o.format == FORMAT_JSON)
		au_report_dump_json(sink.f, &models[0]);
	else
		au_report_dump_text(sink.f, &models[0]);
	int src = sink_close(o.output, &sink);
	if (src)
		rc = src;
out:
	for (int i = 0; i < loaded; i++)
		au_layout_model_deinit(&models[i]);
out_headers:
	free(cwd);
	for (int i = 0; i < o.nheaders; i++)
		free(o.header_real[i]);
	return rc;
}
