"""003 (vertical rectilinear gait): kinematics, Newton–Euler, optimised steps, ch. 4 study, simulator cross-check.

The plan is Tasks computed here, one per part: the kinematics, the Newton–Euler check, the optimised steps and
cycle, the ch. 4 study and the simulator cross-check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from snake_core.rectilinear.cycle import advance_per_cycle, average_speed, kinematic_advance
from snake_core.rectilinear.cycle import plan as step_plan
from snake_core.rectilinear.mechanism import RectilinearModel, build_model, effort
from snake_core.rectilinear.newton_euler import PlanarChain, inverse_dynamics
from snake_core.rectilinear.optimise import (
    C_FINAL_003,
    StepProblem,
    evaluate,
    initial_points,
    optimise_cycle,
    optimise_step,
)
from snake_core.robot import load_robot
from snake_core.vertical.model import GRAVITY
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.vertical.runtime import run_scenario
from snake_studies.rectilinear import StudyRow, run_study
from snake_studies.reproduction.experiment import Task

ALPHA = math.pi / 4
#: 003's baseline robot (l, m, μ, joint range, HS-55 stall torque at 4.8 V) and the simulator's scenario.
BASELINE_ROBOT = "rectilinear6"
SIM_SCENARIO = "rectilinear"
#: 003 §5.3: the validation robot, l = 8.9 cm, α = 40°, a 3 s cycle (5 steps of 0.6 s).
VALIDATION = (0.089, 40.0, 0.6)
#: 003: step 1's effort with its final C "on the order of 1.7e-3", the open loop's ≈ 6.0e-3 [N²m²s] (from plots).
STEP1_EFFORT_003, OPEN_EFFORT_003 = 1.7e-3, 6.0e-3
#: Simulator cross-check variants that separate slip on the ground from the sag of the soft SEA joints: the ground's
#: μ_c raised to SIM_FRICTION, the SEA SIM_STIFFER× stiffer.
SIM_FRICTION, SIM_STIFFER = 1.5, 10.0


@dataclass(frozen=True)
class Kinematics:
    """Advance per cycle [m] from the state machine and from 003 Eq. 4.1 (validation robot and baseline)."""

    validation: float
    validation_formula: float
    validation_speed_formula: float  # [m/s]
    baseline: float
    baseline_formula: float


@dataclass(frozen=True)
class StepRow:
    """One optimisation or evaluation of a gait step."""

    problem: str
    how: str
    effort: float  # [N²m²s]
    evaluations: int
    peak_torque: float  # [N·m]
    min_normal_force: float | None  # [N]; None: no ground contact
    reference: str  # 003's value, as printed


@dataclass(frozen=True)
class CycleStep:
    number: int
    kind: str
    reversed: bool
    effort: float
    min_normal_force: float
    peak_torque: float


@dataclass(frozen=True)
class SimulatorRow:
    """One run of the rectilinear scenario in the vertical-plane simulator."""

    label: str
    status: str
    cycles: int
    advance: float  # per cycle [m]
    predicted: float  # 003's no-slip advance [m]
    tracking_error_deg: float


@dataclass(frozen=True)
class RunSettings:
    """How the runs were made, as the text states it: the baseline's step model, the validation robot's gait and
    the simulator's scenario and its variants."""

    alpha: float  # α of the steps [rad]
    step_time: float  # T of the baseline's steps [s]
    samples: int  # samples per step
    gravity: float  # g [m/s²]
    validation: tuple[float, float, float]  # the validation robot: l [m], α [°], step time [s]
    baseline_robot: str  # robot file of 003's baseline
    joint_limit: float  # its joint range ± [rad] (robot file)
    sim_scenario: str  # the simulator's scenario
    sim_friction: float  # μ_c of the slip variant
    sim_stiffer: float  # the SEA's stiffness factor of the sag variant


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    robot = load_robot(BASELINE_ROBOT)
    model = build_model(robot)
    return RunSettings(ALPHA, model.step_time, model.samples, model.gravity, VALIDATION, BASELINE_ROBOT,
                       robot.joint_limit, SIM_SCENARIO, SIM_FRICTION, SIM_STIFFER)


@dataclass(frozen=True)
class RectilinearResults:
    fast: bool
    link_length: float  # 003's baseline l [m] (robot file)
    link_mass: float  # [kg]
    mu: float
    torque_limit: float  # servo stall torque [N·m]
    kinematics: Kinematics
    newton_euler_error: float  # [N·m]
    steps: tuple[StepRow, ...]
    cycle: tuple[CycleStep, ...]
    cycle_effort: float
    cycle_min_normal_force: float
    cycle_peak_torque: float
    study: tuple[StudyRow, ...]
    study_angles: tuple[float, ...]
    study_times: tuple[float, ...]
    time_sweep: tuple[tuple[float, float], ...]  # (T, cycle effort) at α = 45°
    quartic_residual: float | None  # relative; None in fast mode
    sim_robot: tuple[float, float, float]  # 2l [m], m [kg], K [N·m/rad] of the simulated robot
    sim_gait: tuple[float, float]  # α [rad], T [s]
    simulator: tuple[SimulatorRow, ...]
    settings: RunSettings


#: The section's results type (reproduction.document loads stored results as it).
Results = RectilinearResults


def _short_e(v: float, digits: int = 1) -> str:
    """Scientific notation without the exponent's leading zero (1.7e-3)."""
    mantissa, exponent = f"{v:.{digits}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _kinematics(base: RectilinearModel) -> Kinematics:
    length, angle, step_time = VALIDATION[0], math.radians(VALIDATION[1]), VALIDATION[2]
    return Kinematics(kinematic_advance(6, length, angle), advance_per_cycle(length, angle),
                      average_speed(length, angle, step_time), kinematic_advance(6, base.link_length, ALPHA),
                      advance_per_cycle(base.link_length, ALPHA))


def _newton_euler() -> float:
    """Largest difference of the recursion from Craig's closed form of a planar 2-link arm over 200 states [N·m]."""
    rng = np.random.default_rng(0)
    m, ln, g = 0.3, 0.25, GRAVITY
    chain = PlanarChain(np.full(2, ln), np.full(2, m), np.full(2, ln), np.zeros(2), g)
    worst = 0.0
    for _ in range(200):
        th, thd, thdd = rng.uniform(-2, 2, (3, 2))
        c1, c2, s2, c12 = np.cos(th[0]), np.cos(th[1]), np.sin(th[1]), np.cos(th.sum())
        k = m * ln**2
        t1 = (k * thdd.sum() + k * c2 * (2 * thdd[0] + thdd[1]) + 2 * k * thdd[0] - k * s2 * thd[1] ** 2
              - 2 * k * s2 * thd[0] * thd[1] + m * g * ln * c12 + 2 * m * g * ln * c1)  # 003 (4.2)
        t2 = k * c2 * thdd[0] + k * s2 * thd[0] ** 2 + k * thdd.sum() + m * g * ln * c12  # 003 (4.3)
        worst = max(worst, float(np.max(np.abs(inverse_dynamics(chain, th, thd, thdd) - [t1, t2]))))
    return worst


def _step_row(problem: str, how: str, r, reference: str = "—") -> StepRow:
    d = r.dynamics
    return StepRow(problem, how, float(r.effort), int(r.evaluations or 0), float(np.max(np.abs(d.tau))),
                   float(np.min(d.normal_force)) if d.normal_force.any() else None, reference)


def _steps(model: RectilinearModel, fast: bool) -> tuple[StepRow, ...]:
    s1, s2 = step_plan(6)[:2]
    p1 = StepProblem(model, s1, ALPHA)
    p1_open = StepProblem(model, s1, ALPHA, open_loop=True)
    p2 = StepProblem(model, s2, ALPHA)
    rows = [
        _step_row("step 1, closed M1", "003's Co (straight lines)", evaluate(p1, initial_points("M1", ALPHA))),
        _step_row("step 1, closed M1", "003's final C", evaluate(p1, ALPHA * C_FINAL_003["M1"]),
                  f"≈ {_short_e(STEP1_EFFORT_003)}"),
        _step_row("step 1, closed M1", "±Δ search (003, 50 it.)", optimise_step(p1, "delta")),
        _step_row("step 1, closed M1", "SLSQP, complex-step gradients", optimise_step(p1, "slsqp")),
        _step_row("step 1, open M1", "straight lines (3 joints)", evaluate(p1_open, initial_points("M1", ALPHA, True))),
        _step_row("step 1, open M1", "SLSQP", optimise_step(p1_open, "slsqp"), f"≈ {_short_e(OPEN_EFFORT_003)}"),
        _step_row("step 2, M2", "003's Co", evaluate(p2, initial_points("M2", ALPHA))),
        _step_row("step 2, M2", "003's best C", evaluate(p2, ALPHA * C_FINAL_003["M2"]), "not printed"),
    ]
    if not fast:
        rows.append(_step_row("step 2, M2", "±Δ search (003, 50 it.)", optimise_step(p2, "delta")))
    rows.append(_step_row("step 2, M2", "SLSQP, complex-step gradients", optimise_step(p2, "slsqp")))
    return tuple(rows)


def _study(robot, fast: bool) -> tuple[list[StudyRow], tuple[float, ...], tuple[float, ...],
                                       tuple[tuple[float, float], ...], float | None]:
    """The ch. 4 grid, the step-time sweep at α = 45° and the quartic fit of effort against link length."""
    angles = (15.0, 45.0) if fast else (15.0, 25.0, 30.0, 35.0, 45.0)
    times = (1.0,) if fast else (1.0, 0.1)
    args = ([robot.link_length], [robot.link_mass], robot.friction.mu_t, robot.joint_limit, robot.joint_effort_limit)
    rows, _ = run_study(robot, list(angles), list(times), *args, progress=False)
    if fast:
        return rows, angles, times, (), None
    sweep = [0.1, 0.2, 0.3, 0.5, 1.0]
    t_rows, _ = run_study(robot, [45.0], sweep, *args, progress=False)
    model = build_model(robot)
    free = ALPHA * C_FINAL_003["M1"]
    ls = np.linspace(0.5 * robot.link_length, 2.0 * robot.link_length, 8)
    js = [float(effort(evaluate(StepProblem(build_model(replace(robot, link_length=float(ln))), step_plan(6)[0],
                                            ALPHA), free).dynamics.tau, model.dt)) for ln in ls]
    fit = np.polyfit(ls, js, 4)
    residual = float(np.max(np.abs(np.polyval(fit, ls) - js)) / max(js))
    return rows, angles, times, tuple((t, r.cycle_effort) for t, r in zip(sweep, t_rows, strict=True)), residual


def _simulator(fast: bool) -> tuple[tuple[float, float, float], tuple[float, float], tuple[SimulatorRow, ...]]:
    """The rectilinear scenario as shipped, with more friction and with a stiffer SEA."""
    shipped = load_scenario(SIM_SCENARIO)
    robot = load_robot(shipped.robot_name)
    k = float(robot.sea.stiffness[0])
    mu = float(shipped.section("contact")["friction"])
    variants = ((f"scenario as shipped (μ_c = {mu:g}, K = {k:g} N·m/rad)", []),
                (f"μ_c = {SIM_FRICTION:g}", [f"contact.friction={SIM_FRICTION}"]),
                (f"SEA {SIM_STIFFER:g}× stiffer (K = {SIM_STIFFER * k:g} N·m/rad)",
                 [f"robot.sea_stiffness={SIM_STIFFER * k:g}"]))
    cycles = 1 if fast else 4
    rows = []
    for label, overrides in variants[:1] if fast else variants:
        sc = load_scenario(SIM_SCENARIO, [*overrides, f"sim.duration={5.0 * cycles}"])
        log = run_scenario(sc)
        period = 5.0 * float(sc.section("gait")["step_time"])
        x = log.com[:, 0]
        idx = [int(np.argmin(np.abs(log.t - c * period))) for c in range(cycles + 1)]
        per = np.diff(x[idx])
        use = per[1:] if len(per) > 1 else per  # the first cycle starts from the flat resting sag
        rows.append(SimulatorRow(label, log.status, cycles, float(np.mean(use)),
                                 advance_per_cycle(log.robot.link_length, float(sc.section("gait")["angle"])),
                                 float(np.degrees(np.nanmax(np.abs(log.alpha - log.alpha_ref))))))
    gait = shipped.section("gait")
    return ((robot.link_length, robot.link_mass, k), (float(gait["angle"]), float(gait["step_time"])), tuple(rows))


#: The parts of the section, each a Task of the plan.
PARTS = ("kinematics", "newton-euler", "steps", "cycle", "study", "simulator")


def plan(fast: bool = False) -> dict[str, Task]:
    """One Task per part (PARTS), each with ``fast``."""
    return {part: Task(part, (fast,)) for part in PARTS}


def measure(run: Task, client: Any = None) -> Any:
    """One part's numbers at 003's baseline robot (BASELINE_ROBOT)."""
    (fast,) = run.args
    robot = load_robot(BASELINE_ROBOT)
    model = build_model(robot)
    if run.name == "kinematics":
        return _kinematics(model)
    if run.name == "newton-euler":
        return _newton_euler()
    if run.name == "steps":
        return _steps(model, fast)
    if run.name == "cycle":
        cyc = optimise_cycle(model, 6, ALPHA)
        return (tuple(CycleStep(s.number, s.kind, s.reversed, float(r.effort), float(np.min(r.dynamics.normal_force)),
                                float(np.max(np.abs(r.dynamics.tau))))
                      for s, r in zip(cyc.steps, cyc.results, strict=True)),
                float(cyc.effort), float(cyc.min_normal_force), float(cyc.peak_torque))
    if run.name == "study":
        return _study(robot, fast)
    return _simulator(fast)


def assemble(fast: bool, plan: dict[str, Task], rows: dict[str, Any]) -> RectilinearResults:
    robot = load_robot(BASELINE_ROBOT)
    cycle, cycle_effort, cycle_min_normal_force, cycle_peak_torque = rows["cycle"]
    study, angles, times, sweep, residual = rows["study"]
    sim_robot, sim_gait, sim_rows = rows["simulator"]
    return RectilinearResults(
        fast=fast, link_length=robot.link_length, link_mass=robot.link_mass, mu=robot.friction.mu_t,
        torque_limit=robot.joint_effort_limit, kinematics=rows["kinematics"], newton_euler_error=rows["newton-euler"],
        steps=rows["steps"], cycle=cycle, cycle_effort=cycle_effort, cycle_min_normal_force=cycle_min_normal_force,
        cycle_peak_torque=cycle_peak_torque, study=tuple(study), study_angles=angles, study_times=times,
        time_sweep=sweep, quartic_residual=residual, sim_robot=sim_robot, sim_gait=sim_gait, simulator=sim_rows,
        settings=run_settings(fast))
