"""The 3-D SEA snake on MuJoCo, Pinocchio style: ``model = build_model(robot, world, settings)``,
``data = model.create_data()``, plain functions over them (what a joint module measures, the motor command,
stepping, module roll).

q of MuJoCo: the free base (``link_1``'s tail-side end: position, quaternion w x y z), then per joint j,
tail → head, q(motor_j) = β_j and q(spring_j) = α_j − β_j (see :mod:`.mjcf`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mujoco
import numpy as np

from snake_core.robot import RobotParams

from ..world import World
from .mjcf import mjcf
from .settings import Settings


def _frozen(a: Sequence[int] | np.ndarray) -> np.ndarray:
    a = np.array(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class MujocoModel:
    """The compiled MuJoCo model and the indices of the SEA coordinates in it; never mutated."""

    robot: RobotParams
    world: World
    settings: Settings
    joint_roll: tuple[int, ...]  # 0 (pitch) or 90 (yaw) per joint, tail → head
    xml: str  # the MJCF it was compiled from
    mj: mujoco.MjModel
    link_body: np.ndarray  # (N,) body id of link_i
    motor_qpos: np.ndarray  # (N−1,) qpos address of motor_j (β_j)
    spring_qpos: np.ndarray  # (N−1,) qpos address of spring_j (α_j − β_j)
    motor_dof: np.ndarray  # (N−1,) dof address of motor_j
    spring_dof: np.ndarray  # (N−1,) dof address of spring_j
    stiffness: np.ndarray  # K_j (N−1,) [N·m/rad]

    def create_data(self) -> MujocoData:
        """A fresh workspace at the model's reference pose (base at the origin, body straight)."""
        return MujocoData(mujoco.MjData(self.mj))


@dataclass(eq=False)
class MujocoData:
    """The mutable state and workspace of one simulation (``mujoco.MjData``)."""

    mj: mujoco.MjData


def build_model(robot: RobotParams, world: World, settings: Settings,
                joint_roll: Sequence[int] | None = None) -> MujocoModel:
    """Compile the MJCF of ``robot`` on ``world`` (:func:`.mjcf.mjcf`); ``joint_roll`` default all 0 (pitch)."""
    rolls = tuple(joint_roll) if joint_roll is not None else (0,) * robot.n_joints
    xml = mjcf(robot, world, settings, rolls)
    m = mujoco.MjModel.from_xml_string(xml)
    nj = robot.n_joints

    def joint(name: str) -> int:
        return mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)

    motors = [joint(f"motor_{j}") for j in range(1, nj + 1)]
    springs = [joint(f"spring_{j}") for j in range(1, nj + 1)]
    return MujocoModel(
        robot=robot, world=world, settings=settings, joint_roll=rolls, xml=xml, mj=m,
        link_body=_frozen([mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, f"link_{i}")
                           for i in range(1, robot.n_links + 1)]),
        motor_qpos=_frozen(m.jnt_qposadr[motors]), spring_qpos=_frozen(m.jnt_qposadr[springs]),
        motor_dof=_frozen(m.jnt_dofadr[motors]), spring_dof=_frozen(m.jnt_dofadr[springs]),
        stiffness=_frozen(np.asarray(robot.sea.stiffness, dtype=float)),
    )


def place(model: MujocoModel, data: MujocoData, tail_tip: Sequence[float], roll: float = 0.0,
          alpha: np.ndarray | None = None) -> None:
    """Put the robot at rest: tail tip at ``tail_tip`` [m], the body rolled by ``roll`` [rad] about its axis
    (+x), joint angles α (default 0) with the springs undeflected (β = α)."""
    mj = data.mj
    mujoco.mj_resetData(model.mj, mj)
    mj.qpos[:3] = tail_tip
    mj.qpos[3:7] = (np.cos(0.5 * roll), np.sin(0.5 * roll), 0.0, 0.0)
    mj.qpos[model.motor_qpos] = 0.0 if alpha is None else alpha
    mj.qpos[model.spring_qpos] = 0.0
    mujoco.mj_forward(model.mj, mj)


def command(model: MujocoModel, data: MujocoData, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None:
    """Motor reference of the PD 002 (4.39): ctrl = β_d + (K_D/K_p) β̇_d (see :mod:`.mjcf`)."""
    act = model.robot.actuator
    data.mj.ctrl[:] = beta_d + (act.kd / act.kp) * beta_d_dot


def step(model: MujocoModel, data: MujocoData, n: int = 1) -> None:
    """Advance ``n`` time steps of ``settings.time_step``."""
    mujoco.mj_step(model.mj, data.mj, n)


def alpha(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """α_j = β_j + (α_j − β_j), link-side joint angles (N−1,) [rad]."""
    q = data.mj.qpos
    return q[model.motor_qpos] + q[model.spring_qpos]


def alpha_dot(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """α̇_j (N−1,) [rad/s]."""
    v = data.mj.qvel
    return v[model.motor_dof] + v[model.spring_dof]


def beta(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """β_j, motor angles reflected to the link side (N−1,) [rad]."""
    return data.mj.qpos[model.motor_qpos].copy()


def beta_dot(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """β̇_j (N−1,) [rad/s]."""
    return data.mj.qvel[model.motor_dof].copy()


def sea_torque(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """τ_j = K_j (α_j − β_j), 002 (4.36): the torque the SEA measures (N−1,) [N·m]."""
    return model.stiffness * data.mj.qpos[model.spring_qpos]


def motor_torque(data: MujocoData) -> np.ndarray:
    """U of 002 (4.39) the actuators apply (N−1,) [N·m]."""
    return data.mj.actuator_force.copy()


def link_positions(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """(N, 3) centres of mass of the links in the world [m]."""
    return data.mj.xipos[model.link_body].copy()


def link_rotations(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """(N, 3, 3) orientation of each link frame (columns: the link's x, y, z axes in the world)."""
    return data.mj.xmat[model.link_body].reshape(-1, 3, 3).copy()


def link_pitch(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """(N,) elevation of each link's axis above the horizontal [rad]: 002's θ_i (from +x towards +z) for a
    robot heading along +x."""
    x = data.mj.xmat[model.link_body].reshape(-1, 3, 3)[:, :, 0]
    return np.arctan2(x[:, 2], np.hypot(x[:, 0], x[:, 1]))


def module_roll(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """(N,) roll of each module about its own axis x_i [rad], relative to the body's vertical plane: 0 upright
    (belly towards the plane's bottom), ±π upside down.

    The reference is the vertical plane through the body's heading ĥ (horizontal tail → head direction): the
    upright module's cross axis y is y_ref = w − (w·x_i) x_i, w = e_z × ĥ, normalised, and the roll is the angle
    from y_ref to y_i about x_i. Unlike the Euler roll atan2(R_zy, R_zz), it does not flip by π when a link
    pitches past the vertical (a module climbing a box's face); it is undefined only for a link along w."""
    R = data.mj.xmat[model.link_body].reshape(-1, 3, 3)
    x, y = R[:, :, 0], R[:, :, 1]
    chord = data.mj.xipos[model.link_body[-1]] - data.mj.xipos[model.link_body[0]]
    heading = np.array([chord[0], chord[1], 0.0])
    norm = np.linalg.norm(heading)
    heading = heading / norm if norm > 1e-9 else np.array([x[0, 0], x[0, 1], 0.0]) / np.hypot(x[0, 0], x[0, 1])
    w = np.cross([0.0, 0.0, 1.0], heading)
    y_ref = w - (x @ w)[:, None] * x
    y_ref /= np.linalg.norm(y_ref, axis=1)[:, None]
    z_ref = np.cross(x, y_ref)
    return np.arctan2(np.einsum("ij,ij->i", y, z_ref), np.einsum("ij,ij->i", y, y_ref))


def mass_matrix(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """The joint-space mass matrix (nv × nv) at the data's qpos (free base: world linear, body angular)."""
    mujoco.mj_forward(model.mj, data.mj)
    M = np.zeros((model.mj.nv, model.mj.nv))
    mujoco.mj_fullM(model.mj, data.mj, M)
    return M
