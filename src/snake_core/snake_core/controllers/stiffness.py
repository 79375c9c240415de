"""Local stiffness (admittance) control of one SEA joint, 002 §6.3, Fig. 6.2.

The gait reference α_j^d (4.38) is modulated by the measured SEA torque before it reaches the
motor-side PD loop C_p, which is (4.39) (docs/readings.md: §6.4 prints "(4.38)", (4.39) is meant) and
lives in the actuator below this controller:

    α_s = (K − K_d)/K_d · τ_J/K          Fig. 6.2, the desired admittance
    β_d = α_j^d + α_s

Two readings are fixed here (see the module constants):

- τ_J, "the servo motor's measured output torque", is the torque the motor puts into the spring,
  K(β − α) = −τ with τ = K(α − β) of docs/design.md / 002 (4.36). Fig. 6.2 subtracts α_s, so with our τ
  the modulation is added. This is the only sign under which K_d is a stiffness (the joint yields
  to the load) and K_d < K is the passivity bound of §6.3.
- Fig. 6.2 prints α_s = (K − K_d)/K_d · τ_J, an angle equal to a torque. We divide by K (τ_J/K is
  the measured deflection). Then, with the motor at its reference (β = β_d), the joint obeys
  τ = K_d (α − α_d): a spring of stiffness K_d about the gait, which is what §6.3 says K_d is.

K_d = K is pure position control (α_s = 0); K_d > K would be a spring of negative stiffness
(§6.3) and is refused, as is K_d = K (nothing to control; 002's bound is strict).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..registry import Param
from ..robot import RobotParams
from ..validation import ConfigError
from .base import ControllerMode, JointMeasurement, JointReference, MotorCommand
from .limits import SEALimits, sea_limits

#: The torque 002 feeds back in Fig. 6.2 and (7.2) is the motor's output torque K(β − α), the
#: opposite of the SEA torque τ = K(α − β) of docs/design.md (see the module docstring).
MOTOR_TORQUE_SIGN = -1.0

PARAMS = (
    Param("stiffness", None, "N·m/rad", "K_d, desired joint stiffness, below the SEA's K (the passivity bound); one "
          "number for every joint or one per joint, tail → head", 0.0, vector=True, low_open=True, required=True,
          source="002 Fig. 6.2, §6.3"),
)


@dataclass
class LocalStiffnessController:
    """Fig. 6.2 for joint ``joint_index``; stateless apart from the last saturation flag."""

    joint_index: int
    desired_stiffness: float  # K_d [N·m/rad], 0 < K_d < K
    limits: SEALimits
    limited: bool = field(default=False, init=False)  # a limit was active in the last step

    def __post_init__(self) -> None:
        check_passivity(self.desired_stiffness, self.limits.stiffness, f"controller.stiffness[{self.joint_index}]")

    @property
    def admittance_gain(self) -> float:
        """(K − K_d)/K_d, Fig. 6.2."""
        return (self.limits.stiffness - self.desired_stiffness) / self.desired_stiffness

    def reset(self) -> None:
        self.limited = False

    def step(self, t: float, dt: float, meas: JointMeasurement, ref: JointReference) -> MotorCommand:
        alpha_d = self.limits.reference(ref.alpha_d)
        tau = self.limits.torque(meas.tau)
        tau_j = MOTOR_TORQUE_SIGN * tau  # τ_J = K(β − α)
        alpha_s = self.admittance_gain * tau_j / self.limits.stiffness  # Fig. 6.2
        beta_d = self.limits.motor(meas.alpha, alpha_d - alpha_s)
        self.limited = alpha_d != ref.alpha_d or tau != meas.tau or beta_d != alpha_d - alpha_s
        return MotorCommand(beta_d=beta_d, beta_d_dot=ref.alpha_d_dot if alpha_d == ref.alpha_d else 0.0)


def check_passivity(k_d: float, k: float, field_name: str, source: str | None = None) -> None:
    """Refuse a desired stiffness outside 0 < K_d < K (002 §6.3 passivity bound)."""
    if not 0.0 < k_d < k:
        raise ConfigError(field_name, k_d, f"must satisfy 0 < K_d < K = {k:g} N·m/rad: the passivity bound of "
                          "002 §6.3 (K_d ≥ K behaves as a spring of negative stiffness)", source)


def from_params(robot: RobotParams, joint_index: int, params: Mapping[str, Any],
                source: str | None = None) -> LocalStiffnessController:
    """``controller.stiffness`` is K_d [N·m/rad]: one number or one per joint (tail → head)."""
    limits = sea_limits(robot, joint_index, source)
    k_d = MODE.checked(params, robot.n_joints, source)["stiffness"][joint_index - 1]
    check_passivity(k_d, limits.stiffness, "controller.stiffness", source)
    return LocalStiffnessController(joint_index, k_d, limits)


MODE = ControllerMode("stiffness", "local stiffness (admittance) control: β_d = α_j^d + (K − K_d)/K_d · τ_J/K",
                      "002 §6.3, Fig. 6.2", PARAMS, from_params)
