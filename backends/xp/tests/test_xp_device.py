"""A device over an array module is a ``DeviceInterface`` plus one registration call: the
``host`` device of ``docs/xp-kernels.md``, taken from the doc's text, runs every operator
sample of ``tensorcore.testing`` with the results (or the exception types) of the ``cpu``
device, trains, and passes the conformance suite.

Each runs in a fresh interpreter: a device registered at runtime stays for the process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tensorcore_xp

from tensorcore.testing.conformance import run_suite

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "xp-kernels.md"


def doc_block(marker: str) -> str:
    """The Python code block that follows ``<!-- test: marker -->`` in the doc."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- test: {re.escape(marker)} -->\n```python\n(.*?)```", text, re.S)
    assert m is not None, f"no block marked {marker!r} in {DOC}"
    return m.group(1)


DRIVER = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorcore as tc
    from tensorcore.ops.schema import OPS
    from tensorcore.testing import to_numpy
    from tensorcore.testing.samples import SAMPLES, call_op

    import hostdev

    DEV = sys.argv[1]
    tc.backends.register(hostdev, name=DEV)

    def flat(r):
        if isinstance(r, tc.Tensor):
            return [(str(r.dtype), tuple(r.shape), to_numpy(r))]
        if isinstance(r, (tuple, list)):
            return [x for item in r for x in flat(item)]
        if isinstance(r, (bool, int, float, complex)):
            return [("py", (), np.asarray(r))]
        return [("py", repr(r), np.zeros(()))]  # (None, a dtype, a string: compared by repr)

    def run(name, device):
        try:
            return "ok", [call_op(name, s) for s in SAMPLES[name](device, tc.float64)]
        except Exception as exc:  # compared by type with the other device's
            return "raised", type(exc).__name__

    ran, differ = [], []
    for name in sorted(SAMPLES):
        # Random values differ (the host device draws from NumPy's generator, the cpu from
        # PyTorch's: rand_like and randn_like are composites, without the tag), and so does
        # the uninitialised memory of empty and empty_like.
        if "random" in OPS[name].tags or name.startswith(("rand", "empty")):
            continue
        want, got = run(name, "cpu"), run(name, DEV)
        if want[0] != got[0] or want[0] == "raised":
            if want != got:
                differ.append(f"{name}: cpu {want[0]} {want[1] if want[0] == 'raised' else ''}, "
                              f"{DEV} {got[0]} {got[1] if got[0] == 'raised' else ''}")
            continue
        a, b = flat(want[1]), flat(got[1])
        same = len(a) == len(b) and all(
            x[:2] == y[:2] and np.allclose(x[2], y[2], rtol=1e-12, atol=1e-12, equal_nan=True)
            for x, y in zip(a, b)
        )
        (ran if same else differ).append(name)

    # Training: a linear model's loss goes down on the host device.
    g = tc.Generator().manual_seed(0)
    x = tc.randn(64, 3, generator=g).to(DEV)
    y = x @ tc.tensor([1.0, -2.0, 0.5], device=DEV) + 0.25
    model = tc.nn.Linear(3, 1).to(DEV)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(50):
        opt.zero_grad()
        loss = ((model(x).squeeze(1) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(json.dumps({"ran": ran, "differ": differ, "losses": [losses[0], losses[-1]],
                      "device": str(model.weight.device)}))
    """
)


# The doc's device made a device whose arrays are values: ``materialize`` returns a copy (a
# write into it never reaches the storage), ``write`` stores into the storage, and the
# library's kernels are registered with ``mutable_arrays=False``.
VALUES = """

from tensorcore.backend import write


class ValueDevice(HostDevice):
    type = "hostval"
    mutable_arrays = False

    def empty(self, shape, dtype, device):
        arr = np.empty(shape, DTYPES.to_native(dtype))
        return contiguous_tensor(arr, arr.nbytes, shape, dtype, device)  # nothing cached

    def materialize(self, t):
        return super().materialize(t).copy()

    def write(self, t, value):
        HostDevice.materialize(self, t)[...] = value

    def from_data(self, flat, shape, dtype, device):
        t = self.empty(tuple(shape), dtype, device)
        write(t, np.array(flat).reshape(shape))
        return t

    def copy_between(self, src, dst):
        if {src.device.type, dst.device.type} != {"hostval", "cpu"}:
            return False
        write(dst, native(src))
        return True


@hookimpl
def tensorcore_register_devices(register):
    register.device(ValueDevice())


@hookimpl
def tensorcore_register_kernels(register):
    tensorcore_xp.register_kernels(register, "hostval", np, mutable_arrays=False)
"""


# The doc's device over NumPy dressed as CuPy, with CuPy's documented differences, so that the
# kernels' paths for a module other than NumPy run here: another name and no ``errstate``
# (NumPy's warnings silenced: CuPy's kernels never warn); ``ufunc.at`` only where CuPy has a
# scatter kernel, ``maximum.at``/``minimum.at`` of floats as its atomics compute them (fmaxf
# and fminf: in single precision, NaNs dropped); ``accumulate`` of ``add`` and ``multiply``
# only; and floating-point ``floor_divide``/``remainder`` from ``floor(x / y)``.
CUPY_LIKE = """

import types

np.seterr(all="ignore")

_AT = {
    "add": ("int32", "uint32", "uint64", "float16", "float32", "float64"),
    "subtract": ("int32", "uint32"),
    "maximum": ("int32", "uint32", "uint64", "float32", "float64"),
    "minimum": ("int32", "uint32", "uint64", "float32", "float64"),
    "bitwise_and": ("int32", "int64", "uint32", "uint64"),
    "bitwise_or": ("int32", "int64", "uint32", "uint64"),
    "bitwise_xor": ("int32", "int64", "uint32", "uint64"),
}


class CupyUfunc:
    def __init__(self, u):
        self._u = u

    def __call__(self, *args, **kwargs):
        return self._u(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._u, name)

    def at(self, a, indices, b=None):
        name = self._u.__name__
        if name not in _AT:
            raise NotImplementedError(f"`{name}.at` is not supported yet")
        if a.dtype.name not in _AT[name]:
            raise TypeError(f"cupy.{name}.at does not support {a.dtype}")
        if name in ("maximum", "minimum") and a.dtype.kind == "f":
            single = a.astype(np.float32)
            (np.fmax if name == "maximum" else np.fmin).at(
                single, indices, np.asarray(b).astype(np.float32)
            )
            named = np.zeros(a.shape, dtype=bool)
            named[indices] = True
            a[named] = single[named]
            return
        self._u.at(a, indices, b)

    def accumulate(self, x, axis=0, dtype=None, out=None):
        if self._u.__name__ not in ("add", "multiply"):
            raise NotImplementedError(f"`{self._u.__name__}.accumulate` is not supported yet")
        return self._u.accumulate(x, axis=axis, dtype=dtype, out=out)


def _floor_of_quotient(x, y, out=None):
    if np.result_type(x, y).kind != "f":
        return np.floor_divide(x, y, out=out)
    return np.floor(np.true_divide(x, y, out=out), out=out)


def _remainder_of_quotient(x, y, out=None):
    if np.result_type(x, y).kind != "f":
        return np.remainder(x, y, out=out)
    return np.subtract(x, np.floor(np.true_divide(x, y)) * y, out=out)


XP = types.SimpleNamespace()
for _name in dir(np):
    if not _name.startswith("__") and _name != "errstate":
        _v = getattr(np, _name)
        setattr(XP, _name, CupyUfunc(_v) if isinstance(_v, np.ufunc) else _v)
XP.__name__ = "cupy_like"
XP.floor_divide, XP.remainder = _floor_of_quotient, _remainder_of_quotient


class CupyLikeDevice(HostDevice):
    type = "cupylike"
    array_module = XP

    def copy_between(self, src, dst):
        if {src.device.type, dst.device.type} != {"cupylike", "cpu"}:
            return False
        native(dst)[...] = native(src)
        return True


@hookimpl
def tensorcore_register_devices(register):
    register.device(CupyLikeDevice())


@hookimpl
def tensorcore_register_kernels(register):
    tensorcore_xp.register_kernels(register, "cupylike", XP)
"""


@pytest.mark.parametrize("device", ["host", "hostval", "cupylike"])
def test_the_doc_device_runs_every_operator_sample_as_the_cpu_does(
    tmp_path: Path, device: str
) -> None:
    text = doc_block("host device")
    if device == "hostval":  # the value device replaces the doc's hooks (defined later)
        text += VALUES
    elif device == "cupylike":
        text += CUPY_LIKE
    (tmp_path / "hostdev.py").write_text(text, encoding="utf-8")
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    proc = subprocess.run(
        # (every warning an error, but a deprecated operator's, which warns once per process)
        [
            sys.executable,
            "-W",
            "error",
            "-W",
            "ignore:torch.chain_matmul is deprecated",
            "-W",
            "ignore:torch.triangular_solve is deprecated",
            str(tmp_path / "driver.py"),
            device,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    # On the value device the kernels that write tensors besides their first argument, or
    # slices of their scratch arrays, are not registered (their writes would be lost): those
    # operators have no kernel there.
    unregistered = (
        []
        if device != "hostval"
        else [
            f"{name}: cpu ok , hostval raised NotImplementedError"
            for name in sorted(tensorcore_xp._WRITE_OTHERS | tensorcore_xp._WRITE_VIEWS)
        ]
    )
    assert report["differ"] == unregistered, report["differ"]
    assert len(report["ran"]) > 150, len(report["ran"])
    assert report["device"] == device
    first, last = report["losses"]
    assert last < first / 100, report["losses"]


CONFTEST = """
import tensorcore as tc

import hostdev

tc.backends.register(hostdev, name="host")
"""

# What the doc's 40 lines leave out, as conformance gaps (each must still fail).
# None: the doc's empty() raises RuntimeError for an impossible size, as the cpu device does.
GAPS = ""


def test_the_doc_device_passes_the_conformance_suite(tmp_path: Path) -> None:
    (tmp_path / "hostdev.py").write_text(doc_block("host device"), encoding="utf-8")
    (tmp_path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (tmp_path / "gaps.txt").write_text(GAPS, encoding="utf-8")
    run = run_suite("host", gaps=[tmp_path / "gaps.txt"], cwd=tmp_path, timeout=900)
    assert run.returncode == 0, run.output[-6000:]
    assert run.counts.get("passed", 0) > 2000, run.summary()
    assert run.counts.get("xfailed", 0) == 0, run.summary()
