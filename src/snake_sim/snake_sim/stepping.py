"""A scenario's model stepped from outside, one control period at a time, the way Gazebo with
ros2_control serves a ROS graph: the caller reads what the joint modules and the ground truth
measure, sends the commands of the robot's forward command controller, and time advances by one
control period per step. ``command_interface`` says which: ``position`` (SEA robots: motor
position commands β_d, /motor_position_controller/commands) or ``effort`` (rigid joints, 004:
joint torques τ, /joint_effort_controller/commands), both tail → head.

This is what the embedded simulator's ROS node (snake_control's ``simulator``) wraps; the gait and
the SEA controllers then run outside, in their own nodes. ``stepper(scenario)`` picks the
implementation by the scenario's ``model:``.

Vertical model (002): the forward command controller sends β_d only (std_msgs/Float64MultiArray),
so β̇_d, which the motor-side PD (002 (4.39)) feeds forward, is the backward difference of
successive commands, as a module's firmware would form it; within a control period the actuator follows the command
extrapolated with that rate (β_d + s β̇_d), as the embedded runtime does with the controllers' own
β̇_d (snake_sim.runtime).

Planar model (004, rigid joints): the torques are held over the control period (zero-order hold,
as a joint_effort_controller applies them) and the period is integrated by scipy's solve_ivp with
the planar runtime's method and tolerances (snake_sim.planar_runtime: DOP853, rtol 1e-8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy.integrate import solve_ivp

from snake_core.interface import plane_quaternion
from snake_core.planar.convention import head_pose_to_world, reverse_joints
from snake_core.planar.head_state import to_head_frame
from snake_core.planar.model import compute_terms, forward_dynamics
from snake_core.validation import ConfigError
from snake_core.vertical.dynamics import sea_torque
from snake_core.vertical.kinematics import contact_points, link_angles

from . import planar_runtime
from .planar_runtime import ATOL, RTOL, PlanarSetup, blowup_status, initial_state, integration_method
from .runtime import VerticalSetup, build
from .scenario import Scenario


@dataclass(frozen=True)
class JointSample:
    """What the joint modules measure, tail → head [rad, rad/s, N·m]. τ is the SEA torque K(α − β)
    (002 (4.36)) or, on rigid joints, the applied joint torque; motors (β, β̇ and U, the motor-side PD
    torque of 002 (4.39)) only where the joints are SEAs."""

    alpha: np.ndarray
    alpha_dot: np.ndarray
    tau: np.ndarray
    beta: np.ndarray | None = None
    beta_dot: np.ndarray | None = None
    motor_torque: np.ndarray | None = None


@dataclass(frozen=True)
class HeadSample:
    """Ground truth of the head tip: world position, orientation (x, y, z, w), and its twist in the
    head frame (REP 105: linear forward/left/up, angular about the head's axes)."""

    position: np.ndarray
    orientation: np.ndarray
    linear: np.ndarray
    angular: np.ndarray


class SimulationDiverged(RuntimeError):
    """The state became non-finite (a step too long for the contact stiffness, or a blow-up)."""


class Stepper(Protocol):
    """A model advanced by external commands (see the module docstring)."""

    t: float
    control_period: float
    command_interface: str  # "position" (β_d) | "effort" (τ)

    def joints(self) -> JointSample: ...

    def head(self) -> HeadSample: ...

    def hold_command(self) -> np.ndarray: ...

    def step(self, command: np.ndarray) -> None: ...


def _check_command(command: np.ndarray, n_joints: int) -> np.ndarray:
    command = np.asarray(command, dtype=float)
    if command.shape != (n_joints,):
        raise ValueError(f"command of {command.size} joints for a robot with {n_joints}")
    return command


class VerticalStepper:
    """002's vertical-plane model (4.35) with the motor-side PD (4.39) and the scenario's world."""

    command_interface = "position"

    def __init__(self, setup: VerticalSetup) -> None:
        self.setup = setup
        model = setup.model
        self.t = 0.0
        self.control_period = setup.control_period
        self.q, self.v = setup.q0.copy(), np.zeros(model.n_q)
        self.u = np.zeros(model.n_joints)
        self._previous_command: np.ndarray | None = None
        self._tip = self._tip_pose()
        self._tip_rate = (np.zeros(3), 0.0)

    def _tip_pose(self) -> tuple[np.ndarray, float]:
        """Head tip (x, 0, z) — the last contact candidate of §4.6 — and the head link's angle θ_N."""
        model = self.setup.model
        x, z = contact_points(model, self.q)
        return np.array([x[-1], 0.0, z[-1]]), float(link_angles(model, self.q)[-1])

    def joints(self) -> JointSample:
        model, q, v = self.setup.model, self.q, self.v
        return JointSample(q[model.i_alpha].copy(), v[model.i_alpha].copy(), sea_torque(model, q),
                           beta=q[model.i_beta].copy(), beta_dot=v[model.i_beta].copy(), motor_torque=self.u.copy())

    def head(self) -> HeadSample:
        (position, theta), (velocity, rate) = self._tip, self._tip_rate
        forward, up = to_head_frame(velocity[0], velocity[2], theta)
        # RunLog's "xz" plane: θ about −y (snake_core.interface.plane_quaternion), so the head turns at −θ̇ about its y
        return HeadSample(position, plane_quaternion("xz", np.array(theta)), np.array([forward, 0.0, up]),
                          np.array([0.0, -rate, 0.0]))

    def hold_command(self) -> np.ndarray:
        """β_d that keeps the motors where they are (before any command arrives)."""
        return self.q[self.setup.model.i_beta].copy()

    def step(self, command: np.ndarray) -> None:
        """Advance one control period with the motor command β_d (tail → head)."""
        setup = self.setup
        beta_d = _check_command(command, setup.model.n_joints)
        previous = beta_d if self._previous_command is None else self._previous_command
        beta_d_dot = (beta_d - previous) / self.control_period
        self._previous_command = beta_d
        q, v, u = self.q, self.v, self.u
        h = setup.time_step
        for i in range(1, setup.substeps + 1):  # backward Euler sub-steps, as snake_sim.runtime.simulate
            q, v, u, _ = setup.plant.step(q, v, h, beta_d + i * h * beta_d_dot, beta_d_dot)
        if not math.isfinite(float(q @ q + v @ v)):
            raise SimulationDiverged(f"non-finite state at t = {self.t + self.control_period:.4f} s with "
                                     f"sim.time_step = {h:g} s")
        self.q, self.v, self.u = q, v, u
        self.t += self.control_period
        previous_tip, self._tip = self._tip, self._tip_pose()
        self._tip_rate = ((self._tip[0] - previous_tip[0]) / self.control_period,
                          (self._tip[1] - previous_tip[1]) / self.control_period)


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
        tau = _check_command(command, model.n_joints)
        if not np.linalg.norm(tau) <= setup.blowup_torque:  # the runtime's stop (planar_runtime.simulate)
            raise SimulationDiverged(blowup_status(setup, self.t))
        tau_004 = reverse_joints(tau) * self._actuated  # generalised force on φ_{n−j} (convention)

        def rhs(_t: float, x: np.ndarray) -> np.ndarray:  # (20) with E τ
            q, qd = x[:d], x[d:]
            return np.concatenate((qd, forward_dynamics(model, compute_terms(model, q, qd), tau_004)))

        end = self.t + self.control_period
        sol = solve_ivp(rhs, (self.t, end), self.x, method=self._method, rtol=RTOL, atol=ATOL)
        if not (sol.success and np.all(np.isfinite(sol.y[:, -1]))):
            raise SimulationDiverged(f"integration failed at t = {sol.t[-1]:.4f} s: {sol.message}")
        self.x, self.tau, self.t = sol.y[:, -1], reverse_joints(tau_004).copy(), end


def stepper(scenario: Scenario) -> Stepper:
    """The externally stepped model of ``scenario`` (``model:``)."""
    if scenario.model == "vertical":
        return VerticalStepper(build(scenario))
    if scenario.model == "planar":
        return PlanarStepper(planar_runtime.build(scenario))
    raise ConfigError("model", scenario.model, "has no externally stepped form yet (vertical and planar have)",
                      scenario.source)
