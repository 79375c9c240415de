"""``snake-sim rectilinear study``: the parametric study of 003 ch. 4 (:mod:`snake_studies.rectilinear`).

Writes to ``--out`` what :func:`snake_studies.rectilinear.write_study` writes (study.csv, study.md, the
effort figures, cycle.png, best_gait.yaml) and prints the table.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from snake_core.rectilinear.optimise import METHODS
from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_sim.outputs.output_folder import writable_folder
from snake_studies.rectilinear import DEFAULT_ANGLES, DEFAULT_STEP_TIMES, markdown_table, run_study, write_study


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rectilinear", help="rectilinear gait of 003: effort-optimal parametric study")
    kinds = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = kinds.add_parser("study", help="optimise the gait over angles, step times, lengths and masses (003 ch. 4)")
    s.add_argument("--angles", type=float, nargs="+", default=list(DEFAULT_ANGLES), help="gait angles α [deg]")
    s.add_argument("--step-times", type=float, nargs="+", default=list(DEFAULT_STEP_TIMES), help="step times T [s]")
    s.add_argument("--link-length", type=float, nargs="+", default=None,
                   help="link lengths l [m] (default: the robot file's)")
    s.add_argument("--mass", type=float, nargs="+", default=None, help="link masses m [kg] (default: the robot file's)")
    s.add_argument("--mu", type=float, default=None, help="Coulomb friction at the sliding contact (default: robot)")
    s.add_argument("--robot", default="rectilinear6", help="robot file giving N, l, m, μ and the joint range")
    s.add_argument("--method", choices=METHODS, default="slsqp",
                   help="slsqp (complex-step gradients) or delta (003's ±Δ search)")
    s.add_argument("--out", type=Path, default=Path("out/rectilinear-study"), help="output folder")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    writable_folder(args.out)
    robot = load_robot(args.robot)
    mu = args.mu if args.mu is not None else (robot.friction.mu_t if robot.friction else 0.4)
    lengths = args.link_length or [robot.link_length]
    masses = args.mass or [robot.link_mass]
    if not args.angles or not args.step_times:
        raise ConfigError("--angles", args.angles, "give at least one gait angle and one step time")
    rows, cycles = run_study(robot, args.angles, args.step_times, lengths, masses, mu, robot.joint_limit,
                             robot.joint_effort_limit, args.method, progress=not args.no_progress)
    figures, gait = write_study(rows, cycles, args.out)
    print(markdown_table(rows))
    if gait is not None:
        print(f"lowest effort: α = {math.degrees(gait['angle']):g}°, T = {gait['step_time']:g} s "
              f"(gait parameters in {args.out / 'best_gait.yaml'})")
    else:
        print("no feasible setting: see the reasons in the table")
    print(f"wrote {args.out / 'study.csv'}, {args.out / 'study.md'} and {len(figures)} figures")
    return 0 if gait is not None else 1
