"""``snake-sim world``: write SDF worlds (a flight of stairs, or regenerate the shipped worlds)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from snake_core import locator
from snake_core.validation import ConfigError
from snake_sim.core import worldgen
from snake_sim.outputs.output_folder import writable_file, writable_folder, write_text


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("world", help="write an SDF world (stairs, or the shipped worlds)")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    s = kinds.add_parser("stairs", help="a flight of stairs going up along +x")
    s.add_argument("--steps", type=int, default=worldgen.STAIRS_STEPS, help="number of steps (1–50)")
    s.add_argument("--rise", type=float, default=worldgen.STAIRS_RISE, help="height of each step [m]")
    s.add_argument("--run", type=float, default=worldgen.STAIRS_RUN, help="depth of each step along x [m]")
    s.add_argument("--start", type=float, default=None,
                   help="x of the first riser [m] (default: 150 mm ahead of koopaee6's head tip)")
    s.add_argument("--width", type=float, default=worldgen.PATH_WIDTH, help="width across the path (y) [m]")
    s.add_argument("--name", default="stairs", help="world name inside the SDF")
    s.add_argument("--out", type=Path, default=None, help="output .sdf file (default: standard output)")
    s.set_defaults(func=run_stairs)
    r = kinds.add_parser("shipped", help="regenerate the worlds/ files this suite generates")
    r.add_argument("--out", type=Path, default=None, help="output folder (default: the suite's worlds/)")
    r.set_defaults(func=run_shipped)


def _write(text: str, out: Path | None) -> None:
    """``text`` on standard output, or written whole in the file ``out`` (one error line if it cannot be)."""
    if out is None:
        sys.stdout.write(text)
        return
    try:
        write_text(writable_file(out), text)
    except OSError as exc:
        raise ConfigError("--out", str(out), f"cannot write it ({exc.strerror or exc})") from None
    print(f"wrote {out}", file=sys.stderr)


def run_stairs(args: argparse.Namespace) -> int:
    _write(worldgen.stairs_world(args.steps, args.rise, args.run, args.start, args.width, args.name), args.out)
    return 0


def run_shipped(args: argparse.Namespace) -> int:
    folder = writable_folder(args.out) if args.out is not None else locator.description_dir() / "worlds"
    for stem, generate in worldgen.SHIPPED.items():
        _write(generate(), folder / f"{stem}.sdf")
    return 0
