"""The report of section ``climb_3d``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.climb_3d` alone; nothing here runs a simulation.
"""

from __future__ import annotations

from snake_sim.analysis.step_check import Comparison, compare, relative_change
from snake_studies.climb_3d import CONTROLLERS, WORLDS, Climb3dRun, ReferenceCheck
from snake_studies.reproduction.experiments import pedal_wave, stiffness
from snake_studies.reproduction.experiments.climb_3d import ENGINE_NAMES, Results
from snake_studies.reproduction.reports.stiffness import TSC_GAIN_002, TWO_OBSTACLES_TIME_002
from snake_studies.reproduction.results import comparison_text, pi_text

# Imported for the text, not as settings of the run: the study's labels (controllers, worlds, engine names), 002's
# numbers (Tables 5.2 and 7.1, §7.3–7.4); how the runs were made is results.settings.

TITLE = "Climbing in 3-D, and one table across three engines (002 ch. 6–7)"


#: 002's results to compare with (seed002 reference): §6.4 local stiffness (K_d = K/6, A = π/4) climbed the 36 mm
#: obstacle in 24.6 s on average where the open loop failed by rolling to one side; Fig. 7.9 (§7.4) TSC with
#: K_τ = 6 climbed the two obstacles in 27.4 s on average, local stiffness and TSC with K_τ = 0 rolled over;
#: §7.3 (simulation) TSC climbed the 36 mm obstacle 25.6 % faster than the open loop.
LOCAL_STIFFNESS_TIME_002 = 24.6
#: 002 Table 5.2 at the reference gait (A = π/6, φ = −2π/5): (simulated, measured) [cm/s].
REFERENCE_SPEED_002 = (pedal_wave.TABLE_S[1][0], pedal_wave.TABLE_E[1][0])
#: 002 Table 5.2, the open loop at A = π/3, φ = −2π/5 on flat ground: (simulated, measured) [mm/s].
SPEED_PI_3_002 = (49.0, 58.0)
#: The reference check: the reference gait's speed may change by at most this from the step to half of it and to a
#: contact twice as stiff.
REFERENCE_TOLERANCE = 0.10


def _mm(speed: float) -> str:
    return f"{1e3 * speed:.1f}"


def _pct(change: float | None) -> str:
    return "–" if change is None else f"{100 * change:+.1f} %"


def _climb(r: Climb3dRun) -> str:
    if r.climbed is None:
        return "–"
    def text(climbed: bool | None, time: float | None, reached: bool | None) -> str:
        return f"{time:.1f} s" if climbed else ("did not reach the box" if reached is False else "no")

    at_h = text(r.climbed, r.time_to_climb_s, r.reached)
    at_half = text(r.half_climbed, r.half_time_to_climb_s, r.half_reached)
    if r.half_climbed is not None and (r.half_climbed != r.climbed or (r.half_reached is not None
                                                                       and r.half_reached != r.reached)):
        return f"*inconclusive* (h: {at_h}, h/2: {at_half})"  # a verdict the step makes is no verdict
    return at_h


def _roll(r: Climb3dRun) -> str:
    if r.rolled_over is None:
        return "–"
    text = f"{r.time_of_roll_over_s:.1f} s" if r.rolled_over else "no"
    if r.half_rolled_over is not None and r.half_rolled_over != r.rolled_over:
        return f"*inconclusive* (h: {text}, h/2: {'yes' if r.half_rolled_over else 'no'})"
    return text


def _reference(ref: ReferenceCheck) -> list[str]:
    half = relative_change(ref.speed_mps, ref.half_step_speed_mps)
    stiff = relative_change(ref.stiff_contact_speed_mps, ref.speed_mps)
    ok = all(c is not None and abs(c) <= REFERENCE_TOLERANCE for c in (half, stiff))
    return ["### Step and contact softness of the reference gait", "",
            f"002's reference gait (A = π/6, ω = π, φ = −2π/5) on flat ground for {ref.duration_s:g} s "
            f"(`open-loop-flat-3d`): {_mm(ref.speed_mps)} mm/s at h = {1e3 * ref.time_step_s:g} ms with "
            f"solref = ({ref.solref[0]:g} s, {ref.solref[1]:g}); {_mm(ref.half_step_speed_mps)} mm/s at half the step "
            f"({_pct(half)} from h to h/2); {_mm(ref.stiff_contact_speed_mps)} mm/s with the contact twice as stiff "
            f"(time constant {ref.solref[0] / 2 ** 0.5:.4f} s; {_pct(stiff)}). "
            + (f"Both within the {100 * REFERENCE_TOLERANCE:g} % asked of the 3-D model." if ok else
               f"**Not within the {100 * REFERENCE_TOLERANCE:g} % asked of the 3-D model.**")
            + f" 002 Table 5.2: {10 * REFERENCE_SPEED_002[0]:g} mm/s simulated, {10 * REFERENCE_SPEED_002[1]:g} mm/s "
            "measured.", ""]


def _seeds(runs: list[Climb3dRun], text) -> str:
    return ", ".join(text(r) for r in runs)


def _cell_group(runs: list[Climb3dRun]) -> str:
    speeds = [r.com_speed_mps for r in runs]
    same = sum(r.verdicts_unchanged for r in runs)
    conv = sum(r.converged for r in runs)
    return (f"| {_seeds(runs, _climb)} | {_seeds(runs, _roll)} | {max(r.max_roll_deg for r in runs):.1f} | "
            f"{_mm(min(speeds))}–{_mm(max(speeds))} | {same}/{len(runs)} | {conv}/{len(runs)} | "
            f"{100 * max(r.max_rate_change for r in runs):.1f} % |")


def _span(values: list[float]) -> str:
    """The range of sorted ``values`` as the text states it: one value, or lowest–highest."""
    return f"{values[0]:g}" if values[0] == values[-1] else f"{values[0]:g}–{values[-1]:g}"


def _by(runs, controller: str, world: str) -> list[Climb3dRun]:
    return [r for r in runs if r.controller == controller and r.world == world]


def _mujoco_table(results: Results) -> list[str]:
    study = results.mujoco
    runs = list(study.runs)
    seeds = sorted({r.seed for r in runs})
    st = results.settings
    m_d, d_d, k_d = st.tsc_gains
    flat = sorted({r.duration_s for r in runs if r.world == "flat"})
    obstacles = sorted({r.duration_s for r in runs if r.world != "flat"})
    lines = ["### MuJoCo: every controller on every world, perturbation seeds " + ", ".join(map(str, seeds)), "",
             f"The `*-3d` scenarios (A = {pi_text(st.amplitude)}, ω = {pi_text(st.frequency)}, "
             f"φ = {pi_text(st.phase_shift)}; TSC M_d = {m_d:g}, D_d = {d_d:g}, "
             f"K_d = {k_d:g}; h = {1e3 * study.time_step_s:g} ms, MuJoCo's default contact softness, "
             f"elliptic cone, Newton solver; `sim.perturbation`: {st.roll_deg:g}° initial roll of the body, "
             f"{st.joint_noise_deg:g}° joint-angle noise drawn from the seed); flat ground at "
             f"A = {pi_text(st.amplitude)} for {_span(flat)} s, the obstacles for the scenarios' "
             f"{_span(obstacles)} s. *Climbed*: the tail tip passes the "
             f"far edge of the last box, time per seed; *rolled over*: a module's roll about its own axis passes "
             f"{results.roll_over_deg:g}°, time per seed; *did not reach the box*: the run ended before the head "
             "reached the first box. Every run is repeated at half the step: *same at h/2* counts the seeds whose "
             "verdicts (status, reached the box, climbed, rolled over) are unchanged, *converged* those whose "
             f"times and speeds also stay within {100 * st.step_tolerance:g} %, *largest change* the largest relative "
             "change of a time or speed.", "",
             "| controller | world | climbed | rolled over | max roll [°] | CoM speed [mm/s] | same at h/2 | "
             "converged | largest change |", "|---|---|---|---|---|---|---|---|---|"]
    for c in CONTROLLERS:
        for w in WORLDS:
            group = _by(runs, c, w)
            if group:
                lines.append(f"| {c} | {w} " + _cell_group(group))
    obstacle_runs = [r for r in runs if r.climbed is not None]
    flips = [r for r in runs if not r.verdicts_unchanged]
    lines += ["", _mujoco_summary(runs), "", _reliable_stairs(runs), "",
              f"*Step check.* {sum(r.verdicts_unchanged for r in runs)} of {len(runs)} runs keep every verdict at "
              f"half the step, {sum(r.converged for r in runs)} are converged (times and speeds within "
              f"{100 * st.step_tolerance:g} %). "
              + ("No verdict changes with the step." if not flips else
                 "Verdicts that change at half the step: " + "; ".join(
                     f"{r.controller}, {r.world}, seed {r.seed} (climbed {_climb(r)} → "
                     f"{'yes' if r.half_climbed else 'no'} at h/2, rolled over {_roll(r)} → "
                     f"{'yes' if r.half_rolled_over else 'no'})" for r in flips) + ".")
              + _slow(obstacle_runs, st.step_tolerance),
              ""]
    return lines


def _slow(runs: list[Climb3dRun], tolerance: float) -> str:
    """The runs that keep their verdicts at half the step but move a time or speed by more than ``tolerance``."""
    slow = [r for r in runs if r.verdicts_unchanged and not r.converged]
    if not slow:
        return ""
    worst = max(slow, key=lambda r: r.max_rate_change)
    return (f" {len(slow)} runs on obstacles keep their verdicts at half the step while a time or speed moves by "
            f"more than {100 * tolerance:g} % (largest {100 * worst.max_rate_change:.0f} %: {worst.controller}, "
            f"{worst.world}, seed {worst.seed}): their verdicts stand, their times and speeds are not converged.")


def _climbers(runs: list[Climb3dRun], world: str) -> tuple[list[str], list[str], list[str]]:
    """Controllers that climb ``world`` with every seed, with some, with none."""
    every, some, none = [], [], []
    for c in CONTROLLERS:
        group = _by(runs, c, world)
        if not group:
            continue
        n = sum(bool(r.climbed) for r in group)
        (every if n == len(group) else some if n else none).append(c)
    return every, some, none


def _mujoco_summary(runs: list[Climb3dRun]) -> str:
    parts = []
    for w in WORLDS:
        if w == "flat":
            continue
        every, some, none = _climbers(runs, w)
        flips = sorted({r.controller for r in runs if r.world == w and not r.verdicts_unchanged})
        parts.append(f"{w}: " + "; ".join(t for t in (
            f"every seed climbs with {', '.join(every)}" if every else "",
            f"a verdict flips at half the step with {', '.join(flips)}" if flips else "",
            f"some seeds with {', '.join(some)}" if some else "",
            f"no seed with {', '.join(none)}" if none else "") if t))
    if not runs:
        return "*Verdicts.* No MuJoCo run finished."
    rolled = [r for r in runs if r.rolled_over]
    worst = max(runs, key=lambda r: r.max_roll_deg)
    return ("*Verdicts.* " + ". ".join(p[0].upper() + p[1:] for p in parts) + ". "
            + (f"{len(rolled)} of {len(runs)} runs roll over." if rolled else
               f"No run rolls over; the largest module roll is {worst.max_roll_deg:.1f}° ({worst.controller}, "
               f"{worst.world}, seed {worst.seed})."))


def _reliable_stairs(runs: list[Climb3dRun]) -> str:
    """Which controllers climb the stairs with every seed, every run converged (the stairs demo of ``make demo``)."""
    reliable = [c for c in CONTROLLERS if (g := _by(runs, c, "stairs")) and all(r.climbed and r.converged for r in g)]
    if reliable:
        return ("*The stairs, reliably* (every seed climbs, every run converged at half the step): "
                + ", ".join(reliable) + ".")
    return "*The stairs, reliably*: no controller climbs them with every seed and every run converged."


def _mean_time(runs: list[Climb3dRun]) -> float | None:
    """Mean time to climb when every run climbed, else None."""
    if not runs or not all(r.climbed for r in runs):
        return None
    return sum(r.time_to_climb_s for r in runs) / len(runs)


def _tsc_verdict(checks: list[Comparison]) -> str:
    """What TSC's climb times against the open loop's say, under the half-step rule."""
    if all(c.is_difference and c.difference < 0 for c in checks):
        return "TSC is faster, as in 002"
    if any(c.difference is None for c in checks):
        return "the climb times are not compared"
    if not any(c.is_difference for c in checks):
        return "no difference from the open loop stands beyond the step's own spread"
    return "TSC is not faster everywhere"


def _against_002(results: Results) -> list[str]:
    runs = list(results.mujoco.runs)
    ol, ls, t0, t6 = CONTROLLERS
    lines = ["### Against 002", ""]
    t_ol, t_t0, t_t6 = (_mean_time(_by(runs, c, "obstacle")) for c in (ol, t0, t6))
    if t_ol is not None and t_t0 is not None and t_t6 is not None:
        ours = f"A = {pi_text(results.settings.amplitude)}, K_d = {results.settings.tsc_gains[2]:g}"
        table_7_1 = f"A = {pi_text(stiffness.TABLE_7_1_AMPLITUDE)}"
        base = [r.time_pair for r in _by(runs, ol, "obstacle")]
        checks = {label: compare([r.time_pair for r in _by(runs, c, "obstacle")], base)
                  for label, c in (("TSC K_τ = 0", t0), ("TSC K_τ = 6", t6))}
        texts = [comparison_text(c, label, "open loop") if c.difference is not None else
                 f"{label}: not compared (a climb time missing at h/2)" for label, c in checks.items()]
        verdict = _tsc_verdict(list(checks.values()))
        lines.append("- *TSC vs open loop on the single obstacle (002 §7.3, simulation: TSC "
                     f"{100 * TSC_GAIN_002:.1f} % faster).* Mean over the seeds: open loop {t_ol:.1f} s, TSC K_τ = 0 "
                     f"{t_t0:.1f} s, K_τ = 6 {t_t6:.1f} s (002's gain would be {t_ol / (1 + TSC_GAIN_002) - t_ol:+.1f} "
                     "s here); a comparison is a difference only beyond the largest change of any climb time "
                     f"compared from h to h/2: {'; '.join(texts)}. So {verdict} (here with {ours}, not Table 7.1's "
                     f"{table_7_1}: 002's own settings are in the section of 002's runs).")
    else:
        lines.append("- *TSC vs open loop on the single obstacle (002 §7.3).* Not every seed of the open loop and TSC "
                     "climbs here (table above), so the climb times are not compared.")
    ol_runs = _by(runs, ol, "obstacle")
    ls_time = _mean_time(_by(runs, ls, "obstacle"))
    ol_rolled = sum(bool(r.rolled_over) for r in ol_runs)
    ol_climbed = sum(bool(r.climbed) for r in ol_runs)
    if ol_runs:
        lines.append(f"- *Single obstacle on the robot (002 §6.4).* The open loop failed by rolling over to one side; "
                     f"local stiffness (K_d = K/6, A = π/4) climbed in {LOCAL_STIFFNESS_TIME_002:g} s on average. Here "
                     f"the open loop climbs with {ol_climbed} of {len(ol_runs)} seeds and rolls over with {ol_rolled}"
                     + (f"; local stiffness (A = π/3) climbs in {ls_time:.1f} s on average." if ls_time is not None
                        else "; local stiffness does not climb with every seed.")
                     + (" The open loop's failure on the robot is not reproduced." if ol_climbed == len(ol_runs)
                        else ""))
    pair = {c: _by(runs, c, "two obstacles") for c in CONTROLLERS}
    climb_all = [c for c, g in pair.items() if g and all(r.climbed for r in g)]
    rolled = [c for c, g in pair.items() if any(r.rolled_over for r in g)]
    t6_time = _mean_time(pair[t6])
    only_t6 = climb_all == [t6]
    lines.append(f"- *Two obstacles on the robot (002 §7.4, Fig. 7.9).* Only TSC with K_τ = 6 climbed "
                 f"({TWO_OBSTACLES_TIME_002:g} s on average); local stiffness and TSC with K_τ = 0 rolled over. Here "
                 + (f"{', '.join(climb_all)} climb with every seed" if climb_all else "no controller climbs with "
                    "every seed")
                 + (f" (TSC K_τ = 6 in {t6_time:.1f} s on average)" if t6_time is not None else "")
                 + (f", and {', '.join(rolled)} roll over" if rolled else ", and nothing rolls over")
                 + (": 002's ranking holds." if only_t6 and set(rolled) >= {ls, t0} else
                    ": the climbs agree with 002 where TSC K_τ = 6 climbs; 002's failures of the others are not "
                    "reproduced." if t6 in climb_all else ": 002's verdicts are not reproduced."))
    worst = max((r.max_roll_deg for r in runs), default=0.0)
    if runs and not any(r.rolled_over for r in runs):
        lines.append(f"- *No roll-over here.* The largest roll of any module in any run is {worst:.1f}°, against the "
                     f"{results.settings.roll_deg:g}° the perturbation "
                     f"starts with and the {results.roll_over_deg:g}° of a roll-over: the symmetric robot and world "
                     "do not roll. The roll-over section provokes it with the asymmetries 002 names.")
    return [*lines, ""]


def _engine_cell(r: Climb3dRun | None) -> str:
    if r is None:
        return "not run"
    check = "converged" if r.converged else ("same verdicts" if r.verdicts_unchanged else "**verdict flips**")
    return f"{_climb(r)}, {_roll(r)}, {_mm(r.com_speed_mps)} mm/s, {check}"


def _engines(results: Results) -> dict[str, list[Climb3dRun]]:
    """Runs per engine; MuJoCo's are the study's runs with the engines table's seed."""
    out = {e: [r for r in results.engines if r.model == e] for e in results.settings.engines}
    out["mujoco"] = [r for r in results.mujoco.runs if r.seed == results.settings.engine_seed]
    return out


def _engines_table(results: Results) -> list[str]:
    engines, seed = _engines(results), results.settings.engine_seed
    dart = engines["dart"]
    vertical_h = [1e3 * h for h in sorted({r.time_step_s for r in engines["vertical"]})]
    lines = ["### One table, three engines", "",
             "The same controllers, gains and worlds in the vertical-plane model (002's point contacts, Table 5.1; "
             f"the shipped vertical scenarios, h = {_span(vertical_h)} ms; its obstacle "
             "rows are the stiffness section's runs), MuJoCo "
             f"(the table above, seed {seed}) and DART as Gazebo sets it up (the `*-3d` scenarios with `model=dart`, "
             f"seed {seed}, Gazebo's h = {1e3 * (dart[0].time_step_s if dart else float('nan')):g} ms, ODE collision, "
             "Dantzig LCP, joint limits and the gz_ros2_control loop). Every engine runs each world for as long: "
             + ", ".join(f"{w} {_span(sorted({d for k, d in results.durations.items() if k.endswith(' ' + w)}))} s"
                         for w in WORLDS)
             + " (on the boxes at least 002's longest climb plus 50 s). Each cell: climbed (time), rolled over (time), "
             "CoM speed, and the step check (*converged*, *same verdicts* at half the step but a time or speed moving "
             f"more than {100 * results.settings.step_tolerance:g} %, or a *verdict flip*).", "",
             "| controller | world | " + " | ".join(f"{ENGINE_NAMES[e]}: climbed, rolled, CoM speed, h/2"
                                                   for e in engines) + " |",
             "|---|---|" + "---|" * len(engines)]
    for c in CONTROLLERS:
        for w in WORLDS:
            cells = [next(iter(_by(engines[e], c, w)), None) for e in engines]
            lines.append(f"| {c} | {w} | " + " | ".join(_engine_cell(r) for r in cells) + " |")
    lines += ["", *_engine_verdicts(engines, results), ""]
    return lines


def _needed(mujoco: Climb3dRun, dart: Climb3dRun) -> float | None:
    """Time [s] DART would need at its CoM speed for the distance MuJoCo's CoM covered when it climbed (None: DART
    does not advance)."""
    if dart.com_speed_mps <= 0.0:
        return None
    return mujoco.time_to_climb_s * mujoco.com_speed_mps / dart.com_speed_mps


def _text_needed(t: float | None) -> str:
    return "forever (it does not advance)" if t is None else f"≈ {t:.0f} s"


def _engine_verdicts(engines: dict[str, list[Climb3dRun]], results: Results) -> list[str]:
    """Where the engines agree on a climb, where not, and the evidence for why."""
    agree, differ = [], []
    for c in CONTROLLERS:
        for w in WORLDS:
            if w == "flat":
                continue
            cells = {e: next(iter(_by(engines[e], c, w)), None) for e in engines}
            verdicts = {e: r.climbed for e, r in cells.items() if r is not None}
            if len(verdicts) < len(engines):
                continue
            text = f"{c} on {w} (" + ", ".join(f"{ENGINE_NAMES[e]} {'yes' if v else 'no'}"
                                                for e, v in verdicts.items()) + ")"
            (agree if len(set(verdicts.values())) == 1 else differ).append(text)
    flat = {e: {r.controller: r.com_speed_mps for r in runs if r.world == "flat"} for e, runs in engines.items()}
    ol = next(iter(CONTROLLERS))
    speeds = ", ".join(f"{ENGINE_NAMES[e]} {_mm(flat[e][ol])} mm/s" for e in engines if ol in flat[e])
    vertical_climbs = [r for r in engines["vertical"] if r.climbed]
    lines = [f"- *Agree* on {len(agree)} of {len(agree) + len(differ)} climbing verdicts run in all three engines"
             + (": " + "; ".join(agree) if agree else "") + ".",
             f"- *Disagree* on {len(differ)}" + (": " + "; ".join(differ) if differ else "") + ".",
             "- *The gait itself differs before any obstacle*: the open loop on flat ground at A = π/3 moves at "
             f"{speeds} (002 Table 5.2 at A = π/3, φ = −2π/5: {SPEED_PI_3_002[0]:g} mm/s simulated, "
             f"{SPEED_PI_3_002[1]:g} measured)."]
    if not vertical_climbs:
        lines.append("- *Vertical plane against the 3-D engines.* The vertical model climbs nothing, and its gait is "
                     "already slower on flat ground (above). Its contact is 002's (4.26)–(4.27): Kelvin–Voigt points "
                     "on the links' axis, a soft ground, and the box's near face with the ground's friction law; in "
                     "it the head tip stays pressed on the box's near face, also with the module's radius as contact "
                     "radius (the stiffness section, *Friction on the box's faces*). Both 3-D engines carry the "
                     "modules' octagonal prisms over the same boxes with the same controllers. Which part of 002's "
                     "contact law holds the vertical model's head at the face is not isolated here.")
    dart = engines["dart"]
    mj = {(r.controller, r.world): r for r in engines["mujoco"]}
    if dart and mj:
        worst = max(dart, key=lambda r: r.max_rate_change)
        flips = [r for r in dart if not r.verdicts_unchanged]
        pairs = [(mj[(r.controller, r.world)], r) for r in dart
                 if (r.controller, r.world) in mj and r.climbed is not None]
        same = [d for m_, d in pairs if m_.climbed == d.climbed]
        short = [(d, _needed(m_, d)) for m_, d in pairs if m_.climbed and not d.climbed]
        short = [(d, t) for d, t in short if t is None or t > d.duration_s]
        flat = [(mj[(r.controller, r.world)], r) for r in dart if r.world == "flat" and (r.controller, r.world) in mj]
        lines.append(f"- *MuJoCo against DART* (seed {results.settings.engine_seed}): the same climbing verdict in "
                     f"{len(same)} of "
                     f"{len(pairs)} rows. On flat ground DART's speed is "
                     + ", ".join(f"{100 * d.com_speed_mps / m_.com_speed_mps:.0f} %" for m_, d in flat)
                     + " of MuJoCo's (" + ", ".join(d.controller for _, d in flat) + "): the engines differ before any "
                     "obstacle, most for the controllers that feed back the measured spring torque and the "
                     "neighbour's angle. "
                     + (f"{len(short)} of DART's *no* are inconclusive: at its CoM speed DART would need "
                        + "; ".join(f"{_text_needed(t)} for {d.controller} on {d.world} (the run had "
                                    f"{d.duration_s:g} s)" for d, t in short)
                        + " to cover the distance MuJoCo covered when it climbed. " if short else "")
                     + f"MuJoCo's contact is soft (solref {1e3 * results.reference.solref[0]:g} ms, an elliptic cone, "
                     "the SEA spring implicit), DART's "
                     "rigid (a boxed LCP, friction as a pyramid, Gazebo's joint position limits and effort clamp). "
                     f"DART's step check: {sum(r.converged for r in dart)} of {len(dart)} converged, {len(flips)} "
                     f"verdict flips, largest change {100 * worst.max_rate_change:.0f} % ({worst.controller}, "
                     f"{worst.world}); MuJoCo's: {sum(r.converged for r in mj.values())} of {len(mj)} converged. "
                     "A verdict that is not converged in either engine is not evidence of a difference between them.")
    return lines


def failed_lines(results: Results) -> list[str]:
    """The planned runs without a result (none when every run finished); ``results``: any section's results with
    ``planned`` (how many step-checked runs) and ``failed`` (which have no result, and why)."""
    if not results.failed:
        return [f"All {results.planned} planned step-checked runs finished.", ""]
    return [f"**Runs without a result:** {results.planned - len(results.failed)} of {results.planned} planned "
            "step-checked runs finished; these raised or lost their worker, and the tables leave them out: "
            + "; ".join(results.failed) + ".", ""]


def render(results: Results) -> str:
    """The section's Markdown from the stored results alone."""
    out = [f"## {TITLE}", ""]
    if results.fast:
        out += [f"*Fast smoke run ({results.settings.smoke_duration_s:g} s per run, one seed): the numbers below are "
                "not results.*", ""]
    out += failed_lines(results)
    out += [*_reference(results.reference), *_mujoco_table(results), *_against_002(results), *_engines_table(results)]
    return "\n".join(out)
