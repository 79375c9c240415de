"""docs/reproduction.md section: climbing in 3-D on MuJoCo, and one climbing table across three engines.

The MuJoCo study: open loop, local stiffness (K_d = K/6), TSC with K_τ = 0 and 6, on flat ground, the single
obstacle, two obstacles and the stairs, three perturbation seeds each, on the MuJoCo model
(:mod:`snake_studies.climb_3d`): climbed (time), rolled over (time), CoM speed, each run step-checked, with the
reference gait's check against half the step and a contact twice as stiff; beside 002's simulation (§7.3) and
experiments (§6.4, §7.4, Fig. 7.9). The engines table: the same controllers and worlds in the vertical-plane
model, MuJoCo and DART (:mod:`snake_studies.engines`). The vertical model's obstacle rows are the step-checked
runs the "stiffness" section stores (the same shipped scenarios; they take ≈ 40 min of a core), read from its
results. The plan is every case's run and its half-step run and the reference check's three runs, tasks of the
sweep engine (summary.json each), keyed by their cell ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snake_core.controllers import controller_values
from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_sim.analysis.rollover import ROLL_OVER_DEG
from snake_sim.analysis.step_check import TOLERANCE, relative_change
from snake_sim.core.scenario import load_scenario
from snake_studies.climb_3d import (
    CONTROLLERS,
    SEEDS,
    Climb3dRun,
    Climb3dStudy,
    ClimbCase,
    ReferenceCheck,
    case_cells,
    climb_3d_cases,
    climb_run,
    reference_cells,
    reference_check,
    scenario_duration,
)
from snake_studies.engines import ENGINES, SEED, engine_case, engine_cases
from snake_studies.reproduction.experiments import stiffness
from snake_studies.sweep import Cell
from snake_studies.sweep.engine import measure_summary

ENGINE_NAMES = {"vertical": "vertical plane", "mujoco": "MuJoCo", "dart": "DART"}

#: Simulated time of every run of a ``fast`` smoke run [s].
FAST_DURATION = 2.0
#: The MuJoCo study's TSC scenario: the gait, gains and perturbation the text states.
STUDY_SCENARIO = "tsc-obstacle-3d"
#: The vertical model's rows in the stiffness section (its group and label → ours).
VERTICAL_WORLDS = {"single obstacle": "obstacle", "two obstacles": "two obstacles", "stairs": "stairs"}
VERTICAL_CONTROLLERS = dict(zip((label for label, _, _ in stiffness.CONTROLLERS), CONTROLLERS, strict=True))


@dataclass(frozen=True)
class RunSettings:
    """How the runs were made, as the text states it: the study's TSC scenario as the runs load it, the seed of the
    engines table and the smoke runs' time."""

    amplitude: float  # A [rad]
    frequency: float  # ω [rad/s]
    phase_shift: float  # φ [rad]
    tsc_gains: tuple[float, float, float]  # (M_d, D_d, K_d): the scenario's, the unset ones tsc's defaults
    roll_deg: float  # sim.perturbation: initial roll of the body [°]
    joint_noise_deg: float  # sim.perturbation: joint-angle noise [°]
    engines: tuple[str, ...]  # the engines table's engines, in its order
    engine_seed: int  # the perturbation seed of the engines table's MuJoCo and DART runs
    step_tolerance: float  # largest relative change of a time or speed from h to h/2 of a converged run
    smoke_duration_s: float | None  # simulated time of every run of a fast smoke run [s]; None: the scenarios' own


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    scenario = load_scenario(STUDY_SCENARIO)
    gait, shake = scenario.section("gait"), scenario.data["sim"]["perturbation"]
    ctrl = controller_values(scenario.section("controller"), load_robot(scenario.section("robot")["name"]).n_joints,
                             scenario.source)
    return RunSettings(gait["amplitude"], gait["frequency"], gait["phase_shift"],
                       (ctrl["inertia"], ctrl["damping"], ctrl["stiffness"]), shake["roll_deg"],
                       shake["joint_noise_deg"], ENGINES, SEED, TOLERANCE, FAST_DURATION if fast else None)


@dataclass(frozen=True)
class Results:
    fast: bool
    reference: ReferenceCheck  # the reference gait at half the step and with a contact twice as stiff
    mujoco: Climb3dStudy  # controller × world × seed
    engines: tuple[Climb3dRun, ...]  # vertical and DART (MuJoCo's are the study's seed-SEED runs)
    durations: dict[str, float]  # simulated time per "<engine> <world>" [s]
    roll_over_deg: float  # the roll-over threshold of the 3-D models
    planned: int  # step-checked runs planned (besides the stored vertical ones)
    failed: tuple[str, ...]  # the planned runs without a result: which, and why (raised, worker died)
    settings: RunSettings


def _vertical_from_stiffness(outcome: stiffness.Outcome, world: str) -> Climb3dRun:
    """A step-checked row of the stiffness section as a run of this table (no roll in a plane)."""
    half = outcome.half
    changes = [relative_change(outcome.speed_mps, half.speed_mps),
               relative_change(outcome.climb.time_to_climb_s, half.climb.time_to_climb_s),
               relative_change(outcome.climb.climb_average_speed_mps, half.climb.climb_average_speed_mps)]
    same = outcome.climb.climbed == half.climb.climbed and outcome.status == half.status
    controller = VERTICAL_CONTROLLERS[outcome.label]
    return Climb3dRun(controller, world, None, outcome.status, outcome.climb.climbed,
                      outcome.climb.time_to_climb_s, None, None, None, outcome.speed_mps, same,
                      bool(outcome.converged), max((abs(c) for c in changes if c is not None), default=0.0),
                      "vertical", outcome.time_step_s, scenario_duration(engine_case("vertical", controller, world)),
                      half.climb.climbed, None, half.speed_mps)


#: The sections whose results this one reads (:mod:`.experiment`): the vertical model's rows are the stiffness
#: section's.
READS = {"stiffness": stiffness.StiffnessResults}


def _stiffness(earlier: dict[str, Any]) -> stiffness.StiffnessResults:
    """The stiffness section's results stored by this run; ConfigError (before any run) where there are none."""
    if earlier["stiffness"] is None:
        raise ConfigError("--only", "climb_3d", "needs the stiffness section's results in the same folder: run "
                          "`snake-sim reproduce --only stiffness --only climb_3d`")
    return earlier["stiffness"]


def _stored_vertical(stored: stiffness.StiffnessResults) -> list[Climb3dRun]:
    """The vertical model's obstacle rows from the stiffness section's results stored by this run."""
    return [_vertical_from_stiffness(o, VERTICAL_WORLDS[group]) for group in VERTICAL_WORLDS
            for o in stored.groups[group] if o.label in VERTICAL_CONTROLLERS]


def _label(case: ClimbCase) -> str:
    seed = "" if case.seed is None else f", seed {case.seed}"
    return f"{ENGINE_NAMES[case.model]}, {case.controller}, {case.world}{seed}"


#: A run of the plan is the sweep engine's summary.json of its scenario.
measure = measure_summary


def _cases(fast: bool) -> tuple[list[ClimbCase], list[ClimbCase]]:
    """(the MuJoCo study's cases, every case in the order its runs are submitted: MuJoCo seed SEED, DART, the other
    seeds, the vertical model on flat ground)."""
    duration = FAST_DURATION if fast else None
    mujoco = climb_3d_cases(seeds=SEEDS[:1] if fast else SEEDS, duration=duration)
    first = [c for c in mujoco if c.seed == SEED]
    return mujoco, [*first, *engine_cases(("dart",), duration=duration), *(c for c in mujoco if c.seed != SEED),
                    *(engine_case("vertical", c, "flat", duration) for c in CONTROLLERS)]


def plan(fast: bool, earlier: dict[str, Any]) -> dict[str, Cell]:
    """Every case's run and its run at half the step, and the reference check's runs, by cell id."""
    _stiffness(earlier)
    _, cases = _cases(fast)
    cells = [*(c for case in cases for c in case_cells(case)), *reference_cells(FAST_DURATION if fast else None)]
    return {c.id: c for c in cells}


def assemble(fast: bool, plan: dict[str, Cell], rows: dict[str, dict], earlier: dict[str, Any]) -> Results:
    """The study and the engines table; a case whose run raised or whose worker died is left out of the tables and
    listed (``failed``); RunsFailed if a run of the reference check has no result."""
    duration = FAST_DURATION if fast else None
    mujoco, cases = _cases(fast)
    runs = [climb_run(case, rows) for case in cases]
    done = [r for r in runs if not isinstance(r, str)]
    study = Climb3dStudy(load_scenario(mujoco[0].scenario).time_step, tuple(r for r in done if r.model == "mujoco"))
    engines = (*(r for r in done if r.model != "mujoco"), *_stored_vertical(_stiffness(earlier)))
    return Results(fast, reference_check(rows, duration), study, engines,
                   {f"{r.model} {r.world}": r.duration_s for r in (*study.runs, *engines)}, ROLL_OVER_DEG, len(cases),
                   tuple(f"{_label(c)}: {r}" for c, r in zip(cases, runs, strict=True) if isinstance(r, str)),
                   run_settings(fast))
