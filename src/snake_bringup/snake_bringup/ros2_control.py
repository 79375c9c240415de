"""ros2_control's side of the launch files as data (no launch imports): each robot's controllers file and the
controllers a spawner starts from it, so that robot.launch.py, sim.launch.py and the tests on the real
controller_manager read one definition."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

#: The broadcaster of /joint_states: activated first, before any controller that writes commands.
BROADCASTER = "joint_state_broadcaster"
#: The plugin of a controller that forwards a Float64MultiArray topic to command interfaces.
FORWARD_COMMAND = "forward_command_controller/ForwardCommandController"


def controllers_file(robot: str, simulator: bool = False) -> str:
    """The controllers file of ``robot`` relative to snake_bringup's share: mock and CAN hardware, or Gazebo."""
    return f"config/controllers/{robot}{'_gz' if simulator else ''}.yaml"


#: PyYAML's safe loader, in C where PyYAML has libyaml (a launch reads the controllers file several times).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _sections(path: str | Path) -> tuple[dict, dict]:
    """The whole controllers file and its ``controller_manager.ros__parameters``."""
    try:
        file = yaml.load(Path(path).read_text(), Loader=_LOADER)
        return file, file["controller_manager"]["ros__parameters"]
    except (OSError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: not a ros2_control controllers file ({exc})") from exc


def _controllers(path: str | Path) -> dict:
    """``controller_manager.ros__parameters`` of a controllers file."""
    return _sections(path)[1]


def _rate(path: str | Path, value: Any) -> float:
    if not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{path}: controller_manager.update_rate must be a number > 0, not {value!r}")
    return float(value)


def command_topics(path: str | Path) -> list[str]:
    """The topics the file's forward command controllers subscribe to: ``/<name>/commands``
    (ros2_controllers forward_command_controller/src/forward_controllers_base.cpp, "~/commands")."""
    return [f"/{name}/commands" for name, value in _controllers(path).items()
            if isinstance(value, dict) and value.get("type") == FORWARD_COMMAND]


def update_rate(path: str | Path) -> float:
    """``controller_manager.ros__parameters.update_rate`` of a controllers file [Hz]."""
    return _rate(path, _controllers(path).get("update_rate"))


def broadcaster_rate(path: str | Path) -> float:
    """The rate of /joint_states [Hz]: the joint_state_broadcaster's own ``update_rate`` in the file, else the
    controller_manager's (Jazzy: controller_interface/src/controller_interface_base.cpp declares ``update_rate``
    defaulting to the manager's)."""
    file, manager = _sections(path)
    manager_rate = _rate(path, manager.get("update_rate"))
    rate = ((file.get(BROADCASTER) or {}).get("ros__parameters") or {}).get("update_rate")
    if rate is None:
        return manager_rate
    if not isinstance(rate, int) or not 0 < rate <= manager_rate:
        raise ValueError(f"{path}: {BROADCASTER}.update_rate must be an integer in (0, the manager's update_rate], "
                         f"not {rate!r}")
    return float(rate)


def spawned_controllers(path: str | Path) -> list[str]:
    """Every controller the file defines (``controller_manager.ros__parameters.<name>.type``), in the order
    one spawner loads and activates them: the joint_state_broadcaster first, then the file's order (a chained
    controller after the controller whose reference interfaces it writes)."""
    manager = _controllers(path)
    names = [name for name, value in manager.items() if isinstance(value, dict) and "type" in value]
    if BROADCASTER not in names:
        raise ValueError(f"{path}: defines no {BROADCASTER} (/joint_states)")
    return [BROADCASTER, *(n for n in names if n != BROADCASTER)]


def spawner_arguments(path: str | Path, armed_by_operator: bool = False) -> list[str]:
    """The controllers of :func:`spawned_controllers` as one spawner's arguments; ``armed_by_operator`` (the robot):
    every controller but the broadcaster configured and left inactive, for the operator's arming to activate
    (the spawner's per-controller ``--controller <name> --inactive``: ros2_control jazzy
    controller_manager/controller_manager/spawner.py:196, and :549, a controller switched on only if not inactive;
    one spawner, so one node, ``spawner_<first controller>``)."""
    names = spawned_controllers(path)
    if not armed_by_operator:
        return names
    return ["--controller", BROADCASTER, *(a for n in names[1:] for a in ("--controller", n, "--inactive"))]


def command_controllers(path: str | Path) -> list[str]:
    """The controllers of the file that write command interfaces (every one but the broadcaster)."""
    return spawned_controllers(path)[1:]
