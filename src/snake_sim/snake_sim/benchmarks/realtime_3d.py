"""Real-time factor of the 3-D model (MuJoCo, issue 15 item 10) at its scenario's step, next to the vertical
model's in the same run: 002's reference pedal wave on flat ground, koopaee6, 10 s, the whole lock-step loop
(snake_core's controllers at 100 Hz, logging) on one thread. Target: ≥ 20× real time."""

from __future__ import annotations

import time

from snake_sim.benchmarks import BenchRow
from snake_sim.models import runtime_for
from snake_sim.scenario import load_scenario

#: The 3-D scenario (open loop, A = π/6, flat ground, h = 2 ms) and its vertical twin (h = 5 ms).
SCENARIO_3D = "open-loop-flat-3d"
SCENARIO_VERTICAL = "pedal-wave"
TITLE = f"Real-time factor of the 3-D model ({SCENARIO_3D}, MuJoCo) beside the vertical model ({SCENARIO_VERTICAL})"
DURATION = 10.0
TARGET_RTF = 20.0
REPEAT = 3  # the best of (other processes on a shared machine only ever add time)


def real_time_factor(scenario_name: str, repeat: int = REPEAT) -> tuple[float, float, float]:
    """(wall-clock, CPU-time real-time factors, time step [s]) of ``DURATION`` simulated seconds of a scenario
    through its model's runtime (:mod:`snake_sim.models`), the best of ``repeat`` runs."""
    scenario = load_scenario(scenario_name, [f"sim.duration={DURATION}"])
    runtime = runtime_for(scenario.model)
    setup = runtime.build(scenario)
    wall = cpu = float("inf")
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        runtime.simulate(setup)
        wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
    return DURATION / wall, DURATION / cpu, scenario.time_step


def run() -> list[BenchRow]:
    rtf, rtf_cpu, h = real_time_factor(SCENARIO_3D)
    rtf_v, _, h_v = real_time_factor(SCENARIO_VERTICAL)
    return [
        BenchRow("real-time factor, 3-D model (wall clock)", rtf, "x",
                 f"MuJoCo, discrete integrator, h = {h * 1e3:g} ms, best of {REPEAT}", f">= {TARGET_RTF:g}x",
                 rtf >= TARGET_RTF),
        BenchRow("real-time factor, 3-D model (process CPU time)", rtf_cpu, "x", "same run, CPU time of this process"),
        BenchRow("real-time factor, vertical model (wall clock)", rtf_v, "x",
                 f"{SCENARIO_VERTICAL}, h = {h_v * 1e3:g} ms, same run"),
        BenchRow("3-D model / vertical model (wall clock)", rtf / rtf_v, "x", "ratio, same run"),
    ]
