"""Climbing in 3-D: open loop, local stiffness (K_d = K/6), TSC with K_τ = 0 and 6, on flat
ground, the single obstacle, two obstacles and the stairs, each with several perturbation seeds, on the MuJoCo
model (the ``*-3d`` scenarios). Every run is repeated at half its step (:mod:`snake_sim.analysis.step_check`), so each
verdict comes with whether it is converged. Numbers only: the reproduction section renders them.

A run is a :class:`ClimbCase` (a scenario and its overrides) turned into a :class:`Climb3dRun`: its two runs (the
scenario's step and half of it, :func:`case_cells`) are tasks of the sweep engine (:mod:`.grid`: summary.json
each, on a Dask client or a LocalCluster), :func:`climb_run` compares them; :func:`run_cases` runs many.
:mod:`.engines` builds the same cases for the vertical model and DART.

002 to compare with: in simulation TSC climbs the 36 mm obstacle 25.6 % faster than the open loop (§7.3); on
the robot only TSC with K_τ = 6 climbed the two obstacles, local stiffness and TSC with K_τ = 0 rolled over
(§6.4, §7.4, Fig. 7.9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from distributed import Client

from snake_sim.analysis.step_check import step_check
from snake_sim.core.scenario import load_scenario

from .grid import RunsFailed, failure, fields, require, run_cells
from .sweep import Cell

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
#: softness check of :mod:`snake_sim.engines.mujoco.settings`); every controller runs on flat ground at the obstacles'
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
    half_time_to_climb_s: float | None = None
    reached: bool | None = None  # the head reached the first box (None: nothing to climb; analysis.climb)
    half_reached: bool | None = None

    @property
    def outcomes(self) -> tuple[str, str]:
        """The run's outcome at h and at h/2 (:func:`outcome`)."""
        return (outcome(self.climbed, self.rolled_over, self.reached),
                outcome(self.half_climbed, self.half_rolled_over, self.half_reached))

    @property
    def time_pair(self) -> tuple[float | None, float | None]:
        """(climb time at h, at h/2); None where it did not climb at that step (:func:`.step_check.compare`)."""
        return (self.time_to_climb_s if self.climbed else None,
                self.half_time_to_climb_s if self.half_climbed else None)


#: The outcomes of a run over boxes, and the verdicts on a claim about a group of runs (:func:`claim_verdict`).
OUTCOMES = ("climbs", "rolls over", "did not reach", "fails")
VERDICTS = ("holds", "partly", "inconclusive", "did not reach", "no")


def outcome(climbed: bool | None, rolled_over: bool | None, reached: bool | None) -> str:
    """A run's outcome: it climbed; else it rolled over; else it ended before its head reached the first box (it
    tells nothing about climbing); else it failed to climb."""
    if climbed:
        return "climbs"
    if rolled_over:
        return "rolls over"
    return "did not reach" if reached is False else "fails"


def agrees(got: str, expected: str) -> bool:
    """Whether an outcome is the ``expected`` one; a roll-over is one way to fail."""
    return got == expected or (expected == "fails" and got == "rolls over")


def claim_verdict(runs: Sequence[Climb3dRun], expected: str) -> tuple[str, int]:
    """The verdict on "these runs end in ``expected``" and how many do at h and at h/2: *holds* (every run),
    *partly* (some), *inconclusive* (none, and some run's outcome changes between h and h/2: the step decides it),
    *did not reach* (no run reached the box: the runs were too short to tell), else *no*."""
    k = sum(all(agrees(o, expected) for o in r.outcomes) for r in runs)
    if runs and k == len(runs):
        return "holds", k
    if k:
        return "partly", k
    if any(h != half for h, half in (r.outcomes for r in runs)):
        return "inconclusive", k
    if runs and all(r.outcomes[0] == "did not reach" for r in runs):
        return "did not reach", k
    return "no", k


@dataclass(frozen=True)
class Climb3dStudy:
    """All runs, controller × world × seed, at the scenarios' step ``time_step_s``."""

    time_step_s: float
    runs: tuple[Climb3dRun, ...]


def case_cells(case: ClimbCase) -> tuple[Cell, Cell]:
    """The case's run and the same run at half its step, as cells of the sweep engine (summary.json each)."""
    h = load_scenario(case.scenario, list(case.overrides)).time_step
    return Cell(case.scenario, case.overrides), Cell(case.scenario, (*case.overrides, f"sim.time_step={0.5 * h!r}"))


def climb_run(case: ClimbCase, rows: dict[str, dict[str, Any]]) -> Climb3dRun | str:
    """The case's run and its step check from the rows of :func:`case_cells`, or why it has none
    (:func:`.grid.failure`)."""
    cells = case_cells(case)
    failed = [text for c in cells if (text := failure(c, rows[c.id])) is not None]
    if failed:
        return "; ".join(failed)
    summary, half = (fields(rows[c.id]) for c in cells)
    h = load_scenario(case.scenario, list(case.overrides)).time_step
    check = step_check(summary, half, h)
    return Climb3dRun(case.controller, case.world, case.seed, summary["status"], summary["climbed"],
                      summary["time_to_climb_s"], summary.get("rolled_over"), summary.get("time_of_roll_over_s"),
                      summary.get("max_roll_deg"), summary["average_speed_mps"], check["verdicts_unchanged"],
                      check["converged"], check["max_rate_change"], case.model, h, summary["duration_s"],
                      half["climbed"], half.get("rolled_over"), half["average_speed_mps"], half["time_to_climb_s"],
                      summary.get("reached"), half.get("reached"))


def run_cases(cases: Sequence[ClimbCase], client: Client | None = None,
              progress: bool = False) -> list[Climb3dRun | str]:
    """:func:`climb_run` of every case, each run and its half-step run a task of the sweep engine (on ``client``,
    else a LocalCluster of its own), submitted in the order of ``cases``."""
    rows = run_cells([c for case in cases for c in case_cells(case)], client, progress=progress)
    return [climb_run(case, rows) for case in cases]


def climb_3d_case(controller: str, world: str, seed: int, duration: float | None = None) -> ClimbCase:
    """``<prefix>-<world>-3d`` with ``controller``'s overrides and perturbation ``seed``."""
    prefix, extra = CONTROLLERS[controller]
    flat = FLAT_OVERRIDES if world == "flat" else ()
    overrides = (*extra, *flat, f"sim.perturbation.seed={seed}", *([f"sim.duration={duration!r}"] if duration else []))
    return ClimbCase("mujoco", controller, world, seed, f"{prefix}-{WORLDS[world]}-3d", overrides)


def climb_3d_cases(controllers: tuple[str, ...] = tuple(CONTROLLERS), worlds: tuple[str, ...] = tuple(WORLDS),
                   seeds: tuple[int, ...] = SEEDS, duration: float | None = None) -> list[ClimbCase]:
    """Every controller on every world with every seed."""
    return [climb_3d_case(c, w, s, duration) for c in controllers for w in worlds for s in seeds]


def scenario_duration(case: ClimbCase) -> float:
    """Simulated time of ``case`` [s] (its scenario with its overrides)."""
    return load_scenario(case.scenario, list(case.overrides)).duration


def climb_3d_study(controllers: tuple[str, ...] = tuple(CONTROLLERS), worlds: tuple[str, ...] = tuple(WORLDS),
                   seeds: tuple[int, ...] = SEEDS, duration: float | None = None,
                   progress: bool = False, client: Client | None = None) -> Climb3dStudy:
    """Every controller on every world with every seed (see the module docstring); ``duration`` [s] replaces
    the scenarios' own (30 s on flat ground, 90–150 s on the obstacles). RunsFailed if a run has no result."""
    cases = climb_3d_cases(controllers, worlds, seeds, duration)
    runs = run_cases(cases, client, progress)
    failed = [f"{c.controller}, {c.world}, seed {c.seed}: {r}" for c, r in zip(cases, runs, strict=True)
              if isinstance(r, str)]
    if failed:
        raise RunsFailed("; ".join(failed))
    h = load_scenario(cases[0].scenario).time_step
    return Climb3dStudy(h, tuple(runs))


#: The reference gait of the step and contact-softness check of the MuJoCo settings: A = π/6, ω = π, φ = −2π/5,
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


def reference_cells(duration: float | None = None) -> tuple[Cell, Cell, Cell]:
    """The three runs of :class:`ReferenceCheck` (scenario's step and contact, half the step, contact twice as
    stiff) as cells of the sweep engine; ``duration`` [s] replaces the scenario's."""
    fixed = (f"sim.duration={duration!r}",) if duration else ()
    scenario = load_scenario(REFERENCE_SCENARIO, list(fixed))
    tc, zeta = (float(v) for v in scenario.section("contact")["solref"])
    h = scenario.time_step
    return tuple(Cell(REFERENCE_SCENARIO, (*fixed, *extra)) for extra in (
        (), (f"sim.time_step={0.5 * h!r}",), (f"contact.solref=[{tc / 2 ** 0.5!r},{zeta!r}]",)))


def reference_check(rows: dict[str, dict[str, Any]], duration: float | None = None) -> ReferenceCheck:
    """:class:`ReferenceCheck` from the rows of :func:`reference_cells` (RunsFailed if one has no result)."""
    cells = reference_cells(duration)
    require(cells, rows)
    scenario = load_scenario(REFERENCE_SCENARIO, list(cells[0].overrides))
    tc, zeta = (float(v) for v in scenario.section("contact")["solref"])
    speeds = (fields(rows[c.id])["average_speed_mps"] for c in cells)
    return ReferenceCheck(scenario.duration, scenario.time_step, (tc, zeta), *speeds)
