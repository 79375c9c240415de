"""Real-time factors of the three engines measured in one run (issues 15 item 10, 18 item 6): the vertical-plane
model, MuJoCo (``model: mujoco``) and DART with the shipped Gazebo set-up (``model: dart``), and each 3-D engine's
ratio to the vertical model.

The same gait and world for all: 002's reference open-loop pedal wave (koopaee6, A = π/6) on flat ground,
:data:`DURATION` simulated seconds, the whole lock-step loop (snake_core's controllers at 100 Hz, logging) on one
thread; the vertical model at its scenario's step (``pedal-wave``), MuJoCo at the 3-D scenario's
(``open-loop-flat-3d``), DART at Gazebo's 1 ms with the 1 kHz controller manager (gz_ros2_control reproduced step
by step in Python around dartpy). Wall clock, best of :data:`REPEAT` (the other processes of a shared machine only
ever add time); set-up (MJCF compilation, xacro and libsdformat conversion) is not timed. Target: MuJoCo ≥ 20×
real time on flat ground.
"""

from __future__ import annotations

import time

from snake_sim.benchmarks import BenchRow
from snake_sim.core.models import runtime_for
from snake_sim.core.scenario import load_scenario

#: (row label, scenario, overrides) per engine, the vertical model first (the reference of the ratios).
ENGINES = (("vertical model", "pedal-wave", ()),
           ("MuJoCo", "open-loop-flat-3d", ()),
           ("DART (Gazebo set-up)", "open-loop-flat-3d", ("model=dart", "sim.time_step=0.001")))
DURATION = 10.0  # simulated [s]
TITLE = f"Real-time factors of the vertical model, MuJoCo and DART (pedal wave on flat ground, {DURATION:g} s)"
TARGET_RTF_MUJOCO = 20.0
REPEAT = 2


def real_time_factor(scenario_name: str, overrides: tuple[str, ...] = (), repeat: int = REPEAT
                     ) -> tuple[float, float, float]:
    """(wall-clock real-time factor, time step [s], CoM distance [m]) of ``DURATION`` simulated seconds of a
    scenario through its model's runtime (:mod:`snake_sim.core.models`), the best of ``repeat`` runs."""
    scenario = load_scenario(scenario_name, list(overrides))
    runtime = runtime_for(scenario.model)
    setup = runtime.build(scenario)
    wall = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        log = runtime.simulate(setup, DURATION)
        wall = min(wall, time.perf_counter() - start)
    return float(log.t[-1]) / wall, scenario.time_step, log.distance


def run() -> list[BenchRow]:
    measured = [(label, *real_time_factor(name, overrides)) for label, name, overrides in ENGINES]
    rtf_v = measured[0][1]
    rows = []
    for label, rtf, h, dx in measured:
        target = label == "MuJoCo"
        rows.append(BenchRow(f"real-time factor, {label}", rtf, "x",
                             f"h = {h * 1e3:g} ms, best of {REPEAT}; CoM {dx * 100:+.1f} cm",
                             f">= {TARGET_RTF_MUJOCO:g}x" if target else "",
                             rtf >= TARGET_RTF_MUJOCO if target else None))
    rows += [BenchRow(f"{label} / vertical model", rtf / rtf_v, "x", "ratio, same run")
             for label, rtf, _, _ in measured[1:]]
    return rows
