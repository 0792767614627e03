"""Step 4: the comparison matrix. The four unit pairs (two for drift), then each base comparison
replayed on the left-out headers' own units; abidiff-uapi is run on each line, its raw outputs
kept in diff/, and its findings judged (judge.py)."""
import json
import os
from dataclasses import dataclass

from .judge import FAIL, judge_comparison
from .model import Comparison
from .util import Fatal, parallel, run, write_atomic


@dataclass(frozen=True)
class MatrixLine:
    name: str
    old: str            # unit keys
    new: str
    common_only: bool
    role: str           # decides which findings are acceptable (judge.py)
    strict: bool        # one ABI on both sides: the tool's --strict (no evolution idioms)


def base_matrix(drift):
    """Drift compares two releases, where the kernel's ways of extending an ABI are safe. The
    series and the C/C++ comparisons must keep ONE ABI: the tool runs them with --strict."""
    if drift:
        return [MatrixLine("c-before_c-after", "c-before", "c-after", False, "drift", False),
                MatrixLine("cxx-before_cxx-after", "cxx-before", "cxx-after", True, "drift", False)]
    return [MatrixLine("c-before_c-after", "c-before", "c-after", False, "series-c", True),
            MatrixLine("cxx-before_cxx-after", "cxx-before", "cxx-after", True, "series-cxx", True),
            MatrixLine("c-after_cxx-after", "c-after", "cxx-after", True, "cross", True),
            MatrixLine("c-before_cxx-after", "c-before", "cxx-after", True, "cross-series", True)]


def matrix_args(old_object, new_object, common_only, strict=False, fail_on="break", ext="o"):
    """The tool's arguments for one line, relative to the out dir (as matrix.txt has them). ext:
    "a" for the archives of step 3c (each object with its #define constants), "o" without."""
    args = [f"obj/{old_object}.{ext}", f"obj/{new_object}.{ext}", "--headers", "include/before",
            "--headers", "include/after"]
    if common_only:
        args.append("--common-only")
    if strict:
        args.append("--strict")
    if fail_on != "break":
        args.append(f"--fail-on={fail_on}")
    return args


def comparison_args(c):
    return matrix_args(c.old_object, c.new_object, c.common_only, c.strict, c.fail_on, c.ext)


# --format, diff/NAME.<suffix>: the tool's own SARIF, whose rules (its table of reasons) ci.py
# gives report.sarif.
CI_FORMATS = (("sarif", "sarif"),)


def run_comparison(tool, out, name, args, ci=False):
    """Run the tool once for one comparison: its JSON on standard output, its text (and with ci
    its SARIF: ci.py takes the tool's rules from it) written by the tool itself into diff/ with
    --report, each atomically. Its JSON is kept in diff/ too. Returns (exit status, the JSON
    document)."""
    reports = [f"--report=text:{os.path.join('diff', name + '.txt')}"]
    reports += [f"--report={fmt}:{os.path.join('diff', name + '.' + suffix)}" for fmt, suffix in CI_FORMATS if ci]
    os.makedirs(os.path.join(out, "diff"), exist_ok=True)
    rc, js, err = run([tool, "diff", *args, "--format=json", *reports], cwd=out)
    if rc not in (0, 1):
        raise Fatal(f"abidiff-uapi diff {' '.join(args)}: "
                    + (err.strip().splitlines() or [f"exit {rc}"])[0])
    write_atomic(os.path.join(out, "diff", f"{name}.json"), js)
    try:
        return rc, json.loads(js)
    except ValueError as e:
        raise Fatal(f"abidiff-uapi diff {name}: output is not JSON ({e})")


def plan(drift, pairs, fail_on="break", ext="o"):
    """Every comparison to run: the base lines, then each left-out header's own pair."""
    base = base_matrix(drift)
    fail = fail_on if drift else "break"
    comps = [Comparison(b.name, b.old, b.new, b.common_only, b.role, b.old, b.new,
                        strict=b.strict, fail_on=fail, ext=ext) for b in base]
    by_name = {b.name: b for b in base}
    for p in pairs:
        b = by_name[p.base]
        slug = p.old_object.split("+", 1)[1]
        comps.append(Comparison(f"{p.base}+{slug}", p.old, p.new, b.common_only, b.role,
                                p.old_object, p.new_object, base=p.base, header=p.header,
                                strict=b.strict, fail_on=fail, ext=ext))
    return comps


def write_matrix(out, comps):
    """matrix.txt (the guest replays it), and no stale diff/ outputs of left-out headers."""
    lines = [" ".join([c.name, *comparison_args(c)]) for c in comps]
    write_atomic(os.path.join(out, "matrix.txt"), "\n".join(lines) + "\n")
    names = {c.name for c in comps}
    diff = os.path.join(out, "diff")
    for f in os.listdir(diff) if os.path.isdir(diff) else []:
        if "+" in f and f.rsplit(".", 1)[0] not in names:
            os.unlink(os.path.join(diff, f))


def step_compare(opts, tool, extra, progress):
    """Step 4: the matrix, the tool's raw outputs and the findings judged per comparison.
    Returns {name: Comparison}."""
    comps = plan(opts.drift, extra.pairs, opts.fail_on, "a" if opts.constants else "o")
    write_matrix(opts.out, comps)

    def one(c):
        return run_comparison(tool, opts.out, c.name, comparison_args(c), ci=not c.base)

    for c, (rc, data) in zip(comps, parallel(opts.jobs, one, comps)):
        c.exit = rc
        c.verdict = data.get("verdict")
        c.counts = data.get("counts", {})
        c.types = data.get("types", [])
        c.findings = judge_comparison(c.role, c.types, c.fail_on)
        if c.base:
            # A header alone holds the types of the headers it includes. A type of another header
            # that it no longer includes is not removed from the UAPI: its own header's unit (the
            # main one, or one of its own) says whether it is.
            for f in c.findings:
                if f.status == "removed" and f.file != c.header and f.severity == FAIL:
                    f.severity, f.text = "note", f"{f.type} no longer reached through {c.header}"
            continue
        fails = sum(1 for f in c.findings if f.severity == FAIL)
        progress.step(f"  {c.name}: {c.verdict}, {len(c.types)} types differ"
                      + (f", {fails} failing findings" if fails else ""))
    result = {c.name: c for c in comps}
    for b in base_matrix(opts.drift):
        mine = [c for c in comps if c.base == b.name]
        if mine:
            bad = [c.header for c in mine if c.verdict != "compatible"]
            fails = sum(1 for c in mine for f in c.findings if f.severity == FAIL)
            progress.step(f"  {b.name}: +{len(mine)} left-out headers in units of their own"
                          + (f", {len(bad)} incompatible" if bad else ", all compatible")
                          + (f", {fails} failing findings" if fails else ""))
    return result


def comparison_coverage(units, headers, comparisons):
    """Per comparison of the base matrix: the headers that compile alone on both sides, and how
    many of them have their layouts compared (in both main units, or in units of their own)."""
    main = {k: set(u.included) for k, u in units.items()}
    cov = {}
    for name, comp in comparisons.items():
        if comp.base:
            continue
        o, n = comp.old, comp.new
        both = set(headers.compiles(o)) & set(headers.compiles(n))
        own = {c.header for c in comparisons.values() if c.base == name}
        checked = (main[o] & main[n]) | own
        cov[name] = {"compile_alone_both": len(both), "checked": len(both & checked),
                     "own_units": len(own), "without": sorted(both - checked)}
    return cov
