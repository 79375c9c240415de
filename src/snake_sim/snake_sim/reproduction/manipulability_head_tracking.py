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
from snake_sim.reproduction.experiment import Task
from snake_sim.studies.grid import fields, require
from snake_sim.studies.sweep import Cell
from snake_sim.studies.sweep.engine import measure_summary

TITLE = "004 — dynamic manipulability D/R and head-trajectory tracking"

#: Wave phase v t of the serpenoid shapes of Figs. 4–5, 8–9 (not given in 004; docs/readings.md).
PHASE = 0.3
#: Joint angles φ° of Figs. 2–3 [deg].
ARC_ANGLES = (-36, -27, -18, -9, -3.6, -1.8, 0, 1.8, 3.6, 9, 18, 27, 36)
#: 004 §6.1.3, Fig. 12: ‖τ‖ grows large after this time [s].
PFL_BLOWUP_004 = 3.44
#: The PFL run's head error is taken up to this long before its blow-up [s] (the blow-up's last instants excluded).
BEFORE_BLOWUP = 0.5
#: §6.2's criterion: the head within this fraction of the body length of the path.
PATH_FRACTION = 0.1
#: Wheeled links (cf. 004 §6.3): Coulomb coefficients along and across the links.
WHEELED = (0.05, 0.5)
#: R "falls sharply towards zero" below this fraction of its maximum; D "stays large" above this fraction of its own.
R_SHARP, D_LARGE = 0.25, 0.5
#: g "stays constant to integration accuracy" below this relative drift; the centre of mass is "pinned" below
#: this displacement [m].
G_CONSTANT, PINNED = 1e-6, 1e-6


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
                       w["status"]))


def render(r: ManipulabilityResults) -> str:
    """The section's Markdown from the stored results alone."""
    return "\n".join([f"## {TITLE}", "", *_arcs_text(r.arcs), *_shapes_text(r), *_pfl_text(r.pfl),
                      *_lyapunov_text(r), *_wheeled_text(r.wheeled)])


def _arcs_text(arcs: tuple[ArcRow, ...]) -> list[str]:
    out = ["### Figs. 2–3: all joints equal to φ° (ariizumi10, 004 Table 1)", "",
           "| φ° [deg] | D | R | D̃ (joint 5 free) | R̃ (joint 5 free) |", "|---|---|---|---|---|"]
    out += [f"| {a.angle_deg:g} | {a.D:.4g} | {a.R:.4g} | {a.D_free:.4g} | {a.R_free:.4g} |" for a in arcs]
    zero_only_straight = all((a.R == 0.0) == (a.angle_deg == 0) for a in arcs)
    widest = max(arcs, key=lambda a: abs(a.angle_deg))
    smaller = all(a.R_free <= a.R for a in arcs)
    out += ["", ("As 004 states: D and R vanish only for the straight body (φ° = 0, where the first row of H12 is "
                 "zero), the arc is not a singular posture" if zero_only_straight else
                 "Unlike 004: D and R vanish away from the straight body")
            + (f", and with joint 5 free R̃ is much smaller (up to {widest.R / widest.R_free:.0f}× at "
               f"±{abs(widest.angle_deg):g}°; near φ° = 0 both vanish quadratically)." if smaller else
               ", and with joint 5 free R̃ is not smaller everywhere.")
            + f" |φ°| = {abs(widest.angle_deg):g}° closes the body into a decagon.", ""]
    return out


def _shapes_text(r: ManipulabilityResults) -> list[str]:
    out = [f"### Figs. 4–5 and 8–9: serpenoid shapes (43), wave phase v t = {PHASE} rad", "",
           "R (R̃ with joint 5 free) at the stated phase and the minimum over "
           f"{r.phases} phases in [0, 2π) (the stated one included). D and R do not depend on v (H has no "
           "velocity terms).", "",
           "| shape | R | min over phases | R̃ | min over phases |", "|---|---|---|---|---|"]
    out += [f"| {s.label} | " + " | ".join(f"{v:.3g}" for v in (s.R, s.R_min, s.R_free, s.R_free_min)) + " |"
            for s in r.shapes]
    flat = [s for s in r.shapes if s.alpha == 0.0 or s.periods == 0.0]
    bent = [s for s in r.shapes if s not in flat]
    zero_only_flat = (all(s.R == s.R_free == 0.0 for s in flat)
                      and all(s.R_min > 0.0 and s.R_free_min > 0.0 for s in bent))
    dip = min(s.R_free_min for s in bent)
    floor = min(s.R_min for s in bent if s.alpha >= np.pi / 8)
    out += ["", ("Zero only at α = 0 or T_s = 0, with and without the free joint, as in 004 §4.3. " if zero_only_flat
                 else "Not zero only at α = 0 or T_s = 0, unlike 004 §4.3. ")
            + f"Over phases, R̃ dips to ~{_order(dip)} kg·m for some shapes (the free joint can momentarily align "
            f"with the body axis); R stays ≥ ~{_order(floor)} kg·m for α ≥ π/8.", ""]
    return out


def _order(value: float) -> str:
    """``value`` to one significant digit as 2e-3."""
    exponent = int(np.floor(np.log10(value)))
    digit = round(value / 10.0**exponent)
    if digit == 10:
        digit, exponent = 1, exponent + 1
    return f"{digit}e{exponent}"


def _pfl_text(p: PFLResults) -> list[str]:
    sharp = p.min_R < R_SHARP * p.max_R and p.D_at_min_R > D_LARGE * p.max_D
    constant = p.g_drift < G_CONSTANT
    pinned = p.com_displacement < PINNED
    return [
        "### §6.1.3: partial feedback linearisation (70) under isotropic friction", "",
        f"Scenario `head-tracking-pfl`: gains (79), serpenoid (81), start (82), reference (80), c_x = c_y = "
        f"{p.friction:g} N·s/m; DOP853 with rtol = {p.rtol:g}; (70) with the sign of the H22 H12⁺ 𝓗 a term flipped "
        "(as printed it yields ẅ = −a: a sign misprint). Stop when ‖τ‖ > "
        f"{p.blowup_torque:g} N·m.", "",
        "| quantity | ours | 004 |", "|---|---|---|",
        f"| status | {p.status} | — |",
        f"| blow-up time (‖τ‖ > limit) | {p.end_time:.2f} s | ‖τ‖ large after {PFL_BLOWUP_004:g} s |",
        f"| time of min R | {p.min_R_time:.2f} s (R = {p.min_R:.3g}, max {p.max_R:.3g}) | {PFL_BLOWUP_004:g} s |",
        f"| D at min R / max D | {p.D_at_min_R:.3g} / {p.max_D:.3g} | D not small there |",
        f"| max head error until {BEFORE_BLOWUP:g} s before blow-up | {p.head_error_max * 1000:.2f} mm | follows "
        f"until ≈ {PFL_BLOWUP_004:.1f} s |",
        f"| g (67) relative drift up to the blow-up | {p.g_drift:.1e} | constant, then falls after "
        f"{PFL_BLOWUP_004:g} s |",
        f"| centre-of-mass displacement | {p.com_displacement:.1e} m | — |",
        f"| head reach along the reference | {p.head_reach:.3f} m | — |", "",
        (f"R falls sharply towards zero while D stays large (min R under {100 * R_SHARP:g} % of its maximum, D there "
         f"over {100 * D_LARGE:g} % of its own), so R is the indicator of the singular posture, as 004 concludes. "
         if sharp else
         "R does not fall sharply towards zero while D stays large, so this run does not single R out as the "
         "indicator of the singular posture. ")
        + (f"Unlike 004's Fig. 12, g stays constant to integration accuracy (relative drift under {G_CONSTANT:g}) "
           "right up to the blow-up" if constant else f"g drifts by {p.g_drift:.1e} up to the blow-up")
        + (": with isotropic friction and zero initial velocity g = m n ṗ_CM + c n p_CM pins the centre of mass (it "
           f"moves under {PINNED:g} m), so "
           f"a head {p.head_reach:.2f} m ahead of it is a hard reach limit and every controller must fail near "
           f"{p.end_time:.1f} s. " if pinned else
           f"; the centre of mass moves by {p.com_displacement:.2g} m, so the head's reach is not a hard limit. ")
        + (f"004's earlier failure ({PFL_BLOWUP_004:g} s) and its decaying g point to integration error in its run "
           "(an ambiguity of 004 §6.1.3)." if p.end_time > PFL_BLOWUP_004 and constant else
           f"004 failed at {PFL_BLOWUP_004:g} s, this run at {p.end_time:.2f} s."), ""]


def _label(row: LyapunovRow) -> str:
    return f"{'joint 5 free' if row.free else 'all joints actuated'} at {row.speed:g} m/s"


def _lyapunov_text(r: ManipulabilityResults) -> list[str]:
    st = r.setting
    limit = PATH_FRACTION * st.body_length
    gait = f"v = {st.frequency:g}, α = π/{np.pi / st.amplitude:.0f}"
    rows = ["### §6.2: Lyapunov-like head tracking, straight head-first reference", "",
            f"Scenario `head-tracking-lyapunov`: our law for V of (83) (least squares of V̇ = −cV, c = {st.decay:g} "
            f"1/s, |τ| ≤ {st.torque_limit:g} N·m; see `snake_core.planar.head_tracking`), gains (84), serpenoid "
            f"α = π/{np.pi / st.amplitude:.0f}, v = {st.frequency:g}, T_s = {st.periods:g}, circle start (82). 004 "
            f"gives no friction for this run: c_t = {st.c_t:g}, c_n = {st.c_n:.1f} N·s/m (lateral "
            f"{st.c_n / st.c_t:.0f}× longitudinal). Reference straight ahead (head first) along +x, since the "
            "serpenoid with v > 0 moves the robot head first (an ambiguity of 004 §6.2). Errors over "
            f"t ∈ [{st.window_start:g}, {r.duration:g}] s; body length {st.body_length:g} m, {PATH_FRACTION:g} body "
            f"length = {limit:g} m.", "",
            "| joint 5 | speed [m/s] | path distance max [m] | full error rms / max [m] | min R | ‖τ‖ max [N·m] |",
            "|---|---|---|---|---|---|"]
    rows += [f"| {'free' if w.free else 'actuated'} | {w.speed:g} | {w.path_distance_max:.3f} | "
             f"{w.error_rms:.3f} / {w.error_max:.3f} | {w.min_R:.3g} | {w.torque_max:.2f} |" for w in r.lyapunov]
    ok = [_label(w) for w in r.lyapunov if w.path_distance_max < limit]
    bad = [_label(w) for w in r.lyapunov if w.path_distance_max >= limit]
    fastest = max(w.speed for w in r.lyapunov)
    at_fastest = {w.free: w for w in r.lyapunov if w.speed == fastest}
    behind = all(w.error_rms > limit for w in at_fastest.values())
    worst_free = len(at_fastest) == 2 and at_fastest[True].error_rms > at_fastest[False].error_rms
    away = all(w.min_R > 0 for w in r.lyapunov)
    rows += ["", f"Within {PATH_FRACTION:g} body length of the path: " + (", ".join(ok) or "none") + "; beyond: "
             + (", ".join(bad) or "none") + f". 004 reports small errors for its controller [27] at {fastest:g} m/s "
             "with and without the passive joint (Figs. 13, 16; its friction is not given) and R away from zero "
             f"(Figs. 14, 17){', as here' if away else ''}. "
             + ((f"At {fastest:g} m/s this serpenoid ({gait}) does not propel our robot as fast as the reference: "
                 "the head falls behind it (large full error)" + (", most with the free joint." if worst_free else "."))
                if behind else f"At {fastest:g} m/s the head keeps up with the reference."), ""]
    return rows


def _wheeled_text(w: WheeledResults) -> list[str]:
    return [f"Wheeled links (004 §6.3 uses passive wheels and Coulomb friction in a physics engine): the same "
            f"controller, which assumes nothing about friction, with only Coulomb friction μ_t = {WHEELED[0]:g}, "
            f"μ_n = {WHEELED[1]:g} (regularised, ε = {1e3 * COULOMB_REGULARISATION:g} mm/s), {w.speed:g} m/s, "
            f"{w.duration:g} s: path distance max "
            f"{w.path_distance_max:.3f} m, full error rms {w.error_rms:.3f} m, centre of mass advanced "
            f"{w.com_advance:.2f} m, min R {w.min_R:.3g} (status: {w.status}). Not tuned; the viscous case above is "
            "the acceptance run.", ""]
