"""pytest fixture ``ros``: real rclpy where it is importable, the test double otherwise.

Use it from any package's tests (the CAN bridge of ``snake_hardware`` does) by importing it in
that package's ``test/conftest.py``::

    from snake_control.testing.fixtures import ros  # noqa: F401  (the fixture)

and importing rclpy-based modules *inside* the test, after the fixture has run::

    def test_bridge_publishes_joint_states(ros):
        from sensor_msgs.msg import JointState
        from snake_hardware.bridge_node import CanBridgeNode

        node = ros.make(CanBridgeNode, can_bus_type="virtual", can_interface="vcan0", robot="koopaee6")
        ros.publish("/can_bridge/joint_commands", JointState(name=["motor_1"], position=[0.1]))
        ros.advance(0.1)  # ROS time moves 0.1 s; the node's timers fire at their periods
        states = ros.messages("/can_bridge/joint_states")
        assert isinstance(states[-1], JointState)

``ros.make(NodeClass, **params)`` passes ``params`` as parameter overrides (``a__b`` for ``a.b``;
``cli_args=["--ros-args", "--params-file", path]`` and ``namespace=`` as for rclpy.node.Node).

``ros.real`` tells which one runs; ``SNAKE_FAKE_RCLPY=1`` forces the double even where ROS is
installed. The double's modules stay in ``sys.modules`` only for the duration of the test.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator

import pytest

from .harness import FakeHarness, RealHarness

#: Environment variable that forces the test double even where rclpy is installed.
FORCE_FAKE_ENV = "SNAKE_FAKE_RCLPY"


def real_rclpy_available() -> bool:
    """True when a real rclpy (not our double) can be imported."""
    if os.environ.get(FORCE_FAKE_ENV) == "1":
        return False
    loaded = sys.modules.get("rclpy")
    if loaded is not None:
        return not getattr(loaded, "IS_TEST_DOUBLE", False)
    return importlib.util.find_spec("rclpy") is not None


def install_double(setitem) -> None:
    """Put the rclpy double and the generated message packages into ``sys.modules`` via ``setitem``
    (``monkeypatch.setitem``, undone after the test). The module objects are built once per process,
    so node modules imported by an earlier test keep referring to the same classes."""
    from .messages import message_modules
    from .rclpy_double import rclpy_modules

    for name, module in {**message_modules(), **rclpy_modules()}.items():
        setitem(sys.modules, name, module)


@pytest.fixture
def ros(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHarness | RealHarness]:
    """A harness over real rclpy when importable, else over the double (see the module docstring)."""
    if real_rclpy_available():
        import rclpy

        harness: FakeHarness | RealHarness = RealHarness(rclpy)
    else:
        install_double(monkeypatch.setitem)
        import rclpy

        harness = FakeHarness(rclpy)
    try:
        yield harness
    finally:
        harness.close()
