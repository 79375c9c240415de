"""Calibration of a scenario's unknowns to a table of outcomes (``snake-sim calibrate SCENARIO --table FILE``), e.g.
a paper's table of measured speeds or its climbs and roll-overs.

The table (:func:`read_table`): a YAML file with a list ``rows`` (or a CSV file with one row per line and the same
keys as columns). Each row is a run — ``scenario`` (default: the command's SCENARIO) with its own ``set`` overrides
(a list, or one string of KEY=VALUE separated by spaces) — and what was observed of it: ``speed`` [m/s] with
``speed_sigma`` (its standard uncertainty), ``time_to_climb`` [s] with ``time_sigma``, ``outcome`` (one of
:data:`snake_studies.climb_3d.OUTCOMES`: climbs, rolls over, did not reach, fails; as the climbing studies score a
run: :func:`~snake_studies.climb_3d.outcome`), an optional ``weight`` (default 1), ``name`` and ``held_out``
(true: not fitted, only predicted at the fitted values). A row runs its scenario with its own ``set``, then the
command's ``--set``, then the trial's values of the fitted fields.

The loss (:func:`residuals`): one residual per observation, times √weight: a speed's and a time's (simulated −
observed) / σ; a run that did not climb where a time to climb was observed counts :data:`MISMATCH`; an outcome other
than the observed one counts :data:`MISMATCH` (a roll-over is one way to fail, as the climbing studies count it); a
run that stopped on a non-finite state counts :data:`MISMATCH` for every observation of its row. The loss is Σ r²
over the fitted rows (χ² for the continuous rows: about one per observation at a fit within its uncertainties).

The fit (:func:`calibrate_table`): the global search of ``snake-sim calibrate`` (Optuna's CMA-ES on the Dask sweep
engine, :func:`snake_studies.optimise.optimise`; resumable from DIR/study.log, every trial in DIR/trials.csv), each
trial one task that runs every fitted row. A categorical residual is not smooth in the fields, so no least-squares
polish follows.

Uncertainty (approximate Bayesian computation): after the search, each field is run at its box's two ends with the
others at the search's best; of the trials and those ends, the best is the fit, and those whose loss lies within
:data:`ACCEPT` of it form an approximate posterior sample; each field's spread is the range of its accepted values.
It is an approximate posterior, drawn where the search went, not a confidence interval. A field whose accepted values
span at least :data:`WHOLE_BOX` of its box (log-space for ``--log`` fields) is not identifiable from this table: any
value in its box fits as well.

Every row, held-out ones included, is run again at the fitted values at the scenario's step h and at h/2: a row's
verdict (:func:`verdict`: each observation within :data:`AGREE` σ, the same outcome) counts only where it is the same
at both steps. Outputs in DIR: result.yaml, fitted.yaml (a scenario over SCENARIO with the fitted fields, its
provenance in its description), report.md, and the search's trials.csv, best.yaml, history.png, importance.png.
"""

from __future__ import annotations

import csv
import datetime
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import yaml
from optuna.storages.journal import JournalFileBackend, JournalStorage
from optuna.trial import TrialState

from snake_core.validation import ConfigError, flag, integer, positive
from snake_sim.core.scenario import list_scenarios, load_scenario
from snake_sim.outputs.output_folder import write_text
from snake_studies.calibrate import check_out
from snake_studies.calibration_fit import to_unit
from snake_studies.climb_3d import OUTCOMES, agrees, outcome
from snake_studies.grid import fields, require, run_cells
from snake_studies.optimise import STUDY, Problem, optimise
from snake_studies.sweep import Cell
from snake_studies.sweep.cells import Range, check_keys, validate
from snake_studies.sweep.engine import connect, measure_summary

#: Residual of an outcome other than the observed one, of a time to climb where the run did not climb, and of every
#: observation of a run that stopped on a non-finite state: a miss of 3 σ.
MISMATCH = 3.0
#: A trial is accepted into the approximate posterior when its loss is at most the best's + ACCEPT (Δχ² = 4: two
#: standard uncertainties of one field; one more outcome mismatch, MISMATCH² = 9, is not accepted).
ACCEPT = 4.0
#: A field whose accepted values span this fraction of its box (in u, log-space for log fields) is not identifiable.
WHOLE_BOX = 0.9
#: A speed or time agrees with the observed one within this many σ.
AGREE = 2.0
#: Keys of a row.
ROW_KEYS = ("name", "scenario", "set", "speed", "speed_sigma", "time_to_climb", "time_sigma", "outcome", "weight",
            "held_out")
#: How a field the table does not pin is reported.
NOT_IDENTIFIABLE = "not identifiable from this table"


@dataclass(frozen=True)
class Observed:
    """An observed number and its standard uncertainty σ > 0."""

    value: float
    sigma: float


@dataclass(frozen=True)
class TableRow:
    """One row of a table of outcomes (module docstring)."""

    name: str
    scenario: str
    sets: tuple[str, ...] = ()
    speed: Observed | None = None  # [m/s]
    time_to_climb: Observed | None = None  # [s]
    outcome: str | None = None  # one of OUTCOMES
    weight: float = 1.0
    held_out: bool = False

    def cell(self, overrides: Sequence[str]) -> Cell:
        """The row's run: its scenario with its own ``set`` and then ``overrides`` (the command's and the fit's)."""
        return Cell(self.scenario, (*self.sets, *overrides))

    def as_dict(self) -> dict[str, Any]:
        """The row as the table writes it."""
        out: dict[str, Any] = {"name": self.name, "scenario": self.scenario, "set": list(self.sets)}
        if self.speed:
            out.update(speed=self.speed.value, speed_sigma=self.speed.sigma)
        if self.time_to_climb:
            out.update(time_to_climb=self.time_to_climb.value, time_sigma=self.time_to_climb.sigma)
        if self.outcome:
            out["outcome"] = self.outcome
        return {**out, "weight": self.weight, "held_out": self.held_out}


def _number(value: Any, name: str) -> float:
    """A finite number of a row (a CSV cell is text)."""
    try:
        out = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        out = math.nan
    if not math.isfinite(out):
        raise ConfigError(name, value, "must be a number")
    return out


def _observed(row: dict[str, Any], key: str, sigma_key: str, where: str) -> Observed | None:
    if row.get(key) is None:
        if row.get(sigma_key) is not None:
            raise ConfigError(f"{where}.{sigma_key}", row[sigma_key], f"is the uncertainty of {key}, which the row "
                              "does not give")
        return None
    value = _number(row[key], f"{where}.{key}")
    if row.get(sigma_key) is None:
        raise ConfigError(f"{where}.{key}", value, f"needs its uncertainty {sigma_key} (> 0, same unit)")
    return Observed(value, positive(_number(row[sigma_key], f"{where}.{sigma_key}"), f"{where}.{sigma_key}"))


def parse_row(raw: Any, index: int, scenario: str) -> TableRow:
    """Row ``index`` (from 1) of a table, validated (not run); ``scenario``: the command's, the default."""
    where = f"--table row {index}"
    if not isinstance(raw, dict):
        raise ConfigError(where, raw, "must be a mapping of " + ", ".join(ROW_KEYS))
    raw = {k: v for k, v in raw.items() if v is not None and v != ""}  # a CSV's empty cells: not given
    unknown = sorted(set(raw) - set(ROW_KEYS))
    if unknown:
        raise ConfigError(f"{where}.{unknown[0]}", raw[unknown[0]], "unknown key; a row has " + ", ".join(ROW_KEYS))
    sets = raw.get("set", [])
    sets = sets.split() if isinstance(sets, str) else sets
    if not isinstance(sets, list) or not all(isinstance(s, str) and "=" in s for s in sets):
        raise ConfigError(f"{where}.set", raw.get("set"), "must be a list of KEY=VALUE (or one string of them)")
    result = raw.get("outcome")
    if result is not None and result not in OUTCOMES:
        raise ConfigError(f"{where}.outcome", result, "must be one of " + ", ".join(OUTCOMES))
    weight = positive(_number(raw.get("weight", 1.0), f"{where}.weight"), f"{where}.weight")
    held = raw.get("held_out", False)
    held = {"true": True, "false": False}.get(held.lower(), held) if isinstance(held, str) else held
    row = TableRow(str(raw.get("name", f"row {index}")), str(raw.get("scenario", scenario)), tuple(sets),
                   _observed(raw, "speed", "speed_sigma", where), _observed(raw, "time_to_climb", "time_sigma", where),
                   result, float(weight), flag(held, f"{where}.held_out"))
    if row.speed is None and row.time_to_climb is None and row.outcome is None:
        raise ConfigError(where, row.name, "observes nothing: give speed, time_to_climb or outcome")
    return row


def read_table(path: Path, scenario: str) -> tuple[TableRow, ...]:
    """The rows of the table file ``path`` (``.yaml``/``.yml``: a mapping with ``rows``; ``.csv``: a header of row
    keys), validated; ConfigError for a file that is not one or a bad row."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError("--table", str(path), "no such file")
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".csv":
            raws: Any = list(csv.DictReader(text.splitlines()))
        elif path.suffix.lower() in (".yaml", ".yml"):
            data = yaml.safe_load(text)
            raws = data.get("rows") if isinstance(data, dict) else None
        else:
            raise ConfigError("--table", str(path), "must be a .yaml, .yml or .csv file")
    except (OSError, UnicodeDecodeError, yaml.YAMLError, csv.Error) as exc:
        raise ConfigError("--table", str(path), f"cannot read the table ({exc})") from None
    if not isinstance(raws, list) or not raws:
        raise ConfigError("--table", str(path), "needs a non-empty list of rows (YAML: under rows:)")
    rows = tuple(parse_row(raw, i, scenario) for i, raw in enumerate(raws, start=1))
    if all(r.held_out for r in rows):
        raise ConfigError("--table", str(path), "every row is held out: nothing to fit")
    return rows


def write_table(path: Path, rows: Sequence[TableRow], description: str = "") -> Path:
    """A YAML table of ``rows`` (:func:`read_table` reads it back)."""
    data = {**({"description": description} if description else {}), "rows": [r.as_dict() for r in rows]}
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Simulated:
    """What a row's run gave: its status, speed [m/s], time to climb [s] (None: did not climb) and outcome."""

    status: str
    speed: float
    time_to_climb: float | None
    outcome: str

    @classmethod
    def of(cls, summary: dict[str, Any]) -> Simulated:
        """From a run's summary.json mapping (:func:`snake_studies.sweep.engine.measure_summary`)."""
        climbed = summary.get("climbed")
        return cls(str(summary["status"]), float(summary["average_speed_mps"]),
                   summary.get("time_to_climb_s") if climbed else None,
                   outcome(climbed, summary.get("rolled_over"), summary.get("reached")))


def row_residuals(row: TableRow, sim: Simulated) -> list[float]:
    """The row's residuals (module docstring), each times √weight."""
    ok = sim.status == "ok"
    out = []
    for obs, got in ((row.speed, sim.speed), (row.time_to_climb, sim.time_to_climb)):
        if obs is not None:
            out.append((got - obs.value) / obs.sigma if ok and got is not None else MISMATCH)
    if row.outcome is not None:
        out.append(0.0 if ok and agrees(sim.outcome, row.outcome) else MISMATCH)
    return [math.sqrt(row.weight) * r for r in out]


def residuals(rows: Sequence[TableRow], sims: Sequence[Simulated]) -> np.ndarray:
    """r of the rows' runs (module docstring)."""
    return np.array([r for row, sim in zip(rows, sims, strict=True) for r in row_residuals(row, sim)])


def verdict(row: TableRow, sim: Simulated) -> str:
    """"agrees" if every observation of the row agrees (a number within AGREE σ, the same outcome), else "differs"."""
    ok = sim.status == "ok"
    numbers = all(obs is None or (ok and got is not None and abs(got - obs.value) <= AGREE * obs.sigma)
                  for obs, got in ((row.speed, sim.speed), (row.time_to_climb, sim.time_to_climb)))
    same = row.outcome is None or (ok and agrees(sim.outcome, row.outcome))
    return "agrees" if numbers and same else "differs"


@dataclass(frozen=True)
class TableLoss:
    """The measure of a trial (:data:`snake_studies.sweep.engine.Measure`): every fitted row run with the cell's
    overrides (the command's ``--set`` and the trial's values), one after the other on the worker; its summary is
    the loss and each row's simulated numbers."""

    rows: tuple[TableRow, ...]

    def __call__(self, cell: Cell, out: Path | None = None) -> dict[str, Any]:
        fitted = [r for r in self.rows if not r.held_out]
        sims = [Simulated.of(measure_summary(r.cell(cell.overrides))) for r in fitted]
        r = residuals(fitted, sims)
        return {"status": "ok", "loss": float(r @ r),
                "rows": [{"speed": s.speed, "time_to_climb": s.time_to_climb, "outcome": s.outcome} for s in sims]}


@dataclass(frozen=True)
class TableCalibration:
    """What ``snake-sim calibrate --table`` was asked (JSON-ready through :meth:`as_dict`)."""

    scenario: str
    table: Path
    fit: tuple[Range, ...]
    sets: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "table": str(Path(self.table).resolve()),
                "fit": {r.key: [r.low, r.high, "log" if r.log else "linear"] for r in self.fit},
                "set": list(self.sets)}

    def command(self) -> str:
        """The command line that makes this calibration (without the options of how it runs)."""
        parts = ["snake-sim calibrate", self.scenario, "--table", str(self.table)]
        parts += [f"--fit {r.key}={r.low!r}:{r.high!r}" for r in self.fit]
        parts += [f"--log {r.key}" for r in self.fit if r.log]
        return " ".join([*parts, *(f"--set {s}" for s in self.sets)])


@dataclass(frozen=True)
class FittedField:
    """A fitted field: the best trial's value, the accepted values' range and whether the table identifies it."""

    key: str
    value: float
    spread: tuple[float, float]  # min, max of the accepted values
    identifiable: bool


@dataclass(frozen=True)
class RowFit:
    """A row at the fitted values, at the scenario's step h and at h/2."""

    row: TableRow
    at_h: Simulated
    at_half: Simulated

    @property
    def verdicts(self) -> tuple[str, str]:
        return verdict(self.row, self.at_h), verdict(self.row, self.at_half)

    @property
    def stands(self) -> bool:
        """The verdict is the same at h and at h/2."""
        return self.verdicts[0] == self.verdicts[1]


@dataclass(frozen=True)
class TableOutcome:
    fitted: list[FittedField]
    loss: float  # the best trial's
    accepted: int  # points in the approximate posterior (trials and box ends)
    rows: list[RowFit]
    trials: int
    written: list[Path] = field(default_factory=list)
    interrupted: bool = False


def _check_rows(calibration: TableCalibration, rows: Sequence[TableRow]) -> None:
    """Every row's scenario at both corners of the box, validated by its model (nothing run); ConfigError naming the
    row."""
    keys = tuple(r.key for r in calibration.fit)
    check_keys(calibration.sets, keys)
    for corner in ({r.key: r.low for r in calibration.fit}, {r.key: r.high for r in calibration.fit}):
        fit = [f"{k}={v!r}" for k, v in corner.items()]
        for i, row in enumerate(rows, start=1):
            try:
                validate(load_scenario(row.scenario, [*row.sets, *calibration.sets, *fit]))
            except ConfigError as exc:
                raise ConfigError(f"--table row {i} ({row.name})", row.scenario, str(exc)) from None


def accepted_points(out: Path, probes: list[tuple[dict[str, float], float]]
                    ) -> tuple[list[dict[str, float]], dict[str, float], float]:
    """The complete trials of the study in ``out`` and the ``probes`` (params, loss) within ACCEPT of the best of
    them all; the best point (a box end may beat the search's best) and its loss."""
    study = optuna.load_study(study_name=STUDY, storage=JournalStorage(JournalFileBackend(str(out / "study.log"))))
    points = [(t.params, float(t.value)) for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
    points += [(p, v) for p, v in probes if math.isfinite(v)]
    best, loss = min(points, key=lambda pv: pv[1])
    return [p for p, v in points if v <= loss + ACCEPT], {k: float(v) for k, v in best.items()}, loss


def spreads(fit: Sequence[Range], accepted: list[dict[str, float]], best: dict[str, float]) -> list[FittedField]:
    """Each field's best value, the range of its accepted values and whether they span the whole box (module
    docstring)."""
    out = []
    for r in fit:
        values = [p[r.key] for p in accepted]
        lo, hi = min(values), max(values)
        out.append(FittedField(r.key, best[r.key], (lo, hi), to_unit(r, hi) - to_unit(r, lo) < WHOLE_BOX))
    return out


def _step(cell: Cell) -> float:
    """The cell's step h [s]."""
    return load_scenario(cell.scenario, cell.overrides).time_step


def calibrate_table(calibration: TableCalibration, out: Path, trials: int, workers: int | None = None,
                    scheduler: str | None = None, resume: bool = False, progress: bool = True,
                    seed: int | None = None) -> TableOutcome:
    """The search, the box-end probes, the approximate posterior, the rows at h and h/2 and the outputs (module
    docstring); ``seed`` fixes the search's draws (None: new ones each run)."""
    integer(trials, "--trials", low=1)
    rows = read_table(calibration.table, calibration.scenario)
    check_out(calibration, out, resume)
    _check_rows(calibration, rows)
    problem = Problem(calibration.scenario, calibration.fit, "loss", sets=calibration.sets)
    loss = TableLoss(rows)
    search = optimise(problem, out, trials, "cmaes", None, workers, scheduler, progress, loss, seed)
    (out / "calibration.yaml").write_text(yaml.safe_dump(calibration.as_dict(), sort_keys=False), encoding="utf-8")
    if search.interrupted or search.best is None:
        return TableOutcome([], math.nan, 0, [], search.trials, search.written, search.interrupted)
    searched = {k: float(v) for k, v in search.best.params.items()}
    ends = [{**searched, r.key: end} for r in calibration.fit for end in (r.low, r.high)]
    with connect(workers, scheduler) as client:
        probe_cells = [problem.cell(p) for p in ends]
        probe_rows = run_cells(probe_cells, client, loss, progress)
        probes = [(p, float(probe_rows[c.id]["loss"]) if probe_rows[c.id]["status"] == "ok" else math.inf)
                  for p, c in zip(ends, probe_cells, strict=True)]
        accepted, best, best_loss = accepted_points(out, probes)
        fitted_overrides = problem.cell(best).overrides
        row_cells = [r.cell(fitted_overrides) for r in rows]
        half_cells = [r.cell((*fitted_overrides, f"sim.time_step={0.5 * _step(c)!r}")) for r, c in
                      zip(rows, row_cells, strict=True)]
        done = run_cells([*row_cells, *half_cells], client, measure_summary, progress)
    require([*row_cells, *half_cells], done)
    fits = [RowFit(r, Simulated.of(fields(done[c.id])), Simulated.of(fields(done[h.id])))
            for r, c, h in zip(rows, row_cells, half_cells, strict=True)]
    outcome_ = TableOutcome(spreads(calibration.fit, accepted, best), best_loss, len(accepted), fits, search.trials)
    written = write_outputs(out, calibration, outcome_)
    return replace(outcome_, written=[*written, *search.written])


def held_out_errors(fits: Sequence[RowFit]) -> list[tuple[str, float, float]]:
    """(name, sim − observed [m/s], (sim − observed) / observed) of every held-out row with a speed, at h."""
    return [(f.row.name, f.at_h.speed - f.row.speed.value, (f.at_h.speed - f.row.speed.value) / f.row.speed.value)
            for f in fits if f.row.held_out and f.row.speed is not None]


def result(calibration: TableCalibration, outcome_: TableOutcome) -> dict[str, Any]:
    """result.yaml's mapping."""
    fields_ = {f.key: {"value": f.value, "accepted_range": list(f.spread), "identifiable": f.identifiable,
                       **({} if f.identifiable else {"note": NOT_IDENTIFIABLE})} for f in outcome_.fitted}
    rows = []
    for f in outcome_.rows:
        at = {}
        for label, sim in (("h", f.at_h), ("h/2", f.at_half)):
            at[label] = {"status": sim.status, "speed": sim.speed, "time_to_climb": sim.time_to_climb,
                         "outcome": sim.outcome, "verdict": verdict(f.row, sim)}
        rows.append({**f.row.as_dict(), "fitted": at, "stands": f.stands})
    return {"scenario": calibration.scenario, "table": str(calibration.table), "command": calibration.command(),
            "fields": fields_, "loss": outcome_.loss, "trials": outcome_.trials, "accepted": outcome_.accepted,
            "held_out_error": [{"row": n, "error_mps": e, "relative": rel} for n, e, rel in held_out_errors(
                outcome_.rows)],
            "rows": rows,
            "uncertainty_method": f"approximate Bayesian computation: the trials (and box ends) with loss <= best + "
                                  f"{ACCEPT:g} form an approximate posterior sample; accepted_range is its range per "
                                  "field (not a confidence interval); a field whose accepted values span "
                                  f"{100 * WHOLE_BOX:g} % of its box is {NOT_IDENTIFIABLE}"}


def observed_text(row: TableRow) -> str:
    """What the row observes, in words."""
    parts = []
    if row.speed:
        parts.append(f"{100 * row.speed.value:.2f} ± {100 * row.speed.sigma:.2f} cm/s")
    if row.time_to_climb:
        parts.append(f"climbs in {row.time_to_climb.value:.1f} ± {row.time_to_climb.sigma:.1f} s")
    if row.outcome and not (row.time_to_climb and row.outcome == "climbs"):
        parts.append(row.outcome)
    return ", ".join(parts)


def simulated_text(row: TableRow, sim: Simulated) -> str:
    """The row's simulated counterparts of what it observes."""
    if sim.status != "ok":
        return f"stopped: {sim.status}"
    parts = []
    if row.speed:
        parts.append(f"{100 * sim.speed:.2f} cm/s")
    if row.time_to_climb or row.outcome:
        parts.append(f"climbs in {sim.time_to_climb:.1f} s" if sim.time_to_climb is not None else sim.outcome)
    return ", ".join(parts)


def row_table(fits: Sequence[RowFit]) -> list[str]:
    """The Markdown table of the rows: observed, fitted at h and at h/2, the verdict (inconclusive where they
    differ)."""
    lines = ["| row | fitted or held out | observed | at h | at h/2 | verdict |", "|---|---|---|---|---|---|"]
    for f in fits:
        h, half = f.verdicts
        lines.append(f"| {f.row.name} | {'held out' if f.row.held_out else 'fitted'} | {observed_text(f.row)} | "
                     f"{simulated_text(f.row, f.at_h)} | {simulated_text(f.row, f.at_half)} | "
                     + (h if f.stands else f"*inconclusive* (h: {h}, h/2: {half})") + " |")
    return lines


def report(calibration: TableCalibration, outcome_: TableOutcome) -> str:
    """report.md's text."""
    lines = [f"# Calibration of {calibration.scenario} to {calibration.table}", "", f"`{calibration.command()}`", "",
             f"{outcome_.trials} trials of the CMA-ES search (trials.csv); loss (Σ r² over the fitted rows) of the "
             f"best: {outcome_.loss:.4g}. {outcome_.accepted} points (trials and box ends) within {ACCEPT:g} of it "
             "form an approximate posterior sample (approximate Bayesian computation): its range per field is an "
             "approximate posterior's spread, not a confidence interval.", "",
             "| field | fitted | accepted range | |", "|---|---|---|---|"]
    for f in outcome_.fitted:
        lines.append(f"| {f.key} | {f.value:.4g} | {f.spread[0]:.4g} … {f.spread[1]:.4g} | "
                     f"{'' if f.identifiable else NOT_IDENTIFIABLE} |")
    lines += ["", "Every row at the fitted values, at the scenario's step h and at h/2 (a verdict counts only where "
              f"it stands at both; *agrees*: each number within {AGREE:g} σ and the same outcome):", "",
              *row_table(outcome_.rows)]
    errors = held_out_errors(outcome_.rows)
    if errors:
        mean = float(np.mean([abs(e) for _, e, _ in errors]))
        rel = float(np.mean([abs(r) for _, _, r in errors]))
        lines += ["", f"Held-out speeds: mean |error| {100 * mean:.2f} cm/s ({100 * rel:.1f} %)."]
    lines += ["", "`snake-sim run fitted.yaml` runs the scenario at the fitted values.", ""]
    return "\n".join(lines)


def fitted_patch(calibration: TableCalibration, params: dict[str, float]) -> dict[str, Any]:
    """The fitted fields as a scenario mapping over SCENARIO (a list element's whole list)."""
    data = load_scenario(calibration.scenario, [*calibration.sets, *(f"{k}={v!r}" for k, v in params.items())]).data
    patch: dict[str, Any] = {}
    for key in [*params, *(s.partition("=")[0].strip() for s in calibration.sets)]:
        parts = key.split(".")
        if parts[-1].isdigit():
            parts = parts[:-1]
        node, target = data, patch
        for p in parts[:-1]:
            node, target = node[p], target.setdefault(p, {})
        target[parts[-1]] = node[parts[-1]]
    return patch


def fitted_text(calibration: TableCalibration, outcome_: TableOutcome, name: str | None = None) -> str:
    """A scenario file over SCENARIO with the fitted fields, its provenance in its description and comments."""
    params = {f.key: f.value for f in outcome_.fitted}
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    frozen = [f.key for f in outcome_.fitted if not f.identifiable]
    description = (f"{calibration.scenario} calibrated to the table {Path(calibration.table).name} on {today}: "
                   + ", ".join(f"{f.key} = {f.value:.4g} (accepted {f.spread[0]:.4g} … {f.spread[1]:.4g})"
                               for f in outcome_.fitted)
                   + f"; loss {outcome_.loss:.4g} after {outcome_.trials} trials"
                   + (f"; {', '.join(frozen)} {NOT_IDENTIFIABLE}" if frozen else ""))
    own = {"name": name or f"{Path(calibration.scenario).stem}-calibrated", "description": description}
    if calibration.scenario in list_scenarios():  # over the shipped file: only what the fit sets
        data = {"base": calibration.scenario, **own, **fitted_patch(calibration, params)}
    else:  # a file of the user's: the whole scenario
        data = {**load_scenario(calibration.scenario, [*calibration.sets, *(f"{k}={v!r}" for k, v in
                                                                            params.items())]).data, **own}
    head = (f"# Fitted by: {calibration.command()}\n# on {today}; every value above its base's is fitted or fixed by "
            "that command.\n")
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


def write_outputs(out: Path, calibration: TableCalibration, outcome_: TableOutcome) -> list[Path]:
    """result.yaml, fitted.yaml and report.md in ``out``."""
    return [write_text(out / "result.yaml", yaml.safe_dump(result(calibration, outcome_), sort_keys=False,
                                                           allow_unicode=True)),
            write_text(out / "fitted.yaml", fitted_text(calibration, outcome_)),
            write_text(out / "report.md", report(calibration, outcome_))]
