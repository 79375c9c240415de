"""Roll-over rates under the asymmetries 002 names, and what the values 002 does not print change (3-D, MuJoCo).

002 attributes its robot's roll-overs (§6.4, §7.4) to narrow links, an uneven mass distribution within each link,
un-modelled external forces and the tether through a slip ring at the tail (§3.4, §5.4); on the robot, open loop
and local stiffness rolled over where TSC with K_τ = 6 did not. Here each asymmetry is an axis with a few levels
(the others at their symmetric value), every level is run for the four controllers of 002 §7.4 (:data:`CONTROLLERS`,
with gains the caller chooses: :func:`controllers_002` are 002's printed ones) on 002's boards of §7.4 and §7.4.2
(the top plate, the faces' μ the caller chooses: :func:`board_overrides`) with several perturbation seeds, and
each run is repeated at half its step (:func:`snake_studies.climb_3d.case_cells`): a roll-over counts when it
stands at the half step too. The rate per (controller, world, asymmetry level) comes with its 95 % Wilson interval
(:func:`snake_sim.analysis.rollover.wilson_interval`).

The sensitivity study varies, one at a time, the values 002 does not print (:func:`factors`) around the study's
ones, with the same controllers and :data:`CLIMBER` (a run that climbs) on each factor's world (the single
obstacle; the gap on the two obstacles), and ranks them by how much they move the verdicts (the fraction of runs
that climb, and that roll over), the climb time and the CoM speed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from snake_core.robot import load_robot
from snake_sim.analysis.rollover import wilson_interval
from snake_sim.core.worldgen import FACE_FRICTION, PLATE_FRICTIONS, TWO_OBSTACLES_GAPS, lab_world_name

from .climb_3d import Climb3dRun, ClimbCase

#: The four controllers of 002 §7.4, by key.
CONTROLLERS = ("open loop", "local stiffness", "TSC K_τ = 0", "TSC K_τ = 6")
#: A = π/6 (Table 7.1, §7.4); TSC M_d = 1, D_d = 10, K_d = 17.5 (§7.4's experiments); local stiffness
#: (K − K_d)/K_d = 6, i.e. K_d = K/7 (§7.4).
AMPLITUDE = "gait.amplitude=pi/6"
TSC_002 = ("controller.inertia=1.0", "controller.damping=10.0", "controller.stiffness=17.5")
#: Controller key → (scenario prefix, overrides): what a study runs for each controller.
Settings = dict[str, tuple[str, tuple[str, ...]]]


def controllers_002(robot: str = "koopaee6") -> Settings:
    """Each controller at 002 §7.4's printed settings for ``robot`` (its K for K_d)."""
    k = float(load_robot(robot).sea.stiffness[0])
    return {
        "open loop": ("open-loop", (AMPLITUDE,)),
        "local stiffness": ("stiffness", (AMPLITUDE, f"controller.stiffness={k / 7.0!r}")),
        "TSC K_τ = 0": ("tsc", (AMPLITUDE, *TSC_002, "controller.torque_gain=0")),
        "TSC K_τ = 6": ("tsc", (AMPLITUDE, *TSC_002, "controller.torque_gain=6")),
    }


#: The boxes of 002's board per world: §7.4's single obstacle and §7.4.2's two.
BOARDS = {"obstacle": 1, "two obstacles": 2}


def board_overrides(world: str, face_friction: float) -> tuple[str, ...]:
    """002's board of ``world`` (the scenarios' top plate) with faces of μ = ``face_friction``."""
    return (f"world.file={lab_world_name(BOARDS[world], PLATE_FRICTIONS[0])}",
            f"world.side_friction={face_friction!r}")


#: A run of 002's that climbs in the 3-D engines, for the unknowns' effect on a climb time (at 002 §7.4's A = π/6
#: none of the four climbs there): the open loop at §6.4's A = π/4 (K_d = K, position control).
CLIMBER = "open loop A = π/4 (§6.4)"


def sensitivity_controllers(settings: Settings) -> Settings:
    """The controllers of the unknowns' study: ``settings`` and :data:`CLIMBER`."""
    return {**settings, CLIMBER: ("open-loop", ("gait.amplitude=pi/4",))}


#: The controllers of 002's ordering: on the robot these rolled over (§6.4, §7.4, Fig. 7.9) …
ROLLED_002 = ("open loop", "local stiffness")
#: … and this one did not.
KEPT_UPRIGHT_002 = "TSC K_τ = 6"

#: World label → scenario infix.
WORLDS = {"obstacle": "obstacle", "two obstacles": "two-obstacles"}


@dataclass(frozen=True)
class Axis:
    """An asymmetry: its label, unit, the overrides that set a level (``{}`` the level), the levels swept and the
    world they are swept on in the unknowns' study (:data:`WORLDS`)."""

    name: str
    label: str
    unit: str
    overrides: tuple[str, ...]
    levels: tuple[float, ...]
    world: str = "obstacle"

    def at(self, level: float) -> tuple[str, ...]:
        return tuple(o.format(level) for o in self.overrides)


#: The asymmetries of the roll-over sweep, each from 0 (the symmetric robot and world, shared by all axes) to the ends
#: of its range.
AXES = (
    Axis("tether", "tether pull towards +y at the tail tip", "N",
         ("world.tether.force={!r}", "world.tether.yaw_deg=90"), (0.1, 0.3)),
    Axis("box_yaw", "box yaw", "deg", ("world.box_yaw_deg={!r}",), (5.0, 20.0)),
    Axis("lateral_offset", "lateral start offset", "m", ("sim.perturbation.lateral_offset={!r}",), (0.1, 0.25)),
    # 002's "uneven mass distribution within each link": every link's centre of mass moved sideways (the module is
    # 68 mm wide, the battery and boards off its axis by a few mm)
    Axis("com_offset", "centre of mass of every link moved sideways (+y)", "m",
         ("robot.com_offset=[0.0,{!r},0.0]",), (0.003, 0.012)),
    # a module screwed on off its 0° by a few degrees: every joint axis turned about the link axis
    Axis("joint_twist", "joint axes turned about the link axis", "deg", ("robot.joint_twist_deg={!r}",),
         (2.0, 10.0)),
)

#: μ of the boxes' vertical faces a study may read: 002's plate is on the top "only for higher friction", its bare
#: faces may have been slippery (the worlds' own :data:`worldgen.FACE_FRICTION` the highest).
FACE_FRICTIONS = (0.1, 0.3, FACE_FRICTION)


def factors(face_friction: float) -> tuple[Axis, ...]:
    """Values 002 does not print, one at a time around the study's (run once, as the baseline of each world): label,
    unit, the override ({} the value), the other values tried (a range's ends, or another reading) and the world;
    the faces' μ at the others of :data:`FACE_FRICTIONS` than ``face_friction``."""
    return (
        Axis("ground_friction", "ground μ (002 §5.5: 0.40 to 0.82)", "", ("contact.friction={!r}",), (0.40, 0.82)),
        Axis("face_friction", "μ of the boxes' vertical faces (under the plate)", "", ("world.side_friction={!r}",),
             tuple(mu for mu in FACE_FRICTIONS if mu != face_friction)),
        Axis("contact_time_constant", "contact softness: MuJoCo solref time constant", "s",
             ("contact.solref=[{!r},1.0]",), (0.01, 0.04)),
        # 002's module "68 mm" (§3.4) read across the octagon's corners: 68 cos(π/8) mm across flats (the robot file
        # reads 68 mm across flats)
        Axis("module_width", "the module's 68 mm read across corners: across flats", "m",
             ("robot.module_width={!r}",), (round(0.068 * math.cos(math.pi / 8), 6),)),
        # worldgen.TWO_OBSTACLES_GAPS, the shipped boards lab_two_obstacles_gap<mm>_plate082 (the study's 100 mm)
        Axis("obstacle_gap", "gap between the two obstacles (the scenarios' 100 mm read, 002 prints none)", "mm",
             (f"world.file=lab_two_obstacles_gap{{:03.0f}}_plate{round(100 * PLATE_FRICTIONS[0]):03d}",),
             tuple(float(round(1e3 * g)) for g in TWO_OBSTACLES_GAPS), "two obstacles"),
    )


@dataclass(frozen=True)
class RateCase:
    """One (controller, world, axis, level) of a study: its seeds' cases."""

    controller: str
    world: str
    axis: str  # Axis.name; "none" for the symmetric robot and world
    level: float
    cases: tuple[ClimbCase, ...]


def rate_case(controller: str, world: str, axis: Axis | None, level: float, seeds: Sequence[int],
              duration: float, settings: Settings, face_friction: float) -> RateCase:
    """The seeds' cases of ``controller`` (its ``settings``, or :data:`CLIMBER`) on 002's board of ``world`` with
    faces of μ = ``face_friction`` and ``axis`` at ``level`` (None: no asymmetry)."""
    prefix, extra = sensitivity_controllers(settings)[controller]
    asym = axis.at(level) if axis is not None else ()
    cases = tuple(ClimbCase("mujoco", controller, world, s, f"{prefix}-{WORLDS[world]}-3d",
                            (*extra, *board_overrides(world, face_friction), *asym, f"sim.perturbation.seed={s}",
                             f"sim.duration={duration!r}"))
                  for s in seeds)
    return RateCase(controller, world, "none" if axis is None else axis.name, level, cases)


def sweep_cases(axes: Sequence[Axis], worlds: Sequence[str], seeds: Sequence[int], duration: float,
                settings: Settings, face_friction: float, top_only: Sequence[str] = ()) -> list[RateCase]:
    """Every controller of ``settings`` × world × (no asymmetry, every axis level) with ``seeds``; on the worlds of
    ``top_only`` only each axis's largest level."""
    out = []
    for world in worlds:
        for controller in settings:
            out.append(rate_case(controller, world, None, 0.0, seeds, duration, settings, face_friction))
            for axis in axes:
                levels = axis.levels[-1:] if world in top_only else axis.levels
                out.extend(rate_case(controller, world, axis, v, seeds, duration, settings, face_friction)
                           for v in levels)
    return out


@dataclass(frozen=True)
class Rate:
    """The roll-over and climb counts of a (controller, world, axis, level) over its seeds, at h and h/2."""

    controller: str
    world: str
    axis: str
    level: float
    runs: int  # seeds with a result at both steps
    rolled: int  # rolled over at h and at h/2
    rolled_h: int  # at h
    rolled_half: int  # at h/2
    climbed: int  # climbed at h and at h/2
    climb_time_s: float | None  # mean time to climb of the runs that climbed at both steps [s]
    speed_mps: float  # mean CoM speed along +x at h [m/s]
    failed: int  # seeds whose run or half-step run has no result

    @property
    def interval(self) -> tuple[float, float]:
        """95 % Wilson interval of the roll-over rate (rolled at both steps)."""
        return wilson_interval(self.rolled, self.runs)

    @property
    def rate(self) -> float:
        return self.rolled / self.runs if self.runs else float("nan")


def rate(case: RateCase, runs: Sequence[Climb3dRun | str]) -> Rate:
    """The counts of ``case`` from its seeds' step-checked runs (a str: a run without a result)."""
    done = [r for r in runs if not isinstance(r, str)]
    both = [r for r in done if r.climbed and r.half_climbed]
    times = [r.time_to_climb_s for r in both if r.time_to_climb_s is not None]
    return Rate(case.controller, case.world, case.axis, case.level, len(done),
                sum(bool(r.rolled_over and r.half_rolled_over) for r in done), sum(bool(r.rolled_over) for r in done),
                sum(bool(r.half_rolled_over) for r in done), len(both),
                sum(times) / len(times) if times else None,
                sum(r.com_speed_mps for r in done) / len(done) if done else float("nan"), len(runs) - len(done))


def ordering_holds(rates: dict[str, Rate]) -> tuple[bool, bool]:
    """Whether 002's ordering appears among the rates of one (world, axis, level) by controller: (as point
    estimates: both of :data:`ROLLED_002` roll over in some runs, :data:`KEPT_UPRIGHT_002` in none; beyond the 95 %
    intervals: both lower bounds above its upper bound)."""
    rolled = [rates[c] for c in ROLLED_002 if c in rates]
    upright = rates.get(KEPT_UPRIGHT_002)
    if upright is None or len(rolled) < len(ROLLED_002):
        return False, False
    point = all(r.rolled > 0 for r in rolled) and upright.rolled == 0
    return point, all(r.interval[0] > upright.interval[1] for r in rolled)


def rates_apart(rates: dict[str, Rate]) -> dict[str, list[str]]:
    """Among the rates of one (world, axis, level) by controller: each controller's roll-over rate that lies above
    others beyond the 95 % intervals (its lower bound above their upper bounds) → those others; controllers above
    none are left out."""
    apart = {c: [d for d, o in rates.items() if o.runs and r.runs and r.interval[0] > o.interval[1]]
             for c, r in rates.items()}
    return {c: below for c, below in apart.items() if below}
