"""The interface of a per-joint SEA controller (docs/design.md "Data flow").

Every mode (position, local stiffness, TSC, torque) maps what one joint module can measure, plus
its tail-side neighbour's angles (TSC passes angles tail → head), to a motor position reference
β_d for the inner motor-side PD loop, 002 (4.39), which lives below ROS (simulator actuator model,
ros2_control PID in Gazebo, module firmware on the CAN bus).

The measurement, reference and command are slotted records, made once per joint and control period (a frozen
dataclass costs about four times as much to make): values passed on, which no controller changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..registry import Param, checked
from ..robot import RobotParams


@dataclass(slots=True)
class JointMeasurement:
    """What joint module j reports; angles in rad, torque in N·m."""

    alpha: float  # α_j, link-side relative joint angle
    alpha_dot: float  # α̇_j
    beta: float  # β_j, motor angle reflected to the link side
    tau: float  # τ_j = K_j (α_j − β_j), 002 (4.36): the SEA torque
    alpha_prev: float | None = None  # α_{j−1} of the tail-side neighbour (None for the tail joint)
    beta_prev: float | None = None  # β_{j−1}, the tail-side neighbour's servo (motor) angle (None for the tail joint)


@dataclass(slots=True)
class JointReference:
    """What the gait generator and the head-tracking controller ask of joint j."""

    alpha_d: float = 0.0  # α_j^d
    alpha_d_dot: float = 0.0  # α̇_j^d
    tau_d: float = 0.0  # desired SEA torque (torque mode)

    def at(self, lag: float) -> JointReference:
        """The reference ``lag`` seconds after the instant it was sampled for, held to first order:
        α_d + α̇_d·lag (α̇_d and τ_d held). A controller that ticks after the sample (a stream that reaches it a
        period late) tracks the gait at its own time, not at the sample's."""
        return replace(self, alpha_d=self.alpha_d + self.alpha_d_dot * lag)


@dataclass(slots=True)
class MotorCommand:
    """Output of a joint controller for the inner loop: β_d and its rate (the feed-forward of the
    derivative term of 002 (4.39); 0 where the mode has none)."""

    beta_d: float
    beta_d_dot: float = 0.0


class JointController(Protocol):
    """One joint's controller; ``step`` advances its internal state by ``dt`` and returns β_d.

    A mode may also step the controllers of all joints of a run at once, the same arithmetic over arrays (tail →
    head), which saves the per-joint records where a loop ticks every joint each period (the simulators' SEA loop):
    a static method ``joints_step(controllers)`` that returns ``step(t, dt, alpha, alpha_dot, beta, tau, alpha_d,
    alpha_d_dot, tau_d) -> (β_d, β̇_d)`` over the arrays of those joints."""

    joint_index: int  # 1-based, tail → head

    def reset(self) -> None: ...

    def step(self, t: float, dt: float, meas: JointMeasurement, ref: JointReference) -> MotorCommand: ...


@dataclass(frozen=True)
class ControllerMode:
    """A ``controller.mode`` as its module declares it (``MODE = ControllerMode(...)``): the name, what it is and
    where it comes from, its typed parameters (``controller.<name>``: what the scenarios, ``--set`` and
    sea_joint_controller accept, and the docs' table) and ``build(robot, joint_index, params, source)``, which
    makes joint ``joint_index``'s (1-based) controller from the ``controller`` mapping checked against them."""

    name: str
    description: str
    source: str
    params: tuple[Param, ...]
    build: Callable[[RobotParams, int, Mapping[str, Any], str | None], JointController]

    def checked(self, params: Mapping[str, Any], n_joints: int, source: str | None = None) -> dict[str, Any]:
        """The ``controller`` mapping ``params`` (``mode`` included) checked against :attr:`params`: name → value,
        defaults filled in (None: computed by :attr:`build`)."""
        return checked(params, self.params, "controller", source, n_joints=n_joints, also=("mode",))
