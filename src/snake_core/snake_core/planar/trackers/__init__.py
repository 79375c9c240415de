"""Head trackers of 004 §6, one module each: a module here that defines ``TRACKER`` (a
:class:`~snake_core.planar.head_tracking.TrackerSpec`) is a ``controller.mode`` of the planar runtime and of the
head_tracking_controller node, which declares its gains from it."""

from __future__ import annotations

from ...registry import Registry
from ..head_tracking import TrackerSpec

#: controller.mode → the TrackerSpec of the module defining it.
TRACKERS: Registry[TrackerSpec] = Registry(__name__, "TRACKER", "controller.mode")

__all__ = ["TRACKERS"]
