"""The report of section ``gain_scale``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.gain_scale` alone; nothing here runs a simulation.
"""

from __future__ import annotations

import numpy as np

from snake_core.controllers.tsc import TSCGains
from snake_sim.analysis.step_check import compare
from snake_studies.reproduction.experiments.gain_scale import (
    CONTROLLERS,
    GAINS_7_4,
    SCENARIOS,
    STEPS,
    Reading,
    Results,
    _ratio_text,
    softer_climbs_where_stiff_fails,
    verdict,
)
from snake_studies.reproduction.experiments.runs_002 import ENGINE_NAMES, Run002
from snake_studies.reproduction.reports.climb_3d import failed_lines
from snake_studies.reproduction.reports.runs_002 import cell_text, climb_times
from snake_studies.reproduction.results import comparison_text, pi_text

# GAINS_7_4: 002 §7.4's printed (D_d, K_d); CONTROLLERS, SCENARIOS, STEPS: the readings' labels; how the runs were made
# (engines, seed, the gains scanned) is results.settings.

TITLE = "The gain scale of 002's controllers, bracketed (002 §6.4, §7.4)"
GRAVITY = 9.81  # [m/s²]

#: 002's §6.4 climb time with K_d = K/6 (5 of 5 trials, on average) [s].
CLIMB_6_4_S = 24.6
#: 002's §7.4.1 climb time with K_τ = 0 [s], and how much slower K_τ = 6 climbed (4.6 %).
CLIMB_7_4_S = 40.1
SLOWER_K6 = 0.046
#: "~40 s": a climb time within this fraction of 002's counts as 002's.
TIME_BAND = 0.25


def _climb_time(run: Run002, step: str) -> float | None:
    return run.run.time_pair[STEPS.index(step)]


def climbs_in(runs: list[Run002], target_s: float) -> str | None:
    """002 §7.4's claim "TSC climbs the single box in ~40 s" for one reading in one engine: at each step every run
    climbs within :data:`TIME_BAND` of ``target_s``; None where it was not run."""
    if not runs:
        return None

    def at(step: str) -> bool:
        times = [_climb_time(r, step) for r in runs]
        return all(t is not None and abs(t - target_s) <= TIME_BAND * target_s for t in times)

    return verdict(at("h"), at("h/2"))


def _target(controller: str) -> float:
    """002's climb time of a TSC controller on §7.4's single box [s]."""
    return CLIMB_7_4_S * (1.0 + SLOWER_K6) if controller == "TSC K_τ = 6" else CLIMB_7_4_S


def _deg(radians: float) -> str:
    return f"{np.degrees(radians):.0f}°"


def _sag(results: Results, ratio: float) -> float:
    """A joint's sag under one link's weight at its centre, m g l / K_d [rad] (Fig. 6.2: τ = K_d (α − α_d))."""
    return results.link_mass * GRAVITY * 0.5 * results.link_length / (ratio * results.spring_stiffness)


def _inertial(results: Results, ratio: float) -> float:
    """|α/α_d| at ω of a joint that swings one link about its end as a spring K_d about the gait:
    K_d / (K_d − J ω²), J = J_l + m l²."""
    j = results.link_inertia + results.link_mass * (0.5 * results.link_length) ** 2
    k_d = ratio * results.spring_stiffness
    return abs(k_d / (k_d - j * results.gait_frequency**2))


def _response(results: Results, reading: Reading) -> complex:
    """(7.2)'s H(iω) of a TSC reading (in its unit of time)."""
    assert reading.tsc_gains is not None
    return TSCGains(*reading.tsc_gains, 0.0, reading.time_unit_s).frequency_response(results.gait_frequency)


def _engine_cells(results: Results, reading: Reading) -> list[str]:
    st = results.settings
    return [cell_text(results.runs_of(reading, e)) for e in st.engines]


def _stiffness_table(results: Results, experiment: str) -> list[str]:
    st = results.settings
    a = results.amplitudes[experiment]
    lines = [f"### Local stiffness K_d/K, {experiment} (A = {pi_text(a)})", "",
             "| reading | K_d [N·m/rad] | sag m g l/K_d | \\|α/α_d\\| at ω, one link | "
             + " | ".join(ENGINE_NAMES[e] for e in st.engines) + " |", "|---|---|---|---|" + "---|" * len(st.engines)]
    for reading in results.readings:
        if reading.experiment != experiment or reading.stiffness_ratio is None:
            continue
        ratio = reading.stiffness_ratio
        sag = _sag(results, ratio)
        lines.append(f"| {reading.controller}, {reading.label} | {ratio * results.spring_stiffness:.3g} | "
                     f"{_deg(sag)} ({100 * sag / a:.0f} % of A) | {_inertial(results, ratio):.2f} | "
                     + " | ".join(_engine_cells(results, reading)) + " |")
    return [*lines, ""]


def _tsc_table(results: Results, controller: str) -> list[str]:
    st = results.settings
    lines = [f"### {controller}, §7.4 (A = {pi_text(results.amplitudes['§7.4'])}, M_d = {st.tsc_inertia:g})", "",
             "| reading | \\|H\\| per joint | arg H | \\|H\\|⁴ (head) | "
             + " | ".join(ENGINE_NAMES[e] for e in st.engines) + " |", "|---|---|---|---|" + "---|" * len(st.engines)]
    for reading in results.readings:
        if reading.controller != controller:
            continue
        h = _response(results, reading)
        lines.append(f"| {reading.label} | {abs(h):.2f} | {np.degrees(np.angle(h)):.0f}° | {abs(h) ** 4:.2f} | "
                     + " | ".join(_engine_cells(results, reading)) + " |")
    return [*lines, ""]


def _which(words: dict[str, list[str]]) -> str:
    """"yes: *a*, *b*; inconclusive: *c*" of the readings per verdict (none: "none")."""
    parts = [f"{w}: " + ", ".join(f"*{label}*" for label in labels) for w in ("yes", "inconclusive")
             if (labels := words.get(w))]
    return "; ".join(parts) if parts else "none"


def _claim_6_4(results: Results) -> list[str]:
    """002 §6.4, K_d = K/6 climbs where K_d = K fails: every softer reading of §6.4 against K_d = K, per engine."""
    st = results.settings
    stiff = [r for r in results.readings if r.experiment == "§6.4" and r.controller == "open loop"]
    softer = [r for r in results.readings if r.experiment == "§6.4" and r.controller == "local stiffness"]
    if not stiff or not softer:
        return []
    lines = ["*002 §6.4: \"K_d = K/6 climbs where K_d = K fails\"* (at A = π/4; 5 of 5 climbs at K/6, stuck or rolled "
             "over at K). Per reading and engine: at each step the softer reading climbs and K_d = K does not.", "",
             "| reading | " + " | ".join(ENGINE_NAMES[e] for e in st.engines) + " |",
             "|---|" + "---|" * len(st.engines)]
    found: dict[str, dict[str, list[str]]] = {e: {} for e in st.engines}
    for reading in softer:
        cells = []
        for e in st.engines:
            word = softer_climbs_where_stiff_fails(results.runs_of(reading, e), results.runs_of(stiff[0], e))
            cells.append(word or "not run")
            found[e].setdefault(word or "", []).append(reading.label)
        lines.append(f"| {reading.label} | " + " | ".join(cells) + " |")
    lines += ["", "Reproduced (*yes*, and *inconclusive* where the step decides): "
              + "; ".join(f"{ENGINE_NAMES[e]}: {_which(found[e])}" for e in st.engines) + ".", ""]
    return lines


def _claim_7_4(results: Results) -> list[str]:
    """002 §7.4, TSC climbs the single box in ~40 s: every TSC reading, per K_τ and engine."""
    st = results.settings
    tsc = [r for r in results.readings if r.controller.startswith("TSC")]
    if not tsc:
        return []
    labels = list(dict.fromkeys(r.label for r in tsc))
    controllers = [c for c in CONTROLLERS[2:] if any(r.controller == c for r in tsc)]
    band = ", ".join(f"{c} {_target(c):.1f} s" for c in controllers)
    lines = [f"*002 §7.4: \"TSC climbs the single box in ~40 s\"* (§7.4.1: {CLIMB_7_4_S:g} s for K_τ = 0, K_τ = 6 "
             f"{100 * SLOWER_K6:.1f} % slower). Per reading, K_τ and engine: at each step the run climbs within "
             f"±{100 * TIME_BAND:.0f} % of 002's time ({band}).", "",
             "| reading | " + " | ".join(f"{c}, {ENGINE_NAMES[e]}" for c in controllers for e in st.engines) + " |",
             "|---|" + "---|" * (len(controllers) * len(st.engines))]
    found: dict[tuple[str, str], dict[str, list[str]]] = {}
    comparisons = []
    for label in labels:
        cells = []
        by_controller = {r.controller: r for r in tsc if r.label == label}
        for c in controllers:
            for e in st.engines:
                reading = by_controller.get(c)
                word = climbs_in(results.runs_of(reading, e), _target(c)) if reading else None
                cells.append(word or "not run")
                found.setdefault((c, e), {}).setdefault(word or "", []).append(label)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
        if len(by_controller) == 2:
            slow, fast_ = (by_controller[c] for c in ("TSC K_τ = 6", "TSC K_τ = 0"))
            parts = [f"{ENGINE_NAMES[e]}: " + comparison_text(
                compare(climb_times(results.runs_of(slow, e)), climb_times(results.runs_of(fast_, e))), "K_τ = 6",
                "K_τ = 0")
                for e in st.engines]
            comparisons.append(f"- *{label}.* " + "; ".join(parts) + ".")
    lines += ["", "Reproduced (*yes*, and *inconclusive* where the step decides): "
              + "; ".join(f"{c} in {ENGINE_NAMES[e]}: {_which(found[(c, e)])}" for c in controllers for e in st.engines)
              + ".", ""]
    if comparisons:
        lines += [f"K_τ = 6 against K_τ = 0 (002: {100 * SLOWER_K6:.1f} % slower, i.e. "
                  f"+{SLOWER_K6 * CLIMB_7_4_S:.1f} s), a difference only beyond the half-step spread:", "",
                  *comparisons, ""]
    return lines


def _transfer(results: Results) -> list[str]:
    """The analytic transfer of each controller at ω, at 002's printed gains."""
    st = results.settings
    w, a = results.gait_frequency, results.amplitudes.get("§7.4", np.pi / 6)
    k = results.spring_stiffness
    seven = TSCGains(st.tsc_inertia, *GAINS_7_4, 0.0).frequency_response(w)
    sag = _sag(results, 1.0 / 7.0)
    j = results.link_inertia + results.link_mass * (0.5 * results.link_length) ** 2
    return ["### The transfer of each controller at the gait frequency", "",
            f"TSC filters each joint's neighbour angle by (7.2)'s H(iω) = K_d/(K_d − M_d ω² + i D_d ω) "
            f"(`TSCGains.frequency_response`; in the per-step reading M_d, D_d are per step² and per step): at "
            f"ω = {pi_text(w)} rad/s §7.4's printed gains in SI units pass |H| = {abs(seven):.2f} per joint and "
            f"|H|⁴ = {abs(seven) ** 4:.2f} of A to the head joint, four filters from the tail (the tables' columns "
            "for every reading; the β reading has the same H, fed the neighbour's servo angle instead of its link "
            "angle). Local stiffness (Fig. 6.2) has no dynamics of its own: with the motor at its reference the "
            "joint is a spring K_d about the gait, τ = K_d (α − α_d), so its transfer from α_d to α is 1 at every ω "
            "unloaded, and what it loses is the sag under load: one link's weight at its centre, m g l = "
            f"{results.link_mass * GRAVITY * 0.5 * results.link_length:.3f} N·m, bends a joint by m g l/K_d, "
            f"{_deg(sag)} at K_d = K/7 = {k / 7:.3g} N·m/rad, {100 * sag / a:.0f} % of A = {pi_text(a)} (the tables' "
            "*sag* column), against 1 − |H| = "
            f"{100 * (1 - abs(seven)):.0f} % lost per joint by TSC at §7.4's gains. Swinging one link about its end "
            f"(J = J_l + m l² = {j:.3g} kg·m²) the spring K_d passes K_d/(K_d − J ω²) of α_d (the *|α/α_d|* column): "
            "inertia costs local stiffness nothing at ω; the arches' weight does. Where |H| > 1, (7.2) amplifies the "
            "wave joint by joint until the ±60° reference limit holds it.", ""]


def _climbing(results: Results) -> list[str]:
    st = results.settings
    lines = ["### Readings under which each controller climbs in MuJoCo", "",
             f"The readings whose MuJoCo run (seed {st.seed}) climbs at h and at h/2 (`Results.climbing`, stored with "
             "the readings' settings for the roll-over study to pick from):", ""]
    for controller in CONTROLLERS:
        picked = results.climbing(controller)
        lines.append(f"- {controller}: " + (", ".join(f"*{r.experiment} {r.label}*" for r in picked) or "none") + ".")
    return [*lines, ""]


def _intro(results: Results) -> list[str]:
    st = results.settings
    steps = ", ".join(f"{ENGINE_NAMES[e]} h = {1e3 * h:g} ms" for e, h in results.time_steps.items()) or "–"
    durations = ", ".join(f"{ENGINE_NAMES[e]} {d:g} s" for e, d in results.durations.items()) or "–"
    amplitudes = ", ".join(f"{e} A = {pi_text(a)}" for e, a in results.amplitudes.items())
    ratios = ", ".join(_ratio_text(n, d) for n, d in st.ratios)
    a = results.amplitudes.get("§7.4", np.pi / 6)
    seven = TSCGains(st.tsc_inertia, *GAINS_7_4, 0.0).frequency_response(results.gait_frequency)
    return [f"002's printed gains cannot all be what its robot ran: §7.4's TSC gains read in SI units pass "
            f"|H| = {abs(seven):.2f} of the wave per joint, and local stiffness at K_d = K/7 lets a joint sag under "
            f"one link's weight by {100 * _sag(results, 1 / 7) / a:.0f} % of the commanded amplitude, yet 002's robot "
            f"climbed in {CLIMB_6_4_S:g}–{CLIMB_7_4_S:g} s. Here every controller of §6.4 and "
            "§7.4 runs over a range of its gains and readings on 002's robot settings (scenarios `exp64-*` and "
            f"`exp74-*`, the single box, {amplitudes}, ω = {pi_text(results.gait_frequency)} rad/s, "
            f"φ = {pi_text(results.gait_phase_shift)}, K = {results.spring_stiffness:g} N·m/rad): local stiffness "
            f"K_d ∈ {{{ratios}}} (K_d = K is position control, the open loop's controller; K/6 is §6.4's, K/7 "
            f"§7.4's), and TSC with K_τ = 0 and 6 over D_d ∈ {{{', '.join(f'{d:g}' for d in st.tsc_damping)}}} × "
            f"K_d ∈ {{{', '.join(f'{k:g}' for k in st.tsc_stiffness)}}} (M_d = {st.tsc_inertia:g}; Table 7.1's (4, 12) "
            "and §7.4's (10, 17.5) among them) plus two other readings at §7.4's gains: (7.2)'s time counted in "
            "control steps (`controller.time_unit`) and (7.2) fed the tail-side neighbour's servo angle β_{j−1} "
            "(`controller.neighbour_angle=beta`). Every reading is reported, whatever its outcome.",
            "",
            f"Engines: the vertical plane (deterministic) and MuJoCo (perturbation seed {st.seed}); DART, about five "
            f"times slower than MuJoCo, is left out. Steps: {steps}; simulated time: {durations}; every run is "
            "repeated at half its step. *Climbs*: the tail tip passes the far edge of the box, the time per run; "
            f"*rolls over*: a module's roll about its own axis passes {results.roll_over_deg:g}°; the CoM speed over "
            "the run; then the half-step check. A claim is evaluated at h and at h/2 separately: *yes* or *no* where "
            "both agree, *inconclusive* where they differ (the step decides it, not the model).", ""]


def render(results: Results) -> str:
    """The section's Markdown from the stored results alone."""
    out = [f"## {TITLE}", ""]
    if results.fast:
        out += [f"*Fast smoke run ({results.settings.smoke_duration_s:g} s per run): the numbers below are not "
                "results.*", ""]
    out += [*_intro(results), *failed_lines(results)]
    for experiment in SCENARIOS:
        if any(r.experiment == experiment and r.stiffness_ratio is not None for r in results.readings):
            out += _stiffness_table(results, experiment)
    for controller in CONTROLLERS[2:]:
        if any(r.controller == controller for r in results.readings):
            out += _tsc_table(results, controller)
    out += ["### Which readings reproduce 002's claims", "", *_claim_6_4(results), *_claim_7_4(results),
            *_transfer(results), *_climbing(results)]
    return "\n".join(out)
