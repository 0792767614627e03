#!/bin/bash
# missing-compiler.sh: a C or C++ compiler that cannot be found gives exit 2, a clear
# message and no report.
set -eu
. "$(dirname "$0")/lib.sh"
echo "checks: CXX or CC naming a missing compiler -> exit 2, message names it, no report"
for var in CXX CC; do
	rm -rf "$work/out"
	set +e
	env "$var=/nonexistent/bin/no-such-compiler" "$check" --kernel 6.1 --out "$work/out" \
		>"$work/stdout" 2>"$work/stderr"
	rc=$?
	set -e
	sed 's/^/  stderr: /' "$work/stderr" | tail -n 1
	expect "$var missing: exit status 2 (got $rc)" [ "$rc" -eq 2 ]
	expect "$var missing: the message names the compiler" grep -q "no-such-compiler.*not found" "$work/stderr"
	expect "$var missing: no report.json" [ ! -e "$work/out/report.json" ]
done
finish
