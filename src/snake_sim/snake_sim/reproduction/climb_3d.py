"""docs/reproduction.md section: climbing in 3-D on MuJoCo, and one climbing table across three engines.

Issue 15 item 8: open loop, local stiffness (K_d = K/6), TSC with K_τ = 0 and 6, on flat ground, the single
obstacle, two obstacles and the stairs, three perturbation seeds each, on the MuJoCo model
(:mod:`snake_sim.studies.climb_3d`): climbed (time), rolled over (time), CoM speed, each run step-checked, with the
reference gait's step and contact-softness check (issue 15 item 3); beside 002's simulation (§7.3) and experiments
(§6.4, §7.4, Fig. 7.9). Issue 18 item 4: the same controllers and worlds in the vertical-plane model, MuJoCo and
DART (:mod:`snake_sim.studies.engines`). The vertical model's obstacle rows are the step-checked runs the
"stiffness" section stores (the same shipped scenarios; they take ≈ 40 min of a core), read from its results.
"""

from __future__ import annotations

from dataclasses import dataclass

from snake_core import locator
from snake_sim.mujoco.runtime import ROLL_OVER_DEG
from snake_sim.reproduction import stiffness
from snake_sim.reproduction.results import load, results_path
from snake_sim.step_check import TOLERANCE, relative_change
from snake_sim.studies.climb_3d import (
    CONTROLLERS,
    SEEDS,
    WORLDS,
    Climb3dRun,
    Climb3dStudy,
    ReferenceCheck,
    climb_3d_cases,
    reference_check,
    run_cases,
    scenario_duration,
)
from snake_sim.studies.engines import COST_PER_SECOND, DART_DURATIONS, ENGINES, SEED, engine_case, engine_cases

TITLE = "Climbing in 3-D, and one table across three engines (002 ch. 6–7)"

#: Runs simulated at the same time (processes).
WORKERS = 2
#: Simulated time of every run of a ``fast`` smoke run [s].
FAST_DURATION = 2.0
#: The vertical model's rows in the stiffness section (its group and label → ours).
VERTICAL_WORLDS = {"single obstacle": "obstacle", "two obstacles": "two obstacles", "stairs": "stairs"}
VERTICAL_CONTROLLERS = dict(zip((label for label, _, _ in stiffness.CONTROLLERS), CONTROLLERS, strict=True))


@dataclass(frozen=True)
class Results:
    fast: bool
    reference: ReferenceCheck  # issue 15 item 3 on the reference gait
    mujoco: Climb3dStudy  # controller × world × seed
    engines: tuple[Climb3dRun, ...]  # vertical and DART (MuJoCo's are the study's seed-SEED runs)
    dart_durations: dict[str, float]  # DART's simulated time per world [s]
    roll_over_deg: float  # the roll-over threshold of the 3-D models


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


def _stored_vertical() -> list[Climb3dRun]:
    """The vertical model's obstacle rows from the stiffness section's stored results (docs/reproduction/)."""
    stored = load(stiffness.StiffnessResults, results_path(locator.data_dir() / "docs", "stiffness"))
    return [_vertical_from_stiffness(o, VERTICAL_WORLDS[group]) for group in VERTICAL_WORLDS
            for o in stored.groups[group] if o.label in VERTICAL_CONTROLLERS]


def run(fast: bool = False) -> Results:
    """The MuJoCo study (three seeds), the vertical model on flat ground, DART everywhere, the reference check."""
    duration = FAST_DURATION if fast else None
    seeds = SEEDS[:1] if fast else SEEDS
    mujoco = climb_3d_cases(seeds=seeds, duration=duration)
    others = [*(engine_case("vertical", c, "flat", duration) for c in CONTROLLERS),
              *engine_cases(("dart",), duration=duration)]
    cases = [*mujoco, *others]
    runs = run_cases(cases, WORKERS, progress=True,
                     cost=[COST_PER_SECOND[c.model] * scenario_duration(c) for c in cases])
    study = Climb3dStudy(runs[0].time_step_s, runs[:len(mujoco)])
    engines = (*runs[len(mujoco):], *_stored_vertical())
    return Results(fast, reference_check(duration), study, engines,
                   {w: (duration or d) for w, d in DART_DURATIONS.items()}, ROLL_OVER_DEG)


def render(results: Results) -> str:
    """The section's Markdown from the stored results alone."""
    return "\n".join([f"## {TITLE}", "", *_mujoco_table(results), *_engines_table(results)])


def _mujoco_table(results: Results) -> list[str]:
    return []


def _engines_table(results: Results) -> list[str]:
    return []


__all__ = ["ENGINES", "SEED", "TOLERANCE", "WORLDS", "Results", "render", "run"]
