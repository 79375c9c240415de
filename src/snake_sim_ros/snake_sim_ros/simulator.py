"""simulator: the embedded simulator (snake_sim) as a ROS 2 node, offering the graph what Gazebo with
ros2_control offers it (``sim.launch.py simulator:=embedded``).

It steps the model of ``scenario`` (a name in config/scenarios/ or a file; ``overrides`` in
``snake-sim run --set`` syntax, e.g. ``world.file=stairs``) through snake_sim.core.stepping, one
control period (1/``rate``) per step, and owns the simulation time:

- takes the commands of the robot's forward command controller (std_msgs/Float64MultiArray, tail →
  head): β_d on /motor_position_controller/commands for SEA robots (before the first command the
  motors hold their start angles) and, with ``velocity_commands`` (default true), the β̇_d that the motor
  PD feeds forward (002 (4.39)) on /motor_velocity_controller/commands, as Gazebo's motor PD takes them
  (false: the backward difference of successive β_d, as a module's firmware forms it; also before the
  first β̇_d); joint torques τ on /joint_effort_controller/commands for rigid-joint robots of the planar
  model (004; before the first command no torque);
- publishes /joint_states (snake_core.interface.JointStateLayout: ``joint_j``: α, α̇, τ; SEA robots
  also ``motor_j``: β, β̇, U and ``spring_j``: α − β, α̇ − β̇, τ) and
  /head/odometry (the head tip's ground truth, twist in the head frame), stamped with the
  simulation time, then /clock, at every step.

``lockstep`` (default false: the simulator runs free against the wall clock, as Gazebo does, and each
step takes the latest command, sample-and-hold): the graph's answer is the same on any machine at any
load, as with Gazebo's lockstep plugins or ros2_control's synchronous read → update → write. Tick k
publishes the states of t_k, then /clock t_k, and waits for the command that answers t_k (stamped t_k:
the ``answers_ns`` dimension of the array, ros_interface.float_array; the controllers, with their own
``lockstep`` parameter, stamp each command with the joint states it answers, and the mux passes the stamp
on; with ``velocity_commands``, the β̇_d answering t_k too). Only then it steps with it. An answer to an
older tick is ignored; an unstamped command (from a tool, not a controller) is taken as the answer to the
tick waited on. While it waits, the tick's states
and /clock are republished every ``REPUBLISH`` s of wall time (for nodes that start late), and past
``lockstep_timeout`` s of wall time the wait is reported as WARN on /diagnostics; the simulator holds:
it never steps on a stale command. Tick 0 (t = 0, which rclpy's timers never see as a tick: they fire
first one period later) is stepped with the start command (motors at their start angles, or no torque),
so a lock-stepped run always begins the same way: the controllers' first tick, and the gait's t = 0, is
t_1 = one period. The controllers must run at the simulator's rate.

``real_time_factor`` paces the steps against the wall clock (1: real time, as Gazebo's default; 0: as
fast as the graph answers, lockstep only). A non-finite state stops the simulation with ERROR on
/diagnostics and exit code 1.

Commands from the topic are limited as the CAN bridge limits them (snake_core.controllers.limits.CommandLimits):
a command of the wrong size or non-finite, or on SEA robots a β_d that is no joint angle (|β_d| > π), is refused
with ERROR on /diagnostics and never stepped on: running free the motors hold the angles β they have, in lockstep
the tick keeps waiting for a usable answer. β_d is clipped to the joint limits and its change per step to the
servo's maximum speed, β̇_d to the servo's speed, never beyond a clipped β_d and toward a joint limit to the speed
from which the servo stops before it (CommandLimits.speed); steps with a clipped command are reported as WARN with
the count of clipped values.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from snake_control.ros_interface import (
    COMMAND_QOS,
    ERROR,
    OK,
    SENSOR_QOS,
    WARN,
    Diagnostics,
    all_finite,
    answered,
    declare,
    fix_parameters,
    joint_state,
    odometry,
    run,
    started,
    time_msg,
)
from snake_core.controllers.limits import command_limits
from snake_core.interface import (
    CLOCK,
    HEAD_ODOMETRY,
    HEAD_TIP_FRAME,
    JOINT_EFFORT_COMMANDS,
    JOINT_STATES,
    MOTOR_POSITION_COMMANDS,
    MOTOR_VELOCITY_COMMANDS,
    WORLD_FRAME,
    JointStateLayout,
)
from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_sim.core.scenario import load_scenario
from snake_sim.core.stepping import SimulationDiverged, stepper

#: Wall time [s] between two publications of the tick a lock-stepped simulator waits on (for late nodes).
REPUBLISH = 0.1


class SimulatorNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("simulator", **kwargs)
        fix_parameters(self)
        if self.get_parameter("use_sim_time").value:
            raise ConfigError("use_sim_time", True, "must be false: the simulator publishes /clock itself",
                              "simulator parameters")
        name = declare(self, "scenario", "pedal-wave", "scenario of config/scenarios/ or a file", read_only=True)
        overrides = self.declare_parameter("overrides", [""], ParameterDescriptor(  # [""]: a typed empty list
            description="scenario overrides KEY=VALUE (snake-sim run --set)", read_only=True)).value
        rate = declare(self, "rate", 100.0, "control rate [Hz]: one simulation step per period",
                       low=1.0, high=1000.0, read_only=True)
        self.lockstep = declare(self, "lockstep", False, "wait at each tick for the command that answers it",
                                read_only=True)
        self.timeout = declare(self, "lockstep_timeout", 1.0, "wall time [s] of waiting for an answer before "
                               "reporting it (the simulator keeps holding)", low=0.001, high=3600.0, read_only=True)
        rtf = declare(self, "real_time_factor", 1.0, "simulated s per wall s (0: as fast as the graph answers, "
                      "lockstep only)", low=0.0, high=1000.0, read_only=True)
        if rtf == 0.0 and not self.lockstep:
            raise ConfigError("real_time_factor", rtf, "must be > 0 unless lockstep is true (nothing else paces "
                              "the steps)", "simulator parameters")
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
        # β_d within the joint limits and the servo's speed (torques of rigid joints: size and finite only)
        self.limits = command_limits(load_robot(scenario.section("robot")["name"])) \
            if self.sim.command_interface == "position" else None
        self.commands_clamped = 0  # β_d values clipped, since start
        self._command = self.sim.hold_command()  # free run: the latest command
        self._stepped = self._command  # the command of the last step
        self._answer: list[float] | None = None  # lockstep: the command that answers the current tick
        # β̇_d (position interface): free run the latest, lockstep the one answering the current tick
        self._rates = declare(self, "velocity_commands", True, "β̇_d of the motor PD from "
                              f"{MOTOR_VELOCITY_COMMANDS} (false: the backward difference of successive β_d)",
                              read_only=True) and self.command_topic == MOTOR_POSITION_COMMANDS
        self._rate: list[float] | None = None
        self._rate_answer: list[float] | None = None
        self._tick_started = self._published_at = time.monotonic()
        self._clock_pub = self.create_publisher(Clock, CLOCK, 10)
        self._joints = self.create_publisher(JointState, JOINT_STATES, SENSOR_QOS)
        self._odometry = self.create_publisher(Odometry, HEAD_ODOMETRY, SENSOR_QOS)
        self.create_subscription(Float64MultiArray, self.command_topic, self._on_command, COMMAND_QOS)
        if self._rates:
            self.create_subscription(Float64MultiArray, MOTOR_VELOCITY_COMMANDS, self._on_rate, COMMAND_QOS)
        self._diag = Diagnostics(self, "simulator")
        self._publish()
        self.create_timer(min(0.001, self.sim.control_period), self._poll)
        started(self, f"simulating {name} ({scenario.section('robot')['name']}, {self.sim.command_interface} commands "
                f"on {self.command_topic})", rate, lockstep=self.lockstep, real_time_factor=rtf)

    def _t_ns(self) -> int:
        # rounded to the nanosecond: Time(seconds=) truncates, and a step that lands at 0.2199999… s would
        # stamp 0.219999999 s, so a controller's timer due at 0.22 s would fire one period late
        return round(1e9 * self.sim.t)

    def _shape_refusal(self, values: Sequence[float]) -> str | None:
        """Why ``values`` is not one finite value per joint, or None."""
        if len(values) != len(self._command) or not all_finite(values):
            return f"{len(values)} values (expected {len(self._command)}, finite)"
        return None

    def _refusal(self, command: Sequence[float]) -> str | None:
        return self.limits.refusal(command) if self.limits is not None else self._shape_refusal(command)

    def _on_command(self, msg: Float64MultiArray) -> None:
        refused = self._refusal(msg.data)
        if refused:
            self._diag.report(ERROR, f"hold: command refused on {self.command_topic}: {refused}")
            if not self.lockstep:
                self._command = self.sim.hold_command()
            return
        if not self.lockstep:
            self._command = list(msg.data)
        elif answered(msg) in (None, self._t_ns()):
            self._answer = list(msg.data)
            self._poll()

    def _on_rate(self, msg: Float64MultiArray) -> None:
        refused = self._shape_refusal(msg.data)
        if refused:
            self._diag.report(ERROR, f"hold: command refused on {MOTOR_VELOCITY_COMMANDS}: {refused}")
            return
        if not self.lockstep:
            self._rate = list(msg.data)
        elif answered(msg) in (None, self._t_ns()):
            self._rate_answer = list(msg.data)
            self._poll()

    def _poll(self) -> None:
        """Step when the pace allows and, in lockstep, once the command of this tick has come."""
        now = time.monotonic()
        if now - self._tick_started < self._wall_period:
            return
        if self.lockstep and self._t_ns() > 0:
            if self._answer is None or (self._rates and self._rate_answer is None):
                self._wait(now)
                return
            self._command, self._rate = self._answer, self._rate_answer
        command, rate, clamped = self._limited(self._command, self._rate)
        try:
            if self._rates:
                self.sim.step(command, rate)
            else:
                self.sim.step(command)
        except SimulationDiverged as exc:
            self._diag.report(ERROR, f"stopped: {exc}")
            raise SystemExit(1) from exc
        self._stepped = command
        self._answer = self._rate_answer = None
        self._tick_started = now
        self._publish()
        if clamped:
            self._diag.report(WARN, f"command clamped to the joint limits and the servo's speed "
                              f"({self.limits.describe()})", {"commands_clamped": self.commands_clamped})
        else:
            self._diag.report(OK, "running", {"commands_clamped": self.commands_clamped})

    def _limited(self, command: Sequence[float], rate: Sequence[float] | None
                 ) -> tuple[Sequence[float], Sequence[float] | None, int]:
        """``command`` and its rate (None: none) within the limits from the last step's at the motors' angles,
        and how many of their values were clipped."""
        if self.limits is None:
            return command, rate, 0
        limited, speed, clamped = self.limits.command(
            np.asarray(command, dtype=float), None if rate is None else np.asarray(rate, dtype=float),
            np.asarray(self._stepped, dtype=float), self.sim.control_period, self.sim.joints().beta)
        self.commands_clamped += clamped
        return limited, speed, clamped

    def _wait(self, now: float) -> None:
        """Lockstep, no answer yet: republish the tick for late nodes; report a wait past the timeout."""
        if now - self._published_at >= REPUBLISH:
            self._publish()
        if now - self._tick_started >= self.timeout:
            missing = [self.command_topic] if self._answer is None else []
            missing += [MOTOR_VELOCITY_COMMANDS] if self._rates and self._rate_answer is None else []
            self._diag.report(WARN, f"holding at t = {self.sim.t:.3f} s: no command answering it on "
                              f"{' and '.join(missing)} within lockstep_timeout = {self.timeout:g} s")

    def _publish(self) -> None:
        """The measurements of the new time, then the time itself: a controller whose timer fires on
        this /clock has already received the joint states of the same instant."""
        self._published_at = time.monotonic()
        clock = Clock(clock=time_msg(self._t_ns()))
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
