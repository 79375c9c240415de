"""End to end: TSC's torque-driven modulation on flat ground and at an obstacle, a climb, and
``snake-sim compare`` (the vertical-plane runtime with the issue-3 controllers)."""

import json

import numpy as np
import pytest

from snake_core.validation import ConfigError
from snake_sim.analysis.wave_analysis import cycle_waves
from snake_sim.commands.cli import main
from snake_sim.commands.compare import load_compared
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.vertical import runtime

#: 002 Table 7.1's TSC (A = π/6, M_d = 1, D_d = 4, K_d = 12) with torque feedback K_τ = 6.
TABLE_7_1 = ["gait.amplitude=pi/6", "controller.stiffness=12", "controller.torque_gain=6"]


def simulate(name, *overrides):
    sc = load_scenario(name, list(overrides))
    setup = runtime.build(sc)
    return runtime.simulate(setup), setup


def test_tsc_references_settle_to_a_periodic_cycle_on_flat_ground():
    log, _ = simulate("tsc-flat", "sim.duration=16", *TABLE_7_1)
    assert log.status == "ok"
    waves = cycle_waves(log.t, log.beta_ref, np.pi)  # β_d = α_j^d of (7.1)-(7.2)
    change = waves.cycle_change()
    assert change[0] > 0.05  # the filters start at rest: the first cycles differ ...
    assert np.all(change[4:] < 0.01)  # ... then every cycle repeats the last to better than 1 %
    # the wave travels tail → head with a lag per joint near the phase of (7.2) at ω (about −80°)
    lag = np.degrees(np.diff(waves.phase[-1]))
    assert np.all((lag < -45) & (lag > -120))


def test_tsc_references_change_on_contact_with_the_obstacle():
    """Same controller, same start (head tip 50 mm before the box), with and without the box: the
    references agree until the robot reaches the box, then the measured torques and angles modulate them."""
    torque = "controller.torque_gain=6"  # K_τ = 6: the measured SEA torque enters (7.2)
    flat, _ = simulate("tsc-obstacle", "sim.duration=12", "world.start_x=0.1", "world.file=flat", torque)
    box, _ = simulate("tsc-obstacle", "sim.duration=12", "world.start_x=0.1", torque)
    wf, wb = (cycle_waves(log.t, log.beta_ref, np.pi) for log in (flat, box))
    diff = np.max(np.abs(wf.amplitude * np.exp(1j * wf.phase) - wb.amplitude * np.exp(1j * wb.phase)), axis=1)
    diff /= np.max(wf.amplitude)
    assert diff[0] < 1e-6  # first cycle: nowhere near the box
    assert np.max(diff) > 0.1  # in contact: amplitude and phase changed by more than 10 %
    assert np.max(np.abs(box.beta_ref)) <= np.pi / 3 + 1e-9  # references stay within ±60°


@pytest.mark.slow
def test_a_climb_of_the_single_obstacle_holds_at_half_the_step(tmp_path):
    """The open loop with frictionless vertical faces on 002's obstacle (docs/reproduction.md): `--check-step` runs
    it at the shipped step and at half of it; both climb, within 5 % of each other, and summary.json says so."""
    out = tmp_path / "run"
    code = main(["run", "open-loop-obstacle", "--duration", "45", "--quiet", "--no-animation", "--check-step",
                 "--set", "world.side_friction=0", "--set", "outputs.plots=false", "--out", str(out)])
    summary = json.loads((out / "summary.json").read_text())
    check = summary["step_check"]
    assert code == 0 and summary["status"] == "ok"
    assert check["time_step_s"] == 0.001 and check["half_time_step_s"] == 0.0005  # the shipped step and its half
    assert check["fields"]["climbed"] == {"value": True, "half_step": True, "same": True}
    t = check["fields"]["time_to_climb_s"]
    assert t["value"] == summary["time_to_climb_s"] and 10.0 < t["value"] < 45.0
    assert t["relative_change"] == pytest.approx((t["value"] - t["half_step"]) / t["half_step"])
    assert abs(t["relative_change"]) <= 0.05 and check["converged"] is True
    assert summary["goal_x_m"] == pytest.approx(0.595 + 0.107, abs=2e-3)  # far edge of the box
    assert summary["climb_average_speed_mps"] == pytest.approx(summary["climb_distance_m"]
                                                               / summary["time_to_climb_s"])


def test_the_retired_contact_side_friction_is_refused_with_where_it_went(tmp_path, capsys):
    assert main(["run", "tsc-obstacle", "--set", "contact.side_friction=0", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "contact.side_friction = 0 is invalid" in err and "world.side_friction" in err and "<surface>" in err
    with pytest.raises(ConfigError, match=r"world.side_friction = -0.1 is invalid: must be .*0"):
        runtime.build(load_scenario("tsc-obstacle", ["world.side_friction=-0.1"]))


def test_compare_writes_one_table_and_one_figure(tmp_path, capsys):
    code = main(["compare", "pedal-wave", "tsc-flat", "stiffness-flat", "--duration", "2.5", "--quiet",
                 "--out", str(tmp_path)])
    assert code == 0
    rows = json.loads((tmp_path / "compare.json").read_text())
    assert [r["mode"] for r in rows] == ["position", "tsc", "stiffness"]
    assert rows[0]["speed_vs_first_pct"] == 0.0 and rows[0]["climbed"] is None
    assert (tmp_path / "compare.png").stat().st_size > 10_000
    assert "| tsc-flat | tsc |" in (tmp_path / "compare.md").read_text()
    assert json.loads((tmp_path / "tsc-flat" / "summary.json").read_text())["status"] == "ok"


def test_compare_writes_the_same_summary_fields_as_run(tmp_path):
    """A compared run's summary.json has its model's own fields (head tracking: errors, min R), as ``run`` writes."""
    args = ["--duration", "0.5", "--quiet"]
    assert main(["run", "head-tracking-pfl", *args, "--no-animation", "--out", str(tmp_path / "run")]) == 0
    assert main(["compare", "head-tracking-pfl", *args, "--out", str(tmp_path / "cmp")]) == 0
    ran = json.loads((tmp_path / "run" / "summary.json").read_text())
    compared = json.loads((tmp_path / "cmp" / "head-tracking-pfl" / "summary.json").read_text())
    assert "head_error_rms_m" in ran and set(compared) == set(ran)
    assert compared["head_error_rms_m"] == ran["head_error_rms_m"]


def test_compare_refuses_scenarios_on_different_worlds(tmp_path):
    with pytest.raises(ConfigError, match="one world"):
        load_compared(["pedal-wave", "tsc-obstacle"], ["sim.duration=1"])
    assert main(["compare", "pedal-wave", "tsc-obstacle", "--out", str(tmp_path)]) == 2  # one clear message
    assert load_compared(["pedal-wave", "tsc-obstacle"], ["world.file=two_obstacles"])[1].world_file == "two_obstacles"
    with pytest.raises(ConfigError, match=r"open-loop-obstacle.yaml: controller.torque_gain = 6 is invalid"):
        load_compared(["tsc-obstacle", "open-loop-obstacle"], ["controller.torque_gain=6"])  # before any run


@pytest.mark.parametrize(("override", "message"), [
    ("controller.stiffness=1.74", "controller.stiffness = 1.74 is invalid: must satisfy 0 < K_d < K = 1.74 N·m/rad: "
                                  "the passivity bound of 002 §6.3"),  # K_d = K in local stiffness
    ("controller.stiffness=-0.1", "controller.stiffness = -0.1 is invalid"),
    ("gait.amplitude=1.2", "gait.amplitude = 1.2 is invalid: must be <= 1.0472 rad (the ±60° joint limit)"),
])
def test_scenario_gains_validated_before_anything_runs(tmp_path, capsys, override, message):
    assert main(["run", "stiffness-obstacle", "--set", override, "--out", str(tmp_path), "--quiet"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "summary.json").exists()


def test_compare_takes_scenarios_of_several_models_in_one_table(tmp_path):
    """Issue 15 item 5: the vertical model and MuJoCo on the same world in one table, with the model and the 3-D
    model's roll-over."""
    code = main(["compare", "open-loop-obstacle", "open-loop-obstacle-3d",
                 "--set", "sim.time_step=0.001", "--duration", "0.3", "--quiet", "--out", str(tmp_path)])
    assert code == 0
    rows = json.loads((tmp_path / "compare.json").read_text())
    assert [r["model"] for r in rows] == ["vertical", "mujoco"]
    assert rows[0]["rolled_over"] is None and rows[1]["rolled_over"] is False
    table = (tmp_path / "compare.md").read_text()
    assert "| open-loop-obstacle | position | vertical |" in table
    assert "| open-loop-obstacle-3d | position | mujoco |" in table and "| no (" in table
