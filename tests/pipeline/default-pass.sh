#!/bin/bash
# default-pass.sh: the default run (linux-source-6.1 with patches/linux-6.1) exits 0 and
# report.json says pass. Only passes once the series is complete. Also: headers left out of
# the all-headers units are compared in units of their own (linux/uio.h's struct iovec).
set -eu
. "$(dirname "$0")/lib.sh"
kernel=${1:-6.1}
echo "checks: uapi-check --kernel $kernel exits 0, report.json verdict pass, every check passes"
tool=$root/build/abidiff-uapi/abidiff-uapi

# Headers left out of the all-headers units (collisions with glibc) are compared in units of
# their own: every header that compiles alone has a layout check, and linux/uio.h's struct
# iovec, which is never in a main unit, is compared by matrix lines that catch a planted change.
left_out_checks() {
	local out=$work/out r=$work/out/report.json
	got=$(json_get "$r" '" ".join("%s:%d/%d" % (k, v["checked"], v["compile_alone"]) for k, v in r["steps"]["extra_units"]["coverage"].items())')
	echo "  headers with a layout check: $got"
	expect "every header that compiles alone has a layout check" \
		json_get "$r" 'sys.exit(any(v["checked"] != v["compile_alone"] for v in r["steps"]["extra_units"]["coverage"].values()))'
	expect "every comparison covers the headers that compile on both sides" \
		json_get "$r" 'sys.exit(any(v["without"] for v in r["steps"]["coverage"].values()))'
	expect "report.txt counts the headers with a layout check" grep -q "headers with a layout check: c-after" "$out/report.txt"
	expect "linux/uio.h is left out of the C unit" \
		json_get "$r" 'sys.exit("linux/uio.h" not in [c["header"] for c in r["steps"]["units"]["c-after"]["collisions"]])'
	for u in c-before c-after cxx-before cxx-after; do
		expect "obj/$u+linux-uio.o written" [ -s "$out/obj/$u+linux-uio.o" ]
	done
	for name in c-before_c-after cxx-before_cxx-after c-after_cxx-after c-before_cxx-after; do
		expect "matrix line $name+linux-uio" grep -q "^$name+linux-uio obj/" "$out/matrix.txt"
		expect "diff/$name+linux-uio.{json,txt} written" [ -s "$out/diff/$name+linux-uio.json" -a -s "$out/diff/$name+linux-uio.txt" ]
	done
	expect "struct iovec (linux/uio.h) is in obj/cxx-after+linux-uio.o" \
		sh -c 'cd "$1" && "$2" dump obj/cxx-after+linux-uio.o --headers include/after --type "struct iovec" |
			grep -q "iov_len; *\/\* *8 *8 \*\/"' _ "$out" "$tool"
	# Plant a change in struct iovec (iov_len becomes 4 bytes) in a copy of the out dir, rebuild
	# the C after object the same way, and replay the C before/after matrix line on it.
	local p=$work/planted
	mkdir -p "$p/obj"
	cp -r "$out/include" "$out/work" "$p/"
	sed -i 's/__kernel_size_t iov_len;/unsigned int iov_len;/' "$p/include/after/linux/uio.h"
	(cd "$p" && ${CC:-gcc} -std=gnu11 -g -fno-eliminate-unused-debug-types -w -I include/after \
		-c "work/c-after+linux-uio.c" -o "obj/c-after+linux-uio.o" -fdebug-prefix-map="$p"=.)
	cp "$out/obj/c-before+linux-uio.a" "$p/obj/"
	# The matrix compares archives of each unit and its #define constants (step 3c): the run's
	# own, with the unit's member replaced by the planted object.
	cp "$out/obj/c-after+linux-uio.a" "$p/obj/"
	ar rSD "$p/obj/c-after+linux-uio.a" "$p/obj/c-after+linux-uio.o"
	line=$(grep "^c-before_c-after+linux-uio " "$out/matrix.txt" | cut -d' ' -f2-)
	set +e
	(cd "$p" && "$tool" diff $line) >"$work/planted.txt" 2>&1
	rc=$?
	set -e
	expect "the matrix line flags a planted change in struct iovec (exit $rc)" [ "$rc" -eq 1 ]
	expect "the planted change is reported on struct iovec" grep -q "^struct iovec: changed" "$work/planted.txt"
}

set +e
"$check" --kernel "$kernel" --out "$work/out" --quiet >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
expect "exit status 0 (got $rc)" [ "$rc" -eq 0 ]
if [ -f "$work/out/report.json" ]; then
	verdict=$(json_get "$work/out/report.json" 'r["verdict"]')
	expect "report.json verdict pass (got $verdict)" [ "$verdict" = pass ]
	json_get "$work/out/report.json" '"\n".join(("  pass " if c["pass"] else "  FAIL ") + c["description"] for c in r["checks"])'
	expect "report.txt written" [ -s "$work/out/report.txt" ]
	agree "$work/out" "$rc"
	for f in obj/c-before.o obj/c-after.o obj/cxx-before.o obj/cxx-after.o matrix.txt \
		diff/c-before_c-after.json diff/c-after_cxx-after.json; do
		expect "$f written" [ -s "$work/out/$f" ]
	done
	left_out_checks
else
	bad "report.json written"
	cat "$work/stderr"
fi
finish
