#!/usr/bin/env python3
"""git-mode: uapi-check --git on a repository made at test time from Debian's pristine 6.12 tree
(tests/git/make-repo: the files headers_install reads, then patches/linux-6.12 applied by git am).

  1. --each-commit over the series: every commit passes, each against its parent, and the later
     commits reuse the per-header results of the earlier ones, and the tip's installed headers
     (its side took over an older side's tree, its unchanged headers are links to its parent's)
     are those `make headers_install` gives on a plain export of it; then a commit that appends a
     member is for review, and its run's macro scans, reused from its parent's with the lines after the
     member taken again, are those a new scan of its headers gives; then a commit that renumbers a
     request and raises a version macro, which no type uses (the units' objects stay the same
     bytes), fails with the numbers a compiled program prints, and the version is for review;
  2. a planted branch (a comment, a commit that swaps two members, a comment): it fails, and the
     first bad commit named is the planted one; the offsets the report gives for the moved members
     are those gcc's offsetof gives in each revision's installed headers;
  3. the default on a dirty working tree compares it against HEAD: a widened member fails (with the
     ioctl numbers of its struct), a comment passes;
  4. the caches are keyed by the compile flags: a warm run reuses every result, the same run with
     --cflags reuses no compile result;
  5. bad input (no directory, no repository, no such ref, --each-commit without --git) exits 2
     with one line.

Usage: git-mode.py   (needs scripts/install-deps main src-6.12; about 5 minutes on 2 cores)
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)
import agree  # noqa: E402  (tests/agree.py: the five reports and the exit status agree)
CHECK = os.path.join(ROOT, "uapi-check")
SERIES = os.path.join(ROOT, "patches", "linux-6.12")
HEADER = "include/uapi/linux/uinput.h"
failures = []


def ok(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="abidiff-uapi tests", GIT_AUTHOR_EMAIL="tests@invalid",
               GIT_COMMITTER_NAME="abidiff-uapi tests", GIT_COMMITTER_EMAIL="tests@invalid")
    p = run(["git", "-C", repo, *args], env=env)
    if p.returncode:
        sys.exit(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout.strip()


def check(*args):
    p = run([CHECK, *args])
    return p.returncode, p.stdout, p.stderr


def load(path):
    with open(path) as f:
        return json.load(f)


def edit(repo, path, old, new):
    full = os.path.join(repo, path)
    with open(full) as f:
        text = f.read()
    if old not in text:
        sys.exit(f"{path}: no '{old}' to change")
    with open(full, "w") as f:
        f.write(text.replace(old, new, 1))


def reuse(report):
    """(per-header results reused, results, units cached, headers_install cached)."""
    h = report["steps"]["headers"]
    return (sum(h[r]["reused"]["reused"] for r in h), sum(h[r]["reused"]["results"] for r in h),
            sum(1 for u in report["steps"]["units"].values() if u["cached"]),
            sum(1 for c in report["steps"]["trees"]["headers_install_cached"].values() if c))


def installed(include):
    return [os.path.join(dp, f) for dp, _, fs in os.walk(include) for f in fs]


def offsetof(include, struct, member):
    src = f"#include <stddef.h>\n#include <linux/uinput.h>\nint x = offsetof(struct {struct}, {member});\n"
    p = run(["gcc", "-I", include, "-x", "c", "-S", "-o", "-", "-"], input=src)
    m = re.search(r"\.long\s+(\d+)", p.stdout)
    return int(m.group(1)) if m else None


def value(include, expr):
    """What a program compiled against include prints for expr (an independent instrument)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "v.c")
        with open(src, "w") as f:
            f.write(f"#include <stdio.h>\n#include <linux/uinput.h>\n"
                    f"int main(void) {{ printf(\"%lu\\n\", (unsigned long)({expr})); return 0; }}\n")
        p = run(["gcc", "-I", include, src, "-o", os.path.join(d, "v")])
        if p.returncode:
            return None
        return int(run([os.path.join(d, "v")]).stdout)


def units_unchanged(out):
    """Whether each main unit of the after side is the same bytes as its before side's."""
    def data(name):
        with open(os.path.join(out, "obj", f"{name}.o"), "rb") as f:
            return f.read()
    return all(data(f"{lang}-before") == data(f"{lang}-after") for lang in ("c", "cxx"))


def stored_scans():
    d = os.path.join(os.environ["ABIDIFF_UAPI_CACHE"], "scans")
    return sorted(os.path.join(u, e) for u in os.listdir(d) for e in os.listdir(os.path.join(d, u))
                  if e.endswith(".scan.json")) if os.path.isdir(d) else []


def scans_reused(out):
    """The stored scans of the after units (the run's compilers, flags and headers) are found,
    and each is a new scan's (macros._scan) of the same headers."""
    from uapi_check import macros, scans
    from uapi_check.config import UNIT_FLAGS
    rep = load(os.path.join(out, "report.json"))
    store = scans.Store(os.environ["ABIDIFF_UAPI_CACHE"], {c["path"]: c for c in rep["compilers"].values()})
    inc = os.path.join(out, "include", "after")
    for lang, c in sorted(rep["compilers"].items()):
        with open(os.path.join(out, "work", f"{lang}-after.{'c' if lang == 'c' else 'cc'}")) as f:
            headers = re.findall(r"^#include <([^>]+)>$", f.read(), re.M)
        got = store.load(c["path"], inc, headers, UNIT_FLAGS[lang])
        new = macros._scan(c["path"], inc, headers, UNIT_FLAGS[lang])
        fields = ("defs", "function_like", "files", "expansions", "enums", "enum_expansions")
        ok(got is not None and all(getattr(got, f) == getattr(new, f) for f in fields)
           and got.defs["UI_END_FF_ERASE"] == new.defs["UI_END_FF_ERASE"],
           f"{lang}-after: the stored scan, its lines taken again, is a new scan's "
           f"({len(new.defs)} macros, UI_END_FF_ERASE at {new.defs.get('UI_END_FF_ERASE')})")


def subjects():
    """The series' subjects, from the patch files (independent of git am)."""
    out = []
    with open(os.path.join(SERIES, "series")) as f:
        names = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    for n in names:
        with open(os.path.join(SERIES, n)) as f:
            text = f.read()
        m = re.search(r"^Subject: (?:\[PATCH[^\]]*\] )?(.*(?:\n [^\n]*)*)", text, re.M)
        out.append(" ".join(m.group(1).split()))
    return out


def main():
    work = tempfile.mkdtemp(prefix="git-mode.")
    os.environ["ABIDIFF_UAPI_CACHE"] = os.path.join(work, "cache")   # cold, and this test's own
    try:
        p = run([os.path.join(ROOT, "scripts", "kernel-tree"), "6.12"])
        if p.returncode:
            sys.exit(f"kernel-tree 6.12: {p.stderr.strip()}")
        tree = p.stdout.strip()
        repo = os.path.join(work, "linux")
        p = run([os.path.join(ROOT, "tests", "git", "make-repo"), tree, SERIES, repo])
        if p.returncode:
            sys.exit(f"make-repo: {p.stderr.strip()}")
        print(p.stderr.strip(), flush=True)
        steps(work, repo)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"0 passed, 1 failed ({len(failures)} checks)")
        return 1
    print("1 passed, 0 failed")
    return 0


def steps(work, repo):
    # 1. Every commit of the series.
    out = os.path.join(work, "series")
    rc, stdout, stderr = check("--git", repo, "--each-commit", "pristine..main", "--out", out)
    ok(rc == 0, f"--each-commit over the series: exit 0 (got {rc}) {stderr.strip()[-300:]}")
    doc = load(os.path.join(out, "each-commit.json")) if os.path.isfile(os.path.join(out, "each-commit.json")) else {}
    rows = doc.get("commits", [])
    ok([r["subject"] for r in rows] == subjects(), f"one row per patch, in order ({len(rows)})")
    ok(rows and all(r["verdict"] == "pass" for r in rows) and doc.get("first_bad") is None,
       "every commit passes")
    ok(f"every commit passes ({len(subjects())})" in stdout, "the summary says so")
    problems = agree.each_commit_problems(out, rc)
    ok(problems == [], "each commit's five reports agree with its verdict " + "; ".join(problems[:3]))
    ids = git(repo, "rev-list", "--reverse", "pristine..main").split()
    ok([r["commit"] for r in rows] == ids and [r["parent"] for r in rows] == [git(repo, "rev-parse", "pristine")] + ids[:-1],
       "each commit is checked against its parent")
    later = []
    for r in rows:
        rep = load(os.path.join(out, os.path.dirname(r["report"]), "report.json"))
        g = rep["steps"]["trees"]["git"]
        ok(rep["mode"] == "commit" and g["after"]["commit"] == r["commit"] and g["before"]["commit"] == r["parent"],
           f"{r['commit'][:12]}: its report names the two revisions")
        later.append(reuse(rep))
    ok(all(u[0] >= 0.95 * u[1] for u in later[1:]),
       f"commits 2..12 reuse at least 95% of the per-header results ({[u[0] for u in later]})")
    # The last commits' sides took over older sides' trees and linked their parents' headers
    # (git.py, trees.py): the tip's headers are those make installs from a plain export of it.
    if rows:
        fresh = os.path.join(work, "export")
        os.makedirs(fresh)
        subprocess.run(f"git -C {shlex.quote(repo)} archive main | tar -x -C {shlex.quote(fresh)}", shell=True,
                       check=True)
        plain = os.path.join(work, "export-install")
        p = run(["make", "-s", "-C", fresh, f"O={fresh}/obj", "ARCH=x86_64", f"INSTALL_HDR_PATH={plain}",
                 "headers_install"])
        tip = os.path.join(out, os.path.dirname(rows[-1]["report"]), "include", "after")
        d = run(["diff", "-r", os.path.join(plain, "include"), tip])
        ok(p.returncode == 0 and d.returncode == 0 and d.stdout == "",
           f"the tip's installed headers are a plain install's {p.stderr.strip()[-200:]}{d.stdout[:300]}")
        # Two links are the cache's install and this commit's out dir; a third is an earlier install.
        linked = [f for f in installed(tip) if os.stat(f).st_nlink > 2]
        ok(len(linked) >= 0.9 * len(installed(tip)),
           f"{len(linked)} of {len(installed(tip))} tip headers are shared with an earlier install")

    # A commit that adds a member moves the lines after it and changes no directive: its run
    # reuses its parent's macro scans (uapi_check/scans.py) with that header's lines taken again.
    # Each such scan is the preprocessor's: a new scan of the same headers is the same.
    edit(repo, HEADER, "\t__u32\t\t\teffect_id;\n", "\t__u32\t\t\teffect_id;\n\t__u32\t\t\tadded;\n")
    git(repo, "commit", "-q", "-am", "uinput: a member")
    out = os.path.join(work, "member")
    kept = stored_scans()
    rc, _, stderr = check("--git", repo, "--out", out)
    text = open(os.path.join(out, "report.txt")).read() if rc in (0, 1) else ""
    ok(rc == 0 and "struct uinput_ff_erase: size: 12 -> 16 bytes [tail-growth]" in text,
       f"a member appended to uinput_ff_erase is for review (tail growth) (exit {rc}) {stderr.strip()[-200:]}")
    ok(kept and stored_scans() == kept, f"it made no new scan: the cache keeps the same {len(kept)}")
    if rc in (0, 1):
        scans_reused(out)
    git(repo, "reset", "-q", "--hard", "HEAD^")

    # A commit that changes macros no type uses: the units' objects are the bytes they were, and
    # the request number and the constant must still be judged by what the headers now say.
    edit(repo, HEADER, "#define UINPUT_VERSION\t\t5", "#define UINPUT_VERSION\t\t6")
    edit(repo, HEADER, "_IO(UINPUT_IOCTL_BASE, 1)", "_IO(UINPUT_IOCTL_BASE, 99)")
    git(repo, "commit", "-q", "-am", "uinput: renumber UI_DEV_CREATE")
    out = os.path.join(work, "macros")
    rc, _, stderr = check("--git", repo, "--out", out)
    text = open(os.path.join(out, "report.txt")).read() if rc in (0, 1) else ""
    base = os.path.join(out, "include")
    number = tuple(value(os.path.join(base, side), "UI_DEV_CREATE") for side in ("before", "after"))
    ok(rc == 1 and number[0] != number[1]
       and f"ioctl UI_DEV_CREATE: 0x{number[0]:08x} -> 0x{number[1]:08x}" in text,
       f"a renumbered request fails with the numbers a compiled program prints {number} (exit {rc}) "
       f"{stderr.strip()[-200:]}")
    ok("#define UINPUT_VERSION: value 5 -> 6 [version-increased]" in text, "a new version number is for review")
    ok(units_unchanged(out), "although the units' objects are the parent's bytes")
    git(repo, "reset", "-q", "--hard", "HEAD^")

    # 2. A planted branch: the middle commit moves members.
    git(repo, "checkout", "-q", "-b", "planted", "main")
    edit(repo, HEADER, "#define UINPUT_IOCTL_BASE", "/* a comment */\n#define UINPUT_IOCTL_BASE")
    git(repo, "commit", "-q", "-am", "uinput: a comment")
    edit(repo, HEADER, "\t__s32\t\t\tretval;\n\t__u32\t\t\teffect_id;\n};",
         "\t__u32\t\t\teffect_id;\n\t__s32\t\t\tretval;\n};")
    git(repo, "commit", "-q", "-am", "uinput: swap retval and effect_id in uinput_ff_erase")
    bad = git(repo, "rev-parse", "HEAD")
    edit(repo, HEADER, "/* a comment */", "/* another comment */")
    git(repo, "commit", "-q", "-am", "uinput: another comment")
    out = os.path.join(work, "planted")
    rc, stdout, stderr = check("--git", repo, "--each-commit", "main..planted", "--out", out)
    ok(rc == 1, f"planted branch: exit 1 (got {rc})")
    doc = load(os.path.join(out, "each-commit.json"))
    ok(doc["first_bad"] == bad, f"the first bad commit is the planted one ({doc['first_bad']})")
    ok(f"first bad commit: {bad} uinput: swap retval and effect_id" in stdout, "the summary names it")
    ok([r["verdict"] for r in doc["commits"]] == ["pass", "fail", "pass"], "the comments pass")
    problems = agree.each_commit_problems(out, rc)
    ok(problems == [], "each commit's five reports agree with its verdict " + "; ".join(problems[:3]))
    row = doc["commits"][1]
    rep = load(os.path.join(out, os.path.dirname(row["report"]), "report.json"))
    moved = [f for f in rep["steps"]["compare"]["c-before_c-after"]["findings"]
             if f["type"] == "struct uinput_ff_erase" and f["severity"] == "fail"]
    ok(bool(moved) and row["failing_checks"] == ["drift"], "struct uinput_ff_erase fails the drift check")
    base = os.path.join(out, os.path.dirname(row["report"]), "include")
    for f in moved:
        c = f.get("change") or {}
        if c.get("change") != "member":
            continue
        m = c["member"]
        got = (c["old"]["offset"], c["new"]["offset"])
        want = (offsetof(os.path.join(base, "before"), "uinput_ff_erase", m),
                offsetof(os.path.join(base, "after"), "uinput_ff_erase", m))
        ok(got == want and got[0] != got[1], f"{m}: offsets {got} are gcc's offsetof {want}")
    ok(sum(1 for f in moved if (f.get("change") or {}).get("change") == "member") == 2,
       "both swapped members are reported")

    # 3. A dirty working tree against HEAD.
    git(repo, "checkout", "-q", "main")
    edit(repo, HEADER, "\t__u32\t\t\trequest_id;\n\t__s32\t\t\tretval;", "\t__u64\t\t\trequest_id;\n\t__s32\t\t\tretval;")
    out = os.path.join(work, "dirty")
    rc, stdout, stderr = check("--git", repo, "--out", out)
    rep = load(os.path.join(out, "report.json")) if rc in (0, 1) else {}
    g = rep.get("steps", {}).get("trees", {}).get("git") or {}
    ok(rc == 1 and g.get("before", {}).get("ref") == "HEAD" and g.get("after", {}).get("commit") is None,
       f"dirty: the working tree against HEAD fails (exit {rc}) {stderr.strip()[-200:]}")
    # The first request_id/retval pair of uinput.h is struct uinput_ff_upload's.
    failing = {f["type"] for f in rep.get("steps", {}).get("compare", {}).get("c-before_c-after", {}).get("findings", [])
               if f["severity"] == "fail"}
    ok(failing == {"struct uinput_ff_upload", "ioctl UI_BEGIN_FF_UPLOAD", "ioctl UI_END_FF_UPLOAD"},
       f"the widened member and the ioctl numbers of its struct are the failures ({sorted(failing)})")
    git(repo, "checkout", "-q", "--", HEADER)
    edit(repo, HEADER, "#define UINPUT_IOCTL_BASE", "/* work in progress */\n#define UINPUT_IOCTL_BASE")
    rc, stdout, stderr = check("--git", repo, "--out", out)
    rep = load(os.path.join(out, "report.json")) if rc in (0, 1) else {}
    ok(rc == 0 and rep["steps"]["trees"]["git"]["after"]["commit"] is None, f"dirty with a comment: passes ({rc})")
    u = reuse(rep) if rep else (0, 1, 0, 0)
    ok(u[0] >= 0.99 * u[1], f"and reuses the per-header results ({u[0]} of {u[1]})")
    git(repo, "checkout", "-q", "--", HEADER)

    # 4. Cache keys: the same run warm, then with another compiler flag.
    out = os.path.join(work, "flags")
    rc, _, _ = check("--git", repo, "--old", "main^", "--new", "main", "--out", out)
    u = reuse(load(os.path.join(out, "report.json")))
    ok(rc == 0 and u[0] == u[1] and u[2] == 4 and u[3] == 2, f"warm: everything reused {u}")
    rc, _, stderr = check("--git", repo, "--old", "main^", "--new", "main", "--out", out,
                          "--cflags=-DABIDIFF_UAPI_TEST_FLAG=1")
    rep = load(os.path.join(out, "report.json"))
    u = reuse(rep)
    # The before side is compiled whole again; the after side may share its results (nothing they
    # read changed; here x86 installs the same headers on both sides), compiled in this run with
    # the new flag.
    before = rep["steps"]["headers"]["before"]["reused"]
    units = rep["steps"]["units"]
    ok(rc == 0 and before["reused"] == 0 and before["results"] > 1800
       and not units["c-before"]["cached"] and not units["cxx-before"]["cached"],
       f"--cflags: no compile result taken from the cache (before {before}, units "
       f"{ {k: v['cached'] for k, v in units.items()} }) {stderr.strip()[-200:]}")

    # 5. Bad input.
    plain = os.path.join(work, "plain")
    os.makedirs(plain)
    for args, reason in (([os.path.join(work, "nope")], "no such directory"),
                         ([plain], "not a git repository"),
                         ([repo, "--old", "no-such-ref"], "no-such-ref: no such commit"),
                         ([repo, "--each-commit", "main"], "give a range")):
        rc, stdout, stderr = check("--git", *args, "--out", os.path.join(work, "bad"))
        lines = stderr.strip().splitlines()
        ok(rc == 2 and len(lines) == 1 and reason in lines[0], f"--git {' '.join(args)}: exit 2, one line ({rc}: {lines})")
    rc, _, stderr = check("--each-commit", "a..b")
    ok(rc == 2 and "--each-commit needs --git" in stderr, "--each-commit without --git: exit 2")


if __name__ == "__main__":
    sys.exit(main())
