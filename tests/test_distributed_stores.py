"""The key-value stores of ``tensorcore.distributed`` in one process: ``HashStore``,
``FileStore``, ``PrefixStore``, ``TCPStore``, against PyTorch's semantics and words. Stores
shared by processes, and ranks meeting through them, are in ``test_distributed.py``."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

import tensorcore.distributed as dist

SHORT = timedelta(milliseconds=30)


def _file(tmp_path: Path) -> dist.Store:
    return dist.FileStore(str(tmp_path / "store"), -1)


def _tcp(tmp_path: Path) -> dist.Store:
    return dist.TCPStore("127.0.0.1", 0, world_size=1, is_master=True)


def _prefixed(tmp_path: Path) -> dist.Store:
    return dist.PrefixStore("p", dist.HashStore())


MAKERS = {"hash": lambda _: dist.HashStore(), "file": _file, "tcp": _tcp, "prefix": _prefixed}


@pytest.fixture(params=sorted(MAKERS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> dist.Store:
    s = MAKERS[request.param](tmp_path)
    yield s
    if isinstance(s, dist.TCPStore):
        s.close()


def test_every_store_has_pytorchs_operations(store: dist.Store) -> None:
    assert isinstance(store, dist.Store)
    store.set("a", "1")
    store.set("b", b"\x00\xff")
    assert store.get("a") == b"1" and store.get("b") == b"\x00\xff"
    assert store.add("n", 2) == 2 and store.add("n", -5) == -3 and store.get("n") == b"-3"
    assert store.check(["a", "b"]) and not store.check(["a", "zz"])
    # compare_set: set when the value matches (or the key is unset and expected is empty);
    # returns the value the key has afterwards, or expected for an unset key left unset.
    assert store.compare_set("a", "1", "2") == b"2" and store.get("a") == b"2"
    assert store.compare_set("a", "x", "3") == b"2" and store.get("a") == b"2"
    assert store.compare_set("new", "", "v") == b"v" and store.get("new") == b"v"
    assert store.compare_set("absent", "q", "v") == b"q" and not store.check(["absent"])
    store.append("b", "!")
    store.append("fresh", "x")
    assert store.multi_get(["b", "fresh"]) == [b"\x00\xff!", b"x"]
    store.multi_set(["m1", "m2"], ["1", b"2"])
    assert store.get("m2") == b"2"
    before = store.num_keys()
    assert store.delete_key("a") and not store.delete_key("a")
    assert store.num_keys() == before - 1
    store.wait(["b", "new"])


def test_a_store_times_out_with_pytorchs_error(store: dist.Store) -> None:
    assert store.timeout == (timedelta(seconds=300))
    store.set_timeout(SHORT)
    assert store.timeout == SHORT
    tcp = isinstance(store, dist.TCPStore)
    with pytest.raises(dist.DistStoreError) as info:
        store.wait(["missing", "b"])
    assert str(info.value) == ("wait timeout after 30ms, keys: /missing, /b" if tcp
                               else "Wait timeout")  # fmt: skip
    with pytest.raises(dist.DistStoreError, match=r"^[Ww]ait timeout"):
        store.wait(["missing"], timedelta(milliseconds=1))
    words = {
        dist.HashStore: "Wait timeout",
        dist.PrefixStore: "Wait timeout",
        dist.FileStore: "Timeout waiting for key: missing after 30 ms",
        dist.TCPStore: "wait timeout after 30ms, keys: /missing",
    }[type(store)]
    with pytest.raises(dist.DistStoreError) as info:
        store.get("missing")
    assert str(info.value) == words
    with pytest.raises(TypeError, match="timedelta"):
        store.set_timeout(5)  # type: ignore[arg-type]


def test_a_get_waits_for_a_key_another_thread_sets(store: dist.Store) -> None:
    store.set_timeout(timedelta(seconds=10))
    other = store
    if isinstance(store, dist.TCPStore):  # (a client's calls take turns on its connection)
        other = dist.TCPStore("127.0.0.1", store.port)
    start = time.monotonic()
    setter = threading.Timer(0.05, other.set, args=("late", "here"))
    setter.start()
    assert store.get("late") == b"here"
    assert time.monotonic() - start >= 0.05
    setter.join()  # (its set may still wait for the server's answer)
    if other is not store:
        other.close()  # type: ignore[attr-defined]


def test_a_file_store_is_shared_through_its_file(tmp_path: Path) -> None:
    path = str(tmp_path / "shared")
    one, two = dist.FileStore(path, 2), dist.FileStore(path, 2)
    one.set("k", "v")
    assert two.get("k") == b"v" and two.add("c", 1) == 1 and one.add("c", 1) == 2
    assert one.delete_key("k") and not two.check(["k"])
    assert one.num_keys() == two.num_keys() == 1  # (its user count is not a key)
    del one
    assert Path(path).exists()
    del two  # the last of the world_size users removes the file
    assert not Path(path).exists()
    three = dist.FileStore(path, -1)
    three.set("x", "1")
    del three  # world_size -1: the file stays
    assert Path(path).exists()
    store = dist.FileStore(path)
    store.set("text", "abc")
    with pytest.raises(ValueError, match="not an integer"):
        store.add("text", 1)


def test_prefix_and_base_stores_as_pytorchs() -> None:
    base = dist.HashStore()
    pre = dist.PrefixStore("job", base)
    pre.set("k", "v")
    assert base.get("job/k") == b"v" and pre.underlying_store is base
    assert pre.num_keys() == base.num_keys() == 1
    pre.set_timeout(SHORT)
    assert base.timeout == SHORT == pre.timeout
    with pytest.raises(ValueError, match="store argument cannot be None"):
        dist.PrefixStore("p", None)  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError, match=r"Store does not implement Store\.get"):
        dist.Store().get("k")
    with pytest.raises(TypeError, match="file_name must be a str"):
        dist.FileStore(123)  # type: ignore[arg-type]


def test_init_process_group_checks_store_arguments_as_pytorch() -> None:
    store = dist.HashStore()
    with pytest.raises(AssertionError, match=r"Cannot specify both init_method and store\."):
        dist.init_process_group("mpi", init_method="env://", store=store, rank=0, world_size=1)
    with pytest.raises(AssertionError, match="world_size must be positive if using store"):
        dist.init_process_group("mpi", store=store, rank=0)
    with pytest.raises(AssertionError, match="rank must be non-negative if using store"):
        dist.init_process_group("mpi", store=store, world_size=2)
    assert not dist.is_initialized()


def test_file_rendezvous_says_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="file:// rendezvous: rank parameter missing"):
        next(dist.rendezvous(f"file://{tmp_path}/f", world_size=1))
    with pytest.raises(ValueError, match="file:// rendezvous: world size parameter missing"):
        next(dist.rendezvous(f"file://{tmp_path}/f", rank=0))
    with pytest.raises(ValueError, match="file:// rendezvous: path missing"):
        next(dist.rendezvous("file://", rank=0, world_size=1))
    store, rank, size = next(dist.rendezvous(f"file://{tmp_path}/f?rank=0&world_size=1"))
    assert isinstance(store, dist.FileStore) and (rank, size) == (0, 1)
