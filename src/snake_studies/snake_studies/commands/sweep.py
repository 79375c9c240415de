"""``snake-sim sweep SCENARIO --grid KEY=V1,V2,... [--random KEY=LO:HI --samples N] [--seeds K] [--set KEY=V]...
[--workers N | --scheduler ADDRESS] [--batch N] [--resume] [--field FIELD] [--outputs] --out DIR``.

Every combination (× seeds) is one run, a Dask task (:mod:`snake_studies.sweep`); its row goes into DIR/results.csv
as it finishes; DIR/report.md and DIR/sweep.png follow. Ctrl-C or SIGTERM keeps the finished rows and writes the
report (exit 130 or 143); ``--resume`` runs only the missing ones, and writes the report again (one a full disk
stopped included). ``--batch N`` steps up to N runs of the vertical model together in one task (same rows
but for the times; :mod:`snake_studies.sweep.engine`).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    """``--workers`` / ``--scheduler`` (shared with ``snake-sim optimise``)."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N",
                       help="worker processes of a local Dask cluster (default: one per core)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running Dask scheduler, e.g. tcp://host:8786 (its workers need this workspace)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="run a scenario over a grid of parameters on Dask (results.csv, report.md)")
    p.add_argument("scenario", help="scenario name (snake-sim list) or path to a scenario YAML")
    p.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="sweep a field over these values, e.g. controller.stiffness=12,14,17.5 (repeatable)")
    p.add_argument("--random", action="append", default=[], metavar="KEY=LO:HI",
                   help="draw a field uniformly in [LO, HI] for each of --samples (repeatable)")
    p.add_argument("--samples", type=int, default=0, metavar="N", help="number of --random draws")
    p.add_argument("--seeds", type=int, default=0, metavar="K",
                   help="run every cell with K perturbation seeds (3-D model) or start offsets "
                        "(snake_studies.sweep.cells)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="fix a scenario field in every run (repeatable)")
    add_cluster_arguments(p)
    p.add_argument("--batch", type=int, default=1, metavar="N",
                   help="step up to N runs of one scenario together per task (vertical model; rows as unbatched but "
                   "for the times: a run's wall time is its build plus the batch's time / N; a batch takes one "
                   "worker, so keep N <= runs / workers); default 1")
    p.add_argument("--resume", action="store_true", help="run only the cells DIR/results.csv has no row of")
    p.add_argument("--field", help="summary.json field of the report (default: time_to_climb_s on worlds with "
                   "something to climb, average_speed_mps otherwise)")
    p.add_argument("--outputs", action="store_true", help="also write each run's summary.json, plots and rosbag "
                   "in DIR/runs/<cell>/")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from snake_studies.sweep import SweepSpec, parse_grid, parse_range, sweep

    spec = SweepSpec(args.scenario, tuple(parse_grid(g) for g in args.grid),
                     tuple(parse_range(r, "--random") for r in args.random), args.samples, args.seeds,
                     tuple(args.overrides))
    outcome = sweep(spec, args.out, args.workers, args.scheduler, args.resume, args.field, args.outputs,
                    progress=not args.quiet, batch=args.batch)
    failed = sum(r["status"] != "ok" for r in outcome.rows)
    print(f"{outcome.ran} run now, {len(outcome.rows)} of {outcome.planned} cells have a row ({failed} failed)")
    if outcome.stop.requested:
        print(f"{outcome.stop.name}: interrupted: the finished runs are in {args.out / 'results.csv'}; add --resume "
              "to complete the sweep")
    print("wrote " + ", ".join(str(p) for p in outcome.written))
    return outcome.stop.exit_code
