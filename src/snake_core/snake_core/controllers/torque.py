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

import numpy as np

from ..robot import RobotParams
from ..validation import get, non_negative, reject_unknown
from .base import JointMeasurement, JointReference, MotorCommand
from .limits import SEALimits, sea_limits

#: Default proportional torque gain k_P (the feed-forward τ_d does the work; see
#: :func:`default_integral_gain` for k_I).
DEFAULT_FEEDBACK_GAIN = 0.0

PARAMS = ("mode", "torque_feedback_gain", "torque_integral_gain")


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
        tau_d = float(np.clip(ref.tau_d, -lim, lim))
        error = tau_d - self.limits.torque(meas.tau)
        self.integral = float(np.clip(self.integral + self.integral_gain * error * dt, -lim, lim))
        command = tau_d + self.feedback_gain * error + self.integral
        tau_star = float(np.clip(command, -lim, lim))
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
    reject_unknown(params, PARAMS, "controller", source)
    limits = sea_limits(robot, joint_index, source)
    k_p = get(params, "torque_feedback_gain", "controller", source, DEFAULT_FEEDBACK_GAIN)
    k_i = get(params, "torque_integral_gain", "controller", source, default_integral_gain(robot, joint_index))
    return TorqueController(joint_index, non_negative(k_p, "controller.torque_feedback_gain", source),
                            non_negative(k_i, "controller.torque_integral_gain", source), limits,
                            robot.joint_effort_limit)
