"""The "climbed" criterion of a vertical-plane run over obstacles or stairs (docs/design.md).

A run *climbed* its world when the tail tip passes the far edge of the last box, x_goal = the
largest ``x_max`` of the world's static boxes, before the run ends (its time limit). Distances are
signed along world x, the direction the head points at the start. Worlds with nothing ahead of the
tail tip (flat ground) and horizontal-plane runs give ``None``: there is nothing to climb.

A run *reached* the obstacle when the head tip came within :data:`REACH_DISTANCE` of the near face of the first box
ahead of it (its ``x_min``); a run that ended before that says nothing about climbing (a study scores it *did not
reach*, not as a failure to climb).

The climb's average speed is the distance the tail tip had to cover, x_goal − x_tail(0), over the
time to climb; for runs from the same start it ranks controllers exactly as their times do, which is
how 002 §7.3 compares TSC with the open-loop gait (+25.6 %).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..core.runlog import RunLog
from ..core.world import World


@dataclass(frozen=True)
class ClimbResult:
    climbed: bool | None  # None: nothing to climb
    time_to_climb_s: float | None  # first time the tail tip is beyond goal_x_m
    goal_x_m: float | None  # far edge of the last box along x
    climb_distance_m: float | None  # goal_x_m − tail tip x at t = 0
    climb_average_speed_mps: float | None  # climb_distance_m / time_to_climb_s
    reached: bool | None = None  # the head tip came within REACH_DISTANCE of the first box's near face
    time_to_reach_s: float | None = None  # first time it did

    def as_summary(self) -> dict[str, float | bool | None]:
        """The fields for summary.json."""
        return asdict(self)


NOTHING_TO_CLIMB = ClimbResult(None, None, None, None, None)
#: How close the head tip must come to the first box's near face to have reached it [m]: 002 §5.3's contact
#: distance (a point within 1 cm of a surface is in contact).
REACH_DISTANCE = 0.01


def tail_tip_x(log: RunLog) -> np.ndarray:
    """(T,) world x of the tail tip: l behind the centre of link 1 along θ_1."""
    return log.link_position[:, 0, 0] - log.robot.half_length * np.cos(log.link_angle[:, 0])


def climb_result(log: RunLog, world: World | None) -> ClimbResult:
    """Evaluate the criterion on a finished (or stopped) run; only boxes that cross the robot's plane
    (y = 0) count."""
    if world is None or log.plane != "xz" or len(log.t) == 0:
        return NOTHING_TO_CLIMB
    x_tail = tail_tip_x(log)
    boxes = [b for b in world.static_boxes if b.y_min <= 0.0 <= b.y_max and b.x_max > x_tail[0]]
    if not boxes:
        return NOTHING_TO_CLIMB
    goal = max(b.x_max for b in boxes)
    near = min(b.x_min for b in boxes)
    at_box = np.flatnonzero(log.head_position[:, 0] >= near - REACH_DISTANCE)
    reached = at_box.size > 0
    t_reach = float(log.t[at_box[0]] - log.t[0]) if reached else None
    passed = np.flatnonzero(x_tail > goal)
    distance = goal - float(x_tail[0])
    if passed.size == 0:
        return ClimbResult(False, None, goal, distance, None, reached, t_reach)
    t_climb = float(log.t[passed[0]] - log.t[0])
    return ClimbResult(True, t_climb, goal, distance, distance / t_climb if t_climb > 0 else None, reached, t_reach)
