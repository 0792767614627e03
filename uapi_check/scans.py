"""Macro scans kept between runs: a unit's scan (macros.scan) serves the next run whose headers
differ from it in a few files, none of them in its directives.

A scan is two preprocessor passes over a whole UAPI and their parsing: about 0.5 CPU-s per unit,
half of it in Python. A commit that changes a struct, and no #define, #if or #include, leaves
every macro definition, every expansion and every file the unit reads as they were; only the line
numbers after the change move. So a scan is stored per unit (the compiler, its flags and the
headers it includes) with what each file it read looked like:

  its bytes (sha256, and its stat, which spares the hash while the file is the same inode),
  its skeleton: every line that could be, or continue, a directive or a comment (a line with
    # \\ / * " ' ? % or __COUNTER__ in it, and each line after one that ends with a backslash),
  its enumerator candidates (macros._assignments: NAME and EXPR, not lines).

Another run of the same unit reuses the stored scan when the include dir holds the same header
names and every file the scan read has the same bytes, or the same skeleton and the same
candidates. Lines a changed file's text did not keep in its skeleton hold no directive and start
no comment: the preprocessor defines the same macros from it, with the same expansions. Only
the line numbers of that file's definitions and candidates are taken again from its new text (the
k-th `#define NAME` of a file is the k-th again, as the skeleton is the same). Anything else
(another file name, a directive changed, a candidate changed, a definition whose line the text
does not show as `#define NAME`) is a new scan, stored in its turn. Nothing is reused under
--full. tests/python/test_scans.py compares reused scans with new ones.
"""
import hashlib
import json
import os
import re

from . import macros
from .trees import list_headers
from .util import file_stamp, write_atomic

_VERSION = "scan-store-2"   # 2: the probe keeps _IOC's four arguments
_KEEP = 4           # entries per unit: the last commits' scans
_MAX_CHANGED = 16   # files that differ from an entry, beyond which it is not tried
# A line with one of those characters, and the lines its backslashes continue it into (after
# _SPACED: gcc also continues a line whose backslash blanks or a CR follow).
_SKELETON = re.compile(r"^[^\n]*?(?:[#\\/*\"'?%]|__COUNTER__)[^\n]*(?:(?<=\\)\n[^\n]*)*", re.M)
_SPACED = re.compile(r"\\[ \t\r]+\n")
_DEFINE = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_DEFINED_WORD = re.compile(r"define[ \t]+([A-Za-z_][A-Za-z0-9_]*)")   # a superset of every spelling


def skeleton_digest(text):
    """A digest of the lines of text that may be, or continue, a directive or a comment (one
    regular expression over the text: a UAPI has 200,000 lines)."""
    if "\\ " in text or "\\\t" in text or "\\\r" in text:
        text = _SPACED.sub("\\\n", text)
    return hashlib.sha256("\n".join(_SKELETON.findall(text)).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def assignments_digest(data):
    """A digest of a file's enumerator candidates (macros._assignments of its bytes), their
    lines aside."""
    return hashlib.sha256(json.dumps([[n, e] for n, _, e in macros.assignments_of(data)]).encode()).hexdigest()[:32]


def _define_lines(text):
    """{name: [line of each `#define NAME` that starts a line of text (after blanks)]}."""
    lines, line, pos = {}, 1, 0
    for m in _DEFINE.finditer(text):
        start = m.start()
        if text[text.rfind("\n", 0, start) + 1:start].strip(" \t"):
            continue
        line += text.count("\n", pos, start)
        pos = start
        lines.setdefault(m.group(1), []).append(line)
    return lines


def _listing(include_dir):
    """A digest of the names of the headers under include_dir: a new one could take an include
    that a system header answered (trees.list_headers: the run wrote the folder and knows them)."""
    return hashlib.sha256("\0".join(list_headers(include_dir)).encode()).hexdigest()[:32]


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _text(data):
    return data.decode(errors="replace")


class Store:
    """The scans of a cache folder. idents: {compiler path: its identity}; a scan of another
    compiler is neither read nor kept. read: False under --full (scans are still kept). keep:
    the include dirs whose new scans are kept (None: all). A run keeps its after side's: the
    next commit's before side is this one's after, and its results are cached; keeping a
    whole-UAPI scan costs about a fifth of a second."""

    def __init__(self, root, idents, read=True, keep=None):
        self.root, self.idents, self.read = root, dict(idents), read
        self.keep = None if keep is None else {os.path.realpath(k) for k in keep}
        self._known = {}    # (unit dir, include dir) -> {file: record} load() found: save() reuses them

    def _unit_dir(self, cc, headers, flags):
        """The folder of a unit's entries; None for a compiler not in idents, and for a unit of
        one header (step 3b's: its scan costs less than checking an entry's thousand files)."""
        ident = self.idents.get(cc)
        if ident is None or len(headers) < 2:
            return None
        h = hashlib.sha256(json.dumps([_VERSION, ident, list(flags), list(headers)], sort_keys=True).encode())
        return os.path.join(self.root, "scans", h.hexdigest()[:24])

    def load(self, cc, include_dir, headers, flags):
        """The stored scan of this unit for include_dir's files, remapped where it must be; None
        when there is none to reuse."""
        d = self._unit_dir(cc, headers, flags)
        if d is None or not self.read or not os.path.isdir(d):
            return None
        try:
            listing = _listing(include_dir)
            for key in _entries(d)[:_KEEP]:
                with open(os.path.join(d, key + ".files.json")) as f:
                    meta = json.load(f)
                if meta["listing"] != listing:
                    continue
                now, changed = self._compare(include_dir, meta["files"])
                if now is None:
                    continue
                self._known[d, include_dir] = now
                got = self._reuse(d, key, include_dir, meta, now, changed)
                if got is not None:
                    return got
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None     # an entry another version or a crash left: a new scan
        return None

    @staticmethod
    def _compare(include_dir, files):
        """({file: its record now}, [files whose bytes differ]); (None, None) when a file is gone
        or too many differ."""
        now, changed = {}, []
        for rel, rec in files.items():
            path = os.path.join(include_dir, rel)
            try:
                stamp = list(file_stamp(path))
            except OSError:
                return None, None
            if stamp == rec[3:]:
                now[rel] = rec
                continue
            data = _read(path)
            sha = hashlib.sha256(data).hexdigest()
            if sha == rec[0]:
                now[rel] = rec[:3] + stamp
                continue
            changed.append(rel)
            if len(changed) > _MAX_CHANGED:
                return None, None
            text = _text(data)
            now[rel] = [sha, skeleton_digest(text), assignments_digest(data), *stamp]
        return now, changed

    def _reuse(self, d, key, include_dir, meta, now, changed):
        """The entry's scan with the line numbers of changed files' definitions and candidates
        taken from their text; None when a changed file's skeleton or candidates differ, or a
        definition's line cannot be found. Files that differ from the entry are compared again
        each run (a few, one hash and skeleton each), so the entry itself stays as it is."""
        for rel in changed:
            if now[rel][1:3] != meta["files"][rel][1:3]:
                return None     # a directive or a candidate changed
        with open(os.path.join(d, key + ".scan.json")) as f:
            stored = json.load(f)
        sc = _scan_of(stored)
        dup = stored["dup"]
        defined, proposed = {rel: [] for rel in changed}, {rel: [] for rel in changed}
        for name, (h, _) in sc.defs.items():
            if h in defined:
                defined[h].append(name)
        for name, (h, _, _) in sc.enums.items():
            if h in proposed:
                proposed[h].append(name)
        for rel in changed:
            data = _read(os.path.join(include_dir, rel))
            lines = _define_lines(_text(data))
            for name in defined[rel]:
                k, at = dup.get(name, 0), lines.get(name, ())
                if k < 0 or k >= len(at):
                    return None
                sc.defs[name] = (rel, at[k])
            first = {}
            for name, line, _ in macros.assignments_of(data):
                first.setdefault(name, line)
            for name in proposed[rel]:
                sc.enums[name] = (rel, first[name], sc.enums[name][2])
        if not changed and now != meta["files"]:
            meta["files"] = now     # new stats: the next run need not hash these files
            write_atomic(os.path.join(d, key + ".files.json"), json.dumps(meta))
        sc.origin = (_entry_id(d, key), {rel: now[rel][0] for rel in sorted(changed)})
        return sc

    def save(self, cc, include_dir, headers, flags, sc):
        """Keep a new scan of this unit (a failure to write only costs the next run a scan).
        Returns the entry's id (Scan.origin), or None when none is kept."""
        d = self._unit_dir(cc, headers, flags)
        if d is None or self.keep is not None and os.path.realpath(include_dir) not in self.keep:
            return None
        files, dup = {}, {}
        known = self._known.pop((d, include_dir), {})
        try:
            digests = _known_digests(d)
            for rel in sc.files:
                path = os.path.join(include_dir, rel)
                data = _read(path)
                text = _text(data)
                if rel in known:    # load() compared it with an entry: its record is now's
                    files[rel] = known[rel]
                else:
                    sha = hashlib.sha256(data).hexdigest()
                    files[rel] = [sha, *(digests.get(sha) or (skeleton_digest(text), assignments_digest(data))),
                                  *file_stamp(path)]
                # Which `#define NAME` of its file a definition is, for a name the file spells so
                # more than once (a name with no such line is not remapped: the next run scans
                # again if its file changes).
                names = _DEFINED_WORD.findall(text)
                if len(names) != len(set(names)):
                    for name, at in _define_lines(text).items():
                        v = sc.defs.get(name)
                        if v and v[0] == rel and v[1] != at[0]:
                            dup[name] = at.index(v[1]) if v[1] in at else -1
            listing = _listing(include_dir)
            key = hashlib.sha256(json.dumps([listing, sorted((r, v[0]) for r, v in files.items())])
                                 .encode()).hexdigest()[:24]
            data = {"defs": sc.defs, "function_like": sc.function_like, "files": sc.files,
                    "expansions": sc.expansions, "enums": sc.enums, "enum_expansions": sc.enum_expansions,
                    "dup": dup}
            # The scan first: an entry is listed by its .files.json.
            write_atomic(os.path.join(d, key + ".scan.json"), json.dumps(data, separators=(",", ":")))
            write_atomic(os.path.join(d, key + ".files.json"),
                         json.dumps({"listing": listing, "files": files}))
            _prune(d)
        except OSError:
            return None
        return _entry_id(d, key)


def _entry_id(d, key):
    """An entry's id: its unit's folder and its key (which the bytes of the files it read decide)."""
    return f"{os.path.basename(d)}/{key}"


def _known_digests(d):
    """{sha256: [skeleton, candidates]} of the files the unit's entries name: a file's bytes
    decide both, and most files are those of the entry before (a scan under --full, or after a
    directive changed, computes them for the files that changed only)."""
    known = {}
    try:
        keys = _entries(d)
    except OSError:
        return known
    for key in keys:
        try:
            with open(os.path.join(d, key + ".files.json")) as f:
                for rec in json.load(f)["files"].values():
                    known[rec[0]] = rec[1:3]
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            continue
    return known


def _scan_of(stored):
    return macros.Scan({n: tuple(v) for n, v in stored["defs"].items()}, stored["function_like"], stored["files"],
                       stored["expansions"], {n: tuple(v) for n, v in stored["enums"].items()},
                       stored["enum_expansions"])


def _entries(d):
    """The keys of a unit's entries, newest first (an entry is listed by its .files.json)."""
    names = [e for e in os.listdir(d) if e.endswith(".files.json")]
    return [e[:-len(".files.json")] for e in
            sorted(names, key=lambda e: os.stat(os.path.join(d, e)).st_mtime_ns, reverse=True)]


def _prune(d):
    """The newest _KEEP entries of a unit stay."""
    for key in _entries(d)[_KEEP:]:
        for suffix in (".files.json", ".scan.json"):
            try:
                os.unlink(os.path.join(d, key + suffix))
            except OSError:
                pass
