"""arch.py, the --arch and --compat options, and compat.py's handling of the tool's output, on
small fixtures (a hand-written diff --compat JSON, a stand-in tool): no kernel tree."""
import json
import os
import stat

import pytest

from conftest import FIXTURES
from uapi_check import arch, cli, compat, compat_report, env
from uapi_check.model import Options
from uapi_check.util import Fatal


def test_debian_and_kernel_names_name_the_same_architecture():
    pairs = {"amd64": "x86_64", "i386": "i386", "arm64": "arm64", "armhf": "arm",
             "riscv64": "riscv", "s390x": "s390", "ppc64el": "powerpc"}
    for deb, kernel in pairs.items():
        assert arch.lookup(deb) is arch.lookup(kernel)
        assert arch.lookup(deb).kernel == kernel
    assert arch.lookup("s390x").big_endian and not arch.lookup("ppc64el").big_endian
    with pytest.raises(Fatal, match="unknown architecture 'mips'"):
        arch.lookup("mips")


def test_compilers_and_groups():
    a = arch.lookup("arm")
    assert arch.compiler_commands(a, {}) == {"c": "arm-linux-gnueabihf-gcc-12", "cxx": "arm-linux-gnueabihf-g++-12"}
    assert a.group == "cross-armhf"
    # CC and CXX keep naming the default architecture's compilers; a cross one has its own variable.
    assert arch.compiler_commands(arch.lookup("amd64"), {"CC": "clang"})["c"] == "clang"
    assert arch.compiler_commands(a, {"CC": "clang"})["c"] == "arm-linux-gnueabihf-gcc-12"
    assert arch.compiler_commands(a, {"UAPI_CHECK_CC_armhf": "x"})["c"] == "x"


def test_compat_pairs():
    assert [a.debian for a in arch.compat_pair("i386")] == ["amd64", "i386"]
    assert [a.debian for a in arch.compat_pair("arm")] == ["arm64", "armhf"]
    with pytest.raises(Fatal, match="32-bit architecture"):
        arch.compat_pair("riscv64")


def test_every_cross_group_exists_in_install_deps():
    for a in arch.ARCHES.values():
        if a.group:
            missing = env.missing_packages([a.group], [])   # runs install-deps --check for real
            assert isinstance(missing, list)


def test_options_out_dir_and_groups():
    o = cli.parse_args(["--kernel", "6.12", "--arch", "aarch64"])
    assert o.arch.debian == "arm64" and o.out.endswith("uapi-check/6.12-arm64")
    assert env.install_groups(o) == ["tool", "kernel", "src-6.12", "cross-arm64"]
    assert cli.parse_args([]).out.endswith("uapi-check/6.1")   # the default keeps its name
    c = cli.parse_args(["--compat", "i386", "--kernel", "6.12"])
    assert (c.arch.debian, c.compat.debian) == ("amd64", "i386")
    assert c.out.endswith("uapi-check/6.12-compat-amd64-i386")
    assert env.install_groups(c) == ["tool", "kernel", "src-6.12", "cross-i386"]
    with pytest.raises(SystemExit):
        cli.parse_args(["--compat", "i386", "--old", "6.1", "--new", "6.12"])


def test_missing_cross_compiler_is_named_with_its_group(monkeypatch):
    monkeypatch.setattr(env.shutil, "which", lambda name: None)
    with pytest.raises(Fatal, match=r"^C compiler 's390x-linux-gnu-gcc-12' for s390x not found "
                                    r"\(scripts/install-deps cross-s390x, or name another with UAPI_CHECK_CC_s390x=...\)$"):
        env.find_compilers({}, arch.lookup("s390"))


def read_fixture():
    with open(os.path.join(FIXTURES, "compat-diff.json")) as f:
        return f.read()


def test_compat_types_sorted_by_header_then_name_with_causes():
    types, counts = compat.parse_tool_output(read_fixture(), "t")
    assert [(t.header, t.name) for t in types] == [
        ("asm/x.h", "struct only64"), ("linux/a.h", "struct aa_u64"), ("linux/a.h", "struct zz_outer"),
        ("linux/sysinfo.h", "struct sysinfo")]
    assert types[1].cause_names() == ["align8"]
    # the tool counts every cause, those that found nothing too
    assert counts == {"long-width": 1, "align8": 1, "member-type": 1, "arch-ifdef": 1,
                      "pointer-width": 0, "size_t-width": 0, "time-width": 0, "other": 0}


def test_output_without_compat_is_an_error_not_an_empty_list():
    plain = json.loads(read_fixture())
    del plain["compat"]
    with pytest.raises(Fatal, match="not a --compat diff"):
        compat.parse_tool_output(json.dumps(plain), "t")
    missing = json.loads(read_fixture())
    del missing["types"][0]["causes"]
    with pytest.raises(Fatal, match="has no causes"):
        compat.parse_tool_output(json.dumps(missing), "t")


def stand_in_tool(tmp_path, script):
    path = tmp_path / "tool"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_a_tool_without_compat_is_named(tmp_path):
    tool = stand_in_tool(tmp_path, "echo \"abidiff-uapi: unrecognized option '--compat'\" >&2; exit 2\n")
    with pytest.raises(Fatal, match=r"^the tool does not support --compat"):
        compat.run_tool(tool, "a.o", "b.o", [], str(tmp_path))


def test_the_tool_output_is_kept_and_read(tmp_path):
    (tmp_path / "diff.json").write_text(read_fixture())
    tool = stand_in_tool(tmp_path, f"cat {tmp_path}/diff.json; exit 1\n")
    types, _ = compat.run_tool(tool, "a.o", "b.o", [], str(tmp_path))
    assert len(types) == 4 and (tmp_path / "diff" / "compat.json").read_text() == read_fixture()


def report():
    types, counts = compat.parse_tool_output(read_fixture(), "t")
    ioctls = [compat.CompatIoctl("ZZ_GET", "linux/a.h", 0x80184201, 0x80144201, "struct zz_outer", types[2].causes),
              compat.CompatIoctl("AA_SET", "linux/a.h", 0x40104202, 0x400c4202, "struct aa_u64", types[1].causes)]
    ioctls.sort(key=lambda i: compat.sort_key(i.header, i.name))
    a64, a32 = arch.compat_pair("i386")
    return compat.CompatReport("linux-source-6.12, amd64 against i386", "6.12", a64, a32, 2, {"x.h": "why"},
                               types, counts, ioctls, {"compared": 10, "differ": 2, "only64": 0, "only32": 1},
                               {"amd64": "gcc 12", "i386": "i686-linux-gnu-gcc-12 12"})


def test_report_text_and_json():
    r = report()
    text = compat_report.render_text(r)
    assert "does not know which ioctls have compat handlers" in text
    assert text.index("AA_SET") < text.index("ZZ_GET")
    assert "  AA_SET: 0x40104202 -> 0x400c4202, argument struct aa_u64: align8" in text
    assert ("      align8 v: member __u64 v at 4 (32-bit) vs 8 (64-bit): an 8-byte type aligned to 4 on the 32-bit ABI"
            in text)
    js = r.to_json()
    assert js["mode"] == "compat" and js["arch32"]["debian"] == "i386"
    assert js["counts"]["by_cause"] == {"long-width": 1, "align8": 1, "arch-ifdef": 1, "member-type": 1}
    assert js["counts"]["ioctls"]["differ"] == 2
    assert [i["ioctl"] for i in js["ioctls"]] == ["AA_SET", "ZZ_GET"]
    assert "amd64 against i386" in compat_report.render_html(r)


def test_compat_reports_agree(tmp_path):
    """--compat writes SARIF and JUnit too, from the same differences: each a review item (a
    warning, a testcase that says review), nothing failing, exit 0; tests/agree.py checks that
    the five reports agree, and that the SARIF is valid and placed in the kernel tree."""
    import sys
    from conftest import ROOT, write_tree
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import agree
    r = report()
    r.constants = [compat.CompatConstant("FOO_SIZE", "linux/a.h", 16, 12)]
    r.tree = write_tree(tmp_path / "linux", {"include/uapi/linux/a.h": "", "usr/include/Makefile": ""})
    out = tmp_path / "out"
    out.mkdir()
    compat_report.write_reports(str(out), r)
    assert agree.problems(str(out), 0) == []
    assert agree.problems(str(out), 1) != []
    sarif = json.loads((out / "report.sarif").read_text())
    res = sarif["runs"][0]["results"]
    assert len(res) == 4 + 2 + 1 and {x["level"] for x in res} == {"warning"}
    assert {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for x in res if "ioctl" in x["message"]["text"]} \
        == {"include/uapi/linux/a.h"}
