"""The motor-side PD of 002 (4.39) as the actuator model of an SEA joint.

    U = −K_p (β_j − β_j^d) − K_D (β̇_j − β̇_j^d)                          (4.39)

β^d is the motor reference a joint controller outputs (β^d = α^d in position mode, where this is
002's C_p of Fig. 4.5). U is the motor torque reflected to the link side that enters (4.35)–(4.36)
as 𝔹U. With ``saturate`` U is bounded by the servo's torque–speed line at its supply voltage
(Herkulex DSR-0101, 002 Table 3.1: stall torque τ_s = 12 kg·cm ≈ 1.18 N·m, no-load speed
ω_0 = 6.30 rad/s), as a DC motor's torque k(V − k ω)/R at ±V:

    −τ_s (1 + β̇/ω_0) ≤ U ≤ τ_s (1 − β̇/ω_0)

so a stalled joint gets at most τ_s and an unloaded one turns at most at ω_0 (braking against
the motion, up to 2 τ_s at −ω_0, as a motor driven backwards). 002's simulated torques
(≤ 0.8 N·m, Fig. 5.6) stay below τ_s: the line acts in transients and on a stalled joint.
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
    stall_torque: float  # τ_s [N·m]
    max_speed: float  # ω_0, no-load speed [rad/s]
    saturate: bool = False  # U within the torque–speed line

    def __post_init__(self) -> None:
        positive(self.kp, "actuator.kp")
        non_negative(self.kd, "actuator.kd")
        positive(self.stall_torque, "actuator.stall_torque")
        positive(self.max_speed, "actuator.max_speed")

    @property
    def slope(self) -> float:
        """τ_s/ω_0, the torque the line loses per unit of speed [N·m·s/rad]: −∂U/∂β̇ where U is on the line."""
        return self.stall_torque / self.max_speed

    def unbounded(self, beta: np.ndarray, beta_dot: np.ndarray, beta_d: np.ndarray, beta_d_dot: np.ndarray
                  ) -> np.ndarray:
        """The motor-side PD of (4.39), unbounded."""
        return -self.kp * (beta - beta_d) - self.kd * (beta_dot - beta_d_dot)  # (4.39)

    def torque(self, beta: np.ndarray, beta_dot: np.ndarray, beta_d: np.ndarray, beta_d_dot: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray | None]:
        """U of (4.39) per joint and a mask of the joints where the PD is active, inside the torque–speed line
        (None: all, no saturation)."""
        u = self.unbounded(beta, beta_dot, beta_d, beta_d_dot)
        if not self.saturate:
            return u, None
        line = self.slope * beta_dot
        low, high = -self.stall_torque - line, self.stall_torque - line
        return np.clip(u, low, high), (u > low) & (u < high)


def motor_pd(robot: RobotParams, saturate: bool = False) -> MotorPD:
    """The inner loop of the robot file's actuator section; ``saturate`` only where the robot file keeps the
    torque–speed line (``actuator.torque_speed_line``)."""
    if robot.actuator is None:
        raise ConfigError("robot.actuator", None, "the motor-side PD (4.39) needs an actuator section", robot.name)
    a = robot.actuator
    return MotorPD(a.kp, a.kd, a.stall_torque, a.max_speed, saturate and a.torque_speed_line)
