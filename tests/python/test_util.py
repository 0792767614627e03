import io
import os

import pytest

from uapi_check import util


def test_write_atomic_writes_and_leaves_no_temp(tmp_path):
    path = tmp_path / "sub" / "report.txt"
    util.write_atomic(str(path), "one\n")
    util.write_atomic(str(path), "two\n")
    assert path.read_text() == "two\n"
    assert os.listdir(path.parent) == ["report.txt"]


def test_write_atomic_removes_temp_on_error(tmp_path):
    class Boom:
        def __str__(self):
            raise RuntimeError("no")
    with pytest.raises(TypeError):
        util.write_atomic(str(tmp_path / "x"), Boom())
    assert os.listdir(tmp_path) == []


def test_parallel_keeps_order_and_counts():
    out = io.StringIO()
    p = util.Progress(False, stream=out)
    got = util.parallel(2, lambda x: x * x, list(range(250)), p, "squares")
    assert got == [x * x for x in range(250)]
    assert out.getvalue().splitlines() == ["  squares: 100/250", "  squares: 200/250", "  squares: 250/250"]


def test_progress_quiet_prints_nothing():
    out = io.StringIO()
    p = util.Progress(True, stream=out)
    p.step("x")
    p.count("y", 100, 100)
    assert out.getvalue() == ""


def test_run_and_run_or_die():
    rc, out, err = util.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (rc, out, err) == (3, "out\n", "err\n")
    assert util.run_or_die(["echo", "fine"], "echo") == "fine\n"
    with pytest.raises(util.Fatal, match=r"^thing failed: last$"):
        util.run_or_die(["sh", "-c", "echo first >&2; echo last >&2; exit 1"], "thing")
    with pytest.raises(util.Fatal, match=r"thing failed: exit 4"):
        util.run_or_die(["sh", "-c", "exit 4"], "thing")


def test_object_key_hashes_an_object_once_while_its_stat_holds(tmp_path, monkeypatch):
    """The key is sha256(object bytes, the parts joined by NUL), whether the bytes were hashed
    in this call or an earlier one; an object rewritten (other bytes, same size, another mtime)
    is read again."""
    import hashlib
    obj = tmp_path / "unit.o"
    obj.write_bytes(b"A" * 64)
    reads = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda p, *a, **k: reads.append(str(p)) or real_open(p, *a, **k))

    def want(data, *parts):
        return hashlib.sha256(data + "\0".join(parts).encode()).hexdigest()[:20]

    assert util.object_key(str(obj), "gcc 12", "ioctls") == want(b"A" * 64, "gcc 12", "ioctls")
    assert util.object_key(str(obj), "gcc 12", "constants") == want(b"A" * 64, "gcc 12", "constants")
    assert reads == [str(obj)]
    obj.write_bytes(b"B" * 64)
    st = os.stat(obj)
    os.utime(obj, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert util.object_key(str(obj), "gcc 12", "constants") == want(b"B" * 64, "gcc 12", "constants")
    assert reads == [str(obj)] * 2
