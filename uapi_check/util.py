"""Process helpers shared by the steps: running commands, a thread pool, progress, atomic writes."""
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile


class Fatal(Exception):
    """The check cannot run: exit 2 with this message."""


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


def write_atomic(path, data):
    """Write a file (text or bytes) by temp file + rename, so a reader never sees half of it."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
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
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(dst) + ".", dir=d)
    os.close(fd)
    try:
        shutil.copy(src, tmp)
        os.rename(tmp, dst)
    except BaseException:
        os.unlink(tmp)
        raise


def read_text(path, default=None):
    """A file's text (undecodable bytes replaced), or default when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def run(cmd, cwd=None, env=None):
    """Run a command, return (exit status, stdout, stderr) as text."""
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, text=True, errors="replace")
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


def object_key(obj, *parts):
    """A cache key for results that follow from a compiled object and the words in parts (the
    compiler's version, flags, a format tag): the object is a deterministic function of its
    headers, compiler and flags."""
    h = hashlib.sha256()
    with open(obj, "rb") as f:
        h.update(f.read())
    h.update("\0".join(parts).encode())
    return h.hexdigest()[:20]
