#!/usr/bin/python3
"""agree: the five reports of one uapi-check run say the same thing, and so does its exit status.

Reads OUT/report.{txt,json,sarif,junit.xml,html} and checks that
  - the exit status is 0 when report.json's verdict is pass, 1 when it is fail;
  - report.txt's first line, report.html's verdict and SARIF's invocation say the same;
  - the failing findings (types and constants, and headers that stopped compiling alone) that
    report.txt's first screen counts are report.html's summary counts, JUnit's failures and the
    unsuppressed SARIF error results; and there are some exactly when the verdict is fail;
  - the accepted ones (waived, in the baseline) are JUnit's skipped testcases and the SARIF
    results with an external suppression, each with a justification;
  - the review ones are the first screen's, the HTML summary's, SARIF's warning results and the
    JUnit testcases that say "review";
  - report.sarif is valid against OASIS's SARIF 2.1.0 schema and is a file GitHub code scanning
    accepts (tests/agree.py: github_problems).
With --each-commit, OUT is an --each-commit directory: each commit's reports agree, and the exit
status is 1 when one commit fails.

Usage: agree.py [--each-commit] OUT EXIT_STATUS       (prints the problems; exit 1 if any)
Uses Debian's python3-jsonschema (scripts/install-deps test).
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema  # noqa: E402  (tests/schema.py: the validators of abidiff-uapi/schema)
from uapi_check.screen import DETAILS  # noqa: E402

_VALIDATORS = {}


def sarif_validator():
    if "sarif" not in _VALIDATORS:
        _VALIDATORS.update(schema.validators())
    return _VALIDATORS["sarif"]


def screen_counts(text):
    """The counts of report.txt's first screen (everything before "Summary")."""
    head = text.split("\nSummary\n", 1)[0]
    head = head.split("\n" + DETAILS + "\n", 1)[0]    # the details repeat the figures, type by type
    n = {"verdict": None, "types": 0, "constants": 0, "compile": 0, "review": 0, "accepted": 0}
    m = re.match(r"uapi-check: (PASS|FAIL) ", head)
    n["verdict"] = m.group(1).lower() if m else None
    m = re.search(r"^Breaks: (.*)$", head, re.M)
    if m and m.group(1) != "none":
        for k, word in (("types", "type"), ("constants", "constant")):
            k_m = re.search(rf"(\d+) {word}s?\b", m.group(1))
            n[k] = int(k_m.group(1)) if k_m else 0
    n["breaks_line"] = bool(m)
    n["compile"] = sum(int(x) for x in re.findall(r"^Headers that stopped compiling alone in C(?:\+\+)?: (\d+)$", head, re.M))
    m = re.search(r"^Review: (\d+) types?$", head, re.M)
    n["review"] = int(m.group(1)) if m else 0
    m = re.search(r"^Accepted \(waived or in the baseline\): (\d+) findings?$", head, re.M)
    n["accepted"] = int(m.group(1)) if m else 0
    return n


def html_counts(text):
    def grab(pattern, cast=int):
        m = re.search(pattern, text)
        return cast(m.group(1)) if m else None
    return {"verdict": grab(r'id="verdict">(PASS|FAIL)<', lambda s: s.lower()),
            "types": grab(r'id="count-breaks" data-types="(\d+)"'),
            "constants": grab(r'id="count-breaks" data-types="\d+" data-constants="(\d+)"'),
            "compile": grab(r'id="count-compile">(\d+)<'),
            "review": grab(r'id="count-review">(\d+) types?<'),
            "accepted": grab(r'id="count-accepted">(\d+) findings?<')}


def junit_counts(text):
    root = ET.fromstring(text)
    cases = list(root.iter("testcase"))
    review = sum(1 for c in cases if (c.findtext("system-out") or "").startswith("review:"))
    problems = []
    for s in root.iter("testsuite"):
        mine = s.findall("testcase")
        for k, n in (("tests", len(mine)), ("failures", sum(1 for c in mine if c.find("failure") is not None)),
                     ("skipped", sum(1 for c in mine if c.find("skipped") is not None))):
            if int(s.get(k, -1)) != n:
                problems.append(f"junit: suite {s.get('name')}: {k}={s.get(k)} but {n} testcases")
    for c in cases:
        sk = c.find("skipped")
        if sk is not None and not sk.get("message"):
            problems.append(f"junit: skipped {c.get('name')} without its justification")
    total = {k: sum(int(s.get(k, 0)) for s in root.iter("testsuite")) for k in ("tests", "failures", "skipped")}
    for k, v in total.items():
        if int(root.get(k, -1)) != v:
            problems.append(f"junit: testsuites {k}={root.get(k)} but the suites add up to {v}")
    return {"fails": sum(1 for c in cases if c.find("failure") is not None),
            "accepted": sum(1 for c in cases if c.find("skipped") is not None), "review": review}, problems


def github_problems(sarif):
    """What GitHub code scanning rejects or cannot place: not exactly one run; a result without a
    physical location, or whose uri is absolute or has no uriBaseId; a rule id the run does not
    define (or a ruleIndex that names another); no partialFingerprints."""
    problems = []
    runs = sarif.get("runs") or []
    if len(runs) != 1:
        problems.append(f"sarif: {len(runs)} runs (code scanning takes one run of a tool per category)")
    for run in runs:
        rules = run["tool"]["driver"].get("rules") or []
        ids = [r["id"] for r in rules]
        if len(ids) != len(set(ids)):
            problems.append("sarif: a rule id twice")
        for r in rules:
            if not (r.get("help") or {}).get("text") or not (r.get("shortDescription") or {}).get("text"):
                problems.append(f"sarif: rule {r['id']} without its help text")
        for res in run.get("results") or []:
            what = f"sarif: result {res.get('ruleId')} ({res['message']['text'][:60]})"
            if res.get("ruleId") not in ids:
                problems.append(f"{what}: no such rule")
            elif "ruleIndex" in res and ids[res["ruleIndex"]] != res["ruleId"]:
                problems.append(f"{what}: ruleIndex names {ids[res['ruleIndex']]}")
            locs = res.get("locations") or []
            if not locs:
                problems.append(f"{what}: no location")
            for loc in locs:
                art = (loc.get("physicalLocation") or {}).get("artifactLocation") or {}
                uri = art.get("uri")
                if not uri:
                    problems.append(f"{what}: no physicalLocation.artifactLocation.uri")
                elif uri.startswith("/") or ":" in uri.split("/")[0] or not art.get("uriBaseId"):
                    problems.append(f"{what}: {uri} is not relative to a uriBaseId")
                elif not re.fullmatch(r"(include/uapi|arch/[a-z0-9_]+/(include/uapi|entry/syscalls)|usr/include)/.*"
                                      r"|arch/[a-z0-9_]+/include/uapi/asm/Kbuild|Makefile", uri):
                    problems.append(f"{what}: {uri} is not a path of a kernel tree")
            if not res.get("partialFingerprints"):
                problems.append(f"{what}: no partialFingerprints")
    return problems


def sarif_counts(sarif):
    n = {"fails": 0, "accepted": 0, "review": 0, "notes": 0}
    problems = []
    for run in sarif.get("runs") or []:
        for res in run.get("results") or []:
            sup = res.get("suppressions")
            if sup:
                if not all(s.get("kind") == "external" and s.get("justification") for s in sup):
                    problems.append(f"sarif: suppression without kind external and a justification: {sup}")
                n["accepted"] += 1
            else:
                kind = {"error": "fails", "warning": "review", "note": "notes"}.get(res.get("level", "warning"))
                if kind:
                    n[kind] += 1
                else:
                    problems.append(f"sarif: result level {res.get('level')!r}")
    return n, problems


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def problems(out, rc):
    """Every way the five reports of OUT and the exit status rc disagree."""
    found = []
    paths = {k: os.path.join(out, f"report.{k}") for k in ("txt", "json", "sarif", "junit.xml", "html")}
    missing = [p for p in paths.values() if not os.path.isfile(p)]
    if missing:
        return [f"missing: {', '.join(missing)}"]
    js = json.loads(read(paths["json"]))
    if js.get("mode") == "compat":
        return compat_problems(paths, js, rc)
    verdict = js["verdict"]
    if rc != (1 if verdict == "fail" else 0):
        found.append(f"exit status {rc}, report.json says {verdict}")
    check_fails = sum(len(c["findings"]) for c in js["checks"])
    if (check_fails > 0) != (verdict == "fail"):
        found.append(f"report.json: verdict {verdict} with {check_fails} failing check findings")
    txt = screen_counts(read(paths["txt"]))
    if not txt["breaks_line"]:
        found.append("report.txt: no Breaks line on the first screen")
    page = html_counts(read(paths["html"]))
    sarif = json.loads(read(paths["sarif"]))
    found += [f"sarif: {e}" for e in schema.errors(sarif_validator(), sarif)[:5]]
    found += github_problems(sarif)
    sar, p = sarif_counts(sarif)
    found += p
    jun, p = junit_counts(read(paths["junit.xml"]))
    found += p
    fails = txt["types"] + txt["constants"] + txt["compile"]
    for what, a, b in (("report.txt verdict", txt["verdict"], verdict), ("report.html verdict", page["verdict"], verdict),
                       ("report.html breaking types", page["types"], txt["types"]),
                       ("report.html breaking constants", page["constants"], txt["constants"]),
                       ("report.html headers that stopped compiling", page["compile"], txt["compile"]),
                       ("report.html review", page["review"], txt["review"]),
                       ("report.html accepted", page["accepted"], txt["accepted"]),
                       ("JUnit failures", jun["fails"], fails), ("JUnit skipped", jun["accepted"], txt["accepted"]),
                       ("JUnit review testcases", jun["review"], txt["review"]),
                       ("SARIF errors", sar["fails"], fails), ("SARIF suppressed results", sar["accepted"], txt["accepted"]),
                       ("SARIF warnings", sar["review"], txt["review"]),
                       ("SARIF exit code", sarif["runs"][0]["invocations"][0].get("exitCode"), rc)):
        if a != b:
            found.append(f"{what}: {a}, report.txt's first screen (or the run) says {b}")
    if (fails > 0) != (verdict == "fail"):
        found.append(f"report.txt counts {fails} failing findings and the verdict is {verdict}")
    return found


def compat_problems(paths, js, rc):
    """--compat is informational: exit 0; every difference (type, ioctl number, constant) is a
    review item: a SARIF warning, a JUnit testcase that says review, none failing; report.txt
    and report.html count the types as report.json lists them."""
    found = [] if rc == 0 else [f"--compat: exit status {rc}"]
    n = len(js["types"]) + len(js["ioctls"]) + len((js.get("constants") or {}).get("differ") or [])
    sarif = json.loads(read(paths["sarif"]))
    found += [f"sarif: {e}" for e in schema.errors(sarif_validator(), sarif)[:5]]
    found += github_problems(sarif)
    sar, p = sarif_counts(sarif)
    jun, q = junit_counts(read(paths["junit.xml"]))
    found += p + q
    m = re.search(r"^Types whose layout differs: (\d+)$", read(paths["txt"]), re.M)
    h = re.search(r"<h2>(\d+) types differ", read(paths["html"]))
    for what, a, b in (("SARIF warnings", sar["review"], n), ("SARIF errors", sar["fails"], 0),
                       ("JUnit review testcases", jun["review"], n), ("JUnit failures", jun["fails"], 0),
                       ("report.txt types", int(m.group(1)) if m else None, len(js["types"])),
                       ("report.html types", int(h.group(1)) if h else None, len(js["types"]))):
        if a != b:
            found.append(f"--compat: {what}: {a}, report.json says {b}")
    return found


def each_commit_problems(out, rc):
    doc = json.loads(read(os.path.join(out, "each-commit.json")))
    found = []
    if rc != (1 if doc["verdict"] == "fail" else 0):
        found.append(f"exit status {rc}, each-commit.json says {doc['verdict']}")
    for row in doc["commits"]:
        sub = os.path.join(out, os.path.dirname(row["report"]))
        found += [f"{row['commit'][:12]}: {p}" for p in problems(sub, 1 if row["verdict"] == "fail" else 0)]
    return found


def main(argv):
    each = argv[:1] == ["--each-commit"]
    args = argv[1:] if each else argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    out, rc = args[0], int(args[1])
    found = (each_commit_problems if each else problems)(out, rc)
    for p in found:
        print(f"agree: {out}: {p}")
    if not found:
        print(f"agree: {out}: the five reports and exit status {rc} agree")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
