"""report.sarif and report.junit.xml: the tool's own SARIF and JUnit outputs of each base
comparison of the matrix (matrix.py keeps them in diff/NAME.sarif and diff/NAME.junit.xml),
merged into one SARIF log with one run per comparison and one JUnit file with one testsuite per
comparison. A comparison's findings and failures are the tool's, run with the comparison's own
arguments (--strict, --common-only, --fail-on), as diff/NAME.json has them."""
import json
import os
import xml.etree.ElementTree as ET

from .util import Fatal, write_atomic


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        raise Fatal(f"{path}: cannot read ({e.strerror})")


def merged_sarif(out, comparisons):
    """One SARIF 2.1.0 log: each base comparison's run, named in the run's property bag."""
    runs = []
    for name, comp in comparisons.items():
        if comp.base:
            continue
        path = os.path.join(out, "diff", f"{name}.sarif")
        try:
            doc = json.loads(_read(path))
        except ValueError as e:
            raise Fatal(f"{path}: not JSON ({e})")
        for run in doc.get("runs", []):
            props = dict(run.get("properties") or {})
            props.update({"comparison": name, "old": comp.old, "new": comp.new})
            run["properties"] = props
            runs.append(run)
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": runs}


def merged_junit(out, comparisons):
    """One <testsuites>: each base comparison's testsuite, named after the comparison."""
    root = ET.Element("testsuites")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for name, comp in comparisons.items():
        if comp.base:
            continue
        path = os.path.join(out, "diff", f"{name}.junit.xml")
        try:
            doc = ET.fromstring(_read(path))
        except ET.ParseError as e:
            raise Fatal(f"{path}: not XML ({e})")
        for suite in doc.iter("testsuite"):
            suite.set("name", f"uapi-check {name} ({comp.old} vs {comp.new})")
            for k in totals:
                totals[k] += int(suite.get(k, "0"))
            root.append(suite)
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def compile_failures(checks):
    """(check, Failure) of every header a headers-compile check fails on."""
    return [(c, f) for c in checks or () if c.check.endswith("headers-compile") for f in c.failures]


def compile_sarif_run(checks):
    """One SARIF run for the headers that stopped compiling alone: a result each, an error."""
    results = [{"ruleId": c.check, "level": "error",
                "message": {"text": f"{f.header} no longer compiles alone: {f.error}"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.header}}}]}
               for c, f in compile_failures(checks)]
    rules = [{"id": c.check, "shortDescription": {"text": c.description}}
             for c in checks or () if c.check.endswith("headers-compile")]
    return {"tool": {"driver": {"name": "uapi-check", "rules": rules}}, "results": results,
            "properties": {"comparison": "headers-compile"}}


def compile_junit_suite(checks):
    """One <testsuite> with a failing testcase per header that stopped compiling alone."""
    fails = compile_failures(checks)
    suite = ET.Element("testsuite", name="uapi-check headers-compile", tests=str(len(fails)),
                       failures=str(len(fails)), errors="0", skipped="0")
    for c, f in fails:
        case = ET.SubElement(suite, "testcase", classname=c.check, name=f.header)
        ET.SubElement(case, "failure", message=f"{f.header} no longer compiles alone", type=c.check).text = f.error
    return suite


def write_ci_reports(out, comparisons, checks=None):
    sarif = merged_sarif(out, comparisons)
    junit = merged_junit(out, comparisons)
    if compile_failures(checks):
        sarif["runs"].append(compile_sarif_run(checks))
        root = ET.fromstring(junit.split("\n", 1)[1])
        suite = compile_junit_suite(checks)
        root.append(suite)
        for k in ("tests", "failures"):
            root.set(k, str(int(root.get(k, "0")) + int(suite.get(k))))
        ET.indent(root)
        junit = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
    write_atomic(os.path.join(out, "report.sarif"), json.dumps(sarif, indent=1) + "\n")
    write_atomic(os.path.join(out, "report.junit.xml"), junit)
