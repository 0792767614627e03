#!/bin/bash
# run-labels.sh: the drift between Debian's 6.1 and 6.12 trees, judged against the hand-triaged
# labels (tests/drift/labels-6.1-6.12.tsv, and labels-constants-6.1-6.12.tsv for the #define
# constants). Runs uapi-check --old 6.1 --new 6.12 into OUT (it
# reuses the pipeline's cache), then tests/drift/check-labels.py on every C comparison of its
# matrix: the whole-UAPI unit and each left-out header's unit. Fails if any severity differs
# from its label, any finding that is not `added` has no label, or a labelled unit is missing.
# Usage: tests/drift/run-labels.sh ABIDIFF_UAPI [OUT]   (default OUT: build/drift)
set -eu
tool=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$root/build/drift}
labels=$root/tests/drift/labels-6.1-6.12.tsv
constants=$root/tests/drift/labels-constants-6.1-6.12.tsv
check=$root/tests/drift/check-labels.py

echo "drift-labels: uapi-check --old 6.1 --new 6.12 --out $out (the drift objects and headers)"
rc=0
ABIDIFF_UAPI_TOOL=$tool "$root/uapi-check" --old 6.1 --new 6.12 --out "$out" --quiet || rc=$?
# 0 or 1 are both fine: the verdict is what check-labels judges; 2 means it could not run.
if [ "$rc" -gt 1 ] || [ ! -s "$out/matrix.txt" ] || [ ! -s "$out/obj/c-after.o" ]; then
	echo "drift-labels: uapi-check could not build the drift objects (exit $rc)"
	exit 1
fi

status=0
units=""
pairs=0
# matrix.txt: NAME OLD.o NEW.o [--headers DIR]... [--common-only]; the C pairs only.
while read -r name old new rest; do
	case "$name" in
	c-before_c-after) unit=main ;;
	c-before_c-after+*) unit=${name#c-before_c-after+} ;;
	*) continue ;;
	esac
	units="$units $unit"
	pairs=$((pairs + 1))
	echo
	echo "drift-labels: $name ($unit)"
	# shellcheck disable=SC2086 # rest is the matrix's option list, split on purpose
	(cd "$out" && python3 "$check" --unit "$unit" $rest "$tool" "$old" "$new" "$labels" "$constants") || status=1
done <"$out/matrix.txt"

# Every unit that has labels must have been compared (unit names have no spaces).
# shellcheck disable=SC2013
for u in $(cat "$labels" "$constants" | grep -v '^#' | awk -F'\t' '$1 != "type" && NF == 6 { print $6 }' | sort -u); do
	case " $units " in
	*" $u "*) ;;
	*) echo "drift-labels: labels for unit $u, but uapi-check compared no such unit"; status=1 ;;
	esac
done
# The ioctl request numbers of the drift (tests/drift/README.md): exactly five move in C, each because
# its argument grew at the tail, so each is review, not a break.
want="AMDKFD_IOC_CREATE_QUEUE:review DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT:review DRM_IOCTL_SYNCOBJ_WAIT:review DRM_IOCTL_V3D_SUBMIT_TFU:review DRM_IOCTL_VIRTGPU_EXECBUFFER:review"
got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(sorted("%s:%s" % (i["ioctl"], i["verdict"]) for i in r["ioctls"].get("c-before_c-after", []))))' "$out/report.json")
if [ "$got" = "$want" ]; then
	echo "drift-labels: the 5 ioctl numbers that move in C, all review (tail growth of their argument)"
else
	echo "drift-labels: ioctl numbers that move in C: got '$got', want '$want'"
	status=1
fi
# report.txt's first screen fits (60 lines of 120 characters) and README.md's example is this run's.
echo
PYTHONPATH=$root${PYTHONPATH:+:$PYTHONPATH} python3 "$root/tests/drift/check-screen.py" "$out/report.txt" "$root/README.md" || status=1
echo
echo "drift-labels: $pairs C comparisons checked against $labels: $([ "$status" -eq 0 ] && echo agree || echo DISAGREE)"
exit "$status"
