"""The 3-D SEA snake on MuJoCo, Pinocchio style: ``model = build_model(robot, world=world, settings=settings)``,
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

from ...core.world import World
from ..engine3d import EngineModel, Layout
from .mjcf import mjcf
from .settings import Settings


def _frozen(a: Sequence[int] | np.ndarray) -> np.ndarray:
    a = np.array(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class MujocoModel(EngineModel[Settings]):
    """The compiled MuJoCo model and the indices of the SEA coordinates in it (besides
    :class:`~snake_sim.engines.engine3d.EngineModel`'s: ``motor_dof``, ``spring_dof`` are MuJoCo's dof addresses);
    never mutated."""

    xml: str  # the MJCF it was compiled from
    mj: mujoco.MjModel
    link_body: np.ndarray  # (N,) body id of link_i
    rotor_body: np.ndarray  # (N−1,) body id of rotor_j
    motor_qpos: np.ndarray  # (N−1,) qpos address of motor_j (β_j)
    spring_qpos: np.ndarray  # (N−1,) qpos address of spring_j (α_j − β_j)

    def create_data(self) -> MujocoData:
        """A fresh workspace at the model's reference pose (base at the origin, body straight)."""
        return MujocoData(mujoco.MjData(self.mj))


@dataclass(eq=False)
class MujocoData:
    """The mutable state and workspace of one simulation (``mujoco.MjData``)."""

    mj: mujoco.MjData


def build_model(robot: RobotParams, *, world: World, settings: Settings, layout: Layout | None = None) -> MujocoModel:
    """Compile the MJCF of ``robot`` on ``world`` (:func:`.mjcf.mjcf`); ``layout`` default the robot file's robot
    with every joint pitching (:meth:`~snake_sim.engines.engine3d.Layout.straight`)."""
    layout = Layout.straight(robot.n_joints) if layout is None else layout
    xml = mjcf(robot, world, settings, layout)
    m = mujoco.MjModel.from_xml_string(xml)
    nj = robot.n_joints

    def joint(name: str) -> int:
        return mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)

    motors = [joint(f"motor_{j}") for j in range(1, nj + 1)]
    springs = [joint(f"spring_{j}") for j in range(1, nj + 1)]
    return MujocoModel(
        robot=robot, world=world, settings=settings, layout=layout, xml=xml, mj=m,
        link_body=_frozen([mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, f"link_{i}")
                           for i in range(1, robot.n_links + 1)]),
        rotor_body=_frozen([mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, f"rotor_{j}") for j in range(1, nj + 1)]),
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


def state_data(model: MujocoModel, qpos: np.ndarray, qvel: np.ndarray) -> MujocoData:
    """A fresh workspace in the state (``qpos``, ``qvel``), e.g. a recorded one (:func:`qpos_from_poses`)."""
    data = model.create_data()
    data.mj.qpos[:], data.mj.qvel[:] = qpos, qvel
    mujoco.mj_forward(model.mj, data.mj)
    return data


def command(model: MujocoModel, data: MujocoData, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None:
    """Motor reference of the PD 002 (4.39): ctrl = β_d + (K_D/K_p) β̇_d (see :mod:`.mjcf`)."""
    act = model.robot.actuator
    data.mj.ctrl[:] = beta_d + (act.kd / act.kp) * beta_d_dot


def step(model: MujocoModel, data: MujocoData, n: int = 1) -> None:
    """Advance ``n`` time steps of ``settings.time_step``."""
    mujoco.mj_step(model.mj, data.mj, n)


def pull_tail(model: MujocoModel, data: MujocoData, force: np.ndarray) -> None:
    """Apply ``force`` (3,) [N, world frame] at the tail tip (``link_1``'s frame origin) until changed: MuJoCo's
    ``xfrc_applied`` acts at the body's centre of mass, so it carries the moment (tip − CoM) × F, which turns
    with the link and is set anew before every step."""
    body = model.link_body[0]
    mj = data.mj
    mj.xfrc_applied[body, :3] = force
    mj.xfrc_applied[body, 3:] = np.cross(mj.xpos[body] - mj.xipos[body], force)


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


def motor_torque(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """U of 002 (4.39) within the torque–speed line (N−1,) [N·m]: the actuator's force plus the motor hinge's
    damping force −(τ_s/ω_0) β̇ (see :mod:`.mjcf`)."""
    return data.mj.actuator_force + data.mj.qfrc_damper[model.motor_dof]


def link_positions(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """(N, 3) centres of mass of the links in the world [m]."""
    return data.mj.xipos[model.link_body].copy()


def link_origins(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """(N, 3) link frame origins (tail-side ends) in the world [m]."""
    return data.mj.xpos[model.link_body].copy()


def link_rotations(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """(N, 3, 3) orientation of each link frame (columns: the link's x, y, z axes in the world)."""
    return data.mj.xmat[model.link_body].reshape(-1, 3, 3).copy()


def rotor_rotations(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """(N−1, 3, 3) orientation of each rotor frame (link j's turned by β_j about the joint axis)."""
    return data.mj.xmat[model.rotor_body].reshape(-1, 3, 3).copy()


def qpos_from_poses(model: MujocoModel, origin: np.ndarray, rotation: np.ndarray, alpha: np.ndarray,
                    beta: np.ndarray) -> np.ndarray:
    """MuJoCo's q from link 1's origin (3,) [m] and orientation (3, 3) and the joint angles α, β (N−1,) [rad]."""
    q = np.zeros(model.mj.nq)
    q[:3] = origin
    mujoco.mju_mat2Quat(q[3:7], np.ascontiguousarray(rotation).reshape(9))
    q[model.motor_qpos], q[model.spring_qpos] = beta, alpha - beta
    return q


def mass_matrix(model: MujocoModel, data: MujocoData) -> np.ndarray:
    """The joint-space mass matrix (nv × nv) at the data's qpos (free base: world linear, body angular)."""
    mujoco.mj_forward(model.mj, data.mj)
    M = np.zeros((model.mj.nv, model.mj.nv))
    mujoco.mj_fullM(model.mj, data.mj, M)
    return M
