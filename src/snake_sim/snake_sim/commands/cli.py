"""``snake-sim``: the command line of the embedded simulator (docs/design.md, "Command line").

Each sub-command lives in its own module under ``snake_sim.commands``, imported here and listed in
:data:`COMMANDS`, and exposes ``add_parser(subparsers)``, which registers its parser and sets ``func(args) -> int``.
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType

from snake_core.validation import ConfigError
from snake_sim.commands import (
    bench,
    calibrate,
    compare,
    mjcf,
    optimise,
    pushing,
    rectilinear,
    reproduce,
    run,
    sweep,
    world,
)
from snake_sim.commands import list as list_command
from snake_sim.core.signals import interrupted_by

#: Sub-command modules, in the order ``snake-sim --help`` lists them.
COMMANDS: tuple[ModuleType, ...] = (list_command, run, compare, sweep, optimise, calibrate, reproduce, bench, world,
                                    mjcf, rectilinear, pushing)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="snake-sim", description="Embedded simulator of the modular SEA snake.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
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
