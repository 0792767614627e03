#!/usr/bin/python3
"""schema: validate the tool's JSON, SARIF and JUnit output.

JSON against the JSON Schemas in abidiff-uapi/schema/ (dump, diff, show, and the subset of SARIF 2.1.0
the tool writes, written from the specification); JUnit XML with Python's xml.etree, where the failing
testcases must be exactly the types the JSON report grades as failing.

Every JSON file stored in fixtures/ and tests/ (the fixtures' expected reports, which
tests/fixtures.py checks byte for byte against the tool, and the driver's test inputs in
tests/python/fixtures/), docs/json.md's validation recipe run as a user would (plain jsonschema, the
schemas resolved by their $id), fresh diffs of those fixtures in strict and review modes, and dump reports of each fixture's
objects, built here with gcc and g++, and show's views of them (each object, and both side by side),
must validate; a few damaged copies must not, so the check
can fail. Uses Debian's python3-jsonschema (scripts/install-deps test).

Usage: tests/schema.py ABIDIFF_UAPI_BINARY
"""
import copy
import xml.etree.ElementTree as ET
import glob
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "abidiff-uapi", "schema")


def validators():
    store = {}
    names = {"dump": "dump.schema.json", "diff": "diff.schema.json", "show": "show.schema.json",
             "sarif-subset": "sarif-subset.schema.json",
             "sarif": "sarif-schema-2.1.0.json"}    # the last: OASIS's own (draft 4: "id")
    for name in names.values():
        with open(os.path.join(SCHEMAS, name)) as f:
            s = json.load(f)
        store[s.get("$id") or s["id"]] = s
        store[name] = s
    out = {}
    for name, file in names.items():
        s = store[file]
        cls = jsonschema.validators.validator_for(s)
        cls.check_schema(s)
        resolver = jsonschema.RefResolver(base_uri=s.get("$id") or s["id"], referrer=s, store=store)
        out[name] = cls(s, resolver=resolver)
    return out


def stored_json():
    """Every *.json under fixtures/ and tests/."""
    out = []
    for top in ("fixtures", "tests"):
        for d, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            out += [os.path.join(d, n) for n in sorted(names) if n.endswith(".json")]
    return out


def documents(path):
    """The JSON documents of a file: one, or several one after another (show's expected.json holds
    one per type the case asks for), read with the json module's own decoder."""
    with open(path) as f:
        text = f.read()
    dec, docs, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


def kind_of(doc):
    """Which schema a stored document is written to: show, diff or dump (None: not the tool's)."""
    if not isinstance(doc, dict) or doc.get("tool") != "abidiff-uapi":
        return None
    if doc.get("command") == "show":
        return "show"
    return "diff" if "new" in doc else "dump" if "file" in doc else None


# docs/json.md's recipe, run as a user would: a plain python3 with jsonschema, the schema
# files, a report. It must accept a real report and reject a damaged one.
def readme_recipe():
    with open(os.path.join(ROOT, "docs", "json.md")) as f:
        text = f.read()
    start = text.find("<!-- schema-recipe")
    block = text[start:].split("```python\n", 1)[-1].split("```", 1)[0] if start >= 0 else ""
    if "jsonschema" not in block:
        return "no ```python block after <!-- schema-recipe in docs/json.md"
    with open(os.path.join(ROOT, "fixtures", "cases", "reserved-reuse", "expected.json")) as f:
        good = json.load(f)
    bad = copy.deepcopy(good)
    bad["types"][0]["changes"][0]["old"]["offset"] = "eight"    # a member, through dump.schema.json
    with tempfile.TemporaryDirectory(prefix="au-recipe-") as tmp:
        os.symlink(SCHEMAS, os.path.join(tmp, "schema"))
        for doc, want in ((good, 0), (bad, 1)):
            with open(os.path.join(tmp, "report.json"), "w") as f:
                json.dump(doc, f)
            p = subprocess.run([sys.executable, "-c", block], cwd=tmp, capture_output=True, text=True)
            if (p.returncode != 0) != bool(want):
                return "exit %d on %s report: %s" % (p.returncode, "a damaged" if want else "a valid",
                                                     (p.stderr.strip().splitlines() or [""])[-1])
            if want and "eight" not in p.stderr:
                return "the damaged report failed, but not on the member's offset: %s" % p.stderr.strip()[-200:]
    return None


def errors(v, doc):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message) for e in v.iter_errors(doc)]


def junit_check(text, js):
    """JUnit XML: well formed, counts right, failures exactly the types that fail the verdict."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        return ["junit: not XML: %s" % e]
    suites = root.findall("testsuite")
    if root.tag != "testsuites" or len(suites) != 1:
        return ["junit: expected one testsuite in testsuites"]
    suite = suites[0]
    cases = suite.findall("testcase")
    problems = []
    if int(suite.get("tests", -1)) != len(cases):
        problems.append("junit: tests=%s but %d testcases" % (suite.get("tests"), len(cases)))
    failing = {c.get("name") for c in cases if c.find("failure") is not None}
    if int(suite.get("failures", -1)) != len(failing):
        problems.append("junit: failures=%s but %d failing testcases" % (suite.get("failures"), len(failing)))
    worst = ("break", "review") if js["fail_on"] == "review" else ("break",)
    want = {t["name"] for t in js["types"] if t["severity"] in worst}
    if failing != want:
        problems.append("junit: failing %s, JSON says %s" % (sorted(failing), sorted(want)))
    for c in cases:
        f = c.find("failure")
        if f is not None and (not f.get("message") or f.get("type") not in worst):
            problems.append("junit: failure of %s without message or type" % c.get("name"))
    names = [c.get("name") for c in cases]
    if len(names) != len(set(names)):
        problems.append("junit: a type is reported twice")
    return problems


def sarif_check(sarif, js):
    """SARIF: one result per finding, its level from the severity, rules that exist."""
    run = sarif["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    level = {"break": "error", "review": "warning", "safe": "note"}
    problems = []
    results = run["results"]
    if len(results) != len(js["types"]):
        problems.append("sarif: %d results for %d findings" % (len(results), len(js["types"])))
    for r, t in zip(results, js["types"]):
        if r["level"] != level[t["severity"]]:
            problems.append("sarif: %s level %s for severity %s" % (t["name"], r["level"], t["severity"]))
        if rules[r["ruleIndex"]] != r["ruleId"] or r["ruleId"] not in t["reasons"]:
            problems.append("sarif: %s filed under %s" % (t["name"], r["ruleId"]))
        uri = r["locations"][0].get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
        if t["file"] and uri != t["file"]:
            problems.append("sarif: %s at %s, JSON says %s" % (t["name"], uri, t["file"]))
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    v = validators()
    passed = failed = 0

    def check(what, kind, doc, valid=True):
        nonlocal passed, failed
        errs = errors(v[kind], doc)
        if bool(errs) != (not valid):
            failed += 1
            print("FAIL %s: %s" % (what, "; ".join(errs[:3]) if errs else "a damaged document validated"))
        else:
            passed += 1

    # Every JSON file stored in fixtures/ and tests/ is a tool output (fixtures' expected reports,
    # the driver's test inputs), each of its documents valid against the schema of its kind.
    stored = 0
    for path in stored_json():
        rel = os.path.relpath(path, ROOT)
        try:
            docs = documents(path)
        except ValueError as e:
            failed += 1
            print("FAIL %s: not JSON (%s)" % (rel, e))
            continue
        for i, doc in enumerate(docs):
            kind = kind_of(doc)
            what = rel if len(docs) == 1 else "%s, document %d" % (rel, i + 1)
            if kind is None:
                failed += 1
                print("FAIL %s: not an abidiff-uapi dump, diff or show report" % what)
            else:
                stored += 1
                check(what, kind, doc)
    if stored < 60:
        failed += 1
        print("FAIL only %d stored JSON documents found under fixtures/ and tests/" % stored)
    user_recipe_check = readme_recipe()
    if user_recipe_check:
        failed += 1
        print("FAIL docs/json.md's validation recipe: %s" % user_recipe_check)
    else:
        passed += 1
    cases = sorted(glob.glob(os.path.join(ROOT, "fixtures", "cases", "*")))
    work = tempfile.mkdtemp(prefix="au-schema-")
    try:
        for case in cases:
            conf = {}
            if os.path.exists(os.path.join(case, "case.conf")):
                for line in open(os.path.join(case, "case.conf")):
                    if "=" in line and not line.startswith("#"):
                        k, _, val = line.strip().partition("=")
                        conf[k] = val
            objs = []
            for side, lang in (("old", conf.get("OLD_LANG", "c")), ("new", conf.get("NEW_LANG", "c"))):
                header = os.path.join(case, side + ".h")
                if not os.path.exists(header):
                    header = os.path.join(case, "old.h")
                obj = os.path.join(work, "%s-%s.o" % (os.path.basename(case), side))
                cc = ["g++", "-x", "c++"] if lang == "c++" else ["gcc", "-x", "c"]
                subprocess.run(cc + ["-g", "-fno-eliminate-unused-debug-types", "-c", header, "-o", obj]
                               + conf.get("FLAGS", "").split(), check=True)
                objs.append(obj)
                out = subprocess.run([tool, "dump", "--format=json", obj], capture_output=True, text=True, check=True)
                check("dump of %s" % os.path.relpath(header, ROOT), "dump", json.loads(out.stdout))
            for view in ([objs[0]], [objs[1]], objs):
                out = subprocess.run([tool, "show", "--all", "--format=json", *view], capture_output=True, text=True,
                                     check=True)
                check("show --all of %s" % " ".join(os.path.basename(o) for o in view), "show", json.loads(out.stdout))
            # The headers the objects were built from: their declaring files lie in the case.
            for extra in ([], ["--strict"], ["--fail-on=review"], ["--common-only"]):
                what = "diff %s of %s" % (" ".join(extra), os.path.basename(case))
                reports = {}
                for fmt in ("json", "sarif", "junit"):
                    out = subprocess.run([tool, "diff", *objs, "--headers", case, "--format=" + fmt, *extra],
                                         capture_output=True, text=True)
                    if out.returncode not in (0, 1):
                        raise SystemExit("schema: %s diff %s: exit %d: %s" % (case, extra, out.returncode, out.stderr))
                    reports[fmt] = out.stdout
                js = json.loads(reports["json"])
                check(what, "diff", js)
                sarif = json.loads(reports["sarif"])
                check(what + " (sarif)", "sarif-subset", sarif)
                check(what + " (sarif, the OASIS schema)", "sarif", sarif)
                junit_problems = junit_check(reports["junit"], js) + sarif_check(sarif, js)
                if junit_problems:
                    failed += 1
                    print("FAIL %s: %s" % (what, "; ".join(junit_problems[:3])))
                else:
                    passed += 1
    finally:
        subprocess.run(["rm", "-rf", work])

    # The schemas must reject what the tool must never write.
    with open(os.path.join(ROOT, "fixtures", "cases", "reserved-reuse", "expected.json")) as f:
        good = json.load(f)
    damaged = []
    d = copy.deepcopy(good); d["types"][0]["severity"] = "fatal"; damaged.append(("unknown severity", d))
    d = copy.deepcopy(good); d["types"][0]["reasons"] = ["sentinel", "made-up"]; damaged.append(("unknown reason", d))
    d = copy.deepcopy(good); d["types"][0]["changes"][0]["breaking"] = True; damaged.append(("breaking vs severity", d))
    d = copy.deepcopy(good); del d["severities"]; damaged.append(("no severities", d))
    d = copy.deepcopy(good); d["types"][0]["changes"][0].pop("old", None); damaged.append(("member change without old", d))
    for what, doc in damaged:
        check("damaged diff (%s)" % what, "diff", doc, valid=False)
    good_show = {"tool": "abidiff-uapi", "version": "0", "command": "show", "objects": ["a.o", "b.o"], "types": [
        {"name": "struct s", "differs": ["size"],
         "sides": [{"name": "struct s", "kind": "struct", "file": None, "line": 1, "size": 8, "members": 1, "holes": 0,
                    "hole_bits": 0, "padding_bits": 0},
                   {"name": "struct s", "kind": "struct", "file": None, "line": 1, "size": 4, "members": 1, "holes": 0,
                    "hole_bits": 0, "padding_bits": 0}],
         "rows": [{"mark": "differs", "what": ["size", "type"],
                   "a": {"row": "member", "depth": 1, "path": "x", "offset": 0, "bit_offset": 0, "size": 8,
                         "type": "long", "key": "s64"},
                   "b": {"row": "member", "depth": 1, "path": "x", "offset": 0, "bit_offset": 0, "size": 4,
                         "type": "long", "key": "s32"}}]}]}
    check("hand-made show", "show", good_show)
    damaged = []
    d = copy.deepcopy(good_show); d["types"][0]["rows"][0]["mark"] = "moved"; damaged.append(("unknown mark", d))
    d = copy.deepcopy(good_show); del d["types"][0]["rows"][0]["what"]; damaged.append(("differs without what", d))
    d = copy.deepcopy(good_show); d["types"][0]["rows"][0]["mark"] = "only_a"; del d["types"][0]["rows"][0]["what"]
    damaged.append(("only_a with a b row", d))
    d = copy.deepcopy(good_show); del d["types"][0]["rows"][0]["a"]["path"]; damaged.append(("member without path", d))
    d = copy.deepcopy(good_show); d["objects"] = ["a.o"]; damaged.append(("one object, paired rows", d))
    for what, doc in damaged:
        check("damaged show (%s)" % what, "show", doc, valid=False)
    sarif = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "abidiff-uapi"}},
                                           "results": [{"message": {"text": "x"}, "level": "fatal"}]}]}
    check("damaged sarif (unknown level)", "sarif-subset", sarif, valid=False)
    check("damaged sarif (unknown level), the OASIS schema", "sarif", sarif, valid=False)
    del sarif["runs"][0]["results"][0]["message"]
    sarif["runs"][0]["results"][0]["level"] = "error"
    check("damaged sarif (result without message)", "sarif-subset", sarif, valid=False)
    # The JUnit check must notice a failure that is missing or invented.
    bad_junit = ('<testsuites><testsuite tests="1" failures="0"><testcase name="struct drift_args"/>'
                 '</testsuite></testsuites>')
    if junit_check(bad_junit, good):
        passed += 1
    else:
        failed += 1
        print("FAIL damaged junit (a missing failure) passed the check")
    print("schema: %d documents checked" % (passed + failed))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
