"""``snake-sim calibrate SCENARIO (--bag PATH | --table FILE) --fit FIELD=LO:HI [--fit ...] [--log FIELD]...
[--window S] [--trials N] [--seed N] [--restarts K] [--bootstrap B] [--set KEY=VALUE]...
[--workers N | --scheduler ADDRESS] [--resume] --out DIR``.

Fits scenario fields to a recording (:mod:`snake_studies.calibrate`): a CMA-ES search on Dask (the study in
DIR/study.log, ``--resume`` continues it), least-squares polishes from its best distinct trials, profile
intervals and identifiability, and the parametric bootstrap's intervals (``--bootstrap B`` replicates on Dask,
:mod:`snake_studies.calibration_bootstrap`). Writes DIR/result.yaml, DIR/fitted.yaml (``snake-sim run`` takes it),
DIR/report.md, DIR/fit.png, DIR/loss.png, DIR/pairs.png and the search's trials.csv, best.yaml, history.png and
importance.png. With ``--table`` (a table of outcomes instead of a recording, :mod:`snake_studies.calibrate_table`):
the same search, an approximate posterior of the near-best trials instead of the polishes and intervals, every row
re-run at h and h/2; DIR/result.yaml, DIR/fitted.yaml, DIR/report.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from snake_studies.commands.sweep import add_cluster_arguments

#: Default replicates of ``--bootstrap`` (the basic interval's 2.5 % and 97.5 % quantiles: 5 replicates beyond each).
BOOTSTRAP = 200


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="fit scenario fields to a rosbag2 recording or a table of outcomes "
                       "(result.yaml, fitted.yaml)")
    p.add_argument("scenario", help="scenario name (snake-sim list) or path to a scenario YAML (--bag: the vertical "
                   "model or MuJoCo; --table: any model, the rows' default scenario)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--bag", type=Path, help="rosbag2 folder (MCAP or sqlite3) with /joint_states or the CAN "
                        "bridge's joint states (and /tf where it has it)")
    source.add_argument("--table", type=Path, help="a table of outcomes (YAML or CSV: speeds, climbs, roll-overs; "
                        "docs/studies.md) instead of a recording")
    p.add_argument("--fit", action="append", default=[], metavar="FIELD=LO:HI",
                   help="a fitted field and its range, e.g. contact.friction=0.2:1.5, or the recording's: its delay "
                        "behind the gait, recording.delay=-0.1:0.1 [s], an encoder's offset, "
                        "recording.alpha_offset.J or recording.beta_offset.J [rad] (repeatable)")
    p.add_argument("--log", action="append", default=[], metavar="FIELD",
                   help="search this --fit field in log-space (repeatable)")
    p.add_argument("--window", type=float, default=1.0, metavar="S",
                   help="length of the windows restarted from the recording [s] (default 1)")
    p.add_argument("--trials", type=int, default=40, metavar="N", help="trials of the CMA-ES search (default 40)")
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="seed of the search's random draws (default: new ones each run)")
    p.add_argument("--restarts", type=int, default=3, metavar="K",
                   help="with --bag: polish from the search's K best distinct trials, keep the best and say whether "
                        "they agree (default 3)")
    p.add_argument("--bootstrap", type=int, default=BOOTSTRAP, metavar="B",
                   help="with --bag: B synthetic recordings at the fitted values, each calibrated again, for intervals "
                        f"that correct the fit's bias (0: the profile intervals alone; default {BOOTSTRAP})")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="fix a scenario field in every run (repeatable)")
    add_cluster_arguments(p)
    p.add_argument("--resume", action="store_true", help="continue the calibration in the --out folder")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from snake_studies.calibrate import Calibration, calibrate, parse_fits
    from snake_studies.calibrate_table import TableCalibration, calibrate_table

    fits, sets = parse_fits(args.fit, args.log), tuple(args.overrides)
    if args.table is not None:
        calibration: Any = TableCalibration(args.scenario, args.table, fits, sets)
        search, summary, extra = calibrate_table, _table_summary, {}
    else:
        calibration = Calibration(args.scenario, args.bag, fits, sets, args.window)
        search, summary, extra = calibrate, _bag_summary, {"restarts": args.restarts, "replicates": args.bootstrap}
    outcome = search(calibration, args.out, args.trials, args.workers, args.scheduler, args.resume,
                     progress=not args.quiet, seed=args.seed, **extra)
    print(f"{outcome.trials} trials in the search")
    if outcome.interrupted:
        print("interrupted: run the same command with --resume to continue")
        return 130
    if not outcome.fitted:
        print("no trial has a value")
        return 1
    summary(outcome)
    print("wrote " + ", ".join(str(p) for p in outcome.written))
    return 0


def _bag_summary(outcome: Any) -> None:
    """The fit to a recording: losses, values and intervals."""
    from snake_studies.calibration_report import NOT_IDENTIFIABLE, stated_interval

    print(f"loss {outcome.loss_start:.4g} after the search, {outcome.loss:.4g} after the polish "
          f"({outcome.evaluations} runs after the search)")
    boot = {} if outcome.bootstrap is None else outcome.bootstrap.fields
    for f in outcome.fitted:
        interval = (f"95 % profile interval {f.interval[0]:.4g} … {f.interval[1]:.4g}" if f.interval
                    else f"{NOT_IDENTIFIABLE} (frozen)")
        if f.key in boot:
            b = boot[f.key]
            (lo, hi), _ = stated_interval(f.interval, b.interval)
            interval = (f"95 % interval {lo:.4g} … {hi:.4g} (the hull of the bootstrap interval {b.interval[0]:.4g} … "
                        f"{b.interval[1]:.4g}, bias {b.bias:+.3g}, and the {interval})")
        print(f"{f.key} = {f.value:.6g}  {interval}")
    restarts = outcome.fit.restarts
    if len(restarts) > 1:
        print(f"{len(restarts)} polishes from distinct trials: " + (
            "they agree" if all(r.agrees for r in restarts) else
            f"{sum(not r.agrees for r in restarts)} ended elsewhere (losses "
            + ", ".join(f"{r.loss:.4g}" for r in restarts) + "); the least kept"))


def _table_summary(outcome: Any) -> None:
    """The fit to a table: loss, values and accepted ranges, the rows whose verdict stands at h/2."""
    from snake_studies.calibrate_table import NOT_IDENTIFIABLE

    print(f"loss {outcome.loss:.4g}; {outcome.accepted} points in the approximate posterior (loss within the "
          "acceptance threshold of the best)")
    for f in outcome.fitted:
        spread = f"accepted {f.spread[0]:.4g} … {f.spread[1]:.4g}"
        print(f"{f.key} = {f.value:.6g}  {spread}" + ("" if f.identifiable else f"  ({NOT_IDENTIFIABLE})"))
    print(f"rows whose verdict stands at h/2: {sum(f.stands for f in outcome.rows)} of {len(outcome.rows)}")
