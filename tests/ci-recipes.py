#!/usr/bin/python3
"""ci-recipes: docs/ci.md's recipes, run as the page writes them (read from it, not copied), on a
kernel repository made at test time (tests/git/make-repo: the files headers_install reads from
Debian's 6.12 tree, then patches/linux-6.12 committed by git am):

  1. the baseline recipe, in the repository at main: it commits .uapi-check/baseline.json, made
     from main's own findings against 6.1 (not an empty one);
  2. a pull request: a commit, and a merge of a branch that moves a member of struct
     uinput_ff_erase (include/uapi/linux/uinput.h);
  3. the GitHub job's uapi-check step on the pull request: exit 1, the planted break the only
     unsuppressed result, the baseline's findings suppressed "in baseline", and report.sarif as
     the upload step would send it: valid against OASIS's SARIF 2.1.0 schema, a file code
     scanning accepts (tests/agree.py), every location a file of the repository;
  4. the GitLab job's script at main: exit 0, report.junit.xml with no failure and the accepted
     findings skipped with their justification;
  5. the --each-commit job over origin/master..HEAD: the first-parent line (the commit, then
     the merge against its first parent), exit 1, the merge named as the first bad commit;
  and every report directory's five reports agree with the exit status (tests/agree.py).

Usage: ci-recipes.py   (needs scripts/install-deps main src-6.12 and python3-yaml; about 4
minutes on 2 cores, most of it headers_install of the repository's trees)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import agree  # noqa: E402

DOC = os.path.join(ROOT, "docs", "ci.md")
PLANTED = "include/uapi/linux/uinput.h"
failures = []


def ok(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


ENV = dict(os.environ, GIT_AUTHOR_NAME="abidiff-uapi tests", GIT_AUTHOR_EMAIL="tests@invalid",
           GIT_COMMITTER_NAME="abidiff-uapi tests", GIT_COMMITTER_EMAIL="tests@invalid")


def git(repo, *args):
    p = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, env=ENV)
    if p.returncode:
        sys.exit(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout.strip()


def recipes():
    """The commands docs/ci.md gives: the baseline block, the GitHub job's uapi-check step, the
    GitLab job's script, the --each-commit step."""
    with open(DOC) as f:
        text = f.read()
    blocks = re.findall(r"```(\w+)\n(.*?)```", text, re.S)
    sh = [b for lang, b in blocks if lang == "sh"]
    docs = [yaml.safe_load(b) for lang, b in blocks if lang == "yaml"]
    github = next(d for d in docs if isinstance(d, dict) and "jobs" in d)
    step = next(s for s in github["jobs"]["uapi-check"]["steps"] if s.get("name") == "uapi-check")
    upload = next(s for s in github["jobs"]["uapi-check"]["steps"] if "upload-sarif" in str(s.get("uses")))
    gitlab = next(d for d in docs if isinstance(d, dict) and "uapi-check" in d and "script" in d["uapi-check"])
    each = next(d for d in docs if isinstance(d, list))
    each_run = next(s["run"] for s in each if "run" in s)
    return {"baseline": sh[0], "github": step["run"], "sarif_file": upload["with"]["sarif_file"],
            "gitlab": gitlab["uapi-check"]["script"], "junit": gitlab["uapi-check"]["artifacts"]["reports"]["junit"],
            "each": each_run}


def sh(cmd, cwd, env):
    print(f"+ (cd {cwd}) {cmd.strip()}", flush=True)
    p = subprocess.run(["bash", "-euc", cmd], cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(p.stdout[-2000:] + p.stderr[-2000:])
    return p.returncode


def clone(src, dest, ref):
    subprocess.run(["git", "clone", "-q", src, dest], check=True)
    git(dest, "checkout", "-q", ref)
    return dest


def main():
    r = recipes()
    tree = subprocess.run([os.path.join(ROOT, "scripts", "kernel-tree"), "--headers", "6.12"],
                          capture_output=True, text=True, check=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="uapi-ci-recipes.")
    try:
        steps(work, tree, r)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


def steps(work, tree, r):
    origin = os.path.join(work, "origin")
    subprocess.run([os.path.join(ROOT, "tests", "git", "make-repo"), tree,
                    os.path.join(ROOT, "patches", "linux-6.12"), origin], check=True)
    # 1. The baseline, in a checkout of main beside the project (../abidiff-uapi).
    ws = os.path.join(work, "ws")
    os.makedirs(ws)
    os.symlink(ROOT, os.path.join(ws, "abidiff-uapi"))
    linux = clone(origin, os.path.join(ws, "linux"), "main")
    env = dict(ENV, GITHUB_WORKSPACE=ws)
    rc = sh(r["baseline"], linux, env)
    ok(rc == 0, f"the baseline recipe: exit 0 (got {rc})")
    base = os.path.join(linux, ".uapi-check", "baseline.json")
    ok(git(linux, "log", "-1", "--format=%s", "--", ".uapi-check/baseline.json").startswith("uapi-check"),
       "the baseline is committed")
    with open(base) as f:
        doc = json.load(f)
    accepted = sum(len(c["findings"]) for c in doc["checks"])
    ok(accepted > 100, f"the baseline holds main's own findings against 6.1 ({accepted})")
    # 2. A pull request: a harmless commit, and a merge of a branch that moves two members.
    git(linux, "checkout", "-q", "-b", "pr")
    with open(os.path.join(linux, "Documentation.txt"), "w") as f:
        f.write("not a header\n")
    git(linux, "add", "-A")
    git(linux, "commit", "-q", "-m", "pr: a file headers_install does not read")
    git(linux, "checkout", "-q", "-b", "side", "main")
    path = os.path.join(linux, PLANTED)
    with open(path) as f:
        text = f.read()
    old = "struct uinput_ff_erase {\n\t__u32\t\t\trequest_id;\n\t__s32\t\t\tretval;\n"
    ok(old in text, "the member swap applies")
    with open(path, "w") as f:
        f.write(text.replace(old, "struct uinput_ff_erase {\n\t__s32\t\t\tretval;\n\t__u32\t\t\trequest_id;\n"))
    git(linux, "commit", "-q", "-am", "uinput: swap two members (planted)")
    git(linux, "checkout", "-q", "pr")
    git(linux, "merge", "-q", "--no-ff", "-m", "Merge branch side", "side")
    # 3. The GitHub job on the pull request's tip.
    rc = sh(r["github"], ws, env)
    ok(rc == 1, f"the GitHub job on the pull request: exit 1 (got {rc})")
    out = os.path.join(ws, "uapi-out")
    problems = agree.problems(out, rc)
    ok(problems == [], "its five reports agree with the exit status " + "; ".join(problems[:3]))
    with open(os.path.join(ws, r["sarif_file"])) as f:
        sarif = json.load(f)
    errors = agree.schema.errors(agree.sarif_validator(), sarif) + agree.github_problems(sarif)
    ok(errors == [], f"{r['sarif_file']}: valid SARIF that code scanning takes " + "; ".join(errors[:3]))
    results = sarif["runs"][0]["results"]
    files = set(git(linux, "ls-files").splitlines())
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for x in results for loc in x["locations"]}
    ok(uris <= files, f"every location is a file of the repository ({sorted(uris - files)[:3]})")
    live = [x for x in results if not x.get("suppressions")]
    ok([(x["level"], x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], x["ruleId"]) for x in live
        if x["level"] == "error"] == [("error", PLANTED, "moved")],
       "the planted break is the one unsuppressed error, on its header ("
       + "; ".join(x["message"]["text"][:80] for x in live if x["level"] == "error")[:300] + ")")
    sup = [x for x in results if x.get("suppressions")]
    ok(len(sup) > 100 and all(x["suppressions"][0]["justification"] == "in baseline" for x in sup),
       f"the baseline's findings are suppressed 'in baseline' ({len(sup)})")
    # 4. The GitLab job on main (the baseline's commit): passes, its JUnit report says why.
    gl = clone(linux, os.path.join(work, "gl"), "main")
    gl_env = dict(ENV, CI_PROJECT_DIR=gl)
    rc = 0
    for cmd in r["gitlab"]:
        rc = sh(cmd.replace("/opt/abidiff-uapi", ROOT), gl, gl_env) or rc
    ok(rc == 0, f"the GitLab job at the baseline's commit: exit 0 (got {rc})")
    ok(agree.problems(os.path.join(gl, "uapi-out"), rc) == [], "its five reports agree with the exit status")
    junit = ET.parse(os.path.join(gl, r["junit"])).getroot()
    skipped = [c.find("skipped").get("message") for c in junit.iter("testcase") if c.find("skipped") is not None]
    ok(junit.get("failures") == "0" and len(skipped) > 100 and set(skipped) == {"in baseline"},
       f"{r['junit']}: no failure, {len(skipped)} findings skipped 'in baseline'")
    # 5. --each-commit over the pull request, uapi-check on PATH, origin/master its base.
    git(linux, "update-ref", "refs/remotes/origin/master", "main")
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir)
    os.symlink(os.path.join(ROOT, "uapi-check"), os.path.join(bin_dir, "uapi-check"))
    rc = sh(r["each"], linux, dict(ENV, PATH=bin_dir + os.pathsep + ENV["PATH"]))
    ok(rc == 1, f"--each-commit over the pull request with its merge: exit 1 (got {rc})")
    each_out = os.path.join(linux, "uapi-out")
    with open(os.path.join(each_out, "each-commit.json")) as f:
        doc = json.load(f)
    line = [git(linux, "rev-parse", x) for x in ("main", "pr~1", "pr")]
    ok([(c["parent"], c["commit"]) for c in doc["commits"]] == [(line[0], line[1]), (line[1], line[2])],
       "the first-parent line: the commit against main, the merge against its first parent")
    ok(doc["first_bad"] == line[2] and [c["verdict"] for c in doc["commits"]] == ["pass", "fail"],
       "the merge is the first bad commit")
    problems = agree.each_commit_problems(each_out, rc)
    ok(problems == [], "each commit's five reports agree " + "; ".join(problems[:3]))


if __name__ == "__main__":
    sys.exit(main())
