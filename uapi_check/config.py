"""Fixed settings of a run: where things live, the compiler flags, the languages."""
import os

# The folder that holds the package and its data (patches/, scripts/): the top of a checkout, or,
# installed (meson install, the .deb), DATADIR/abidiff-uapi, where the tool is the installed one.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALLED = not os.path.isfile(os.path.join(ROOT, "meson.build"))
if INSTALLED:
    TOOL = os.path.join(os.path.dirname(os.path.dirname(ROOT)), "bin", "abidiff-uapi")
    # What a run writes: ~/.cache/abidiff-uapi (XDG_CACHE_HOME); reports default to ./uapi-check/.
    STATE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "abidiff-uapi")
    OUT = os.path.abspath("uapi-check")
else:
    TOOL = os.path.join(ROOT, "build", "abidiff-uapi", "abidiff-uapi")
    STATE = os.path.join(ROOT, "build")
    OUT = os.path.join(STATE, "uapi-check")
# Architectures (ARCH=, SRCARCH, cross compilers): arch.py.

# The Debian linux-source versions the project knows: a patch series each (patches/linux-V) and an
# install group (scripts/install-deps src-V). Any other kernel is given as a tree (--old/--new DIR).
KNOWN_KERNELS = ("6.1", "6.12")

# Flags of the kernel's own header test (usr/include/Makefile), and of upstream's C++ header test.
C_ALONE_FLAGS = ["-std=c90", "-Wall", "-Werror=implicit-function-declaration"]
CXX_ALONE_FLAGS = ["-std=c++98", "-Wall"]
# The all-headers units are compiled as a real consumer would: GNU dialects, glibc first-class.
UNIT_FLAGS = {"c": ["-std=gnu11"], "cxx": ["-std=gnu++17"]}
DEBUG_FLAGS = ["-g", "-fno-eliminate-unused-debug-types"]


def add_flags(extra):
    """--cflags: extra flags for every compile of the run, C and C++, alone and in units. The
    lists above are extended in place, so every step and every cache key sees them."""
    for flags in (C_ALONE_FLAGS, CXX_ALONE_FLAGS, UNIT_FLAGS["c"], UNIT_FLAGS["cxx"]):
        flags.extend(extra)
LANGS = ("c", "cxx")
LANG_NAME = {"c": "C", "cxx": "C++"}
REVS = ("before", "after")

# Statuses the tool reports, in a fixed order for tables.
STATUSES = ("changed", "removed", "renamed", "aliased", "added", "extended")


def cache_dir():
    """The cache shared by runs (installed headers, per-header compile results). Absolute: the
    compilers that write into it run in other directories (a relative ABIDIFF_UAPI_CACHE made the
    constants step fail with "No such file or directory")."""
    return os.path.abspath(os.environ.get("ABIDIFF_UAPI_CACHE") or os.path.join(STATE, "uapi-check", "cache"))


def unit_key(lang, rev):
    """The name of a unit: c-before, cxx-after..."""
    return f"{lang}-{rev}"
