"""Climbing in 3-D (issue 15 item 8): open loop, local stiffness (K_d = K/6), TSC with K_τ = 0 and 6, on flat
ground, the single obstacle, two obstacles and the stairs, each with several perturbation seeds, on the MuJoCo
model (the ``*-3d`` scenarios). Every run is repeated at half its step (:mod:`snake_sim.step_check`), so each
verdict comes with whether it is converged. Numbers only: the reproduction section renders them.

002 to compare with: in simulation TSC climbs the 36 mm obstacle 25.6 % faster than the open loop (§7.3); on
the robot only TSC with K_τ = 6 climbed the two obstacles, local stiffness and TSC with K_τ = 0 rolled over
(§6.4, §7.4, Fig. 7.9).
"""

from __future__ import annotations

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
SEEDS = (0, 1, 2)


@dataclass(frozen=True)
class Climb3dRun:
    """One run and its check at half the step."""

    controller: str
    world: str
    seed: int  # sim.perturbation.seed
    status: str
    climbed: bool | None  # None on flat ground (nothing to climb)
    time_to_climb_s: float | None
    rolled_over: bool
    time_of_roll_over_s: float | None
    max_roll_deg: float
    com_speed_mps: float  # average CoM speed along +x
    verdicts_unchanged: bool  # step_check: status, climbed and rolled over the same at half the step
    converged: bool  # step_check: same verdicts, times and speeds within its tolerance at half the step
    max_rate_change: float  # step_check's largest relative change of a time or speed


@dataclass(frozen=True)
class Climb3dStudy:
    """All runs, controller × world × seed, at the scenarios' step ``time_step_s``."""

    time_step_s: float
    runs: tuple[Climb3dRun, ...]


def _summary(name: str, overrides: list[str]) -> tuple[dict[str, Any], float]:
    scenario = load_scenario(name, overrides)
    runtime = runtime_for(scenario.model, scenario.source)
    log = runtime.run_scenario(scenario)
    summary = summarize(log, 0.0, scenario.name, load_world(scenario.world_file),
                        extra=runtime.summary_extra(log, scenario))
    return summary, scenario.time_step


def climb_3d_run(controller: str, world: str, seed: int, duration: float | None = None) -> Climb3dRun:
    """Run ``<prefix>-<world>-3d`` with ``controller``'s overrides and perturbation ``seed``, and again at half
    its step."""
    prefix, extra = CONTROLLERS[controller]
    name = f"{prefix}-{WORLDS[world]}-3d"
    overrides = [*extra, f"sim.perturbation.seed={seed}", *([f"sim.duration={duration!r}"] if duration else [])]
    summary, h = _summary(name, overrides)
    half, _ = _summary(name, [*overrides, f"sim.time_step={0.5 * h!r}"])
    check = step_check(summary, half, h)
    return Climb3dRun(controller, world, seed, summary["status"], summary["climbed"], summary["time_to_climb_s"],
                      summary["rolled_over"], summary["time_of_roll_over_s"], summary["max_roll_deg"],
                      summary["average_speed_mps"], check["verdicts_unchanged"], check["converged"],
                      check["max_rate_change"])


def climb_3d_study(controllers: tuple[str, ...] = tuple(CONTROLLERS), worlds: tuple[str, ...] = tuple(WORLDS),
                   seeds: tuple[int, ...] = SEEDS, duration: float | None = None,
                   progress: bool = False) -> Climb3dStudy:
    """Every controller on every world with every seed (see the module docstring); ``duration`` [s] replaces
    the scenarios' own (90–150 s on the obstacles)."""
    cases = [(c, w, s) for c in controllers for w in worlds for s in seeds]
    runs = tuple(climb_3d_run(c, w, s, duration) for c, w, s in tqdm(cases, desc="3-D runs", disable=not progress))
    h = load_scenario(f"{CONTROLLERS[controllers[0]][0]}-{WORLDS[worlds[0]]}-3d").time_step
    return Climb3dStudy(h, runs)
