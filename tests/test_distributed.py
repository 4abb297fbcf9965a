"""``tensorcore.distributed`` over MPI: scripts under ``tests/distributed_scripts`` run with
``mpiexec -n 2`` (or 4) and check their own results; a failing rank must end the job within
the test's timeout instead of hanging.

The mpich wheel and mpi4py come with the ``test`` extra; ``mpiexec`` is looked up next to the
running Python first (a virtual environment's ``bin``), then on ``PATH``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parent / "distributed_scripts"
ROOT = Path(__file__).parent.parent


def _mpiexec() -> str | None:
    here = Path(sys.executable).parent / "mpiexec"
    if here.exists():
        return str(here)
    return shutil.which("mpiexec")


MPIEXEC = _mpiexec()
pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("mpi4py") is None,
        reason="mpi4py is not installed (pip install mpi4py mpich, or the test extra)",
    ),
    pytest.mark.skipif(
        MPIEXEC is None, reason="no mpiexec next to sys.executable nor on PATH (pip install mpich)"
    ),
]


def mpirun(
    n: int, script: str, *args: str, timeout: float = 60, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` on ``n`` processes; the children inherit the environment (PYTHONPATH)."""
    assert MPIEXEC is not None
    env = dict(os.environ, **extra_env)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "backends" / "cpu"), str(ROOT / "backends" / "sparse"),
         env.get("PYTHONPATH", "")]
    )  # fmt: skip
    cmd = [MPIEXEC, "-n", str(n), sys.executable, str(SCRIPTS / script), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def _ok(proc: subprocess.CompletedProcess[str], n: int) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for r in range(n):
        assert f"rank {r} OK" in proc.stdout, proc.stdout + proc.stderr


_CHECK = "TENSORCORE_DISTRIBUTED_CHECK"
#: The scripts that end cleanly, by world size, as ``(label, script, args, env)``: one MPI job
#: per world size runs them one after another (distributed_scripts/several.py), as starting
#: the interpreters and MPI costs more than most scripts' own work.
_BATCHES: dict[int, list[tuple[str, str, list[str], dict[str, str]]]] = {
    2: [
        ("collectives", "collectives.py", [], {}),
        ("plans-check", "plans.py", [], {_CHECK: "1"}),
        ("plans-nocheck", "plans.py", [], {_CHECK: "0"}),
        ("mismatch", "failures.py", ["mismatch"], {}),
        ("nocheck", "failures.py", ["nocheck"], {_CHECK: "0"}),
        ("objects", "objects.py", [], {}),
        ("training", "training.py", [], {}),
        ("unused", "unused.py", [], {}),
        ("sparse_training", "sparse_training.py", [], {}),
        ("sync_batchnorm", "sync_batchnorm.py", [], {}),
        ("comm_hooks", "comm_hooks.py", [], {}),
        ("powersgd", "powersgd.py", [], {}),
        ("reduce_ops-nocheck", "reduce_ops.py", [], {_CHECK: "0"}),
        ("env-agrees", "env_init.py", [], {"WORLD_SIZE": "2"}),
        ("env-disagrees", "env_init.py", [], {"WORLD_SIZE": "3"}),
    ],
    3: [
        ("plans-check", "plans.py", [], {_CHECK: "1"}),
        ("objects", "objects.py", [], {}),
        ("unused", "unused.py", [], {}),
        ("sync_batchnorm", "sync_batchnorm.py", [], {}),
        ("reduce_ops", "reduce_ops.py", [], {}),
    ],
    4: [("collectives", "collectives.py", [], {})],
}
_BATCH_RUNS: dict[int, subprocess.CompletedProcess[str]] = {}


def batch_output(n: int, label: str) -> str:
    """What the script ``label`` of world size ``n``'s batch printed (the batch runs once)."""
    proc = _BATCH_RUNS.get(n)
    if proc is None:
        spec = json.dumps(_BATCHES[n])
        proc = _BATCH_RUNS[n] = mpirun(n, "several.py", spec, timeout=60 * len(_BATCHES[n]))
    prefix = f"[{label}] "
    out = "\n".join(x[len(prefix) :] for x in proc.stdout.splitlines() if x.startswith(prefix))
    assert proc.returncode == 0 and " raised " not in out, out + proc.stdout[-4000:] + proc.stderr
    return out


def _batch_ok(n: int, label: str) -> None:
    out = batch_output(n, label)
    for r in range(n):
        assert f"rank {r} OK" in out, out


@pytest.mark.parametrize("n", [2, 4])
def test_every_collective(n: int) -> None:
    _batch_ok(n, "collectives")


@pytest.mark.parametrize(("n", "check"), [(2, "1"), (3, "1"), (2, "0")])
def test_repeated_all_reduce_fast_path_matches_the_plain_one(n: int, check: str) -> None:
    _batch_ok(n, "plans-check" if check == "1" else "plans-nocheck")


def test_a_plan_fits_only_its_tensor_memory_and_metadata() -> None:
    """``Plan.fits``, the fast path's test that the checks it skips still hold, is false as
    soon as anything that locates the tensor's memory differs."""
    import tensorcore as tc
    from tensorcore.distributed import ReduceOp
    from tensorcore.distributed._plan import GenericPlan, Plan

    pg, SUM = object(), ReduceOp.SUM

    def planned() -> tuple[Plan, tc.Tensor]:
        t = tc.zeros(4)
        return Plan(pg, t, SUM, GenericPlan(pg, SUM, None)), t  # type: ignore[arg-type]

    plan, t = planned()
    assert plan.fits(t, pg, SUM)
    t.fill_(1.0)  # new values, the same memory
    assert plan.fits(t, pg, SUM)
    assert not plan.fits(t, object(), SUM)
    assert not plan.fits(t, pg, ReduceOp.MAX)
    assert not plan.fits([0.0] * 4, pg, SUM)
    assert not plan.fits(tc.zeros(4), pg, SUM)
    plan, t = planned()
    t.data = t + 1.0  # another storage; its shape and stride tuples are the same objects
    assert t._shape is plan.shape and not plan.fits(t, pg, SUM)
    for change in (
        lambda t: setattr(t, "_offset", 1),
        lambda t: setattr(t, "_shape", tuple(list(t._shape))),  # equal, not the same tuple
        lambda t: setattr(t, "_stride", tuple(list(t._stride))),
        lambda t: setattr(t, "_dtype", tc.int32),
    ):
        plan, t = planned()
        change(t)
        assert not plan.fits(t, pg, SUM)
    plan, t = planned()
    shape, stride, dtype = t._shape, t._stride, t._dtype
    del t  # its storage dies: a tensor made later with its metadata does not fit
    u = tc.zeros(4)
    u._shape, u._stride, u._dtype = shape, stride, dtype
    assert plan.storage() is None and not plan.fits(u, pg, SUM)


def test_mismatched_shapes_and_collectives_are_named() -> None:
    out = batch_output(2, "mismatch")
    for r in range(2):
        assert f"rank {r} mismatch named" in out, out
        assert f"rank {r} collective mismatch named" in out, out


def test_the_agreement_check_can_be_turned_off() -> None:
    out = batch_output(2, "nocheck")
    for r in range(2):
        assert f"rank {r} ran without the check" in out, out


def test_object_collectives() -> None:
    _batch_ok(2, "objects")
    _batch_ok(3, "objects")


def test_a_rank_that_never_joins_times_out() -> None:
    proc = mpirun(2, "failures.py", "timeout", timeout=40)
    assert proc.returncode != 0
    assert "rank 0 timed out after" in proc.stdout, proc.stdout + proc.stderr
    assert "aborting all 2 ranks" in proc.stderr, proc.stderr


def test_without_the_check_mismatched_small_all_reduces_time_out() -> None:
    proc = mpirun(2, "failures.py", "nocheck-mismatch", timeout=40, **{_CHECK: "0"})
    assert proc.returncode != 0
    assert "timed out after" in proc.stdout, proc.stdout + proc.stderr
    assert "went through" not in proc.stderr, proc.stderr


def test_a_rank_that_raises_ends_the_job() -> None:
    proc = mpirun(2, "failures.py", "raise", timeout=40)
    assert proc.returncode != 0
    assert "rank 1 failed on purpose" in proc.stderr, proc.stderr
    assert "rank 1 raised ValueError; aborting all 2 ranks" in proc.stderr, proc.stderr


def test_ddp_training_no_sync_unused_parameters_and_sampler() -> None:
    _batch_ok(2, "training")


@pytest.mark.parametrize("n", [2, 3])
def test_ddp_unused_parameters_overlap_backward_in_bucket_order(n: int) -> None:
    _batch_ok(n, "unused")


@pytest.mark.parametrize(("n", "label"), [(3, "reduce_ops"), (2, "reduce_ops-nocheck")])
def test_bitwise_reduce_ops_and_premul_sum(n: int, label: str) -> None:
    """``ReduceOp.BAND/BOR/BXOR`` on integer and bool tensors (MPI's own ops; plans and
    staging channels too), PyTorch's error for floating tensors, and ``PREMUL_SUM``'s
    ``NotImplementedError`` naming the backend."""
    _batch_ok(n, label)


def test_ddp_comm_hooks_train_as_plain_ddp() -> None:
    """``register_comm_hook`` with PyTorch's default hooks: ``allreduce_hook`` trains as
    plain DDP, ``fp16_compress_hook``/``bf16_compress_hook`` (and the fp16 wrapper) close
    to it; a hook of the program's own gets PyTorch's ``GradBucket``, and its future's
    tensor becomes the gradients."""
    _batch_ok(2, "comm_hooks")


def test_powersgd_hooks_compress_as_pytorchs() -> None:
    """``powerSGD_hook`` and ``batched_powerSGD_hook`` with ``PowerSGDState``: plain DDP
    before ``start_powerSGD_iter``; the exact average at full rank (and at rank one for a
    rank-one sum); a rank-1 approximation that trains, with error feedback, identically on
    every rank; nothing kept without warm start or error feedback; the state pickles."""
    _batch_ok(2, "powersgd")


def test_ddp_sparse_embedding_gradients_are_all_gathered() -> None:
    _batch_ok(2, "sparse_training")


def test_distributed_sampler_shards_like_pytorch() -> None:
    from tensorcore.utils.data.distributed import DistributedSampler

    shards = [list(DistributedSampler(range(7), num_replicas=3, rank=r, shuffle=False))
              for r in range(3)]  # fmt: skip
    assert shards == [[0, 3, 6], [1, 4, 0], [2, 5, 1]]
    dropped = [list(DistributedSampler(range(7), 3, r, shuffle=False, drop_last=True))
               for r in range(3)]  # fmt: skip
    assert dropped == [[0, 3], [1, 4], [2, 5]]
    a = DistributedSampler(range(20), 2, 0, seed=5)
    b = DistributedSampler(range(20), 2, 1, seed=5)
    a.set_epoch(3)
    b.set_epoch(3)
    assert sorted(list(a) + list(b)) == list(range(20))
    first = list(a)
    a.set_epoch(4)
    assert list(a) != first
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)


def test_a_schedulers_world_size_must_agree_with_mpi() -> None:
    """``WORLD_SIZE`` in the environment (PyTorch's env:// rendezvous) reaches the MPI
    backend, which accepts it when it agrees with the launcher and refuses it, on every rank,
    naming both, when it does not."""
    _batch_ok(2, "env-agrees")
    out = batch_output(2, "env-disagrees")
    refused = "refused: init_process_group(): world_size=3 but MPI says 2"
    assert out.count(refused) == 2, out


def test_launcher_runs_mpiexec(tmp_path: Path) -> None:
    script = tmp_path / "hello.py"
    script.write_text(  # (a torchrun program: it reads its GPU's number before init)
        "import os, sys\nimport tensorcore.distributed as dist\n"
        "local = int(os.environ['LOCAL_RANK'])\n"
        "assert __name__ == '__main__' and sys.path[0] == os.path.dirname(__file__)\n"
        "dist.init_process_group()\n"
        "assert dist.get_node_local_rank() == local == dist.get_rank()\n"
        "assert int(os.environ['RANK']) == dist.get_rank()\n"
        "assert os.environ['WORLD_SIZE'] == os.environ['LOCAL_WORLD_SIZE'] == '2'\n"
        "import tensorcore as tc\n"
        # (one string per line: each rank's line is then one write, which two ranks sharing
        # the pipe cannot interleave, where print's separate arguments are several)
        "print(f'rank {dist.get_rank()} of {dist.get_world_size()} {sys.argv[1:]}', flush=True)\n"
        "print(f\"threads {os.environ['OMP_NUM_THREADS']} {tc.get_num_threads()}\", flush=True)\n"
        # (as torchrun: an env:// rendezvous works, which a backend meeting over TCP needs)
        "store, r, n = next(dist.rendezvous('env://'))\n"
        "store.set(f'k{r}', 'v')\n"
        "store.wait([f'k{1 - r}'])\n"
        "dist.barrier()  # (rank 0 serves the store: it must not leave before rank 1 read it)\n"
        "print(f\"met at {os.environ['MASTER_ADDR']}\", flush=True)\n"
    )
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "backends" / "cpu"), env.get("PYTHONPATH", "")]
    )
    proc = subprocess.run(
        [sys.executable, "-m", "tensorcore.distributed.run", "--nproc", "2", str(script), "x"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "rank 0 of 2 ['x']" in proc.stdout and "rank 1 of 2 ['x']" in proc.stdout
    # (as torchrun: one BLAS thread per process unless the user set it)
    assert proc.stdout.count("threads 1 1") == 2 and "OMP_NUM_THREADS is set to 1" in proc.stderr
    assert proc.stdout.count("met at 127.0.0.1") == 2, proc.stdout


def test_node_local_rank_comes_from_the_launcher(monkeypatch: pytest.MonkeyPatch) -> None:
    import tensorcore.distributed as dist

    for var in ("LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(RuntimeError, match="LOCAL_RANK is not in the environment"):
        dist.get_node_local_rank()
    assert dist.get_node_local_rank(fallback_rank=3) == 3
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2")
    assert dist.get_node_local_rank() == 2
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert dist.get_node_local_rank(fallback_rank=3) == 1


def test_launcher_returns_the_jobs_exit_status_and_says_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tensorcore.distributed import run

    script = tmp_path / "fail.py"
    script.write_text(  # (MPICH's and Open MPI's names of the rank)
        "import os, sys\n"
        "rank = os.environ.get('PMI_RANK') or os.environ.get('OMPI_COMM_WORLD_RANK')\n"
        "sys.exit(3 if rank == '1' else 0)\n"
    )
    assert run.main(["--nproc", "2", str(script)]) == 3  # a failing rank fails the launch
    with pytest.raises(SystemExit) as info:
        run.main(["--nproc", "0", str(script)])
    assert info.value.code == 2 and "--nproc must be at least 1, got 0" in capsys.readouterr().err
    # torchrun's command line of one machine works as it is; several machines are refused
    torchrun = ["--standalone", "--nnodes=1", "--nproc_per_node=2", "--master_port=29500"]
    assert run.main([*torchrun, str(script)]) == 3
    with pytest.raises(SystemExit):
        run.main(["--nnodes=2", "--nproc_per_node=2", str(script)])
    assert "this launcher starts the processes of one machine" in capsys.readouterr().err
    monkeypatch.setattr(run, "find_mpiexec", lambda: None)
    assert run.main(["--nproc", "2", str(script)]) == 2
    assert "no mpiexec next to the Python interpreter" in capsys.readouterr().err


def test_reachable_as_in_pytorch() -> None:
    # ``torch.distributed``, ``torch.nn.parallel`` and ``torch.utils.data.distributed`` are
    # attributes once ``torch`` is imported; a PyTorch program spells them so.
    import tensorcore as tc

    assert tc.distributed.init_process_group is not None
    assert tc.nn.parallel.DistributedDataParallel is not None
    assert tc.utils.data.distributed.DistributedSampler is not None


@pytest.mark.parametrize(
    ("device_id", "error", "text"),
    [
        (0, ValueError, "device_id=0 is the index of an accelerator, but the 'mpi' backend"),
        ("cpu", TypeError, "device_id must be a tensorcore.device or an int, not str"),
        (True, TypeError, "device_id must be a tensorcore.device or an int, not bool"),
        ("cuda:0", ValueError, "device_id=cuda:0 is not a device of the 'mpi' backend"),
    ],
)
def test_init_process_group_refuses_a_bad_device_id_before_the_backend(
    device_id: object, error: type[Exception], text: str
) -> None:
    # (checked before the backend's group is made, so no rank waits for this one)
    import tensorcore as tc
    import tensorcore.distributed as dist

    if device_id == "cuda:0":
        device_id = tc.device("cuda", 0)
    with pytest.raises(error, match=text):
        dist.init_process_group("mpi", device_id=device_id)
    assert not dist.is_initialized()


@pytest.mark.parametrize("n", [2, 3])
def test_sync_batchnorm_equals_batchnorm_on_the_whole_batch(n: int) -> None:
    _batch_ok(n, "sync_batchnorm")


def test_names_around_the_process_groups_are_pytorchs(monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings
    from datetime import timedelta

    import tensorcore as tc
    import tensorcore.distributed as dist
    from tensorcore.backend import ProcessGroup

    B = dist.Backend
    assert (B("MPI"), B("nccl"), B.GLOO, B.UNDEFINED, B("Fabric")) == (
        "mpi", "nccl", "gloo", "undefined", "fabric"
    )  # fmt: skip
    assert type(B("mpi")) is str
    with pytest.raises(ValueError, match="Backend constructor parameter must be string-ish"):
        B(3)  # type: ignore[arg-type]
    assert not (dist.is_ucc_available() or dist.is_xccl_available())
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert dist.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "job")
    assert dist.is_torchelastic_launched() is True
    assert dist.get_default_backend_for_device(tc.device("cuda", 1)) == "nccl"
    with pytest.raises(ValueError, match="Default backend not registered for device : meta"):
        dist.get_default_backend_for_device("meta")
    assert [dist.supports_complex(op) for op in dist.ReduceOp] == [True, False, False, False,
                                                                   True, False, False, False,
                                                                   True]  # fmt: skip
    with pytest.warns(FutureWarning, match="reduce_op` is deprecated"):
        assert dist.reduce_op.SUM is dist.ReduceOp.SUM
    with pytest.raises(AttributeError):
        dist.reduce_op.NOPE  # noqa: B018
    # DistError: PyTorch's hierarchy, all RuntimeErrors
    for cls in (dist.DistBackendError, dist.DistNetworkError, dist.DistStoreError):
        assert issubclass(cls, dist.DistError) and issubclass(cls, RuntimeError)
    # the debug level: from the environment, else set
    monkeypatch.setattr(dist._names._Debug, "level", None)
    monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "detail")
    assert dist.get_debug_level() is dist.DebugLevel.DETAIL
    monkeypatch.setenv("TENSORCORE_DISTRIBUTED_DEBUG", "loud")
    with pytest.raises(ValueError, match="must be OFF, INFO or DETAIL, got 'loud'"):
        dist.set_debug_level_from_env()
    dist.set_debug_level(dist.DebugLevel.OFF)
    assert dist.get_debug_level() is dist.DebugLevel.OFF
    with pytest.raises(TypeError, match="must be a DebugLevel, not str"):
        dist.set_debug_level("INFO")  # type: ignore[arg-type]

    # Backend.register_backend: a factory, as register.comm_backend takes, usable at once.
    class Alone(ProcessGroup):
        backend = "solo"

        def rank(self) -> int:
            return 0

        def size(self) -> int:
            return 1

    def make(**kwargs: object) -> Alone:
        return Alone(kwargs["timeout"])  # type: ignore[arg-type]

    with pytest.warns(UserWarning, match="Device capability of Solo unspecified"):
        B.register_backend("Solo", make)
    with pytest.raises(RuntimeError, match="'solo' is already registered"):
        B.register_backend("solo", make, devices="cpu")
    assert B.SOLO == B("solo") == "solo" and B.backend_capability["solo"] == ["cpu", "cuda"]
    assert dist.is_backend_available("solo")
    dist.init_process_group("solo", timeout=timedelta(seconds=5))
    try:
        assert dist.group.WORLD is dist.GroupMember.WORLD and dist.get_backend() == "solo"
        assert dist.get_global_rank(dist.group.WORLD, 0) == 0
        with pytest.raises(ValueError, match="is not registered"):
            dist.get_group_rank(object(), 0)
        dist.monitored_barrier(timeout=timedelta(seconds=1))  # (one rank: nothing to wait for)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.warns(UserWarning, match="Please specify timeout arg as a timedelta"):
                dist.monitored_barrier(timeout=1.0)
        # the generic all-to-all of a backend without one: here only this rank's own block
        out = tc.empty(3, 2)
        dist.all_to_all_single(out, tc.arange(6.0).reshape(3, 2))
        assert out.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
        with pytest.raises(ValueError, match="Invalid destination rank"):
            dist.send_object_list([1], dst=0)
    finally:
        dist.destroy_process_group()
    assert dist.group.WORLD is None


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _unlaunched(
    script_args: list[str],
    n_procs: int = 1,
    timeout: float = 90,
    script: str = "spawned.py",
    **env_of_rank: dict[str, str],
) -> list[subprocess.CompletedProcess[str]]:
    """Run ``script`` without mpiexec: ``n_procs`` processes at once (rank ``r`` gets
    ``env_of_rank[f"r{r}"]`` added to its environment), meeting at a free MASTER_PORT."""
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()))
    for var in ("PMI_RANK", "PMI_SIZE", "PMI_FD", "PMI_PORT", "PMIX_RANK"):
        env.pop(var, None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "backends" / "cpu"), str(ROOT / "backends" / "sparse"),
         env.get("PYTHONPATH", "")]
    )  # fmt: skip
    cmd = [sys.executable, str(SCRIPTS / script), *script_args]
    procs = [
        subprocess.Popen(cmd, env=dict(env, **env_of_rank.get(f"r{r}", {})), text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for r in range(n_procs)
    ]  # fmt: skip
    out = []
    for p in procs:
        try:
            stdout, stderr = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        out.append(subprocess.CompletedProcess(cmd, p.returncode, stdout, stderr))
    return out


def test_spawned_ranks_meet_at_master_addr_and_train_with_ddp() -> None:
    """PyTorch's DDP tutorial shape: ``tc.multiprocessing.spawn`` starts the ranks, which
    call ``init_process_group("gloo", rank=, world_size=)``; with no mpiexec, they join one
    MPI world through rank 0's rendezvous at MASTER_ADDR:MASTER_PORT."""
    (proc,) = _unlaunched(["spawn", "2"])
    _ok(proc, 2)


def test_a_spawned_rank_that_raises_ends_the_job() -> None:
    """Rank 1 raises while rank 0 waits for it in an all_reduce: rank 1 aborts the job (its
    MPI_Abort reaches rank 0's process manager, which stops rank 0), and ``spawn`` raises
    rank 1's error, well within the group's 30-minute timeout."""
    (proc,) = _unlaunched(["raise", "2"], timeout=60)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "spawn raised:" in proc.stdout and "rank 1 failed on purpose" in proc.stdout, (
        proc.stdout + proc.stderr
    )
    assert "process 1 of spawn() raised; aborting all 2 ranks" in proc.stderr, proc.stderr


def test_a_spawned_rank_that_exits_with_a_failing_status_ends_the_job() -> None:
    """Rank 1 ends with ``sys.exit(5)`` (no exception for the excepthook) while rank 0 waits
    for it: the job ends at once (rank 1 no longer waits in MPI_Finalize at exit for a peer
    that waits for it), and ``spawn`` reports rank 1's status, as PyTorch's does."""
    (proc,) = _unlaunched(["exit", "2"], timeout=60)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "spawn: process 1 terminated with exit code 5 (exit_code=5)" in proc.stdout, (
        proc.stdout + proc.stderr
    )


def test_a_rank_started_as_torchrun_does_that_raises_ends_the_job() -> None:
    """Separately started ranks: rank 1's uncaught exception aborts the job; rank 1 ends with
    status 1 (MPI_Abort returns under a PMI_PORT process manager: the rank exits there
    instead of going on into MPI_Finalize). Rank 0, waiting for it in an all_reduce, is told
    (the exit notice) and ends with its own error and status 1, before the process manager
    would stop it with SIGTERM."""
    procs = _unlaunched(["env", "raise"], 2, timeout=60, r0={"RANK": "0", "WORLD_SIZE": "2"},
                        r1={"RANK": "1", "WORLD_SIZE": "2"})  # fmt: skip
    assert procs[1].returncode == 1, procs[1].stderr
    assert "rank 1 failed on purpose" in procs[1].stderr, procs[1].stderr
    assert procs[0].returncode == 1 and "rank 0 OK" not in procs[0].stdout, procs[0].stderr
    assert (
        "DistBackendError: all_reduce: rank 1 failed and is aborting the job while this rank "
        "waited for it" in procs[0].stderr
    ), procs[0].stderr


def test_ranks_started_as_torchrun_does_on_two_machines() -> None:
    """RANK and WORLD_SIZE from the environment, each rank its own process, and the two
    ranks on different machines as far as MPI knows (TENSORCORE_NODE_NAME): the data goes
    over MPI's network transport instead of shared memory. ``get_backend()`` (and of a
    group) says ``"gloo"``, the name the ranks gave, which PyTorch programs branch on."""
    procs = _unlaunched(
        ["env"], 2,
        r0={"RANK": "0", "WORLD_SIZE": "2", "TENSORCORE_NODE_NAME": "machine-a"},
        r1={"RANK": "1", "WORLD_SIZE": "2", "TENSORCORE_NODE_NAME": "machine-b"},
    )  # fmt: skip
    for r, proc in enumerate(procs):
        assert proc.returncode == 0 and f"rank {r} OK" in proc.stdout, proc.stdout + proc.stderr
        assert "backend gloo gloo" in proc.stdout, proc.stdout


def test_a_rank_that_never_comes_fails_the_rendezvous() -> None:
    code = (
        "import os; from datetime import timedelta; import tensorcore.distributed as dist\n"
        "try:\n"
        "    dist.init_process_group('mpi', rank=0, world_size=2, timeout=timedelta(seconds=2))\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert (
        "DistStoreError Timed out after 2 seconds waiting for clients. 1/2 clients joined."
        in proc.stdout
    ), proc.stdout + proc.stderr


def test_gloo_is_served_by_mpi_where_no_plugin_registers_it() -> None:
    import tensorcore.distributed as dist
    from tensorcore.distributed._names import stand_in

    assert dist.is_gloo_available() == dist.is_mpi_available()
    assert stand_in("gloo") == "mpi" and stand_in("nccl") == "nccl"


_LEFT = {
    "exit": ("all_reduce", "exited (its program ended)"),
    "end": ("all_reduce", "exited (its program ended)"),
    "destroy": ("all_reduce", "left the process group (destroy_process_group)"),
    "recv": ("recv (a tensor of (2,) tensorcore.float32)", "exited (its program ended)"),
}


def _left_promptly(out: str, mode: str) -> None:
    """Rank 0's report (``exit_notice.py``): the peer's error came within seconds (the
    group's timeout is a minute), naming the rank that left, how, and the wait."""
    found = re.search(r"rank 0 after ([\d.]+) s: DistBackendError: (.*)", out)
    assert found is not None, out
    what, how = _LEFT[mode]
    assert found[2] == (
        f"{what}: rank 1 {how} while this rank waited for it; Connection closed by peer"
    ), out
    assert float(found[1]) < 5, out


@pytest.mark.parametrize("mode", ["exit", "destroy", "recv"])
def test_a_rank_that_leaves_fails_its_waiting_peer_at_once(mode: str) -> None:
    """Under mpiexec: rank 1 ends (``sys.exit(0)``), or leaves the group, while rank 0 waits
    for it; rank 0's wait raises at once (PyTorch's Gloo: "Connection closed by peer")
    instead of at the timeout, and the job, whose ranks all end, ends without hanging."""
    proc = mpirun(2, "exit_notice.py", mode, timeout=40)
    assert proc.returncode == 7, proc.stdout + proc.stderr
    _left_promptly(proc.stdout, mode)


def test_a_job_whose_ranks_all_end_says_nothing_of_exit_notices() -> None:
    """Every rank ends normally, without destroy_process_group: the notices the ranks send
    at exit go unread, silently, and the job ends with status 0."""
    proc = mpirun(2, "exit_notice.py", "normal", timeout=40)
    assert proc.returncode == 0 and proc.stderr == "", proc.stdout + proc.stderr
    # (each rank's line, in any order: mpiexec may join the two ranks' writes on one line)
    assert proc.stdout.count("rank 0 done") == 1 == proc.stdout.count("rank 1 done"), proc.stdout
    assert proc.stdout.replace("rank 0 done", "").replace("rank 1 done", "").strip() == "", (
        proc.stdout
    )


@pytest.mark.parametrize("mode", ["end", "normal-destroy"])
def test_ranks_started_as_torchrun_does_are_told_when_a_peer_leaves(mode: str) -> None:
    """The same wired through rank 0's process manager: rank 1's script ends while rank 0
    waits (rank 0 fails at once and ends with its status, 7; rank 1, let out of
    MPI_Finalize's barrier, with 0, as with PyTorch), or every rank ends (0 and 0)."""
    env = {f"r{r}": {"RANK": str(r), "WORLD_SIZE": "2"} for r in range(2)}
    procs = _unlaunched([mode], 2, timeout=60, script="exit_notice.py", **env)
    codes = [p.returncode for p in procs]
    everything = "".join(p.stdout + p.stderr for p in procs)
    if mode == "end":
        assert codes == [7, 0], everything
        _left_promptly(procs[0].stdout, mode)
    else:
        assert codes == [0, 0] and procs[0].stderr + procs[1].stderr == "", everything
    assert procs[1].stderr == "", procs[1].stderr


def test_reduce_op_shows_and_compares_as_pytorchs() -> None:
    import pickle

    import tensorcore.distributed as dist

    op = dist.ReduceOp
    assert repr(op.SUM) == "<RedOpType.SUM: 0>" and str(op.AVG) == "RedOpType.AVG"
    assert f"{op.MAX}" == "RedOpType.MAX" and repr(op.PRODUCT) == "<RedOpType.PRODUCT: 2>"
    assert [int(o) for o in (op.SUM, op.AVG, op.PRODUCT, op.MIN, op.MAX)] == [0, 1, 2, 3, 4]
    assert [int(o) for o in (op.BAND, op.BOR, op.BXOR, op.PREMUL_SUM)] == [5, 6, 7, 8]
    assert list(op.__members__) == ["SUM", "PRODUCT", "MIN", "MAX", "AVG", "BAND", "BOR",
                                    "BXOR", "PREMUL_SUM"]  # fmt: skip
    assert op.SUM == op.RedOpType.SUM and op.RedOpType.MIN is op.MIN and op.SUM != op.MAX
    assert hash(op.SUM) == hash(op.RedOpType.SUM)
    assert {op.SUM: "s", op.MAX: "m"}[op.RedOpType.MAX] == "m"
    assert pickle.loads(pickle.dumps(op.AVG)) is op.AVG


@pytest.mark.parametrize("mode", ["file", "store", "tcp"])
def test_spawned_ranks_meet_through_a_store(mode: str, tmp_path: Path) -> None:
    """Ranks that no launcher started, without MASTER_ADDR, meet through a store:
    ``init_method="file://..."`` (after sharing a ``FileStore``: atomic adds, one winner of
    a compare-and-set race, a blocking get), ``store=FileStore`` or ``store=TCPStore``; rank
    0 leaves its process manager's address in the store. The last user removes the file."""
    where = str(_free_port()) if mode == "tcp" else str(tmp_path)
    (proc,) = _unlaunched([mode, "2", where], script="stores.py", timeout=60)
    _ok(proc, 2)


def test_a_work_whose_engine_fails_completes_with_the_error() -> None:
    # (a backend's poll raises DistBackendError when its engine fails, say a peer's socket
    # closed: every way of asking the Work gives that error, none raises from is_completed)
    from datetime import timedelta

    from tensorcore.backend import DistBackendError, Work

    error = DistBackendError("all_reduce: rank 1 exited while this rank waited for it")

    def poll() -> bool:
        raise error

    work = Work(poll, timedelta(seconds=5), "all_reduce")
    assert work.is_completed() and not work.is_success() and work.exception() is error
    with pytest.raises(DistBackendError, match="rank 1 exited"):
        work.wait()
    work = Work(poll, timedelta(seconds=5), "all_reduce")
    with pytest.raises(DistBackendError, match="rank 1 exited"):
        work.wait()
    assert work.is_completed() and work.exception() is error
    # a Work that timed out has not finished
    late = Work(lambda: False, timedelta(seconds=0.01), "barrier")
    with pytest.raises(DistBackendError, match="timed out"):
        late.wait()
    assert not late.is_completed() and not late.is_success()
