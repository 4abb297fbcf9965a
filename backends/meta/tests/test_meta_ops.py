"""Every operator of the runtime table on meta: it has a kernel there (the meta plugin's, or a
view or composite registered for every device) whose results have the metadata the CPU's
have, or it raises a deliberate error naming the operator and the meta device."""

from __future__ import annotations

import re
from typing import Any

import pytest
from tensorcore_meta.kernels import DATA_DEPENDENT, READS_VALUES, UNSTRUCTURED

import tensorcore as tc
from tensorcore import backend
from tensorcore.dispatch import ops
from tensorcore.testing.samples import SAMPLES, call_op, core_ops

DTYPES = (tc.float64, tc.float32, tc.int64, tc.complex64, tc.bool)

#: The errors the meta device raises on purpose: a data-dependent shape (``unsupported``
#: naming the meta tensor), and PyTorch's two errors for reading values.
DELIBERATE = re.compile(
    r"on meta \(strided\)\): .*meta tensors do not have"
    r"|Tensor\.item\(\) cannot be called on meta tensors"
    r"|Cannot copy out of meta tensor; no data!"
)


#: Composites whose definition reads values, so every sample raises ``item``'s error on meta:
#: ``istft`` checks the window's overlap-add (PyTorch's does too).
COMPOSITES_READING_VALUES = ("istft",)


def _metadata(r: Any) -> Any:
    if isinstance(r, tc.Tensor):
        return (tuple(r.shape), r.dtype, r.stride(), r.storage_offset(), r.layout)
    if isinstance(r, (list, tuple)):
        return (type(r).__name__, [_metadata(x) for x in r])
    return type(r).__name__


def _devices(r: Any) -> set[str]:
    if isinstance(r, tc.Tensor):
        return {r.device.type}
    if isinstance(r, (list, tuple)):
        return set().union(*(_devices(x) for x in r)) if r else set()
    return set()


def test_every_operator_with_a_dense_kernel_has_one_on_meta() -> None:
    """An operator some dense device runs resolves on meta too. The only exceptions are
    operators declared by plugins that load after ``meta`` (entry points load by name), which
    the meta plugin cannot see; calling them on meta is the dispatcher's error naming them."""
    missing = [
        name
        for name, op in ops().items()
        if op.record(("cpu", "strided")) is not None and op.record(("meta", "strided")) is None
    ]
    assert not set(missing) & set(core_ops()), missing
    for name in missing:
        with pytest.raises(NotImplementedError, match=f"Could not run '{name}'.*'meta' device"):
            getattr(tc.empty(2, 2, device="meta"), name)()


def test_the_meta_plugin_registers_by_frontend_kind() -> None:
    """Every operator whose frontend allocates has the meta plugin's do-nothing kernel; every
    unstructured one has a kernel of its own here, or a view's or composite's."""
    for name, op in ops().items():
        rec = op.record(("meta", "strided"))
        if name not in core_ops():
            continue
        assert rec is not None, name
        own = (rec.device_type, rec.layout) == ("meta", "strided")
        if backend.op_frontend(name) != "unstructured":
            assert own and rec.plugin == "meta", name
            assert rec.fn.__name__ == name
        elif own:
            assert name in UNSTRUCTURED or name in DATA_DEPENDENT, name
        else:
            assert rec.plugin in ("views", "composite"), (name, rec.plugin)


@pytest.mark.parametrize("name", core_ops())
def test_samples_give_the_cpus_metadata_or_a_deliberate_error(name: str) -> None:
    """Each sample the CPU runs gives, on meta, results of the same shapes, dtypes, strides,
    offsets and layouts, all on meta; or the deliberate error, which every sample of a
    data-dependent or value-reading operator raises."""
    ran = failed = 0
    for dtype in DTYPES:
        try:
            cpu_samples = SAMPLES[name]("cpu", dtype)
        except (TypeError, RuntimeError, NotImplementedError):
            continue  # no samples of this dtype (the CPU cannot make them)
        meta_samples = SAMPLES[name]("meta", dtype)
        for cpu_sample, meta_sample in zip(cpu_samples, meta_samples, strict=True):
            try:
                expected = call_op(name, cpu_sample)
            except (TypeError, ValueError, RuntimeError, NotImplementedError, IndexError):
                continue  # a call the CPU refuses (a dtype the operator does not take)
            try:
                with tc.device("meta"):  # for factories whose samples name no device
                    got = call_op(name, meta_sample)
            except (RuntimeError, NotImplementedError) as exc:
                assert DELIBERATE.search(str(exc)), f"{meta_sample}: {exc}"
                failed += 1
                continue
            ran += 1
            assert _metadata(got) == _metadata(expected), meta_sample
            assert _devices(got) <= {"meta"}, meta_sample
    if name in DATA_DEPENDENT or name in READS_VALUES or name in COMPOSITES_READING_VALUES:
        assert failed and not ran, f"{name}: {ran} samples ran on meta"
    else:
        assert ran, f"{name}: no sample ran on meta ({failed} raised)"


#: PyTorch's error for a meta tensor passed where a number goes: the core reads the number
#: with ``item()`` before the kernel runs, and its message names ``Tensor.item()``, not the
#: operator (a gap of the core's argument conversion, not of a meta kernel).
ITEM = "Tensor.item() cannot be called on meta tensors"


#: Arguments that only the CPU kernel checks (the core's frontend does not), so a kernel that
#: computes nothing accepts them: gaps of the core's declarations, listed to be fixed there.
# Operators whose bad input only a computing kernel would catch (none: ``div``'s rounding
# mode and ``polygamma``'s order are declared checks of the core now).
CORE_GAPS: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=CORE_GAPS[n]))
        if n in CORE_GAPS
        else n
        for n in core_ops()
    ],
)
def test_operators_under_bad_input(name: str) -> None:
    """The fuzzing harness on meta: standard exceptions naming the operator, nothing changed
    by a failed call, and no silent return for a certainly invalid argument
    (``tensorcore.testing.fuzz`` compares metadata and versions only on a device without
    data)."""
    from tensorcore.testing import fuzz

    for case in fuzz.cases("meta", only={name}):
        r = fuzz.run(case)
        if r.ok or (not r.named and ITEM in str(r.exc) and not (r.odd or r.changed)):
            continue
        pytest.fail(r.describe())
