"""Known gaps: the lines of a backend's gaps file, and which conformance tests they match.

A gaps file lists the tests a backend is known to fail, one per line::

    # comment lines and blank lines are ignored
    test_samples[cumsum-float32-*]   the scan kernel drops the last element (issue 42)
    @cuda test_dtype[matmul-int*]    cuBLAS has no integer matmul
    @full test_bad_input[sort]       a bad-input case that only the full mode makes
    @cuda @fast test_out[mm-0]       a gap of the fast mode's sample 0 on cuda only

A line is a pattern, then whitespace, then the reason (required). The pattern matches a
test's id as pytest shows it (``test_name[params]``); ``*`` stands for any run of
characters and ``?`` for one, everything else (brackets included) is literal. Qualifiers
before the pattern restrict a line: ``@DEVICE`` to runs on that device type, ``@full`` to
runs with ``--tensorcore-full`` and ``@fast`` to runs without it (so ``full`` and ``fast``
are never read as device types). Each test a line matches is a strict expected failure: it
must still fail, and one that passes fails the run with a message naming the line to
remove.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MODES", "Gap", "parse", "read"]

#: The qualifiers that name a conformance mode rather than a device type.
MODES = ("fast", "full")


@dataclass(eq=False)
class Gap:
    """One line of a gaps file."""

    pattern: str
    reason: str
    #: ``file:line``, for messages.
    source: str
    #: The device type the line is restricted to (``@cuda``), or None.
    device: str | None = None
    #: The mode the line is restricted to (``@fast`` or ``@full``), or None.
    mode: str | None = None
    _regex: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in self.pattern)
        self._regex = re.compile("".join(parts))

    def applies_to(self, device: str, full: bool | None = None) -> bool:
        """Whether the line is meant for a run on ``device`` in full mode (``full`` True),
        in fast mode (False), or in either (None)."""
        if self.device is not None and self.device != device:
            return False
        return self.mode is None or full is None or self.mode == ("full" if full else "fast")

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
    >>> text += "\\n@cuda @full test_bad_input[sort]  full-mode case"
    >>> for g in parse(text, "gaps.txt"):
    ...     print(g.source, g.device, g.mode, g.pattern, "|", g.reason)
    gaps.txt:3 None None test_out[mm-*] | no out= yet
    gaps.txt:4 cuda None test_dtype[*-bf*] | no bf16
    gaps.txt:5 cuda full test_bad_input[sort] | full-mode case
    """
    gaps = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        device = mode = None
        ok = True
        while line.startswith("@"):
            head, _, line = line.partition(" ")
            line = line.strip()
            name = head[1:]
            slot = "mode" if name in MODES else "device"
            if not name or (mode if slot == "mode" else device) is not None:
                ok = False  # an empty qualifier, or two of one kind
            elif slot == "mode":
                mode = name
            else:
                device = name
        pattern, _, reason = line.partition(" ")
        reason = reason.strip()
        if not ok or not pattern or not reason:
            raise ValueError(
                f"{source}:{lineno}: expected '[@DEVICE] [@fast|@full] TEST-ID-PATTERN  "
                f"REASON', got {raw.strip()!r}"
            )
        gaps.append(Gap(pattern, reason, f"{source}:{lineno}", device, mode))
    return gaps


def read(path: str | Path) -> list[Gap]:
    """The gaps listed in the file at ``path``."""
    p = Path(path)
    return parse(p.read_text(encoding="utf-8"), str(p))
