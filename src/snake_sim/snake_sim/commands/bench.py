"""``snake-sim bench``: what ``make bench`` prints (ratios measured in one run)."""

from __future__ import annotations

import argparse
from types import ModuleType

from snake_sim.benchmarks import BENCHMARKS, print_rows


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run the benchmarks (make bench)")
    p.add_argument("--only", action="append", choices=BENCHMARKS, help="run only this benchmark (repeatable)")
    p.set_defaults(func=run)


def modules() -> dict[str, ModuleType]:
    """Each name of BENCHMARKS → its module (imported when the benchmarks run: they load every engine)."""
    from snake_sim.benchmarks import batch, engines, head_tracking, obstacle, realtime, rectilinear, sweep

    found = {m.__name__.rpartition(".")[2]: m for m in (realtime, engines, obstacle, rectilinear, head_tracking,
                                                         sweep, batch)}
    return {name: found[name] for name in BENCHMARKS}


def run(args: argparse.Namespace) -> int:
    found = modules()
    for name in args.only or BENCHMARKS:
        print_rows(found[name].TITLE, found[name].run)
    return 0
