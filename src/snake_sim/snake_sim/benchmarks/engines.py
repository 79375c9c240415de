"""Real-time factor of DART (Gazebo's physics engine, ``model: dart``) beside the vertical model, same run.

The same scenario (002's open-loop pedal wave on flat ground, koopaee6, 10 s) in the vertical-plane model at
the scenario's step and in DART at Gazebo's 1 ms with the shipped Gazebo configuration (gz_ros2_control
reproduced step by step in Python around dartpy, :mod:`snake_sim.dart.runtime`). Wall clock, best of
:data:`REPEAT` (the other processes of a shared machine only ever add time); set-up (xacro, libsdformat
conversion) is not timed.
"""

from __future__ import annotations

import time

from snake_sim.benchmarks import BenchRow
from snake_sim.models import runtime_for
from snake_sim.scenario import load_scenario

SCENARIO = "pedal-wave"
DURATION = 10.0  # simulated [s]
TITLE = f"Real-time factor of DART (Gazebo's engine) beside the vertical model ({SCENARIO}, {DURATION:g} s)"
REPEAT = 2


def _rtf(model: str, overrides: list[str]) -> tuple[float, float]:
    """(real-time factor, CoM distance [m]) of ``SCENARIO`` in ``model``, the best of REPEAT runs."""
    runtime = runtime_for(model)
    setup = runtime.build(load_scenario(SCENARIO, [f"model={model}", *overrides]))
    wall = float("inf")
    for _ in range(REPEAT):
        start = time.perf_counter()
        log = runtime.simulate(setup, DURATION)
        wall = min(wall, time.perf_counter() - start)
    return float(log.t[-1]) / wall, float(log.com[-1, 0] - log.com[0, 0])


def run() -> list[BenchRow]:
    rtf_v, dx_v = _rtf("vertical", [])
    rtf_d, dx_d = _rtf("dart", ["sim.time_step=0.001"])
    return [
        BenchRow("real-time factor, vertical model", rtf_v, "x", f"scenario's step; CoM {dx_v * 100:+.1f} cm"),
        BenchRow("real-time factor, DART (Gazebo set-up)", rtf_d, "x", f"h = 1 ms, 1 kHz controller manager; "
                 f"CoM {dx_d * 100:+.1f} cm"),
        BenchRow("vertical / DART", rtf_v / rtf_d, "x", "ratio, same run"),
    ]
