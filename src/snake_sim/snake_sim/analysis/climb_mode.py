"""How a run gets over an obstacle: it *crawls* (the head stays ahead of the tail) or it *tumbles* (head over tail),
and how far the tail tip got towards the climb's goal (:mod:`snake_sim.analysis.climb`).

The body's *chord* is the segment from the tail tip to the head tip in the plane of motion (x forward, z up; the
3-D models' link pitch and positions give the same plane). Its angle above the x axis, unwrapped over the run, stays
within ±90° while the head tip is ahead of the tail tip: the robot crawls, arching and pressing its links on the
box. A chord turning past the vertical has put the head behind the tail: the robot went over end over end (a
tumble; a full somersault turns it by 360°). So the criterion is geometric, with no tuned threshold:

    crawl  ⇔  max_t |ψ(t)| < 90°,   ψ = atan2(z_head − z_tail, x_head − x_tail) (unwrapped)

Beside the verdict, the body's largest rotation (the mean of the unwrapped link angles) says how far a tumble went.

The climb's *progress speed* is the climb's average speed (goal distance / time to climb) for a run that climbed,
and the tail tip's advance over the run's duration for one that did not: every non-climber ranks below every
climber (it did not cover the goal distance in the run) and the two meet at a climb that ends with the run, so a
search that maximises it is led towards the box and then to faster climbs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.runlog import RunLog
from ..core.world import World
from .climb import ClimbResult, climb_result, tail_tip_x

#: The modes, in the order of :func:`climb_mode`'s verdict.
MODES = ("crawl", "tumble")
#: The chord angle past which the head is behind the tail [°].
CHORD_LIMIT_DEG = 90.0


@dataclass(frozen=True)
class ClimbMode:
    mode: str  # "crawl" or "tumble" (MODES)
    max_chord_angle_deg: float  # max_t |ψ| (module docstring)
    min_head_lead_m: float  # min_t (x_head − x_tail): negative once the head is behind the tail
    max_body_rotation_deg: float  # max_t |mean of the unwrapped link angles|
    tail_progress_m: float  # x_tail(end) − x_tail(0)
    climb_progress_speed_mps: float | None  # module docstring; None where there is nothing to climb

    def as_summary(self) -> dict[str, Any]:
        """The fields for summary.json."""
        return {"climb_mode": self.mode, "max_chord_angle_deg": self.max_chord_angle_deg,
                "min_head_lead_m": self.min_head_lead_m, "max_body_rotation_deg": self.max_body_rotation_deg,
                "tail_progress_m": self.tail_progress_m, "climb_progress_speed_mps": self.climb_progress_speed_mps}


def chord_angle(log: RunLog) -> np.ndarray:
    """(T,) ψ, the angle of the tail-tip → head-tip chord above the x axis, unwrapped over the run [rad]."""
    head = log.head_position
    theta = log.link_angle[:, 0]
    tail_z = log.link_position[:, 0, 2] - log.robot.half_length * np.sin(theta)
    return np.unwrap(np.arctan2(head[:, 2] - tail_z, head[:, 0] - tail_tip_x(log)))


def progress_speed(climb: ClimbResult, tail_progress_m: float, duration_s: float) -> float | None:
    """The climb's average speed if it climbed, else the tail tip's advance over the duration (module docstring)."""
    if climb.climbed is None:
        return None
    if climb.climbed:
        return climb.climb_average_speed_mps
    return tail_progress_m / duration_s if duration_s > 0 else 0.0


def climb_mode(log: RunLog, world: World | None) -> ClimbMode:
    """The mode of a vertical-plane (or 3-D, in its x–z plane) run with at least one sample."""
    if log.plane != "xz":
        raise ValueError(f"the climbing mode is defined in the x–z plane, not {log.plane!r}")
    psi = np.degrees(np.abs(chord_angle(log)))
    lead = log.head_position[:, 0] - tail_tip_x(log)
    body = np.degrees(np.abs(np.unwrap(log.link_angle, axis=0).mean(axis=1)))
    tail = tail_tip_x(log)
    progress = float(tail[-1] - tail[0])
    return ClimbMode(MODES[int(psi.max() >= CHORD_LIMIT_DEG)], float(psi.max()), float(lead.min()), float(body.max()),
                     progress, progress_speed(climb_result(log, world), progress, log.duration))


def climb_fields(log: RunLog, world: World | None) -> dict[str, Any]:
    """The climbing mode's fields for summary.json (:data:`snake_studies.sweep.engine.ExtraFields`; a sweep's
    :func:`snake_studies.sweep.engine.measure_climb`)."""
    return climb_mode(log, world).as_summary()
