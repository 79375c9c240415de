"""``snake-sim mjcf [SCENARIO] [--set key=value]... [--suite] [--out FILE]``: the MJCF of a 3-D scenario's robot
and world, by default for mujoco_ros2_control (:mod:`snake_sim.engines.mujoco.ros2_control`: the motor PD of 002 (4.39)
left to ros2_control, a ``start`` keyframe), with ``--suite`` the suite's own model (the PD as MuJoCo actuators).

    snake-sim mjcf open-loop-flat-3d --set robot.name=koopaee6 --set world.file=stairs --out snake.xml
"""

from __future__ import annotations

import argparse
from pathlib import Path

from snake_sim.core.scenario import load_scenario

from .world import _write

#: The 3-D twin of the pedal-wave scenario.
DEFAULT = "open-loop-flat-3d"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mjcf", help="write the MJCF of a 3-D scenario's robot and world (for mujoco_ros2_control)")
    p.add_argument("scenario", nargs="?", default=DEFAULT,
                   help=f"scenario name (snake-sim list) or path; its robot, world, contact and time step "
                        f"(default {DEFAULT})")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario field, e.g. robot.name=koopaee6, world.file=stairs (repeatable)")
    p.add_argument("--suite", action="store_true",
                   help="the suite's own model (motor PD as MuJoCo actuators) instead of mujoco_ros2_control's")
    p.add_argument("--out", type=Path, default=None, help="output .xml file (default: standard output)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from snake_sim.engines.mujoco.ros2_control import scenario_mjcf  # MuJoCo

    _write(scenario_mjcf(load_scenario(args.scenario, args.overrides), not args.suite), args.out)
    return 0
