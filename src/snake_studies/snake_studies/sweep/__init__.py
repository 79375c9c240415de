"""Parameter sweeps of a scenario on dask.distributed (``snake-sim sweep``).

:mod:`.cells` plans the runs (grid × random samples × seeds) and validates each before anything runs,
:mod:`.engine` runs them as Dask tasks on a LocalCluster or a running scheduler, :mod:`.table` streams the rows
into ``results.csv``, :mod:`.report` writes ``report.md`` and the figure. Other code runs cells with :func:`run`::

    cells = [Cell("tsc-obstacle", ("controller.stiffness=12",)), Cell("tsc-obstacle", ("controller.stiffness=14",))]
    rows = run(cells, workers=2)   # one row per cell, in the order of cells
    rows = run(cells, workers=2, batch=8)   # the same rows (but times), up to 8 runs stepped together per task
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distributed import Client

from snake_core.validation import ConfigError
from snake_sim.core.signals import StopRequest, interrupt_on_signals, interrupted_by
from snake_sim.outputs.output_folder import writable_folder, write_text

from . import engine
from .cells import Cell, Range, SweepSpec, parse_grid, parse_range, plan
from .engine import Measure, check_field, connect, measure_summary, probe
from .report import default_field, write_report
from .table import ResultsTable, writer_lock

__all__ = ["Cell", "Range", "SweepOutcome", "SweepSpec", "parse_grid", "parse_range", "plan", "run", "sweep"]


def run(cells: list[Cell], workers: int | None = None, scheduler: str | None = None, measure: Measure = measure_summary,
        progress: bool = False, batch: int = 1, client: Client | None = None) -> list[dict[str, Any]]:
    """The row of every cell (:mod:`.engine`), run on ``client`` (a cluster the caller holds, e.g. one for several
    grids) or else on a new LocalCluster of ``workers`` processes or on ``scheduler``, up to ``batch`` runs of a
    scenario stepped together per task; in the order of ``cells``."""
    engine.check_batch(batch, measure)
    with connect(workers, scheduler) if client is None else contextlib.nullcontext(client) as held:
        rows = engine.run(cells, held, measure, progress=progress, batch=batch)
    order = {c.id: i for i, c in enumerate(cells)}
    return sorted(rows, key=lambda r: order[r["cell"]])


@dataclass(frozen=True)
class SweepOutcome:
    planned: int  # cells of the sweep
    ran: int  # cells run by this call (the others had a row already)
    rows: list[dict[str, Any]]  # the sweep's rows in results.csv
    written: list[Path]
    stop: StopRequest  # the signal (SIGINT, SIGTERM) that stopped the runs, if one did


def sweep(spec: SweepSpec, out: Path, workers: int | None = None, scheduler: str | None = None,
          resume: bool = False, field: str | None = None, outputs: bool = False, progress: bool = True,
          measure: Measure = measure_summary, batch: int = 1) -> SweepOutcome:
    """Plan and validate the sweep, run the cells ``out/results.csv`` lacks (all of them unless ``resume``; up to
    ``batch`` of them stepped together per task, :mod:`.engine`), stream their rows into it, write the report. Each
    run's own outputs go to ``out/runs/<cell>/`` if ``outputs``. Every input error is a ConfigError before the
    first run; Ctrl-C or SIGTERM stops the runs with their rows kept and the report written. A report that cannot be
    written (a full disk) is a ConfigError saying that ``--resume`` writes it (the rows are whole); a second signal
    while it is written keeps the files that are whole."""
    engine.check_batch(batch, measure)
    cells = plan(spec)
    if field is not None:
        check_field(probe(cells[0], measure), field, "--field")
    fresh = not out.exists()
    with writer_lock(writable_folder(out) / "results.csv"):
        try:
            return _sweep_locked(spec, cells, out, workers, scheduler, resume, field, outputs, progress, measure,
                                 batch)
        except ConfigError:
            if fresh and not (out / "results.csv").exists():  # a sweep refused before its first row leaves no folder
                shutil.rmtree(out, ignore_errors=True)
            raise


#: The fields of sweep.json a resumed sweep must have the same, and the option each comes from.
SAME_ON_RESUME = {"scenario": "SCENARIO", "grid": "--grid", "random": "--random", "samples": "--samples",
                  "seeds": "--seeds", "set": "--set"}


def _check_same_sweep(stored: Path, spec: SweepSpec) -> None:
    """ConfigError naming every difference between the sweep ``stored`` (a sweep.json; none: nothing to compare) and
    ``spec``: a resumed sweep with other cells would mix two sweeps' rows in one results.csv."""
    if not stored.is_file():
        return
    try:
        before = json.loads(stored.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError("--resume", str(stored), f"cannot be read ({exc}): it says which sweep the folder holds"
                          ) from None
    now = spec.as_dict()
    differences = [f"{option} {json.dumps(before.get(key))} there, {json.dumps(now[key])} here"
                   for key, option in SAME_ON_RESUME.items() if before.get(key) != now[key]]
    if differences:
        raise ConfigError("--resume", str(stored.parent), "holds another sweep (" + "; ".join(differences) + "): "
                          "resume it with its own options, or choose another --out")


def _sweep_locked(spec: SweepSpec, cells: list[Cell], out: Path, workers: int | None, scheduler: str | None,
                  resume: bool, field: str | None, outputs: bool, progress: bool, measure: Measure,
                  batch: int) -> SweepOutcome:
    """:func:`sweep` in ``out``, whose writer lock the caller holds."""
    table = ResultsTable(out / "results.csv")
    if table.rows and not resume:
        raise ConfigError("--out", str(out), "holds a sweep's results.csv already: add --resume to complete it "
                          "(only the missing runs run), or choose another folder")
    if resume:
        _check_same_sweep(out / "sweep.json", spec)
    partial = table.drop_partial()
    if partial is not None:
        print(f"warning: {table.path} line {partial} was a partial row (a write cut short): dropped, its run runs "
              "again", file=sys.stderr)
    done = table.done()
    todo = [c for c in cells if c.id not in done]
    stop = StopRequest()
    before = len(table.rows)
    try:
        write_text(out / "sweep.json", json.dumps({**spec.as_dict(), "cells": len(cells)}, indent=2) + "\n")
    except OSError as exc:
        raise ConfigError("--out", str(out), f"cannot write sweep.json ({exc.strerror or exc})") from None
    # SIGTERM as Ctrl-C from the cluster's start to its end (a signal while it starts or stops ends the command)
    with interrupt_on_signals(), connect(workers, scheduler) if todo else contextlib.nullcontext() as client:
        try:
            if client is not None:
                engine.run(todo, client, measure, out / "runs" if outputs else None, table.append, progress, batch)
        except KeyboardInterrupt as exc:
            stop = interrupted_by(exc)
        except OSError as exc:
            raise ConfigError("--out", str(out), f"cannot write {table.path.name} ({exc.strerror or exc}); the "
                              f"{len(table.rows)} rows before are whole: make room and add --resume") from None
    ids = {c.id for c in cells}
    rows = [r for r in table.rows if r["cell"] in ids]
    try:
        with interrupt_on_signals():
            report = write_report(out, spec, rows, len(cells), field or default_field(rows))
    except OSError as exc:
        raise ConfigError("--out", str(out), f"cannot write the report ({exc.strerror or exc}); the {len(table.rows)} "
                          f"rows of {table.path.name} are whole: make room and run the same command with --resume to "
                          "write it") from None
    written = [*([table.path] if table.rows else []), *report]
    return SweepOutcome(len(cells), len(table.rows) - before, rows, written, stop)
