"""qemu/report.py judges the guest's BTF reports with the driver's judge, on real tool output:
two tiny objects with a planted difference, compared by the real abidiff-uapi. Also: the stand-in
tool of tests/qemu writes the real tool's schema."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

REPORT = os.path.join(ROOT, "qemu", "report.py")
FAKE = os.path.join(ROOT, "tests", "qemu", "fixtures", "fake-abidiff-uapi")
OLD_H = "struct moved { int x; int y; };\nstruct same { long k; };\nstruct grows { int a; };\n"
NEW_H = "struct moved { int y; int x; };\nstruct same { long k; };\nstruct grows { int a; int b; };\n"


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    d = tmp_path_factory.mktemp("objs")
    for side, text in (("old", OLD_H), ("new", NEW_H)):
        (d / f"{side}.h").write_text(text)
        (d / f"{side}.c").write_text(f'#include "{side}.h"\n')
        subprocess.run(["gcc", "-g", "-fno-eliminate-unused-debug-types", "-c", f"{side}.c", "-o", f"{side}.o"],
                       cwd=d, check=True)
    return d


def diff_json(tool, objects, *args):
    p = subprocess.run([tool, "diff", "old.o", "new.o", "--format=json", *args], cwd=objects,
                       stdout=subprocess.PIPE, text=True)
    assert p.returncode in (0, 1)
    return p.returncode, p.stdout


def run_report(tmp_path, rc, text, expected=""):
    res, out = tmp_path / "results", tmp_path / "out"
    res.mkdir()
    out.mkdir()
    (res / "checks.tsv").write_text("btf:c\tfail\tjudged on the host\n")
    (res / "btf-c.rc").write_text(f"{rc}\n")
    (res / "btf-c.json").write_text(text)
    (tmp_path / "expected.txt").write_text(expected)
    env = dict(os.environ, QEMU_BTF_EXPECTED=str(tmp_path / "expected.txt"))
    p = subprocess.run([sys.executable, REPORT, "--results", str(res), "--kernel", "6.1", "--key", "k",
                        "--out", str(out), "--verdict", "FAIL"], env=env)
    with open(out / "guest-report.json") as f:
        return p.returncode, json.load(f)


def btf_check(report):
    return next(c for c in report["checks"] if c["name"] == "btf:c")


def test_a_planted_break_is_a_mismatch(tool, objects, tmp_path):
    rc, text = diff_json(tool, objects, "--strict")
    assert rc == 1
    code, r = run_report(tmp_path, rc, text)
    assert code == 1 and btf_check(r)["status"] == "fail"
    assert [m["name"] for m in r["btf"]["c"]["mismatches"]] == ["struct grows", "struct moved"]
    assert r["btf"]["c"]["unexpected"] == ["struct grows", "struct moved"]
    assert r["btf"]["c"]["types_compared"] == 3


def test_expected_differences_pass_and_stale_ones_fail(tool, objects, tmp_path):
    rc, text = diff_json(tool, objects, "--strict")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    code, r = run_report(tmp_path / "a", rc, text, "struct moved\tplanted\nstruct grows\tplanted\n")
    assert code == 0 and btf_check(r)["status"] == "pass"
    code, r = run_report(tmp_path / "b", rc, text, "struct moved\tplanted\nstruct grows\tplanted\nstruct same\tstale\n")
    assert code == 1 and r["btf"]["c"]["stale_expected"] == ["struct same"]


def test_the_judge_not_the_tools_verdict_decides(tool, tmp_path):
    # keyctl_dh_params: the kernel's BTF has private and priv in one slot, C++ only priv. BTF
    # names no language, so the tool calls the missing alias a break; one ABI still holds (the
    # cross role's judgement), so the guest's BTF check must not count it. The BTF is made the
    # way the kernel's is: pahole -J, then the raw .BTF section.
    (tmp_path / "k.h").write_text("struct keyctl_dh_params {\n#ifdef __cplusplus\n\tint priv;\n#else\n"
                                  "\tunion { int private; int priv; };\n#endif\n\tint prime;\n};\n"
                                  "struct keyctl_dh_params v;\n")
    subprocess.run(["gcc", "-g", "-c", "-x", "c", "k.h", "-o", "c.o"], cwd=tmp_path, check=True)
    subprocess.run(["g++", "-g", "-c", "-x", "c++", "k.h", "-o", "cxx.o"], cwd=tmp_path, check=True)
    subprocess.run(["pahole", "-J", "c.o"], cwd=tmp_path, check=True)
    subprocess.run(["objcopy", "--dump-section", ".BTF=c.btf", "c.o", "c-copy.o"], cwd=tmp_path, check=True)
    p = subprocess.run([tool, "diff", "--btf", "c.btf", "cxx.o", "--strict", "--format=json"], cwd=tmp_path,
                       stdout=subprocess.PIPE, text=True)
    (t,) = json.loads(p.stdout)["types"]
    assert [(c["change"], c["severity"]) for c in t["changes"]] == [("alias_removed", "break")]
    (tmp_path / "r").mkdir()
    code, r = run_report(tmp_path / "r", p.returncode, p.stdout)
    assert r["btf"]["c"]["mismatches"] == [] and code == 0


def test_the_old_stand_in_schema_is_rejected(tmp_path):
    old = '{"btf": "/sys/kernel/btf/vmlinux", "object": "obj/c-after.o", "structs_compared": 0, "mismatches": []}'
    code, r = run_report(tmp_path, 0, old)
    assert code == 1
    assert r["btf"]["c"]["json_error"].endswith('(no "tool": "abidiff-uapi")')


def shape(doc):
    """Keys, recursively for objects; lists by the shape of their first element."""
    if isinstance(doc, dict):
        return {k: shape(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [shape(doc[0])] if doc else []
    return type(doc).__name__


def test_the_stand_in_writes_the_real_schema(tool, tmp_path):
    for side in ("a", "b"):
        (tmp_path / f"{side}.c").write_text("struct s { int x; };\nstruct s v;\n")
        subprocess.run(["gcc", "-g", "-c", f"{side}.c", "-o", f"{side}.o"], cwd=tmp_path, check=True)
    for args in ([], ["--strict"]):
        real = subprocess.run([tool, "diff", "a.o", "b.o", "--format=json", *args], cwd=tmp_path,
                              stdout=subprocess.PIPE, text=True, check=True).stdout
        fake = subprocess.run([FAKE, "diff", "a.o", "b.o", "--format=json", *args], cwd=tmp_path,
                              stdout=subprocess.PIPE, text=True, check=True).stdout
        real, fake = json.loads(real), json.loads(fake)
        assert list(shape(fake)) == list(shape(real))
        assert shape(fake) == dict(shape(real), types=[])
        assert (fake["strict"], fake["verdict"]) == (real["strict"], real["verdict"])
