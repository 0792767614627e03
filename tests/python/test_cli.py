import os

import pytest

from conftest import ROOT
from uapi_check import cli
from uapi_check.util import Fatal


def test_parse_args_defaults(tmp_path):
    o = cli.parse_args(["--out", str(tmp_path)])
    assert (o.kernel, o.drift, o.out) == ("6.1", False, str(tmp_path))
    assert o.patches.endswith("patches/linux-6.1")
    d = cli.parse_args(["--old", "6.1", "--new", "6.12"])
    assert d.drift and d.out.endswith("build/uapi-check/6.1-vs-6.12")


@pytest.mark.parametrize("argv", [["--old", "6.1"], ["--old", "a", "--new", "b", "--patches", "p"],
                                  ["--jobs", "0"], ["--bogus"]])
def test_parse_args_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        cli.parse_args(argv)
    assert e.value.code == 2


def test_fatal_gives_exit_2_one_line_and_no_report(tmp_path, monkeypatch, capsys):
    for name in ("report.json", "report.txt"):
        (tmp_path / name).write_text("stale")

    def boom(opts):
        raise Fatal("missing packages: make (install them with: scripts/install-deps main)")
    monkeypatch.setattr(cli, "check_environment", boom)
    assert cli.main(["--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == "uapi-check: error: missing packages: make (install them with: scripts/install-deps main)\n"
    assert not os.path.exists(tmp_path / "report.json") and not os.path.exists(tmp_path / "report.txt")


def test_malformed_waivers_stop_the_run_before_any_work(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "waivers"
    bad.write_text("# ok\nstruct kvm_run\n")
    monkeypatch.setattr(cli, "check_environment", lambda opts: pytest.fail("the run went on"))
    assert cli.main(["--out", str(tmp_path / "out"), "--waivers", str(bad)]) == 2
    assert capsys.readouterr().err == (f"uapi-check: error: {bad}:2: no reason given for struct kvm_run "
                                       "(format: TYPE[.MEMBER]  reason)\n")


def test_malformed_baseline_stops_the_run(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "report.json"
    bad.write_text('{"tool": "uapi-check"}')
    monkeypatch.setattr(cli, "check_environment", lambda opts: pytest.fail("the run went on"))
    assert cli.main(["--out", str(tmp_path / "out"), "--baseline", str(bad)]) == 2
    assert capsys.readouterr().err == f"uapi-check: error: {bad}: not a uapi-check report (no steps.compare)\n"


def test_a_series_reads_its_own_waivers(tmp_path):
    series = tmp_path / "series-dir"
    series.mkdir()
    (series / "waivers").write_text("struct x  on purpose\n")
    assert cli.parse_args(["--patches", str(series)]).waivers == str(series / "waivers")
    assert cli.parse_args(["--patches", str(tmp_path)]).waivers is None
    assert cli.parse_args(["--patches", str(series), "--waivers", "/w"]).waivers == "/w"
    assert cli.parse_args(["--old", "a", "--new", "b"]).fail_on == "break"
    assert cli.parse_args(["--old", "a", "--new", "b", "--fail-on=review"]).fail_on == "review"


def test_every_option_is_in_the_man_page_and_the_completion():
    """--help, the man page and bash completion name the same options (--sarif-safe too)."""
    import re
    import subprocess
    out = subprocess.run([os.path.join(ROOT, "uapi-check"), "--help"], capture_output=True, text=True).stdout
    options = set(re.findall(r"(--[a-z][a-z-]+)", out)) - {"--help"}
    assert "--sarif-safe" in options
    with open(os.path.join(ROOT, "abidiff-uapi", "completion", "abidiff-uapi")) as f:
        completion = f.read()
    with open(os.path.join(ROOT, "abidiff-uapi", "man", "uapi-check.1.scd")) as f:
        man = f.read().replace("\\-", "-")
    assert sorted(options - set(re.findall(r"--[a-z][a-z-]+", completion))) == []
    assert sorted(o for o in options if f"*{o}*" not in man) == []
