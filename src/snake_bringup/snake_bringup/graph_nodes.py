"""launch_ros ``Node`` actions from :mod:`snake_control.graph`: the graph the launch files start is
the one definition the graph tests start too (``ros2 run`` of the same executables, parameter files
and parameters)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from launch_ros.actions import Node

from snake_control.graph import NodeSpec


def launch_nodes(specs: Iterable[NodeSpec], share: str, use_sim_time: bool,
                 extra: Callable[[NodeSpec], Mapping[str, Any]] | None = None) -> list[Node]:
    """One Node per spec: its parameter files from snake_bringup's share (in order), then its
    parameters with ``use_sim_time`` (NodeSpec.node_parameters); ``extra``: more Node arguments of a spec
    (robot.launch.py's enclave and security environment)."""
    return [
        Node(package=spec.package, executable=spec.executable, name=spec.name, namespace=spec.namespace or None,
             output="screen",
             parameters=[*(f"{share}/{f}" for f in spec.param_files), spec.node_parameters(use_sim_time)],
             **(extra(spec) if extra is not None else {}))
        for spec in specs
    ]
