"""Per-joint SEA limits shared by the torque-using modes (local stiffness, TSC, torque).

Two limits of the 002 module are validated and enforced here (DESIGN.md "Bad input"):

- joint references are kept within ±60° (002 §3.3; ``gaits.base.MAX_REFERENCE``, or the robot's
  own joint limit if smaller);
- the SEA deflection |α − β| stays within the range of the torque sensor, about 21° (002 §3.3.2,
  ``RobotParams.sea.deflection_limit``): the measured torque saturates at K·δ_max, and a motor
  reference β_d is never placed further than δ_max from the measured link angle α.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..gaits.base import MAX_REFERENCE
from ..robot import RobotParams
from ..validation import ConfigError, integer


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
