"""A scenario's model stepped from outside, one control period at a time, the way Gazebo with
ros2_control serves a ROS graph: the caller reads what the joint modules and the ground truth
measure, sends motor position commands β_d, and time advances by one control period per step.

This is what the embedded simulator's ROS node (snake_control's ``simulator``) wraps; the gait and
the SEA controllers then run outside, in their own nodes. ``stepper(scenario)`` picks the
implementation by the scenario's ``model:``.

The forward command controller sends β_d only (std_msgs/Float64MultiArray), so β̇_d, which the
motor-side PD (002 (4.39)) feeds forward, is the backward difference of successive commands, as
a module's firmware would form it; within a control period the actuator follows the command
extrapolated with that rate (β_d + s β̇_d), as the embedded runtime does with the controllers' own
β̇_d (snake_sim.runtime).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from snake_core.planar.head_state import to_head_frame
from snake_core.validation import ConfigError
from snake_core.vertical.dynamics import sea_torque

from .recording import plane_quaternion
from .runtime import VerticalSetup, build
from .scenario import Scenario


@dataclass(frozen=True)
class JointSample:
    """What the joint modules measure, tail → head [rad, rad/s, N·m]; U the motor-side PD torque."""

    alpha: np.ndarray
    alpha_dot: np.ndarray
    beta: np.ndarray
    beta_dot: np.ndarray
    tau: np.ndarray  # K (α − β), 002 (4.36)
    motor_torque: np.ndarray  # U of 002 (4.39)


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

    def joints(self) -> JointSample: ...

    def head(self) -> HeadSample: ...

    def hold_command(self) -> np.ndarray: ...

    def step(self, beta_d: np.ndarray) -> None: ...


class VerticalStepper:
    """002's vertical-plane model (4.35) with the motor-side PD (4.39) and the scenario's world."""

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
        """Head tip (x, 0, z) and the head link's angle θ_N in the x–z plane."""
        model, q = self.setup.model, self.q
        n = model.n_links
        th = model.T @ q[:n]
        cx, cz = q[model.i_px] + model.G_l @ np.cos(th), q[model.i_pz] + model.G_l @ np.sin(th)
        half = self.setup.robot.half_length
        return np.array([cx[-1] + half * math.cos(th[-1]), 0.0, cz[-1] + half * math.sin(th[-1])]), float(th[-1])

    def joints(self) -> JointSample:
        model, q, v = self.setup.model, self.q, self.v
        return JointSample(q[model.i_alpha].copy(), v[model.i_alpha].copy(), q[model.i_beta].copy(),
                           v[model.i_beta].copy(), sea_torque(model, q), self.u.copy())

    def head(self) -> HeadSample:
        (position, theta), (velocity, rate) = self._tip, self._tip_rate
        forward, up = to_head_frame(velocity[0], velocity[2], theta)
        # RunLog's "xz" plane: θ about −y (recording.plane_quaternion), so the head turns at −θ̇ about its y
        return HeadSample(position, plane_quaternion("xz", np.array(theta)), np.array([forward, 0.0, up]),
                          np.array([0.0, -rate, 0.0]))

    def hold_command(self) -> np.ndarray:
        """β_d that keeps the motors where they are (before any command arrives)."""
        return self.q[self.setup.model.i_beta].copy()

    def step(self, beta_d: np.ndarray) -> None:
        """Advance one control period with the motor command ``beta_d`` (tail → head)."""
        setup = self.setup
        beta_d = np.asarray(beta_d, dtype=float)
        if beta_d.shape != (setup.model.n_joints,):
            raise ValueError(f"command of {beta_d.size} joints for a robot with {setup.model.n_joints}")
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


def stepper(scenario: Scenario) -> Stepper:
    """The externally stepped model of ``scenario`` (``model:``)."""
    if scenario.model == "vertical":
        return VerticalStepper(build(scenario))
    raise ConfigError("model", scenario.model, "has no externally stepped form yet (vertical has)", scenario.source)
