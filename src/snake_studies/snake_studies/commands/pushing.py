"""``snake-sim pushing study | check | analyse``: 001 (pushing an object, slippage ratio).

``study`` reproduces 001's two case studies (Figs. 4-6, Table 2), ``check`` pushes the box of
``worlds/pushing.sdf`` in the dynamic simulation and compares the initial accelerations with the analysis,
``analyse`` answers for one shape (and optionally one input): :mod:`snake_studies.pushing`, which says
what each writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from snake_core import yaml_files
from snake_core.pushing import PushingError
from snake_core.pushing.model import KAPPA_FIG4
from snake_core.pushing.study import ANGLE_LIMIT_DEG, ANGLE_STEP_DEG
from snake_core.validation import ConfigError
from snake_sim.engines.pushing.plant import CONTACT_STIFFNESS, WHEEL_DAMPING
from snake_studies.pushing import (
    CHECK_JOINTS_DEG,
    FAST_DIRECTIONS,
    FAST_STEP_DEG,
    Settings,
    analyse,
    run_check,
    run_study,
    table_markdown,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pushing", help="001: pushing an object, motion norms and slippage ratio")
    psub = p.add_subparsers(dest="pushing_command", metavar="ACTION", required=True)
    s = psub.add_parser("study", help="reproduce 001's case studies 1 and 2 (Figs. 4-6, Table 2)")
    s.add_argument("--out", type=Path, default=Path("out/pushing"), help="output folder (default: out/pushing)")
    s.add_argument("--kappa", type=float, default=KAPPA_FIG4, help="object/link mass ratio κ (default: 100)")
    s.add_argument("--step-deg", type=float, default=ANGLE_STEP_DEG, help="joint-angle grid step [deg] (default 10)")
    s.add_argument("--limit-deg", type=float, default=ANGLE_LIMIT_DEG, help="joint-angle grid limit [deg] (135)")
    s.add_argument("--directions", type=int, default=48, help="Scenario 2: input directions sampled per radius")
    s.add_argument("--param", action="append", default=[], metavar="FIELD=VALUE",
                   help="override a model field for both case studies, e.g. contact_position=0.25, mu_s=0.3, "
                        "object_offset=[0.1,0.02] (fields of snake_core.pushing.PushingModel; repeatable)")
    s.add_argument("--fast", action="store_true", help=f"coarse grid ({FAST_STEP_DEG:g}°), few samples: smoke test")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(func=run_study_command)
    c = psub.add_parser("check", help="push the box of worlds/pushing.sdf in a dynamic simulation and compare the "
                                      "initial accelerations with the analysis")
    c.add_argument("--out", type=Path, default=Path("out/pushing-check"), help="output folder")
    c.add_argument("--joints-deg", type=float, nargs="+", default=list(CHECK_JOINTS_DEG),
                   help=f"joint angles φ₁ … φ_n_a [deg], tail first (default {' '.join(map(str, CHECK_JOINTS_DEG))})")
    c.add_argument("--tau", type=float, nargs="+", default=None,
                   help="joint torques [N·m], tail first (default: the input of (31) that maximises ‖a_obj‖²)")
    c.add_argument("--scale", type=float, default=1.0, help="multiply the torques (e.g. 4: the wheels slide)")
    c.add_argument("--stiffness", type=float, default=CONTACT_STIFFNESS, help="penalty contact stiffness [N/m]")
    c.add_argument("--wheel-damping", type=float, default=WHEEL_DAMPING, help="lateral wheel damping [N·s/m]")
    c.set_defaults(func=run_check_command)
    a = psub.add_parser("analyse", help="one shape (and optionally one input): best pushing inputs, norms, sr")
    a.add_argument("--joints-deg", type=float, nargs="+", required=True, help="joint angles φ [deg], tail first")
    a.add_argument("--tau", type=float, nargs="+", default=None, help="joint torques [N·m] to evaluate, tail first")
    a.add_argument("--kappa", type=float, default=KAPPA_FIG4, help="object/link mass ratio κ (default: 100)")
    a.add_argument("--param", action="append", default=[], metavar="FIELD=VALUE", help="model override (repeatable)")
    a.add_argument("--json", action="store_true", help="print JSON instead of a table")
    a.set_defaults(func=run_analyse_command)


def parse_params(items: list[str]) -> tuple[tuple[str, object], ...]:
    """``FIELD=VALUE`` strings (VALUE as YAML: numbers, lists) → pairs."""
    out = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError("--param", item, "must be FIELD=VALUE")
        if key in ("n_joints", "kappa"):
            raise ConfigError("--param", item, "n_joints is fixed by the case study; set κ with --kappa")
        out.append((key, yaml_files.safe_load(value)))
    return tuple(out)


def run_study_command(args: argparse.Namespace) -> int:
    settings = Settings(kappa=args.kappa, step_deg=FAST_STEP_DEG if args.fast else args.step_deg,
                        limit_deg=args.limit_deg, directions=FAST_DIRECTIONS if args.fast else args.directions,
                        params=parse_params(args.param))
    summary = run_study(args.out, settings, progress=not args.no_progress)
    print(table_markdown(summary["case2"]["table2"], summary["case2"]["configurations"], settings))
    print(f"wrote {args.out}/ (fig4_case1.png, fig4c_kappa.png, fig5_polar.png, fig6_configurations.png, "
          "table2.md, table2.csv, study.json)")
    return 0


def run_check_command(args: argparse.Namespace) -> int:
    try:
        rows = run_check(args.out, args.joints_deg, args.tau, args.scale, args.stiffness, args.wheel_damping)
    except PushingError as exc:  # e.g. torques that pull the tail link away from the box
        print(f"snake-sim: error: {exc}", file=sys.stderr)
        return 2
    print("| scenario | ‖a_obj‖ analysis | ‖a_obj‖ sim | rel. error a_obj | rel. error q̈_s | sr analysis | sr sim |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['scenario']} | {np.linalg.norm(r['a_obj_analysis']):.5g} | {np.linalg.norm(r['a_obj_sim']):.5g} | "
              f"{r['a_obj_rel_error']:.2e} | {r['qdd_rel_error']:.2e} | {r['sr_analysis']:.4g} | {r['sr_sim']:.4g} |")
    print(f"wrote {args.out}/check.json, {args.out}/check.png")
    return 0


def run_analyse_command(args: argparse.Namespace) -> int:
    result = analyse(args.joints_deg, args.tau, args.kappa, parse_params(args.param))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"shape φ = {result['joints_deg']}°: |COM| = {result['com_distance_m']:.4f} m, "
          f"∠COM = {result['com_angle_deg']:.1f}°, κ = {result['kappa']:g}")
    for label, row in result["scenarios"].items():
        print(f"{label}: best ‖a_obj‖² = {row['best_a_obj_sq']:.5g} at τ = "
              f"{np.round(row['tau_best_a_obj'], 5).tolist()} N·m; best sr = {row['best_sr']:.4g} along τ = "
              f"{np.round(row['tau_best_sr'], 5).tolist()}")
        if "input" in row:
            inp = row["input"]
            print("    given τ: contact " + (inp["contact"] if inp["contact"] != "held" else
                  f"held, ‖q̈_s‖² = {inp['qdd_sq']:.5g}, ‖a_obj‖² = {inp['a_obj_sq']:.5g}, sr = {inp['sr']:.4g}, "
                  f"wheels sliding {inp['wheels_sliding']}"))
    return 0
