import pytest

from uapi_check import env
from uapi_check.model import Options
from uapi_check.util import Fatal


def opts(**kw):
    base = dict(kernel="6.1", patches=None, old=None, new=None, out="/tmp/o", jobs=1, quiet=True)
    base.update(kw)
    return Options(**base)


def test_install_groups():
    assert env.install_groups(opts()) == ["main"]
    assert env.install_groups(opts(kernel="6.12")) == ["tool", "kernel", "src-6.12"]
    assert env.install_groups(opts(old="6.1", new="6.12")) == ["tool", "kernel", "src-6.1", "src-6.12"]
    assert env.install_groups(opts(old="/", new="/")) == ["tool", "kernel"]


def test_missing_packages_named_with_the_command(monkeypatch):
    calls = []

    def fake_run(cmd, **kw):
        calls.append(cmd)
        return 1, "make flex\n", ""
    monkeypatch.setattr(env, "run", fake_run)
    monkeypatch.setattr(env.os.path, "isfile", lambda p: False)
    with pytest.raises(Fatal) as e:
        env.check_packages(opts(kernel="6.12"))
    assert str(e.value) == ("missing packages: make flex linux-source-6.12 "
                            "(install them with: scripts/install-deps tool kernel src-6.12)")
    assert calls == [[env.INSTALL_DEPS, "--check", "tool", "kernel"]]
    with pytest.raises(Fatal, match=r"install them with: scripts/install-deps main\)$"):
        env.check_packages(opts())


def test_nothing_missing(monkeypatch):
    monkeypatch.setattr(env, "run", lambda cmd, **kw: (0, "", ""))
    monkeypatch.setattr(env.os.path, "isfile", lambda p: True)
    env.check_packages(opts())


def test_install_deps_check_runs_for_real():
    # The real script: an unknown group is an error, never an apt-get run.
    with pytest.raises(Fatal, match="unknown group 'nosuchgroup'"):
        env.missing_packages(["nosuchgroup"], [])


def test_missing_compiler():
    with pytest.raises(Fatal, match=r"C\+\+ compiler '/nonexistent/g\+\+' not found"):
        env.find_compilers({"CXX": "/nonexistent/g++"})
    with pytest.raises(Fatal, match=r"^C compiler 'no-such-cc' not found \(install it, or name another with CC=...\)$"):
        env.find_compilers({"CC": "no-such-cc"})


def test_passed_package_check_is_remembered_until_dpkg_changes(monkeypatch, tmp_path):
    status = tmp_path / "status"
    status.write_text("Package: a\n")
    monkeypatch.setattr(env, "DPKG_STATUS", str(status))
    calls = []

    def fake_run(cmd, **kw):
        calls.append(cmd)
        return (0, "", "") if len(calls) < 3 else (1, "make\n", "")
    monkeypatch.setattr(env, "run", fake_run)
    assert env.missing_packages(["tool"], []) == []
    assert env.missing_packages(["tool"], []) == []
    assert len(calls) == 1                      # the second check read the stamp
    assert env.missing_packages(["tool", "kernel"], []) == []
    assert len(calls) == 2                      # other groups: checked again
    status.write_text("Package: a\nPackage: b\n")   # an install or removal rewrites the file
    assert env.missing_packages(["tool"], []) == ["make"]
    assert env.missing_packages(["tool"], []) == ["make"]
    assert len(calls) == 4                      # a failed check is never remembered


def test_cache_and_trees_dirs_are_absolute_when_given_relative(tmp_path, monkeypatch):
    """The compilers that write into the cache run in other directories: a relative
    ABIDIFF_UAPI_CACHE or ABIDIFF_UAPI_TREES is taken from the directory the run started in."""
    from uapi_check import config, trees
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", "rel/cache")
    monkeypatch.setenv("ABIDIFF_UAPI_TREES", "rel/trees")
    assert config.cache_dir() == str(tmp_path / "rel" / "cache")
    assert trees.trees_dir() == str(tmp_path / "rel" / "trees")
