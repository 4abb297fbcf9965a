"""The first example of ``README.md`` runs and prints the output the page shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_prints_what_the_page_shows() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```\n\n<!-- output -->\n```text\n(.*?)```", text, re.S)
    assert match, "README.md has no example followed by its output"
    code, expected = match.groups()
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert out == expected
