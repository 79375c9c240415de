"""The launch files, checked without ROS by reading them with ``ast``: every executable of our
packages they start is installed by its setup.py (a console_scripts entry point, or a script
data_files puts into lib/<package> as snake_hardware's can_bridge), other packages are exec_depends of
snake_bringup, every config/world/xacro file they name exists (for every value of the launch
arguments it depends on), every declared argument is documented in README.md, and the node
parameters they and config/*.yaml set are parameters the nodes declare."""

from __future__ import annotations

import ast
import itertools
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
LAUNCH_FILES = sorted((ROOT / "launch").glob("*.launch.py"))
OUR_PACKAGES = {p.parent.name: p for p in (ROOT / "src").glob("*/setup.py")}


def calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)]


def kwarg(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def literal(node: ast.expr | None):
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return None


def declared_arguments(tree: ast.AST) -> dict[str, list[str]]:
    """name → candidate values (default, then choices)."""
    out = {}
    for call in calls(tree, "DeclareLaunchArgument"):
        name = literal(call.args[0])
        values = [literal(kwarg(call, "default_value")), *list(literal(kwarg(call, "choices")) or [])]
        out[name] = [v for v in dict.fromkeys(values) if v is not None]
    return out


def candidates(node: ast.expr, args: dict[str, list[str]]) -> list[str] | None:
    """Every string a substitution can evaluate to, or None if it is not a file-name substitution."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "LaunchConfiguration":
        return args.get(literal(node.args[0]), [])
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "FindPackageShare":
        return [""]
    if isinstance(node, ast.Name) and node.id == "share":
        return [""]
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "perform":
        return candidates(node.func.value, args)
    if isinstance(node, ast.Name) and node.id in args:  # a local bound to LaunchConfiguration(name)
        return args[node.id]
    if isinstance(node, (ast.List, ast.JoinedStr)):
        parts = [candidates(v.value if isinstance(v, ast.FormattedValue) else v, args) for v in node.elts
                 ] if isinstance(node, ast.List) else [
            candidates(v.value if isinstance(v, ast.FormattedValue) else v, args) for v in node.values]
        if any(p is None for p in parts):
            return None
        return ["".join(c) for c in itertools.product(*parts)]
    return None


def named_files(path: Path) -> list[str]:
    """Workspace-relative files a launch file names (PathJoinSubstitution parts and f-strings)."""
    tree = ast.parse(path.read_text())
    args = declared_arguments(tree)
    args["robot"] = args.get("robot", [])
    files = []
    for call in calls(tree, "PathJoinSubstitution"):
        elts = call.args[0].elts
        if not (elts and (getattr(elts[0], "id", None) == "share")):
            continue  # another package's share (ros_gz_sim)
        parts = [candidates(e, args) for e in elts[1:]]
        if any(p is None for p in parts):
            continue
        files += ["/".join(c) for c in itertools.product(*parts)]
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and isinstance(node.values[0], ast.FormattedValue) \
                and getattr(node.values[0].value, "id", None) == "share":
            files += [c.lstrip("/") for c in candidates(node, args) or []]
    return files


def executables(setup_py: Path) -> set[str]:
    """What ``ros2 run <package>`` finds after colcon build: console_scripts entry points (installed
    into lib/<package> by setup.cfg) and scripts that data_files installs into lib/<package>."""
    tree = ast.parse(setup_py.read_text())
    names = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
             for t in n.targets if isinstance(t, ast.Name)}

    def text(node: ast.expr) -> str | None:  # "lib/" + package_name
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return names.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = text(node.left), text(node.right)
            return None if left is None or right is None else left + right
        return None

    found = set()
    for call in calls(tree, "setup"):
        eps = literal(kwarg(call, "entry_points")) or {}
        found |= {s.split("=")[0].strip() for s in eps.get("console_scripts", [])}
        data_files = kwarg(call, "data_files")
        for entry in data_files.elts if isinstance(data_files, ast.List) else []:
            if isinstance(entry, ast.Tuple) and text(entry.elts[0]) == f"lib/{names.get('package_name')}":
                found |= {Path(text(f)).name for f in entry.elts[1].elts if text(f) is not None}
    return found


def started_nodes(path: Path) -> list[tuple[str, str, ast.Call]]:
    tree = ast.parse(path.read_text())
    return [(literal(kwarg(c, "package")), literal(kwarg(c, "executable")), c) for c in calls(tree, "Node")]


def test_the_four_launch_files_exist():
    assert [p.name for p in LAUNCH_FILES] == ["replay.launch.py", "robot.launch.py", "sim.launch.py",
                                               "view.launch.py"]


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_every_executable_started_exists(path):
    exec_depends = {e.text for e in ET.parse(ROOT / "src/snake_bringup/package.xml").getroot().iter("exec_depend")}
    for package, executable, _call in started_nodes(path):
        assert package and executable, f"{path.name}: a Node without literal package/executable"
        if package in OUR_PACKAGES:
            assert executable in executables(OUR_PACKAGES[package]), f"{path.name}: {package}/{executable}"
        else:
            assert package in exec_depends, f"{path.name}: {package} is not an exec_depend of snake_bringup"


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_every_named_config_world_and_xacro_file_exists(path):
    files = named_files(path)
    assert any(f.endswith(".rviz") for f in files)
    for f in files:
        assert (ROOT / f).is_file(), f"{path.name} names {f}, which does not exist"


def test_file_resolution_sees_every_argument_value():
    """The checker itself: sim.launch.py's world and controller choices all become files."""
    files = named_files(ROOT / "launch/sim.launch.py")
    assert "worlds/flat.sdf" in files and "urdf/snake.urdf.xacro" in files
    assert {f"config/sea_modes/{m}.yaml" for m in ("position", "stiffness", "tsc", "torque")} <= set(files)


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_every_declared_argument_is_documented_in_the_readme(path):
    readme = (ROOT / "README.md").read_text()
    match = re.search(rf"^#+ [^\n]*`{re.escape(path.name)}`[^\n]*\n(.*?)(?=^#+ |\Z)", readme, re.M | re.S)
    assert match, f"README.md has no section for {path.name}"
    for name in declared_arguments(ast.parse(path.read_text())):
        assert f"`{name}`" in match.group(1), f"README.md does not document {path.name} argument `{name}`"


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        out.update(_flatten(v, key + ".") if isinstance(v, dict) else {key: v})
    return out


NODE_CLASSES = {
    "gait_generator": ("snake_control.gait_generator", "GaitGenerator", {}),
    "sea_joint_controller": ("snake_control.sea_joint_controller", "SEAJointController", {}),
    "motor_command_mux": ("snake_control.motor_command_mux", "MotorCommandMux", {}),
    "manipulability_monitor": ("snake_control.manipulability_monitor", "ManipulabilityMonitorNode", {}),
    "head_tracking_controller": ("snake_control.head_tracking_controller", "HeadTrackingController", {}),
    "head_odometry": ("snake_control.head_odometry", "HeadOdometry", {}),
}


def declared(ros, executable: str, **params) -> set[str]:
    import importlib

    module, cls, _ = NODE_CLASSES[executable]
    node = ros.make(getattr(importlib.import_module(module), cls), **params)
    return set(node._parameters)  # rclpy.node.Node keeps its declared parameters there too


@pytest.mark.parametrize("executable", sorted(NODE_CLASSES))
def test_config_yaml_sets_only_declared_parameters(ros, executable):
    files = [ROOT / "config/snake_control.yaml", *sorted((ROOT / "config/sea_modes").glob("*.yaml"))]
    names = declared(ros, executable)
    for f in files:
        for key, section in yaml.safe_load(f.read_text()).items():
            if key.split("/")[-1] != executable:
                continue
            for param in _flatten(section["ros__parameters"]):
                assert param in names, f"{f.name}: {key}.{param} is not a parameter of {executable}"


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_parameter_dicts_set_only_declared_parameters(ros, path):
    for package, executable, call in started_nodes(path):
        if package != "snake_control" or executable not in NODE_CLASSES:
            continue
        params = kwarg(call, "parameters")
        dicts = [e for e in params.elts if isinstance(e, ast.Dict)] if isinstance(params, ast.List) else []
        names = declared(ros, executable)
        for d in dicts:
            for key in d.keys:
                assert literal(key) in names, f"{path.name}: {executable} has no parameter {literal(key)!r}"


def test_docker_images_copy_existing_paths_and_compose_passes_declared_arguments():
    for dockerfile in ("Dockerfile.sim", "Dockerfile.robot"):
        text = (ROOT / "docker" / dockerfile).read_text()
        for src in re.findall(r"^COPY (\S+) ", text, re.M):
            assert (ROOT / src).exists(), f"{dockerfile} copies {src}, which does not exist"
    compose = yaml.safe_load((ROOT / "docker/compose.robot.yaml").read_text())
    command = compose["services"]["robot"]["command"]
    launch = command[command.index("snake_bringup") + 1]
    args = declared_arguments(ast.parse((ROOT / "launch" / launch).read_text()))
    for item in command[command.index(launch) + 1:]:
        assert item.split(":=")[0] in args, f"compose passes {item}, not an argument of {launch}"
    assert compose["services"]["robot"]["network_mode"] == "host"  # SocketCAN lives in the host's netns


@pytest.mark.parametrize("mode", ["position", "stiffness", "tsc", "torque"])
def test_nodes_start_from_the_shipped_params_files_as_the_launch_files_pass_them(ros, mode):
    """``--params-file config/snake_control.yaml --params-file config/sea_modes/<mode>.yaml``, the
    way launch_ros passes ``parameters=[...]``, with the node in namespace joint_3."""
    from snake_control.gait_generator import GaitGenerator
    from snake_control.sea_joint_controller import SEAJointController

    files = ["--params-file", str(ROOT / "config/snake_control.yaml"),
             "--params-file", str(ROOT / f"config/sea_modes/{mode}.yaml")]
    node = ros.make(SEAJointController, cli_args=["--ros-args", *files, "-p", "joint_index:=3"], namespace="joint_3")
    assert node.get_parameter("controller.mode").value == mode
    assert node.j == 3
    expected = yaml.safe_load((ROOT / f"config/sea_modes/{mode}.yaml").read_text())
    for key, value in _flatten(next(iter(expected.values()))["ros__parameters"]).items():
        assert node.get_parameter(key).value == value
    gait = ros.make(GaitGenerator, cli_args=["--ros-args", *files])
    assert gait.get_parameter("gait.phase_shift").value == pytest.approx(-2 * 3.141592653589793 / 5)


def test_executables_are_read_from_entry_points_and_lib_scripts():
    assert {"gait_generator", "sea_joint_controller", "head_tracking_controller", "manipulability_monitor",
            "motor_command_mux", "head_odometry"} <= executables(OUR_PACKAGES["snake_control"])
    assert "snake-sim" in executables(OUR_PACKAGES["snake_sim"])
    assert "nonexistent_node" not in executables(OUR_PACKAGES["snake_control"])
