"""Every node as ``ros2 run`` starts it (its console script, real rclpy): a bad parameter — a wrong
type or a value outside its declared range — ends it with one line naming the parameter and exit
code 2; and a node whose /diagnostics go from ERROR to WARN keeps running (rclpy refuses a severity
change at one logging call site)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent

#: executable → (parameter, a value of the wrong type, a value out of range)
BAD_PARAMETERS = {
    "gait_generator": ("gait.amplitude", "'wide'", "2.0"),
    "sea_joint_controller": ("rate", "'fast'", "5000.0"),
    "motor_command_mux": ("rate", "true", "0.5"),
    "head_tracking_controller": ("stale_timeout", "'1'", "20.0"),
    "manipulability_monitor": ("rate", "[1.0]", "5000.0"),
    "head_odometry": ("stale_timeout", "1", "0.0"),
    "simulator": ("real_time_factor", "'fast'", "-1.0"),
}


def run_node(ros, executable: str, *ros_args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / executable), "--ros-args", *ros_args], capture_output=True, text=True,
                          timeout=60, env=os.environ.copy())


@pytest.mark.parametrize("executable", sorted(BAD_PARAMETERS))
@pytest.mark.parametrize("kind", ["wrong type", "out of range"])
def test_bad_parameter_ends_the_node_with_one_line_and_exit_code_2(ros, executable, kind):
    name, wrong_type, out_of_range = BAD_PARAMETERS[executable]
    value = wrong_type if kind == "wrong type" else out_of_range
    result = run_node(ros, executable, "-p", f"{name}:={value}")
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and name in errors[0], result.stderr


def test_unknown_robot_file_ends_the_node_with_exit_code_2(ros):
    result = run_node(ros, "sea_joint_controller", "-p", "robot:=no_such_robot")
    assert result.returncode == 2 and "no_such_robot" in result.stderr


def test_diagnostics_may_go_from_error_to_warning_and_back(ros):
    from diagnostic_msgs.msg import DiagnosticArray
    from rclpy.node import Node

    from snake_control.ros_interface import ERROR, OK, WARN, Diagnostics

    node = ros.make(lambda **kw: Node("diagnostics_test", **kw))
    diag = Diagnostics(node, "test")
    ros.record("/diagnostics", DiagnosticArray)
    sequence = [ERROR, WARN, ERROR, OK]
    for level in sequence:  # the defect: the second call raised "Logger severity cannot be changed"
        diag.report(level, f"level {level!r}")
        ros.settle()
    assert [m.status[0].level for m in ros.messages("/diagnostics")] == sequence


@pytest.mark.parametrize(("option", "value"), [("--window", "0"), ("--settle", "-1"), ("--rates", "0"),
                                                ("--robot", "nosuchrobot")])
def test_control_bench_refuses_a_bad_option_in_one_line_before_starting_nodes(ros, option, value):
    result = subprocess.run([str(BIN / "snake-control-bench"), option, value], capture_output=True, text=True,
                            timeout=60, env=os.environ.copy())
    assert result.returncode == 2 and result.stdout == "", result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("snake-control-bench: error:") and value in lines[0], lines


def test_enforced_security_that_cannot_start_is_one_line_naming_it_and_exit_code_2(ros, tmp_path):
    # an empty keystore: no enclave for the node, whether the middleware has DDS Security or not
    env = {**os.environ, "ROS_SECURITY_ENABLE": "true", "ROS_SECURITY_STRATEGY": "Enforce",
           "ROS_SECURITY_KEYSTORE": str(tmp_path)}
    result = subprocess.run([str(BIN / "gait_generator")], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert "Traceback" not in result.stderr and "ROS_SECURITY_ENABLE=true" in lines[-1], result.stderr
    assert lines[-1].startswith("GaitGeneratorNode: error: ROS 2 did not start")
