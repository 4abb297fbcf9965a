"""A tour of tensorcore: tensors, views, operators, type promotion, devices and backends.

Run it after installing the core and the CPU backend:

    python3 -m pip install -e . -e backends/xp -e backends/cpu && python3 examples/quickstart.py
"""

from __future__ import annotations

import tensorcore as tc
from tensorcore._info import report


def section(title: str) -> None:
    """Print a section heading."""
    print(f"\n=== {title} ===")


def show(label: str, value: object) -> None:
    """Print a labelled value; multi-line values start on their own line."""
    text = str(value)
    print(f"{label}:\n{text}" if "\n" in text else f"{label}: {text}")


def creating_tensors() -> None:
    """Make tensors from data and with factories."""
    section("Creating tensors")
    show("tc.tensor([[1, 2], [3, 4]])", tc.tensor([[1, 2], [3, 4]]))
    show("tc.tensor([1.5, 2.0]).dtype", tc.tensor([1.5, 2.0]).dtype)
    show("tc.zeros(2, 3)", tc.zeros(2, 3))
    show("tc.arange(6)", tc.arange(6))
    x = tc.arange(12, dtype=tc.float32).reshape(3, 4)
    show("tc.arange(12, dtype=tc.float32).reshape(3, 4)", x)
    show("shape, stride(), dtype, device", (x.shape, x.stride(), x.dtype, x.device))


def views_share_storage() -> None:
    """Views are new sizes/strides/offset over the same storage: they never copy."""
    section("Views share storage")
    x = tc.zeros(3, 4)
    xt = x.t()
    show("x.t().shape, x.t().stride()", (xt.shape, xt.stride()))
    show("x.t().data_ptr() == x.data_ptr()", xt.data_ptr() == x.data_ptr())
    y = x[1:, ::2]
    show(
        "y = x[1:, ::2]: shape, stride(), storage_offset()",
        (y.shape, y.stride(), y.storage_offset()),
    )
    show("same storage as x", y.untyped_storage() is x.untyped_storage())
    show("y.data_ptr() - x.data_ptr() (bytes)", y.data_ptr() - x.data_ptr())
    y[0, 0] = 7.0  # writes through the view ...
    xt[3, 2] = 9.0  # ... and through the transpose
    show("x after writing through y and x.t()", x)
    assert x[1, 0].item() == 7.0 and x[2, 3].item() == 9.0
    show("x._version (bumped by each in-place write)", x._version)


def operators() -> None:
    """Broadcasting arithmetic, matmul, reductions and softmax."""
    section("Operators")
    a = tc.tensor([[1.0], [2.0], [3.0]])  # (3, 1)
    b = tc.tensor([10.0, 20.0])  # (2,)
    show("(3, 1) + (2,) broadcasts to (3, 2)", a + b)
    m = tc.arange(6, dtype=tc.float32).reshape(2, 3)
    show("m @ m.t()", m @ m.t())
    show("m.sum(dim=1)", m.sum(dim=1))
    show("tc.softmax(m, dim=1)", tc.softmax(m, dim=1))


def type_promotion() -> None:
    """PyTorch's promotion rules: Python scalars are 'weak'."""
    section("Type promotion")
    i8 = tc.tensor([1, 2, 3], dtype=tc.int8)
    show("int8 tensor * 3 -> dtype", (i8 * 3).dtype)
    show("int64 tensor * 1.5 -> dtype", (tc.tensor([1, 2, 3]) * 1.5).dtype)
    show("tc.result_type(int8 tensor, 3.0)", tc.result_type(i8, 3.0))


def devices() -> None:
    """The default device, a device block, and moving tensors."""
    section("Devices")
    tc.set_default_device("cpu")
    show("tc.get_default_device()", tc.get_default_device())
    with tc.device("cpu"):
        show("tc.ones(2).device inside `with tc.device('cpu')`", tc.ones(2).device)
    x = tc.ones(2)
    show("x.to('cpu') is x (already there)", x.to("cpu") is x)
    show("tc.backends.devices()", tc.backends.devices())


def main() -> None:
    """Run every part of the tour, then print what `python -m tensorcore` reports."""
    creating_tensors()
    views_share_storage()
    operators()
    type_promotion()
    devices()
    section("python -m tensorcore")
    print(report())


if __name__ == "__main__":
    main()
