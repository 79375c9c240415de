"""pytest fixture ``ros``: nodes under test on real rclpy (ROS 2 Jazzy), driven on simulated time.

Any package's tests use it by importing it in their ``test/conftest.py``::

    from snake_control.testing import ros  # noqa: F401  (the fixture)

and importing rclpy-based modules inside the test, after the fixture has run::

    def test_bridge_publishes_joint_states(ros):
        from sensor_msgs.msg import JointState
        from snake_hardware.bridge_node import CanBridgeNode

        node = ros.make(CanBridgeNode, can_bus_type="virtual", robot="koopaee6")
        ros.publish("/can_bridge/joint_commands", JointState(name=["motor_1"], position=[0.1]))
        ros.advance(0.1)  # ROS time moves 0.1 s; the node's timers fire at their periods
        states = ros.messages("/can_bridge/joint_states")

``ros.make(NodeClass, cli_args=None, namespace=None, **params)`` passes ``params`` as parameter
overrides (``a__b`` for ``a.b``) and ``use_sim_time: true``. The harness owns ``/clock``, publishes
inputs from a helper node and records every topic the nodes under test publish. All nodes spin in
one rclpy ``SingleThreadedExecutor``.

Isolation: every pytest-xdist worker talks on its own ``ROS_DOMAIN_ID`` (``SNAKE_TEST_DOMAIN_BASE``,
default 20, plus the worker's number) and discovery stays on this machine
(``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``); subprocesses started by a test inherit both. Where
rclpy cannot be imported (no Jazzy wheel for the platform and no sourced ROS 2), the tests that
use the fixture are skipped with one reason.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from snake_core.locator import data_dir

DOMAIN_BASE_ENV = "SNAKE_TEST_DOMAIN_BASE"
#: How long a discovery or delivery wait may take before the harness gives up [s, wall time].
WAIT_TIMEOUT = 5.0
#: Messages kept per recorded topic.
CAPTURE_DEPTH = 10000


def isolate_ros_domain() -> int:
    """One ROS_DOMAIN_ID per pytest-xdist worker, discovery on localhost only; returns the id."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    domain = int(os.environ.get(DOMAIN_BASE_ENV, "20")) + int(worker.removeprefix("gw") or 0)
    os.environ["ROS_DOMAIN_ID"] = str(domain)
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    return domain


#: Topics every rclpy node has (time source, parameter events, logging): not part of a node's interface.
INFRASTRUCTURE = ("/clock", "/parameter_events", "/rosout")


def subscriptions(node: Any) -> dict[str, Any]:
    """topic → Subscription of ``node``'s own inputs."""
    return {s.topic_name: s for s in node.subscriptions if s.topic_name not in INFRASTRUCTURE}


def publishers(node: Any) -> dict[str, Any]:
    """topic → Publisher of ``node``'s own outputs."""
    return {p.topic_name: p for p in node.publishers if p.topic_name not in INFRASTRUCTURE}


def type_name(msg_type: type) -> str:
    """``'sensor_msgs/msg/JointState'`` of a rosidl message class."""
    return f"{msg_type.__module__.split('.')[0]}/msg/{msg_type.__name__}"


def capture_qos() -> Any:
    """QoS of a recorder: best effort matches reliable and best-effort publishers alike, volatile any durability."""
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=CAPTURE_DEPTH, reliability=ReliabilityPolicy.BEST_EFFORT)


def wait_for(condition: Callable[[], bool], spin: Callable[[], None], what: str, timeout: float = WAIT_TIMEOUT
             ) -> None:
    """Spin until ``condition()`` holds; AssertionError naming ``what`` after ``timeout`` s of wall time."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        spin()


class RosHarness:
    """A helper node that owns /clock, publishes inputs and records the outputs of the nodes under test."""

    def __init__(self) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rosgraph_msgs.msg import Clock

        self.rclpy = rclpy
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self._Clock = Clock
        self.helper = rclpy.create_node("snake_test_harness", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.helper)
        self._clock_pub = self.helper.create_publisher(Clock, "/clock", 10)
        self.nodes: list[Any] = []
        self._inputs: dict[str, Any] = {}
        self._log: dict[str, list[Any]] = {}
        self._t_ns = 1_000_000_000  # start at 1 s: time 0 means "no clock received yet" in rclpy
        self._publish_clock()

    def spin(self, seconds: float = 0.0) -> None:
        """Handle what is ready, for at least ``seconds`` of wall time."""
        end = time.monotonic() + seconds
        self.executor.spin_once(timeout_sec=0.002)
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.002)

    def _publish_clock(self) -> None:
        self._clock_pub.publish(self._Clock(clock=self.stamp()))

    def make(self, node_class: type, cli_args: list[str] | None = None, namespace: str | None = None,
             **params: Any) -> Any:
        """Build ``node_class`` with ``params`` as overrides on sim time; record what it publishes."""
        from rclpy.parameter import Parameter

        params = {k.replace("__", "."): v for k, v in params.items()}
        params.setdefault("use_sim_time", True)
        node = node_class(parameter_overrides=[Parameter(k, value=v) for k, v in params.items()],
                          cli_args=cli_args, namespace=namespace, context=self.context)
        self.nodes.append(node)
        self.executor.add_node(node)
        for pub in node.publishers:
            self.record(pub.topic_name, pub.msg_type)
        if node.get_parameter("use_sim_time").value:
            wait_for(lambda: node.count_publishers("/clock") > 0 and node.get_clock().now().nanoseconds > 0,
                     lambda: (self._publish_clock(), self.spin()), f"{node.get_name()} to receive /clock")
        return node

    def record(self, topic: str, msg_type: type) -> list[Any]:
        """Record ``topic`` from now on (publishers of the nodes under test are recorded by ``make``)."""
        if topic in INFRASTRUCTURE:
            return []
        if topic not in self._log:
            self._log[topic] = []
            self.helper.create_subscription(msg_type, topic, self._log[topic].append, capture_qos())
            wait_for(lambda: self.helper.count_publishers(topic) > 0 or not any(
                p.topic_name == topic for n in self.nodes for p in n.publishers), self.spin,
                f"the recorder of {topic} to match")
        return self._log[topic]

    def publish(self, topic: str, msg: Any, qos: Any = 10) -> None:
        """Publish ``msg`` on ``topic`` (the first time: once a subscriber of a node under test matches)."""
        if topic not in self._inputs:
            self._inputs[topic] = self.helper.create_publisher(type(msg), topic, qos)
            listeners = [n for n in self.nodes if any(s.topic_name == topic for s in n.subscriptions)]
            wait_for(lambda: self._inputs[topic].get_subscription_count() >= len(listeners), self.spin,
                     f"subscribers of {topic}")
        self._inputs[topic].publish(msg)
        self.spin(0.005)

    def advance(self, seconds: float) -> None:
        """Move ROS time forward by ``seconds`` in 1 ms ticks, so that every timer period is seen."""
        target = self._t_ns + round(seconds * 1e9)
        while self._t_ns < target:
            self._t_ns = min(target, self._t_ns + 1_000_000)
            self._publish_clock()
            self.executor.spin_once(timeout_sec=0.002)
            self.executor.spin_once(timeout_sec=0)
        self.spin(0.02)

    def set_parameters(self, node: Any, **values: Any) -> list[Any]:
        """Set parameters (``a__b`` for ``a.b``); returns the SetParametersResult list."""
        from rclpy.parameter import Parameter

        return node.set_parameters([Parameter(k.replace("__", "."), value=v) for k, v in values.items()])

    def now(self) -> float:
        """The harness's ROS time [s]."""
        return self._t_ns * 1e-9

    def stamp(self) -> Any:
        """builtin_interfaces/Time of :meth:`now`."""
        from builtin_interfaces.msg import Time

        return Time(sec=self._t_ns // 1_000_000_000, nanosec=self._t_ns % 1_000_000_000)

    def messages(self, topic: str) -> list[Any]:
        """Everything recorded on ``topic`` so far."""
        self.spin(0.01)
        return list(self._log.get(topic, []))

    def close(self) -> None:
        for node in self.nodes:
            self.executor.remove_node(node)
            node.destroy_node()
        self.executor.shutdown()
        self.helper.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


class GraphHarness:
    """Nodes in their own processes (snake_control.graph specs, as ``ros2 run`` starts them) and a
    probe node on the wall clock that records topics. The processes get SIGINT at the end (as launch
    stops them), SIGKILL if they do not exit within 10 s."""

    def __init__(self, workdir: Path) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self.rclpy = rclpy
        self.workdir = workdir
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.probe = rclpy.create_node("snake_test_probe", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.probe)
        self.processes: dict[str, subprocess.Popen] = {}
        self._log: dict[str, list[Any]] = {}

    def start(self, spec: Any, *, use_sim_time: bool = True) -> subprocess.Popen:
        """Start one node of the graph; its output goes to <workdir>/<node>.log."""
        from snake_control.graph import start

        name = spec.fully_qualified_name
        log = (self.workdir / f"{name.strip('/').replace('/', '__')}.log").open("w")
        self.processes[name] = start(spec, data_dir(), self.workdir, use_sim_time=use_sim_time, stdout=log,
                                     stderr=subprocess.STDOUT)
        return self.processes[name]

    def stop(self, name: str) -> int:
        """SIGINT the node ``name`` (fully qualified) and wait for it; its exit code."""
        from snake_control.graph import stop

        return stop([self.processes.pop(name)])[0]

    def record(self, topic: str, msg_type: type) -> list[Any]:
        if topic not in self._log:
            self._log[topic] = []
            self.probe.create_subscription(msg_type, topic, self._log[topic].append, capture_qos())
        return self._log[topic]

    def spin_until(self, condition: Callable[[], bool], what: str, timeout: float) -> None:
        """Spin the probe until ``condition()``; fails naming ``what`` and the nodes that died."""
        end = time.monotonic() + timeout
        while not condition():
            dead = {n: p.returncode for n, p in self.processes.items() if p.poll() is not None}
            if dead or time.monotonic() > end:
                raise AssertionError(f"waiting for {what}: " + (f"nodes exited {dead}, see {self.workdir}"
                                                                  if dead else f"timed out after {timeout:g} s"))
            self.executor.spin_once(timeout_sec=0.05)

    def close(self) -> None:
        for name in list(self.processes):
            self.stop(name)
        self.executor.shutdown()
        self.probe.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


def lockstep_simulator(spec: Any) -> Any:
    """The simulator's spec as the graph tests run it: as fast as the graph answers, and never a step
    without its command (under a loaded CI machine a command can take longer than the default
    ``lockstep_timeout``, and a step taken without it would leave the loop a period behind for good)."""
    return replace(spec, parameters={**spec.parameters, "real_time_factor": 0.0, "lockstep_timeout": 60.0})


def _require_rclpy() -> None:
    isolate_ros_domain()
    try:
        import rclpy  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"ROS 2 Jazzy's rclpy is not importable here ({exc}); `make ros` installs it on x86_64 Linux")


@pytest.fixture
def ros_graph(tmp_path: Path) -> Iterator[GraphHarness]:
    """Nodes as processes on real rclpy, with a probe (see :class:`GraphHarness`)."""
    _require_rclpy()
    harness = GraphHarness(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture
def ros() -> Iterator[RosHarness]:
    """The harness over real rclpy (see the module docstring); skips where rclpy is not importable."""
    _require_rclpy()
    harness = RosHarness()
    try:
        yield harness
    finally:
        harness.close()
