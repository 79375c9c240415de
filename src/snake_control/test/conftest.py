from collections.abc import Iterator
from pathlib import Path

import pytest

from snake_control import graph
from snake_test_support.ros import GraphHarness, graph_harness, ros  # noqa: F401  (ros: the fixture on real rclpy)


@pytest.fixture
def ros_graph(tmp_path: Path) -> Iterator[GraphHarness]:
    """snake_control's nodes as processes on real rclpy, with a probe (snake_test_support.ros.GraphHarness)."""
    with graph_harness(tmp_path, graph) as harness:
        yield harness
