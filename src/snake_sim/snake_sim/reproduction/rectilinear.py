"""003 (vertical rectilinear gait): kinematics, Newton–Euler, optimised steps, ch. 4 study, simulator cross-check."""

from __future__ import annotations

import math

import numpy as np

from snake_core.rectilinear.cycle import advance_per_cycle, average_speed, kinematic_advance, plan
from snake_core.rectilinear.mechanism import build_model, effort
from snake_core.rectilinear.newton_euler import PlanarChain, inverse_dynamics
from snake_core.rectilinear.optimise import (
    C_FINAL_003,
    StepProblem,
    evaluate,
    initial_points,
    optimise_cycle,
    optimise_step,
)
from snake_sim.studies.rectilinear import markdown_table, run_study

TITLE = "003: vertical rectilinear gait, effort-optimal trajectories"

ALPHA = math.pi / 4
#: Simulator cross-check settings (config/scenarios/rectilinear.yaml) and the variants that separate slip on
#: the ground from the sag of the soft SEA joints.
SIM_VARIANTS = (("scenario as shipped (μ_c = 0.6, K = 1.74 N·m/rad)", []),
                ("μ_c = 1.5", ["contact.friction=1.5"]),
                ("SEA 10× stiffer (K = 17.4 N·m/rad)", ["robot.sea_stiffness=17.4"]))


def _e(v: float) -> str:
    return "—" if not np.isfinite(v) else f"{v:.3e}"


def _kinematics() -> list[str]:
    dx_val = kinematic_advance(6, 0.089, math.radians(40))
    dx_base = kinematic_advance(6, 0.14, ALPHA)
    return [
        "### Step length and speed (003 Eq. 4.1)",
        "",
        "Advance per cycle from the state machine's boundary shapes with each step's anchor link held in place:",
        "",
        "| setting | ours | 2l(1 − cos α) | 003 |",
        "|---|---|---|---|",
        f"| l = 8.9 cm, α = 40° (validation robot) | {100 * dx_val:.3f} cm/cycle | "
        f"{100 * advance_per_cycle(0.089, math.radians(40)):.3f} cm | 4.14 cm (measured 3.8 cm, −8 %) |",
        f"| same, 3 s cycle | {100 * dx_val / 3.0:.3f} cm/s | "
        f"{100 * average_speed(0.089, math.radians(40), 0.6):.3f} cm/s | 1.38 cm/s (measured 1.27 cm/s) |",
        f"| l = 0.14 m, α = 45°, T = 1 s | {100 * dx_base:.3f} cm/cycle, {100 * dx_base / 5:.3f} cm/s | "
        f"{100 * advance_per_cycle(0.14, ALPHA):.3f} cm | — |",
        "",
        "003's 4.14 cm is 0.5 % below the formula's 4.16 cm (rounding in the thesis).",
    ]


def _newton_euler() -> list[str]:
    rng = np.random.default_rng(0)
    m, ln, g = 0.3, 0.25, 9.81
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
    return ["### Newton–Euler (003 (3.10)–(3.18))", "",
            f"Craig's planar 2-link arm (003 (4.2), (4.3)), 200 random states: largest difference {worst:.1e} N·m. "
            "The tests also compare the recursion with Pinocchio's RNEA (4 thin rods) and check every closed-chain "
            "system (3.48) against the recursion loaded with the solved ground force (passive joint torque 0)."]


def _steps(fast: bool) -> list[str]:
    model = build_model(0.14, 0.015)
    s1, s2 = plan(6)[:2]
    out = ["### Steps 1 and 2 at 003's baseline", "",
           "l = 0.14 m, m = 0.015 kg, thin rods (I = m l²/12), μ = 0.4, α = 45°, T = 1 s, 20 samples per step "
           "(Δt = T/19), g = 9.81 m/s².", "",
           "| problem | C | effort J [N²m²s] | evaluations | peak τ [N·m] | min F_R [N] | 003 |",
           "|---|---|---|---|---|---|---|"]

    def row(label: str, how: str, r, ref: str) -> str:
        d = r.dynamics
        f_r = f"{np.min(d.normal_force):.3f}" if d.normal_force.any() else "— (no contact)"
        return (f"| {label} | {how} | {_e(r.effort)} | {r.evaluations or '—'} | {np.max(np.abs(d.tau)):.3f} | "
                f"{f_r} | {ref} |")

    p1 = StepProblem(model, s1, ALPHA)
    p1_open = StepProblem(model, s1, ALPHA, open_loop=True)
    p2 = StepProblem(model, s2, ALPHA)
    out += [
        row("step 1, closed M1", "003's Co (straight lines)", evaluate(p1, initial_points("M1", ALPHA)), "—"),
        row("step 1, closed M1", "003's final C", evaluate(p1, ALPHA * C_FINAL_003["M1"]), "≈ 1.7e-3"),
        row("step 1, closed M1", "±Δ search (003, 50 it.)", optimise_step(p1, "delta"), "—"),
        row("step 1, closed M1", "SLSQP, complex-step gradients", optimise_step(p1, "slsqp"), "—"),
        row("step 1, open M1", "straight lines (3 joints)", evaluate(p1_open, initial_points("M1", ALPHA, True)),
            "—"),
        row("step 1, open M1", "SLSQP", optimise_step(p1_open, "slsqp"), "≈ 6.0e-3"),
        row("step 2, M2", "003's Co", evaluate(p2, initial_points("M2", ALPHA)), "—"),
        row("step 2, M2", "003's best C", evaluate(p2, ALPHA * C_FINAL_003["M2"]), "not printed"),
    ]
    if not fast:
        out += [row("step 2, M2", "±Δ search (003, 50 it.)", optimise_step(p2, "delta"), "—")]
    out += [row("step 2, M2", "SLSQP, complex-step gradients", optimise_step(p2, "slsqp"), "—"), "",
            "003's final C gives 1.98e-3 with our reconstruction of its equations (003 prints \"on the order of "
            "1.7e-3\", from plots): 16 % above, the same order. The SLSQP optimum is lower than 003's and than "
            "our ±Δ search (a different local optimum: the C of 003's search stays near the straight-line "
            "start). 003's open-loop trajectory is not printed; ours, optimised, still costs more than twice "
            "the closed loop, as 003 found (\"the joints do not have to support all of the weight\"). Effort "
            "of a fixed trajectory scales with k² when every mass scales by k (tested to 1e-12)."]
    return out


def _cycle() -> list[str]:
    cyc = optimise_cycle(build_model(0.14, 0.015), 6, ALPHA)
    lines = ["### Whole cycle at the baseline (steps 4–5 mirrored and run backwards)", "",
             "| step | mechanism | effort J | min F_R [N] | peak τ [N·m] |", "|---|---|---|---|---|"]
    for s, r in zip(cyc.steps, cyc.results, strict=True):
        lines.append(f"| {s.number} | {s.kind}{' reversed' if s.reversed else ''} | {_e(r.effort)} | "
                     f"{np.min(r.dynamics.normal_force):.3f} | {np.max(np.abs(r.dynamics.tau)):.3f} |")
    lines += ["", f"Cycle effort {_e(cyc.effort)} N²m²s; F_R > 0 throughout (min {cyc.min_normal_force:.3f} N). "
              f"The peak torque, {cyc.peak_torque:.3f} N·m, is at or above the HS-55's 0.108–0.127 N·m stall "
              "torque, consistent with 003's \"underpowered servos\". 003 does not print steps 3–5; friction "
              "makes the reversed steps differ from the time-reversed forward ones (with μ = 0 they coincide, "
              "tested)."]
    return lines


def _study(fast: bool) -> list[str]:
    angles = [15.0, 45.0] if fast else [15.0, 25.0, 30.0, 35.0, 45.0]
    times = [1.0] if fast else [1.0, 0.1]
    rows, _ = run_study(6, angles, times, [0.14], [0.015], 0.4, math.radians(45.0), 0.108, progress=False)
    e = {(r.angle_deg, r.step_time): r.cycle_effort for r in rows}
    lines = ["### Parametric study (003 ch. 4)", "",
             "Every setting optimised step by step (SLSQP); robot rectilinear6 (joint range ±45°). "
             "`snake-sim rectilinear study` writes the same table with the figures.", "", markdown_table(rows), ""]
    for t in times:
        seq = [e[(a, t)] for a in angles]
        trend = "falls" if seq[-1] < seq[0] else "rises"
        ref = {1.0: "003 Fig. 4.8: falls, static gravity torque dominates",
               0.1: "003 Figs. 4.10–4.11: rises, dynamic torque dominates"}.get(t, "not in 003")
        lines.append(f"- T = {t:g} s: effort {trend} from {_e(seq[0])} at {angles[0]:g}° to {_e(seq[-1])} at "
                     f"{angles[-1]:g}° ({ref}).")
    if not fast:
        sweep = [0.1, 0.2, 0.3, 0.5, 1.0]
        t_rows, _ = run_study(6, [45.0], sweep, [0.14], [0.015], 0.4, math.radians(45.0), 0.108, progress=False)
        js = [r.cycle_effort for r in t_rows]
        t_min = sweep[int(np.nanargmin(js))]
        lines.append("- Step time at α = 45°: " + ", ".join(f"T = {t:g} s: {_e(j)}" for t, j in zip(sweep, js,
                                                                                                       strict=True))
                     + f". The optimised effort is lowest near T = {t_min:g} s: with the torque ∝ 1/T² the "
                     "dynamic part of J grows as 1/T³ for short steps, the static (gravity) part as T for long "
                     "ones. 003 reports an inverse effort–step-time relation (Fig. 4.6), which we find only below "
                     "the minimum; seed003 §11 (claim 16) finds an interior minimum near 0.3–0.5 s with 003's "
                     "fixed C.")
        model = build_model(0.14, 0.015)
        free = ALPHA * C_FINAL_003["M1"]
        ls = np.linspace(0.07, 0.28, 8)
        js = []
        for ln in ls:
            m = build_model(float(ln), 0.015)
            js.append(float(effort(evaluate(StepProblem(m, plan(6)[0], ALPHA), free).dynamics.tau, model.dt)))
        fit = np.polyfit(ls, js, 4)
        res = np.max(np.abs(np.polyval(fit, ls) - js)) / max(js)
        lines.append(f"- Effort vs link length with fixed trajectories (step 1): a quartic fits to {res:.1e} "
                     "relative (003 Fig. 4.12: \"a quartic polynomial\"; τ has m l² and m g l terms, so J is a "
                     "quartic in l).")
    return lines


def _simulator(fast: bool) -> list[str]:
    from snake_sim.scenario import load_scenario
    from snake_sim.vertical.runtime import run_scenario

    lines = ["### Cross-check in the vertical-plane simulator of 002's model", "",
             "`config/scenarios/rectilinear.yaml`: koopaee6 (002: 6 links of 2l = 74.2 mm, 0.15 kg, SEA joints "
             "K = 1.74 N·m/rad, position mode through the motor PD (4.39)) on flat ground driven by the gait "
             "(α = 40°, T = 1 s, 003's C scaled to α). Advance of the centre of mass per cycle against 003's "
             "no-slip prediction 2l(1 − cos α):", "",
             "| run | cycles | advance per cycle [cm] | 003 no-slip [cm] | ratio | joint tracking error max [°] |",
             "|---|---|---|---|---|---|"]
    variants = SIM_VARIANTS[:1] if fast else SIM_VARIANTS
    cycles = 1 if fast else 4
    ratios = []
    for label, overrides in variants:
        sc = load_scenario("rectilinear", [*overrides, f"sim.duration={5.0 * cycles}"])
        log = run_scenario(sc)
        gait_angle = float(sc.section("gait")["angle"])
        period = 5.0 * float(sc.section("gait")["step_time"])
        x = log.com[:, 0]
        idx = [int(np.argmin(np.abs(log.t - k * period))) for k in range(cycles + 1)]
        per = np.diff(x[idx])
        use = per[1:] if len(per) > 1 else per  # the first cycle starts from the flat resting sag
        predicted = advance_per_cycle(log.robot.link_length, gait_angle)
        err = np.degrees(np.nanmax(np.abs(log.alpha - log.alpha_ref)))
        ratios.append(np.mean(use) / predicted)
        lines.append(f"| {label} ({log.status}) | {cycles} | {100 * np.mean(use):.2f} | {100 * predicted:.2f} | "
                     f"{ratios[-1]:.2f} | {err:.1f} |")
    lines += ["", f"The simulated snake advances {100 * ratios[0]:.0f} % of 003's no-slip step "
              f"({100 * (1 - ratios[0]):.0f} % lost). 003's model holds every anchor link still and the joints "
              "exactly on their references; here the anchor links rest on compliant Kelvin–Voigt contacts with "
              "regularised Coulomb friction and the SEA joints lag and sag under the lifted hump (the tracking "
              "error column). 003's own validation robot came out 8 % short (3.8 vs 4.14 cm)."]
    if len(ratios) == len(SIM_VARIANTS):
        lines.append(f"Separating the causes: μ_c = 1.5 gives {ratios[1]:.2f} of the prediction and a 10× stiffer "
                     f"SEA {ratios[2]:.2f}, against {ratios[0]:.2f} as shipped.")
    return lines


def run(fast: bool = False) -> str:
    parts = [f"## {TITLE}", "", "Source: 003 ch. 3–4 (seed003_rectilinear.md for the reconstructed equations).", ""]
    for block in (_kinematics(), _newton_euler(), _steps(fast), _cycle(), _study(fast), _simulator(fast)):
        parts += [*block, ""]
    return "\n".join(parts)
