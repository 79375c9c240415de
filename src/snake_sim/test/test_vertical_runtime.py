"""The vertical-plane runtime end to end: `snake-sim run`, scenario validation, failure handling."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import yaml

from snake_core import locator
from snake_core.robot import robot_from_dict
from snake_core.validation import ConfigError
from snake_sim.commands import cli
from snake_sim.core.scenario import load_scenario, scenario_from_dict
from snake_sim.engines.vertical import runtime


def test_run_command_writes_summary_plots_and_animation(tmp_path, capsys):
    out = tmp_path / "demo"
    assert cli.main(["run", "pedal-wave", "--duration", "1.0", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    for key in ("status", "duration_s", "wall_time_s", "real_time_factor", "distance_m", "average_speed_mps",
                "climbed", "time_to_climb_s", "torque_Nm", "contacts"):
        assert key in summary
    assert summary["status"] == "ok"
    assert summary["duration_s"] == pytest.approx(1.0)
    assert summary["climbed"] is None and summary["time_to_climb_s"] is None  # flat ground
    assert [s["joint"] for s in summary["torque_Nm"]] == [1, 2, 3, 4, 5]
    assert summary["real_time_factor"] > 0
    for name in ("joints.png", "com.png", "animation.gif"):
        assert (out / name).stat().st_size > 1000
    printed = capsys.readouterr().out
    assert "average speed" in printed and str(out / "summary.json") in printed


def test_set_overrides_accept_pi_expressions():
    sc = load_scenario("pedal-wave", ["gait.phase_shift=-2.2*pi/5", "contact.friction=0.82", "sim.duration=3"])
    assert sc.data["gait"]["phase_shift"] == pytest.approx(-2.2 * math.pi / 5)
    assert sc.data["contact"]["friction"] == 0.82 and sc.duration == 3.0


@pytest.mark.parametrize(("overrides", "field", "value"), [
    (["gait.amplitud=0.5"], "gait.amplitud", "0.5"),
    (["world.file=moon"], "world.file", "'moon'"),
    (["sim.time_step=0"], "sim.time_step", "0"),
    (["sim.time_step=-0.001"], "sim.time_step", "-0.001"),
    (["contact.friction=-1"], "contact.friction", "-1"),
    (["robot.name=nobody"], "robot.name", "'nobody'"),
    (["controller.mode=telepathy"], "controller.mode", "'telepathy'"),
    (["gait.amplitude=2.0"], "gait.amplitude", "2.0"),
])
def test_bad_scenario_values_stop_with_one_message(overrides, field, value, tmp_path, capsys):
    args = ["run", "pedal-wave", "--out", str(tmp_path / "x"), "--quiet", "--no-animation"]
    for o in overrides:
        args += ["--set", o]
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{field} = {value}" in err
    assert not (tmp_path / "x" / "summary.json").exists()  # refused before running


def test_missing_scenario_field_is_named():
    data = yaml.safe_load(locator.scenario_file("pedal-wave").read_text())
    del data["sim"]["duration"]
    with pytest.raises(ConfigError, match=r"sim\.duration = missing is invalid: is required"):
        scenario_from_dict(data, "broken.yaml")
    data = yaml.safe_load(locator.scenario_file("pedal-wave").read_text())
    data["gaits"] = data.pop("gait")
    with pytest.raises(ConfigError, match=r"gaits = .* unknown field"):
        scenario_from_dict(data, "broken.yaml")


@pytest.mark.parametrize(("path", "value", "field"), [
    (("links", "mass"), -0.15, "links.mass = -0.15"),
    (("links", "count"), 1, "links.count = 1"),
    (("sea", "stiffness"), 0.0, "sea.stiffness = 0.0"),
    (("links", "colour"), "red", "links.colour = 'red'"),
])
def test_bad_robot_values_stop_with_one_message(path, value, field):
    data = yaml.safe_load(locator.robot_file("koopaee6").read_text())
    data[path[0]][path[1]] = value
    with pytest.raises(ConfigError) as err:
        robot_from_dict(data, "koopaee6.yaml")
    assert field in str(err.value) and "\n" not in str(err.value)


def _nan_after(t_bad: float):
    def hook(t, q, v, refs):
        if t >= t_bad:
            refs = dict(refs, alpha_d=np.full_like(refs["alpha_d"], np.nan))
        return refs
    return hook


def test_non_finite_run_stops_says_when_and_keeps_the_log():
    setup = runtime.build(load_scenario("pedal-wave", ["sim.duration=2"]))
    log = runtime.simulate(setup, tick_hook=_nan_after(0.5))
    assert "non-finite state at t = 0.5" in log.status
    assert "q[" in log.status  # names the coordinate
    assert log.t[-1] == pytest.approx(0.5, abs=0.03) and np.isfinite(log.link_position).all()


def test_run_command_keeps_outputs_of_a_failed_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runtime, "run_scenario", lambda sc, progress=False, stop=None: runtime.simulate(
        runtime.build(sc), tick_hook=_nan_after(0.6)))
    out = tmp_path / "failed"
    assert cli.main(["run", "pedal-wave", "--duration", "2", "--out", str(out), "--quiet", "--no-animation"]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"].startswith("non-finite state at t = 0.6")
    assert summary["duration_s"] == pytest.approx(0.6, abs=0.03)
    assert (out / "joints.png").exists()


@pytest.mark.parametrize("sign", [-1.0, 1.0])
def test_robot_moves_the_way_the_wave_travels(sign):
    """φ < 0: the wave runs tail → head and the robot moves head first (+x); φ > 0 reverses both."""
    log = runtime.run_scenario(load_scenario("pedal-wave", [f"gait.phase_shift={sign * 2 * math.pi / 5}",
                                                            "sim.duration=4"]))
    dx = log.com[-1, 0] - log.com[0, 0]
    assert -sign * dx > 0.004  # ≥ 1 mm/s, well above numerical noise


def test_obstacle_world_is_read_into_the_terrain():
    setup = runtime.build(load_scenario("pedal-wave", ["world.file=single_obstacle"]))
    (x0, x1, bottom, top), = setup.terrain.boxes
    head_tip = setup.robot.total_length
    assert x0 - head_tip == pytest.approx(0.150, abs=1e-4)
    assert (x1 - x0, top - bottom) == pytest.approx((0.107, 0.036), abs=1e-6)


def test_default_step_matches_a_fine_step_on_the_reference_gait():
    """The scenario's 5 ms linearly implicit Euler step against 1 ms: same final centre of mass within 2 % of
    the distance travelled (`make bench` checks 10 s against 002's 1e-4 s)."""
    coarse = runtime.run_scenario(load_scenario("pedal-wave", ["sim.duration=4"]))
    fine = runtime.run_scenario(load_scenario("pedal-wave", ["sim.duration=4", "sim.time_step=0.001"]))
    dist = fine.com[-1, 0] - fine.com[0, 0]
    assert dist > 0.005
    assert abs(coarse.com[-1, 0] - fine.com[-1, 0]) < 0.02 * dist


def test_high_friction_large_amplitude_stays_finite_at_the_default_step():
    """μ_c = 5 at A = π/3: the friction law's slip velocity jumps by many ε per 5 ms step; the secant and
    dissipative re-solves of the plant keep the step stable (the tangent linearisation alone diverges)."""
    log = runtime.run_scenario(load_scenario("pedal-wave", ["contact.friction=5", "gait.amplitude=pi/3",
                                                            "sim.duration=3"]))
    assert log.status == "ok"
    assert np.isfinite(log.link_position).all()
    assert 0.0 < log.com[:, 2].min() and log.com[:, 2].max() < 0.1  # on the ground, not launched


def test_explicit_stepping_at_002s_step_diverges_with_the_own_rotor_reading():
    """Why the integrator is implicit: K_D/J_r ≈ 1e8 1/s ≫ 2/h at h = 1e-4 s (snake_sim.engines.vertical.integrator)."""
    from snake_sim.benchmarks.realtime import explicit_steps_to_divergence

    assert explicit_steps_to_divergence(max_steps=50) < 10
