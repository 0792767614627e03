#!/usr/bin/python3
"""schema: validate the tool's JSON against the JSON Schemas in abidiff-uapi/schema/.

Every fixture's expected diff reports (which tests/fixtures.py checks byte for byte against the
tool), fresh diffs of those fixtures in strict and review modes, and dump reports of each fixture's
objects, built here with gcc and g++, must validate; a few damaged copies must not, so the check
can fail. Uses Debian's python3-jsonschema (scripts/install-deps test).

Usage: tests/schema.py ABIDIFF_UAPI_BINARY
"""
import copy
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
    for name in ("dump.schema.json", "diff.schema.json"):
        with open(os.path.join(SCHEMAS, name)) as f:
            s = json.load(f)
        store[s["$id"]] = s
        store[name] = s
    out = {}
    for name in ("dump", "diff"):
        s = store["%s.schema.json" % name]
        cls = jsonschema.validators.validator_for(s)
        cls.check_schema(s)
        resolver = jsonschema.RefResolver(base_uri=s["$id"], referrer=s, store=store)
        out[name] = cls(s, resolver=resolver)
    return out


def errors(v, doc):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message) for e in v.iter_errors(doc)]


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

    cases = sorted(glob.glob(os.path.join(ROOT, "fixtures", "cases", "*")))
    for case in cases:
        for path in sorted(glob.glob(os.path.join(case, "expected*.json"))):
            with open(path) as f:
                check(os.path.relpath(path, ROOT), "diff", json.load(f))
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
            for extra in (["--strict"], ["--fail-on=review"], ["--common-only"]):
                out = subprocess.run([tool, "diff", *objs, "--format=json", *extra], capture_output=True, text=True)
                if out.returncode not in (0, 1):
                    raise SystemExit("schema: %s diff %s: exit %d: %s" % (case, extra, out.returncode, out.stderr))
                check("diff %s of %s" % (" ".join(extra), os.path.basename(case)), "diff", json.loads(out.stdout))
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
    print("schema: %d documents checked" % (passed + failed))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
