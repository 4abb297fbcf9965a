"""The ``nccl`` communication backend of ``tensorcore-cuda``.

Three layers:

* here, as CI runs it (no CuPy, no GPU): ``nccl`` is registered, unavailable, with the
  reason, and ``init_process_group("nccl")`` says it; the backend's helpers;
* on the fake CuPy (``tests/fake_cupy``, put first on ``PYTHONPATH`` of the processes
  started here, never installed): the ``cuda`` device and the NCCL backend run over host
  memory, the fake NCCL moving bytes between 2 or 3 processes
  (``tests/distributed_scripts/nccl_collectives.py``): every collective, every dtype, each
  rendezvous (env://, tcp://, MPI), failures;
* on a GPU (CuPy importable and a device present; skipped with the reason otherwise): the
  same script over the real NCCL, on one rank, or two where there are two GPUs (NCCL refuses
  two ranks on one GPU).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore.distributed.run import find_mpiexec

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "tests" / "distributed_scripts" / "nccl_collectives.py"
FAKE = ROOT / "tests" / "fake_cupy"
nccl_mod = pytest.importorskip("tensorcore_cuda.nccl", reason="tensorcore-cuda not installed")
_nccl_rendezvous = pytest.importorskip("tensorcore_cuda._nccl_rendezvous")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(fake: bool, **extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    paths = [str(FAKE)] if fake else []
    env["PYTHONPATH"] = os.pathsep.join([*paths, str(ROOT), env.get("PYTHONPATH", "")])
    return env


def launch(
    n: int, mode: str, fake: bool = True, timeout: float = 90, store: bool = True, **extra: str
) -> list[tuple[int, str, str]]:
    """Run the script on ``n`` ranks as a torchrun-like launcher does (``RANK``,
    ``WORLD_SIZE``, ``LOCAL_RANK``, and unless not ``store``, ``MASTER_ADDR`` and
    ``MASTER_PORT``); each rank's ``(exit status, stdout, stderr)``."""
    port = str(_free_port())
    procs = []
    for rank in range(n):
        env = _env(fake, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(n),
                   TEST_RANK=str(rank), TEST_N=str(n), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=port, **{"FAKE_CUPY_DEVICES": str(n), **extra})  # fmt: skip
        if not store:
            del env["MASTER_ADDR"], env["MASTER_PORT"]
        procs.append(subprocess.Popen(
            [sys.executable, str(SCRIPT), mode], env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        ))  # fmt: skip
    out = []
    try:
        for p in procs:
            stdout, stderr = p.communicate(timeout=timeout)
            out.append((p.returncode, stdout, stderr))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return out


def _ok(results: list[tuple[int, str, str]]) -> None:
    for rank, (code, stdout, stderr) in enumerate(results):
        assert code == 0 and f"rank {rank} OK" in stdout, f"rank {rank}: {stdout}{stderr}"


# ------------------------------------------------------------------ here, without CuPy
no_cupy = pytest.mark.skipif(
    importlib.util.find_spec("cupy") is not None, reason="CuPy is installed here"
)


@no_cupy
def test_nccl_is_registered_unavailable_with_the_reason() -> None:
    assert not dist.is_nccl_available() and not dist.is_backend_available("nccl")
    out = subprocess.run(
        [sys.executable, "-m", "tensorcore"], capture_output=True, text=True, check=True
    ).stdout
    row = next(line for line in out.splitlines() if line.split()[:1] == ["nccl"])
    assert "unavailable" in row and "cuda" in row and "CuPy is not importable" in row, row
    with pytest.raises(RuntimeError, match="the 'nccl' backend is unavailable: CuPy is not"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


def test_unavailable_reasons(monkeypatch: pytest.MonkeyPatch) -> None:
    reason = nccl_mod.unavailable_reason
    assert reason("no CUDA device found") == "no CUDA device found"

    def module(**attrs: object) -> None:
        monkeypatch.setattr(nccl_mod, "_nccl_module", lambda: SimpleNamespace(**attrs))

    module(available=True, get_version=lambda: 21803)
    assert reason(None) is None
    module(available=False)
    assert "no NCCL library" in str(reason(None))
    module(available=True, get_version=lambda: 2604)
    assert "NCCL 2.6.4 is too old" in str(reason(None))

    def broken() -> None:
        raise ImportError("libnccl.so.2: cannot open shared object file")

    monkeypatch.setattr(nccl_mod, "_nccl_module", broken)
    assert "CuPy's NCCL module is not importable (ImportError: libnccl" in str(reason(None))


def test_nccl_groups_time_out_after_10_minutes_by_default() -> None:
    # PyTorch's default_pg_nccl_timeout (30 minutes for its other backends)
    from datetime import timedelta

    assert tc.plugins.manager.comm_backends()["nccl"].default_timeout == timedelta(minutes=10)
    assert nccl_mod.DEFAULT_TIMEOUT.total_seconds() == 600


@pytest.mark.parametrize("signed", [True, False])
def test_unique_id_survives_the_trip_as_bytes(signed: bool) -> None:
    # CuPy gives C chars as ints: signed on x86 (-128..127), unsigned on ARM (0..255).
    raw = bytes(range(128))[::-1]
    uid = tuple(b - 256 if signed and b > 127 else b for b in bytes([200, 7]) + raw[2:])
    data = _nccl_rendezvous.id_to_bytes(uid)
    assert isinstance(data, bytes) and len(data) == 129
    assert _nccl_rendezvous.id_from_bytes(data) == uid


def test_a_bytes_unique_id_comes_back_as_bytes() -> None:
    # CuPy 14 gives (and its NcclCommunicator takes) the id as 128 bytes.
    uid = bytes(range(256))[::2]
    data = _nccl_rendezvous.id_to_bytes(uid)
    assert len(data) == 129 and _nccl_rendezvous.id_from_bytes(data) == uid


def test_rendezvous_errors_name_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError, match="environment variable RANK expected, but not set"):
        next(dist.rendezvous("env://"))
    with pytest.raises(ValueError, match="MASTER_ADDR expected"):
        next(dist.rendezvous("env://", rank=0, world_size=2))
    with pytest.raises(ValueError, match="tcp:// rendezvous: rank parameter missing"):
        next(dist.rendezvous("tcp://127.0.0.1:29500"))
    with pytest.raises(ValueError, match="file:// rendezvous: rank parameter missing"):
        next(dist.rendezvous("file:///tmp/x"))
    with pytest.raises(ValueError, match="no rendezvous handler for s3://"):
        next(dist.rendezvous("s3://bucket/x"))


def test_tcp_store_between_two_clients() -> None:
    from datetime import timedelta

    master = dist.TCPStore("127.0.0.1", 0, world_size=2, is_master=True, wait_for_workers=False)
    client = dist.TCPStore("127.0.0.1", master.port, world_size=2, timeout=timedelta(seconds=2))
    client.set("k", "v")
    assert master.get("k") == b"v" and master.add("n", 1) == 1 and client.add("n", 2) == 3
    assert client.check(["k", "n"]) and master.num_keys() == 3  # (and the workers' count)
    assert client.delete_key("k") and not master.check(["k"])
    with pytest.raises(dist.DistStoreError, match="wait timeout after 2000ms, keys: /late"):
        client.get("late")
    client.close()
    master.close()


def test_tcp_store_errors() -> None:
    from datetime import timedelta

    short = timedelta(seconds=0.2)
    with pytest.raises(ValueError, match="port must have value from 0 to 65535, got 70000"):
        dist.TCPStore("127.0.0.1", 70000)
    with pytest.raises(
        dist.DistNetworkError, match=r"timed out after 0\.2s while trying to connect"
    ):
        dist.TCPStore("127.0.0.1", _free_port(), timeout=short)
    with pytest.raises(dist.DistStoreError, match=r"waiting for clients\. 1/2 clients joined"):
        dist.TCPStore("127.0.0.1", 0, world_size=2, is_master=True, timeout=short)
    master = dist.TCPStore("127.0.0.1", 0, is_master=True)
    client = dist.TCPStore("127.0.0.1", master.port)
    with pytest.raises(dist.DistStoreError, match="wait timeout after 200ms, keys: /x"):
        client.wait(["x"], short)
    master.close()
    with pytest.raises(dist.DistNetworkError, match="lost the connection"):
        client.get("x")
    client.close()
    with pytest.raises(ValueError, match="tcp:// rendezvous: port number missing"):
        next(dist.rendezvous("tcp://127.0.0.1", rank=0, world_size=1))
    with pytest.raises(ValueError, match="tcp:// rendezvous: world size parameter missing"):
        next(dist.rendezvous("tcp://127.0.0.1:1?rank=0"))


# ------------------------------------------------------------------ on the fake CuPy
def test_every_collective_env_rendezvous_and_default_backend() -> None:
    _ok(launch(2, "env"))


def test_every_collective_tcp_rendezvous_three_ranks_nccl_before_avg() -> None:
    # NCCL 2.7 (FAKE_NCCL_VERSION): no NCCL_AVG, so AVG is a SUM divided by the size.
    _ok(launch(3, "tcp", FAKE_NCCL_VERSION="2708"))


def test_every_collective_file_rendezvous(tmp_path: Path) -> None:
    """``init_method="file://..."``: the unique id goes through a ``FileStore`` that the
    frontend makes and hands to the backend's factory (``store=``); the group does not keep
    it, and the last rank removes the file."""
    _ok(launch(2, "file", store=False, TEST_FILE=str(tmp_path / "rdzv")))
    assert not (tmp_path / "rdzv").exists()


def test_a_world_of_one_needs_no_store() -> None:
    _ok(launch(1, "env", store=False))


needs_mpi = pytest.mark.skipif(
    find_mpiexec() is None or importlib.util.find_spec("mpi4py") is None,
    reason="needs mpiexec and mpi4py (pip install mpich mpi4py)",
)


def mpi_launch(mode: str) -> subprocess.CompletedProcess[str]:
    """The script on 2 ranks started by mpiexec, without ``MASTER_ADDR``."""
    mpiexec = find_mpiexec()
    assert mpiexec is not None
    env = _env(True, FAKE_CUPY_DEVICES="2")
    for var in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(var, None)
    return subprocess.run([mpiexec, "-n", "2", sys.executable, str(SCRIPT), mode],
                          capture_output=True, text=True, timeout=90, env=env)  # fmt: skip


@needs_mpi
def test_every_collective_mpi_rendezvous() -> None:
    proc = mpi_launch("mpi")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rank 0 OK" in proc.stdout and "rank 1 OK" in proc.stdout, proc.stdout


@needs_mpi
def test_a_rank_that_raises_under_mpiexec_ends_the_job() -> None:
    proc = mpi_launch("raise")
    assert proc.returncode != 0
    assert "rank 1 raised ValueError; aborting all 2 ranks" in proc.stderr, proc.stderr
    # (mpiexec's own "called MPI_Abort" line is not asserted: mpiexec sometimes kills its
    # output forwarding before that line is through, about one run in twenty)


def test_two_ranks_on_one_device_are_refused_with_advice() -> None:
    _ok(launch(2, "samedevice", FAKE_CUPY_DEVICES="1"))


def test_a_rank_that_never_joins_times_out_and_aborts_the_communicator() -> None:
    # TENSORCORE_NCCL_BLOCKING_WAIT=1 (PyTorch's TORCH_NCCL_BLOCKING_WAIT): wait() blocks the
    # host and raises after the timeout (with the check off, the all-reduce's own wait does).
    (code, out, err), _ = launch(2, "timeout", TENSORCORE_NCCL_BLOCKING_WAIT="1",
                                 TENSORCORE_DISTRIBUTED_CHECK="0")  # fmt: skip
    assert code == 0 and "rank 0 timed out after" in out, out + err


@pytest.mark.parametrize(("handling", "aborted"), [(None, False), ("3", False), ("1", True)])
def test_the_watchdog_ends_a_process_whose_collective_hangs(
    handling: str | None, aborted: bool
) -> None:
    # PyTorch's TORCH_NCCL_ASYNC_ERROR_HANDLING: 3 (its default) ends the process without
    # aborting the communicator, 1 aborts it first.
    extra = {} if handling is None else {"TENSORCORE_NCCL_ASYNC_ERROR_HANDLING": handling}
    (code, out, err), _ = launch(2, "watchdog", TENSORCORE_DISTRIBUTED_CHECK="0", **extra)
    assert "rank 0 returned after 0.0 s" in out and "still runs" not in out, out + err
    assert code == 1 and "all_reduce: timed out after 3 s" in err, err
    assert f"(TENSORCORE_NCCL_ASYNC_ERROR_HANDLING={handling or 3})" in err, err
    assert ("the communicator is aborted" in err) == aborted, err
    done = "was aborted, and the process ends" if aborted else "the process ends, without abort"
    assert done in err, err


@pytest.mark.parametrize(
    ("handling", "blocking", "aborted"),
    [
        ("2", "0", True),
        ("0", "0", False),
        ("1", "1", False),  # blocking wait wins over the variable (mode 0), as in PyTorch
    ],
)
def test_the_watchdog_fails_the_work_and_the_process_goes_on(
    handling: str, blocking: str, aborted: bool
) -> None:
    (code, out, err), (code1, out1, err1) = launch(
        2, "watchdog", TENSORCORE_DISTRIBUTED_CHECK="0",
        TENSORCORE_NCCL_ASYNC_ERROR_HANDLING=handling, TENSORCORE_NCCL_BLOCKING_WAIT=blocking,
    )  # fmt: skip
    assert code == 0 and "rank 0 went on after" in out, out + err
    assert code1 == 0, out1 + err1
    assert "all_reduce: timed out after 3 s" in err, err
    assert ("the communicator is aborted" in err) == aborted, err
    why = "BLOCKING_WAIT=1" if blocking == "1" else f"ASYNC_ERROR_HANDLING={handling}"
    assert f"(TENSORCORE_NCCL_{why})" in err, err


def test_async_error_handling_takes_pytorchs_modes(monkeypatch: pytest.MonkeyPatch) -> None:
    from tensorcore_cuda._nccl_work import SKIP_CLEAN_UP, async_error_handling

    monkeypatch.delenv("TENSORCORE_NCCL_ASYNC_ERROR_HANDLING", raising=False)
    assert async_error_handling(blocking=False) == SKIP_CLEAN_UP == 3  # PyTorch's default
    for mode in range(4):
        monkeypatch.setenv("TENSORCORE_NCCL_ASYNC_ERROR_HANDLING", str(mode))
        assert async_error_handling(blocking=False) == mode
        assert async_error_handling(blocking=True) == 0
    for bad in ("4", "yes", "-1"):
        monkeypatch.setenv("TENSORCORE_NCCL_ASYNC_ERROR_HANDLING", bad)
        with pytest.raises(ValueError, match=f"TENSORCORE_NCCL_ASYNC_ERROR_HANDLING='{bad}'"):
            async_error_handling(blocking=False)


@pytest.mark.parametrize("handling", ["0", None])
def test_a_rank_that_raises_is_reported_to_the_others(handling: str | None) -> None:
    extra = {} if handling is None else {"TENSORCORE_NCCL_ASYNC_ERROR_HANDLING": handling}
    (code0, out0, err0), (code1, _, err1) = launch(2, "raise", **extra)
    assert code1 != 0 and "rank 1 raised ValueError; aborting all 2 ranks" in err1, err1
    # (the all_reduce, or the barrier after it, whichever notices first: all_reduce may
    # return before the collective fails, as PyTorch's does)
    remote = "NCCL failed: NCCL_ERROR_SYSTEM_ERROR: NcclError: NCCL_ERROR_INVALID_USAGE: remote"
    if handling == "0" or code0 == 0:  # the main thread's wait raised
        assert code0 == 0 and "rank 0 got: " in out0, out0 + err0
        assert remote in out0 and "remote process exited" in out0, out0 + err0
    else:  # the watchdog saw the failed work first and, by default (mode 3), ended rank 0
        assert code0 == 1 and remote in err0 and "the process ends" in err0, out0 + err0


# ------------------------------------------------------------------ on a GPU
gpu_reason = (
    "CuPy with NCCL and a CUDA device are needed: " + str(nccl_mod.unavailable_reason(
        tc.cuda.unavailable_reason() if hasattr(tc, "cuda") else "tensorcore-cuda not loaded"))
)  # fmt: skip


@pytest.mark.cuda
@pytest.mark.skipif(not dist.is_nccl_available(), reason=gpu_reason)
def test_every_collective_on_gpus() -> None:
    # One rank per GPU (NCCL refuses two on one), at most two.
    _ok(launch(min(2, tc.cuda.device_count()), "env", fake=False, timeout=300))


def test_the_backends_examples_run() -> None:
    # (CI's doctest run does not cover tensorcore_cuda: its other modules need a GPU.)
    import doctest

    from tensorcore_cuda import _nccl_group, _nccl_plan, _nccl_work

    for mod in (nccl_mod, _nccl_group, _nccl_rendezvous, _nccl_plan, _nccl_work):
        assert doctest.testmod(mod).failed == 0, mod.__name__
