"""docs/reproduction.md section: 002's unknowns calibrated in MuJoCo to 002's measured outcomes (Table 5.2, §6.4, §7.4).

Two fits with ``snake-sim calibrate --table`` (:mod:`snake_studies.calibrate_table`), one :class:`Task` in the
driver (the search submits its own runs to the sweep engine's cluster):

1. *Table 5.2* — the ground μ (``contact.friction``), the boxes' face μ (``world.side_friction``), the contact
   softness (MuJoCo's solref time constant, ``contact.solref.0``) and the scale of the motor-side PD gains
   (``robot.motor_gain_scale``) fitted to 002's measured speeds (:data:`.pedal_wave.TABLE_E`) of the five cells
   :data:`FITTED_CELLS` (the table's corners and centre, chosen before any run), the other four held out and
   predicted; the gaits of :data:`.pedal_wave.SCENARIO_3D` for :data:`.pedal_wave`'s 10 s. Face μ does not act on
   flat ground: it must come out not identifiable here.
2. *§6.4 and §7.4* — the face μ alone fitted to 002's outcomes on the robot (:data:`CLIMB_ROWS`, from
   :func:`.runs_002.rows_002`: climbs, rolls over, fails; the climb times 002 prints), the other three fixed at
   fit 1's values, each run :data:`CLIMB_DURATION` s with perturbation seed 0.

002 prints no spread of its measured numbers: each speed and time has σ = :data:`SIGMA_FRACTION` of its value (our
choice, stated in the text).
"""

from __future__ import annotations

import datetime
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distributed import Client

from snake_sim.core.scenario import load_scenario
from snake_sim.core.worldgen import FACE_FRICTION
from snake_studies.calibrate import parse_fits
from snake_studies.calibrate_table import (
    ACCEPT,
    AGREE,
    MISMATCH,
    WHOLE_BOX,
    FittedField,
    Observed,
    RowFit,
    TableCalibration,
    TableRow,
    calibrate_table,
    write_table,
)
from snake_studies.reproduction.experiment import Task
from snake_studies.reproduction.experiments.pedal_wave import AMPLITUDES, PHASES, SCENARIO_3D, TABLE_E
from snake_studies.reproduction.experiments.runs_002 import rows_002
from snake_studies.sweep.cells import Range

#: Table 5.2's cells fitted, (row φ, column A): the corners and the centre; the other four are held out.
FITTED_CELLS = ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2))
#: σ of every measured speed and time, as a fraction of it (002 prints no spread).
SIGMA_FRACTION = 0.1
#: Simulated time of Table 5.2's runs [s] (the pedal-wave section's).
FLAT_DURATION = 10.0
#: Fit 1's fields and boxes (``--fit``; the ``--log`` ones searched in log-space).
FLAT_FIT = ("contact.friction=0.2:1.5", "world.side_friction=0.05:1.0", "contact.solref.0=0.005:0.08",
            "robot.motor_gain_scale=0.1:3.0")
FLAT_LOG = ("contact.friction", "contact.solref.0", "robot.motor_gain_scale")
#: Fit 2: the face μ alone.
CLIMB_FIT = ("world.side_friction=0.05:1.0",)
#: 002's runs on the robot fitted in fit 2: every (section, controller) of :func:`.runs_002.rows_002` on the robot
#: (§6.4, §7.4, §7.4.2) at 002's printed gains (not §7.3's simulation, not the per-step reading of (7.2)).
CLIMB_ROWS = (("§6.4", "K_d = K (position control)"), ("§6.4", "local stiffness K_d = K/6"),
              ("§7.4", "TSC K_τ = 6"), ("§7.4", "TSC K_τ = 0"), ("§7.4", "local stiffness K_d = K/7"),
              ("§7.4", "open loop"), ("§7.4.2", "TSC K_τ = 6"), ("§7.4.2", "TSC K_τ = 0"),
              ("§7.4.2", "local stiffness K_d = K/7"))
#: 002's printed mean climb times of those rows [s] (§6.4: 24.6 s; §7.4.1: 40.1 s; §7.4.2: 27.4 s).
CLIMB_TIMES_002 = {("§6.4", "local stiffness K_d = K/6"): 24.6, ("§7.4", "TSC K_τ = 0"): 40.1,
                   ("§7.4.2", "TSC K_τ = 6"): 27.4}
#: Simulated time of fit 2's runs [s]: the scenarios' own (as in the section of 002's runs).
CLIMB_DURATION = 90.0
SEED = 0  # MuJoCo's perturbation seed of fit 2's runs
SEARCH_SEED = 0  # the CMA-ES sampler's seed of both fits
#: Trials of each fit's search (fit 1: four fields; fit 2: one).
TRIALS = {"flat": 64, "climb": 12}
#: Fast mode (smoke tests): trials, durations and rows cut down.
FAST = {"trials": 2, "flat_duration": 1.0, "climb_duration": 1.0, "climb_rows": 1}
#: The calibrated scenario this section writes (config/scenarios/<name>.yaml), next to the shipped one it is over.
CALIBRATED = f"{SCENARIO_3D}-calibrated"


@dataclass(frozen=True)
class Fit:
    """One calibration: what it fitted, to which rows, and what came out."""

    name: str  # "Table 5.2" or "§6.4 and §7.4"
    scenario: str  # the command's SCENARIO (the rows' default)
    box: tuple[Range, ...]
    sets: tuple[str, ...]  # fixed in every row
    trials: int
    loss: float
    accepted: int
    fitted: tuple[FittedField, ...]
    rows: tuple[RowFit, ...]
    wall_time_s: float
    command: str


@dataclass(frozen=True)
class RunSettings:
    """How the fits were made, as the text states it: the scenarios and rows fitted, the fields and their boxes, the
    searches' trials and seed, σ and the loss, acceptance and agreement rules, and the calibrated scenario's name."""

    scenario_3d: str  # fit 1's scenario (Table 5.2's cells), the calibrated scenario's base
    calibrated: str  # the calibrated scenario written (config/scenarios/<name>.yaml)
    fitted_cells: tuple[tuple[int, int], ...]  # Table 5.2's cells fitted (row φ, column A); the others held out
    flat_fit: tuple[str, ...]  # fit 1's fields and boxes (``--fit``)
    flat_log: tuple[str, ...]  # fit 1's fields searched in log-space (``--log``)
    climb_fit: tuple[str, ...]  # fit 2's
    climb_rows: tuple[tuple[str, str], ...]  # 002's runs of fit 2, (section, controller) of :func:`.runs_002.rows_002`
    climb_time_step: float  # h of fit 2's runs, their scenarios' [s]
    seed: int  # MuJoCo's perturbation seed of fit 2's runs
    search_seed: int  # the CMA-ES sampler's seed of both fits
    trials: dict[str, int]  # trials of each fit's search ("flat", "climb")
    flat_duration_s: float  # simulated time of fit 1's runs [s]
    climb_duration_s: float  # simulated time of fit 2's runs [s]
    sigma_fraction: float  # σ of every measured speed and time, as a fraction of it
    mismatch: float  # residual of an outcome other than 002's [σ]
    accept: float  # a trial within this Δloss of the best is accepted
    whole_box: float  # a field whose accepted values span this fraction of its box is not identifiable
    agree: float  # a speed or time agrees with 002's within this many σ


def run_settings(fast: bool) -> RunSettings:
    """The settings the fits of a (``fast``) run of the section use, stored with its results."""
    rows = CLIMB_ROWS[:FAST["climb_rows"]] if fast else CLIMB_ROWS
    trials = {k: FAST["trials"] for k in TRIALS} if fast else TRIALS
    flat_s, climb_s = (FAST["flat_duration"], FAST["climb_duration"]) if fast else (FLAT_DURATION, CLIMB_DURATION)
    return RunSettings(SCENARIO_3D, CALIBRATED, FITTED_CELLS, FLAT_FIT, FLAT_LOG, CLIMB_FIT, rows,
                       _time_step(climb_rows(climb_s, rows)), SEED, SEARCH_SEED, dict(trials), flat_s, climb_s,
                       SIGMA_FRACTION, MISMATCH, ACCEPT, WHOLE_BOX, AGREE)


@dataclass(frozen=True)
class Results:
    fast: bool
    date: str  # of the run (UTC), for the calibrated file's provenance
    defaults: dict[str, float]  # the shipped values of the fitted fields (SCENARIO_3D's and the climb scenarios')
    flat: Fit
    climb: Fit
    settings: RunSettings


def table_5_2_rows(duration: float) -> list[TableRow]:
    """Table 5.2's nine cells as rows of :data:`SCENARIO_3D` (002's measured speed, σ); held out unless in
    FITTED_CELLS."""
    rows = []
    for i, (phase_text, phase) in enumerate(PHASES):
        for j, (amp_text, amp) in enumerate(AMPLITUDES):
            speed = TABLE_E[i][j] / 100
            rows.append(TableRow(f"A = {amp_text}, φ = {phase_text}", SCENARIO_3D,
                                 (f"gait.amplitude={amp}", f"gait.phase_shift={phase}", f"sim.duration={duration!r}"),
                                 speed=Observed(speed, SIGMA_FRACTION * speed), held_out=(i, j) not in FITTED_CELLS))
    return rows


def climb_rows(duration: float, keys: tuple[tuple[str, str], ...] = CLIMB_ROWS) -> list[TableRow]:
    """The rows ``keys`` (section, controller) of 002's runs (their 3-D scenarios, seed SEED), 002's outcome and
    climb time."""
    by = {(r.experiment, r.controller): r for r in rows_002()}
    out = []
    for key in keys:
        r = by[key]
        t = CLIMB_TIMES_002.get(key)
        out.append(TableRow(f"{r.experiment} {r.controller}", f"{r.scenario}-3d",
                            (*r.overrides, f"sim.perturbation.seed={SEED}", f"sim.duration={duration!r}"),
                            time_to_climb=None if t is None else Observed(t, SIGMA_FRACTION * t),
                            outcome=r.outcome_002))
    return out


def _time_step(rows: list[TableRow]) -> float:
    """The one step h [s] the rows' scenarios run at (the text states one)."""
    steps = {load_scenario(r.scenario, list(r.sets)).section("sim")["time_step"] for r in rows}
    if len(steps) != 1:
        raise ValueError(f"fit 2's rows run at several steps {sorted(steps)}: the text states one")
    return float(steps.pop())


def plan(fast: bool = False) -> dict[str, Task]:
    """The two fits, one task (fit 2 starts from fit 1's values)."""
    return {"fits": Task("calibrate 002", (fast,))}


def _fit(name: str, scenario: str, rows: list[TableRow], fit: tuple[str, ...], log: tuple[str, ...],
         sets: tuple[str, ...], trials: int, client: Client | None, folder: Path) -> Fit:
    """One calibration in ``folder`` (the table written there first), on ``client``'s cluster (else a LocalCluster)."""
    folder.mkdir()
    table = write_table(folder / "table.yaml", rows, name)
    calibration = TableCalibration(scenario, table, parse_fits(list(fit), list(log)), sets)
    start = time.perf_counter()
    outcome = calibrate_table(calibration, folder / "out", trials, None, client.scheduler.address if client else None,
                              progress=False, seed=SEARCH_SEED)
    command = calibration.command().replace(str(table), f"<{name} table>")
    return Fit(name, scenario, calibration.fit, sets, outcome.trials, outcome.loss, outcome.accepted,
               tuple(outcome.fitted), tuple(outcome.rows), time.perf_counter() - start, command)


def _defaults() -> dict[str, float]:
    """The shipped values of the fitted fields."""
    contact = load_scenario(SCENARIO_3D).section("contact")
    return {"contact.friction": float(contact["friction"]), "contact.solref.0": float(contact["solref"][0]),
            "robot.motor_gain_scale": 1.0, "world.side_friction": FACE_FRICTION}


def measure(task: Task, client: Client | None = None) -> dict[str, Any]:
    """Both fits (module docstring)."""
    (fast,) = task.args
    s = run_settings(fast)
    with tempfile.TemporaryDirectory() as tmp:
        flat = _fit("Table 5.2", s.scenario_3d, table_5_2_rows(s.flat_duration_s), s.flat_fit, s.flat_log, (),
                    s.trials["flat"], client, Path(tmp) / "flat")
        fixed = tuple(f"{f.key}={f.value!r}" for f in flat.fitted if f.key != "world.side_friction")
        rows = climb_rows(s.climb_duration_s, s.climb_rows)
        climb = _fit("§6.4 and §7.4", rows[0].scenario, rows, s.climb_fit, (), fixed, s.trials["climb"], client,
                     Path(tmp) / "climb")
    return {"flat": flat, "climb": climb}


def assemble(fast: bool, plan: dict[str, Task], rows: dict[str, dict[str, Any]]) -> Results:
    got = rows["fits"]
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    return Results(fast, today, _defaults(), got["flat"], got["climb"], run_settings(fast))
