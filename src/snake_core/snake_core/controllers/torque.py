"""Torque mode of one SEA joint: a desired SEA torque realised through the spring (docs/design.md).

With τ = K(α − β) (002 (4.36)) the motor angle that gives τ_d is β = α − τ_d/K. The motor-side PD
(4.39) only tracks β_d, so a PI loop on the measured torque removes what the tracking leaves:

    e     = τ_d − τ
    τ*    = τ_d + k_P e + k_I ∫ e dt        (|τ*| ≤ K δ_max, the integral is clamped: anti-windup)
    β_d   = α − τ*/K,    β̇_d = α̇

τ_d comes from ``JointReference.tau_d`` (the head-tracking controller) and is clipped to what the
sensor can measure, ±K δ_max (δ_max ≈ 21°, 002 §3.3.2) and the servo's stall torque.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..registry import Param
from ..robot import RobotParams
from .base import ControllerMode, JointMeasurement, JointReference, MotorCommand
from .limits import SEALimits, clip, sea_limits

#: The gains of the PI loop on the measured torque. k_P defaults to 0 (the feed-forward τ_d does the work); k_I,
#: unset, is :func:`default_integral_gain`.
PARAMS = (
    Param("torque_feedback_gain", 0.0, "", "k_P, proportional gain of the torque loop", 0.0,
          source="suite, on 002 (4.36)"),
    Param("torque_integral_gain", None, "1/s", "k_I, integral gain of the torque loop (unset: 1/(4T), critically "
          "damped around the motor PD, T = K_D/(K_p + K))", 0.0, source="suite, on 002 (4.39)"),
)


@dataclass
class TorqueController:
    joint_index: int
    feedback_gain: float  # k_P [-]
    integral_gain: float  # k_I [1/s]
    limits: SEALimits
    effort_limit: float  # servo stall torque [N·m]
    integral: float = field(default=0.0, init=False)  # k_I ∫ e dt [N·m]
    limited: bool = field(default=False, init=False)

    @property
    def torque_limit(self) -> float:
        return min(self.limits.torque_limit, self.effort_limit)

    def reset(self) -> None:
        self.integral = 0.0
        self.limited = False

    def step(self, t: float, dt: float, meas: JointMeasurement, ref: JointReference) -> MotorCommand:
        lim = self.torque_limit
        tau_d = clip(ref.tau_d, -lim, lim)
        error = tau_d - self.limits.torque(meas.tau)
        self.integral = clip(self.integral + self.integral_gain * error * dt, -lim, lim)
        command = tau_d + self.feedback_gain * error + self.integral
        tau_star = clip(command, -lim, lim)
        beta_d = meas.alpha - tau_star / self.limits.stiffness
        self.limited = tau_d != ref.tau_d or tau_star != command
        return MotorCommand(beta_d=self.limits.motor(meas.alpha, beta_d), beta_d_dot=meas.alpha_dot)


def default_integral_gain(robot: RobotParams, joint_index: int) -> float:
    """k_I that keeps the torque loop critically damped around the motor PD (4.39).

    With its small rotor inertia the PD tracks β_d like a first-order lag of time constant
    T = K_D/(K_p + K); an integrator k_I around it gives T s² + s + k_I, critically damped at
    k_I = 1/(4T) (≈ 0.6 s⁻¹ with Table 5.1's gains).
    """
    k = robot.sea.stiffness[joint_index - 1]
    return (robot.actuator.kp + k) / (4.0 * robot.actuator.kd)


def from_params(robot: RobotParams, joint_index: int, params: Mapping[str, Any],
                source: str | None = None) -> TorqueController:
    values = MODE.checked(params, robot.n_joints, source)
    k_i = values["torque_integral_gain"]
    return TorqueController(joint_index, values["torque_feedback_gain"],
                            default_integral_gain(robot, joint_index) if k_i is None else k_i,
                            sea_limits(robot, joint_index, source), robot.joint_effort_limit)


MODE = ControllerMode("torque", "a desired SEA torque τ_d realised through the spring, β_d = α − τ*/K, with a PI loop "
                      "on the measured torque", "002 (4.36), (4.39)", PARAMS, from_params)
