"""motor_command_mux: gathers per-joint commands into the single std_msgs/Float64MultiArray of a
ros2_control forward command controller (tail → head).

``mode`` position (SEA robots): the β_d of the sea_joint_controller nodes (/sea/motor_commands, one
JointState per joint named ``motor_j``) → /motor_position_controller/commands, and their β̇_d (0 where
not given) → /motor_velocity_controller/commands (Gazebo's motor PD takes it as its velocity reference). ``mode`` effort
(rigid-joint robots, 004): the joint torques of head_tracking_controller (/sea/torque_reference,
efforts of ``joint_j``) → /joint_effort_controller/commands.

It publishes an array as soon as every joint has sent a command since the last array: one array per control
period of the controllers, in step with them, stamped (``answers_ns``, ros_interface.float_array) with the
oldest of the joint states its commands answer (their header stamps) (no timer phase between controller and
mux, so a lock-stepped simulator sees the same delays on every run). When a joint's command is older than
``stale_timeout`` (checked at ``rate``) or not finite, ERROR is reported on /diagnostics and the robot is put
in its safe hold instead of receiving a partial array: position mode republishes the last complete array (the
motors keep their positions), effort mode sends zero torques (the joints go limp; holding a torque with no
controller behind it could drive the robot anywhere); before the first complete array nothing is sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from snake_core.interface import (
    JOINT_EFFORT_COMMANDS,
    MOTOR_COMMANDS,
    MOTOR_POSITION_COMMANDS,
    MOTOR_VELOCITY_COMMANDS,
    TORQUE_REFERENCE,
    joint_names,
    motor_names,
)
from snake_core.registry import Param
from snake_core.robot import load_robot

from .ros_interface import (
    COMMAND_QOS,
    ERROR,
    OK,
    Diagnostics,
    InputFreshness,
    all_finite,
    declare_params,
    fix_parameters,
    float_array,
    joint_state_fields,
    run,
    stamp_ns,
    started,
)

#: mode → (input topic, names per joint, JointState field index, output topic, controller)
MODES = {
    "position": (MOTOR_COMMANDS, motor_names, 0, MOTOR_POSITION_COMMANDS, "motor_position_controller"),
    "effort": (TORQUE_REFERENCE, joint_names, 2, JOINT_EFFORT_COMMANDS, "joint_effort_controller"),
}

#: The node's own parameters, all read-only.
PARAMS = (
    Param("robot", "koopaee6", "", "robot file config/robots/<robot>.yaml", kind=str),
    Param("mode", "position", "", "position: β_d of SEA motors; effort: joint torques", kind=str,
          choices=tuple(MODES)),
    Param("rate", 100.0, "Hz", "publishing rate", 1.0, 1000.0),
    Param("stale_timeout", 0.1, "s", "a joint command older than this holds all joints", 0.001, 10.0),
)


class MotorCommandMuxNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("motor_command_mux", **kwargs)
        fix_parameters(self)
        own = declare_params(self, PARAMS)
        robot, rate, timeout = load_robot(own["robot"]), own["rate"], own["stale_timeout"]
        self.mode = own["mode"]
        source, names, self._field, output, controller = MODES[self.mode]
        self.names = names(robot.n_joints)
        self._commands: dict[str, float] = {}
        self._stamps: dict[str, int] = {}  # [ns] header stamp of each joint's command
        self._pending: set[str] = set()  # joints commanded since the last array
        self._fresh = InputFreshness(self, timeout, dict.fromkeys(self.names, source))
        self._last: list[float] | None = None
        self.create_subscription(JointState, source, self._on_command, COMMAND_QOS)
        self._pub = self.create_publisher(Float64MultiArray, output, COMMAND_QOS)
        # position mode: β̇_d too, the velocity reference of Gazebo's motor PD (002 (4.39) feed-forward)
        self._rates: dict[str, float] = {}
        self._rate_pub = self.create_publisher(Float64MultiArray, MOTOR_VELOCITY_COMMANDS, COMMAND_QOS) \
            if self.mode == "position" else None
        self._diag = Diagnostics(self, controller)
        self.create_timer(1.0 / rate, self._tick)
        started(self, f"{self.mode} commands of {len(self.names)} joints from {source} on {output}", rate,
                stale_timeout=timeout)

    def _on_command(self, msg: JointState) -> None:
        for name, values in joint_state_fields(msg).items():
            if name in self.names:
                self._commands[name] = values[self._field]
                self._rates[name] = values[1] if all_finite(values[1:2]) else 0.0
                self._stamps[name] = stamp_ns(msg.header.stamp)
                self._fresh.mark(name, msg.header.stamp)
                self._pending.add(name)
        if len(self._pending) < len(self.names):
            return
        self._pending.clear()
        bad = [n for n in self.names if not all_finite([self._commands[n]])]
        if bad:
            self._hold(", ".join(f"{n} not finite" for n in bad))
            return
        self._last = [self._commands[n] for n in self.names]
        self._pub.publish(float_array(self._last, answers=self._answers()))
        if self._rate_pub is not None:
            self._rate_pub.publish(float_array([self._rates[n] for n in self.names], answers=self._answers()))
        self._diag.report(OK, "all joints commanded")

    def _answers(self) -> int | None:
        """The stamp the array answers: the oldest of its joints' commands (None before every joint has one)."""
        return min(self._stamps.values()) if len(self._stamps) == len(self.names) else None

    def _hold(self, why: str, level: bytes = ERROR) -> None:
        """Report, and once a complete array has gone out, put the robot in its safe hold. Before that
        nothing is sent: the forward command controller keeps its own start value (for a lock-stepped
        simulator an extra array would be a step of its own)."""
        self._diag.report(level, f"hold: {why}")
        if self._last is None:
            return
        self._pub.publish(float_array([0.0 for _ in self.names] if self.mode == "effort" else self._last,
                                      answers=self._answers()))
        if self._rate_pub is not None:
            self._rate_pub.publish(float_array([0.0 for _ in self.names], answers=self._answers()))

    def _tick(self) -> None:
        stale = self._fresh.stale(self.names)
        if stale:
            level, why = self._fresh.fault(stale)
            self._hold(", ".join(f"{n} stale" for n in stale) if level == ERROR else why, level)


def main(args: Sequence[str] | None = None) -> int:
    return run(MotorCommandMuxNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
