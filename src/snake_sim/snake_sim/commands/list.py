"""``snake-sim list``: the scenarios shipped in config/scenarios/; a composed one with its base and the keys it
changes."""

from __future__ import annotations

import argparse

from snake_sim.core.scenario import changes, describe, list_scenarios


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list the shipped scenarios")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    names = list_scenarios()
    width = max((len(n) for n in names), default=0)
    for name in names:
        print(f"{name:<{width}s}  {describe(name)}")
        base, keys = changes(name)
        if base is not None:
            print(f"{'':<{width}s}    base {base}; changes " + ", ".join(keys))
    return 0
