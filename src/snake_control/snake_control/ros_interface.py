"""What every node of the suite shares: rclpy's QoS profiles of snake_core.interface's, parameter
declaration with typed ranges, message conversion, input freshness and /diagnostics reporting.

Topic names, the /joint_states layout and the pose helpers are snake_core.interface's; only message
conversion lives here; every number a node computes comes from snake_core.
"""

from __future__ import annotations

import array
import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import rclpy
from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Quaternion, Transform
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult
from rclpy.clock import Clock, ClockType
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, MultiArrayDimension

from snake_core import interface
from snake_core.interface import DIAGNOSTICS, JointReading, JointStateLayout, Pose3, heading, plane_quaternion, rotation
from snake_core.planar.head_state import HeadPose
from snake_core.registry import Param
from snake_core.validation import ConfigError, choice


def qos(profile: interface.Qos) -> QoSProfile:
    """rclpy's QoSProfile of a snake_core.interface profile (keep last, volatile unless transient local)."""
    return QoSProfile(depth=profile.depth,
                      reliability=ReliabilityPolicy.RELIABLE if profile.reliable else ReliabilityPolicy.BEST_EFFORT,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL if profile.transient_local
                      else DurabilityPolicy.VOLATILE)


SENSOR_QOS = qos(interface.SENSOR_QOS)
GROUND_TRUTH_QOS = qos(interface.GROUND_TRUTH_QOS)
COMMAND_QOS = qos(interface.COMMAND_QOS)
LATCHED_QOS = qos(interface.LATCHED_QOS)

OK = DiagnosticStatus.OK
WARN = DiagnosticStatus.WARN
ERROR = DiagnosticStatus.ERROR
STALE = DiagnosticStatus.STALE


# ----------------------------------------------------------------------------------- parameters


def declare(node: Node, name: str, default: Any, description: str, *, low: float | None = None,
            high: float | None = None, choices: Sequence[str] | None = None, read_only: bool = False) -> Any:
    """Declare a typed parameter with its range (or choices, checked at start-up) and return its value."""
    descriptor = ParameterDescriptor(description=description, read_only=read_only)
    if isinstance(default, float) and (low is not None or high is not None):
        # step 0: continuous, rclpy checks the bounds only and accepts them (Jazzy rclpy/node.py
        # _apply_floating_point_range, 7.1.x): an open bound is the owner's own check
        descriptor.floating_point_range = [FloatingPointRange(
            from_value=float(-1e308 if low is None else low), to_value=float(1e308 if high is None else high),
            step=0.0)]
    elif isinstance(default, int) and not isinstance(default, bool) and (low is not None or high is not None):
        descriptor.integer_range = [IntegerRange(from_value=int(-(2**62) if low is None else low),
                                                 to_value=int(2**62 if high is None else high), step=1)]
    if choices is not None:
        descriptor.additional_constraints = "one of: " + ", ".join(choices)
    value = node.declare_parameter(name, default, descriptor).value
    if choices is not None:  # rclpy does not enforce additional_constraints
        choice(value, name, tuple(choices), f"{node.get_name()} parameters")
    return value


def declare_numbers(node: Node, name: str, description: str, *, integers: bool = False,
                    read_only: bool = True) -> float | int | list[float] | list[int] | None:
    """Declare a parameter that is unset (None), a number or a list of numbers (of integers if ``integers``) and
    return its value; any other type (a string, a bool, a list of strings) is a ConfigError naming it."""
    value = node.declare_parameter(name, None, ParameterDescriptor(
        description=description, dynamic_typing=True, read_only=read_only)).value
    return numbers(value, name, f"{node.get_name()} parameters", integers=integers)


def declare_param(node: Node, prefix: str, param: Param, description: str | None = None, *,
                  read_only: bool = False, unset: bool = False) -> Any:
    """Declare ``<prefix>.<name>`` (``<name>`` without a prefix) from a snake_core :class:`~snake_core.registry.Param`
    (``description``: its text
    by default) and return its value: typed, with its default and range (or choices); or, if ``unset``, without a
    default or for a number or list (a diagonal gain, a per-joint value), unset until given (None), the default and
    range in the description (rclpy checks a range only on a double, Jazzy node.py ``_apply_descriptor``: the owner
    checks a list, and its own messages name the source). The value is the owner's to check against ``param``
    (:meth:`Param.check`)."""
    name, text = f"{prefix}.{param.name}" if prefix else param.name, description or param.text
    if param.size is not None:  # a list: one number is a list of one (-p free_joints:=3), unset an empty one
        kind = "integer" if param.kind is int else "number"
        value = declare_numbers(node, name, f"{text}; an {kind} array: a list of {param.size or 'any number of'} "
                                f"{kind}s {param.range}, or one {kind} for a list of one; unset: empty",
                                read_only=read_only, integers=param.kind is int)
        return [] if value is None else value if isinstance(value, list) else [value]
    if param.choices and not unset:
        return declare(node, name, param.default, text, choices=param.choices, read_only=read_only)
    if unset or param.default is None or param.vector:
        default = ("required" if param.required else "the owner's choice") if param.default is None else \
            f"{param.default}"
        if param.choices:
            return node.declare_parameter(name, None, ParameterDescriptor(
                description=f"{text}; one of {param.range}; unset: {default}", dynamic_typing=True,
                additional_constraints=f"one of: {param.range}", read_only=read_only)).value
        bounds = ", ".join(f"{k} {v:g}" for k, v in (("from", param.low), ("to", param.high)) if v is not None)
        kind = "a number or a list of numbers" if param.vector else "a number"
        return declare_numbers(node, name, f"{text}; {kind} ({bounds}); unset: {default}", read_only=read_only,
                               integers=param.kind is int)
    return declare(node, name, param.default, text, low=param.low, high=param.high, read_only=read_only)


def declare_params(node: Node, params: Sequence[Param], tunable: Sequence[str] = ()) -> dict[str, Any]:
    """Declare a node's own parameters from its spec, read-only (set at start-up by launch or -p) but for those named
    in ``tunable`` (rclpy checks their range on a change), and return name → value checked against the spec (the
    one-line error names the parameter and its range)."""
    source = f"{node.get_name()} parameters"
    return {p.name: p.check(declare_param(node, "", p, read_only=p.name not in tunable), p.name, source)
            for p in params}


def numbers(value: Any, name: str, source: str, *, integers: bool = False
            ) -> float | int | list[float] | list[int] | None:
    """``value`` of a parameter that takes a number or a list of numbers (None if unset); ConfigError otherwise."""
    kinds = (int,) if integers else (int, float)
    wanted = "an integer or a list of integers" if integers else "a number or a list of numbers"

    def ok(v: Any) -> bool:
        return isinstance(v, kinds) and not isinstance(v, bool)

    if value is None or ok(value):
        return value
    if isinstance(value, Sequence | array.array) and not isinstance(value, str) and all(ok(v) for v in value):
        return list(value)
    raise ConfigError(name, value, f"must be {wanted}", source)


#: Parameters that shape a node's graph and clock: fixed once it runs (a remote set of use_sim_time froze nodes).
STRUCTURAL_PARAMETERS = ("use_sim_time",)


def fix_parameters(node: Node, names: Sequence[str] = STRUCTURAL_PARAMETERS) -> None:
    """Refuse, with a reason, any change of ``names`` after start (set at start-up by launch or -p only)."""

    def check(params: Sequence[Any]) -> SetParametersResult:
        for p in params:
            if p.name in names:
                return SetParametersResult(successful=False, reason=f"{p.name} is fixed while {node.get_name()} "
                                           "runs: set it when starting the node")
        return accepted()

    node.add_on_set_parameters_callback(check)


def started(node: Node, runs: str, rate: float | None, **key: Any) -> None:
    """The node's one INFO line at start-up: what it runs, its rate [Hz] (None: as its input comes) and its key
    parameters (``key``, name → value)."""
    details = ", ".join(f"{name}={value}" for name, value in key.items())
    node.get_logger().info(f"{runs} {'as its input comes' if rate is None else f'at {rate:g} Hz'}"
                           + (f" ({details})" if details else ""))


def rejected(exc: Exception) -> SetParametersResult:
    """A parameter update refused with the one-line message of a ConfigError."""
    return SetParametersResult(successful=False, reason=str(exc))


def accepted() -> SetParametersResult:
    return SetParametersResult(successful=True)


def run(node_class: type[Node], args: Sequence[str] | None = None) -> int:
    """The ``main`` of every node: init, build (bad parameters end it with one clear line, exit 2), spin.

    rclpy raises a ParameterException for a wrong type or a value outside a descriptor's range,
    snake_core a ConfigError for what its validation refuses (a missing robot file included); an RCLError of
    rclpy.init (ROS 2 cannot start, e.g. security enforced on a middleware without it) is one line too, exit 2.
    """
    try:
        rclpy.init(args=args)
    except _rclpy.RCLError as exc:  # e.g. security enforced on a middleware without it (docs/robot.md, "Security")
        secure = os.environ.get("ROS_SECURITY_ENABLE", "").lower() == "true"
        print(f"{node_class.__name__}: error: ROS 2 did not start ({exc})" + (
            "; ROS_SECURITY_ENABLE=true needs a middleware built with DDS Security and the node's enclave in "
            "ROS_SECURITY_KEYSTORE (docs/robot.md, 'Security (SROS2)')" if secure else ""), file=sys.stderr)
        return 2
    try:
        node = node_class()
    except (ConfigError, ParameterException) as exc:
        print(f"{node_class.__name__}: error: {exc}", file=sys.stderr)
        rclpy.try_shutdown()
        return 2
    except KeyboardInterrupt:  # Ctrl-C (launch's SIGINT) while starting
        rclpy.try_shutdown()
        return 0
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RuntimeError:  # a message taken while SIGINT shuts the context down (rclpy 7.1.6)
        if rclpy.ok():
            raise
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


# ---------------------------------------------------------------------------------- conversion


def seconds(stamp: Any) -> float:
    """builtin_interfaces/Time → seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def ns_seconds(ns: int) -> float:
    """Integer nanoseconds → seconds, as every node converts its clock."""
    return ns * 1e-9


def now_seconds(node: Node) -> float:
    return ns_seconds(node.get_clock().now().nanoseconds)


class Elapsed:
    """ROS time since the first call [s]: a node's own time origin. Under sim time the clock reads 0
    until the first /clock message, so the origin is taken when the node first acts, not in __init__."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self._t0: float | None = None

    def __call__(self) -> float:
        now = now_seconds(self._node)
        if self._t0 is None:
            self._t0 = now
        return now - self._t0


def floats(values: Iterable[float]) -> list[float]:
    """Python floats for a message field (rclpy refuses numpy arrays and ints in float64[] fields)."""
    return [float(v) for v in values]


def stamp_ns(stamp: Any) -> int:
    """builtin_interfaces/Time → integer nanoseconds (exact: stamps are compared for equality in lockstep)."""
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def time_msg(ns: int) -> Time:
    """Integer nanoseconds → builtin_interfaces/Time."""
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


#: Label prefix of the dimension that carries, in a command array, the stamp of the measurement it answers.
ANSWERS = "answers_ns="


def float_array(values: Iterable[float], answers: int | None = None) -> Float64MultiArray:
    """std_msgs/Float64MultiArray of a forward command controller: dimension ``joint``, tail → head.

    std_msgs/Float64MultiArray has no header; a command that answers the joint states stamped
    ``answers`` [ns] carries that stamp as a second dimension of size 1 labelled ``answers_ns=<ns>`` (the
    array is then n × 1, the same n values: forward_command_controller reads ``data`` only), so that a
    lock-stepped simulator knows which tick the command is for."""
    data = floats(values)
    msg = Float64MultiArray(data=data)
    msg.layout.dim = [MultiArrayDimension(label="joint", size=len(data), stride=len(data))]
    if answers is not None:
        msg.layout.dim.append(MultiArrayDimension(label=f"{ANSWERS}{answers}", size=1, stride=1))
    return msg


def answered(msg: Float64MultiArray) -> int | None:
    """The stamp [ns] a command array answers (see :func:`float_array`); None for an unstamped one."""
    for dim in msg.layout.dim:
        if dim.label.startswith(ANSWERS) and dim.label[len(ANSWERS):].isdigit():
            return int(dim.label[len(ANSWERS):])
    return None


def all_finite(values: Iterable[float]) -> bool:
    return all(math.isfinite(v) for v in values)


def joint_state(node: Node, names: Sequence[str], position: Iterable[float] = (), velocity: Iterable[float] = (),
                effort: Iterable[float] = (), stamp: int | None = None) -> JointState:
    """A JointState stamped ``stamp`` [ns] (the measurement it answers), else the node's time."""
    msg = JointState()
    msg.header.stamp = node.get_clock().now().to_msg() if stamp is None else time_msg(stamp)
    msg.name = list(names)
    msg.position = floats(position)
    msg.velocity = floats(velocity)
    msg.effort = floats(effort)
    return msg


def joint_state_fields(msg: JointState) -> dict[str, tuple[float, float, float]]:
    """name → (position, velocity, effort) of a reference or command; NaN where the message leaves a field out."""
    out = {}
    for i, name in enumerate(msg.name):
        out[name] = tuple(float(seq[i]) if i < len(seq) else math.nan
                          for seq in (msg.position, msg.velocity, msg.effort))
    return out


def read_joint_states(msg: JointState, layout: JointStateLayout, stiffness: Sequence[float] | None
                      ) -> JointReading:
    """α, α̇, τ, β of every joint from a /joint_states message (JointStateLayout.read: docs/design.md's
    names, the URDF's that joint_state_broadcaster publishes, or rigid joints)."""
    return layout.read(msg.name, msg.position, msg.velocity, msg.effort, stiffness)


def yaw(q: Quaternion) -> float:
    """Heading ψ of a geometry_msgs/Quaternion (its x axis about z; NaN for a zero or non-finite one)."""
    r = rotation((q.x, q.y, q.z, q.w))
    return heading(r) if r is not None else math.nan


def odometry_planar(msg: Odometry) -> tuple[float, float, float, float, float, float]:
    """(X, Y, ψ, Ẋ, Ẏ, ψ̇) in the world plane from nav_msgs/Odometry, whose twist is expressed in
    the child frame (REP 105): the linear velocity is turned by ψ into the world frame."""
    p, twist = msg.pose.pose, msg.twist.twist
    psi = yaw(p.orientation)
    c, s = math.cos(psi), math.sin(psi)
    vx, vy = twist.linear.x, twist.linear.y
    return p.position.x, p.position.y, psi, c * vx - s * vy, s * vx + c * vy, twist.angular.z


def quaternion_about_z(angle: float) -> Quaternion:
    """geometry_msgs/Quaternion of a rotation by ``angle`` about z."""
    x, y, z, w = floats(plane_quaternion("xy", angle))
    return Quaternion(x=x, y=y, z=z, w=w)


def pose3(transform: Transform) -> Pose3:
    """geometry_msgs/Transform → snake_core's Pose3 (translation, quaternion x, y, z, w)."""
    t, q = transform.translation, transform.rotation
    return Pose3((t.x, t.y, t.z), (q.x, q.y, q.z, q.w))


def odometry(stamp: Any, frame_id: str, child_frame_id: str, position: Sequence[float],
             orientation: Sequence[float], linear: Sequence[float], angular: Sequence[float]) -> Odometry:
    """nav_msgs/Odometry of a pose (position, quaternion x, y, z, w) and a twist in the child frame (REP 105)."""
    msg = Odometry(child_frame_id=child_frame_id)
    msg.header.stamp, msg.header.frame_id = stamp, frame_id
    pose, twist = msg.pose.pose, msg.twist.twist
    pose.position.x, pose.position.y, pose.position.z = floats(position)
    pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w = floats(orientation)
    twist.linear.x, twist.linear.y, twist.linear.z = floats(linear)
    twist.angular.x, twist.angular.y, twist.angular.z = floats(angular)
    return msg


def planar_odometry(stamp: Any, frame_id: str, child_frame_id: str, pose: HeadPose,
                    body_velocity: tuple[float, float], heading_rate: float) -> Odometry:
    """nav_msgs/Odometry of a planar pose (orientation ψ about z) with its twist in the child frame
    (REP 105: forward, leftward, ψ̇); what :func:`odometry_planar` reads back."""
    q = quaternion_about_z(pose.heading)
    return odometry(stamp, frame_id, child_frame_id, (pose.x, pose.y, pose.z), (q.x, q.y, q.z, q.w),
                    (*body_velocity, 0.0), (0.0, 0.0, heading_rate))


# ------------------------------------------------------------------------- freshness, diagnostics


#: What a ClockWatchdog reports when ROS time has not advanced for its timeout of wall time.
CLOCK_STOPPED = "clock stopped"


class ClockWatchdog:
    """A node's ROS time watched against the wall (a timer on ``wall``, by default the steady clock, which runs when
    /clock does not; a test drives a clock of its own here).

    ``reason`` is "clock stopped" once ROS time has not advanced for ``timeout`` seconds of wall time (a simulator
    that died, or no /clock yet) and "clock jumped back" when it went back (a restarted simulator), None while it
    runs; ``on_change(reason)`` is called on each change and ``while_stalled()`` every ``period`` of wall time while
    it is not None (the node's own timers on ROS time have stopped). So a stop is seen within ``timeout + period``
    of wall time. With ``lockstep`` a /clock that keeps coming without advancing is a lock-stepped simulator
    waiting for an answer (it republishes its tick), not a stop; and a stop, judged on the wall, is reported only:
    :meth:`check` returns what the node holds for, which in lockstep is a jump back alone (ROS time tells it), so
    that a starved process never changes the answer to a tick. :meth:`monotonic` follows ROS time while it runs
    and the wall while it does not, and never goes back: the time base for a node's own watchdogs.
    """

    def __init__(self, node: Node, on_change: Callable[[str | None], None],
                 while_stalled: Callable[[], None] | None = None, timeout: float = 0.5, period: float = 0.1,
                 lockstep: bool = False, wall: Clock | None = None) -> None:
        self._node = node
        self._on_change = on_change
        self._while_stalled = while_stalled
        self.timeout = timeout
        self.period = period
        self.lockstep = lockstep
        self._steady = wall if wall is not None else Clock(clock_type=ClockType.STEADY_TIME)
        self._last_ros = now_seconds(node)
        self._last_wall = self._wall()
        self._advanced_wall = self._last_wall
        self._time = self._last_ros
        self._jumped = False
        self.reason: str | None = None
        node.create_timer(period, self.check, clock=self._steady)
        if lockstep:
            node.create_subscription(ClockMsg, interface.CLOCK, self._heard, 10)

    def _heard(self, _msg: ClockMsg) -> None:
        self._advanced_wall = max(self._advanced_wall, self._wall())

    def _wall(self) -> float:
        return self._steady.now().nanoseconds * 1e-9

    def monotonic(self) -> float:
        self._update()
        return self._time

    def _update(self) -> None:
        ros, wall = now_seconds(self._node), self._wall()
        advance = ros - self._last_ros
        if advance > 0:
            self._time += advance
            self._advanced_wall = wall
        else:
            self._jumped |= advance < 0
            if self.reason is not None:
                self._time += wall - self._last_wall
        self._last_ros, self._last_wall = ros, wall

    def check(self) -> str | None:
        """Update ``reason`` from the clocks now (the wall timer does so every ``period``) and return what the node
        holds for (:meth:`holds`)."""
        self._update()
        reason = "clock jumped back" if self._jumped else \
            CLOCK_STOPPED if self._last_wall - self._advanced_wall >= self.timeout else None
        self._jumped = False
        if reason != self.reason:
            self.reason = reason
            self._on_change(reason)
        if self.reason is not None and self._while_stalled is not None:
            self._while_stalled()
        return self.holds()

    def fault(self) -> tuple[bytes, str]:
        """The severity and words of the report of ``reason``: ERROR, or WARN for a stop where nothing publishes
        /clock (the simulator ended, as when the graph is stopped, or has not started)."""
        hold = "hold: " if self.holds() else ""
        if self.reason == CLOCK_STOPPED and not self._node.count_publishers(interface.CLOCK):
            return WARN, f"{hold}ROS clock stopped: no publisher of {interface.CLOCK}"
        return ERROR, f"{hold}ROS {self.reason}"

    def holds(self) -> str | None:
        """``reason`` where the node must hold for it: any, except a stop in lockstep (reported only)."""
        return None if self.lockstep and self.reason == CLOCK_STOPPED else self.reason


#: A controller's sim-time watchdog: ROS time that has not advanced for CLOCK_TIMEOUT s of wall time, checked every
#: CLOCK_CHECK s, is a stopped clock (ERROR on /diagnostics within their sum, 1 s).
CLOCK_TIMEOUT = 0.9
CLOCK_CHECK = 0.1


def watch_clock(node: Node, diagnostics: Diagnostics, lockstep: bool = False,
                hold: Callable[[], object] | None = None, wall: Clock | None = None) -> ClockWatchdog:
    """The watchdog of a controller on sim time (``wall``: the clock it watches /clock against, the steady clock by
    default): while /clock is stopped or jumped back, ERROR "hold: ROS clock …" on /diagnostics (repeated at its
    period), and ``hold()`` once as the fault begins (a controller's hold command); the node holds while
    :meth:`ClockWatchdog.check` gives a reason, and its own report of the next tick on a running clock puts the
    diagnostics back. In ``lockstep`` a stop is ERROR "ROS clock stopped" and nothing more: no tick comes, so
    nothing is computed, and the next tick is answered as if the wait had been short."""

    def changed(reason: str | None) -> None:
        report()
        if watchdog.holds() is not None and hold is not None:
            hold()

    def report() -> None:
        if watchdog.reason is not None:
            diagnostics.report(*watchdog.fault())

    watchdog = ClockWatchdog(node, changed, report, CLOCK_TIMEOUT, CLOCK_CHECK, lockstep, wall)
    return watchdog


class InputFreshness:
    """How old each input is on the node's clock, in integer nanoseconds (no rounding decides a tick), and whether
    it is too old. An input is as old as its header stamp where that lies on the node's clock, within ``timeout``
    of the time it is received; otherwise (unstamped, or another clock) as old as its receipt. So an input
    sampled at t is as fresh when it arrives just before the node's clock reaches t (/clock and the input come on
    different topics, in either order) as when it arrives just after: in a lock-stepped graph, where every input
    is stamped with its tick, what is stale does not depend on the order of arrival."""

    def __init__(self, node: Node, timeout: float, topics: Mapping[str, str] | None = None) -> None:
        self._node = node
        self.timeout = timeout
        self.timeout_ns = round(timeout * 1e9)
        self._topics = dict(topics or {})  # input name → its topic
        self._last: dict[str, int] = {}

    def mark(self, name: str, stamp: Any = None) -> None:
        now = self._node.get_clock().now().nanoseconds
        t = stamp_ns(stamp) if stamp is not None else 0
        self._last[name] = t if t > 0 and abs(t - now) <= self.timeout_ns else now

    def stale(self, names: Iterable[str]) -> list[str]:
        """The inputs among ``names`` never received or older than the timeout."""
        now = self._node.get_clock().now().nanoseconds
        return [n for n in names if n not in self._last or now - self._last[n] > self.timeout_ns]

    def fault(self, stale: Sequence[str]) -> tuple[bytes, str]:
        """The severity and words of a hold for the ``stale`` inputs: WARN "no publisher of …" where none of their
        topics has a publisher (its node ended, as when the graph is stopped, or has not started yet: a state of the
        graph, not a fault), else ERROR "stale input: …" (an input that stopped coming from a node still there)."""
        topics = [self._topics.get(n) for n in stale]
        if all(topics) and not any(self._node.count_publishers(t) for t in topics):
            return WARN, "no publisher of " + ", ".join(dict.fromkeys(topics))
        return ERROR, "stale input: " + ", ".join(stale)


class Diagnostics:
    """Publishes one DiagnosticStatus per node on /diagnostics when its level or message changes,
    and at least every ``period`` seconds (the diagnostic_aggregator's usual 1 Hz) of ``wall`` (the steady clock by
    default: ROS time that stops or goes back, as a restarted simulator's, silenced the reports)."""

    def __init__(self, node: Node, hardware_id: str, period: float = 1.0, wall: Clock | None = None) -> None:
        self._node = node
        self._pub = node.create_publisher(DiagnosticArray, DIAGNOSTICS, COMMAND_QOS)
        self._name = node.get_fully_qualified_name()
        self._hardware_id = hardware_id
        self._period = period
        self._steady = wall if wall is not None else Clock(clock_type=ClockType.STEADY_TIME)
        self._last: tuple[bytes, str] | None = None
        self._last_time = -math.inf
        self.level = OK
        self.message = ""

    def report(self, level: bytes, message: str, values: Mapping[str, Any] | None = None) -> None:
        now = ns_seconds(self._steady.now().nanoseconds)
        self.level, self.message = level, message
        if (level, message) == self._last and now - self._last_time < self._period:
            return
        if level != OK and (level, message) != self._last:
            # one call site per severity: rclpy's logger refuses a severity change at a call site
            if level == ERROR:
                self._node.get_logger().error(message)
            else:
                self._node.get_logger().warning(message)
        self._last, self._last_time = (level, message), now
        status = DiagnosticStatus(level=level, name=self._name, message=message, hardware_id=self._hardware_id,
                                  values=[KeyValue(key=str(k), value=str(v)) for k, v in (values or {}).items()])
        array = DiagnosticArray(status=[status])
        array.header.stamp = self._node.get_clock().now().to_msg()
        self._pub.publish(array)


# ------------------------------------------------------------------------------------- lockstep

#: Wall time [s] between two checks of a pending lockstep tick for inputs whose publisher has gone.
LOCKSTEP_POLL = 0.02


class Lockstep:
    """A controller's ticks (``tick``, its timer's callback): without lockstep (``enabled`` false) each tick
    computes at once with the latest inputs. With it, the controller's side of the simulator's lockstep
    (``lockstep`` parameter): the tick at ROS time t
    is answered once each input in ``inputs`` (name → topic; the first is the simulator's measurement) has
    arrived stamped t or later, or has no publisher any more; ``answer(t_ns)`` computes and publishes the
    command (stamped t) and returns whether it sent one (a controller with nothing to send yet, e.g. no
    reference, keeps the tick pending and answers it when the input comes). Under sim time the tick's t
    does not move until the simulator has the answer, so what a controller computes does not depend on the
    order in which the states, the reference and /clock reach it.

    A simulator that still waits republishes the tick's measurement; if it comes again for a tick already
    answered, ``resend()`` publishes the answer again (it was sent before a subscriber had matched, and
    DDS does not keep volatile messages for late readers). A steady-clock timer re-checks a pending tick,
    for an input whose publisher has died (no callback announces that); ``wall``: its clock, the steady clock by
    default (a test harness drives its own)."""

    def __init__(self, node: Node, inputs: Mapping[str, str], answer: Callable[[int], bool],
                 resend: Callable[[], None], enabled: bool, wall: Clock | None = None) -> None:
        self._node = node
        self.enabled = enabled
        self._inputs = dict(inputs)
        self._measurement = next(iter(self._inputs))
        self._answer = answer
        self._resend = resend
        self._stamps: dict[str, int] = {}
        self.pending: int | None = None
        self.answered: int | None = None
        if enabled:
            node.create_timer(LOCKSTEP_POLL, self.poll,
                              clock=wall if wall is not None else Clock(clock_type=ClockType.STEADY_TIME))

    def tick(self) -> None:
        t_ns = self._node.get_clock().now().nanoseconds
        if not self.enabled:
            self._answer(t_ns)
            return
        self.pending = t_ns
        self.poll()

    def arrived(self, name: str, stamp: Any) -> None:
        if not self.enabled:
            return
        t_ns = stamp_ns(stamp)
        if name == self._measurement and self.pending is None and t_ns == self.answered:
            self._resend()
        self._stamps[name] = t_ns
        self.poll()

    def waiting_for(self) -> list[str]:
        """The inputs the pending tick still waits for."""
        return [name for name, topic in self._inputs.items()
                if self._stamps.get(name, -1) < self.pending and self._node.count_publishers(topic) > 0]

    def poll(self) -> None:
        if self.pending is not None and not self.waiting_for() and self._answer(self.pending):
            self.pending, self.answered = None, self.pending
