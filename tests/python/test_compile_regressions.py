"""A header that compiled alone before and fails after breaks a drift check (--old/--new) as it
does a --git one, and every output names it: report.txt's first screen, SARIF, JUnit and HTML.
A header that already failed, or that is new, is not the drift's fault."""
import types

from uapi_check import screen, verdict
from uapi_check.judge import evaluate_checks
from uapi_check.model import Headers, RevHeaders


def headers(before_ok, before_failed, after_failed):
    def rev(ok, failed):
        tested = sorted(set(ok) | set(failed))
        return RevHeaders(tested, {}, [], {"c": {}, "cxx": dict(failed)}, {"c": tested, "cxx": sorted(ok)},
                          {"c": [], "cxx": []})
    return Headers({"before": rev(before_ok, before_failed), "after": rev([], after_failed)}, False)


ERR = "linux/a.h:3:1: error: invalid conversion from 'void*' to 'int*'"


def checks():
    h = headers(["linux/a.h", "linux/b.h"], {"linux/old.h": "error: was broken"},
                {"linux/a.h": ERR, "linux/old.h": "error: was broken", "linux/new.h": "error: new"})
    return {c.check: c for c in evaluate_checks("drift", h, {})}


def test_drift_fails_on_a_header_that_stopped_compiling():
    c = checks()
    assert not c["cxx-headers-compile"].passed
    assert [(f.header, f.error) for f in c["cxx-headers-compile"].failures] == [("linux/a.h", ERR)]
    assert c["c-headers-compile"].passed and c["drift"].passed


def test_every_output_names_it():
    """report.txt's first screen names it; the verdict items (which SARIF, JUnit and HTML render:
    test_ci_reports.py) have it as a failing finding."""
    cs = list(checks().values())
    report = types.SimpleNamespace(checks=cs, comparisons={})
    lines = screen.compile_lines(report)
    assert lines[0] == "Headers that stopped compiling alone in C++: 1" and ERR in lines[1]
    [item] = verdict.items(report)
    assert (item.outcome, item.kind, item.name, item.check) == ("fail", "header", "linux/a.h", "cxx-headers-compile")
    assert ERR in item.texts[0]
    assert verdict.tally([item])["compile"] == 1
