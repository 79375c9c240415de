"""ROS-free diagnostics records; the bridge node converts them to diagnostic_msgs/DiagnosticStatus."""

from __future__ import annotations

from dataclasses import dataclass

# Levels as in diagnostic_msgs/DiagnosticStatus.
OK, WARN, ERROR, STALE = 0, 1, 2, 3


@dataclass(frozen=True)
class DiagnosticRecord:
    name: str  # e.g. "can_bridge: bus", "can_bridge: joint_3 (module 3)"
    level: int
    message: str
    hardware_id: str = ""
    values: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class FaultEvent:
    """A fault appearing (active=True) or clearing, with the time it happened."""

    time: float
    key: str
    active: bool
    message: str
