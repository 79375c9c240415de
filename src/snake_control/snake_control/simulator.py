"""simulator: the embedded simulator as a ROS 2 node, offering the graph what Gazebo with
ros2_control offers it (``sim.launch.py simulator:=embedded``).

It steps the model of ``scenario`` (a name in config/scenarios/ or a file; ``overrides`` in
``snake-sim run --set`` syntax, e.g. ``world.file=stairs``) through snake_sim.stepping, one
control period (1/``rate``) per step, and owns the simulation time:

- takes β_d on /motor_position_controller/commands (std_msgs/Float64MultiArray, tail → head, as the
  forward command controller does; before the first command the motors hold their start angles);
- publishes /joint_states (``joint_j``: α, α̇, τ; ``motor_j``: β, β̇, U) and /head/odometry (the
  head tip's ground truth, twist in the head frame), stamped with the simulation time, then /clock,
  at every step.

``lockstep`` (default true): after publishing step k the simulator waits for the next command
before stepping again, so the result does not depend on how fast the machine runs the graph; if no
command arrives within ``lockstep_timeout`` seconds of wall time it steps with the last one and
reports WARN on /diagnostics. Until the first command, time advances at real time so that the
controllers start. ``real_time_factor`` paces the steps against the wall clock (1: real time, as
Gazebo's default; 0: as fast as the graph answers). A non-finite state stops the simulation with
ERROR on /diagnostics and exit code 1.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.time import Time
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from snake_core.naming import joint_names, motor_names
from snake_core.validation import ConfigError
from snake_sim.scenario import load_scenario
from snake_sim.stepping import SimulationDiverged, stepper

from .ros_interface import (
    COMMAND_QOS,
    ERROR,
    HEAD_ODOMETRY,
    JOINT_STATES,
    MOTOR_POSITION_COMMANDS,
    OK,
    SENSOR_QOS,
    WARN,
    Diagnostics,
    all_finite,
    declare,
    joint_state,
    odometry,
    run,
)

CLOCK = "/clock"


class Simulator(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("simulator", **kwargs)
        if self.get_parameter("use_sim_time").value:
            raise ConfigError("use_sim_time", True, "must be false: the simulator publishes /clock itself",
                              "simulator parameters")
        name = declare(self, "scenario", "pedal-wave", "scenario of config/scenarios/ or a file", read_only=True)
        overrides = self.declare_parameter("overrides", [""], ParameterDescriptor(  # [""]: a typed empty list
            description="scenario overrides KEY=VALUE (snake-sim run --set)", read_only=True)).value
        rate = declare(self, "rate", 100.0, "control rate [Hz]: one simulation step per period",
                       low=1.0, high=1000.0, read_only=True)
        self.lockstep = declare(self, "lockstep", True, "wait for each command before the next step",
                                read_only=True)
        self.timeout = declare(self, "lockstep_timeout", 1.0, "wall time [s] to wait for a command",
                               low=0.001, high=60.0, read_only=True)
        rtf = declare(self, "real_time_factor", 1.0, "simulated s per wall s (0: as fast as possible)",
                      low=0.0, high=1000.0, read_only=True)
        self.world_frame = declare(self, "world_frame", "world", "header.frame_id of /head/odometry",
                                   read_only=True)
        self.child_frame = declare(self, "child_frame", "head_tip", "child_frame_id of /head/odometry",
                                   read_only=True)
        scenario = load_scenario(name, [o for o in overrides if o] + [f"sim.control_rate={rate}"])
        self.sim = stepper(scenario)
        n = len(self.sim.hold_command())
        self.names = joint_names(n) + motor_names(n)
        self._wall_period = (1.0 / rtf) * self.sim.control_period if rtf > 0.0 else 0.0
        self._command = self.sim.hold_command()
        self._started = False  # a command has arrived
        self._fresh = False  # a command arrived since the last step
        self._published_at = time.monotonic()
        self._clock_pub = self.create_publisher(Clock, CLOCK, 10)
        self._joints = self.create_publisher(JointState, JOINT_STATES, SENSOR_QOS)
        self._odometry = self.create_publisher(Odometry, HEAD_ODOMETRY, SENSOR_QOS)
        self.create_subscription(Float64MultiArray, MOTOR_POSITION_COMMANDS, self._on_command, COMMAND_QOS)
        self._diag = Diagnostics(self, "simulator")
        self.failed = False
        self._publish()
        self.create_timer(min(0.001, self.sim.control_period), self._poll)

    def _on_command(self, msg: Float64MultiArray) -> None:
        if len(msg.data) != len(self._command) or not all_finite(msg.data):
            self._diag.report(ERROR, f"command refused: {len(msg.data)} values (expected {len(self._command)}, "
                              "finite) on " + MOTOR_POSITION_COMMANDS)
            return
        self._command = list(msg.data)
        self._started = self._fresh = True
        self._poll()

    def _poll(self) -> None:
        """Step when the command of this period has come (lockstep) and the pace allows."""
        waited = time.monotonic() - self._published_at
        if waited < (self._wall_period if self._started else self.sim.control_period):
            return
        late = self.lockstep and self._started and not self._fresh
        if late and waited < self.timeout:
            return
        try:
            self.sim.step(self._command)
        except SimulationDiverged as exc:
            self._diag.report(ERROR, f"stopped: {exc}")
            self.failed = True
            raise SystemExit(1) from exc
        self._fresh = False
        self._publish()
        if late:
            self._diag.report(WARN, f"no command within lockstep_timeout = {self.timeout:g} s: stepped with the "
                              "last one")
        else:
            self._diag.report(OK, "running" if self._started else "waiting for /motor_position_controller/commands")

    def _publish(self) -> None:
        """The measurements of the new time, then the time itself: a controller whose timer fires on
        this /clock has already received the joint states of the same instant."""
        self._published_at = time.monotonic()
        clock = Clock(clock=Time(seconds=self.sim.t).to_msg())
        j = self.sim.joints()
        msg = joint_state(self, self.names, [*j.alpha, *j.beta], [*j.alpha_dot, *j.beta_dot],
                          [*j.tau, *j.motor_torque])
        msg.header.stamp = clock.clock
        self._joints.publish(msg)
        head = self.sim.head()
        self._odometry.publish(odometry(clock.clock, self.world_frame, self.child_frame, head.position,
                                        head.orientation, head.linear, head.angular))
        self._clock_pub.publish(clock)


def main(args: Sequence[str] | None = None) -> int:
    return run(Simulator, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
