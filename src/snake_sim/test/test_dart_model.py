"""The DART model (issue 18 item 5): the robot as Gazebo builds it, checked against Pinocchio, the robot file,
the shipped Gazebo configuration and the worlds' SDF."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest

from snake_core import locator
from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_sim.core.world import load_world
from snake_sim.engines.dart import gz_control as gz
from snake_sim.engines.dart import model as dm
from snake_sim.engines.dart import sdf as dsdf
from snake_sim.engines.dart.settings import Settings, settings_from
from snake_sim.engines.engine3d import layout_from


@pytest.fixture(scope="module")
def koopaee6() -> dsdf.SdfModel:
    try:
        return dsdf.gazebo_model("koopaee6")
    except ConfigError as exc:  # no g++ / libsdformat on this machine
        pytest.skip(str(exc))


def _model(sdf: dsdf.SdfModel, world: str = "flat") -> dm.DartModel:
    return dm.build_model(load_robot("koopaee6"), world=load_world(world), settings=Settings(), sdf=sdf)


#: An asymmetric robot (robot section keys): each joint twisted differently, the centres of mass off the axis.
ASYMMETRIC = {"joint_roll": "alternate", "joint_twist_deg": [7.0, -12.0, 3.5, 20.0, -4.0],
              "com_offset": [0.006, -0.004, 0.009]}


@pytest.mark.parametrize("section", [{}, ASYMMETRIC], ids=["straight", "twisted-offset"])
def test_mass_matrix_equals_pinocchios_from_the_same_urdf(koopaee6, section):
    """DART's M(q) of the robot Gazebo builds (URDF → SDF, with the layout's joint roll, twist and centre-of-mass
    offset) = Pinocchio's CRBA of the same URDF."""
    robot = load_robot("koopaee6")
    layout = layout_from(section, robot)
    sdf = dsdf.gazebo_model("koopaee6", layout) if section else koopaee6
    model = dm.build_model(robot, world=load_world("flat"), settings=Settings(), sdf=sdf, layout=layout)
    data = model.create_data()
    pm = pin.buildModelFromXML(dsdf.gazebo_urdf("koopaee6", layout), pin.JointModelFreeFlyer())
    pd = pm.createData()
    rng = np.random.default_rng(3)
    for _ in range(5):
        R = pin.rpy.rpyToMatrix(*rng.uniform(-math.pi, math.pi, 3))
        p, joints = rng.uniform(-1, 1, 3), rng.uniform(-0.3, 0.3, pm.nv - 6)
        data.skeleton.setPositions(np.concatenate([pin.log3(R), p, joints]))
        assert data.links[0].getWorldTransform().matrix() == pytest.approx(pin.SE3(R, p).homogeneous, abs=1e-12)
        q = np.concatenate([p, pin.Quaternion(R).coeffs(), joints])
        M_pin = pin.crba(pm, pd, q)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        # DART's FreeJoint velocities → Pinocchio's (link_1's body twist, linear first): link_1's Jacobian
        T = np.eye(pm.nv)
        J = data.links[0].getJacobian(np.zeros(3))[:, :6]  # (ω; v) in link_1's frame
        T[:6, :6] = np.vstack([J[3:], J[:3]])
        M = dm.mass_matrix(data)
        assert np.abs(M - T.T @ M_pin @ T).max() <= 1e-9 * np.abs(M).max()


def test_robot_mass_and_joints_are_the_yamls_as_gazebo_applies_them(koopaee6):
    r = load_robot("koopaee6")
    data = _model(koopaee6).create_data()
    skel = data.skeleton
    # libsdformat lumps the massless head_tip (a URDF loader would give it DART's default 1 kg)
    assert skel.getMass() == pytest.approx(r.n_links * r.link_mass + r.n_joints * r.actuator.rotor_mass, rel=1e-12)
    assert skel.getMass() == pytest.approx(0.956, abs=1e-6)  # 002 Table 3.2's total weight
    inertia = skel.getBodyNode("link_2").getInertia()
    assert np.diag(inertia.getMoment()) == pytest.approx(r.inertia_tensor, rel=1e-12)  # the module mesh's tensor
    assert skel.getNumBodyNodes() == r.n_links + r.n_joints
    for j in range(1, r.n_joints + 1):  # set from the SDF where dartpy's readers miss them
        spring, motor = skel.getJoint(f"spring_{j}"), skel.getJoint(f"motor_{j}")
        assert spring.getSpringStiffness(0) == r.sea.stiffness[j - 1] and spring.getRestPosition(0) == 0.0
        assert spring.getPositionUpperLimit(0) == pytest.approx(r.sea.deflection_limit, rel=1e-12)
        assert motor.getDampingCoefficient(0) == r.actuator.kd and motor.getSpringStiffness(0) == 0.0
        assert motor.getVelocityUpperLimit(0) == r.joint_velocity_limit and motor.areLimitsEnforced()
        assert motor.getPositionLowerLimit(0) == pytest.approx(-r.joint_limit, rel=1e-12)
    link = skel.getBodyNode("link_3").getShapeNode(0)
    assert link.getDynamicsAspect().getFrictionCoeff() == 0.6  # the URDF's mu (μ_c of 002 Table 5.1)


def test_a_pinned_module_oscillates_on_its_spring_at_sqrt_k_over_i(koopaee6):
    r = load_robot("koopaee6")
    model = _model(koopaee6)
    data = model.create_data()
    data.world.setGravity([0.0, 0.0, 0.0])
    skel = data.skeleton
    dm.place(model, data, (0.0, 0.0, 1.0))  # far above the ground
    for k in range(skel.getNumJoints()):  # everything but spring_1 held: links 2…N swing as one body
        joint = skel.getJoint(k)
        if joint.getName() != "spring_1":
            joint.setActuatorType(joint.getActuatorType().LOCKED)
    q0 = 0.1
    skel.setPosition(int(model.spring_dof[0]), q0)
    # moment about spring_1 of links 2…N (centres at l, 3l, …) and rotors 2…N−1 (at 2l, 4l, …), robot file
    two_l, half = r.link_length, r.half_length
    inertia = sum(r.link_inertia + r.link_mass * (two_l * i + half) ** 2 for i in range(r.n_links - 1))
    inertia += sum(r.actuator.rotor_term + r.actuator.rotor_mass * (two_l * j) ** 2 for j in range(1, r.n_joints))
    omega = math.sqrt(r.sea.stiffness[0] / inertia)
    h, q = model.settings.time_step, []
    for _ in range(round(4 * 2 * math.pi / omega / h)):
        dm.step(data)
        q.append(skel.getPosition(int(model.spring_dof[0])))
    q = np.array(q)
    up = np.flatnonzero((q[:-1] < 0) & (q[1:] >= 0))  # upward zero crossings, one per period
    period = np.diff(up).mean() * h
    assert 2 * math.pi / period == pytest.approx(omega, rel=0.01)
    assert np.abs(q).max() == pytest.approx(q0, rel=0.02)  # no damping on the spring


def test_gazebo_configuration_comes_from_the_shipped_files(koopaee6):
    r = load_robot("koopaee6")
    control = gz.load_gz_control(r)
    assert control.path == locator.data_dir() / "config" / "controllers" / "koopaee6_gz.yaml"
    assert control.update_rate == 1000.0 and control.forwards == ("position", "velocity")
    assert control.interfaces == ("position", "velocity") and control.enable_feedforward
    assert all(g == gz.PidGains(p=r.actuator.kp, feedforward_gain=r.actuator.kd) for g in control.gains)
    motor = _model(koopaee6).create_data().skeleton.getJoint("motor_2")
    command_limit = r.actuator.kp * 2 * r.joint_limit + r.actuator.kd * r.joint_velocity_limit
    assert motor.getForceUpperLimit(0) == pytest.approx(command_limit, rel=1e-12)
    assert motor.getForceLowerLimit(0) == pytest.approx(-command_limit, rel=1e-12)


def test_pid_update_is_p_plus_velocity_feed_forward_and_p_only_without_a_velocity_reference():
    control = gz.load_gz_control(load_robot("koopaee6"))
    x, xd = np.full(5, 0.1), np.full(5, 0.5)
    state = gz.activate(control, x)
    gz.forward(control, state, np.full(5, 0.3), np.full(5, 2.0))
    assert gz.update(control, state, x, xd, 1e-3) == pytest.approx(np.full(5, 60.0 * 0.2 + 25.0 * 2.0))
    state = gz.activate(control, x)
    state.reference[:] = 0.3  # β_d only, as the suite's nodes publish it
    assert gz.update(control, state, x, xd, 1e-3) == pytest.approx(np.full(5, 60.0 * 0.2))


def test_a_worlds_friction_reaches_its_box(koopaee6, tmp_path):
    text = (locator.description_dir() / "worlds" / "single_obstacle.sdf").read_text()
    world = tmp_path / "slippery.sdf"
    world.write_text(text.replace("<mu>0.6</mu><mu2>0.6</mu2>", "<mu>0.25</mu><mu2>0.25</mu2>"))
    model = dm.build_model(load_robot("koopaee6"), world=load_world(world), settings=Settings(), sdf=koopaee6)
    ground = model.create_data().world.getSkeleton("world")
    box = ground.getBodyNode("box_0_obstacle").getShapeNode(0)
    assert box.getDynamicsAspect().getFrictionCoeff() == 0.25
    assert ground.getBodyNode("ground_plane").getShapeNode(0).getDynamicsAspect().getFrictionCoeff() == 1.0
    # the box stands where the SDF puts it (0.6487, 0, 0.018)
    assert box.getWorldTransform().translation() == pytest.approx([0.6487, 0.0, 0.018])


def test_bad_input_names_the_field(koopaee6, monkeypatch, tmp_path):
    with pytest.raises(ConfigError, match=r"world\.file"):  # a moving box DART's static world cannot take
        _model(koopaee6, "pushing").create_data()
    with pytest.raises(ConfigError, match=r"contact\.collision_detector"):
        settings_from(0.001, {"collision_detector": "havok"})
    with pytest.raises(ConfigError, match=r"robot\.name"):
        dm.build_model(load_robot("rectilinear6"), world=load_world("flat"), settings=Settings(), sdf=koopaee6)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no cached converter, and no compiler
    monkeypatch.setattr(dsdf.shutil, "which", lambda name: None)
    with pytest.raises(ConfigError, match=r"model.*libsdformat-dev"):
        dsdf.converter()


def _self_contacts(data: dm.DartData) -> int:
    links = {b.getName() for b in data.links}
    result = data.world.getLastCollisionResult()
    return sum(result.getContact(i).collisionObject1.getShapeFrame().getName().rsplit("_collision", 1)[0] in links
               and result.getContact(i).collisionObject2.getShapeFrame().getName().rsplit("_collision", 1)[0] in links
               for i in range(result.getNumContacts()))


def test_self_collision_is_on_and_neighbouring_modules_do_not_touch(koopaee6):
    """As the MuJoCo model: a body curled by 60° at every joint touches itself (link 6 on link 1); the straight body
    and the reference gait on flat ground never do (neighbours, which meet at their joint, are excluded)."""
    from snake_sim.core.scenario import load_scenario
    from snake_sim.engines.dart import runtime

    robot = load_robot("koopaee6")
    model = _model(koopaee6)
    data = model.create_data()
    data.world.setGravity([0.0, 0.0, 0.0])
    dm.place(model, data, (0.0, 0.0, 1.0), alpha=np.full(robot.n_joints, robot.joint_limit))
    dm.step(data)
    assert _self_contacts(data) > 0
    data = model.create_data()
    dm.place(model, data, (0.0, 0.0, 1.0))
    dm.step(data)
    assert _self_contacts(data) == 0
    setup = runtime.build(load_scenario("open-loop-flat-3d", ["model=dart", "sim.time_step=0.001"]))
    run = runtime.DartRun(setup.model.create_data(), None, np.zeros(robot.n_joints), np.zeros(robot.n_joints))
    dm.place(setup.model, run.data, (0.0, 0.0, 0.5 * robot.module_width))
    run.pid = gz.activate(setup.control, dm.beta(setup.model, run.data))
    worst = 0
    for k in range(round(3.0 / setup.control_period)):
        alpha_d, alpha_d_dot = setup.gait.reference(k * setup.control_period)  # open loop: β_d = α_d
        for _ in range(setup.substeps):
            setup.step(run, alpha_d, alpha_d_dot)
            worst = max(worst, _self_contacts(run.data))
    assert worst == 0 and run.diverged_at is None
