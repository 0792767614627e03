#!/bin/bash
# default-pass.sh: the default run (linux-source-6.1 with patches/linux-6.1) exits 0 and
# report.json says pass. Only passes once the series is complete.
set -eu
. "$(dirname "$0")/lib.sh"
kernel=${1:-6.1}
echo "checks: uapi-check --kernel $kernel exits 0, report.json verdict pass, every check passes"
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
	for f in obj/c-before.o obj/c-after.o obj/cxx-before.o obj/cxx-after.o matrix.txt \
		diff/c-before_c-after.json diff/c-after_cxx-after.json; do
		expect "$f written" [ -s "$work/out/$f" ]
	done
else
	bad "report.json written"
	cat "$work/stderr"
fi
finish
