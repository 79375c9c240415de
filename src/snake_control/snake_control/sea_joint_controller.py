"""sea_joint_controller: the snake_core controller of ``controller.mode`` (position | stiffness |
tsc | torque) for one SEA joint (``joint_index`` j, 1-based tail → head) or for all of them
(``joint_index`` 0, the composed layout of snake_control.graph).

Inputs: /joint_states (α_j, α̇_j, τ_j from ``joint_j`` and β_j from ``motor_j`` as docs/design.md names
them, or, where only the URDF joints are published (joint_state_broadcaster in Gazebo and on the
robot), from ``motor_j`` (β) and ``spring_j`` (α − β): snake_core.interface.JointStateLayout.read;
α_{j−1} likewise for TSC), /gait/reference (α_j^d, α̇_j^d at its header stamp), /sea/torque_reference
(τ_j^d, required in torque mode only), and on the robot /can_bridge/joint_states (NaN for a lost or faulted
module: ros2_control's topic hardware freezes that joint in /joint_states; once heard, it is a required input).
Output: one joint, a JointState with the single name ``motor_j`` (position
β_d, velocity β̇_d) on /sea/motor_commands, which ``motor_command_mux`` gathers into the
/motor_position_controller/commands array of the forward command controller; all joints, that
std_msgs/Float64MultiArray itself (β_d tail → head), one message per control period, and β̇_d likewise on
/motor_velocity_controller/commands (Gazebo's motor PD takes it as its velocity reference).

Every ``1/rate`` s the controllers step with the latest inputs; the command is stamped with the joint states
it answers (JointState header; the array's ``answers_ns`` dimension, ros_interface.float_array). With
``lockstep`` (a lock-stepped simulator's graph, ros_interface.Lockstep) the tick at t waits until the joint
states, the gait reference (and in torque mode the torque reference) stamped t have come, from every one of
these topics that still has a publisher, so the command is the same whatever the order of arrival. The gait
reference is tracked at the tick's time t: a reference stamped t_r < t (one that reached the node after its
tick of t_r, as happens when the machine is busy) is held to first order, α_d + α̇_d (t − t_r)
(JointReference.at); an unstamped reference, or one stamped in the future or more than ``stale_timeout``
before t (another clock), is taken as is. If a required input is older than ``stale_timeout`` (by its stamp,
or by its receipt where the stamp is on another clock: ros_interface.InputFreshness) or carries NaN/inf, the node
holds its last command (republishes its β_d with β̇_d = 0; nothing before the first valid step) and reports ERROR
on /diagnostics; an active joint/deflection limit in a controller is reported as WARN. A sim clock that stops or
jumps back (ros_interface.watch_clock) holds likewise, with ERROR until it runs again; that hold comes between
ticks and is stamped as the last command was (it answers no new joint states).

``controller.*`` parameters are the typed entries of the mode's declaration (snake_core.controllers
``CONTROLLER_MODES[mode].params``: type, default, range, unit and source in each descriptor; docs/simulator.md has
the tables), all read-only: the controllers are built once, at start-up. snake_core checks them as it checks a
scenario's (e.g. K_d < K, 002 §6.3); a parameter of another mode, if given, is refused as the scenario's would be.
"""

from __future__ import annotations

from collections.abc import Sequence

from rclpy.clock import Clock
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from snake_core.controllers import (
    CONTROLLER_MODES,
    MODE_PARAM,
    JointMeasurement,
    JointReference,
    make_joint_controllers,
)
from snake_core.interface import (
    CAN_BRIDGE_JOINT_STATES,
    GAIT_REFERENCE,
    JOINT_STATES,
    MOTOR_COMMANDS,
    MOTOR_POSITION_COMMANDS,
    MOTOR_VELOCITY_COMMANDS,
    TORQUE_REFERENCE,
    JointStateLayout,
    joint_name,
    motor_name,
    motor_names,
)
from snake_core.registry import Param
from snake_core.robot import load_robot
from snake_core.validation import integer

from .ros_interface import (
    COMMAND_QOS,
    ERROR,
    LATCHED_QOS,
    OK,
    SENSOR_QOS,
    WARN,
    Diagnostics,
    InputFreshness,
    Lockstep,
    all_finite,
    declare_param,
    declare_params,
    fix_parameters,
    float_array,
    joint_state,
    joint_state_fields,
    ns_seconds,
    read_joint_states,
    run,
    stamp_ns,
    started,
    watch_clock,
)

#: The node's own parameters (all read-only: they shape the graph and its timing); the controller's are the mode's.
PARAMS = (
    Param("robot", "koopaee6", "", "robot file config/robots/<robot>.yaml", kind=str),
    Param("joint_index", 0, "", "SEA joint of this node, 1 = tail; 0: all joints (publishes the forward command "
          "controller's array); at most the robot's joints", 0, 64, kind=int),
    Param("rate", 100.0, "Hz", "control rate", 1.0, 1000.0),
    Param("stale_timeout", 0.1, "s", "inputs older than this put the joints in hold", 0.001, 10.0),
    Param("lockstep", False, "", "answer each tick with the inputs stamped at its time (a lock-stepped simulator)",
          kind=bool),
)

#: Each ``controller.*`` parameter of a mode with the mode it belongs to (the first that declares it).
MODE_PARAMETERS = {p.name: (p, mode.name) for mode in reversed(CONTROLLER_MODES.values()) for p in mode.params}


class SEAJointControllerNode(Node):
    def __init__(self, wall_clock: Clock | None = None, **kwargs) -> None:
        """``wall_clock``: what the clock watchdog measures a stop of /clock on (the steady clock; a test's own)."""
        super().__init__("sea_joint_controller", **kwargs)
        fix_parameters(self)
        own = declare_params(self, PARAMS)
        robot = load_robot(own["robot"])
        source = f"{self.get_name()} parameters"
        index = integer(own["joint_index"], "joint_index", source, low=0, high=robot.n_joints)
        rate, timeout, self.lockstep = own["rate"], own["stale_timeout"], own["lockstep"]
        self.dt = 1.0 / rate
        self.mode = declare_param(self, "controller", MODE_PARAM, read_only=True)
        own = {p.name for p in CONTROLLER_MODES[self.mode].params}
        params = {"mode": self.mode}
        for p in CONTROLLER_MODES[self.mode].params:
            params[p.name] = declare_param(self, "controller", p, read_only=True)
        for name, (p, owner) in MODE_PARAMETERS.items():  # another mode's, unset: given, it is refused below
            if name not in own:
                params[name] = declare_param(self, "controller", p, f"{p.text}; controller.mode {owner} only",
                                             read_only=True, unset=True)
        params = {k: v for k, v in params.items() if v is not None}
        # the mode's controllers, validated by snake_core; this node steps joints self.joints (1-based)
        controllers = make_joint_controllers(self.mode, robot, params, source)
        self.joints = [index] if index else list(range(1, robot.n_joints + 1))
        self.controllers = [controllers[j - 1] for j in self.joints]
        self._measured = sorted({*self.joints, *(j - 1 for j in self.joints if j > 1)})  # TSC: α_{j−1}, β_{j−1}
        self._stiffness = robot.sea.stiffness if robot.sea is not None else None
        self._layout = JointStateLayout(robot.n_joints, sea=robot.sea is not None)
        self._states: dict[int, tuple[float, float, float, float]] = {}
        self._references: dict[int, tuple[float, float]] = {}
        self._reference_stamp = 0  # [ns] header stamp of the latest /gait/reference
        self._state_stamp: int | None = None  # [ns] header stamp of the joint states in self._states
        self._tau_d: dict[int, float] = dict.fromkeys(self.joints, 0.0)
        self._required = ["joint_states", "gait_reference"] + (["torque_reference"] if self.mode == "torque" else [])
        self._fresh = InputFreshness(self, timeout, {"joint_states": JOINT_STATES, "gait_reference": GAIT_REFERENCE,
                                                     "torque_reference": TORQUE_REFERENCE,
                                                     "hardware_states": CAN_BRIDGE_JOINT_STATES})
        self._sent: tuple[list[float], list[float], int | None] | None = None  # the last command: β_d, β̇_d, stamp
        self.create_subscription(JointState, JOINT_STATES, self._on_joint_states, SENSOR_QOS)
        # lockstep: transient local, so that a reference sent before this node matched its publisher still comes
        self.create_subscription(JointState, GAIT_REFERENCE, self._on_reference,
                                 LATCHED_QOS if self.lockstep else COMMAND_QOS)
        self.create_subscription(JointState, TORQUE_REFERENCE, self._on_torque_reference, COMMAND_QOS)
        # on the robot: the CAN bridge's own states, NaN for a lost or faulted module (ros2_control's topic
        # hardware keeps a lost joint's last value in /joint_states, so the loss shows only here)
        self._lost: list[str] | None = None  # None: no CAN bridge heard (simulation)
        self.create_subscription(JointState, CAN_BRIDGE_JOINT_STATES, self._on_hardware_states, SENSOR_QOS)
        if index:
            self._motors = [motor_name(index)]
            self._pub = self.create_publisher(JointState, MOTOR_COMMANDS, COMMAND_QOS)
        else:
            self._motors = motor_names(robot.n_joints)
            self._pub = self.create_publisher(Float64MultiArray, MOTOR_POSITION_COMMANDS, COMMAND_QOS)
            # β̇_d: the velocity reference of Gazebo's motor PD (002 (4.39) feed-forward, controllers/<robot>_gz.yaml)
            self._rate_pub = self.create_publisher(Float64MultiArray, MOTOR_VELOCITY_COMMANDS, COMMAND_QOS)
        self._diag = Diagnostics(self, joint_name(index) if index else "sea_joints")
        # a stopped or restarted sim clock holds
        self.clock_watchdog = watch_clock(self, self._diag, self.lockstep, self._hold, wall_clock)
        inputs = {"joint_states": JOINT_STATES, "gait_reference": GAIT_REFERENCE, "torque_reference": TORQUE_REFERENCE}
        self._ticks = Lockstep(self, {k: inputs[k] for k in self._required}, self._step,
                               lambda: self._publish(*self._sent), self.lockstep, wall_clock)
        self.create_timer(self.dt, self._ticks.tick)
        started(self, f"{self.mode} control of {', '.join(map(joint_name, self.joints))} ({robot.name}) on "
                f"{self._pub.topic_name}", rate, lockstep=self.lockstep, stale_timeout=timeout,
                **{f"controller.{k}": v for k, v in params.items() if k != "mode"})

    def _on_joint_states(self, msg: JointState) -> None:
        reading = read_joint_states(msg, self._layout, self._stiffness)
        if all(reading.has(j, motor=True) for j in self._measured):
            self._states = {j: reading.of(j) for j in self._measured}
            self._state_stamp = stamp_ns(msg.header.stamp)
            self._arrived("joint_states", msg)

    def _on_hardware_states(self, msg: JointState) -> None:
        reading = read_joint_states(msg, self._layout, self._stiffness)
        self._lost = [joint_name(j) for j in self._measured if not all_finite(reading.of(j))]
        self._fresh.mark("hardware_states", msg.header.stamp)

    def _on_reference(self, msg: JointState) -> None:
        fields = joint_state_fields(msg)
        if all(joint_name(j) in fields for j in self.joints):
            self._references = {j: fields[joint_name(j)][:2] for j in self.joints}
            self._reference_stamp = stamp_ns(msg.header.stamp)
            self._arrived("gait_reference", msg)

    def _on_torque_reference(self, msg: JointState) -> None:
        fields = joint_state_fields(msg)
        if all(joint_name(j) in fields for j in self.joints):
            self._tau_d = {j: fields[joint_name(j)][2] for j in self.joints}
            self._arrived("torque_reference", msg)

    def _arrived(self, name: str, msg: JointState) -> None:
        self._fresh.mark(name, msg.header.stamp)
        self._ticks.arrived(name, msg.header.stamp)

    def _reference_lag(self, t_ns: int) -> float:
        """How long before ``t_ns`` [s] the latest gait reference was sampled; 0 where its stamp says nothing
        about this clock (unstamped, in the future, or older than the stale timeout)."""
        lag = t_ns - self._reference_stamp
        return ns_seconds(lag) if self._reference_stamp > 0 and 0 < lag <= self._fresh.timeout_ns else 0.0

    def _inputs(self, t_ns: int) -> list[tuple[JointMeasurement, JointReference]] | tuple[bytes, str]:
        """Each joint's controller inputs at ``t``, or the severity and words of why there are none (clock, stale or
        non-finite)."""
        if self.clock_watchdog.check() is not None:
            level, words = self.clock_watchdog.fault()
            return level, words.removeprefix("hold: ")
        stale = self._fresh.stale(self._required + (["hardware_states"] if self._lost is not None else []))
        if stale:
            return self._fresh.fault(stale)
        if self._lost:
            return ERROR, "module lost or faulted (CAN bridge): " + ", ".join(self._lost)
        lag = self._reference_lag(t_ns)
        inputs = []
        for j in self.joints:
            alpha, alpha_dot, tau, beta = self._states[j]
            alpha_prev, beta_prev = (self._states[j - 1][0], self._states[j - 1][3]) if j > 1 else (None, None)
            ref, tau_d = self._references[j], self._tau_d[j]
            if not all_finite([alpha, alpha_dot, tau, beta, *ref, tau_d] + ([alpha_prev, beta_prev] if j > 1 else [])):
                return ERROR, f"non-finite input (NaN or inf) for {joint_name(j)} in joint states or references"
            inputs.append((JointMeasurement(alpha, alpha_dot, beta, tau, alpha_prev, beta_prev),
                           JointReference(ref[0], ref[1], tau_d).at(lag)))
        return inputs

    def _publish(self, beta_d: list[float], beta_d_dot: list[float], stamp: int | None) -> None:
        """The command, stamped with the joint states it answers."""
        self._sent = (beta_d, beta_d_dot, stamp)
        if self._pub.msg_type is JointState:
            self._pub.publish(joint_state(self, self._motors, beta_d, beta_d_dot, stamp=stamp))
        else:
            self._pub.publish(float_array(beta_d, answers=stamp))
            self._rate_pub.publish(float_array(beta_d_dot, answers=stamp))

    def _hold(self, answers: int | None = None) -> bool:
        """Republish the last command as a hold (β_d kept, β̇_d = 0), stamped with the joint states it answers
        (``answers``, a tick's) or, from the clock watchdog, between ticks, as the last command was: a hold that
        answers no tick must not stand for the next one, which a lock-stepped simulator would step on. False
        before the first command."""
        if self._sent is None:
            return False
        beta_d, beta_d_dot, stamp = self._sent
        self._publish(beta_d, [0.0 for _ in beta_d_dot], stamp if answers is None else answers)
        return True

    def _step(self, t_ns: int) -> bool:
        """Step the controllers at ROS time ``t_ns`` and publish; False if there was nothing to send."""
        inputs = self._inputs(t_ns)
        if isinstance(inputs, tuple):
            level, why = inputs
            self._diag.report(level, f"hold: {why}", {"mode": self.mode})
            return self._hold(self._state_stamp)
        t = ns_seconds(t_ns)
        commands = [c.step(t, self.dt, *i) for c, i in zip(self.controllers, inputs, strict=True)]
        self._publish([c.beta_d for c in commands], [c.beta_d_dot for c in commands], self._state_stamp)
        limited = [joint_name(j) for j, c in zip(self.joints, self.controllers, strict=True)
                   if getattr(c, "limited", False)]
        self._diag.report(WARN if limited else OK, "limit active" if limited else "running",
                          {"mode": self.mode, "limited": ", ".join(limited)})
        return True


def main(args: Sequence[str] | None = None) -> int:
    return run(SEAJointControllerNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
