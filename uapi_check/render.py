"""report.txt and the terminal summary, rendered from a Report (never from each other)."""
from .config import LANG_NAME, LANGS, REVS, STATUSES
from .screen import counts, detail_lines, opening_screen, plural


def counts_text(c):
    statuses = ", ".join(f"{s} {c.get(s, 0)}" for s in STATUSES if c.get(s))
    return (f"{c.get('old_types', 0)} / {c.get('new_types', 0)}, unchanged {c.get('unchanged', 0)}"
            + (f", {statuses}" if statuses else ""))


def summary_rows(headers, units, extra, comparisons, coverage, constants=None):
    h = {rev: headers.revs[rev].to_json() for rev in REVS}
    rows = [("headers installed (before/after)", f"{h['before']['installed']} / {h['after']['installed']}"),
            ("headers tested (before/after)", f"{h['before']['tested']} / {h['after']['tested']}")]
    for lang in LANGS:
        rows.append((f"compile alone as {LANG_NAME[lang]} (before/after)",
                     f"{h['before']['compiled'][lang]} / {h['after']['compiled'][lang]}"))
    for name, u in units.items():
        rows.append((f"in one unit: {name}", f"{len(u.included)} ({len(u.collisions)} left out)"))
    for name in units:
        k = (constants or {}).get(name)
        if k:
            rows.append((f"#define constants: {name}",
                         f"{k['constants']} ({k['syscalls']} syscall numbers, {k['strings']} strings); "
                         f"{sum(k['not_constants'].values())} macros are not"))
    for name, cov in extra.coverage.items():
        rows.append((f"headers with a layout check: {name}",
                     f"{cov.checked} of {cov.compile_alone} ({cov.own_unit} in units of their own)"))
    for name, comp in comparisons.items():
        if comp.base:
            continue
        rows.append((f"{name}: types compared", counts_text(comp.counts)))
        mine = [c for c in comparisons.values() if c.base == name]
        if mine:
            total = {}
            for c in mine:
                for k, v in c.counts.items():
                    total[k] = total.get(k, 0) + v
            rows.append((f"  + {len(mine)} left-out headers alone", counts_text(total)))
        cov = coverage.get(name)
        if cov:
            rows.append((f"{name}: headers compared",
                         f"{cov['checked']} of {cov['compile_alone_both']} that compile alone on both sides"))
    return rows


def side_name(key):
    lang, rev = key.split("-")
    return f"{LANG_NAME[lang]} {rev}"


def size_text(old, new):
    """' size 8 -> 12', ' size 12' for a type on one side only, '' when neither has one (an
    enumerator, a constant, a request number): never 'None'."""
    if old is None and new is None:
        return ""
    if old is None or new is None:
        return f" size {new if old is None else old}"
    return f" size {old} -> {new}"


def struct_report(comparisons):
    """Per-type offset reports for every type that differs in any comparison."""
    out = []
    shown = {}  # base comparison -> signatures of the types already shown for it
    for name, comp in comparisons.items():
        by_type = {}
        for f in comp.findings:
            by_type.setdefault((f.type, f.status, f.file), []).append(f)
        # A left-out header's own unit repeats the types of the headers it includes: show only
        # what its base comparison (or another left-out header) has not shown the same way.
        seen = shown.setdefault(comp.base or name, set())
        for key in list(by_type):
            sig = (key, tuple((f.severity, f.text) for f in by_type[key]))
            if sig in seen:
                del by_type[key]
            seen.add(sig)
        if not by_type:
            continue
        alone = f", {comp.header} alone" if comp.header else ""
        out.append(f"== {name} ({side_name(comp.old)} vs {side_name(comp.new)}{alone})")
        for (tname, status, file), fs in sorted(by_type.items(), key=lambda kv: str(kv[0])):
            f0 = fs[0]
            out.append(f"  {tname} [{status}] {file or ''}{size_text(f0.old_size, f0.new_size)}")
            for f in fs:
                out.append(f"    {f.severity.upper():4} {f.text}")
        out.append("")
    return out


def group_findings(failures):
    """One line per type and comparison: 'struct kvm_cpuid: size 8 -> 12; ... [c-after_cxx-after]'."""
    order, texts = [], {}
    for f in failures:
        key = (f.who, f.comparison or "")
        if key not in texts:
            order.append(key)
            texts[key] = []
        texts[key].append(f.text)
    out = []
    for who, comp in order:
        body = "; ".join(texts[(who, comp)])
        if who and not body.startswith(who):
            body = f"{who}: {body}"
        out.append(body + (f" [{comp}]" if comp else ""))
    return out


def size_differences(comparisons):
    """Types whose size differs between the two sides of each cross-language comparison."""
    out = {}
    for name, comp in comparisons.items():
        if comp.role not in ("cross", "cross-series"):
            continue
        seen = {}
        for f in comp.findings:
            if f.old_size != f.new_size and f.old_size is not None:
                seen[f.type] = {"type": f.type, "file": f.file, "c": f.old_size, "cxx": f.new_size}
        if comp.base:  # a left-out header alone: only what its base comparison lacks
            listed = {d["type"] for d in out.get(comp.base, [])}
            seen = {t: d for t, d in seen.items() if t not in listed}
            if not seen:
                continue
        out[name] = sorted(seen.values(), key=lambda x: x["type"])
    return out


def check_lines(report, details=True):
    lines = ["Checks"]
    for c in report.checks:
        extra = [f"{len(c.failures)} findings"] if c.failures else []
        extra += [f"{len(c.accepted)} accepted"] if c.accepted else []
        lines.append(f"  [{'PASS' if c.passed else 'FAIL'}] {c.description}"
                     + (f" ({', '.join(extra)})" if extra else ""))
        if not details:
            continue
        grouped = group_findings(c.failures)
        for text in grouped[:40]:
            lines.append(f"         {text}")
        if len(grouped) > 40:
            lines.append(f"         ... {len(grouped) - 40} more in report.json")
    return lines


def render_text(report):
    lines = [f"uapi-check: {report.verdict.upper()}  ({report.what})", ""]
    lines.extend(opening_screen(report))
    lines.extend(detail_lines(report))
    lines.append("Summary")
    for k, v in report.summary:
        lines.append(f"  {k:<46} {v}")
    lines.append("")
    lines.extend(check_lines(report))
    lines.append("")
    cols = [(name, u.collisions) for name, u in report.units.items() if u.collisions]
    if cols:
        lines.append("Headers left out of one unit (collisions found by compiling; each is compared "
                     "in a unit of its own)")
        for name, cs in cols:
            for c in cs:
                lines.append(f"  {name}: {c.header}: {c.symbol or '?'}: {c.message}"
                             f" ({c.at}" + (f" vs {c.other}" if c.other else "") + ")")
        lines.append("")
    without = [(name, h, why) for name, cov in report.extra.coverage.items() for h, why in cov.without.items()]
    if without:
        lines.append("Headers that compile alone but have no layout check")
        for name, h, why in without:
            lines.append(f"  {name}: {h}: {why}")
        lines.append("")
    # A header that failed alone before and compiles after: the change fixed it (safe).
    fixed = [(LANG_NAME[lang], h) for lang in LANGS
             for h in sorted(set(report.headers.revs["before"].failed[lang]) - set(report.headers.revs["after"].failed[lang]))
             if h in report.headers.revs["after"].compiles[lang]]
    if fixed and report.mode in ("drift", "commit"):
        lines.append("Headers that now compile alone (safe)")
        lines += [f"  {lang}: {h}" for lang, h in fixed]
        lines.append("")
    fails = [(f"{rev} {LANG_NAME[lang]}", h, e) for rev in REVS for lang in LANGS
             for h, e in sorted(report.headers.revs[rev].failed[lang].items())]
    if fails:
        lines.append("Headers that fail alone")
        for what, h, e in fails:
            lines.append(f"  {what}: {h}: {e}")
        lines.append("")
    for name, k in sorted((getattr(report, "constants", None) or {}).items()):
        if name in report.units and k.get("not_constants"):
            lines.append(f"Macros that are not constants ({name}): {sum(k['not_constants'].values())}")
            lines += [f"  {n:>6}  {why}" for why, n in k["not_constants"].items()]
            lines.append("")
    for name, diffs in report.size_differences.items():
        if diffs:
            lines.append(f"Sizes that differ between C and C++ ({name}): {len(diffs)}")
            for d in diffs:
                lines.append(f"  {d['type']:<40} C {d['c']:>5}  C++ {d['cxx']:>5}  {d['file'] or ''}")
            lines.append("")
    lines.append("Types that differ (per comparison)")
    lines.extend(struct_report(report.comparisons) or ["  none", ""])
    return "\n".join(lines) + "\n"


TERMINAL_ROWS = 4   # headers installed, tested, compile alone as C, as C++


def terminal_summary(report):
    """A few lines from the data: the verdict, the opening screen's counts, the checks."""
    n = counts(report)
    lines = [f"uapi-check: {report.verdict.upper()}  ({report.what})"]
    for k, v in report.summary[:TERMINAL_ROWS]:
        lines.append(f"  {k:<46} {v}")
    moved = sum(1 for h in report.header_changes if h.moved_to)
    removed = len(report.header_changes) - moved
    figures = [f"{plural(n['breaks'], 'breaking type')} in {plural(n['headers'], 'header')}",
               f"{n['review']} to review"]
    figures += [f"{plural(n['compile'], 'header')} stopped compiling alone"] if n["compile"] else []
    figures += [f"{n['accepted']} accepted"] if n["accepted"] else []
    figures += [f"{removed} headers removed"] if removed else []
    figures += [f"{moved} moved"] if moved else []
    lines.append("  " + ", ".join(figures))
    lines.extend(check_lines(report, details=False))
    return "\n".join(lines) + "\n"
