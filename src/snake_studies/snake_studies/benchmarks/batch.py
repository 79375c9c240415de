"""Batched runs of the vertical model: the Table 5.2 grid of 002 (A ∈ {π/6, π/4, π/3} ×
φ ∈ {(−2π ∓ 0.4)/5, −2π/5} on pedal-wave, 1 ms steps, the reproduction's settings, :data:`DURATION_S` each) run one
after another (``simulate``) and as one batch (``simulate_batch``) in this process, in the same run: runs per
second both ways, the ratio, and that every run ends at the same centre of mass both ways.

One thread: the batch steps its runs in a serial loop inside one compiled call per control period (no ``prange``), so
the ratio is what batching saves of the per-run Python work, not parallelism. Both ways time the simulation of built
set-ups (the builds are the same either way); each is the best of :data:`REPEAT`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from snake_sim.benchmarks import BenchRow
from snake_sim.core.runlog import RunLog
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.vertical.batch import simulate_batch
from snake_sim.engines.vertical.model import VerticalSetup, build
from snake_sim.engines.vertical.runtime import simulate
from snake_studies.reproduction.experiments.pedal_wave import AMPLITUDES, PHASES, REFERENCE_SCENARIO, STEP

DURATION_S = 10.0  # Table 5.2's runs, as the reproduction makes them
REPEAT = 3
#: Final centres of mass equal both ways: the logs are equal bit for bit (snake_sim.engines.vertical.batch).
EQUAL_COM_M = 0.0
TITLE = (f"Batched runs: Table 5.2 grid ({len(AMPLITUDES) * len(PHASES)} runs of {DURATION_S:g} s at "
         f"{STEP * 1e3:g} ms) one by one against one batch, 1 thread")


def grid() -> list[VerticalSetup]:
    """The set-ups of the Table 5.2 grid (rows φ, columns A)."""
    return [build(load_scenario(REFERENCE_SCENARIO, [f"gait.amplitude={a}", f"gait.phase_shift={p}",
                                                     f"sim.time_step={STEP}", "sim.log_rate=100",
                                                     f"sim.duration={DURATION_S}"]))
            for _, p in PHASES for _, a in AMPLITUDES]


def _best(run: Callable[[], list[RunLog]]) -> tuple[float, float, list[RunLog]]:
    """(best wall time, best CPU time of this process, of REPEAT; the logs of the last)."""
    wall = cpu = float("inf")
    for _ in range(REPEAT):
        w, c = time.perf_counter(), time.process_time()
        logs = run()
        wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
    return wall, cpu, logs


def run() -> list[BenchRow]:
    setups = grid()
    n = len(setups)
    wall_serial, cpu_serial, serial = _best(lambda: [simulate(s) for s in setups])
    wall_batch, cpu_batch, batched = _best(lambda: simulate_batch(setups))
    diff = max(float(np.max(np.abs(a.com[-1] - b.com[-1]))) for a, b in zip(serial, batched, strict=True))
    same = diff <= EQUAL_COM_M and all(a.status == b.status == "ok" for a, b in zip(serial, batched, strict=True))
    return [
        BenchRow("one by one (wall clock)", n / wall_serial, "runs/s", f"{n} x simulate, best of {REPEAT}"),
        BenchRow("one batch (wall clock)", n / wall_batch, "runs/s", f"simulate_batch of {n}, best of {REPEAT}"),
        BenchRow("batched / one by one (wall clock)", wall_serial / wall_batch, "x", "ratio, same run, 1 thread"),
        BenchRow("one by one (process CPU time)", n / cpu_serial, "runs/s", "same runs, CPU time of this process"),
        BenchRow("one batch (process CPU time)", n / cpu_batch, "runs/s", "same runs, CPU time of this process"),
        BenchRow("batched / one by one (CPU time)", cpu_serial / cpu_batch, "x", "ratio, same run, 1 thread"),
        BenchRow("final CoM, max difference", diff, "m", f"{n} runs both ways", f"<= {EQUAL_COM_M:g} m", same),
    ]
