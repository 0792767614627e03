#!/bin/bash
# bad-input.sh: every kind of bad input must give exit status 2 and exactly one
# line on stderr naming the file, never a crash, a hang or a sanitizer report.
# Usage: tests/bad-input.sh ABIDIFF_UAPI_BINARY
set -eu
tool=$(realpath "$1")
ROOT_FIXTURES=$(cd "$(dirname "$0")/.." && pwd)/fixtures/corrupt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
printf 'struct s { int a; long b; };\ntypedef struct s s_t;\nunion u { int i; float f; };\n' > s.c
gcc -g -fno-eliminate-unused-debug-types -c s.c -o good.o
printf 'struct other { int z; };\n' > other.c
gcc -g -fno-eliminate-unused-debug-types -c other.c -o other.o
gcc -m32 -g -fno-eliminate-unused-debug-types -c s.c -o i386.o
clang --target=aarch64-linux-gnu -g -fno-eliminate-unused-debug-types -c s.c -o arm64.o
clang --target=s390x-linux-gnu -g -fno-eliminate-unused-debug-types -c s.c -o s390x.o
clang --target=aarch64_be-linux-gnu -g -fno-eliminate-unused-debug-types -c s.c -o arm64be.o
: > empty.o
printf 'this is not an object\n' > text.o
head -c 4096 /dev/urandom > random.o
head -c 300 good.o > truncated.o
gcc -c s.c -o nodebug.o
cp good.o stripped.o && strip --strip-debug stripped.o
cp good.o corrupt.o
# Overwrite the middle of .debug_info with garbage, keeping the ELF valid.
off=$((0x$(readelf -S -W good.o | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".debug_info" { print $4 }')))
printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff' | dd of=corrupt.o bs=1 seek=$((off + 11)) conv=notrunc 2>/dev/null
cp good.o badhdr.o
printf '\x00\x00\x00\x00\x00\x00\x00\x00' | dd of=badhdr.o bs=1 seek=$((off + 0)) conv=notrunc 2>/dev/null
mkdir adir
printf 'garbage btf' > bad.btf

pass=0 fail=0
check() { # name, expected substring, args... (bad input: exactly one line)
	check_lines 1 "$@"
}
usage() { # usage errors add GNU's "Try --help" line
	check_lines 2 "$@"
}
check_lines() {
	local maxlines=$1 name=$2 want=$3
	shift 3
	local rc=0
	timeout 20 "$tool" "$@" > out.txt 2> err.txt || rc=$?
	local lines
	lines=$(wc -l < err.txt)
	if [ "$rc" = 2 ] && [ "$lines" = "$maxlines" ] && head -n1 err.txt | grep -q -- "$want" && ! grep -qiE 'sanitizer|runtime error' err.txt && [ ! -s out.txt ]; then
		pass=$((pass + 1))
		echo "ok   $name: $(cat err.txt)"
	else
		fail=$((fail + 1))
		echo "FAIL $name: exit $rc, $lines stderr lines (want exit 2, $maxlines line(s), the first containing '$want')"
		sed 's/^/    /' err.txt | head -20
	fi
}
check "empty file" "empty.o: empty file" dump empty.o
check "text file" "text.o: not an ELF" dump text.o
check "random bytes" "random.o: not an ELF" dump random.o
check "truncated object" "truncated.o:" dump truncated.o
check "no debug info" "nodebug.o: no DWARF" dump nodebug.o
check "stripped object" "stripped.o: no DWARF" dump stripped.o
check "corrupt .debug_info" "corrupt.o:" dump corrupt.o
check "corrupt unit header" "badhdr.o:" dump badhdr.o
check "directory" "adir: is a directory" dump adir
check "missing path" "missing.o: No such file" dump missing.o
check "bad NEW in diff" "empty.o: empty file" diff good.o empty.o
check "bad OLD in diff" "random.o: not an ELF" diff random.o good.o
check "bad BTF" "bad.btf:" diff --btf bad.btf good.o
usage "unknown command" "unknown command" frobnicate good.o
usage "unknown option" "unrecognized option" dump --frob good.o
usage "bad format" "invalid --format" dump --format=xml good.o
usage "missing operand" "diff needs two files" diff good.o
usage "missing option argument" "option '--format' requires an argument" dump good.o --format
# Options after operands, and abbreviated long options with their argument in the next word,
# are getopt_long's own: dump FILE --form json is JSON.
if "$tool" dump good.o --form json | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; then
	pass=$((pass + 1)); echo "ok   dump FILE --form json"
else
	fail=$((fail + 1)); echo "FAIL dump FILE --form json"
fi
check "missing --headers dir" "nodir: No such file" dump good.o --headers nodir
usage "show without a file" "show needs TYPE and one FILE or two" show 'struct s'
usage "show --type" "show takes its TYPE as an operand" show s good.o --type s
check "show --all --type of no type" "--type 'struct nosuch': no such type" show --all good.o --type 'struct nosuch'
# A filter that selects nothing from a non-empty model is a mistake, named, never an empty answer.
mkdir -p hdrs
check "--type that selects nothing (dump)" "--type 'struct no_such_type': no such type in good.o" dump good.o --type 'struct no_such_type'
check "--type that selects nothing (diff)" "--type 'nope': no such type in good.o or good.o" diff good.o good.o --type nope
check "--type struct for a union" "--type 'struct u': no such type in good.o (there is union u)" dump good.o --type 'struct u'
check "--headers that selects nothing" "--headers hdrs: no type of good.o is declared in a file under it" dump good.o --headers hdrs
# Several --headers are one filter: uapi-check names both sides' include directories for every comparison.
if "$tool" dump good.o --headers hdrs --headers . | grep -q '^struct s {'; then
	pass=$((pass + 1)); echo "ok   --headers: an empty directory beside one that selects"
else
	fail=$((fail + 1)); echo "FAIL --headers: an empty directory beside one that selects"
fi
check "several --headers that select nothing" "--headers hdrs ...: no type of good.o is declared in a file under them" dump good.o --headers hdrs --headers hdrs
check "--common-only that selects nothing" "--common-only: good.o and other.o have no type in common" diff good.o other.o --common-only
check "show of a missing type" "show: no type 'struct nope' in good.o" show 'struct nope' good.o
check "show of a union as a struct" "show: no type 'struct u' in good.o or good.o (there is union u)" show 'struct u' good.o good.o
# ... and what the name forms select: a bare tag, a union, a typedef of a tagged struct.
for form in s 'struct s' s_t 'union u' u; do
	rc=0
	"$tool" dump good.o --type "$form" > out.txt 2> err.txt || rc=$?
	if [ "$rc" = 0 ] && [ ! -s err.txt ] && [ "$(grep -c '^struct \|^union ' out.txt)" = 1 ]; then
		pass=$((pass + 1)); echo "ok   dump --type '$form': $(grep '^struct \|^union ' out.txt)"
	else
		fail=$((fail + 1)); echo "FAIL dump --type '$form': exit $rc, $(grep -c '^struct \|^union ' out.txt) types"
	fi
done
# diff compares one ABI: objects of two machines, classes or byte orders are refused, naming both.
check "diff of x86-64 and AArch64" "good.o (x86-64, 64-bit, little-endian) and arm64.o (AArch64, 64-bit, little-endian): objects of different machines" diff good.o arm64.o
check "diff of little- and big-endian" "good.o (x86-64, 64-bit, little-endian) and s390x.o (S/390, 64-bit, big-endian): objects of different machines" diff good.o s390x.o
check "diff of x86-64 and i386" "a 64-bit and a 32-bit object of one architecture: use --compat" diff good.o i386.o
check "diff --compat of x86-64 and AArch64" "objects of different machines" diff good.o arm64.o --compat
check "diff of AArch64 little- and big-endian" "arm64.o (AArch64, 64-bit, little-endian) and arm64be.o (AArch64, 64-bit, big-endian): objects of different byte orders" diff arm64.o arm64be.o
rc=0
"$tool" diff good.o i386.o --compat > /dev/null || rc=$?
if [ "$rc" = 1 ] && "$tool" show s good.o arm64.o > /dev/null; then
	pass=$((pass + 1)); echo "ok   diff --compat of x86-64 and i386, show of two machines"
else
	fail=$((fail + 1)); echo "FAIL diff --compat of x86-64 and i386, or show of two machines"
fi
# Inputs that once crashed a reader (found by fuzzing): read, or rejected cleanly. Every input the
# README lists must be there: a regression input that was never committed tests nothing.
listed=$(grep -oE '^\| `[^`]+\.(o|btf)`' "$ROOT_FIXTURES/README.md" | tr -d '|` ' | sort)
present=$(cd "$ROOT_FIXTURES" && ls -- *.o *.btf 2>/dev/null | sort)
if [ -n "$listed" ] && [ "$listed" = "$present" ]; then
	pass=$((pass + 1)); echo "ok   fixtures/corrupt/ holds the $(echo "$listed" | wc -l) inputs its README lists"
else
	fail=$((fail + 1)); echo "FAIL fixtures/corrupt/: README lists [$(echo $listed)], directory holds [$(echo $present)]"
fi
for f in "$ROOT_FIXTURES"/*.o "$ROOT_FIXTURES"/*.btf; do
	rc=0
	btf=
	case "$f" in *.btf) btf=--btf ;; esac
	timeout 20 "$tool" dump $btf "$f" > /dev/null 2> err.txt || rc=$?
	if { [ "$rc" = 0 ] || { [ "$rc" = 2 ] && [ "$(wc -l < err.txt)" = 1 ]; }; } && ! grep -qiE 'sanitizer|runtime error' err.txt; then
		pass=$((pass + 1)); echo "ok   fixtures/corrupt/$(basename "$f"): exit $rc"
	else
		fail=$((fail + 1)); echo "FAIL fixtures/corrupt/$(basename "$f"): exit $rc"; head -5 err.txt
	fi
done
# A report that cannot be written leaves nothing behind and names the file.
check "unwritable output" "adir/sub/out.txt" dump good.o -o adir/sub/out.txt
[ -z "$(ls adir)" ] && pass=$((pass + 1)) && echo "ok   no temporary file left" || { fail=$((fail + 1)); echo "FAIL temporary file left in adir"; }
# And the good object still works, with --output written atomically.
if "$tool" dump good.o -o report.txt && grep -q 'struct s {' report.txt && [ -z "$(ls report.txt.tmp* 2>/dev/null)" ]; then
	pass=$((pass + 1)); echo "ok   good object, --output"
else
	fail=$((fail + 1)); echo "FAIL good object, --output"
fi
# --report: bad forms are usage errors; written reports are those of separate runs, byte for byte.
usage "--report without a file" "invalid --report 'text:'" diff good.o other.o --report=text:
usage "--report of an unknown format" "invalid --report 'xml:r.xml'" diff good.o other.o --report=xml:r.xml
usage "--report with dump" "--report applies to diff only" dump good.o --report=text:r.txt
usage "--report sarif with --compat" "--compat applies to diff, in text or json" diff good.o good.o --compat --report=sarif:r.sarif
check "--report to a device" "/dev/null: is a device" diff good.o other.o --report=text:/dev/null
rm -f r.*
rc=0
"$tool" diff good.o other.o --format=json --report=text:r.txt --report=sarif:r.sarif --report=junit:r.xml > r.json || rc=$?
ok=true
for f in json:r.json text:r.txt sarif:r.sarif junit:r.xml; do
	"$tool" diff good.o other.o --format="${f%%:*}" > alone.out || true
	cmp -s alone.out "${f#*:}" || ok=false
done
if [ "$rc" = 1 ] && $ok && [ -z "$(ls r.*.tmp* 2>/dev/null)" ]; then
	pass=$((pass + 1)); echo "ok   --report: four formats from one run, each as a run of its own writes it"
else
	fail=$((fail + 1)); echo "FAIL --report: exit $rc, or a report differs from its own run's"
fi
"$tool" --version | grep -q '^abidiff-uapi [0-9]' && "$tool" --help | grep -q '^Usage:' && pass=$((pass + 1)) && echo "ok   --help, --version" || { fail=$((fail + 1)); echo "FAIL --help/--version"; }
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
