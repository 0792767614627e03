import json

import pytest

from conftest import judged
from uapi_check import waivers
from uapi_check.util import Fatal


def write(tmp_path, text, name="waivers"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_waiver_format(tmp_path):
    path = write(tmp_path, "# accepted in 6.12\n\n"
                           "struct kvm_run.u.p.x   moved on purpose, see commit 1234\n"
                           "enum {KVM_STAT_A}.KVM_STAT_B  renumbered upstream\n"
                           "  struct gone  the header went away (# not a comment)\n"
                           "__kernel_fd_set\tkept for old programs\n")
    ws = waivers.load_waivers(path)
    assert [(w.type, w.member, w.reason, w.where) for w in ws] == [
        ("struct kvm_run", "u.p.x", "moved on purpose, see commit 1234", f"{path}:3"),
        ("enum {KVM_STAT_A}", "KVM_STAT_B", "renumbered upstream", f"{path}:4"),
        ("struct gone", None, "the header went away (# not a comment)", f"{path}:5"),
        ("__kernel_fd_set", None, "kept for old programs", f"{path}:6")]


@pytest.mark.parametrize("line, message", [
    ("struct kvm_run", "no reason given for struct kvm_run"),
    ("struct kvm_run.u   ", "no reason given for struct kvm_run.u"),
    ("struct", "'struct' without a name"),
    ("struct 9lives  reason", "'struct 9lives' is not a type name"),
    ("struct a..b  reason", "'struct a..b': '.b' is not a member name or path"),
    ("struct a.  reason", "'struct a.': '' is not a member name or path"),
])
def test_malformed_waivers_name_file_and_line(tmp_path, line, message):
    path = write(tmp_path, "# first\n" + line + "\n")
    with pytest.raises(Fatal) as e:
        waivers.load_waivers(path)
    assert str(e.value).startswith(f"{path}:2: {message}")


def test_unreadable_waivers(tmp_path):
    with pytest.raises(Fatal, match="nope: cannot read"):
        waivers.load_waivers(str(tmp_path / "nope"))


def test_waivers_accept_matching_failures_only(tmp_path):
    c = judged("c-before_c-after", "drift", "drift.json")
    ws = waivers.load_waivers(write(tmp_path, "struct kvm_run.u  the union was reordered on purpose\n"
                                              "struct gone  removed with its header\n"
                                              "struct resv.flags  not failing anyway\n"
                                              "struct kvm_run.up  a prefix that is not a path\n"))
    counts = waivers.apply({c.name: c}, ws)
    assert counts == {"waived": 2, "baselined": 0}
    sev = {(f.type, f.member): f.severity for f in c.findings}
    assert sev[("struct kvm_run", "u.p.x")] == "waived"
    assert sev[("struct gone", None)] == "waived"
    assert sev[("struct gone_too", None)] == "fail"
    assert sev[("enum {KVM_STAT_A}", "KVM_STAT_B")] == "fail"
    assert [w.used for w in ws] == [1, 1, 0, 0]
    f = next(f for f in c.findings if f.type == "struct kvm_run")
    assert f.to_json()["waiver"].startswith("the union was reordered on purpose (")


def report_with(comparisons, path, checks=()):
    doc = {"tool": "uapi-check", "checks": list(checks),
           "steps": {"compare": {c.name: c.to_json() for c in comparisons}}}
    with open(path, "w") as f:
        json.dump(doc, f)
    return str(path)


def test_baseline_fails_only_on_new_findings(tmp_path):
    old = judged("c-before_c-after", "drift", "drift.json")
    old.findings = [f for f in old.findings if f.type != "struct kvm_run"]
    base = waivers.load_baseline(report_with([old], tmp_path / "old.json"))
    new = judged("c-before_c-after", "drift", "drift.json")
    assert waivers.apply({new.name: new}, (), base) == {"waived": 0, "baselined": 3}
    assert [f.type for f in new.findings if f.severity == "fail"] == ["struct kvm_run"]


def test_baseline_matches_identity_not_text(tmp_path):
    old = judged("c-before_c-after", "drift", "drift.json")
    for f in old.findings:
        f.text = "reworded"
    base = waivers.load_baseline(report_with([old], tmp_path / "old.json"))
    new = judged("c-before_c-after", "drift", "drift.json")
    waivers.apply({new.name: new}, (), base)
    assert not [f for f in new.findings if f.severity == "fail"]
    # Another comparison is another finding.
    other = judged("cxx-before_cxx-after", "drift", "drift-cxx.json")
    waivers.apply({other.name: other}, (), base)
    assert [f.type for f in other.findings if f.severity == "fail"] == ["enum {KVM_STAT_A}", "struct kvm_run",
                                                                       "struct cxx_only", "struct cxx_only"]


@pytest.mark.parametrize("text, why", [
    ("not json", "Expecting value: line 1 column 1 (char 0)"),
    ("[]", 'no "tool": "uapi-check"'),
    ('{"tool": "abidiff-uapi"}', 'no "tool": "uapi-check"'),
    ('{"tool": "uapi-check", "steps": {}}', "no steps.compare"),
    ('{"tool": "uapi-check", "steps": {"compare": {"x": {"findings": 3}}}}',
     "steps.compare.x.findings is not a list of findings"),
    ('{"tool": "uapi-check", "steps": {"compare": {}}}', "no checks"),
])
def test_malformed_baseline(tmp_path, text, why):
    path = write(tmp_path, text, "report.json")
    with pytest.raises(Fatal) as e:
        waivers.load_baseline(path)
    assert str(e.value) == f"{path}: not a uapi-check report ({why})"


def test_baseline_keeps_failing_headers(tmp_path):
    path = report_with([], tmp_path / "r.json", checks=[
        {"check": "cxx-headers-compile", "findings": [{"header": "linux/a.h", "error": "e", "text": "t"}]}])
    assert waivers.load_baseline(path).headers == {("cxx-headers-compile", "linux/a.h")}


def test_a_define_line_is_a_waiver_for_a_constant(tmp_path):
    """`#define NAME reason` names a constant (kind constant, '#define NAME'); '# text' stays a comment."""
    p = tmp_path / "w"
    p.write_text("# a comment\n#define RWF_SUPPORTED  grows with new flags\n")
    ws = waivers.load_waivers(str(p))
    assert [(w.type, w.member, w.reason) for w in ws] == [("#define RWF_SUPPORTED", None, "grows with new flags")]
