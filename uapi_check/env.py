"""Step 0: what a run needs. It installs nothing: a missing package is named, with the command
that installs it (scripts/install-deps), and the run stops with exit 2."""
import json
import os
import re
import shutil

from .arch import ARCHES, DEFAULT as DEFAULT_ARCH, compiler_commands, compiler_variable
from .config import INSTALLED, LANG_NAME, ROOT, TOOL, cache_dir
from .model import Compiler
from .util import Fatal, read_text, run, run_or_die, write_atomic

INSTALL_DEPS = os.path.join(ROOT, "scripts", "install-deps")


def source_versions(opts):
    """Debian linux-source versions the run extracts (a directory needs none)."""
    if getattr(opts, "git", None):
        return []       # revisions of a git repository
    specs = [opts.old, opts.new] if opts.drift else [opts.kernel]
    return [s for s in specs if not os.path.isdir(s) and re.fullmatch(r"\d+\.\d+", s)]


def install_groups(opts):
    """The install-deps groups of this run: `main` for the default job, plus the cross toolchain
    of a non-default architecture (cross-ARCH)."""
    versions = source_versions(opts)
    arches = [getattr(opts, "arch", None), getattr(opts, "compat", None)]
    cross = [a.group for a in arches if a is not None and a.group]
    if versions == ["6.1"]:
        return ["main"] + cross
    return ["tool", "kernel"] + [f"src-{v}" for v in sorted(set(versions))] + cross


DPKG_STATUS = "/var/lib/dpkg/status"


def _packages_stamp(groups):
    """What a passed install-deps --check depends on: the groups, the script, and dpkg's status
    file (every install and removal rewrites it). None when either file cannot be read."""
    try:
        parts = [groups]
        for path in (DPKG_STATUS, INSTALL_DEPS):
            st = os.stat(path)
            parts.append([path, st.st_ino, st.st_size, st.st_mtime_ns])
    except OSError:
        return None
    return json.dumps(parts)


def missing_packages(groups, tarballs=None):
    """Debian packages of the groups that are not installed (install-deps --check), plus the
    linux-source packages whose tarball is absent from /usr/src. A check that found nothing
    missing is remembered until dpkg's status changes (it costs dpkg-query, about 0.6 s)."""
    checked = [g for g in groups if not g.startswith("src-")]
    stamp, stamp_file = _packages_stamp(checked), os.path.join(cache_dir(), "packages-checked")
    if stamp is not None and read_text(stamp_file) == stamp:
        rc, out = 0, ""
    else:
        rc, out, err = run([INSTALL_DEPS, "--check", *checked])
        if rc not in (0, 1):
            raise Fatal("scripts/install-deps --check: " + (err.strip().splitlines() or [f"exit {rc}"])[-1])
        if rc == 0 and stamp is not None:
            try:
                write_atomic(stamp_file, stamp)
            except OSError:
                pass    # a cache that cannot be written only costs the check next time
    missing = out.split() if rc == 1 else []
    for v in tarballs if tarballs is not None else [g[4:] for g in groups if g.startswith("src-")]:
        if not os.path.isfile(f"/usr/src/linux-source-{v}.tar.xz"):
            missing.append(f"linux-source-{v}")
    return missing


def check_packages(opts):
    versions = source_versions(opts)
    groups = install_groups(opts)
    missing = missing_packages(groups, versions)
    if missing:
        for v in versions:
            if f"linux-source-{v}" in missing and f"src-{v}" not in groups and "main" not in groups:
                groups.append(f"src-{v}")
        raise Fatal(f"missing packages: {' '.join(missing)} "
                    f"(install them with: scripts/install-deps {' '.join(groups)})")


def find_compilers(environ=None, arch=None):
    """The C and C++ compilers: CC and CXX (default gcc and g++) for amd64, the architecture's
    cross compilers for the others (arch.compiler_commands)."""
    environ = os.environ if environ is None else environ
    arch = arch or ARCHES[DEFAULT_ARCH]
    commands = compiler_commands(arch, environ)
    compilers = {}
    for lang in ("c", "cxx"):
        name, var = commands[lang], compiler_variable(arch, lang)
        path = shutil.which(name)
        if not path:
            hint = f"scripts/install-deps {arch.group}, or " if arch.group else "install it, or "
            where = "" if arch.default else f" for {arch.debian}"
            raise Fatal(f"{LANG_NAME[lang]} compiler '{name}'{where} not found "
                        f"({hint}name another with {var}=...)")
        version = run([path, "--version"])[1].splitlines()
        compilers[lang] = Compiler(lang, path, version[0] if version else "?")
    return compilers


def check_environment(opts):
    """Everything the run needs is there: packages, the linux-source tarballs, compilers."""
    check_packages(opts)
    return find_compilers(arch=opts.arch)


def ensure_tool(progress):
    """abidiff-uapi: ABIDIFF_UAPI_TOOL, or built with meson when missing or stale."""
    if os.environ.get("ABIDIFF_UAPI_TOOL"):
        return os.environ["ABIDIFF_UAPI_TOOL"]
    if INSTALLED:
        if not os.access(TOOL, os.X_OK):
            raise Fatal(f"{TOOL}: not installed")
        return TOOL
    build = os.path.join(ROOT, "build")
    if not os.path.exists(os.path.join(build, "build.ninja")):
        progress.step("configuring the abidiff-uapi build (meson setup build)")
        run_or_die(["meson", "setup", build], "meson setup", cwd=ROOT)
    progress.step("building abidiff-uapi (meson compile -C build)")
    # ninja itself when it is there (meson's own backend): the same build, without meson's
    # start-up (0.35 s of a warm one-commit check that has nothing to build).
    if shutil.which("ninja"):
        run_or_die(["ninja", "-C", build, "abidiff-uapi/abidiff-uapi"], "ninja", cwd=ROOT)
    else:
        run_or_die(["meson", "compile", "-C", build, "abidiff-uapi/abidiff-uapi"], "meson compile", cwd=ROOT)
    if not os.access(TOOL, os.X_OK):
        raise Fatal(f"{TOOL}: not built")
    return TOOL
