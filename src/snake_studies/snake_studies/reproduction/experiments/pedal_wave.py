"""002 ch. 5: pedal wave on flat ground — Table 5.2, direction, friction (§5.5), torques (Figs. 5.4, 5.6).

The plan is the 27 runs of the vertical model's speed grids and 5 others, and Table 5.2's nine gaits in each 3-D
engine (MuJoCo, DART) at the engine's step and at half of it, tasks of the sweep engine
(:mod:`snake_studies.grid`); each returns its speed (and, in the vertical model, its torque statistics:
:func:`measure`, on the worker).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from snake_sim.analysis.step_check import TOLERANCE
from snake_sim.core.models import runtime_for
from snake_sim.core.runlog import RunLog
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.vertical.runtime import build, run_scenario
from snake_studies.engines import DART_TIME_STEP
from snake_studies.grid import fields, require
from snake_studies.sweep import Cell

#: 002's reference gait on flat ground (config/scenarios/pedal-wave.yaml).
REFERENCE_SCENARIO = "pedal-wave"

AMPLITUDES = (("π/6", "pi/6"), ("π/4", "pi/4"), ("π/3", "pi/3"))
PHASES = (("(−2π − 0.4)/5", "(-2*pi-0.4)/5"), ("−2π/5", "-2*pi/5"), ("(−2π + 0.4)/5", "(-2*pi+0.4)/5"))
#: 002 Table 5.2, simulation (S) and experiment (E) [cm/s]; rows φ, columns A.
TABLE_S = ((1.9, 2.9, 5.9), (1.8, 3.3, 4.9), (1.7, 3.1, 4.6))
TABLE_E = ((3.1, 4.1, 6.2), (2.8, 4.7, 5.8), (2.7, 4.5, 6.0))
#: Near-rigid joints for the gap analysis: the SEA 100× stiffer than 002's K = 1.74 N·m/rad.
RIGID_STIFFNESS = 174.0
#: 002 §5.5: μ_c 0.40 → 0.82 at A = π/4, φ = −2.2π/5 raised the simulated speed by 13.7 %.
FRICTION_CASE = ["gait.amplitude=pi/4", "gait.phase_shift=-2.2*pi/5"]
#: 002 §5.5: the two ground frictions compared.
FRICTIONS_002 = (0.40, 0.82)
#: 002 Table 5.2 is the shape to reproduce (speeds rising with A, the same order of magnitude), not numbers to tune
#: to (an ambiguity of 002: an independent implementation of the printed equations is well below the printed
#: simulation column): ours agree in order of magnitude if ours/S is within this factor either way.
ORDER_OF_MAGNITUDE = 10.0
#: Friction high enough that the contacts do not slip (the no-slip estimate of the gap analysis).
NO_SLIP_FRICTION = 2.0
#: Integration step of these runs: 1 ms keeps the speeds within about 1 % of the 1e-4 s solution up to
#: A = π/3 (5 ms, the scenario default checked by `make bench` at A = π/6, is ~8 % off at A = π/3).
STEP = 0.001
FAST_DURATION = 2.0  # [s] runs of fast mode (smoke tests)
#: Table 5.2 in 3-D: the reference gait's 3-D twin (the robot as built, 002 Table 5.1's contact μ_c) in each engine,
#: at the engine's step (MuJoCo: the scenario's; DART: Gazebo's) and at half of it.
SCENARIO_3D = "open-loop-flat-3d"
ENGINES_3D: dict[str, tuple[str, ...]] = {"mujoco": (), "dart": ("model=dart", f"sim.time_step={DART_TIME_STEP!r}")}


def correlation(x: np.ndarray, y: np.ndarray) -> float:
    """002 (B.1): R = (nΣXY − ΣXΣY) / √([nΣX² − (ΣX)²][nΣY² − (ΣY)²])."""
    x, y = np.ravel(x), np.ravel(y)
    n = x.size
    num = n * (x @ y) - x.sum() * y.sum()
    return float(num / math.sqrt((n * (x @ x) - x.sum() ** 2) * (n * (y @ y) - y.sum() ** 2)))


@dataclass(frozen=True)
class Setting:
    """The constants the text states, from the scenario and robot files."""

    robot: str  # the robot file of the vertical model's runs (REFERENCE_SCENARIO's robot.name)
    robot_3d: str  # the robot file of the 3-D runs (SCENARIO_3D's robot.name)
    kp: float  # K_p of (4.39) [N·m/rad]
    kd: float  # K_D of (4.39) [N·m·s/rad]
    friction: float  # μ_c
    contact_stiffness: float  # ℓ [N/m]
    contact_damping: float  # d [N·s/m]
    contact_threshold: float  # [m]
    frequency: float  # ω [rad/s]
    amplitude: float  # A of the reference gait [rad]
    spring_stiffness: float  # K [N·m/rad]
    link_mass: float  # m_l [kg]
    half_length: float  # l [m]
    reflected_inertia: float  # n² J_r [kg·m²]


@dataclass(frozen=True)
class Grid3d:
    """Table 5.2's speeds in a 3-D engine [m/s] (rows φ of PHASES, columns A of AMPLITUDES) at its step h and h/2."""

    time_step: float  # h [s]
    speed: tuple[tuple[float, ...], ...]
    half_step_speed: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class RunSettings:
    """How the runs were made beyond :class:`Setting`, as the text states it: the scenarios, the grid of gaits,
    the near-rigid and no-slip variants and the 3-D engines' overrides."""

    reference_scenario: str
    scenario_3d: str
    amplitudes: tuple[tuple[str, str], ...]  # (label, value) of A, the grids' columns
    phases: tuple[tuple[str, str], ...]  # (label, value) of φ, the grids' rows
    rigid_stiffness: float  # K of the near-rigid joints [N·m/rad]
    no_slip_friction: float  # μ_c of the no-slip estimate
    engines_3d: dict[str, tuple[str, ...]]  # the 3-D engines run and their overrides
    step_tolerance: float  # largest relative change of a time or speed from h to h/2 of a converged run


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    return RunSettings(REFERENCE_SCENARIO, SCENARIO_3D, AMPLITUDES, PHASES, RIGID_STIFFNESS, NO_SLIP_FRICTION,
                       ENGINES_3D, TOLERANCE)


@dataclass(frozen=True)
class PedalWaveResults:
    """Speeds of every run [m/s] (grids: rows φ of PHASES, columns A of AMPLITUDES) and the torque statistics."""

    fast: bool
    duration: float  # [s] per run
    time_step: float  # [s]
    setting: Setting
    speed: tuple[tuple[float, ...], ...]  # SEA as in the robot file
    rigid: tuple[tuple[float, ...], ...]  # SEA RIGID_STIFFNESS
    no_slip: tuple[tuple[float, ...], ...]  # rigid and μ_c = NO_SLIP_FRICTION
    reference_speed: float  # the scenario's gait
    reversed_speed: float  # φ → −φ
    reflected_speed: float  # reflected rotor inertia
    friction_speeds: tuple[float, float]  # at FRICTIONS_002, FRICTION_CASE
    torque_from: float  # [s] start of the window of the torque statistics
    torque_rms: tuple[float, ...]  # per joint, tail → head [N·m]
    torque_peak: tuple[float, ...]  # [N·m]
    correlation_own: float  # (B.1) of U with K(β − α), 𝕊_3 = J_r
    correlation_reflected: float  # the same, 𝕊_3 = n² J_r
    misfit_own: float  # rms(U − K(β − α)) / rms(τ)
    misfit_reflected: float
    grids_3d: dict[str, Grid3d]  # Table 5.2 in each 3-D engine, by model
    settings: RunSettings


#: The section's results type (reproduction.document loads stored results as it).
Results = PedalWaveResults


def speed(log: RunLog) -> float:
    """Average forward speed of the centre of mass [m/s] (002 §5.4: distance in the run time)."""
    return float((log.com[-1, 0] - log.com[0, 0]) / (log.t[-1] - log.t[0]))


def _step(duration: float) -> float:
    return STEP if duration > FAST_DURATION else 0.005  # fast mode: the scenario's step


def _cell(overrides: list[str], duration: float) -> Cell:
    return Cell(REFERENCE_SCENARIO, (*overrides, f"sim.duration={duration}", "sim.log_rate=100",
                                     f"sim.time_step={_step(duration)}"))


def measure(cell: Cell, out: Path | None = None) -> dict[str, Any]:
    """The sweep engine's measure of a run (on the worker): its speed and, in the vertical model, the torque
    statistics after the start-up transient (t ≥ min(2 s, half the run)); ``out`` unused."""
    scenario = load_scenario(cell.scenario, cell.overrides)
    if scenario.model != "vertical":
        return {"speed": speed(runtime_for(scenario.model).run_scenario(scenario))}
    log = run_scenario(scenario)
    skip = log.t >= min(2.0, scenario.duration / 2)
    return {"speed": speed(log), "torque_from": float(log.t[skip][0]),
            "torque_rms": [float(v) for v in np.sqrt(np.mean(log.tau[skip] ** 2, axis=0))],
            "torque_peak": [float(v) for v in np.max(np.abs(log.tau[skip]), axis=0)],
            "correlation": correlation(log.motor_torque[skip], -log.tau[skip]), "misfit": _misfit(log, skip)}


def _setting() -> Setting:
    """The constants of the text from the reference scenario, its robot and its contact."""
    scenario = load_scenario(REFERENCE_SCENARIO)
    setup = build(scenario)
    robot, contact, gait = setup.robot, setup.plant.contact, scenario.section("gait")
    return Setting(robot=robot.name, robot_3d=load_scenario(SCENARIO_3D).section("robot")["name"],
                   kp=robot.actuator.kp, kd=robot.actuator.kd, friction=contact.friction,
                   contact_stiffness=contact.stiffness, contact_damping=contact.damping,
                   contact_threshold=contact.threshold, frequency=float(gait["frequency"]),
                   amplitude=float(gait["amplitude"]), spring_stiffness=float(robot.sea.stiffness[0]),
                   link_mass=robot.link_mass, half_length=robot.half_length,
                   reflected_inertia=robot.actuator.gear_ratio ** 2 * robot.actuator.rotor_inertia)


#: The three speed grids, in the order of :func:`_grid_cells`.
GRIDS = ("sea", "rigid", "no_slip")


def _grid_cells(duration: float) -> list[list[list[Cell]]]:
    """[SEA, near-rigid, near-rigid without slip][φ][A]: the runs of the speed grids."""
    rigid = f"robot.sea_stiffness={RIGID_STIFFNESS}"
    return [[[_cell([f"gait.amplitude={amplitude}", f"gait.phase_shift={phase}", *extra], duration)
              for _, amplitude in AMPLITUDES] for _, phase in PHASES]
            for extra in ([], [rigid], [rigid, f"contact.friction={NO_SLIP_FRICTION}"])]


def _step_3d(engine: str) -> float:
    """The step h [s] of Table 5.2's runs in a 3-D engine (its scenario's, or Gazebo's for DART)."""
    return load_scenario(SCENARIO_3D, list(ENGINES_3D[engine])).time_step


def _grid_3d_cells(engine: str, duration: float) -> list[list[tuple[Cell, Cell]]]:
    """[φ][A]: Table 5.2's gaits in a 3-D engine, each at the engine's step and at half of it."""
    extra, h = ENGINES_3D[engine], _step_3d(engine)
    cells = []
    for _, phase in PHASES:
        row = []
        for _, amplitude in AMPLITUDES:
            over = (*extra, f"gait.amplitude={amplitude}", f"gait.phase_shift={phase}", f"sim.duration={duration}")
            row.append((Cell(SCENARIO_3D, over), Cell(SCENARIO_3D, (*over, f"sim.time_step={0.5 * h!r}"))))
        cells.append(row)
    return cells


def _misfit(log: RunLog, skip: np.ndarray) -> float:
    """rms(U − K(β − α)) / rms(τ): the scale-sensitive counterpart of R."""
    return float(np.sqrt(np.mean((log.motor_torque[skip] + log.tau[skip]) ** 2) / np.mean(log.tau[skip] ** 2)))


def _duration(fast: bool) -> float:
    return FAST_DURATION if fast else 10.0


def plan(fast: bool = False) -> dict[str, Cell]:
    """Table 5.2's nine gaits (SEA ``sea i j``, near-rigid ``rigid i j``, near-rigid without slip ``no_slip i j``;
    i the row φ, j the column A; in each 3-D engine ``<engine> i j`` and at half its step ``<engine> i j half``),
    the reference gait, φ reversed, the reflected rotor inertia and the two frictions
    of §5.5 (``mu0.40``, ``mu0.82``)."""
    duration = _duration(fast)
    runs = {f"{grid} {i} {j}": cell for grid, rows in zip(GRIDS, _grid_cells(duration), strict=True)
            for i, row in enumerate(rows) for j, cell in enumerate(row)}
    for engine in () if fast else ENGINES_3D:  # fast mode: the vertical model only
        for i, row in enumerate(_grid_3d_cells(engine, duration)):
            for j, (cell, half) in enumerate(row):
                runs[f"{engine} {i} {j}"], runs[f"{engine} {i} {j} half"] = cell, half
    runs.update({key: _cell(overrides, duration) for key, overrides in (
        ("ref", []), ("reversed", ["gait.phase_shift=2*pi/5"]), ("reflected", ["robot.rotor_inertia_model=reflected"]),
        *((f"mu{mu:.2f}", [*FRICTION_CASE, f"contact.friction={mu:.2f}"]) for mu in FRICTIONS_002))})
    return runs


def assemble(fast: bool, plan: dict[str, Cell], rows: dict[str, dict[str, Any]]) -> PedalWaveResults:
    """The speeds and torque statistics of the planned runs (RunsFailed if a run raised or its worker died)."""
    require(plan.values(), {c.id: rows[key] for key, c in plan.items()})
    got = {key: fields(row) for key, row in rows.items()}
    ours, rigid, noslip = (tuple(tuple(got[f"{grid} {i} {j}"]["speed"] for j in range(len(AMPLITUDES)))
                                 for i in range(len(PHASES))) for grid in GRIDS)
    ref, refl = got["ref"], got["reflected"]
    duration = _duration(fast)
    grids_3d = {engine: Grid3d(_step_3d(engine),
                               *(tuple(tuple(got[f"{engine} {i} {j}{half}"]["speed"] for j in range(len(AMPLITUDES)))
                                       for i in range(len(PHASES))) for half in ("", " half")))
                for engine in ENGINES_3D if f"{engine} 0 0" in got}
    return PedalWaveResults(
        fast=fast, duration=duration, time_step=_step(duration), setting=_setting(), speed=ours, rigid=rigid,
        no_slip=noslip, reference_speed=ref["speed"], reversed_speed=got["reversed"]["speed"],
        reflected_speed=refl["speed"], friction_speeds=tuple(got[f"mu{mu:.2f}"]["speed"] for mu in FRICTIONS_002),
        torque_from=ref["torque_from"], torque_rms=tuple(ref["torque_rms"]), torque_peak=tuple(ref["torque_peak"]),
        correlation_own=ref["correlation"], correlation_reflected=refl["correlation"], misfit_own=ref["misfit"],
        misfit_reflected=refl["misfit"], grids_3d=grids_3d, settings=run_settings(fast))
