"""The studies' parts that run the simulator's scenarios: the stiffness section's face reading and grid table, the
rectilinear section in fast mode, the 3-D studies' step and duration rule, and the pedal-wave correlation."""

import numpy as np
import pytest

from snake_sim.core.scenario import load_scenario
from snake_sim.engines.vertical import runtime


def simulate(name, *overrides):
    setup = runtime.build(load_scenario(name, list(overrides)))
    return runtime.simulate(setup), setup


def test_pedal_wave_correlation_is_002s_b1():
    from snake_studies.reproduction.experiments.pedal_wave import correlation

    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = 2 * x + rng.normal(scale=0.5, size=200)
    assert correlation(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1], rel=1e-12)
    assert correlation(x, -y) == pytest.approx(-correlation(x, y))


def test_the_3d_scenarios_on_boxes_run_at_1_ms_and_002s_runs_last_long_enough_to_reach_the_box():
    """The rule of the studies of 002's climbs: a 3-D scenario whose world has boxes runs at Gazebo's 1 ms (2 ms
    only on flat ground), and every scenario of 002's runs lasts at least 002's longest climb plus 50 s."""
    from snake_core import locator
    from snake_sim.core.world import load_world
    from snake_studies.engines import DART_TIME_STEP, MIN_DURATION

    names = sorted(p.stem for p in (locator.data_dir() / "config" / "scenarios").glob("*-3d.yaml"))
    on_boxes = [n for n in names if load_world(load_scenario(n).world_file).static_boxes]
    assert len(on_boxes) == 18 and all(load_scenario(n).time_step == DART_TIME_STEP for n in on_boxes)
    assert all(load_scenario(n).time_step == 0.002 for n in names if n not in on_boxes)
    runs_002 = [n for n in names if n.startswith(("exp64", "exp74", "sim73"))]
    for name in (*runs_002, *(n.removesuffix("-3d") for n in runs_002)):
        assert load_scenario(name).duration >= MIN_DURATION, name


def test_reproduction_section_runs_fast():
    from snake_studies.reproduction.experiment import reproduce
    from snake_studies.reproduction.experiments import rectilinear
    from snake_studies.reproduction.reports import rectilinear as rectilinear_report

    text = rectilinear_report.render(reproduce(rectilinear, fast=True))
    assert text.startswith("## ") and "no-slip" in text and "nan" not in text.lower()


@pytest.mark.slow
def test_tsc_is_held_at_the_box_face_by_the_friction_on_it():
    """The TSC stall of docs/reproduction.md: with (4.27) on the box's near face (002 §4.6, μ = 0.6 in the world
    file) the head tip stays pressed on the face; the same run without friction on the vertical faces climbs."""
    from snake_sim.analysis.climb import climb_result
    from snake_studies.reproduction.experiments.stiffness import head_at_face

    held, setup = simulate("tsc-obstacle", "sim.duration=45", "controller.torque_gain=0")
    free, setup_free = simulate("tsc-obstacle", "sim.duration=45", "controller.torque_gain=0",
                                "world.side_friction=0")
    face_time, face_top = head_at_face(held, setup)
    assert climb_result(held, setup.world).climbed is False
    assert face_time > 20.0 and face_top < 0.036  # pressed on the face below its 36 mm edge
    assert climb_result(free, setup_free.world).climbed is True
    assert head_at_face(free, setup_free)[0] < 5.0


def test_parameter_grid_table_has_one_cell_per_run_in_order():
    """The grid section lays runs out as rows (D_d, K_d) × columns (A, K_τ), in the order the jobs are made, with
    the verdict at half the step in each cell."""
    from dataclasses import replace

    from snake_sim.analysis.climb import ClimbResult
    from snake_studies.reproduction.experiments import stiffness
    from snake_studies.reproduction.reports import stiffness as stiffness_report

    n_cols = len(stiffness.GRID_AMPLITUDES) * len(stiffness.GRID_TORQUE_GAINS)
    n_rows = len(stiffness.GRID_DAMPING) * len(stiffness.GRID_STIFFNESS)
    climber = n_cols + 1  # second row, second column
    rows = [stiffness.Outcome(f"run {i}", 1e-3 * i, ClimbResult(i == climber, 30.0 if i == climber else None, 0.7,
                                                                0.7, None), 50.0, -280.0, "ok", time_step_s=1e-3)
            for i in range(n_rows * n_cols)]
    rows = [replace(r, half=replace(r, speed_mps=r.speed_mps * 1.01)) for r in rows]
    rows[0] = replace(rows[0], half=replace(rows[0], climb=ClimbResult(True, 80.0, 0.7, 0.7, None)))
    lines = stiffness_report._grid(rows, stiffness._setting(), stiffness.run_settings(False))
    table = [line for line in lines if line.startswith("| ") and not line.startswith("| D_d")]
    assert len(table) == n_rows and all(line.count("|") == n_cols + 2 for line in table)
    assert table[0].startswith("| 4, 12 | no, 0.0; h/2: yes, 80.0 s, **NOT converged** | no, 1.0; h/2: no, converged |")
    assert f"yes, 30.0 s, {climber:.1f}; h/2: yes, 30.0 s, converged" in table[1]
    assert f"Climb: run {climber}." in "\n".join(lines)


def test_a_row_is_converged_only_with_the_same_verdict_and_times_within_five_percent():
    from dataclasses import replace

    from snake_sim.analysis.climb import ClimbResult
    from snake_studies.reproduction.experiments import stiffness

    row = stiffness.Outcome("r", 0.010, ClimbResult(True, 40.0, 0.7, 0.28, 0.007), 50.0, -280.0, "ok")
    assert row.converged is None  # not checked
    assert replace(row, half=replace(row, speed_mps=0.0104)).converged is True  # −3.8 %
    assert replace(row, half=replace(row, speed_mps=0.0106)).converged is False  # −5.7 %
    assert replace(row, half=replace(row, climb=ClimbResult(True, 37.0, 0.7, 0.28, 0.0076))).converged is False
    assert replace(row, half=replace(row, climb=ClimbResult(False, None, 0.7, 0.28, None))).converged is False
