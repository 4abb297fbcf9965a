"""tensorcore-xp: the dense kernels of tensorcore, written once against a NumPy-like array
module ``xp`` (NumPy, CuPy, or another with NumPy's API).

A device over an array library is a :class:`tensorcore.backend.DeviceInterface` (allocation,
``materialize``, transfers) plus one call from the plugin's ``tensorcore_register_kernels``
hook::

    @hookimpl
    def tensorcore_register_kernels(register):
        tensorcore_xp.register_kernels(register, "mydev", mymodule)

The CPU backend is this library over NumPy, the CUDA backend this library over CuPy; both
pass what only they have as arguments (PyTorch's CPU random streams, CuPy's ``erf``, fused
CuPy kernels). ``docs/xp-kernels.md`` says what an array module must provide.

Public modules: :mod:`tensorcore_xp.dtypes` (tensorcore dtypes to and from an array module's)
and :mod:`tensorcore_xp.helpers` (what the kernels share, for a backend's own kernels).

Examples
--------
>>> import numpy as np
>>> import tensorcore_xp
>>> kernels = tensorcore_xp.build(np)
>>> "add" in kernels and "matmul" in kernels
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tensorcore import dtype

__all__ = ["Kernel", "RandomStream", "build", "register_kernels"]

#: A kernel: ``fn(out, *args, **kwargs)``, the calling convention of ``register.kernel``.
Kernel = Callable[..., Any]


class RandomStream(Protocol):
    """A source of random numbers that draws in the order a tensor's memory is laid out, for
    a backend that reproduces another library's streams (the CPU backend: PyTorch's).

    ``build(xp, random_stream=cls)`` makes one per generator, as ``cls(seed)``, and keeps it
    in the generator's ``state``. Each method returns a 1-d array of ``n`` values (the
    elements of the tensor in memory order), of the array module ``xp``. Without one, the
    random kernels draw from ``xp.random.default_rng(seed)`` in the tensor's logical order.
    """

    def uniform(self, n: int, dtype: Any, lo: float, hi: float) -> Any:
        """``n`` floats of ``dtype`` (a real array dtype) uniform in ``[lo, hi)``."""

    def normal(self, n: int, dtype: Any, mean: float, std: float, contiguous: bool) -> Any:
        """``n`` normal floats of ``dtype``; ``contiguous`` tells whether the tensor filled
        is (PyTorch draws a contiguous tensor's normals by blocks)."""

    def integers(self, lo: int, hi: int, n: int, wide: bool | None = None) -> Any:
        """``n`` int64 values in ``[lo, hi)``. ``wide`` (given for ``random_()`` without
        bounds, over a dtype's whole range: True for the 64-bit dtypes) tells a stream that
        draws fewer bits for narrow ranges which draw to take."""

    def permutation(self, n: int) -> Any:
        """A random permutation of ``0 .. n-1`` (int64)."""

    def standard_gamma(self, alpha: Any, single: bool) -> Any:
        """Gamma(alpha, 1) draws for the 1-d float64 array ``alpha`` (the result's elements
        in memory order), float32 when ``single`` (else float64)."""

    # Optional: ``bernoulli(n, p)``, ``n`` booleans true where ``uniform(n, float64, 0, 1)``
    # would be below ``p`` (the same draws); where the stream has it, ``bernoulli_`` takes
    # it instead of its composite.


def build(
    xp: Any,
    *,
    random_stream: type[RandomStream] | None = None,
    erf: Callable[..., Any] | None = None,
    fresh_bytes: int = 0,
    solve_triangular: Callable[..., Any] | None = None,
) -> dict[str, Kernel]:
    """Every kernel of the library for the array module ``xp``: ``{operator name: kernel}``.

    Parameters
    ----------
    xp
        The array module (``numpy``, ``cupy``...): ``docs/xp-kernels.md`` lists what it
        must provide.
    random_stream
        Where random kernels draw from: a :class:`RandomStream` class, made from the
        generator's seed; None for ``xp.random.default_rng``.
    erf
        The error function as a ufunc ``erf(x, out=o)`` of ``xp``; None for SciPy's with
        NumPy (``math.erf`` element by element without SciPy) and the library's own float64
        series with any other module.
    fresh_bytes
        Give the elementwise kernels of one ufunc a ``fresh`` variant for results smaller
        than this many bytes, which lets the ufunc allocate the result (``docs/xp-kernels.md``,
        "Fresh results"); 0, the default, for none. For an array module whose own allocation
        of a small array is what the device's allocator would do (NumPy on the CPU).
    solve_triangular
        The triangular solver of ``xp`` with SciPy's signature, taking batches
        (``solve_triangular(a, b, lower=..., unit_diagonal=...)``, as
        ``cupyx.scipy.linalg.solve_triangular``); None for SciPy's BLAS with NumPy and the
        library's own substitution over the columns with any other module.

    Returns
    -------
    dict
        A fresh dict, which the caller may change before registering it.

    Examples
    --------
    >>> import numpy as np
    >>> import tensorcore as tc
    >>> from tensorcore_xp import build
    >>> add = build(np)["add"]
    >>> out = tc.empty(3)
    >>> add(out, tc.ones(3), tc.arange(3.0))  # the kernel writes into the result
    >>> out.tolist()
    [1.0, 2.0, 3.0]
    """
    from .kernels import (
        activations,
        creation,
        ctc,
        embedding,
        indexing,
        linalg,
        linalg_general,
        linalg_ldl,
        losses,
        nn,
        optim,
        piecewise,
        pointwise,
        recurrent,
        reductions,
        search,
        sets,
        shape,
        smooth,
        special,
        spectral,
        triangular,
    )

    parts = [
        pointwise.build(xp, erf=erf, fresh_bytes=fresh_bytes),
        activations.build(xp, erf if erf is not None else pointwise._erf_ufunc(xp)),
        piecewise.build(xp),
        smooth.build(xp),
        reductions.build(xp),
        special.build(xp),
        linalg.build(xp),
        linalg_general.build(xp),
        linalg_ldl.build(xp),
        triangular.build(xp, solve_triangular),
        shape.build(xp),
        indexing.build(xp),
        search.build(xp),
        sets.build(xp),
        creation.build(xp, random_stream=random_stream),
        losses.build(xp),
        nn.build(xp),
        embedding.build(xp),
        ctc.build(xp),
        recurrent.build(xp),
        optim.build(xp),
        spectral.build(xp),
    ]
    kernels: dict[str, Kernel] = {}
    for part in parts:
        for name, fn in part.items():
            if name in kernels:
                raise RuntimeError(f"kernel {name} is defined twice ({fn.__module__})")
            kernels[name] = fn
    return kernels


def register_kernels(
    register: Any,
    device_type: str,
    xp: Any,
    *,
    extra: Mapping[str, Kernel] | None = None,
    dtypes: Iterable[dtype] | None = None,
    mutable_arrays: bool = True,
    random_stream: type[RandomStream] | None = None,
    erf: Callable[..., Any] | None = None,
    fresh_bytes: int = 0,
    solve_triangular: Callable[..., Any] | None = None,
) -> dict[str, Kernel]:
    """Register every kernel of the library over ``xp`` for ``(device_type, "strided")``:
    what a device backend's ``tensorcore_register_kernels`` hook calls.

    Parameters
    ----------
    register
        The registration object the hook received.
    device_type
        The device type the kernels serve (``"cpu"``, ``"cuda"``).
    xp
        The array module whose arrays the device's ``materialize`` returns.
    extra
        The backend's own kernels, registered with the library's: one of the same name
        replaces the library's (a fused kernel of the array library, say). They are
        registered as given, also on a device whose arrays are values.
    dtypes
        Restrict every kernel to these dtypes (``register.kernel``'s ``dtypes``). None
        leaves them unrestricted: enough for a device whose allocator refuses the dtypes
        ``xp`` lacks, and cheaper (a restriction costs a check on every call).
    mutable_arrays
        False for a device whose arrays are values but whose array objects update in place
        (dask: ``out=`` and item assignment replace an array object's graph; the device's
        ``DeviceInterface.mutable_arrays`` is false): every kernel then runs inside
        ``tensorcore.backend.writing`` of the tensors it writes, its first argument (``out``,
        the tuple of outputs, or ``self`` of an in-place operator), which stores them with
        ``tensorcore.backend.write``. Kernels that return a new tensor run as they are, and
        those that write other tensors too (``batch_norm``'s running statistics, the fused
        optimizer steps' state) or compute in slices of their scratch arrays (the LSTM
        layer's steps) are not registered on such a device.
    random_stream, erf, fresh_bytes, solve_triangular
        Passed to :func:`build`.

    Returns
    -------
    dict
        The kernels registered, by operator name.

    Examples
    --------
    A registration object as the hook receives it (here one that records the calls), and a
    kernel of the backend's own that replaces the library's ``add``:

    >>> import numpy as np
    >>> import tensorcore_xp
    >>> class Recorder:
    ...     def __init__(self):
    ...         self.calls = []
    ...
    ...     def kernel(self, op, device_type, layout, fn, dtypes=None):
    ...         self.calls.append((op, device_type, layout))
    >>> def my_add(out, a, b, alpha=1):
    ...     np.add(a.numpy(), b.numpy(), out=out.numpy())
    >>> reg = Recorder()
    >>> done = tensorcore_xp.register_kernels(reg, "mydev", np, extra={"add": my_add})
    >>> ("add", "mydev", "strided") in reg.calls, len(reg.calls) == len(done)
    (True, True)
    >>> done["add"] is my_add
    True
    """
    kernels = build(
        xp,
        random_stream=random_stream,
        erf=erf,
        fresh_bytes=fresh_bytes,
        solve_triangular=solve_triangular,
    )
    if not mutable_arrays:
        kernels = {
            name: _storing(fn) if _writes_first(name) else fn
            for name, fn in kernels.items()
            if name not in _WRITE_OTHERS and name not in _WRITE_VIEWS
        }
    if extra:
        # The backend's own kernels as they are: they know how their device stores.
        kernels.update(extra)
    allowed = None if dtypes is None else frozenset(dtypes)
    for name, fn in kernels.items():
        register.kernel(name, device_type, "strided", fn, dtypes=allowed)
    return kernels


#: Kernels that write tensors besides their first argument (the optimizers' state,
#: ``batch_norm``'s running statistics): not registered on a device whose arrays are values,
#: where those writes would be lost. The optimizers then update parameter by parameter with
#: in-place operators; ``batch_norm`` has no kernel there.
_WRITE_OTHERS = frozenset({"_fused_sgd_", "_fused_adam_", "batch_norm", "native_batch_norm"})
#: Kernels that compute by writing into slices of their own scratch arrays (``out=`` a
#: view: the LSTM, GRU and RNN layers' steps): not registered where arrays are values, since
#: those writes would be lost. The layers then run their step-by-step recurrence there.
_WRITE_VIEWS = frozenset(
    {
        "_lstm_layer",
        "_lstm_layer_backward",
        "_gru_layer",
        "_gru_layer_backward",
        "_rnn_layer",
        "_rnn_layer_backward",
    }
)


def _writes_first(name: str) -> bool:
    """Whether the kernel of operator ``name`` writes its first argument: ``out`` (every
    frontend but ``unstructured``) or ``self`` of an in-place operator (``fill_``)."""
    from tensorcore.backend import op_frontend

    try:
        return op_frontend(name) != "unstructured" or name.endswith("_")
    except ValueError:  # an operator of a plugin not loaded yet: assume it writes
        return True


def _storing(fn: Kernel) -> Kernel:
    """``fn`` run inside ``tensorcore.backend.writing`` of the tensors of its first argument
    (see :func:`register_kernels`'s ``mutable_arrays``)."""
    from tensorcore.backend import Tensor, writing

    def kernel(*args: Any, **kwargs: Any) -> Any:
        first = args[0] if args else None
        outs = first if isinstance(first, (tuple, list)) else (first,)
        with writing(*(t for t in outs if isinstance(t, Tensor))):
            return fn(*args, **kwargs)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    kernel.__qualname__ = getattr(fn, "__qualname__", kernel.__name__)
    kernel.__doc__ = fn.__doc__
    return kernel
