"""Pushing scenario (001) in the horizontal plane: a dynamic check of the instantaneous analysis.

The snake lies on the ground of ``worlds/pushing.sdf`` (tail tip at the origin, tail link along +x,
a free box of κ link masses touching the side of the tail link at mid-link) and applies constant
joint torques from rest. The dynamics here are independent of :mod:`snake_core.pushing`'s
constraint projection:

* the snake is a Pinocchio model (planar floating base PX, PY, RZ + one RZ joint per link) and
  is advanced with the articulated-body algorithm (Coriolis terms included);
* the box is a planar rigid body (uniform box of the world's size, κ m);
* the snake-box contact is a frictionless Kelvin-Voigt penalty (stiffness k, critical damping)
  between the side of the tail link (half the module width off its axis) and the box face;
* the passive wheels (link centres, every link but the contact link) are a lateral viscous law
  F = −c_w v_lat, saturated at μ_s m g in Scenario 2 (a regularised Coulomb limit) and not
  saturated in Scenario 3; Scenario 1 has no ground force.

The initial accelerations are the slopes of straight-line fits of the velocities over a window
after the contact and wheel transients (a few ms, while the configuration has not changed);
they are compared with :func:`snake_core.pushing.response.push` for the same configuration and
torques. The difference is the error of the penalty contact model and of the regularised
wheels (both vanish as k, c_w → ∞ and the window → 0), reported in ``summary.json``.

(The horizontal-plane runtime of 004 did not have object contact when this was written; this
module is the documented stand-in the issue asks for, with the contact model as the only
difference to 001's rigid analysis.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from snake_core.pushing import PushingModel, Scenario, build_model
from snake_core.pushing.constraints import contact_normal, system_inertia
from snake_core.pushing.kinematics import joint_points, link_directions, link_point
from snake_core.pushing.maps import slippage_ratio
from snake_core.pushing.response import Push, push
from snake_core.validation import ConfigError, number, positive
from snake_sim.core.world import load_world
from snake_sim.core.worldgen import PUSHING_KAPPA, PUSHING_LINK_MASS, PUSHING_ROBOT_WIDTH

#: Contact and wheel regularisation (not in 001, which is rigid): penalty stiffness [N/m] and the
#: lateral wheel damping [N·s/m]. With ~1 kg links the transients last well under a millisecond;
#: at k = 1e6 N/m the fitted accelerations are still ~6 % off the rigid ones, at 1e7 below 0.1 %.
CONTACT_STIFFNESS = 1e7
WHEEL_DAMPING = 2e4
#: Integration step [s] (semi-implicit Euler, stable for these gains) and the fitting window [s].
TIME_STEP = 1e-6
FIT_WINDOW = (0.004, 0.012)


@dataclass(frozen=True)
class PushingWorld:
    """The analysis model matching ``worlds/pushing.sdf`` for a snake of ``n_joints`` joints."""

    model: PushingModel
    box_size: tuple[float, float]
    box_center: np.ndarray  # at t = 0
    box_yaw: float
    robot_width: float


def pushing_world(n_joints: int, world: str = "pushing") -> PushingWorld:
    """Read the box of the world; the analysis model gets κ, the COM offset and the box's gyration.

    The box mass is the generator's κ m (``snake_sim.core.worldgen``; the SDF reader keeps geometry only).
    """
    box = load_world(world).box("object")
    sx, sy = box.size[0], box.size[1]
    base = build_model(n_joints, fields={"link_mass": PUSHING_LINK_MASS})
    q0 = np.zeros(base.n_s)
    p_c = link_point(base, q0, base.contact_link, base.contact_position)
    n = contact_normal(base, q0)
    e = link_directions(q0)[base.contact_link - 1]
    offset = np.asarray(box.center[:2]) - p_c
    model = build_model(n_joints, fields={"link_mass": PUSHING_LINK_MASS, "kappa": PUSHING_KAPPA,
                                   "object_offset": (float(offset @ n), float(offset @ e)),
                                   "object_gyration": float(np.sqrt((sx**2 + sy**2) / 12.0))})
    return PushingWorld(model, (sx, sy), np.asarray(box.center[:2], dtype=float), box.yaw, PUSHING_ROBOT_WIDTH)


#: Points per link tested against the box by :func:`check_clear_of_box`.
CLEARANCE_SAMPLES = 50


def check_clear_of_box(world: PushingWorld, q0: np.ndarray) -> None:
    """Refuse a start configuration in which a link other than the contact link overlaps the box.

    Only the contact link touches the object in 001 (Assumption 6) and in the simulation; another
    link inside the box (within half a module width) would be an unmodelled contact.
    """
    model = world.model
    pts = joint_points(model, q0)
    c, s = np.cos(world.box_yaw), np.sin(world.box_yaw)
    half = 0.5 * np.asarray(world.box_size) + 0.5 * world.robot_width
    u = np.linspace(0.0, 1.0, CLEARANCE_SAMPLES)[:, None]
    for link in range(1, model.n_links + 1):
        if link == model.contact_link:
            continue
        p = pts[link - 1] + u * (pts[link] - pts[link - 1]) - world.box_center
        local = np.column_stack((c * p[:, 0] + s * p[:, 1], -s * p[:, 0] + c * p[:, 1]))
        if np.any(np.all(np.abs(local) < half, axis=1)):
            angles = np.round(np.degrees(q0[3:]), 3).tolist()
            raise ConfigError("joint angles", angles, f"link {link} overlaps the box of the pushing world; bend the "
                              "body away from the object (only the contact link may touch it, 001 Assumption 6)")


def _pin_snake(model: PushingModel, width: float):
    import pinocchio as pin

    pm = pin.Model()
    parent = 0
    for name, joint in (("x", pin.JointModelPX()), ("y", pin.JointModelPY())):
        parent = pm.addJoint(parent, joint, pin.SE3.Identity(), name)
        pm.appendBodyToJoint(parent, pin.Inertia.Zero(), pin.SE3.Identity())
    ids = []
    for i in range(model.n_links):
        placement = pin.SE3(np.eye(3), np.array([model.link_length if i else 0.0, 0.0, 0.0]))
        parent = pm.addJoint(parent, pin.JointModelRZ(), placement, f"link{i + 1}")
        pm.appendBodyToJoint(parent, pin.Inertia(model.link_mass, np.array([model.link_length / 2, 0, 0]),
                                                 np.diag([1e-6, 1e-6, model.link_inertia])), pin.SE3.Identity())
        ids.append(parent)
    side = model.contact_side * width / 2
    contact = pm.addFrame(pin.Frame("contact", ids[model.contact_link - 1], 0, pin.SE3(
        np.eye(3), np.array([model.contact_position * model.link_length, side, 0])), pin.FrameType.OP_FRAME))
    wheels = [pm.addFrame(pin.Frame(f"wheel{k}", ids[k - 1], 0, pin.SE3(
        np.eye(3), np.array([model.wheel_position * model.link_length, 0, 0])), pin.FrameType.OP_FRAME))
        for k in model.wheel_links]
    return pm, contact, wheels


@dataclass(frozen=True)
class Trajectory:
    t: np.ndarray  # (T,)
    q: np.ndarray  # (T, n_s)
    v: np.ndarray  # (T, n_s)
    box: np.ndarray  # (T, 3) x, y, ψ
    box_v: np.ndarray  # (T, 3)
    contact_force: np.ndarray  # (T,) [N]


def _critical_damping(pm, data, model: PushingModel, f_contact: int, q0: np.ndarray, stiffness: float) -> float:
    """Damping [N·s/m] that makes the penalty critically damped for the effective mass of the contact point
    along the normal (snake and box in series) at the start ``q0``."""
    import pinocchio as pin

    pin.computeJointJacobians(pm, data, q0)
    pin.updateFramePlacements(pm, data)
    n0 = contact_normal(model, q0)
    jn = n0 @ pin.getFrameJacobian(pm, data, f_contact, pin.LOCAL_WORLD_ALIGNED)[:2]
    m_s = pin.crba(pm, data, q0)
    m_s = np.triu(m_s) + np.triu(m_s, 1).T
    m_eff = 1.0 / (jn @ np.linalg.solve(m_s, jn) + 1.0 / model.object_mass)
    return 2.0 * np.sqrt(stiffness * m_eff)


def _box_contact(pm, data, f_contact: int, world: PushingWorld, box: np.ndarray, box_v: np.ndarray, v: np.ndarray,
                 stiffness: float, damping: float) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """The snake–box penalty contact at the current frame placements: (normal force [N], the face's inward
    normal u, the contact point relative to the box centre, the snake's generalised force J_sᵀ f u)."""
    import pinocchio as pin

    # box face at local −y, u = the face's inward normal
    c, s = np.cos(box[2]), np.sin(box[2])
    u = np.array([-s, c])
    p_face = box[:2] - 0.5 * world.box_size[1] * u
    p_s = data.oMf[f_contact].translation[:2]
    j_s = pin.getFrameJacobian(pm, data, f_contact, pin.LOCAL_WORLD_ALIGNED)[:2]
    depth = (p_s - p_face) @ u
    rate = (j_s @ v - box_v[:2]) @ u + (p_s - p_face) @ (box_v[2] * np.array([-c, -s]))  # d(depth)/dt
    force = max(0.0, stiffness * depth + damping * rate) if depth > 0.0 else 0.0
    return force, u, p_s - box[:2], j_s.T @ (force * u)


def _add_wheel_forces(gen: np.ndarray, pm, data, f_wheels: list[int], v: np.ndarray, wheel_damping: float,
                      bound: float) -> None:
    """Add the passive wheels' generalised forces to ``gen``: a lateral viscous law, saturated at ``bound``."""
    import pinocchio as pin

    for fw in f_wheels:
        lateral = data.oMf[fw].rotation[:2, 1]
        jw = pin.getFrameJacobian(pm, data, fw, pin.LOCAL_WORLD_ALIGNED)[:2]
        f_lat = float(np.clip(-wheel_damping * (lateral @ (jw @ v)), -bound, bound))
        gen += jw.T @ (f_lat * lateral)


def simulate(world: PushingWorld, q0: np.ndarray, tau: np.ndarray, scenario: Scenario, duration: float = FIT_WINDOW[1],
             stiffness: float = CONTACT_STIFFNESS, wheel_damping: float = WHEEL_DAMPING,
             time_step: float = TIME_STEP, progress: bool = False) -> Trajectory:
    """Constant torques from rest; semi-implicit Euler. See the module docstring for the models.
    Every step is recorded (the fit of :func:`fitted_accelerations` needs them); ``progress``: a tqdm bar."""
    import pinocchio as pin

    model = world.model
    positive(duration, "duration")
    positive(stiffness, "contact.stiffness")
    positive(wheel_damping, "contact.wheel_damping")
    number(time_step, "sim.time_step", low=1e-7, high=1e-3)
    pm, f_contact, f_wheels = _pin_snake(model, world.robot_width)
    data = pm.createData()
    m_obj = model.object_mass
    i_obj = m_obj * (world.box_size[0] ** 2 + world.box_size[1] ** 2) / 12.0
    damping = _critical_damping(pm, data, model, f_contact, q0, stiffness)
    bound = model.mu_s * model.wheel_normal_load if scenario == Scenario.BOUNDED_WHEELS else np.inf
    tau_gen = np.concatenate((np.zeros(3), np.asarray(tau, dtype=float)))

    q, v = np.array(q0, dtype=float), np.zeros(model.n_s)
    box, box_v = np.array([*world.box_center, world.box_yaw]), np.zeros(3)
    steps = round(duration / time_step)
    out_q, out_v, out_b, out_bv, out_f = [], [], [], [], []
    for _ in tqdm(range(steps + 1), disable=not progress, leave=False, unit="step", mininterval=0.5):
        pin.computeJointJacobians(pm, data, q)
        pin.updateFramePlacements(pm, data)
        force, u, r, on_snake = _box_contact(pm, data, f_contact, world, box, box_v, v, stiffness, damping)
        gen = tau_gen.copy()
        gen -= on_snake
        if scenario != Scenario.NO_FRICTION:  # Scenario 1 has no ground force
            _add_wheel_forces(gen, pm, data, f_wheels, v, wheel_damping, bound)
        out_q.append(q.copy())
        out_v.append(v.copy())
        out_b.append(box.copy())
        out_bv.append(box_v.copy())
        out_f.append(force)
        acc = pin.aba(pm, data, q, v, gen)
        box_acc = np.array([*(force * u / m_obj), (r[0] * force * u[1] - r[1] * force * u[0]) / i_obj])
        v = v + time_step * acc
        q = q + time_step * v
        box_v = box_v + time_step * box_acc
        box = box + time_step * box_v
    return Trajectory(np.arange(steps + 1) * time_step, np.array(out_q), np.array(out_v), np.array(out_b),
                      np.array(out_bv), np.array(out_f))


def fitted_accelerations(traj: Trajectory, window: tuple[float, float] = FIT_WINDOW) -> tuple[np.ndarray, np.ndarray]:
    """Slopes of straight-line fits of q̇_s and of the box velocity over ``window`` [s]."""
    sel = (traj.t >= window[0]) & (traj.t <= window[1])
    t = traj.t[sel]
    slope = np.polyfit(t, np.hstack((traj.v[sel], traj.box_v[sel])), 1)[0]
    return slope[:traj.v.shape[1]], slope[traj.v.shape[1]:]


@dataclass(frozen=True)
class Comparison:
    scenario: Scenario
    tau: np.ndarray
    analysis: Push
    qdd_sim: np.ndarray
    a_obj_sim: np.ndarray
    a_obj_error: float  # ‖a_sim − a_ana‖ / ‖a_ana‖ in the object's inertia metric
    qdd_error: float  # same for the snake, in the M_s metric
    sr_sim: float
    trajectory: Trajectory


def compare(world: PushingWorld, q0: np.ndarray, tau: np.ndarray, scenario: Scenario, **kw) -> Comparison:
    """Simulate and compare with the analysis; raises ContactLostError if τ does not push."""
    model = world.model
    check_clear_of_box(world, q0)
    ana = push(model, q0, tau, scenario)
    traj = simulate(world, q0, tau, scenario, **kw)
    qdd, a_obj = fitted_accelerations(traj)
    inertia = system_inertia(model, q0)
    m_s, i_o = inertia[:model.n_s, :model.n_s], inertia[model.n_s:, model.n_s:]

    def rel(x, y, metric):
        return float(np.sqrt((x - y) @ metric @ (x - y) / (y @ metric @ y)))

    return Comparison(scenario, np.asarray(tau, dtype=float), ana, qdd, a_obj, rel(a_obj, ana.a_obj, i_o),
                      rel(qdd, ana.qdd, m_s), float(slippage_ratio(a_obj @ i_o @ a_obj, qdd @ m_s @ qdd)), traj)
