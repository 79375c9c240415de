"""``snake-sim bench``: what ``make bench`` prints (ratios measured in one run)."""

from __future__ import annotations

import argparse
import importlib

from snake_sim.benchmarks import BENCHMARKS, print_rows


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run the benchmarks (make bench)")
    p.add_argument("--only", action="append", choices=BENCHMARKS, help="run only this benchmark (repeatable)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for name in args.only or BENCHMARKS:
        module = importlib.import_module(f"snake_sim.benchmarks.{name}")
        print_rows(module.TITLE, module.run)
    return 0
