"""The motor-side PD of 002 (4.39) as the actuator model of an SEA joint.

    U = −K_p (β_j − β_j^d) − K_D (β̇_j − β̇_j^d)                          (4.39)

β^d is the motor reference a joint controller outputs (β^d = α^d in position mode, where this is
002's C_p of Fig. 4.5). U is the motor torque reflected to the link side that enters (4.35)–(4.36)
as 𝔹U. U is saturated at the servo's stall torque (Herkulex DSR-0101: 12 kg·cm ≈ 1.18 N·m, 002
§3.3): the real servo cannot give more, and 002's simulated torques (≤ 0.8 N·m, Fig. 5.6) stay
below it, so the limit only acts in transients (a start from rest, a stalled joint on an obstacle).
``saturate=False`` gives (4.39) unbounded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .robot import RobotParams
from .validation import ConfigError, non_negative, positive


@dataclass(frozen=True)
class MotorPD:
    kp: float  # K_p [N·m/rad]
    kd: float  # K_D [N·m·s/rad]
    stall_torque: float  # |U| ≤ this when ``saturate`` [N·m]
    saturate: bool = False

    def __post_init__(self) -> None:
        positive(self.kp, "actuator.kp")
        non_negative(self.kd, "actuator.kd")
        positive(self.stall_torque, "actuator.stall_torque")

    def torque(self, beta: np.ndarray, beta_dot: np.ndarray, beta_d: np.ndarray, beta_d_dot: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray | None]:
        """U of (4.39) per joint and a mask of the joints where the PD is active (None: all, no saturation)."""
        u = -self.kp * (beta - beta_d) - self.kd * (beta_dot - beta_d_dot)  # (4.39)
        if not self.saturate:
            return u, None
        return np.clip(u, -self.stall_torque, self.stall_torque), np.abs(u) < self.stall_torque


def motor_pd(robot: RobotParams, saturate: bool = False) -> MotorPD:
    """The inner loop of the robot file's actuator section."""
    if robot.actuator is None:
        raise ConfigError("robot.actuator", None, "the motor-side PD (4.39) needs an actuator section", robot.name)
    a = robot.actuator
    return MotorPD(a.kp, a.kd, a.stall_torque, saturate)
