"""004's horizontal-plane model (rigid joints) stepped from outside with joint torques (see
:mod:`snake_sim.core.stepping`).

The torques are held over the control period (zero-order hold, as a joint_effort_controller applies them)
and the period is integrated by scipy's solve_ivp with the planar runtime's method and tolerances
(:mod:`snake_sim.engines.planar.integration`: DOP853, rtol 1e-8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.integrate import solve_ivp

from snake_core.interface import plane_quaternion
from snake_core.planar.convention import head_pose_to_world, reverse_joints
from snake_core.planar.head_state import to_head_frame
from snake_core.planar.model import compute_terms, forward_dynamics
from snake_core.validation import ConfigError

from ...core.stepping import HeadSample, JointSample, SimulationDiverged, check_command
from .integration import ATOL, RTOL, blowup_status, initial_state, integration_method

if TYPE_CHECKING:
    from .runtime import PlanarSetup


class PlanarStepper:
    """004's horizontal-plane model (20) with rigid joints, driven by joint torques (see the module
    docstring); the start is the planar runtime's (head at the reference start, θ_1 its heading, every
    joint at robot.initial_joint_angle, at rest). Free joints (robot.free_joints) take no torque."""

    command_interface = "effort"

    def __init__(self, setup: PlanarSetup) -> None:
        if setup.sea is not None:
            raise ConfigError("robot.joints", "sea", f"the planar model is stepped externally with joint torques "
                              f"only (joint_effort_controller), and {setup.robot.name} has SEAs: set robot.joints "
                              "= rigid, or run it with snake-sim run", setup.scenario.source)
        self.setup = setup
        self.t = 0.0
        self.control_period = setup.scenario.control_period
        self.x = initial_state(setup)  # [q, q̇], 004's coordinates (17)
        self.tau = np.zeros(setup.model.n_joints)  # applied, tail → head
        self._actuated = np.ones(setup.model.n_joints)  # 004 order
        self._data = setup.model.create_data()  # the dynamics' workspace, reused every step
        self._actuated[np.asarray(setup.free_joints, dtype=int) - 1] = 0.0
        self._method = integration_method(setup)

    def joints(self) -> JointSample:
        d = self.setup.model.dof
        return JointSample(reverse_joints(self.x[3:d]).copy(), reverse_joints(self.x[d + 3:]).copy(), self.tau.copy())

    def head(self) -> HeadSample:
        d = self.setup.model.dof
        x, y, psi = head_pose_to_world(self.x[:3])  # tip of the head, heading ψ = θ_1
        vx, vy, rate = head_pose_to_world(self.x[d:d + 3])
        forward, left = to_head_frame(vx, vy, psi)
        return HeadSample(np.array([x, y, 0.0]), plane_quaternion("xy", np.array(psi)),
                          np.array([forward, left, 0.0]), np.array([0.0, 0.0, rate]))

    def hold_command(self) -> np.ndarray:
        """No torque (before any command arrives)."""
        return np.zeros(self.setup.model.n_joints)

    def step(self, command: np.ndarray) -> None:
        """Advance one control period with the joint torques ``command`` (tail → head) held."""
        setup = self.setup
        model, d = setup.model, setup.model.dof
        tau = check_command(command, model.n_joints)
        if not np.linalg.norm(tau) <= setup.blowup_torque:  # the runtime's stop
                                                            # (snake_sim.engines.planar.runtime.simulate)
            raise SimulationDiverged(blowup_status(setup, self.t))
        tau_004 = reverse_joints(tau) * self._actuated  # generalised force on φ_{n−j} (convention)
        data = self._data

        def rhs(_t: float, x: np.ndarray) -> np.ndarray:  # (20) with E τ
            q, qd = x[:d], x[d:]
            return np.concatenate((qd, forward_dynamics(model, compute_terms(model, data, q, qd), tau_004)))

        end = self.t + self.control_period
        sol = solve_ivp(rhs, (self.t, end), self.x, method=self._method, rtol=RTOL, atol=ATOL)
        if not (sol.success and np.all(np.isfinite(sol.y[:, -1]))):
            raise SimulationDiverged(f"integration failed at t = {sol.t[-1]:.4f} s: {sol.message}")
        self.x, self.tau, self.t = sol.y[:, -1], reverse_joints(tau_004).copy(), end
