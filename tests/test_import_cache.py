"""``import tensorcore`` compiles the operator functions from the table; the code object is
cached beside the package's bytecode, and a damaged or missing cache only costs a compile."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def test_operator_code_is_cached_and_a_damaged_cache_is_rebuilt(
    run_py: Any, tmp_path: Path
) -> None:
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path), "PYTHONDONTWRITEBYTECODE": None}
    code = "import tensorcore as tc; print((tc.ones(2) + 1).tolist())"
    assert run_py(code, env=env).stdout.strip() == "[2.0, 2.0]"
    (cache,) = tmp_path.rglob("_api.ops-*.marshal")
    cache.write_bytes(b"\x00 not marshal data")
    assert run_py(code, env=env).stdout.strip() == "[2.0, 2.0]"
    (rebuilt,) = tmp_path.rglob("_api.ops-*.marshal")
    assert rebuilt.read_bytes() != b"\x00 not marshal data"
