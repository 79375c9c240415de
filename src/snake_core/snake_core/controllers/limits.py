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
#: The share of the servo's stall torque τ_s that the speed reference toward a joint limit counts on for braking (the
#: rest: the link pulling through the spring, which the motor's deceleration does not see) …
BRAKING_SHARE = 0.5
#: … and the command periods before it brakes: the motor angle was measured one period ago, and the reference then
#: holds for one period (with both, test_driver's emulated modules stop within a few tenths of a degree of the limit)
REACTION = 2.0


def clip(x: float, low: float, high: float) -> float:
    """``float(np.clip(x, low, high))`` of one number, bit for bit (a NaN argument gives NaN, a value equal to a bound
    is kept with its sign of zero), in plain Python: np.clip of a scalar costs microseconds, and the torque-using modes
    clip each joint's values every control period."""
    for value in (x, low, high):
        if value != value:  # NaN
            return float(value)
    if x < low:
        x = low
    if x > high:
        x = high
    return float(x)


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
        return clip(alpha_d, -self.reference_limit, self.reference_limit)

    def torque(self, tau: float) -> float:
        """The SEA torque as the saturated sensor reports it."""
        limit = self.torque_limit
        return clip(tau, -limit, limit)

    def motor(self, alpha: float, beta_d: float) -> float:
        """β_d clipped to α ± δ_max, so the commanded deflection stays in the sensor's range."""
        return clip(beta_d, alpha - self.deflection_limit, alpha + self.deflection_limit)


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
    """What a motor command β_d, β̇_d (tail → head) from a topic may do: a command of the wrong size, non-finite
    or absurd (|β_d| > π, :data:`ABSURD_COMMAND`) is refused (the robot holds); otherwise each β_d is clipped to
    its joint's reference limit (±60° or the robot's smaller joint limit, 002 §3.3) and its change per step to
    the servo's no-load speed ω_0 (``actuator.max_speed``, 002 Table 3.1; unlimited for a robot without an
    actuator section), and its speed reference β̇_d as :meth:`speed` says."""

    reference_limit: np.ndarray  # |β_d,j| ≤ this [rad], tail → head
    max_speed: float  # ω_0: |Δβ_d| ≤ ω_0 Δt and |β̇_d| ≤ ω_0 [rad/s]
    #: the deceleration the servo is counted on for, BRAKING_SHARE τ_s / (n² J_r) (the motor alone, reflected to the
    #: link side) [rad/s²]; inf for a robot without an actuator section
    braking: float = math.inf

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

    def speed(self, beta_d_dot: np.ndarray, beta_d: np.ndarray, requested: np.ndarray, beta: np.ndarray,
              period: float = 0.0) -> np.ndarray:
        """The speed reference β̇_d that goes with the limited β_d (``beta_d``, from ``requested``) at the measured
        motor angle ``beta``, sent every ``period`` [s]: within ±ω_0; where β_d was clipped, not beyond the clip (a
        β_d clipped down has β̇_d ≤ 0, up β̇_d ≥ 0); toward a reference limit L at most the speed v from which the
        servo still stops before it, v T + v² / (2 a) = L − |β| with a = :attr:`braking`, T = REACTION periods. The
        feed-forward of the motor PD 002 (4.39) otherwise moves β on its own: with β_d held, β rests at
        β_d + (K_D/K_p) β̇_d."""
        rate = np.clip(np.asarray(beta_d_dot, dtype=float), -self.max_speed, self.max_speed)
        rate = np.where(beta_d < requested, np.minimum(rate, 0.0), rate)
        rate = np.where(beta_d > requested, np.maximum(rate, 0.0), rate)
        up, down = (np.maximum(self.reference_limit - side * np.asarray(beta, dtype=float), 0.0) for side in (1, -1))
        return np.clip(rate, -self._stopping(down, period), self._stopping(up, period))

    def command(self, beta_d: np.ndarray, beta_d_dot: np.ndarray | None, previous: np.ndarray, dt: float,
                beta: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, int]:
        """A whole command: β_d as :meth:`clamp` limits it, its speed reference β̇_d (None: none given) as
        :meth:`speed` does at the measured motor angles ``beta``, and how many values of the two that changed."""
        limited, clipped = self.clamp(beta_d, previous, dt)
        if beta_d_dot is None:
            return limited, None, clipped
        rate = np.asarray(beta_d_dot, dtype=float)
        speed = self.speed(rate, limited, beta_d, beta, dt)
        return limited, speed, clipped + int(np.count_nonzero(speed != rate))

    def _stopping(self, room: np.ndarray, period: float) -> np.ndarray:
        """The highest speed v from which the servo stops within ``room`` [rad] when it brakes only after a delay:
        v T + v² / (2 a) = room, T = REACTION periods."""
        if math.isinf(self.braking):
            return np.where(room > 0.0, math.inf, 0.0)
        lag = self.braking * REACTION * period
        return np.sqrt(lag ** 2 + 2.0 * self.braking * room) - lag

    def describe(self) -> str:
        speed = f" and {self.max_speed:g} rad/s" if math.isfinite(self.max_speed) else ""
        return f"±{np.degrees(self.reference_limit.min()):.0f}°{speed}"


def command_limits(robot: RobotParams) -> CommandLimits:
    """The limits of ``robot``'s motor commands."""
    limit = np.full(robot.n_joints, min(MAX_REFERENCE, robot.joint_limit))
    a = robot.actuator
    if a is None:
        return CommandLimits(limit, math.inf)
    return CommandLimits(limit, a.max_speed, BRAKING_SHARE * a.stall_torque / a.reflected_inertia)
