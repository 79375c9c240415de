"""Plane angles."""

from __future__ import annotations

import numpy as np


def wrap_angle(angle: float | np.ndarray) -> float | np.ndarray:
    """angle mapped to (−π, π] (elementwise)."""
    return np.pi - np.mod(np.pi - angle, 2.0 * np.pi)
