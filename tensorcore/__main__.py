"""``python -m tensorcore``: report versions, backends, devices, layouts and operator coverage.

``python -m tensorcore --ops`` prints the operator x (device/layout) kernel matrix instead;
``python -m tensorcore --coverage NAME`` what one device type or layout has kernels for.
The work is done by :mod:`tensorcore._info`.
"""

from __future__ import annotations

import os
import sys

from ._info import main

if __name__ == "__main__":
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # ``python -m tensorcore --ops | head``: the reader left early
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    raise SystemExit(code)
