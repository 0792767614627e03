"""uapi-check: check a kernel's UAPI layouts before and after a patch series, in C and C++.

  abidiff-uapi/uapi-check [--kernel 6.1|6.12] [--patches DIR] [--out DIR] [--jobs N] [--quiet]
  abidiff-uapi/uapi-check --old TREE --new TREE [--out DIR] [--fail-on=break|review]  (release drift)
  ... [--waivers FILE] [--baseline OLD/report.json]                 (for CI: waivers.py)

Steps (one module each):
  0. env.py:      what the run needs is installed (it installs nothing: scripts/install-deps does).
  1. trees.py:    pristine tree (cached under build/trees), a copy with the series applied,
                  `make headers_install` for both, out of tree.
  2. headers.py:  the headers to test, by the tree's own usr/include/Makefile (no-header-test);
                  each compiled alone as C and as C++, before and after, in parallel.
  3. units.py:    one translation unit per language and revision with every header that
                  compiles there (-g -fno-eliminate-unused-debug-types); headers that collide
                  in one unit (mostly with glibc) are found by compiling (collisions.py).
  3b. units.py:   each header left out of a unit, in a unit of its own (same flags), for each side
                  of each comparison where it is not in both main units.
  4. matrix.py:   abidiff-uapi over the matrix (the four unit pairs, then NAME+HEADER for each
                  left-out header alone); judge.py says what its findings mean for each check.
  4b. requests.py: ioctl request numbers of every unit, computed by the compiler (ioctls.py),
                  compared per base comparison; a number that differs is a finding.
  5. render.py:   report.json and report.txt in --out, a summary on the terminal; ci.py:
                  report.sarif and report.junit.xml; html.py: report.html.

Exit status: 0 every check holds, 1 a check fails, 2 cannot run (missing package,
patch that does not apply, missing compiler, tool error).
Environment: CC and CXX name the compilers (default gcc and g++).
"""
import argparse
import json
import os
import shutil
import sys
import time

from .arch import DEFAULT as DEFAULT_ARCH, compat_pair, lookup as lookup_arch, names as arch_names
from .ci import write_ci_reports
from .compat import run_compat
from .compat_report import terminal_summary as compat_summary, write_reports as write_compat_reports
from .config import OUT, ROOT
from .env import check_environment, ensure_tool
from .headers import step_headers
from .html import render_html
from .judge import evaluate_checks
from .matrix import comparison_coverage, step_compare
from .model import Options, Report
from .requests import step_requests
from .render import render_text, size_differences, summary_rows, terminal_summary
from .trees import header_changes, step_trees
from .units import step_extra_units, step_units
from .util import Fatal, Progress, write_atomic
from .waivers import apply as apply_waivers, load_baseline, load_waivers


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="uapi-check",
        description="Check a kernel's UAPI layouts before and after a patch series, in C and C++ "
                    "(exit 0 pass, 1 a check fails, 2 cannot run).")
    p.add_argument("--kernel", default="6.1", help="Debian linux-source version (default 6.1)")
    p.add_argument("--patches", help="series directory (default patches/linux-KERNEL)")
    p.add_argument("--old", metavar="TREE", help="compare two trees: a directory or a linux-source version")
    p.add_argument("--new", metavar="TREE", help="the newer tree, with --old")
    p.add_argument("--out", help="output directory (default build/uapi-check/KERNEL, or OLD-vs-NEW)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel jobs (default nproc)")
    p.add_argument("--quiet", action="store_true", help="print only the verdict")
    p.add_argument("--fail-on", choices=("break", "review"), default="break",
                   help="drift: fail on break findings (default), or on review findings too")
    p.add_argument("--waivers", metavar="FILE",
                   help="accepted changes, one 'TYPE[.MEMBER]  reason' a line: reported as waived "
                        "(default for a series: its DIR/waivers, when there is one)")
    p.add_argument("--baseline", metavar="REPORT",
                   help="an earlier report.json: fail only on findings it does not have")
    p.add_argument("--arch", default=DEFAULT_ARCH,
                   help=f"architecture, Debian's or the kernel's name (default amd64): {arch_names()}")
    p.add_argument("--compat", metavar="ARCH32",
                   help="compare the 64-bit ABI with this 32-bit one (i386, armhf/arm) on --kernel's "
                        "tree: informational, exit 0 when it ran (compat.py)")
    a = p.parse_args(argv)
    try:
        arch = lookup_arch(a.arch)
        pair = compat_pair(a.compat) if a.compat else None
    except Fatal as e:
        p.error(str(e))
    if pair and (a.old or a.baseline or a.waivers or a.arch != DEFAULT_ARCH):
        p.error("--compat does not go with --old/--new, --arch, --waivers or --baseline")
    if bool(a.old) != bool(a.new):
        p.error("--old and --new go together")
    if a.old and a.patches:
        p.error("--patches does not apply with --old/--new")
    if a.jobs < 1:
        p.error("--jobs must be at least 1")
    patches = a.patches or os.path.join(ROOT, "patches", f"linux-{a.kernel}")
    out = a.out
    if not out:
        name = f"{os.path.basename(a.old.rstrip('/'))}-vs-{os.path.basename(a.new.rstrip('/'))}" \
            if a.old else a.kernel
        if pair:
            name = f"{a.kernel}-compat-{pair[0].debian}-{pair[1].debian}"
        elif not arch.default:
            name += f"-{arch.debian}"
        out = os.path.join(OUT, name)
    waivers = a.waivers
    if not waivers and not a.old and os.path.isfile(os.path.join(patches, "waivers")):
        waivers = os.path.join(patches, "waivers")   # what the series changes on purpose
    return Options(kernel=a.kernel, patches=patches, old=a.old, new=a.new, out=os.path.abspath(out),
                   jobs=a.jobs, quiet=a.quiet, fail_on=a.fail_on,
                   waivers=os.path.abspath(waivers) if waivers else None,
                   baseline=os.path.abspath(a.baseline) if a.baseline else None,
                   arch=pair[0] if pair else arch, compat=pair[1] if pair else None)


REPORTS = ("report.json", "report.txt", "report.sarif", "report.junit.xml", "report.html")


def remove_stale_reports(out):
    for name in REPORTS:
        try:
            os.unlink(os.path.join(out, name))
        except FileNotFoundError:
            pass


def shown_path(path):
    """A path as messages show it: relative to the repository when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def describe_run(opts, trees):
    arch = f", {opts.arch.describe()}"
    if opts.drift:
        return f"{opts.old} -> {opts.new}{arch}"
    return f"linux-source-{opts.kernel} with {trees.series.dir} ({len(trees.series.patches)} patches){arch}"


def check(opts, progress, started):
    """The whole run, step by step; returns the Report."""
    # Bad waiver or baseline files stop the run before any work.
    waivers = load_waivers(opts.waivers, shown_path(opts.waivers)) if opts.waivers else []
    baseline = load_baseline(opts.baseline, shown_path(opts.baseline)) if opts.baseline else None
    compilers = check_environment(opts)
    trees = step_trees(opts, progress)
    headers = step_headers(opts, compilers, trees, progress)
    units = step_units(opts, compilers, trees, headers, progress)
    extra = step_extra_units(opts, compilers, trees, headers, units, progress)
    progress.step("step 4: abidiff-uapi over the comparison matrix")
    tool = ensure_tool(progress)
    comparisons = step_compare(opts, tool, extra, progress)
    ioctls_skipped = step_requests(opts, compilers, trees, units, comparisons, tool, progress)
    coverage = comparison_coverage(units, headers, comparisons)
    accepted = apply_waivers(comparisons, waivers, baseline)
    if any(accepted.values()):
        progress.step(f"  accepted: {accepted['waived']} waived, {accepted['baselined']} in the baseline")
    mode = "drift" if opts.drift else "series"
    checks = evaluate_checks(mode, headers, comparisons, baseline.headers if baseline else frozenset())
    report = Report(mode=mode, what=describe_run(opts, trees), checks=checks, compilers=compilers,
                    trees=trees, headers=headers, units=units, extra=extra, comparisons=comparisons,
                    coverage=coverage, fail_on=opts.fail_on, header_changes=header_changes(trees),
                    waivers=waivers, baseline=opts.baseline, ioctls_skipped=ioctls_skipped,
                    arch=opts.arch)
    report.summary = summary_rows(headers, units, extra, comparisons, coverage)
    report.size_differences = size_differences(comparisons)
    report.elapsed_s = time.monotonic() - started
    return report


def guarded(opts, produce):
    """Run produce(), which computes a report and writes it into opts.out: (report, None), or
    (None, exit status) after a Fatal error (said in one line) or an interrupt, with no report
    left behind, whole or stale."""
    os.makedirs(opts.out, exist_ok=True)
    remove_stale_reports(opts.out)
    try:
        return produce(), None
    except Fatal as e:
        remove_stale_reports(opts.out)
        print(f"uapi-check: error: {e}", file=sys.stderr)
        return None, 2
    except KeyboardInterrupt:
        remove_stale_reports(opts.out)
        return None, 130


def main_compat(opts):
    """--compat ARCH32 (compat.py): informational, exit 0 when it ran, 2 when it cannot."""
    progress = Progress(opts.quiet)

    def produce():
        report = run_compat(opts, ensure_tool, progress)
        write_compat_reports(opts.out, report)
        return report

    report, rc = guarded(opts, produce)
    if rc is not None:
        return rc
    sys.stdout.write(compat_summary(report))
    if not opts.quiet:
        print(f"uapi-check: full report in {os.path.relpath(os.path.join(opts.out, 'report.txt'))}")
    return 0


def main(argv):
    opts = parse_args(argv)
    if opts.compat:
        return main_compat(opts)
    started = time.monotonic()
    progress = Progress(opts.quiet)

    def produce():
        report = check(opts, progress, started)
        write_atomic(os.path.join(opts.out, "report.json"), json.dumps(report.to_json(), indent=1) + "\n")
        write_atomic(os.path.join(opts.out, "report.txt"), render_text(report))
        write_ci_reports(opts.out, report.comparisons)
        write_atomic(os.path.join(opts.out, "report.html"), render_html(report))
        return report

    try:
        report, rc = guarded(opts, produce)
    finally:
        shutil.rmtree(os.path.join(opts.work, "tree-after"), ignore_errors=True)
    if rc is not None:
        return rc
    if opts.quiet:
        print(f"uapi-check: {report.verdict.upper()}")
    else:
        sys.stdout.write(terminal_summary(report))
        print(f"uapi-check: {report.verdict.upper()}; full report in "
              f"{os.path.relpath(os.path.join(opts.out, 'report.txt'))}")
    return 0 if report.verdict == "pass" else 1
