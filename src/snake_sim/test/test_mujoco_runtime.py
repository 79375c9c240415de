"""The 3-D runtime (issue 15 items 2–4): snake_core's controllers and motor PD on MuJoCo, roll-over fields,
perturbations, numerical settings in the summary, bad input; short runs only."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from snake_core.actuator import motor_pd
from snake_core.validation import ConfigError
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.mujoco import model as mm
from snake_sim.engines.mujoco import runtime as rt


def _run(name: str, *overrides: str, duration: float = 0.5):
    return rt.run_scenario(load_scenario(name, [f"sim.duration={duration}", *overrides]))


@pytest.mark.parametrize("mode", ["position", "stiffness", "tsc", "torque"])
def test_every_sea_controller_mode_runs_on_the_3d_model(mode):
    """Item 2: each mode of snake_core.controllers drives the MuJoCo robot at its control rate; the log carries
    what the modules measure and the summary the numerical settings, joint roll and perturbation."""
    over = {"stiffness": ["controller.stiffness=0.29"], "tsc": ["controller.stiffness=14.0"]}.get(mode, [])
    log = _run("open-loop-flat-3d", f"controller.mode={mode}", *over)
    assert log.status == "ok" and log.plane == "xz"
    assert len(log.t) == 26 and np.isfinite(log.alpha).all() and np.isfinite(log.link_position).all()
    assert log.tau == pytest.approx(log.robot.sea.stiffness[0] * (log.alpha - log.beta), abs=1e-12)
    fields = log.summary_fields
    assert fields["model"] == "mujoco" and fields["joint_roll"] == [0] * 5 and fields["joint_twist_deg"] == [0.0] * 5
    assert fields["com_offset"] == [0.0, 0.0, 0.0]
    assert fields["numerics"] == {"time_step": 0.002, "friction": 0.6, "solref": [0.02, 1.0],
                                  "solimp": [0.9, 0.95, 0.001, 0.5, 2.0], "cone": "elliptic", "solver": "Newton",
                                  "integrator": "implicitfast", "gravity": 9.81}
    assert fields["perturbation"] == {"roll_deg": 2.0, "lateral_offset": 0.0, "joint_noise_deg": 1.0, "seed": 0}


def test_the_actuator_is_the_motor_pd_4_39_with_its_feed_forward():
    """MuJoCo's actuator force equals snake_core.actuator's U = −K_p(β − β_d) − K_D(β̇ − β̇_d)."""
    setup = rt.build(load_scenario("open-loop-flat-3d"))
    model, data = setup.model, setup.model.create_data()
    mm.place(model, data, (0.0, 0.0, 0.05))
    rng = np.random.default_rng(3)
    data.mj.qvel[model.motor_dof] = rng.normal(size=5)
    beta_d, beta_d_dot = rng.normal(size=5), rng.normal(size=5)
    mm.command(model, data, beta_d, beta_d_dot)
    mujoco.mj_forward(model.mj, data.mj)
    u, _ = motor_pd(setup.robot, saturate=True).torque(mm.beta(model, data), mm.beta_dot(model, data), beta_d,
                                                       beta_d_dot)
    assert mm.motor_torque(model, data) == pytest.approx(u, rel=1e-12)


def test_joint_twist_turns_each_axis_about_the_link_and_com_offset_moves_every_centre_of_mass():
    """robot.joint_twist_deg ψ_j turns joint j's axis by ψ_j about the link's x (right hand): a pitch joint's axis is
    (0, cos ψ, sin ψ), so a joint angle α turns the next link's axis to (cos α, sin ψ sin α, −cos ψ sin α);
    robot.com_offset moves each link's centre of mass to (l + dx, dy, dz) in its frame. Both are in the summary."""
    twist = [30.0, 0.0, -15.0, 0.0, 0.0]
    setup = rt.build(load_scenario("open-loop-flat-3d", [f"robot.joint_twist_deg={twist}",
                                                         "robot.com_offset=[0.004,-0.003,0.01]"]))
    model, data = setup.model, setup.model.create_data()
    alpha = np.array([0.4, 0.0, 0.0, 0.0, 0.0])
    mm.place(model, data, (0.0, 0.0, 0.5), alpha=alpha)
    psi = math.radians(twist[0])
    assert model.mj.jnt_axis[mujoco.mj_name2id(model.mj, mujoco.mjtObj.mjOBJ_JOINT, "motor_1")] == pytest.approx(
        [0.0, math.cos(psi), math.sin(psi)], abs=1e-12)
    R = mm.link_rotations(model, data)
    assert R[1][:, 0] == pytest.approx([math.cos(0.4), math.sin(psi) * math.sin(0.4), -math.cos(psi) * math.sin(0.4)],
                                      abs=1e-12)
    com = mm.link_origins(model, data) + R @ np.array([setup.robot.half_length + 0.004, -0.003, 0.01])
    assert mm.link_positions(model, data) == pytest.approx(com, abs=1e-12)
    log = rt.simulate(setup, duration=0.02)
    assert log.summary_fields["joint_twist_deg"] == pytest.approx(twist)
    assert log.summary_fields["com_offset"] == [0.004, -0.003, 0.01]


def test_perturbation_is_deterministic_for_a_seed_and_sets_the_initial_roll():
    a = _run("open-loop-flat-3d", "sim.perturbation.seed=4", duration=0.1)
    b = _run("open-loop-flat-3d", "sim.perturbation.seed=4", duration=0.1)
    c = _run("open-loop-flat-3d", "sim.perturbation.seed=5", duration=0.1)
    assert np.array_equal(a.link_position, b.link_position)
    assert not np.array_equal(a.alpha[0], c.alpha[0])
    roll = _run("open-loop-flat-3d", "sim.perturbation.roll_deg=10", "sim.perturbation.joint_noise_deg=0",
                duration=0.02)
    assert np.degrees(roll.series["module_roll"][0]) == pytest.approx([10.0] * 6, abs=1e-9)


@pytest.mark.parametrize(("override", "message"), [
    ("model=moon", r"model = 'moon' is invalid: must be one of .*mujoco"),
    ("sim.perturbation.roll_deg=90", r"sim\.perturbation\.roll_deg = 90 is invalid: must be in \[-45, 45\]"),
    ("sim.perturbation.spin=1", r"sim\.perturbation\.spin = 1 is invalid: unknown field"),
    ("robot.name=ariizumi10", r"robot\.name = 'ariizumi10' is invalid: the MuJoCo model needs a robot with SEAs"),
    ("robot.joint_roll=45", r"robot\.joint_roll = 45 is invalid: must be 0, 90, alternate"),
    ("robot.joint_twist_deg=120", r"robot\.joint_twist_deg = 120 is invalid: must be in \[-90, 90\]"),
    ("robot.joint_twist_deg=[1,2]", r"robot\.joint_twist_deg = \[1, 2\] is invalid: must be a number or a list of 5"),
    ("robot.com_offset=[0,0.05,0]", r"robot\.com_offset\[1\] = 0\.05 is invalid: must be in \(-0\.034, 0\.034\)"),
    ("robot.com_offset=0.01", r"robot\.com_offset = 0\.01 is invalid: must be a list of 3 numbers"),
    ("contact.cone=round", r"contact\.cone = 'round' is invalid: must be one of elliptic, pyramidal"),
    ("contact.solref=[0.02]", r"contact\.solref = \[0\.02\] is invalid: must be a list of 2 numbers"),
])
def test_bad_input_gets_one_error_naming_the_field(override, message):
    with pytest.raises(ConfigError, match=message):
        rt.build(load_scenario("tsc-obstacle-3d", [override]))


def test_a_vertical_scenario_becomes_its_3d_run_with_one_set():
    """The vertical model's Kelvin–Voigt contact fields are accepted (and do not act), and the robot, started
    upright with no perturbation, stays upright: within 0.1° (MuJoCo's contacts of the octagonal mesh on the plane
    are symmetric only to rounding: 0.005° after 0.2 s, 0.015° after 3 s; a 2° start roll would show)."""
    log = _run("pedal-wave", "model=mujoco", "sim.time_step=0.001", duration=0.2)
    assert log.status == "ok" and log.summary_fields["max_roll_deg"] == pytest.approx(0.0, abs=0.1)


def test_reference_gait_speed_is_converged_in_the_step_and_the_contact_softness():
    """Item 3: the reference gait's speed (open-loop-flat-3d: 002's A = π/6, ω = π, φ = −2π/5) moves by ≤ 10 %
    from the scenario's step to half of it, and from the chosen contact softness to one twice as stiff (MuJoCo's
    contact stiffness ∝ 1/time constant², so solref[0] / √2)."""
    scenario = load_scenario("open-loop-flat-3d")
    h, (tc, zeta) = scenario.time_step, scenario.section("contact")["solref"]
    base = _run("open-loop-flat-3d", duration=6.0).average_speed
    half = _run("open-loop-flat-3d", f"sim.time_step={h / 2}", duration=6.0).average_speed
    stiff = _run("open-loop-flat-3d", f"contact.solref=[{tc / math.sqrt(2)},{zeta}]", duration=6.0).average_speed
    assert base > 0.01  # head first, > 1 cm/s: not a standstill that any relative bound would pass
    assert half == pytest.approx(base, rel=0.1)
    assert stiff == pytest.approx(base, rel=0.1)


def test_write_figures_renders_the_robot_and_the_box_with_mujoco(tmp_path):
    """Item 5: joints.png, com.png and animation.gif rendered by MuJoCo's offscreen renderer (EGL, else OSMesa)
    from a camera on the robot: the red head module and the obstacle's colour are in the frames."""
    from PIL import Image

    from snake_sim.core.world import load_world
    from snake_sim.outputs.figures import write_figures

    log = _run("tsc-obstacle-3d", "world.start_x=0.2", duration=0.4)
    written = write_figures(rt.FIGURES, log, tmp_path, load_world("single_obstacle"), animation=True)
    assert [p.name for p in written] == ["joints.png", "com.png", "animation.gif"]
    gif = Image.open(tmp_path / "animation.gif")
    assert gif.n_frames == 4 and gif.size[0] >= 640 and gif.size[1] >= 400
    r, g, b = np.asarray(gif.convert("RGB")).reshape(-1, 3).astype(int).T
    head = (r > 120) & (g < 60) & (b < 60)  # 0.85 0.2 0.1 (and the arrow over it)
    box = (r > g) & (g > b) & (r - b > 25) & (r - b < 110)  # mjcf.BOX_COLOURS, browns (yellow robot: r − b ≈ 200)
    assert head.mean() > 0.005 and box.mean() > 0.05
