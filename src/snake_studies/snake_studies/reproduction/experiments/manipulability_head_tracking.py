"""docs/reproduction.md section: 004 (Ariizumi & Tanaka) — dynamic manipulability D/R and head tracking.

Figs. 2–9 on grids (serpenoid shapes at a stated wave phase, and the minimum over phases), the
§6.1.3 partial-feedback-linearisation run under isotropic friction (blow-up, R minimum, g), and
the §6.2 Lyapunov-like runs with and without joint 5 free at 0.05 and 0.1 m/s. The plan: the grids and the
§6.1.3 run are Tasks computed here, the §6.2 runs and the wheeled variant tasks of the sweep engine (summary.json).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from distributed import Client

from snake_core.gaits.serpenoid import Serpenoid
from snake_core.planar.manipulability import manipulability
from snake_core.planar.model import COULOMB_REGULARISATION, build_model
from snake_core.robot import load_robot
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.planar.report import head_errors
from snake_sim.engines.planar.runtime import RTOL, run_scenario
from snake_studies.grid import fields, require
from snake_studies.reproduction.experiment import Task
from snake_studies.sweep import Cell
from snake_studies.sweep.engine import measure_summary

#: Wave phase v t of the serpenoid shapes of Figs. 4–5, 8–9 (not given in 004; docs/readings.md).
PHASE = 0.3
#: Joint angles φ° of Figs. 2–3 [deg].
ARC_ANGLES = (-36, -27, -18, -9, -3.6, -1.8, 0, 1.8, 3.6, 9, 18, 27, 36)
#: The PFL run's head error is taken up to this long before its blow-up [s] (the blow-up's last instants excluded).
BEFORE_BLOWUP = 0.5
#: Wheeled links (cf. 004 §6.3): Coulomb coefficients along and across the links.
WHEELED = (0.05, 0.5)


@dataclass(frozen=True)
class ArcRow:
    """Figs. 2–3: every joint at φ°; D, R with all joints actuated and with joint 5 free."""

    angle_deg: float
    D: float
    R: float
    D_free: float
    R_free: float


@dataclass(frozen=True)
class ShapeRow:
    """Figs. 4–5, 8–9: R at the stated phase and its minimum over phases, without and with joint 5 free."""

    label: str
    alpha: float  # serpenoid amplitude [rad]
    periods: float  # T_s
    R: float
    R_min: float
    R_free: float
    R_free_min: float


@dataclass(frozen=True)
class PFLResults:
    """§6.1.3: the partial-feedback-linearisation run to its blow-up."""

    status: str
    rtol: float
    blowup_torque: float  # [N·m]
    friction: float  # c_x = c_y [N·s/m]
    end_time: float  # [s]
    min_R_time: float  # [s]
    min_R: float
    max_R: float
    D_at_min_R: float
    max_D: float
    head_error_max: float  # until 0.5 s before the end [m]
    g_drift: float  # relative
    com_displacement: float  # [m]
    head_reach: float  # [m]


@dataclass(frozen=True)
class LyapunovRow:
    """One §6.2 run: joint 5 free or not, the reference speed [m/s], errors [m], min R, peak ‖τ‖ [N·m]."""

    free: bool
    speed: float
    path_distance_max: float
    error_rms: float
    error_max: float
    min_R: float
    torque_max: float


@dataclass(frozen=True)
class WheeledResults:
    """The §6.2 controller on wheeled links: duration [s], reference speed [m/s], errors and CoM advance [m]."""

    duration: float
    speed: float
    path_distance_max: float
    error_rms: float
    com_advance: float
    min_R: float
    status: str


@dataclass(frozen=True)
class LyapunovSetting:
    """§6.2's scenario as shipped: controller, gait and friction, and the robot's body length."""

    decay: float  # c [1/s]
    torque_limit: float  # [N·m]
    amplitude: float  # serpenoid α [rad]
    frequency: float  # v
    periods: float  # T_s
    c_t: float  # [N·s/m]
    c_n: float  # [N·s/m]
    window_start: float  # [s]
    body_length: float  # [m]


@dataclass(frozen=True)
class RunSettings:
    """How the runs were made, as the text states it: the shapes' wave phase, the wheeled links' friction and the
    PFL run's error window."""

    phase: float  # wave phase v t of the serpenoid shapes [rad]
    before_blowup_s: float  # the PFL run's head error is taken up to this long before its blow-up [s]
    wheeled: tuple[float, float]  # Coulomb μ_t, μ_n of the wheeled links
    coulomb_regularisation: float  # ε of the regularised Coulomb friction [m/s]


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    return RunSettings(PHASE, BEFORE_BLOWUP, WHEELED, COULOMB_REGULARISATION)


@dataclass(frozen=True)
class ManipulabilityResults:
    fast: bool
    arcs: tuple[ArcRow, ...]
    phases: int
    shapes: tuple[ShapeRow, ...]
    pfl: PFLResults
    duration: float  # of the §6.2 runs [s]
    setting: LyapunovSetting
    lyapunov: tuple[LyapunovRow, ...]
    wheeled: WheeledResults
    settings: RunSettings


#: The section's results type (reproduction.document loads stored results as it).
Results = ManipulabilityResults


def _q(phi: np.ndarray) -> np.ndarray:
    return np.concatenate(([0.0, 0.0, 0.0], phi))


def _arcs(model) -> tuple[ArcRow, ...]:
    rows = []
    for deg in ARC_ANGLES:
        q = _q(np.full(9, np.radians(deg)))
        a, b = manipulability(model, q), manipulability(model, q, (5,))
        rows.append(ArcRow(float(deg), float(a.D), float(a.R), float(b.D), float(b.R)))
    return tuple(rows)


def _shapes(model, phases: np.ndarray) -> tuple[ShapeRow, ...]:
    cases = [(f"T_s = 1.5, α = {name}", a, 1.5) for name, a in
             (("0", 0.0), ("π/16", np.pi / 16), ("π/8", np.pi / 8), ("π/4", np.pi / 4), ("π/2", np.pi / 2))]
    cases += [(f"α = π/4, T_s = {T:g}", np.pi / 4, T) for T in (0.0, 0.5, 1.0, 1.5, 2.0)]
    rows = []
    for label, alpha, periods in cases:
        gait = Serpenoid(9, alpha, 1.0, periods)
        vals = []
        for free in ((), (5,)):
            vals.append(float(manipulability(model, _q(gait.phi(PHASE)[0]), free).R))
            vals.append(float(min(manipulability(model, _q(gait.phi(p)[0]), free).R for p in phases)))
        rows.append(ShapeRow(label, float(alpha), float(periods), *vals))
    return tuple(rows)


def _pfl() -> PFLResults:
    scenario = load_scenario("head-tracking-pfl")
    log = run_scenario(scenario)
    R, D = log.manipulability[:, 1], log.manipulability[:, 0]
    k = int(np.argmin(R))
    g = log.series["g"]
    full, _ = head_errors(log)
    early = log.t <= log.t[-1] - BEFORE_BLOWUP
    return PFLResults(
        status=log.status, rtol=RTOL, blowup_torque=float(scenario.section("controller").get("blowup_torque", 10.0)),
        friction=float(scenario.section("contact")["c_t"]), end_time=float(log.t[-1]), min_R_time=float(log.t[k]),
        min_R=float(R[k]), max_R=float(R.max()), D_at_min_R=float(D[k]), max_D=float(D.max()),
        head_error_max=float(np.max(full[early])),
        g_drift=float(np.max(np.abs(g - g[0])) / np.max(np.abs(g[0]))),
        com_displacement=float(np.max(np.linalg.norm(log.com[:, :2] - log.com[0, :2], axis=1))),
        head_reach=float(np.max(np.abs(log.head_position[:, 0]))))


def _lyapunov_setting() -> LyapunovSetting:
    scenario = load_scenario("head-tracking-lyapunov")
    ctrl, gait, contact = scenario.section("controller"), scenario.section("gait"), scenario.section("contact")
    return LyapunovSetting(float(ctrl["decay"]), float(ctrl["torque_limit"]), float(gait["amplitude"]),
                           float(gait["frequency"]), float(gait["periods"]), float(contact["c_t"]),
                           float(contact["c_n"]), float(ctrl["evaluation_window"][0]),
                           load_robot(scenario.robot_name).total_length)


def _lyapunov_cells(duration: float, window_start: float) -> list[tuple[bool, float, Cell]]:
    """(free joint?, reference speed, run) of the §6.2 runs."""
    return [(bool(free), speed, Cell("head-tracking-lyapunov", (
        f"robot.free_joints={free}", f"controller.reference.speed={speed}", f"sim.duration={duration}",
        f"controller.evaluation_window=[{window_start}, {duration}]")))
        for speed in (0.05, 0.1) for free in ([], [5])]


def _wheeled_cell(duration: float) -> Cell:
    """The same controller on wheeled links (regularised anisotropic Coulomb friction, cf. 004 §6.3)."""
    return Cell("head-tracking-lyapunov", (
        "contact.c_t=0.0", "contact.c_n=0.0", f"contact.mu_t={WHEELED[0]}", f"contact.mu_n={WHEELED[1]}",
        f"sim.duration={duration}", f"controller.evaluation_window=[0.0, {duration}]"))


def _durations(fast: bool) -> tuple[float, float]:
    """[s] of the §6.2 runs and of the wheeled run."""
    return (15.0, 5.0) if fast else (60.0, 20.0)


def plan(fast: bool = False) -> dict[str, Cell | Task]:
    """D and R on arcs and serpenoid shapes (over ``phases`` wave phases and PHASE) and the §6.1.3 PFL run, computed
    here; the §6.2 runs (``lyapunov i``) and the wheeled variant on the sweep engine."""
    duration, wheeled = _durations(fast)
    runs: dict[str, Cell | Task] = {"arcs": Task("arcs"), "shapes": Task("shapes", (12 if fast else 48,)),
                                    "pfl": Task("pfl")}
    runs.update({f"lyapunov {i}": cell for i, (_, _, cell) in enumerate(
        _lyapunov_cells(duration, _lyapunov_setting().window_start))})
    runs["wheeled"] = _wheeled_cell(wheeled)
    return runs


def measure(run: Cell | Task, context: Path | Client | None = None) -> Any:
    """A Task's rows (arcs, shapes, the PFL run), or a Cell's summary.json mapping (on a worker)."""
    if isinstance(run, Cell):
        return measure_summary(run, context)
    model = build_model(load_robot("ariizumi10"))
    if run.name == "arcs":
        return _arcs(model)
    if run.name == "shapes":
        (n,) = run.args
        return _shapes(model, np.append(np.linspace(0.0, 2 * np.pi, n, endpoint=False), PHASE))
    return _pfl()


def assemble(fast: bool, plan: dict[str, Cell | Task], rows: dict[str, Any]) -> ManipulabilityResults:
    """The grids, the PFL run and the rows of the sweep engine's runs (RunsFailed if one raised or lost its
    worker)."""
    cells = {key: run for key, run in plan.items() if isinstance(run, Cell)}
    require(cells.values(), {c.id: rows[key] for key, c in cells.items()})
    duration, wheeled_duration = _durations(fast)
    setting = _lyapunov_setting()
    lyapunov_rows = []
    for i, (free, speed, _) in enumerate(_lyapunov_cells(duration, setting.window_start)):
        s = fields(rows[f"lyapunov {i}"])
        lyapunov_rows.append(LyapunovRow(free, speed, float(s["head_path_distance_max_m"]),
                                         float(s["head_error_rms_m"]), float(s["head_error_max_m"]),
                                         float(s["manipulability_min_R"]), float(s["torque_norm_max_Nm"])))
    w, wheeled = fields(rows["wheeled"]), plan["wheeled"]
    reference = load_scenario(wheeled.scenario, wheeled.overrides).section("controller")["reference"]
    return ManipulabilityResults(
        fast, rows["arcs"], plan["shapes"].args[0] + 1, rows["shapes"], rows["pfl"], duration, setting,
        tuple(lyapunov_rows),
        WheeledResults(wheeled_duration, float(reference["speed"]), float(w["head_path_distance_max_m"]),
                       float(w["head_error_rms_m"]), float(w["distance_m"]), float(w["manipulability_min_R"]),
                       w["status"]), run_settings(fast))
