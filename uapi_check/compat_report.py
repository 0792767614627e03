"""report.txt, report.json and report.html of a --compat run (compat.py), rendered from its
CompatReport. Everything is sorted by header, then name, for a kernel developer to walk."""
import html
import json
import os

from types import SimpleNamespace

from .ci import render_junit, render_sarif
from .compat import CAUSES, CompatReport
from .model import Revision
from .util import write_atomic
from .verdict import REVIEW, Item

# report.sarif's rules of a --compat run: its causes, and a constant that differs.
CAUSE_TEXT = {
    "long-width": "a long or unsigned long member: 8 bytes in the 64-bit ABI, 4 in the 32-bit one",
    "pointer-width": "a pointer member: 8 bytes against 4",
    "size_t-width": "a size_t, ssize_t or ptrdiff_t member: 8 bytes against 4",
    "time-width": "a time_t or other time member whose width differs between the ABIs",
    "align8": "a 64-bit member aligned to 8 bytes in the 64-bit ABI and to 4 in i386's",
    "arch-ifdef": "the header declares the type differently per architecture",
    "member-type": "a member whose own type differs between the ABIs",
    "other": "a difference of another kind",
    "constant-differs": "a #define constant with another value in each ABI, or defined in one only",
}

REPORTS = ("report.json", "report.txt", "report.html", "report.sarif", "report.junit.xml")


def cause_text(causes):
    """'align8 (x: __u64 is 8-aligned on ...); member-type (...)' from the tool's causes."""
    parts = []
    for c in causes:
        where = f" {c['member']}" if c.get("member") else ""
        detail = f": {c['detail']}" if c.get("detail") else ""
        parts.append(f"{c.get('cause', 'other')}{where}{detail}")
    return "; ".join(parts) or "(no cause given)"


def show(v):
    """A constant's value for people: 'undefined', a quoted string, or the number."""
    if v is None:
        return "undefined"
    return json.dumps(v) if isinstance(v, str) else str(v)


def by_header(lines, items, lines_of):
    """Appends each item's lines to lines, under a line naming its header whenever the header
    changes (items come sorted by header)."""
    header = object()
    for x in items:
        if x.header != header:
            header = x.header
            lines.append(f"{x.header or '(no header)'}")
        lines.extend(lines_of(x))


def ioctl_line(i):
    causes = ", ".join(sorted({x.get('cause', 'other') for x in i.argument_causes}))
    return [f"  {i.name}: 0x{i.number64:08x} -> 0x{i.number32:08x}, argument {i.argument or '(none)'}"
            + (f": {causes}" if causes else "")]


def render_text(r: CompatReport) -> str:
    a64, a32 = r.arch64.debian, r.arch32.debian
    lines = [f"uapi-check --compat: {r.what}", "",
             f"Informational: which types and ioctl numbers differ between the {a64} and {a32} ABIs.",
             "It does not know which ioctls have compat handlers: check each one.", "",
             f"{r.headers} headers in both units ({len(r.left_out)} left out, listed at the end)",
             f"Types whose layout differs: {len(r.types)}"]
    for cause, n in r.cause_counts().items():
        lines.append(f"  {cause}: {n}")
    c = r.ioctl_counts
    lines += [f"ioctl request numbers that differ: {c['differ']} of {c['compared']}"
              + (f" ({c['only64']} only in {a64}, {c['only32']} only in {a32})" if c['only64'] or c['only32'] else ""),
              "", f"== Types ({a64} size -> {a32} size), by header"]
    by_header(lines, r.types, lambda t: [f"  {t.name}: {t.size64} -> {t.size32} [{t.status}] {', '.join(t.cause_names())}"]
              + [f"      {cause_text([cause])}" for cause in t.causes])
    lines += ["", f"== ioctl request numbers ({a64} -> {a32}), by header"]
    by_header(lines, r.ioctls, ioctl_line)
    if r.constant_counts:
        lines += ["", f"== #define constants ({a64} -> {a32}) that differ or one ABI lacks: {len(r.constants)} "
                      f"(of {r.constant_counts.get(a64, 0)} / {r.constant_counts.get(a32, 0)})"]
        by_header(lines, r.constants, lambda k: [f"  {k.name}: {show(k.value64)} -> {show(k.value32)}"])
    if r.left_out:
        lines += ["", "== Headers in neither unit"]
        lines += [f"  {h}: {why}" for h, why in r.left_out.items()]
    lines += ["", f"compilers: {r.compilers[a64]} / {r.compilers[a32]}", ""]
    return "\n".join(lines)


def render_html(r: CompatReport) -> str:
    e = html.escape
    rows = "".join(f"<tr><td>{e(t.header or '')}</td><td>{e(t.name)}</td><td>{t.size64}</td><td>{t.size32}</td>"
                   f"<td>{e(cause_text(t.causes))}</td></tr>" for t in r.types)
    io = "".join(f"<tr><td>{e(i.header or '')}</td><td>{e(i.name)}</td><td>0x{i.number64:08x}</td>"
                 f"<td>0x{i.number32:08x}</td><td>{e(i.argument or '')}</td>"
                 f"<td>{e(cause_text(i.argument_causes))}</td></tr>" for i in r.ioctls)
    counts = ", ".join(f"{k} {v}" for k, v in r.cause_counts().items())
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>uapi-check --compat ({e(r.what)})"
            f"</title></head><body><h1>uapi-check --compat: {e(r.arch64.debian)} against {e(r.arch32.debian)}</h1>"
            f"<p>{e(r.what)}</p><p>Informational; it does not say which ioctls have compat handlers.</p>"
            f"<h2>{len(r.types)} types differ ({e(counts)})</h2><table><tr><th>header</th><th>type</th>"
            f"<th>{e(r.arch64.debian)}</th><th>{e(r.arch32.debian)}</th><th>causes</th></tr>{rows}</table>"
            f"<h2>{r.ioctl_counts['differ']} ioctl numbers differ</h2><table><tr><th>header</th><th>ioctl</th>"
            f"<th>{e(r.arch64.debian)}</th><th>{e(r.arch32.debian)}</th><th>argument</th><th>its causes</th></tr>"
            f"{io}</table></body></html>\n")


def compat_items(r: CompatReport):
    """Every difference as a review item (verdict.py): informational, for a person to check each
    one (whether an ioctl has a compat handler is not known here); nothing fails."""
    comp = f"{r.arch64.debian}_{r.arch32.debian}"
    out = [Item(REVIEW, "type", t.name, comp, "compat", t.header, t.line, "review", t.cause_names(),
                [f"{t.name}: {t.size64} -> {t.size32} bytes [{t.status}]: {cause_text(t.causes)}"]) for t in r.types]
    out += [Item(REVIEW, "ioctl", f"ioctl {i.name}", comp, "compat", i.header, None, "review", [],
                 [f"ioctl {i.name}: 0x{i.number64:08x} -> 0x{i.number32:08x}, argument {i.argument or '(none)'}"])
            for i in r.ioctls]
    out += [Item(REVIEW, "constant", f"#define {k.name}", comp, "compat", k.header, None, "review",
                 ["constant-differs"], [f"#define {k.name}: {show(k.value64)} -> {show(k.value32)}"]) for k in r.constants]
    return out


def ci_view(r: CompatReport):
    """What ci.render_sarif and render_junit read of a report."""
    trees = SimpleNamespace(revisions={"after": Revision("after", r.tree, None, [r.tree])}) if r.tree else None
    return SimpleNamespace(what=r.what, mode="compat", verdict="pass", checks=[], trees=trees, arch=r.arch64)


def write_reports(out: str, r: CompatReport):
    write_atomic(os.path.join(out, "report.json"), json.dumps(r.to_json(), indent=1) + "\n")
    write_atomic(os.path.join(out, "report.txt"), render_text(r))
    write_atomic(os.path.join(out, "report.html"), render_html(r))
    its, view = compat_items(r), ci_view(r)
    rules = [(c, "review", CAUSE_TEXT.get(c, c)) for c in (*CAUSES, "constant-differs")]
    write_atomic(os.path.join(out, "report.sarif"), json.dumps(render_sarif(view, rules, its), indent=1) + "\n")
    write_atomic(os.path.join(out, "report.junit.xml"), render_junit(view, its))


def terminal_summary(r: CompatReport) -> str:
    counts = ", ".join(f"{k} {v}" for k, v in r.cause_counts().items())
    return (f"uapi-check --compat: {r.arch64.debian} vs {r.arch32.debian}: {len(r.types)} types differ"
            + (f" ({counts})" if counts else "")
            + f"; {r.ioctl_counts['differ']} of {r.ioctl_counts['compared']} ioctl numbers differ"
            + (f"; {len(r.constants)} #define constants differ" if r.constant_counts else "") + "\n")
