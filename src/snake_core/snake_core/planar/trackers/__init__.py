"""Head trackers of 004 §6, one module each: a module here that defines ``TRACKER`` (a
:class:`~snake_core.planar.head_tracking.TrackerSpec`), loaded by a function listed in :data:`TRACKERS`, is a
``controller.mode`` of the planar runtime and of the head_tracking_controller node, which declares its gains from
it."""

from __future__ import annotations

from ...registry import Registry
from ..head_tracking import TrackerSpec


def _lyapunov() -> TrackerSpec:
    from .lyapunov import TRACKER
    return TRACKER


def _pfl() -> TrackerSpec:
    from .pfl import TRACKER
    return TRACKER


#: controller.mode → the TrackerSpec of the module defining it, loaded on first use.
TRACKERS: Registry[TrackerSpec] = Registry({"lyapunov": _lyapunov, "pfl": _pfl}, "controller.mode")

__all__ = ["TRACKERS"]
