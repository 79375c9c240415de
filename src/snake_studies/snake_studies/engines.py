"""One climbing table, three engines: open loop, local stiffness (K_d = K/6) and TSC (K_τ = 0
and 6) on flat ground, the single obstacle, two obstacles and the stairs, in the vertical-plane model (002), MuJoCo
and DART as Gazebo sets it up, each run step-checked (:func:`.climb_3d.climb_run`).

The same controllers, gains, gait and worlds in every engine: MuJoCo runs the ``*-3d`` scenarios with perturbation
seed :data:`SEED`; DART the same scenarios with ``model=dart`` at Gazebo's step :data:`DART_TIME_STEP` (its
contact fields of the MuJoCo kind are accepted and unused); every engine for the scenarios' 90–150 s on the boxes
(:data:`MIN_DURATION`); the vertical model the shipped
vertical scenarios (``<prefix>-<world>``; flat ground: ``<prefix>-obstacle`` on ``world.file=flat`` at the 3-D
flat runs' A and duration). The vertical model has no roll and no perturbation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .climb_3d import CONTROLLERS, FLAT_OVERRIDES, WORLDS, ClimbCase, climb_3d_case

#: Engines in table order (``model:`` of the runs).
ENGINES = ("vertical", "mujoco", "dart")
#: The perturbation seed of the 3-D engines' runs.
SEED = 0
#: DART's step [s]: Gazebo's default ``max_step_size``; the check runs at half of it. MuJoCo's climbing scenarios
#: run at the same step (at 2 ms a verdict on 002's box flipped against 1 ms), its flat ones at 2 ms.
DART_TIME_STEP = 0.001
#: The shortest simulated time of a run on boxes or stairs in a study of 002's climbs [s], in every engine: 002's
#: longest climb (40.1 s, §7.4.1) plus 50 s for the robot to reach the box first (a run that ends before the head
#: reaches the first box is scored *did not reach*, :mod:`snake_sim.analysis.climb`).
MIN_DURATION = 90.0
def _vertical(controller: str, world: str, duration: float | None) -> ClimbCase:
    prefix, extra = CONTROLLERS[controller]
    if world == "flat":
        scenario, where = f"{prefix}-obstacle", ("world.file=flat", *FLAT_OVERRIDES)
    else:
        scenario, where = f"{prefix}-{WORLDS[world]}", ()
    overrides = (*extra, *where, *([f"sim.duration={duration!r}"] if duration else []))
    return ClimbCase("vertical", controller, world, None, scenario, overrides)


def _mujoco(controller: str, world: str, duration: float | None) -> ClimbCase:
    return climb_3d_case(controller, world, SEED, duration)


def _dart(controller: str, world: str, duration: float | None) -> ClimbCase:
    case = climb_3d_case(controller, world, SEED, duration)
    return replace(case, model="dart", overrides=(*case.overrides, "model=dart", f"sim.time_step={DART_TIME_STEP!r}"))


CASES: dict[str, Callable[[str, str, float | None], ClimbCase]] = {"vertical": _vertical, "mujoco": _mujoco,
                                                                   "dart": _dart}


def engine_case(engine: str, controller: str, world: str, duration: float | None = None) -> ClimbCase:
    """The run of ``controller`` on ``world`` in ``engine``; ``duration`` [s] replaces the engine's own."""
    return CASES[engine](controller, world, duration)


def engine_cases(engines: tuple[str, ...] = ENGINES, controllers: tuple[str, ...] = tuple(CONTROLLERS),
                 worlds: tuple[str, ...] = tuple(WORLDS), duration: float | None = None) -> list[ClimbCase]:
    """Every engine × controller × world."""
    return [engine_case(e, c, w, duration) for e in engines for c in controllers for w in worlds]
