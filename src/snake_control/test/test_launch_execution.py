"""The launch files executed against a recording stand-in for `launch`/`launch_ros` (ROS is not
installed here): generate_launch_description() runs, the robot-dependent part (OpaqueFunction) gives
one sea_joint_controller per joint of the robot file, and every snake_control node it starts comes
up on the rclpy double with exactly the parameters the launch file passes (params files + dicts)."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import pytest

from snake_core.robot import load_robot

ROOT = Path(__file__).resolve().parents[3]
NODE_CLASSES = {
    "gait_generator": ("snake_control.gait_generator", "GaitGenerator"),
    "sea_joint_controller": ("snake_control.sea_joint_controller", "SEAJointController"),
    "motor_command_mux": ("snake_control.motor_command_mux", "MotorCommandMux"),
    "manipulability_monitor": ("snake_control.manipulability_monitor", "ManipulabilityMonitorNode"),
    "head_tracking_controller": ("snake_control.head_tracking_controller", "HeadTrackingController"),
    "head_odometry": ("snake_control.head_odometry", "HeadOdometry"),
}


class Context:
    def __init__(self, configurations: dict[str, str]):
        self.launch_configurations = configurations


class Action:
    """Records its arguments (every launch action and substitution used by the launch files)."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class LaunchConfiguration(Action):
    def perform(self, context: Context) -> str:
        return context.launch_configurations[self.args[0]]


class FindPackageShare(Action):
    def perform(self, context: Context) -> str:
        return str(ROOT) if self.args[0] == "snake_bringup" else f"/opt/ros/jazzy/share/{self.args[0]}"


class DeclareLaunchArgument(Action):
    @property
    def name(self) -> str:
        return self.args[0]


class OpaqueFunction(Action):
    pass


class Node(Action):
    pass


def fake_launch_modules() -> dict[str, types.ModuleType]:
    names = {
        "launch": {"LaunchDescription": Action},
        "launch.actions": {"DeclareLaunchArgument": DeclareLaunchArgument, "IncludeLaunchDescription": Action,
                           "OpaqueFunction": OpaqueFunction, "ExecuteProcess": Action},
        "launch.conditions": {"IfCondition": Action, "UnlessCondition": Action},
        "launch.launch_description_sources": {"PythonLaunchDescriptionSource": Action},
        "launch.substitutions": {"Command": Action, "FindExecutable": Action, "PathJoinSubstitution": Action,
                                 "LaunchConfiguration": LaunchConfiguration, "PythonExpression": Action},
        "launch_ros": {},
        "launch_ros.actions": {"Node": Node},
        "launch_ros.parameter_descriptions": {"ParameterValue": Action},
        "launch_ros.substitutions": {"FindPackageShare": FindPackageShare},
    }
    modules = {}
    for name, attrs in names.items():
        modules[name] = types.ModuleType(name)
        modules[name].__dict__.update(attrs)
    return modules


def launch(path: Path, monkeypatch, **overrides: str) -> list[Node]:
    """Every Node the launch file starts with these argument values (defaults otherwise)."""
    for name, module in fake_launch_modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location(path.stem.replace(".", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entities = module.generate_launch_description().args[0]
    configuration = {e.name: e.kwargs.get("default_value") for e in entities if isinstance(e, DeclareLaunchArgument)}
    configuration.update(overrides)
    context = Context(configuration)
    nodes = [e for e in entities if isinstance(e, Node)]
    for opaque in (e for e in entities if isinstance(e, OpaqueFunction)):
        nodes += [e for e in opaque.kwargs["function"](context) if isinstance(e, Node)]
    return nodes


def resolve(value, context: Context):
    """A parameter file (PathJoinSubstitution of the share) or a dict with substitutions, evaluated."""
    if isinstance(value, dict):
        return {k: resolve(v, context) for k, v in value.items()}
    if isinstance(value, LaunchConfiguration):
        return value.perform(context)
    if isinstance(value, Action):  # PathJoinSubstitution([share, "config", ...])
        parts = []
        for p in value.args[0]:
            parts.append(p.perform(context) if hasattr(p, "perform") else "".join(
                q.perform(context) if hasattr(q, "perform") else q for q in p) if isinstance(p, list) else p)
        return "/".join(parts)
    return value


def start(ros, node: Node, context: Context):
    """Bring a snake_control node up on the double as launch_ros would: --params-file per file, then
    the dicts as -p overrides (launch_ros writes them into a temporary params file, same effect)."""
    import importlib

    module, cls = NODE_CLASSES[node.kwargs["executable"]]
    cli = ["--ros-args"]
    overrides = {}
    for entry in node.kwargs.get("parameters", []):
        value = resolve(entry, context)
        if isinstance(value, dict):
            overrides.update(value)
        else:
            assert Path(value).is_file(), value
            cli += ["--params-file", value]
    for name, value in overrides.items():
        cli += ["-p", f"{name}:={'true' if value is True else 'false' if value is False else value}"]
    return ros.make(getattr(importlib.import_module(module), cls), cli_args=cli,
                    namespace=node.kwargs.get("namespace"))


@pytest.mark.parametrize("controller", ["position", "stiffness", "tsc", "torque"])
@pytest.mark.parametrize("launch_file", ["sim.launch.py", "robot.launch.py"])
def test_launch_starts_one_controller_per_joint_and_every_node_comes_up(ros, monkeypatch, launch_file, controller):
    overrides = {"controller": controller}
    nodes = launch(ROOT / "launch" / launch_file, monkeypatch, **overrides)
    robot = load_robot("koopaee6")
    sea = [n for n in nodes if n.kwargs["executable"] == "sea_joint_controller"]
    assert sorted(n.kwargs["namespace"] for n in sea) == [f"joint_{j}" for j in range(1, robot.n_joints + 1)]
    context = Context({**{"robot": "koopaee6", "gait": "pedal_wave", "use_sim_time": "true"}, **overrides})
    started = {}
    for node in nodes:
        if node.kwargs["package"] == "snake_control" and "condition" not in node.kwargs:
            started.setdefault(node.kwargs["executable"], []).append(start(ros, node, context))
    assert {n.get_parameter("controller.mode").value for n in started["sea_joint_controller"]} == {controller}
    assert sorted(n.j for n in started["sea_joint_controller"]) == list(range(1, robot.n_joints + 1))
    assert started["gait_generator"][0].get_parameter("gait.type").value == "pedal_wave"


def test_sim_spawns_the_robot_with_its_belly_on_the_ground(monkeypatch):
    for robot in ("koopaee6", "ariizumi10"):
        nodes = launch(ROOT / "launch/sim.launch.py", monkeypatch, robot=robot)
        (spawn,) = [n for n in nodes if n.kwargs["executable"] == "create"]
        args = spawn.kwargs["arguments"]
        assert float(args[args.index("-z") + 1]) == pytest.approx(load_robot(robot).module_width / 2)


def test_sim_with_a_rigid_joint_robot_drives_joint_torques(ros, monkeypatch):
    """004's robot has no SEAs: no sea_joint_controller, the mux forwards head_tracking_controller's
    torques to joint_effort_controller (config/controllers/ariizumi10_gz.yaml)."""
    nodes = launch(ROOT / "launch/sim.launch.py", monkeypatch, robot="ariizumi10", head_tracking="true")
    executables = [n.kwargs["executable"] for n in nodes]
    assert "sea_joint_controller" not in executables
    (spawner,) = [n for n in nodes if n.kwargs["executable"] == "spawner"]
    assert "joint_effort_controller" in spawner.kwargs["arguments"]
    assert "joint_effort_controller:" in (ROOT / "config/controllers/ariizumi10_gz.yaml").read_text()
    context = Context({"robot": "ariizumi10", "gait": "pedal_wave", "use_sim_time": "true"})
    (mux_node,) = [n for n in nodes if n.kwargs["executable"] == "motor_command_mux"]
    mux = start(ros, mux_node, context)
    assert mux.mode == "effort"
    assert {p.topic_name for p in mux.publishers} >= {"/joint_effort_controller/commands"}
    (tracker,) = [n for n in nodes if n.kwargs["executable"] == "head_tracking_controller"]
    assert start(ros, tracker, context).get_parameter("controller.mode").value == "pfl"


@pytest.mark.parametrize(("launch_file", "controllers_file"), [("sim.launch.py", "koopaee6_gz.yaml"),
                                                              ("robot.launch.py", "koopaee6.yaml")])
def test_spawned_controllers_are_defined_in_the_controllers_file(monkeypatch, launch_file, controllers_file):
    import yaml

    nodes = launch(ROOT / "launch" / launch_file, monkeypatch)
    (spawner,) = [n for n in nodes if n.kwargs["executable"] == "spawner"]
    defined = yaml.safe_load((ROOT / "config/controllers" / controllers_file).read_text())
    defined = defined["controller_manager"]["ros__parameters"]
    for name in spawner.kwargs["arguments"][:spawner.kwargs["arguments"].index("--controller-manager")]:
        assert name in defined, f"{launch_file} spawns {name}, not in {controllers_file}"
