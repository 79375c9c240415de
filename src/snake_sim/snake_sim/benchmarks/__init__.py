"""Benchmarks printed by ``snake-sim bench`` (``make bench``).

Each benchmark is a module here exposing ``TITLE: str`` and ``run() -> list[BenchRow]``. Results
are ratios against a reference measured in the same run, never absolute time limits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class BenchRow:
    name: str
    value: float
    unit: str
    reference: str = ""  # what the value is measured against, in the same run
    target: str = ""  # the target, e.g. ">= 20x real time"
    met: bool | None = None


#: The simulator's benchmark modules, in the order they are printed (other packages register theirs as entry points:
#: snake_sim.commands.bench).
BENCHMARKS: tuple[str, ...] = ("realtime", "engines", "obstacle", "rectilinear", "head_tracking")


def print_rows(title: str, run: Callable[[], list[BenchRow]]) -> None:
    """One benchmark's title, then the rows of ``run()``, as ``make bench`` prints them."""
    print(f"\n== {title}", flush=True)
    for row in run():
        verdict = "" if row.met is None else ("  [met]" if row.met else "  [NOT met]")
        ref = f"  ({row.reference})" if row.reference else ""
        target = f"  target {row.target}" if row.target else ""
        print(f"  {row.name:<48s} {row.value:12.4g} {row.unit:<8s}{ref}{target}{verdict}", flush=True)
