# lib.sh: helpers shared by the tests/pipeline scripts (sourced, not run).
root=$(cd "$(dirname "$0")/../.." && pwd)
check=$root/uapi-check
failures=0
work=$(mktemp -d "${TMPDIR:-/tmp}/uapi-check-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect() { # expect DESCRIPTION COMMAND...: the command must succeed
	local what=$1; shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
	if [ "$failures" -eq 0 ]; then echo "1 passed, 0 failed"; exit 0; fi
	echo "0 passed, 1 failed ($failures checks)"; exit 1
}
# json_get FILE PYTHON-EXPRESSION-ON-r: print a value of report.json
json_get() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
# agree OUT EXIT: the five reports in OUT and the run's exit status say the same (tests/agree.py:
# the first screen's counts, report.html's, JUnit's, SARIF's, valid against OASIS's schema)
agree() {
	if /usr/bin/python3 "$root/tests/agree.py" "$1" "$2"; then ok "the five reports of $(basename "$1") agree with exit $2"
	else bad "the five reports of $(basename "$1") agree with exit $2"; fi
}
