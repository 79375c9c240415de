"""Head-tracking scenarios end to end in the planar runtime (004 §6.1.3, §6.2)."""

import json

import numpy as np
import pytest

from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.planar.report import head_errors, head_tracking_summary, path_distance
from snake_sim.engines.planar.runtime import build, run_scenario, simulate

BODY_LENGTH = 10 * 0.12


@pytest.fixture(scope="module")
def pfl_log():
    return run_scenario(load_scenario("head-tracking-pfl", ["controller.manipulability_threshold=0.015"]))


def test_pfl_tracks_until_the_torque_blows_up_near_the_reach_limit(pfl_log):
    """§6.1.3 with (70) sign-fixed: the head follows w^r, then ‖τ‖ explodes as R collapses (~3.9 s)."""
    log = pfl_log
    assert log.status.startswith("torque blow-up")
    t_end = log.t[-1]
    assert 3.6 < t_end < 4.2  # docs/readings.md: the CoM is pinned, the head cannot go beyond ~0.39 m
    full, _ = head_errors(log)
    assert np.max(full[log.t <= 3.0]) < 0.02
    R, D = log.manipulability[:, 1], log.manipulability[:, 0]
    assert R[-1] < 0.3 * R.max()  # R falls towards zero ...
    assert D[-1] > 0.5 * D.max()  # ... while D does not (004: R is the better singularity indicator)
    assert log.t[np.argmin(R)] > t_end - 0.2


def test_near_singular_posture_is_reported_before_the_blow_up(pfl_log):
    warnings = [d for d in pfl_log.diagnostics if d.name == "manipulability" and d.level == 1]
    assert len(warnings) == 1 and "near-singular" in warnings[0].message
    assert pfl_log.t[-1] - 0.5 < warnings[0].t < pfl_log.t[-1]  # R < 0.015 kg·m shortly before ‖τ‖ explodes


def test_g_is_conserved_up_to_the_blow_up(pfl_log):
    """004 (67) under isotropic friction, integrated with rtol = 1e-8: constant to 1e-6 relative."""
    g = pfl_log.series["g"]
    assert np.max(np.abs(g - g[0])) < 1e-6 * np.max(np.abs(g[0]))
    com = pfl_log.com[:, :2]
    assert np.max(np.linalg.norm(com - com[0], axis=1)) < 1e-6  # g pins the centre of mass (zero start velocity)


@pytest.mark.parametrize("free", [[], [5]])
def test_lyapunov_tracks_the_straight_path_within_a_tenth_of_the_body(free):
    """§6.2: anisotropic friction, (84) gains, circle start, head first at 0.05 m/s, 10–60 s."""
    scenario = load_scenario("head-tracking-lyapunov", [f"robot.free_joints={free}"])
    log = run_scenario(scenario)
    assert log.status == "ok"
    summary = head_tracking_summary(log, scenario)
    assert summary["evaluation_window_s"] == [10.0, 60.0] and summary["evaluation_window_complete"]
    assert summary["head_path_distance_max_m"] < 0.1 * BODY_LENGTH
    assert log.com[-1, 0] - log.com[0, 0] > 2.0  # really went head first along +x, about 3 m in 60 s
    assert summary["manipulability_min_R"] > 0.0
    if free:
        assert np.all(log.tau[:, 4] == 0.0)  # suite joint 5 is 004's joint 5 for n = 10


def test_path_distance_of_points_to_a_polyline():
    path = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    d = path_distance(np.array([[0.5, 0.2], [1.3, 0.5], [-1.0, 0.0], [2.0, 2.0]]), path)
    assert np.allclose(d, [0.2, 0.3, 1.0, np.hypot(1.0, 1.0)])


def test_run_command_writes_head_tracking_summary_and_plots(tmp_path):
    out = tmp_path / "pfl"
    code = main(["run", "head-tracking-pfl", "--duration", "1.0", "--out", str(out), "--no-animation", "--quiet"])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    for key in ("head_error_rms_m", "head_error_max_m", "head_path_distance_max_m", "manipulability_min_R",
                "time_of_min_R_s"):
        assert summary[key] is not None
    assert summary["head_error_max_m"] < 0.02
    assert (out / "head_path.png").is_file() and (out / "manipulability.png").is_file()


def test_sea_joints_realise_the_tracker_torque_through_the_spring():
    """The same controller through SEAs (koopaee6 has sea:/actuator:): torque mode + 002 (4.39)."""
    scenario = load_scenario("head-tracking-lyapunov", [
        "robot.name=koopaee6", "robot.initial_joint_angle=0.3", "controller.K_phi=[10, 20, 20, 20, 20]",
        "sim.duration=0.3", "controller.evaluation_window=[0, 0.3]", "gait.periods=1.0"])
    setup = build(scenario)
    assert setup.sea is not None
    log = simulate(setup)
    assert log.status == "ok" and log.beta is not None
    assert np.allclose(log.tau, setup.robot.sea.stiffness[0] * (log.alpha - log.beta))
    rigid = simulate(build(load_scenario("head-tracking-lyapunov", [
        "robot.name=koopaee6", "robot.initial_joint_angle=0.3", "controller.K_phi=[10, 20, 20, 20, 20]",
        "sim.duration=0.3", "controller.evaluation_window=[0, 0.3]", "gait.periods=1.0", "robot.joints=rigid"])))
    # the spring realises the commanded torque: the head moves as with rigid joints, to a few mm
    assert np.max(np.abs(log.head_position - rigid.head_position)) < 5e-3


def test_sea_joints_get_the_vertical_models_torque_mode_commands():
    """Through SEAs the tracker's torque goes through the SEA loop's torque mode (PI on the measured torque, clipped,
    once per control period): the vertical model's controllers in torque mode, given the planar run's measurements
    and torque references instant by instant, command the planar run's β_d."""
    from snake_sim.core.sea_loop import motor_commands
    from snake_sim.engines.vertical import runtime as vertical

    scenario = load_scenario("head-tracking-lyapunov", [
        "robot.name=koopaee6", "robot.initial_joint_angle=0.3", "controller.K_phi=[10, 20, 20, 20, 20]",
        "sim.duration=0.5", "controller.evaluation_window=[0, 0.5]", "gait.periods=1.0", "sim.log_rate=100"])
    log = simulate(build(scenario))
    assert log.status == "ok" and len(log.t) == 51  # every control instant logged
    controllers = vertical.build(load_scenario("pedal-wave", ["robot.name=koopaee6", "controller.mode=torque"])
                                 ).controllers
    tau_d, zero = log.series["tau_d"], np.zeros(log.alpha.shape[1])
    for k, t in enumerate(log.t):
        beta_d, beta_d_dot = motor_commands(controllers, t, scenario.control_period, log.alpha[k], log.alpha_dot[k],
                                            log.beta[k], log.tau[k], zero, zero, tau_d[k])
        np.testing.assert_array_equal(beta_d, log.beta_ref[k])
        np.testing.assert_array_equal(beta_d_dot, log.alpha_dot[k])  # torque mode's β̇_d = α̇
    # the torque loop acted: β_d is not the open-loop α − τ_d/K, by the PI's share
    open_loop = log.alpha - tau_d / np.asarray(log.robot.sea.stiffness)
    assert np.max(np.abs(log.beta_ref - open_loop)) > 1e-6
    assert any(c.integral != 0.0 for c in controllers)


@pytest.mark.parametrize(("override", "field"), [
    ("robot.free_joints=[10]", "robot.free_joints"),
    ("robot.free_joints=[1, 2, 3, 4, 5, 6, 7]", "robot.links.count"),
    ("controller.mode=magic", "controller.mode"),
    ("controller.K_v=6.0", "controller.K_v"),
    ("contact.c_t=-1", "contact.c_t"),
    ("gait.type=pedal_wave", "gait."),
    ("controller.evaluation_window=[5, 1]", "controller.evaluation_window[1]"),
    ("controller.reference.speed=3", "controller.reference.speed"),
])
def test_bad_planar_scenarios_are_refused_with_one_clear_message(override, field):
    with pytest.raises(ConfigError) as err:
        build(load_scenario("head-tracking-lyapunov", [override]))
    assert err.value.field.startswith(field)


def test_the_documented_pfl_blow_up_is_reported_as_expected_and_exits_0(tmp_path, capsys):
    """head-tracking-pfl's `expected:` says why its blow-up is the documented end; another end stays a failure."""
    assert main(["run", "head-tracking-pfl", "--quiet", "--no-animation", "--out", str(tmp_path / "a")]) == 0
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["status"].startswith("torque blow-up") and "004 §6.1.3" in summary["expected"]
    assert "expected          the documented end" in capsys.readouterr().out
    other = ["--set", "expected.status=integration failed"]
    assert main(["run", "head-tracking-pfl", *other, "--quiet", "--no-animation", "--out", str(tmp_path / "b")]) == 1
    assert "expected" not in json.loads((tmp_path / "b" / "summary.json").read_text())


def test_an_expected_outcome_without_its_reason_is_refused():
    with pytest.raises(ConfigError, match=r"expected\.why"):
        load_scenario("head-tracking-pfl", ["expected.why="])
