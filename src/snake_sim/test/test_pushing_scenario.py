"""`snake-sim run pushing` (001, issue 9 Deliver 3): the snake pushes the box of worlds/pushing.sdf
and summary.json sets the initial accelerations from the dynamics beside the analysis."""

from __future__ import annotations

import json

import numpy as np
import pytest

from snake_core.pushing import Scenario
from snake_core.pushing.kinematics import joint_points
from snake_core.pushing.study import configurations, maps_at
from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.pushing.plant import pushing_world
from snake_sim.engines.pushing.runtime import run_scenario

#: snake_sim.engines.pushing.plant's docstring: at the default stiffness 1e7 N/m the fitted accelerations are within
#: 0.1 %.
CONTACT_MODEL_BOUND = 1e-3


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    out = tmp_path_factory.mktemp("pushing")
    assert main(["run", "pushing", "--out", str(out), "--no-animation", "--quiet"]) == 0
    return json.loads((out / "summary.json").read_text()), out


@pytest.fixture(scope="module")
def short_log():
    return run_scenario(load_scenario("pushing", ["sim.duration=0.05"]))


def test_run_pushing_writes_summary_plots_and_rosbag_with_status_ok(summary):
    s, out = summary
    assert s["status"] == "ok" and s["plane"] == "xy" and s["robot"] == "pushing3"
    assert (out / "joints.png").is_file() and (out / "rosbag").is_dir()
    p = s["pushing"]
    assert p["scenario"] == 2
    assert p["contact_lost_at_s"] is None  # the shipped duration ends while the snake still pushes
    assert s["contacts"]["min"] == 1


def test_initial_accelerations_match_the_analysis_within_the_contact_model_error(summary):
    p = summary[0]["pushing"]
    assert p["object_rel_error"] < CONTACT_MODEL_BOUND
    assert p["robot_rel_error"] < CONTACT_MODEL_BOUND
    a_ana, a_sim = np.array(p["object_acceleration_analysis"]), np.array(p["object_acceleration_simulation"])
    assert a_ana[1] > 0.005  # pushed along the face normal (+y), not a vanishing number
    assert np.linalg.norm(a_sim[:2] - a_ana[:2]) < CONTACT_MODEL_BOUND * np.linalg.norm(a_ana[:2])
    q_ana, q_sim = np.array(p["robot_acceleration_analysis"]), np.array(p["robot_acceleration_simulation"])
    assert np.all(np.sign(q_sim) == np.sign(q_ana))
    assert np.linalg.norm(q_sim - q_ana) < 2 * CONTACT_MODEL_BOUND * np.linalg.norm(q_ana)
    assert p["slippage_ratio_simulation"] == pytest.approx(p["slippage_ratio_analysis"], rel=2e-3)
    assert p["wheels_sliding_analysis"] == [0, 0]


def test_the_reported_torque_gives_the_analysed_accelerations_through_001s_linear_maps(summary):
    """The analysis (active-set projections of snake_core.pushing.response) against the linear maps 001 (20)-(25)
    at the start pose: with no wheel sliding, Scenario 2 acts as Scenario 3, q̈ = Φ_{q̈,τ} τ and a = Φ_{a,τ} τ."""
    p = summary[0]["pushing"]
    maps = maps_at(pushing_world(2).model, configurations(np.radians([-60.0, -60.0])), Scenario.IDEAL_WHEELS)
    tau = np.array(p["joint_torque_Nm"])
    assert np.abs(tau).max() > 0.01  # a real push, not a zero input that any map sends to zero
    np.testing.assert_allclose(p["object_acceleration_analysis"], maps.a_tau[0] @ tau, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(p["robot_acceleration_analysis"], maps.q_tau[0] @ tau, rtol=1e-9, atol=1e-12)


def test_the_box_moves_as_newton_says_with_the_analysed_acceleration(short_log, summary):
    """Independent of the fit: F_contact = κ m a_obj (001 (6)) and x(t) − x(0) = ½ a t² early on."""
    a_ana = summary[0]["pushing"]["object_acceleration_analysis"][1]
    log = short_log
    k = int(np.searchsorted(log.t, 0.02))
    assert log.series["contact_force"][k] == pytest.approx(100.0 * 1.0 * a_ana, rel=2e-3)
    dy = log.series["object_pose"][:, 1] - log.series["object_pose"][0, 1]
    assert dy[-1] == pytest.approx(0.5 * a_ana * log.t[-1] ** 2, rel=5e-3)
    assert summary[0]["pushing"]["object_displacement_m"][1] > 1e-3  # the shipped run moves it over a millimetre


def test_run_log_poses_follow_the_pushing_kinematics(short_log):
    """Link 1 starts along +x from the origin; the log's head tip equals 001's forward kinematics."""
    log = short_log
    world = pushing_world(2)
    q0 = configurations(np.radians([-60.0, -60.0]))[0]
    assert log.link_position[0, 0, :2] == pytest.approx([0.075, 0.0], abs=1e-12)
    assert log.head_position[0, :2] == pytest.approx(joint_points(world.model, q0)[-1], abs=1e-12)
    assert log.alpha[0] == pytest.approx(np.radians([-60.0, -60.0]), abs=1e-12)
    assert log.series["object_pose"][0, :2] == pytest.approx(world.box_center, abs=1e-12)
    assert log.series["object_outline"].shape == (log.t.size, 8)


@pytest.mark.parametrize(("override", "field"), [
    ("contact.scenario=4", "contact.scenario"),
    ("controller.torque=[0.1]", "controller.torque"),
    ("controller.torque=[0, 0]", "controller.torque"),
    ("controller.torque=[5, 0]", "controller.torque[0]"),
    ("controller.torque=[-0.0605, -0.0544]", "controller.torque"),  # pulls the tail link off the box
    ("robot.initial_joint_angles=[0, 3]", "robot.initial_joint_angles[1]"),
    ("robot.initial_joint_angles=[pi/2, pi/2]", "robot.initial_joint_angles"),  # link 2 inside the box
    ("robot.name=koopaee6", "robot.name"),
    ("sim.duration=0.005", "sim.duration"),
    ("sim.time_step=1e-3", "sim.time_step"),
    ("contact.stiffness=-1", "contact.stiffness"),
])
def test_bad_pushing_input_is_refused_naming_the_field(override, field):
    with pytest.raises(ConfigError) as exc:
        run_scenario(load_scenario("pushing", [override]))
    assert exc.value.field == field
    assert str(exc.value).startswith("pushing.yaml: " + field)


def test_cli_reports_bad_pushing_input_in_one_line(capsys):
    assert main(["run", "pushing", "--set", "contact.scenario=0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "contact.scenario = 0 is invalid" in err and "[1, 3]" in err


def test_top_view_animation_draws_the_box(short_log, tmp_path):
    from PIL import Image

    from snake_sim.outputs.animation import write_planar_animation

    frame = np.asarray(Image.open(write_planar_animation(short_log, tmp_path / "a.gif")).convert("RGB"), dtype=int)
    orange = np.all(np.abs(frame - [255, 178, 110]) < 25, axis=-1)  # C1 at alpha 0.6 on white
    assert orange.mean() > 0.05  # the 0.3 m box fills a good part of the view
