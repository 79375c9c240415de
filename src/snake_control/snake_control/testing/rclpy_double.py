"""A test double of rclpy (ROS 2 Jazzy API) for machines without ROS.

It implements the part of rclpy that our nodes use, with the documented semantics that matter for
correctness: ``Node`` with publishers, subscriptions, timers, a clock, a logger and parameters
(typed, with ``ParameterDescriptor`` ranges and ``read_only``, ``parameter_overrides`` as from a
``--params-file``, ``add_on_set_parameters_callback``, ``use_sim_time`` declared automatically);
QoS profiles and policies; ``Time``/``Duration``; ``init``/``spin``/``shutdown``. Nothing is sent
over a network: a :class:`Graph` (one per ``rclpy.init``) delivers messages synchronously and a
:class:`~snake_control.testing.harness.FakeHarness` drives the clock and fires the timers.

Use it through the ``ros`` fixture (``snake_control.testing.fixtures``), which installs it with
the generated message packages into ``sys.modules`` only where real rclpy is not importable.
"""

from __future__ import annotations

import enum
import math
import re
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .messages import message_classes

_rcl = message_classes()
ParameterDescriptor = _rcl["rcl_interfaces/msg/ParameterDescriptor"]
SetParametersResult = _rcl["rcl_interfaces/msg/SetParametersResult"]
FloatingPointRange = _rcl["rcl_interfaces/msg/FloatingPointRange"]
IntegerRange = _rcl["rcl_interfaces/msg/IntegerRange"]
TimeMsg = _rcl["builtin_interfaces/msg/Time"]
DurationMsg = _rcl["builtin_interfaces/msg/Duration"]

# ----------------------------------------------------------------------------------- exceptions


class ParameterException(Exception):
    pass


class ParameterNotDeclaredException(ParameterException):
    pass


class ParameterAlreadyDeclaredException(ParameterException):
    pass


class InvalidParameterException(Exception):
    pass


class InvalidParameterTypeException(InvalidParameterException):
    pass


class InvalidParameterValueException(InvalidParameterException):
    pass


class ExternalShutdownException(Exception):
    pass


# ------------------------------------------------------------------------------------------ QoS


class ReliabilityPolicy(enum.IntEnum):
    SYSTEM_DEFAULT = 0
    RELIABLE = 1
    BEST_EFFORT = 2


class DurabilityPolicy(enum.IntEnum):
    SYSTEM_DEFAULT = 0
    TRANSIENT_LOCAL = 1
    VOLATILE = 2


class HistoryPolicy(enum.IntEnum):
    SYSTEM_DEFAULT = 0
    KEEP_LAST = 1
    KEEP_ALL = 2


@dataclass
class QoSProfile:
    """rclpy.qos.QoSProfile: ``history`` or ``depth`` is required, as in rclpy."""

    history: HistoryPolicy = HistoryPolicy.KEEP_LAST
    depth: int | None = None
    reliability: ReliabilityPolicy = ReliabilityPolicy.RELIABLE
    durability: DurabilityPolicy = DurabilityPolicy.VOLATILE

    def __post_init__(self) -> None:
        if self.history == HistoryPolicy.KEEP_LAST and self.depth is None:
            raise TypeError("QoSProfile: history or depth must be given")


qos_profile_sensor_data = QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT)
qos_profile_system_default = QoSProfile(depth=10)


def _qos(profile: QoSProfile | int) -> QoSProfile:
    if isinstance(profile, int) and not isinstance(profile, bool):
        return QoSProfile(depth=profile)
    if not isinstance(profile, QoSProfile):
        raise TypeError(f"qos_profile must be a QoSProfile or a history depth, not {profile!r}")
    return profile


def qos_compatible(pub: QoSProfile, sub: QoSProfile) -> bool:
    """DDS request/offer rule: a best-effort publisher cannot serve a reliable subscription, and a
    volatile one cannot serve a transient-local subscription."""
    if pub.reliability == ReliabilityPolicy.BEST_EFFORT and sub.reliability == ReliabilityPolicy.RELIABLE:
        return False
    return not (pub.durability == DurabilityPolicy.VOLATILE and sub.durability == DurabilityPolicy.TRANSIENT_LOCAL)


# --------------------------------------------------------------------------------- time, clock


class ClockType(enum.IntEnum):
    UNINITIALIZED = 0
    ROS_TIME = 1
    SYSTEM_TIME = 2
    STEADY_TIME = 3


class Duration:
    def __init__(self, *, seconds: float = 0, nanoseconds: int = 0) -> None:
        self.nanoseconds = int(seconds * 1e9) + int(nanoseconds)

    def to_msg(self):
        return DurationMsg(sec=self.nanoseconds // 1_000_000_000, nanosec=self.nanoseconds % 1_000_000_000)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and other.nanoseconds == self.nanoseconds

    def __lt__(self, other: Duration) -> bool:
        return self.nanoseconds < other.nanoseconds


class Time:
    def __init__(self, *, seconds: float = 0, nanoseconds: int = 0, clock_type: ClockType = ClockType.SYSTEM_TIME):
        total = int(seconds * 1e9) + int(nanoseconds)
        if total < 0:
            raise ValueError("Time cannot be negative")
        self.nanoseconds = total
        self.clock_type = clock_type

    @classmethod
    def from_msg(cls, msg, clock_type: ClockType = ClockType.ROS_TIME) -> Time:
        return cls(seconds=msg.sec, nanoseconds=msg.nanosec, clock_type=clock_type)

    def to_msg(self):
        return TimeMsg(sec=self.nanoseconds // 1_000_000_000, nanosec=self.nanoseconds % 1_000_000_000)

    def seconds_nanoseconds(self) -> tuple[int, int]:
        return self.nanoseconds // 1_000_000_000, self.nanoseconds % 1_000_000_000

    def __sub__(self, other):
        if isinstance(other, Time):
            return Duration(nanoseconds=self.nanoseconds - other.nanoseconds)
        return Time(nanoseconds=self.nanoseconds - other.nanoseconds, clock_type=self.clock_type)

    def __add__(self, other: Duration) -> Time:
        return Time(nanoseconds=self.nanoseconds + other.nanoseconds, clock_type=self.clock_type)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Time) and other.nanoseconds == self.nanoseconds

    def __lt__(self, other: Time) -> bool:
        return self.nanoseconds < other.nanoseconds


class Clock:
    """The graph's clock: time advances only when the harness says so (as with ``use_sim_time``)."""

    def __init__(self, graph: Graph, clock_type: ClockType = ClockType.ROS_TIME) -> None:
        self._graph = graph
        self.clock_type = clock_type

    def now(self) -> Time:
        return Time(nanoseconds=self._graph.now_ns, clock_type=self.clock_type)


# ---------------------------------------------------------------------------------- parameters


class Parameter:
    class Type(enum.IntEnum):
        NOT_SET = 0
        BOOL = 1
        INTEGER = 2
        DOUBLE = 3
        STRING = 4
        BYTE_ARRAY = 5
        BOOL_ARRAY = 6
        INTEGER_ARRAY = 7
        DOUBLE_ARRAY = 8
        STRING_ARRAY = 9

        @classmethod
        def from_parameter_value(cls, value: Any) -> Parameter.Type:
            if value is None:
                return cls.NOT_SET
            if isinstance(value, bool):
                return cls.BOOL
            if isinstance(value, int):
                return cls.INTEGER
            if isinstance(value, float):
                return cls.DOUBLE
            if isinstance(value, str):
                return cls.STRING
            if isinstance(value, (list, tuple)):
                if all(isinstance(v, bytes) for v in value) and value:
                    return cls.BYTE_ARRAY
                if all(isinstance(v, bool) for v in value):
                    return cls.BOOL_ARRAY
                if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                    return cls.INTEGER_ARRAY
                if all(isinstance(v, float) for v in value):
                    return cls.DOUBLE_ARRAY
                if all(isinstance(v, str) for v in value):
                    return cls.STRING_ARRAY
            raise TypeError(f"The given value is not one of the allowed types '{value!r}'.")

        def check(self, value: Any) -> bool:
            return value is None if self == Parameter.Type.NOT_SET else (
                Parameter.Type.from_parameter_value(value) == self)

    def __init__(self, name: str, type_: Parameter.Type | None = None, value: Any = None) -> None:
        if type_ is None:
            type_ = Parameter.Type.from_parameter_value(value)
        if not type_.check(value) and not (isinstance(value, (list, tuple)) and not value):
            raise ValueError(f"Type '{type_}' and value '{value}' do not agree")
        self._name = name
        self._type_ = type_
        self._value = value

    @property
    def name(self) -> str:
        return self._name

    @property
    def type_(self) -> Parameter.Type:
        return self._type_

    @property
    def value(self) -> Any:
        return self._value

    def __repr__(self) -> str:
        return f"Parameter({self._name!r}, {self._type_.name}, {self._value!r})"


# ------------------------------------------------------------------------- entities and graph


class Publisher:
    def __init__(self, graph: Graph, node: Node, msg_type: type, topic: str, qos_profile: QoSProfile) -> None:
        self._graph = graph
        self.node = node
        self.msg_type = msg_type
        self.topic = topic
        self.qos_profile = qos_profile

    @property
    def topic_name(self) -> str:
        return self.topic

    def publish(self, msg) -> None:
        if not isinstance(msg, self.msg_type):
            raise TypeError(f"Expected {self.msg_type.__name__}, got {type(msg).__name__}")
        self._graph.deliver(self, msg)

    def get_subscription_count(self) -> int:
        return sum(1 for s in self._graph.subscriptions if s.topic == self.topic)

    def destroy(self) -> None:
        self._graph.publishers.remove(self)


class Subscription:
    def __init__(self, graph: Graph, node: Node, msg_type: type, topic: str, callback: Callable,
                 qos_profile: QoSProfile) -> None:
        self._graph = graph
        self.node = node
        self.msg_type = msg_type
        self.topic = topic
        self.callback = callback
        self.qos_profile = qos_profile

    @property
    def topic_name(self) -> str:
        return self.topic

    def destroy(self) -> None:
        self._graph.subscriptions.remove(self)


class Timer:
    def __init__(self, graph: Graph, node: Node, period_ns: int, callback: Callable) -> None:
        self._graph = graph
        self.node = node
        self.timer_period_ns = period_ns
        self.callback = callback
        self.next_call_ns = graph.now_ns + period_ns
        self.is_canceled_ = False

    def cancel(self) -> None:
        self.is_canceled_ = True

    def is_canceled(self) -> bool:
        return self.is_canceled_

    def reset(self) -> None:
        self.is_canceled_ = False
        self.next_call_ns = self._graph.now_ns + self.timer_period_ns

    def destroy(self) -> None:
        self._graph.timers.remove(self)


@dataclass
class Graph:
    """What ``rclpy.init`` creates: the entities of every node, the published messages and the time."""

    now_ns: int = 0
    publishers: list[Publisher] = field(default_factory=list)
    subscriptions: list[Subscription] = field(default_factory=list)
    timers: list[Timer] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    log: dict[str, list] = field(default_factory=dict)  # topic → messages published on it
    messages: list[tuple[str, str]] = field(default_factory=list)  # (severity, text) of every node logger
    cli_args: list[str] = field(default_factory=list)  # rclpy.init(args=…): --ros-args for every node

    def deliver(self, publisher: Publisher | None, msg, topic: str | None = None,
                qos: QoSProfile | None = None) -> None:
        topic = topic if publisher is None else publisher.topic
        qos = qos if publisher is None else publisher.qos_profile
        self.log.setdefault(topic, []).append(msg)
        for sub in list(self.subscriptions):
            if sub.topic != topic:
                continue
            if not isinstance(msg, sub.msg_type):
                raise TypeError(f"topic {topic}: {type(msg).__name__} published, {sub.msg_type.__name__} subscribed")
            if qos is None or qos_compatible(qos, sub.qos_profile):
                sub.callback(msg)

    def advance_to(self, t_ns: int) -> None:
        """Move the clock to ``t_ns``, firing due timers in time order (each at its due time)."""
        while True:
            due = [tm for tm in self.timers if not tm.is_canceled_ and tm.next_call_ns <= t_ns]
            if not due:
                break
            timer = min(due, key=lambda tm: tm.next_call_ns)
            self.now_ns = max(self.now_ns, timer.next_call_ns)
            timer.next_call_ns += timer.timer_period_ns
            timer.callback()
        self.now_ns = t_ns


class _Logger:
    def __init__(self, graph: Graph, name: str) -> None:
        self._graph = graph
        self.name = name

    def _log(self, severity: str, msg: str, **_kwargs: Any) -> bool:
        self._graph.messages.append((severity, f"[{self.name}] {msg}"))
        return True

    def debug(self, msg: str, **kw: Any) -> bool:
        return self._log("DEBUG", msg, **kw)

    def info(self, msg: str, **kw: Any) -> bool:
        return self._log("INFO", msg, **kw)

    def warning(self, msg: str, **kw: Any) -> bool:
        return self._log("WARN", msg, **kw)

    warn = warning

    def error(self, msg: str, **kw: Any) -> bool:
        return self._log("ERROR", msg, **kw)

    def fatal(self, msg: str, **kw: Any) -> bool:
        return self._log("FATAL", msg, **kw)


def _flatten(params: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = f"{prefix}{key}"
        out.update(_flatten(value, name + ".") if isinstance(value, dict) else {name: value})
    return out


def _section_applies(key: str, node_name: str, namespace: str) -> bool:
    """Node-name keys of a ROS 2 params file, with the ``/**`` and ``*`` wildcards of rcl_yaml_param_parser."""
    fqn = namespace.rstrip("/") + "/" + node_name
    pattern = "^" + re.escape(key if key.startswith("/") else "/" + key).replace(r"/\*\*", "(/.*)?").replace(
        r"\*", "[^/]*") + "$"
    return re.match(pattern, fqn) is not None


def _cli_overrides(cli_args: Sequence[str], node_name: str, namespace: str) -> list[Parameter]:
    """Parameters from ``--ros-args`` (``-p name:=value``, ``--params-file FILE``), as rcl parses them."""
    import yaml

    args = list(cli_args)
    if "--ros-args" not in args:
        return []
    values: dict[str, Any] = {}
    i = args.index("--ros-args") + 1
    while i < len(args) and args[i] != "--":
        flag = args[i]
        if flag in ("-p", "--param"):
            name, _, raw = args[i + 1].partition(":=")
            values[name] = yaml.safe_load(raw)
            i += 2
        elif flag == "--params-file":
            with open(args[i + 1]) as f:
                for key, section in (yaml.safe_load(f) or {}).items():
                    if _section_applies(key, node_name, namespace):
                        values.update(_flatten(section.get("ros__parameters", {})))
            i += 2
        else:
            i += 1
    return [Parameter(name, value=value) for name, value in values.items()]


class _State:
    graph: Graph | None = None


_STATE = _State()


def _graph() -> Graph:
    if _STATE.graph is None:
        raise RuntimeError("rclpy.init() has not been called")
    return _STATE.graph


class Node:
    """rclpy.node.Node with the subset of its API our nodes use."""

    def __init__(self, node_name: str, *, context: Any = None, cli_args: Sequence[str] | None = None,
                 namespace: str | None = None, use_global_arguments: bool = True, enable_rosout: bool = True,
                 start_parameter_services: bool = True, parameter_overrides: list[Parameter] | None = None,
                 allow_undeclared_parameters: bool = False,
                 automatically_declare_parameters_from_overrides: bool = False, **_ignored: Any) -> None:
        self._graph = _graph()
        self._name = node_name
        self._namespace = "/" + (namespace or "").strip("/")  # rclpy expands a relative namespace from /
        self._parameters: dict[str, Parameter] = {}
        self._descriptors: dict[str, Any] = {}
        global_args = self._graph.cli_args if use_global_arguments else []
        self._overrides = {p.name: p for p in _cli_overrides(global_args, node_name, self._namespace)}
        self._overrides.update({p.name: p for p in _cli_overrides(cli_args or [], node_name, self._namespace)})
        self._overrides.update({p.name: p for p in (parameter_overrides or [])})  # rclpy: these win
        self._on_set: list[Callable] = []
        self._publishers: list[Publisher] = []
        self._subscriptions: list[Subscription] = []
        self._timers: list[Timer] = []
        self._clock = Clock(self._graph)
        self._logger = _Logger(self._graph, node_name)
        self._graph.nodes.append(self)
        self.declare_parameter("use_sim_time", False)
        if automatically_declare_parameters_from_overrides:
            for p in self._overrides.values():
                if p.name not in self._parameters:
                    self.declare_parameter(p.name, p.value)

    # -- names, clock, logging
    def get_name(self) -> str:
        return self._name

    def get_namespace(self) -> str:
        return self._namespace

    def get_fully_qualified_name(self) -> str:
        return self._namespace.rstrip("/") + "/" + self._name

    def get_clock(self) -> Clock:
        return self._clock

    def get_logger(self) -> _Logger:
        return self._logger

    # -- entities
    @property
    def publishers(self) -> Iterable[Publisher]:
        yield from self._publishers

    @property
    def subscriptions(self) -> Iterable[Subscription]:
        yield from self._subscriptions

    @property
    def timers(self) -> Iterable[Timer]:
        yield from self._timers

    def _resolve(self, topic: str) -> str:
        return topic if topic.startswith("/") else self._namespace.rstrip("/") + "/" + topic

    def create_publisher(self, msg_type: type, topic: str, qos_profile: QoSProfile | int, **_kw: Any) -> Publisher:
        pub = Publisher(self._graph, self, msg_type, self._resolve(topic), _qos(qos_profile))
        self._publishers.append(pub)
        self._graph.publishers.append(pub)
        return pub

    def create_subscription(self, msg_type: type, topic: str, callback: Callable, qos_profile: QoSProfile | int,
                            **_kw: Any) -> Subscription:
        sub = Subscription(self._graph, self, msg_type, self._resolve(topic), callback, _qos(qos_profile))
        self._subscriptions.append(sub)
        self._graph.subscriptions.append(sub)
        return sub

    def create_timer(self, timer_period_sec: float, callback: Callable, callback_group: Any = None,
                     clock: Any = None, autostart: bool = True) -> Timer:
        period_ns = round(timer_period_sec * 1e9)
        if period_ns <= 0:
            raise ValueError("timer period must be > 0")
        timer = Timer(self._graph, self, period_ns, callback)
        timer.is_canceled_ = not autostart
        self._timers.append(timer)
        self._graph.timers.append(timer)
        return timer

    def destroy_publisher(self, pub: Publisher) -> bool:
        self._publishers.remove(pub)
        pub.destroy()
        return True

    def destroy_timer(self, timer: Timer) -> bool:
        self._timers.remove(timer)
        timer.destroy()
        return True

    def destroy_node(self) -> None:
        for p in self._publishers:
            p.destroy()
        for s in self._subscriptions:
            s.destroy()
        for t in self._timers:
            t.destroy()
        self._publishers, self._subscriptions, self._timers = [], [], []
        if self in self._graph.nodes:
            self._graph.nodes.remove(self)

    # -- parameters
    def declare_parameter(self, name: str, value: Any = None, descriptor: Any = None,
                          ignore_override: bool = False) -> Parameter:
        return self.declare_parameters("", [(name, value, descriptor or ParameterDescriptor())],
                                       ignore_override)[0]

    def declare_parameters(self, namespace: str, parameters: list[tuple], ignore_override: bool = False
                           ) -> list[Parameter]:
        declared = []
        for entry in parameters:
            name = f"{namespace}.{entry[0]}" if namespace else entry[0]
            default = entry[1] if len(entry) > 1 else None
            descriptor = entry[2] if len(entry) > 2 else ParameterDescriptor()
            if name in self._parameters:
                raise ParameterAlreadyDeclaredException(name)
            if isinstance(default, Parameter.Type):
                declared_type, default = default, None
            else:
                declared_type = Parameter.Type.from_parameter_value(default)
            descriptor.name = name
            if not descriptor.dynamic_typing:
                descriptor.type = int(declared_type)
            value = default
            if not ignore_override and name in self._overrides:
                value = self._overrides[name].value
            param = Parameter(name, value=value)
            reason = self._check(param, descriptor, declaring=True)
            if reason is None:
                result = self._call_on_set([param])
                reason = None if result.successful else result.reason
            if reason is not None:
                raise (InvalidParameterTypeException if "type" in reason else InvalidParameterValueException)(
                    f"{name}: {reason}")
            self._descriptors[name] = descriptor
            self._parameters[name] = param
            declared.append(param)
        return declared

    def has_parameter(self, name: str) -> bool:
        return name in self._parameters

    def get_parameter(self, name: str) -> Parameter:
        if name not in self._parameters:
            raise ParameterNotDeclaredException(name)
        return self._parameters[name]

    def get_parameters(self, names: list[str]) -> list[Parameter]:
        return [self.get_parameter(n) for n in names]

    def describe_parameter(self, name: str):
        if name not in self._descriptors:
            raise ParameterNotDeclaredException(name)
        return self._descriptors[name]

    def add_on_set_parameters_callback(self, callback: Callable) -> Callable:
        self._on_set.insert(0, callback)
        return callback

    def remove_on_set_parameters_callback(self, callback: Callable) -> None:
        self._on_set.remove(callback)

    def set_parameters(self, parameter_list: list[Parameter]) -> list:
        results = []
        for param in parameter_list:
            if param.name not in self._parameters:
                raise ParameterNotDeclaredException(param.name)
            reason = self._check(param, self._descriptors[param.name], declaring=False)
            if reason is None:
                result = self._call_on_set([param])
            else:
                result = SetParametersResult(successful=False, reason=reason)
            if result.successful:
                self._parameters[param.name] = param
            results.append(result)
        return results

    def set_parameters_atomically(self, parameter_list: list[Parameter]):
        for param in parameter_list:
            if param.name not in self._parameters:
                raise ParameterNotDeclaredException(param.name)
            reason = self._check(param, self._descriptors[param.name], declaring=False)
            if reason is not None:
                return SetParametersResult(successful=False, reason=reason)
        result = self._call_on_set(list(parameter_list))
        if result.successful:
            for param in parameter_list:
                self._parameters[param.name] = param
        return result

    def _call_on_set(self, params: list[Parameter]):
        for cb in self._on_set:
            result = cb(params)
            if not result.successful:
                return result
        return SetParametersResult(successful=True)

    @staticmethod
    def _check(param: Parameter, descriptor: Any, declaring: bool) -> str | None:
        """rclpy's descriptor checks: read-only, static type, floating-point and integer ranges."""
        if descriptor.read_only and not declaring:
            return "Trying to set a read-only parameter: " + param.name
        if not descriptor.dynamic_typing and descriptor.type != Parameter.Type.NOT_SET and \
                int(param.type_) != descriptor.type:
            return (f"Wrong parameter type, expected '{Parameter.Type(descriptor.type).name}' "
                    f"got '{param.type_.name}'")
        if descriptor.floating_point_range and param.type_ == Parameter.Type.DOUBLE:
            rng = descriptor.floating_point_range[0]
            v = param.value
            tol = 1e-9 * max(1.0, abs(rng.from_value), abs(rng.to_value))
            in_range = rng.from_value - tol <= v <= rng.to_value + tol
            on_step = rng.step == 0.0 or math.isclose(v, rng.to_value) or \
                abs(round((v - rng.from_value) / rng.step) * rng.step - (v - rng.from_value)) <= tol
            if not (in_range and on_step):
                return (f"Parameter {param.name} out of range. Min: {rng.from_value}, Max: {rng.to_value}, "
                        f"step: {rng.step}")
        if descriptor.integer_range and param.type_ == Parameter.Type.INTEGER:
            rng = descriptor.integer_range[0]
            v = param.value
            if not (rng.from_value <= v <= rng.to_value) or (rng.step and (v - rng.from_value) % rng.step
                                                                 and v != rng.to_value):
                return (f"Parameter {param.name} out of range. Min: {rng.from_value}, Max: {rng.to_value}, "
                        f"step: {rng.step}")
        return None


# ----------------------------------------------------------------------------- init / spin


def init(*, args: Sequence[str] | None = None, context: Any = None, domain_id: int | None = None) -> None:
    _STATE.graph = Graph(cli_args=list(args or []))


def ok(*, context: Any = None) -> bool:
    return _STATE.graph is not None


def shutdown(*, context: Any = None) -> None:
    if _STATE.graph is None:
        raise RuntimeError("rclpy.shutdown() called without rclpy.init()")
    _STATE.graph = None


def try_shutdown(*, context: Any = None) -> None:
    _STATE.graph = None


def spin(node: Node, executor: Any = None) -> None:
    """Nothing arrives from outside the process: spinning would wait forever, so it ends at once."""
    raise ExternalShutdownException("the rclpy test double has no external events to spin on")


def spin_once(node: Node, *, executor: Any = None, timeout_sec: float | None = None) -> None:
    """Events are delivered synchronously; nothing is pending."""


def current_graph() -> Graph:
    """The double's graph (not part of rclpy): what the harness drives and inspects."""
    return _graph()


@cache
def rclpy_modules() -> dict[str, types.ModuleType]:
    """``rclpy`` and its submodules as module objects for ``sys.modules``."""

    def module(name: str, **attrs: Any) -> types.ModuleType:
        mod = types.ModuleType(name, f"test double of {name} (snake_control.testing.rclpy_double)")
        mod.__dict__.update(attrs)
        return mod

    qos = module("rclpy.qos", QoSProfile=QoSProfile, ReliabilityPolicy=ReliabilityPolicy,
                 DurabilityPolicy=DurabilityPolicy, HistoryPolicy=HistoryPolicy,
                 qos_profile_sensor_data=qos_profile_sensor_data,
                 qos_profile_system_default=qos_profile_system_default)
    mods = {
        "rclpy.node": module("rclpy.node", Node=Node),
        "rclpy.qos": qos,
        "rclpy.parameter": module("rclpy.parameter", Parameter=Parameter),
        "rclpy.time": module("rclpy.time", Time=Time),
        "rclpy.duration": module("rclpy.duration", Duration=Duration),
        "rclpy.clock": module("rclpy.clock", Clock=Clock, ClockType=ClockType),
        "rclpy.publisher": module("rclpy.publisher", Publisher=Publisher),
        "rclpy.subscription": module("rclpy.subscription", Subscription=Subscription),
        "rclpy.timer": module("rclpy.timer", Timer=Timer),
        "rclpy.executors": module("rclpy.executors", ExternalShutdownException=ExternalShutdownException),
        "rclpy.exceptions": module(
            "rclpy.exceptions", ParameterException=ParameterException,
            ParameterNotDeclaredException=ParameterNotDeclaredException,
            ParameterAlreadyDeclaredException=ParameterAlreadyDeclaredException,
            InvalidParameterException=InvalidParameterException,
            InvalidParameterTypeException=InvalidParameterTypeException,
            InvalidParameterValueException=InvalidParameterValueException),
    }
    root = module("rclpy", init=init, ok=ok, shutdown=shutdown, try_shutdown=try_shutdown, spin=spin,
                  spin_once=spin_once, current_graph=current_graph, __path__=[], IS_TEST_DOUBLE=True)
    for name, mod in mods.items():
        setattr(root, name.split(".", 1)[1], mod)
    mods["rclpy"] = root
    return mods
