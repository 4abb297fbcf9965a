"""The CPU backend's random streams are PyTorch's: a seed gives the numbers PyTorch's CPU
generator gives (``backends/cpu/tensorcore_cpu/_torch_random.py``).

The expected values are PyTorch 2.13's outputs for these seeds (``torch.manual_seed(0);
torch.rand(3)`` is the well-known ``[0.4963, 0.7682, 0.0885]``), recorded once; the engine
itself is checked against the Mersenne Twister's reference output.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc

pytestmark = pytest.mark.skipif(
    "cpu" not in tc.backends.devices(), reason="the CPU backend reproduces PyTorch's streams"
)


def test_engine_is_the_reference_mersenne_twister() -> None:
    from tensorcore_cpu._torch_random import TorchCPUStream

    # std::mt19937's default seed 5489 gives 3499211612 first (C++ standard, [rand.predef]).
    assert int(TorchCPUStream(5489).u32(1)[0]) == 3499211612


def _seeded(fn, seed: int = 0):  # type: ignore[no-untyped-def]
    tc.manual_seed(seed)
    return fn()


def test_uniform_and_float64_streams() -> None:
    got = _seeded(lambda: tc.rand(3)).tolist()
    np.testing.assert_allclose(got, [0.49625658988952637, 0.7682217955589294,
                                     0.08847743272781372], rtol=0, atol=0)  # fmt: skip
    got64 = _seeded(lambda: tc.rand(3, dtype=tc.float64)).tolist()
    assert got64 == [0.9700530018065531, 0.707819864399788, 0.45938294312745087]


def test_normal_streams_small_and_blocked() -> None:
    # Fewer than 16 elements: double Box-Muller pairs; 16 or more: PyTorch's normal_fill.
    small = _seeded(lambda: tc.randn(3)).tolist()
    np.testing.assert_allclose(small, [1.5409960746765137, -0.293428897857666,
                                       -2.1787893772125244], rtol=1e-6)  # fmt: skip
    tc.manual_seed(0)
    a, b = tc.randn(16), tc.randn(16)
    np.testing.assert_allclose(a[:4].tolist(), [-1.1258398294448853, -1.152360200881958,
                                                -0.2505785822868347, -0.4338788092136383],
                               rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose(b[-2:].tolist(), [0.946298360824585, -0.843676745891571],
                               rtol=1e-6)  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize(("mean", "std"), [(0.0, 1.0), (-1.5, 0.25)])
def test_blocked_normals_are_the_plain_box_muller_bit_for_bit(
    dtype: type, mean: float, std: float
) -> None:
    # The stream computes the halves of each block of 16 in contiguous buffers (a speed
    # trick, above a few blocks); here PyTorch's normal_fill_16 written plainly on the
    # strided halves.
    from tensorcore_cpu._torch_random import TorchCPUStream

    for n in (16, 37, 64 * 16, 65 * 16 + 3, 4096 + 5):  # (both sides of _FEW_BLOCKS)
        u = TorchCPUStream(3).uniform(n, dtype)
        tail = TorchCPUStream(3)
        # float16 fills block by block: only the full blocks' draws come before the tail's
        tail.uniform(n // 16 * 16 if dtype == np.float16 else n, dtype)
        u = np.concatenate([u[: n // 16 * 16], tail.uniform(16, dtype)]) if n % 16 else u
        t = u.dtype.type
        blocks = u.reshape(-1, 16).copy()
        first, second = blocks[:, :8].copy(), blocks[:, 8:].copy()
        radius = np.sqrt(np.log(t(1) - first) * t(-2))
        theta = second * t(2.0 * np.pi)
        want = np.concatenate([np.cos(theta) * radius, np.sin(theta) * radius], axis=1)
        if std != 1:
            want *= t(std)
        want = (want + t(mean)).reshape(-1)
        if n % 16:  # (the last 16 are redrawn and replace the end)
            want = np.concatenate([want[: n // 16 * 16][: n - 16], want[n // 16 * 16 :]])
        got = TorchCPUStream(3).normal(n, dtype, mean, std, True)
        assert got.dtype == want.dtype and got.shape == (n,)
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_integer_streams_and_permutations() -> None:
    assert _seeded(lambda: tc.randint(0, 10, (8,))).tolist() == [4, 9, 3, 0, 3, 9, 7, 3]
    assert _seeded(lambda: tc.randperm(10)).tolist() == [4, 1, 7, 5, 3, 9, 0, 8, 6, 2]


def test_layer_initialisation_matches_pytorch() -> None:
    lin = _seeded(lambda: tc.nn.Linear(3, 2))
    np.testing.assert_allclose(
        lin.weight.tolist(),
        [[-0.004322517663240433, 0.3097158372402191, -0.4751853346824646],
         [-0.4248946011066437, -0.2223689705133438, 0.15482072532176971]],
        rtol=1e-6,
    )  # fmt: skip
    np.testing.assert_allclose(lin.bias.tolist(), [-0.011439144611358643, 0.45777493715286255],
                               rtol=1e-6)  # fmt: skip


def test_streams_continue_across_calls_and_generators_are_independent() -> None:
    g = tc.Generator().manual_seed(7)
    h = tc.Generator().manual_seed(7)
    first = tc.rand(5, generator=g)
    assert tc.rand(5, generator=h).tolist() == first.tolist()
    assert tc.rand(5, generator=g).tolist() != first.tolist()
    # The cached second normal of a Box-Muller pair is part of the generator's state.
    g.manual_seed(3)
    one = [tc.randn(1, generator=g).item() for _ in range(4)]
    g.manual_seed(3)
    assert tc.randn(4, generator=g).tolist() == pytest.approx(one)


def test_default_generator_is_the_cpu_stream() -> None:
    # tc.default_generator is PyTorch's torch.default_generator: an object (not a function)
    # that the random operators draw from on the CPU when given no generator.
    g = tc.default_generator
    assert isinstance(g, tc.Generator) and g.device == tc.device("cpu")
    assert tc.random.default_generator is g
    g.manual_seed(11)
    drawn = tc.rand(4).tolist()
    assert g.initial_seed() == 11
    assert tc.manual_seed(11) is g
    assert tc.rand(4).tolist() == drawn
    state = g.get_state()
    after = tc.randn(3).tolist()
    g.set_state(state)
    assert tc.randn(3).tolist() == after


def test_dropout_bernoulli_and_multinomial_match_pytorch() -> None:
    # PyTorch's portable CPU kernels (this is not MKL's stream, which Intel builds use for
    # bernoulli_ with a scalar p).
    got = _seeded(lambda: tc.nn.functional.dropout(tc.ones(12), 0.5)).tolist()
    assert got == [0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0, 2.0, 0.0, 2.0, 2.0, 2.0]
    w = tc.tensor([0.1, 0.2, 0.3, 0.4])
    tc.manual_seed(0)
    assert tc.multinomial(w, 3).tolist() == [2, 1, 3]
    assert tc.multinomial(w, 6, True).tolist() == [3, 3, 1, 2, 2, 1]
    assert _seeded(lambda: tc.bernoulli(tc.tensor([0.2, 0.5, 0.9, 0.1, 0.7]))).tolist() == [
        0.0, 0.0, 1.0, 0.0, 1.0
    ]  # fmt: skip


def test_gamma_family_draws_match_pytorch() -> None:
    # PyTorch's _standard_gamma, one element after the other (Marsaglia-Tsang from double
    # uniforms and cached double normals), float32 arithmetic where its float kernel has it.
    got = _seeded(lambda: tc._standard_gamma(tc.tensor([0.3, 0.5, 1.0, 2.5, 7.0, 0.05])))
    assert got.tolist() == [
        5.906951628276147e-06, 0.04415091872215271, 1.05320405960083, 3.6491127014160156,
        5.241772174835205, 3.144282834099954e-09,
    ]  # fmt: skip
    alpha64 = tc.tensor([[0.3, 4.0], [1.5, 0.8]], dtype=tc.float64)
    assert _seeded(lambda: tc._standard_gamma(alpha64), 1).tolist() == [
        [0.8799756972712028, 5.228539275815311], [2.3622020138219004, 0.8451269528510345]
    ]  # fmt: skip
    # Concentrations of 0, below 0 or NaN give the smallest normal number; inf gives inf.
    edge = tc._standard_gamma(tc.tensor([-1.0, 0.0, float("nan"), float("inf")]))
    assert edge.tolist() == [1.1754943508222875e-38] * 3 + [float("inf")]
    D = tc.distributions
    gamma = D.Gamma(tc.tensor([2.0, 0.5]), tc.tensor([1.0, 3.0]))
    assert _seeded(lambda: gamma.sample((3,)), 2).tolist() == [
        [2.2261505126953125, 0.06632933020591736], [1.1009626388549805, 0.034005288034677505],
        [4.014354228973389, 0.026728695258498192]
    ]  # fmt: skip
    dirichlet = D.Dirichlet(tc.tensor([0.5, 1.5, 3.0]))
    assert _seeded(lambda: dirichlet.sample((2,)), 3).tolist() == [
        [0.10977388173341751, 0.6063730120658875, 0.28385311365127563],
        [0.03717115893959999, 0.2487710863351822, 0.7140577435493469]
    ]  # fmt: skip
    beta = D.Beta(tc.tensor([0.5, 2.0]), tc.tensor([1.5, 0.3]))
    assert _seeded(lambda: beta.sample((2,)), 4).tolist() == [
        [0.2691386640071869, 0.6002355217933655], [0.7322598695755005, 0.7782381772994995]
    ]  # fmt: skip
    tc.manual_seed(5)
    chi2 = D.Chi2(tc.tensor([3.0])).sample((4,)).tolist()
    t = D.StudentT(tc.tensor([4.0])).sample((3,)).tolist()
    assert chi2 == [[1.4318267107009888], [1.2568986415863037], [1.9323221445083618],
                    [9.549379348754883]]  # fmt: skip
    assert t == [[0.5405792593955994], [-0.9497588872909546], [-0.5135497450828552]]
    # The stream goes on where PyTorch's does.
    tc.manual_seed(0)
    tc._standard_gamma(tc.tensor([0.3, 0.5, 1.0, 2.5, 7.0, 0.05]))
    assert tc.rand(1).item() == 0.3051000237464905


def test_bernoulli_scalar_draws_in_memory_order() -> None:
    # PyTorch's kernel visits a permuted tensor's elements in memory order, so a dropout of a
    # transposed activation (a batch-first attention output) gets the mask of its storage.
    for make in (
        lambda: tc.empty(6, 4).t(),
        lambda: tc.empty(2, 3, 4).permute(2, 0, 1),
        lambda: tc.empty(6, 4).t()[:, ::2],
    ):
        t = make()
        tc.manual_seed(3)
        t.bernoulli_(0.5)
        order = sorted(range(t.ndim), key=lambda d: -t.stride(d))
        tc.manual_seed(3)
        plain = tc.empty([t.shape[d] for d in order]).bernoulli_(0.5)
        assert t.permute(order).tolist() == plain.tolist()
    x = tc.ones(6, 4).t()
    tc.manual_seed(1)
    got = tc.nn.functional.dropout(x, 0.5)
    tc.manual_seed(1)
    assert got.t().tolist() == tc.nn.functional.dropout(tc.ones(6, 4), 0.5).tolist()


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 1 / 3, 0.9, 1.0])
def test_bernoulli_kernel_draws_what_the_composite_draws(p: float) -> None:
    # The CPU kernel compares the stream's 53-bit integers with ceil(p * 2**53) where the
    # composite compares float64 uniforms with p: the same mask, element for element.
    from tensorcore.ops.composite import COMPOSITES

    composite = COMPOSITES["bernoulli_"]
    assert "from plugin 'cpu'" in tc.explain("bernoulli_", tc.empty(2), p)
    for make in (
        lambda: tc.empty(37, 29),
        lambda: tc.empty(6, 4).t()[:, ::2],
        lambda: tc.empty(300, dtype=tc.bool),
        lambda: tc.empty(5, 60, dtype=tc.int16),
    ):
        got, want = make(), make()
        tc.manual_seed(11)
        got.bernoulli_(p)
        after = tc.rand(2).tolist()  # (the stream goes on from the same place)
        tc.manual_seed(11)
        composite(want, p)
        assert got.tolist() == want.tolist()
        assert tc.rand(2).tolist() == after
    with pytest.raises(RuntimeError, match=r"expects p to be in \[0, 1\], but got p=1.5"):
        tc.empty(3).bernoulli_(1.5)


def test_bernoulli_with_a_tensor_of_probabilities() -> None:
    # PyTorch's second overload: x.bernoulli_(p_tensor), p broadcast to x, one float32
    # uniform draw per element in x's memory order compared with its probability (the
    # out-of-place bernoulli's draws); the CPU kernel and the composite draw the same.
    from tensorcore.ops.composite import COMPOSITES

    p = tc.linspace(0, 1, 20).reshape(4, 5)
    for make, probs in (
        (lambda: tc.empty(4, 5), p),
        (lambda: tc.empty(4, 5, dtype=tc.int64), p[1]),
        (lambda: tc.empty(5, 4, dtype=tc.float64).t(), p),
    ):
        got, want = make(), make()
        tc.manual_seed(5)
        got.bernoulli_(probs)
        after = tc.rand(2).tolist()
        tc.manual_seed(5)
        COMPOSITES["bernoulli_"](want, probs)
        assert got.tolist() == want.tolist() and tc.rand(2).tolist() == after
        order = sorted(range(2), key=lambda d: -got.stride(d))
        tc.manual_seed(5)
        u = tc.rand([got.shape[d] for d in order]).permute([order.index(d) for d in range(2)])
        assert got.tolist() == (u < probs.expand(4, 5)).to(got.dtype).tolist()
    for bad in (float("nan"), 1.5, -0.25):  # (bernoulli(p) too, as PyTorch's: NaN included)
        with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
            tc.empty(2).bernoulli_(tc.tensor([0.5, bad]))
        with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
            tc.bernoulli(tc.tensor([0.5, bad]))
    # bernoulli(p) draws in the row-major order of its result, whatever p's memory order
    p = tc.rand(5, 4).t()
    tc.manual_seed(9)
    got = tc.bernoulli(p)
    tc.manual_seed(9)
    assert got.is_contiguous() and got.tolist() == (tc.rand(4, 5) < p).float().tolist()
    with pytest.raises(NotImplementedError, match=r"bernoulli_tensor_cpu_p_.*'Long'"):
        tc.empty(2).bernoulli_(tc.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="The expanded size of the tensor"):
        tc.empty(2).bernoulli_(tc.full((3,), 0.5))
    with pytest.raises(TypeError, match="argument 'p' must be float, not str"):
        tc.empty(2).bernoulli_("x")  # type: ignore[arg-type]


def test_stream_bernoulli_at_ties_of_the_high_bits() -> None:
    # A probability at (or a float64 step beside) a drawn uniform: that draw's high 21 bits
    # equal the threshold's, and its second draw decides.
    from tensorcore_cpu._torch_random import TorchCPUStream

    u = TorchCPUStream(4).uniform(1000, np.float64)
    for p in (u[5], np.nextafter(u[5], 1.0), np.nextafter(u[5], 0.0), u[700]):
        got = TorchCPUStream(4).bernoulli(1000, float(p))
        np.testing.assert_array_equal(got, u < p)


def test_trunc_normal_matches_pytorch() -> None:
    # PyTorch 2.13's samplers: normal draws redrawn outside [a, b] when the interval holds
    # most of the mass; uniform proposals with a uniform acceptance draw otherwise.
    got = _seeded(lambda: tc.nn.init.trunc_normal_(tc.empty(6), std=0.02)).tolist()
    np.testing.assert_allclose(got, [0.03081992268562317, -0.00586857832968235,
                                     -0.04357578605413437, 0.011368625797331333,
                                     -0.021690446883440018, -0.027971908450126648],
                               rtol=1e-6)  # fmt: skip
    got = _seeded(
        lambda: tc.nn.init.trunc_normal_(tc.empty(6), mean=0.5, std=1.0, a=0.0, b=0.1)
    ).tolist()
    np.testing.assert_allclose(got, [0.049625661224126816, 0.0768221840262413,
                                     0.008847743272781372, 0.013203049078583717,
                                     0.030742282047867775, 0.06340786814689636],
                               rtol=1e-6)  # fmt: skip


def test_random_fill_forms_match_pytorch() -> None:
    # random_() spans 0 .. 2**digits for floats and the dtype's maximum for integers;
    # random_(to) is [0, to).
    tc.manual_seed(0)
    assert tc.empty(3).random_().tolist() == [8325664.0, 12888472.0, 1484222.0]
    assert tc.empty(3).random_(5).tolist() == [0.0, 3.0, 4.0]
    assert tc.empty(3, dtype=tc.int64).random_().tolist() == [
        827948490035658087, 7815051614634499795, 2691271404617651954
    ]  # fmt: skip
    assert tc.empty(3, dtype=tc.uint8).random_().tolist() == [36, 87, 70]
    assert tc.empty(2, dtype=tc.bool).random_().tolist() == [False, False]
    assert tc.empty(2, dtype=tc.float16).random_().tolist() == [1290.0, 1436.0]
    assert tc.empty(2, dtype=tc.int8).random_(3, 9).tolist() == [6, 5]
    tc.manual_seed(1)
    assert tc.empty(2, dtype=tc.float64).random_().tolist() == [549919010553237.0,
                                                                 2022607184203397.0]  # fmt: skip
    assert tc.empty(2, dtype=tc.bfloat16).random_().tolist() == [136.0, 114.0]
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        tc.empty(2).random_(5, 5)


def test_bernoulli_of_float64_probabilities_draws_float64() -> None:
    # PyTorch's kernel for a double p: bernoulli_distribution<double>, one float64 uniform per
    # element (float32 ones for the other dtypes); PyTorch 2.13's outputs for seed 7.
    from tensorcore.ops.composite import COMPOSITES

    p = tc.tensor([0.7, 0.2, 0.5, 0.9] * 3, dtype=tc.float64)
    want = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    assert _seeded(lambda: tc.bernoulli(p), 7).tolist() == want
    assert _seeded(lambda: tc.bernoulli(tc.full((12,), 0.7, dtype=tc.float64)), 7).tolist() == [
        1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0,
    ]  # fmt: skip
    u = _seeded(lambda: tc.rand(12, dtype=tc.float64), 7)
    assert want == (u < p).to(tc.float64).tolist()
    got, comp = tc.empty(4, 3).t(), tc.empty(4, 3).t()
    probs = p.reshape(3, 4)
    _seeded(lambda: got.bernoulli_(probs), 2)
    _seeded(lambda: COMPOSITES["bernoulli_"](comp, probs), 2)
    assert got.tolist() == comp.tolist()
    # float32 probabilities still draw float32 uniforms
    u32 = _seeded(lambda: tc.rand(12), 7)
    assert (
        _seeded(lambda: tc.bernoulli(p.float()), 7).tolist() == (u32 < p.float()).float().tolist()
    )
