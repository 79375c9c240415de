"""Climbing in 3-D (issue 15 item 8): open loop, local stiffness (K_d = K/6), TSC with K_τ = 0 and 6, on flat
ground, the single obstacle, two obstacles and the stairs, each with several perturbation seeds, on the MuJoCo
model (the ``*-3d`` scenarios). Every run is repeated at half its step (:mod:`snake_sim.step_check`), so each
verdict comes with whether it is converged. Numbers only: the reproduction section renders them.

A run is a :class:`ClimbCase` (a scenario and its overrides, picklable) turned into a :class:`Climb3dRun` by
:func:`run_case`; :func:`run_cases` runs many, in several processes if asked. :mod:`.engines` builds the same
cases for the vertical model and DART.

002 to compare with: in simulation TSC climbs the 36 mm obstacle 25.6 % faster than the open loop (§7.3); on
the robot only TSC with K_τ = 6 climbed the two obstacles, local stiffness and TSC with K_τ = 0 rolled over
(§6.4, §7.4, Fig. 7.9).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from ..models import runtime_for
from ..scenario import load_scenario
from ..step_check import step_check
from ..summary import summarize
from ..world import load_world

#: Controller label → (scenario prefix, overrides): the scenarios' own gains (A = π/3, TSC M_d = 1, D_d = 4,
#: K_d = 14; local stiffness K_d = K/6).
CONTROLLERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "open loop": ("open-loop", ()),
    "local stiffness K_d = K/6": ("stiffness", ()),
    "TSC K_tau = 0": ("tsc", ("controller.torque_gain=0",)),
    "TSC K_tau = 6": ("tsc", ("controller.torque_gain=6",)),
}
#: World label → scenario infix.
WORLDS: dict[str, str] = {"flat": "flat", "obstacle": "obstacle", "two obstacles": "two-obstacles",
                          "stairs": "stairs"}
#: Flat ground at the climbing gait: open-loop-flat-3d is the reference gait (A = π/6, 10 s, the step and
#: softness check of :mod:`snake_sim.mujoco.settings`); every controller runs on flat ground at the obstacles'
#: A = π/3 for the flat scenarios' 30 s.
FLAT_OVERRIDES = ("gait.amplitude=pi/3", "sim.duration=30.0")
SEEDS = (0, 1, 2)


@dataclass(frozen=True)
class ClimbCase:
    """One run to make: ``scenario`` with ``overrides``, labelled by engine (``model:``), controller, world, seed."""

    model: str
    controller: str
    world: str
    seed: int | None  # sim.perturbation.seed; None: the model has no perturbation (vertical plane)
    scenario: str
    overrides: tuple[str, ...]


@dataclass(frozen=True)
class Climb3dRun:
    """One run and its check at half the step."""

    controller: str
    world: str
    seed: int | None  # sim.perturbation.seed (None: the vertical model, which has none)
    status: str
    climbed: bool | None  # None on flat ground (nothing to climb)
    time_to_climb_s: float | None
    rolled_over: bool | None  # None: the model cannot roll (vertical plane)
    time_of_roll_over_s: float | None
    max_roll_deg: float | None
    com_speed_mps: float  # average CoM speed along +x
    verdicts_unchanged: bool  # step_check: status, climbed and rolled over the same at half the step
    converged: bool  # step_check: same verdicts, times and speeds within its tolerance at half the step
    max_rate_change: float  # step_check's largest relative change of a time or speed
    model: str = "mujoco"
    time_step_s: float = float("nan")  # the run's step [s]; the check ran at half of it
    duration_s: float = float("nan")  # simulated time [s]
    half_climbed: bool | None = None  # the verdicts at half the step
    half_rolled_over: bool | None = None
    half_com_speed_mps: float = float("nan")


@dataclass(frozen=True)
class Climb3dStudy:
    """All runs, controller × world × seed, at the scenarios' step ``time_step_s``."""

    time_step_s: float
    runs: tuple[Climb3dRun, ...]


def _summary(name: str, overrides: Sequence[str]) -> tuple[dict[str, Any], float]:
    scenario = load_scenario(name, list(overrides))
    runtime = runtime_for(scenario.model, scenario.source)
    log = runtime.run_scenario(scenario)
    summary = summarize(log, 0.0, scenario.name, load_world(scenario.world_file),
                        extra=runtime.summary_extra(log, scenario))
    return summary, scenario.time_step


def run_case(case: ClimbCase) -> Climb3dRun:
    """Run ``case`` and again at half its step."""
    summary, h = _summary(case.scenario, case.overrides)
    half, _ = _summary(case.scenario, [*case.overrides, f"sim.time_step={0.5 * h!r}"])
    check = step_check(summary, half, h)
    return Climb3dRun(case.controller, case.world, case.seed, summary["status"], summary["climbed"],
                      summary["time_to_climb_s"], summary.get("rolled_over"), summary.get("time_of_roll_over_s"),
                      summary.get("max_roll_deg"), summary["average_speed_mps"], check["verdicts_unchanged"],
                      check["converged"], check["max_rate_change"], case.model, h, summary["duration_s"],
                      half["climbed"], half.get("rolled_over"), half["average_speed_mps"])


def run_cases(cases: Sequence[ClimbCase], workers: int = 1, progress: bool = False,
              budget_s: float | None = None) -> tuple[Climb3dRun | None, ...]:
    """:func:`run_case` for every case, in ``workers`` processes, started in the order of ``cases``; after
    ``budget_s`` seconds of wall clock the runs still going are stopped and those not started are skipped (None
    in their place)."""
    deadline = None if budget_s is None else time.monotonic() + budget_s
    bar = tqdm(total=len(cases), desc="step-checked runs", disable=not progress)
    with multiprocessing.Pool(max(1, workers)) as pool:
        pending = [pool.apply_async(run_case, (case,), callback=lambda _: bar.update()) for case in cases]
        for job in pending:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            job.wait(left)
        runs = tuple(job.get() if job.ready() else None for job in pending)
        pool.terminate()
    bar.close()
    return runs


def climb_3d_case(controller: str, world: str, seed: int, duration: float | None = None) -> ClimbCase:
    """``<prefix>-<world>-3d`` with ``controller``'s overrides and perturbation ``seed``."""
    prefix, extra = CONTROLLERS[controller]
    flat = FLAT_OVERRIDES if world == "flat" else ()
    overrides = (*extra, *flat, f"sim.perturbation.seed={seed}", *([f"sim.duration={duration!r}"] if duration else []))
    return ClimbCase("mujoco", controller, world, seed, f"{prefix}-{WORLDS[world]}-3d", overrides)


def climb_3d_run(controller: str, world: str, seed: int, duration: float | None = None) -> Climb3dRun:
    """Run ``<prefix>-<world>-3d`` with ``controller``'s overrides and perturbation ``seed``, and again at half
    its step."""
    return run_case(climb_3d_case(controller, world, seed, duration))


def climb_3d_cases(controllers: tuple[str, ...] = tuple(CONTROLLERS), worlds: tuple[str, ...] = tuple(WORLDS),
                   seeds: tuple[int, ...] = SEEDS, duration: float | None = None) -> list[ClimbCase]:
    """Every controller on every world with every seed."""
    return [climb_3d_case(c, w, s, duration) for c in controllers for w in worlds for s in seeds]


def scenario_duration(case: ClimbCase) -> float:
    """Simulated time of ``case`` [s] (its scenario with its overrides)."""
    return load_scenario(case.scenario, list(case.overrides)).duration


def climb_3d_study(controllers: tuple[str, ...] = tuple(CONTROLLERS), worlds: tuple[str, ...] = tuple(WORLDS),
                   seeds: tuple[int, ...] = SEEDS, duration: float | None = None,
                   progress: bool = False, workers: int = 1) -> Climb3dStudy:
    """Every controller on every world with every seed (see the module docstring); ``duration`` [s] replaces
    the scenarios' own (30 s on flat ground, 90–150 s on the obstacles)."""
    cases = climb_3d_cases(controllers, worlds, seeds, duration)
    runs = run_cases(cases, workers, progress)
    h = load_scenario(cases[0].scenario).time_step
    return Climb3dStudy(h, tuple(r for r in runs if r is not None))


#: The reference gait of the step and contact-softness check (issue 15 item 3): A = π/6, ω = π, φ = −2π/5,
#: flat ground, 10 s.
REFERENCE_SCENARIO = "open-loop-flat-3d"


@dataclass(frozen=True)
class ReferenceCheck:
    """The reference gait's CoM speed at the scenario's step and contact softness, at half the step, and with
    the contact twice as stiff (solref time constant / √2: MuJoCo's stiffness ∝ 1/time constant²)."""

    duration_s: float
    time_step_s: float
    solref: tuple[float, float]  # time constant [s], damping ratio
    speed_mps: float
    half_step_speed_mps: float
    stiff_contact_speed_mps: float


def reference_check(duration: float | None = None) -> ReferenceCheck:
    """The three runs of :class:`ReferenceCheck`; ``duration`` [s] replaces the scenario's."""
    fixed = [f"sim.duration={duration!r}"] if duration else []
    scenario = load_scenario(REFERENCE_SCENARIO, fixed)
    runtime = runtime_for(scenario.model, scenario.source)
    tc, zeta = (float(v) for v in scenario.section("contact")["solref"])
    h = scenario.time_step

    def speed(*overrides: str) -> float:
        return runtime.run_scenario(load_scenario(REFERENCE_SCENARIO, [*fixed, *overrides])).average_speed

    return ReferenceCheck(scenario.duration, h, (tc, zeta), speed(), speed(f"sim.time_step={0.5 * h!r}"),
                          speed(f"contact.solref=[{tc / 2 ** 0.5!r},{zeta!r}]"))
