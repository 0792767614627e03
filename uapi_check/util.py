"""Process helpers shared by the steps: running commands, a thread pool, progress, atomic writes."""
import concurrent.futures
import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

# The process's umask, read once while the driver is still one thread (os.umask can only be read
# by setting it): files written by temp file + rename get the mode open() would give them.
UMASK = os.umask(0o022)
os.umask(UMASK)


class Fatal(Exception):
    """The check cannot run: exit 2 with this message."""


class InternalError(Exception):
    """Not a verdict and not bad input: a program the driver runs crashed (a signal) or reported a
    sanitizer error. cli.main exits 2 with one line and writes detail (the program's output) to a
    log, never exit 1, which means a check fails."""

    def __init__(self, message, detail=""):
        super().__init__(message)
        self.detail = detail


# A sanitizer's report: ASan/LSan/MSan/TSan's banner, or UBSan's "FILE:LINE:COL: runtime error:"
# (a compiler's diagnostics say "error:", "warning:" or "note:" there, never "runtime error:").
SANITIZER_RE = re.compile(r"^==\d+==ERROR: \w*Sanitizer|^\S+:\d+:\d+: runtime error: |"
                          r"^WARNING: ThreadSanitizer|^SUMMARY: \w*Sanitizer", re.M)


def check_crash(cmd, rc, stderr):
    """Raise InternalError when a command was killed by a signal or printed a sanitizer report
    (whatever its exit status); KeyboardInterrupt when it died of SIGINT (the user's ^C)."""
    if rc is not None and rc < 0:
        if -rc == signal.SIGINT:
            raise KeyboardInterrupt
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        raise InternalError(f"{os.path.basename(cmd[0])} crashed ({name})", _detail(cmd, rc, stderr))
    m = SANITIZER_RE.search(stderr or "")
    if m:
        line = stderr[m.start():].splitlines()[0].strip()
        raise InternalError(f"{os.path.basename(cmd[0])}: sanitizer report: {line}", _detail(cmd, rc, stderr))


def _detail(cmd, rc, stderr):
    return f"command: {' '.join(cmd)}\nexit status: {rc}\nstderr:\n{stderr}"


class Progress:
    """A one-line counter on a TTY; plain lines (one per step, one per 100 items) otherwise."""

    def __init__(self, quiet, stream=None):
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() and not quiet
        self.width = 0

    def step(self, text):
        if self.quiet:
            return
        self._clear()
        print(f"uapi-check: {text}", file=self.stream, flush=True)

    def count(self, what, done, total):
        if self.quiet:
            return
        if self.tty:
            line = f"  {what}: {done}/{total}"
            self.stream.write("\r" + line.ljust(self.width))
            self.stream.flush()
            self.width = len(line)
            if done == total:
                self._clear()
        elif done % 100 == 0 or done == total:
            print(f"  {what}: {done}/{total}", file=self.stream, flush=True)

    def _clear(self):
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0


def replaceable(path):
    """Fatal unless path is absent or a regular file: a rename never replaces a directory, a
    symbolic link or a device someone put where a report goes."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise Fatal(f"{path}: not a regular file; not replaced")


def write_atomic(path, data):
    """Write a file (text or bytes) by temp file + rename, so a reader never sees half of it. Its
    mode is what open() would give it under the umask (mkstemp's own is 0600); only a regular
    file (or nothing) is replaced."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    replaceable(path)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        os.fchmod(fd, 0o666 & ~UMASK)
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.rename(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def copy_atomic(src, dst):
    """Copy a file (bytes and mode) by temp file + rename, as write_atomic writes one: a reader,
    or another run sharing a cache, never sees half of it."""
    d = os.path.dirname(os.path.abspath(dst))
    os.makedirs(d, exist_ok=True)
    replaceable(dst)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(dst) + ".", dir=d)
    os.close(fd)
    try:
        shutil.copy(src, tmp)
        os.rename(tmp, dst)
    except BaseException:
        os.unlink(tmp)
        raise


def publish_dir(tmp, dest, complete):
    """Move a finished cache entry (the directory tmp) to dest, its content key, by one rename.
    An entry another run published first has the same content: it is kept and tmp dropped, so a
    run reading it never sees it vanish. Only an entry that complete(dest) rejects (left by an
    older version) is moved aside and replaced. Returns dest."""
    for _ in range(3):
        try:
            os.rename(tmp, dest)    # fails when dest is a non-empty directory
            return dest
        except OSError:
            if complete(dest):
                shutil.rmtree(tmp, ignore_errors=True)
                return dest
            if os.path.lexists(dest):
                aside = move_aside(dest)
                if aside:
                    shutil.rmtree(aside, ignore_errors=True)
    shutil.rmtree(tmp, ignore_errors=True)
    raise Fatal(f"{dest}: cannot publish a cache entry there")


def move_aside(path):
    """Rename path, by one rename, to PATH.stale.XXXX/old beside it, out of every cache lookup's
    sight, and return that PATH.stale.XXXX folder for the caller to remove (now or in a thread);
    None when path is gone already (another run moved it first)."""
    aside = tempfile.mkdtemp(prefix=os.path.basename(path) + ".stale.", dir=os.path.dirname(path))
    try:
        os.rename(path, os.path.join(aside, "old"))
    except OSError:
        os.rmdir(aside)
        return None
    return aside


def in_background(fn, *args):
    """fn(*args) in a thread of its own; its future (the thread ends with fn)."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    future = pool.submit(fn, *args)
    pool.shutdown(wait=False)
    return future


@contextlib.contextmanager
def file_lock(path, wait=True, waiting=None, shared=False):
    """An exclusive flock (shared: a shared one) on the file path (created when missing), held
    for the with block.
    When another process holds it: wait (after calling waiting() once), or raise BlockingIOError
    with wait false. Its holder may unlink the lock file before it lets go (an output folder a
    rejected run removes): a lock taken on a file no longer at path is taken again on the new one."""
    told = False
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
            except BlockingIOError:
                if not wait:
                    raise
                if waiting and not told:
                    waiting()
                    told = True
                fcntl.flock(fd, mode)
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)
    try:
        yield path
    finally:
        os.close(fd)


def read_text(path, default=None):
    """A file's text (undecodable bytes replaced), or default when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def run(cmd, cwd=None, env=None):
    """Run a command, return (exit status, stdout, stderr) as text. A command killed by a signal
    or that printed a sanitizer report raises InternalError (check_crash)."""
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, text=True, errors="replace")
    check_crash(cmd, p.returncode, p.stderr)
    return p.returncode, p.stdout, p.stderr


def last_line(text, default):
    lines = text.strip().splitlines()
    return lines[-1] if lines else default


def run_or_die(cmd, what, cwd=None):
    """Run a command; when it fails, raise Fatal with its last line of output."""
    rc, out, err = run(cmd, cwd=cwd)
    if rc != 0:
        tail = (err.strip().splitlines() or out.strip().splitlines() or [f"exit {rc}"])[-1]
        raise Fatal(f"{what} failed: {tail}")
    return out


def parallel(jobs, fn, items, progress=None, what=""):
    """Map fn over items with a thread pool (the work is in subprocesses); keep the order."""
    results = [None] * len(items)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(fn, item): i for i, item in enumerate(items)}
        for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            results[futures[fut]] = fut.result()
            if progress:
                progress.count(what, done, len(items))
    return results


def file_stamp(path):
    """What tells that a file is unchanged: its size, time and inode. OSError passes through."""
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def stamps(root, files):
    """file_stamp of each of files (relative to root), None when one is gone."""
    try:
        return [file_stamp(os.path.join(root, f)) for f in files]
    except OSError:
        return None


def by_stat(memo, path, compute):
    """compute(path), remembered in memo ({path: (stamp, value)}) while the file's size, time
    and inode stay the same. OSError from os.stat or compute passes through."""
    stamp = file_stamp(path)
    hit = memo.get(path)
    if hit and hit[0] == stamp:
        return hit[1]
    value = compute(path)
    memo[path] = (stamp, value)
    return value


def _sha256_state(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h


_READ = {}   # path -> (stamp, sha256 of the file's bytes, not yet finalised): by_stat


def object_key(obj, *parts):
    """A cache key for results that follow from a compiled object and the words in parts (the
    compiler's version, flags, a format tag): the object is a deterministic function of its
    headers, compiler and flags. The object's bytes are hashed once per process while its stat
    is the same: the ioctl and constants steps key the same units (2 to 5 MB each)."""
    read = by_stat(_READ, os.path.abspath(obj), _sha256_state)
    h = read.copy()
    h.update("\0".join(parts).encode())
    return h.hexdigest()[:20]
