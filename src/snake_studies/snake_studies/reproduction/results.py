"""Stored results of the reproduction sections: a section's results dataclass ↔ JSON.

Every section's ``run(fast)`` returns a frozen dataclass of numbers and verdicts; ``snake-sim reproduce`` writes it
to ``<out>/reproduction/<section>.json`` with :func:`dump` and renders docs/reproduction.md from what :func:`load`
reads back, so the document is always the rendering of the stored files. Fields may be numbers, strings, bools,
None, tuples, lists, dicts with string keys and nested dataclasses; NaN is stored as JSON's ``NaN``. The numbers'
texts the sections share are here too (:func:`pi_text`, :func:`figure`, :func:`comparison_text`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from snake_sim.analysis.step_check import Comparison

T = TypeVar("T")

#: Folder under the output folder that holds one ``<section>.json`` per section.
RESULTS_FOLDER = "reproduction"


def results_path(out: Path, section: str) -> Path:
    """Where ``section``'s stored results live under the output folder ``out``."""
    return out / RESULTS_FOLDER / f"{section}.json"


def plain(value: Any) -> Any:
    """``value`` as JSON types (dataclasses as mappings, tuples as lists, numpy scalars as Python ones)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def to_json(results: Any) -> str:
    """The JSON text of a results dataclass (indented, keys in field order)."""
    return json.dumps(plain(results), indent=1, ensure_ascii=False) + "\n"


def build(kind: Any, value: Any) -> Any:
    """``value`` (JSON types) as the annotated type ``kind`` (keys a dataclass does not have are ignored)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        (kind,) = [a for a in args if a is not type(None)]
        return build(kind, value)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(build(args[0], v) for v in value)
        return tuple(build(a, v) for a, v in zip(args, value, strict=True))
    if origin is list:
        return [build(args[0], v) for v in value]
    if origin is dict:
        return {k: build(args[1], v) for k, v in value.items()}
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        # a field added with a default since the results were stored takes its default (None: "not measured")
        return kind(**{f.name: build(hints[f.name], value[f.name]) for f in dataclasses.fields(kind)
                       if f.init and (f.name in value or f.default is dataclasses.MISSING)})
    if kind is float and isinstance(value, int):
        return float(value)
    return value


def from_json(kind: type[T], text: str) -> T:
    """The results dataclass ``kind`` from the JSON text :func:`to_json` wrote."""
    return build(kind, json.loads(text))


def dump(results: Any, path: Path) -> None:
    """Write ``results`` to ``path`` (folders created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_json(results), encoding="utf-8")


def load(kind: type[T], path: Path) -> T:
    """Read the results of type ``kind`` stored at ``path``."""
    return from_json(kind, path.read_text(encoding="utf-8"))


def earlier(reads: Mapping[str, type], out: Path | None) -> dict[str, Any]:
    """The results stored under ``out`` (the current run's folder) of the sections a section reads (its ``READS``:
    name → Results class), by name; None for a section with no results there (or no folder)."""
    paths = {name: results_path(out, name) for name in reads} if out is not None else {}
    return {name: load(kind, paths[name]) if name in paths and paths[name].exists() else None
            for name, kind in reads.items()}


#: What the text calls each robot file of 002 (docs/readings.md "002 Table 5.1"): 002's simulation ran
#: Table 5.1's parameters, its experiments the robot as built.
ROBOT_LABELS = {"koopaee6_sim": "Table 5.1's simulated robot", "koopaee6": "the robot as built"}


def robot_text(name: str) -> str:
    """The robot file ``name`` (a scenario's ``robot.name``) as the text names it: "the robot as built, `koopaee6`";
    a robot without a label by its name alone."""
    label = ROBOT_LABELS.get(name)
    return f"{label}, `{name}`" if label else f"`{name}`"


def pi_text(value: float) -> str:
    """An angle or rate as the text states it: a fraction pπ/q of π (q ≤ 6) when it is one, else the number."""
    for q in range(1, 7):
        p = round(value * q / math.pi)
        if p and math.isclose(value, p * math.pi / q, rel_tol=1e-9) and math.gcd(p, q) == 1:
            num = {1: "π", -1: "−π"}.get(p, f"{p}π".replace("-", "−"))
            return num if q == 1 else f"{num}/{q}"
    return f"{value:g}"


def figure(value: float, sign: str = "") -> str:
    """``value`` to 0.1, or to two significant digits below 0.05 (a near-zero speed is not printed as ±0.0);
    ``sign``: a format sign option ("+")."""
    if value == 0.0:
        return "0"
    return f"{value:{sign}.1f}" if abs(value) >= 0.05 else f"{value:{sign}.2g}"


def comparison_text(c: Comparison, a: str, b: str, unit: str = "s", scale: float = 1.0) -> str:
    """``a − b = <difference> against a half-step spread of <spread>: a difference`` (or **not**) in ``unit``, the
    values times ``scale`` (:func:`snake_sim.analysis.step_check.compare`); why not where nothing is compared."""
    if c.difference is None:
        return "not compared (a run of either does not climb at h or at h/2)" if unit == "s" else "not compared"
    verdict = "a difference" if c.is_difference else "**not** a difference"
    return (f"{a} − {b} = {figure(scale * c.difference, '+')} {unit} against a half-step spread of "
            f"{figure(scale * c.spread)} {unit}: {verdict}")
