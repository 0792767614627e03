"""report.html (html.py), from hand-written tool outputs (fixtures/drift*.json, cross.json),
loaded from disk by headless Chromium (Debian's chromium: scripts/install-deps browser); the
findings are checked in the DOM the browser dumps, not in the string the writer returned."""
import os
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest

from conftest import ROOT, judged, tool_json
from uapi_check import html
from uapi_check.model import CheckResult, HeaderChange

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


def report():
    c = judged("c-before_c-after", "drift", "drift.json")
    cxx = judged("cxx-before_cxx-after", "drift", "drift-cxx.json")
    cross = judged("c-after_cxx-after", "cross", "cross.json")
    comps = {c.name: c, cxx.name: cxx, cross.name: cross}
    return SimpleNamespace(
        comparisons=comps, header_changes=[HeaderChange("linux/gone.h"), HeaderChange("linux/old.h", "asm-generic/old.h")],
        waivers=[], verdict="fail", what="linux-6.1 -> linux-6.12 (fixtures)",
        summary=[("headers installed (before/after)", "3 / 2")],
        checks=[CheckResult("drift", "no break between the releases", [object()] * 5)],
        size_differences={"c-after_cxx-after": [{"type": "struct empty", "file": "linux/e.h", "c": 0, "cxx": 1}]},
        layouts={("c-before_c-after", v["name"]): v for v in tool_json("show-kvm_run.json")["types"]})


def chromium():
    path = shutil.which("chromium")
    assert path, "chromium is not installed: scripts/install-deps browser"
    return path


def browser(args, page):
    profile = tempfile.mkdtemp(prefix="uapi-check-chromium.")
    try:
        p = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, f"file://{page}"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


class Dom(HTMLParser):
    """The parts of the dumped DOM the tests look at: finding blocks, highlighted cells, ids."""

    def __init__(self):
        super().__init__()
        self.findings, self.cells, self.ids, self.tags = [], [], set(), set()
        self.stack = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if a.get("id"):
            self.ids.add(a["id"])
        cls = a.get("class") or ""
        if tag == "div" and cls.startswith("finding"):
            self.findings.append({"class": cls, "type": a.get("data-type"), "text": ""})
        if tag == "td" and cls:
            self.cells.append([cls, ""])
        self.stack.append((tag, cls))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        self.text.append(data)
        if self.findings and any(t == "div" and c.startswith("finding") for t, c in self.stack):
            self.findings[-1]["text"] += data
        if self.stack and self.stack[-1][0] == "td" and self.stack[-1][1] and self.cells:
            self.cells[-1][1] += data


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(html.render_html(report()))
    return str(path)


def test_the_browser_shows_every_finding_with_its_layouts(page):
    dom = Dom()
    dom.feed(browser(["--dump-dom"], page))
    assert "script" not in dom.tags and "link" not in dom.tags      # self-contained
    breaks = [f for f in dom.findings if f["class"] == "finding break"]
    reviews = [f for f in dom.findings if f["class"] == "finding review"]
    names = {f["type"] for f in breaks}
    assert {"struct kvm_run", "struct cxx_only", "enum {KVM_STAT_A}"} <= names
    gone = [f for f in dom.findings if f["class"] == "finding break gone"]      # one block per removed header
    assert len(gone) == 1 and "linux/gone.h removed: 2 types" in gone[0]["text"]
    assert "struct gone," in gone[0]["text"] and "struct gone_too" in gone[0]["text"]
    assert not names & {"struct gone", "struct gone_too"}
    assert "struct clone_args" in {f["type"] for f in reviews}
    assert not names & {f["type"] for f in reviews}
    kvm = next(f for f in breaks if f["type"] == "struct kvm_run")
    assert "member u.p.x: offset 8 -> 12" in kvm["text"]
    assert "/* 8 4 */" in kvm["text"] and "/* 12 4 */" in kvm["text"]
    assert ["moved", "__u32 x; /* 8 4 */"] in [[c, t.strip()] for c, t in dom.cells]
    assert ["moved", "__u32 x; /* 12 4 */"] in [[c, t.strip()] for c, t in dom.cells]
    assert any(c == "added" and "cgroup" in t for c, t in dom.cells)         # clone_args grew
    assert ["changed", "KVM_STAT_B = 37,"] in [[c, t.strip()] for c, t in dom.cells]
    text = "".join(dom.text)
    assert text.index("Summary") < text.index("Breaks") < text.index("Review") < text.index("C versus C++") \
        < text.index("Drift")
    assert "struct empty" in text and "moved to asm-generic/old.h" in text
    assert {"summary", "breaks", "review", "cxx", "drift", "verdict"} <= dom.ids


def test_screenshot_for_the_readme(page, tmp_path):
    shot = tmp_path / "report.png"
    browser([f"--screenshot={shot}", "--window-size=1280,900", "--hide-scrollbars"], page)
    with open(shot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    # UAPI_CHECK_SCREENSHOT=$PWD/docs/report-html.png refreshes the screenshot in docs/reports.md.
    if os.environ.get("UAPI_CHECK_SCREENSHOT"):
        shutil.copy(shot, os.environ["UAPI_CHECK_SCREENSHOT"])


def test_row_classes():
    assert html.row_class("\t__u32 x; /* 8 4 */", "\t__u32 x; /* 12 4 */", "old") == "moved"
    assert html.row_class("\t__u32 x; /* 8 4 */", "\t__u64 x; /* 8 8 */", "new") == "resized"
    assert html.row_class("", "\t__u64 c; /* 80 8 */", "new") == "added"
    assert html.row_class("\t__u64 c; /* 80 8 */", "", "old") == "removed"
    assert html.row_class("\t__u64 c; /* 80 8 */", "", "new") == "blank"


class Boxes(HTMLParser):
    """The drawings' boxes in the dumped DOM: their data attributes and placement."""

    def __init__(self):
        super().__init__()
        self.drawings, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.ids.add(a.get("id"))
        cls = (a.get("class") or "").split()
        if "drawing" in cls:
            self.drawings.append({"type": a.get("data-type"), "span": int(a["data-span"]), "boxes": []})
        elif "box" in cls and self.drawings:
            style = dict(x.split(":") for x in a["style"].rstrip(";").split(";"))
            self.drawings[-1]["boxes"].append(dict(
                cls=cls, side=a["data-side"], path=a["data-path"], offset=int(a["data-offset"]),
                size=int(a["data-size"]), left=float(style["left"].rstrip("%")), width=float(style["width"].rstrip("%"))))


def test_each_drawing_places_its_boxes_at_the_findings_offsets(page):
    """In the DOM Chromium builds: each member a finding names is a box on each side at the
    finding's old and new offset and size, placed at offset/size in percent of the drawing's span;
    holes are shaded boxes; the moved member is marked."""
    dom = Boxes()
    dom.feed(browser(["--dump-dom"], page))
    assert {"toc", "filters", "collisions", "fail-alone", "series-cxx"} <= dom.ids
    r = report()
    drawn = {d["type"]: d for d in dom.drawings}
    checked = 0
    for comp in r.comparisons.values():
        for f in comp.findings:
            c = f.change or {}
            if (comp.name, f.type) not in r.layouts or c.get("change") != "member":
                continue
            d = drawn[f.type]
            for side, m in (("a", c["old"]), ("b", c["new"])):
                box = next(b for b in d["boxes"] if b["side"] == side and b["path"] == c["member"])
                assert (box["offset"], box["size"]) == (m["offset"], m["size"])
                assert abs(box["left"] - 100.0 * m["offset"] / d["span"]) < 0.01
                assert abs(box["width"] - 100.0 * m["size"] / d["span"]) < 0.01
                assert "moved" in box["cls"]
                checked += 1
    assert checked == 2
    holes = [b for b in drawn["struct kvm_run"]["boxes"] if "hole" in b["cls"]]
    assert [(b["side"], b["offset"], b["size"]) for b in holes] == [("a", 1, 7), ("b", 1, 7)]
