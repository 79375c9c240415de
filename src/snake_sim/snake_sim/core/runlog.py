"""The time series of one embedded-simulator run: what runtimes produce and what the summary,
plots, animation and rosbag recorder consume.

Vertical-plane runs (002) live in the world x–z plane, horizontal ones (004, 001) in x–y; the
pose of every link is stored in 3-D world coordinates with its angle about the plane normal so
that consumers need not know which model produced the run. Joint arrays are tail → head.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from snake_core.robot import RobotParams

PLANES = ("xz", "xy")


@dataclass
class Diagnostic:
    """One /diagnostics event: level 0 OK, 1 WARN, 2 ERROR, 3 STALE (diagnostic_msgs)."""

    t: float
    level: int
    name: str
    message: str


@dataclass
class RunLog:
    robot: RobotParams
    plane: str  # "xz": θ about −y (002, x forward, z up); "xy": θ about +z (004)
    t: np.ndarray  # (T,) [s]
    link_position: np.ndarray  # (T, N, 3) centre of mass of each link in the world [m]
    link_angle: np.ndarray  # (T, N) absolute link angle θ_i in the plane [rad]
    alpha: np.ndarray  # (T, N−1) relative joint angles α_j [rad]
    alpha_dot: np.ndarray  # (T, N−1) [rad/s]
    tau: np.ndarray  # (T, N−1) joint torque: SEA torque K(α − β) or the applied torque of rigid joints [N·m]
    beta: np.ndarray | None = None  # (T, N−1) motor angles β_j (SEA robots) [rad]
    beta_ref: np.ndarray | None = None  # (T, N−1) β_d sent to the inner loop [rad]
    alpha_ref: np.ndarray | None = None  # (T, N−1) α_d from the gait / controller [rad]
    alpha_ref_dot: np.ndarray | None = None  # (T, N−1)
    motor_torque: np.ndarray | None = None  # (T, N−1) U of 002 (4.39) [N·m]
    contact_count: np.ndarray | None = None  # (T,) number of points in contact
    head_reference: np.ndarray | None = None  # (T, 3) reference x, y, θ of the head (head tracking)
    manipulability: np.ndarray | None = None  # (T, k): D, R, then singular values (004)
    series: dict[str, np.ndarray] = field(default_factory=dict)  # extra named (T,) or (T, k) series
    diagnostics: list[Diagnostic] = field(default_factory=list)
    status: str = "ok"  # "ok" or what stopped the run (e.g. a non-finite state: when and which coordinate)
    summary_fields: dict[str, Any] = field(default_factory=dict)  # runner-specific summary.json fields (pushing)

    def __post_init__(self) -> None:
        if self.plane not in PLANES:
            raise ValueError(f"plane must be one of {PLANES}, not {self.plane!r}")

    @property
    def com(self) -> np.ndarray:
        """(T, 3) centre of mass of the robot (identical links)."""
        return self.link_position.mean(axis=1)

    @property
    def duration(self) -> float:
        """Simulated time covered by the log [s] (0 for fewer than two samples)."""
        return float(self.t[-1] - self.t[0]) if len(self.t) > 1 else 0.0

    @property
    def distance(self) -> float:
        """Progress of the centre of mass along world x [m] (signed: + is where the head points at the start)."""
        return float(self.com[-1, 0] - self.com[0, 0]) if len(self.t) else 0.0

    @property
    def average_speed(self) -> float:
        """distance / duration [m/s] (DESIGN's ``average_speed_mps``; 0 for a run of one sample)."""
        return self.distance / self.duration if self.duration > 0 else 0.0

    @property
    def head_position(self) -> np.ndarray:
        """(T, 3) tip of the head link (link N), at l from its centre along θ_N."""
        l_half = self.robot.half_length
        th = self.link_angle[:, -1]
        tip = self.link_position[:, -1].copy()
        tip[:, 0] += l_half * np.cos(th)
        tip[:, 1 if self.plane == "xy" else 2] += l_half * np.sin(th)
        return tip
