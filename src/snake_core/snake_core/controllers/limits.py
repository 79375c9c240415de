"""Per-joint SEA limits shared by the torque-using modes (local stiffness, TSC, torque), and the limits of a
motor command β_d wherever one arrives from outside (the CAN bridge, the ROS simulator).

Two limits of the 002 module are validated and enforced here (docs/design.md "Bad input"):

- joint references are kept within ±60° (002 §3.3; ``gaits.base.MAX_REFERENCE``, or the robot's
  own joint limit if smaller);
- the SEA deflection |α − β| stays within the range of the torque sensor, about 21° (002 §3.3.2,
  ``RobotParams.sea.deflection_limit``): the measured torque saturates at K·δ_max, and a motor
  reference β_d is never placed further than δ_max from the measured link angle α.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..gaits.base import MAX_REFERENCE
from ..robot import RobotParams
from ..validation import ConfigError, integer

#: |β_d| beyond this is no joint angle of a snake module (half a turn): such a command is refused and holds
ABSURD_COMMAND = math.pi


@dataclass(frozen=True)
class SEALimits:
    """The limits of one SEA joint."""

    stiffness: float  # K_j [N·m/rad]
    reference_limit: float  # |α_j^d| ≤ this [rad]
    deflection_limit: float  # δ_max: |α_j − β_j| ≤ this [rad]

    @property
    def torque_limit(self) -> float:
        """|τ_j| the sensor can report, K_j δ_max [N·m]."""
        return self.stiffness * self.deflection_limit

    def reference(self, alpha_d: float) -> float:
        """α_d clipped to ±reference_limit."""
        return float(np.clip(alpha_d, -self.reference_limit, self.reference_limit))

    def torque(self, tau: float) -> float:
        """The SEA torque as the saturated sensor reports it."""
        return float(np.clip(tau, -self.torque_limit, self.torque_limit))

    def motor(self, alpha: float, beta_d: float) -> float:
        """β_d clipped to α ± δ_max, so the commanded deflection stays in the sensor's range."""
        return float(np.clip(beta_d, alpha - self.deflection_limit, alpha + self.deflection_limit))


def sea_limits(robot: RobotParams, joint_index: int, source: str | None = None) -> SEALimits:
    """Limits of joint ``joint_index`` (1-based, tail → head); refuses robots without SEAs."""
    integer(joint_index, "joint_index", source, low=1, high=robot.n_joints)
    if robot.sea is None:
        raise ConfigError("robot.sea", None, "the stiffness, tsc and torque modes need a robot with series elastic "
                          "actuators (a `sea:` section in the robot file)", source)
    return SEALimits(
        stiffness=robot.sea.stiffness[joint_index - 1],
        reference_limit=min(MAX_REFERENCE, robot.joint_limit),
        deflection_limit=robot.sea.deflection_limit,
    )


@dataclass(frozen=True)
class CommandLimits:
    """What a motor command β_d (tail → head) from a topic may do: a command of the wrong size, non-finite or
    absurd (|β_d| > π, :data:`ABSURD_COMMAND`) is refused (the robot holds); otherwise each β_d is clipped to
    its joint's reference limit (±60° or the robot's smaller joint limit, 002 §3.3) and its change per step to
    the servo's maximum speed (``actuator.max_speed``; unlimited for a robot without an actuator section)."""

    reference_limit: np.ndarray  # |β_d,j| ≤ this [rad], tail → head
    max_speed: float  # |Δβ_d| ≤ max_speed · Δt [rad/s]

    def refusal(self, beta_d: Sequence[float] | np.ndarray) -> str | None:
        """Why ``beta_d`` cannot be used (None: it can)."""
        b = np.asarray(beta_d, dtype=float).ravel()
        n = self.reference_limit.size
        if b.shape != (n,):
            return f"command has {b.size} values, the robot has {n} joints"
        if not np.all(np.isfinite(b)):
            return "command contains NaN or Inf"
        if np.any(np.abs(b) > ABSURD_COMMAND):
            j = int(np.argmax(np.abs(b)))
            return f"command β_d of joint {j + 1} = {b[j]:.4g} rad is no joint angle (|β_d| > π)"
        return None

    def outside(self, beta_d: np.ndarray) -> np.ndarray:
        """Which joints' β_d lie beyond their reference limit."""
        return np.abs(beta_d) > self.reference_limit

    def toward(self, target: np.ndarray, previous: np.ndarray, dt: float) -> np.ndarray:
        """``target`` reached from ``previous`` at most at the servo's speed over ``dt`` [s] (none if dt ≤ 0)."""
        step = self.max_speed * max(dt, 0.0)
        return np.clip(target, previous - step, previous + step)

    def clamp(self, beta_d: np.ndarray, previous: np.ndarray, dt: float) -> tuple[np.ndarray, int]:
        """``beta_d`` rate-limited from ``previous`` over ``dt``, then within the reference limits, and how many
        of its values that changed."""
        limited = np.clip(self.toward(beta_d, previous, dt), -self.reference_limit, self.reference_limit)
        return limited, int(np.count_nonzero(limited != beta_d))

    def describe(self) -> str:
        speed = f" and {self.max_speed:g} rad/s" if math.isfinite(self.max_speed) else ""
        return f"±{np.degrees(self.reference_limit.min()):.0f}°{speed}"


def command_limits(robot: RobotParams) -> CommandLimits:
    """The limits of ``robot``'s motor commands."""
    limit = min(MAX_REFERENCE, robot.joint_limit)
    return CommandLimits(np.full(robot.n_joints, limit),
                         robot.actuator.max_speed if robot.actuator is not None else math.inf)
