"""The report of section ``rectilinear``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.rectilinear` alone; nothing here runs a simulation.
"""

from __future__ import annotations

import math

import numpy as np

from snake_studies.rectilinear import markdown_table
from snake_studies.reproduction.experiments.rectilinear import (
    STEP1_EFFORT_003,
    RectilinearResults,
    _short_e,
)

# STEP1_EFFORT_003: 003's number; how the runs were made is results.settings.

TITLE = "003: vertical rectilinear gait, effort-optimal trajectories"
#: 003's predicted and measured advance per cycle [m] and speed [m/s] of the validation robot.
ADVANCE_003, ADVANCE_MEASURED_003 = 0.0414, 0.038
SPEED_003, SPEED_MEASURED_003 = 0.0138, 0.0127
#: The reference reading of 003 (its step-time study, a reconstruction with 003's fixed C for steps 1 and 2): the
#: effort has an interior minimum near T ≈ 0.3–0.5 s [s].
INTERIOR_MINIMUM_SEED003 = (0.3, 0.5)
#: HS-55 stall torque at 6 V [N·m] (the robot file has 4.8 V's).
STALL_6V = 0.127
#: Effort "the same order" as 003's (of magnitude) within this factor either way: 003 prints its effort only as "on
#: the order of" a number read from plots; the reference reading calls 1.98e-3 against it "the same order".
SAME_ORDER = 10.0


def _e(v: float) -> str:
    return "—" if not np.isfinite(v) else f"{v:.3e}"


def render(r: RectilinearResults) -> str:
    """The section's Markdown from the stored results alone."""
    parts = [f"## {TITLE}", "",
             "Source: 003 ch. 3–4 (its garbled equations reconstructed and checked for consistency).",
             ""]
    for block in (_kinematics_text(r), _newton_euler_text(r), _steps_text(r), _cycle_text(r), _study_text(r),
                  _simulator_text(r)):
        parts += [*block, ""]
    return "\n".join(parts)


def _signed(value: float) -> str:
    """A whole number with a typographic minus (−8), no sign when positive."""
    return f"{value:.0f}".replace("-", "−")


def _kinematics_text(r: RectilinearResults) -> list[str]:
    k = r.kinematics
    st = r.settings
    length, angle, step_time = st.validation
    below = 100 * (1 - ADVANCE_003 / k.validation_formula)
    return [
        "### Step length and speed (003 Eq. 4.1)",
        "",
        "Advance per cycle from the state machine's boundary shapes with each step's anchor link held in place:",
        "",
        "| setting | ours | 2l(1 − cos α) | 003 |",
        "|---|---|---|---|",
        f"| l = {100 * length:g} cm, α = {angle:g}° (validation robot) | {100 * k.validation:.3f} cm/cycle | "
        f"{100 * k.validation_formula:.3f} cm | {100 * ADVANCE_003:g} cm (measured {100 * ADVANCE_MEASURED_003:g} cm, "
        f"{_signed(100 * (ADVANCE_MEASURED_003 / ADVANCE_003 - 1))} %) |",
        f"| same, {5 * step_time:g} s cycle | {100 * k.validation / (5 * step_time):.3f} cm/s | "
        f"{100 * k.validation_speed_formula:.3f} cm/s | {100 * SPEED_003:g} cm/s (measured "
        f"{100 * SPEED_MEASURED_003:g} cm/s) |",
        f"| l = {r.link_length:g} m, α = {math.degrees(st.alpha):g}°, T = {st.step_time:g} s | "
        f"{100 * k.baseline:.3f} cm/cycle, "
        f"{100 * k.baseline / 5:.3f} cm/s | {100 * k.baseline_formula:.3f} cm | — |",
        "",
        f"003's {100 * ADVANCE_003:g} cm is {abs(below):.1f} % {'below' if below > 0 else 'above'} the formula's "
        f"{100 * k.validation_formula:.2f} cm (rounding in the thesis).",
    ]


def _newton_euler_text(r: RectilinearResults) -> list[str]:
    return ["### Newton–Euler (003 (3.10)–(3.18))", "",
            "Craig's planar 2-link arm (003 (4.2), (4.3)), 200 random states: largest difference "
            f"{r.newton_euler_error:.1e} N·m. The tests also compare the recursion with Pinocchio's RNEA (4 thin "
            "rods) and check every closed-chain system (3.48) against the recursion loaded with the solved ground "
            "force (passive joint torque 0)."]


def _steps_text(r: RectilinearResults) -> list[str]:
    st = r.settings
    out = ["### Steps 1 and 2 at 003's baseline", "",
           f"l = {r.link_length:g} m, m = {r.link_mass:g} kg, thin rods (I = m l²/12), μ = {r.mu:g}, "
           f"α = {math.degrees(st.alpha):g}°, T = {st.step_time:g} s, {st.samples} samples per step "
           f"(Δt = T/{st.samples - 1}), g = {st.gravity:g} m/s².", "",
           "| problem | C | effort J [N²m²s] | evaluations | peak τ [N·m] | min F_R [N] | 003 |",
           "|---|---|---|---|---|---|---|"]
    for s in r.steps:
        f_r = "— (no contact)" if s.min_normal_force is None else f"{s.min_normal_force:.3f}"
        out.append(f"| {s.problem} | {s.how} | {_e(s.effort)} | {s.evaluations or '—'} | {s.peak_torque:.3f} | "
                   f"{f_r} | {s.reference} |")
    row = {(s.problem, s.how): s.effort for s in r.steps}
    final = row[("step 1, closed M1", "003's final C")]
    slsqp = row[("step 1, closed M1", "SLSQP, complex-step gradients")]
    delta = row[("step 1, closed M1", "±Δ search (003, 50 it.)")]
    open_loop = row[("step 1, open M1", "SLSQP")]
    off = 100 * (final / STEP1_EFFORT_003 - 1)
    same = 1 / SAME_ORDER < final / STEP1_EFFORT_003 < SAME_ORDER
    lower = slsqp < final and slsqp < delta
    times = open_loop / slsqp
    out += ["",
            f"003's final C gives {_short_e(final, 2)} with our reconstruction of its equations (003 prints \"on the "
            f"order of {_short_e(STEP1_EFFORT_003)}\", from plots): {abs(off):.0f} % "
            f"{'above' if off > 0 else 'below'}, "
            + ("the same order. " if same else "not the same order. ")
            + ("The SLSQP optimum is lower than 003's and than our ±Δ search (a different local optimum: the C of "
               "003's search stays near the straight-line start). " if lower else
               "The SLSQP optimum is not lower than both 003's and our ±Δ search. ")
            + "003's open-loop trajectory is not printed; ours, optimised, "
            + (f"still costs more than twice the closed loop ({times:.1f}×), as 003 found (\"the joints do not have "
               "to support all of the weight\"). " if times > 2 else
               f"costs {times:.1f}× the closed loop, less than 003's \"more than twice\". ")
            + "Effort of a fixed trajectory scales with k² when every mass scales by k (tested to 1e-12)."]
    return out


def _cycle_text(r: RectilinearResults) -> list[str]:
    lines = ["### Whole cycle at the baseline (steps 4–5 mirrored and run backwards)", "",
             "| step | mechanism | effort J | min F_R [N] | peak τ [N·m] |", "|---|---|---|---|---|"]
    for s in r.cycle:
        lines.append(f"| {s.number} | {s.kind}{' reversed' if s.reversed else ''} | {_e(s.effort)} | "
                     f"{s.min_normal_force:.3f} | {s.peak_torque:.3f} |")
    positive = r.cycle_min_normal_force > 0
    above = r.cycle_peak_torque >= r.torque_limit
    lines += ["", f"Cycle effort {_e(r.cycle_effort)} N²m²s; "
              + ("F_R > 0 throughout" if positive else "F_R reaches 0 (the anchor lifts)")
              + f" (min {r.cycle_min_normal_force:.3f} N). The peak torque, {r.cycle_peak_torque:.3f} N·m, is "
              + (f"at or above the HS-55's {r.torque_limit:g}–{STALL_6V:g} N·m stall torque, consistent with 003's "
                 "\"underpowered servos\"." if above else
                 f"below the HS-55's {r.torque_limit:g}–{STALL_6V:g} N·m stall torque.")
              + " 003 does not print steps 3–5; friction makes the reversed steps differ from the time-reversed "
              "forward ones (with μ = 0 they coincide, tested)."]
    return lines


def _study_text(r: RectilinearResults) -> list[str]:
    e = {(s.angle_deg, s.step_time): s.cycle_effort for s in r.study}
    angles = r.study_angles
    lines = ["### Parametric study (003 ch. 4)", "",
             f"Every setting optimised step by step (SLSQP); robot {r.settings.baseline_robot} (joint range "
             f"±{math.degrees(r.settings.joint_limit):g}°). "
             "`snake-sim rectilinear study` writes the same table with the figures.", "",
             markdown_table(list(r.study)), ""]
    for t in r.study_times:
        seq = [e[(a, t)] for a in angles]
        trend = "falls" if seq[-1] < seq[0] else "rises"
        ref = {1.0: "003 Fig. 4.8: falls, static gravity torque dominates",
               0.1: "003 Figs. 4.10–4.11: rises, dynamic torque dominates"}.get(t, "not in 003")
        lines.append(f"- T = {t:g} s: effort {trend} from {_e(seq[0])} at {angles[0]:g}° to {_e(seq[-1])} at "
                     f"{angles[-1]:g}° ({ref}).")
    if r.time_sweep:
        ts, js = zip(*r.time_sweep, strict=True)
        i_min = int(np.nanargmin(js))
        interior = 0 < i_min < len(ts) - 1
        lines.append("- Step time at α = 45°: " + ", ".join(f"T = {t:g} s: {_e(j)}" for t, j in r.time_sweep)
                     + f". The optimised effort is lowest near T = {ts[i_min]:g} s"
                     + (": with the torque ∝ 1/T² the dynamic part of J grows as 1/T³ for short steps, the static "
                        "(gravity) part as T for long ones. 003 reports an inverse effort–step-time relation "
                        "(Fig. 4.6), which we find only below the minimum" if interior else
                        ", at the end of the sweep, so the effort falls with the step time over it as 003 reports "
                        "(Fig. 4.6)")
                     + "; an independent reading of 003 finds an interior minimum near "
                     f"{INTERIOR_MINIMUM_SEED003[0]:g}–{INTERIOR_MINIMUM_SEED003[1]:g} s with 003's fixed C.")
    if r.quartic_residual is not None:
        lines.append(f"- Effort vs link length with fixed trajectories (step 1): a quartic fits to "
                     f"{r.quartic_residual:.1e} relative (003 Fig. 4.12: \"a quartic polynomial\"; τ has m l² and "
                     "m g l terms, so J is a quartic in l).")
    return lines


def _simulator_text(r: RectilinearResults) -> list[str]:
    length, mass, k = r.sim_robot
    angle, step_time = r.sim_gait
    lines = ["### Cross-check in the vertical-plane simulator of 002's model", "",
             f"`config/scenarios/{r.settings.sim_scenario}.yaml`: koopaee6 (002: 6 links of 2l = {1e3 * length:g} mm, "
             f"{mass:g} kg, SEA joints K = {k:g} N·m/rad, position mode through the motor PD (4.39)) on flat ground "
             f"driven by the gait (α = {math.degrees(angle):g}°, T = {step_time:g} s, 003's C scaled to α). Advance "
             "of the centre of mass per cycle against 003's no-slip prediction 2l(1 − cos α):", "",
             "| run | cycles | advance per cycle [cm] | 003 no-slip [cm] | ratio | joint tracking error max [°] |",
             "|---|---|---|---|---|---|"]
    ratios = [s.advance / s.predicted for s in r.simulator]
    for s, ratio in zip(r.simulator, ratios, strict=True):
        lines.append(f"| {s.label} ({s.status}) | {s.cycles} | {100 * s.advance:.2f} | {100 * s.predicted:.2f} | "
                     f"{ratio:.2f} | {s.tracking_error_deg:.1f} |")
    short = 100 * (1 - ADVANCE_MEASURED_003 / ADVANCE_003)
    lines += ["", f"The simulated snake advances {100 * ratios[0]:.0f} % of 003's no-slip step "
              f"({100 * (1 - ratios[0]):.0f} % {'lost' if ratios[0] < 1 else 'gained'}). 003's model holds every "
              "anchor link still and the joints exactly on their references; here the anchor links rest on compliant "
              "Kelvin–Voigt contacts with regularised Coulomb friction and the SEA joints lag and sag under the lifted "
              f"hump (the tracking error column). 003's own validation robot came out {short:.0f} % short "
              f"({100 * ADVANCE_MEASURED_003:g} vs {100 * ADVANCE_003:g} cm)."]
    if len(ratios) == 3:
        st = r.settings
        lines.append(f"Separating the causes: μ_c = {st.sim_friction:g} gives {ratios[1]:.2f} of the prediction "
                     f"and a {st.sim_stiffer:g}× stiffer SEA {ratios[2]:.2f}, against {ratios[0]:.2f} as shipped.")
    return lines
