"""docs/reproduction.md section: local stiffness and TSC over obstacles and stairs (002 ch. 6–7).

Runs, on the vertical-plane model, the open-loop pedal wave, local stiffness control (Fig. 6.2)
and TSC ((7.1)–(7.2)) with K_τ = 0 and 6: on flat ground (speed, the wave TSC settles to), on
002's single obstacle with Table 7.1's parameters and with the parameters the shipped scenarios use,
on two obstacles and on stairs, and on the single obstacle with less friction on the box's vertical faces.
Every row on an obstacle or stairs runs twice, at the scenario's step (1 ms) and at half of it, and the
table shows both (a simulated verdict counts only if halving the step leaves it standing). The plan is every
run and its half-step run, tasks of the sweep engine (:mod:`snake_studies.grid`) whose measure,
:func:`measure`, returns the row's numbers, computed from the RunLog on the worker.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from snake_core.controllers.tsc import DEFAULTS, gains_from_params
from snake_sim.analysis.climb import ClimbResult, climb_result
from snake_sim.analysis.step_check import TOLERANCE, relative_change
from snake_sim.analysis.wave_analysis import cycle_waves
from snake_sim.core.scenario import load_scenario
from snake_sim.core.world import load_world
from snake_sim.engines.vertical import runtime
from snake_studies.grid import fields, require
from snake_studies.reproduction.results import build, plain
from snake_studies.sweep import Cell

#: Table 7.1's TSC gains (M_d, D_d, K_d): the defaults of tsc's parameters, and its amplitude A [rad].
TABLE_7_1_GAINS = tuple(DEFAULTS[name] for name in ("inertia", "damping", "stiffness"))
#: Table 7.1, TSC in simulation: A = π/6, ω = π, M_d = 1, D_d = 4, K_d = 12 (K_τ not printed).
TABLE_7_1 = ("gait.amplitude=pi/6", *(f"controller.{name}={DEFAULTS[name]!r}"
                                      for name in ("inertia", "damping", "stiffness")))
TABLE_7_1_AMPLITUDE = np.pi / 6
#: The open-loop gait of Table 7.1 (A = π/6, φ = −2π/5).
TABLE_7_1_OPEN = ("gait.amplitude=pi/6", "gait.phase_shift=-2*pi/5")
#: The scenarios whose files give the constants of the text (robot, worlds, contact, steps, gains).
SHIPPED_TSC, SHIPPED_STIFFNESS, SHIPPED_FLAT = "tsc-obstacle", "stiffness-obstacle", "tsc-flat"
#: 002 §7.3's simulated runs on the single obstacle (Table 7.1's parameters on Table 5.1's simulated robot); the
#: rows with Table 7.1's parameters on flat ground run the robot these name.
SIMULATED_OPEN, SIMULATED_TSC = "sim73-open-loop-obstacle", "sim73-tsc-obstacle"
#: Controllers compared on every world: (label, scenario prefix, overrides).
CONTROLLERS = (
    ("open loop (4.38)+(4.39)", "open-loop", ()),
    ("local stiffness, K_d = K/6", "stiffness", ()),
    ("TSC, K_τ = 0", "tsc", ("controller.torque_gain=0",)),
    ("TSC, K_τ = 6", "tsc", ("controller.torque_gain=6",)),
)
#: How narrow the climbing window of the single obstacle is: the open loop slightly off the shipped gait,
#: and TSC with the largest K_d of 002 (the wave grows to ±60° at the head, lag −59° per joint).
SENSITIVITY = (
    ("open loop, A = π/4", "open-loop-obstacle", ("gait.amplitude=pi/4",)),
    ("open loop, φ = −1.4 rad (−80°)", "open-loop-obstacle", ("gait.phase_shift=-1.4",)),
    ("TSC, K_d = 17.5, K_τ = 0", "tsc-obstacle", ("controller.stiffness=17.5", "controller.torque_gain=0")),
)
#: The μ of the box's vertical faces (``world.side_friction``; the top keeps the world file's μ = 0.6): which face
#: friction lets each controller over the single obstacle, and at what speed.
SIDE_FRICTIONS = (0.0, 0.1, 0.2, 0.3, 0.4)
FACE_CONTROLLERS = (
    ("open loop", "open-loop-obstacle", ()),
    ("TSC, K_τ = 0", "tsc-obstacle", ("controller.torque_gain=0",)),
    ("TSC, K_τ = 6", "tsc-obstacle", ("controller.torque_gain=6",)),
)
#: TSC over 002's gain ranges on the single obstacle (M_d = 1 throughout) at 002's largest amplitude π/3 (the
#: smaller ones move the robot less, flat-ground table): D_d and K_d from Table 7.1 (4, 12) to the experiments
#: (10, 17.5), K_τ = 0 and 6.
GRID_AMPLITUDES = (("π/3", "pi/3"),)
GRID_DAMPING = (4.0, 7.0, 10.0)
GRID_STIFFNESS = (12.0, 14.0, 17.5)
GRID_TORQUE_GAINS = (0.0, 6.0)
#: (label, scenario suffix, world file) of the shipped obstacle worlds.
WORLDS = (("single obstacle", "obstacle", "single_obstacle"), ("two obstacles", "two-obstacles", "two_obstacles"),
          ("stairs", "stairs", "stairs"))
#: Simulated time of every run of a ``fast`` smoke run [s].
FAST_DURATION = 3.0
#: Groups of rows on flat ground: run at the scenario's step (5 ms) only, with the bench's evidence (``make bench``).
FLAT_GROUPS = ("flat",)


@dataclass(frozen=True)
class Outcome:
    label: str
    speed_mps: float  # CoM, whole run
    climb: ClimbResult
    head_amplitude_deg: float  # last whole cycle, motor angle of the head joint
    head_phase_deg: float  # of the head joint relative to the tail joint
    status: str
    face_time_s: float = float("nan")  # time the head tip spent pressing on the near face of the first box
    face_height_max_m: float = float("nan")  # highest head-tip point while pressing on that face
    time_step_s: float = float("nan")
    half: Outcome | None = None  # the same run at half the step (obstacle and stairs rows)

    @property
    def converged(self) -> bool | None:
        """Halving the step keeps the verdict and moves time to climb, climb speed and CoM speed by ≤ 5 %
        (None: not checked)."""
        if self.half is None:
            return None
        if self.climb.climbed != self.half.climb.climbed or self.status != self.half.status:
            return False
        changes = [relative_change(self.speed_mps, self.half.speed_mps),
                   relative_change(self.climb.time_to_climb_s, self.half.climb.time_to_climb_s),
                   relative_change(self.climb.climb_average_speed_mps, self.half.climb.climb_average_speed_mps)]
        given = [self.speed_mps, self.climb.time_to_climb_s, self.climb.climb_average_speed_mps]
        return all(c is not None and abs(c) <= TOLERANCE for c, g in zip(changes, given, strict=True)
                   if g is not None)


def head_at_face(log, setup) -> tuple[float, float]:
    """(time, highest z) of the head tip pressing on the near face of the first box ahead: its disc of radius
    r_c overlaps the face and its centre is not above the edge (where the contact normal is horizontal)."""
    boxes = setup.terrain.boxes
    tip = log.head_position
    ahead = boxes[boxes[:, 0] > tip[0, 0]] if len(tip) else boxes[:0]
    if not len(ahead) or len(log.t) < 2:
        return float("nan"), float("nan")
    x0, _, _, top = ahead[np.argmin(ahead[:, 0])]
    r = setup.plant.contact.threshold
    x, z = tip[:, 0], tip[:, 2]
    on_face = (x > x0 - r) & (x <= x0) & (z <= top)
    dt = float(log.t[1] - log.t[0])
    return float(on_face.sum() * dt), float(z[on_face].max()) if on_face.any() else float("nan")


def measure(cell: Cell, out: Path | None = None) -> dict[str, Any]:
    """The sweep engine's measure of a row's run (on the worker): the fields of :class:`Outcome` except its
    label and half (``out`` unused: the section keeps no per-run outputs)."""
    sc = load_scenario(cell.scenario, cell.overrides)
    setup = runtime.build(sc)
    log = runtime.simulate(setup)
    waves = cycle_waves(log.t, log.beta, float(sc.section("gait")["frequency"]))
    amp = float(np.degrees(waves.amplitude[-1, -1])) if len(waves.amplitude) else float("nan")
    phase = float(np.degrees(waves.phase[-1, -1])) if len(waves.phase) else float("nan")
    face_time, face_height = head_at_face(log, setup)
    return {"speed_mps": log.average_speed, "climb": plain(climb_result(log, setup.world)),
            "head_amplitude_deg": amp, "head_phase_deg": phase, "status": log.status, "face_time_s": face_time,
            "face_height_max_m": face_height, "time_step_s": sc.time_step}


def _cells(scenario: str, overrides: tuple[str, ...], fast: bool, check_step: bool) -> tuple[Cell, ...]:
    """The row's run, and with ``check_step`` the same run at half the step."""
    overrides = (*overrides, *((f"sim.duration={FAST_DURATION!r}",) if fast else ()))
    run = Cell(scenario, overrides)
    if not check_step:
        return (run,)
    h = load_scenario(scenario, overrides).time_step
    return run, Cell(scenario, (*overrides, f"sim.time_step={0.5 * h!r}"))


def _outcome(label: str, row: dict[str, Any]) -> Outcome:
    return build(Outcome, {**fields(row), "label": label, "half": None})


@dataclass(frozen=True)
class Setting:
    """The constants the text states, read from the robot, world and scenario files the runs use."""

    robot: str  # robot file of the shipped scenarios' rows (robot.name)
    simulated_robot: str  # robot file of the rows with Table 7.1's parameters (SIMULATED_TSC's robot.name)
    spring_stiffness: float  # K [N·m/rad], robot file
    joint_limit_deg: float  # |α| limit [°], robot file
    link_mass: float  # m_l [kg]
    link_length: float  # 2l [m]
    module_width: float  # across flats [m]
    local_stiffness: float  # K_d of the local-stiffness scenarios [N·m/rad]
    tsc_gains: tuple[float, float, float]  # (M_d, D_d, K_d) of the shipped TSC scenarios
    tsc_amplitude: float  # A of the shipped TSC scenarios [rad]
    gait_frequency: float  # ω [rad/s]
    contact_radius: float  # r_c, the contact threshold [m]
    ground_friction: float  # μ_c of the ground
    box_friction: tuple[float, ...]  # the distinct μ of the boxes' faces over the shipped worlds
    boxes: dict[str, tuple[tuple[float, float], ...]]  # world label → (height, length) of each box [m]
    box_gap: float  # single obstacle: its near edge ahead of the head tip at the start [m]
    flat_time_step: float  # [s]
    obstacle_time_step: float  # [s]
    control_rate: float  # [Hz]


#: The shipped open loop the sensitivity rows change slightly.
SHIPPED_OPEN_LOOP = "open-loop-obstacle"


@dataclass(frozen=True)
class RunSettings:
    """How the runs were made beyond :class:`Setting`, as the text states it: the shipped open loop's gait, the
    grids of gains and face μ run, and the smoke runs' time."""

    simulated_scenarios: tuple[str, str]  # 002 §7.3's simulated runs (open loop, TSC) on the single obstacle
    open_loop_amplitude: float  # A of the shipped open loop [rad]
    open_loop_phase_shift: float  # φ of the shipped open loop [rad]
    grid_amplitudes: tuple[tuple[str, str], ...]  # TSC grid: (label, value) of A
    grid_damping: tuple[float, ...]  # TSC grid: D_d
    grid_stiffness: tuple[float, ...]  # TSC grid: K_d [N·m/rad]
    grid_torque_gains: tuple[float, ...]  # TSC grid: K_τ
    side_frictions: tuple[float, ...]  # μ of the box's vertical faces run
    step_tolerance: float  # largest relative change of a time or speed from h to h/2 of a converged run
    smoke_duration_s: float | None  # simulated time of every run of a fast smoke run [s]; None: the scenarios' own


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    gait = load_scenario(SHIPPED_OPEN_LOOP).section("gait")
    return RunSettings((SIMULATED_OPEN, SIMULATED_TSC), gait["amplitude"], gait["phase_shift"], GRID_AMPLITUDES,
                       GRID_DAMPING, GRID_STIFFNESS, GRID_TORQUE_GAINS, SIDE_FRICTIONS, TOLERANCE,
                       FAST_DURATION if fast else None)


@dataclass(frozen=True)
class StiffnessResults:
    """Every run of the section, grouped by table (in document order), and the setting."""

    fast: bool
    setting: Setting
    groups: dict[str, list[Outcome]]
    settings: RunSettings


#: The section's results type (reproduction.document loads stored results as it).
Results = StiffnessResults


def _setting() -> Setting:
    """The constants of the text from the shipped files (cheap: no simulation)."""
    tsc, local, flat = (load_scenario(name) for name in (SHIPPED_TSC, SHIPPED_STIFFNESS, SHIPPED_FLAT))
    setup = runtime.build(tsc)
    robot, contact = setup.robot, setup.plant.contact
    worlds = {label: load_world(file) for label, _, file in WORLDS}
    first = min(worlds["single obstacle"].static_boxes, key=lambda b: b.x_min)
    start_x = float(tsc.section("world").get("start_x", 0.0))
    gait, gains = tsc.section("gait"), gains_from_params(tsc.section("controller"), SHIPPED_TSC)
    return Setting(
        robot=robot.name, simulated_robot=load_scenario(SIMULATED_TSC).section("robot")["name"],
        spring_stiffness=float(robot.sea.stiffness[0]), joint_limit_deg=float(np.degrees(robot.joint_limit)),
        link_mass=robot.link_mass, link_length=robot.link_length, module_width=robot.module_width,
        local_stiffness=float(local.section("controller")["stiffness"]),
        tsc_gains=(gains.inertia, gains.damping, gains.stiffness),
        tsc_amplitude=float(gait["amplitude"]), gait_frequency=float(gait["frequency"]),
        contact_radius=contact.threshold, ground_friction=contact.friction,
        box_friction=tuple(sorted({b.friction for w in worlds.values() for b in w.static_boxes})),
        boxes={label: tuple((b.size[2], b.size[0]) for b in sorted(w.static_boxes, key=lambda b: b.x_min))
               for label, w in worlds.items()},
        box_gap=first.x_min - (start_x + robot.total_length),
        flat_time_step=flat.time_step, obstacle_time_step=tsc.time_step, control_rate=1.0 / tsc.control_period)


def _module_runs(setting: Setting) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """The head-geometry hypothesis: the contact radius r_c = half the module's width (002 Table 3.2) instead of
    §5.3's, so that the box is about one module radius tall for the disc at the head tip, as on the robot."""
    r = 0.5 * setting.module_width
    over, text = f"contact.threshold={r!r}", f"r_c = {1e3 * r:g} mm (module radius)"
    return ((f"open loop, {text}", "open-loop-obstacle", (over,)),
            (f"TSC, K_τ = 0, {text}", "tsc-obstacle", ("controller.torque_gain=0", over)))


def _jobs(setting: Setting, fast: bool) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """Every run of the section as (group, label, scenario, overrides), in document order."""
    jobs: list[tuple[str, str, str, tuple[str, ...]]] = []
    sim, shipped = f"robot.name={setting.simulated_robot}", f"robot.name={setting.robot}"  # each row on its robot
    jobs += [("flat", "open loop, Table 7.1 (A = π/6)", "pedal-wave", (*TABLE_7_1_OPEN, sim)),
             ("flat", "TSC, Table 7.1, K_τ = 0", "tsc-flat", (*TABLE_7_1, "controller.torque_gain=0", sim)),
             ("flat", "TSC, Table 7.1, K_τ = 6", "tsc-flat", (*TABLE_7_1, "controller.torque_gain=6", sim))]
    for label, prefix, over in CONTROLLERS:  # pedal-wave is the open loop on flat ground (at A = π/6)
        flat = (("pedal-wave", (*over, "gait.amplitude=pi/3", shipped)) if prefix == "open-loop" else
                (f"{prefix}-flat", over))
        jobs.append(("flat", label, *flat))
    jobs += [("t71", "open loop, Table 7.1 (A = π/6)", SIMULATED_OPEN, ()),
             ("t71", "TSC, Table 7.1, K_τ = 0", SIMULATED_TSC, ("controller.torque_gain=0",)),
             ("t71", "TSC, Table 7.1, K_τ = 6", SIMULATED_TSC, ("controller.torque_gain=6",))]
    jobs += [("sens", label, scenario, over) for label, scenario, over in SENSITIVITY]
    jobs += [("grid", f"D_d = {d:g}, K_d = {k:g}; A = {a_label}, K_τ = {kt:g}", "tsc-obstacle",
              (f"gait.amplitude={a}", f"controller.damping={d}", f"controller.stiffness={k}",
               f"controller.torque_gain={kt}"))
             for d in GRID_DAMPING for k in GRID_STIFFNESS
             for a_label, a in GRID_AMPLITUDES for kt in GRID_TORQUE_GAINS]
    jobs += [("face", f"{label}, μ = {mu:g} on the vertical faces", scenario, (*over, f"world.side_friction={mu}"))
             for label, scenario, over in FACE_CONTROLLERS for mu in SIDE_FRICTIONS]
    jobs += [("module", label, scenario, over) for label, scenario, over in _module_runs(setting)]
    for wlabel, wkey, _ in WORLDS:
        jobs += [(wlabel, label, f"{prefix}-{wkey}", over) for label, prefix, over in CONTROLLERS]
    if fast:
        jobs = jobs[:2] + [j for j in jobs if j[0] == "single obstacle"][:2]
    return jobs


def _key(group: str, label: str, half: bool = False) -> str:
    return f"{group}: {label}" + (" (h/2)" if half else "")


def plan(fast: bool = False) -> dict[str, Cell]:
    """Every row's run (``group: label``), and on an obstacle or stairs its run at half the step (``... (h/2)``);
    ``fast``: four rows of 3 s (smoke test)."""
    runs = {}
    for group, label, scenario, over in _jobs(_setting(), fast):
        run, *half = _cells(scenario, over, fast, group not in FLAT_GROUPS)
        runs[_key(group, label)] = run
        runs.update({_key(group, label, True): c for c in half})
    return runs


def assemble(fast: bool, plan: dict[str, Cell], rows: dict[str, dict[str, Any]]) -> StiffnessResults:
    """The rows grouped by table, each with its half-step run (RunsFailed if a run raised or its worker died)."""
    require(plan.values(), {c.id: rows[key] for key, c in plan.items()})
    setting = _setting()
    groups: dict[str, list[Outcome]] = {}
    for group, label, _, _ in _jobs(setting, fast):
        run = _outcome(label, rows[_key(group, label)])
        half = rows.get(_key(group, label, True))
        groups.setdefault(group, []).append(run if half is None else replace(run, half=_outcome(label, half)))
    return StiffnessResults(fast, setting, groups, run_settings(fast))
