"""Mapping between 004's coordinates and the suite's conventions (docs/design.md; RunLog).

004 numbers links and joints from the head (link 1 = head link, joint i between links i and
i+1, φ_i = θ_{i+1} − θ_i) and its link angle θ_i points from the head side to the tail side.
The suite numbers from the tail (joint j = 1 at the tail) with 002's relative angle
α_j = θ'_j − θ'_{j+1} (002 §4.3.1, the vertical model's and the rectilinear gait's sign), θ'
pointing towards the head, angles about +z in the horizontal plane. Hence, for n links:

* the embedded simulator's world frame is 004's frame turned by π about z, so that a head-first
  straight run of the serpenoid (43) with v > 0, which goes towards −x in 004's frame when
  θ_1 = 0 (docs/readings.md, "004 §6.2"), goes towards +X in the world, the direction the head
  points (docs/design.md: distances are signed along the head's initial direction). Positions map as
  (X, Y) = (−x, −y), and the suite's link angle θ'_j equals 004's θ_{n+1−j}: the half turn of
  the frame and the reversed link direction cancel. The head's heading ψ equals θ_1;
* joint j of the suite is joint i = n − j of 004 and α_j = θ'_j − θ'_{j+1} = θ_{i+1} − θ_i = φ_{n−j}:
  the joint order is reversed, the sign is kept; likewise for rates and joint torques
  (generalised force on α_j = τ_{n−j});
* an SEA measures τ_SEA = K(α − β) (002 (4.36)) and applies K(β − α) to the joint (spring energy
  ½K(α − β)², as the vertical model's K_E), so the tracker torques τ are realised with the SEA
  torque references τ_d,j = K(α_j − β_d,j) = −τ_{n−j} (:func:`sea_torque_reference`).

All of these maps are their own inverse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..registry import Param

#: The joints without torque (004 §3.2), in the suite's numbers: a scenario's ``robot.free_joints`` and the
#: ``free_joints`` parameter of the head_tracking_controller and manipulability_monitor nodes.
FREE_JOINTS = Param("free_joints", (), "", "joints without torque, 1-based, tail → head (1: the tail joint), each at "
                    "most the robot's joint count", 1, kind=int, size=0, source="004 §3.2")


def suite_joint_index(i: int, n: int) -> int:
    """004 joint i ↔ suite joint j = n − i (and back)."""
    return n - i


def reverse_joints(values: np.ndarray) -> np.ndarray:
    """φ (004, head → tail) ↔ α (suite, tail → head): α_j = φ_{n−j}; also for rates and joint torques.

    Works on the last axis, so (T, n−1) series are converted at once.
    """
    return np.asarray(values)[..., ::-1]


def sea_torque_reference(tau: np.ndarray) -> np.ndarray:
    """Head-tracker torques τ (004 order) → SEA torque references τ_d = K(α − β_d), tail → head."""
    return -reverse_joints(tau)


def free_joints_from_suite(joints: Sequence[int], n: int, field: str = "robot.free_joints",
                           source: str | None = None) -> tuple[int, ...]:
    """Suite joint indices (1-based, tail → head; :data:`FREE_JOINTS`) of a robot of ``n`` links as 004 indices; a
    one-line ConfigError naming ``field`` for anything but a list of integers in [1, n − 1]."""
    return tuple(sorted(suite_joint_index(j, n) for j in replace(FREE_JOINTS, high=n - 1).check(joints, field, source)))


def q_from_world(head_xy: np.ndarray, heading: float, alpha: np.ndarray) -> np.ndarray:
    """004's q = [x_h, y_h, θ_1, φ] from the head tip (world), its heading ψ and the suite's α."""
    return np.concatenate(([-head_xy[0], -head_xy[1], heading], reverse_joints(alpha)))


def qd_from_world(head_velocity: np.ndarray, heading_rate: float, alpha_dot: np.ndarray) -> np.ndarray:
    """q̇ from the world head velocity, heading rate and the suite's α̇."""
    return np.concatenate(([-head_velocity[0], -head_velocity[1], heading_rate], reverse_joints(alpha_dot)))


def head_pose_to_world(w: np.ndarray) -> np.ndarray:
    """w = [x_h, y_h, θ_1] (…, 3) → world head pose [X, Y, ψ]; the map is its own inverse."""
    w = np.asarray(w, dtype=float)
    return np.concatenate((-w[..., :2], w[..., 2:]), axis=-1)


def links_to_world(positions: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """004 link centres (…, n, 2) and θ (…, n) → world centres and suite link angles, tail → head."""
    return -np.asarray(positions)[..., ::-1, :], np.asarray(theta)[..., ::-1]
