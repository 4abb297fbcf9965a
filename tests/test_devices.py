"""Devices: parsing, identity, the default device and errors for device types no backend has."""

from __future__ import annotations

import pickle

import pytest

import tensorcore as tc
from tensorcore.plugins import manager

# A device type no backend provides in this test run.
UNKNOWN = "nosuchdevice"


@pytest.mark.parametrize(
    ("text", "type_", "index"),
    [("cpu", "cpu", None), ("cuda", "cuda", None), ("cuda:0", "cuda", 0), ("cuda:12", "cuda", 12),
     ("toy_dev2:3", "toy_dev2", 3)],
)  # fmt: skip
def test_parse(text: str, type_: str, index: int | None) -> None:
    d = tc.device(text)
    assert (d.type, d.index) == (type_, index)
    assert str(d) == text
    expected_repr = (
        f"device(type='{type_}')" if index is None else f"device(type='{type_}', index={index})"
    )
    assert repr(d) == expected_repr


def test_type_and_index_arguments() -> None:
    assert tc.device("cuda", 1) == tc.device("cuda:1")
    assert tc.device("cuda", 1).index == 1
    d = tc.device("cpu")
    assert tc.device(d) is d


def test_equality_and_hash() -> None:
    a, b = tc.device("cuda:1"), tc.device("cuda", 1)
    assert a == b and hash(a) == hash(b)
    assert a == "cuda:1"
    assert a != tc.device("cuda:0")
    assert tc.device("cuda") != tc.device("cuda:0")
    assert tc.device("cpu") != tc.device("cuda")
    assert len({a, b, tc.device("cuda:0")}) == 2
    assert tc.device("cpu") != 3


def test_devices_are_immutable_and_picklable() -> None:
    d = tc.device("cuda:2")
    with pytest.raises(AttributeError):
        d.index = 3  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(d)) == d


@pytest.mark.parametrize(
    "text",
    ["", "cuda:", ":0", "cuda:0:1", "cuda:x", "cuda:-1", " cpu", "cpu ", "CUDA", "cu da", "1cpu"],
)
def test_malformed_strings_raise(text: str) -> None:
    with pytest.raises(RuntimeError, match="Invalid device string"):
        tc.device(text)


def test_bad_index_arguments() -> None:
    with pytest.raises(RuntimeError, match="already has an index"):
        tc.device("cuda:0", 1)
    with pytest.raises(RuntimeError, match="must not be negative"):
        tc.device("cuda", -1)
    with pytest.raises(TypeError):
        tc.device("cuda", "1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tc.device(3)  # type: ignore[arg-type]


def test_tensors_live_on_the_requested_device(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    assert x.device == tc.empty(0, device=device).device  # (cuda:0 on a GPU, as PyTorch)
    assert x.device.type == device
    assert x.is_cpu is (device == "cpu")
    assert x.is_cuda is (device == "cuda")
    assert (x + 1).device == x.device
    assert x.to(device) is x


def test_with_device_sets_the_default_for_the_block(device: str) -> None:
    before = tc.get_default_device()
    with tc.device(device) as d:
        assert d == tc.device(device)
        assert tc.get_default_device() == tc.device(device)
        assert tc.tensor([1.0]).device.type == device
        with tc.device("cpu"):
            assert tc.get_default_device() == tc.device("cpu")
        assert tc.get_default_device() == tc.device(device)
    assert tc.get_default_device() == before


def test_with_device_restores_on_error() -> None:
    before = tc.get_default_device()
    with pytest.raises(ZeroDivisionError), tc.device("cuda:3"):
        assert tc.get_default_device() == tc.device("cuda:3")
        1 / 0  # noqa: B018
    assert tc.get_default_device() == before


def test_set_default_device(device: str) -> None:
    assert tc.get_default_device() == tc.device("cpu")
    tc.set_default_device(device)
    assert tc.get_default_device() == tc.device(device)
    assert tc.tensor([1, 2]).device.type == device
    tc.set_default_device(None)
    assert tc.get_default_device() == tc.device("cpu")


def test_factories_use_the_default_device(device: str) -> None:
    tc.set_default_device(device)
    assert tc.zeros(2).device.type == device
    assert tc.arange(3).device.type == device
    assert tc.full((2,), 1.0).device.type == device


def test_default_device_from_environment(run_py) -> None:
    out = run_py(
        """
        import tensorcore as tc
        print(tc.get_default_device(), tc.tensor([1.0]).device)
        """,
        env={"TENSORCORE_DEFAULT_DEVICE": "cpu"},
    ).stdout
    assert out.split() == ["cpu", "cpu"]


def test_unknown_default_device_from_environment(run_py) -> None:
    code = f"""
        import tensorcore as tc
        assert tc.get_default_device() == tc.device("{UNKNOWN}:1")
        try:
            tc.tensor([1.0])
        except RuntimeError as exc:
            print(exc)
        else:
            raise SystemExit("no error")
        """
    out = run_py(code, env={"TENSORCORE_DEFAULT_DEVICE": f"{UNKNOWN}:1"}).stdout
    assert f"no installed backend provides the device type '{UNKNOWN}'" in out
    assert f"install a backend package that provides '{UNKNOWN}'" in out


def test_unknown_device_type_names_what_to_install() -> None:
    with pytest.raises(RuntimeError, match=f"install a backend package that provides '{UNKNOWN}'"):
        tc.tensor([1.0], device=UNKNOWN)
    with pytest.raises(
        RuntimeError, match=f"no installed backend provides the device type '{UNKNOWN}'"
    ):
        tc.tensor([1.0]).to(UNKNOWN)


@pytest.mark.skipif("cuda" in tc.backends.devices(), reason="a CUDA backend is installed")
def test_missing_cuda_backend_names_the_package() -> None:
    with pytest.raises(RuntimeError, match=r"'tensorcore-cuda' \(pip install tensorcore-cuda\)"):
        tc.tensor([1.0], device="cuda")
    with pytest.raises(RuntimeError, match="tensorcore-cuda"):
        tc.tensor([1.0]).cuda()
    with pytest.raises(RuntimeError, match="tensorcore-cuda"):
        tc.zeros(2, device="cuda")


def test_device_index_out_of_range(device: str) -> None:
    n = manager.device_interfaces()[device].device_count()
    with pytest.raises(RuntimeError, match="does not exist"):
        tc.tensor([1.0], device=f"{device}:{n}")


_UNAVAILABLE = [name for name, ok in tc.backends.devices().items() if not ok]


@pytest.mark.parametrize(
    "name",
    _UNAVAILABLE
    or [
        pytest.param(
            None, marks=pytest.mark.skip(reason="every registered device type is usable here")
        )
    ],
)
def test_unavailable_device_says_why(name: str) -> None:
    reason = manager.device_interfaces()[name].unavailable_reason
    assert reason
    with pytest.raises(RuntimeError, match=f"device '{name}' is not available: "):
        tc.tensor([1.0], device=name)
    with pytest.raises(RuntimeError, match=f"device '{name}' is not available: "):
        tc.zeros(2, device=name)
    with pytest.raises(RuntimeError, match="is not available"):
        tc.ones(2).to(name)


def test_type_and_index_zero_name_one_device(device: str) -> None:
    # "cpu" and "cpu:0" are one device (PyTorch: ``x.to("cpu:0")`` copies within the CPU);
    # so are "mydev" and "mydev:0" of any one-device type, whichever of the two its
    # allocator puts on its tensors: moves, copies and mixed calls stay on the device.
    if manager.device_interfaces()[device].device_count() != 1:
        pytest.skip(f"{device} has several devices")
    x = tc.tensor([1.0, 2.0], device=device)
    y = x.to(f"{device}:0")
    assert y.device.type == device and y.tolist() == [1.0, 2.0]
    if x.device == tc.device(f"{device}:0"):
        assert y is x  # (PyTorch: already there, the tensor itself)
        y = x.to(f"{device}:0", copy=True)
    y.add_(x)
    assert (x + y).tolist() == [3.0, 6.0]
    x.copy_(y)
    assert x.tolist() == [2.0, 4.0]
    assert y.to(device).tolist() == [2.0, 4.0]


def test_one_device_type_with_index_labels() -> None:
    # A third-party allocator that labels tensors with the device it is asked for, as
    # the toy backend of tests/toy_backend.py (and the docs' examples) do.
    from toy_backend import ToyPlugin

    tc.backends.register(ToyPlugin("toy_labels"), name="toy-labels")
    x = tc.tensor([1.0, 2.0], device="toy_labels")
    y = x.to("toy_labels:0")
    assert str(y.device) == "toy_labels:0" and y.tolist() == [1.0, 2.0]
    assert (x + y).tolist() == [2.0, 4.0]
    assert (y + x).tolist() == [2.0, 4.0]
    assert (x * y).to("toy_labels").tolist() == [1.0, 4.0]
    with pytest.raises(RuntimeError, match="does not exist"):
        tc.tensor([1.0], device="toy_labels:1")
