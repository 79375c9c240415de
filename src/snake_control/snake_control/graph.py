"""The suite's ROS 2 graph as data: which snake_control executables run, under which names, with
which parameter files and parameters.

The launch files (launch/sim.launch.py, launch/robot.launch.py) turn these specs into launch_ros
``Node`` actions, and the graph tests start the same specs as processes (what ``ros2 run`` starts),
so the two cannot drift apart. Parameter files are paths relative to snake_bringup's share
directory (config/ of the workspace).

Command path of an SEA robot, ``layout``:

- ``composed`` (default): one sea_joint_controller controls every joint (``joint_index`` 0) and
  publishes the /motor_position_controller/commands array itself: one message per control period
  (what holds 500 Hz on a 2-core machine, README "Control rate").
- ``per_joint``: one sea_joint_controller per joint (namespace ``joint_<j>``, ``joint_index`` j) on
  /sea/motor_commands, gathered by motor_command_mux into the array.

``lockstep``: the embedded simulator waits at each tick for the command that answers it, and the
controllers (sea_joint_controller, head_tracking_controller) answer each tick with the inputs stamped at
its time (simulator.py, ros_interface.Lockstep): the graph computes the same on any machine at any load.

Rigid-joint robots (no ``sea:`` section, 004) take head_tracking_controller's torques through
motor_command_mux in effort mode; they run no gait_generator (its /gait/reference feeds SEA
controllers only: the head tracker makes its own shape reference).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from snake_core.controllers import CONTROLLER_MODES
from snake_core.robot import RobotParams, load_robot
from snake_core.validation import choice

PACKAGE = "snake_control"
#: The package of the embedded simulator's node (the simulator's side: the robot's packages never import it).
SIMULATOR_PACKAGE = "snake_sim_ros"
#: Parameters of every snake_control node (ROS 2 params file, relative to snake_bringup's share).
NODE_PARAMS = "config/snake_control.yaml"
LAYOUTS = ("composed", "per_joint")
SIMULATORS = ("gazebo", "mujoco", "embedded")


def sea_mode_params(mode: str) -> str:
    """The params file of an SEA controller mode (gains of config/sea_modes/<mode>.yaml)."""
    return f"config/sea_modes/{mode}.yaml"


@dataclass(frozen=True)
class NodeSpec:
    """One node of the graph: ``ros2 run snake_control <executable> --ros-args -r __node:=<name>
    -r __ns:=/<namespace> --params-file <share>/<file>... -p <parameters>``."""

    executable: str
    name: str
    namespace: str = ""
    param_files: tuple[str, ...] = (NODE_PARAMS,)
    parameters: Mapping[str, Any] = field(default_factory=dict)
    package: str = PACKAGE
    owns_clock: bool = False  # publishes /clock itself (the embedded simulator): never on sim time

    def node_parameters(self, use_sim_time: bool) -> dict[str, Any]:
        """What a launch passes after the parameter files: ``parameters`` and ``use_sim_time`` (false for
        the node that owns the clock)."""
        return {**self.parameters, "use_sim_time": use_sim_time and not self.owns_clock}

    @property
    def fully_qualified_name(self) -> str:
        return f"/{self.namespace}/{self.name}" if self.namespace else f"/{self.name}"


def command_nodes(robot: str, params: RobotParams, controller: str = "position", layout: str = "composed",
                  lockstep: bool = False) -> list[NodeSpec]:
    """SEA controllers (and the mux where needed) that turn /gait/reference into motor commands for ``robot``
    (its parameters ``params``)."""
    choice(controller, "controller", tuple(CONTROLLER_MODES), "launch arguments")
    choice(layout, "layout", LAYOUTS, "launch arguments")
    if params.sea is None:  # rigid joints (004): torques of head_tracking_controller
        return [NodeSpec("motor_command_mux", "motor_command_mux", parameters={"robot": robot, "mode": "effort"})]
    files = (NODE_PARAMS, sea_mode_params(controller))
    if layout == "composed":
        return [NodeSpec("sea_joint_controller", "sea_joint_controller", param_files=files,
                         parameters={"robot": robot, "joint_index": 0, "lockstep": lockstep})]
    return [
        *(NodeSpec("sea_joint_controller", "sea_joint_controller", namespace=f"joint_{j}", param_files=files,
                   parameters={"robot": robot, "joint_index": j, "lockstep": lockstep})
          for j in range(1, params.n_joints + 1)),
        NodeSpec("motor_command_mux", "motor_command_mux", parameters={"robot": robot, "mode": "position"}),
    ]


def control_nodes(robot: str, *, gait: str = "pedal_wave", controller: str = "position", layout: str = "composed",
                  head_tracking: bool = False, manipulability: bool = False, lockstep: bool = False,
                  armed: bool = True, command_controllers: Sequence[str] = (), estop_topic: str = "") -> list[NodeSpec]:
    """Every snake_control node between the robot (Gazebo, embedded simulator or CAN) and the operator; ``armed``
    false: the gait waits for an operator's ~/arm (the robot), which first activates ``command_controllers`` (the
    robot's ros2_control controllers, spawned inactive); ``estop_topic``: the robot's e-stop, which disarms it."""
    params = load_robot(robot)
    nodes = command_nodes(robot, params, controller, layout, lockstep)
    if params.sea is not None:  # the gait reaches the robot through SEA controllers only
        nodes.insert(0, NodeSpec("gait_generator", "gait_generator",
                                 parameters={"robot": robot, "gait.type": gait, "lockstep": lockstep,
                                             "armed": armed, **({"command_controllers": ",".join(
                                                 command_controllers)} if command_controllers else {}),
                                             **({"estop_topic": estop_topic} if estop_topic else {})}))
    if manipulability:
        nodes.append(NodeSpec("manipulability_monitor", "manipulability_monitor",
                              parameters={"robot": robot, "lockstep": lockstep}))
    if head_tracking:
        nodes.append(NodeSpec("head_tracking_controller", "head_tracking_controller",
                              parameters={"robot": robot, "lockstep": lockstep}))
    return nodes


def simulator_node(robot: str, world: str, scenario: str = "pedal-wave",
                   overrides: tuple[str, ...] = (), lockstep: bool = False) -> NodeSpec:
    """The embedded simulator (``simulator:=embedded``): the scenario's model with the launch's robot and world."""
    return NodeSpec("simulator", "simulator", package=SIMULATOR_PACKAGE, owns_clock=True, parameters={
        "scenario": scenario, "overrides": [f"robot.name={robot}", f"world.file={world}", *overrides],
        "lockstep": lockstep})


def head_odometry_node(robot: str, model: str) -> NodeSpec:
    """Gazebo ground truth → /head/odometry (the embedded simulator publishes /head/odometry itself)."""
    return NodeSpec("head_odometry", "head_odometry", parameters={"robot": robot, "model": model})


def executable_path(spec: NodeSpec) -> str:
    """The console script of ``spec`` (what ``ros2 run <package> <executable>`` starts): beside this
    Python (a venv or an editable install), else under the colcon install's lib/<package>, else on PATH."""
    for folder in (Path(sys.executable).parent, *(Path(p) / "lib" / spec.package
                                                   for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)
                                                   if p)):
        if (folder / spec.executable).is_file():
            return str(folder / spec.executable)
    found = shutil.which(spec.executable)
    if found is None:
        raise FileNotFoundError(f"executable {spec.executable!r} of {spec.package} not found; build the workspace")
    return found


def start(spec: NodeSpec, share: Path, workdir: Path, *, use_sim_time: bool, **popen: Any) -> subprocess.Popen:
    """Start ``spec`` as its own process, as launch_ros does: the params files, then
    :meth:`NodeSpec.node_parameters` in a params file of its own."""
    parameters = spec.node_parameters(use_sim_time)
    own = workdir / f"{spec.fully_qualified_name.strip('/').replace('/', '__')}.yaml"
    own.write_text(yaml.safe_dump({spec.fully_qualified_name: {"ros__parameters": parameters}}))
    args = [executable_path(spec), "--ros-args", "-r", f"__node:={spec.name}"]
    if spec.namespace:
        args += ["-r", f"__ns:=/{spec.namespace}"]
    for file in spec.param_files:
        args += ["--params-file", str(share / file)]
    return subprocess.Popen([*args, "--params-file", str(own)], **popen)


#: How long launch lets a node end after Ctrl-C before it escalates (its ``sigterm_timeout`` + ``sigkill_timeout``, 5 s
#: each by default: launch/actions/execute_local.py, ExecuteLocal.__init__).
LAUNCH_STOP_TIMEOUT = 10.0


def stop(processes: list[subprocess.Popen], timeout: float = LAUNCH_STOP_TIMEOUT) -> list[int]:
    """End nodes as launch does: SIGINT to all at once, SIGKILL to any still running ``timeout`` s later (one deadline
    for all: they end side by side); exit codes."""
    for process in processes:
        process.send_signal(signal.SIGINT)
    deadline = time.monotonic() + timeout
    codes = []
    for process in processes:
        try:
            codes.append(process.wait(max(deadline - time.monotonic(), 0.0)))
        except subprocess.TimeoutExpired:
            process.kill()
            codes.append(process.wait())
    return codes
