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

from snake_core.controllers.tsc import NEIGHBOUR_ANGLES, SI_TIME_UNIT, gains_from_params
from snake_core.robot import load_robot
from snake_sim.analysis.rollover import ROLL_OVER_DEG
from snake_sim.core.scenario import load_scenario
from snake_studies.climb_3d import case_cells, climb_run
from snake_studies.reproduction.experiments.runs_002 import (
    FAST_DURATION,
    Case,
    Row,
    Run002,
    case_label,
    per_step_override,
    row_case,
    row_plate,
)
from snake_studies.sweep import Cell
from snake_studies.sweep.engine import measure_summary

#: The engines of this section: DART (about five times slower than MuJoCo) is left out.
ENGINES = ("vertical", "mujoco")
SEED = 0  # MuJoCo's perturbation seed

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
class RunSettings:
    """How the runs were made, as the text states it: the engines and seed, the gains scanned, and the smoke runs'
    time."""

    engines: tuple[str, ...]
    seed: int  # MuJoCo's perturbation seed
    ratios: tuple[tuple[int, int], ...]  # K_d/K of the local-stiffness readings (numerator, denominator)
    tsc_inertia: float  # M_d of every TSC reading
    tsc_damping: tuple[float, ...]  # D_d scanned
    tsc_stiffness: tuple[float, ...]  # K_d scanned [N·m/rad]
    smoke_duration_s: float | None  # simulated time of every run of a fast smoke run [s]; None: the scenarios' own


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    return RunSettings(ENGINES, SEED, RATIOS, TSC_INERTIA, TSC_DAMPING, TSC_STIFFNESS,
                       FAST_DURATION if fast else None)


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
    settings: RunSettings

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
                   float(robot.link_inertia), ROLL_OVER_DEG, len(every), failed, run_settings(fast))


# ---------------------------------------------------------------------------------------------------------------
# Rendering

STEPS = ("h", "h/2")


def _climbed(run: Run002, step: str) -> bool:
    return bool(run.run.climbed if step == "h" else run.run.half_climbed)


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
