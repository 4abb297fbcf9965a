"""``tensorcore.nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and
``orthogonal`` as parametrizations (:mod:`~tensorcore.nn.utils.parametrize`), with
PyTorch's modules, defaults and state-dict keys (``parametrizations.weight.original0``...).

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.nn.utils.parametrizations import weight_norm
>>> m = weight_norm(tc.nn.Linear(3, 2))
>>> sorted(m.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""

from __future__ import annotations

from typing import Any

from ... import linalg
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (kept, with size-1 dims
    elsewhere); ``dim=-1``: over the whole tensor (a 0-d result), as PyTorch's
    ``torch.norm_except_dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.parametrizations import norm_except_dim
    >>> norm_except_dim(tc.tensor([[3.0, 4.0], [0.0, 1.0]]), 2, 0)
    tensor([[5.],
            [1.]])
    """
    if dim == -1:
        return ops.vector_norm(v, float(pow))
    dims = tuple(d for d in range(v.ndim) if d != dim)
    return ops.vector_norm(v, float(pow), dims, True)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    return v * (g / norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (the norm over every dim but
    ``dim``; ``dim=None``: over the whole tensor), storing ``g`` as ``original0`` and ``v`` as
    ``original1``. As in PyTorch, a state dict of the older
    :func:`tensorcore.nn.utils.weight_norm` (``weight_g``/``weight_v``) loads into it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.parametrizations import weight_norm
    >>> m = weight_norm(tc.nn.Linear(4, 3))
    >>> m.parametrizations.weight.original0.shape
    tensorcore.Size([3, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def old_keys(state_dict: dict[str, Any], prefix: str, *rest: Any) -> None:
        # A checkpoint of the hook-based weight_norm: its g and v are original0 and 1.
        g, v = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g in state_dict and v in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v)

    module._register_load_state_dict_pre_hook(old_keys)
    return module


class _SpectralNorm(Module):
    _u: Tensor
    _v: Tensor

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place, as PyTorch's: the buffers keep their identity across iterations.
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat @ self._v, dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.mT.conj() @ self._u, dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat.detach(), self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = (u.conj() * (weight_mat @ v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration (one step
    per forward in training mode; the vectors are the buffers ``_u`` and ``_v``). ``dim``
    defaults to 1 for transposed convolutions and 0 otherwise.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.parametrizations import spectral_norm
    >>> m = spectral_norm(tc.nn.Linear(5, 4))
    >>> sorted(m.state_dict())[1:3]
    ['parametrizations.weight.0._u', 'parametrizations.weight.0._v']
    >>> round(tc.linalg.matrix_norm(m.weight, 2).item(), 2)
    1.0
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


# ------------------------------------------------------------------ orthogonal
def _householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first ``n`` columns of ``H_1 ... H_k`` with ``H_i = I - tau_i v_i v_i^H`` (``v_i``
    the ``i``-th column of ``A`` below the diagonal, 1 on it), as
    ``torch.linalg.householder_product``."""
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    eye = ops.eye(m, dtype=A.dtype, device=A.device)
    Q = eye.expand(*A.shape[:-2], m, m)
    rows = ops.arange(m, device=A.device)
    for i in range(k):
        col = A[..., :, i]
        v = ops.where(rows > i, col, ops.where(rows == i, 1.0, 0.0).to(A.dtype))
        Q = Q - (Q @ v.unsqueeze(-1)) * tau[..., i : i + 1].unsqueeze(-1) * v.unsqueeze(-2).conj()
    return Q[..., :, :n]


class _Orthogonal(Module):
    base: Tensor

    def __init__(
        self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True
    ) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = ops.cat([X, X.new_zeros(*X.shape[:-2], n, n - k)], -1)
            A = X - X.mT.conj()
            if self.orthogonal_map == "matrix_exp":
                Q = ops.matrix_exp(A)
            else:
                eye = ops.eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(eye + (-0.5) * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(0, -2, -1).int().unsqueeze(-2)
        if hasattr(self, "base") and self.base is not None:
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {Q.shape}."
            )
        with no_grad():
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in ("cayley", "matrix_exp"):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False."
                    )
                A, tau = _geqrf(Q)
                # X = QR with diag(R) > 0: the diagonal holds the signs; where a reflector is
                # the identity (tau == 0) forward's reflection flips that sign back.
                sign = ops.where(A.diagonal(0, -2, -1) >= 0, 1.0, -1.0).to(A.dtype)
                sign = ops.where(tau == 0, -sign, sign)
                A.diagonal(0, -2, -1).copy_(sign)
                return A.mT if transpose else A
            if n == k:
                eye = ops.eye(k, dtype=Q.dtype, device=Q.device)
                eps = 10 * n * _finfo_eps(Q)
                is_orth = bool(((Q.mT.conj() @ Q) - eye).abs().amax().item() <= eps + 1e-5 * 1.0)
                Q = Q.clone() if is_orth else _make_orthogonal(Q)
            else:
                N = ops.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(ops.cat([Q, N], -1))
            self.base = Q
            # -Id, so that the Householder map of zeros below the diagonal is the identity.
            neg_id = ops.zeros_like(Q_init)
            neg_id.diagonal(0, -2, -1).fill_(-1.0)
            return neg_id


def _finfo_eps(t: Tensor) -> float:
    return 2.220446049250313e-16 if t.dtype.itemsize >= 8 else 1.1920928955078125e-07


def _make_orthogonal(A: Tensor) -> Tensor:
    X, tau = _geqrf(A)
    Q = _householder_product(X, tau)
    return Q * X.diagonal(0, -2, -1).sign().unsqueeze(-2)


def _geqrf(Q: Tensor) -> tuple[Tensor, Tensor]:
    """Householder reflectors of ``Q`` in LAPACK's ``geqrf`` layout (real matrices): ``A``
    holds ``R`` on and above the diagonal and the reflectors' tails below, ``tau`` their
    scales (0 where the column below the diagonal is already zero, as ``dlarfg``)."""
    A = Q.clone()
    m, n = A.shape[-2], A.shape[-1]
    taus = []
    for i in range(min(m, n)):
        x = A[..., i:, i]
        alpha = x[..., 0]
        tail_norm = ops.vector_norm(x[..., 1:], 2.0, (-1,), False)
        reflect = tail_norm > 0
        beta = -ops.where(alpha >= 0, 1.0, -1.0).to(A.dtype) * (alpha * alpha + tail_norm**2).sqrt()
        beta = ops.where(reflect, beta, alpha)
        tau = ops.where(reflect, (beta - alpha) / ops.where(reflect, beta, 1.0), 0.0)
        v_tail = x[..., 1:] / ops.where(reflect, alpha - beta, 1.0).unsqueeze(-1)
        v = ops.cat([ops.ones_like(alpha).unsqueeze(-1), v_tail], -1)
        sub = A[..., i:, i:]
        w = (v.unsqueeze(-2) @ sub).squeeze(-2)
        A[..., i:, i:] = sub - tau.unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w.unsqueeze(-2)
        A[..., i + 1 :, i] = v_tail
        taus.append(tau)
    return A, ops.stack(taus, -1)


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Keep ``module.<name>`` orthogonal (orthonormal rows or columns, the smaller side):
    ``orthogonal_map`` ``"matrix_exp"`` (default for square or complex matrices),
    ``"cayley"`` or ``"householder"`` (default otherwise). With ``use_trivialization`` the
    map is applied around a ``base`` buffer, which assignment sets.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.parametrizations import orthogonal
    >>> m = orthogonal(tc.nn.Linear(3, 3))
    >>> tc.allclose(m.weight @ m.weight.T, tc.eye(3), atol=1e-5)
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in ("matrix_exp", "cayley", "householder"):
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
