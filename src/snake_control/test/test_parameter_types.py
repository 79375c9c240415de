"""A node parameter that takes a number or a list of numbers (a gain, free_joints, a per-joint controller value)
given another type — a string, a bool, floats where joints are counted — ends the node as ``ros2 run`` starts it
with one line naming the parameter and exit code 2 (not a traceback and exit 1, nor a silent bool as 1)."""

import array
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snake_core.validation import ConfigError

BIN = Path(sys.executable).parent

CASES = [
    ("head_tracking_controller", "controller.K_p", "'abc'"),
    ("head_tracking_controller", "controller.K_v", "true"),
    ("head_tracking_controller", "free_joints", "'x'"),
    ("manipulability_monitor", "free_joints", "[1.5]"),
    ("sea_joint_controller", "controller.stiffness", "['a', 'b']"),
]


@pytest.mark.parametrize(("executable", "name", "value"), CASES)
def test_a_number_parameter_of_another_type_ends_the_node_with_one_line_and_exit_2(ros, executable, name, value):
    result = subprocess.run([str(BIN / executable), "--ros-args", "-p", f"{name}:={value}"], capture_output=True,
                            text=True, timeout=60, env=os.environ.copy())
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{name} = " in lines[0] and "must be" in lines[0], result.stderr


def test_numbers_takes_a_number_or_a_list_of_numbers_and_nothing_else(ros):
    from snake_control.ros_interface import numbers

    assert numbers(None, "k", "n") is None and numbers(2.5, "k", "n") == 2.5
    assert numbers(array.array("d", [1.0, 2.0]), "k", "n") == [1.0, 2.0]
    assert numbers(array.array("q", [2, 3]), "free_joints", "n", integers=True) == [2, 3]
    for bad, integers in [("1", False), (True, False), (["a"], False), ([1.5], True), (2.0, True)]:
        with pytest.raises(ConfigError, match=r"k = .* is invalid: must be"):
            numbers(bad, "k", "n", integers=integers)


@pytest.mark.parametrize("free_joints", [3, [3]])
def test_one_free_joint_may_be_given_as_an_integer_or_a_list_of_one(ros, free_joints):
    """``-p free_joints:=3`` is an integer parameter, not a list: it names joint 3 as ``[3]`` does."""
    from snake_control.manipulability_monitor import ManipulabilityMonitorNode
    from snake_core.planar.convention import free_joints_from_suite
    from snake_core.robot import load_robot

    node = ros.make(ManipulabilityMonitorNode, robot="ariizumi10", free_joints=free_joints)
    assert node.monitor.free_joints == free_joints_from_suite([3], load_robot("ariizumi10").n_links)


@pytest.mark.parametrize("node", ["HeadTrackingControllerNode", "ManipulabilityMonitorNode"])
def test_free_joints_is_declared_from_its_spec_and_a_joint_outside_1_to_n_is_refused_at_start_in_one_line(ros, node):
    """``free_joints`` (snake_core.planar.convention.FREE_JOINTS): a read-only integer array described by its spec;
    on ariizumi10 (9 joints) joint 10 or 0 ends the start with one line naming the element, the range and 004 §3.2."""
    from snake_control.head_tracking_controller import HeadTrackingControllerNode
    from snake_control.manipulability_monitor import ManipulabilityMonitorNode
    from snake_core.planar.convention import FREE_JOINTS

    cls = {c.__name__: c for c in (HeadTrackingControllerNode, ManipulabilityMonitorNode)}[node]
    made = ros.make(cls, robot="ariizumi10", free_joints=[2])
    d = made.describe_parameter("free_joints")
    assert d.read_only and "integer array" in d.description
    assert FREE_JOINTS.description in d.description and FREE_JOINTS.source in d.description
    for bad, message in (([3, 10], "free_joints[1] = 10 is invalid: must be an integer in [1, 9] (004 §3.2)"),
                         (0, "free_joints[0] = 0 is invalid: must be an integer in [1, 9] (004 §3.2)")):
        with pytest.raises(ConfigError) as err:
            ros.make(cls, robot="ariizumi10", free_joints=bad)
        assert str(err.value).endswith(message) and "\n" not in str(err.value), err.value
