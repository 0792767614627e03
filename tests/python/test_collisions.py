from uapi_check import collisions

# gcc's transcript of a unit where asm/signal.h (line 44) defines sigset_t and linux/if.h, included
# from unit line 111, brings in glibc's: gcc elides the chain of the note.
SIGSET = """In file included from include/before/linux/if.h:28,
                 from work/c.c:111:
/usr/include/x86_64-linux-gnu/bits/types/sigset_t.h:7:20: error: conflicting types for \u2018sigset_t\u2019; have \u2018__sigset_t\u2019
In file included from work/c.c:44:
include/before/asm/signal.h:16:23: note: previous declaration of \u2018sigset_t\u2019 with type \u2018sigset_t\u2019
"""


def included_list():
    inc = [f"h{i}.h" for i in range(1, 200)]
    inc[43] = "asm/signal.h"
    inc[110] = "linux/if.h"
    return inc


def test_first_collision_symbol_and_sides():
    col = collisions.parse_first_collision(SIGSET, "work/c.c", "/nonexistent")
    assert col.symbol == "sigset_t"
    assert col.at == "/usr/include/x86_64-linux-gnu/bits/types/sigset_t.h:7"
    assert col.other == "include/before/asm/signal.h:16"
    assert col.stack[-1] == ("work/c.c", 111)
    assert col.other_stack[-1] == ("work/c.c", 44)


def test_blame_the_uapi_header_that_defines_the_libc_name():
    col = collisions.parse_first_collision(SIGSET, "work/c.c", "/nonexistent")
    assert collisions.blame(col, included_list(), "include/before", "work/c.c") == "asm/signal.h"


def test_blame_the_header_that_includes_libc_directly():
    # linux/mptcp.h includes <netinet/in.h> itself; in6_addr's UAPI definition came first.
    err = """In file included from /usr/include/netinet/in.h:10,
                 from include/after/linux/mptcp.h:5,
                 from work/c.c:20:
/usr/include/netinet/in.h:211:8: error: redefinition of \u2018struct in6_addr\u2019
In file included from include/after/linux/in6.h:3,
                 from work/c.c:7:
include/after/linux/in6.h:33:8: note: originally defined here
"""
    col = collisions.parse_first_collision(err, "work/c.c", "/nonexistent")
    inc = [f"h{i}.h" for i in range(1, 30)]
    inc[6], inc[19] = "linux/in6.h", "linux/mptcp.h"
    assert col.symbol == "in6_addr"
    assert collisions.blame(col, inc, "include/after", "work/c.c") == "linux/mptcp.h"


def test_symbol_from_the_source_column(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "x.h").write_text("#define TIOCM_LE 1\nint TIOCM_LE;\n")
    err = "include/x.h:2:5: error: expected identifier or \u2018(\u2019 before numeric constant\n"
    col = collisions.parse_first_collision("In file included from work/c.c:3:\n" + err, "work/c.c", str(tmp_path))
    assert col.symbol == "TIOCM_LE"


def test_no_error_no_collision():
    assert collisions.parse_first_collision("x.h:1:1: warning: nothing\n", "work/c.c", "/") is None


def test_relpath_in():
    assert collisions.relpath_in("include/after/linux/a.h:3", "include/after") == "linux/a.h:3"
    assert collisions.relpath_in("/usr/include/a.h:3", "include/after") == "/usr/include/a.h:3"
    assert collisions.relpath_in(None, "include/after") is None
