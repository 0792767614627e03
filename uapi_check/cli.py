"""uapi-check: check a kernel's UAPI layouts before and after a patch series, in C and C++.

  ./uapi-check [--kernel 6.1|6.12] [--patches DIR] [--out DIR] [--jobs N] [--quiet]
  ./uapi-check --old TREE --new TREE [--out DIR] [--fail-on=break|review]  (release drift)
  ./uapi-check --git DIR [--old REF] [--new REF] [--full]   (two revisions of a git tree)
  ./uapi-check --git DIR --each-commit BASE..TIP            (every commit of a series)
  ... [--waivers FILE] [--baseline OLD/report.json] [--sarif-safe]    (for CI: waivers.py, ci.py)

Steps (one module each):
  0. env.py:      what the run needs is installed (it installs nothing: scripts/install-deps does).
  1. trees.py:    pristine tree (cached under build/trees), a copy with the series applied,
                  `make headers_install` for both, out of tree. git.py: with --git, the two
                  revisions, only the files headers_install reads, keyed by their blob ids.
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
patch that does not apply, missing compiler, bad input or option), or an internal error (an
exception in the driver, a program killed by a signal, a sanitizer report): one line naming a log
with the detail (internal_error). Never 1 for anything but a check that fails.
Overlapping runs: a run holds a lock on its --out (out_lock); shared caches are written by
content key and atomic rename only (util.publish_dir, util.write_atomic).
Environment: CC and CXX name the compilers (default gcc and g++).
"""
import argparse
import concurrent.futures
import contextlib
import dataclasses
import gc
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
import traceback

from .arch import DEFAULT as DEFAULT_ARCH, compat_pair, lookup as lookup_arch, names as arch_names
from .ci import locate, write_ci_reports
from .config import KNOWN_KERNELS, OUT, ROOT, UNIT_FLAGS, add_flags, cache_dir
from .env import check_environment, ensure_tool
from .git import Repo, describe as describe_git
from .defines import step_constants
from .headers import step_headers
from .html import render_html
from .layouts import start_layouts, step_layouts
from .macros import prefetch, use_store
from .judge import evaluate_checks
from .matrix import comparison_coverage, step_compare
from .model import Options, Report
from .requests import start_requests, step_requests
from .scans import Store
from .show import run as run_show
from .render import render_text, size_differences, summary_rows, terminal_summary
from .trees import header_changes, step_trees
from .units import step_extra_units, step_units
from .util import Fatal, InternalError, Progress, file_lock, write_atomic
from .waivers import apply as apply_waivers, load_baseline, load_waivers


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="uapi-check",
        description="Check a kernel's UAPI layouts before and after a patch series, in C and C++.",
        epilog="Exit status: 0 every check holds; 1 a check fails; 2 the run cannot be made (bad "
               "input or option, a missing package) or an internal error (an exception in the "
               "driver, a program killed by a signal, a sanitizer report), said in one line that "
               "names a log with the detail. A second run on the same --out waits for the first "
               "(--no-wait: exit 2).")
    p.add_argument("--kernel", default="6.1",
                   help=f"Debian linux-source version: {', '.join(KNOWN_KERNELS)} (default 6.1)")
    p.add_argument("--patches", help="series directory (default patches/linux-KERNEL)")
    p.add_argument("--old", metavar="TREE", help="compare two trees: a directory or a linux-source version "
                   "(with --git: a revision, default HEAD, or HEAD^ when the working tree is clean)")
    p.add_argument("--new", metavar="TREE", help="the newer tree, with --old (with --git: a revision, "
                   "default the working tree, or HEAD when it is clean)")
    p.add_argument("--git", metavar="DIR",
                   help="a kernel git repository: compare two of its revisions, as "
                        "scripts/check-uapi.sh does; only the files headers_install reads are written out")
    p.add_argument("--each-commit", metavar="BASE..TIP",
                   help="with --git: check every commit of BASE..TIP against its parent, and name the "
                        "first that fails")
    p.add_argument("--full", action="store_true",
                   help="read nothing from the cache: install, compile and compare everything again")
    p.add_argument("--cflags", metavar="FLAGS", default="",
                   help="extra flags for every compile, C and C++ (part of every cache key); "
                        "write --cflags=-DX, since FLAGS start with a dash")
    p.add_argument("--out", help="output directory (default build/uapi-check/KERNEL, or OLD-vs-NEW)")
    p.add_argument("--no-constants", dest="constants", action="store_false",
                   help="compare layouts only: leave out the #define constants (step 3c)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel jobs (default nproc)")
    p.add_argument("--quiet", action="store_true", help="print only the verdict")
    p.add_argument("--no-wait", dest="wait", action="store_false",
                   help="when another run holds --out, exit 2 at once instead of waiting for it")
    p.add_argument("--fail-on", choices=("break", "review"), default="break",
                   help="drift: fail on break findings (default), or on review findings too")
    p.add_argument("--waivers", metavar="FILE",
                   help="accepted changes, one 'TYPE[.MEMBER]  reason' a line: reported as waived "
                        "(default for a series: its DIR/waivers, when there is one)")
    p.add_argument("--baseline", metavar="REPORT",
                   help="an earlier report.json: fail only on findings it does not have")
    p.add_argument("--sarif-safe", action="store_true",
                   help="report.sarif: also the findings that fail nothing (safe changes, and changes a "
                        "check allows) as note results; by default it has the break and review ones")
    p.add_argument("--arch", default=DEFAULT_ARCH,
                   help=f"architecture, Debian's or the kernel's name (default amd64): {arch_names()}")
    p.add_argument("--show", metavar="TYPE",
                   help="print one type's layout (kvm_run, 'struct kvm_run', 'union bpf_attr', a typedef) "
                        "in the run's objects side by side: before and after, C and C++; builds only the "
                        "units, writes no report")
    p.add_argument("--show-format", choices=("text", "json"), default="text", help="--show's output format")
    p.add_argument("--compat", metavar="ARCH32",
                   help="compare the 64-bit ABI with this 32-bit one (i386, armhf/arm) on --kernel's "
                        "tree: informational, exit 0 when it ran")
    a = p.parse_args(argv)
    try:
        arch = lookup_arch(a.arch)
        pair = compat_pair(a.compat) if a.compat else None
    except Fatal as e:
        p.error(str(e))
    if pair and (a.old or a.baseline or a.waivers or a.arch != DEFAULT_ARCH or a.git):
        p.error("--compat does not go with --old/--new, --git, --arch, --waivers or --baseline")
    if a.show and (a.compat or a.each_commit or a.waivers or a.baseline):
        p.error("--show does not go with --compat, --each-commit, --waivers or --baseline")
    if a.each_commit and not a.git:
        p.error("--each-commit needs --git")
    if a.each_commit and (a.old or a.new):
        p.error("--each-commit does not go with --old/--new")
    if bool(a.old) != bool(a.new) and not a.git:
        p.error("--old and --new go together")
    if (a.old or a.git) and a.patches:
        p.error("--patches does not apply with --old/--new or --git")
    known = ", ".join(KNOWN_KERNELS)
    if not (a.old or a.git) and a.kernel not in KNOWN_KERNELS:
        p.error(f"--kernel {a.kernel}: not a version this project knows ({known}); "
                f"compare other trees with --old DIR --new DIR")
    for flag, spec in (("--old", a.old), ("--new", a.new)):
        if spec and not a.git and not os.path.isdir(spec) and re.fullmatch(r"\d+\.\d+", spec) \
                and spec not in KNOWN_KERNELS:
            p.error(f"{flag} {spec}: not a directory, nor a linux-source version this project "
                    f"knows ({known})")
    try:
        cflags = tuple(shlex.split(a.cflags))
    except ValueError as e:
        p.error(f"--cflags: {e}")
    if a.jobs < 1:
        p.error("--jobs must be at least 1")
    patches = a.patches or os.path.join(ROOT, "patches", f"linux-{a.kernel}")
    out = a.out
    if not out:
        name = f"{os.path.basename(a.old.rstrip('/'))}-vs-{os.path.basename(a.new.rstrip('/'))}" \
            if a.old else a.kernel
        if a.git:
            name = "git-" + os.path.basename(os.path.abspath(a.git).rstrip("/")) + \
                ("-each-commit" if a.each_commit else "")
        if pair:
            name = f"{a.kernel}-compat-{pair[0].debian}-{pair[1].debian}"
        elif not arch.default:
            name += f"-{arch.debian}"
        out = os.path.join(OUT, name)
    waivers = a.waivers
    if not waivers and not a.old and not a.git and os.path.isfile(os.path.join(patches, "waivers")):
        waivers = os.path.join(patches, "waivers")   # what the series changes on purpose
    return Options(kernel=a.kernel, patches=patches, old=a.old, new=a.new, out=os.path.abspath(out),
                   jobs=a.jobs, quiet=a.quiet, fail_on=a.fail_on, constants=a.constants,
                   waivers=os.path.abspath(waivers) if waivers else None,
                   baseline=os.path.abspath(a.baseline) if a.baseline else None,
                   arch=pair[0] if pair else arch, compat=pair[1] if pair else None,
                   git=os.path.abspath(a.git) if a.git else None, full=a.full, cflags=cflags,
                   each=a.each_commit, wait=a.wait, show=a.show, show_format=a.show_format,
                   sarif_safe=a.sarif_safe)


REPORTS = ("report.json", "report.txt", "report.sarif", "report.junit.xml", "report.html")


def remove_stale_reports(out):
    for name in REPORTS + ("uapi-check-error.log",):
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
    if trees.git:
        return describe_git(Repo(opts.git), *trees.git) + arch
    if opts.drift:
        return f"{opts.old} -> {opts.new}{arch}"
    return f"linux-source-{opts.kernel} with {trees.series.dir} ({len(trees.series.patches)} patches){arch}"


def scan_beside(compilers, trees):
    """step_units' hook: a unit's macro scan, which steps 3c and 4b read, starts beside its
    compile (macros.prefetch)."""
    def start(lang, rev, included):
        prefetch(compilers[lang].path, trees.revisions[rev].include, included, UNIT_FLAGS[lang])
    return start


def check(opts, progress, started):
    """The whole run, step by step; returns the Report."""
    # Bad waiver or baseline files stop the run before any work.
    waivers = load_waivers(opts.waivers, shown_path(opts.waivers)) if opts.waivers else []
    baseline = load_baseline(opts.baseline, shown_path(opts.baseline)) if opts.baseline else None
    compilers = check_environment(opts)
    trees = step_trees(opts, progress)
    headers = step_headers(opts, compilers, trees, progress)
    # The after side's macro scans are kept in the cache, and a later run whose headers differ
    # from a kept one in no directive reuses it (scans.py), except under --full; run_check unsets it.
    use_store(Store(cache_dir(), {c.path: c.to_json() for c in compilers.values()}, read=not opts.full,
                    keep=[trees.revisions["after"].include]))
    units = step_units(opts, compilers, trees, headers, progress, scan_beside(compilers, trees))
    # Step 4b's ioctl units need only the units: built beside steps 3b, 3c and 4 (requests.py).
    # Those it compiles by header read their numbers with the tool, which step 4 makes sure of.
    built_tool = concurrent.futures.Future()
    requests = start_requests(opts, compilers, trees, units, built_tool.result, headers.digests)
    shows = None
    try:
        extra = step_extra_units(opts, compilers, trees, headers, units, progress)
        defines = step_constants(opts, compilers, trees, units, extra, progress, headers.digests) \
            if opts.constants else {}
        progress.step("step 4: abidiff-uapi over the comparison matrix")
        tool = ensure_tool(progress)
        built_tool.set_result(tool)
        comparisons = step_compare(opts, tool, extra, progress)
        # The layouts' `show` runs, beside the wait for the ioctl numbers (layouts.py).
        shows = start_layouts(opts, tool, comparisons)
        ioctls_skipped = step_requests(opts, compilers, trees, units, comparisons, tool, progress, requests)
    finally:
        # On an error elsewhere, the ioctl units and the layouts are not left running in a folder
        # in use (nor waiting for a tool that will not come).
        if not built_tool.done():
            built_tool.set_exception(Fatal("stopped before abidiff-uapi was built"))
        concurrent.futures.wait([f for f in (requests, shows) if f])
    coverage = comparison_coverage(units, headers, comparisons)
    accepted = apply_waivers(comparisons, waivers, baseline)
    if any(accepted.values()):
        progress.step(f"  accepted: {accepted['waived']} waived, {accepted['baselined']} in the baseline")
    mode = opts.mode
    checks = evaluate_checks(mode, headers, comparisons, baseline.headers if baseline else frozenset())
    report = Report(mode=mode, what=describe_run(opts, trees), checks=checks, compilers=compilers,
                    trees=trees, headers=headers, units=units, extra=extra, comparisons=comparisons,
                    coverage=coverage, fail_on=opts.fail_on, header_changes=header_changes(trees),
                    waivers=waivers, baseline=opts.baseline, ioctls_skipped=ioctls_skipped,
                    constants=defines,
                    arch=opts.arch)
    report.summary = summary_rows(headers, units, extra, comparisons, coverage, defines)
    report.size_differences = size_differences(comparisons)
    report.layouts = step_layouts(opts, tool, report, progress, shows)
    report.elapsed_s = time.monotonic() - started
    return report


LOCK = ".uapi-check.lock"
ERROR_LOG = "uapi-check-error.log"


@contextlib.contextmanager
def out_lock(opts, created):
    """Hold --out for one run: an flock on OUT/.uapi-check.lock. A second run on the same folder
    waits for it, saying so in one line, or with --no-wait stops with exit 2 (Fatal)."""
    path = os.path.join(opts.out, LOCK)

    def waiting():
        print(f"uapi-check: waiting for another run that holds {shown_path(opts.out)}",
              file=sys.stderr, flush=True)

    try:
        with file_lock(path, wait=opts.wait, waiting=waiting):
            yield
    except BlockingIOError:
        if created:
            remove_out(opts.out)
        raise Fatal(f"{shown_path(opts.out)}: another run holds it (--no-wait)") from None


def remove_out(out):
    """Remove an output folder this run made and holds: everything in it, the lock file last
    (a waiting run then takes the lock again on a folder of its own)."""
    for name in os.listdir(out) if os.path.isdir(out) else ():
        if name != LOCK:
            path = os.path.join(out, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
    for path in (os.path.join(out, LOCK), out):
        try:
            os.unlink(path) if path != out else os.rmdir(out)
        except OSError:
            pass


def internal_error(e, out=None):
    """An internal error (an exception in the driver, a crash or a sanitizer report of a program
    it runs): its detail in a log (OUT/uapi-check-error.log, or a temporary file when there is no
    --out to write to), one line on stderr naming it; exit 2, never 1."""
    if isinstance(e, InternalError):
        line, detail = str(e), e.detail
    else:
        line = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        detail = "".join(traceback.format_exception(e))
    text = f"uapi-check: internal error: {line}\n\n{detail}"
    log = None
    if out and os.path.isdir(out):
        try:
            log = os.path.join(out, ERROR_LOG)
            write_atomic(log, text)
        except (OSError, Fatal):
            log = None
    if log is None:
        fd, log = tempfile.mkstemp(prefix="uapi-check-error.", suffix=".log")
        with os.fdopen(fd, "w") as f:
            f.write(text)
    print(f"uapi-check: internal error: {line} (details in {log})", file=sys.stderr)
    return 2


def guarded(opts, produce):
    """Run produce(), which computes a report and writes it into opts.out, holding the folder's
    lock: (report, None), or (None, exit status) after a Fatal error (said in one line), an
    internal error (internal_error) or an interrupt, with no report left behind, whole or stale,
    and no folder of this run's when it could not start."""
    created = not os.path.isdir(opts.out)
    os.makedirs(opts.out, exist_ok=True)
    try:
        with out_lock(opts, created):
            remove_stale_reports(opts.out)
            try:
                return produce(), None
            except Fatal as e:
                remove_stale_reports(opts.out)
                if created:
                    remove_out(opts.out)
                print(f"uapi-check: error: {e}", file=sys.stderr)
                return None, 2
            except KeyboardInterrupt:
                remove_stale_reports(opts.out)
                return None, 130
            except Exception as e:      # InternalError, or a bug of the driver's
                remove_stale_reports(opts.out)
                return None, internal_error(e, opts.out)
    except Fatal as e:      # --no-wait
        print(f"uapi-check: error: {e}", file=sys.stderr)
        return None, 2


def main_show(opts):
    """--show TYPE (show.py): the units only, the folder held as for a run, no report touched."""
    return run_show(opts, lambda created: out_lock(opts, created), remove_out)


def main_compat(opts):
    """--compat ARCH32 (compat.py): informational, exit 0 when it ran, 2 when it cannot. Its
    modules are imported here: a check of the default kind, once per commit, does not pay for
    compiling them."""
    from .compat import run_compat
    from .compat_report import terminal_summary as compat_summary, write_reports as write_compat_reports
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


def run_check(opts, progress):
    """One whole check, its reports written into opts.out: (report, None) or (None, exit status)."""
    started = time.monotonic()

    def produce():
        # The trees' copies go before the lock on --out does (the next run would write them).
        try:
            report = check(opts, progress, started)
            locate(report)      # report.sarif's kernel-tree locations, read while the trees are here
        finally:
            use_store(None)     # this run's cache: no later scan in the process uses it
            for t in ("tree-after", "tree-before"):
                shutil.rmtree(os.path.join(opts.work, t), ignore_errors=True)
        write_atomic(os.path.join(opts.out, "report.json"), json.dumps(report.to_json(), indent=1) + "\n")
        write_atomic(os.path.join(opts.out, "report.txt"), render_text(report))
        write_ci_reports(opts.out, report, opts.sarif_safe)
        write_atomic(os.path.join(opts.out, "report.html"), render_html(report))
        return report

    return guarded(opts, produce)


def reuse_line(report):
    """How much of a run came from the cache: installs, per-header results, units."""
    h = report.headers.revs
    reused = sum(h[r].reuse[0] for r in h)
    total = sum(h[r].reuse[1] for r in h)
    units = sum(1 for u in report.units.values() if u.cached)
    installs = sum(1 for c in report.trees.cached.values() if c)
    return (f"reused {reused} of {total} per-header results, {units} of {len(report.units)} units, "
            f"{installs} of {len(report.trees.cached)} headers_install")


def main_each_commit(opts):
    """--each-commit BASE..TIP: each commit against its parent, oldest first; a report directory
    per commit under --out, and each-commit.json/.txt naming the first commit that fails."""
    progress = Progress(opts.quiet)
    try:
        repo = Repo(opts.git)
        commits = repo.commits(opts.each)
    except Fatal as e:
        print(f"uapi-check: error: {e}", file=sys.stderr)
        return 2
    progress.step(f"--each-commit {opts.each}: {len(commits)} commits in {repo.top}")
    created = not os.path.isdir(opts.out)
    os.makedirs(opts.out, exist_ok=True)
    try:
        with out_lock(opts, created):
            return each_commit(opts, repo, commits, progress)
    except Fatal as e:      # --no-wait
        print(f"uapi-check: error: {e}", file=sys.stderr)
        return 2


def each_commit(opts, repo, commits, progress):
    """main_each_commit's loop, with --out held."""
    for name in ("each-commit.json", "each-commit.txt"):
        try:
            os.unlink(os.path.join(opts.out, name))
        except FileNotFoundError:
            pass
    rows = []
    for i, (parent, commit) in enumerate(commits, 1):
        sub = dataclasses.replace(opts, old=parent, new=commit, each=None,
                                  out=os.path.join(opts.out, f"{i:03d}-{commit[:12]}"))
        subject = repo.subject(commit)
        report, rc = run_check(sub, Progress(True))
        if rc is not None:
            print(f"uapi-check: error: while checking {commit[:12]} ({subject})", file=sys.stderr)
            return rc
        failing = [c.check for c in report.checks if not c.passed]
        rows.append({"commit": commit, "parent": parent, "subject": subject, "verdict": report.verdict,
                     "failing_checks": failing, "elapsed_s": round(report.elapsed_s, 2),
                     "report": os.path.relpath(os.path.join(sub.out, "report.txt"), opts.out)})
        progress.step(f"[{i}/{len(commits)}] {commit[:12]} {subject}: {report.verdict.upper()}"
                      + (f" ({', '.join(failing)})" if failing else "")
                      + f" in {report.elapsed_s:.1f} s; {reuse_line(report)}")
    # Report directories of commits an earlier run checked and this one did not.
    mine = {os.path.basename(os.path.dirname(r["report"])) for r in rows}
    for d in os.listdir(opts.out):
        if re.fullmatch(r"\d{3}-[0-9a-f]{12}", d) and d not in mine and os.path.isdir(os.path.join(opts.out, d)):
            shutil.rmtree(os.path.join(opts.out, d), ignore_errors=True)
    first_bad = next((r for r in rows if r["verdict"] != "pass"), None)
    doc = {"tool": "uapi-check", "mode": "each-commit", "repository": repo.top, "range": opts.each,
           "arch": opts.arch.to_json(), "verdict": "fail" if first_bad else "pass",
           "first_bad": first_bad["commit"] if first_bad else None, "commits": rows}
    lines = [f"uapi-check --each-commit {opts.each} in {repo.top} ({opts.arch.describe()})", ""]
    lines += [f"{r['verdict'].upper():4}  {r['commit'][:12]}  {r['subject']}"
              + (f"  [{', '.join(r['failing_checks'])}: {r['report']}]" if r["failing_checks"] else "")
              for r in rows]
    lines += ["", f"first bad commit: {first_bad['commit']} {first_bad['subject']}" if first_bad
              else f"every commit passes ({len(rows)})"]
    write_atomic(os.path.join(opts.out, "each-commit.json"), json.dumps(doc, indent=1) + "\n")
    write_atomic(os.path.join(opts.out, "each-commit.txt"), "\n".join(lines) + "\n")
    print(lines[-1])
    print(f"uapi-check: {doc['verdict'].upper()}; full report in "
          f"{os.path.relpath(os.path.join(opts.out, 'each-commit.txt'))}")
    return 1 if first_bad else 0


def main(argv=None):
    """The entry point (./uapi-check, the installed wrapper, pyproject.toml's script): the exit
    status. argv defaults to the command line. Whatever goes wrong inside is exit 2 or 130, never
    1 (a check fails) and never a traceback on the terminal: internal_error."""
    opts = None
    # A run holds large structures with no cycles (each unit's 30k macros, constants, scans); at
    # the default thresholds the cyclic collector walks them again and again (about 860 young,
    # 78 middle and 6 full collections in a per-commit check, 0.3 to 0.7 CPU-s). Collecting
    # every 50,000 allocations instead costs about 20, at the same peak memory.
    gc.set_threshold(50_000, 20, 20)
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
        return run_main(opts)
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        return internal_error(e, opts.out if opts else None)


def run_main(opts):
    add_flags(list(opts.cflags))
    if opts.compat:
        return main_compat(opts)
    if opts.each:
        return main_each_commit(opts)
    if opts.show:
        return main_show(opts)
    progress = Progress(opts.quiet)
    report, rc = run_check(opts, progress)
    if rc is not None:
        return rc
    if opts.quiet:
        print(f"uapi-check: {report.verdict.upper()}")
    else:
        sys.stdout.write(terminal_summary(report))
        if opts.git:
            print(f"uapi-check: {reuse_line(report)}")
        print(f"uapi-check: {report.verdict.upper()} in {report.elapsed_s:.1f} s; full report in "
              f"{os.path.relpath(os.path.join(opts.out, 'report.txt'))}")
    return 0 if report.verdict == "pass" else 1
