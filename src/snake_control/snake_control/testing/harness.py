"""Drive nodes under test the same way with the rclpy test double or with real rclpy.

Both harnesses offer: ``make(node_class, cli_args=None, namespace=None, **parameters)`` (parameters
as overrides, ``__`` standing for ``.``; ``cli_args`` such as ``["--ros-args", "--params-file",
path]`` as launch_ros passes them), ``publish(topic, msg)``, ``advance(seconds)`` (moves ROS time
forward; timers fire), ``messages(topic)`` (everything published on ``topic`` since the node was
made), ``set_parameters(node, **values)``, ``now()`` (seconds) and ``stamp()`` (a header stamp).

With real rclpy the nodes run on simulated time (``use_sim_time``): the harness publishes
``/clock`` and spins a single-threaded executor until the timers due have run.
"""

from __future__ import annotations

from typing import Any

#: Topics published by a node under test that the real-rclpy harness records.
CAPTURE_DEPTH = 1000


class _Common:
    def __init__(self, rclpy: Any) -> None:
        self.rclpy = rclpy
        from rclpy.parameter import Parameter

        self._Parameter = Parameter
        self.nodes: list[Any] = []

    def _overrides(self, params: dict[str, Any]) -> list[Any]:
        return [self._Parameter(name, value=value) for name, value in params.items()]

    def set_parameters(self, node: Any, **values: Any) -> list[Any]:
        """Set parameters (dots in names written as ``__``); returns the SetParametersResult list."""
        return node.set_parameters([self._Parameter(k.replace("__", "."), value=v) for k, v in values.items()])

    def stamp(self) -> Any:
        from builtin_interfaces.msg import Time

        ns = round(self.now() * 1e9)
        return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


class FakeHarness(_Common):
    """Over :mod:`snake_control.testing.rclpy_double`: synchronous and exact."""

    real = False

    def __init__(self, rclpy: Any) -> None:
        super().__init__(rclpy)
        rclpy.init()
        self.graph = rclpy.current_graph()

    def make(self, node_class: type, cli_args: list[str] | None = None, namespace: str | None = None,
             **params: Any) -> Any:
        node = node_class(parameter_overrides=self._overrides({k.replace("__", "."): v for k, v in params.items()}),
                          cli_args=cli_args, namespace=namespace)
        self.nodes.append(node)
        return node

    def publish(self, topic: str, msg: Any) -> None:
        self.graph.deliver(None, msg, topic=topic)

    def advance(self, seconds: float) -> None:
        self.graph.advance_to(self.graph.now_ns + round(seconds * 1e9))

    def now(self) -> float:
        return self.graph.now_ns * 1e-9

    def messages(self, topic: str) -> list[Any]:
        return list(self.graph.log.get(topic, []))

    def close(self) -> None:
        for node in self.nodes:
            node.destroy_node()
        self.rclpy.try_shutdown()


class RealHarness(_Common):
    """Over real rclpy: a helper node publishes inputs and ``/clock`` and records the outputs."""

    real = True

    def __init__(self, rclpy: Any) -> None:
        super().__init__(rclpy)
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.node import Node
        from rosgraph_msgs.msg import Clock

        rclpy.init()
        self._Clock = Clock
        self.helper = Node("snake_control_test_harness")
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.helper)
        self._clock_pub = self.helper.create_publisher(Clock, "/clock", 10)
        self._inputs: dict[str, Any] = {}
        self._log: dict[str, list[Any]] = {}
        self._t_ns = 1_000_000_000  # start at 1 s: time 0 means "no clock received yet" in rclpy
        self._publish_clock()

    def _publish_clock(self) -> None:
        from builtin_interfaces.msg import Time

        self._clock_pub.publish(self._Clock(clock=Time(sec=self._t_ns // 1_000_000_000,
                                                       nanosec=self._t_ns % 1_000_000_000)))

    def make(self, node_class: type, cli_args: list[str] | None = None, namespace: str | None = None,
             **params: Any) -> Any:
        params = {k.replace("__", "."): v for k, v in params.items()}
        params.setdefault("use_sim_time", True)
        node = node_class(parameter_overrides=self._overrides(params), cli_args=cli_args, namespace=namespace)
        self.nodes.append(node)
        self.executor.add_node(node)
        for pub in node.publishers:
            if pub.topic_name in self._log or pub.topic_name.startswith("/rosout") or \
                    pub.topic_name == "/parameter_events":
                continue
            self._log[pub.topic_name] = []
            self.helper.create_subscription(pub.msg_type, pub.topic_name, self._log[pub.topic_name].append,
                                            CAPTURE_DEPTH)
        self._spin(0.3)
        self._publish_clock()
        self._spin(0.1)
        return node

    def _spin(self, seconds: float) -> None:
        import time

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.01)

    def publish(self, topic: str, msg: Any) -> None:
        if topic not in self._inputs:
            self._inputs[topic] = self.helper.create_publisher(type(msg), topic, 10)
            self._spin(0.3)  # discovery
        self._inputs[topic].publish(msg)
        self._spin(0.05)

    def advance(self, seconds: float) -> None:
        step = 1_000_000  # 1 ms clock ticks so that every timer period is seen
        target = self._t_ns + round(seconds * 1e9)
        while self._t_ns < target:
            self._t_ns = min(target, self._t_ns + step)
            self._publish_clock()
            self.executor.spin_once(timeout_sec=0.002)
        self._spin(0.05)

    def now(self) -> float:
        return self._t_ns * 1e-9

    def messages(self, topic: str) -> list[Any]:
        self._spin(0.05)
        return list(self._log.get(topic, []))

    def close(self) -> None:
        for node in self.nodes:
            self.executor.remove_node(node)
            node.destroy_node()
        self.helper.destroy_node()
        self.rclpy.try_shutdown()
