#!/bin/bash
# drift-compile.sh: in --old/--new mode, a header that compiled alone as C++ before and does not
# after fails the run, and every output names it with the compiler's first error: report.txt's
# first screen, report.json, report.sarif, report.junit.xml and report.html. The two trees are
# hard-linked copies of Debian's 6.12 headers tree; in the new one, linux/uinput.h gets a static
# inline function that is valid C and not C++ (a void * assigned to an int *), as a real stable
# update once did to a header.
set -eu
. "$(dirname "$0")/lib.sh"
echo "checks: --old/--new fails on a header that stops compiling alone in C++, in every output"

tree=$("$root/scripts/kernel-tree" --headers 6.12)
cp -al "$tree" "$work/old"
cp -al "$tree" "$work/new"
h=include/uapi/linux/uinput.h
# sed -i writes a new file: the hard link to the pristine tree is broken, not written through.
sed -i 's|^#endif /\* _UAPI__UINPUT_H_ \*/|static inline int *uinput_planted(void *p) { return p; }\n&|' "$work/new/$h"
expect "the planted function is in the new tree only" \
	sh -c 'grep -q uinput_planted "$1" && ! grep -q uinput_planted "$2"' _ "$work/new/$h" "$tree/$h"

set +e
"$check" --old "$work/old" --new "$work/new" --out "$work/out" --quiet >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
out=$work/out
expect "exit 1 (got $rc)" [ "$rc" -eq 1 ]
agree "$out" "$rc"
expect "report.txt opens with the header and its error" \
	sh -c 'sed -n 3,4p "$1" | tr "\n" " " | grep -q "^Headers that stopped compiling alone in C++: 1   linux/uinput.h: .*invalid conversion"' _ "$out/report.txt"
expect "report.json: the cxx-headers-compile check fails on linux/uinput.h" \
	json_get "$out/report.json" 'sys.exit(not any(c["check"] == "cxx-headers-compile" and not c["pass"] and any(f.get("header") == "linux/uinput.h" for f in c["findings"]) for c in r["checks"]))'
expect "report.json: the C check passes" \
	json_get "$out/report.json" 'sys.exit(not any(c["check"] == "c-headers-compile" and c["pass"] for c in r["checks"]))'
expect "report.sarif: an error result on linux/uinput.h" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(x["ruleId"] == "cxx-headers-compile" and x["level"] == "error"
                 and x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "include/uapi/linux/uinput.h"
                 for run in d["runs"] for x in run.get("results", [])))' "$out/report.sarif"
expect "report.junit.xml: a failing testcase for linux/uinput.h" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
sys.exit(not any(c.get("name") == "linux/uinput.h" and c.find("failure") is not None for c in root.iter("testcase")))' "$out/report.junit.xml"
expect "report.html names the header" grep -q "<code>linux/uinput.h</code> (C++)" "$out/report.html"
finish
