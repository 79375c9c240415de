"""``snake-sim list``: the scenarios shipped in config/scenarios/."""

from __future__ import annotations

import argparse

from snake_sim.core.scenario import DEFAULT_SCENARIO, describe, list_scenarios


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list the shipped scenarios")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    names = list_scenarios()
    width = max((len(n) for n in names), default=0)
    for name in names:
        mark = " (default)" if name == DEFAULT_SCENARIO else ""
        print(f"{name:<{width}s}  {describe(name)}{mark}")
    return 0
