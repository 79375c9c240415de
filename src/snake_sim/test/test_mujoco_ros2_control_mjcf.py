"""The MJCF that mujoco_ros2_control simulates (``snake-sim mjcf``, snake_sim.engines.mujoco.ros2_control), against what
upstream reads from it and against the suite's own MuJoCo runtime.

Upstream: ros-controls/mujoco_ros2_control bda2b67 (the source bundle), mujoco_ros2_control/src/
mujoco_system_interface.cpp: ``getActuatorType`` (lines 108-135: biastype none → MOTOR, whose command interface is
effort), ``get_actuator_id`` (lines 144-164: a ros2_control joint name is first a MuJoCo joint, then the actuator
that drives it), ``register_mujoco_actuators`` (lines 1191-1270 every actuator by the joint it drives; lines
1272-1298 every other non-free joint a PASSIVE one, states only; lines 1300-1316 ``initial_keyframe`` applied by
name), the free-joint odometry (lines 398-441, ``odom_free_joint_name``).
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np
import pytest
import xacro

from snake_core import locator
from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.mujoco import model as mm
from snake_sim.engines.mujoco.ros2_control import BASE_JOINT, START_KEYFRAME, ros2_control_mjcf, start_qpos
from snake_sim.engines.mujoco.runtime import MujocoSetup, build, simulate

SCENARIO = "open-loop-flat-3d"
#: One controller_manager period of config/controllers/<robot>_gz.yaml (update_rate 1000 Hz) per MuJoCo step.
H = 0.001


def _setup(*overrides: str, h: float = H) -> MujocoSetup:
    return build(load_scenario(SCENARIO, [f"sim.time_step={h}", *overrides]))


def _ros2_control_joints(robot: str) -> dict[str, list[str]]:
    urdf = xacro.process_file(str(locator.description_dir() / "urdf" / "snake.urdf.xacro"),
                              mappings={"robot": robot, "hardware": "mujoco", "mujoco_model": "model.xml"}).toxml()
    block = ET.fromstring(urdf).find("ros2_control")
    assert block.find("hardware/plugin").text == "mujoco_ros2_control/MujocoSystemInterface"
    return {j.get("name"): [c.get("name") for c in j.findall("command_interface")] for j in block.findall("joint")}


@pytest.mark.parametrize("roll", ["0", "90", "alternate"])
def test_every_ros2_control_joint_maps_to_a_mujoco_joint_as_upstream_reads_it(roll):
    setup = _setup(f"robot.joint_roll={roll}")
    m = mujoco.MjModel.from_xml_string(ros2_control_mjcf(setup))
    for name, commands in _ros2_control_joints("koopaee6").items():
        joint = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
        assert joint >= 0, name
        driving = [a for a in range(m.nu) if m.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_JOINT
                   and m.actuator_trnid[a, 0] == joint]
        if commands:  # motor_<j>: effort, on an actuator without bias (MOTOR), force = ctrl
            assert commands == ["effort"] and len(driving) == 1, name
            a = driving[0]
            assert m.actuator_biastype[a] == mujoco.mjtBias.mjBIAS_NONE
            assert m.actuator_gainprm[a, 0] == 1.0 and m.actuator_gear[a, 0] == 1.0
        else:  # spring_<j>: passive
            assert driving == [], name
    assert m.jnt_type[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, BASE_JOINT)] == mujoco.mjtJoint.mjJNT_FREE
    assert mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, START_KEYFRAME) >= 0


def test_the_motor_pd_moves_from_mujoco_actuators_to_ros2_control_and_the_motor_damping():
    setup = _setup()
    suite, ours = setup.model.mj, mujoco.MjModel.from_xml_string(ros2_control_mjcf(setup))
    kd = setup.robot.actuator.kd
    motors = setup.model.motor_dof
    act = setup.robot.actuator
    assert np.allclose(ours.dof_damping[motors], kd)
    assert np.allclose(suite.dof_damping[motors], act.stall_torque / act.max_speed)  # the torque–speed line's slope
    others = np.setdiff1d(np.arange(ours.nv), motors)
    assert np.allclose(ours.dof_damping[others], suite.dof_damping[others])
    for field in ("body_mass", "body_inertia", "jnt_stiffness", "jnt_range", "geom_friction", "opt.timestep"):
        obj_s, obj_o = suite, ours
        for part in field.split("."):
            obj_s, obj_o = getattr(obj_s, part), getattr(obj_o, part)
        assert np.array_equal(obj_s, obj_o), field


def test_the_start_keyframe_is_where_the_suite_runtime_starts():
    setup = _setup()
    m = mujoco.MjModel.from_xml_string(ros2_control_mjcf(setup))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, START_KEYFRAME))
    assert np.array_equal(d.qpos, start_qpos(setup))
    assert d.qpos[3] < 1.0  # the scenario's perturbation (a roll) is in it


@dataclasses.dataclass(eq=False)
class PidOnMotorJoints(MujocoSetup):
    """The suite's loop on the exported model, the motor PD as the ros2_control graph closes it at one
    controller_manager update per step: pid_controller's effort K_p (β_d − β) + K_D β̇_d (config/controllers/
    <robot>_gz.yaml), the −K_D β̇ the motor hinge's damping."""

    def step(self, data: mm.MujocoData, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None:
        act = self.robot.actuator
        data.mj.ctrl[:] = act.kp * (beta_d - mm.beta(self.model, data)) + act.kd * beta_d_dot
        mm.step(self.model, data)


@pytest.mark.parametrize("h", [H, H / 2])
def test_the_pedal_wave_on_the_exported_model_progresses_as_on_the_suite_model(h):
    """Same robot, world, gait and controllers; the only difference is the motor PD's K_p term, explicit (one
    update per step) instead of MuJoCo's implicit actuator bias: progress within 3 % over 3 periods, at the
    launch's step and at half of it."""
    setup = _setup(h=h)
    xml = ros2_control_mjcf(setup)
    exported = dataclasses.replace(setup.model, xml=xml, mj=mujoco.MjModel.from_xml_string(xml))
    other = PidOnMotorJoints(**{f.name: getattr(setup, f.name) for f in dataclasses.fields(setup)})
    other.model = exported
    duration = 6.0
    suite, ours = simulate(setup, duration), simulate(other, duration)
    assert suite.status == ours.status == "ok"
    progress = [log.com[-1, 0] - log.com[0, 0] for log in (suite, ours)]
    assert progress[0] > 0.1  # the robot moves head first (> 10 cm in 6 s)
    assert progress[1] == pytest.approx(progress[0], rel=0.03)


def test_snake_sim_mjcf_writes_the_file_and_names_a_bad_robot(tmp_path, capsys):
    out = tmp_path / "snake.xml"
    assert main(["mjcf", "--set", "world.file=stairs", "--out", str(out)]) == 0
    m = mujoco.MjModel.from_xml_path(str(out))
    assert m.nu == 5 and any(m.geom(i).name.startswith("box_") for i in range(m.ngeom))
    assert main(["mjcf", "--suite", "--out", str(out)]) == 0
    assert mujoco.MjModel.from_xml_path(str(out)).nkey == 0
    assert main(["mjcf", "--set", "robot.name=ariizumi10"]) == 2
    assert "robot.name" in capsys.readouterr().err


def test_the_description_for_mujoco_needs_the_mjcf_file():
    with pytest.raises(xacro.XacroException, match="mujoco_model"):
        xacro.process_file(str(locator.description_dir() / "urdf" / "snake.urdf.xacro"),
                           mappings={"hardware": "mujoco"})


ROBOTS = sorted(p.stem for p in (locator.description_dir() / "config" / "robots").glob("*.yaml"))
WORLDS = sorted(p.stem for p in (locator.description_dir() / "worlds").glob("*.sdf"))


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("robot", ROBOTS)
def test_the_exported_mjcf_of_every_robot_and_world_loads_in_jazzys_mujoco(robot, world):
    """One MuJoCo: the MJCF the suite exports (the runtime's and mujoco_ros2_control's) loads and steps in the MuJoCo
    that requirements.txt pins, Jazzy's mujoco_vendor's; a robot without SEAs or a world with moving boxes is
    refused in one line, never half-built."""
    (pinned,) = re.findall(r"^mujoco==(\S+)", (Path(__file__).resolve().parents[3] / "requirements.txt").read_text(),
                           flags=re.M)
    assert mujoco.__version__ == pinned
    scenario = load_scenario(SCENARIO, [f"robot.name={robot}", f"world.file={world}", "sim.perturbation.roll_deg=0",
                                        "sim.perturbation.joint_noise_deg=0"])
    try:
        setup = build(scenario)
    except ConfigError as error:
        assert ("needs a robot with SEAs" in str(error) and load_robot(robot).sea is None) or \
            "static boxes only" in str(error)
        return
    for xml in (setup.model.xml, ros2_control_mjcf(setup)):
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        if m.nkey:
            mujoco.mj_resetDataKeyframe(m, d, 0)
        mujoco.mj_step(m, d, 50)
        assert np.isfinite(d.qpos).all() and m.opt.integrator == mujoco.mjtIntegrator.mjINT_IMPLICITFAST
