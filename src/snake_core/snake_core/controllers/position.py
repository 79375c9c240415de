"""Position mode, 002 §4.8: the motor follows the gait directly, β_d = α_j^d, β̇_d = α̇_j^d.

Together with the motor-side PD (4.39) in the actuator (``snake_core.actuator``) this is 002's
position controller C_p of Fig. 4.5: U = −K_p(β_j − α_j^d) − K_D(β̇_j − α̇_j^d). The reference is
kept within the joint limit (±60°, 002 §3.3); the measured SEA torque is not used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..gaits.base import MAX_REFERENCE
from ..robot import RobotParams
from ..validation import integer
from .base import ControllerMode, JointMeasurement, JointReference, MotorCommand


def position_command(alpha_d: ArrayLike, alpha_d_dot: ArrayLike, low: ArrayLike, high: ArrayLike
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(β_d, β̇_d) of one joint or, elementwise, of arrays of joints: α_d clipped to [``low``, ``high``] (the joint
    limit: −L, L; a NaN reference passes through so that the run stops and reports it), α̇_d passed on unless
    clipped."""
    beta_d = np.minimum(np.maximum(alpha_d, low), high)  # as np.clip, which costs more
    return beta_d, np.where(beta_d == alpha_d, alpha_d_dot, 0.0)


@dataclass
class PositionController:
    """β_d = α_j^d clipped to ±``reference_limit``; the rate is passed on unless clipped."""

    joint_index: int  # 1-based, tail → head
    reference_limit: float  # [rad]

    def reset(self) -> None:
        """Stateless."""

    def step(self, t: float, dt: float, meas: JointMeasurement, ref: JointReference) -> MotorCommand:
        limit = self.reference_limit
        beta_d, beta_d_dot = position_command(float(ref.alpha_d), ref.alpha_d_dot, -limit, limit)
        return MotorCommand(beta_d=float(beta_d), beta_d_dot=float(beta_d_dot))

    @staticmethod
    def joints_step(controllers: list[PositionController]) -> Callable[..., tuple[np.ndarray, np.ndarray]]:
        """:meth:`step` of every joint at once (tail → head; :class:`~.base.JointController`)."""
        limits = np.array([c.reference_limit for c in controllers])
        low = -limits  # made once, not every period

        def step(t: float, dt: float, alpha: np.ndarray, alpha_dot: np.ndarray, beta: np.ndarray, tau: np.ndarray,
                 alpha_d: np.ndarray, alpha_d_dot: np.ndarray, tau_d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return position_command(np.asarray(alpha_d, dtype=float), np.asarray(alpha_d_dot, dtype=float), low,
                                    limits)
        return step


def from_params(robot: RobotParams, joint_index: int, params: Mapping[str, Any],
                source: str | None = None) -> PositionController:
    """Position mode has no parameters beyond ``controller.mode``."""
    MODE.checked(params, robot.n_joints, source)
    integer(joint_index, "joint_index", source, low=1, high=robot.n_joints)
    return PositionController(joint_index, min(MAX_REFERENCE, robot.joint_limit))


MODE = ControllerMode("position", "the motor follows the gait, β_d = α_j^d (within the joint limit)", "002 §4.8",
                      (), from_params)
