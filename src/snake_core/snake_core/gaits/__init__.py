"""Gait library, ROS-free, one gait per module (as snakelib).

A gait maps time to joint references, tail (joint 1) to head (joint N−1), in radians:
``gait.reference(t) -> (α_d, α̇_d)``. A module here that defines ``GAIT`` (a :class:`GaitSpec`: its name, its
parameters with defaults, ranges, units and descriptions, and its builder) is a gait: :data:`GAITS` finds it, the
gait_generator node declares its parameters, scenarios name it as ``gait.type``. :func:`make_gait` builds one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..registry import Registry
from .base import Gait, GaitSpec

#: gait.type → the GaitSpec of the module defining it.
GAITS: Registry[GaitSpec] = Registry(__name__, "GAIT", "gait.type")


def make_gait(gait_type: str, n_joints: int, params: Mapping[str, Any], source: str | None = None) -> Gait:
    """Build the gait ``gait_type`` for ``n_joints`` joints from a parameter mapping (validated)."""
    return GAITS.get(gait_type, source).build(n_joints, params, source)


__all__ = ["GAITS", "Gait", "GaitSpec", "make_gait"]
