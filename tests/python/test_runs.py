"""Whole runs of ./uapi-check on two tiny kernel trees made here (a stand-in top Makefile whose
headers_install copies three headers): exit codes CI can rely on, --out locked for a run, shared
caches safe for runs that overlap, byte-stable reports (issue 27, items 2, 3 and 7). Each run
takes about a second; no kernel tree is read."""
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from conftest import write_tree
from uapi_check.util import file_lock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "uapi-check")
REPORTS = ("report.txt", "report.json", "report.sarif", "report.junit.xml", "report.html")

MAKEFILE = textwrap.dedent("""\
    # A stand-in for a kernel tree's top Makefile: headers_install copies the UAPI headers.
    SRCARCH := $(if $(filter x86_64 i386,$(ARCH)),x86,$(ARCH))
    headers_install:
    \tmkdir -p $(INSTALL_HDR_PATH)/include/asm
    \tcp -R $(CURDIR)/include/uapi/. $(INSTALL_HDR_PATH)/include/
    \tcp -R $(CURDIR)/arch/$(SRCARCH)/include/uapi/asm/. $(INSTALL_HDR_PATH)/include/asm/
    """)


def make_tree(base, a_members="int x; int y;", extra=None):
    files = {
        "Makefile": MAKEFILE,
        "usr/include/Makefile": "no-header-test += linux/skip.h\n",
        "include/uapi/linux/a.h": "#ifndef A_H\n#define A_H\n#define A_MAGIC 7\n"
                                  f"struct a_req {{ {a_members} }};\n#endif\n",
        "include/uapi/linux/skip.h": "struct skip { long s; };\n",
        "arch/x86/include/uapi/asm/b.h": "#ifndef B_H\n#define B_H\nstruct b_regs { unsigned long r[4]; };\n#endif\n",
    }
    files.update(extra or {})
    return write_tree(base, files)


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    """old; new (a member added at the tail: review, passes); broken (a member retyped: break,
    fails); and collide-old/new (two pairs of headers that clash in one unit: collision lines in
    report.txt; the new one adds a constant, a finding without sizes)."""
    base = tmp_path_factory.mktemp("trees")
    clash = {"include/uapi/linux/c1.h": "struct clash { int a; };\n",
             "include/uapi/linux/c2.h": "struct clash { long b; };\n",
             "include/uapi/linux/c3.h": "struct clash3 { int a; };\n",
             "include/uapi/linux/c4.h": "struct clash3 { char b; };\n"}
    return {"old": make_tree(base / "old"),
            "new": make_tree(base / "new", "int x; int y; int z;"),
            "broken": make_tree(base / "broken", "long x; int y;"),
            "collide-old": make_tree(base / "collide-old", extra=clash),
            "collide-new": make_tree(base / "collide-new", "int x; int y; int z;",
                                     extra={**clash, "include/uapi/linux/a.h": "#ifndef A_H\n#define A_H\n"
                                            "#define A_MAGIC 7\n#define A_NEW 1\n"
                                            "struct a_req { int x; int y; int z; };\n#endif\n"})}


def env(cache, tool, **more):
    e = dict(os.environ, ABIDIFF_UAPI_CACHE=str(cache), ABIDIFF_UAPI_TOOL=tool,
             PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    e.update(more)
    return e


def start(old, new, out, cache, tool, *more, argv0=(CHECK,), umask=None):
    def pre():
        if umask is not None:
            os.umask(umask)
    return subprocess.Popen([*argv0, "--old", old, "--new", new, "--out", str(out), "--jobs", "1", *more],
                            env=env(cache, tool), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=pre)


def run(*args, **kw):
    p = start(*args, **kw)
    stdout, stderr = p.communicate(timeout=120)
    return p.returncode, stdout, stderr


def reports(out):
    """{name: bytes} of the five reports in out."""
    got = {}
    for name in REPORTS:
        with open(os.path.join(out, name), "rb") as f:
            got[name] = f.read()
    return got


CACHE_KEYS = ("cached", "reused", "reused_from_before", "reuse")


def without_cache_figures(doc):
    """report.json without what says how much came from the cache (it depends on the cache's
    state, not on the check)."""
    if isinstance(doc, dict):
        return {k: without_cache_figures(v) for k, v in doc.items() if k not in CACHE_KEYS}
    if isinstance(doc, list):
        return [without_cache_figures(v) for v in doc]
    return doc


def same_check(a, b):
    """Two report sets of one check: byte for byte, but for report.json's cache figures."""
    for name in REPORTS:
        if name == "report.json":
            assert without_cache_figures(json.loads(a[name])) == without_cache_figures(json.loads(b[name])), name
        else:
            assert a[name] == b[name], name


def one_line_error(stderr):
    """The messages a failed run prints after its progress lines: exactly one."""
    lines = [ln for ln in stderr.splitlines() if not ln.startswith(("uapi-check: step", "  ", "uapi-check:   "))]
    return lines


# -- item 2: exit codes ------------------------------------------------------------------------

def stand_in(tmp_path, body):
    path = tmp_path / "abidiff-uapi"
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("kind", ["segfault", "asan", "ubsan-exit-0"])
def test_a_crash_or_sanitizer_report_of_the_tool_is_exit_2_never_1(trees, tmp_path, tool, kind):
    body = {"segfault": "kill -SEGV $$\n",
            # A report on stderr with the tool's own exit status 1 ("incompatible"): the case a
            # driver that reads only the status takes for a check that fails.
            "asan": f'"{tool}" "$@"; echo "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020" >&2; exit 1\n',
            "ubsan-exit-0": f'"{tool}" "$@"; echo "compare.c:12:5: runtime error: signed integer overflow" >&2; exit 0\n'}[kind]
    fake = stand_in(tmp_path, body)
    out = tmp_path / "out"
    rc, _, err = run(trees["old"], trees["broken"], out, tmp_path / "cache", fake, "--quiet")
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    m = re.fullmatch(r"uapi-check: internal error: abidiff-uapi(?: crashed \(SIGSEGV\)|: sanitizer report: .*) "
                     r"\(details in (.+)\)", lines[0])
    assert m, lines[0]
    with open(m.group(1)) as f:
        log = f.read()
    assert "command: " in log and "diff" in log
    assert not any(os.path.exists(out / r) for r in REPORTS)


def test_an_exception_in_the_driver_is_exit_2_with_its_traceback_in_a_log(trees, tmp_path, tool):
    inject = ("import sys, uapi_check.cli as cli\n"
              "def boom(*a, **k):\n    raise RuntimeError('planted in step 4')\n"
              "cli.step_compare = boom\nsys.exit(cli.main(sys.argv[1:]))\n")
    out = tmp_path / "out"
    rc, _, err = run(trees["old"], trees["new"], out, tmp_path / "cache", tool, "--quiet",
                     argv0=(sys.executable, "-c", inject))
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    m = re.fullmatch(r"uapi-check: internal error: RuntimeError: planted in step 4 \(details in (.+)\)", lines[0])
    assert m, lines[0]
    assert m.group(1) == str(out / "uapi-check-error.log")
    with open(m.group(1)) as f:
        log = f.read()
    assert "Traceback" in log and "in boom" in log
    assert not any(os.path.exists(out / r) for r in REPORTS)


def test_a_failing_check_is_1_and_a_passing_one_0(trees, tmp_path, tool):
    assert run(trees["old"], trees["new"], tmp_path / "a", tmp_path / "cache", tool, "--quiet")[0] == 0
    assert run(trees["old"], trees["broken"], tmp_path / "b", tmp_path / "cache", tool, "--quiet")[0] == 1


def test_a_rejected_run_leaves_no_folder(trees, tmp_path, tool):
    bad = tmp_path / "waivers"
    bad.write_text("struct a_req\n")        # no reason
    out = tmp_path / "out"
    rc, _, err = run(trees["old"], trees["new"], out, tmp_path / "cache", tool, "--waivers", str(bad))
    assert rc == 2 and "waivers:1:" in err, err
    assert not out.exists()
    rc, _, err = run("/nonexistent", trees["new"], out, tmp_path / "cache", tool)
    assert rc == 2 and not out.exists(), err


# -- item 3: --out locked, caches shared --------------------------------------------------------

def test_a_second_run_on_one_out_waits_or_with_no_wait_refuses(trees, tmp_path, tool):
    out = tmp_path / "out"
    out.mkdir()
    with file_lock(str(out / ".uapi-check.lock")):
        rc, _, err = run(trees["old"], trees["new"], out, tmp_path / "cache", tool, "--no-wait")
        assert rc == 2, err
        assert err.strip().splitlines() == [
            f"uapi-check: error: {out}: another run holds it (--no-wait)"], err
        p = start(trees["old"], trees["new"], out, tmp_path / "cache", tool, "--quiet")
        first = p.stderr.readline()
        assert first.startswith(f"uapi-check: waiting for another run that holds {out}"), first
        time.sleep(1)
        assert p.poll() is None         # still waiting
        assert not (out / "report.txt").exists()
    stdout, stderr = p.communicate(timeout=120)
    assert p.returncode == 0, stderr
    assert (out / "report.txt").exists()


def test_overlapping_runs_give_the_reports_of_isolated_runs(trees, tmp_path, tool):
    """Two drift runs at once on one cold cache: with two outputs, each report equals an isolated
    run's; with one output, the second waits, and each run's verdict and the reports left are an
    isolated run's."""
    pairs = {"A": (trees["old"], trees["new"]), "B": (trees["collide-old"], trees["collide-new"])}
    iso = {}
    for k, (old, new) in pairs.items():
        rc, stdout, err = run(old, new, tmp_path / f"iso-{k}", tmp_path / f"cache-iso-{k}", tool, "--quiet")
        assert rc == 0, err
        iso[k] = (stdout, reports(tmp_path / f"iso-{k}"))
    for round_ in range(2):
        cache = tmp_path / f"cache-two-{round_}"
        procs = {k: start(old, new, tmp_path / f"two-{round_}-{k}", cache, tool, "--quiet")
                 for k, (old, new) in pairs.items()}
        for k, p in procs.items():
            stdout, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            assert stdout == iso[k][0]
            same_check(reports(tmp_path / f"two-{round_}-{k}"), iso[k][1])
    # One output, one cache: the same pair twice (both complete), then two pairs.
    for names in (("A", "A"), ("A", "B")):
        out, cache = tmp_path / f"one-{''.join(names)}", tmp_path / f"cache-one-{''.join(names)}"
        procs = [start(*pairs[k], out, cache, tool, "--quiet") for k in names]
        done = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], done
        waited = [i for i, (_, err) in enumerate(done) if "waiting for another run" in err]
        assert len(waited) == 1, done
        for k, (stdout, _) in zip(names, done):
            assert stdout == iso[k][0]
        same_check(reports(out), iso[names[waited[0]]][1])     # the run that waited wrote last


# -- item 7: housekeeping ---------------------------------------------------------------------

def test_reports_are_byte_stable_follow_the_umask_and_never_say_none(trees, tmp_path, tool):
    out, cache = tmp_path / "out", tmp_path / "cache"
    old, new = trees["collide-old"], trees["collide-new"]
    got = []
    for umask in (0o022, 0o022, 0o027):
        rc, _, err = run(old, new, out, cache, tool, "--quiet", umask=umask)
        assert rc == 0, err
        got.append(reports(out))
        for name in REPORTS:
            mode = os.stat(out / name).st_mode & 0o777
            assert mode == 0o666 & ~umask, (name, oct(mode))
    assert b"c4.h" in got[0]["report.txt"]          # the collision lines are there
    same_check(got[0], got[1])                      # a cold run and a warm one
    assert got[1] == got[2]                         # two warm runs: every byte
    for name, data in got[0].items():
        # Python's None formatted into a text; report.html's sentence "None." (no breaks) is
        # English, not a value.
        assert not re.search(rb"\bNone\b", data.replace(b"<p>None.</p>", b"")), name


def test_kernel_versions_are_the_known_ones_with_an_install_hint_that_exists(tmp_path):
    p = subprocess.run([CHECK, "--kernel", "6.2", "--out", str(tmp_path / "out")], capture_output=True,
                       text=True, env=env(tmp_path / "cache", "/bin/false"))
    assert p.returncode == 2
    assert "--kernel 6.2: not a version this project knows (6.1, 6.12)" in p.stderr
    assert not (tmp_path / "out").exists()
    from uapi_check.config import KNOWN_KERNELS
    with open(os.path.join(ROOT, "scripts", "install-deps")) as f:
        groups = set(re.findall(r"^\t([\w.-]+)\)", f.read(), re.M))
    for v in KNOWN_KERNELS:
        assert f"src-{v}" in groups
        assert os.path.isdir(os.path.join(ROOT, "patches", f"linux-{v}"))


def test_show_draws_one_type_of_both_sides_and_writes_no_report(trees, tmp_path, tool):
    """--show TYPE: the tool's side-by-side layout of the run's own objects, C old -> new and
    C++ old -> new, the added member marked; every name form; a name in neither exits 2 in
    one line; no report is written (a previous run's stay)."""
    out, cache = tmp_path / "out", tmp_path / "cache"
    rc, _, err = run(trees["old"], trees["new"], out, cache, tool)
    assert rc == 0, err
    before = reports(out)
    for name in ("a_req", "struct a_req"):
        rc, stdout, err = run(trees["old"], trees["new"], out, cache, tool, "--show", name)
        assert rc == 0, err
        blocks = stdout.split("== ")[1:]
        assert [b.split(" (")[0] for b in blocks] == ["C, old -> new", "C++, old -> new"]
        for b in blocks:
            rows = [line for line in b.splitlines() if " z;" in line]
            assert len(rows) == 1 and rows[0].startswith(">"), b
            assert re.search(r"/\*\s+8\s+4 \*/", rows[0]), rows[0]
    rc, stdout, err = run(trees["old"], trees["new"], out, cache, tool, "--show", "a_req", "--show-format", "json")
    assert rc == 0, err
    docs = json.loads(stdout)
    assert [(d["old"], d["new"]) for d in docs] == [("c-before", "c-after"), ("cxx-before", "cxx-after")]
    rc, stdout, err = run(trees["old"], trees["new"], out, cache, tool, "--show", "union a_req")
    assert rc == 2 and stdout == ""
    assert len(one_line_error(err)) == 1 and "union a_req" in err, err
    assert reports(out) == before
