"""The sweep engine on a local cluster: the TSC grid over 002's ranges on the single obstacle (D_d ∈ {4, 7, 10},
K_d ∈ {12, 14, 17.5}, K_τ ∈ {0, 6}; runs shortened to :data:`DURATION_S`) on 2 worker processes against the same
runs one after another in this process, in the same run; and the scheduler's cost per task (no-op tasks).

The workers import the model before the clock starts, as this process has. Speed-up target ≥ 1.7× on 2 cores;
the rest to 2× is the scheduler, the transfer of rows and the worker that finishes last.
"""

from __future__ import annotations

import time
from typing import Any

from snake_sim.benchmarks import BenchRow
from snake_studies.sweep import Cell, SweepSpec, engine, plan

SCENARIO = "tsc-obstacle"
DURATION_S = 20.0  # [s] of the scenario's 90 s: a task long against the scheduler's few ms, as a real sweep's runs are
GRID = (("controller.damping", ("4", "7", "10")), ("controller.stiffness", ("12", "14", "17.5")),
        ("controller.torque_gain", ("0", "6")))
WORKERS = 2
NOOP_TASKS = 200
SPEEDUP_TARGET = 1.7
TITLE = f"Sweep engine: {SCENARIO} TSC grid on {WORKERS} Dask workers against serial (runs of {DURATION_S:g} s)"


def noop(cell: Cell, out: Any) -> dict[str, Any]:
    """A task that does nothing: its wall time on the cluster is the scheduler's."""
    return {"status": "ok"}


def _results(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["cell"]: {k: v for k, v in r.items() if k not in ("wall_time_s", "worker", "real_time_factor")}
            for r in rows}


def run() -> list[BenchRow]:
    cells = plan(SweepSpec(SCENARIO, GRID, sets=(f"sim.duration={DURATION_S!r}",)))
    start = time.perf_counter()
    serial = [engine.run_cell(c) for c in cells]
    t_serial = time.perf_counter() - start
    with engine.connect(workers=WORKERS) as client:
        client.run(engine.probe, cells[0])  # import and warm the model in every worker
        start = time.perf_counter()
        parallel = engine.run(cells, client)
        t_parallel = time.perf_counter() - start
        start = time.perf_counter()
        engine.run([Cell(SCENARIO, (f"sim.duration={i}",)) for i in range(1, NOOP_TASKS + 1)], client, noop)
        per_task = (time.perf_counter() - start) / NOOP_TASKS
    speedup = t_serial / t_parallel
    same = _results(serial) == _results(parallel)
    return [
        BenchRow(f"{len(cells)} runs one after another", t_serial, "s", "this process"),
        BenchRow(f"{len(cells)} runs on {WORKERS} workers", t_parallel, "s", "LocalCluster, warm workers"),
        BenchRow("speed-up", speedup, "x", "serial / parallel, same run", f">= {SPEEDUP_TARGET:g}x",
                 speedup >= SPEEDUP_TARGET),
        BenchRow("scheduler overhead per task", 1e3 * per_task, "ms", f"{NOOP_TASKS} no-op tasks on {WORKERS} workers",
                 f"<< {1e3 * t_serial / len(cells):.0f} ms a run"),
        BenchRow("rows equal the serial runs'", float(same), "equal", "every summary field", "equal", same),
    ]
