"""docs/reproduction.md section: roll-over rates under the asymmetries 002 names, and what the unknowns change.

The study is :mod:`snake_studies.rollover`: 002 §7.4's four controllers on 002's boards of §7.4 (the single
obstacle) and §7.4.2 (the two obstacles) on MuJoCo, each asymmetry axis at a few levels with several perturbation
seeds, every run and its half-step run a task of the sweep engine (summary.json each); then the values 002 does not
print, one at a time. The boards' face μ and each controller's gains are chosen by stated rules from the stored
results of the sections before (:func:`choose_face`, :func:`choose_gains`): a controller that never engages the box
cannot roll over on it. The stored results are the counts per (controller, world, axis, level); the render gives
each roll-over rate with its 95 % Wilson interval, says where 002's ordering appears, and ranks the unknowns.
:func:`figures` draws the rates against each asymmetry per controller and the ranking (written beside the stored
results).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from snake_sim.analysis.rollover import ROLL_OVER_DEG
from snake_sim.core.scenario import load_scenario
from snake_sim.core.worldgen import FACE_FRICTION, PLATE_FRICTIONS, TWO_OBSTACLES_GAP
from snake_studies.climb_3d import case_cells, claim_verdict, climb_run
from snake_studies.engines import MIN_DURATION
from snake_studies.reproduction.experiments import gain_scale, runs_002
from snake_studies.rollover import (
    AMPLITUDE,
    AXES,
    CLIMBER,
    CONTROLLERS,
    FACE_FRICTIONS,
    Axis,
    Rate,
    RateCase,
    Settings,
    controllers_002,
    factors,
    rate,
    rate_case,
    sensitivity_controllers,
    sweep_cases,
)
from snake_studies.sweep import Cell
from snake_studies.sweep.engine import measure_summary

#: Perturbation seeds per (controller, asymmetry level) on the single obstacle, and simulated time of every run [s]
#: (002's longest climb plus 50 s, as every run of 002's climbs). Four seeds put 0/4 and 4/4 beyond each other's 95 %
#: intervals (three cannot tell any two rates apart).
SEEDS = (0, 1, 2, 3)
DURATION = MIN_DURATION
#: The seeds of the two obstacles (only each axis's largest level) and of the unknowns.
FEW_SEEDS = (0,)
#: A ``fast`` smoke run: one seed, 2 s, the single obstacle, each axis's and factor's largest level; the unknowns
#: with the open loop and the climbing run only.
FAST_SEEDS = (0,)
FAST_DURATION = 2.0
FAST_SENSITIVITY = ("open loop", CLIMBER)
#: 002's rows whose outcomes choose the boards' face μ (:func:`choose_face`): the robot experiments on these boards.
BOARD_SECTIONS = ("§7.4", "§7.4.2")
#: The section of the gain study whose readings run at this study's gait (A = π/6, §7.4's board).
GAIN_SECTION = "§7.4"
#: 002's printed TSC gains (D_d, K_d) at §7.4, the centre of :func:`choose_gains`' distance.
TSC_GAINS_002 = (10.0, 17.5)
#: Controller key → scenario prefix of the study's scenarios.
PREFIXES = {"open loop": "open-loop", "local stiffness": "stiffness", "TSC K_τ = 0": "tsc", "TSC K_τ = 6": "tsc"}

#: A run of the plan is the sweep engine's summary.json of its scenario.
measure = measure_summary


@dataclass(frozen=True)
class Choice:
    """A controller's gains in the study: the reading (its label and overrides) and why it was chosen."""

    label: str
    overrides: tuple[str, ...]
    why: str


def choose_face(stored: runs_002.Results | None) -> tuple[float, dict[str, int]]:
    """The boards' face μ: of :data:`FACE_FRICTIONS`, the one under which the most of 002's rows of
    :data:`BOARD_SECTIONS` hold in MuJoCo (every run has 002's outcome at h and at h/2; the face study of 002's
    runs), ties to the higher μ; and the count per μ. Without stored runs: the worlds' own μ."""
    if stored is None:
        return FACE_FRICTION, {}
    counts = {}
    for mu in FACE_FRICTIONS:
        face = None if mu == stored.face_friction else mu
        counts[f"{mu:g}"] = sum(
            claim_verdict([r.run for r in runs], runs_002.expected_outcome(row, "mujoco"))[0] == "holds"
            for row in runs_002.rows_002() if row.experiment in BOARD_SECTIONS
            if (runs := runs_002.select(stored, row.experiment, row.controller, "mujoco", face=face)))
    best = max(FACE_FRICTIONS, key=lambda mu: (counts[f"{mu:g}"], mu))
    return best, counts


def _distance(reading: gain_scale.Reading) -> tuple[float, bool]:
    """How far a reading is from 002's printed gains: local stiffness by K_d/K from K/7 (log), TSC by (D_d, K_d) from
    §7.4's (log), the reading of (7.2) as printed (seconds, α) first."""
    if reading.tsc_gains is not None:
        _, d, k = reading.tsc_gains
        far = abs(math.log(d / TSC_GAINS_002[0])) + abs(math.log(k / TSC_GAINS_002[1]))
        return far, reading.time_unit_s != 1.0 or reading.neighbour_angle != "alpha"
    return abs(math.log((reading.stiffness_ratio or 1.0) * 7.0)), False


def choose_gains(stored: gain_scale.Results | None) -> dict[str, Choice]:
    """Each controller's gains: of the gain study's readings at §7.4's gait under which it climbs at h and at h/2 in
    MuJoCo, the one nearest 002's printed gains (:func:`_distance`); 002's printed gains where none climbs."""
    printed = controllers_002()
    out = {}
    for c in CONTROLLERS:
        climbing = [] if stored is None else [r for r in stored.climbing(c) if r.experiment == GAIN_SECTION]
        if climbing:
            best = min(climbing, key=_distance)
            out[c] = Choice(best.label, (AMPLITUDE, *best.overrides), "the climbing reading nearest 002's gains")
        else:
            why = "no stored gain study" if stored is None else "no reading climbs in the gain study"
            out[c] = Choice("002's printed gains", printed[c][1], why)
    return out


#: The sections whose results this one reads (:mod:`.experiment`): the face μ and the gains are chosen from them.
READS = {"runs_002": runs_002.Results, "gain_scale": gain_scale.Results}


def setup(earlier: dict[str, Any]) -> tuple[float, dict[str, int], dict[str, Choice]]:
    """(the boards' face μ, the count behind it, each controller's gains) from the results of the sections this one
    reads (:data:`READS`)."""
    face, counts = choose_face(earlier["runs_002"])
    return face, counts, choose_gains(earlier["gain_scale"])


def settings(choices: dict[str, Choice]) -> Settings:
    return {c: (PREFIXES[c], choice.overrides) for c, choice in choices.items()}


@dataclass(frozen=True)
class RunSettings:
    """How the runs were made, as the text states it: the boards the worlds generate."""

    plate_friction: float  # μ of the boxes' top plate (the scenarios' own)
    two_obstacles_gap: float  # gap between the two boxes [m]


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    return RunSettings(PLATE_FRICTIONS[0], TWO_OBSTACLES_GAP)


@dataclass(frozen=True)
class Results:
    fast: bool
    seeds: tuple[int, ...]  # on the single obstacle
    few_seeds: tuple[int, ...]  # on the two obstacles and for the unknowns
    duration_s: float
    time_step_s: float
    roll_over_deg: float
    face_friction: float  # μ of the boards' vertical faces (choose_face)
    face_counts: dict[str, int]  # 002's board rows that hold in MuJoCo per face μ
    choices: dict[str, Choice]  # each controller's gains (choose_gains)
    baseline: dict[str, float]  # the study's values of the factors (ground μ, face μ, solref time constant)
    axes: tuple[Axis, ...]
    factors: tuple[Axis, ...]
    controller_overrides: dict[str, tuple[str, ...]]  # the roll-over sweep's
    sensitivity_overrides: dict[str, tuple[str, ...]]  # the unknowns' (a climbing run besides)
    rates: tuple[Rate, ...]  # controller × world × (none, axis levels)
    sensitivity: tuple[Rate, ...]  # controller × (none per world, factor levels on the factor's world)
    failed: tuple[str, ...]
    settings: RunSettings


def _counts(fast: bool) -> tuple[tuple[int, ...], tuple[int, ...], float]:
    """(seeds on the single obstacle, seeds elsewhere, simulated time [s])."""
    return (FAST_SEEDS, FAST_SEEDS, FAST_DURATION) if fast else (SEEDS, FEW_SEEDS, DURATION)


def _studies(fast: bool, earlier: dict[str, Any]) -> tuple[list[RateCase], list[RateCase]]:
    """(the roll-over sweep, the unknowns one at a time with their baseline)."""
    seeds, few, duration = _counts(fast)
    face, _, choices = setup(earlier)
    chosen = settings(choices)
    sweep = sweep_cases(AXES, ("obstacle",), seeds, duration, chosen, face, top_only=("obstacle",) if fast else ())
    if not fast:
        sweep += sweep_cases(AXES, ("two obstacles",), few, duration, chosen, face, top_only=("two obstacles",))
    unknowns = factors(face)
    worlds = dict.fromkeys(f.world for f in unknowns)  # each factor against the study's values on its world
    names = FAST_SENSITIVITY if fast else tuple(sensitivity_controllers(chosen))
    cases = [rate_case(c, w, None, 0.0, few, duration, chosen, face) for w in worlds for c in names]
    cases += [rate_case(c, f.world, f, v, few, duration, chosen, face) for f in unknowns
              for v in (f.levels[-1:] if fast else f.levels) for c in names]
    return sweep, cases


def plan(fast: bool, earlier: dict[str, Any]) -> dict[str, Cell]:
    """Every case's run and its half-step run, by cell id (the symmetric baseline planned once)."""
    sweep, unknowns = _studies(fast, earlier)
    return {c.id: c for rc in (*sweep, *unknowns) for case in rc.cases for c in case_cells(case)}


def _rate(rc: RateCase, rows: dict[str, dict]) -> tuple[Rate, list[str]]:
    runs = [climb_run(case, rows) for case in rc.cases]
    failed = [f"{rc.controller}, {rc.world}, {rc.axis} {rc.level:g}, seed {case.seed}: {r}"
              for case, r in zip(rc.cases, runs, strict=True) if isinstance(r, str)]
    return rate(rc, runs), failed


def assemble(fast: bool, plan: dict[str, Cell], rows: dict[str, dict], earlier: dict[str, Any]) -> Results:
    """The counts of every (controller, world, axis, level); runs without a result are listed (``failed``)."""
    sweep, unknowns = _studies(fast, earlier)
    done = [_rate(rc, rows) for rc in (*sweep, *unknowns)]
    rates = tuple(r for r, _ in done)
    first = sweep[0].cases[0]
    scenario = load_scenario(first.scenario, list(first.overrides))
    contact = scenario.section("contact")
    seeds, few, duration = _counts(fast)
    face, counts, choices = setup(earlier)
    chosen = settings(choices)
    return Results(fast, seeds, few, duration, scenario.time_step, ROLL_OVER_DEG, face, counts, choices,
                   {"ground_friction": float(contact["friction"]), "face_friction": face,
                    "contact_time_constant": float(contact["solref"][0])},
                   AXES, factors(face),
                   {c: ov for c, (_, ov) in chosen.items()},
                   {c: ov for c, (_, ov) in sensitivity_controllers(chosen).items()}, rates[:len(sweep)],
                   rates[len(sweep):], tuple(text for _, failed in done for text in failed), run_settings(fast))


def groups(rates: tuple[Rate, ...]) -> dict[tuple[str, str, float], dict[str, Rate]]:
    out: dict[tuple[str, str, float], dict[str, Rate]] = {}
    for r in rates:
        out.setdefault((r.world, r.axis, r.level), {})[r.controller] = r
    return out
