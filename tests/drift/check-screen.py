#!/usr/bin/env python3
"""check-screen.py REPORT.txt README.md: report.txt's first screen (uapi_check.screen.first_screen)
is at most SCREEN_LINES lines of at most WIDTH characters, and README.md's example of it (the
indented block after the line that names `--old 6.1 --new 6.12`) is that screen, byte for byte.
run-labels.sh runs it on the drift run CI already makes. With --update, rewrites the README block,
and fails: README.md then compares against itself (tests/expected_files.py); run again to check.
--update refuses to run under CI."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import expected_files  # noqa: E402 (tests/expected_files.py)
from uapi_check.screen import SCREEN_LINES, WIDTH, first_screen  # noqa: E402

INTRO = "`report.txt` opens with one screen to act on; for `--old 6.1 --new 6.12`:"


def readme_block(lines):
    """(start, end) of the indented block after INTRO (a blank line, then 4-space lines)."""
    start = lines.index(INTRO) + 2
    end = start
    while end < len(lines) and (lines[end].startswith("    ") or lines[end] == ""):
        end += 1
    while lines[end - 1] == "":
        end -= 1
    return start, end


def main(argv):
    update = "--update" in argv
    if expected_files.update_refused(update):
        return 2
    t0 = expected_files.start()
    report, readme = [a for a in argv if a != "--update"]
    with open(report) as f:
        screen = first_screen(f.read())
    while screen and screen[-1] == "":
        screen.pop()
    bad = [f"line {i + 1} is {len(l)} characters" for i, l in enumerate(screen) if len(l) > WIDTH]
    if len(screen) > SCREEN_LINES:
        bad.append(f"{len(screen)} lines")
    with open(readme) as f:
        lines = f.read().split("\n")
    start, end = readme_block(lines)
    want = [("    " + l).rstrip() for l in screen]
    if update:
        lines[start:end] = want
        with open(readme, "w") as f:
            f.write("\n".join(lines))
    elif lines[start:end] != want:
        bad.append("README.md's example is not this run's first screen (tests/drift/check-screen.py "
                   "--update REPORT README.md rewrites it)")
        import difflib
        sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in lines[start:end]], [l + "\n" for l in want],
                                                   "README.md", report))
    if expected_files.written(t0, [readme]):
        bad.append(f"{readme}: written during this run (--update): it compares against itself; run again to check")
    for b in bad:
        print(f"check-screen: {b}")
    print(f"check-screen: first screen {len(screen)} lines, widest {max(map(len, screen))}: "
          + ("bad" if bad else "fits, and README.md shows it"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
