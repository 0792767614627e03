#!/usr/bin/env python3
"""doc-links.py [ROOT]: every relative link and image in the project's Markdown files points to a
file that exists, and every #anchor to a heading of its target page (GitHub's heading ids);
README.md's two commands are the ones .ci/run runs, in the same order; and docs/severities.md's
table of reasons has exactly the reasons of abidiff-uapi/conventions.c, each with its severity.

The Markdown is parsed with markdown-it-py (Debian's python3-markdown-it), so links inside code
spans and code blocks are not links, as on GitHub. One line per bad link, FILE:LINE: reason;
exit 1 when any is bad, 2 when it cannot run."""
import os
import re
import sys

try:
    from markdown_it import MarkdownIt
except ImportError:
    print("doc-links: python3-markdown-it is missing (scripts/install-deps test installs it)")
    sys.exit(2)

SKIP_DIRS = {".git", "build", "node_modules"}
MD = MarkdownIt("commonmark").enable("table")


def markdown_files(root):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")
                         and not d.startswith("."))
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(top, f)


def slug(text):
    """GitHub's id for a heading: lower case, punctuation other than - and _ dropped, each space
    a hyphen."""
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def heading_text(inline):
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))


class Page:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.tokens = MD.parse(f.read())
        self.anchors = set()
        seen = {}
        for i, t in enumerate(self.tokens):
            if t.type == "heading_open":
                s = slug(heading_text(self.tokens[i + 1]))
                n = seen.get(s, 0)
                seen[s] = n + 1
                self.anchors.add(s if n == 0 else f"{s}-{n}")

    def links(self):
        """(line, target) of every link and image."""
        for t in self.tokens:
            if t.type != "inline":
                continue
            line = t.map[0] + 1 if t.map else 0
            for c in t.children or []:
                if c.type == "link_open":
                    yield line, c.attrs.get("href", "")
                elif c.type == "image":
                    yield line, c.attrs.get("src", "")


def check_links(root):
    pages, bad, count = {}, [], 0

    def page(path):
        if path not in pages:
            pages[path] = Page(path)
        return pages[path]

    files = list(markdown_files(root))
    for path in files:
        rel = os.path.relpath(path, root)
        for line, target in page(path).links():
            count += 1
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):   # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if os.path.relpath(dest, root).split(os.sep)[0] == "..":
                bad.append(f"{rel}:{line}: link {target}: outside the project")
            elif not os.path.exists(dest):
                bad.append(f"{rel}:{line}: link {target}: no such file")
            elif anchor and dest.endswith(".md") and anchor not in page(dest).anchors:
                bad.append(f"{rel}:{line}: link {target}: {os.path.relpath(dest, root)} has no heading #{anchor}")
    return files, count, bad


def readme_commands(root):
    """The code lines under README.md's "The two commands" heading, before the next heading."""
    tokens = Page(os.path.join(root, "README.md")).tokens
    out, inside = [], False
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            inside = heading_text(tokens[i + 1]) == "The two commands"
        elif inside and t.type in ("code_block", "fence"):
            out += [l.strip() for l in t.content.splitlines() if l.strip()]
    return out


def ci_commands(root):
    """The commands .ci/run runs (not set, cd, comments), `exec` dropped."""
    out = []
    with open(os.path.join(root, ".ci", "run")) as f:
        for l in f:
            l = l.strip()
            if not l or l.startswith("#") or l.startswith("set ") or l.startswith("cd "):
                continue
            out.append(l[len("exec "):] if l.startswith("exec ") else l)
    return out


def reasons_in_code(root):
    """(severity, reason) of each row of conventions.c's table."""
    with open(os.path.join(root, "abidiff-uapi", "conventions.c")) as f:
        rows = re.findall(r'\[REASON_\w+\] = \{ "([a-z0-9-]+)", SEVERITY_([A-Z]+)', f.read())
    return {(sev.lower(), name) for name, sev in rows}


def reasons_in_doc(root):
    """(severity, reason) of each row of docs/severities.md's table (| break | `moved` | ... |)."""
    with open(os.path.join(root, "docs", "severities.md")) as f:
        return set(re.findall(r"^\| (break|review|safe) \| `([a-z0-9-]+)` \|", f.read(), re.M))


def main(argv):
    root = os.path.abspath(argv[0] if argv else os.path.join(os.path.dirname(__file__), ".."))
    if not os.path.isfile(os.path.join(root, "README.md")):
        print(f"doc-links: {root}: no README.md (not the project's top directory)")
        return 2
    files, count, bad = check_links(root)
    readme, ci = readme_commands(root), ci_commands(root)
    # The README's first two commands are the two that CI runs; a third (the fast suites, without
    # root) may follow.
    if readme[:2] != ci:
        bad.append(f"README.md: the two commands {readme[:2]} are not .ci/run's {ci}")
    code, doc = reasons_in_code(root), reasons_in_doc(root)
    if not code:
        bad.append("abidiff-uapi/conventions.c: no table of reasons found")
    for sev, name in sorted(code - doc):
        bad.append(f"docs/severities.md: the table lacks {sev} `{name}` (abidiff-uapi/conventions.c)")
    for sev, name in sorted(doc - code):
        bad.append(f"docs/severities.md: the table has {sev} `{name}`, which conventions.c does not")
    for b in bad:
        print(b)
    print(f"doc-links: {len(files)} Markdown files, {count} links, README's two commands against "
          f".ci/run, {len(code)} reasons against docs/severities.md: "
          + (f"{len(bad)} bad" if bad else "all good"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
