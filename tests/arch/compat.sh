#!/bin/bash
# compat.sh ARCH32 KERNEL: `uapi-check --compat ARCH32 --kernel KERNEL` runs (exit 0, it is
# informational), and what it lists agrees with both compilers (compat-check.py).
set -eu
. "$(dirname "$0")/../pipeline/lib.sh"
a32=${1:?usage: compat.sh ARCH32 KERNEL}
kernel=${2:?usage: compat.sh ARCH32 KERNEL}
echo "checks: uapi-check --compat $a32 --kernel $kernel exits 0; its sizes and ioctl numbers agree with the compilers"
out=$root/build/arch/$kernel-compat-$a32
set +e
"$check" --kernel "$kernel" --compat "$a32" --out "$out" --jobs 2 >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
cat "$work/stdout"
[ "$rc" -eq 0 ] || tail -n 20 "$work/stderr"
expect "exit status 0 (got $rc)" [ "$rc" -eq 0 ]
if [ -f "$out/report.json" ]; then
	expect "report.txt says it does not know the compat handlers" grep -q "does not know which ioctls have compat handlers" "$out/report.txt"
	expect "the report agrees with both compilers" python3 "$root/tests/arch/compat-check.py" "$out"
	agree "$out" "$rc"
fi
finish
