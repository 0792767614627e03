"""expected_files: a comparison against an expected file proves nothing if the same run wrote it.

The tests that keep expected files (fixtures.py, compat-fixtures.py, ioctls-uapi.py,
drift/check-screen.py) take the run's start with start() and, at the end, fail if written() finds
any of their expected files modified since: a run with --update (or anything else writing them
meanwhile) writes the files, and says so, but never passes; run it again to compare. Under CI
they refuse --update altogether (update_refused).

The start is the modification time of a file made at that moment, so that it and the expected
files' times come from the same kernel clock (a file's time is coarser than time.time()).
Modification times hold in a fresh clone too: git writes every file when it checks it out,
before any run starts.
"""
import os
import sys
import tempfile


def update_refused(update):
    """True (after one line on stderr) when --update is asked for under CI: it writes the expected
    files from this build's output, so the comparison would pass whatever the tool now prints.
    The caller then exits 2."""
    if update and os.environ.get("CI"):
        print(f"{sys.argv[0]}: --update refuses to run under CI (CI is set)", file=sys.stderr)
        return True
    return False


def start():
    """The run's start, as the filesystem stamps a file."""
    fd, path = tempfile.mkstemp(prefix="au-run-start-")
    try:
        return os.fstat(fd).st_mtime
    finally:
        os.close(fd)
        os.unlink(path)


def written(since, paths):
    """The paths (of those that exist) modified at or after since."""
    out = []
    for p in paths:
        try:
            if os.stat(p).st_mtime >= since:
                out.append(p)
        except FileNotFoundError:
            pass
    return sorted(out)


def verdict(since, paths, root, out):
    """Print a FAIL line per expected file this run wrote, to out (a callable taking a line);
    returns how many."""
    bad = written(since, paths)
    for p in bad:
        out(f"FAIL {os.path.relpath(p, root)}: written during this run (--update?): it compares "
            f"against itself; run again without --update to check")
    return len(bad)
