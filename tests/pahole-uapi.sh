#!/bin/bash
# pahole-uapi.sh: dump of whole-UAPI objects (all headers of a kernel in one unit, C and C++,
# before and after the series) must agree with pahole on every struct's size and member offsets, and
# show --all on every struct's and union's expanded members (io.port), offsets and sizes; one pahole
# run per object serves both.
# The objects come from the pipeline (./uapi-check), run into a scratch directory.
# Usage: tests/pahole-uapi.sh ABIDIFF_UAPI [KERNEL...]   (default kernels: 6.1 6.12)
set -eu
tool=$(realpath "$1")
shift
root=$(cd "$(dirname "$0")/.." && pwd)
kernels=${*:-6.1 6.12}
status=0
for k in $kernels; do
	out=$root/build/tests/pahole-$k
	echo "pahole-uapi: building the whole-UAPI objects of $k (uapi-check --out $out)"
	rc=0
	"$root/uapi-check" --kernel "$k" --out "$out" --quiet || rc=$?
	# 0 or 1 are both fine here: only the objects are needed.
	if [ "$rc" -gt 1 ] || [ ! -s "$out/obj/c-after.o" ]; then
		echo "pahole-uapi: uapi-check could not build the objects of $k (exit $rc)"
		status=1
		continue
	fi
	# The units' objects; obj/*.defines.o (and the .a archives) hold the #define constants
	# (step 3c), and obj/ioctls-*.o the ioctl numbers (step 4b: one enum, now written as
	# literals, with no header's struct in it), no layouts: tests/ioctls-uapi.py checks those.
	objs=()
	for o in "$out"/obj/*.o; do
		case "$o" in *.defines.o | */ioctls-*.o) ;; *) objs+=("$o") ;; esac
	done
	python3 "$root/tests/pahole-crosscheck.py" "$tool" "${objs[@]}" || status=1
	# And the BTF reader agrees with the DWARF reader on the same C objects.
	bash "$root/tests/btf-roundtrip.sh" "$tool" "$out"/obj/c-before.o "$out"/obj/c-after.o || status=1
done
exit "$status"
