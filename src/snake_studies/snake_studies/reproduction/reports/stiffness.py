"""The report of section ``stiffness``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.stiffness` alone; nothing here runs a simulation.
"""

from __future__ import annotations

import numpy as np

from snake_core.controllers.tsc import TSCGains
from snake_core.vertical.model import GRAVITY  # a constant of nature, not a setting of the run
from snake_sim.analysis.climb import ClimbResult
from snake_sim.analysis.step_check import relative_change
from snake_studies.reproduction.experiments.stiffness import (
    CONTROLLERS,
    FACE_CONTROLLERS,
    FLAT_GROUPS,
    TABLE_7_1_AMPLITUDE,
    TABLE_7_1_GAINS,
    WORLDS,
    Outcome,
    RunSettings,
    Setting,
    StiffnessResults,
)
from snake_studies.reproduction.results import pi_text, robot_text

# TABLE_7_1_AMPLITUDE, TABLE_7_1_GAINS: 002's Table 7.1; CONTROLLERS, FACE_CONTROLLERS, FLAT_GROUPS, WORLDS: the rows'
# labels and groups; how the runs were made is results.setting and results.settings.

TITLE = "Local stiffness and tail-leading stiffness control over obstacles (002 ch. 6–7)"
#: 002 §7.3 (simulation, Table 7.1): both climb the single obstacle, TSC's average speed 25.6 % above the open loop's.
TSC_GAIN_002 = 0.256
#: 002 Fig. 7.9: the robot climbed the two obstacles with TSC, K_τ = 6 only, in 27.4 s.
TWO_OBSTACLES_TIME_002 = 27.4
#: 002 Table 5.2, simulation: the open loop at A = π/6, φ = −2π/5 on flat ground [m/s].
OPEN_LOOP_SPEED_002 = 0.018
#: 002's gain ranges for TSC: K_d from Table 7.1 (12) to the experiments (17.5).
K_D_RANGE_002 = (12.0, 17.5)
#: The shipped open loop on the single obstacle (the sensitivity rows change it slightly).
#: A row "barely moves" when its CoM speed is below this fraction of the reference row's.
BARELY_MOVES = 0.25
#: A row "hardly moves" when its CoM speed is below this [m/s].
HARDLY_MOVES = 1e-3


def _climb_text(c: ClimbResult) -> str:
    if c.climbed is None:
        return "–"
    return f"yes, {c.time_to_climb_s:.1f} s" if c.climbed else "no"


def _climb_speed(c: ClimbResult) -> str:
    return "–" if c.climb_average_speed_mps is None else f"{1e3 * c.climb_average_speed_mps:.1f}"


def _relative(value: float | None, base: float | None) -> str:
    if value is None or base is None or base == 0.0:
        return "–"
    return f"{100.0 * (value / base - 1.0):+.1f} %"


def _percent(change: float | None) -> str:
    return "–" if change is None else f"{100 * change:+.1f} %"


def _mm(length_m: float) -> str:
    return f"{1e3 * length_m:g}"


def _slow_rows(bad: list[Outcome]) -> str:
    """What the rows that fail only on the CoM speed have in common (numbers from the runs)."""
    slow = [r for r in bad if r.climb.climbed is False and r.half.climb.climbed is False]
    if not slow:
        return ""
    top = max(abs(r.speed_mps) for r in slow)
    dv = max(abs(r.speed_mps - r.half.speed_mps) for r in slow)
    hardly = top < HARDLY_MOVES
    return (f" Of these, the {len(slow)} that do not climb move at most {1e3 * top:.2f} mm/s"
            + (f" (the robot hardly moves: under {1e3 * HARDLY_MOVES:g} mm/s)" if hardly else "")
            + f", and halving the step changes their speed by at most {1e3 * dv:.3f} mm/s in absolute terms"
            + (" (the percentage is large because the speed is almost zero)." if hardly else "."))


def _why_not(r: Outcome, tolerance: float) -> str:
    """What moved by more than ``tolerance`` (the step check's) between the step and its half (same verdict or not)."""
    h = r.half
    if r.climb.climbed != h.climb.climbed:
        return f"climbed {_climb_text(r.climb)} at the step, {_climb_text(h.climb)} at half of it"
    parts = []
    dt = relative_change(r.climb.time_to_climb_s, h.climb.time_to_climb_s)
    if dt is not None and abs(dt) > tolerance:
        parts.append(f"time to climb {r.climb.time_to_climb_s:.1f} vs {h.climb.time_to_climb_s:.1f} s")
    dv = relative_change(r.speed_mps, h.speed_mps)
    if dv is None or abs(dv) > tolerance:
        parts.append(f"CoM speed {1e3 * r.speed_mps:.3f} vs {1e3 * h.speed_mps:.3f} mm/s")
    return ", ".join(parts)


def _step_columns(r: Outcome) -> str:
    """The step-halving evidence of a row: step, verdict at half of it, relative changes, converged."""
    if r.half is None:
        return ""
    h = r.half
    dt = relative_change(r.climb.time_to_climb_s, h.climb.time_to_climb_s)
    dv = relative_change(r.speed_mps, h.speed_mps)
    return (f" {1e3 * r.time_step_s:g} | {_climb_text(h.climb)} | {_percent(dt)} | {_percent(dv)} | "
            f"{'yes' if r.converged else '**NO**'} |")


STEP_HEADER = " step [ms] | climbed at half the step | Δ time to climb | Δ CoM speed | converged |"


def _table(rows: list[Outcome], base: Outcome | None = None) -> list[str]:
    """One row per run: speed, verdict, climb speed (against ``base``'s), head wave, and the step evidence."""
    step = rows[0].half is not None
    lines = ["| controller | CoM speed [mm/s] | climbed | climb speed [mm/s] | vs open loop | head amplitude "
             "[°] | head phase vs tail [°] |" + (STEP_HEADER if step else ""),
             "|---|---|---|---|---|---|---|" + ("---|---|---|---|---|" if step else "")]
    for r in rows:
        rel = _relative(r.climb.climb_average_speed_mps, base.climb.climb_average_speed_mps) if base else "–"
        if base and base.climb.climbed is False and r.climb.climbed:
            rel = "open loop does not climb"
        status = "" if r.status == "ok" else f" ({r.status})"
        lines.append(f"| {r.label}{status} | {1e3 * r.speed_mps:.1f} | {_climb_text(r.climb)} "
                     f"| {_climb_speed(r.climb)} | {rel} | {r.head_amplitude_deg:.1f} | {r.head_phase_deg:.0f} |"
                     + _step_columns(r))
    return lines


def render(results: StiffnessResults) -> str:
    """The section's Markdown from the stored results alone."""
    groups, setting = results.groups, results.setting
    out = [f"## {TITLE}", ""]
    if results.fast:
        out += [f"*Fast smoke run ({results.settings.smoke_duration_s:g} s per run): the numbers below are not "
                "results.*", ""]
    out += _intro(groups, setting, results.settings)
    out += _flat(groups.get("flat"), setting)
    if "t71" in groups:
        rows = groups["t71"]
        box = setting.boxes["single obstacle"][0]
        out += ["### Single obstacle with Table 7.1's parameters", "",
                f"002 §7.3: both climb the {_mm(box[0])} × {_mm(box[1])} mm obstacle placed "
                f"{_mm(round(setting.box_gap, 6))} mm ahead of the head tip, TSC with a {100 * TSC_GAIN_002:.1f} % "
                "higher average speed.", ""]
        out += [*_table(rows, rows[0]), ""]
    if "sens" in groups:
        st = results.settings
        out += ["### Near the shipped parameters", "",
                f"The shipped open loop (A = {pi_text(st.open_loop_amplitude)}, "
                f"φ = {pi_text(st.open_loop_phase_shift)}) "
                "changed slightly, and TSC with 002's largest K_d:", ""]
        out += [*_table(groups["sens"]), ""]
    out += _grid(groups.get("grid"), setting, results.settings)
    for wlabel, _, _ in WORLDS:
        if wlabel not in groups:
            continue
        rows = groups[wlabel]
        out += [f"### {wlabel.capitalize()} (shipped scenarios)", ""]
        out += [*_table(rows, rows[0]), ""]
        climbed = [r.label for r in rows if r.climb.climbed]
        failed = [r.label for r in rows if r.climb.climbed is False]
        out += [f"Climb {wlabel}: {', '.join(climbed) or 'none'}; do not: {', '.join(failed) or 'none'}.", ""]
    out += _face_friction(groups, setting, results.settings)
    out += _against_002(groups, setting)
    return "\n".join(out)


def _intro(groups: dict[str, list[Outcome]], setting: Setting, st: RunSettings) -> list[str]:
    """Model, friction and the step-halving summary over every checked row."""
    checked = [r for group, rows in groups.items() if group not in FLAT_GROUPS for r in rows]
    bad = [r for r in checked if r.converged is False]
    same = all(r.climb.climbed == r.half.climb.climbed for r in checked)
    faces = ", ".join(f"{mu:g}" for mu in setting.box_friction)
    return [
        "Model: the vertical-plane simulator of the 002 section above (Table 5.1 contact and PD, "
        f"K = {setting.spring_stiffness:g} N·m/rad, linearly implicit steps, controllers at "
        f"{setting.control_rate:g} Hz). Controllers: `snake_core.controllers` "
        "(`stiffness`: Fig. 6.2 with C_p = (4.39); `tsc`: (7.1) at the tail, (7.2) integrated exactly (zero-order "
        "hold) at the others). τ_J in Fig. 6.2 and (7.2) is read as the motor's output torque K(β − α) (raising "
        "K_τ makes the joint yield, §7.2) and α_s = (K − K_d)/K_d · τ_J/K (so that the joint stiffness is K_d, "
        "§6.3). *Climbed*: the tail tip passes the far edge of the last box before the run ends; *climb speed*: "
        "the distance the tail tip had to cover over the time it took.",
        "",
        f"Robots: the rows with Table 7.1's parameters (002 §7.3's simulation: `{st.simulated_scenarios[0]}`, "
        f"`{st.simulated_scenarios[1]}` on the obstacle, the same settings on flat ground) run "
        f"{robot_text(setting.simulated_robot)}; every other row {robot_text(setting.robot)}.",
        "",
        f"Friction: the ground's μ_c = {setting.ground_friction:g} (Table 5.1); each box's μ is its collision's SDF "
        f"`<surface><friction>` in the world file ({faces} on every face of the shipped worlds, as §4.6 puts the "
        "ground's law on an obstacle), and a face's μ holds round its rounded edge (`snake_core.vertical.contact`).",
        "",
        "*Converged verdicts.* Every row on an obstacle or on stairs is run at the scenario's step and again at half "
        "of it; the last five columns show the step, the verdict at half the step, and how much the time to climb "
        f"and the CoM speed change ((x_h − x_h/2)/|x_h/2|). *Converged*: same verdict, both within "
        f"{100 * st.step_tolerance:g} %. Flat-ground rows keep the {1e3 * setting.flat_time_step:g} ms step; "
        "`make bench` "
        "measures it against 1e-4 s (pedal wave) and measures the obstacle at the shipped step against 1e-4 s. "
        + f"{len(checked) - len(bad)} of {len(checked)} checked rows are converged; "
        + ("every verdict is the same at half the step." if same else "**some verdicts change with the step.**")
        + ("" if not bad else f" Not within {100 * st.step_tolerance:g} %: "
           + "; ".join(f"*{r.label}* ({_why_not(r, st.step_tolerance)})" for r in bad) + ".")
        + _slow_rows(bad),
        "",
    ]


def _flat(rows: list[Outcome] | None, setting: Setting) -> list[str]:
    """Flat ground: why TSC with Table 7.1's gains loses the wave, and the shipped parameters."""
    if not rows:
        return []
    m_d, d_d, k_d = setting.tsc_gains
    h71 = TSCGains(*TABLE_7_1_GAINS, 0.0).frequency_response(setting.gait_frequency)
    shipped = TSCGains(m_d, d_d, k_d, 0.0).frequency_response(setting.gait_frequency)
    flat = {r.label: r for r in rows}
    t71 = [r for r in rows if r.label.startswith("TSC, Table 7.1")]
    open71 = flat["open loop, Table 7.1 (A = π/6)"]
    ours_vs_002 = "slower" if open71.speed_mps < OPEN_LOOP_SPEED_002 else "not slower"
    tail = np.degrees(TABLE_7_1_AMPLITUDE)
    dies = all(r.head_amplitude_deg < tail for r in t71)
    barely = all(r.speed_mps < BARELY_MOVES * open71.speed_mps for r in t71)
    lag = np.degrees(np.angle(shipped))
    in_range = K_D_RANGE_002[0] <= k_d <= K_D_RANGE_002[1]
    return [
        "### Flat ground", "",
        "Open loop and TSC with Table 7.1's parameters, then every controller with the parameters of the shipped "
        f"scenarios (A = {_angle(setting.tsc_amplitude)}; TSC M_d = {m_d:g}, D_d = {d_d:g}, K_d = {k_d:g}). 002 "
        f"Table 5.2 gives {1e3 * OPEN_LOOP_SPEED_002:g} mm/s for the open loop at A = π/6 (simulation), here "
        f"{1e3 * open71.speed_mps:.1f} mm/s; see the pedal-wave section for why this model is {ours_vs_002}.", "",
        "Why TSC needs other parameters here: (7.2) filters the neighbour's *measured* angle with "
        "H(iω) = K_d/(K_d − M_d ω² + i D_d ω) (`TSCGains.frequency_response`). With Table 7.1's gains "
        f"|H(iπ)| = {abs(h71):.2f} and arg H = {np.degrees(np.angle(h71)):.0f}° per joint; the soft SEA "
        f"(K = {setting.spring_stiffness:g} N·m/rad) also lets every measured angle sag below its reference under the "
        "weight of the links, so the wave "
        + ("dies out towards the head" if dies else "does not die out towards the head")
        + " (head amplitude " + ", ".join(f"{r.head_amplitude_deg:.0f}°" for r in t71)
        + f" against the tail's {tail:.0f}°) and the robot "
        + ("barely moves" if barely else "moves")
        + " (" + ", ".join(f"{1e3 * r.speed_mps:.1f} mm/s" for r in t71) + " against "
        f"{1e3 * open71.speed_mps:.1f} mm/s for the open loop; "
        f"{'under' if barely else 'not all under'} the {100 * BARELY_MOVES:g} % of it we call barely moving). "
        f"K_d = {k_d:g} ({'inside' if in_range else 'outside'} 002's {K_D_RANGE_002[0]:g}–{K_D_RANGE_002[1]:g}) "
        f"gives |H(iπ)| = {abs(shipped):.2f} and arg H = {lag:.0f}°"
        + (", i.e. the φ = −2π/5 = −72° of 002's open-loop gait, which keeps the wave alive to the head"
           if round(lag) == -72 else "")
        + "; A = π/3 is 002's largest amplitude.", "",
        *_table(rows), ""]


def _angle(radians: float) -> str:
    """π/n for the amplitudes of 002 (π/6, π/4, π/3), else degrees."""
    n = np.pi / radians
    return f"π/{round(n)}" if abs(n - round(n)) < 1e-9 else f"{np.degrees(radians):g}°"


def _grid(rows: list[Outcome] | None, setting: Setting, st: RunSettings) -> list[str]:
    """One cell per TSC parameter set of 002's ranges on the single obstacle: verdict and CoM speed, and the
    verdict at half the step."""
    if not rows:
        return []
    climbed = [r.label for r in rows if r.climb.climbed]
    cells = iter(rows)
    columns = [(a, kt) for a, _ in st.grid_amplitudes for kt in st.grid_torque_gains]
    lines = ["### TSC over 002's gain ranges, single obstacle", "",
             f"M_d = {setting.tsc_gains[0]:g}; A = {', '.join(a for a, _ in st.grid_amplitudes)}, 002's largest; "
             "D_d and "
             f"K_d from Table 7.1 ({TABLE_7_1_GAINS[1]:g}, {TABLE_7_1_GAINS[2]:g}) to the experiments "
             f"({st.grid_damping[-1]:g}, {st.grid_stiffness[-1]:g}); K_τ = "
             + " and ".join(f"{k:g}" for k in st.grid_torque_gains) + ". Each cell: climbed (time) or not, the CoM "
             "speed over the run [mm/s], then the verdict at "
             "half the step and whether the row is converged (same verdict, time and speed within "
             f"{100 * st.step_tolerance:g} %).", "",
             "| D_d, K_d | " + " | ".join(f"A = {a}, K_τ = {kt:g}" for a, kt in columns) + " |",
             "|---|" + "---|" * len(columns)]

    def cell(r: Outcome) -> str:
        text = f"{_climb_text(r.climb)}, {1e3 * r.speed_mps:.1f}"
        if r.half is not None:
            text += f"; h/2: {_climb_text(r.half.climb)}, {'converged' if r.converged else '**NOT converged**'}"
        return text

    by_gains = {}
    for d in st.grid_damping:
        for k in st.grid_stiffness:
            row = [next(cells) for _ in columns]
            by_gains[(d, k)] = row
            lines.append(f"| {d:g}, {k:g} | " + " | ".join(cell(r) for r in row) + " |")
    w = setting.gait_frequency
    gain = {(d, k): abs(TSCGains(1.0, d, k, 0.0).frequency_response(w))
            for d in st.grid_damping for k in st.grid_stiffness}
    d_hi, d_lo, k_hi = max(st.grid_damping), min(st.grid_damping), max(st.grid_stiffness)
    weak = max(v for (d, _), v in gain.items() if d == d_hi)
    strong = gain[(d_lo, k_hi)]
    damped = [r for (d, _), row in by_gains.items() if d == d_hi for r in row]
    hardly = all(abs(r.speed_mps) < HARDLY_MOVES for r in damped)
    free = by_gains[(d_lo, k_hi)][0]  # K_τ = 0: the wave as (7.2) passes it on
    at_limit = free.head_amplitude_deg >= setting.joint_limit_deg - 1.0
    lines += ["", f"Climb: {'; '.join(climbed) if climbed else 'none of these parameter sets'}. With "
              f"D_d = {d_hi:g}, |H(iπ)| ≤ {weak:.2f} per joint, so the wave reaching the head is at most "
              f"{100 * weak ** 4:.0f} % of A (before the SEA's sag) and the robot "
              + ("hardly moves" if hardly else "still moves")
              + f" (at most {1e3 * max(abs(r.speed_mps) for r in damped):.1f} mm/s"
              + (f", under the {1e3 * HARDLY_MOVES:g} mm/s we call hardly moving" if hardly else "")
              + f"); with D_d = {d_lo:g}, "
              f"K_d = {k_hi:g}, |H(iπ)| = {strong:.2f} and the wave reaches the head "
              + (f"at the ±{setting.joint_limit_deg:.0f}° limit" if at_limit else
                 f"at {free.head_amplitude_deg:.0f}°, below the ±{setting.joint_limit_deg:.0f}° limit") + ".", ""]
    return lines


def _face_friction(groups: dict[str, list[Outcome]], setting: Setting, st: RunSettings) -> list[str]:
    """Which friction on the box's vertical faces lets each controller over the single obstacle, and how fast
    (numbers taken from the runs)."""
    single, face = groups.get("single obstacle"), groups.get("face")
    if not single or not face:
        return []
    shipped = {r.label: r for r in single}
    top = ", ".join(f"{mu:g}" for mu in setting.box_friction)
    height = setting.boxes["single obstacle"][0][0]
    lines = ["### Friction on the box's faces, single obstacle", "",
             "The box follows 002's contact model: (4.26) and (4.27) on its near face, top and far face (§4.6, "
             f"Fig. 4.4) for the 2N+1 candidates, each a disc with the {setting.contact_radius:g} m contact radius of "
             "§5.3, the box's edges rounded by it. (4.27) on the near face opposes a point sliding up it. Below, the "
             "μ of the box's vertical faces is lowered (`world.side_friction`, a study, not a 002 parameter; the top "
             f"keeps {top}, and a face's μ reaches round its rounded edge); the shipped runs (μ = {top}) are in the "
             "single-obstacle table. *On the face*: the head tip's disc presses on the near face with its centre "
             f"below the {_mm(height)} mm edge.", ""]
    lines += [*_table(face), ""]
    lines += ["| run | head tip on the face [s] | highest head tip on the face [mm] |", "|---|---|---|"]
    lines += [f"| {r.label} | {r.face_time_s:.1f} | {1e3 * r.face_height_max_m:.0f} |"
              for r in [*single, *face] if r.face_time_s == r.face_time_s]
    lines.append("")
    frictions = (*st.side_frictions, *setting.box_friction)
    for label, _, _ in FACE_CONTROLLERS:
        runs = [r for r in face if r.label.startswith(f"{label}, μ")]
        runs += [r for name, r in shipped.items() if name.startswith(label)][:1]
        lines.append(_face_verdict(label, list(zip(frictions, runs, strict=False))))
    lines.append(_face_gains(face, st))
    module = groups.get("module", [])
    if module:
        r = 0.5 * setting.module_width
        lines.append(f"- *The module's size* (r_c = {_mm(r)} mm, so that the box is about one radius of the head's "
                     f"disc tall, as it is {100 * height / setting.module_width:.0f} % of the robot's "
                     f"{_mm(setting.module_width)} mm module), faces at μ = {top}: " + "; ".join(
                         f"{r.label}: {_climb_text(r.climb)} (h/2: {_climb_text(r.half.climb) if r.half else '–'})"
                         for r in module) + ".")
    return [*lines, ""]


def _face_verdict(label: str, runs: list[tuple[float, Outcome]]) -> str:
    """At which face frictions one controller climbs, how fast, and at which not."""
    climbs = [(mu, r) for mu, r in runs if r.climb.climbed]
    if not climbs:
        return (f"- *{label}* climbs with none of μ = " + ", ".join(f"{mu:g}" for mu, _ in runs)
                + " on the vertical faces.")
    return (f"- *{label}* climbs with μ = {', '.join(f'{mu:g}' for mu, _ in climbs)} on the vertical faces ("
            + "; ".join(f"μ = {mu:g}: {r.climb.time_to_climb_s:.1f} s, {_climb_speed(r.climb)} mm/s"
                        for mu, r in climbs)
            + "), not with " + (", ".join(f"μ = {mu:g}" for mu, r in runs if not r.climb.climbed) or "none") + ".")


def _face_gains(face: list[Outcome], st: RunSettings) -> str:
    """TSC's climb speed against the open loop's at each face friction where both climb."""
    both = []
    for mu in st.side_frictions:
        rows = {r.label.split(", μ")[0]: r for r in face if r.label.endswith(f"μ = {mu:g} on the vertical faces")}
        ol = rows.get("open loop")
        for label in ("TSC, K_τ = 0", "TSC, K_τ = 6"):
            tsc = rows.get(label)
            if ol and tsc and ol.climb.climbed and tsc.climb.climbed:
                gain = _relative(tsc.climb.climb_average_speed_mps, ol.climb.climb_average_speed_mps)
                both.append(f"μ = {mu:g}: {label} {gain}")
    return ("- *TSC against the open loop where both climb* (climb speed): "
            + ("; ".join(both) if both else "there is no face friction at which both climb")
            + f" (002 §7.3: TSC {100 * TSC_GAIN_002:+.1f} %).")


def _against_002(groups: dict[str, list[Outcome]], setting: Setting) -> list[str]:
    """Where and why the runs differ from 002 §6.4, §7.3–7.4 (numbers taken from the runs above)."""
    single = groups.get("single obstacle")
    if not single:
        return []
    base = single[0]
    rel = {r.label: _relative(r.climb.climb_average_speed_mps, base.climb.climb_average_speed_mps)
           if r.climb.climbed and base.climb.climbed else _climb_text(r.climb) for r in single[1:]}
    t71 = groups.get("t71", [])
    if not t71:
        table_7_1 = ""
    elif any(r.climb.climbed for r in t71):
        table_7_1 = ("With Table 7.1's own parameters " + ", ".join(r.label for r in t71 if r.climb.climbed)
                     + " climbs (table above).")
    elif all(r.face_time_s == 0.0 for r in t71):
        table_7_1 = "With Table 7.1's own parameters nothing moves far enough to reach the box (flat-ground table)."
    else:
        table_7_1 = "With Table 7.1's own parameters nothing climbs (table above)."
    lines = [
        "### Against 002", "",
        "- *TSC vs open loop on the single obstacle, faces at μ = "
        + ", ".join(f"{mu:g}" for mu in setting.box_friction) + ".* 002 §7.3 (simulation, Table 7.1): both "
        f"climb, TSC {100 * TSC_GAIN_002:.1f} % faster. Here (A = {_angle(setting.tsc_amplitude)}, "
        f"K_d = {setting.tsc_gains[2]:g}), the open loop: {_climb_text(base.climb)}; "
        + "; ".join(f"{k}: {v}" for k, v in rel.items()) + ". " + (table_7_1 + " " if table_7_1 else "")
        + "Where a controller climbs only "
        "with less friction on the vertical faces, see *Friction on the box's faces*.",
        "- *Roll-over.* On the robot the open loop failed by rolling over to one side (002 §6.4, §7.4), a 3-D "
        "effect the vertical-plane model cannot show (§7.4 says so); here every verdict is about the gait "
        "alone.",
        _local_stiffness(groups.get("flat", []), setting),
    ]
    pair = groups.get("two obstacles", [])
    climbers = [r.label for r in pair if r.climb.climbed]
    (h1, l1), (h2, l2) = setting.boxes["two obstacles"][:2]
    lines.append(f"- *Two obstacles.* 002's robot climbed Fig. 7.9's pair ({_mm(h1)} × {_mm(l1)} mm, then "
                 f"{_mm(h2)} × {_mm(l2)} mm) with TSC, K_τ = 6 only ({TWO_OBSTACLES_TIME_002:g} s); here: "
                 f"{', '.join(climbers) if climbers else 'no controller'}.")
    lines += [
        "- *The step.* Earlier versions of this page ran the obstacles at 5 ms, where a verdict could change with "
        "the step; every verdict above is checked at half its step (last columns).",
        "",
    ]
    return lines


def _local_stiffness(flat: list[Outcome], setting: Setting) -> str:
    """How soft K_d = K/6 is against a link's weight, and what that does to the speed on flat ground."""
    k, k_d = setting.spring_stiffness, setting.local_stiffness
    load = setting.link_mass * GRAVITY * setting.link_length
    text = (f"- *Local stiffness.* K_d = K/{k / k_d:.0f} = {k_d:g} N·m/rad (002 §6.4, the value that climbed on "
            f"the robot) makes each joint a spring of {k_d:g} N·m/rad about the gait: a joint carrying one link's "
            f"weight at a link's length, m g 2l = {load:.2f} N·m, gives way by τ/K_d ≈ "
            f"{np.degrees(load / k_d):.0f}°")
    rows = {r.label: r for r in flat}
    local, open_loop = rows.get(CONTROLLERS[1][0]), rows.get(CONTROLLERS[0][0])
    if local is None or open_loop is None:
        return text + "."
    ratio = local.speed_mps / open_loop.speed_mps
    return text + (f", so the arches that should lift the body sag and on flat ground the robot advances at "
                   f"{1e3 * local.speed_mps:.1f} mm/s, {100 * ratio:.0f} % of the open loop's "
                   f"{1e3 * open_loop.speed_mps:.1f} mm/s." if ratio < 1.0 else
                   f"; yet on flat ground the robot advances at {1e3 * local.speed_mps:.1f} mm/s, as fast as the open "
                   f"loop ({1e3 * open_loop.speed_mps:.1f} mm/s).")
