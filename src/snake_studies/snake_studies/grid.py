"""Independent runs of a study or a reproduction section on the sweep engine.

A study plans its runs as sweep cells (:class:`snake_studies.sweep.Cell`: a scenario and its ``--set`` overrides)
and :func:`run_cells` runs each distinct cell once as a Dask task (:mod:`snake_studies.sweep.engine`), on the
client it is given (``snake-sim reproduce`` connects once, to a LocalCluster of ``--workers N`` processes or to
``--scheduler ADDRESS``, and hands the same client to every section) or else on a LocalCluster of its own, one
worker per core, with a progress bar. The rows come back keyed by cell id, so that the same run planned twice
(a row shared by two tables) runs once.

What a task returns is its ``measure``'s mapping: summary.json by default
(:func:`snake_studies.sweep.engine.measure_summary`), or a study's own module-level function ``measure(cell,
out) -> mapping`` where it needs more of the run than the summary (a wave's amplitude, a torque statistic from the
RunLog); it computes those numbers on the worker, so that no RunLog travels between processes. The engine flattens
that mapping into the row; :func:`fields` gives it back (nested mappings and lists rebuilt, ``status`` the run's
own). A run that raised, or whose worker died, is a row with status ``error`` or ``killed``, never a silent hole:
:func:`require` raises :class:`RunsFailed` naming every such run, or the study states the gap (:func:`failure` is
the text).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from distributed import Client

from snake_studies import sweep
from snake_studies.sweep import Cell
from snake_studies.sweep.engine import Measure, measure_summary

#: Columns the engine adds to a row (the cells of a study sweep nothing, so it has no value or seed column).
ENGINE_COLUMNS = ("cell", "status", "message", "wall_time_s", "worker")
#: Row statuses of a run that has no result: it raised (``error``) or its worker died twice (``killed``).
FAILED = ("error", "killed")


class RunsFailed(RuntimeError):
    """Runs of a study that raised or whose worker died; the message names each one and why."""


def run_cells(cells: Iterable[Cell], client: Client | None = None, measure: Measure = measure_summary,
              progress: bool = True) -> dict[str, dict[str, Any]]:
    """The row of every distinct cell, by cell id: each run once, on ``client`` or on a LocalCluster of its own."""
    unique = list({c.id: c for c in cells}.values())
    rows = sweep.run(unique, measure=measure, progress=progress, client=client)
    return {row["cell"]: row for row in rows}


def failure(cell: Cell, row: dict[str, Any]) -> str | None:
    """``scenario overrides: status (message)`` when the cell's run has no result, else None."""
    if row["status"] not in FAILED:
        return None
    return f"{cell.scenario} {' '.join(cell.overrides)}: {row['status']} ({row['message']})"


def require(cells: Iterable[Cell], rows: dict[str, dict[str, Any]]) -> None:
    """RunsFailed naming every run of ``cells`` that has no result."""
    failed = [text for c in cells if (text := failure(c, rows[c.id])) is not None]
    if failed:
        raise RunsFailed(f"{len(failed)} run(s) failed: " + "; ".join(failed))


def fields(row: dict[str, Any]) -> dict[str, Any]:
    """The measure's mapping of a row that has a result: its dotted keys nested again (keys 1, 2, … as a list),
    ``status`` the run's own ("ok" or why it stopped)."""
    if row["status"] in FAILED:
        raise ValueError(f"cell {row['cell']} has no result: {row['status']} ({row['message']})")
    tree: dict[str, Any] = {}
    for key, value in row.items():
        if key in ENGINE_COLUMNS:
            continue
        *parents, leaf = key.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    tree["status"] = "ok" if row["status"] == "ok" else row["message"]
    return _lists(tree)


def _lists(node: Any) -> Any:
    """Mappings whose keys are 1, 2, …, n as lists (the engine flattens lists by 1-based index)."""
    if not isinstance(node, dict):
        return node
    items = {k: _lists(v) for k, v in node.items()}
    if items and set(items) == {str(i) for i in range(1, len(items) + 1)}:
        return [items[str(i)] for i in range(1, len(items) + 1)]
    return items
