"""Shared fixtures of the snake_core tests."""

from __future__ import annotations

import zlib

import numpy as np
import pytest


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded by the test's own id: the same draws whatever order or worker runs it."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
