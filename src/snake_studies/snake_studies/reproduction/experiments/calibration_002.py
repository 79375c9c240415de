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
#: Trials of each fit's search (fit 1: four fields; fit 2: one).
TRIALS = {"flat": 64, "climb": 12}
#: Fast mode (smoke tests): trials, durations and rows cut down.
FAST = {"trials": 2, "flat_duration": 1.0, "climb_duration": 1.0, "climb_rows": 1}


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
class Results:
    fast: bool
    date: str  # of the run (UTC), for the calibrated file's provenance
    sigma_fraction: float
    flat_duration_s: float
    climb_duration_s: float
    defaults: dict[str, float]  # the shipped values of the fitted fields (SCENARIO_3D's and the climb scenarios')
    flat: Fit
    climb: Fit


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


def climb_rows(duration: float, n: int | None = None) -> list[TableRow]:
    """The rows CLIMB_ROWS of 002's runs (their 3-D scenarios, seed SEED), 002's outcome and climb time."""
    by = {(r.experiment, r.controller): r for r in rows_002()}
    out = []
    for key in CLIMB_ROWS[:n]:
        r = by[key]
        t = CLIMB_TIMES_002.get(key)
        out.append(TableRow(f"{r.experiment} {r.controller}", f"{r.scenario}-3d",
                            (*r.overrides, f"sim.perturbation.seed={SEED}", f"sim.duration={duration!r}"),
                            time_to_climb=None if t is None else Observed(t, SIGMA_FRACTION * t),
                            outcome=r.outcome_002))
    return out


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
                              progress=False, seed=0)
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
    trials = {k: FAST["trials"] for k in TRIALS} if fast else TRIALS
    flat_s = FAST["flat_duration"] if fast else FLAT_DURATION
    climb_s = FAST["climb_duration"] if fast else CLIMB_DURATION
    with tempfile.TemporaryDirectory() as tmp:
        flat = _fit("Table 5.2", SCENARIO_3D, table_5_2_rows(flat_s), FLAT_FIT, FLAT_LOG, (), trials["flat"], client,
                    Path(tmp) / "flat")
        fixed = tuple(f"{f.key}={f.value!r}" for f in flat.fitted if f.key != "world.side_friction")
        rows = climb_rows(climb_s, FAST["climb_rows"] if fast else None)
        climb = _fit("§6.4 and §7.4", rows[0].scenario, rows, CLIMB_FIT, (), fixed, trials["climb"], client,
                     Path(tmp) / "climb")
    return {"flat": flat, "climb": climb, "flat_s": flat_s, "climb_s": climb_s}


def assemble(fast: bool, plan: dict[str, Task], rows: dict[str, dict[str, Any]]) -> Results:
    got = rows["fits"]
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    return Results(fast, today, SIGMA_FRACTION, got["flat_s"], got["climb_s"], _defaults(), got["flat"],
                   got["climb"])


#: The calibrated scenario this section writes (config/scenarios/<name>.yaml), next to the shipped one it is over.
CALIBRATED = f"{SCENARIO_3D}-calibrated"
