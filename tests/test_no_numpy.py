"""Without NumPy: the core imports and works; the CPU backend fails to load, with a warning,
and operators say which package to install."""

from __future__ import annotations

from typing import Any

_BLOCK_NUMPY = """
import sys

class _NoNumpy:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "ml_dtypes"):
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return None

sys.meta_path.insert(0, _NoNumpy())
"""


def test_core_works_without_numpy(run_py: Any) -> None:
    code = (
        _BLOCK_NUMPY
        + """
import sys
import warnings

import tensorcore as tc
import tensorcore.testing

assert "numpy" not in sys.modules
assert tc.promote_types(tc.uint8, tc.int8) is tc.int16
assert tc.result_type(tc.float16, 1.5) is tc.float16
assert tc.can_cast(tc.int32, tc.float16)
d = tc.device("cuda:1")
assert (d.type, d.index) == ("cuda", 1)
assert tc.get_default_device() == tc.device("cpu")
assert tc.strided.name == "strided"
assert tc.broadcast_shapes((2, 1), (3,)) == (2, 3)
from tensorcore.dispatch import ops
assert "add" in ops() and "matmul" in ops()

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    info = {p.name: p for p in tc.backends.list()}
assert info["cpu"].status == "failed", info["cpu"]
assert "numpy" in info["cpu"].error, info["cpu"].error
assert info["views"].status == "loaded" and info["composite"].status == "loaded"
assert any(
    issubclass(w.category, RuntimeWarning) and "backend plugin 'cpu'" in str(w.message)
    for w in caught
), [str(w.message) for w in caught]
assert "cpu" not in tc.backends.devices()

for make in (lambda: tc.tensor([1.0, 2.0]), lambda: tc.zeros(2), lambda: tc.ones(2, 2)):
    try:
        make()
    except (RuntimeError, NotImplementedError) as exc:
        assert "tensorcore-cpu" in str(exc), exc
    else:
        raise AssertionError("made a CPU tensor without NumPy")
assert "tensorcore-cpu" in tc.explain("add", device="cpu")
assert "numpy" not in sys.modules
print("OK")
"""
    )
    proc = run_py(code)
    assert proc.stdout.strip() == "OK"
    # Not an error for the subprocess: the RuntimeWarning about the CPU backend is expected.
    assert "Traceback" not in proc.stderr


def test_import_loads_no_plugin_machinery(run_py: Any) -> None:
    # Plugins load on first use: ``import tensorcore`` pays for neither pluggy nor the entry
    # point scan (importlib.metadata), nor for a backend's array library.
    out = run_py(
        """
        import sys
        import tensorcore
        print(sorted(m for m in ("pluggy", "importlib.metadata", "numpy") if m in sys.modules))
        """
    ).stdout
    assert out.strip() == "[]"
