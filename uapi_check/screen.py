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
from .verdict import ACCEPTED, FAILS, REVIEW, is_constant, safe_counts, tally
from .verdict import items as verdict_items

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


def holders(g):
    """Members of a group's type that hold a type whose layout changed (contains-break)."""
    return {f.member for f in g.findings if f.change_kind == "embedded" and f.member}


def holds(line, names):
    """Is a pahole-look member line the declaration of one of the members names?"""
    m = re.match(r"^\s*(.*?)\s*;\s*/\*", line)
    return bool(m and names and m.group(1).split() and m.group(1).split()[-1].lstrip("*") in names)


def side_by_side(old, new, indent="      ", holders=()):
    """Two layouts in columns, aligned line by line; '|' marks rows that differ, '*' a member that
    holds a type whose layout changed (its own rows may all be the same). Only those rows are shown
    (with the type's first line), at most LAYOUT_ROWS of them."""
    old, new = [compact(x) for x in old], [compact(x) for x in new]
    rows = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        a, b = old[i1:i2], new[j1:j2]
        for k in range(max(len(a), len(b))):
            x, y = a[k] if k < len(a) else "", b[k] if k < len(b) else ""
            rows.append(("|" if op != "equal" else "*" if holds(x, holders) or holds(y, holders) else "", x, y))
    shown = [r for i, r in enumerate(rows) if r[0] or i < 2]
    more = len(shown) - LAYOUT_ROWS
    shown = shown[:LAYOUT_ROWS]
    width = min(max([len(a) for _, a, _ in shown] + [10]), 60)
    lines = [f"{indent}  {'OLD':<{width}}   NEW"]
    for differs, a, b in shown:
        lines.append(f"{indent}{differs or ' '} {a:<{width}}   {b}".rstrip())
    if more > 0:
        lines.append(f"{indent}  ... {more} more rows differ (report.json has both layouts)")
    return lines


def joined(texts, limit=3):
    """A few change texts on one line; the rest counted."""
    more = len(texts) - limit
    return "; ".join(texts[:limit]) + (f"; and {more} more" if more > 0 else "")


def removed_counts(gs, header_changes):
    """{removed or moved header: Counter of "type"/"constant"} over the groups gs (removed types)."""
    gone = {h.header for h in header_changes}
    out = {}
    for g in gs:
        if g.status == "removed" and g.file in gone:
            out.setdefault(g.file, Counter())["constant" if is_constant(g) else "type"] += 1
    return out


def header_change_line(h, failing, accepted):
    """'drm/via_drm.h removed: 20 types, 39 constants'; a moved header with its destination; what
    a baseline or waiver accepted said so (never 'no type removed with it' when types went)."""
    where = f"moved to {h.moved_to}" if h.moved_to else "removed"
    f, a = failing.get(h.header, Counter()), accepted.get(h.header, Counter())
    parts = [plural(n, w) for n, w in ((f["type"], "type"), (f["constant"], "constant")) if n]
    took = [plural(n, w) for n, w in ((a["type"], "type"), (a["constant"], "constant")) if n]
    text = f"{h.header} {where}"
    if parts:
        text += (": " if not h.moved_to else ", with it removed: ") + ", ".join(parts)
    if took:
        text += ("; " if parts else ": ") + ", ".join(took) + " accepted (waived or in the baseline)"
    if not parts and not took:
        text += " (its types are compared under the new name)" if h.moved_to else ", no type removed with it"
    return text


def break_lines(fails, header_changes, comparisons, accepted=()):
    """The breaks grouped by header. A removed header is one line with its counts; the constants
    removed from a header that stays are one line per header; a changed constant is one line."""
    lines = []
    removed = {h.header: h for h in header_changes}
    by_header, constants_gone = {}, {}
    gone = removed_counts(fails, header_changes)
    for g in fails:
        if g.status == "removed" and g.file in removed:
            continue
        elif g.status == "removed" and is_constant(g):
            constants_gone.setdefault(g.file or "(no file)", []).append(g)
        else:
            by_header.setdefault(g.file or "(no file)", []).append(g)
    n_constants = (sum(c["constant"] for c in gone.values()) + sum(len(v) for v in constants_gone.values())
                   + sum(1 for v in by_header.values() for g in v if is_constant(g)))
    n_types = sum(c["type"] for c in gone.values()) + sum(1 for v in by_header.values() for g in v if not is_constant(g))
    n_headers = len(set(gone) | set(by_header) | set(constants_gone))
    what = " and ".join(plural(n, w) for n, w in ((n_types, "type"), (n_constants, "constant")) if n)
    lines.append(f"Breaks: {what} in {plural(n_headers, 'header')}" if what else "Breaks: none")
    took = removed_counts(accepted, header_changes)
    for h in header_changes:
        lines.append("  " + header_change_line(h, gone, took))
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
                lines.extend(side_by_side(old, new, holders=holders(g)))
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


def detail_lines(report):
    """The breaks and review findings type by type, each with its layouts side by side: the
    section after the first screen (its heading is DETAILS)."""
    comps = report.comparisons
    its = verdict_items(report)
    lines = [DETAILS, ""]
    lines += break_lines([i.group for i in its if i.outcome == FAILS and i.group], report.header_changes, comps,
                         [i.group for i in its if i.outcome == ACCEPTED and i.group])
    reviews = [i.group for i in its if i.outcome == REVIEW and i.group]
    lines.append("")
    lines.append(f"Review: {plural(len(reviews), 'type')}" if reviews else "Review: none")
    for g in reviews:
        texts = [f.text for f in g.findings if f.tool_severity == "review"]
        lines.append(f"  {g.type}: {joined(texts)} [{g.comparison.name}{also_text(g, comps)}]")
    lines.append("")
    lines.append(safe_line(comps))
    accepted = [i.group for i in its if i.outcome == ACCEPTED and i.group]
    if accepted:
        lines.append("")
        lines.append(f"Accepted (waived or in the baseline): {plural(len(accepted), 'type')}")
        for g in accepted:
            f = next(f for f in g.findings if f.severity in (WAIVED, BASELINED))
            lines.append(f"  {g.type}: {f.severity}: {f.waiver} [{g.comparison.name}]")
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
    n = tally(verdict_items(report))
    return {"breaks": n["types"] + n["constants"], "headers": n["headers"], "review": n["review"],
            "accepted": n["accepted"], "compile": n["compile"]}


# The first screen: at most SCREEN_LINES lines of at most WIDTH characters, whatever the run.
SCREEN_LINES, WIDTH = 60, 120
DETAILS = "Breaks and review, type by type (old and new layouts side by side)"
SIDE_NAMES = {"c-before_c-after": "C", "cxx-before_cxx-after": "C++"}


def cut(line, width=WIDTH):
    """One line of at most width characters: what does not fit ends in '...'."""
    return line if len(line) <= width else line[:width - 3].rstrip() + "..."


def where(g, comps):
    """'[C, C++]': the comparisons that found a group, short (a matrix name when it has no short one)."""
    names = [g.comparison.name] + [comps[n].name for n in g.also]
    return "[" + ", ".join(dict.fromkeys(SIDE_NAMES.get(n, n) for n in names)) + "]"


def tick(name):
    return f"`{name}`"


def short_change(f):
    """A change in a few words, for the first screen (report.json and the details have the rest)."""
    c = f.change or {}
    kind = c.get("change")
    old, new = c.get("old") or {}, c.get("new") or {}
    if kind in ("size", "alignment", "kind"):
        return f"{kind} {c.get('old')} -> {c.get('new')}"
    if kind == "member":
        what = c.get("what") or []
        parts = []
        if "offset" in what:
            parts.append(f"moved {old.get('offset')} -> {new.get('offset')}")
        if "size" in what:
            parts.append(f"resized {old.get('size')} -> {new.get('size')}")
        if "type" in what:
            parts.append(f"retyped {old.get('type')} -> {new.get('type')}")
        return f"{tick(c.get('member'))} " + (", ".join(parts) or "changed")
    if kind == "member_removed":
        return f"{tick(old.get('name'))} removed"
    if kind == "member_added":
        return f"{tick(new.get('name'))} added" + (f" over {tick(c['overlaps'])}" if c.get("overlaps") else "")
    if kind == "renamed":
        return f"{tick(old.get('name'))} renamed {tick(new.get('name'))}"
    if kind == "embedded":
        return f"member {tick(c.get('member'))} holds {c.get('type')}, whose layout changed"
    if kind == "enumerator_removed":
        return f"{c.get('enumerator')} = {c.get('old')} removed"
    if kind == "enumerator_value":
        return f"{c.get('enumerator')} {c.get('old')} -> {c.get('new')}"
    if kind == "constant_value":
        return f.text.split(" [")[0]
    return f.text.split(" [")[0]


def short_line(g, comps, sev=FAIL):
    """One group on one line: its type and its changes in short, removals of members joined."""
    texts, gone = [], []
    for f in g.findings:
        if (f.severity != sev) if sev == FAIL else (f.tool_severity != "review"):
            continue
        if f.change_kind == "member_removed":
            gone.append(tick((f.change.get("old") or {}).get("name")))
        else:
            texts.append(short_change(f))
    if gone:
        texts.append(", ".join(gone) + " removed")
    what = f"{g.type} (syscall number)" if g.entry.get("syscall") else g.type
    return what, "; ".join(dict.fromkeys(texts)), where(g, comps)


def one_line(prefix, g, comps):
    """prefix, the group's type and changes, cut to fit, and where it was found, kept whole."""
    what, text, tag = short_line(g, comps)
    return cut(f"{prefix}{what}: {text}", WIDTH - len(tag) - 1) + " " + tag


def filler_groups(gs, comps):
    """C++-only groups that 6.1's __DECLARE_FLEX_ARRAY filler explains: a type that loses the
    filler (a member_removed the tool gives the reason flex-filler), a type whose member of such
    a type is resized, an ioctl whose argument is one. Only groups of a C++ comparison that no C
    comparison repeats; the tool's severities stand, this only groups them on one line."""
    cxx = [g for g in gs if g.comparison.old.startswith("cxx") and g.comparison.new.startswith("cxx")]
    fill = {g.type for g in cxx if any(
        f.change_kind == "member_removed" and "flex-filler" in (f.reasons or [])
        for f in g.findings)}
    grew = True
    while grew:
        grew = False
        for g in cxx:
            if g.type not in fill and any(f.change_kind == "member" and (f.change.get("what") == ["size"])
                                          and (f.change.get("old") or {}).get("key") in fill for f in g.findings):
                fill.add(g.type)
                grew = True
    args = {}
    for c in comps.values():
        for i in c.ioctls:
            args[(c.name, "ioctl " + str(i.get("ioctl")))] = i.get("argument")
    return [g for g in cxx if g.type in fill or args.get((g.comparison.name, g.type)) in fill]


def wrapped(head, items, width=WIDTH, indent="    ", most=3):
    """head then items joined by ', ', wrapped at width on at most `most` lines; what does not fit
    is counted ('and 9 more') on the last line."""
    lines, line = [], head
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "")
        rest = f" and {len(items) - k - 1} more" if k < len(items) - 1 and len(lines) + 1 == most else ""
        if len(line) + 1 + len(piece) + len(rest) > width:
            if len(lines) + 1 == most:
                line = line.rstrip(",") + f" and {len(items) - k} more"
                break
            lines.append(line)
            line = indent + piece
        else:
            line += (" " if line.strip() else "") + piece
    lines.append(line)
    return [cut(x, width) for x in lines]


def opening_screen(report):
    """The first screen: the counts; each changed break on one line, grouped by header; removed
    headers one line each, moved ones with their destination; removals from headers that stay
    counted per header; C++-only __DECLARE_FLEX_ARRAY filler on one line; review and safe counted;
    then where to read on. At most SCREEN_LINES - 2 lines (the report's title and a blank line
    come first), each at most WIDTH characters."""
    comps = report.comparisons
    its = verdict_items(report)     # what every other output renders too (verdict.py)
    fails = [i.group for i in its if i.outcome == FAILS and i.group]
    accepted = [i.group for i in its if i.outcome == ACCEPTED and i.group]
    filler = filler_groups(fails, comps)
    ids = {id(g) for g in filler}
    gone_headers = {h.header for h in report.header_changes}
    removed = [g for g in fails if g.status == "removed" and id(g) not in ids]
    changed = [g for g in fails if g.status != "removed" and id(g) not in ids]
    lines = [cut(x) for x in compile_lines(report)[:6]]
    lines.append(break_lines(fails, report.header_changes, comps)[0])
    if fails:
        lines.append(f"  {len(changed)} changed (one line each, by header), {len(removed)} removed "
                     f"(types and constants), {len(filler)} C++-only filler (types and ioctls)")
    by_header = {}
    for g in changed:
        by_header.setdefault(g.file or "(no file)", []).append(g)
    block = []
    for header in sorted(by_header):
        items = by_header[header]
        if len(items) == 1:
            block.append(one_line(f"  {header}: ", items[0], comps))
            continue
        block.append(f"  {header}")
        block += [one_line("    ", g, comps) for g in items]
    at = len(lines)
    failing, took = removed_counts(fails, report.header_changes), removed_counts(accepted, report.header_changes)
    if report.header_changes:
        lines.append(f"Headers removed or moved: {len(report.header_changes)}")
        lines += [cut("  " + header_change_line(h, failing, took)) for h in report.header_changes]
    elsewhere = {}
    for g in removed:
        if g.file not in gone_headers:
            elsewhere.setdefault(g.file or "(no file)", Counter())["constant" if is_constant(g) else "type"] += 1
    if elsewhere:
        n_t = sum(c["type"] for c in elsewhere.values())
        n_c = sum(c["constant"] for c in elsewhere.values())
        items = [f"{h} {c['type']}/{c['constant']}"
                 for h, c in sorted(elsewhere.items(), key=lambda x: (-sum(x[1].values()), x[0]))]
        lines += wrapped(f"Removed from {plural(len(elsewhere), 'header')} that stay: {plural(n_t, 'type')} and "
                         f"{plural(n_c, 'constant')} (per header: types/constants):", items)
    if filler:
        kinds = Counter("ioctl" if g.type.startswith("ioctl ") else "type" for g in filler)
        names = [g.type for g in filler if not g.type.startswith("ioctl ")]
        lines += wrapped(f"C++ only, __DECLARE_FLEX_ARRAY's 1-byte filler gone: {plural(kinds['type'], 'type')}"
                         + (f", {plural(kinds['ioctl'], 'ioctl number')}" if kinds["ioctl"] else "") + ":",
                         names, most=2)
    reviews = [i for i in its if i.outcome == REVIEW]
    why = Counter(i.reasons[0] if i.reasons else "?" for i in reviews)
    lines.append(f"Review: {plural(len(reviews), 'type')}" if reviews else "Review: none")
    if why:
        lines.append(cut("  by reason: " + ", ".join(
            f"{r} {n}" for r, n in sorted(why.items(), key=lambda x: (-x[1], x[0])))))
    lines.append(cut(safe_line(comps)))
    n_accepted = sum(1 for i in its if i.outcome == ACCEPTED)
    if n_accepted:
        lines.append(f"Accepted (waived or in the baseline): {plural(n_accepted, 'finding')}")
    unused = [w for w in report.waivers if not w.used]
    if unused:
        lines.append(cut("  waivers that matched nothing: " + ", ".join(w.where for w in unused)))
    ioctls = [(name, i) for name, c in comps.items() for i in c.ioctls]
    if ioctls:
        verdicts = Counter(i.get("verdict") or "?" for _, i in ioctls)
        lines.append(f"ioctl numbers that differ: {len(ioctls)} ("
                     + ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())) + ")")
    lines.append("")
    lines += [f"Read on: \"{DETAILS}\", then the summary, the checks,",
              "  the headers left out or failing alone, and every finding per comparison; report.html draws",
              "  each layout, report.json has everything.", ""]
    room = SCREEN_LINES - 2 - len(lines)        # the report's title and a blank line come first
    if len(block) > room:
        more = sum(1 for x in block[room - 1:] if x.count(": ") >= 1 and x.rstrip().endswith("]"))
        block = block[:room - 1] + [f"  ... and {more} more changed, in \"{DETAILS}\""]
    return lines[:at] + block + lines[at:]


def safe_line(comps):
    n_safe, safe = safe_counts(comps)
    if not n_safe:
        return "Safe: none"
    return f"Safe: {plural(n_safe, 'type')}: " + ", ".join(
        f"{r} {n}" for r, n in sorted(safe.items(), key=lambda x: (-x[1], x[0])))


def first_screen(text):
    """The first screen of a report.txt: its lines before the details' heading."""
    lines = text.split("\n")
    return lines[:lines.index(DETAILS)] if DETAILS in lines else lines
