"""Fixtures shared by the CPU backend's tests."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def freeze_older_objects() -> Iterator[None]:
    """Leave the objects alive before a module out of its tests' ``gc.collect()`` calls
    (``gc.freeze``): late in a whole-suite run a full collection scans a heap of millions of
    objects, 1-2 s each, and what the tests that use it wait for is their own objects'
    release."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()
