"""``python -m tensorcore``: report versions, backends, devices, layouts and operator coverage.

``python -m tensorcore --ops`` prints the operator x (device/layout) kernel matrix instead.
The work is done by :mod:`tensorcore._info`.
"""

from __future__ import annotations

from ._info import main

if __name__ == "__main__":
    raise SystemExit(main())
