"""git.py on tiny repositories (no kernel tree): which files a side takes, its key, how it is
written out, the defaults, and the commit range. The whole mode on a real tree is tests/git-mode.py."""
import os
import shutil
import subprocess

import pytest

from uapi_check import git as ug
from uapi_check.util import Fatal

NEEDS_GIT = pytest.mark.skipif(shutil.which("git") is None, reason="git is missing")

FILES = {
    "Makefile": "all:\n",
    "usr/include/Makefile": "no-header-test += linux/x.h\n",
    "include/uapi/linux/a.h": "struct a { int x; };\n",
    "arch/x86/include/uapi/asm/b.h": "struct b { long y; };\n",
    "arch/x86/Makefile": "# arch\n",
    "scripts/headers_install.sh": "#!/bin/sh\necho hi\n",
    "kernel/sched/core.c": "int main;\n",            # not needed
    "arch/x86/kernel/setup.c": "int setup;\n",        # not needed
    "include/linux/sched.h": "struct task;\n",        # not needed (not UAPI)
}


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@invalid")
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def write(repo, rel, text, mode=None):
    path = os.path.join(repo, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode:
        os.chmod(path, mode)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    r = tmp_path / "linux"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    for rel, text in FILES.items():
        write(r, rel, text, 0o755 if rel.endswith(".sh") else None)
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "base")
    write(r, "include/uapi/linux/a.h", "struct a { int x; int y; };\n")
    git(r, "commit", "-q", "-am", "a: add y")
    return r


def test_needed():
    yes = ["Makefile", "scripts/Makefile.headersinst", "include/uapi/linux/a.h", "usr/include/Makefile",
           "arch/arm64/include/uapi/asm/kvm.h", "arch/x86/Makefile", "arch/x86/Makefile_32.cpu",
           "arch/arm/tools/syscall.tbl", "arch/x86/entry/syscalls/syscall_64.tbl",
           "arch/s390/kernel/syscalls/syscall.tbl", "arch/riscv/kernel/Makefile.syscalls",
           "tools/include/tools/le_byteshift.h"]
    no = ["kernel/sched/core.c", "include/linux/sched.h", "arch/x86/kernel/setup.c", "Makefile.old",
          "arch/x86/include/asm/io.h", "tools/perf/Makefile", "arch/riscv/kernel/Makefile"]
    assert [p for p in yes if not ug.needed(p)] == []
    assert [p for p in no if ug.needed(p)] == []


@NEEDS_GIT
def test_key_ignores_files_headers_install_does_not_read(repo):
    r = ug.Repo(str(repo))
    head = r.side("HEAD")
    assert head.key != r.side("HEAD^").key            # a.h changed
    write(repo, "kernel/sched/core.c", "int other;\n")
    git(repo, "commit", "-q", "-am", "sched: unrelated")
    assert r.side("HEAD").key == head.key
    assert r.side("HEAD").commit != head.commit
    assert [e.path for e in r.commit_entries("HEAD")] == sorted(
        p for p in FILES if ug.needed(p))


@NEEDS_GIT
def test_worktree_key_is_the_commit_key_when_clean(repo):
    r = ug.Repo(str(repo))
    assert r.side(None).key == r.side("HEAD").key
    write(repo, "kernel/sched/core.c", "int dirty_but_not_needed;\n")
    assert r.side(None).key == r.side("HEAD").key
    write(repo, "include/uapi/linux/new.h", "struct n { int z; };\n")   # untracked, needed
    assert r.side(None).key != r.side("HEAD").key
    os.unlink(os.path.join(repo, "include/uapi/linux/new.h"))
    os.chmod(os.path.join(repo, "scripts/headers_install.sh"), 0o644)      # a mode is content
    assert r.side(None).key != r.side("HEAD").key


@NEEDS_GIT
def test_defaults(repo):
    r = ug.Repo(str(repo))
    old, new = ug.sides(r, None, None)           # clean: HEAD^ against HEAD
    assert (old.ref, new.ref) == ("HEAD^", "HEAD")
    write(repo, "include/uapi/linux/a.h", "struct a { long x; };\n")
    old, new = ug.sides(r, None, None)           # dirty: HEAD against the working tree
    assert (old.ref, new.commit) == ("HEAD", None)
    old, new = ug.sides(r, None, "HEAD")         # --new only: its parent
    assert (old.commit, new.commit) == (git(repo, "rev-parse", "HEAD^"), git(repo, "rev-parse", "HEAD"))
    old, new = ug.sides(r, "HEAD^", None)        # --old only: against the working tree
    assert (old.commit, new.commit) == (git(repo, "rev-parse", "HEAD^"), None)


@NEEDS_GIT
def test_pathspecs_list_what_needed_takes(repo):
    """git ls-files with fileset.pathspecs() (from the top, wherever git runs) lists the needed
    paths and no others, tracked and untracked."""
    more = ["arch/x86/include/uapi/asm/deep/x.h", "arch/x86/Makefile_32.cpu", "arch/arm64/tools/gen",
            "arch/x86/kernel/Makefile.syscalls", "arch/x86/kernel/Makefile", "arch/x86/entry/syscalls/a.tbl",
            "scripts/a/b/c.sh", "usrx/file", "include/uapix/y.h", "tools/include/uapi/z.h",
            "tools/lib/bpf/x.c", "Makefile.old", "sub/Makefile"]
    for i, rel in enumerate(more):
        write(repo, rel, f"{i}\n")
    git(repo, "add", *more[::2])                                   # half tracked, half not
    every = git(repo, "ls-files", "-z", "--cached", "--others").split("\0")
    for where in (repo, repo / "arch"):
        r = ug.Repo(str(where))
        listed = [e.path for e in r.worktree_entries()]
        assert listed == sorted(p for p in every if p and ug.needed(p)) and "arch/x86/kernel/Makefile" not in listed
        assert "arch/x86/include/uapi/asm/deep/x.h" in listed and "arch/x86/kernel/Makefile.syscalls" in listed


@NEEDS_GIT
def test_default_sides_hash_the_working_tree_only_when_git_status_lists_a_needed_file(repo, monkeypatch):
    r = ug.Repo(str(repo))
    hashed = []
    real = ug.Repo.worktree_entries
    monkeypatch.setattr(ug.Repo, "worktree_entries", lambda self: hashed.append(1) or real(self))
    write(repo, "kernel/new.c", "int x;\n")                       # untracked, not needed
    write(repo, "kernel/sched/core.c", "int main2;\n")            # changed, not needed
    write(repo, ".gitignore", "*.tmp\n")
    write(repo, "include/uapi/linux/x.tmp", "ignored\n")            # needed, but ignored
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")
    assert [s.ref for s in ug.sides(r, None, None)] == ["HEAD^", "HEAD"] and hashed == []
    write(repo, "include/uapi/linux/new.h", "struct n;\n")          # untracked and needed: dirty
    old, new = ug.sides(r, None, None)
    assert (old.ref, new.commit, len(hashed)) == ("HEAD", None, 1)
    os.unlink(os.path.join(repo, "include/uapi/linux/new.h"))
    write(repo, "include/uapi/linux/a.h", "struct a { char c; };\n")  # staged, then changed back:
    git(repo, "add", "include/uapi/linux/a.h")
    write(repo, "include/uapi/linux/a.h", "struct a { int x; int y; };\n")   # listed, HEAD's bytes
    assert [s.ref for s in ug.sides(r, None, None)] == ["HEAD^", "HEAD"] and len(hashed) == 2


@NEEDS_GIT
def test_materialize_commit_and_worktree(repo):
    r = ug.Repo(str(repo))
    side = r.side("HEAD^")
    d = r.materialize(side)
    got = sorted(os.path.relpath(os.path.join(dp, f), d) for dp, _, fs in os.walk(d) for f in fs)
    assert got == sorted([".complete", ".entries"] + [p for p in FILES if ug.needed(p)])
    with open(os.path.join(d, "include/uapi/linux/a.h")) as f:
        assert f.read() == FILES["include/uapi/linux/a.h"]          # HEAD^'s, not the working tree's
    assert os.access(os.path.join(d, "scripts/headers_install.sh"), os.X_OK)
    write(repo, "include/uapi/linux/a.h", "struct a { char dirty; };\n")
    w = r.side(None)
    wd = r.materialize(w)
    with open(os.path.join(wd, "include/uapi/linux/a.h")) as f:
        assert f.read() == "struct a { char dirty; };\n"
    assert not os.path.exists(os.path.join(wd, "kernel"))
    assert r.materialize(r.side("HEAD^")) == d                      # once per key


@NEEDS_GIT
def test_materialize_over_a_base_writes_only_what_differs(repo):
    r = ug.Repo(str(repo))
    old = r.side("HEAD^")
    d = r.materialize(old)
    write(d, "obj-x86/usr/include/linux/a.h", "installed\n")   # what headers_install leaves
    os.utime(os.path.join(d, "scripts/headers_install.sh"), (1000, 1000))
    git(repo, "rm", "-q", "arch/x86/Makefile")
    write(repo, "include/uapi/linux/new.h", "struct n;\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    new = r.side("HEAD")
    nd = r.materialize(new, base=old)
    fresh = r.materialize(r.side("HEAD"), full=True)                # the same side, written whole
    assert nd == fresh
    assert os.path.isfile(os.path.join(d, "arch/x86/Makefile"))     # the base is left alone
    new2 = ug.Repo(str(repo)).side("HEAD")
    other = os.path.join(str(repo), "..", "cache2")
    os.environ["ABIDIFF_UAPI_CACHE"] = other
    try:
        nd = r.materialize(new2, base=old)
    finally:
        os.environ["ABIDIFF_UAPI_CACHE"] = os.path.dirname(os.path.dirname(d))
    with open(os.path.join(nd, "include/uapi/linux/a.h")) as f:
        assert f.read() == "struct a { int x; int y; };\n"
    assert not os.path.exists(os.path.join(nd, "arch/x86/Makefile"))
    assert os.path.isfile(os.path.join(nd, "include/uapi/linux/new.h"))
    # Unchanged files keep the base's times; its build directory comes along.
    assert os.stat(os.path.join(nd, "scripts/headers_install.sh")).st_mtime == 1000
    assert os.path.isfile(os.path.join(nd, "obj-x86/usr/include/linux/a.h"))
    assert os.stat(os.path.join(nd, "include/uapi/linux/a.h")).st_mtime > 1000


@NEEDS_GIT
def test_commit_range(repo):
    r = ug.Repo(str(repo))
    write(repo, "include/uapi/linux/a.h", "struct a { int x; int y; int z; };\n")
    git(repo, "commit", "-q", "-am", "a: add z")
    commits = r.commits("HEAD~2..HEAD")
    assert [c for _, c in commits] == [git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")]
    assert commits[0][0] == git(repo, "rev-parse", "HEAD~2")
    with pytest.raises(Fatal, match="no commits"):
        r.commits("HEAD..HEAD")
    with pytest.raises(Fatal, match="range"):
        r.commits("HEAD")
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    write(repo, "include/uapi/linux/side.h", "struct s;\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "side")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "side")
    # A merge in the range: the first-parent line, the merge against its first parent; the side
    # branch's own commit is not checked alone (the merge brings it in).
    main = [git(repo, "rev-parse", x) for x in ("HEAD~3", "HEAD~2", "HEAD~1", "HEAD")]
    assert r.commits("HEAD~3..HEAD") == [(main[0], main[1]), (main[1], main[2]), (main[2], main[3])]
    assert git(repo, "rev-parse", "side") not in {c for _, c in r.commits("HEAD~3..HEAD")}


@NEEDS_GIT
def test_errors(tmp_path, repo):
    with pytest.raises(Fatal, match="no such directory"):
        ug.Repo(str(tmp_path / "nope"))
    (tmp_path / "plain").mkdir()
    with pytest.raises(Fatal, match="not a git repository"):
        ug.Repo(str(tmp_path / "plain"))
    with pytest.raises(Fatal, match="no-such-ref: no such commit"):
        ug.Repo(str(repo)).side("no-such-ref")
    git(repo, "rm", "-q", "usr/include/Makefile")
    git(repo, "commit", "-q", "-m", "not a kernel")
    r = ug.Repo(str(repo))
    with pytest.raises(Fatal, match="not a kernel tree"):
        r.materialize(r.side("HEAD"))


def test_prune_keeps_the_newest_and_the_held(tmp_path):
    """prune keeps `keep`, the n-1 newest other sides and any side a run holds; the rest go, by a
    rename at once and a removal in the background, as does an aside folder a killed run left."""
    root = tmp_path / "git"
    root.mkdir()
    for i in range(6):
        d = root / f"git-{i}"
        (d / "include").mkdir(parents=True)
        (d / "include" / "x.h").write_text("x\n")
        os.utime(d, (1000 + i, 1000 + i))
    (root / "git-old.stale.abc" / "old").mkdir(parents=True)   # a killed run's
    held = os.open(root / "git-0.lock", os.O_RDWR | os.O_CREAT)
    import fcntl
    fcntl.flock(held, fcntl.LOCK_SH)
    try:
        ug.prune(str(root), keep=str(root / "git-1"), n=3)
        ug._REMOVER.submit(lambda: None).result()   # one worker: everything before it is done
    finally:
        os.close(held)
    assert sorted(os.listdir(root)) == ["git-0", "git-0.lock", "git-1", "git-4", "git-5"]


@NEEDS_GIT
def test_a_new_side_takes_over_the_side_prune_would_remove(repo, monkeypatch):
    """With the cache full, a new side is the oldest side renamed, its build directory kept, and
    only the files that differ written: the same files as a side written whole. A side a run
    holds is not taken, nor one with many more files to write than a copy of the base."""
    monkeypatch.setattr(ug, "KEEP_TREES", 2)
    r = ug.Repo(str(repo))
    a = r.side("HEAD^")
    ad = r.materialize(a)
    write(ad, "obj-x86/usr/include/linux/a.h", "installed\n")     # what headers_install leaves
    os.utime(ad, (1000, 1000))                                    # the oldest by use
    b = r.side("HEAD")
    bd = r.materialize(b, base=a)                                 # two sides: nothing to take
    assert os.path.isdir(ad) and "obj-x86" in os.listdir(bd)
    os.utime(ad, (1000, 1000))
    write(repo, "include/uapi/linux/new.h", "struct n;\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    c = r.side("HEAD")
    r.release_except({b.key})                                     # as a run does once on to c

    class Steps:
        lines = []

        def step(self, line):
            self.lines.append(line)
    steps = Steps()
    cd = r.materialize(c, progress=steps, base=b)
    assert not os.path.exists(ad) and not os.path.exists(ad + ".lock")   # taken, not copied
    assert f"over {os.path.basename(ad)}, taken over" in steps.lines[0] and steps.lines[0].startswith("  HEAD (")
    assert os.path.isdir(bd)                                       # the base is left alone
    with open(os.path.join(cd, "obj-x86/usr/include/linux/a.h")) as f:
        assert f.read() == "installed\n"                           # its build directory came along
    files = lambda d: sorted(os.path.relpath(os.path.join(dp, f), d) for dp, _, fs in os.walk(d)
                             for f in fs if "obj-" not in dp)
    whole = ug.Repo(str(repo)).materialize(ug.Repo(str(repo)).side("HEAD"), full=True)
    assert whole == cd and files(cd) == sorted([".complete", ".entries"] + [
        p for p in list(FILES) + ["include/uapi/linux/new.h"] if ug.needed(p)])
    with open(os.path.join(cd, "include/uapi/linux/a.h")) as f:
        assert f.read() == "struct a { int x; int y; };\n"          # HEAD's, not HEAD^'s

    # A held side stays; so does one with more files to write than the slack allows.
    import fcntl
    for held, slack in ((True, 100), (False, -1)):
        write(repo, "include/uapi/linux/new.h", f"struct n{held}{slack};\n")
        git(repo, "commit", "-q", "-am", "again")
        old = [d for d in os.listdir(os.path.dirname(cd)) if d.startswith("git-") and "." not in d]
        for d in old:
            os.utime(os.path.join(os.path.dirname(cd), d), (1000, 1000))
        base = r.side("HEAD^")
        r.materialize(base)
        r.release_except({base.key})
        victim = next(os.path.join(os.path.dirname(cd), d) for d in old if d != base.key)
        monkeypatch.setattr(ug, "TAKEOVER_SLACK", slack)
        fd = os.open(victim + ".lock", os.O_RDWR | os.O_CREAT)
        if held:
            fcntl.flock(fd, fcntl.LOCK_SH)
        steps.lines.clear()
        try:
            r.materialize(r.side("HEAD"), progress=steps, base=base)
        finally:
            os.close(fd)
        assert "a copy of HEAD^" in steps.lines[0], steps.lines
