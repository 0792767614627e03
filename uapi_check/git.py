"""--git DIR: the two sides of a check are revisions of a kernel git repository, a commit or the
working tree (dirty changes included), as the kernel's scripts/check-uapi.sh takes them.

A side is never a full checkout. Only the files `make headers_install` and the header test read
(NEEDED) are written out, with `git checkout-index` from a private index for a commit and by copy
for the working tree. A side's key is a digest of those files' paths, modes and blob ids: two
commits that differ elsewhere share one key, so one `headers_install`, one per-header sweep and
one pair of units serve both (trees.py, headers.py and units.py cache by it).

The set of files is described once, in fileset.py, from which scripts/kernel-tree --headers's
tar patterns are made too (tests/fileset.py and tests/partial-tree.py check that both agree).
"""
import concurrent.futures
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Optional, Tuple

from .config import cache_dir
from .fileset import needed, pathspecs
from .util import Fatal, move_aside, publish_dir

WORKTREE = "(working tree)"

KEY_VERSION = "uapi-git-1"
KEEP_TREES = 8      # materialized sides kept in the cache (the newest by use)
TAKEOVER_SLACK = 100     # files a side taken over may need written beyond a copy of the base


@dataclass(frozen=True)
class Entry:
    mode: str   # git's: 100644, 100755, 120000
    oid: str
    path: str


@dataclass
class Side:
    """One revision: what the user named, the commit (None: the working tree), the key of its
    needed files, and where they are written out. entries are the files the key was made from,
    so that writing them out lists (and, for the working tree, hashes) nothing again."""
    ref: str
    commit: Optional[str]
    key: str
    tree: str = ""
    subject: str = ""
    entries: Tuple[Entry, ...] = field(default=(), repr=False, compare=False)

    @property
    def label(self):
        return WORKTREE if self.commit is None else f"{self.ref} ({self.commit[:12]})"


def _key(entries):
    h = hashlib.sha256(KEY_VERSION.encode() + b"\0")
    for e in entries:
        h.update(f"{e.mode} {e.oid} {e.path}\0".encode())
    return "git-" + h.hexdigest()[:24]


class Repo:
    def __init__(self, path):
        if not os.path.isdir(path):
            raise Fatal(f"{path}: no such directory")
        self.path = os.path.abspath(path)
        rc, out, err = self._run("rev-parse", "--show-toplevel")
        if rc != 0:
            raise Fatal(f"{path}: not a git repository")
        self.top = out.decode().strip()

    def _run(self, *args, input=None, env=None):
        p = subprocess.run(["git", "-C", self.path, *args], input=input, capture_output=True,
                           env=dict(os.environ, **(env or {})))
        return p.returncode, p.stdout, p.stderr

    def git(self, *args, input=None, env=None):
        rc, out, err = self._run(*args, input=input, env=env)
        if rc != 0:
            reason = (err.decode(errors="replace").strip().splitlines() or [f"exit {rc}"])[-1]
            raise Fatal(f"{self.top}: git {args[0]} failed: {reason}")
        return out

    def commit(self, ref):
        rc, out, _ = self._run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
        if rc != 0:
            raise Fatal(f"{self.top}: {ref}: no such commit")
        return out.decode().strip()

    def subject(self, commit):
        return self.git("log", "-1", "--format=%s", commit).decode(errors="replace").strip()

    def commit_entries(self, commit):
        out = self.git("ls-tree", "-r", "-z", "--full-tree", commit)
        entries = []
        for rec in out.split(b"\0"):
            if not rec:
                continue
            meta, path = rec.split(b"\t", 1)
            mode, kind, oid = meta.decode().split()
            path = path.decode(errors="surrogateescape")
            if kind == "blob" and needed(path):
                entries.append(Entry(mode, oid, path))
        return entries

    def worktree_entries(self):
        """The needed files as the working tree has them: tracked ones (a deleted one is gone)
        and untracked ones that are not ignored, each with the blob id git add would give it."""
        out = self.git("ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard", "--",
                       *pathspecs())
        paths = sorted({p for p in out.decode(errors="surrogateescape").split("\0") if p and needed(p)})
        regular, links = [], []
        for p in paths:
            full = os.path.join(self.top, p)
            try:
                st = os.lstat(full)
            except FileNotFoundError:
                continue
            if os.path.islink(full):
                links.append(p)
            elif os.path.isfile(full):
                if "\n" in p:
                    raise Fatal(f"{full}: a file name with a newline")
                regular.append((p, "100755" if st.st_mode & 0o111 else "100644"))
        oids = self.git("hash-object", "--stdin-paths",
                        input="".join(os.path.join(self.top, p) + "\n" for p, _ in regular).encode(
                            errors="surrogateescape")).decode().split() if regular else []
        if len(oids) != len(regular):
            raise Fatal(f"{self.top}: git hash-object gave {len(oids)} ids for {len(regular)} files")
        entries = [Entry(m, o, p) for (p, m), o in zip(regular, oids)]
        for p in links:
            target = os.readlink(os.path.join(self.top, p))
            oid = self.git("hash-object", "--stdin", input=target.encode(errors="surrogateescape")).decode().strip()
            entries.append(Entry("120000", oid, p))
        return sorted(entries, key=lambda e: e.path)

    def touched(self):
        """Whether git status lists a needed file: changed against HEAD (staged or not), or
        untracked and not ignored. A file it lists may still have HEAD's bytes (changed, then
        changed back in the index only): the working tree's key decides then."""
        out = self.git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames",
                       "--ignore-submodules", "--", *pathspecs())
        return any(needed(rec[3:].decode(errors="surrogateescape")) for rec in out.split(b"\0") if rec)

    def side(self, ref):
        """The Side for a ref, or for the working tree (ref None)."""
        if ref is None:
            entries = tuple(self.worktree_entries())
            return Side(WORKTREE, None, _key(entries), entries=entries)
        commit = self.commit(ref)
        entries = tuple(self.commit_entries(commit))
        return Side(ref, commit, _key(entries), subject=self.subject(commit), entries=entries)

    def materialize(self, side, progress=None, full=False, base=None):
        """Write a side's needed files out (once per key, unless full), and return the directory.
        Unless full, start from a side written out before, with its times and its headers_install
        build directories, and write only the files that differ: make then installs again only
        what changed (trees.headers_install). That side is one the cache would prune now (taken
        over: no file is copied, and none removed), or else a copy of base."""
        root = os.path.join(cache_dir(), "git")
        dest = os.path.join(root, side.key)
        os.makedirs(root, exist_ok=True)
        self.hold(root, side.key)     # before it is looked at: no other run prunes it now
        if not full and os.path.isfile(os.path.join(dest, ".complete")):
            os.utime(dest)
            side.tree = dest
            return dest
        tmp = tempfile.mkdtemp(prefix=side.key + ".tmp.", dir=root)
        entries = side.entries
        try:
            old, start = (None, None) if full else _start(tmp, root, side, base)
            old = old or {}
            now = {e.path: e for e in entries}
            for path in set(old) - set(now):
                os.unlink(os.path.join(tmp, path))
            write = [e for e in entries if old.get(e.path) != e]
            how = f"{len(write)} files written " + (f"over {start}" if start else "out")
            for e in write:
                p = os.path.join(tmp, e.path)
                if os.path.lexists(p):
                    os.unlink(p)
            if side.commit is None:
                self._copy_worktree(tmp, write)
            else:
                self._checkout(write, tmp)
            if not os.path.isfile(os.path.join(tmp, "usr", "include", "Makefile")):
                raise Fatal(f"{self.top}: {side.label}: not a kernel tree (no usr/include/Makefile)")
            write_entries(tmp, entries)
            open(os.path.join(tmp, ".complete"), "w").close()
            os.utime(tmp)     # the newest by use: prune keeps it
            # Keyed by the files' blob ids: a side another run published first has the same
            # files, and stays (that run may be installing from it).
            publish_dir(tmp, dest, lambda d: os.path.isfile(os.path.join(d, ".complete")))
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if progress:
            progress.step(f"  {side.label}: {how} for headers_install ({side.key})")
        prune(root, keep=dest)
        side.tree = dest
        return dest

    def hold(self, root, key):
        """A shared flock on ROOT/KEY.lock while this process uses the side KEY: prune() in another
        run (or this one) leaves it alone."""
        held = self.__dict__.setdefault("_held", {})
        if key in held:
            return
        path = os.path.join(root, key + ".lock")
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            fcntl.flock(fd, fcntl.LOCK_SH)
            try:
                if os.stat(path).st_ino == os.fstat(fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)    # pruned meanwhile: hold the new lock file
        held[key] = fd

    def release_except(self, keys):
        """Let go of the sides this process no longer uses (--each-commit moves along a range)."""
        held = self.__dict__.setdefault("_held", {})
        for key in [k for k in held if k not in keys]:
            os.close(held.pop(key))

    def _checkout(self, entries, dest):
        if not entries:
            return
        with tempfile.TemporaryDirectory() as d:
            env = {"GIT_INDEX_FILE": os.path.join(d, "index")}
            info = "".join(f"{e.mode} {e.oid}\t{e.path}\0" for e in entries)
            self.git("update-index", "-z", "--index-info", input=info.encode(errors="surrogateescape"), env=env)
            self.git("checkout-index", "-a", "-f", f"--prefix={dest}/", env=env)

    def _copy_worktree(self, dest, entries):
        for e in entries:
            src, dst = os.path.join(self.top, e.path), os.path.join(dest, e.path)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if e.mode == "120000":
                os.symlink(os.readlink(src), dst)
            else:
                shutil.copy2(src, dst)
                os.utime(dst)     # newer than the build directory it may join

    def commits(self, spec):
        """The commits of BASE..TIP on TIP's first-parent line, oldest first, each with its first
        parent: a merge (a pull request's range usually has one) is checked against the line
        it was merged into, as git log --first-parent shows the branch."""
        if ".." not in spec or "..." in spec:
            raise Fatal(f"--each-commit {spec}: give a range BASE..TIP")
        base, tip = spec.split("..", 1)
        base, tip = self.commit(base or "HEAD"), self.commit(tip or "HEAD")
        out = self.git("rev-list", "--reverse", "--first-parent", "--parents", f"{base}..{tip}")
        commits = []
        for line in out.decode().splitlines():
            ids = line.split()
            if len(ids) < 2:
                raise Fatal(f"{self.top}: {ids[0][:12]} is a root commit: --each-commit checks each "
                            "commit against its parent")
            commits.append((ids[1], ids[0]))     # (first parent, commit)
        if not commits:
            raise Fatal(f"--each-commit {spec}: no commits in the range")
        return commits


ENTRIES = ".entries"


def write_entries(tree, entries):
    with open(os.path.join(tree, ENTRIES), "w", encoding="utf-8", errors="surrogateescape") as f:
        for e in entries:
            f.write(f"{e.mode} {e.oid}\t{e.path}\0")


def read_entries(tree):
    """{path: Entry} of a side written out, or None when it has no list (then write it whole)."""
    try:
        with open(os.path.join(tree, ENTRIES), encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError:
        return None
    out = {}
    for rec in text.split("\0"):
        if rec:
            meta, path = rec.split("\t", 1)
            mode, oid = meta.split()
            out[path] = Entry(mode, oid, path)
    return out


def _start(tmp, root, side, base):
    """Fill the empty folder tmp with a side written out before, for materialize to write only
    the files that differ: one that prune would remove once this side is in, taken over by one
    rename (of those, the one with the fewest files to write, and no more than TAKEOVER_SLACK
    beyond base), or else a copy of base. Returns its entries ({path: Entry}) and what it was,
    or (None, None).

    A side taken over keeps its build directories. The files it shares with this side are the
    same bytes, with the times make last saw; the files written now are newer than anything make
    built, so make installs again exactly those, as it does over a copy of base."""
    want = {e.path: e for e in side.entries}

    def differ(old):
        return sum(1 for p in old.keys() | want.keys() if old.get(p) != want.get(p))

    base_old = None if base is None or not base.tree else read_entries(base.tree)
    limit = None if base_old is None else differ(base_old) + TAKEOVER_SLACK
    candidates = []
    for d in _prunable(root, keep=(os.path.join(root, side.key),)):
        if base is not None and d == base.tree:
            continue
        old = read_entries(d)
        n = None if old is None else differ(old)
        if n is not None and (limit is None or n <= limit):
            candidates.append((n, d, old))
    for _, d, old in sorted(candidates, key=lambda c: c[0]):
        if _locked_rename(d, lambda d: os.rename(d, tmp) or tmp):    # over the empty tmp
            return old, f"{os.path.basename(d)}, taken over"
    if base_old is None:
        return None, None
    os.rmdir(tmp)
    subprocess.run(["cp", "-a", base.tree, tmp], check=True, capture_output=True)
    os.unlink(os.path.join(tmp, ".complete"))
    return base_old, f"a copy of {base.label}"


def _prunable(root, keep, n=None):
    """The sides prune(root, keep, n) would remove, oldest first: all but the n-1 newest by use
    (n: KEEP_TREES) other than those in keep (those a run holds are among them; the caller locks
    each)."""
    n = n or KEEP_TREES
    mtimes = {}
    for name in os.listdir(root):
        d = os.path.join(root, name)
        if ".tmp." in name or ".stale." in name or d in keep or not os.path.isdir(d):
            continue
        try:
            mtimes[d] = os.stat(d).st_mtime
        except FileNotFoundError:
            pass        # another run pruned it
    return sorted(mtimes, key=mtimes.get, reverse=True)[n - 1:][::-1]


def _locked_rename(d, rename):
    """Call rename(d), which moves the side d out of the cache's sight and returns where to (None
    when d was gone), under d's lock, taken without waiting; then drop the lock file. Returns
    rename's answer, or None when a run holds d."""
    lock = d + ".lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None     # in use by a run
    try:
        moved = rename(d)
        if moved:
            os.unlink(lock)
        return moved
    except OSError:
        return None
    finally:
        os.close(fd)


_REMOVER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="prune")


def prune(root, keep, n=None):
    """Keep the n (KEEP_TREES) materialized sides used last, and every side a run holds
    (Repo.hold). A side to go is moved aside (one rename, under its lock) and removed in a thread
    of this process, beside the rest of the run: a tree of 4,000 files took up to 0.4 s of a
    one-header commit's critical path. A run that ends first waits for it; one killed meanwhile
    leaves the aside folder, which the next prune removes. A new side usually takes over the one
    to go instead (materialize)."""
    for name in os.listdir(root):
        if ".stale." in name:
            _REMOVER.submit(shutil.rmtree, os.path.join(root, name), True)
    for d in _prunable(root, keep=(keep,), n=n):
        aside = _locked_rename(d, move_aside)
        if aside:
            _REMOVER.submit(shutil.rmtree, aside, True)


def default_sides(repo):
    """check-uapi.sh's defaults: the working tree against HEAD when the needed files differ
    from HEAD's (dirty), else HEAD against HEAD^. When git status lists none of the needed
    files, they are HEAD's, and the working tree's 2,300 are not hashed (0.1 s or more)."""
    head = repo.side("HEAD")
    if repo.touched():
        work = repo.side(None)
        if work.key != head.key:
            return head, work
    return repo.side("HEAD^"), head


def sides(repo, old, new):
    """(old side, new side) for --old/--new; either may be left out (the defaults above)."""
    if old is None and new is None:
        return default_sides(repo)
    new_side = repo.side(new) if new else repo.side(None)
    old_side = repo.side(old) if old else repo.side(f"{new}^" if new else "HEAD")
    return old_side, new_side


def describe(repo, old, new):
    return f"git {repo.top}: {old.label} -> {new.label}"

