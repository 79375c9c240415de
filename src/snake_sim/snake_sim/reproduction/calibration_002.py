"""docs/reproduction.md section: 002's unknowns calibrated in MuJoCo to 002's measured outcomes (Table 5.2, §6.4, §7.4).

Two fits with ``snake-sim calibrate --table`` (:mod:`snake_sim.studies.calibrate_table`), one :class:`Task` in the
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

import numpy as np
import yaml
from distributed import Client

from snake_sim.core.scenario import load_scenario
from snake_sim.core.worldgen import FACE_FRICTION
from snake_sim.reproduction.experiment import Task
from snake_sim.reproduction.pedal_wave import AMPLITUDES, PHASES, SCENARIO_3D, TABLE_E
from snake_sim.reproduction.runs_002 import rows_002
from snake_sim.studies.calibrate import parse_fits
from snake_sim.studies.calibrate_table import (
    ACCEPT,
    AGREE,
    NOT_IDENTIFIABLE,
    WHOLE_BOX,
    FittedField,
    Observed,
    RowFit,
    TableCalibration,
    TableRow,
    calibrate_table,
    fitted_patch,
    held_out_errors,
    row_table,
    write_table,
)
from snake_sim.studies.sweep.cells import Range

TITLE = "002's unknowns calibrated in MuJoCo to 002's measured outcomes (Table 5.2, §6.4, §7.4)"

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


def _field_rows(fit: Fit, defaults: dict[str, float]) -> list[str]:
    lines = ["| field | box | shipped | fitted | accepted range (approximate posterior) | |",
             "|---|---|---|---|---|---|"]
    for f, r in zip(fit.fitted, fit.box, strict=True):
        shipped = defaults.get(f.key, float("nan"))
        lines.append(f"| `{f.key}` | {r.low:g} … {r.high:g}{' (log)' if r.log else ''} | "
                     + ("—" if np.isnan(shipped) else f"{shipped:g}")
                     + f" | {f.value:.3g} | {f.spread[0]:.3g} … {f.spread[1]:.3g} | "
                     + ("identifiable" if f.identifiable else f"**{NOT_IDENTIFIABLE}**") + " |")
    return lines


def _value(fit: Fit, key: str) -> FittedField:
    (f,) = [f for f in fit.fitted if f.key == key]
    return f


def render(r: Results) -> str:
    """The section's Markdown from the stored results alone."""
    flat, climb = r.flat, r.climb
    errors = held_out_errors(flat.rows)
    mean_cm = 100 * float(np.mean([abs(e) for _, e, _ in errors])) if errors else float("nan")
    mean_rel = 100 * float(np.mean([abs(x) for _, _, x in errors])) if errors else float("nan")
    fitted_err = [abs(f.at_h.speed - f.row.speed.value) for f in flat.rows if not f.row.held_out and f.row.speed]
    face_flat, face = _value(flat, "world.side_friction"), _value(climb, "world.side_friction")
    stands = sum(f.stands for f in (*flat.rows, *climb.rows))
    agree = [f for f in climb.rows if f.stands and f.verdicts[0] == "agrees"]
    short = sum(f.at_h.outcome == "did not reach" for f in climb.rows)
    lines = [f"## {TITLE}", "",
             "`snake-sim calibrate --table` (docs/studies.md) fits 002's unknowns in MuJoCo to 002's measured "
             f"outcomes: the ground μ, the boxes' face μ, the contact softness (solref's time constant) and the scale "
             f"of the motor-side PD gains (4.39) (`robot.motor_gain_scale`). 002 prints no spread of its measurements: "
             f"each speed and time has σ = {100 * r.sigma_fraction:g} % of its value (our choice). The loss is Σ r² "
             "over the fitted rows (speed, time: (sim − 002)/σ; an outcome other than 002's: 3); the search is "
             "CMA-ES (seed 0), the spread the range of the trials within "
             f"Δloss = {ACCEPT:g} of the best and the box ends (an approximate posterior, not a confidence "
             f"interval; a field whose accepted values span {100 * WHOLE_BOX:g} % of its box is not identifiable). "
             f"Every row runs again at the fitted values at h and at h/2; *agrees*: within {AGREE:g} σ and 002's "
             "outcome; a verdict counts only where it stands at both steps."
             + (" **fast mode: short runs, numbers not for the docs.**" if r.fast else ""), "",
             f"### Fit 1: Table 5.2's measured speeds ({len(flat.rows) - len(errors)} cells fitted, "
             f"{len(errors)} held out)", "",
             f"`{SCENARIO_3D}` (MuJoCo) for {r.flat_duration_s:g} s per cell, the cells fitted chosen before any run "
             f"(the table's corners and centre). {flat.trials} trials, {flat.wall_time_s / 60:.0f} min on the shared "
             f"2-core machine; loss {flat.loss:.3g}, {flat.accepted} points accepted. `{flat.command}`", "",
             *_field_rows(flat, r.defaults), "", *row_table(flat.rows), "",
             f"- Held-out error (the four cells not fitted, predicted at the fitted values): mean |sim − 002| "
             f"**{mean_cm:.2f} cm/s ({mean_rel:.0f} %)**; on the fitted cells "
             f"{100 * float(np.mean(fitted_err)):.2f} cm/s.",
             "- Face μ on flat ground: " + ("**not identifiable**, as it must be (flat ground has no box faces)"
                                            if not face_flat.identifiable else "**identifiable**: unexpected on flat "
                                            "ground, which has no box faces; read the fit with care")
             + f" (accepted {face_flat.spread[0]:.2g} … {face_flat.spread[1]:.2g}).",
             "", "### Fit 2: the face μ, to 002's outcomes on the robot (§6.4, §7.4)", "",
             f"002's runs on the robot (their `*-3d` scenarios, perturbation seed {SEED}, {r.climb_duration_s:g} s at "
             "h = 1 ms), the ground μ, softness and gain scale fixed at fit 1's values; the face μ alone fitted. "
             f"{climb.trials} trials, {climb.wall_time_s / 60:.0f} min; loss {climb.loss:.3g}, {climb.accepted} "
             f"points accepted. `{climb.command}`", "",
             *_field_rows(climb, r.defaults), "", *row_table(climb.rows), "",
             f"- {len(agree)} of {len(climb.rows)} of 002's outcomes agree at the fitted face μ = {face.value:.2g} at "
             f"h and h/2; {stands} of {len(flat.rows) + len(climb.rows)} verdicts of both fits stand at h/2.",
             "- Face μ from these outcomes: " + ("identifiable" if face.identifiable else f"**{NOT_IDENTIFIABLE}**")
             + f" (accepted {face.spread[0]:.2g} … {face.spread[1]:.2g}); at the fitted values {short} of "
             f"{len(climb.rows)} runs end before the head reaches the box (*did not reach*), where no face μ acts"
             + ("." if face.identifiable else "; the calibrated scenario leaves the face μ at its base scenario's "
                "value, as it does every field its table does not pin."),
             "", "### Where the fit differs from 002, and why", "", *_differences(r)]
    return "\n".join(lines) + "\n"


def _differences(r: Results) -> list[str]:
    """The fitted values against 002's Table 5.1 and the suite's shipped ones."""
    mu, tc, s = (_value(r.flat, k) for k in ("contact.friction", "contact.solref.0", "robot.motor_gain_scale"))
    face = _value(r.climb, "world.side_friction")
    d = r.defaults

    def where(f: FittedField, shipped: float, what: str) -> str:
        inside = f.spread[0] <= shipped <= f.spread[1]
        return (f"- {what}: fitted {f.value:.3g} (accepted {f.spread[0]:.3g} … {f.spread[1]:.3g}) against "
                f"{shipped:g} shipped: " + (f"{NOT_IDENTIFIABLE}: any value in the box fits as well."
                                            if not f.identifiable else
                                            "the shipped value is inside the accepted range, the table does not "
                                            "tell them apart." if inside else
                                            "the shipped value is outside the accepted range."))

    return [where(mu, d["contact.friction"], "Ground μ (002 Table 5.1: μ_c = 0.6)"),
            where(tc, d["contact.solref.0"], "Contact softness, solref time constant [s] (MuJoCo's default; 002's "
                                             "contact model is a spring–damper of its own)"),
            where(s, d["robot.motor_gain_scale"], "Motor PD gain scale (002 Table 5.1's K_p = 60, K_D = 25: s = 1)"),
            where(face, d["world.side_friction"], "Face μ of the boxes (002 does not print it; the worlds' own)"),
            "- Why they differ: 002's measured speeds are of its robot (the tether, the cable's drag, the modules' "
            "own servo loop) and MuJoCo's contact is not 002's; a fit absorbs those differences into the four "
            "fields it is given, so a fitted value is what makes this model reproduce the table, not a measurement "
            "of 002's robot."]


#: The calibrated scenario this section writes (config/scenarios/<name>.yaml), next to the shipped one it is over.
CALIBRATED = f"{SCENARIO_3D}-calibrated"


def calibrated_text(r: Results) -> str:
    """config/scenarios/CALIBRATED.yaml: SCENARIO_3D with the values the fits identify (fit 1's ground μ, softness
    and gain scale, fit 2's face μ; a field not identifiable from its table keeps SCENARIO_3D's value and is named as
    such), its provenance in its comments and description (the shipped scenarios do not change)."""
    fields = [*(f for f in r.flat.fitted if f.key != "world.side_friction"), _value(r.climb, "world.side_friction")]
    params = {f.key: f.value for f in fields if f.identifiable}
    frozen = [f.key for f in fields if not f.identifiable]
    calibration = TableCalibration(SCENARIO_3D, Path("table"), tuple(Range(k, 0.0, 1.0) for k in params))
    values = ", ".join(f"{k} = {v:.4g}" for k, v in params.items())
    data = {"base": SCENARIO_3D, "name": CALIBRATED,
            "description": f"3-D (MuJoCo): {SCENARIO_3D} with 002's unknowns calibrated to 002's measured outcomes "
                           f"({values}; docs/reproduction.md)", **fitted_patch(calibration, params)}
    head = [f"# {CALIBRATED}: {SCENARIO_3D} calibrated in MuJoCo on {r.date} by `snake-sim reproduce --only "
            "calibration_002`", "# (docs/reproduction.md, section \"" + TITLE + "\"):",
            f"#   fit 1, {r.flat.name} (002's measured speeds, five cells): {r.flat.command}",
            f"#   fit 2, {r.climb.name} (002's outcomes on the robot): {r.climb.command}",
            "# Fitted: " + (", ".join(f"{k} (fit {1 if k != 'world.side_friction' else 2})" for k in params) or "none")
            + ". Not identifiable from its table, left at the base scenario's value: "
            + (", ".join(frozen) or "none") + ". The shipped scenarios and robot files are unchanged.", ""]
    return "\n".join(head) + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
