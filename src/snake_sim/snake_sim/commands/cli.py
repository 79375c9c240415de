"""``snake-sim``: the command line of the embedded simulator (docs/design.md, "Command line").

Each sub-command lives in its own module and exposes ``add_parser(subparsers)``, which registers its parser and sets
``func(args) -> int``: the simulator's under ``snake_sim.commands``, imported here and listed in :data:`COMMANDS`;
those of packages above the simulator (snake_studies: sweep, optimise, calibrate, reproduce, rectilinear, pushing)
registered as entry points of the group :data:`COMMAND_GROUP`, the way the engines are (snake_sim never imports
them).
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points
from types import ModuleType

from snake_core.validation import ConfigError
from snake_sim.commands import bench, compare, mjcf, run, world
from snake_sim.commands import list as list_command
from snake_sim.core.signals import interrupted_by

#: The simulator's sub-command modules, in the order ``snake-sim --help`` lists them (before the registered ones).
COMMANDS: tuple[ModuleType, ...] = (list_command, run, compare, bench, world, mjcf)
#: Entry-point group of the sub-commands other packages add (name → module with ``add_parser``).
COMMAND_GROUP = "snake_sim.commands"


def commands() -> tuple[ModuleType, ...]:
    """The simulator's sub-commands, then the registered ones (:data:`COMMAND_GROUP`) in the order installed."""
    return COMMANDS + tuple(ep.load() for ep in entry_points(group=COMMAND_GROUP))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="snake-sim", description="Embedded simulator of the modular SEA snake.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in commands():
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:
        print(f"snake-sim: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # a signal outside a run's own handling (core.signals): one line, the shell's code
        stop = interrupted_by(exc)
        print(f"snake-sim {args.command}: interrupted ({stop.name})", file=sys.stderr)
        return stop.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
