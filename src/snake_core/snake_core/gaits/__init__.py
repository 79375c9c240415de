"""Gait library, ROS-free, one gait per module (as snakelib).

A gait maps time to joint references, tail (joint 1) to head (joint N−1), in radians:
``gait.reference(t) -> (α_d, α̇_d)``. :func:`make_gait` builds one by its type name, which is
the ``gait.type`` of scenarios and the ``gait`` parameter of the gait_generator node.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ..validation import choice
from .base import Gait

#: gait.type → module under snake_core.gaits providing ``from_params(n_joints, params) -> Gait``.
GAIT_MODULES: dict[str, str] = {
    "pedal_wave": "pedal_wave",
    "serpenoid": "serpenoid",
    "rectilinear": "rectilinear",
}


def make_gait(gait_type: str, n_joints: int, params: Mapping[str, Any], source: str | None = None) -> Gait:
    """Build the gait ``gait_type`` for ``n_joints`` joints from a parameter mapping (validated)."""
    choice(gait_type, "gait.type", tuple(GAIT_MODULES), source)
    module = importlib.import_module(f"{__name__}.{GAIT_MODULES[gait_type]}")
    return module.from_params(n_joints, params, source)


__all__ = ["GAIT_MODULES", "Gait", "make_gait"]
