"""Benchmarks printed by ``snake-sim bench`` (``make bench``).

Each benchmark is a module here exposing ``TITLE: str`` and ``run() -> list[BenchRow]``. Results
are ratios against a reference measured in the same run, never absolute time limits.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchRow:
    name: str
    value: float
    unit: str
    reference: str = ""  # what the value is measured against, in the same run
    target: str = ""  # the target, e.g. ">= 20x real time"
    met: bool | None = None


#: Benchmark modules, in the order they are printed.
BENCHMARKS: tuple[str, ...] = ("realtime", "engines", "obstacle", "rectilinear", "head_tracking", "sweep", "batch")
