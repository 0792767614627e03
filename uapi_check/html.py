"""report.html: one self-contained page (inline CSS, no script, no network) from a Report.

The summary first (verdict, breaks, review, safe by reason, headers added or removed), then each
failing and review finding with its old and new layout side by side (the tool's old_layout and
new_layout, in the pahole look; rows that moved, were resized, added or removed are highlighted),
then the C-versus-C++ sizes and the drift (header changes, accepted findings, ioctl numbers)."""
import difflib
import os
import re
from html import escape

from .config import REVS
from .judge import BASELINED, FAIL, WAIVED
from .screen import also_text, holders, plural
from .verdict import ACCEPTED, FAILS, REVIEW, groups, items, safe_counts, tally
from .trees import list_headers

CSS = """
body{font:15px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:0 1.5em 3em;color:#222}
h1{font-size:1.5em;margin:.8em 0 .2em}h2{font-size:1.2em;margin:1.6em 0 .4em;border-bottom:1px solid #ccc}
.verdict{display:inline-block;padding:.1em .6em;border-radius:4px;color:#fff;font-weight:bold}
.pass{background:#2a7a2a}.fail{background:#b3261e}
table.summary{border-collapse:collapse}table.summary td{padding:.15em 1em .15em 0;vertical-align:top}
.n-break{color:#b3261e;font-weight:bold}.n-review{color:#9a6700;font-weight:bold}
.finding{border:1px solid #ddd;border-radius:6px;margin:1em 0;padding:.5em .8em}
.finding.break{border-left:6px solid #b3261e}.finding.review{border-left:6px solid #d4a72c}
.finding h3{font-size:1em;margin:.2em 0;font-family:ui-monospace,monospace}
.finding ul{margin:.3em 0 .5em 1.2em;padding:0}
.tag{font-size:.8em;padding:0 .4em;border-radius:3px;background:#eee;margin-left:.5em}
table.layout{border-collapse:collapse;width:100%;table-layout:fixed;font:13px/1.35 ui-monospace,monospace}
table.layout th{text-align:left;background:#f3f3f3;padding:.2em .5em}
table.layout td{white-space:pre;overflow:hidden;text-overflow:ellipsis;padding:0 .5em;vertical-align:top}
td.moved,td.changed{background:#fff3c4}td.resized{background:#ffdcc2}td.added{background:#d7f5d7}
td.removed{background:#fbd5d5}td.blank{background:#fafafa}
.legend span{padding:0 .5em;margin-right:.5em;font-size:.85em}
table.list{border-collapse:collapse}table.list td,table.list th{padding:.1em .8em .1em 0;text-align:left}
"""

MEMBER = re.compile(r"^\s*(.*?)\s*;?\s*/\*\s*(\d+)(?::\d+)?\s+(\d+)\s*\*/")


def member_of(line):
    """(declaration, offset, size) of a pahole-style member line, or None."""
    m = MEMBER.match(line)
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


def row_class(old, new, side):
    """Why a row differs: moved (offset), resized (size), added or removed (no counterpart)."""
    a, b = member_of(old) if old else None, member_of(new) if new else None
    line = old if side == "old" else new
    if not line:
        return "blank"
    if side == "new" and not old or (side == "new" and a is None and b is not None):
        return "added"
    if side == "old" and not new or (side == "old" and b is None and a is not None):
        return "removed"
    if a and b:
        if a[2] != b[2]:
            return "resized"
        if a[1] != b[1]:
            return "moved"
    if old and new and a is None and b is None:
        return "changed"        # an enumerator's value, a nested type's opening line
    return "added" if side == "new" else "removed"


def layout_rows(old, new):
    """Both layouts aligned line by line: [(differs, old line, new line)]. Members are paired by
    name so that a moved member shows on one row."""
    old = [x.expandtabs(4).rstrip() for x in old]
    new = [x.expandtabs(4).rstrip() for x in new]

    def key(line):
        m = member_of(line)
        if m and m[0].split():
            return m[0].split()[-1].strip("*&[]0123456789")
        e = re.match(r"^\s*(\w+)\s*=", line)     # an enumerator: paired by name
        return e.group(1) if e else line
    rows = []
    sm = difflib.SequenceMatcher(None, [key(x) for x in old], [key(x) for x in new], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        a, b = old[i1:i2], new[j1:j2]
        for k in range(max(len(a), len(b))):
            x, y = (a[k] if k < len(a) else ""), (b[k] if k < len(b) else "")
            rows.append((op != "equal" or x != y, x, y))
    return rows


def layout_table(old, new):
    out = ['<table class="layout"><tr><th>old</th><th>new</th></tr>']
    for differs, a, b in layout_rows(old, new):
        ca = row_class(a, b, "old") if differs else ""
        cb = row_class(a, b, "new") if differs else ""
        out.append(f'<tr><td class="{ca}">{escape(a)}</td><td class="{cb}">{escape(b)}</td></tr>')
    out.append("</table>")
    return "\n".join(out)


def finding_block(g, comps, kind, views=None):
    sev = FAIL if kind == "break" else None
    texts = [f.text for f in g.findings if (f.severity == sev if sev else f.tool_severity == "review")]
    also = also_text(g, comps)
    slug = re.sub(r"[^A-Za-z0-9_]+", "-", f"{kind}-{g.comparison.name}-{g.type}")
    out = [f'<div class="finding {kind}" id="{slug}" data-type="{escape(g.type)}" '
           f'data-comparison="{escape(g.comparison.name)}" data-header="{escape(g.file or "(no file)")}">',
           f'<h3>{escape(g.type)}<span class="tag">{escape(kind)}</span>'
           f'<span class="tag">{escape(g.file or "(no file)")}</span>'
           f'<span class="tag">{escape(g.comparison.name + also)}</span></h3>', "<ul>"]
    out += [f"<li>{escape(t)}</li>" for t in texts]
    out.append("</ul>")
    old, new = g.entry.get("old_layout"), g.entry.get("new_layout")
    view = (views or {}).get((g.comparison.name, g.type))
    if view:
        out.append(drawing(view, side_labels(g.comparison), holders(g)))
    if old or new:
        out.append(layout_table(old or [], new or []))
    out.append("</div>")
    return "\n".join(out)


def added_headers(report):
    """Headers the after side installs and the before side does not (moved ones excluded)."""
    trees = getattr(report, "trees", None)
    revs = getattr(trees, "revisions", None) or {}
    if not all(r in revs and revs[r].include and os.path.isdir(revs[r].include) for r in REVS):
        return []
    before = set(list_headers(revs["before"].include))
    after = set(list_headers(revs["after"].include))
    moved = {h.moved_to for h in report.header_changes if h.moved_to}
    return sorted(after - before - moved)


def breaks_text(n):
    """The breaks as report.txt's first screen counts them: types, constants, their headers."""
    what = " and ".join(plural(k, w) for k, w in ((n["types"], "type"), (n["constants"], "constant")) if k)
    return f'{what} in {plural(n["headers"], "header")}' if what else "none"


def summary_section(report, its):
    n = tally(its)
    n_safe, safe = safe_counts(report.comparisons)
    removed = [h for h in report.header_changes if not h.moved_to]
    moved = [h for h in report.header_changes if h.moved_to]
    added = added_headers(report)
    rows = [("breaks", f'<span class="n-break" id="count-breaks" data-types="{n["types"]}" '
             f'data-constants="{n["constants"]}">{breaks_text(n)}</span>'),
            ("headers that stopped compiling alone",
             f'<span class="n-break" id="count-compile">{n["compile"]}</span>'),
            ("review", f'<span class="n-review" id="count-review">{plural(n["review"], "type")}</span>'),
            ("accepted (waived or in the baseline)",
             f'<span id="count-accepted">{plural(n["accepted"], "finding")}</span>'),
            ("safe", plural(n_safe, "type") + (": " + ", ".join(
                f"{escape(r)} {k}" for r, k in sorted(safe.items(), key=lambda x: (-x[1], x[0]))) if safe else "")),
            ("headers removed", str(len(removed))), ("headers moved", str(len(moved))),
            ("headers added", str(len(added)))]
    for k, v in getattr(report, "summary", []) or []:
        rows.append((escape(str(k)), escape(str(v))))
    out = ['<h2 id="summary">Summary</h2>', '<table class="summary">']
    out += [f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows]
    out.append("</table>")
    checks = getattr(report, "checks", []) or []
    if checks:
        out.append('<h2 id="checks">Checks</h2><table class="list">')
        for c in checks:
            state = "pass" if c.passed else "fail"
            out.append(f'<tr><td><span class="verdict {state}">{state.upper()}</span></td>'
                       f"<td>{escape(c.description)}</td><td>{len(c.failures)} findings</td></tr>")
        out.append("</table>")
        broken = [(c, f) for c in checks if c.check.endswith("headers-compile") for f in c.failures]
        if broken:
            out.append('<h3 id="stopped-compiling">Headers that stopped compiling alone</h3><ul>')
            out += [f"<li><code>{escape(f.header)}</code> ({'C++' if c.check.startswith('cxx') else 'C'}): "
                    f"{escape(f.error or '')}</li>" for c, f in broken]
            out.append("</ul>")
    return out


def cross_section(report):
    out = ['<h2 id="cxx">C versus C++</h2>']
    diffs = [(name, d) for name, ds in (getattr(report, "size_differences", {}) or {}).items() for d in ds]
    if not diffs:
        out.append("<p>No type has a different size in C and in C++.</p>")
        return out
    out.append('<table class="list"><tr><th>comparison</th><th>type</th><th>C</th><th>C++</th><th>header</th></tr>')
    for name, d in diffs:
        out.append(f"<tr><td>{escape(name)}</td><td><code>{escape(d['type'])}</code></td><td>{d['c']}</td>"
                   f"<td>{d['cxx']}</td><td>{escape(d.get('file') or '')}</td></tr>")
    out.append("</table>")
    return out


def drift_section(report, accepted):
    """accepted: the accepted verdict items."""
    out = ['<h2 id="drift">Drift</h2>']
    if report.header_changes:
        out.append('<table class="list"><tr><th>header</th><th>change</th></tr>')
        for h in report.header_changes:
            out.append(f"<tr><td>{escape(h.header)}</td><td>"
                       + (f"moved to {escape(h.moved_to)}" if h.moved_to else "removed") + "</td></tr>")
        out.append("</table>")
    else:
        out.append("<p>No header removed or moved.</p>")
    if accepted:
        out.append(f"<h3>Accepted (waived or in the baseline): {plural(len(accepted), 'finding')}</h3><ul>")
        for i in accepted:
            f = next((f for f in i.group.findings if f.severity in (WAIVED, BASELINED)), None) if i.group else None
            how = f"{f.severity}: {f.waiver or ''}" if f else f"baselined: {i.texts[0]}"
            out.append(f"<li><code>{escape(i.name)}</code>: {escape(how)} [{escape(i.comparison)}]</li>")
        out.append("</ul>")
    ioctls = [(name, i) for name, c in report.comparisons.items() for i in c.ioctls]
    if ioctls:
        out.append(f"<h3>ioctl numbers that differ: {len(ioctls)}</h3><ul>")
        out += [f"<li>{escape(str(i.get('text') or i))} [{escape(name)}]</li>" for name, i in ioctls]
        out.append("</ul>")
    return out


def render_html(report):
    comps = report.comparisons
    its = items(report)
    fails = [i.group for i in its if i.outcome == FAILS and i.group]
    reviews = [i.group for i in its if i.outcome == REVIEW and i.group]
    accepted = [i for i in its if i.outcome == ACCEPTED]
    verdict = report.verdict
    views = getattr(report, "layouts", None) or {}
    inputs, filters, rules = filter_section(fails + reviews)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>uapi-check: {escape(verdict.upper())} ({escape(report.what)})</title>",
           f"<style>{CSS}{DRAW_CSS}{''.join(rules)}</style></head><body>", *inputs, "<main>",
           f'<h1>uapi-check <span class="verdict {escape(verdict)}" id="verdict">{escape(verdict.upper())}</span></h1>',
           f"<p>{escape(report.what)}</p>"]
    out += toc_section(report, fails, reviews) + filters
    out += summary_section(report, its)
    out.append('<h2 id="breaks">Breaks</h2>')
    out.append('<p class="legend">rows: <span style="background:#fff3c4">moved or changed</span>'
               '<span style="background:#ffdcc2">resized</span><span style="background:#d7f5d7">added</span>'
               '<span style="background:#fbd5d5">removed</span></p>')
    # A removed header is one block with its types (as report.txt has it), not one per type.
    gone = {h.header for h in report.header_changes}
    by_gone = {}
    for g in fails:
        if g.status == "removed" and g.file in gone:
            by_gone.setdefault(g.file, []).append(g)
    for header, gs_ in sorted(by_gone.items()):
        h = next(h for h in report.header_changes if h.header == header)
        where = f"moved to {h.moved_to}" if h.moved_to else "removed"
        out.append(f'<div class="finding break gone" data-header="{escape(header)}"><h3>{escape(header)} '
                   f'{escape(where)}: {plural(len(gs_), "type")}</h3><p>'
                   + ", ".join(f"<code>{escape(g.type)}</code>" for g in gs_) + "</p></div>")
    out += [finding_block(g, comps, "break", views) for g in fails if g.file not in by_gone or g.status != "removed"]
    if not fails:
        out.append("<p>None.</p>")
    out.append('<h2 id="review">Review</h2>')
    out += [finding_block(g, comps, "review", views) for g in reviews] or ["<p>None.</p>"]
    out += series_cxx_section(report) + collisions_section(report) + fail_alone_section(report)
    out += cross_section(report)
    out += drift_section(report, accepted)
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"


# Layout pictures (issue 28): each drawn from the tool's `show` VIEW (layouts.py), as CSS boxes
# placed in percent of the larger side's size: no script, no image, nothing loaded.
DRAW_CSS = """
.drawing{margin:.6em 0;font:12px/1.2 ui-monospace,monospace}
.drawing .side{display:flex;align-items:flex-start;margin:.15em 0}
.drawing .label{width:5em;flex:none;padding-top:.2em;color:#555}
.drawing .bar{position:relative;flex:1;border:1px solid #999;background:#fff}
.drawing .box{position:absolute;box-sizing:border-box;height:18px;border:1px solid #557;background:#dfe7f5;
overflow:hidden;white-space:nowrap;padding:1px 2px;min-width:2px}
.drawing .box.hole,.drawing .box.padding{background:repeating-linear-gradient(45deg,#eee,#eee 3px,#ccc 3px,#ccc 6px);
border-style:dashed;color:#666}
.drawing .box.moved{background:#fff3c4;border-color:#9a6700}.drawing .box.resized{background:#ffdcc2;border-color:#b35c00}
.drawing .box.only{background:#fbd5d5;border-color:#b3261e}.drawing .box.holds{outline:2px solid #b3261e}
.drawing .ruler{position:relative;height:14px;flex:1;color:#777;border-left:1px solid #999}
.drawing .tick{position:absolute;top:0;border-left:1px solid #bbb;padding-left:2px;height:13px}
nav.toc{columns:3;font-size:.9em}nav.toc a{display:block}
.filters{margin:.6em 0;font-size:.9em}.filters label{margin-right:.8em;cursor:pointer}
input.f{display:none}
"""


def view_rows(view, side):
    """(row, mark, what) of one side of a VIEW: its member, hole and padding rows."""
    out = []
    for p in view.get("rows") or []:
        r = p.get(side) if "mark" in p else (p if side == "a" else None)
        if r and r.get("row") in ("member", "hole", "padding"):
            out.append((r, p.get("mark", "same"), p.get("what") or []))
    return out


def box_class(row, mark, what, holders):
    cls = ["box", row["row"]]
    if mark == "differs":
        cls.append("resized" if "size" in what else "moved" if "offset" in what else "moved")
    elif mark in ("only_a", "only_b"):
        cls.append("only")
    if row.get("path") in holders:
        cls.append("holds")
    return " ".join(cls)


def draw_side(label, rows, span, holders, side):
    """One side: boxes in lanes (a union's members overlap; each goes in the first lane it fits)."""
    lanes, boxes = [], []
    for row, mark, what in rows:
        start, size = row.get("offset", 0), row.get("size", 0)
        end = start + max(size, 1)
        lane = next((i for i, e in enumerate(lanes) if e <= start), len(lanes))
        if lane == len(lanes):
            lanes.append(0)
        lanes[lane] = end
        left, width = 100.0 * start / span, 100.0 * size / span
        name = row.get("path") or row["row"]
        tip = f"{row.get('type', row['row'])} {row.get('path') or ''} offset {start} size {size}".strip()
        boxes.append(f'<div class="{box_class(row, mark, what, holders)}" data-side="{side}" '
                     f'data-path="{escape(str(row.get("path") or ""))}" data-offset="{start}" data-size="{size}" '
                     f'data-mark="{mark}" title="{escape(tip)}" style="left:{left:.4f}%;width:{width:.4f}%;'
                     f'top:{lane * 20}px">{escape(str(name))}</div>')
    height = max(len(lanes), 1) * 20
    return (f'<div class="side"><span class="label">{escape(label)}</span><div class="bar" '
            f'style="height:{height}px">' + "".join(boxes) + "</div></div>")


def ruler(span):
    step = next(s for s in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 1 << 20)
                if span / s <= 12)
    ticks = "".join(f'<span class="tick" style="left:{100.0 * o / span:.4f}%">{o}</span>'
                    for o in range(0, span + 1, step) if o < span)
    return f'<div class="side"><span class="label">byte</span><div class="ruler">{ticks}</div></div>'


def drawing(view, labels=("old", "new"), holders=()):
    """A byte ruler and both sides of a VIEW as boxes: members, holes and padding shaded, moved,
    resized and one-side-only members marked, members that hold a changed type outlined."""
    sides = view.get("sides") or []
    sizes = [s.get("size") or 0 for s in sides if s]
    span = max(sizes + [1])
    out = [f'<div class="drawing" data-type="{escape(view.get("name", ""))}" data-span="{span}">', ruler(span)]
    for side, label, s in zip(("a", "b"), labels, sides + [None] * (2 - len(sides))):
        if s is None:
            out.append(f'<div class="side"><span class="label">{escape(label)}</span><em>not there</em></div>')
            continue
        out.append(draw_side(f"{label} {s.get('size')}", view_rows(view, side), span, holders, side))
    out.append("</div>")
    return "\n".join(out)


def side_labels(comp):
    lang = {"c": "C", "cxx": "C++"}
    a, b = comp.old.split("-"), comp.new.split("-")
    if a[0] != b[0]:
        return lang.get(a[0], a[0]), lang.get(b[0], b[0])
    return "old", "new"


def slug(text):
    return re.sub(r"[^A-Za-z0-9_]+", "-", text).strip("-")


def toc_section(report, fails, reviews):
    links = [("summary", "Summary"), ("checks", "Checks"), ("breaks", f"Breaks ({len(fails)})"),
             ("review", f"Review ({len(reviews)})"), ("series-cxx", "The series' C++ changes"),
             ("collisions", "Headers left out of one unit"), ("fail-alone", "Headers that fail alone"),
             ("cxx", "C versus C++"), ("drift", "Drift")]
    out = ['<nav class="toc" id="toc"><strong>Contents</strong>']
    out += [f'<a href="#{a}">{escape(t)}</a>' for a, t in links]
    for kind, gs in (("break", fails), ("review", reviews)):
        out += [f'<a href="#{slug(f"{kind}-{g.comparison.name}-{g.type}")}">{escape(g.type)}</a>' for g in gs]
    out.append("</nav>")
    return out


def filter_section(gs):
    """A filter by severity and header without a script: hidden radio inputs before <main>, labels
    that check them, and one CSS rule per choice hiding the other findings."""
    headers = sorted({g.file or "(no file)" for g in gs})
    rules, inputs, labels = [], ['<input class="f" type="radio" name="f" id="f-all" checked>'], []
    labels.append('<label for="f-all">all</label>')
    for sev in ("break", "review"):
        inputs.append(f'<input class="f" type="radio" name="f" id="f-{sev}">')
        labels.append(f'<label for="f-{sev}">{sev} only</label>')
        rules.append(f"#f-{sev}:checked~main .finding:not(.{sev}){{display:none}}")
    for i, h in enumerate(headers):
        inputs.append(f'<input class="f" type="radio" name="f" id="f-h{i}">')
        labels.append(f'<label for="f-h{i}">{escape(h)}</label>')
        rules.append(f'#f-h{i}:checked~main .finding:not([data-header="{escape(h)}"]){{display:none}}')
    return inputs, ['<div class="filters" id="filters"><strong>Show:</strong> ' + " ".join(labels) + "</div>"], rules


def collisions_section(report):
    cols = [(name, c) for name, u in (getattr(report, "units", {}) or {}).items() for c in u.collisions]
    out = ['<h2 id="collisions">Headers left out of one unit</h2>']
    if not cols:
        return out + ["<p>Every header compiled in one unit.</p>"]
    out.append('<table class="list"><tr><th>unit</th><th>header</th><th>symbol</th><th>why</th></tr>')
    out += [f"<tr><td>{escape(n)}</td><td><code>{escape(c.header)}</code></td><td>{escape(c.symbol or '?')}</td>"
            f"<td>{escape(c.message or '')} ({escape(c.at or '')}{' vs ' + escape(c.other) if c.other else ''})</td></tr>"
            for n, c in cols]
    out.append("</table>")
    return out


def fail_alone_section(report):
    from .config import LANG_NAME, LANGS
    headers = getattr(report, "headers", None)
    rows = [(f"{rev} {LANG_NAME[lang]}", h, e) for rev in REVS for lang in LANGS
            for h, e in sorted(headers.revs[rev].failed[lang].items())] if headers else []
    out = ['<h2 id="fail-alone">Headers that fail alone</h2>']
    if not rows:
        return out + ["<p>None.</p>"]
    out.append('<table class="list"><tr><th>side</th><th>header</th><th>first error</th></tr>')
    out += [f"<tr><td>{escape(w)}</td><td><code>{escape(h)}</code></td><td>{escape(e or '')}</td></tr>" for w, h, e in rows]
    out.append("</table>")
    return out


def series_cxx_section(report):
    """A series check: each C++ layout the series changed (to match C), drawn C++ before against after."""
    out = ['<h2 id="series-cxx">The series\' C++ changes</h2>']
    views = getattr(report, "layouts", {}) or {}
    gs = [g for g in groups(report.comparisons) if g.comparison.role == "series-cxx" and g.status != "removed"]
    if not gs:
        return out + ["<p>Nothing to show: not a series check, or the series changed no C++ layout.</p>"]
    for g in gs:
        out.append(f'<div class="finding series" id="{slug("series-" + g.comparison.name + "-" + g.type)}" '
                   f'data-type="{escape(g.type)}" data-header="{escape(g.file or "(no file)")}">'
                   f"<h3>{escape(g.type)}<span class=\"tag\">{escape(g.file or '')}</span></h3><ul>"
                   + "".join(f"<li>{escape(f.text)}</li>" for f in g.findings) + "</ul>")
        v = views.get((g.comparison.name, g.type))
        if v:
            out.append(drawing(v, ("C++ before", "C++ after")))
        out.append("</div>")
    return out
