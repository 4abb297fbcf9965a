"""The CPU stream's faster paths draw what its plain paths draw, bit for bit, and what
PyTorch draws (``backends/cpu/tensorcore_cpu/_torch_random.py``).

The PyTorch values are PyTorch 2.13's outputs for these seeds, recorded once (as in
``tests/test_random_streams.py``).
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import numpy as np
import pytest

import tensorcore as tc

pytestmark = pytest.mark.skipif(
    "cpu" not in tc.backends.devices(), reason="the CPU backend reproduces PyTorch's streams"
)

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


def _stream(seed: int):  # type: ignore[no-untyped-def]
    from tensorcore_cpu._torch_random import TorchCPUStream

    return TorchCPUStream(seed)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize(("mean", "std"), [(0.0, 1.0), (0.3, 1.7), (0.0, 0.02), (-2.0, 1.0)])
def test_few_double_normals_are_the_array_path(mean: float, std: float) -> None:
    # Python floats and libm for a few values, arrays for many: the same values, the same
    # cached second value, the engine left at the same place.
    for seed in range(40):
        a, b = _stream(seed), _stream(seed)
        for n in (1, 2, 3, 7, 15, 1, 4, 32, 9):
            few = np.array(a._few_double_normals(n, mean, std))
            many = b._double_normals(n, mean, std)
            assert _bits(few) == _bits(many), (seed, n)
            assert a._next_normal == b._next_normal
        assert a.u32(4).tolist() == b.u32(4).tolist()


@pytest.mark.parametrize(("lo", "hi"), [(0.0, 1.0), (-2.0, 3.0), (0.1, 0.7)])
def test_few_double_uniforms_are_the_array_path(lo: float, hi: float) -> None:
    from tensorcore_cpu._torch_random import _FEW_UNIFORMS

    for seed in range(30):
        for n in (1, 3, _FEW_UNIFORMS):
            few = _stream(seed).uniform(n, F64, lo, hi)
            many = _stream(seed).uniform(n + _FEW_UNIFORMS, F64, lo, hi)[:n]
            assert few.dtype == np.float64 and _bits(few) == _bits(many)


def test_small_and_fused_normals_match_pytorch() -> None:
    # Fewer than 16 float64 normals: libm's log1p, cos and sin; ``x * std + mean`` is one
    # fused multiply-add in PyTorch's kernels, the blocked (16 and more) ones too.
    tc.manual_seed(3)
    assert tc.randn(5, dtype=tc.float64).tolist() == [
        0.8032760780963507, 0.17483339327910358, 0.08897809502587893, -0.6137180077293578,
        0.04618245168476012,
    ]  # fmt: skip
    tc.manual_seed(3)
    assert tc.empty(5, dtype=tc.float64).normal_(0.3, 1.7).tolist() == [
        1.6655693327637962, 0.597216768574476, 0.4512627615439942, -0.7433206131399083,
        0.3785101678640922,
    ]  # fmt: skip
    tc.manual_seed(3)
    assert tc.empty(20, dtype=tc.float64).normal_(0.3, 1.7)[-4:].tolist() == [
        0.34887987542153054, 0.7121430754312541, 1.6330929037987738, -1.3973111728218315
    ]  # fmt: skip
    tc.manual_seed(3)
    assert tc.empty(4, dtype=tc.float64).uniform_(-2, 3).tolist() == [
        -1.8294590217473976, -0.5662988663934653, 1.8645747216429216, -1.1253648535935268
    ]  # fmt: skip
    # float32 from the double path: the double values rounded
    tc.manual_seed(3)
    want = tc.randn(7, dtype=tc.float64).float().tolist()
    tc.manual_seed(3)
    assert tc.randn(7).tolist() == want


def test_fused_multiply_add_is_rounded_once() -> None:
    from tensorcore_cpu._torch_random import _fma, _fma_arrays

    rng = np.random.default_rng(0)
    x = rng.standard_normal(2000) * 10.0 ** rng.integers(-5, 5, 2000)
    for std, mean in ((1.7, 0.3), (0.02, -1e-3), (3.0, 1e6), (1e-8, 5.0)):
        want = [float(Fraction(v) * Fraction(std) + Fraction(mean)) for v in x.tolist()]
        assert [_fma(v, std, mean) for v in x.tolist()] == want
        assert _fma_arrays(x.copy(), std, mean).tolist() == want
    # -0.0 + 0.0 is +0.0 (the plain and the fused forms alike)
    assert math.copysign(1.0, _fma_arrays(np.array([-0.0]), 2.0, 0.0)[0]) == 1.0


def test_bulk_draws_are_the_raw_draws() -> None:
    # ``Generator.integers`` over the full 32-bit range: one draw a value, in order, and the
    # stream goes on where ``random_raw`` would; the Generator is not part of a saved state.
    a, b = _stream(5), _stream(5)
    bulk = a._u32_bulk(5000)
    assert bulk.dtype == np.uint32
    assert bulk.tolist() == b.u32(5000).tolist()
    assert a.u32(3).tolist() == b.u32(3).tolist()
    saved = pickle.loads(pickle.dumps(a))
    assert saved._gen is None and saved._u32_bulk(4).tolist() == a.u32(4).tolist()


@pytest.mark.parametrize(("lo", "hi"), [(0, 10), (-3, 7), (5, 5 + (1 << 28) - 1)])
def test_integers_in_bulk_are_the_few_path(lo: int, hi: int) -> None:
    from tensorcore_cpu._torch_random import _BULK

    for n in (_BULK - 1, _BULK, 3 * _BULK + 5):
        want = (_stream(2).u32(n) % np.uint64(hi - lo)).astype(np.int64) + lo
        got = _stream(2).integers(lo, hi, n)
        assert got.dtype == np.int64 and got.tolist() == want.tolist()


def test_integer_draws_match_pytorch() -> None:
    # random_(from, to) takes random64 from a range of 2**28 on; random_() takes it for the
    # 64-bit dtypes only (an int32's whole range is one 32-bit draw).
    tc.manual_seed(3)
    assert tc.randint(0, 2**31, (4,)).tolist() == [303761048, 1460070019, 521102280, 297689877]
    tc.manual_seed(3)
    assert tc.randint(0, 2**28 - 1, (3,)).tolist() == [218175346, 35325593, 88681732]
    assert tc.randint(0, 2**28, (3,)).tolist() == [175684536, 46504192, 77081597]
    tc.manual_seed(3)
    assert tc.empty(4, dtype=tc.int32).random_().tolist() == [
        218175338, 303761048, 893988089, 1460070019
    ]  # fmt: skip
    tc.manual_seed(3)
    r = tc.randint(-3, 7, (5000,))
    assert r[-6:].tolist() == [5, -3, -3, 4, -1, 6] and r.sum().item() == 7502
    tc.manual_seed(3)
    assert tc.rand(5000, dtype=tc.float64)[-3:].tolist() == [
        0.26513946814704203, 0.9061560550370347, 0.264766761564621
    ]  # fmt: skip


def _swap_loop(partners: np.ndarray, n: int) -> list[int]:
    r = list(range(n))
    for i, j in enumerate(partners.tolist()):
        r[i], r[j] = r[j], r[i]
    return r


def test_vectorised_swaps_are_the_swap_loop() -> None:
    from tensorcore_cpu._torch_random import _swaps_in_order

    rng = np.random.default_rng(1)
    for n in [*range(2, 40), 100, 777]:
        k = np.arange(n - 1)
        for partners in (
            k + rng.integers(0, n - k),  # Fisher-Yates' partners
            k.copy(),  # every step keeps its element
            np.full(n - 1, n - 1),  # every step swaps with the last
            np.minimum(np.maximum(k, rng.integers(0, 3, n - 1)), n - 1),  # mostly kept
            np.minimum(k + rng.integers(0, 3, n - 1), n - 1),  # near neighbours
        ):
            got = _swaps_in_order(partners.astype(np.int64), n)
            assert got.tolist() == _swap_loop(partners, n), (n, partners)


def test_permutations_match_pytorch() -> None:
    from tensorcore_cpu._torch_random import _FEW_PERMUTED, _FEW_SWAPS

    tc.manual_seed(3)
    p = tc.randperm(1000)  # (the vectorised swaps)
    assert p[:8].tolist() == [986, 114, 871, 894, 140, 885, 232, 402]
    assert (p * tc.arange(1000)).sum().item() == 249390222
    tc.manual_seed(3)
    p = tc.randperm(70000)  # (bulk draws, 64-bit sort keys)
    assert p[:8].tolist() == [8986, 35388, 58639, 48284, 67760, 59505, 25916, 38070]
    assert (p * tc.arange(70000)).sum().item() == 85568376099954
    # either side of each path's limit: the same permutation from the same draws
    for n in (2, 3, _FEW_PERMUTED, _FEW_PERMUTED + 1, _FEW_SWAPS, _FEW_SWAPS + 1):
        s = _stream(9)
        partners = np.arange(n - 1) + (s.u32(n - 1) % (n - np.arange(n - 1, dtype=np.uint64)))
        assert _stream(9).permutation(n).tolist() == _swap_loop(partners.astype(np.int64), n)


def test_multinomial_kernel_is_the_composite() -> None:
    from tensorcore.ops.composite import COMPOSITES

    composite = COMPOSITES["multinomial"]
    assert "from plugin 'cpu'" in tc.explain("multinomial", tc.ones(3), 2)
    rng = np.random.default_rng(0)
    for trial in range(60):
        rows, n = int(rng.integers(1, 4)), int(rng.integers(1, 30))
        w = rng.random((rows, n)) ** 3
        if trial % 3 == 0:
            w[rng.random((rows, n)) < 0.4] = 0.0
        w[:, -1] += 0.5
        t = tc.tensor(w).to([tc.float32, tc.float64, tc.float16][trial % 3])
        if trial % 2:
            t = t[0]
        for replacement in (False, True):
            for k in {1, min(n, 2), min(n, 3), n} | ({n + 3} if replacement else set()):
                tc.manual_seed(trial)
                got, after = tc.multinomial(t, k, replacement), tc.rand(2).tolist()
                tc.manual_seed(trial)
                want = composite(t, k, replacement)
                assert got.dtype == want.dtype and got.tolist() == want.tolist()
                assert tc.rand(2).tolist() == after


def test_multinomial_kernel_orders_a_zero_draw_as_the_composite() -> None:
    # A draw of exactly 0 gives an infinite score (a positive weight) or NaN (a zero one),
    # which topk orders first (NaN above inf): the kernel's order too.
    from tensorcore.ops.composite import COMPOSITES

    w = tc.tensor([[0.0, 1.0, 0.0, 2.0, 0.5], [1.0, 0.0, 3.0, 0.0, 0.0]])
    zeros_at = [1, 2, 3, 5, 9]

    def fixed(n, dtype, lo=0.0, hi=1.0):  # type: ignore[no-untyped-def]
        u = (np.arange(n, dtype=np.float64) + 1.0) / (n + 2.0)
        u[[i for i in zeros_at if i < n]] = 0.0
        return u.astype(dtype)

    got = []
    for fn in (tc.multinomial, COMPOSITES["multinomial"]):
        g = tc.Generator().manual_seed(0)
        tc.rand(1, generator=g)  # (the stream exists)
        g.state.uniform = fixed
        got.append(fn(w, 5, False, generator=g).tolist())
    assert got[0] == got[1]
    assert got[0][0][:2] == [2, 1]  # (NaN, then inf)


def test_multinomial_kernel_checks_as_the_composite() -> None:
    assert tc.multinomial(tc.ones(0, 3), 2).shape == (0, 2)
    assert tc.multinomial(tc.ones(0, 3), 5, True).shape == (0, 5)
    for w in (tc.ones(2, 0), tc.zeros(3), tc.tensor([[1.0, 2.0], [0.0, 0.0]])):
        with pytest.raises(RuntimeError, match=r"invalid multinomial distribution \(sum"):
            tc.multinomial(w, 1, True)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(RuntimeError, match="either `inf`, `nan` or element < 0"):
            tc.multinomial(tc.tensor([1.0, bad, 2.0]), 1)
    # finite weights whose sum overflows draw as the composite does
    from tensorcore.ops.composite import COMPOSITES

    w = tc.tensor([1e308, 1e308, 1.0], dtype=tc.float64)
    tc.manual_seed(0)
    got = (tc.multinomial(w, 2).tolist(), tc.multinomial(w, 4, True).tolist())
    tc.manual_seed(0)
    composite = COMPOSITES["multinomial"]
    assert got == (composite(w, 2).tolist(), composite(w, 4, True).tolist())
