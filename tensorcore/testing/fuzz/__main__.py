"""``python -m tensorcore.testing.fuzz``: run every case and report."""

from __future__ import annotations

import tensorcore as tc

from . import cases, public_cases, run, summarize


def main(argv: list[str] | None = None) -> int:
    """``python -m tensorcore.testing.fuzz [--device D] [-v]``: run every case and print the
    counts (and, with ``-v``, every call that misbehaves); exit status 1 if any does."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tensorcore.testing.fuzz")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("-v", "--verbose", action="store_true")
    ns = parser.parse_args(argv)
    results = []
    for case in (*cases(ns.device), *public_cases(ns.device)):
        results.append(run(case))
        tc.set_default_dtype(tc.float32)
        tc.set_default_device(None)
    counts = summarize(results)
    print(", ".join(f"{k}: {v}" for k, v in counts.items()))
    bad = [r for r in results if not r.ok]
    if ns.verbose:
        for r in bad:
            print(r.describe())
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
