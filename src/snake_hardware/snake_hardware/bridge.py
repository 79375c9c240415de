"""The ROS-free core of the ``can_bridge`` node: joint commands in, joint states and diagnostics out.

The joint states have the suite's one /joint_states layout (snake_core.interface.JointStateLayout):
``joint_<j>`` α_j, α̇_j, τ_j; ``motor_<j>`` β_j, β̇_j and the motor torque U, which the modules do not report:
estimated as their PD forms it, 002 (4.39) with the robot file's gains on the reference last sent and the measured
β, β̇, within the servo's torque–speed line (snake_core.actuator.MotorPD); ``spring_<j>`` α_j − β_j, α̇_j − β̇_j,
τ_j. ros2_control's topic hardware
(joint_state_topic_hardware_interface) takes the URDF's ros2_control joints ``motor_<j>`` and ``spring_<j>``
from it (urdf/snake.ros2_control.xacro, hardware:=real). Commands are β_d by ``motor_<j>`` (the JointState
the topic hardware writes) or a tail → head array (std_msgs/Float64MultiArray). A lost module, or one whose
status reports a fault, reports NaN, never a stale value: the topic hardware keeps the last finite value in
/joint_states, so the SEA controllers take the loss from these states (and hold), RViz and the operator from
/diagnostics.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from snake_core.actuator import motor_pd
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
        self.motor_pd = motor_pd(driver.robot, saturate=True)

    def on_named_command(self, names: Sequence[str], positions: Sequence[float], velocities: Sequence[float],
                         now: float) -> None:
        """β_d by ``motor_<j>`` name; every motor must be present, other names are ignored.

        ros2_control's topic hardware (joint_state_topic_hardware_interface, ``write()``) names every joint
        of the URDF's ros2_control block but fills ``position`` only for the joints with a position command
        interface, the motors, in the order of ``name``: positions shorter than the names belong to the
        motors among them. A message with one position per name (another publisher) pairs them by index.
        A message of NaN positions only is ros2_control before any controller has written a command: no
        command (the command watchdog holds the robot), not a fault."""
        motors = set(self.motor_names)
        commanded = [name for name in names if name in motors]
        fields = {}
        for field, values in (("position", positions), ("velocity", velocities)):
            if len(values) == len(names):
                fields[field] = dict(zip(names, values, strict=True))
            elif len(values) == len(commanded):
                fields[field] = dict(zip(commanded, values, strict=True))
            elif field == "position" or values:
                self.driver.reject_command(f"command has {len(values)} {field}s for {len(names)} names "
                                           f"({len(commanded)} motors)", now)
                return
        missing = [m for m in self.motor_names if m not in fields["position"]]
        if missing:
            self.driver.reject_command("command lacks " + ", ".join(missing), now)
            return
        beta = [fields["position"][m] for m in self.motor_names]
        if all(math.isnan(b) for b in beta):
            return
        rate = [fields.get("velocity", {}).get(m, 0.0) for m in self.motor_names]
        self.driver.set_command(beta, rate, now)

    def on_array_command(self, data: Sequence[float], now: float) -> None:
        """β_d tail → head (/motor_position_controller/commands layout)."""
        self.driver.set_command(list(data), None, now)

    def step(self, now: float) -> JointStateData:
        """Run one driver cycle and return the joint states to publish."""
        self.driver.step(now)
        s = self.driver.joint_states()
        faulted = np.array([bool(status.get("fault")) for status in self.driver.module_status])
        nan = np.where(s.valid & ~faulted, 0.0, np.nan)  # a lost module, or one reporting a fault: NaN
        alpha, alpha_dot, beta, beta_dot, tau = (x + nan for x in (s.alpha, s.alpha_dot, s.beta, s.beta_dot, s.tau))
        u, _ = self.motor_pd.torque(beta, beta_dot, self.driver.sent, self.driver.sent_rate)  # 002 (4.39), estimated
        position, velocity, effort = self.layout.write(alpha, alpha_dot, tau, beta, beta_dot, u)
        return JointStateData(self.layout.names, list(position), list(velocity), list(effort))

    def diagnostics(self) -> list[DiagnosticRecord]:
        return self.driver.diagnostics()
