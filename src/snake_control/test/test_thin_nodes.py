"""Acceptance: no node contains numerics beyond message conversion; everything else comes from
snake_core. Checked on the source: the node modules call no maths (numpy beyond building arrays,
math's or numpy's functions, scipy, products of variables; naming a constant such as π is no maths)
and import only messages, rclpy, snake_core (the simulator's node also snake_sim) and snake_control's
ros_interface (where the message conversions live)."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2]
#: node → its module (the embedded simulator's node is the simulator's side: snake_sim_ros)
NODES = {**{name: SRC / "snake_control" / "snake_control" / f"{name}.py"
            for name in ("gait_generator", "sea_joint_controller", "motor_command_mux", "head_tracking_controller",
                         "manipulability_monitor", "head_odometry")},
         "simulator": SRC / "snake_sim_ros" / "snake_sim_ros" / "simulator.py"}
#: numpy used only to hold message data for snake_core's functions
ARRAY_BUILDERS = {"array", "asarray", "zeros"}
#: constants of math and numpy: naming one computes nothing
CONSTANTS = {"pi", "tau", "e", "inf", "nan"}
ALLOWED_IMPORTS = ("math", "rclpy", "rcl_interfaces", "std_msgs", "std_srvs", "sensor_msgs", "nav_msgs",
                   "geometry_msgs", "visualization_msgs", "diagnostic_msgs", "rosgraph_msgs", "controller_manager_msgs",
                   "snake_core", "snake_sim", "numpy", "inspect", "importlib", "time", "collections", "__future__",
                   ".ros_interface", "snake_control.ros_interface")


def maths_in(source: str) -> list[str]:
    """What a node module computes itself (empty for a thin node)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("np", "math") \
                and node.attr not in ARRAY_BUILDERS | CONSTANTS:
            found.append(f"{node.value.id}.{node.attr}")
        if isinstance(node, ast.Name) and node.id == "scipy":
            found.append(node.id)
        # products only as constant × …: rate → period (1.0 / rate), marker size (2.0 × scale × semi-axis)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div, ast.Pow, ast.MatMult)) and not (
                isinstance(node.left, ast.Constant)
                or (isinstance(node.left, ast.BinOp) and isinstance(node.left.left, ast.Constant))):
            found.append(f"arithmetic at line {node.lineno}")
        modules = [("." * node.level) + (node.module or "")] if isinstance(node, ast.ImportFrom) else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        found += [f"import {m}" for m in modules if not m.startswith(ALLOWED_IMPORTS)]
    return found


@pytest.mark.parametrize("name", NODES)
def test_node_module_does_no_maths(name):
    assert maths_in(NODES[name].read_text()) == []


def test_the_check_sees_maths():
    found = maths_in("import math\nimport numpy as np\nx = np.sin(a) * b\ny = math.cos(c)\nimport scipy.linalg\n")
    assert set(found) == {"import scipy.linalg", "arithmetic at line 3", "np.sin", "math.cos"}


def test_the_check_lets_constants_be_named():
    assert maths_in("import math\nimport numpy as np\nlow, high = -np.pi, 2.0 * math.pi\n") == []
