"""Sparse COO tensors (``tensorcore-sparse``) next to SciPy, and PyTorch when it is installed.

    python3 benchmarks/bench_sparse.py            # full run
    python3 benchmarks/bench_sparse.py --quick    # a smaller matrix, fewer repeats

The workloads (full run): a 100,000 x 100,000 float32 matrix with 1,000,000 non-zeros

- times a dense 100,000 x 64 matrix (``A @ B``, ``tc.sparse.mm``);
- plus another such sparse matrix (``A + A2``, a sparse result);
- both again with ``A`` a CSR tensor (``tc.sparse_csr``, PyTorch's ``torch.sparse_csr``).

The sparse operands are coalesced once, before timing, in every library; tensorcore converts a
coalesced tensor to SciPy's CSR form on first use and caches it on the tensor, so the timed
calls do what SciPy's do on its own CSR matrices (which SciPy also keeps canonical between
calls). Each figure is the median of the repeats; the libraries take turns within a repeat.
The target is tensorcore within 1.2x of SciPy; the script exits with status 1 when missed.
PyTorch is optional and never a dependency (``pip install torch``); without it its column
shows ``-``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy
import scipy.sparse as sp

import tensorcore as tc

try:
    import torch
except ImportError:  # an optional comparison, never a requirement
    torch = None

TARGET = 1.2


def _time(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_times(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Median wall time of each function; one warm-up call each, then turns per repeat."""
    for fn in fns.values():
        fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            samples[name].append(_time(fn))
    return {name: statistics.median(ts) for name, ts in samples.items()}


def random_coo(n: int, nnz: int, seed: int) -> tuple[Any, Any]:
    """Coalesced (row-major sorted, unique) indices and float32 values."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, n * n, size=int(nnz * 1.02), dtype=np.int64))[:nnz]
    rng.shuffle(keys)
    keys.sort()
    idx = np.stack([keys // n, keys % n])
    return idx, rng.standard_normal(len(keys)).astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller matrix, fewer repeats")
    args = parser.parse_args(argv)
    n, nnz, k, repeat = (20_000, 200_000, 64, 5) if args.quick else (100_000, 1_000_000, 64, 9)

    idx, val = random_coo(n, nnz, 0)
    idx2, val2 = random_coo(n, nnz, 1)
    dense = np.random.default_rng(2).standard_normal((n, k)).astype(np.float32)

    a = tc.sparse_coo_tensor(tc.from_numpy(idx), tc.from_numpy(val), (n, n)).coalesce()
    a2 = tc.sparse_coo_tensor(tc.from_numpy(idx2), tc.from_numpy(val2), (n, n)).coalesce()
    b = tc.from_numpy(dense)
    s1 = sp.csr_matrix((val, (idx[0], idx[1])), shape=(n, n))
    s2 = sp.csr_matrix((val2, (idx2[0], idx2[1])), shape=(n, n))
    s1.sum_duplicates()
    s2.sum_duplicates()

    # Same answers before timing anything.
    np.testing.assert_allclose((a @ b).numpy(), s1 @ dense, rtol=1e-4, atol=1e-4)
    total = a + a2
    ref = (s1 + s2).tocoo()
    assert total._nnz() == ref.nnz
    np.testing.assert_allclose(total.values().numpy(), (s1 + s2).data, rtol=1e-6)

    c, c2 = a.to_sparse_csr(), a2.to_sparse_csr()
    np.testing.assert_allclose((c @ b).numpy(), s1 @ dense, rtol=1e-4, atol=1e-4)
    assert (c + c2)._nnz() == ref.nnz

    fresh = tc.sparse_coo_tensor(a.indices(), a.values(), (n, n), is_coalesced=True)
    convert = _time(lambda: fresh @ b)  # builds and caches the CSR matrix, then multiplies
    cases: dict[str, dict[str, Callable[[], Any]]] = {
        f"sparse @ dense ({n:,}^2, nnz {nnz:,}) @ ({n:,} x {k})": {
            "tensorcore": lambda: a @ b,
            "scipy": lambda: s1 @ dense,
        },
        f"sparse + sparse ({n:,}^2, nnz {nnz:,} each)": {
            "tensorcore": lambda: a + a2,
            "scipy": lambda: s1 + s2,
        },
        f"CSR @ dense ({n:,}^2, nnz {nnz:,}) @ ({n:,} x {k})": {
            "tensorcore": lambda: c @ b,
            "scipy": lambda: s1 @ dense,
        },
        f"CSR + CSR ({n:,}^2, nnz {nnz:,} each)": {
            "tensorcore": lambda: c + c2,
            "scipy": lambda: s1 + s2,
        },
    }
    if torch is not None:
        ta = torch.sparse_coo_tensor(
            torch.from_numpy(idx), torch.from_numpy(val), (n, n), check_invariants=False
        )
        ta2 = torch.sparse_coo_tensor(
            torch.from_numpy(idx2), torch.from_numpy(val2), (n, n), check_invariants=False
        )
        ta, ta2 = ta.coalesce(), ta2.coalesce()
        tb = torch.from_numpy(dense)
        first, second, third, fourth = cases.values()
        first["torch"] = lambda: torch.sparse.mm(ta, tb)
        second["torch"] = lambda: ta + ta2
        tc1, tc2 = ta.to_sparse_csr(), ta2.to_sparse_csr()
        third["torch"] = lambda: torch.sparse.mm(tc1, tb)
        fourth["torch"] = lambda: tc1 + tc2

    print(
        f"tensorcore {tc.__version__}, NumPy {np.__version__}, SciPy {scipy.__version__}, ", end=""
    )
    if torch is not None:
        print(f"PyTorch {torch.__version__} ({torch.get_num_threads()} threads)")
    else:
        print("PyTorch not installed")
    print(f"Python {platform.python_version()} on {platform.machine()}, {repeat} repeats\n")
    ok = True
    header = f"{'workload':<58} {'tensorcore':>11} {'scipy':>9} {'torch':>9} {'tc/scipy':>9}"
    print(header)
    print("-" * len(header))
    for name, fns in cases.items():
        t = median_times(fns, repeat)
        ratio = t["tensorcore"] / t["scipy"]
        ok = ok and ratio <= TARGET
        torch_ms = f"{t['torch'] * 1e3:7.1f}ms" if "torch" in t else f"{'-':>9}"
        print(
            f"{name:<58} {t['tensorcore'] * 1e3:9.1f}ms {t['scipy'] * 1e3:7.1f}ms "
            f"{torch_ms} {ratio:8.2f}x"
        )
    print(
        f"\nFirst product of a freshly built coalesced tensor (CSR conversion included): "
        f"{convert * 1e3:.1f}ms"
    )
    print(f"Target: tensorcore within {TARGET}x of SciPy: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
