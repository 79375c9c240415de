"""The path of every reproduction section: plan → measure → assemble, stored; the render reads only what is stored.

A section's experiment (a module of :mod:`snake_studies.reproduction.experiments`) exposes

* ``plan(fast) -> dict[str, Run]``: its runs by key, in document order. A run is a
  :class:`~snake_studies.sweep.Cell` (a scenario and its overrides, run on the sweep engine's workers) or a
  :class:`Task` (a computation of its own in this process: a kinematic study, an adaptive search that submits runs
  itself);
* ``measure(run, context)``: the numbers of one run. A Cell's is called on a worker (``context``: the engine's
  output folder, None here) and returns a mapping (the sweep engine's row); a Task's is called here (``context``:
  the cluster's client, or None) and returns what ``assemble`` takes;
* ``assemble(fast, plan, rows) -> Results``: the runs' rows by key (a Cell's row as the sweep engine returns it:
  :func:`snake_studies.grid.fields`) and the settings read from the scenario files, as the stored results;
* ``run_settings(fast) -> RunSettings``: how its runs are made as the text states it (scenario, robot and world
  values, engine constants, gains, seeds, the step check's tolerance), from the objects and constants the runs use;
  ``assemble`` stores it as the Results' ``settings``, so the report never reads a scenario, robot or constant;

and ``Results`` (a frozen dataclass, stored by :mod:`.results`). A section that reads the results of
sections before it names them in ``READS`` (section name → its Results class); its ``plan`` and ``assemble`` then take
them as a last argument ``earlier`` (name → Results, None where the current run's folder has none,
:func:`.results.earlier`): a section reads only the results stored by the run it is part of, never the committed
ones. :func:`reproduce` is the driver. The section's report (the module of its name in
:mod:`snake_studies.reproduction.reports`) has ``render(results) -> str``, its Markdown from the stored results alone,
its ``TITLE``, and ``figures(results, folder)`` where it draws any.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from distributed import Client

from snake_studies.grid import run_cells
from snake_studies.reproduction.results import earlier
from snake_studies.sweep import Cell


@dataclass(frozen=True)
class Task:
    """A run computed in the driver's process: ``name`` says what the section's ``measure`` computes, ``args`` with
    which settings (numbers and strings, so that a plan can be printed and compared)."""

    name: str
    args: tuple[Any, ...] = ()


Run = Cell | Task


def measure_plan(section: ModuleType, plan: Mapping[str, Run], client: Client | None = None
                 ) -> dict[str, dict[str, Any]]:
    """The row of every run of ``plan`` by key: the Cells on the sweep engine (on ``client``, else a LocalCluster
    of their own; a run planned twice runs once), the Tasks here."""
    cells = [run for run in plan.values() if isinstance(run, Cell)]
    done = run_cells(cells, client, section.measure) if cells else {}
    return {key: done[run.id] if isinstance(run, Cell) else section.measure(run, client) for key, run in plan.items()}


def reproduce(section: ModuleType, fast: bool = False, client: Client | None = None, out: Path | None = None) -> Any:
    """The section's results: its plan measured and assembled; ``out``: the run's results folder, where the sections
    it reads (``READS``) stored theirs."""
    reads = getattr(section, "READS", {})
    extra = (earlier(reads, out),) if reads else ()
    plan = section.plan(fast, *extra)
    return section.assemble(fast, plan, measure_plan(section, plan, client), *extra)
