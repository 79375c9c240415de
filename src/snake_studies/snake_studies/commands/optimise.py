"""``snake-sim optimise SCENARIO --space KEY=LO:HI[:log] ... --objective FIELD [--maximise] [--constraint FIELD>=V]
--trials N [--sampler tpe|cmaes] [--storage URL] [--workers N | --scheduler ADDRESS] --out DIR``.

An Optuna study over the box of ``--space`` whose trials run as Dask tasks (:mod:`snake_studies.optimise`); the
study is kept in DIR (or ``--storage``), so the same command resumes it. Writes DIR/best.yaml (``snake-sim run``
takes it), DIR/trials.csv, DIR/history.png and DIR/importance.png.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from snake_studies.commands.sweep import add_cluster_arguments


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("optimise", help="search a scenario's parameters with Optuna on Dask (best.yaml)")
    p.add_argument("scenario", help="scenario name (snake-sim list) or path to a scenario YAML")
    p.add_argument("--space", action="append", default=[], metavar="KEY=LO:HI[:log]",
                   help="a searched field and its range, e.g. gait.amplitude=0.3:1.05 (repeatable)")
    p.add_argument("--objective", required=True, metavar="FIELD", help="summary.json field, e.g. average_speed_mps")
    p.add_argument("--maximise", action="store_true", help="maximise the objective (default: minimise)")
    p.add_argument("--constraint", action="append", default=[], metavar="FIELD>=V",
                   help="keep only trials with FIELD >= V (or <=), e.g. climbed>=1 (repeatable; TPE only)")
    p.add_argument("--trials", type=int, required=True, metavar="N", help="trials of the study (in all, if resumed)")
    p.add_argument("--sampler", default="tpe", help="tpe (default) or cmaes")
    p.add_argument("--storage", metavar="URL", help="Optuna storage, e.g. sqlite:///study.db (default: DIR/study.log)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="fix a scenario field in every trial (repeatable)")
    add_cluster_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from snake_studies.optimise import Problem, optimise, parse_constraint
    from snake_studies.sweep import parse_range

    problem = Problem(args.scenario, tuple(parse_range(s, "--space", allow_log=True) for s in args.space),
                      args.objective, args.maximise, tuple(parse_constraint(c) for c in args.constraint),
                      tuple(args.overrides))
    outcome = optimise(problem, args.out, args.trials, args.sampler, args.storage, args.workers, args.scheduler,
                       progress=not args.quiet)
    print(f"{outcome.ran} trials run now, {outcome.trials} in the study")
    if outcome.best is None:
        print("no trial has a value" + (" that meets the constraints" if problem.constraints else ""))
    else:
        b = outcome.best
        print(f"best: trial {b.number}, {problem.objective} = {b.value:.6g} at "
              + ", ".join(f"{k} = {v:.6g}" for k, v in b.params.items()))
    if outcome.interrupted:
        print("interrupted: run the same command again to resume the study")
    print("wrote " + ", ".join(str(p) for p in outcome.written))
    return 130 if outcome.interrupted else 0
