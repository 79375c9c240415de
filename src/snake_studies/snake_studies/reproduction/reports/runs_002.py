"""The report of section ``runs_002``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.runs_002` alone; nothing here runs a simulation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from snake_core.controllers.tsc import TSCGains
from snake_sim.analysis.step_check import compare, half_step_spread
from snake_studies.climb_3d import Climb3dRun, claim_verdict
from snake_studies.reproduction.experiments.runs_002 import (
    COMPARISONS_002,
    ENGINE_NAMES,
    PER_STEP,
    Results,
    Row,
    Run002,
    expected_outcome,
    select,
)
from snake_studies.reproduction.reports.climb_3d import failed_lines
from snake_studies.reproduction.results import comparison_text, figure, pi_text, robot_text

# COMPARISONS_002: 002's comparisons (the paper's words); ENGINE_NAMES, PER_STEP: labels; how the runs were made (002's
# rows as run, engines, perturbation, worlds) is results.settings and the Results' typed fields.

TITLE = "002's runs at 002's own settings, in three engines (002 §6.4, §7.3, §7.4)"


def climb_times(runs: Sequence[Run002]) -> list[tuple[float | None, float | None]]:
    """(climb time at h, at h/2) of each run; None where it did not climb at that step."""
    return [r.run.time_pair for r in runs]


def _speeds(runs: Sequence[Run002]) -> list[tuple[float | None, float | None]]:
    return [(r.run.com_speed_mps, r.run.half_com_speed_mps) for r in runs]


def _mm(speed: float) -> str:
    return figure(1e3 * speed)


def cell_text(runs: list[Run002]) -> str:
    """Climbed (times), rolled over, CoM speed and the half-step check of one row in one engine."""
    if not runs:
        return "not run"
    n = len(runs)
    climbs = [r for r in runs if r.run.climbed]
    rolls = [r for r in runs if r.run.rolled_over]
    text = (f"climbs {len(climbs)}/{n}" + (" (" + ", ".join(f"{r.run.time_to_climb_s:.1f}" for r in climbs) + " s)"
                                           if climbs else ""))
    short = [r for r in runs if r.run.reached is False]
    if short:
        text += f", **did not reach the box {len(short)}/{n}**"
    if runs[0].run.rolled_over is not None:
        text += f", rolls over {len(rolls)}/{n}, max roll {max(r.run.max_roll_deg for r in runs):.0f}°"
    low, high = (_mm(f([r.run.com_speed_mps for r in runs])) for f in (min, max))
    text += f"; {low}" + ("" if low == high else f"–{high}") + " mm/s"
    flips = [r for r in runs if not r.run.verdicts_unchanged]
    spread = half_step_spread(climb_times(climbs))
    check = (f"**{len(flips)} verdict flip{'s' if len(flips) > 1 else ''}**" if flips else "same verdicts")
    if spread is not None:
        check += f", climb times ±{spread:.1f} s"
    elif climbs:
        check += ", a climb time missing at one step"
    conv = sum(r.run.converged for r in runs)
    return f"{text}; h/2: {check}, {conv}/{n} converged"


def _mm_text(length_m: float) -> str:
    return f"{1e3 * length_m:g} mm"


def _002_cell(row: Row) -> str:
    return f"{row.outcome_002}: {row.result_002}"


def _table(results: Results, experiment: str) -> list[str]:
    rows = [r for r in results.settings.rows if r.experiment == experiment]
    header = "| controller | 002 | " + " | ".join(ENGINE_NAMES[e] for e in results.settings.engines) + " |"
    lines = [header, "|---|---|" + "---|" * len(results.settings.engines)]
    for row in rows:
        cells = [cell_text(select(results, experiment, row.controller, e)) for e in results.settings.engines]
        lines.append(f"| {row.controller} | {_002_cell(row)} | " + " | ".join(cells) + " |")
    return lines


def _plate_table(results: Results) -> list[str]:
    """The plate range's other values (MuJoCo) beside the scenarios' plate, same seeds."""
    others = results.plate_frictions[1:]
    plated = [r for r in results.runs if r.plate is not None and r.plate != results.plate_frictions[0]]
    if not plated:
        return []
    seeds = results.plate_seeds
    low = results.plate_frictions[0]
    lines = ["### The top plate's friction", "",
             "002 put a plate \"only for higher friction\" on the boxes' tops in every robot experiment, its μ not "
             f"printed. The rows above use μ = {low:g} (the high-friction plate 002 measured in §5.5); here MuJoCo, "
             f"seed {', '.join(map(str, seeds))}, with " + ", ".join(f"μ = {mu:g}" for mu in others)
             + " beside it. "
             + (f"In DART the plate changes nothing: DART takes the smaller of two surfaces' μ, and the robot's links "
                f"carry μ = {results.dart_friction:g}, below every plate of the range."
                if results.dart_friction <= min(results.plate_frictions) else
                "In DART, which takes the smaller of two surfaces' μ, a plate above the robot's links' μ = "
                f"{results.dart_friction:g} acts as that μ."), "",
             "| section | controller | " + " | ".join(f"μ = {mu:g}" for mu in (low, *others)) + " |",
             "|---|---|" + "---|" * (1 + len(others))]
    keys = list(dict.fromkeys((r.experiment, r.controller) for r in plated))
    for experiment, controller in keys:
        cells = [cell_text([r for r in select(results, experiment, controller, "mujoco", mu) if r.run.seed in seeds])
                 for mu in (low, *others)]
        lines.append(f"| {experiment} | {controller} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _comparisons(results: Results) -> list[str]:
    lines = ["### 002's comparisons, under the half-step rule", "",
             "A comparison of two rows is called a difference only when it exceeds the half-step spread of the runs "
             "it compares: the mean climb time of one row minus the other's (over the seeds), against the largest "
             "change of any of their climb times from h to h/2. Where a run does not climb at one of the two steps "
             "there is no time to compare.", ""]
    for experiment, faster, slower, words in COMPARISONS_002:
        parts = []
        for e in results.settings.engines:
            a, b = (select(results, experiment, c, e) for c in (faster, slower))
            if a and b:
                parts.append(f"{ENGINE_NAMES[e]}: "
                             + comparison_text(compare(climb_times(a), climb_times(b)), faster, slower))
        lines.append(f"- *{experiment}, {faster} against {slower}* (002: {words}). "
                     + ("; ".join(parts) if parts else "Not run") + ".")
    return [*lines, ""]


def _gain_scale(results: Results) -> list[str]:
    """(7.2)'s |H(iω)| for 002's printed gains in seconds and per control step, and the per-step runs."""
    w = results.gait_frequency
    si = TSCGains(*results.gains_7_4, 0.0).frequency_response(w)
    t71 = TSCGains(*results.gains_7_1, 0.0).frequency_response(w)
    step = TSCGains(*results.gains_7_4, 0.0, results.time_unit_s).frequency_response(w)
    filters = 4  # joints 2 … 5 each filter their tail-side neighbour's angle: the head's wave is |H|⁴ of the tail's
    m_d, d_d, k_d = results.gains_7_4
    units = np.geomspace(1e-3, 10.0, 400)
    grid = [TSCGains(*results.gains_7_4, 0.0, u).frequency_response(w) for u in units]
    keeps = [(u, h) for u, h in zip(units, grid, strict=True) if abs(h) ** filters >= 0.5]
    lag = max(abs(np.degrees(np.angle(h))) for _, h in keeps) if keeps else 0.0
    phi = np.degrees(results.gait_phase_shift)
    lines = ["### The gain scale of 002's experimental TSC gains, and one other reading of (7.2)", "",
             "(7.2) filters each joint's neighbour angle by H(iω) = K_d/(K_d − M_d ω² + i D_d ω) "
             f"(`TSCGains.frequency_response`, as the stiffness section). At ω = {pi_text(w)} rad/s with §7.4's "
             f"printed gains (M_d, D_d, K_d) = ({m_d:g}, {d_d:g}, {k_d:g}) in SI units, as 002 prints them: "
             f"|H| = {abs(si):.2f} and arg H = {np.degrees(np.angle(si)):.0f}° per joint, so the head joint, "
             f"{filters} filters from the tail, gets |H|⁴ = {abs(si) ** filters:.2f} of A (before the SEA's own sag). "
             f"Table 7.1's simulated gains ({', '.join(f'{g:g}' for g in results.gains_7_1)}) pass "
             f"|H| = {abs(t71):.2f} per joint ({abs(t71) ** filters:.2f} of A at the head). Read in SI units, the "
             "printed experimental gains cannot be what 002's robot ran: its TSC moved the whole body over the "
             "obstacles.",
             "",
             "*Reading tried here: (7.2)'s time counted in control steps.* Each module evaluates (7.2) in its control "
             "loop (§3, a Teensy per module; Fig. 7.1); with the derivatives taken as differences per step, M_d and "
             f"D_d are per step² and per step, i.e. M_d T² and D_d T in seconds (`controller.time_unit` = T = "
             f"{1e3 * results.time_unit_s:g} ms, the scenarios' control period; 002 does not print the modules' "
             "loop rate). Angles do not enter: (7.2) is linear in them, so reading them in degrees leaves H as it is "
             f"and only rescales K_τ. Per step, |H| = {abs(step):.4f} and arg H = {np.degrees(np.angle(step)):.1f}° "
             "per joint: the wave reaches the head whole but without the lag of a travelling wave. "
             + ("No unit of time does both" if lag < abs(phi) else "Some unit of time does both")
             + f": over T from {units[0]:g} to {units[-1]:g} s, those that leave the head at least half of A "
             f"lag at most {lag:.0f}° per joint (the open-loop gait's φ is {phi:.0f}°). "
             "The runs of this reading are the *" + PER_STEP + "* rows of §7.4 and §7.4.2; their CoM speed against "
             "the printed reading's:", ""]
    for experiment in ("§7.4", "§7.4.2"):
        parts = []
        for e in results.settings.engines:
            per_step, si_runs = (select(results, experiment, c, e) for c in (f"TSC K_τ = 6, {PER_STEP}",
                                                                               "TSC K_τ = 6"))
            if per_step and si_runs:
                c = compare(_speeds(per_step), _speeds(si_runs))
                parts.append(f"{ENGINE_NAMES[e]}: " + comparison_text(c, "per step", "SI", "mm/s", 1e3)
                             + f" (per step {_mm(float(np.mean([r.run.com_speed_mps for r in per_step])))} mm/s)")
        if parts:
            lines.append(f"- *{experiment}, TSC K_τ = 6.* " + "; ".join(parts) + ".")
    return [*lines, ""]


def verdict_text(runs: Sequence[Run002], expected: str) -> str:
    """:func:`.climb_3d.claim_verdict` of the runs, with its count."""
    if not runs:
        return "not run"
    word, k = claim_verdict([r.run for r in runs], expected)
    return f"{word} ({k}/{len(runs)})"


VERDICT_RULE = ("the runs whose outcome (climbs; fails: stuck or rolled over; rolls over) is 002's at h and at h/2, "
                "of all runs. *Holds*: every run; *partly*: some; *no*: none, and every run's outcome stands at h/2; "
                "*inconclusive*: none, and some run's outcome changes between h and h/2 (the step decides it, not the "
                "model); *did not reach*: no run's head reached the box before the run ended (it tells nothing). The "
                "vertical plane cannot roll over: there a roll-over of 002's is scored as a failure.")


def _claims(results: Results) -> list[str]:
    """002's claims, each row's outcome per engine: how many runs have 002's outcome at h and at h/2."""
    lines = ["### 002's claims, verdict per engine", "",
             f"Each of 002's rows against the runs above (the scenarios' plate): {VERDICT_RULE}", "",
             "| section | controller | 002 | " + " | ".join(ENGINE_NAMES[e] for e in results.settings.engines) + " |",
             "|---|---|---|" + "---|" * len(results.settings.engines)]
    for row in results.settings.rows:
        cells = [verdict_text(select(results, row.experiment, row.controller, e), expected_outcome(row, e))
                 for e in results.settings.engines]
        lines.append(f"| {row.experiment} | {row.controller} | {row.outcome_002} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _faces(results: Results) -> list[str]:
    """The plated rows with the boxes' faces at each μ run, the verdict per engine, and which μ reproduce 002."""
    if not results.face_frictions:
        return []
    faces = (*results.face_frictions, results.face_friction)
    engines = [e for e in results.settings.engines
               if any(r.run.model == e and r.face is not None for r in results.runs)]
    lines = ["### Friction on the boxes' faces", "",
             f"The worlds give every face of a box μ = {results.face_friction:g} and the top the plate's μ; 002 put "
             "its plate on the top \"only for higher friction\", so its bare faces were perhaps slippery. The plated "
             "rows again with faces of μ = " + ", ".join(f"{mu:g}" for mu in results.face_frictions)
             + f" (`world.side_friction`) in {' and '.join(ENGINE_NAMES[e] for e in engines)}, the same seeds; each "
             f"cell the verdict on 002's outcome ({VERDICT_RULE.split('. ')[0]}) and the runs' climb times.", "",
             "| section | controller | 002 | " + " | ".join(f"{ENGINE_NAMES[e]}, faces μ = {mu:g}"
                                                          for e in engines for mu in faces) + " |",
             "|---|---|---|" + "---|" * (len(engines) * len(faces))]
    reproduces: dict[str, list[str]] = {}
    for row in results.settings.rows:
        if not any(r.face is not None for r in select(results, row.experiment, row.controller, engines[0],
                                                       face=results.face_frictions[0])):
            continue
        cells = []
        for e in engines:
            for mu in faces:
                runs = select(results, row.experiment, row.controller, e,
                               face=None if mu == results.face_friction else mu)
                times = [f"{r.run.time_to_climb_s:.1f}" for r in runs if r.run.climbed]
                cells.append(verdict_text(runs, expected_outcome(row, e))
                             + (f"; {', '.join(times)} s" if times else ""))
                if runs and claim_verdict([r.run for r in runs], expected_outcome(row, e))[0] == "holds":
                    reproduces.setdefault(f"{row.experiment} {row.controller} ({row.outcome_002})", []).append(
                        f"{ENGINE_NAMES[e]} μ = {mu:g}")
        lines.append(f"| {row.experiment} | {row.controller} | {row.outcome_002} | " + " | ".join(cells) + " |")
    lines += ["", "*Which face μ reproduces which of 002's outcomes* (every run holds): "
              + ("; ".join(f"{k}: {', '.join(v)}" for k, v in reproduces.items()) if reproduces else "none") + ".", ""]
    return lines


def _intro(results: Results) -> list[str]:
    seeds = results.seeds
    mujoco = [r.run for r in results.runs if r.run.model == "mujoco"]
    vertical = [r.run for r in results.runs if r.run.model == "vertical"]
    dart = [r.run for r in results.runs if r.run.model == "dart"]

    def steps(runs: list[Climb3dRun]) -> str:
        return ", ".join(f"{1e3 * h:g}" for h in sorted({r.time_step_s for r in runs})) or "–"

    durations = "; ".join(f"{ENGINE_NAMES[k.split()[0]]} {'one box' if k.endswith('1') else 'two boxes'} {v:g} s"
                          for k, v in results.durations.items())
    k = results.spring_stiffness
    local = ", ".join(f"{s}: K_d = {kd:g} N·m/rad, (K − K_d)/K_d = {(k - kd) / kd:.2f}"
                      for s, kd in results.local_stiffness.items())
    st = results.settings
    return [f"The runs 002 reports, each with the settings 002 prints for it (scenarios `exp64-*`, `sim73-*`, "
            "`exp74-*` and their `-3d` twins): §6.4 on the robot at A = π/4, §7.3 in 002's simulation (Table 7.1, "
            f"A = π/6, on the obstacle {_mm_text(st.single_obstacle_start_gap)} ahead of the head tip), §7.4 on "
            f"the robot at A = π/6 (the single obstacle {_mm_text(st.lab_start_gap)} ahead of the head tip: "
            "002's \"100mm away from joint 5 (head module)\" read from the head module's tip, as §7.4.2's start; §6.4 "
            "prints no distance and the same board is read; and §7.4.2's two obstacles), "
            f"ω = {pi_text(results.gait_frequency)} rad/s and φ = {pi_text(results.gait_phase_shift)} "
            f"throughout; local stiffness {local} (K = {k:g} N·m/rad). K_d = K is position control (the admittance "
            "term of Fig. 6.2 vanishes), the open loop's controller. The robot experiments' boxes carry a top plate "
            f"of μ = {results.plate_frictions[0]:g} (002's plate is \"for higher friction\", its μ not printed; "
            "other values below); §7.4.2's gap between the boxes is not printed either: "
            f"{_mm_text(st.two_obstacles_gap)} is read (wider than one module, as 002's warning that the head "
            "may get stuck in it implies, narrower than two).",
            "",
            f"Engines: the vertical plane (002's model, deterministic, h = {steps(vertical)} ms), MuJoCo (perturbation "
            f"seeds {', '.join(map(str, seeds.get('mujoco', ())))}: a {st.roll_deg:g}° initial roll and "
            f"{st.joint_noise_deg:g}° joint-angle noise, h = {steps(mujoco)} ms) and DART as Gazebo sets it up "
            "(seed "
            f"{', '.join(map(str, seeds.get('dart', ())))}, h = {steps(dart)} ms). Simulated time: {durations} "
            "(DART is the slowest engine: a climb after its shorter time is a *no* there). Every run is repeated at "
            "half its step. *Climbs*: the tail tip passes the far edge of the last box, the time per run; *rolls "
            f"over*: a module's roll about its own axis passes {results.roll_over_deg:g}°; the CoM speed over the run; "
            "then the half-step check: verdict flips, the largest change of a climb time, and how many runs are "
            f"converged (verdicts the same, times and speeds within {100 * st.step_tolerance:g} %).", ""]


def _reach(results: Results) -> list[str]:
    """Whether the windows let the robot get there: the runs per engine whose head reached the first box at h and
    at h/2."""
    parts = []
    for e in results.settings.engines:
        runs = [r.run for r in results.runs if r.run.model == e]
        if runs:
            k = sum(bool(r.reached and r.half_reached) for r in runs)
            parts.append(f"{ENGINE_NAMES[e]} {k} of {len(runs)}")
    return ["*Long enough to get there*: the runs whose head reached the first box at h and at h/2: "
            + "; ".join(parts) + " (a run that did not is scored *did not reach*, never *no*).", ""] if parts else []


EXPERIMENT_TITLES = {
    "§6.4": "§6.4, on the robot: local stiffness over the 36 × 107 mm obstacle (A = π/4)",
    "§7.3": "§7.3, 002's simulation (Table 7.1): open loop and TSC on the 36 × 107 mm obstacle (A = π/6)",
    "§7.4": "§7.4, on the robot: the single obstacle (A = π/6)",
    "§7.4.2": "§7.4.2, on the robot: two obstacles (A = π/6)",
}


def render(results: Results) -> str:
    """The section's Markdown from the stored results alone."""
    out = [f"## {TITLE}", ""]
    if results.fast:
        out += [f"*Fast smoke run ({results.settings.smoke_duration_s:g} s per run, one seed): the numbers below are "
                "not results.*", ""]
    out += [*_intro(results), *failed_lines(results), *_reach(results)]
    for experiment, title in EXPERIMENT_TITLES.items():
        if any(r.experiment == experiment for r in results.runs):
            robot = results.robots.get(experiment)
            out += [f"### {title}", "", *([f"On {robot_text(robot)}.", ""] if robot else []),
                    *_table(results, experiment), ""]
    out += [*_plate_table(results), *_faces(results), *_comparisons(results), *_gain_scale(results),
            *_claims(results)]
    return "\n".join(out)
