"""The head tip's planar pose and twist from ground-truth poses of the head link (Gazebo's
PosePublisher bridged by ros_gz_bridge, a motion-capture body, …), for /head/odometry.

Frames as urdf/snake.urdf.xacro and snake_sim.outputs.recording: link_N's origin is its tail end with x
along the link towards the head, so the head tip (the URDF's ``head_tip``) is p + R e_x l, l the
link length. The planar head pose is (X, Y, ψ): the tip in the world's horizontal plane and the
heading ψ of link_N's x axis about +z (:mod:`.convention`: ψ = θ'_N; the trackers' q_from_world).
Poses and quaternions (x, y, z, w) are snake_core.interface's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from snake_core.angles import wrap_angle
from snake_core.interface import Pose3, heading, rotation


@dataclass(frozen=True)
class HeadPose:
    """Head tip at time t [s]: world X, Y, height z [m], heading ψ [rad] in (−π, π]."""

    t: float
    x: float
    y: float
    z: float
    heading: float


@dataclass(frozen=True)
class HeadTwist:
    """Head tip velocity in the world (vx, vy) [m/s] and heading rate ψ̇ [rad/s]."""

    vx: float
    vy: float
    heading_rate: float

    def in_head_frame(self, heading: float) -> tuple[float, float]:
        """(forward, leftward) [m/s] of this velocity, see :func:`to_head_frame`."""
        forward, leftward = to_head_frame(self.vx, self.vy, heading)
        return float(forward), float(leftward)


def to_head_frame(vx: float | np.ndarray, vy: float | np.ndarray, heading: float | np.ndarray
                  ) -> tuple[float | np.ndarray, float | np.ndarray]:
    """(forward, leftward): an in-plane world velocity turned by −ψ, as nav_msgs/Odometry's twist in
    the child frame (REP 105); ros_interface.odometry_planar turns it back by ψ. Elementwise."""
    c, s = np.cos(heading), np.sin(heading)
    return c * vx + s * vy, -s * vx + c * vy


def head_tip_pose(t: float, head_link: Pose3, head_length: float) -> HeadPose | None:
    """Planar head tip pose from the head link's world pose: tip = p + R e_x l, ψ = atan2(R_yx, R_xx)
    (roll about the link axis, joint_roll, does not change it). None for non-finite input."""
    r = rotation(head_link.orientation)
    p = np.asarray(head_link.position, dtype=float)
    if r is None or not (math.isfinite(t) and np.all(np.isfinite(p)) and math.isfinite(head_length)):
        return None
    tip = p + head_length * r.apply((1.0, 0.0, 0.0))
    return HeadPose(float(t), float(tip[0]), float(tip[1]), float(tip[2]), heading(r))


def head_twist(previous: HeadPose, current: HeadPose) -> HeadTwist | None:
    """Backward difference of two stamped tip poses: v = Δp/Δt, ψ̇ = wrap(Δψ)/Δt (the shorter turn).
    None when Δt ≤ 0 or anything is non-finite (out-of-order or repeated stamps, a simulation reset)."""
    dt = current.t - previous.t
    values = (dt, previous.x, previous.y, previous.heading, current.x, current.y, current.heading)
    if not all(math.isfinite(v) for v in values) or dt <= 0.0:
        return None
    return HeadTwist((current.x - previous.x) / dt, (current.y - previous.y) / dt,
                     float(wrap_angle(current.heading - previous.heading)) / dt)
