"""The judge on hand-written tool outputs (fixtures/*.json, valid against
abidiff-uapi/schema/diff.schema.json): it reads the tool's kinds, severities, reasons and words
("text"), never display types or keys."""
import copy

import pytest

from conftest import judged, tool_json
from uapi_check import judge
from uapi_check.model import Headers, RevHeaders


def verdicts(c):
    return {(f.type, f.member or f.change_kind): (f.severity, f.check) for f in c.findings}


def test_drift_fails_on_break_only():
    got = verdicts(judged("c-before_c-after", "drift", "drift.json"))
    assert got == {
        ("enum {KVM_STAT_A}", "KVM_STAT_B"): ("fail", "drift"),
        ("enum foo_attr", "__FOO_ATTR_MAX"): ("ok", "drift"),
        ("enum foo_attr", "FOO_ATTR_NEW"): ("ok", "drift"),
        ("struct clone_args", "size"): ("review", "drift"),
        ("struct gone", "removed"): ("fail", "drift"),
        ("struct gone_too", "removed"): ("fail", "drift"),
        ("struct kvm_run", "u.p.x"): ("fail", "drift"),
        ("struct ovl", "_or"): ("review", "drift"),
        ("struct resv", "flags"): ("ok", "drift"),
    }


def test_drift_fail_on_review():
    got = verdicts(judged("c-before_c-after", "drift", "drift.json", fail_on="review"))
    assert got[("struct clone_args", "size")] == ("fail", "drift")
    assert got[("struct ovl", "_or")] == ("fail", "drift")
    assert got[("struct resv", "flags")] == ("ok", "drift")


def test_findings_carry_the_tools_severity_and_reasons():
    c = judged("c-before_c-after", "drift", "drift.json")
    f = next(f for f in c.findings if f.type == "struct kvm_run")
    assert (f.tool_severity, f.reasons, f.member) == ("break", ["moved"], "u.p.x")
    assert f.text == "member u.p.x: offset 8 -> 12 [moved]"   # the tool's words, not re-worded
    assert f.to_json()["tool_severity"] == "break"


def test_cxx_keyword_rename_is_judged_by_the_tool_not_by_display_types():
    # _Bool class (C) and bool _class (C++): the display types differ, the key does not; the tool
    # says safe/cxx-keyword, and that is the verdict. The old judge compared "_Bool" with "bool".
    got = verdicts(judged("c-after_cxx-after", "cross", "cross.json"))
    assert got[("struct ethtool_flow", "class")] == ("ok", "aliases-share-layout")
    assert got[("struct keyctl_dh_params", "private")] == ("ok", "c-cxx-same-layout")
    assert got[("struct kvm_cpuid", "size")] == ("fail", "c-cxx-same-layout")
    assert got[("struct kvm_cpuid", "entries")] == ("fail", "c-cxx-same-layout")


def test_a_rename_the_tool_calls_a_break_fails_across_languages():
    doc = tool_json("cross.json")
    t = copy.deepcopy(doc["types"][0])
    t["changes"][0].update(severity="break", reasons=["renamed"])
    assert [(f.severity, f.check) for f in judge.judge_type("cross-series", t)] == [("fail", "c-cxx-same-layout")]


def test_series_c():
    got = verdicts(judged("c-before_c-after", "series-c", "series-c.json"))
    assert got == {
        ("struct ethtool_flow", "_class"): ("ok", "aliases-share-layout"),
        ("struct ovl", "_or"): ("fail", "aliases-share-layout"),
        ("struct drm_buf_map", "virtual"): ("fail", "c-names-kept"),
        ("struct x_gone", "removed"): ("fail", "c-names-kept"),
    }


def test_series_cxx_allows_the_flex_filler_only():
    got = verdicts(judged("cxx-before_cxx-after", "series-cxx", "series-cxx.json"))
    assert got == {
        ("struct fc_nl_event", "event_data_flex"): ("note", "cxx-layout"),
        ("struct fc_nl_event", "__empty_event_data_flex"): ("note", "cxx-layout"),
        ("struct drm_map", "handle"): ("fail", "cxx-names-kept"),
    }


def test_a_filler_the_tool_does_not_call_one_is_a_lost_name():
    # The tool decides what a filler is (reason flex-filler); the driver only maps that reason.
    t = copy.deepcopy(tool_json("series-cxx.json")["types"][0])
    t["changes"] = t["changes"][1:]
    t["changes"][0]["reasons"] = ["member-removed"]
    assert [(f.severity, f.check) for f in judge.judge_type("series-cxx", t)] == [("fail", "cxx-names-kept")]


def test_type_fails():
    assert judge.type_fails({"severity": "break"})
    assert not judge.type_fails({"severity": "review"})
    assert judge.type_fails({"severity": "review"}, "review")
    assert not judge.type_fails({"severity": "safe"}, "review")


def test_unknown_role_is_an_error():
    with pytest.raises(ValueError):
        judge.judge_change("sideways", {"change": "size", "severity": "break"})


def headers_with(failed_cxx):
    failed = {"c": {}, "cxx": failed_cxx}
    rev = RevHeaders(sorted(failed_cxx), {}, [], failed, {"c": [], "cxx": []}, {"c": [], "cxx": []})
    return Headers({"before": rev, "after": rev}, False)


def test_checks_dedupe_left_out_repeats_and_list_failing_headers():
    base = judged("c-before_c-after", "series-c", "series-c.json")
    alone = judged("c-before_c-after+linux-x", "series-c", "series-c.json", base="c-before_c-after",
                   header="linux/x.h")
    checks = {c.check: c for c in judge.evaluate_checks(
        "series", headers_with({"linux/a.h": "linux/a.h:1: error: x"}), {base.name: base, alone.name: alone})}
    assert [f.comparison for f in checks["c-names-kept"].failures] == ["c-before_c-after"] * 2
    assert [f.to_json() for f in checks["cxx-headers-compile"].failures] == [
        {"header": "linux/a.h", "error": "linux/a.h:1: error: x", "text": "linux/a.h: linux/a.h:1: error: x"}]
    assert checks["c-layout-unchanged"].passed and not checks["aliases-share-layout"].passed


def test_baselined_header_failure_is_accepted():
    checks = {c.check: c for c in judge.evaluate_checks(
        "series", headers_with({"linux/a.h": "e"}), {}, {("cxx-headers-compile", "linux/a.h")})}
    assert checks["cxx-headers-compile"].passed
    assert [f.header for f in checks["cxx-headers-compile"].accepted] == ["linux/a.h"]


def test_bool_class_in_c_against_bool_underscore_class_in_cxx_with_the_real_tool(tool, tmp_path):
    # The case the old judge got wrong, end to end: compiled by gcc and g++, compared by the tool.
    import json
    import subprocess
    (tmp_path / "f.h").write_text("struct flow {\n\tunsigned char op;\n#ifdef __cplusplus\n\tbool _class;\n"
                                  "#else\n\t_Bool class;\n#endif\n};\nstruct flow flow_v;\n")
    for cc, lang, obj in (("gcc", "c", "c.o"), ("g++", "c++", "cxx.o")):
        subprocess.run([cc, "-g", "-c", "-x", lang, "f.h", "-o", obj], cwd=tmp_path, check=True)
    p = subprocess.run([tool, "diff", "c.o", "cxx.o", "--strict", "--format=json"], cwd=tmp_path,
                       stdout=subprocess.PIPE, text=True)
    doc = json.loads(p.stdout)
    (t,) = doc["types"]
    c = t["changes"][0]
    # The display types differ ("_Bool", "bool"); the canonical keys do not.
    assert (c["old"]["type"], c["new"]["type"]) == ("_Bool", "bool")
    assert c["old"]["key"] == c["new"]["key"]
    assert [(f.severity, f.check) for f in judge.judge_type("cross", t)] == [("ok", "aliases-share-layout")]
    assert p.returncode == 0


def test_one_abi_fails():
    types = {t["name"]: t for t in tool_json("cross.json")["types"]}
    assert not judge.one_abi_fails(types["struct ethtool_flow"])
    assert not judge.one_abi_fails(types["struct keyctl_dh_params"])
    assert judge.one_abi_fails(types["struct kvm_cpuid"])
