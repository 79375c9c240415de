"""Gait library, ROS-free, one gait per module (as snakelib).

A gait maps time to joint references, tail (joint 1) to head (joint N−1), in radians:
``gait.reference(t) -> (α_d, α̇_d)``. A module here that defines ``GAIT`` (a :class:`GaitSpec`: its name, its
parameters with defaults, ranges, units and descriptions, and its builder), loaded by a function listed in
:data:`GAITS`, is a gait: the gait_generator node declares its parameters, scenarios name it as ``gait.type``.
:func:`make_gait` builds one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..registry import Registry
from .base import Gait, GaitSpec


def _pedal_wave() -> GaitSpec:
    from .pedal_wave import GAIT
    return GAIT


def _rectilinear() -> GaitSpec:
    from .rectilinear import GAIT  # B-splines of scipy.interpolate: loaded only for this gait
    return GAIT


def _serpenoid() -> GaitSpec:
    from .serpenoid import GAIT
    return GAIT


#: gait.type → the GaitSpec of the module defining it, loaded on first use.
GAITS: Registry[GaitSpec] = Registry({"pedal_wave": _pedal_wave, "rectilinear": _rectilinear,
                                      "serpenoid": _serpenoid}, "gait.type")


def make_gait(gait_type: str, n_joints: int, params: Mapping[str, Any], source: str | None = None) -> Gait:
    """Build the gait ``gait_type`` for ``n_joints`` joints from a parameter mapping (validated)."""
    return GAITS.get(gait_type, source).build(n_joints, params, source)


__all__ = ["GAITS", "Gait", "GaitSpec", "make_gait"]
