"""Error paths: what each error says and which exception type carries it (PyTorch's wording
where PyTorch has one)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.dispatch import get_op

TESTS_DIR = os.path.dirname(__file__)


def test_missing_kernel_names_op_device_layout_dtypes_and_backends(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from toy_backend import ToyPlugin

        tc.backends.register(ToyPlugin("errtoy"), name="errtoy-plugin")
        x = tc.tensor([1.0, 2.0], device="errtoy")
        try:
            tc.exp(x)
        except NotImplementedError as exc:
            print("MISSING:", exc)
        try:
            x + tc.tensor([1.0, 2.0])
        except RuntimeError as exc:
            print("MIXED:", exc)
        print("EXPLAIN:", tc.explain("exp", x))
    """
    out = run_py(code, env={"PYTHONPATH": TESTS_DIR}).stdout
    missing = next(line for line in out.splitlines() if line.startswith("MISSING:"))
    assert (
        "Could not run 'exp' with arguments from the 'errtoy' device and 'strided' layout"
        in missing
    )
    assert "(dtypes: float32)" in missing
    assert "It is available for: " in missing and "cpu/strided" in missing
    assert "Installed backends: " in missing and "cpu" in missing and "errtoy-plugin" in missing
    mixed = next(line for line in out.splitlines() if line.startswith("MIXED:"))
    assert (
        "Expected all tensors to be on the same device, but found at least two devices, "
        "errtoy and cpu!" in mixed
    )
    assert "EXPLAIN: exp[errtoy, strided] -> no kernel: Could not run 'exp'" in out


def test_kernel_lookup_on_an_unknown_device_names_what_to_install() -> None:
    # No backend provides the device at all: that, not a missing kernel, is the error.
    with pytest.raises(RuntimeError, match="install a backend package that provides 'nosuchdev'"):
        get_op("add").resolve(("nosuchdev", "strided"), (tc.float32, tc.int64))


def test_unknown_layout_names_what_to_install() -> None:
    with pytest.raises(NotImplementedError) as info:
        get_op("add").resolve(("cpu", "nosuchlayout"), (tc.float32,))
    msg = str(info.value)
    assert (
        "Could not run 'add' with arguments from the 'cpu' device and 'nosuchlayout' layout" in msg
    )
    assert "(dtypes: float32)" in msg
    assert (
        "To use the 'nosuchlayout' layout, install a backend package that provides 'nosuchlayout'"
        in msg
    )


@pytest.mark.skipif(
    any("sparse_coo" in p.layouts for p in tc.backends.list()),
    reason="a sparse backend is installed",
)
def test_missing_sparse_backend_names_the_package() -> None:
    with pytest.raises(
        NotImplementedError,
        match=r"install the backend package 'tensorcore-sparse' \(pip install tensorcore-sparse\)",
    ):
        get_op("add").resolve(("cpu", "sparse_coo"))


def test_unknown_device_names_the_package() -> None:
    with pytest.raises(
        RuntimeError, match="no installed backend provides the device type 'nosuchdev'"
    ):
        tc.tensor([1.0], device="nosuchdev")
    for factory in (tc.zeros, tc.empty, tc.arange, tc.rand):
        with pytest.raises(
            RuntimeError, match="install a backend package that provides 'nosuchdev'"
        ):
            factory(2, device="nosuchdev")


def test_broadcast_mismatch_uses_pytorch_wording(device: str) -> None:
    a = tc.tensor(np.ones((2, 3)), device=device)
    b = tc.tensor(np.ones(4), device=device)
    msg = (
        r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton "
        r"dimension 1"
    )
    with pytest.raises(RuntimeError, match=msg):
        a + b
    with pytest.raises(RuntimeError, match=msg):
        tc.where(tc.tensor([True, False, True], device=device), a, b)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        tc.broadcast_shapes((2, 3), (3, 2))


def test_linear_dtype_mismatch_uses_pytorch_wording(device: str) -> None:
    # The message people search for: a float64 batch through a float32 layer.
    layer = tc.nn.Linear(3, 2).to(device)
    x = tc.ones(1, 3, dtype=tc.float64, device=device)
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got "
                                           "Double and Float"):  # fmt: skip
        layer(x)


def test_unsupported_dtype_names_operator_and_dtype(device: str) -> None:
    # PyTorch's dispatcher error, a NotImplementedError (a RuntimeError), also for bitwise ops
    f = tc.tensor([1.0, 2.0], device=device)
    with pytest.raises(NotImplementedError, match=r"bitwise_and.*Float"):
        tc.bitwise_and(f, f)
    with pytest.raises(NotImplementedError, match=r"bitwise_left_shift.*Double"):
        f.double() << 1
    with pytest.raises(NotImplementedError, match=r"bitwise_not.*Float"):
        tc.bitwise_not(f)
    # (Python's ~ raises PyTorch's TypeError before any operator runs)
    with pytest.raises(TypeError, match="only implemented on integer and Boolean-type tensors"):
        _ = ~f
    with pytest.raises(RuntimeError, match=r"amax.*ComplexFloat"):
        tc.tensor([1j], device=device).amax()
    with pytest.raises(RuntimeError, match=r"mean.*Long"):
        tc.tensor([1, 2], device=device).mean()


_DIM_ERRORS: list[tuple[str, Callable[[tc.Tensor], Any], int]] = [
    ("sum", lambda x: x.sum(2), 2),
    ("sum-neg", lambda x: x.sum(-3), -3),
    ("mean-tuple", lambda x: x.mean((0, 5)), 5),
    ("amax", lambda x: x.amax(2), 2),
    ("argmax", lambda x: x.argmax(2), 2),
    ("max", lambda x: x.max(2), 2),
    ("softmax", lambda x: x.softmax(2), 2),
    ("cumsum", lambda x: x.cumsum(-3), -3),
    ("sort", lambda x: x.sort(2), 2),
    ("topk", lambda x: x.topk(1, 2), 2),
    ("transpose", lambda x: x.transpose(0, 2), 2),
    ("select", lambda x: x.select(2, 0), 2),
    ("narrow", lambda x: x.narrow(2, 0, 1), 2),
    ("unsqueeze", lambda x: x.unsqueeze(3), 3),
    ("squeeze", lambda x: x.squeeze(2), 2),
    ("flatten", lambda x: x.flatten(0, 2), 2),
    ("movedim", lambda x: x.movedim(0, 2), 2),
    ("diagonal", lambda x: x.diagonal(0, 0, 2), 2),
    ("unfold", lambda x: x.unfold(2, 1, 1), 2),
    ("flip", lambda x: x.flip(2), 2),
    ("roll", lambda x: x.roll(1, 2), 2),
    ("gather", lambda x: x.gather(2, tc.zeros(2, 3, dtype=tc.int64, device=x.device)), 2),
    ("index_select", lambda x: x.index_select(2, tc.zeros(1, dtype=tc.int64, device=x.device)), 2),
    ("cat", lambda x: tc.cat([x, x], 2), 2),
    ("stack", lambda x: tc.stack([x, x], 3), 3),
    ("size", lambda x: x.size(2), 2),
    ("stride", lambda x: x.stride(-3), -3),
]


@pytest.mark.parametrize(("case", "fn", "bad"), _DIM_ERRORS, ids=[c[0] for c in _DIM_ERRORS])
def test_dim_out_of_range_is_an_index_error(device: str, case: str, fn: Any, bad: int) -> None:
    x = tc.tensor(np.ones((2, 3), np.float32), device=device)
    lo, hi = (-3, 2) if case in ("unsqueeze", "stack") else (-2, 1)
    msg = rf"Dimension out of range \(expected to be in range of \[{lo}, {hi}\], but got {bad}\)"
    with pytest.raises(IndexError, match=msg):
        fn(x)


def test_inplace_casting_errors(device: str) -> None:
    i = tc.tensor([1, 2], device=device)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        i.add_(1.5)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        i.div_(2)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Int"
    ):
        tc.tensor([1], dtype=tc.int32, device=device).sqrt_()
    with pytest.raises(
        RuntimeError, match="result type Double can't be cast to the desired output type Bool"
    ):
        tc.tensor([True], device=device).mul_(tc.tensor([2.0], dtype=tc.float64, device=device))
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        tc.mul(i, 0.5, out=tc.tensor([0, 0], device=device))


_FACTORY = "Only Tensors of floating point and complex dtype can require gradients"


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda d: tc.tensor([1, 2], requires_grad=True, device=d), _FACTORY),
        (lambda d: tc.tensor([True], requires_grad=True, device=d), _FACTORY),
        (lambda d: tc.zeros(2, dtype=tc.int64, requires_grad=True, device=d), _FACTORY),
        (lambda d: tc.arange(3, requires_grad=True, device=d), _FACTORY),
        (
            lambda d: tc.tensor([1, 2], dtype=tc.uint8, device=d).requires_grad_(),
            "only Tensors of floating point dtype can require gradients",
        ),
        (
            lambda d: setattr(tc.tensor([1], device=d), "requires_grad", True),
            "only Tensors of floating point and complex dtype can require gradients",
        ),
    ],
    ids=["tensor", "bool", "zeros", "arange", "requires_grad_", "attribute"],
)
def test_integer_tensors_cannot_require_grad(device: str, make: Any, words: str) -> None:
    """PyTorch's three wordings: factories', ``requires_grad_()``'s, the attribute's."""
    with pytest.raises(RuntimeError, match=f"(^|: ){words}$"):
        make(device)


def test_floating_and_complex_tensors_can_require_grad(device: str) -> None:
    assert tc.tensor([1.0], requires_grad=True, device=device).requires_grad
    assert tc.tensor([1j], device=device).requires_grad_().requires_grad
    x = tc.tensor([1], device=device)
    x.requires_grad_(False)
    assert not x.requires_grad


def test_tensor_protocol_errors(device: str) -> None:
    with pytest.raises(TypeError, match="data must be a sequence"):
        tc.Tensor(1.5)
    x = tc.tensor([1.0, 2.0], device=device)
    with pytest.raises(
        RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"
    ):
        bool(x)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(tc.tensor(1.0, device=device))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(tc.tensor(1.0, device=device))
    with pytest.raises(
        TypeError, match="only integer tensors of a single element can be converted to an index"
    ):
        x.__index__()


def test_unknown_operator() -> None:
    with pytest.raises(ValueError, match="unknown operator 'no_such_op'"):
        get_op("no_such_op")
    with pytest.raises(ValueError, match="unknown operator 'no_such_op'"):
        tc.explain("no_such_op")


def test_argument_errors(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    with pytest.raises(TypeError, match=r"add\(\): argument 'other' must be Tensor or Number"):
        tc.add(x, "a")
    with pytest.raises(TypeError):
        tc.zeros(2.5)
    with pytest.raises(TypeError):
        tc.zeros(2, dtype="float32")
    with pytest.raises(TypeError):
        x.sum(dim=1.5)


def test_calls_with_three_tensor_parameters_check_each_one(device: str) -> None:
    """The call path's plain case for three or more tensor parameters (every one a tensor on
    one device, or None where optional) and what it leaves to the full scan: a scalar, a
    None where a tensor is required, a tensor on another device."""
    from tensorcore.ops import functions as ops

    x, w = tc.ones(2, 3, device=device), tc.ones(4, 3, device=device)
    b = tc.ones(4, device=device, requires_grad=True)
    assert not ops.linear(x, w, None).requires_grad
    assert ops.linear(x, w, b).requires_grad  # the third tensor's requires_grad counts
    with pytest.raises(TypeError, match=r"linear\(\): argument 'bias' must be Tensor, not int"):
        ops.linear(x, w, 3)
    with pytest.raises(TypeError, match="argument 'weight' must be Tensor, not NoneType"):
        ops.linear(x, None, b)
    other = "meta" if device != "meta" else "cpu"
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ops.linear(x, w, b.detach().to(other))
    g = tc.ones(2, 4, device=device)
    with pytest.raises(TypeError, match="linear_backward\\(\\): argument 'weight' must be Tensor"):
        ops.linear_backward(g, x, 5, [1, 1, 1])


def test_wordings_of_index_dtypes_probabilities_and_implicit_softmax_dims(device: str) -> None:
    """PyTorch's words: index_select's index dtype, nll_loss's target dtype (Byte targets are
    class indices too), bernoulli_'s p, and the warning of softmax without ``dim``."""
    x = tc.zeros(3, 4, device=device)
    with pytest.raises(RuntimeError, match=r"Expected dtype int32 or int64 for index$"):
        x.index_select(0, tc.tensor([1.0], device=device))
    with pytest.raises(IndexError, match=r"Index is supposed to be a vector$"):
        x.index_select(0, tc.zeros(1, 1, dtype=tc.int64, device=device))
    with pytest.raises(
        RuntimeError, match=r"expected target dtype to be Long or Byte, but got Float$"
    ):
        tc.nn.functional.nll_loss(x, tc.zeros(3, device=device))
    byte = tc.nn.functional.nll_loss(x - 1.0, tc.tensor([0, 1, 3], dtype=tc.uint8, device=device))
    assert byte.item() == 1.0
    with pytest.raises(RuntimeError, match=r"expects p to be in \[0, 1\], but got p=2$"):
        x.bernoulli_(2.0)
    for fn in ("softmax", "log_softmax", "softmin"):
        with pytest.warns(UserWarning, match=f"Implicit dimension choice for {fn} has been dep"):
            out = getattr(tc.nn.functional, fn)(x)
        tc.testing.assert_close(out, getattr(tc.nn.functional, fn)(x, dim=1))


_SUBJECT_MESSAGES: list[tuple[Callable[[str], Any], type[Exception], str]] = [
    (
        lambda d: tc.where(tc.ones(2, device=d), 1.0, 0.0),
        RuntimeError,
        "where expected condition to be a boolean tensor, but got a tensor with dtype Float",
    ),
    (
        lambda d: tc.stft(tc.ones(20, device=d), 8),
        RuntimeError,
        "stft requires the return_complex parameter be given for real inputs, and will further "
        "require that return_complex=True in a future PyTorch release.",
    ),
    (lambda d: tc.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    (
        lambda d: tc.multinomial(tc.ones(2, dtype=tc.int64, device=d), 1),
        RuntimeError,
        "multinomial only supports floating-point dtypes for input, got: Long",
    ),
    (
        lambda d: tc.ones(3, device=d).chunk(0),
        RuntimeError,
        "chunk expects `chunks` to be greater than 0, got: 0",
    ),
    (
        lambda d: tc.ones(2, device=d).masked_fill_(tc.ones(2, dtype=tc.int64, device=d), 1.0),
        RuntimeError,
        "masked_fill_ only supports boolean masks, but got mask with dtype long int",
    ),
    (
        lambda d: tc.ones(2, device=d).exponential_(-1),
        RuntimeError,
        "exponential_ expects lambda > 0.0, but found lambda=-1",
    ),
    (
        lambda d: tc.ones(2, device=d).geometric_(1.5e10),
        RuntimeError,
        "geometric_ expects p to be in (0, 1), but got p=1.5e+10",
    ),
    (
        lambda d: tc.ones(2, device=d).uniform_(2.5, 1e-7),
        RuntimeError,
        "uniform_ expects to return a [from, to) range, but found from=2.5 > to=1e-07",
    ),
    (
        lambda d: tc.ones(2, device=d).uniform_(float("inf"), 1.0),
        RuntimeError,
        "uniform_(): from is out of bounds for float",
    ),
    (
        lambda d: tc.ones(2, dtype=tc.float16, device=d).uniform_(0.0, float("nan")),
        RuntimeError,
        "uniform_(): to is out of bounds for c10::Half",
    ),
    (
        lambda d: tc.ones(2, dtype=tc.float64, device=d).uniform_(-1e308, 1e308),
        RuntimeError,
        "uniform_ expects to-from <= std::numeric_limits<Double>::max(), but found to=1e+308 "
        "and from=-1e+308 which result in to-from to exceed the limit",
    ),
    (
        lambda d: tc.ones(2, device=d).normal_(0, -2),
        RuntimeError,
        "normal expects std >= 0.0, but found std -2",
    ),
]


@pytest.mark.parametrize("k", range(len(_SUBJECT_MESSAGES)))
def test_messages_keep_pytorchs_words_without_a_prefix(device: str, k: int) -> None:
    """PyTorch opens some messages with the operator's bare name as their subject (``where
    expected ...``): no ``where(): `` goes in front of them (a message that does not name
    the operator gets the prefix, as ``uniform_``'s bounds checks); numbers are printed as C++
    streams print a double (``-1``, ``1e-07``)."""
    fn, exc, message = _SUBJECT_MESSAGES[k]
    with pytest.raises(exc) as info:
        fn(device)
    assert str(info.value) == message


_WARNING_CALLS: list[tuple[str, Callable[[str], Any]]] = [
    ("meshgrid", lambda d: tc.meshgrid(tc.ones(2, device=d))),
    ("stft", lambda d: tc.stft(tc.ones(16, device=d), 8, return_complex=True)),
    ("istft", lambda d: tc.istft(tc.ones(5, 3, dtype=tc.complex64, device=d), 8)),
    ("cov", lambda d: tc.cov(tc.ones(2, 1, device=d))),
    (
        "scatter",
        lambda d: tc.zeros(3, device=d).scatter(
            0, tc.tensor([0], device=d), tc.ones(1, device=d), reduce="add"
        ),
    ),
]


@pytest.mark.parametrize("name", [n for n, _ in _WARNING_CALLS])
@pytest.mark.parametrize("grad", [False, True])
def test_warnings_point_at_the_callers_line(device: str, name: str, grad: bool) -> None:
    """As PyTorch's do, whatever path (lane, call path, autograd, composite) the call takes."""
    fn = dict(_WARNING_CALLS)[name]
    with warnings.catch_warnings(record=True) as record, tc.set_grad_enabled(grad):
        warnings.simplefilter("always")
        fn(device)
    assert record and all(w.filename == __file__ for w in record), [
        (w.filename, str(w.message)[:40]) for w in record
    ]
