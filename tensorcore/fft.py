"""``tensorcore.fft``: discrete Fourier transforms (PyTorch's ``torch.fft`` names).

Every transform is written with three operators of the table, PyTorch's internal primitives:
``_fft_c2c`` (complex to complex), ``_fft_r2c`` (real to complex, optionally one-sided) and
``_fft_c2r`` (one-sided complex to real). The functions here promote the input, pad it with
zeros or trim it to ``n``/``s`` points, and pick the primitive, its direction and its
scaling; the primitives' derivative rules make every function differentiable, on every
device whose backend has the three kernels.

``norm`` is ``"backward"`` (the default: the forward transforms unscaled, the inverse ones
scaled by ``1/n``), ``"ortho"`` (both by ``1/sqrt(n)``) or ``"forward"`` (the forward ones by
``1/n``, the inverse ones unscaled). Real inputs of the complex transforms become complex of
their precision (``float32 -> complex64``), integer and bool inputs the default float's
first; 16-bit floats are refused, as by PyTorch's CPU transforms.

Examples
--------
>>> import tensorcore as tc
>>> x = tc.tensor([1.0, 2.0, 3.0, 4.0])
>>> tc.fft.fft(x)
tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
>>> tc.fft.ifft(tc.fft.fft(x)).real
tensor([1., 2., 3., 4.])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from . import dtypes as dt
from ._tensor import Tensor, _wrap_dim, torch_name
from .amp.autocast_mode import fp32_function
from .ops import functions as ops
from .ops._validate import checked
from .ops.meta_fft import fft_dims, points_error

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]


# ------------------------------------------------------------------ shared steps
def _normalization(norm: str | None, forward: bool) -> int:
    """The primitives' ``normalization`` (0 none, 1 ``1/sqrt(n)``, 2 ``1/n``) for ``norm``
    and the direction of the transform."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x: Tensor, complex_: bool) -> Tensor:
    """``x`` in the dtype its transform computes in (PyTorch's ``promote_type_fft``)."""
    d = x.dtype
    if not (d.is_floating_point or d.is_complex):
        d = dt.get_default_dtype()
    elif d.itemsize == 2:
        raise RuntimeError(f"Unsupported dtype {torch_name(d)}")
    if complex_:
        d = d.to_complex()
    return x if d is x.dtype else x.to(d)


def _real_input(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        raise RuntimeError(f"expects a real input tensor, but got {torch_name(x.dtype)}")
    return _promote(x, False)


def _check_out(out: Tensor | None, complex_: bool) -> None:
    if out is None:
        return
    if complex_ and not out.dtype.is_complex:
        raise RuntimeError(f"expects a complex output tensor, but got {torch_name(out.dtype)}")
    if not complex_ and not out.dtype.is_floating_point:
        raise RuntimeError(
            f"expects a floating point output tensor, but got {torch_name(out.dtype)}"
        )


def _resize(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """``x`` trimmed or padded with zeros at the end of each of ``dims`` to ``sizes``."""
    for d, n in zip(dims, sizes, strict=True):
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            shape = list(x.shape)
            shape[d] = n - have
            x = ops.cat([x, ops.zeros(shape, dtype=x.dtype, device=x.device)], d)
    return x


def _one_dim(x: Tensor, n: int | None, dim: int) -> tuple[int, int]:
    """The dim of a 1-D transform and its number of points (``n``, or the dim's size)."""
    (d,) = fft_dims(x, (dim,))
    points = x.shape[d] if n is None else n
    if points < 1:
        raise points_error(points)
    return d, points


def _n_dims(
    x: Tensor, s: Sequence[int] | None, dim: Sequence[int] | None
) -> tuple[tuple[int, ...], list[int]]:
    """The dims of an n-D transform and their numbers of points (PyTorch's
    ``canonicalize_fft_shape_and_dim_args``): ``s`` alone names the last ``len(s)`` dims,
    neither means every dim, and ``-1`` in ``s`` keeps a dim's size."""
    if dim is not None:
        dims = fft_dims(x, dim)
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > x.ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions."
            )
        dims = tuple(range(x.ndim - len(s), x.ndim))
    else:
        dims = tuple(range(x.ndim))
    sizes = [x.shape[d] for d in dims] if s is None else list(s)
    for i, d in enumerate(dims):
        if sizes[i] == -1:
            sizes[i] = x.shape[d]
        if sizes[i] < 1:
            raise points_error(sizes[i])
    return dims, sizes


def _complex_transform(
    x: Tensor, dims: tuple[int, ...], norm: str | None, forward: bool, out: Tensor | None
) -> Tensor:
    """The full complex transform of a promoted, resized ``x``: a real ``x`` goes through the
    two-sided ``_fft_r2c`` (conjugated for the inverse), as PyTorch's 1-D transforms do."""
    if x.dtype.is_complex:
        return ops._fft_c2c(x, dims, _normalization(norm, forward), forward, out=out)
    if forward:
        return ops._fft_r2c(x, dims, _normalization(norm, True), False, out=out)
    return ops.conj(ops._fft_r2c(x, dims, _normalization(norm, False), False), out=out)


def _c2c_1d(
    input: Tensor, n: int | None, dim: int, norm: str | None, forward: bool, out: Tensor | None
) -> Tensor:
    _check_out(out, True)
    x = _promote(input, False)
    d, points = _one_dim(x, n, dim)
    return _complex_transform(_resize(x, (d,), (points,)), (d,), norm, forward, out)


def _c2c_nd(
    input: Tensor,
    s: Sequence[int] | None,
    dim: Sequence[int] | None,
    norm: str | None,
    forward: bool,
    out: Tensor | None,
) -> Tensor:
    _check_out(out, True)
    x = _promote(input, True)
    dims, sizes = _n_dims(x, s, dim)
    x = _resize(x, dims, sizes)
    return ops._fft_c2c(x, dims, _normalization(norm, forward), forward, out=out)


def _r2c_nd(
    input: Tensor,
    s: Sequence[int] | None,
    dim: Sequence[int] | None,
    norm: str | None,
    out: Tensor | None,
    hermitian: bool = False,
) -> Tensor:
    """rfftn, or (``hermitian``) ihfftn: the conjugate of the one-sided transform of the
    other direction."""
    _check_out(out, True)
    x = _real_input(input)
    dims, sizes = _n_dims(x, s, dim)
    if not dims:
        raise RuntimeError("must transform at least one axis")
    x = _resize(x, dims, sizes)
    if hermitian:
        half = ops._fft_r2c(x, dims, _normalization(norm, False), True)
        return ops.conj(half, out=out)
    return ops._fft_r2c(x, dims, _normalization(norm, True), True, out=out)


def _c2r_nd(
    input: Tensor,
    s: Sequence[int] | None,
    dim: Sequence[int] | None,
    norm: str | None,
    out: Tensor | None,
    hermitian: bool = False,
) -> Tensor:
    """irfftn, or (``hermitian``) hfftn: the inverse real transform of the conjugate, scaled
    as a forward transform."""
    _check_out(out, False)
    x = _promote(input, True)
    dims, sizes = _n_dims(x, s, dim)
    if not dims:
        raise RuntimeError("must transform at least one axis")
    # The last dim holds a one-sided spectrum: 2 * (size - 1) points unless s says.
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else sizes[-1]
    if last < 1:
        raise points_error(last)
    sizes[-1] = last // 2 + 1
    x = _resize(x, dims, sizes)
    if hermitian:
        return ops._fft_c2r(ops.conj(x), dims, _normalization(norm, True), last, out=out)
    return ops._fft_c2r(x, dims, _normalization(norm, False), last, out=out)


# ------------------------------------------------------------------ complex transforms
@checked(
    "fft(Tensor input, int? n=None, int dim=-1, str? norm=None, *, Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def fft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``.

    Parameters
    ----------
    input : Tensor
        Real or complex; integer and bool inputs are transformed in the default float dtype.
    n : int, optional
        The number of points: ``input`` is trimmed or padded with zeros along ``dim`` to
        ``n`` first (default: its size).
    dim : int
        The dim to transform (default: the last).
    norm : {"backward", "ortho", "forward"}, optional
        The scaling: none (``"backward"``, the default), ``1/sqrt(n)`` or ``1/n``.
    out : Tensor, optional
        A complex tensor for the result.

    Returns
    -------
    Tensor
        Complex, of the input's precision (``float32 -> complex64``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.fft(tc.tensor([1.0, 0.0, -1.0, 0.0]))
    tensor([0.+0.j, 2.+0.j, 0.+0.j, 2.+0.j])
    >>> tc.fft.fft(tc.tensor([1.0, 1.0]), n=4, norm="forward")
    tensor([0.5000+0.0000j, 0.2500-0.2500j, 0.0000+0.0000j, 0.2500+0.2500j])
    """
    return _c2c_1d(input, n, dim, norm, True, out)


@checked(
    "ifft(Tensor input, int? n=None, int dim=-1, str? norm=None, *, Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def ifft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The one-dimensional inverse discrete Fourier transform of ``input`` along ``dim``.

    The arguments are those of :func:`fft`; ``norm="backward"`` (the default) scales by
    ``1/n``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> spectrum = tc.fft.fft(tc.tensor([1.0, 2.0, 3.0, 4.0]))
    >>> tc.fft.ifft(spectrum).real
    tensor([1., 2., 3., 4.])
    """
    return _c2c_1d(input, n, dim, norm, False, out)


@checked(
    "fft2(Tensor input, int[]? s=None, int[] dim=[-2,-1], str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def fft2(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The two-dimensional discrete Fourier transform: :func:`fftn` over the last two dims.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.fft2(tc.ones(2, 2))
    tensor([[4.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j]])
    """
    return _c2c_nd(input, s, dim, norm, True, out)


@checked(
    "ifft2(Tensor input, int[]? s=None, int[] dim=[-2,-1], str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def ifft2(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The two-dimensional inverse discrete Fourier transform: :func:`ifftn` over the last
    two dims.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.ifft2(tc.fft.fft2(tc.eye(2))).real
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _c2c_nd(input, s, dim, norm, False, out)


@checked(
    "fftn(Tensor input, int[]? s=None, int[]? dim=None, str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def fftn(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] | None = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The N-dimensional discrete Fourier transform of ``input`` over ``dim``.

    Parameters
    ----------
    input : Tensor
        Real or complex; integer and bool inputs are transformed in the default float dtype.
    s : sequence of int, optional
        The number of points of each transformed dim (``-1`` keeps a dim's size): ``input``
        is trimmed or padded with zeros to it first. Without ``dim``, ``s`` names the last
        ``len(s)`` dims.
    dim : sequence of int, optional
        The dims to transform (default: every dim, or the last ``len(s)``).
    norm : {"backward", "ortho", "forward"}, optional
        The scaling: none (the default), ``1/sqrt(n)`` or ``1/n``, where ``n`` is the number
        of points transformed (the product of the sizes).
    out : Tensor, optional
        A complex tensor for the result.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.fftn(tc.ones(2, 3), norm="forward")
    tensor([[1.+0.j, 0.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j, 0.+0.j]])
    >>> tc.fft.fftn(tc.ones(2, 3), s=(2,), dim=(1,)).shape
    tensorcore.Size([2, 2])
    """
    return _c2c_nd(input, s, dim, norm, True, out)


@checked(
    "ifftn(Tensor input, int[]? s=None, int[]? dim=None, str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def ifftn(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] | None = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The N-dimensional inverse discrete Fourier transform; the arguments are
    :func:`fftn`'s.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.ifftn(tc.tensor([[6.0, 0.0], [0.0, 0.0]]))
    tensor([[1.5000+0.j, 1.5000+0.j],
            [1.5000+0.j, 1.5000+0.j]])
    """
    return _c2c_nd(input, s, dim, norm, False, out)


# ------------------------------------------------------------------ real transforms
@checked(
    "rfft(Tensor input, int? n=None, int dim=-1, str? norm=None, *, Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def rfft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The one-dimensional discrete Fourier transform of a real ``input``, one-sided: the
    ``n // 2 + 1`` non-negative frequencies (the others are their conjugates).

    The arguments are those of :func:`fft`; a complex ``input`` is an error.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.rfft(tc.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    _check_out(out, True)
    x = _real_input(input)
    d, points = _one_dim(x, n, dim)
    x = _resize(x, (d,), (points,))
    return ops._fft_r2c(x, (d,), _normalization(norm, True), True, out=out)


@checked(
    "irfft(Tensor input, int? n=None, int dim=-1, str? norm=None, *, Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def irfft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of :func:`rfft`: the real signal of ``n`` points whose one-sided spectrum
    is ``input`` along ``dim``.

    ``n`` defaults to ``2 * (input.size(dim) - 1)``; give it for an odd length. ``input`` is
    trimmed or padded with zeros to ``n // 2 + 1`` values first. The imaginary parts of the
    zero frequency (and of the Nyquist frequency for an even ``n``) are ignored.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.irfft(tc.fft.rfft(tc.tensor([1.0, 2.0, 3.0])), n=3)
    tensor([1., 2., 3.])
    """
    _check_out(out, False)
    x = _promote(input, True)
    (d,) = fft_dims(x, (dim,))
    points = 2 * (x.shape[d] - 1) if n is None else n
    if points < 1:
        raise points_error(points)
    x = _resize(x, (d,), (points // 2 + 1,))
    return ops._fft_c2r(x, (d,), _normalization(norm, False), points, out=out)


@checked(
    "rfft2(Tensor input, int[]? s=None, int[] dim=[-2,-1], str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def rfft2(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """:func:`rfftn` over the last two dims.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.rfft2(tc.ones(2, 4)).shape
    tensorcore.Size([2, 3])
    """
    return _r2c_nd(input, s, dim, norm, out)


@checked(
    "irfft2(Tensor input, int[]? s=None, int[] dim=[-2,-1], str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def irfft2(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """:func:`irfftn` over the last two dims.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(6.0).reshape(2, 3)
    >>> tc.fft.irfft2(tc.fft.rfft2(x), s=x.shape)
    tensor([[0., 1., 2.],
            [3., 4., 5.]])
    """
    return _c2r_nd(input, s, dim, norm, out)


@checked(
    "rfftn(Tensor input, int[]? s=None, int[]? dim=None, str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def rfftn(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] | None = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The N-dimensional discrete Fourier transform of a real ``input``, one-sided in the last
    transformed dim (``s[-1] // 2 + 1`` values there).

    The arguments are those of :func:`fftn`; a complex ``input`` is an error, and so is an
    empty ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.rfftn(tc.ones(2, 4))
    tensor([[8.+0.j, 0.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j, 0.+0.j]])
    """
    return _r2c_nd(input, s, dim, norm, out)


@checked(
    "irfftn(Tensor input, int[]? s=None, int[]? dim=None, str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def irfftn(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] | None = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of :func:`rfftn`: a real tensor whose transform is ``input``, one-sided in
    the last transformed dim.

    ``s`` gives the output's size in each transformed dim; the last defaults to
    ``2 * (input.size(dim[-1]) - 1)``: give ``s`` for an odd last size.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(6.0).reshape(2, 3)
    >>> tc.fft.irfftn(tc.fft.rfftn(x), s=(2, 3))
    tensor([[0., 1., 2.],
            [3., 4., 5.]])
    """
    return _c2r_nd(input, s, dim, norm, out)


@checked(
    "hfft(Tensor input, int? n=None, int dim=-1, str? norm=None, *, Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def hfft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The discrete Fourier transform of a Hermitian-symmetric signal given by its one-sided
    half ``input``: a real tensor of ``n`` points along ``dim``.

    ``n`` defaults to ``2 * (input.size(dim) - 1)``, as for :func:`irfft` (of which this is
    the forward-direction twin: ``hfft(x)`` is ``irfft(x.conj())`` scaled by ``n``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.hfft(tc.tensor([1.0, 0.0, 0.0]))
    tensor([1., 1., 1., 1.])
    """
    _check_out(out, False)
    x = _promote(input, True)
    (d,) = fft_dims(x, (dim,))
    points = 2 * (x.shape[d] - 1) if n is None else n
    if points < 1:
        raise points_error(points)
    x = _resize(x, (d,), (points // 2 + 1,))
    return ops._fft_c2r(ops.conj(x), (d,), _normalization(norm, True), points, out=out)


@checked(
    "ihfft(Tensor input, int? n=None, int dim=-1, str? norm=None, *, Tensor? out=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast list)
def ihfft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of :func:`hfft`: the one-sided half (``n // 2 + 1`` values) of the inverse
    transform of a real ``input``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.ihfft(tc.tensor([1.0, 1.0, 1.0, 1.0]))
    tensor([1.-0.j, 0.-0.j, 0.-0.j])
    """
    _check_out(out, True)
    x = _real_input(input)
    d, points = _one_dim(x, n, dim)
    x = _resize(x, (d,), (points,))
    return ops.conj(ops._fft_r2c(x, (d,), _normalization(norm, False), True), out=out)


@checked(
    "hfft2(Tensor input, int[]? s=None, int[] dim=[-2,-1], str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
def hfft2(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """:func:`hfftn` over the last two dims.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.hfft2(tc.ones(2, 3)).shape
    tensorcore.Size([2, 4])
    """
    return _c2r_nd(input, s, dim, norm, out, hermitian=True)


@checked(
    "ihfft2(Tensor input, int[]? s=None, int[] dim=[-2,-1], str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
def ihfft2(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """:func:`ihfftn` over the last two dims.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(8.0).reshape(2, 4)
    >>> tc.fft.hfft2(tc.fft.ihfft2(x), s=x.shape)
    tensor([[0., 1., 2., 3.],
            [4., 5., 6., 7.]])
    """
    return _r2c_nd(input, s, dim, norm, out, hermitian=True)


@checked(
    "hfftn(Tensor input, int[]? s=None, int[]? dim=None, str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
def hfftn(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] | None = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The N-dimensional :func:`hfft`: the real transform of a Hermitian-symmetric signal
    given by its one-sided half ``input`` (one-sided in the last transformed dim).

    ``s`` and ``dim`` are read as by :func:`irfftn` (the last size defaults to
    ``2 * (input.size(dim[-1]) - 1)``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.hfftn(tc.tensor([[1.0, 0.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [1., 1.]])
    """
    return _c2r_nd(input, s, dim, norm, out, hermitian=True)


@checked(
    "ihfftn(Tensor input, int[]? s=None, int[]? dim=None, str? norm=None, *, "
    "Tensor? out=None) -> Tensor"
)
def ihfftn(
    input: Tensor,
    s: Sequence[int] | None = None,
    dim: Sequence[int] | None = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of :func:`hfftn`: the one-sided half (in the last transformed dim) of the
    N-dimensional inverse transform of a real ``input``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.ihfftn(tc.ones(2, 2))
    tensor([[1.-0.j, 0.-0.j],
            [0.-0.j, 0.-0.j]])
    """
    return _r2c_nd(input, s, dim, norm, out, hermitian=True)


# ------------------------------------------------------------------ helpers
def _frequencies(
    counts: list[tuple[int, int]],
    n: int,
    d: float,
    out: Tensor | None,
    dtype: dt.dtype | None,
    device: Any,
    requires_grad: bool | None,
) -> Tensor:
    """``cat(arange(a, b) for a, b in counts) / (n * d)`` in ``dtype`` (PyTorch's: an
    ``arange`` multiplied by ``1 / (n * d)``, infinite when ``n * d`` is 0)."""
    if dtype is None:
        dtype = out.dtype if out is not None else dt.get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("requires a floating point or complex dtype")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if device is None and out is not None:
        device = out.device
    parts = [ops.arange(a, b, dtype=dtype, device=device) for a, b in counts if b > a]
    k = parts[0] if len(parts) == 1 else ops.cat(parts or [ops.zeros(0, dtype=dtype)], 0)
    span = n * d
    scale = 1.0 / span if span != 0 else math.copysign(math.inf, span)
    res = ops.mul(k, scale, out=out)
    if requires_grad:
        res.requires_grad_(True)
    return res


@checked(
    "fftfreq(int n, float d=1.0, *, Tensor? out=None, ScalarType? dtype=None, "
    "Device? device=None, bool? requires_grad=False) -> Tensor"
)
def fftfreq(
    n: int,
    d: float = 1.0,
    *,
    out: Tensor | None = None,
    dtype: dt.dtype | None = None,
    device: Any = None,
    requires_grad: bool | None = False,
) -> Tensor:
    """The sample frequencies of :func:`fft` for a signal of ``n`` points ``d`` apart:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.fftfreq(5)
    tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    >>> tc.fft.fftfreq(4, d=0.5)
    tensor([ 0.0000,  0.5000, -1.0000, -0.5000])
    """
    counts = [(0, (n + 1) // 2), (-(n // 2), 0)]
    return _frequencies(counts, n, d, out, dtype, device, requires_grad)


@checked(
    "rfftfreq(int n, float d=1.0, *, Tensor? out=None, ScalarType? dtype=None, "
    "Device? device=None, bool? requires_grad=False) -> Tensor"
)
def rfftfreq(
    n: int,
    d: float = 1.0,
    *,
    out: Tensor | None = None,
    dtype: dt.dtype | None = None,
    device: Any = None,
    requires_grad: bool | None = False,
) -> Tensor:
    """The sample frequencies of :func:`rfft` for a signal of ``n`` points ``d`` apart:
    ``[0, 1, ..., n // 2] / (d * n)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.rfftfreq(5)
    tensor([0.0000, 0.2000, 0.4000])
    """
    return _frequencies([(0, n // 2 + 1)], n, d, out, dtype, device, requires_grad)


def _shifts(x: Tensor, dim: Sequence[int] | None, up: int) -> tuple[list[int], list[int]]:
    dims = list(range(x.ndim)) if dim is None else [_wrap_dim(d, x.ndim) for d in dim]
    return [(x.shape[d] + up) // 2 for d in dims], dims


@checked("fftshift(Tensor input, int[]? dim=None) -> Tensor")
def fftshift(input: Tensor, dim: Sequence[int] | None = None) -> Tensor:
    """Moves the zero frequency to the centre of ``dim`` (every dim by default): a
    :func:`~tensorcore.roll` by ``size // 2``, the order of :func:`fftfreq` made ascending.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.fftshift(tc.fft.fftfreq(5))
    tensor([-0.4000, -0.2000,  0.0000,  0.2000,  0.4000])
    """
    shifts, dims = _shifts(input, dim, 0)
    return ops.roll(input, shifts, dims)


@checked("ifftshift(Tensor input, int[]? dim=None) -> Tensor")
def ifftshift(input: Tensor, dim: Sequence[int] | None = None) -> Tensor:
    """The inverse of :func:`fftshift`: a :func:`~tensorcore.roll` by ``(size + 1) // 2``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fft.ifftshift(tc.fft.fftshift(tc.arange(5)))
    tensor([0, 1, 2, 3, 4])
    """
    shifts, dims = _shifts(input, dim, 1)
    return ops.roll(input, shifts, dims)
