"""Position mode, 002 §4.8: the motor follows the gait directly, β_d = α_j^d, β̇_d = α̇_j^d.

Together with the motor-side PD (4.39) in the actuator (``snake_core.actuator``) this is 002's
position controller C_p of Fig. 4.5: U = −K_p(β_j − α_j^d) − K_D(β̇_j − α̇_j^d). The reference is
kept within the joint limit (±60°, 002 §3.3); the measured SEA torque is not used.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..gaits.base import MAX_REFERENCE
from ..robot import RobotParams
from ..validation import integer
from .base import ControllerMode, JointMeasurement, JointReference, MotorCommand


@dataclass
class PositionController:
    """β_d = α_j^d clipped to ±``reference_limit``; the rate is passed on unless clipped."""

    joint_index: int  # 1-based, tail → head
    reference_limit: float  # [rad]

    def reset(self) -> None:
        """Stateless."""

    def step(self, t: float, dt: float, meas: JointMeasurement, ref: JointReference) -> MotorCommand:
        a = float(ref.alpha_d)
        # clip to the joint limit; a NaN reference passes through so that the run stops and reports it
        beta_d = a if math.isnan(a) else max(-self.reference_limit, min(self.reference_limit, a))
        return MotorCommand(beta_d=beta_d, beta_d_dot=ref.alpha_d_dot if beta_d == ref.alpha_d else 0.0)


def from_params(robot: RobotParams, joint_index: int, params: Mapping[str, Any],
                source: str | None = None) -> PositionController:
    """Position mode has no parameters beyond ``controller.mode``."""
    MODE.checked(params, robot.n_joints, source)
    integer(joint_index, "joint_index", source, low=1, high=robot.n_joints)
    return PositionController(joint_index, min(MAX_REFERENCE, robot.joint_limit))


MODE = ControllerMode("position", "the motor follows the gait, β_d = α_j^d (within the joint limit)", "002 §4.8",
                      (), from_params)
