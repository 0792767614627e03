"""The opening screen of report.txt: what a person acts on first.

  1. the breaks (failing findings), grouped by header, each type with its old and new layout
     side by side (the tool's old_layout/new_layout); a removed header is one line with its
     count of types, not one line per type;
  2. the review findings;
  3. the safe findings, counted by reason;
  4. waived and baselined findings, and ioctl numbers that differ.
A finding that a later comparison repeats (same type, same changes: C++ repeating C, a left-out
header's own unit repeating its base comparison) is shown once, "also in" the others.
"""
import difflib
import re
from collections import Counter

from .judge import BASELINED, FAIL, WAIVED
from .verdict import ACCEPTED, FAILS, REVIEW, is_constant, items, tally

LAYOUT_ROWS = 12    # rows of a side-by-side layout, at most


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def also_text(g, comparisons):
    names = []
    for name in g.also:
        c = comparisons[name]
        names.append("C++" if c.old.startswith("cxx") and c.new.startswith("cxx")
                     and g.comparison.old.startswith("c-") else name)
    return ", also in " + ", ".join(dict.fromkeys(names)) if names else ""


def compact(line):
    """A layout line made narrow enough for two columns: tabs and runs of spaces shortened."""
    return re.sub(r" {3,}", "  ", line.expandtabs(4)).rstrip()


def side_by_side(old, new, indent="      "):
    """Two layouts in columns, aligned line by line; '|' marks rows that differ. Only the rows
    that differ are shown (with the type's first line), at most LAYOUT_ROWS of them."""
    old, new = [compact(x) for x in old], [compact(x) for x in new]
    rows = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        a, b = old[i1:i2], new[j1:j2]
        for k in range(max(len(a), len(b))):
            rows.append((op != "equal", a[k] if k < len(a) else "", b[k] if k < len(b) else ""))
    shown = [r for i, r in enumerate(rows) if r[0] or (i < 2 and not r[0])]
    more = len(shown) - LAYOUT_ROWS
    shown = shown[:LAYOUT_ROWS]
    width = min(max([len(a) for _, a, _ in shown] + [10]), 60)
    lines = [f"{indent}  {'OLD':<{width}}   NEW"]
    for differs, a, b in shown:
        lines.append(f"{indent}{'|' if differs else ' '} {a:<{width}}   {b}".rstrip())
    if more > 0:
        lines.append(f"{indent}  ... {more} more rows differ (report.json has both layouts)")
    return lines


def joined(texts, limit=3):
    """A few change texts on one line; the rest counted."""
    more = len(texts) - limit
    return "; ".join(texts[:limit]) + (f"; and {more} more" if more > 0 else "")


def break_lines(fails, header_changes, comparisons):
    """The breaks grouped by header. A removed header is one line with its counts; the constants
    removed from a header that stays are one line per header; a changed constant is one line."""
    lines = []
    removed = {h.header: h for h in header_changes}
    gone_types, gone_constants = Counter(), Counter()
    constants_gone = {}
    by_header = {}
    for g in fails:
        if g.status == "removed" and g.file in removed:
            (gone_constants if is_constant(g) else gone_types)[g.file] += 1
        elif g.status == "removed" and is_constant(g):
            constants_gone.setdefault(g.file or "(no file)", []).append(g)
        else:
            by_header.setdefault(g.file or "(no file)", []).append(g)
    n_constants = (sum(gone_constants.values()) + sum(len(v) for v in constants_gone.values())
                   + sum(1 for v in by_header.values() for g in v if is_constant(g)))
    n_types = sum(gone_types.values()) + sum(1 for v in by_header.values() for g in v if not is_constant(g))
    n_headers = len(set(gone_types) | set(gone_constants) | set(by_header) | set(constants_gone))
    what = " and ".join(plural(n, w) for n, w in ((n_types, "type"), (n_constants, "constant")) if n)
    lines.append(f"Breaks: {what} in {plural(n_headers, 'header')}" if what else "Breaks: none")
    for h in header_changes:
        where = f"moved to {h.moved_to}" if h.moved_to else "removed"
        parts = [plural(n, w) for n, w in ((gone_types.get(h.header, 0), "type"),
                                           (gone_constants.get(h.header, 0), "constant")) if n]
        lines.append(f"  {h.header} {where}: {', '.join(parts)}" if parts
                     else f"  {h.header} {where}, no type removed with it")
    for header in sorted(set(by_header) | set(constants_gone)):
        lines.append(f"  {header}")
        gone = constants_gone.get(header, [])
        if gone:
            names = sorted(str(g.type)[len("#define "):] for g in gone)
            more = f" and {len(names) - 4} more" if len(names) > 4 else ""
            lines.append(f"    {plural(len(names), 'constant')} removed: {', '.join(names[:4])}{more}")
        for g in by_header.get(header, []):
            texts = [f.text for f in g.findings if f.severity == FAIL]
            what = f"{g.type} (syscall number)" if g.entry.get("syscall") else g.type
            lines.append(f"    {what}: {joined(texts)} [{g.comparison.name}{also_text(g, comparisons)}]")
            old, new = g.entry.get("old_layout"), g.entry.get("new_layout")
            if old and new and not is_constant(g):
                lines.extend(side_by_side(old, new))
    return lines


def compile_lines(report):
    """Headers that fail a headers-compile check: first on the screen, each with its first error."""
    lines = []
    for c in getattr(report, "checks", None) or ():
        if c.check.endswith("headers-compile") and c.failures:
            lang = "C++" if c.check.startswith("cxx") else "C"
            lines.append(f"Headers that stopped compiling alone in {lang}: {len(c.failures)}")
            lines += [f"  {f.header}: {f.error}" for f in c.failures]
    return lines


def opening_screen(report):
    """The first screen, from verdict.items (the items every other output renders too)."""
    comps = report.comparisons
    its = items(report)
    lines = compile_lines(report)
    lines += break_lines([i.group for i in its if i.outcome == FAILS and i.group], report.header_changes, comps)
    reviews = [i for i in its if i.outcome == REVIEW]
    lines.append("")
    lines.append(f"Review: {plural(len(reviews), 'type')}" if reviews else "Review: none")
    for i in reviews:
        lines.append(f"  {i.name}: {joined(i.texts)} [{i.comparison}{also_text(i.group, comps)}]")
    safe = Counter()
    n_safe = 0
    for comp in comps.values():
        if comp.base:
            continue
        for t in comp.types:
            if t.get("severity") == "safe":
                n_safe += 1
                safe.update(t.get("reasons") or ["(no reason)"])
    lines.append("")
    if n_safe:
        lines.append(f"Safe: {plural(n_safe, 'type')}: " + ", ".join(f"{r} {n}" for r, n in sorted(safe.items(), key=lambda x: (-x[1], x[0]))))
    else:
        lines.append("Safe: none")
    accepted = [i for i in its if i.outcome == ACCEPTED]
    if accepted:
        lines.append("")
        lines.append(f"Accepted (waived or in the baseline): {plural(len(accepted), 'finding')}")
        for i in accepted:
            f = next((f for f in i.group.findings if f.severity in (WAIVED, BASELINED)), None) if i.group else None
            how = f"{f.severity}: {f.waiver}" if f else f"baselined: {i.texts[0]}"
            lines.append(f"  {i.name}: {how} [{i.comparison}]")
    unused = [w for w in report.waivers if not w.used]
    if unused:
        lines.append("  waivers that matched nothing: " + ", ".join(w.where for w in unused))
    ioctls = [(name, i) for name, c in comps.items() for i in c.ioctls]
    if ioctls:
        lines.append("")
        lines.append(f"ioctl numbers that differ: {len(ioctls)}")
        for name, i in ioctls:
            lines.append(f"  {i.get('text') or i} [{name}]")
    lines.append("")
    return lines


def counts(report):
    """The opening screen's figures, for the terminal: {breaks, headers, review, accepted}."""
    n = tally(items(report))
    return {"breaks": n["types"] + n["constants"], "headers": n["headers"], "review": n["review"],
            "accepted": n["accepted"], "compile": n["compile"]}
