#!/bin/bash
# valgrind-uapi.sh: dump and diff of whole-UAPI objects under valgrind (memcheck, full leak
# check): any invalid access, use of uninitialised memory or leak fails.
# Objects: those pahole-uapi.sh built (build/tests/pahole-6.1), else built with uapi-check.
# Usage: tests/valgrind-uapi.sh ABIDIFF_UAPI
set -eu
tool=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/tests/pahole-6.1
if [ ! -s "$out/obj/c-after.o" ]; then
	rc=0
	"$root/uapi-check" --kernel 6.1 --out "$out" --quiet || rc=$?
	[ "$rc" -le 1 ] || { echo "valgrind-uapi: could not build the objects (uapi-check exit $rc)"; exit 1; }
fi
pass=0 fail=0
run() {
	local what=$1
	shift
	local rc=0
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible "$tool" "$@" > /dev/null 2> "$out/valgrind.log" || rc=$?
	if [ "$rc" = 99 ] || [ "$rc" -gt 1 ] || [ -s "$out/valgrind.log" ]; then
		fail=$((fail + 1)); echo "FAIL $what (exit $rc)"; head -30 "$out/valgrind.log"
	else
		pass=$((pass + 1)); echo "ok   $what: valgrind clean"
	fi
}
# From the output folder, as uapi-check runs the tool: its objects name their build folder "."
# (-ffile-prefix-map), so --headers is relative to it.
cd "$out"
run "dump C object" dump obj/c-after.o
run "dump --format=json C++ object" dump --format=json obj/cxx-after.o
run "diff C before vs C++ after" diff obj/c-before.o obj/cxx-after.o --headers include/before --headers include/after
run "diff --format=json C before vs after" diff --format=json obj/c-before.o obj/c-after.o
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
