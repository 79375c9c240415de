"""Runs of a sweep or a search as Dask tasks: one task per cell, one row per task, whatever becomes of it.

The cluster is a ``distributed.LocalCluster`` of single-threaded worker processes on this machine
(:func:`connect` with ``workers``), or a running scheduler that ``dask worker`` processes on other machines joined
(``scheduler="tcp://host:8786"``; the workers need the same workspace installed). A task evaluates its cell
(default :func:`measure_summary`: the scenario's run and its summary.json, as ``snake-sim run`` computes it) and returns
its row: the cell's columns, ``status``, ``message``, ``wall_time_s`` (the task's: load, simulate, summarise),
``worker`` and every scalar of summary.json by dotted path (``contacts.mean``, ``torque_Nm.2.rms``).

``status`` is ``ok``, ``non-finite`` (the run stopped on a non-finite state; ``message`` says when and where),
``error`` (the run raised; ``message`` is the exception) or ``killed`` (the worker process died running it, and
again when the scheduler tried it once more: :data:`SCHEDULER_CONFIG`). None of them ends the sweep.

Batches (``batch`` > 1, ``snake-sim sweep --batch N``): cells of a model whose runtime steps runs together
(:class:`snake_sim.core.models.BatchedRuntime`, the vertical model) and whose scenarios have equal ``batch_key`` go to
the workers as tasks of up to N cells (:func:`batches`); the task (:func:`run_batch`) builds each cell's set-up
(a cell that fails to build is its own ``error`` row), steps the set-ups together and summarises each run. Every
row is the row of the cell run alone (the logs are equal to rounding, :mod:`snake_sim.engines.vertical.batch`) except
the times: a run's ``wall_time_s`` in summary.json (and its ``real_time_factor``) is its own build plus the batch's
simulation time / B, the row's ``wall_time_s`` that plus its load and summary. If the batch raises as a whole, its
cells run one by one. A worker that dies takes the rows of its whole batch (``killed``). Only the default
measure (:func:`measure_summary`) is batched. A batch occupies one worker: keep at least as many tasks as workers
(N ≤ cells / workers), or batching trades the cluster's parallelism for its smaller gain (``snake-sim bench``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import traceback
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cloudpickle
import dask
from distributed import Client, Future, LocalCluster, as_completed, get_worker
from distributed.scheduler import KilledWorker
from tqdm import tqdm

from snake_core.validation import ConfigError
from snake_sim.analysis.climb_mode import climb_fields
from snake_sim.analysis.summary import flatten, summarize
from snake_sim.core.models import BatchedRuntime, ModelRuntime, run_world, runtime_for
from snake_sim.core.runlog import RunLog
from snake_sim.core.scenario import Scenario, load_scenario
from snake_sim.core.world import World
from snake_sim.outputs.figures import write_figures
from snake_sim.outputs.recording import write_rosbag

from .cells import Cell

#: A measure of a cell, the role of every study's per-run function: (cell, folder for its own outputs or None) →
#: its summary.json mapping.
Measure = Callable[[Cell, "Path | None"], dict[str, Any]]
#: The local scheduler's settings: a worker holds only the run it is running (a dying worker takes no other run
#: with it; runs are seconds to minutes long, nothing to gain from prefetching), and a run whose worker died is
#: tried once more, then it is a ``killed`` row. The workers' statistical profiler (a sample of the running thread
#: every 10 ms, for the dashboard, which a local cluster does not serve) is off: the cores are the runs'. A remote
#: scheduler is started with the same settings (README).
SCHEDULER_CONFIG = {"distributed.scheduler.worker-saturation": 1.0, "distributed.scheduler.allowed-failures": 1,
                    "distributed.worker.profile.enabled": False}
#: Seconds to wait for ``--scheduler`` to answer.
CONNECT_TIMEOUT_S = 10.0
#: Simulated seconds of the run that finds which fields a scenario's summary.json has (≥ pushing's fit window).
PROBE_S = 0.05


@contextlib.contextmanager
def connect(workers: int | None = None, scheduler: str | None = None) -> Iterator[Client]:
    """A client of ``scheduler`` or of a new LocalCluster of ``workers`` single-threaded processes (default: one
    per core); closed on exit. ConfigError for an unreachable scheduler or fewer than one worker."""
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError("--scheduler", scheduler, f"no Dask scheduler answered there ({exc})") from None
        with client:
            yield client
        return
    n = (os.cpu_count() or 1) if workers is None else workers
    if n < 1:
        raise ConfigError("--workers", workers, "must be at least 1")
    with dask.config.set(SCHEDULER_CONFIG):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.CRITICAL)
    with cluster, Client(cluster) as client:
        yield client


#: Fields a study adds to a run's summary.json, from its log and world (e.g. snake_sim.analysis.climb_mode's).
ExtraFields = Callable[[RunLog, "World | None"], dict[str, Any]]


def measure_summary(cell: Cell, out: Path | None = None, extra: ExtraFields | None = None) -> dict[str, Any]:
    """Run the cell's scenario; its summary.json mapping, with ``extra``'s fields if given. With ``out``:
    summary.json, the plots and rosbag/ there (no animation)."""
    scenario = load_scenario(cell.scenario, cell.overrides)
    runtime = runtime_for(scenario.model, scenario.source)
    world = run_world(runtime, scenario)
    start = time.perf_counter()
    log = runtime.run_scenario(scenario)
    return _summary(runtime, scenario, world, log, time.perf_counter() - start, out, extra)


def measure_climb(cell: Cell, out: Path | None = None) -> dict[str, Any]:
    """The cell's run and its summary.json mapping with the climbing mode's fields added
    (:func:`snake_sim.analysis.climb_mode.climb_fields`)."""
    return measure_summary(cell, out, extra=climb_fields)


def _summary(runtime: ModelRuntime, scenario: Scenario, world: World, log: RunLog, wall_time_s: float,
             out: Path | None, extra: ExtraFields | None = None) -> dict[str, Any]:
    """The run's summary.json mapping; with ``out``: summary.json, the plots and rosbag/ there (no animation)."""
    fields = {**runtime.summary_extra(log, scenario), **({} if extra is None else extra(log, world))}
    summary = summarize(log, wall_time_s, scenario.name, world, extra=fields)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        if len(log.t) > 1:
            write_figures(runtime.FIGURES, log, out, world, animation=False, plots=True)
            write_rosbag(log, out / "rosbag")
    return summary


def probe(cell: Cell, measure: Measure = measure_summary) -> dict[str, Any]:
    """The fields of the cell's summary.json (flattened) from a run of :data:`PROBE_S` simulated seconds here."""
    return flatten(measure(Cell(cell.scenario, (*cell.overrides, f"sim.duration={PROBE_S!r}")), None))


def check_field(fields: dict[str, Any], name: str, option: str) -> None:
    """ConfigError unless ``name`` is a number (or boolean, or null) field of summary.json."""
    if name not in fields:
        numbers = sorted(k for k, v in fields.items() if not isinstance(v, str) and not any(
            part.isdigit() for part in k.split(".")))
        raise ConfigError(option, name, "not a field of this scenario's summary.json; its number fields: "
                          + ", ".join(numbers) + " and per-joint ones such as torque_Nm.1.rms")
    if isinstance(fields[name], str):
        raise ConfigError(option, name, f"is text ({fields[name]!r}), not a number")


def _worker() -> str:
    try:
        return get_worker().address
    except ValueError:  # not in a Dask worker: evaluated in this process
        return "local"


def run_cell(cell: Cell, measure: Measure | bytes = measure_summary, outputs: Path | None = None) -> dict[str, Any]:
    """The task: measure the cell (its own outputs in ``outputs/<id>/`` if asked) and return its row.
    ``measure`` may come as cloudpickle bytes (see :func:`submit`)."""
    start = time.perf_counter()
    if isinstance(measure, bytes):
        measure = cloudpickle.loads(measure)
    try:
        summary = measure(cell, None if outputs is None else outputs / cell.id)
    except Exception as exc:  # a failed run is a row, not the end of the sweep
        return _error_row(cell, exc, time.perf_counter() - start)
    return _row(cell, summary, time.perf_counter() - start)


def _error_row(cell: Cell, exc: Exception, wall_time_s: float) -> dict[str, Any]:
    """The row of a cell whose measure raised ``exc``."""
    last = traceback.extract_tb(exc.__traceback__)[-1]
    return {**cell.columns(), "status": "error", "wall_time_s": wall_time_s, "worker": _worker(),
            "message": f"{type(exc).__name__}: {exc} ({Path(last.filename).name}:{last.lineno})"}


def _row(cell: Cell, summary: dict[str, Any], wall_time_s: float) -> dict[str, Any]:
    """The row of a cell evaluated to ``summary``."""
    fields = flatten(summary)
    run_status = fields.pop("status", "ok")
    fields.pop("wall_time_s", None)
    return {**cell.columns(), "status": "ok" if run_status == "ok" else "non-finite",
            "message": "" if run_status == "ok" else run_status, "wall_time_s": wall_time_s, "worker": _worker(),
            **fields}


@dataclass
class _Prepared:
    """A cell of a batch task, built: what its summary needs and the seconds spent so far."""

    cell: Cell
    scenario: Scenario
    runtime: BatchedRuntime
    world: World
    setup: Any
    load_s: float  # load and validation
    build_s: float  # the runtime's build (part of the run's own wall time)


def run_batch(cells: list[Cell], outputs: Path | None = None) -> list[dict[str, Any]]:
    """The task of a batch (module docstring): the rows of ``cells``, in their order."""
    rows: dict[str, dict[str, Any]] = {}
    groups: dict[Hashable, list[_Prepared]] = {}
    for cell in cells:
        start = time.perf_counter()
        try:
            scenario = load_scenario(cell.scenario, cell.overrides)
            runtime = runtime_for(scenario.model, scenario.source)
            world = run_world(runtime, scenario)
            if not hasattr(runtime, "simulate_batch"):  # a model without batches: alone
                rows[cell.id] = run_cell(cell, measure_summary, outputs)
                continue
            built = time.perf_counter()
            setup = runtime.build(scenario)
            key = (scenario.model, runtime.batch_key(scenario))
        except Exception as exc:  # this cell's row; the batch goes on without it
            rows[cell.id] = _error_row(cell, exc, time.perf_counter() - start)
            continue
        groups.setdefault(key, []).append(_Prepared(cell, scenario, runtime, world, setup, built - start,
                                                    time.perf_counter() - built))
    for group in groups.values():
        start = time.perf_counter()
        try:
            logs = group[0].runtime.simulate_batch([p.setup for p in group])
        except Exception:  # the batch as a whole: each cell alone, for its own row
            rows.update((p.cell.id, run_cell(p.cell, measure_summary, outputs)) for p in group)
            continue
        share = (time.perf_counter() - start) / len(group)
        for p, log in zip(group, logs, strict=True):
            start = time.perf_counter()
            try:
                summary = _summary(p.runtime, p.scenario, p.world, log, p.build_s + share,
                                   None if outputs is None else outputs / p.cell.id)
            except Exception as exc:
                rows[p.cell.id] = _error_row(p.cell, exc, p.load_s + p.build_s + share)
                continue
            rows[p.cell.id] = _row(p.cell, summary, p.load_s + p.build_s + share + time.perf_counter() - start)
    return [rows[c.id] for c in cells]


def batches(cells: list[Cell], size: int) -> list[list[Cell]]:
    """``cells`` as tasks: runs of a :class:`~snake_sim.core.models.BatchedRuntime` with equal ``batch_key`` in groups
    of up to ``size`` (in the order of ``cells``), every other cell alone (also one whose scenario does not load: its
    task reports the error)."""
    groups: dict[Hashable, list[list[Cell]]] = {}
    tasks: list[list[Cell]] = []
    for cell in cells:
        try:
            scenario = load_scenario(cell.scenario, cell.overrides)
            runtime = runtime_for(scenario.model, scenario.source)
        except Exception:  # its task, run_cell, reports it as the cell's row
            tasks.append([cell])
            continue
        if size < 2 or not hasattr(runtime, "simulate_batch"):
            tasks.append([cell])
            continue
        chunks = groups.setdefault((scenario.model, runtime.batch_key(scenario)), [])
        if not chunks or len(chunks[-1]) == size:
            chunks.append([])
            tasks.append(chunks[-1])
        chunks[-1].append(cell)
    return tasks


def submit(client: Client, cell: Cell, measure: Measure = measure_summary, outputs: Path | None = None) -> Future:
    """The cell's task on the cluster. A ``measure`` other than :func:`measure_summary` travels as cloudpickle bytes,
    so that a function registered to be pickled by value (``cloudpickle.register_pickle_by_value``: a script's, a
    notebook's, a test module's) reaches workers that cannot import its module (dask's own pickling of the task
    would refer to it by module name)."""
    payload = measure if measure is measure_summary else cloudpickle.dumps(measure)
    return client.submit(run_cell, cell, payload, outputs, pure=False)


def collect(future: Future, cell: Cell) -> dict[str, Any]:
    """The row of a finished task of one cell; a task whose worker died (or that could not run) is a row too."""
    return collect_rows(future, [cell])[0]


def collect_rows(future: Future, cells: list[Cell]) -> list[dict[str, Any]]:
    """The rows of a finished task (one cell, or a batch: :func:`run_batch`); a task whose worker died (or that
    could not run) gives a row per cell too."""
    try:
        result = future.result()
        return result if isinstance(result, list) else [result]
    except KilledWorker as exc:
        status, message = "killed", f"the worker process died running it ({exc})"
    except Exception as exc:  # the task did not run (e.g. a measure the workers cannot import)
        status, message = "error", f"{type(exc).__name__}: {exc}"
    return [{**cell.columns(), "status": status, "message": message, "wall_time_s": None, "worker": None}
            for cell in cells]


def run(cells: list[Cell], client: Client, measure: Measure = measure_summary, outputs: Path | None = None,
        on_row: Callable[[dict[str, Any]], None] | None = None, progress: bool = False,
        batch: int = 1) -> list[dict[str, Any]]:
    """Every cell as a task on ``client`` (up to ``batch`` cells stepped together, module docstring); the rows in
    the order the runs finish (``on_row`` is called with each as it arrives). Ctrl-C cancels what has not finished
    and re-raises: the rows passed to ``on_row`` stay."""
    check_batch(batch, measure)
    futures = {}
    for task in batches(cells, batch):
        future = (submit(client, task[0], measure, outputs) if len(task) == 1
                  else client.submit(run_batch, task, outputs, pure=False))
        futures[future] = task
    rows: list[dict[str, Any]] = []
    failed = 0
    with tqdm(total=len(cells), disable=not progress, unit="run", dynamic_ncols=True) as bar:
        try:
            for future in as_completed(futures):
                for row in collect_rows(future, futures[future]):
                    rows.append(row)
                    failed += row["status"] != "ok"
                    if on_row is not None:
                        on_row(row)
                    bar.set_postfix(failed=failed, refresh=False)
                    bar.update()
        finally:
            client.cancel([f for f in futures if not f.done()])
    return rows


def check_batch(batch: int, measure: Measure = measure_summary) -> None:
    """ConfigError unless ``batch`` ≥ 1, and 1 with a measure other than :func:`measure_summary`."""
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ConfigError("--batch", batch, "must be a whole number of runs >= 1 (1: every run alone)")
    if batch > 1 and measure is not measure_summary:
        raise ConfigError("--batch", batch, "batches the default measure only (a scenario's run and summary); "
                          "with another measure, leave it at 1")
