"""docs/reproduction.md section: the gain scale of 002's controllers, bracketed (002 §6.4, §7.4).

002's printed gains cannot all be what its robot ran: §7.4's TSC gains (M_d, D_d, K_d) = (1, 10, 17.5) read in SI
units pass about half the wave per joint ((7.2)'s |H(iω)|, :mod:`.runs_002`), and local stiffness at K_d = K/7 lets
a joint sag under one link's weight by more than a third of the commanded amplitude, yet 002's robot climbed. This
section brackets the effective gains the robot's outcomes require: every controller of §6.4 and §7.4 over a range of
its gains and readings, on 002's robot settings (the ``exp64-*`` and ``exp74-*`` scenarios, single box):

* local stiffness K_d/K over :data:`RATIOS` (1/7 and 1/6 are 002's, K_d = K is position control, the open loop) at
  §6.4's A = π/4 and §7.4's A = π/6;
* TSC with K_τ = 0 and 6 over D_d × K_d (:data:`TSC_DAMPING`, :data:`TSC_STIFFNESS`, M_d = 1, around Table 7.1's
  (4, 12) and §7.4's (10, 17.5)), and at §7.4's gains the per-control-step reading of (7.2)'s time
  (``controller.time_unit``, :func:`.runs_002.per_step_override`) and the reading that filters the neighbour's
  servo angle β_{j−1} (``controller.neighbour_angle: beta``).

Every reading runs in the vertical plane (deterministic) and MuJoCo (perturbation seed 0), each run also at half its
step (:func:`.climb_3d.case_cells`), on the sweep engine. The renderer reports every reading, applies 002's two
claims to each (a claim is evaluated at h and at h/2 separately: one verdict at both steps, else *inconclusive*) and
puts the analytic transfer of each controller beside the runs: TSC's |H(iω)| per joint, local stiffness's sag under
a link's weight (its admittance, Fig. 6.2, is static) and its inertial factor at ω.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from snake_core.controllers.tsc import NEIGHBOUR_ANGLES, SI_TIME_UNIT, TSCGains, gains_from_params
from snake_core.robot import load_robot
from snake_sim.analysis.rollover import ROLL_OVER_DEG
from snake_sim.analysis.step_check import compare
from snake_sim.core.scenario import load_scenario
from snake_sim.reproduction.climb_3d import failed_lines
from snake_sim.reproduction.results import comparison_text, pi_text
from snake_sim.reproduction.runs_002 import (
    ENGINE_NAMES,
    FAST_DURATION,
    Case,
    Row,
    Run002,
    case_label,
    cell_text,
    climb_times,
    per_step_override,
    row_case,
    row_plate,
)
from snake_sim.studies.climb_3d import case_cells, climb_run
from snake_sim.studies.sweep import Cell
from snake_sim.studies.sweep.engine import measure_summary

TITLE = "The gain scale of 002's controllers, bracketed (002 §6.4, §7.4)"

#: The engines of this section: DART (about five times slower than MuJoCo) is left out.
ENGINES = ("vertical", "mujoco")
SEED = 0  # MuJoCo's perturbation seed
GRAVITY = 9.81  # [m/s²]

#: Local stiffness: K_d/K as (numerator, denominator); 1/1 is position control (the open loop).
RATIOS = ((1, 7), (1, 6), (1, 4), (1, 2), (3, 4), (9, 10), (1, 1))
#: TSC: D_d [N·m·s/rad] and K_d [N·m/rad] around Table 7.1's (4, 12) and §7.4's (10, 17.5); M_d = 1 throughout.
TSC_DAMPING = (1.0, 4.0, 10.0)
TSC_STIFFNESS = (12.0, 17.5, 50.0)
TSC_INERTIA = 1.0
#: §7.4's printed (D_d, K_d), at which the per-step and β readings run.
GAINS_7_4 = (10.0, 17.5)
TORQUE_GAINS = (0.0, 6.0)

#: The four controllers of the roll-over study, by the name :meth:`Results.climbing` takes.
CONTROLLERS = ("open loop", "local stiffness", "TSC K_τ = 0", "TSC K_τ = 6")

#: §6.4's scenarios (A = π/4) and §7.4's (A = π/6): local stiffness, position control, TSC.
SCENARIOS = {"§6.4": ("exp64-stiffness-obstacle", "exp64-position-obstacle"),
             "§7.4": ("exp74-stiffness-obstacle", "exp74-open-loop-obstacle")}
TSC_SCENARIO = "exp74-tsc-obstacle"

#: 002's §6.4 climb time with K_d = K/6 (5 of 5 trials, on average) [s].
CLIMB_6_4_S = 24.6
#: 002's §7.4.1 climb time with K_τ = 0 [s], and how much slower K_τ = 6 climbed (4.6 %).
CLIMB_7_4_S = 40.1
SLOWER_K6 = 0.046
#: "~40 s": a climb time within this fraction of 002's counts as 002's.
TIME_BAND = 0.25

PER_STEP_LABEL = "per control step"
BETA_LABEL = "β_{j−1}"


@dataclass(frozen=True)
class Reading:
    """One setting of one controller: its scenario (vertical; the 3-D twin is ``<scenario>-3d``) and overrides."""

    key: str  # unique within its experiment: "<controller>, <label>"
    experiment: str  # "§6.4" or "§7.4"
    controller: str  # one of CONTROLLERS
    label: str  # the setting: "K_d = K/7", "D_d = 4, K_d = 12", "D_d = 10, K_d = 17.5, per control step", …
    scenario: str
    overrides: tuple[str, ...]
    stiffness_ratio: float | None  # K_d/K of local stiffness and the open loop (1); None for TSC
    tsc_gains: tuple[float, float, float] | None  # (M_d, D_d, K_d) of TSC
    time_unit_s: float  # (7.2)'s unit of time [s] (1: SI; TSC only)
    neighbour_angle: str  # the angle (7.2) filters: "alpha" or "beta" (TSC only)


def _ratio_text(n: int, d: int) -> str:
    return "K" if n == d else ("" if n == 1 else str(n)) + f"K/{d}"


def _stiffness_readings(experiment: str) -> list[Reading]:
    local, position = SCENARIOS[experiment]
    k = float(load_robot(load_scenario(local).robot_name).sea.stiffness[0])
    out = []
    for n, d in RATIOS:
        label = f"K_d = {_ratio_text(n, d)}"
        if n == d:
            out.append(Reading(f"open loop, {label}", experiment, "open loop", label, position, (), 1.0, None,
                               SI_TIME_UNIT, NEIGHBOUR_ANGLES[0]))
        else:
            out.append(Reading(f"local stiffness, {label}", experiment, "local stiffness", label, local,
                               (f"controller.stiffness={k * n / d!r}",), n / d, None, SI_TIME_UNIT,
                               NEIGHBOUR_ANGLES[0]))
    return out


def _tsc_readings() -> list[Reading]:
    d74, k74 = GAINS_7_4
    at_7_4 = f"D_d = {d74:g}, K_d = {k74:g}"
    settings = [(f"D_d = {d:g}, K_d = {k:g}", d, k, ()) for d in TSC_DAMPING for k in TSC_STIFFNESS]
    settings += [(f"{at_7_4}, {PER_STEP_LABEL}", d74, k74, (per_step_override(),)),
                 (f"{at_7_4}, {BETA_LABEL}", d74, k74, ("controller.neighbour_angle=beta",))]
    out = []
    for k_tau in TORQUE_GAINS:
        controller = f"TSC K_τ = {k_tau:g}"
        for label, d, k, extra in settings:
            overrides = (f"controller.inertia={TSC_INERTIA!r}", f"controller.damping={d!r}",
                         f"controller.stiffness={k!r}", f"controller.torque_gain={k_tau!r}", *extra)
            params = load_scenario(TSC_SCENARIO, list(overrides)).section("controller")
            gains = gains_from_params(params)
            out.append(Reading(f"{controller}, {label}", "§7.4", controller, label, TSC_SCENARIO, overrides, None,
                               (gains.inertia, gains.damping, gains.stiffness), gains.time_unit,
                               str(params.get("neighbour_angle", NEIGHBOUR_ANGLES[0]))))
    return out


def readings(fast: bool = False) -> list[Reading]:
    """Every reading, in the document's order; ``fast``: §6.4's K/6 and K, TSC K_τ = 6 at §7.4's gains and its β
    reading."""
    every = [*_stiffness_readings("§6.4"), *_stiffness_readings("§7.4"), *_tsc_readings()]
    if not fast:
        return every
    keep = {("§6.4", "local stiffness, K_d = K/6"), ("§6.4", "open loop, K_d = K"),
            ("§7.4", "TSC K_τ = 6, D_d = 10, K_d = 17.5"), ("§7.4", f"TSC K_τ = 6, D_d = 10, K_d = 17.5, {BETA_LABEL}")}
    return [r for r in every if (r.experiment, r.key) in keep]


def _row(reading: Reading) -> Row:
    """The reading as a row of :mod:`.runs_002` (its runs are built and read the same way); 002 reports no outcome
    for most readings: the claims are applied in the render."""
    return Row(reading.experiment, reading.key, reading.scenario, reading.overrides, "", "")


def cases(fast: bool = False) -> list[Case]:
    """Every reading in both engines (MuJoCo with seed :data:`SEED`) on the scenario's own plate."""
    out = []
    for engine in ENGINES:
        for reading in readings(fast):
            row = _row(reading)
            out.append(row_case(row, engine, None if engine == "vertical" else SEED, row_plate(row), fast))
    return out


def plan(fast: bool = False) -> dict[str, Cell]:
    """Every case's run and its run at half the step, by cell id."""
    return {c.id: c for case in cases(fast) for c in case_cells(case.run)}


#: A run of the plan is the sweep engine's summary.json of its scenario.
measure = measure_summary


@dataclass(frozen=True)
class Results:
    fast: bool
    readings: tuple[Reading, ...]
    runs: tuple[Run002, ...]  # ``controller``: the reading's key
    durations: dict[str, float]  # simulated time per engine [s]
    time_steps: dict[str, float]  # h per engine [s]
    amplitudes: dict[str, float]  # A per experiment [rad]
    gait_frequency: float  # ω [rad/s]
    gait_phase_shift: float  # φ [rad]
    spring_stiffness: float  # K [N·m/rad]
    link_mass: float  # m_l [kg]
    link_length: float  # 2l [m]
    link_inertia: float  # J_l about the link's centre [kg·m²] (the vertical plane's)
    roll_over_deg: float
    planned: int
    failed: tuple[str, ...]

    def reading(self, experiment: str, key: str) -> Reading:
        return next(r for r in self.readings if r.experiment == experiment and r.key == key)

    def runs_of(self, reading: Reading, engine: str) -> list[Run002]:
        """The runs of ``reading`` in ``engine``."""
        return [r for r in self.runs if r.experiment == reading.experiment and r.controller == reading.key
                and r.run.model == engine]

    def climbing(self, controller: str, engine: str = "mujoco") -> tuple[Reading, ...]:
        """The readings of ``controller`` (one of :data:`CONTROLLERS`) under which every run of ``engine`` climbs at
        h and at h/2, in the document's order (the roll-over study picks its gains from these)."""
        if controller not in CONTROLLERS:
            raise ValueError(f"controller must be one of {', '.join(CONTROLLERS)}, not {controller!r}")
        out = []
        for reading in self.readings:
            runs = self.runs_of(reading, engine)
            if reading.controller == controller and runs and all(r.run.climbed and r.run.half_climbed for r in runs):
                out.append(reading)
        return tuple(out)


def assemble(fast: bool, plan: dict[str, Cell], rows: dict[str, dict]) -> Results:
    """The runs; a case whose run raised or whose worker died is left out and listed (``failed``)."""
    every = [(case, climb_run(case.run, rows)) for case in cases(fast)]
    failed = tuple(f"{case_label(case)}: {run}" for case, run in every if isinstance(run, str))
    done = [(case, run) for case, run in every if not isinstance(run, str)]
    durations = {case.run.model: run.duration_s for case, run in done}
    steps = {case.run.model: run.time_step_s for case, run in done}
    tsc = load_scenario(TSC_SCENARIO)
    gait = tsc.section("gait")
    robot = load_robot(tsc.robot_name)
    amplitudes = {e: float(load_scenario(SCENARIOS[e][0]).section("gait")["amplitude"]) for e in SCENARIOS}
    runs = tuple(Run002(case.row.experiment, case.row.controller, case.plate, run) for case, run in done)
    return Results(fast, tuple(readings(fast)), runs, durations, steps, amplitudes, float(gait["frequency"]),
                   float(gait["phase_shift"]), float(robot.sea.stiffness[0]), robot.link_mass, robot.link_length,
                   float(robot.link_inertia), ROLL_OVER_DEG, len(every), failed)


# ---------------------------------------------------------------------------------------------------------------
# Rendering

STEPS = ("h", "h/2")


def _climbed(run: Run002, step: str) -> bool:
    return bool(run.run.climbed if step == "h" else run.run.half_climbed)


def _climb_time(run: Run002, step: str) -> float | None:
    return run.run.time_pair[STEPS.index(step)]


def verdict(at_h: bool, at_half: bool) -> str:
    """A claim evaluated at the step and at half of it: *yes* or *no* where both agree, else *inconclusive* (the
    step decides it, not the model)."""
    if at_h == at_half:
        return "yes" if at_h else "no"
    return "inconclusive"


def softer_climbs_where_stiff_fails(softer: list[Run002], stiff: list[Run002]) -> str | None:
    """002 §6.4's claim "K_d = K/6 climbs where K_d = K fails" for one softer reading against K_d = K in one engine:
    at each step every run of ``softer`` climbs and no run of ``stiff`` does; None where either was not run."""
    if not softer or not stiff:
        return None
    return verdict(*(all(_climbed(r, s) for r in softer) and not any(_climbed(r, s) for r in stiff) for s in STEPS))


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
    return [cell_text(results.runs_of(reading, e)) for e in ENGINES]


def _stiffness_table(results: Results, experiment: str) -> list[str]:
    a = results.amplitudes[experiment]
    lines = [f"### Local stiffness K_d/K, {experiment} (A = {pi_text(a)})", "",
             "| reading | K_d [N·m/rad] | sag m g l/K_d | \\|α/α_d\\| at ω, one link | "
             + " | ".join(ENGINE_NAMES[e] for e in ENGINES) + " |", "|---|---|---|---|" + "---|" * len(ENGINES)]
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
    lines = [f"### {controller}, §7.4 (A = {pi_text(results.amplitudes['§7.4'])}, M_d = {TSC_INERTIA:g})", "",
             "| reading | \\|H\\| per joint | arg H | \\|H\\|⁴ (head) | " + " | ".join(ENGINE_NAMES[e] for e in ENGINES)
             + " |", "|---|---|---|---|" + "---|" * len(ENGINES)]
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
    stiff = [r for r in results.readings if r.experiment == "§6.4" and r.controller == "open loop"]
    softer = [r for r in results.readings if r.experiment == "§6.4" and r.controller == "local stiffness"]
    if not stiff or not softer:
        return []
    lines = ["*002 §6.4: \"K_d = K/6 climbs where K_d = K fails\"* (at A = π/4; 5 of 5 climbs at K/6, stuck or rolled "
             "over at K). Per reading and engine: at each step the softer reading climbs and K_d = K does not.", "",
             "| reading | " + " | ".join(ENGINE_NAMES[e] for e in ENGINES) + " |", "|---|" + "---|" * len(ENGINES)]
    found: dict[str, dict[str, list[str]]] = {e: {} for e in ENGINES}
    for reading in softer:
        cells = []
        for e in ENGINES:
            word = softer_climbs_where_stiff_fails(results.runs_of(reading, e), results.runs_of(stiff[0], e))
            cells.append(word or "not run")
            found[e].setdefault(word or "", []).append(reading.label)
        lines.append(f"| {reading.label} | " + " | ".join(cells) + " |")
    lines += ["", "Reproduced (*yes*, and *inconclusive* where the step decides): "
              + "; ".join(f"{ENGINE_NAMES[e]}: {_which(found[e])}" for e in ENGINES) + ".", ""]
    return lines


def _claim_7_4(results: Results) -> list[str]:
    """002 §7.4, TSC climbs the single box in ~40 s: every TSC reading, per K_τ and engine."""
    tsc = [r for r in results.readings if r.controller.startswith("TSC")]
    if not tsc:
        return []
    labels = list(dict.fromkeys(r.label for r in tsc))
    controllers = [c for c in CONTROLLERS[2:] if any(r.controller == c for r in tsc)]
    band = ", ".join(f"{c} {_target(c):.1f} s" for c in controllers)
    lines = [f"*002 §7.4: \"TSC climbs the single box in ~40 s\"* (§7.4.1: {CLIMB_7_4_S:g} s for K_τ = 0, K_τ = 6 "
             f"{100 * SLOWER_K6:.1f} % slower). Per reading, K_τ and engine: at each step the run climbs within "
             f"±{100 * TIME_BAND:.0f} % of 002's time ({band}).", "",
             "| reading | " + " | ".join(f"{c}, {ENGINE_NAMES[e]}" for c in controllers for e in ENGINES) + " |",
             "|---|" + "---|" * (len(controllers) * len(ENGINES))]
    found: dict[tuple[str, str], dict[str, list[str]]] = {}
    comparisons = []
    for label in labels:
        cells = []
        by_controller = {r.controller: r for r in tsc if r.label == label}
        for c in controllers:
            for e in ENGINES:
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
                for e in ENGINES]
            comparisons.append(f"- *{label}.* " + "; ".join(parts) + ".")
    lines += ["", "Reproduced (*yes*, and *inconclusive* where the step decides): "
              + "; ".join(f"{c} in {ENGINE_NAMES[e]}: {_which(found[(c, e)])}" for c in controllers for e in ENGINES)
              + ".", ""]
    if comparisons:
        lines += [f"K_τ = 6 against K_τ = 0 (002: {100 * SLOWER_K6:.1f} % slower, i.e. "
                  f"+{SLOWER_K6 * CLIMB_7_4_S:.1f} s), a difference only beyond the half-step spread:", "",
                  *comparisons, ""]
    return lines


def _transfer(results: Results) -> list[str]:
    """The analytic transfer of each controller at ω, at 002's printed gains."""
    w, a = results.gait_frequency, results.amplitudes.get("§7.4", np.pi / 6)
    k = results.spring_stiffness
    seven = TSCGains(TSC_INERTIA, *GAINS_7_4, 0.0).frequency_response(w)
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
    lines = ["### Readings under which each controller climbs in MuJoCo", "",
             f"The readings whose MuJoCo run (seed {SEED}) climbs at h and at h/2 (`Results.climbing`, stored with "
             "the readings' settings for the roll-over study to pick from):", ""]
    for controller in CONTROLLERS:
        picked = results.climbing(controller)
        lines.append(f"- {controller}: " + (", ".join(f"*{r.experiment} {r.label}*" for r in picked) or "none") + ".")
    return [*lines, ""]


def _intro(results: Results) -> list[str]:
    steps = ", ".join(f"{ENGINE_NAMES[e]} h = {1e3 * h:g} ms" for e, h in results.time_steps.items()) or "–"
    durations = ", ".join(f"{ENGINE_NAMES[e]} {d:g} s" for e, d in results.durations.items()) or "–"
    amplitudes = ", ".join(f"{e} A = {pi_text(a)}" for e, a in results.amplitudes.items())
    ratios = ", ".join(_ratio_text(n, d) for n, d in RATIOS)
    a = results.amplitudes.get("§7.4", np.pi / 6)
    seven = TSCGains(TSC_INERTIA, *GAINS_7_4, 0.0).frequency_response(results.gait_frequency)
    return [f"002's printed gains cannot all be what its robot ran: §7.4's TSC gains read in SI units pass "
            f"|H| = {abs(seven):.2f} of the wave per joint, and local stiffness at K_d = K/7 lets a joint sag under "
            f"one link's weight by {100 * _sag(results, 1 / 7) / a:.0f} % of the commanded amplitude, yet 002's robot "
            f"climbed in {CLIMB_6_4_S:g}–{CLIMB_7_4_S:g} s. Here every controller of §6.4 and "
            "§7.4 runs over a range of its gains and readings on 002's robot settings (scenarios `exp64-*` and "
            f"`exp74-*`, the single box, {amplitudes}, ω = {pi_text(results.gait_frequency)} rad/s, "
            f"φ = {pi_text(results.gait_phase_shift)}, K = {results.spring_stiffness:g} N·m/rad): local stiffness "
            f"K_d ∈ {{{ratios}}} (K_d = K is position control, the open loop's controller; K/6 is §6.4's, K/7 "
            f"§7.4's), and TSC with K_τ = 0 and 6 over D_d ∈ {{{', '.join(f'{d:g}' for d in TSC_DAMPING)}}} × "
            f"K_d ∈ {{{', '.join(f'{k:g}' for k in TSC_STIFFNESS)}}} (M_d = {TSC_INERTIA:g}; Table 7.1's (4, 12) and "
            "§7.4's (10, 17.5) among them) plus two other readings at §7.4's gains: (7.2)'s time counted in control "
            "steps (`controller.time_unit`) and (7.2) fed the tail-side neighbour's servo angle β_{j−1} "
            "(`controller.neighbour_angle=beta`). Every reading is reported, whatever its outcome.",
            "",
            f"Engines: the vertical plane (deterministic) and MuJoCo (perturbation seed {SEED}); DART, about five "
            f"times slower than MuJoCo, is left out. Steps: {steps}; simulated time: {durations}; every run is "
            "repeated at half its step. *Climbs*: the tail tip passes the far edge of the box, the time per run; "
            f"*rolls over*: a module's roll about its own axis passes {results.roll_over_deg:g}°; the CoM speed over "
            "the run; then the half-step check. A claim is evaluated at h and at h/2 separately: *yes* or *no* where "
            "both agree, *inconclusive* where they differ (the step decides it, not the model).", ""]


def render(results: Results) -> str:
    """The section's Markdown from the stored results alone."""
    out = [f"## {TITLE}", ""]
    if results.fast:
        out += [f"*Fast smoke run ({FAST_DURATION:g} s per run): the numbers below are not results.*", ""]
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
