"""Per-joint SEA controllers (002 ch. 4, 6, 7): each outputs a motor position reference β_d.

:func:`make_joint_controllers` builds one controller per joint (tail → head) for a
``controller.mode``. A mode is a module here that declares
``MODE = ControllerMode(name, description, source, params, build)`` (``params`` the typed ``controller.*``
entries, ``build(robot, joint_index, params, source) -> JointController`` with ``joint_index`` 1-based and
``params`` the scenario's ``controller:`` mapping including ``mode``); it is imported and listed in
:data:`CONTROLLER_MODES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..registry import Param, param_table
from ..robot import RobotParams
from ..validation import get
from . import position, stiffness, torque, tsc
from .base import ControllerMode, JointController, JointMeasurement, JointReference, MotorCommand

#: controller.mode → its declaration (position, local stiffness 002 Fig. 6.2, TSC 002 (7.1)–(7.2), torque).
CONTROLLER_MODES: dict[str, ControllerMode] = {m.name: m for m in (position.MODE, stiffness.MODE, tsc.MODE,
                                                                   torque.MODE)}

#: ``controller.mode``: structural (a node builds its controllers once, for this mode).
MODE_PARAM = Param("mode", position.MODE.name, "", "per-joint SEA controller mode", kind=str,
                   choices=tuple(CONTROLLER_MODES))


def make_joint_controllers(mode: str, robot: RobotParams, params: Mapping[str, Any],
                           source: str | None = None) -> list[JointController]:
    """One controller per joint, tail (joint 1) → head (joint N−1), validated from ``params``."""
    build = CONTROLLER_MODES[MODE_PARAM.check(mode, "controller.mode", source)].build
    return [build(robot, j, params, source) for j in range(1, robot.n_joints + 1)]


def mode_tables() -> str:
    """The docs' tables of the modes' ``controller.*`` parameters (docs/simulator.md, "SEA controller modes"), made
    from their declarations only."""
    blocks = [f"{param_table([MODE_PARAM], 'controller')}"]
    for mode in CONTROLLER_MODES.values():
        table = param_table(mode.params, "controller") if mode.params else "No parameters."
        blocks.append(f"**{mode.name}** ({mode.source}): {mode.description}.\n\n{table}")
    return "\n\n".join(blocks)


def controller_values(params: Mapping[str, Any], n_joints: int, source: str | None = None) -> dict[str, Any]:
    """A ``controller`` mapping as its mode reads it: ``mode`` and every parameter of the mode, checked, the unset
    ones at their defaults (None: computed by the mode)."""
    mode = CONTROLLER_MODES[MODE_PARAM.check(controller_mode(params, source), "controller.mode", source)]
    return {"mode": mode.name, **mode.checked(params, n_joints, source)}


def controller_mode(params: Mapping[str, Any], source: str | None = None) -> str:
    """``controller.mode`` of a controller mapping (default "position")."""
    return get(params, "mode", "controller", source, default=MODE_PARAM.default)


__all__ = ["CONTROLLER_MODES", "MODE_PARAM", "ControllerMode", "JointController", "JointMeasurement",
           "JointReference", "MotorCommand", "controller_mode", "controller_values", "make_joint_controllers",
           "mode_tables"]
