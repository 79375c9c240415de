"""``snake-sim bench``: what ``make bench`` prints (ratios measured in one run)."""

from __future__ import annotations

import argparse
import importlib

from snake_sim.benchmarks import BENCHMARKS


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run the benchmarks (make bench)")
    p.add_argument("--only", action="append", choices=BENCHMARKS, help="run only this benchmark (repeatable)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for name in args.only or BENCHMARKS:
        module = importlib.import_module(f"snake_sim.benchmarks.{name}")
        print(f"\n== {module.TITLE}", flush=True)
        for row in module.run():
            verdict = "" if row.met is None else ("  [met]" if row.met else "  [NOT met]")
            ref = f"  ({row.reference})" if row.reference else ""
            target = f"  target {row.target}" if row.target else ""
            print(f"  {row.name:<48s} {row.value:12.4g} {row.unit:<8s}{ref}{target}{verdict}", flush=True)
    return 0
