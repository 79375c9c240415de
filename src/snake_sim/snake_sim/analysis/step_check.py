"""Step convergence of a run (docs/design.md "Command line": every verdict is converged).

A run is repeated at half its ``sim.time_step``; :func:`step_check` compares the two summaries: every
verdict (status, reached the obstacle, climbed, rolled over) must be the same, and the times and speeds the
verdicts rest on (time to climb, CoM speed, climb speed) must move by at most ``TOLERANCE``. Every other number of the
summary is reported too, with its relative change, except the wall-clock ones.

The relative change of a value x_h at step h is (x_h − x_{h/2}) / |x_{h/2}|: the finer run is the
reference.

Two groups of runs are compared by the same rule (:func:`compare`): their difference is a difference only when it
exceeds the largest change of any of their values from the step to half of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .summary import flatten

#: Largest relative change of a time or speed between the step and its half (5 %: docs/design.md, "every
#: verdict is converged").
TOLERANCE = 0.05
#: Fields that must not change at all.
VERDICTS = ("status", "reached", "climbed", "rolled_over")
#: Fields that must move by at most TOLERANCE.
RATES = ("time_to_climb_s", "average_speed_mps", "climb_average_speed_mps")
#: Fields that measure the computer, not the model.
WALL_CLOCK = ("wall_time_s", "real_time_factor")


def relative_change(value: float | None, reference: float | None) -> float | None:
    """(value − reference) / |reference|; 0 if both are 0, None if either is missing or only the reference is 0."""
    if value is None or reference is None:
        return None
    if reference == 0.0:
        return 0.0 if value == 0.0 else None
    return (value - reference) / abs(reference)


def _leaves(summary: dict[str, Any]) -> dict[str, Any]:
    """Verdicts and numbers of a summary by dotted path: not the wall-clock fields, a step check, or names."""
    return {path: value for path, value in flatten(summary).items()
            if path not in WALL_CLOCK and "step_check" not in path.split(".")
            and (not isinstance(value, str) or path == "status")}  # names (scenario, robot, plane) are not results


def step_check(summary: dict[str, Any], half: dict[str, Any], time_step: float) -> dict[str, Any]:
    """The ``step_check`` entry of summary.json: ``summary`` at ``time_step`` against ``half`` at its half."""
    ours, finer = _leaves(summary), _leaves(half)
    fields: dict[str, dict[str, Any]] = {}
    for path, value in ours.items():
        other = finer.get(path)
        entry: dict[str, Any] = {"value": value, "half_step": other}
        if isinstance(value, (bool, str)) or value is None or isinstance(other, (bool, str)):
            entry["same"] = value == other
        else:
            entry["relative_change"] = relative_change(float(value), None if other is None else float(other))
        fields[path] = entry
    verdicts_same = all(fields[k]["same"] for k in VERDICTS if k in fields)
    rates = [fields[k] for k in RATES if k in fields and fields[k]["value"] is not None]
    missing = any(r.get("relative_change") is None for r in rates)  # a time at one step only
    worst = max((abs(r["relative_change"]) for r in rates if r.get("relative_change") is not None), default=0.0)
    return {
        "time_step_s": time_step,
        "half_time_step_s": 0.5 * time_step,
        "tolerance": TOLERANCE,
        "verdicts_unchanged": verdicts_same,
        "max_rate_change": worst,
        "converged": verdicts_same and not missing and worst <= TOLERANCE,
        "fields": fields,
    }


def format_step_check(check: dict[str, Any]) -> str:
    """One line for the terminal."""
    f = check["fields"]
    verdict = "same verdicts" if check["verdicts_unchanged"] else "VERDICT CHANGES"
    climbed = f.get("climbed", {})
    climb = "" if climbed.get("value") is None else f" (climbed {climbed['value']} / {climbed['half_step']})"
    return (f"step check        h = {check['time_step_s']:g} s vs {check['half_time_step_s']:g} s: {verdict}{climb}, "
            f"times and speeds move by at most {100 * check['max_rate_change']:.2f} % "
            f"({'converged' if check['converged'] else 'NOT converged'}, tolerance {100 * check['tolerance']:g} %)")


@dataclass(frozen=True)
class Comparison:
    """Mean of ``a`` minus mean of ``b`` (climb times [s] or speeds) at the step, against the largest change of any
    of the runs compared from the step to half of it; None where a run has no value at one of the two steps."""

    difference: float | None
    spread: float | None

    @property
    def is_difference(self) -> bool:
        """The comparison counts as a difference only when it exceeds the half-step spread."""
        return self.difference is not None and self.spread is not None and abs(self.difference) > self.spread


Pairs = Sequence[tuple[float | None, float | None]]


def half_step_spread(pairs: Pairs) -> float | None:
    """The largest |value at h − value at h/2| of the runs' pairs; None if a run lacks a value at either step."""
    if not pairs or any(x is None or y is None for x, y in pairs):
        return None
    return max(abs(x - y) for x, y in pairs)


def compare(a: Pairs, b: Pairs) -> Comparison:
    """Compare two groups of runs by their (value at h, value at h/2) pairs (see :class:`Comparison`)."""
    spread = half_step_spread([*a, *b])
    if not a or not b or spread is None:
        return Comparison(None, None)
    return Comparison(float(np.mean([x for x, _ in a]) - np.mean([x for x, _ in b])), spread)
