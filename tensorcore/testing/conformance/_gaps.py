"""Known gaps: the lines of a backend's gaps file, and which conformance tests they match.

A gaps file lists the tests a backend is known to fail, one per line::

    # comment lines and blank lines are ignored
    test_samples[cumsum-float32-*]   the scan kernel drops the last element (issue 42)
    @cuda test_dtype[matmul-int*]    cuBLAS has no integer matmul

A line is a pattern, then whitespace, then the reason (required). The pattern matches a
test's id as pytest shows it (``test_name[params]``); ``*`` stands for any run of
characters and ``?`` for one, everything else (brackets included) is literal. A line that
starts with ``@DEVICE`` applies only to runs on that device type. Each test a line matches
is a strict expected failure: it must still fail, and one that passes fails the run with a
message naming the line to remove.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Gap", "parse", "read"]


@dataclass(eq=False)
class Gap:
    """One line of a gaps file."""

    pattern: str
    reason: str
    #: ``file:line``, for messages.
    source: str
    #: The device type the line is restricted to (``@cuda``), or None.
    device: str | None = None
    _regex: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in self.pattern)
        self._regex = re.compile("".join(parts))

    def applies_to(self, device: str) -> bool:
        """Whether the line is meant for a run on ``device``."""
        return self.device is None or self.device == device

    def matches(self, test_id: str) -> bool:
        """Whether the pattern matches the whole of ``test_id``.

        Examples
        --------
        >>> from tensorcore.testing.conformance._gaps import Gap
        >>> g = Gap("test_samples[add-*]", "off by one", "gaps.txt:1")
        >>> g.matches("test_samples[add-float32-0]"), g.matches("test_samples[addmm-float32-0]")
        (True, False)
        """
        return self._regex.fullmatch(test_id) is not None


def parse(text: str, source: str) -> list[Gap]:
    """The gaps of a gaps file's ``text``; ``source`` names the file in messages.

    Raises
    ------
    ValueError
        For a line without a reason, naming the file and line.

    Examples
    --------
    >>> from tensorcore.testing.conformance._gaps import parse
    >>> text = "# known gaps\\n\\ntest_out[mm-*]   no out= yet\\n@cuda test_dtype[*-bf*]  no bf16"
    >>> for g in parse(text, "gaps.txt"):
    ...     print(g.source, g.device, g.pattern, "|", g.reason)
    gaps.txt:3 None test_out[mm-*] | no out= yet
    gaps.txt:4 cuda test_dtype[*-bf*] | no bf16
    """
    gaps = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        device = None
        if line.startswith("@"):
            head, _, line = line.partition(" ")
            device = head[1:]
            line = line.strip()
        pattern, _, reason = line.partition(" ")
        reason = reason.strip()
        if device == "" or not pattern or not reason:
            raise ValueError(
                f"{source}:{lineno}: expected '[@DEVICE] TEST-ID-PATTERN  REASON', "
                f"got {raw.strip()!r}"
            )
        gaps.append(Gap(pattern, reason, f"{source}:{lineno}", device))
    return gaps


def read(path: str | Path) -> list[Gap]:
    """The gaps listed in the file at ``path``."""
    p = Path(path)
    return parse(p.read_text(encoding="utf-8"), str(p))
