"""A scenario's model stepped from outside, one control period at a time, the way Gazebo with
ros2_control serves a ROS graph: the caller reads what the joint modules and the ground truth
measure, sends the commands of the robot's forward command controller, and time advances by one
control period per step. ``command_interface`` says which: ``position`` (SEA robots: motor
position commands β_d, /motor_position_controller/commands) or ``effort`` (rigid joints, 004:
joint torques τ, /joint_effort_controller/commands), both tail → head.

This is what the embedded simulator's ROS node (snake_control's ``simulator``) wraps; the gait and
the SEA controllers then run outside, in their own nodes. ``stepper(scenario)`` asks the runtime of the
scenario's ``model:`` (:mod:`snake_sim.core.models`) for its stepper:
:class:`snake_sim.engines.vertical.stepper.VerticalStepper` (002, motor commands) and
:class:`snake_sim.engines.planar.stepper.PlanarStepper` (004, joint torques).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from snake_core.validation import ConfigError

from .models import models, runtime_for
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


def check_command(command: np.ndarray, n_joints: int) -> np.ndarray:
    """``command`` as a new float array of one value per joint (ValueError otherwise): C-ordered and writable whatever
    the caller's array, the one type the vertical model's compiled step takes."""
    command = np.array(command, dtype=float)
    if command.shape != (n_joints,):
        raise ValueError(f"command of {command.size} joints for a robot with {n_joints}")
    return command


def stepper(scenario: Scenario) -> Stepper:
    """The externally stepped model of ``scenario`` (``model:``)."""
    runtime = runtime_for(scenario.model, scenario.source)
    if not hasattr(runtime, "stepper"):
        stepped = [m for m in models() if hasattr(runtime_for(m), "stepper")]
        raise ConfigError("model", scenario.model, f"has no externally stepped form yet ({' and '.join(stepped)} have)",
                          scenario.source)
    return runtime.stepper(scenario)
