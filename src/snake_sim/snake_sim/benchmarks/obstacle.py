"""Accuracy of the shipped step on an obstacle: the open loop on 002's single obstacle
(``open-loop-obstacle``, 90 s) at the scenario's step against the same run at 002's 1e-4 s.

Flat ground (``realtime``) hardly tests the step: contact with a box's face and edge does. The verdict
(climbed or not) must be the same; the time to climb within 5 % where both climb, the CoM speed within
5 % where neither does (the stalled speed is what the verdict rests on then). The 1e-4 s run is the cost of
this row (about 90 s of simulation at 002's step); its wall time is printed. The real-time factor of the
shipped step (target ≥ 20x) is reported beside that of the reference and as their ratio.
"""

from __future__ import annotations

import time

from snake_sim.analysis.climb import climb_result
from snake_sim.analysis.step_check import TOLERANCE, relative_change
from snake_sim.benchmarks import BenchRow
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.vertical.runtime import build, simulate

SCENARIO = "open-loop-obstacle"
REFERENCE_STEP = 1e-4  # 002 Table 5.1
TARGET_RTF = 20.0  # the target: 20 simulated seconds per second of wall time
TITLE = f"Step accuracy on the single obstacle ({SCENARIO}, shipped step against 002's 1e-4 s)"


def _run(overrides: list[str]) -> tuple[float, float, bool | None, float | None, float, float]:
    """(step, wall s, climbed, time to climb, CoM speed, simulated s) of the scenario."""
    setup = build(load_scenario(SCENARIO, overrides))
    start = time.perf_counter()
    log = simulate(setup)
    wall = time.perf_counter() - start
    climb = climb_result(log, setup.world)
    return setup.time_step, wall, climb.climbed, climb.time_to_climb_s, log.average_speed, float(log.t[-1])


def run() -> list[BenchRow]:
    h, wall, climbed, t_climb, speed, sim_t = _run([])
    _, wall_ref, climbed_ref, t_ref, speed_ref, _ = _run([f"sim.time_step={REFERENCE_STEP}"])
    same = climbed == climbed_ref
    both = bool(climbed and climbed_ref)
    change = relative_change(t_climb, t_ref) if both else relative_change(speed, speed_ref)
    what = "time to climb" if both else "CoM speed (no climb)"
    detail = (f"{t_climb:.2f} s vs {t_ref:.2f} s" if both else
              f"{1e3 * speed:.3f} vs {1e3 * speed_ref:.3f} mm/s")
    return [
        BenchRow(f"climbed at h = {h * 1e3:g} ms and at 1e-4 s", float(same), "equal",
                 f"{climbed} vs {climbed_ref}", "equal", same),
        BenchRow(f"{what}: difference", 100 * abs(change) if change is not None else float("nan"), "%", detail,
                 f"<= {100 * TOLERANCE:g} %", change is not None and abs(change) <= TOLERANCE),
        BenchRow(f"wall time at h = {h * 1e3:g} ms", wall, "s", f"{sim_t:g} s simulated"),
        BenchRow(f"real-time factor at h = {h * 1e3:g} ms (wall clock)", sim_t / wall, "x", "shipped step",
                 f">= {TARGET_RTF:g}x", sim_t / wall >= TARGET_RTF),
        BenchRow("wall time at 1e-4 s (the cost of this row)", wall_ref, "s",
                 f"real-time factor {sim_t / wall_ref:.1f}x; the shipped step is {wall_ref / wall:.1f}x faster"),
    ]
