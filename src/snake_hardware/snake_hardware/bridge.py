"""The ROS-free core of the ``can_bridge`` node: joint commands in, joint states and diagnostics out.

The joint states have the suite's one /joint_states layout (snake_core.interface.JointStateLayout):
``joint_<j>`` α_j, α̇_j, τ_j; ``motor_<j>`` β_j, β̇_j and NaN effort (the modules do not report the
motor torque U); ``spring_<j>`` α_j − β_j, α̇_j − β̇_j, τ_j. topic_based_ros2_control takes the URDF's
ros2_control joints ``motor_<j>`` and ``spring_<j>`` from it (urdf/snake.ros2_control.xacro,
hardware:=real). Commands are β_d by ``motor_<j>`` (a JointState from the topic-based hardware
interface) or a tail → head array (std_msgs/Float64MultiArray). A lost module reports NaN, never a
stale value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from snake_core.interface import JointStateLayout, motor_names

from .diagnostics import DiagnosticRecord
from .driver import CanDriver


@dataclass(frozen=True)
class JointStateData:
    name: list[str]
    position: list[float]
    velocity: list[float]
    effort: list[float]


class CanBridge:
    def __init__(self, driver: CanDriver):
        self.driver = driver
        n = driver.robot.n_joints
        self.motor_names = motor_names(n)
        self.layout = JointStateLayout(n, sea=True)

    def on_named_command(self, names: Sequence[str], positions: Sequence[float], velocities: Sequence[float],
                         now: float) -> None:
        """β_d by ``motor_<j>`` name (other names are ignored); every motor must be present."""
        given = {name: i for i, name in enumerate(names)}
        missing = [m for m in self.motor_names if m not in given or given[m] >= len(positions)]
        if missing:
            self.driver.reject_command("command lacks " + ", ".join(missing), now)
            return
        beta = [positions[given[m]] for m in self.motor_names]
        rate = [velocities[given[m]] if given[m] < len(velocities) else 0.0 for m in self.motor_names]
        self.driver.set_command(beta, rate, now)

    def on_array_command(self, data: Sequence[float], now: float) -> None:
        """β_d tail → head (/motor_position_controller/commands layout)."""
        self.driver.set_command(list(data), None, now)

    def step(self, now: float) -> JointStateData:
        """Run one driver cycle and return the joint states to publish."""
        self.driver.step(now)
        s = self.driver.joint_states()
        nan = np.where(s.valid, 0.0, np.nan)  # a lost module reports NaN
        alpha, alpha_dot, beta, beta_dot, tau = (x + nan for x in (s.alpha, s.alpha_dot, s.beta, s.beta_dot, s.tau))
        position, velocity, effort = self.layout.write(alpha, alpha_dot, tau, beta, beta_dot)
        return JointStateData(self.layout.names, list(position), list(velocity), list(effort))

    def diagnostics(self) -> list[DiagnosticRecord]:
        return self.driver.diagnostics()
