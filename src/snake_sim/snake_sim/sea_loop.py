"""The SEA control loop of a scenario, shared by the models that simulate SEA joints (vertical 002, ``mujoco``,
``dart``): the gait (α_d, α̇_d) and one snake_core joint controller per joint (``controller.mode``: position,
stiffness, tsc, torque), stepped once per control period (``sim.control_rate``) with what each module measures
(α, α̇, β, τ = K(α − β) and the tail-side neighbour's α), returning the motor commands β_d, β̇_d.
"""

from __future__ import annotations

import numpy as np

from snake_core.controllers import JointController, JointMeasurement, JointReference, make_joint_controllers
from snake_core.gaits import Gait, make_gait
from snake_core.robot import RobotParams
from snake_core.validation import get

from .scenario import Scenario


def sea_control(scenario: Scenario, robot: RobotParams) -> tuple[Gait, list[JointController]]:
    """The scenario's gait (``gait:``) and per-joint controllers (``controller:``) for ``robot``, validated."""
    src = scenario.source
    gait_section = scenario.section("gait")
    gait = make_gait(get(gait_section, "type", "gait", src), robot.n_joints, gait_section, src)
    ctrl = scenario.section("controller")
    return gait, make_joint_controllers(ctrl.get("mode", "position"), robot, ctrl, src)


def control_steps(scenario: Scenario, time_step: float) -> tuple[int, int]:
    """(integration steps of ``time_step`` per control period, control periods per logged sample) of a scenario."""
    steps = max(1, round(scenario.control_period / time_step))
    return steps, max(1, round(scenario.log_period / (time_step * steps)))


def motor_commands(controllers: list[JointController], t: float, period: float, alpha: np.ndarray,
                   alpha_dot: np.ndarray, beta: np.ndarray, tau: np.ndarray, alpha_d: np.ndarray,
                   alpha_d_dot: np.ndarray, tau_d: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(β_d, β̇_d) (N−1,) [rad, rad/s] of every joint's SEA controller at ``t`` [s] from what the modules measure
    (α, α̇ [rad, rad/s], β [rad], τ [N·m]) and the references α_d, α̇_d (and τ_d [N·m], default 0)."""
    beta_d = np.empty(len(controllers))
    beta_d_dot = np.empty(len(controllers))
    a_l, ad_l, b_l, t_l = alpha.tolist(), alpha_dot.tolist(), beta.tolist(), tau.tolist()
    r_l = np.asarray(alpha_d, dtype=float).tolist()
    rd_l = np.asarray(alpha_d_dot, dtype=float).tolist()
    rt_l = [0.0] * len(controllers) if tau_d is None else np.asarray(tau_d, dtype=float).tolist()
    for j, ctrl in enumerate(controllers):
        meas = JointMeasurement(a_l[j], ad_l[j], b_l[j], t_l[j], a_l[j - 1] if j > 0 else None)
        cmd = ctrl.step(t, period, meas, JointReference(r_l[j], rd_l[j], rt_l[j]))
        beta_d[j], beta_d_dot[j] = cmd.beta_d, cmd.beta_d_dot
    return beta_d, beta_d_dot
