"""simulator: the embedded simulator as a ROS 2 node, offering the graph what Gazebo with
ros2_control offers it (``sim.launch.py simulator:=embedded``).

It steps the model of ``scenario`` (a name in config/scenarios/ or a file; ``overrides`` in
``snake-sim run --set`` syntax, e.g. ``world.file=stairs``) through snake_sim.stepping, one
control period (1/``rate``) per step, and owns the simulation time:

- takes the commands of the robot's forward command controller (std_msgs/Float64MultiArray, tail →
  head): β_d on /motor_position_controller/commands for SEA robots (before the first command the
  motors hold their start angles), joint torques τ on /joint_effort_controller/commands for
  rigid-joint robots of the planar model (004; before the first command no torque);
- publishes /joint_states (snake_core.interface.JointStateLayout: ``joint_j``: α, α̇, τ; SEA robots
  also ``motor_j``: β, β̇, U and ``spring_j``: α − β, α̇ − β̇, τ) and
  /head/odometry (the head tip's ground truth, twist in the head frame), stamped with the
  simulation time, then /clock, at every step.

``lockstep`` (default true): after publishing step k the simulator waits for the next command
before stepping again, so the result does not depend on how fast the machine runs the graph; if no
command arrives within ``lockstep_timeout`` seconds of wall time it steps with the last one and
reports WARN on /diagnostics. Until the first command, time advances at real time so that the
controllers start; then the simulator stands until no command has come for ``STARTUP_GRACE`` s of
wall time, so that every command computed while it ran on its own has arrived, and takes the
latest: from there on each step answers exactly one command, computed from the state the step
starts at. ``real_time_factor`` paces the steps against the wall clock (1: real time, as
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

from snake_core.interface import (
    CLOCK,
    HEAD_ODOMETRY,
    HEAD_TIP_FRAME,
    JOINT_EFFORT_COMMANDS,
    JOINT_STATES,
    MOTOR_POSITION_COMMANDS,
    WORLD_FRAME,
    JointStateLayout,
)
from snake_core.validation import ConfigError
from snake_sim.scenario import load_scenario
from snake_sim.stepping import SimulationDiverged, stepper

from .ros_interface import (
    COMMAND_QOS,
    ERROR,
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

#: Quiet time [s of wall time] without a new command before lockstep begins: the commands the
#: controllers computed for the periods the simulator ran on its own have all arrived, the latest is
#: taken, and from then on exactly one command answers each step.
STARTUP_GRACE = 0.5


class SimulatorNode(Node):
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
        self.world_frame = declare(self, "world_frame", WORLD_FRAME, "header.frame_id of /head/odometry",
                                   read_only=True)
        self.child_frame = declare(self, "child_frame", HEAD_TIP_FRAME, "child_frame_id of /head/odometry",
                                   read_only=True)
        scenario = load_scenario(name, [o for o in overrides if o] + [f"sim.control_rate={rate}"])
        self.sim = stepper(scenario)
        self.layout = JointStateLayout(len(self.sim.hold_command()), sea=self.sim.joints().beta is not None)
        self.command_topic = JOINT_EFFORT_COMMANDS if self.sim.command_interface == "effort" \
            else MOTOR_POSITION_COMMANDS
        self._wall_period = (1.0 / rtf) * self.sim.control_period if rtf > 0.0 else 0.0
        self._command = self.sim.hold_command()
        self._started = False  # a command has arrived
        self._last_command = 0.0  # wall time of the latest command
        self._locked = False  # in lockstep: one command answers each step
        self._fresh = False  # a command arrived since the last step
        self._published_at = time.monotonic()
        self._clock_pub = self.create_publisher(Clock, CLOCK, 10)
        self._joints = self.create_publisher(JointState, JOINT_STATES, SENSOR_QOS)
        self._odometry = self.create_publisher(Odometry, HEAD_ODOMETRY, SENSOR_QOS)
        self.create_subscription(Float64MultiArray, self.command_topic, self._on_command, COMMAND_QOS)
        self._diag = Diagnostics(self, "simulator")
        self._publish()
        self.create_timer(min(0.001, self.sim.control_period), self._poll)

    def _on_command(self, msg: Float64MultiArray) -> None:
        if len(msg.data) != len(self._command) or not all_finite(msg.data):
            self._diag.report(ERROR, f"command refused: {len(msg.data)} values (expected {len(self._command)}, "
                              "finite) on " + self.command_topic)
            return
        self._command = list(msg.data)
        self._fresh = True
        self._last_command = time.monotonic()
        self._started = True
        self._poll()

    def _poll(self) -> None:
        """Step when the command of this period has come (lockstep) and the pace allows."""
        now = time.monotonic()
        waited = now - self._published_at
        started = self._started
        if not started and waited < self.sim.control_period:
            return
        if started and not self._locked:
            if now - self._last_command < STARTUP_GRACE:
                return
            self._locked = True
        if waited < self._wall_period:
            return
        late = self.lockstep and started and not self._fresh
        if late and waited < self.timeout:
            return
        try:
            self.sim.step(self._command)
        except SimulationDiverged as exc:
            self._diag.report(ERROR, f"stopped: {exc}")
            raise SystemExit(1) from exc
        self._fresh = False
        self._publish()
        if late:
            self._diag.report(WARN, f"no command within lockstep_timeout = {self.timeout:g} s: stepped with the "
                              "last one")
        else:
            self._diag.report(OK, "running" if started else "waiting for " + self.command_topic)

    def _publish(self) -> None:
        """The measurements of the new time, then the time itself: a controller whose timer fires on
        this /clock has already received the joint states of the same instant."""
        self._published_at = time.monotonic()
        # rounded to the nanosecond: Time(seconds=) truncates, and a step that lands at 0.2199999… s would
        # stamp 0.219999999 s, so a controller's timer due at 0.22 s would fire one period late
        clock = Clock(clock=Time(nanoseconds=round(1e9 * self.sim.t)).to_msg())
        j = self.sim.joints()
        msg = joint_state(self, self.layout.names, *self.layout.write(j.alpha, j.alpha_dot, j.tau, j.beta, j.beta_dot,
                                                                       j.motor_torque))
        msg.header.stamp = clock.clock
        self._joints.publish(msg)
        head = self.sim.head()
        self._odometry.publish(odometry(clock.clock, self.world_frame, self.child_frame, head.position,
                                        head.orientation, head.linear, head.angular))
        self._clock_pub.publish(clock)


def main(args: Sequence[str] | None = None) -> int:
    return run(SimulatorNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
