# common.sh: sourced by the tests in tests/qemu. Makes a stand-in tool and pipeline output (fixtures/)
# in the test's own directory, and runs qemu/run on them, keeping its exit status and output.
# Set by the sourcing test before: name. Environment: QEMU_TEST_KERNEL (default 6.1).
root=$(cd "$(dirname "$0")/../.." && pwd)
kver=${QEMU_TEST_KERNEL:-6.1}
dir=$root/build/qemu-tests/$name
rm -rf "$dir"
mkdir -p "$dir"
tool=$root/tests/qemu/fixtures/fake-abidiff-uapi
"$root/tests/qemu/fixtures/make-uapi-dir" "$dir/uapi" "$tool"

# The stand-in tool compares nothing against the kernel's BTF: it expects no differences.
: > "$dir/btf-expected.txt"
export QEMU_BTF_EXPECTED=$dir/btf-expected.txt

fail() { echo "FAIL $name: $*" >&2; exit 1; }
ok() { echo "ok   $name: $*"; }

# run_qemu ARGS...: sets rc, seconds and output (stdout and stderr of qemu/run, also in $dir/run.log).
run_qemu() {
	local start
	start=$(date +%s)
	set +e
	"$root/qemu/run" --kernel "$kver" --out "$dir/out" --tool "$tool" --uapi-dir "$dir/uapi" "$@" > "$dir/run.log" 2>&1
	rc=$?
	set -e
	seconds=$(($(date +%s) - start))
	output=$(cat "$dir/run.log")
	echo "qemu/run $* -> exit $rc in $seconds s (log: $dir/run.log)"
}

# report_field EXPR: a value from guest-report.json, EXPR in Python over `r`.
report_field() {
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$dir/out/guest-report.json" "$1"
}
