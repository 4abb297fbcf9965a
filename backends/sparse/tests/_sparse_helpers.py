"""Helpers of the sparse backend's tests: Hypothesis strategies for sparsity patterns, the
dense oracle, and a gradient check for sparse inputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

import tensorcore as tc


@st.composite
def coo_parts(
    draw: Any,
    max_ndim: int = 3,
    max_size: int = 5,
    max_nnz: int = 8,
    dense_dims: bool = True,
    min_ndim: int = 1,
) -> tuple[Any, Any, tuple[int, ...]]:
    """(indices, values, size) as NumPy arrays: any sparsity pattern, including empty
    tensors (nnz 0, or a zero size) and duplicate indices."""
    ndim = draw(st.integers(min_ndim, max_ndim))
    shape = tuple(draw(st.lists(st.integers(0, max_size), min_size=ndim, max_size=ndim)))
    sd = draw(st.integers(1, ndim)) if dense_dims else ndim
    nnz = 0 if 0 in shape[:sd] else draw(st.integers(0, max_nnz))
    idx = np.array(
        [[draw(st.integers(0, shape[d] - 1)) for _ in range(nnz)] for d in range(sd)],
        dtype=np.int64,
    ).reshape(sd, nnz)
    vals = draw(
        st.lists(
            st.floats(-4, 4, allow_nan=False, width=32).filter(lambda v: abs(v) > 1e-3),
            min_size=nnz * int(np.prod(shape[sd:])),
            max_size=nnz * int(np.prod(shape[sd:])),
        )
    )
    values = np.array(vals, dtype=np.float64).reshape((nnz,) + shape[sd:])
    return idx, values, shape


def make(parts: Any, device: str, dtype: tc.dtype = tc.float64, coalesce: bool = False) -> Any:
    """A sparse tensor from :func:`coo_parts`' arrays."""
    idx, values, shape = parts
    x = tc.sparse_coo_tensor(
        tc.tensor(idx.tolist(), dtype=tc.int64).reshape(idx.shape),
        tc.tensor(values.tolist(), dtype=dtype).reshape(values.shape),
        shape,
        device=device,
    )
    return x.coalesce() if coalesce else x


def dense_of(parts: Any) -> Any:
    """The dense NumPy array a sparse tensor of :func:`coo_parts` stands for."""
    idx, values, shape = parts
    out = np.zeros(shape, dtype=np.float64)
    np.add.at(out, tuple(idx), values)
    return out


def _flat(t: Any) -> np.ndarray:
    t = t.detach()
    if t.is_sparse:
        t = t.to_dense()
    return np.array(t.tolist(), dtype=np.float64).reshape(-1)


def sparse_gradcheck(
    fn: Callable[..., Any],
    inputs: list[Any],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
) -> bool:
    """``tc.autograd.gradcheck`` for functions of sparse (and dense) inputs.

    A sparse input is perturbed through its values (``x._values()`` aliases them), one stored
    value at a time, so the numerical derivative is taken with respect to each specified
    entry. The analytical gradient of a sparse input must be a sparse tensor that is zero
    outside the input's sparsity pattern (the gradient contract); each stored value's
    derivative is that gradient at the value's index. A dense input's gradient must be dense.
    Sparse outputs are compared through ``to_dense()``.
    """
    out = fn(*inputs)
    n_out = out.numel()
    for k, x in enumerate(inputs):
        if not (isinstance(x, tc.Tensor) and x.requires_grad):
            continue
        data = x._values().numpy() if x.is_sparse else x.detach().numpy()
        flat = data.reshape(-1)
        assert not flat.size or np.shares_memory(flat, data), "perturbing a copy checks nothing"
        numerical = np.zeros((n_out, flat.size))
        for e in range(flat.size):
            orig = flat[e]
            flat[e] = orig + eps
            with tc.no_grad():
                plus = _flat(fn(*inputs))
            flat[e] = orig - eps
            with tc.no_grad():
                minus = _flat(fn(*inputs))
            flat[e] = orig
            numerical[:, e] = (plus - minus) / (2 * eps)
        analytical = np.zeros_like(numerical)
        for j in range(n_out):
            o = fn(*inputs)
            onehot = tc.zeros(n_out, dtype=o.dtype, device=o.device)
            onehot[j] = 1.0
            (g,) = tc.autograd.grad(o, [x], onehot.reshape(o.shape), allow_unused=True)
            if g is None:
                continue
            if x.is_sparse:
                assert g.is_sparse, f"the gradient of sparse input {k} is {g.layout}"
                gd = g.to_dense().detach().cpu().numpy()
                idx = tuple(x._indices().cpu().numpy())
                pattern = np.zeros(x.shape[: len(idx)], dtype=bool)
                pattern[idx] = True
                assert not gd[~pattern].any(), f"input {k}: gradient outside the pattern"
                analytical[j] = gd[idx].reshape(-1)
            else:
                assert not g.is_sparse, f"the gradient of dense input {k} is sparse"
                analytical[j] = _flat(g)
        if not np.allclose(analytical, numerical, atol=atol, rtol=rtol):
            raise AssertionError(
                f"Jacobian mismatch for input {k}:\nanalytical\n{analytical}\nnumerical\n"
                f"{numerical}"
            )
    return True


def as_np(t: Any) -> np.ndarray:
    """A tensor's elements as a NumPy array (sparse tensors through ``to_dense()``)."""
    t = t.detach()
    if t.is_sparse:
        t = t.to_dense()
    return np.array(t.cpu().numpy(), dtype=np.float64)
