"""qemu/distro_btf.py's judge on hand-written tool outputs: the count of types compared across vmlinux
and modules (each name once), and every way an expected-differences list can be wrong."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "qemu"))
import distro_btf  # noqa: E402

NAMES = {"struct a", "struct b", "struct c", "enum e"}


def write_btf(d, name, defined, findings, lang_new_types=None):
    os.makedirs(os.path.join(d, "btf"), exist_ok=True)
    with open(os.path.join(d, "btf", name + ".names"), "w") as f:
        f.write("".join(n + "\n" for n in defined))
    for lang in ("c", "cxx"):
        common = len(set(defined) & NAMES)
        doc = {"counts": {"old_types": common, "new_types": common if lang_new_types is None else lang_new_types,
                          "unchanged": common - len(findings), "changed": len(findings)},
               "types": findings}
        base = os.path.join(d, "btf", "%s-%s" % (name, lang))
        with open(base + ".json", "w") as f:
            json.dump(doc, f)
        with open(base + ".rc", "w") as f:
            f.write("1\n" if findings else "0\n")


def finding(name, member):
    return {"name": name, "status": "changed", "severity": "break", "reasons": ["retyped"],
            "changes": [{"change": "member", "severity": "break", "member": member}]}


def expected_file(tmp_path, lines):
    p = tmp_path / "expected.txt"
    p.write_text("# test\n" + "".join(l + "\n" for l in lines))
    return str(p)


def make_results(tmp_path, module_findings=()):
    d = str(tmp_path / "results")
    write_btf(d, "vmlinux", ["struct a", "struct b", "struct kernel_only"], [finding("struct b", "x")])
    write_btf(d, "mod1", ["struct c", "struct helper"], list(module_findings))
    write_btf(d, "mod2", ["struct c", "enum e"], list(module_findings))
    return d


def test_counts_each_name_once_and_passes(tmp_path):
    d = make_results(tmp_path)
    exp = expected_file(tmp_path, ["struct b\tx\tkernel-only member name"])
    section, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert reasons == []
    assert section["types_compared"] == 4  # a, b (vmlinux); c twice, e (modules)
    assert section["module_only_types_compared"] == 2
    assert section["per_btf"]["mod1"]["c"]["types_compared"] == 1
    assert section["differences"][0]["why"] == "kernel-only member name"


def test_unexpected_difference_fails(tmp_path):
    d = make_results(tmp_path, [finding("struct c", "y")])
    exp = expected_file(tmp_path, ["struct b\tx\treason"])
    _, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert any("unexpected difference" in r and "struct c" in r for r in reasons)


def test_stale_entry_fails(tmp_path):
    d = make_results(tmp_path)
    exp = expected_file(tmp_path, ["struct b\tx\treason", "struct a\t-\tno longer differs"])
    _, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert any("stale entry" in r and "struct a" in r for r in reasons)


def test_other_members_fail(tmp_path):
    d = make_results(tmp_path)
    exp = expected_file(tmp_path, ["struct b\tx,z\treason"])
    _, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert any("findings name members x" in r for r in reasons)


def test_malformed_entry_fails(tmp_path):
    d = make_results(tmp_path)
    exp = expected_file(tmp_path, ["struct b\tx\treason", "struct a no tabs"])
    _, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert any("not TYPE<TAB>MEMBERS<TAB>reason" in r for r in reasons)


def test_count_disagreeing_with_names_fails(tmp_path):
    d = make_results(tmp_path)
    write_btf(d, "mod1", ["struct c"], [], lang_new_types=5)
    exp = expected_file(tmp_path, ["struct b\tx\treason"])
    _, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert any("mod1" in r and "names are on both sides" in r for r in reasons)


def test_tool_failure_fails(tmp_path):
    d = make_results(tmp_path)
    with open(os.path.join(d, "btf", "mod2-cxx.rc"), "w") as f:
        f.write("2\n")
    exp = expected_file(tmp_path, ["struct b\tx\treason"])
    _, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert any("mod2 (cxx): abidiff-uapi exited 2" in r for r in reasons)


def test_guest_and_host_vmlinux_must_agree(tmp_path):
    d = make_results(tmp_path)
    os.makedirs(os.path.join(d, "btf-guest"))
    for lang in ("c", "cxx"):
        with open(os.path.join(d, "btf", "vmlinux-%s.json" % lang)) as f:
            doc = json.load(f)
        if lang == "cxx":
            doc["counts"]["unchanged"] += 1
        with open(os.path.join(d, "btf-guest", "vmlinux-%s.json" % lang), "w") as f:
            json.dump(doc, f)
        with open(os.path.join(d, "btf-guest", "vmlinux-%s.rc" % lang), "w") as f:
            f.write("1\n")
    exp = expected_file(tmp_path, ["struct b\tx\treason"])
    section, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert section["vmlinux_on_target_vs_host"] == {"c": "identical", "cxx": "DIFFERENT"}
    assert any("vmlinux (cxx): the guest's own comparison differs" in r for r in reasons)


def write_not_compared(d, name, defined):
    """What qemu/distro-compare writes for a BTF that shares no name with the objects: no diff run
    (--common-only would select nothing), .rc "none"."""
    os.makedirs(os.path.join(d, "btf"), exist_ok=True)
    with open(os.path.join(d, "btf", name + ".names"), "w") as f:
        f.write("".join(n + "\n" for n in defined))
    for lang in ("c", "cxx"):
        base = os.path.join(d, "btf", "%s-%s" % (name, lang))
        open(base + ".json", "w").close()
        with open(base + ".rc", "w") as f:
            f.write("none\n")


def test_a_module_with_no_name_in_common_is_not_compared_and_passes(tmp_path):
    d = make_results(tmp_path)
    write_not_compared(d, "mod3", ["struct driver_private"])
    exp = expected_file(tmp_path, ["struct b\tx\tkernel-only member name"])
    section, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert reasons == []
    assert section["per_btf"]["mod3"]["c"]["types_compared"] == 0
    assert section["types_compared"] == 4


def test_a_module_not_compared_that_shares_a_name_fails(tmp_path):
    d = make_results(tmp_path)
    write_not_compared(d, "mod3", ["struct c", "struct driver_private"])
    exp = expected_file(tmp_path, ["struct b\tx\tkernel-only member name"])
    _, reasons = distro_btf.judge(d, "6.1", NAMES, NAMES, exp)
    assert any("mod3 (c): not compared, but 1 names are on both sides" in r for r in reasons), reasons
