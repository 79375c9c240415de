"""The launch files executed against a stand-in for ``launch``/``launch_ros`` (neither has a wheel, so
neither can be a dependency of the project), for every combination of their choices arguments.

The stand-in records what the launch files build and evaluates it as ROS 2 Jazzy does (launch 3.4,
launch_ros 0.26): substitutions are normalised by launch's ``normalize_to_list_of_substitutions`` (a
str, a Substitution, or a flat list of both: a nested list fails, as it does under ``ros2 launch``),
conditions accept only true/false/1/0, arguments outside their choices are refused, groups,
OpaqueFunctions and event handlers run their actions. On what the launch files start:

- our nodes are exactly snake_control.graph's specs, mapped as launch_ros starts them (name,
  namespace, parameter files from snake_bringup's share, then the parameters with use_sim_time);
- every parameter they get, from the files and from the launch file, is declared by the node, on
  real rclpy;
- every executable exists (our setup.py files, or an exec_depend of snake_bringup), every file
  named in snake_bringup's share exists;
- Gazebo's spawn, controllers and ground-truth bridge fit the robot file, the controllers file and
  the PosePublisher of urdf/snake.gazebo.xacro.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import itertools
import os
import sys
import tempfile
import types
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml

from snake_control import graph
from snake_core.interface import CAN_BRIDGE_ESTOP_ENGAGED
from snake_core.robot import load_robot
from snake_test_support.ros import RosHarness, require_rclpy

ROOT = Path(__file__).resolve().parents[3]
LAUNCH_FILES = ("sim.launch.py", "robot.launch.py", "view.launch.py", "replay.launch.py")
#: Arguments without a default: a value for them.
REQUIRED = {"bag": "out/demo/rosbag"}
OTHER_SHARE = "/opt/ros/jazzy/share"
#: The packages of our nodes: snake_control's, and the embedded simulator's node on the simulator's side.
OUR_NODES = (graph.PACKAGE, graph.SIMULATOR_PACKAGE)


# ------------------------------------------------------------------------------ the stand-in


class Substitution:
    def perform(self, context: Context) -> str:
        raise NotImplementedError


class TextSubstitution(Substitution):
    def __init__(self, *, text: str) -> None:
        self.text = text

    def perform(self, context: Context) -> str:
        return self.text


def normalize_to_list_of_substitutions(subs: Any) -> list[Substitution]:
    """launch.utilities.normalize_to_list_of_substitutions of Jazzy, line for line."""
    def normalize(x: Any) -> Substitution:
        if isinstance(x, Substitution):
            return x
        if isinstance(x, str):
            return TextSubstitution(text=x)
        raise TypeError(f"Failed to normalize given item of type '{type(x)}', when only 'str' or "
                        "'launch.Substitution' were expected.")

    if isinstance(subs, str):
        return [TextSubstitution(text=subs)]
    if isinstance(subs, Substitution):
        return [subs]
    return [normalize(y) for y in subs]


def perform(context: Context, subs: Any) -> str:
    return "".join(s.perform(context) for s in normalize_to_list_of_substitutions(subs))


def evaluate_condition(context: Context, subs: list[Substitution]) -> bool:
    """launch.conditions.evaluate_condition_expression: only true/false/1/0 (any case)."""
    value = perform(context, subs).lower()
    if value not in ("true", "1", "false", "0"):
        raise ValueError(f"invalid condition expression {value!r}")
    return value in ("true", "1")


class LaunchConfiguration(Substitution):
    def __init__(self, variable_name: Any, *, default: Any = None) -> None:
        self.name = normalize_to_list_of_substitutions(variable_name)

    def perform(self, context: Context) -> str:
        return context.launch_configurations[perform(context, self.name)]


class PathJoinSubstitution(Substitution):
    def __init__(self, substitutions: Any) -> None:
        self.substitutions = normalize_to_list_of_substitutions(substitutions)

    def perform(self, context: Context) -> str:
        return os.path.join(*(s.perform(context) for s in self.substitutions))


class FindPackageShare(Substitution):
    def __init__(self, package: Any) -> None:
        self.package = normalize_to_list_of_substitutions(package)

    def perform(self, context: Context) -> str:
        package = perform(context, self.package)
        return str(ROOT) if package in ("snake_bringup", "snake_description") else f"{OTHER_SHARE}/{package}"


class FindExecutable(Substitution):
    def __init__(self, *, name: Any) -> None:
        self.name = normalize_to_list_of_substitutions(name)

    def perform(self, context: Context) -> str:
        return perform(context, self.name)


class Command(Substitution):
    """Performs to the command line (the command is not run)."""

    def __init__(self, command: Any, *, on_stderr: str = "fail") -> None:
        self.command = normalize_to_list_of_substitutions(command)

    def perform(self, context: Context) -> str:
        return perform(context, self.command)


class EqualsSubstitution(Substitution):
    def __init__(self, left: Any, right: Any) -> None:
        self.left, self.right = normalize_to_list_of_substitutions(left), normalize_to_list_of_substitutions(right)

    def perform(self, context: Context) -> str:
        return str(perform(context, self.left) == perform(context, self.right)).lower()


class IfElseSubstitution(Substitution):
    def __init__(self, condition: Any, if_value: Any = "", else_value: Any = "") -> None:
        self.condition = normalize_to_list_of_substitutions(condition)
        self.values = normalize_to_list_of_substitutions(if_value), normalize_to_list_of_substitutions(else_value)

    def perform(self, context: Context) -> str:
        return perform(context, self.values[0 if evaluate_condition(context, self.condition) else 1])


class IfCondition:
    def __init__(self, predicate_expression: Any) -> None:
        self.predicate = normalize_to_list_of_substitutions(predicate_expression)

    def evaluate(self, context: Context) -> bool:
        return evaluate_condition(context, self.predicate)


class UnlessCondition(IfCondition):
    def evaluate(self, context: Context) -> bool:
        return not super().evaluate(context)


class ParameterValue:
    def __init__(self, value: Any, *, value_type: type | None = None) -> None:
        self.value = normalize_to_list_of_substitutions(value)
        self.value_type = value_type


class Context:
    def __init__(self, configurations: Mapping[str, str], environment: dict[str, str] | None = None) -> None:
        self.launch_configurations = dict(configurations)
        self.environment = {} if environment is None else environment  # what SetEnvironmentVariable set


class Action:
    def __init__(self, *, condition: IfCondition | None = None, **kwargs: Any) -> None:
        self.condition = condition
        self.kwargs = kwargs

    def execute(self, context: Context) -> list[Any]:
        return []


def execute(entities: Sequence[Any], context: Context) -> list[Any]:
    """What launch starts from ``entities``: processes, nodes and included descriptions, performed."""
    started = []
    for entity in entities:
        if entity.condition is None or entity.condition.evaluate(context):
            started += entity.execute(context)
    return started


class LaunchDescription:
    def __init__(self, initial_entities: Sequence[Any] | None = None) -> None:
        self.entities = list(initial_entities or [])


class DeclareLaunchArgument(Action):
    def __init__(self, name: str, *, default_value: Any = None, description: str | None = None,
                 choices: Sequence[str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.name, self.description, self.choices = name, description, choices
        self.default_value = None if default_value is None else normalize_to_list_of_substitutions(default_value)

    def execute(self, context: Context) -> list[Any]:
        if self.name not in context.launch_configurations:
            if self.default_value is None:
                raise RuntimeError(f"Required launch argument '{self.name}' was not provided")
            context.launch_configurations[self.name] = perform(context, self.default_value)
        value = context.launch_configurations[self.name]
        if self.choices is not None and value not in self.choices:
            raise RuntimeError(f"Argument '{self.name}' expected value in {self.choices}, got {value!r}")
        return []


class GroupAction(Action):
    def __init__(self, actions: Sequence[Any], *, scoped: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.actions, self.scoped = list(actions), scoped

    def execute(self, context: Context) -> list[Any]:
        return execute(self.actions, Context(context.launch_configurations, dict(context.environment))
                       if self.scoped else context)


class OpaqueFunction(Action):
    def __init__(self, *, function: Any, args: Sequence[Any] | None = None,
                 kwargs: Mapping[str, Any] | None = None, **left_over: Any) -> None:
        super().__init__(**left_over)
        self.function, self.args, self.function_kwargs = function, args or [], kwargs or {}

    def execute(self, context: Context) -> list[Any]:
        return execute(self.function(context, *self.args, **self.function_kwargs) or [], context)


class SetLaunchConfiguration(Action):
    def __init__(self, name: Any, value: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.name, self.value = normalize_to_list_of_substitutions(name), normalize_to_list_of_substitutions(value)

    def execute(self, context: Context) -> list[Any]:
        context.launch_configurations[perform(context, self.name)] = perform(context, self.value)
        return []


class SetEnvironmentVariable(Action):
    """launch/actions/set_environment_variable.py: ``name`` = ``value`` for the processes started after it."""

    def __init__(self, name: Any, value: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.name, self.value = normalize_to_list_of_substitutions(name), normalize_to_list_of_substitutions(value)

    def execute(self, context: Context) -> list[Any]:
        context.environment[perform(context, self.name)] = perform(context, self.value)
        return []


class OnProcessExit:
    def __init__(self, *, target_action: Any = None, on_exit: Any, **kwargs: Any) -> None:
        self.target_action, self.on_exit = target_action, on_exit


class RegisterEventHandler(Action):
    """The handler's actions, as launch runs them once the target process has exited."""

    def __init__(self, event_handler: OnProcessExit, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.event_handler = event_handler

    def execute(self, context: Context) -> list[Any]:
        return [After(self.event_handler.target_action, execute(self.event_handler.on_exit, context))]


class PythonLaunchDescriptionSource:
    def __init__(self, launch_file_path: Any) -> None:
        self.path = normalize_to_list_of_substitutions(launch_file_path)


class IncludeLaunchDescription(Action):
    def __init__(self, launch_description_source: PythonLaunchDescriptionSource, *,
                 launch_arguments: Sequence[tuple[Any, Any]] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source = launch_description_source
        self.arguments = [(normalize_to_list_of_substitutions(k), normalize_to_list_of_substitutions(v))
                          for k, v in launch_arguments or []]

    def execute(self, context: Context) -> list[Any]:
        return [Included(perform(context, self.source.path),
                         {perform(context, k): perform(context, v) for k, v in self.arguments})]


class ExecuteProcess(Action):
    def __init__(self, *, cmd: Sequence[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cmd = [normalize_to_list_of_substitutions(c) for c in cmd]

    def execute(self, context: Context) -> list[Any]:
        return [Process([perform(context, c) for c in self.cmd])]


def normalize_parameter_value(value: Any) -> Any:
    """launch_ros.utilities.normalize_parameter_dict's value rules: numbers, bools, str, substitutions,
    ParameterValue, lists of those, nested dicts."""
    if isinstance(value, Mapping):
        return {k: normalize_parameter_value(v) for k, v in value.items()}
    if isinstance(value, (ParameterValue, bool, int, float, str, Substitution)):
        return value
    if isinstance(value, Sequence) and all(isinstance(v, (bool, int, float, str, Substitution)) for v in value):
        return list(value)
    raise TypeError(f"Unexpected type for parameter value {value!r}")


class Node(Action):
    def __init__(self, *, executable: Any, package: Any = None, name: Any = None, namespace: Any = None,
                 parameters: Sequence[Any] | None = None, remappings: Sequence[tuple[Any, Any]] | None = None,
                 arguments: Sequence[Any] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.package, self.executable = normalize_to_list_of_substitutions(package), \
            normalize_to_list_of_substitutions(executable)
        self.name = None if name is None else normalize_to_list_of_substitutions(name)
        self.namespace = None if namespace is None else normalize_to_list_of_substitutions(namespace)
        self.arguments = [normalize_to_list_of_substitutions(a) for a in arguments or []]
        self.remappings = [(normalize_to_list_of_substitutions(a), normalize_to_list_of_substitutions(b))
                           for a, b in remappings or []]
        self.parameters = [normalize_parameter_value(p) if isinstance(p, Mapping)
                           else normalize_to_list_of_substitutions(p) for p in parameters or []]

    def execute(self, context: Context) -> list[Any]:
        def value(v: Any) -> Any:  # launch_ros evaluates substitutions and reads the result as YAML
            if isinstance(v, Mapping):
                return {k: value(x) for k, x in v.items()}
            if isinstance(v, ParameterValue):
                text = perform(context, v.value)
                return text if v.value_type is str else yaml.safe_load(text)
            if isinstance(v, Substitution):
                return yaml.safe_load(v.perform(context))
            if isinstance(v, list):
                return [value(x) for x in v]
            return v

        def optional(subs: list[Substitution] | None) -> str | None:
            return None if subs is None else perform(context, subs)

        return [Started(
            package=perform(context, self.package), executable=perform(context, self.executable),
            name=optional(self.name), namespace=optional(self.namespace),
            arguments=[perform(context, a) for a in self.arguments],
            remappings=[(perform(context, a), perform(context, b)) for a, b in self.remappings],
            parameters=[value(p) if isinstance(p, Mapping) else perform(context, p) for p in self.parameters])]


@dataclass
class Started:
    """A node as launch starts it: every substitution performed, parameter files as paths."""

    package: str
    executable: str
    name: str | None
    namespace: str | None
    arguments: list[str]
    remappings: list[tuple[str, str]]
    parameters: list[str | dict[str, Any]]


@dataclass
class Process:
    cmd: list[str]


@dataclass
class Included:
    path: str
    arguments: dict[str, str]


@dataclass
class After:
    """Actions started when ``target`` exits (RegisterEventHandler(OnProcessExit))."""

    target: Node
    started: list[Any]


#: launch.logging's launch_config: its log_dir, the launch's log folder (a folder of this test process here).
LOG_DIR = tempfile.mkdtemp(prefix="snake_launch_log_")
STAND_IN = {
    "launch": {"LaunchDescription": LaunchDescription,
               "logging": types.SimpleNamespace(launch_config=types.SimpleNamespace(log_dir=LOG_DIR))},
    "launch.actions": {c.__name__: c for c in (DeclareLaunchArgument, ExecuteProcess, GroupAction,
                                               IncludeLaunchDescription, OpaqueFunction, RegisterEventHandler,
                                               SetEnvironmentVariable, SetLaunchConfiguration)},
    "launch.conditions": {"IfCondition": IfCondition, "UnlessCondition": UnlessCondition},
    "launch.event_handlers": {"OnProcessExit": OnProcessExit},
    "launch.launch_description_sources": {"PythonLaunchDescriptionSource": PythonLaunchDescriptionSource},
    "launch.substitutions": {c.__name__: c for c in (Command, EqualsSubstitution, FindExecutable,
                                                     IfElseSubstitution, LaunchConfiguration,
                                                     PathJoinSubstitution, TextSubstitution)},
    "launch_ros": {},
    "launch_ros.actions": {"Node": Node},
    "launch_ros.parameter_descriptions": {"ParameterValue": ParameterValue},
    "launch_ros.substitutions": {"FindPackageShare": FindPackageShare},
}


def stand_in_modules() -> dict[str, types.ModuleType]:
    modules = {}
    for name, attrs in STAND_IN.items():
        modules[name] = types.ModuleType(name)
        modules[name].__dict__.update(attrs)
    return modules


# ------------------------------------------------------------------------------ running the files


@dataclass
class Launch:
    arguments: dict[str, str]  # every launch configuration, defaults included
    started: list[Any]
    environment: dict[str, str]  # set by the file for its processes

    def all(self) -> list[Any]:
        """Everything started, event handlers' actions included."""
        out = []
        for s in self.started:
            out += s.started if isinstance(s, After) else [s]
        return out

    def nodes(self, package: str | None = None) -> list[Started]:
        return [s for s in self.all() if isinstance(s, Started) and package in (None, s.package)]

    def node(self, executable: str) -> Started:
        (found,) = [n for n in self.nodes() if n.executable == executable]
        return found


def load(name: str) -> tuple[LaunchDescription, types.ModuleType]:
    """generate_launch_description() of launch/<name>, with the stand-in for launch and launch_ros
    (also inside snake_bringup.graph_nodes, imported afresh and dropped again)."""
    stand_ins = {**stand_in_modules(), "snake_bringup.graph_nodes": None}
    previous = {name: sys.modules.pop(name, None) for name in stand_ins}
    sys.modules.update({k: v for k, v in stand_ins.items() if v is not None})
    try:  # only the stand-ins and graph_nodes go again: what else the file imports (numpy, …) stays imported
        spec = importlib.util.spec_from_file_location(name.replace(".", "_"), ROOT / "launch" / name)
        module = importlib.util.module_from_spec(spec)
        with mock.patch.object(sys, "dont_write_bytecode", True):
            spec.loader.exec_module(module)
        return module.generate_launch_description(), module
    finally:
        for stand_in, module_before in previous.items():
            sys.modules.pop(stand_in, None)
            if module_before is not None:
                sys.modules[stand_in] = module_before


def declared(description: LaunchDescription) -> list[DeclareLaunchArgument]:
    return [e for e in description.entities if isinstance(e, DeclareLaunchArgument)]


def run(name: str, **arguments: str) -> Launch:
    """Launch ``name`` with these arguments (the others at their defaults)."""
    description, _ = load(name)
    context = Context({**REQUIRED, **arguments})
    started = execute(description.entities, context)
    return Launch(context.launch_configurations, started, context.environment)


@functools.cache
def every_combination(name: str, robot: str = "koopaee6") -> tuple[Launch, ...]:
    """``name`` launched with every combination of its choices arguments."""
    description, _ = load(name)
    choices = {a.name: a.choices for a in declared(description) if a.choices}
    if name == "robot.launch.py" and load_robot(robot).can_ids is None:
        choices["use_mock_hardware"] = ["true"]  # no CAN modules: no real hardware (refused, test below)
    if name == "sim.launch.py" and load_robot(robot).sea is None:
        choices["simulator"] = [s for s in choices["simulator"] if s != "mujoco"]  # SEA robots only (test below)
    launches = []
    for values in itertools.product(*choices.values()):
        context = Context({**REQUIRED, "robot": robot, **dict(zip(choices, values, strict=True))})
        started = execute(description.entities, context)
        launches.append(Launch(context.launch_configurations, started, context.environment))
    return tuple(launches)


def armed_controllers(name: str, args: Mapping[str, str]) -> tuple[str, ...]:
    """The controllers that the gait generator of robot.launch.py activates when armed: with arm_controllers (auto:
    on the modules, not on mock hardware), every controller of the robot's controllers file but the broadcaster."""
    mode = args.get("arm_controllers", "auto")
    if name != "robot.launch.py" or not (args.get("use_mock_hardware") != "true" if mode == "auto" else mode == "true"):
        return ()
    defined = yaml.safe_load((ROOT / "config/controllers" / f"{args['robot']}.yaml").read_text())
    return tuple(k for k, v in defined["controller_manager"]["ros__parameters"].items()
                 if isinstance(v, dict) and k != "joint_state_broadcaster")


def expected_specs(name: str, args: Mapping[str, str]) -> list[tuple[graph.NodeSpec, bool]]:
    """graph.py's specs for these launch arguments, with the use_sim_time each gets."""
    sim_time = args.get("use_sim_time") == "true"
    lockstep = args.get("simulator") == "embedded" and args.get("lockstep") == "true"  # Gazebo runs free
    control = graph.control_nodes(args["robot"], gait=args["gait"], controller=args["controller"],
                                  layout=args["layout"], head_tracking=args.get("head_tracking") == "true",
                                  manipulability=args.get("manipulability") == "true", lockstep=lockstep,
                                  armed=name != "robot.launch.py", command_controllers=armed_controllers(name, args),
                                  estop_topic=CAN_BRIDGE_ESTOP_ENGAGED if name == "robot.launch.py" else "")
    if name == "robot.launch.py":
        return [(s, False) for s in control]
    if args["simulator"] == "embedded":
        simulator = graph.simulator_node(args["robot"], args["world"], args["scenario"], lockstep=lockstep)
        return [(simulator, False), *((s, sim_time) for s in control)]
    if args["simulator"] == "mujoco":
        return [(s, sim_time) for s in control]
    return [(s, sim_time) for s in [*control, graph.head_odometry_node(args["robot"], "snake")]]


def as_launched(spec: graph.NodeSpec, use_sim_time: bool) -> Started:
    """How launch_ros starts a spec: parameter files from snake_bringup's share, then its parameters."""
    return Started(package=spec.package, executable=spec.executable, name=spec.name,
                   namespace=spec.namespace or None, arguments=[], remappings=[],
                   parameters=[*(f"{ROOT}/{f}" for f in spec.param_files),
                               {**spec.parameters, "use_sim_time": use_sim_time}])


# ------------------------------------------------------------------------------ the stand-in itself


def test_stand_in_refuses_a_nested_list_in_path_join_as_launch_does():
    """The misuse that stopped `ros2 launch sim.launch.py` and robot.launch.py before anything started."""
    with pytest.raises(TypeError, match="Failed to normalize given item of type '<class 'list'>'"):
        PathJoinSubstitution([FindPackageShare("snake_bringup"), "worlds", [LaunchConfiguration("world"), ".sdf"]])
    context = Context({"world": "flat"})
    joined = [PathJoinSubstitution([FindPackageShare("snake_bringup"), "worlds", LaunchConfiguration("world")]),
              ".sdf"]
    assert perform(context, joined) == f"{ROOT}/worlds/flat.sdf"


def test_stand_in_refuses_values_outside_the_choices_and_conditions_launch_cannot_read():
    with pytest.raises(RuntimeError, match="expected value in"):
        run("sim.launch.py", layout="distributed")
    with pytest.raises(ValueError, match="invalid condition"):
        IfCondition(LaunchConfiguration("rviz")).evaluate(Context({"rviz": "yes"}))


def test_stand_in_offers_what_the_launch_files_import():
    """Every name a launch file imports from launch/launch_ros is one the stand-in evaluates."""
    for name in LAUNCH_FILES:
        tree = ast.parse((ROOT / "launch" / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module.split(".")[0] in ("launch", "launch_ros"):
                for alias in node.names:
                    assert alias.name in STAND_IN[node.module], f"{name}: {node.module}.{alias.name}"


# ------------------------------------------------------------------------------ every combination


@pytest.mark.parametrize("name", LAUNCH_FILES)
def test_every_combination_of_choices_launches(name):
    description, _ = load(name)
    combinations = every_combination(name)
    assert len(combinations) == max(1, len(list(itertools.product(*(a.choices for a in declared(description)
                                                                    if a.choices)))))
    assert all(launch.nodes() for launch in combinations)


@pytest.mark.parametrize("robot", ["koopaee6", "ariizumi10"])
@pytest.mark.parametrize("name", ["sim.launch.py", "robot.launch.py"])
def test_our_nodes_are_the_graph_specs_as_launch_ros_starts_them(name, robot):
    for launch in every_combination(name, robot):
        expected = [as_launched(spec, sim_time) for spec, sim_time in expected_specs(name, launch.arguments)]
        assert [n for n in launch.nodes() if n.package in OUR_NODES] == expected, launch.arguments


def node_class(executable: str) -> type:
    """The rclpy Node subclass that snake_control's console script ``executable`` builds."""
    (entry,) = [e for e in entry_points(group="console_scripts") if e.name == executable
                and e.value.startswith("snake_control.")]
    module = importlib.import_module(entry.module)
    from rclpy.node import Node as RclpyNode

    (cls,) = [c for _, c in inspect.getmembers(module, inspect.isclass)
              if issubclass(c, RclpyNode) and c.__module__ == module.__name__]
    return cls


def launched_snake_control_nodes() -> dict[str, list[Started]]:
    """Each distinct (executable, namespace, parameter files, parameter names) our launch files start,
    with every distinct launched instance of it (robots and arguments differ). Computed in the test, not at
    collection: every launch of every combination takes seconds, which each pytest worker would pay."""
    seen: dict[str, list[Started]] = {}
    for name in ("sim.launch.py", "robot.launch.py"):
        for robot in ("koopaee6", "ariizumi10"):
            for launch in every_combination(name, robot):
                for node in launch.nodes("snake_control"):
                    files = ",".join(Path(p).stem for p in node.parameters if isinstance(p, str))
                    names = ",".join(sorted(k for p in node.parameters if isinstance(p, dict) for k in p))
                    instances = seen.setdefault(f"/{node.namespace or ''}/{node.executable}:{files}:{names}", [])
                    if node not in instances:
                        instances.append(node)
    return seen


def make_as_launched(ros, node: Started) -> Any:
    """The node in-process on real rclpy, with its name, namespace and parameter files as launch_ros
    passes them and the launch file's parameters as overrides."""
    files = [p for p in node.parameters if isinstance(p, str)]
    (params,) = [p for p in node.parameters if isinstance(p, dict)]
    cli = ["--ros-args", "-r", f"__node:={node.name}", *itertools.chain(*(["--params-file", f] for f in files))]
    return ros.make(node_class(node.executable), cli_args=cli, namespace=node.namespace,
                    **{k.replace(".", "__"): v for k, v in params.items()})


def test_every_parameter_a_launched_node_gets_is_one_it_declares():
    """For each distinct launched configuration of our nodes: rcl decides which sections of the parameter files
    apply to the node; all of them, and the launch file's parameters, must be declared (rclpy ignores undeclared
    overrides silently). A node may refuse the robot of some launches with one clear ConfigError
    (manipulability_monitor on a robot without ground friction, the vertical model with a rigid-joint robot): it
    is checked with another."""
    from snake_core.validation import ConfigError

    require_rclpy()
    launched = launched_snake_control_nodes()
    assert len(launched) > 20  # every node of both launch files, in their layouts
    for key, instances in sorted(launched.items()):
        ros = RosHarness()  # one per configuration, as the node gets in its own process
        try:
            refusals = []
            for node in instances:
                try:
                    made = make_as_launched(ros, node)
                except ConfigError as exc:
                    refusals.append(str(exc))
                    continue
                break
            else:
                pytest.fail(f"{key}: no launched instance starts: {refusals}")
            params = node.parameters[-1]
            files = node.parameters[:-1]
            assert made.get_fully_qualified_name() == "/" + "/".join(p for p in (node.namespace, node.name) if p), key
            undeclared = sorted(set(made._parameter_overrides) - set(made._parameters))
            assert not undeclared, f"{node.executable} does not declare {undeclared} (from {files} and {params})"
            assert {"use_sim_time", *params} <= set(made._parameter_overrides), key
            for name, override in made._parameter_overrides.items():
                assert made.get_parameter(name).value == override.value, (key, name)
        finally:
            ros.close()


def executables(setup_py: Path) -> set[str]:
    """What ``ros2 run <package>`` finds after colcon build: console_scripts, and the scripts that
    data_files installs into lib/<package>."""
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
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "setup"):
        for keyword in call.keywords:
            if keyword.arg == "entry_points":
                scripts = ast.literal_eval(keyword.value).get("console_scripts", [])
                found |= {s.split("=")[0].strip() for s in scripts}
            if keyword.arg == "data_files":
                for entry in keyword.value.elts:
                    if isinstance(entry, ast.Tuple) and text(entry.elts[0]) == f"lib/{names.get('package_name')}":
                        found |= {Path(text(f)).name for f in entry.elts[1].elts}
    return found


@pytest.mark.parametrize("name", LAUNCH_FILES)
def test_every_executable_started_exists_and_every_shared_file_named_exists(name):
    ours = {p.parent.name: executables(p) for p in (ROOT / "src").glob("*/setup.py")}
    exec_depends = {e.text for e in ET.parse(ROOT / "src/snake_bringup/package.xml").getroot().iter("exec_depend")}
    named = set()
    for launch in every_combination(name):
        for started in launch.all():
            if isinstance(started, Started):
                if started.package in ours:
                    assert started.executable in ours[started.package], f"{started.package}/{started.executable}"
                else:
                    assert started.package in exec_depends, f"{started.package} is not an exec_depend of snake_bringup"
                texts = [*started.arguments, *(p if isinstance(p, str) else " ".join(
                    v for v in p.values() if isinstance(v, str)) for p in started.parameters)]
            elif isinstance(started, Included):
                assert Path(started.path).relative_to(OTHER_SHARE).parts[0] in exec_depends
                texts = list(started.arguments.values())
            else:
                texts = started.cmd
            for word in (w for t in texts for w in t.split()):
                if word.startswith(f"{ROOT}/"):
                    named.add(word)
                    assert Path(word).is_file(), f"{name} {launch.arguments} names {word}, which does not exist"
    assert {f"{ROOT}/urdf/snake.urdf.xacro", f"{ROOT}/config/rviz/snake.rviz"} <= named


def test_executables_are_read_from_entry_points_and_lib_scripts():
    assert {"gait_generator", "sea_joint_controller"} <= executables(ROOT / "src/snake_control/setup.py")
    assert "simulator" in executables(ROOT / "src/snake_sim_ros/setup.py")
    assert "can_bridge" in executables(ROOT / "src/snake_hardware/setup.py")
    assert "nonexistent_node" not in executables(ROOT / "src/snake_control/setup.py")


def test_sim_embedded_starts_the_simulator_instead_of_gazebo_and_its_bridges():
    for launch in every_combination("sim.launch.py"):
        packages = {n.package for n in launch.nodes()}
        gazebo = {"ros_gz_sim", "ros_gz_bridge", "controller_manager"}
        executables = {n.executable for n in launch.nodes() if n.package in OUR_NODES}
        if launch.arguments["simulator"] == "embedded":
            assert not packages & gazebo and not any(isinstance(s, Included) for s in launch.all())
            assert "simulator" in executables and "head_odometry" not in executables
            assert "hardware:=mock" in launch.node("robot_state_publisher").parameters[0]["robot_description"]
        elif launch.arguments["simulator"] == "mujoco":
            assert not packages & {"ros_gz_sim", "ros_gz_bridge"} and not any(isinstance(s, Included)
                                                                              for s in launch.all())
            assert "simulator" not in executables and "head_odometry" not in executables
            assert launch.node("ros2_control_node").package == "mujoco_ros2_control"
        else:
            assert gazebo <= packages and "simulator" not in executables and "head_odometry" in executables
            (gz,) = [s for s in launch.all() if isinstance(s, Included)]
            assert gz.path == f"{OTHER_SHARE}/ros_gz_sim/launch/gz_sim.launch.py"
            assert gz.arguments["gz_args"].split()[0] == f"{ROOT}/worlds/{launch.arguments['world']}.sdf"
            assert ("-s" in gz.arguments["gz_args"].split()) == (launch.arguments["gazebo_gui"] == "false")


@pytest.mark.parametrize("robot", ["koopaee6", "ariizumi10"])
def test_sim_spawns_the_robot_with_its_belly_on_the_ground_then_its_controllers(robot):
    """The spawn's parameters are those ros_gz_sim's create declares; the spawners wait for it to exit
    (Gazebo's controller manager exists only once the model is spawned)."""
    launch = run("sim.launch.py", robot=robot)
    (after,) = [s for s in launch.started if isinstance(s, After)]
    spawn = launch.node("create")
    assert after.target.executable[0].text == "create"
    assert spawn.parameters == [{"topic": "robot_description", "name": "snake", "allow_renaming": False,
                                 "z": pytest.approx(load_robot(robot).module_width / 2)}]
    (spawner,) = after.started
    assert spawner.executable == "spawner"


@pytest.mark.parametrize("robot", ["koopaee6", "ariizumi10", "pushing3", "rectilinear6"])
@pytest.mark.parametrize(("name", "suffix"), [("sim.launch.py", "_gz"), ("robot.launch.py", "")])
def test_spawned_controllers_are_those_the_controllers_file_defines(name, suffix, robot):
    """One spawner starts every controller of the robot's controllers file, joint_state_broadcaster first."""
    controllers_file = f"{robot}{suffix}.yaml"
    launch = run(name, robot=robot, **({"use_mock_hardware": "true"} if name == "robot.launch.py" else {}))
    spawner = launch.node("spawner")
    defined = yaml.safe_load((ROOT / "config/controllers" / controllers_file).read_text())
    defined = [k for k, v in defined["controller_manager"]["ros__parameters"].items() if isinstance(v, dict)]
    spawned = spawner.arguments[:spawner.arguments.index("--controller-manager")]
    assert spawned[0] == "joint_state_broadcaster" and sorted(spawned) == sorted(defined), (spawned, defined)
    if name == "robot.launch.py":
        assert launch.node("ros2_control_node").parameters == [f"{ROOT}/config/controllers/{controllers_file}"]


@pytest.mark.parametrize("robot", ["koopaee6", "ariizumi10", "pushing3", "rectilinear6"])
def test_joint_states_come_at_the_rate_the_controllers_read_them_on_the_robot_and_every_update_in_simulation(robot):
    """robot.launch.py's file: the broadcaster at the SEA and head-tracking controllers' 100 Hz, not the manager's
    500 Hz; the simulators' file: at every update (one per physics step, what a lock-stepped graph answers)."""
    from snake_bringup.ros2_control import broadcaster_rate, controllers_file, update_rate

    rates = yaml.safe_load((ROOT / "config/snake_control.yaml").read_text())
    read = {s["ros__parameters"]["rate"] for s in rates.values() if "rate" in s["ros__parameters"]} - {20.0}
    assert broadcaster_rate(ROOT / controllers_file(robot)) == read.pop() == 100.0 and not read
    assert update_rate(ROOT / controllers_file(robot)) == 500.0
    gazebo = ROOT / controllers_file(robot, simulator=True)
    assert broadcaster_rate(gazebo) == update_rate(gazebo)


def test_a_broadcaster_rate_above_the_managers_is_refused(tmp_path):
    from snake_bringup.ros2_control import broadcaster_rate

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"controller_manager": {"ros__parameters": {"update_rate": 100}},
                                    "joint_state_broadcaster": {"ros__parameters": {"update_rate": 200}}}))
    with pytest.raises(ValueError, match=r"joint_state_broadcaster\.update_rate must be an integer in"):
        broadcaster_rate(path)


@pytest.mark.parametrize("world", ["flat", "stairs"])
def test_sim_on_mujoco_writes_the_mjcf_the_description_names_and_spawns_the_gazebo_controllers(world):
    """simulator:=mujoco: the MJCF of the robot on the world (a MuJoCo model with the URDF's motor joints as
    actuators), named by the description (hardware:=mujoco); mujoco_ros2_control's ros2_control_node with the
    Gazebo controllers file, at one MuJoCo step per controller_manager period."""
    import mujoco

    launch = run("sim.launch.py", simulator="mujoco", world=world)
    description = launch.node("robot_state_publisher").parameters[0]["robot_description"]
    assert "hardware:=mujoco" in description and "mujoco_headless:=true" in description
    path = launch.arguments["mujoco_model"]
    assert f"mujoco_model:='{path}'" in description and path.endswith(f"koopaee6_{world}.mjcf.xml")
    model = mujoco.MjModel.from_xml_path(path)
    assert [model.actuator(i).name for i in range(model.nu)] == [f"motor_{j}" for j in range(1, 6)]
    assert any(model.geom(i).name.startswith("box_") for i in range(model.ngeom)) == (world == "stairs")
    controllers = f"{ROOT}/config/controllers/koopaee6_gz.yaml"
    node = launch.node("ros2_control_node")
    assert (node.package, node.parameters) == ("mujoco_ros2_control", [controllers, {"use_sim_time": True}])
    rate = yaml.safe_load(Path(controllers).read_text())["controller_manager"]["ros__parameters"]["update_rate"]
    assert model.opt.timestep == pytest.approx(1.0 / rate)


def test_sim_on_mujoco_refuses_a_robot_without_seas_naming_it():
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match=r"robot\.name = 'ariizumi10'.*needs a robot with SEAs"):
        run("sim.launch.py", simulator="mujoco", robot="ariizumi10")


@pytest.mark.parametrize("keystore", ["", "no/such/keystore"])
def test_robot_launch_refuses_secure_without_a_keystore_naming_it(keystore):
    with pytest.raises(RuntimeError, match=rf"secure:=true needs keystore:=.*not '{keystore}'"):
        launched_robot_nodes(secure="true", keystore=keystore)


def test_robot_launch_refuses_real_hardware_for_a_robot_without_can_modules():
    with pytest.raises(RuntimeError, match=r"ariizumi10: its robot file names no CAN modules"):
        run("robot.launch.py", robot="ariizumi10", use_mock_hardware="false")


def test_robot_launch_gives_its_processes_one_openblas_thread_so_none_spins_at_real_time_priority():
    """OpenBLAS's idle threads busy-wait: at SCHED_FIFO (the bridge's realtime_priority, the launch under chrt) they
    can starve the thread they wait for (docs/robot.md "Real-time priority")."""
    description, _ = load("robot.launch.py")
    first_process = next(i for i, e in enumerate(description.entities) if not isinstance(e, DeclareLaunchArgument))
    assert isinstance(description.entities[first_process], SetEnvironmentVariable)
    assert run("robot.launch.py").environment == {"OPENBLAS_NUM_THREADS": "1"}


def test_sim_with_a_rigid_joint_robot_drives_joint_torques():
    """004's robot has no SEAs: no sea_joint_controller, the mux forwards head_tracking_controller's
    torques to joint_effort_controller."""
    launch = run("sim.launch.py", robot="ariizumi10", head_tracking="true")
    executables = [n.executable for n in launch.nodes("snake_control")]
    assert "sea_joint_controller" not in executables and "head_tracking_controller" in executables
    assert launch.node("motor_command_mux").parameters[-1]["mode"] == "effort"
    assert "joint_effort_controller" in launch.node("spawner").arguments


def test_ground_truth_bridge_carries_each_pose_publisher_pose_as_a_transform():
    """urdf/snake.gazebo.xacro's PosePublisher sends one gz.msgs.Pose per pose on /model/snake/pose;
    ros_gz_bridge maps gz.msgs.Pose to geometry_msgs/msg/TransformStamped (frame ids kept)."""
    bridge = run("sim.launch.py").nodes("ros_gz_bridge")
    (truth,) = [b for b in bridge if b.name == "ground_truth_bridge"]
    assert truth.arguments == ["/model/snake/pose@geometry_msgs/msg/TransformStamped[gz.msgs.Pose"]
    assert truth.remappings == [("/model/snake/pose", "/ground_truth/poses")]
    depth = truth.parameters[0]["qos_overrides"]["/ground_truth/poses"]["publisher"]["depth"]
    assert depth >= 2 * load_robot("koopaee6").n_links
    plugin = ET.parse(ROOT / "urdf/snake.gazebo.xacro").getroot().find(
        ".//plugin[@name='gz::sim::systems::PosePublisher']")
    settings = {child.tag: child.text for child in plugin}
    assert settings["use_pose_vector_msg"] == "false" and settings["static_publisher"] == "false"
    assert settings["publish_link_pose"] == settings["publish_model_pose"] == "true"
    assert settings["publish_nested_model_pose"] == "true"  # gz-sim ≤ 8.9 needs it for the model pose


def launched_robot_nodes(**arguments: str) -> tuple[list[Node], Context]:
    """The Nodes robot.launch.py builds (its OpaqueFunction's included) and the context of ``arguments``."""
    description, _ = load("robot.launch.py")
    context = Context({**REQUIRED, **arguments})
    execute(description.entities, context)  # the arguments and their defaults
    nodes = []
    for entity in description.entities:
        if isinstance(entity, OpaqueFunction):
            nodes += entity.function(context, *entity.args, **entity.function_kwargs)
        elif isinstance(entity, Node):
            nodes.append(entity)
    return nodes, context


@pytest.mark.parametrize("secure", ["true", "false"])
def test_robot_launch_starts_every_node_in_its_sros2_enclave_and_security_follows_secure(secure, tmp_path):
    """SROS2 (snake_bringup.security): ``--enclave /snake/<node>`` for every node, Enforce with the keystore only
    for secure:=true."""
    from snake_bringup import security

    keystore = tmp_path / "keystore"
    (keystore / "enclaves").mkdir(parents=True)  # the layout of an sros2 keystore
    nodes, context = launched_robot_nodes(secure=secure, keystore=str(keystore), rviz="true")
    enclaves = []
    for node in nodes:
        flag, enclave = node.kwargs["ros_arguments"]
        assert flag == "--enclave"
        enclaves.append(enclave)
        env = {k: perform(context, v) for k, v in node.kwargs["additional_env"].items()}
        assert env == {"ROS_SECURITY_ENABLE": secure, "ROS_SECURITY_STRATEGY": "Enforce",
                       "ROS_SECURITY_KEYSTORE": str(keystore)}
    expected = {security.enclave_of(f"/{n}") for n in (*security.UPSTREAM, "rviz2", "can_bridge",
                                                       "gait_generator", "sea_joint_controller")}
    assert sorted(enclaves) == sorted(expected)
