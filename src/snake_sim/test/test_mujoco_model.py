"""The MuJoCo model against independent references (issue 15 items 6, 7): Pinocchio's mass matrix of the
xacro URDF, the vertical-plane model's static sag, the worlds' SDF poses, the URDF loaded by MuJoCo itself."""

from __future__ import annotations

import dataclasses
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
from snake_core.actuator import motor_pd
from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_core.vertical import build_model as vertical_model
from snake_core.vertical import compute_terms, point_jacobians
from snake_sim.core.scenario import load_scenario
from snake_sim.core.world import World, load_world
from snake_sim.engines.dart import runtime as dart_runtime
from snake_sim.engines.engine3d import Layout, layout_from
from snake_sim.engines.mujoco import model as mm
from snake_sim.engines.mujoco import runtime
from snake_sim.engines.mujoco.mjcf import motor_armature
from snake_sim.engines.mujoco.settings import Settings
from snake_sim.engines.vertical.model import build as vertical_build

NOWHERE = World("empty", Path("empty.sdf"), None, (), ())  # no ground, no boxes: the robot alone
#: Layouts of the cross-checks (robot section keys): the three joint rolls, and an asymmetric robot (each joint
#: twisted differently, every centre of mass off the axis in all three directions).
LAYOUTS = {"0": {"joint_roll": 0}, "90": {"joint_roll": 90}, "alternate": {"joint_roll": "alternate"},
           "twisted-offset": {"joint_roll": "alternate", "joint_twist_deg": [7.0, -12.0, 3.5, 20.0, -4.0],
                              "com_offset": [0.006, -0.004, 0.009]}}


def _layout(name: str) -> Layout:
    return layout_from(LAYOUTS[name], load_robot("koopaee6"))


def _urdf(tmp_path: Path, name: str) -> Path:
    doc = xacro.process_file(str(locator.description_dir() / "urdf" / "snake.urdf.xacro"),
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
    for j in range(1, robot.n_joints + 1):  # a URDF has no armature: the motor's reflected rotor, n² J_r in all
        pmodel.armature[pmodel.joints[pmodel.getJointId(f"motor_{j}")].idx_v] = motor_armature(robot)
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
        M_u[model.motor_dof - 6, model.motor_dof - 6] += motor_armature(robot)  # the URDF has no armature
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


@pytest.mark.parametrize("name", sorted(p.stem for p in (locator.description_dir() / "worlds").glob("*.sdf")
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


# --- the robot as 002 built it: Table 3.1's servo, the ±60° joint limit, Table 3.2's mass, the module's shape ---

def _stl_triangles(path: Path) -> np.ndarray:
    """(T, 3, 3) vertices of a binary STL."""
    raw = path.read_bytes()
    n = int.from_bytes(raw[80:84], "little")
    rec = np.dtype([("normal", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])
    return np.frombuffer(raw[84:84 + n * rec.itemsize], dtype=rec)["v"].astype(float)


def _solid_inertia(tri: np.ndarray, mass: float) -> tuple[np.ndarray, np.ndarray]:
    """Centre of mass and inertia tensor about it of the closed surface ``tri`` filled with ``mass`` uniformly:
    the sum over signed tetrahedra (origin, a, b, c), ∫ x xᵀ dV = det/120 (Σ v vᵀ + s sᵀ), s = a + b + c."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    det = np.einsum("ij,ij->i", a, np.cross(b, c))
    volume = det.sum() / 6.0
    com = (det[:, None] * (a + b + c)).sum(0) / (24.0 * volume)
    s = a + b + c
    second = np.einsum("t,tij->ij", det / 120.0, np.einsum("ti,tj->tij", a, a) + np.einsum("ti,tj->tij", b, b)
                       + np.einsum("ti,tj->tij", c, c) + np.einsum("ti,tj->tij", s, s))
    cov = mass / volume * second - mass * np.outer(com, com)
    return com, np.trace(cov) * np.eye(3) - cov


def test_link_inertia_is_the_modules_mesh_filled_uniformly_as_mujoco_computes_it():
    """The robot file's links.inertia_tensor (the 3-D engines' link inertia) = the scaled octagonal mesh filled with
    m_l, by signed tetrahedra here and by MuJoCo's own inertia of a mesh geom; several times 002's planar J_l."""
    robot = load_robot("koopaee6")
    scale = np.array([robot.link_length, robot.module_width, robot.module_width])
    com, inertia = _solid_inertia(_stl_triangles(locator.description_dir() / "urdf" / "meshes" / "octagonal_module.stl")
                                  * scale, robot.link_mass)
    assert com == pytest.approx([robot.half_length, 0.0, 0.0], abs=1e-12)
    assert inertia == pytest.approx(np.diag(inertia.diagonal()), abs=1e-15)
    assert robot.inertia_tensor == pytest.approx(inertia.diagonal(), rel=2e-5)
    m = mujoco.MjModel.from_xml_string(
        f'<mujoco><compiler meshdir="{locator.description_dir() / "urdf" / "meshes"}"/><asset><mesh name="m" '
        f'file="octagonal_module.stl" scale="{scale[0]} {scale[1]} {scale[2]}"/></asset><worldbody><body>'
        f'<freejoint/><geom type="mesh" mesh="m" mass="{robot.link_mass}"/></body></worldbody></mujoco>')
    assert m.body_ipos[1] == pytest.approx(com, abs=1e-9)
    assert sorted(m.body_inertia[1]) == pytest.approx(sorted(inertia.diagonal()), rel=1e-6)
    assert min(robot.inertia_tensor) > 5 * robot.link_inertia  # 002's 1.52e-5 is no solid module's moment


def test_another_module_width_reading_scales_the_mesh_and_its_inertia_as_mujoco_computes_them():
    """robot.module_width (MuJoCo): 68 mm read across the octagon's corners is 68 cos(π/8) mm across flats; the
    built model's mesh is scaled to it and its links carry the inertia of that shape (MuJoCo's own inertia of the
    mesh geom, same mass); DART, which builds the robot file's URDF, refuses the key."""
    robot = load_robot("koopaee6")
    width = robot.module_width * math.cos(math.pi / 8)
    plain = runtime.build(load_scenario("open-loop-flat-3d")).model
    setup = runtime.build(load_scenario("open-loop-flat-3d", [f"robot.module_width={width!r}"]))
    m = setup.model.mj
    scale = np.array([robot.link_length, width, width])
    own = mujoco.MjModel.from_xml_string(
        f'<mujoco><compiler meshdir="{locator.description_dir() / "urdf" / "meshes"}"/><asset><mesh name="m" '
        f'file="octagonal_module.stl" scale="{scale[0]} {scale[1]} {scale[2]}"/></asset><worldbody><body>'
        f'<freejoint/><geom type="mesh" mesh="m" mass="{robot.link_mass}"/></body></worldbody></mujoco>')
    body = setup.model.link_body[0]
    assert sorted(m.body_inertia[body]) == pytest.approx(sorted(own.body_inertia[1]), rel=1e-4)
    assert m.body_mass[body] == pytest.approx(robot.link_mass)
    assert _module_radius(m, body) / _module_radius(plain.mj, body) == pytest.approx(math.cos(math.pi / 8), rel=1e-6)
    with pytest.raises(ConfigError, match=r"robot\.module_width"):
        dart_runtime.build(load_scenario("open-loop-flat-3d", ["model=dart", f"robot.module_width={width!r}"]))


def _module_radius(m: mujoco.MjModel, body: int) -> float:
    """Largest distance of the body's collision mesh from the link axis (the body's x axis) [m]; MuJoCo keeps a
    mesh in its own inertial frame, placed in the body by the geom's pose."""
    geom = next(g for g in range(m.ngeom) if m.geom_bodyid[g] == body and m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH)
    mesh = m.geom_dataid[geom]
    vert = m.mesh_vert[m.mesh_vertadr[mesh]:m.mesh_vertadr[mesh] + m.mesh_vertnum[mesh]].astype(float)
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, m.geom_quat[geom])
    in_body = vert @ rot.reshape(3, 3).T + m.geom_pos[geom]
    return float(np.hypot(in_body[:, 1], in_body[:, 2]).max())


def test_total_mass_is_table_3_2s_956_g():
    model = mm.build_model(load_robot("koopaee6"), world=NOWHERE, settings=Settings())
    assert model.mj.body_mass.sum() == pytest.approx(0.956, abs=1e-6)


def _run_motor(robot, joint: int, beta_d: float, duration: float, h: float, gravity: float = 0.0):
    """β̇ and U of ``joint`` (0-based) driven from −60° towards ``beta_d`` from rest, the robot floating."""
    model = mm.build_model(robot, world=NOWHERE, settings=Settings(time_step=h, gravity=gravity))
    data = model.create_data()
    start = np.zeros(robot.n_joints)
    start[joint] = -robot.joint_limit
    mm.place(model, data, (0.0, 0.0, 1.0), alpha=start)
    target = np.zeros(robot.n_joints)
    target[joint] = beta_d
    speed, torque = [], []
    for _ in range(round(duration / h)):
        mm.command(model, data, target, np.zeros(robot.n_joints))
        mm.step(model, data)
        speed.append(mm.beta_dot(model, data)[joint])
        torque.append(mm.motor_torque(model, data)[joint])
    return np.array(speed), np.array(torque)


@pytest.mark.parametrize("h", [0.002, 0.001])
def test_motor_gives_the_stall_torque_at_rest_and_stays_on_the_torque_speed_line(h):
    """002 Table 3.1: a command far beyond the PD's linear range gives U = τ_s = 1.18 N·m from rest, then U on the
    line τ_s (1 − β̇/ω_0), never above it; within the line U is (4.39) unchanged."""
    robot = load_robot("koopaee6")
    act = robot.actuator
    speed, torque = _run_motor(robot, 2, 10.0, 0.3, h)
    before = np.concatenate([[0.0], speed[:-1]])  # U of a step is evaluated at the state it starts from
    assert torque[0] == act.stall_torque and speed.max() > 0.5 * act.max_speed
    assert torque == pytest.approx(act.stall_torque * (1.0 - before / act.max_speed), abs=1e-9)
    setup_u = motor_pd(robot, saturate=True)
    model = mm.build_model(robot, world=NOWHERE, settings=Settings(time_step=h))
    data = model.create_data()
    rng = np.random.default_rng(5)
    for beta_dot in (np.full(5, 3.0), rng.uniform(-6.0, 6.0, 5)):
        data.mj.qvel[model.motor_dof] = beta_dot
        beta_d, beta_d_dot = rng.normal(scale=0.02, size=5), rng.normal(size=5)
        mm.command(model, data, beta_d, beta_d_dot)
        mujoco.mj_forward(model.mj, data.mj)
        u, _ = setup_u.torque(mm.beta(model, data), beta_dot, beta_d, beta_d_dot)
        assert mm.motor_torque(model, data) == pytest.approx(u, abs=1e-9)


@pytest.mark.parametrize("h", [0.002, 0.001])
def test_an_unloaded_motor_runs_up_to_the_no_load_speed_and_not_beyond(h):
    """002 Table 3.1's 6.30 rad/s: with links of negligible inertia (the motor drives its reflected rotor n² J_r
    only) a command far ahead runs β̇ up to ω_0 (within 2 % over the 120° travel) and never past it. Without the
    armature the clamped motor would spin the tiny rotor far beyond it. The links' 1e-4 kg m² (0.6 % of n² J_r)
    keeps the springs' modes below 140 rad/s: MuJoCo's integrators take joint stiffness explicitly (ω h < 2)."""
    robot = load_robot("koopaee6")
    light = dataclasses.replace(robot, link_mass=1e-6, link_inertia_tensor=(1e-4,) * 3,
                                actuator=dataclasses.replace(robot.actuator, rotor_mass=1e-6))
    speed, _ = _run_motor(light, 2, 10.0, 0.35, h)
    assert speed.max() <= robot.actuator.max_speed
    assert speed.max() >= 0.98 * robot.actuator.max_speed


@pytest.mark.parametrize("h", [0.002, 0.001])
def test_joint_angle_alpha_stays_within_60_degrees_under_a_command_beyond_it(h):
    """002 Table 3.2's ±60° on the joint angle α = β + spring deflection (a tendon limit): motors driven to ±80° in
    a travelling pattern on the ground keep |α| within 60° up to the constraint's softness (1.5°); without the limit
    α reaches 72–73° (β at its ±60° plus the spring's deflection)."""
    robot = load_robot("koopaee6")
    model = mm.build_model(robot, world=load_world("flat"), settings=Settings(time_step=h))
    data = model.create_data()
    mm.place(model, data, (0.0, 0.0, 0.5 * robot.module_width))
    worst = 0.0
    for k in range(round(3.0 / h)):
        beta_d = math.radians(80.0) * np.sign(np.sin(math.pi * k * h + 1.2 * np.arange(robot.n_joints)))
        mm.command(model, data, beta_d, np.zeros(robot.n_joints))
        mm.step(model, data)
        worst = max(worst, float(np.abs(mm.alpha(model, data)).max()))
    assert math.radians(58.0) < worst <= robot.joint_limit + math.radians(1.5)


def _self_contacts(model: mm.MujocoModel, data: mm.MujocoData) -> int:
    m, d = model.mj, data.mj
    robot_body = set(model.link_body.tolist())
    return sum(m.geom_bodyid[c.geom1] in robot_body and m.geom_bodyid[c.geom2] in robot_body
               for c in d.contact[:d.ncon])


def test_self_collision_is_on_and_neighbouring_modules_do_not_touch():
    """Links collide with each other except neighbours (which meet at their joint): a body curled by 60° at every
    joint touches itself; the straight body at rest and the reference gait's run never do."""
    robot = load_robot("koopaee6")
    model = mm.build_model(robot, world=NOWHERE, settings=Settings())
    data = model.create_data()
    mm.place(model, data, (0.0, 0.0, 1.0), alpha=np.full(robot.n_joints, robot.joint_limit))
    assert _self_contacts(model, data) > 0
    mm.place(model, data, (0.0, 0.0, 1.0))
    assert _self_contacts(model, data) == 0
    setup = runtime.build(load_scenario("open-loop-flat-3d", ["sim.duration=6"]))
    data = setup.model.create_data()
    mm.place(setup.model, data, (0.0, 0.0, setup.model.world.ground_height + 0.5 * robot.module_width))
    counts = []
    for k in range(round(6.0 / setup.control_period)):
        alpha_d, alpha_d_dot = setup.gait.reference(k * setup.control_period)  # open loop: β_d = α_d
        for _ in range(setup.substeps):
            setup.step(data, alpha_d, alpha_d_dot)
            counts.append(_self_contacts(setup.model, data))
    assert max(counts) == 0


def test_the_motor_kp_field_sets_the_pd_gain_of_4_39_on_mujoco_and_the_vertical_model():
    """robot.motor_kp replaces the robot file's actuator.kp in 002 (4.39): MuJoCo's actuator gain and affine bias
    −K_p β, the vertical model's motor PD; a K_p ≤ 0 is one error naming the field."""
    setup = runtime.build(load_scenario("open-loop-flat-3d", ["robot.motor_kp=42.5"]))
    m = setup.model.mj
    assert setup.robot.actuator.kp == 42.5
    np.testing.assert_array_equal(m.actuator_gainprm[:, 0], 42.5)
    np.testing.assert_array_equal(m.actuator_biasprm[:, 1], -42.5)
    assert runtime.build(load_scenario("open-loop-flat-3d")).model.mj.actuator_gainprm[0, 0] == \
        load_robot("koopaee6").actuator.kp
    assert vertical_build(load_scenario("pedal-wave", ["robot.motor_kp=42.5"])).plant.pd.kp == 42.5
    for build, name in ((runtime.build, "open-loop-flat-3d"), (vertical_build, "pedal-wave")):
        with pytest.raises(ConfigError, match=r"robot\.motor_kp = -1"):
            build(load_scenario(name, ["robot.motor_kp=-1"]))
