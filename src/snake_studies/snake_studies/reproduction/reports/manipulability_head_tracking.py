"""The report of section ``manipulability_head_tracking``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.manipulability_head_tracking` alone; nothing here runs a simulation.
"""

from __future__ import annotations

import numpy as np

from snake_studies.reproduction.experiments.manipulability_head_tracking import (
    ArcRow,
    LyapunovRow,
    ManipulabilityResults,
    PFLResults,
    RunSettings,
    WheeledResults,
)

TITLE = "004 — dynamic manipulability D/R and head-trajectory tracking"
#: 004 §6.1.3, Fig. 12: ‖τ‖ grows large after this time [s].
PFL_BLOWUP_004 = 3.44
#: §6.2's criterion: the head within this fraction of the body length of the path.
PATH_FRACTION = 0.1
#: R "falls sharply towards zero" below this fraction of its maximum; D "stays large" above this fraction of its own.
R_SHARP, D_LARGE = 0.25, 0.5
#: g "stays constant to integration accuracy" below this relative drift; the centre of mass is "pinned" below
#: this displacement [m].
G_CONSTANT, PINNED = 1e-6, 1e-6


def render(r: ManipulabilityResults) -> str:
    """The section's Markdown from the stored results alone."""
    return "\n".join([f"## {TITLE}", "", *_arcs_text(r.arcs), *_shapes_text(r), *_pfl_text(r.pfl, r.settings),
                      *_lyapunov_text(r), *_wheeled_text(r.wheeled, r.settings)])


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
    out = [f"### Figs. 4–5 and 8–9: serpenoid shapes (43), wave phase v t = {r.settings.phase} rad", "",
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


def _pfl_text(p: PFLResults, st: RunSettings) -> list[str]:
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
        f"| max head error until {st.before_blowup_s:g} s before blow-up | {p.head_error_max * 1000:.2f} mm | follows "
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


def _wheeled_text(w: WheeledResults, st: RunSettings) -> list[str]:
    return [f"Wheeled links (004 §6.3 uses passive wheels and Coulomb friction in a physics engine): the same "
            f"controller, which assumes nothing about friction, with only Coulomb friction μ_t = {st.wheeled[0]:g}, "
            f"μ_n = {st.wheeled[1]:g} (regularised, ε = {1e3 * st.coulomb_regularisation:g} mm/s), {w.speed:g} m/s, "
            f"{w.duration:g} s: path distance max "
            f"{w.path_distance_max:.3f} m, full error rms {w.error_rms:.3f} m, centre of mass advanced "
            f"{w.com_advance:.2f} m, min R {w.min_R:.3g} (status: {w.status}). Not tuned; the viscous case above is "
            "the acceptance run.", ""]
