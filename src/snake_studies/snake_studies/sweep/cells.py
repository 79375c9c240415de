"""The runs of a sweep: grid × random samples × seeds of one scenario, validated before anything runs.

A cell is one run: the scenario and its ``--set`` overrides, in order: the fixed ``--set`` ones, the swept
values (``--grid`` then ``--random``), the seed's. Its id is a hash of the scenario and those overrides, so that
the same sweep planned again (``--resume``) gives the same ids and a grown grid keeps the finished ones.

Seeds (``--seeds K``, k = 0 … K − 1) vary what the scenario leaves to chance or to the set-up:

- a scenario with ``sim.perturbation`` (the 3-D model's initial roll, offset and joint noise): seed k sets
  ``sim.perturbation.seed = k``, the draw of the joint-angle noise;
- otherwise a scenario with ``world.start_x``: seed k starts the tail tip k · :data:`START_OFFSET_M` behind it
  (k = 0 is the scenario as written), so that the head meets an obstacle at another phase of the gait
  (4 seeds span about one cycle's travel of TSC at 1.9 cm/s, ω = π);
- a scenario with neither (the planar and pushing models are deterministic from a fixed start) has no seeds.

Random samples (``--random KEY=LO:HI --samples N``) are uniform in [LO, HI], drawn from a generator seeded
with :data:`SAMPLING_SEED`, so that the same command plans the same cells.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from snake_core.validation import ConfigError, integer
from snake_sim.core.models import runtime_for
from snake_sim.core.scenario import Scenario, expression, load_scenario

#: Tail-tip start offset between consecutive start seeds [m].
START_OFFSET_M = 0.01
#: Seed of the generator of ``--random`` samples.
SAMPLING_SEED = 0


@dataclass(frozen=True)
class Cell:
    """One run of a sweep or one trial of a search."""

    scenario: str  # name (snake-sim list) or path of the scenario file
    overrides: tuple[str, ...]  # every KEY=VALUE of the run, in the order they apply
    values: tuple[tuple[str, Any], ...] = ()  # swept key → its value in the validated scenario (table columns)
    seed: int | None = None  # None: no seed dimension

    @property
    def id(self) -> str:
        """12 hex digits of the SHA-1 of the scenario and its overrides (stable across runs of the command)."""
        text = json.dumps([self.scenario, list(self.overrides)])
        return hashlib.sha1(text.encode()).hexdigest()[:12]

    def columns(self) -> dict[str, Any]:
        """The cell's columns of a row: id, swept values, seed."""
        out: dict[str, Any] = {"cell": self.id, **dict(self.values)}
        if self.seed is not None:
            out["seed"] = self.seed
        return out


@dataclass(frozen=True)
class Range:
    """``KEY=LO:HI[:log]`` of ``--random`` and ``--space``."""

    key: str
    low: float
    high: float
    log: bool = False


@dataclass(frozen=True)
class SweepSpec:
    """What ``snake-sim sweep`` was asked (JSON-ready through :meth:`as_dict`)."""

    scenario: str
    grid: tuple[tuple[str, tuple[str, ...]], ...] = ()  # key → values as written
    random: tuple[Range, ...] = ()
    samples: int = 0
    seeds: int = 0  # 0: no seed dimension
    sets: tuple[str, ...] = ()  # fixed KEY=VALUE of every run

    @property
    def swept(self) -> tuple[str, ...]:
        """The swept keys, grid first."""
        return tuple(k for k, _ in self.grid) + tuple(r.key for r in self.random)

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "grid": {k: list(v) for k, v in self.grid},
                "random": {r.key: [r.low, r.high] for r in self.random}, "samples": self.samples,
                "seeds": self.seeds, "set": list(self.sets)}


def _split_key(text: str, option: str, example: str) -> tuple[str, str]:
    key, sep, rest = text.partition("=")
    if not sep or not key.strip() or not rest.strip():
        raise ConfigError(option, text, f"must be KEY={example} with a dotted key, e.g. gait.amplitude={example}")
    return key.strip(), rest.strip()


def parse_grid(text: str) -> tuple[str, tuple[str, ...]]:
    """``KEY=V1,V2,...`` → (key, values as written); ConfigError for an empty value or a repeated one."""
    key, rest = _split_key(text, "--grid", "V1,V2")
    values = tuple(v.strip() for v in rest.split(","))
    if not all(values):
        raise ConfigError("--grid", text, "every value must be non-empty (V1,V2,...)")
    if len(set(values)) != len(values):
        raise ConfigError("--grid", text, "a value is repeated")
    return key, values


def parse_range(text: str, option: str, allow_log: bool = False) -> Range:
    """``KEY=LO:HI`` (and ``:log`` if ``allow_log``), numbers or expressions of pi; ConfigError unless LO < HI."""
    key, rest = _split_key(text, option, "LO:HI[:log]" if allow_log else "LO:HI")
    parts = rest.split(":")
    log = allow_log and len(parts) == 3 and parts[2].strip() == "log"
    if len(parts) != 2 + log:
        raise ConfigError(option, text, "must be KEY=LO:HI" + ("[:log]" if allow_log else ""))
    try:
        low, high = (expression(p) for p in parts[:2])
    except (ValueError, SyntaxError, ZeroDivisionError):
        raise ConfigError(option, text, "LO and HI must be numbers or expressions of pi") from None
    if not (math.isfinite(low) and math.isfinite(high)) or low >= high:
        raise ConfigError(option, text, "must be a non-empty range: LO < HI")
    if log and low <= 0.0:
        raise ConfigError(option, text, "a log range needs LO > 0")
    return Range(key, low, high, log)


def _value_at(scenario: Scenario, key: str) -> Any:
    """The value of a dotted key in the validated scenario (None if a default of the model's)."""
    node: Any = scenario.data
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def seed_overrides(scenario: Scenario, seed: int) -> list[str] | None:
    """The overrides of seed ``seed`` for ``scenario`` (module docstring); None if it has no seeds."""
    if "perturbation" in scenario.data["sim"]:
        return [f"sim.perturbation.seed={seed}"]
    if "start_x" in scenario.section("world"):
        start = float(scenario.section("world")["start_x"])
        return [f"world.start_x={start - seed * START_OFFSET_M!r}"]
    return None


def _combinations(spec: SweepSpec) -> list[tuple[tuple[str, str], ...]]:
    """(key, value text) of every grid point × random sample, grid keys first."""
    grid = list(itertools.product(*[[(k, v) for v in values] for k, values in spec.grid]))
    if not spec.random:
        return [tuple(g) for g in grid]
    rng = np.random.default_rng(SAMPLING_SEED)
    draws = [tuple((r.key, repr(float(rng.uniform(r.low, r.high)))) for r in spec.random)
             for _ in range(spec.samples)]
    return [tuple(g) + d for g in grid for d in draws]


def check_keys(sets: tuple[str, ...], swept: tuple[str, ...]) -> None:
    """ConfigError for a key swept twice or both swept and fixed by ``--set``."""
    seen: set[str] = set()
    for key in swept:
        if key in seen:
            raise ConfigError("--grid/--random/--space", key, "is swept twice")
        seen.add(key)
    for assignment in sets:
        key = assignment.partition("=")[0].strip()
        if key in seen:
            raise ConfigError("--set", assignment, "fixes a key that is swept")


def validate(scenario: Scenario) -> None:
    """The model's own validation of every section (its runtime's ``build``), nothing run."""
    runtime_for(scenario.model, scenario.source).build(scenario)


def plan(spec: SweepSpec) -> list[Cell]:
    """Every cell of the sweep, each one's scenario validated by its model; the first bad one raises ConfigError."""
    check_keys(spec.sets, spec.swept)
    if spec.random and spec.samples < 1:
        raise ConfigError("--samples", spec.samples, "--random needs --samples N >= 1")
    if spec.samples and not spec.random:
        raise ConfigError("--samples", spec.samples, "is the number of --random draws; give --random KEY=LO:HI")
    integer(spec.seeds, "--seeds", low=0)
    cells = []
    for combo in _combinations(spec):
        swept = [f"{k}={v}" for k, v in combo]
        base = load_scenario(spec.scenario, [*spec.sets, *swept])
        if spec.seeds and seed_overrides(base, 0) is None:
            raise ConfigError("--seeds", spec.seeds, f"{base.name} has neither sim.perturbation nor world.start_x to "
                              "vary (its model is deterministic from a fixed start)", base.source)
        for seed in range(spec.seeds) if spec.seeds else [None]:
            overrides = (*spec.sets, *swept, *([] if seed is None else seed_overrides(base, seed) or []))
            scenario = load_scenario(spec.scenario, overrides)
            validate(scenario)
            values = tuple((k, _value_at(scenario, k)) for k, _ in combo)
            cells.append(Cell(spec.scenario, overrides, values, seed))
    return cells
