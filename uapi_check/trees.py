"""Step 1: the two trees (a pristine tree and a copy with the series applied, or two trees for
drift), and `make headers_install` for both, out of tree and cached."""
import contextlib
import filecmp
import glob
import hashlib
import os
import re
import shutil
import stat
import tempfile

from .arch import ARCHES, DEFAULT as DEFAULT_ARCH
from .config import REVS, ROOT, STATE, cache_dir
from .model import HeaderChange, Revision, Series, Trees
from .fileset import needed
from .git import Repo, sides, describe
from .util import Fatal, file_lock, parallel, publish_dir, run, run_or_die, write_atomic


def resolve_tree(spec, headers_only=True):
    """A tree is a directory, or a Debian linux-source version such as 6.1. Of a version, only
    the files headers_install reads are extracted (scripts/kernel-tree --headers), unless
    headers_only is false: a series that edits other files needs the whole tree to apply."""
    if os.path.isdir(spec):
        tree = os.path.abspath(spec)
        if not os.path.isfile(os.path.join(tree, "usr", "include", "Makefile")):
            raise Fatal(f"{spec}: not a kernel source tree (no usr/include/Makefile)")
        return tree
    if not re.fullmatch(r"\d+\.\d+", spec):
        raise Fatal(f"{spec}: neither a directory nor a linux-source version like 6.1")
    rc, out, err = run([os.path.join(ROOT, "scripts", "kernel-tree"), *(["--headers"] if headers_only else []), spec],
                       env=dict(os.environ, ABIDIFF_UAPI_TREES=trees_dir()))
    if rc != 0:
        raise Fatal((err.strip().splitlines() or [f"kernel-tree {spec} failed"])[-1])
    return out.strip()


def pristine_tree(kernel, touched):
    """The pristine tree for a series that edits the files touched: only the files
    headers_install reads, unless the series edits others (Documentation/, a .c file), which
    must be there for it to apply."""
    return resolve_tree(kernel, all(needed(f) for f in touched))


def series_patches(series_dir):
    """The patch files of a series, in order (an empty list for an empty series)."""
    path = os.path.join(series_dir, "series")
    if not os.path.isfile(path):
        raise Fatal(f"{series_dir}: no series file")
    names = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                names.append(line)
    for name in names:
        if not os.path.isfile(os.path.join(series_dir, name)):
            raise Fatal(f"{series_dir}/{name}: listed in series but missing")
    return names


def series_digest(series_dir, names):
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode() + b"\0")
        with open(os.path.join(series_dir, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def touched_files(series_dir, names):
    """Files a series edits, from the '--- a/' and '+++ b/' lines."""
    files = set()
    for name in names:
        with open(os.path.join(series_dir, name), errors="replace") as f:
            for line in f:
                m = re.match(r"(?:---|\+\+\+) [ab]/(\S+)", line)
                if m:
                    files.add(m.group(1))
    return files


def patched_tree(pristine, series_dir, touched, work, sparse):
    """Apply the series to a copy of the pristine tree, which never changes. The full copy is
    hard-linked, with the links of the files the series touches (touched_files) broken first.
    A sparse copy (only those files) is enough to check that the series applies when its
    headers are cached."""
    tree = os.path.join(work, "tree-after")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    if not sparse:
        run_or_die(["cp", "-al", pristine, tree], "copying the pristine tree")
    for rel in touched:
        src, path = os.path.join(pristine, rel), os.path.join(tree, rel)
        if os.path.isfile(src):
            if os.path.exists(path):
                os.unlink(path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copy2(src, path)
    rc, _, err = run([os.path.join(ROOT, "patches", "apply"), tree, series_dir])
    if rc != 0:
        raise Fatal((err.strip().splitlines() or ["patches/apply failed"])[-1])
    return tree


def installed(key, arch):
    """Whether a tree's headers for an architecture are in the cache."""
    return os.path.isfile(os.path.join(headers_cache(key, arch), ".complete"))


def headers_cache(key, arch):
    """The cache directory of a tree's installed headers for an architecture (ARCH= of make)."""
    return os.path.join(cache_dir(), "headers", f"{key}@{arch.kernel}")


def headers_install(tree, key, jobs, work, arch=None, build_in_tree=False, like=None):
    """`make headers_install ARCH=...` out of tree; cached by key and architecture (key None: not
    cacheable). Returns the installed include directory, and whether it came from the cache.
    With build_in_tree, the build directory is TREE/obj-ARCH and is kept: make's paths are then
    relative (srctree is ..), so a copy of the tree with a few files changed (git.py) installs
    again only those. With like (another install's include directory, a cache entry), the files
    that are the same bytes as like's are hard links to them (_install)."""
    arch = arch or ARCHES[DEFAULT_ARCH]
    # A build directory inside the tree (a git side in the shared cache) takes one make at a time:
    # a second run on the same side waits, then finds the install cached.
    lock = file_lock(os.path.join(tree, f".obj-{arch.kernel}.lock")) if build_in_tree \
        else contextlib.nullcontext()
    with lock:
        return _headers_install(tree, key, jobs, work, arch, build_in_tree, like)


def _complete(dest):
    return os.path.isfile(os.path.join(dest, ".complete"))


def _headers_install(tree, key, jobs, work, arch, build_in_tree, like):
    if key:
        dest = headers_cache(key, arch)
        if _complete(dest):
            return os.path.join(dest, "include"), True
        os.makedirs(os.path.dirname(dest), exist_ok=True)
    else:
        dest = os.path.join(work, f"headers-{arch.kernel}-" + hashlib.sha256(tree.encode()).hexdigest()[:12])
    # A temporary directory of its own: two runs (two architectures, --arch and --compat, two CI
    # jobs) may install the same tree at once; the first to finish wins, the other uses its result.
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=os.path.basename(dest) + ".tmp.", dir=os.path.dirname(dest))
    obj = os.path.join(tree, f"obj-{arch.kernel}") if build_in_tree else f"{os.path.abspath(tmp)}/obj"
    try:
        _install(tree, obj, jobs, arch, os.path.abspath(tmp), like)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(os.path.join(tmp, "obj"), ignore_errors=True)
    open(os.path.join(tmp, ".complete"), "w").close()
    if key:
        # Keyed, an install another run published first has the same content: it stays (a run
        # may be copying it), and this one is dropped (util.publish_dir).
        publish_dir(tmp, dest, _complete)
    else:
        # Not keyed (a directory given by path, --full): under --out's work/, which one run
        # holds; one left by an earlier run may be of other files.
        shutil.rmtree(dest, ignore_errors=True)
        os.rename(tmp, dest)
    return os.path.join(dest, "include"), False


# The last step of the kernel's headers_install (top Makefile, 5.3 and later): the headers `make
# headers` made under usr/include, copied to INSTALL_HDR_PATH.
KERNEL_RSYNC = ["rsync", "-mrl", "--include=*/", "--include=*\\.h", "--exclude=*"]
KERNEL_RSYNC_TEXT = "rsync -mrl --include='*/' --include='*\\.h' --exclude='*'"


def _install(tree, obj, jobs, arch, dest, like):
    """make headers_install into dest. With like, when the tree's Makefile installs with the rsync
    above: `make headers`, then that rsync with --checksum --link-dest=like's install, so that
    each header of the same bytes is a hard link to like's (a cache entry, never written in
    place) instead of a new file. A one-header commit's install then makes one file, not a
    thousand."""
    make = ["make", "-s", "-C", tree, f"O={obj}", f"ARCH={arch.kernel}", f"-j{jobs}"]
    what = f"make headers_install ARCH={arch.kernel} in {tree}"
    if not like or not _installs_by_rsync(tree):
        run_or_die(make + [f"INSTALL_HDR_PATH={dest}", "headers_install"], what)
        return
    run_or_die(make + ["headers"], what)
    run_or_die(KERNEL_RSYNC + ["--checksum", f"--link-dest={os.path.dirname(os.path.abspath(like))}",
                               "usr/include", dest + "/"], what, cwd=obj)


def _installs_by_rsync(tree):
    try:
        with open(os.path.join(tree, "Makefile"), errors="replace") as f:
            return KERNEL_RSYNC_TEXT in f.read()
    except OSError:
        return False


def copy_headers(src, out, name, keep=()):
    """The installed headers in <out>/include/NAME, so the out dir is self-contained: hard links to
    the install's files (a cache entry: published whole, never written in place), or copies where
    no link can be made (another file system). What the directory holds already stays where it is
    the same file: only changed, added and removed headers are written (an unlink costs about as
    much as a link, and a whole UAPI has a thousand headers). A per-commit check's before side is
    the last check's after side: when another directory of <out>/include came from src (its
    stamp, .NAME.source, says so), the two directories trade names first, unless that directory is
    one of keep: those the same check has synced already (an empty series installs one set of
    headers for both sides)."""
    inc = os.path.join(out, "include")
    dest = os.path.join(inc, name)
    os.makedirs(inc, exist_ok=True)
    origin = os.path.realpath(src)
    if _source(inc, name) != origin:
        other = next((d for d in sorted(os.listdir(inc)) if d != name and d not in keep and not d.startswith(".")
                      and os.path.isdir(os.path.join(inc, d)) and _source(inc, d) == origin), None)
        if other:
            _swap(inc, name, other)
    _set_source(inc, name, None)     # while it changes, no stamp: nobody trades for it
    headers = _sync(src, dest)
    _set_source(inc, name, origin)
    _LISTED[os.path.realpath(dest)] = headers
    return dest


_LISTED = {}    # include dir written by copy_headers -> its list_headers (nothing else writes there)


def _stamp(inc, name):
    return os.path.join(inc, f".{name}.source")


def _source(inc, name):
    """The install an include dir of <out> was last synced from (copy_headers), or None."""
    try:
        with open(_stamp(inc, name)) as f:
            return f.read() or None
    except OSError:
        return None


def _set_source(inc, name, origin):
    if origin is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_stamp(inc, name))
    else:
        write_atomic(_stamp(inc, name), origin)


def _swap(inc, a, b):
    """Trade the names of two include dirs of <out> (and their stamps); a may not exist."""
    pa, pb = os.path.join(inc, a), os.path.join(inc, b)
    sa, sb = _source(inc, a), _source(inc, b)
    _set_source(inc, a, None)
    _set_source(inc, b, None)
    if os.path.isdir(pa) and not os.path.islink(pa):
        tmp = os.path.join(inc, f".{a}.swap")
        shutil.rmtree(tmp, ignore_errors=True)
        os.rename(pa, tmp)
        os.rename(pb, pa)
        os.rename(tmp, pb)
        _set_source(inc, b, sa)
    else:
        if os.path.lexists(pa):
            os.unlink(pa)
        os.rename(pb, pa)
    _set_source(inc, a, sb)
    _LISTED.pop(os.path.realpath(pa), None)
    _LISTED.pop(os.path.realpath(pb), None)


def _same_file(src, dst, st_src):
    """Whether dst, an existing path, holds src's bytes: the same inode (a hard link), or a
    regular file of the same size and content (a copy)."""
    try:
        st = os.lstat(dst)
    except FileNotFoundError:
        return False
    if (st.st_ino, st.st_dev) == (st_src.st_ino, st_src.st_dev):
        return True
    if not stat.S_ISREG(st.st_mode) or st.st_size != st_src.st_size:
        return False
    return filecmp.cmp(src, dst, shallow=False)


def _remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def _sync(src, dest):
    """Make dest hold src's files (see copy_headers); returns its headers as list_headers does."""
    kept_files, kept_dirs = set(), {"."}
    for dirpath, _, files in os.walk(src, followlinks=True):
        rel = os.path.relpath(dirpath, src)
        ddir = os.path.normpath(os.path.join(dest, rel))
        if not os.path.isdir(ddir) or os.path.islink(ddir):
            _remove(ddir)
            os.makedirs(ddir)
        kept_dirs.add(rel)
        for f in files:
            s, d = os.path.join(dirpath, f), os.path.join(ddir, f)
            kept_files.add(os.path.normpath(os.path.join(rel, f)))
            st = os.stat(s)
            if _same_file(s, d, st):
                continue
            _remove(d)
            try:
                os.link(s, d)
            except OSError:
                shutil.copy2(s, d)
    for dirpath, dirs, files in os.walk(dest, topdown=False):
        rel = os.path.relpath(dirpath, dest)
        for f in files:
            if os.path.normpath(os.path.join(rel, f)) not in kept_files:
                os.unlink(os.path.join(dirpath, f))
        for d in dirs:
            r = os.path.normpath(os.path.join(rel, d))
            if r not in kept_dirs:
                _remove(os.path.join(dirpath, d))
    return sorted(h for h in kept_files if h.endswith(".h"))


def trees_dir():
    """Where scripts/kernel-tree extracts pristine trees (build/trees, or ~/.cache when installed);
    absolute, as cache_dir is."""
    return os.path.abspath(os.environ.get("ABIDIFF_UAPI_TREES") or os.path.join(STATE, "trees"))


def tree_key(tree):
    """Cache key of a pristine tree: only trees extracted by scripts/kernel-tree are immutable."""
    trees = os.path.realpath(trees_dir())
    if os.path.dirname(os.path.realpath(tree)) == trees:
        return os.path.basename(tree)
    return None


def list_headers(inc):
    """Every .h under an include directory, relative to it, sorted."""
    listed = _LISTED.get(os.path.realpath(inc))
    if listed is not None:
        return list(listed)
    found = []
    for dirpath, _, files in os.walk(inc):
        for name in files:
            if name.endswith(".h"):
                found.append(os.path.relpath(os.path.join(dirpath, name), inc))
    return sorted(found)


def git_revisions(opts, progress):
    """--git: the two sides (git.py), each written out once per key of its needed files."""
    repo = Repo(opts.git)
    old, new = sides(repo, opts.old, opts.new)
    progress.step(f"step 1: {describe(repo, old, new)}")
    revs = {}
    repo.materialize(old, progress, opts.full)
    repo.materialize(new, progress, opts.full, base=old)
    repo.release_except({old.key, new.key})
    for rev, side in (("before", old), ("after", new)):
        revs[rev] = Revision(rev, side.tree, side.key, [side.tree], build_in_tree=True)
    return revs, None, (old, new)


def revisions(opts, progress):
    """The two revisions to install, and the series (None for drift)."""
    if opts.drift:
        progress.step(f"step 1: trees {opts.old} and {opts.new}")
        revs = {}
        for rev, spec in (("before", opts.old), ("after", opts.new)):
            tree = resolve_tree(spec)
            revs[rev] = Revision(rev, tree, tree_key(tree), [tree])
        return revs, None
    progress.step(f"step 1: linux-source-{opts.kernel} and the series in {opts.patches}")
    names = series_patches(opts.patches)
    touched = touched_files(opts.patches, names)
    pristine = pristine_tree(opts.kernel, touched)
    key = tree_key(pristine)
    revs = {"before": Revision("before", pristine, key, [pristine])}
    if names:
        digest = series_digest(opts.patches, names)
        after_key = f"{key}+{digest}" if key else None
        full = getattr(opts, "full", False)
        cached = not full and bool(after_key) and installed(after_key, opts.arch)
        # A patch that no longer applies is an error even when the headers are cached.
        tree = patched_tree(pristine, opts.patches, touched, opts.work, sparse=cached)
        revs["after"] = Revision("after", tree, after_key, [tree, pristine])
        if not cached and (full or not key or not installed(key, opts.arch)):
            # Both sides to install: the before side installs in a hard-linked copy of the
            # pristine tree, with its build directory inside it (make's paths are then relative),
            # and the after side starts from a copy of that build directory: make installs again
            # only the headers whose files the series changed (their times are newer). The
            # installs take turns instead of running side by side, and cost about half.
            before = os.path.join(opts.work, "tree-before")
            shutil.rmtree(before, ignore_errors=True)
            run_or_die(["cp", "-al", pristine, before], "copying the pristine tree")
            revs["before"] = Revision("before", before, key, [pristine], build_in_tree=True)
            revs["after"].build_in_tree = True
            revs["after"].base = before
    else:
        revs["after"] = Revision("after", pristine, key, [pristine])
    series = Series(os.path.relpath(os.path.abspath(opts.patches), ROOT), names)
    return revs, series


def step_trees(opts, progress):
    """Step 1: the two trees, and their installed headers under <out>/include/{before,after}."""
    git_sides = None
    if opts.git:
        revs, series, git_sides = git_revisions(opts, progress)
    else:
        revs, series = revisions(opts, progress)

    def install(rev, like=None):
        return headers_install(revs[rev].tree, None if opts.full else revs[rev].key,
                               max(1, opts.jobs // 2), opts.work, opts.arch, revs[rev].build_in_tree, like)

    def install_over(rev, base):
        """The after side's install, from a copy of the before side's build directory."""
        obj = f"obj-{opts.arch.kernel}"
        dest = os.path.join(revs[rev].tree, obj)
        shutil.rmtree(dest, ignore_errors=True)
        if os.path.isdir(os.path.join(base, obj)):  # none when the before side came from the cache
            run_or_die(["cp", "-a", os.path.join(base, obj), dest], "copying the before side's build directory")
            # The series was applied before that build: its files must be newer than what make
            # made from their pristine versions, or make would keep those.
            for rel in touched_files(opts.patches, series_patches(opts.patches)):
                path = os.path.join(revs[rev].tree, rel)
                if os.path.isfile(path):
                    os.utime(path)
        return headers_install(revs[rev].tree, None if opts.full else revs[rev].key, opts.jobs, opts.work,
                               opts.arch, True)

    if (revs["after"].tree, revs["after"].key) == (revs["before"].tree, revs["before"].key):
        results = [install("before")] * 2  # an empty series: one install serves both
    elif revs["after"].base:
        results = [headers_install(revs["before"].tree, None if opts.full else revs["before"].key, opts.jobs,
                                   opts.work, opts.arch, True)]
        results.append(install_over("after", revs["after"].base))
    elif git_sides and not opts.full and installed(revs["before"].key, opts.arch):
        # A commit against its parent, whose install is cached: the after side's headers that
        # did not change are hard links to the parent's.
        results = [install("before")]
        results.append(install("after", like=results[0][0]))
    else:
        results = parallel(2, install, list(REVS))
    for i, (rev, (inc, cached)) in enumerate(zip(REVS, results)):
        revs[rev].include = copy_headers(inc, opts.out, rev, keep=REVS[:i])
        progress.step(f"  headers_install ARCH={opts.arch.kernel} {rev}: {revs[rev].tree}"
                      + (" (cached)" if cached else ""))
    return Trees(revs, series, {r: len(list_headers(revs[r].include)) for r in REVS},
                 {rev: cached for rev, (_, cached) in zip(REVS, results)}, git_sides)


DEFINED = re.compile(r"^\s*#\s*define\s+(\w+)|\b(?:struct|union|enum)\s+(\w+)\s*\{", re.M)


def defined_names(path):
    """The macros and struct, union and enum tags a header defines (its text, not compiled)."""
    try:
        with open(path, errors="replace") as f:
            return {a or b for a, b in DEFINED.findall(f.read())}
    except OSError:
        return set()


def header_changes(trees):
    """Headers the before side installs and the after side does not. A header is moved when the
    after side installs one of the same name in another directory (linux/x.h -> asm-generic/x.h),
    when an asm/ header is now only in another architecture's arch/ARCH/include/uapi/asm/, or when
    a header new on the after side defines more than half of the names (macros, tags) the gone one
    defined (misc/habanalabs.h -> drm/habanalabs_accel.h)."""
    before = set(list_headers(trees.revisions["before"].include))
    after = set(list_headers(trees.revisions["after"].include))
    new = sorted(after - before)
    names = {}

    def renamed(h):
        mine = defined_names(os.path.join(trees.revisions["before"].include, h))
        if not mine:
            return []
        best = []
        for a in new:
            if a not in names:
                names[a] = defined_names(os.path.join(trees.revisions["after"].include, a))
            shared = len(mine & names[a])
            if 2 * shared > len(mine):
                best.append((-shared, a))
        return [a for _, a in sorted(best)[:1]]
    out = []
    for h in sorted(before - after):
        name = h.rsplit("/", 1)[-1]
        moved = sorted(a for a in new if a.rsplit("/", 1)[-1] == name)
        if not moved and h.startswith("asm/"):
            tree = trees.revisions["after"].dirs[0]
            arches = sorted(glob.glob(os.path.join(tree, "arch", "*", "include", "uapi", "asm", h[4:])))
            moved = [os.path.relpath(a, tree) for a in arches]
        out.append(HeaderChange(h, (moved or renamed(h) or [None])[0]))
    return out


def source_candidates(header, srcarch):
    """Where `make headers_install` takes an installed header from, relative to the kernel tree,
    most likely first: arch/SRCARCH/include/uapi/asm/X for asm/X (else the asm-generic header a
    generated wrapper includes, or the syscall table a generated unistd_NN.h is made from), and
    include/uapi/X for every other X."""
    if header.startswith("asm/"):
        name = header[len("asm/"):]
        out = [f"arch/{srcarch}/include/uapi/asm/{name}", f"include/uapi/asm-generic/{name}"]
        m = re.fullmatch(r"unistd_(32|64|x32)\.h", name)
        if m:
            out.append(f"arch/{srcarch}/entry/syscalls/syscall_{'64' if m.group(1) == 'x32' else m.group(1)}.tbl")
        return out
    if header == "linux/version.h":     # generated from the top Makefile's VERSION, PATCHLEVEL...
        return ["Makefile"]
    return [f"include/uapi/{header}"]


class SourceMap:
    """Installed header -> the file of the kernel tree it was installed from (relative to the
    tree), looked up in the after side, then the before side; None when the tree has none (a
    generated header)."""

    def __init__(self, revisions, srcarch):
        self.revisions = [revisions[r] for r in ("after", "before") if r in revisions]
        self.srcarch = srcarch
        self.known = {}

    def source(self, header, new_only=False):
        """The file header was installed from, relative to the tree (new_only: only a file the
        after side has, which is the tree code scanning looks at)."""
        if not header:
            return None
        if (header, new_only) not in self.known:
            revs = self.revisions[:1] if new_only else self.revisions
            self.known[header, new_only] = next((rel for rel in source_candidates(header, self.srcarch)
                                                 for rev in revs if os.path.isfile(rev.file(rel))), None)
        return self.known[header, new_only]

    def line(self, header, installed_line, old=False):
        key = ("line", header, installed_line, old)
        if key not in self.known:
            self.known[key] = self._line(header, installed_line, old)
        return self.known[key]

    def _line(self, header, installed_line, old=False):
        """The source line of an installed header's line (of the before side when old): make
        headers_install drops lines (unifdef, the kernel-only parts), so the nearest source line
        with the same text, at or after it first."""
        src = self.source(header)
        if not src or not installed_line:
            return None
        for rev in (self.revisions[::-1] if old else self.revisions):
            inc = os.path.join(rev.include, header) if rev.include else None
            if not inc or not os.path.isfile(inc) or not os.path.isfile(rev.file(src)):
                continue
            want = self._lines(inc)
            if installed_line > len(want) or not want[installed_line - 1].strip():
                continue
            hits = self._where(rev.file(src)).get(want[installed_line - 1].strip())
            if hits:
                return min(hits, key=lambda n: (n < installed_line, abs(n - installed_line)))
        return None

    def _lines(self, path):
        """read_lines(path), once per map (a report locates thousands of findings in a few
        hundred files)."""
        if ("lines", path) not in self.known:
            self.known["lines", path] = read_lines(path)
        return self.known["lines", path]

    def _where(self, path):
        """{stripped text: [line numbers]} of a file, made once per map."""
        if ("where", path) not in self.known:
            where = {}
            for i, line in enumerate(self._lines(path), 1):
                where.setdefault(line.strip(), []).append(i)
            self.known["where", path] = where
        return self.known["where", path]

    def define_line(self, header, name):
        """The line of `#define NAME` in an installed header's source file (an ioctl request)."""
        key = ("define", header, name)
        if key not in self.known:
            self.known[key] = self._define_line(header, name)
        return self.known[key]

    def _define_line(self, header, name):
        src = self.source(header)
        for rev in self.revisions if src else ():
            if os.path.isfile(rev.file(src)):
                pat = re.compile(rf"\s*#\s*define\s+{re.escape(name)}\b")
                return next((i + 1 for i, line in enumerate(self._lines(rev.file(src))) if pat.match(line)), None)
        return None


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()
