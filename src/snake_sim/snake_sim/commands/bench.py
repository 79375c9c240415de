"""``snake-sim bench``: what ``make bench`` prints (ratios measured in one run)."""

from __future__ import annotations

import argparse
from importlib.metadata import entry_points
from types import ModuleType

from snake_sim.benchmarks import BENCHMARKS, print_rows

#: Entry-point group of the benchmarks other packages add (name → module with ``TITLE`` and ``run``): the studies'
#: sweep and batch benchmarks; printed after the simulator's.
BENCH_GROUP = "snake_sim.benchmarks"


def names() -> tuple[str, ...]:
    """Every benchmark's name, in the order printed: BENCHMARKS, then the registered ones."""
    return BENCHMARKS + tuple(ep.name for ep in entry_points(group=BENCH_GROUP))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run the benchmarks (make bench)")
    p.add_argument("--only", action="append", choices=names(), help="run only this benchmark (repeatable)")
    p.set_defaults(func=run)


def modules() -> dict[str, ModuleType]:
    """Each name of :func:`names` → its module (imported when the benchmarks run: they load every engine)."""
    from snake_sim.benchmarks import engines, head_tracking, obstacle, realtime, rectilinear

    found = {m.__name__.rpartition(".")[2]: m for m in (realtime, engines, obstacle, rectilinear, head_tracking)}
    found |= {ep.name: ep.load() for ep in entry_points(group=BENCH_GROUP)}
    return {name: found[name] for name in names()}


def run(args: argparse.Namespace) -> int:
    found = modules()
    for name in args.only or names():
        print_rows(found[name].TITLE, found[name].run)
    return 0
