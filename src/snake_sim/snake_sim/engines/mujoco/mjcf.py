"""The MJCF of a SEA snake on a world, built in memory from ``config/robots/<robot>.yaml`` and ``worlds/*.sdf``.

The robot is the xacro URDF's robot (urdf/snake_module.xacro), body for body and joint for joint, so that
MuJoCo's and Pinocchio's mass matrices agree (test_mujoco_model):

- ``link_<i>``, tail (1) → head (N): frame at the link's tail-side end, x along the link; the centre of mass
  at (l, 0, 0) + the scenario's ``robot.com_offset`` with the robot file's mass m_l and the module mesh's
  principal moments (``links.inertia_tensor``, as the URDF; see snake_module.xacro); collision shape the URDF's
  mesh ``urdf/meshes/octagonal_module.stl`` (002 §3.4: a regular octagonal prism, 2l long, the module width
  across flats, belly flat), scaled as the URDF scales it.
- Each SEA joint j (002 §3.3, Fig. 4.2) at (2l, 0, 0) of link j: hinge ``motor_<j>`` (β_j) → body
  ``rotor_<j>`` → hinge ``spring_<j>`` (α_j − β_j, stiffness K_j, range ± the deflection limit ≈ 21°) →
  ``link_<j+1>``, so α_j = q(motor_j) + q(spring_j) and τ_j = K_j q(spring_j) = K_j (α_j − β_j) (4.36).
  α_j is limited to ± the joint limit (002 Table 3.2: ±60°) by a fixed tendon motor_j + spring_j, β_j by the
  motor hinge's range.
  Rotor reading of 002 (4.11)/(4.36): ``rotor_<j>`` is a body at the joint with the rotor mass m_r (the
  T_2 of (4.11)) and moment 𝕊_3 = J_r ("own") or n² J_r ("reflected", the robot file's
  ``rotor_inertia_model``) about all three axes, turning with the motor side (link j's angular velocity
  plus β̇_j), as the URDF's rotor link; the vertical-plane model keeps only ½ 𝕊_3 β̇² (it drops the
  coupling of the rotor with the link's rotation, 𝕊_1 = 𝕊_2 = 0), which is negligible for J_r = 2.45e-7.
  The motor hinge's ``armature`` n² J_r − 𝕊_3 gives β the rotor's inertia reflected through the gear, n² J_r,
  whichever reading the file takes (:func:`motor_armature`).
- Joint axis +y for roll 0 (pitch, 002's vertical plane) and −z for roll 90 (yaw), per joint, as the
  URDF's ``joint_roll``, turned about the link's x axis by the scenario's ``robot.joint_twist_deg``
  (:meth:`~snake_sim.engines.engine3d.Layout.axes`); a positive angle turns the next link clockwise in its
  plane (α_j = θ_j − θ_{j+1}).
- The motor-side PD of 002 (4.39) within the servo's torque–speed line (snake_core.actuator, 002 Table 3.1)
  is a MuJoCo ``general`` actuator on ``motor_<j>`` plus the hinge's damping c = τ_s/ω_0: the actuator's force
  V = K_p ctrl − K_p β − (K_D − c) β̇ with ctrl = β_d + (K_D/K_p) β̇_d, clamped to ±τ_s (``forcerange``), and
  U = V − c β̇, i.e. U = −K_p(β − β_d) − K_D(β̇ − β̇_d) inside the line and ±τ_s − c β̇ on it. The
  ``implicitfast`` integrator takes the −(K_D − c) β̇ and the damping implicitly, K_p β and the spring's K
  explicitly (see :mod:`.settings`). A robot file without the line (``actuator.torque_speed_line: false``) gets
  (4.39) unclamped and no hinge damping (c = 0); one without the limit on α (``joints.limit_alpha: false``), no
  tendons.
- A free base (``link_1``'s free joint). Self-collision is on: robot geoms collide with the world's and with
  each other's, except neighbouring links (which meet at their joint by construction).
- World: the ground plane at the SDF's height with the ground's μ_c, every static box at its SDF pose with its
  collision's μ (μ_c where the file has none), read through :mod:`snake_sim.core.world`. World geoms have the
  higher ``priority``, so a contact's friction is the surface's (the vertical model's per-surface μ).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from snake_core import locator
from snake_core.actuator import motor_pd
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError

from ...core.world import World
from ..engine3d import Layout, box_parts
from .settings import Settings

#: The URDF's module mesh (a unit octagonal prism, x from 0 to 1, 1 across flats), in urdf/meshes/.
MODULE_MESH = "octagonal_module.stl"
#: Collision bits: robot geoms touch world geoms and each other (self-collision; neighbouring links excluded), no
#: world–world pairs.
ROBOT_BITS = {"contype": "2", "conaffinity": "3"}
WORLD_BITS = {"contype": "1", "conaffinity": "2", "priority": "1"}


def _fmt(*values: float) -> str:
    return " ".join(repr(float(v)) for v in values)


def _sub(parent: ET.Element, tag: str, **attrs: str) -> ET.Element:
    return ET.SubElement(parent, tag, attrs)


#: Softness of the ±60° limit on α (a tendon limit): a time constant of twice the 2 ms step and a high impedance, so
#: that a joint driven beyond it overshoots by about a degree (MuJoCo's default limit, 0.02 s, lets α reach 64°).
LIMIT_SOLREF = (0.004, 1.0)
LIMIT_SOLIMP = (0.95, 0.99, 0.001, 0.5, 2.0)
#: Colours of the static boxes, alternating, so that each step's edge shows in the animation.
BOX_COLOURS = ("0.55 0.42 0.3 1", "0.78 0.66 0.5 1")


def _contact_attrs(settings: Settings, mu: float) -> dict[str, str]:
    return {"friction": _fmt(mu, 0.0, 0.0), "solref": _fmt(*settings.solref), "solimp": _fmt(*settings.solimp)}


def _world(body: ET.Element, world: World, settings: Settings) -> None:
    moving = [b.name for b in world.boxes if b not in world.static_boxes]
    if moving:
        raise ConfigError("world.file", str(world.path), "the MuJoCo model takes static boxes only; moving: "
                          + ", ".join(moving), world.path.name)
    if world.ground_height is not None:
        _sub(body, "geom", name="ground", type="plane", size="0 0 1", pos=_fmt(0, 0, world.ground_height),
             material="ground", **WORLD_BITS, **_contact_attrs(settings, settings.friction))
    for k, b in enumerate(world.static_boxes):
        for i, part in enumerate(box_parts(b, settings.friction, world.covered(b))):  # the top slab of a side μ: "_top"
            _sub(body, "geom", name=f"box_{k}_{b.name}" + ("_top" if i else ""), type="box", pos=_fmt(*part.center),
                 size=_fmt(*(0.5 * s for s in part.size)),
                 quat=_fmt(math.cos(0.5 * b.yaw), 0, 0, math.sin(0.5 * b.yaw)),
                 rgba=BOX_COLOURS[k % 2], **WORLD_BITS, **_contact_attrs(settings, part.mu))


def _robot(body: ET.Element, robot: RobotParams, layout: Layout, settings: Settings) -> None:
    sea, act = robot.sea, robot.actuator
    two_l = robot.link_length
    axes = [_fmt(*a) for a in layout.axes()]
    com = _fmt(*layout.com(robot.half_length))
    parent = body
    for i in range(1, robot.n_links + 1):
        link = _sub(parent, "body", name=f"link_{i}")
        if i == 1:
            _sub(link, "freejoint", name="base")
        else:
            j = i - 1
            limit = sea.deflection_limit
            _sub(link, "joint", name=f"spring_{j}", type="hinge", axis=axes[j - 1],
                 stiffness=repr(sea.stiffness[j - 1]), springref="0", range=_fmt(-limit, limit))
        _sub(link, "inertial", pos=com, mass=repr(robot.link_mass),
             diaginertia=_fmt(*robot.inertia_tensor))
        rgba = "0.85 0.2 0.1 1" if i == robot.n_links else ("0.2 0.3 0.8 1" if i == 1 else "0.95 0.75 0.1 1")
        _sub(link, "geom", name=f"link_{i}", type="mesh", mesh="module", rgba=rgba, **ROBOT_BITS,
             **_contact_attrs(settings, settings.friction))
        if i == robot.n_links:
            break
        rotor = _sub(link, "body", name=f"rotor_{i}", pos=_fmt(two_l, 0, 0))
        # the motor's rotor about the axis: n² J_r in all (armature on top of the rotor body's 𝕊_3); the
        # torque–speed line's −(τ_s/ω_0) β̇ as the hinge's damping (see mjcf's docstring)
        _sub(rotor, "joint", name=f"motor_{i}", type="hinge", axis=axes[i - 1],
             range=_fmt(-robot.joint_limit, robot.joint_limit), armature=repr(motor_armature(robot)),
             damping=repr(line_slope(robot)))
        _sub(rotor, "inertial", pos="0 0 0", mass=repr(act.rotor_mass),
             diaginertia=_fmt(*(act.rotor_term,) * 3))
        parent = rotor


def mjcf(robot: RobotParams, world: World, settings: Settings, layout: Layout) -> str:
    """The MJCF document (a string for ``mujoco.MjModel.from_xml_string``); see the module docstring."""
    if robot.sea is None or robot.actuator is None:
        raise ConfigError("robot.name", robot.name, "the MuJoCo model needs a robot with SEAs (sea: and actuator: "
                          "sections), e.g. koopaee6")
    for field, values in (("robot.joint_roll", list(layout.joint_roll)),
                          ("robot.joint_twist_deg", [math.degrees(v) for v in layout.joint_twist])):
        if len(values) != robot.n_joints:
            raise ConfigError(field, values, f"must have {robot.n_joints} values (one per joint)")
    root = ET.Element("mujoco", model=f"{robot.name}_{world.name}")
    meshes = locator.description_dir() / "urdf" / "meshes"
    _sub(root, "compiler", angle="radian", meshdir=str(meshes), autolimits="true")
    _sub(root, "option", timestep=repr(settings.time_step), gravity=_fmt(0, 0, -settings.gravity),
         integrator=settings.integrator, solver=settings.solver, cone=settings.cone)
    visual = _sub(root, "visual")  # for the rendered animation (mujoco.figures)
    _sub(visual, "global", offwidth="800", offheight="480")
    _sub(visual, "headlight", ambient="0.35 0.35 0.35", diffuse="0.5 0.5 0.5")
    asset = _sub(root, "asset")
    _sub(asset, "texture", name="ground", type="2d", builtin="checker", rgb1="0.82 0.82 0.82", rgb2="0.68 0.68 0.68",
         width="256", height="256")  # a checker ground shows the robot's progress
    _sub(asset, "material", name="ground", texture="ground", texrepeat="20 20", texuniform="true")
    _sub(asset, "mesh", name="module", file=MODULE_MESH,
         scale=_fmt(robot.link_length, robot.module_width, robot.module_width))
    worldbody = _sub(root, "worldbody")
    _sub(worldbody, "light", name="sun", pos="0 0 3", dir="-0.3 0.1 -1", directional="true")
    _world(worldbody, world, settings)
    _robot(worldbody, robot, layout, settings)
    contact = _sub(root, "contact")
    for j in range(1, robot.n_joints + 1):  # neighbouring modules touch at the joint by construction
        _sub(contact, "exclude", body1=f"link_{j}", body2=f"link_{j + 1}")
    if robot.limit_alpha:
        tendons = _sub(root, "tendon")
        for j in range(1, robot.n_joints + 1):  # α_j = β_j + (α_j − β_j) within ±60° (002 Table 3.2)
            fixed = _sub(tendons, "fixed", name=f"alpha_{j}", range=_fmt(-robot.joint_limit, robot.joint_limit),
                         solreflimit=_fmt(*LIMIT_SOLREF), solimplimit=_fmt(*LIMIT_SOLIMP))
            _sub(fixed, "joint", joint=f"motor_{j}", coef="1")
            _sub(fixed, "joint", joint=f"spring_{j}", coef="1")
    actuators = _sub(root, "actuator")
    act = robot.actuator
    kp, slope = act.kp, line_slope(robot)
    line = {"forcerange": _fmt(-act.stall_torque, act.stall_torque)} if act.torque_speed_line else {}
    for j in range(1, robot.n_joints + 1):  # 002 (4.39) less the hinge's damping; ctrl = β_d + (K_D/K_p) β̇_d
        _sub(actuators, "general", name=f"motor_{j}", joint=f"motor_{j}", gaintype="fixed", gainprm=repr(kp),
             biastype="affine", biasprm=_fmt(0, -kp, -(act.kd - slope)), **line)
    return ET.tostring(root, encoding="unicode")


def line_slope(robot: RobotParams) -> float:
    """The motor hinge's damping τ_s/ω_0, the torque–speed line's slope; 0 for a robot file without the line
    (``actuator.torque_speed_line: false``), whose actuator is (4.39) unclamped."""
    return motor_pd(robot).slope if robot.actuator.torque_speed_line else 0.0


def motor_armature(robot: RobotParams) -> float:
    """The motor hinge's armature: n² J_r less the rotor body's 𝕊_3, so that the motor coordinate β has the
    reflected rotor inertia n² J_r about its axis whichever ``rotor_inertia_model`` the robot file reads."""
    act = robot.actuator
    return act.reflected_inertia - act.rotor_term
