#!/bin/bash
# btf-roundtrip.sh: the BTF reader (libbpf) and the DWARF reader (libdw) must agree. pahole encodes
# BTF from an object's DWARF (with --btf_gen_floats, as the kernel build does); then
# `abidiff-uapi diff --btf` of that BTF against the same object must compare every type and find
# no difference, and so must `diff OBJECT BTF` without --btf (BTF known by its magic as NEW).
# With no objects given, it builds one per fixture header.
# Usage: tests/btf-roundtrip.sh ABIDIFF_UAPI [OBJECT...]
set -eu
tool=$(realpath "$1")
shift
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
objs=("$@")
if [ ${#objs[@]} = 0 ]; then
	for d in "$root"/fixtures/cases/*/; do
		n=$(basename "$d")
		grep -q 'c++' "$d/case.conf" 2>/dev/null && continue
		grep -q 'm32' "$d/case.conf" 2>/dev/null && continue
		h=$d/new.h
		[ -f "$h" ] || h=$d/old.h
		printf '#include "%s"\n' "$h" > "$work/$n.c"
		gcc -g -fno-eliminate-unused-debug-types -c "$work/$n.c" -o "$work/$n.o"
		objs+=("$work/$n.o")
	done
fi
pass=0 fail=0
for o in "${objs[@]}"; do
	n=$(basename "$o")
	cp "$o" "$work/rt-$n"
	pahole -J --btf_gen_floats "$work/rt-$n" 2>/dev/null
	objcopy --dump-section .BTF="$work/$n.btf" "$work/rt-$n"
	rc=0
	"$tool" diff --btf "$work/$n.btf" "$o" --common-only --format=json > "$work/$n.json" || rc=$?
	read -r compared dwarf verdict < <(python3 - "$work/$n.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["counts"]
print(c["unchanged"] + c["changed"] + c["aliased"] + c["extended"] + c["renamed"], c["new_types"], r["verdict"])
PY
)
	all=$("$tool" dump "$o" --format=json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["types"]))')
	# The other way round, with no --btf: raw BTF is known by its magic on either side.
	rrc=0
	"$tool" diff "$o" "$work/$n.btf" --common-only >/dev/null || rrc=$?
	if [ "$rc" = 0 ] && [ "$rrc" = 0 ] && [ "$verdict" = compatible ] && [ "$compared" = "$all" ] && [ "$all" -gt 0 ]; then
		pass=$((pass + 1))
		echo "ok   $n: $compared of $all types equal in BTF and DWARF, both ways"
	else
		fail=$((fail + 1))
		echo "FAIL $n: exit $rc (reversed: $rrc), verdict $verdict, $compared compared of $all DWARF types"
		"$tool" diff --btf "$work/$n.btf" "$o" --common-only | head -30 | sed 's/^/    /'
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
