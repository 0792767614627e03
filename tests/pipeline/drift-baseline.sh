#!/bin/bash
# drift-baseline.sh: the 6.1 -> 6.12 drift fails on its breaks; report.txt opens with them
# (removed headers as one line each, C++ repeats folded); the same run with --baseline of its own
# report passes, and so does one whose every break is waived; malformed waiver and baseline files
# give exit 2 naming the file (and line) before any work.
set -eu
. "$(dirname "$0")/lib.sh"
echo "checks: drift 6.1 -> 6.12 fails; --baseline and --waivers accept known findings; bad files exit 2"
set +e
"$check" --old 6.1 --new 6.12 --out "$work/out" --quiet >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
expect "drift: exit 1 (got $rc)" [ "$rc" -eq 1 ]
r=$work/out/report.json
if [ ! -f "$r" ]; then bad "report.json written"; cat "$work/stderr"; finish; fi
agree "$work/out" "$rc"
txt=$work/out/report.txt
expect "report.txt opens with the breaks" sh -c 'sed -n 3p "$1" | grep -q "^Breaks: [0-9]* types and [0-9]* constants in [0-9]* headers$"' _ "$txt"
expect "drm/via_drm.h is named as a removed header" grep -q "^  drm/via_drm.h removed: [0-9]* types, [0-9]* constants$" "$txt"
# The types of removed headers (drm_via_agp_t...) get no line of their own in the breaks.
json_get "$r" '"\n".join(sorted({"    %s:" % f["type"] for f in r["steps"]["compare"]["c-before_c-after"]["findings"] if f["status"] == "removed" and f["file"] in {h["header"] for h in r["removed_headers"]}}))' >"$work/gone"
expect "the removed headers held types ($(wc -l <"$work/gone"))" [ "$(wc -l <"$work/gone")" -gt 50 ]
expect "no per-type line for a type of a removed header" \
	sh -c '! sed -n "1,/^Review:/p" "$1" | grep -qF -f "$2"' _ "$txt" "$work/gone"
expect "a C++ finding repeating a C one is folded into it" grep -q "also in C++\]$" "$txt"
expect "side-by-side layouts" grep -q "^        OLD  *NEW$" "$txt"
expect "review section after the breaks" grep -q "^Review: [0-9]* types$" "$txt"
expect "safe findings counted by reason" grep -q "^Safe: [0-9]* types: .*sentinel [0-9]*" "$txt"
expect "removed headers in report.json" json_get "$r" 'sys.exit("drm/via_drm.h" not in [h["header"] for h in r["removed_headers"]])'
expect "findings carry the tool's severity" \
	json_get "$r" 'sys.exit(not all(f.get("tool_severity") in ("break", "review", "safe") for c in r["steps"]["compare"].values() for f in c["findings"]))'

# The same drift against its own report as the baseline: nothing new, exit 0.
set +e
"$check" --old 6.1 --new 6.12 --out "$work/out2" --quiet --baseline "$r" >"$work/stdout2" 2>"$work/stderr2"
rc=$?
set -e
expect "--baseline of its own report: exit 0 (got $rc)" [ "$rc" -eq 0 ]
agree "$work/out2" "$rc"
expect "SARIF: every baselined finding suppressed, 'in baseline'" json_get "$work/out2/report.sarif" \
	'sys.exit(not r["runs"][0]["results"] or any(x["level"] == "error" and x.get("suppressions", [{}])[0].get("justification") != "in baseline" for x in r["runs"][0]["results"]))'
n=$(json_get "$work/out2/report.json" 'sum(1 for c in r["steps"]["compare"].values() for f in c["findings"] if f["severity"] == "baselined")')
expect "every break listed as baselined ($n)" [ "$n" -gt 100 ]

# Waive every failing type of the first run (a reason each): exit 0, each listed as waived.
json_get "$r" '"\n".join(sorted({"%s  known in this test" % f["type"] for c in r["checks"] for f in c["findings"]}))' >"$work/waivers"
set +e
"$check" --old 6.1 --new 6.12 --out "$work/out3" --quiet --waivers "$work/waivers" >/dev/null 2>"$work/stderr3"
rc=$?
set -e
expect "--waivers for every failing type: exit 0 (got $rc)" [ "$rc" -eq 0 ]
agree "$work/out3" "$rc"
expect "report.txt lists the waived findings" grep -q "^Accepted (waived or in the baseline): " "$work/out3/report.txt"

# Malformed files: exit 2, FILE:LINE: reason, no report.
printf '# a comment\nstruct kvm_run\n' >"$work/bad-waivers"
set +e
"$check" --old 6.1 --new 6.12 --out "$work/out4" --waivers "$work/bad-waivers" >/dev/null 2>"$work/stderr4"
rc=$?
set -e
expect "malformed waivers: exit 2 (got $rc)" [ "$rc" -eq 2 ]
expect "malformed waivers: FILE:LINE: reason" grep -q "^uapi-check: error: $work/bad-waivers:2: no reason given for struct kvm_run" "$work/stderr4"
echo '{"tool": "abidiff-uapi"}' >"$work/bad.json"
set +e
"$check" --old 6.1 --new 6.12 --out "$work/out4" --baseline "$work/bad.json" >/dev/null 2>"$work/stderr5"
rc=$?
set -e
expect "malformed baseline: exit 2 (got $rc)" [ "$rc" -eq 2 ]
expect "malformed baseline: FILE: not a uapi-check report" grep -q "^uapi-check: error: $work/bad.json: not a uapi-check report" "$work/stderr5"
expect "no report after a malformed file" [ ! -e "$work/out4/report.json" ]
finish
