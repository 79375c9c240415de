"""Per-joint SEA controllers (002 ch. 4, 6, 7): each outputs a motor position reference β_d.

:func:`make_joint_controllers` builds one controller per joint (tail → head) for a
``controller.mode``. A mode is a module here exposing
``from_params(robot, joint_index, params, source) -> JointController`` (``joint_index`` 1-based,
``params`` the scenario's ``controller:`` mapping including ``mode``); register it in
:data:`CONTROLLER_MODES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ..robot import RobotParams
from ..validation import choice, get
from .base import JointController, JointMeasurement, JointReference, MotorCommand

#: controller.mode → module under snake_core.controllers.
CONTROLLER_MODES: dict[str, str] = {
    "position": "position",
    "stiffness": "stiffness",  # local stiffness, 002 Fig. 6.2
    "tsc": "tsc",  # tail-leading stiffness control, 002 (7.1)–(7.2)
    "torque": "torque",  # β_d = α − τ_d/K with torque feedback
}


def make_joint_controllers(mode: str, robot: RobotParams, params: Mapping[str, Any],
                           source: str | None = None) -> list[JointController]:
    """One controller per joint, tail (joint 1) → head (joint N−1), validated from ``params``."""
    choice(mode, "controller.mode", tuple(CONTROLLER_MODES), source)
    module = importlib.import_module(f"{__name__}.{CONTROLLER_MODES[mode]}")
    return [module.from_params(robot, j, params, source) for j in range(1, robot.n_joints + 1)]


def controller_mode(params: Mapping[str, Any], source: str | None = None) -> str:
    """``controller.mode`` of a controller mapping (default "position")."""
    return get(params, "mode", "controller", source, default="position")


__all__ = ["CONTROLLER_MODES", "JointController", "JointMeasurement", "JointReference", "MotorCommand",
           "controller_mode", "make_joint_controllers"]
