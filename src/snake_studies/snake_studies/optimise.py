"""Searches of a scenario's parameters with Optuna, the trials run as Dask tasks (``snake-sim optimise``).

The study asks for a trial, the trial's cell (the scenario with the trial's values,
:class:`snake_studies.sweep.Cell`) runs as a task of :mod:`snake_studies.sweep.engine` and the study is told
the objective when the task finishes (Optuna's ask-and-tell): as many trials are in flight as the cluster has worker
threads, and a new one is asked as each ends. A run that fails, stops on a non-finite state or has no value of the
objective (null) is a failed trial. ``--constraint FIELD>=V`` (or ``<=``) is set on the trial as a violation V − FIELD
(FIELD − V; infinite for a run without the field), which the TPE sampler uses; the best trial is the best of those
meeting them all.

Storage: only this process talks to the study (the workers only run), so the study lives in a file in
DIR: an Optuna journal (``study.log``, append-only, no database server), which survives Ctrl-C or a lost
machine and lets the same command resume: the trials it has are kept, those cut off are asked again.
optuna-integration's DaskStorage is still experimental and keeps the study in the scheduler's memory, so a
stopped scheduler loses it. ``--storage sqlite:///PATH`` (or any database URL Optuna takes) puts it elsewhere.

Writes DIR/trials.csv (one row per trial, the sweep's columns and ``trial``), DIR/best.yaml (the scenario
with the best feasible trial's values: ``snake-sim run DIR/best.yaml`` repeats it), DIR/history.png and
DIR/importance.png (Optuna's optimisation history and fANOVA parameter importances).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import optuna
import yaml
from distributed import as_completed
from optuna.distributions import FloatDistribution
from optuna.storages.journal import JournalFileBackend, JournalStorage
from optuna.trial import FrozenTrial, TrialState
from sqlalchemy.exc import SQLAlchemyError
from tqdm import tqdm

from snake_core.validation import ConfigError, choice, integer
from snake_sim.core.scenario import load_scenario
from snake_sim.outputs.output_folder import writable_folder
from snake_studies.sweep.cells import Cell, Range, check_keys, validate
from snake_studies.sweep.engine import Measure, check_field, collect, connect, measure_summary, probe, submit
from snake_studies.sweep.table import ResultsTable

#: Name of the study in its storage.
STUDY = "snake-sim"
#: Samplers of ``--sampler``.
SAMPLERS = ("tpe", "cmaes")


@dataclass(frozen=True)
class Constraint:
    """``FIELD>=BOUND`` (``at_least``) or ``FIELD<=BOUND`` on a summary field."""

    field: str
    bound: float
    at_least: bool

    @property
    def name(self) -> str:
        return f"{self.field}{'>=' if self.at_least else '<='}{self.bound:g}"

    def violation(self, row: dict[str, Any]) -> float:
        """> 0 if violated (Optuna's convention); inf if the row has no number for the field."""
        value = row.get(self.field)
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            return math.inf
        return self.bound - float(value) if self.at_least else float(value) - self.bound


def parse_constraint(text: str) -> Constraint:
    """``FIELD>=V`` or ``FIELD<=V``."""
    for op in (">=", "<="):
        field, sep, bound = text.partition(op)
        if sep:
            try:
                return Constraint(field.strip(), float(bound), op == ">=")
            except ValueError:
                break
    raise ConfigError("--constraint", text, "must be FIELD>=V or FIELD<=V with a number V, e.g. climbed>=1")


@dataclass(frozen=True)
class Problem:
    """What is searched: the box of ``space`` over ``scenario`` (with ``sets``) for the best ``objective``."""

    scenario: str
    space: tuple[Range, ...]
    objective: str
    maximise: bool = False
    constraints: tuple[Constraint, ...] = ()
    sets: tuple[str, ...] = ()

    def cell(self, params: dict[str, float]) -> Cell:
        """The run of one point of the box."""
        return Cell(self.scenario, (*self.sets, *(f"{r.key}={params[r.key]!r}" for r in self.space)),
                    tuple((r.key, params[r.key]) for r in self.space))

    def distributions(self) -> dict[str, FloatDistribution]:
        return {r.key: FloatDistribution(r.low, r.high, log=r.log) for r in self.space}

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "space": [asdict(r) for r in self.space], "objective": self.objective,
                "maximise": self.maximise, "constraints": [asdict(c) for c in self.constraints],
                "set": list(self.sets)}


def check(problem: Problem, measure: Measure = measure_summary) -> None:
    """Every input error as one ConfigError before any trial: keys, the box's corners in the model's ranges, the
    objective and constraint fields in the scenario's summary.json (from a short run at the box's centre)."""
    if not problem.space:
        raise ConfigError("--space", [], "give at least one KEY=LO:HI[:log]")
    check_keys(problem.sets, tuple(r.key for r in problem.space))
    corners = [{r.key: r.low for r in problem.space}, {r.key: r.high for r in problem.space}]
    for corner in corners:
        validate(load_scenario(problem.scenario, problem.cell(corner).overrides))
    centre = {r.key: math.sqrt(r.low * r.high) if r.log else 0.5 * (r.low + r.high) for r in problem.space}
    fields = probe(problem.cell(centre), measure)
    check_field(fields, problem.objective, "--objective")
    for c in problem.constraints:
        check_field(fields, c.field, "--constraint")


def make_sampler(name: str, problem: Problem, seed: int | None = None) -> optuna.samplers.BaseSampler:
    """TPE (with the constraints; a constant liar for the trials in flight) or CMA-ES (no constraints); ``seed``
    fixes the sampler's random draws (None: new ones each run)."""
    choice(name, "--sampler", SAMPLERS)
    if name == "cmaes":
        if problem.constraints:
            raise ConfigError("--constraint", problem.constraints[0].field, "needs --sampler tpe (CMA-ES takes none)")
        return optuna.samplers.CmaEsSampler(seed=seed)
    return optuna.samplers.TPESampler(constant_liar=True, seed=seed)


def open_study(problem: Problem, out: Path, sampler: optuna.samplers.BaseSampler,
               storage: str | None = None) -> optuna.Study:
    """The study of ``problem`` in ``storage`` (default: the journal ``out/study.log``), created or resumed.
    Trials cut off by an interrupted call are failed and their values asked again; ConfigError if the storage
    holds a study of another problem or cannot be opened."""
    try:
        store = storage or JournalStorage(JournalFileBackend(str(out / "study.log")))
        study = optuna.create_study(study_name=STUDY, storage=store, sampler=sampler, load_if_exists=True,
                                    direction="maximize" if problem.maximise else "minimize")
    except (ValueError, ImportError, optuna.exceptions.OptunaError, SQLAlchemyError) as exc:
        raise ConfigError("--storage", storage or str(out / "study.log"), f"cannot open the study ({exc})") from None
    stored = study.user_attrs.get("problem")
    if stored is None:
        study.set_user_attr("problem", problem.as_dict())
    elif stored != problem.as_dict():
        raise ConfigError("--out", str(out), f"holds a study of another problem ({stored}); choose another folder")
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(t.number, state=TrialState.FAIL)
        study.enqueue_trial(t.params)
    return study


def finished(study: optuna.Study) -> int:
    """Trials that ran (complete or failed by their run; not those cut off by Ctrl-C)."""
    return sum(t.state.is_finished() and "status" in t.user_attrs for t in study.get_trials(deepcopy=False))


def tell(study: optuna.Study, problem: Problem, trial: optuna.Trial, row: dict[str, Any]) -> None:
    """Tell the study a trial's row: its objective, or a failure; the constraint violations first."""
    trial.set_user_attr("status", row["status"])
    for c in problem.constraints:
        trial.set_constraint(c.name, c.violation(row))
    value = row.get(problem.objective)
    if row["status"] == "ok" and isinstance(value, (int, float)) and math.isfinite(value):
        study.tell(trial, float(value))
    else:
        study.tell(trial, state=TrialState.FAIL)


def best_trial(study: optuna.Study, problem: Problem) -> FrozenTrial | None:
    """The best complete trial satisfying every constraint (None if there is none)."""
    feasible = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                if all(v <= 0.0 for v in t.constraints.values())]
    if not feasible:
        return None
    return (max if problem.maximise else min)(feasible, key=lambda t: t.value)


def write_scenario(path: Path, problem: Problem, params: dict[str, float], suffix: str, description: str) -> Path:
    """The scenario of ``problem`` at ``params`` as a file (validated, with every default written out), named
    ``<scenario>-<suffix>``, its provenance in ``description``."""
    scenario = load_scenario(problem.scenario, problem.cell(params).overrides)
    data = dict(scenario.data)
    data["name"] = f"{scenario.name}-{suffix}"
    data["description"] = description
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def write_best(path: Path, study: optuna.Study, problem: Problem, trial: FrozenTrial) -> Path:
    """The scenario file of ``trial`` (:func:`write_scenario`)."""
    return write_scenario(path, problem, trial.params, "best",
                          f"snake-sim optimise: trial {trial.number} of {len(study.trials)}, {problem.objective} = "
                          f"{trial.value!r} ({'max' if problem.maximise else 'min'}imised); "
                          + ", ".join(f"{k} = {v!r}" for k, v in trial.params.items()))


def write_plots(out: Path, study: optuna.Study) -> list[Path]:
    """history.png (objective per trial, best so far; needs a complete trial) and importance.png (fANOVA; needs
    two)."""
    from optuna.visualization import matplotlib as views

    written = []
    complete = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
    plots = [("history.png", views.plot_optimization_history), ("importance.png", views.plot_param_importances)]
    plots = plots[:0 if complete == 0 else 1 if complete == 1 else 2]
    for name, view in plots:
        with warnings.catch_warnings(), matplotlib.rc_context():  # Optuna's views set a style for the process
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            ax = view(study)
            ax.figure.set_size_inches(7, 4.5)
            ax.figure.tight_layout()
            ax.figure.savefig(out / name, dpi=110)
            plt.close(ax.figure)
        written.append(out / name)
    return written


@dataclass(frozen=True)
class OptimiseOutcome:
    trials: int  # finished trials of the study
    ran: int  # trials run by this call
    best: FrozenTrial | None
    written: list[Path]
    interrupted: bool


def optimise(problem: Problem, out: Path, trials: int, sampler: str = "tpe", storage: str | None = None,
             workers: int | None = None, scheduler: str | None = None, progress: bool = True,
             measure: Measure = measure_summary, seed: int | None = None) -> OptimiseOutcome:
    """Run the study until it has ``trials`` finished trials (resuming the one in ``out``); write the outputs.
    ``seed``: the sampler's (:func:`make_sampler`)."""
    integer(trials, "--trials", low=1)
    check(problem, measure)
    chosen = make_sampler(sampler, problem, seed)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    interrupted = False
    ran = 0
    with connect(workers, scheduler) as client:
        if storage is None:  # the journal goes into out
            writable_folder(out)
        study = open_study(problem, out, chosen, storage)
        writable_folder(out)
        table = ResultsTable(out / "trials.csv")
        todo = max(0, trials - finished(study))
        in_flight: dict[Any, tuple[optuna.Trial, Cell]] = {}
        pending = as_completed()

        def ask() -> None:
            trial = study.ask(problem.distributions())
            cell = problem.cell(trial.params)
            future = submit(client, cell, measure)
            in_flight[future] = (trial, cell)
            pending.add(future)

        asked = min(todo, sum(client.nthreads().values()))
        for _ in range(asked):
            ask()
        with tqdm(total=todo, disable=not progress, unit="trial", dynamic_ncols=True) as bar:
            try:
                for future in pending:
                    trial, cell = in_flight.pop(future)
                    row = {"trial": trial.number, **collect(future, cell)}
                    tell(study, problem, trial, row)
                    table.append(row)
                    ran += 1
                    best = best_trial(study, problem)
                    bar.set_postfix(best=None if best is None else f"{best.value:.4g}", refresh=False)
                    bar.update()
                    if asked < todo:
                        ask()
                        asked += 1
            except KeyboardInterrupt:
                interrupted = True
            finally:
                client.cancel(list(in_flight))
    best = best_trial(study, problem)
    written = [*([table.path] if table.rows else []), *write_plots(out, study)]
    if best is not None:
        written.insert(0, write_best(out / "best.yaml", study, problem, best))
    return OptimiseOutcome(finished(study), ran, best, written, interrupted)
