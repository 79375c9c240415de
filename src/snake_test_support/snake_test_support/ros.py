"""pytest fixture ``ros``: nodes under test on real rclpy (ROS 2 Jazzy), driven on simulated time.

Any package's tests use it by importing it in their ``test/conftest.py``::

    from snake_test_support.ros import ros  # noqa: F401  (the fixture)

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

The harness owns the nodes' wall clock too: a node class that takes ``wall_clock`` (the clock its watchdog
measures a stop of /clock on) gets ``ros.wall``, which moves with ROS time in :meth:`RosHarness.advance` and alone
in :meth:`RosHarness.stall` (a simulator that stopped). So a watchdog judges the time the test gives it, however
long the machine takes to deliver each tick.

Isolation: every pytest-xdist worker talks on its own ``ROS_DOMAIN_ID`` (``SNAKE_TEST_DOMAIN_BASE``, by
default an even number in 20–98 taken from the checkout's path, plus the worker's number) and discovery stays
on this machine (``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``); subprocesses started by a test inherit both.
Where rclpy cannot be imported (no Jazzy wheel for the platform and no sourced ROS 2), the tests that use the
fixture are skipped with one reason.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

import pytest

from snake_core.locator import data_dir

DOMAIN_BASE_ENV = "SNAKE_TEST_DOMAIN_BASE"
#: How long a node may take to end after SIGINT before the harness kills it [s]. A node ends in under a second on an
#: idle machine, but tearing down its middleware takes CPU time: on a machine loaded ten times over its cores it
#: measured 6–15 s. The tests judge that a node ends cleanly (exit code 0, no ERROR), never how fast: the SIGKILL is
#: only a safety net against a node that hangs.
EXIT_TIMEOUT = 60.0
#: How long a discovery or delivery wait may take before the harness gives up [s, wall time]: a guard
#: against a hang (a message lost, a node dead), far beyond any delay of a loaded machine.
WAIT_TIMEOUT = 60.0
#: Messages kept per recorded topic.
CAPTURE_DEPTH = 10000


def default_domain_base() -> int:
    """20–98, even, from this checkout's path: test runs of two checkouts on one machine (CI jobs, sessions
    side by side) do not see each other's nodes, which would answer their simulators and drive their
    controllers."""
    return 20 + 2 * (zlib.crc32(str(Path(__file__).resolve().parents[3]).encode()) % 40)


def isolate_ros_domain() -> int:
    """One ROS_DOMAIN_ID per pytest-xdist worker, discovery on localhost only; returns the id."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    domain = int(os.environ.get(DOMAIN_BASE_ENV, default_domain_base())) + int(worker.removeprefix("gw") or 0)
    os.environ["ROS_DOMAIN_ID"] = str(domain)
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    return domain


#: How rmw names the node of an endpoint whose node it has not discovered yet.
UNKNOWN_NODE = "_NODE_NAME_UNKNOWN_"
#: Topics every rclpy node has (time source, parameter events, logging): not part of a node's interface.
INFRASTRUCTURE = ("/clock", "/parameter_events", "/rosout")


def subscriptions(node: Any) -> dict[str, Any]:
    """topic → Subscription of ``node``'s own inputs."""
    return {s.topic_name: s for s in node.subscriptions if s.topic_name not in INFRASTRUCTURE}


def counted(sub: Any) -> bool:
    """Whether the harness awaits the delivery of what ``sub`` subscribes to: a node's own inputs, and /clock to a
    reliable subscription of its own (a watchdog's: the time source's is best effort, its depth 1, and the harness
    waits for it by the node's time instead)."""
    from rclpy.qos import ReliabilityPolicy

    return sub.topic_name not in INFRASTRUCTURE or (
        sub.topic_name == "/clock" and sub.qos_profile.reliability == ReliabilityPolicy.RELIABLE)


def publishers(node: Any) -> dict[str, Any]:
    """topic → Publisher of ``node``'s own outputs."""
    return {p.topic_name: p for p in node.publishers if p.topic_name not in INFRASTRUCTURE}


def refuses_outside_the_specs_range(make: Callable[..., Any], params: Any, name: str, outside: float) -> tuple:
    """``make(**parameters)`` builds a node declaring ``params`` (its ``PARAMS``): the descriptor of the double ``name``
    carries the spec's range, and ``outside`` it is refused at start-up by rclpy (Jazzy rclpy/node.py
    ``_apply_floating_point_range``). Returns the range, (low, high), for the caller to compare with the docs."""
    from rclpy.exceptions import InvalidParameterValueException

    (spec,) = (p for p in params if p.name == name)
    r = make().describe_parameter(name).floating_point_range[0]
    assert (r.from_value, r.to_value) == (spec.low, spec.high)
    with pytest.raises(InvalidParameterValueException, match=name):
        make(**{name: outside})
    return spec.low, spec.high


def type_name(msg_type: type) -> str:
    """``'sensor_msgs/msg/JointState'`` of a rosidl message class."""
    return f"{msg_type.__module__.split('.')[0]}/msg/{msg_type.__name__}"


def capture_qos() -> Any:
    """QoS of a recorder: best effort matches reliable and best-effort publishers alike, volatile any durability."""
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=CAPTURE_DEPTH, reliability=ReliabilityPolicy.BEST_EFFORT)


def wait_for(condition: Callable[[], bool], spin: Callable[[], None], what: str, timeout: float = WAIT_TIMEOUT,
             detail: Callable[[], Any] | None = None) -> None:
    """Spin until ``condition()`` holds; AssertionError naming ``what`` (and ``detail()``) after ``timeout`` s of
    wall time: a guard against a hang, never a measurement (the condition does not depend on speed)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}"
                                 + (f": {detail()}" if detail else ""))
        spin()


class RosHarness:
    """A helper node that owns /clock, publishes inputs and records the outputs of the nodes under test.

    Delivery is awaited, never timed: every message published by the harness or by a node under test is
    counted, and every subscription of the nodes under test and of the recorders counts what it handles;
    :meth:`settle` spins until each subscription has handled everything published on its topic since it
    matched, every node on sim time reads the harness's time, and no timer of a node is due. So a test
    sees the same sequence of callbacks on an idle and on a loaded machine."""

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
        self.nodes: list[Any] = []
        self._inputs: dict[str, Any] = {}
        self._log: dict[str, list[Any]] = {}
        self._published: dict[str, int] = {}  # topic → messages sent by counted publishers
        self._counted: set[int] = set()  # ids of the publishers whose messages are counted
        self._publishers: dict[str, int] = {}  # topic → counted publishers
        self._clock_pub = self.helper.create_publisher(Clock, "/clock", 10)
        self._count_publisher(self._clock_pub)
        self._subscriptions: list[tuple[str, Any, int]] = []  # (topic, subscription, published count at match)
        self._received: dict[int, int] = {}  # id(subscription) → messages handled
        self._t_ns = 1_000_000_000  # start at 1 s: time 0 means "no clock received yet" in rclpy
        self._publish_clock()
        # the nodes' wall clock, driven as rclpy's TimeSource drives a node's ROS clock on /clock (rclpy/time_source.py,
        # _on_clock and _associate_clock: set_ros_time_override on a ROSClock with ROS time active); rcl wakes the
        # timers on it at each forward jump (rcl/src/rcl/timer.c, _rcl_timer_time_jump)
        from rclpy.clock import ROSClock

        self.wall = ROSClock()
        self.wall._set_ros_time_is_active(True)
        self._wall_ns = 0
        self._move_wall(0)

    # ------------------------------------------------------------------------- counted delivery

    def _count_publisher(self, pub: Any) -> None:
        if id(pub) in self._counted:
            return
        self._counted.add(id(pub))
        topic, send = pub.topic_name, pub.publish
        self._publishers[topic] = self._publishers.get(topic, 0) + 1

        def counted(msg: Any) -> None:
            self._published[topic] = self._published.get(topic, 0) + 1
            send(msg)

        pub.publish = counted

    def _count_subscription(self, sub: Any) -> None:
        """Count what ``sub`` handles from now on; it must see every message published after this."""
        topic, handle = sub.topic_name, sub.callback
        self._received[id(sub)] = 0
        self._subscriptions.append((topic, sub, self._published.get(topic, 0)))

        def count() -> None:
            self._received[id(sub)] += 1

        with_info = sub._callback_type is type(sub._callback_type).WithMessageInfo
        if inspect.iscoroutinefunction(handle):  # a coroutine stays one (rclpy's executor awaits it), same arguments
            async def awaited(msg: Any) -> None:
                count()
                await handle(msg)

            async def awaited_with_info(msg: Any, info: Any) -> None:
                count()
                await handle(msg, info)

            sub.callback = awaited_with_info if with_info else awaited
        elif with_info:
            sub.callback = lambda msg, info: (count(), handle(msg, info))
        else:
            sub.callback = lambda msg: (count(), handle(msg))

    def _undelivered(self) -> list[str]:
        """What is still under way: messages not yet handled, nodes behind the harness's clock, timers due."""
        late = [f"{topic} to a subscription" for topic, sub, base in self._subscriptions
                if self._received[id(sub)] < self._published.get(topic, 0) - base]
        late += [f"/clock to {n.get_name()} (at {n.get_clock().now().nanoseconds} ns, not {self._t_ns})"
                 for n in self.nodes if n.get_parameter("use_sim_time").value
                 and n.get_clock().now().nanoseconds != self._t_ns]
        late += [f"a timer of {n.get_name()}" for n in self.nodes for timer in n.timers if timer.is_ready()]
        return late

    def settle(self) -> None:
        """Spin until everything published has been handled and no timer is due (see the class docstring); at least
        once, so that what is ready and not awaited (a /clock that came before a node's subscription was counted)
        is handled within a few ticks, not whenever something awaited comes."""
        self.executor.spin_once(timeout_sec=0.0)
        wait_for(lambda: not self._undelivered(), lambda: self.executor.spin_once(timeout_sec=0.01),
                 "delivery", detail=self._undelivered)

    def _match(self, node: Any) -> None:
        """Wait until ``node``'s subscriptions match every counted publisher of their topics and its
        publishers every counted subscription (a message sent before a match would never arrive)."""
        for sub in filter(counted, node.subscriptions):
            wait_for(lambda s=sub: s.get_publisher_count() >= self._publishers.get(s.topic_name, 0), self.spin,
                     f"{sub.topic_name} of {node.get_name()} to match its publishers")
        for pub in node.publishers:
            if pub.topic_name in INFRASTRUCTURE:
                continue
            wanted = sum(1 for topic, _s, _b in self._subscriptions if topic == pub.topic_name)
            wait_for(lambda p=pub, n=wanted: p.get_subscription_count() >= n, self.spin,
                     f"{pub.topic_name} of {node.get_name()} to match its subscribers")

    # ------------------------------------------------------------------------------- the API

    def spin(self, seconds: float = 0.0) -> None:
        """Handle what is ready, for at least ``seconds`` of wall time."""
        end = time.monotonic() + seconds
        self.executor.spin_once(timeout_sec=0.002)
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.002)

    def _publish_clock(self) -> None:
        self._clock_pub.publish(self._Clock(clock=self.stamp()))

    def _move_wall(self, ns: int) -> None:
        from rclpy.time import Time

        self._wall_ns += ns
        self.wall.set_ros_time_override(Time(nanoseconds=self._wall_ns, clock_type=self.wall.clock_type))

    def make(self, node_class: type, cli_args: list[str] | None = None, namespace: str | None = None,
             **params: Any) -> Any:
        """Build ``node_class`` with ``params`` as overrides on sim time; record what it publishes."""
        from rclpy.parameter import Parameter

        params = {k.replace("__", "."): v for k, v in params.items()}
        params.setdefault("use_sim_time", True)
        wall = {"wall_clock": self.wall} if "wall_clock" in inspect.signature(node_class).parameters else {}
        node = node_class(parameter_overrides=[Parameter(k, value=v) for k, v in params.items()],
                          cli_args=cli_args, namespace=namespace, context=self.context, **wall)
        self.nodes.append(node)
        self.executor.add_node(node)
        if node.get_parameter("use_sim_time").value:
            wait_for(lambda: node.count_publishers("/clock") > 0 and node.get_clock().now().nanoseconds > 0,
                     lambda: (self._publish_clock(), self.spin()), f"{node.get_name()} to receive /clock")
        for pub in node.publishers:
            if pub.topic_name not in INFRASTRUCTURE:
                self._count_publisher(pub)
        for sub in filter(counted, node.subscriptions):
            self._count_subscription(sub)
        self._match(node)
        for pub in node.publishers:
            self.record(pub.topic_name, pub.msg_type)
        self.settle()
        return node

    def record(self, topic: str, msg_type: type) -> list[Any]:
        """Record ``topic`` from now on (publishers of the nodes under test are recorded by ``make``)."""
        if topic in INFRASTRUCTURE:
            return []
        for pub in (p for n in self.nodes for p in n.publishers if p.topic_name == topic):
            self._count_publisher(pub)  # a publisher a test added to a node after make
        if topic not in self._log:
            self._log[topic] = []
            sub = self.helper.create_subscription(msg_type, topic, self._log[topic].append, capture_qos())
            wait_for(lambda: sub.get_publisher_count() >= self._publishers.get(topic, 0), self.spin,
                     f"the recorder of {topic} to match")
            self._count_subscription(sub)
        return self._log[topic]

    def publish(self, topic: str, msg: Any, qos: Any = 10) -> None:
        """Publish ``msg`` on ``topic`` once every subscriber among the nodes under test matches, and
        wait until they have handled it (and whatever they published in turn)."""
        if topic not in self._inputs:
            self._inputs[topic] = self.helper.create_publisher(type(msg), topic, qos)
            self._count_publisher(self._inputs[topic])
        listeners = sum(1 for t, _s, _b in self._subscriptions if t == topic)
        wait_for(lambda: self._inputs[topic].get_subscription_count() >= listeners, self.spin,
                 f"subscribers of {topic}")
        self._inputs[topic].publish(msg)
        self.settle()

    def advance(self, seconds: float) -> None:
        """Move ROS time and the nodes' wall clock forward by ``seconds`` in 1 ms ticks, each handled by every node
        (its timers fired, their messages delivered) before the next, so that every timer period is seen."""
        target = self._t_ns + round(seconds * 1e9)
        while self._t_ns < target:
            step = min(target - self._t_ns, 1_000_000)
            self._t_ns += step
            self._move_wall(step)
            self._publish_clock()
            self.settle()

    def stall(self, seconds: float, republish: bool = False) -> None:
        """Move the nodes' wall clock alone forward by ``seconds`` in 1 ms ticks, each handled as in :meth:`advance`:
        ROS time stands still, as when a simulator stops; with ``republish`` the same /clock comes at every tick, as
        from a lock-stepped simulator waiting for an answer."""
        for _ in range(round(seconds * 1e3)):
            self._move_wall(1_000_000)
            if republish:
                self._publish_clock()
            self.settle()

    def jump(self, seconds: float) -> None:
        """Set ROS time ``seconds`` away from now (negative: back, as the clock of a restarted simulator) and
        deliver it."""
        self._t_ns += round(seconds * 1e9)
        self._publish_clock()
        self.settle()

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
        """Everything recorded on ``topic`` so far (once all that was published has arrived)."""
        self.settle()
        return list(self._log.get(topic, []))

    def call(self, srv_type: type, service: str, request: Any, timeout: float = WAIT_TIMEOUT) -> Any:
        """Call ``service`` with ``request`` from the harness's node, spinning every node until the answer."""
        client = self.helper.create_client(srv_type, service)
        assert client.wait_for_service(timeout_sec=timeout), f"no service {service}"
        future = client.call_async(request)
        wait_for(future.done, self.spin, f"the answer of {service}", timeout)
        return future.result()

    def close(self) -> None:
        for node in self.nodes:
            self.executor.remove_node(node)
            node.destroy_node()
        self.executor.shutdown()
        self.helper.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


class NodeLauncher(Protocol):
    """What starts and stops the nodes of a graph as processes (snake_control.graph, passed in by the tests: this
    package does not depend on the packages it tests)."""

    def start(self, spec: Any, data: Path, workdir: Path, *, use_sim_time: bool, stdout: Any, stderr: Any
              ) -> subprocess.Popen: ...

    def stop(self, processes: list[subprocess.Popen], timeout: float) -> list[int]: ...


class GraphHarness:
    """Nodes in their own processes (snake_control.graph specs, as ``ros2 run`` starts them) and a
    probe node on the wall clock that records topics. The processes get SIGINT at the end (as launch
    stops them), SIGKILL if they have not exited :data:`EXIT_TIMEOUT` later.

    A recording that must begin with a node's first message waits for the probe to match the node
    (``start(..., matched=...)``) before the node that completes the lock-stepped loop starts: the
    simulator holds its first tick until then, so nothing is sent before the probe listens. Every
    recorded topic must carry only the started nodes' messages: :meth:`spin_until` fails naming any
    other publisher (another run on the same ROS domain would mix its messages into the records)."""

    def __init__(self, workdir: Path, nodes: NodeLauncher) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self.rclpy = rclpy
        self.workdir = workdir
        self.nodes = nodes
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.probe = rclpy.create_node("snake_test_probe", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.probe)
        self.processes: dict[str, subprocess.Popen] = {}
        self._log: dict[str, list[Any]] = {}
        self._recorders: dict[str, Any] = {}  # topic → the probe's subscription

    def start(self, spec: Any, *, use_sim_time: bool = True, matched: tuple[str, ...] = ()) -> subprocess.Popen:
        """Start one node of the graph; its output goes to <workdir>/<node>.log. ``matched``: recorded topics
        the node publishes; returns once the probe's recorders of them have matched it."""
        name = spec.fully_qualified_name
        before = {topic: self._recorders[topic].get_publisher_count() for topic in matched}
        with (self.workdir / f"{name.strip('/').replace('/', '__')}.log").open("w") as log:  # the child has its own
            self.processes[name] = self.nodes.start(spec, data_dir(), self.workdir, use_sim_time=use_sim_time,
                                                    stdout=log, stderr=subprocess.STDOUT)
        self.spin_until(lambda: all(self._recorders[t].get_publisher_count() > n for t, n in before.items()),
                        f"the probe to match {name} on {', '.join(matched)}", timeout=120.0)
        return self.processes[name]

    def start_simulator(self, spec: Any, *records: list[Any]) -> subprocess.Popen:
        """Start the simulator of ``spec`` in lockstep (:func:`lockstep_simulator`) and wait until the probe
        has a message in each of ``records`` (its joint states, odometry: it republishes its first tick until
        the controllers answer it): started before the controllers, the probe records every tick from the
        first."""
        process = self.start(lockstep_simulator(spec), use_sim_time=False)
        self.spin_until(lambda: all(records), "the probe to receive the simulator's first tick", timeout=120.0)
        return process

    def foreign_publishers(self) -> list[str]:
        """Publishers of the recorded topics that are not the nodes started here or the probe (a node of the
        same name as one of ours, in another run on the same domain, shows as a second publisher of it). A
        publisher whose node the probe does not know yet (rmw's "_NODE_NAME_UNKNOWN_") is waited for, then
        left out."""
        ours = {*self.processes, self.probe.get_fully_qualified_name()}

        def nodes(topic: str) -> Counter:
            return Counter(qualified(i.node_namespace, i.node_name)
                           for i in self.probe.get_publishers_info_by_topic(topic))

        end = time.monotonic() + WAIT_TIMEOUT / 6
        while any(UNKNOWN_NODE in node for topic in self._log for node in nodes(topic)) and time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.05)
        return [f"{node} ×{n} on {topic}" for topic in self._log for node, n in nodes(topic).items()
                if UNKNOWN_NODE not in node and (node not in ours or n > 1)]

    def stop(self, name: str) -> int:
        """SIGINT the node ``name`` (fully qualified) and wait for it, and for the probe to see it leave the graph
        (a node started again under its name is then the only one); its exit code."""
        code = self.nodes.stop([self.processes.pop(name)], EXIT_TIMEOUT)[0]
        self.spin_until(lambda: name not in {qualified(ns, n) for n, ns in self.probe.get_node_names_and_namespaces()},
                        f"{name} to leave the graph", timeout=60.0)
        return code

    def record(self, topic: str, msg_type: type) -> list[Any]:
        if topic not in self._log:
            self._log[topic] = []
            self._recorders[topic] = self.probe.create_subscription(msg_type, topic, self._log[topic].append,
                                                                    capture_qos())
        return self._log[topic]

    def spin_until(self, condition: Callable[[], bool], what: str, timeout: float) -> None:
        """Spin the probe until ``condition()``; fails naming ``what`` and the nodes that died, or the
        publishers of recorded topics that are not this graph's."""
        end = time.monotonic() + timeout
        while not condition():
            dead = {n: p.returncode for n, p in self.processes.items() if p.poll() is not None}
            if dead or time.monotonic() > end:
                raise AssertionError(f"waiting for {what}: " + (f"nodes exited {dead}, see {self.workdir}"
                                                                  if dead else f"timed out after {timeout:g} s"))
            self.executor.spin_once(timeout_sec=0.05)
        foreign = self.foreign_publishers()
        if foreign:
            raise AssertionError(f"nodes of another run publish on ROS_DOMAIN_ID {os.environ.get('ROS_DOMAIN_ID')} "
                                 f"({'; '.join(foreign)}): their messages are in the records; give each checkout "
                                 f"its own {DOMAIN_BASE_ENV}")

    def stop_all(self) -> list[int]:
        """SIGINT to every node left at once (as Ctrl-C to launch); their exit codes in the order they started."""
        codes = self.nodes.stop(list(self.processes.values()), EXIT_TIMEOUT)
        self.processes.clear()
        return codes

    def close(self) -> None:
        self.stop_all()
        self.executor.shutdown()
        self.probe.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


def qualified(namespace: str, name: str) -> str:
    """A node's fully qualified name (``/ns/name``, ``/name`` in the root namespace)."""
    return f"{namespace.rstrip('/')}/{name}"


def lockstep_simulator(spec: Any) -> Any:
    """The simulator's spec as the graph tests run it: in lockstep, as fast as the graph answers, and a
    report on /diagnostics only after a minute without an answer (it holds all the same)."""
    return replace(spec, parameters={**spec.parameters, "lockstep": True, "real_time_factor": 0.0,
                                     "lockstep_timeout": 60.0})


@contextmanager
def graph_harness(workdir: Path, nodes: NodeLauncher) -> Iterator[GraphHarness]:
    """A :class:`GraphHarness` in ``workdir`` whose nodes ``nodes`` starts, closed (its processes stopped) at the
    end; for fixtures that share one graph run between tests."""
    require_rclpy()
    harness = GraphHarness(workdir, nodes)
    try:
        yield harness
    finally:
        harness.close()


def require_rclpy() -> None:
    isolate_ros_domain()
    try:
        import rclpy  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"ROS 2 Jazzy's rclpy is not importable here ({exc}); `make ros` installs it on x86_64 Linux")


@pytest.fixture
def ros() -> Iterator[RosHarness]:
    """The harness over real rclpy (see the module docstring); skips where rclpy is not importable."""
    require_rclpy()
    harness = RosHarness()
    try:
        yield harness
    finally:
        harness.close()
