"""The MuJoCo model against independent references (issue 15 items 6, 7): Pinocchio's mass matrix of the
xacro URDF, the vertical-plane model's static sag, the worlds' SDF poses, the URDF loaded by MuJoCo itself."""

from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pinocchio as pin
import pytest
import xacro
from scipy.linalg import null_space
from scipy.optimize import root

from snake_core import locator
from snake_core.robot import load_robot
from snake_core.vertical import build_model as vertical_model
from snake_core.vertical import compute_terms, point_jacobians
from snake_sim.core.world import World, load_world
from snake_sim.engines.engine3d import Layout, layout_from
from snake_sim.engines.mujoco import model as mm
from snake_sim.engines.mujoco.settings import Settings

NOWHERE = World("empty", Path("empty.sdf"), None, (), ())  # no ground, no boxes: the robot alone
#: Layouts of the cross-checks (robot section keys): the three joint rolls, and an asymmetric robot (each joint
#: twisted differently, every centre of mass off the axis in all three directions).
LAYOUTS = {"0": {"joint_roll": 0}, "90": {"joint_roll": 90}, "alternate": {"joint_roll": "alternate"},
           "twisted-offset": {"joint_roll": "alternate", "joint_twist_deg": [7.0, -12.0, 3.5, 20.0, -4.0],
                              "com_offset": [0.006, -0.004, 0.009]}}


def _layout(name: str) -> Layout:
    return layout_from(LAYOUTS[name], load_robot("koopaee6"))


def _urdf(tmp_path: Path, name: str) -> Path:
    doc = xacro.process_file(str(locator.data_dir() / "urdf" / "snake.urdf.xacro"),
                             mappings={"robot": "koopaee6", **_layout(name).xacro_args()})
    path = tmp_path / f"snake_{name}.urdf"
    path.write_text(doc.toprettyxml(indent="  "), encoding="utf-8")
    return path


def _random_pose(model: mm.MujocoModel, rng: np.random.Generator) -> np.ndarray:
    r = model.robot
    q = np.zeros(model.mj.nq)
    q[:3] = rng.uniform(-1, 1, 3)
    quat = rng.normal(size=4)
    q[3:7] = quat / np.linalg.norm(quat)
    q[model.motor_qpos] = rng.uniform(-r.joint_limit, r.joint_limit, r.n_joints)
    q[model.spring_qpos] = rng.uniform(-r.sea.deflection_limit, r.sea.deflection_limit, r.n_joints)
    return q


@pytest.mark.parametrize("layout", LAYOUTS)
def test_mass_matrix_equals_pinocchios_from_the_xacro_urdf(layout, tmp_path):
    """MuJoCo's M(q) of the MJCF built from the YAML = Pinocchio's CRBA of the xacro URDF of the same YAML and
    layout (joint roll, twist, centre-of-mass offset), at random poses: M_mj = Sᵀ M_pin S, S mapping MuJoCo's
    free-joint velocity (world linear) to Pinocchio's (local)."""
    robot = load_robot("koopaee6")
    model = mm.build_model(robot, world=NOWHERE, settings=Settings(), layout=_layout(layout))
    data = model.create_data()
    pmodel = pin.buildModelFromUrdf(str(_urdf(tmp_path, layout)), pin.JointModelFreeFlyer())
    pdata = pmodel.createData()
    assert pmodel.nv == model.mj.nv
    rng = np.random.default_rng(15)
    worst = 0.0
    for _ in range(10):
        q = _random_pose(model, rng)
        data.mj.qpos[:] = q
        M = mm.mass_matrix(model, data)
        w, x, y, z = q[3:7]
        q_pin = np.concatenate([q[:3], [x, y, z, w], q[7:]])
        M_pin = pin.crba(pmodel, pdata, q_pin)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        S = np.eye(model.mj.nv)
        S[:3, :3] = pin.Quaternion(w, x, y, z).toRotationMatrix().T
        worst = max(worst, np.linalg.norm(M - S.T @ M_pin @ S) / np.linalg.norm(M))
    assert worst < 1e-9


def test_xacro_urdf_loads_into_mujoco_with_the_yamls_numbers(tmp_path):
    """Item 7: mujoco.MjModel.from_xml_path on the xacro output (its <mujoco> block finds the binary STL); the
    fixed-base URDF model's joint-space mass matrix is the joint block of the MJCF model's."""
    robot = load_robot("koopaee6")
    urdf = mujoco.MjModel.from_xml_path(str(_urdf(tmp_path, "alternate")))
    model = mm.build_model(robot, world=NOWHERE, settings=Settings(), layout=_layout("alternate"))
    assert urdf.nv == model.mj.nv - 6 and urdf.nmesh == 1
    names = [urdf.joint(i).name for i in range(urdf.njnt)]
    assert names == [f"{k}_{j}" for j in range(1, robot.n_joints + 1) for k in ("motor", "spring")]
    assert urdf.jnt_range[0] == pytest.approx([-robot.joint_limit, robot.joint_limit])
    assert urdf.jnt_range[1] == pytest.approx([-robot.sea.deflection_limit, robot.sea.deflection_limit])
    assert urdf.body_mass.sum() == pytest.approx(model.mj.body_mass.sum(), rel=1e-12)
    rng = np.random.default_rng(7)
    data, udata = model.create_data(), mujoco.MjData(urdf)
    for _ in range(5):
        q = _random_pose(model, rng)
        data.mj.qpos[:] = q
        udata.qpos[:] = q[7:]
        mujoco.mj_forward(urdf, udata)
        M_u = np.zeros((urdf.nv, urdf.nv))
        mujoco.mj_fullM(urdf, udata, M_u)
        assert M_u == pytest.approx(mm.mass_matrix(model, data)[6:, 6:], rel=1e-9, abs=1e-15)


# --- static sag: the robot held at its middle link, motors at β_d = 0, under gravity -------------------------

def _mujoco_sag(robot, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(α, β) at rest with link k clamped horizontally: N_kᵀ (passive + actuator − bias) = 0, N_k spanning the
    motions that keep link k still (the clamp's wrench does no work on them)."""
    model = mm.build_model(robot, world=NOWHERE, settings=Settings())
    m, d = model.mj, model.create_data().mj
    body = int(model.link_body[k - 1])
    joints = np.concatenate([model.motor_qpos, model.spring_qpos])

    def residual(x: np.ndarray) -> np.ndarray:
        d.qpos[:] = 0.0
        d.qpos[3] = 1.0
        d.qpos[joints] = x
        mujoco.mj_kinematics(m, d)
        R, p = d.xmat[body].reshape(3, 3), d.xpos[body]
        d.qpos[:3] = -R.T @ p  # base moved so that link k's frame is the world's
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, R.T.flatten())
        d.qpos[3:7] = quat
        d.qvel[:] = 0.0
        mujoco.mj_forward(m, d)
        jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
        mujoco.mj_jacBody(m, d, jacp, jacr, body)
        f = d.qfrc_passive + d.qfrc_actuator - d.qfrc_bias
        return null_space(np.vstack([jacp, jacr])).T @ f

    sol = root(residual, np.zeros(joints.size), tol=1e-13)
    assert np.abs(sol.fun).max() < 1e-13
    beta = sol.x[: robot.n_joints]
    return beta + sol.x[robot.n_joints:], beta


def _vertical_sag(robot, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The same rest pose of snake_core's vertical model: f + 𝔹U of (4.35) with U = −K_p β (4.39), projected
    on the motions that keep link k's centre and angle still."""
    vm = vertical_model(robot)
    n, kp = vm.n_links, robot.actuator.kp

    def residual(x: np.ndarray) -> np.ndarray:
        q = np.zeros(vm.n_q)
        q[vm.i_alpha], q[vm.i_beta] = x[: n - 1], x[n - 1:]
        q[vm.i_theta] = -x[k - 1: n - 1].sum()  # θ_k = Σ_{i≥k} α_i + θ_N = 0
        th = vm.T @ q[:n]
        q[vm.i_px], q[vm.i_pz] = -vm.G_l[k - 1] @ np.cos(th), -vm.G_l[k - 1] @ np.sin(th)  # link k's centre at 0
        f = compute_terms(vm, vm.create_data(), q, np.zeros(vm.n_q)).f.copy()
        f[vm.i_beta] += -kp * q[vm.i_beta]
        Jx, Jz = point_jacobians(vm, q, vm.G_l)
        J_theta = np.zeros(vm.n_q)
        J_theta[:n] = vm.T[k - 1]
        return null_space(np.vstack([Jx[k - 1], Jz[k - 1], J_theta])).T @ f

    sol = root(residual, np.zeros(2 * (n - 1)), tol=1e-13)
    assert np.abs(sol.fun).max() < 1e-13
    return sol.x[: n - 1], sol.x[n - 1:]


def test_static_sag_of_each_joint_equals_the_vertical_models():
    """koopaee6 held by its 3rd link: both halves hang as cantilevers; every joint's α and β (and so
    τ = K(α − β)) at rest equal the vertical-plane model's. Deflections up to ~18°, below the 21° limit."""
    robot = load_robot("koopaee6")
    alpha, beta = _mujoco_sag(robot, 3)
    alpha_v, beta_v = _vertical_sag(robot, 3)
    deflection = np.degrees(np.abs(alpha - beta))
    assert deflection.max() < math.degrees(robot.sea.deflection_limit) and deflection.min() > 1.0
    assert alpha == pytest.approx(alpha_v, abs=1e-9)
    assert beta == pytest.approx(beta_v, abs=1e-9)


@pytest.mark.parametrize("name", sorted(p.stem for p in (locator.data_dir() / "worlds").glob("*.sdf")
                                        if p.stem != "pushing"))
def test_every_shipped_worlds_boxes_are_at_the_sdfs_poses(name):
    """Item 6: each static box of worlds/<name>.sdf is a MuJoCo box geom at its pose, size and μ; the ground
    plane at its height with μ_c."""
    world = load_world(name)
    settings = Settings(friction=0.7)
    model = mm.build_model(load_robot("koopaee6"), world=world, settings=settings)
    m, d = model.mj, model.create_data().mj
    mujoco.mj_forward(m, d)
    boxes = [i for i in range(m.ngeom) if m.geom_type[i] == mujoco.mjtGeom.mjGEOM_BOX]
    assert len(boxes) == len(world.static_boxes)
    for i, b in zip(boxes, world.static_boxes, strict=True):
        assert d.geom_xpos[i] == pytest.approx(b.center, abs=1e-12)
        assert 2 * m.geom_size[i] == pytest.approx(b.size, abs=1e-12)
        yaw = math.atan2(d.geom_xmat[i][3], d.geom_xmat[i][0])
        assert yaw == pytest.approx(b.yaw, abs=1e-12)
        assert m.geom_friction[i][0] == (settings.friction if b.friction is None else b.friction)
    plane = [i for i in range(m.ngeom) if m.geom_type[i] == mujoco.mjtGeom.mjGEOM_PLANE]
    assert len(plane) == (world.ground_height is not None)
    for i in plane:
        assert d.geom_xpos[i][2] == world.ground_height and m.geom_friction[i][0] == settings.friction


def test_the_pushing_worlds_moving_box_is_refused_naming_the_world():
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match=r"world\.file = .*pushing\.sdf.* static boxes only; moving: "):
        mm.build_model(load_robot("koopaee6"), world=load_world("pushing"), settings=Settings())


def test_a_robot_without_seas_is_refused_naming_the_robot():
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match=r"robot\.name = 'ariizumi10' is invalid: the MuJoCo model needs a robot "
                                          r"with SEAs"):
        mm.build_model(load_robot("ariizumi10"), world=NOWHERE, settings=Settings())
