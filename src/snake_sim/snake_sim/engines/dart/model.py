"""The SEA snake in DART as gz-physics' dartsim plugin builds it, Pinocchio style: ``model = build_model(...)``,
``data = model.create_data()`` (a ``dartpy.simulation.World`` with the robot and the world in it), plain
functions over them.

What gz-physics 7 does (dartsim/src/SDFFeatures.cc, EntityManagementFeatures.cc), done here from the SDF that
libsdformat makes of the URDF (:mod:`.sdf`):

- every link a BodyNode with the SDF inertial (mass, centre of mass, moment about it), the root (``link_1``) on
  a FreeJoint, every other link on a RevoluteJoint placed by the SDF's joint pose and axis;
- ``CopyStandardJointAxisProperties``: damping, Coulomb friction, rest position (spring_reference) and spring
  stiffness of ``<dynamics>`` (DART integrates damping and springs implicitly), position limits enforced,
  force limits ±effort and velocity limits ±velocity (∞ where the SDF says < 0);
- ``SetJointForce``: the actuator type FORCE, the command clamped by DART to the force limits;
- collisions: the URDF's mesh (gz-sim attaches it as a mesh shape), ``setFrictionCoeff(mu)`` per shape node;
  self-collision on, neighbouring links excluded (as 002's robot: its modules can touch each other; Gazebo's
  default, SDF ``self_collide`` false, and the URDF leave it off: a Gazebo run of the shipped URDF differs here);
  the ground plane a 2100 m box below the plane, static boxes
  on welded bodies, each with its SDF μ (SDF's default 1 where a collision has none); DART combines two shapes'
  μ by the minimum.
- dartpy 6.20 has no binding for DynamicsAspect's ``setSecondaryFrictionCoeff`` / ``setFirstFrictionDirection``
  (SDF mu2, fdir1): a description with μ2 ≠ μ is refused (ConfigError), isotropic ones are exact.

Generalised coordinates (DART's): FreeJoint (rotation vector, translation of ``link_1``'s frame), then the
revolute joints in SDF order (motor_1, spring_1, motor_2, …); q(motor_j) = β_j, q(spring_j) = α_j − β_j.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import dartpy as dart
import numpy as np

from snake_core.robot import RobotParams
from snake_core.validation import ConfigError

from ...core.world import World
from ..engine3d import EngineModel, Layout, box_parts
from .sdf import SDF_DEFAULT_MU, SdfCollision, SdfModel
from .settings import MAX_CONTACTS_TOTAL, Settings

#: gz-physics' plane: a box this large [m], its top face on the plane (taken from osrf/gazebo).
PLANE_BOX = 2100.0


def _dofs(sdf: SdfModel, names: list[str]) -> np.ndarray:
    """Read-only q indices of the named revolute joints: after the FreeJoint's 6, in creation (SDF chain) order."""
    order = [j.name for j in sdf.joints]
    idx = np.array([6 + order.index(name) for name in names])
    idx.setflags(write=False)
    return idx


@dataclass(frozen=True, eq=False)
class DartModel(EngineModel[Settings]):
    """The converted description besides :class:`~snake_sim.engines.engine3d.EngineModel`'s fields (``motor_dof``,
    ``spring_dof``: indices into DART's q; ``stiffness``: the SDF's spring_stiffness); never mutated."""

    sdf: SdfModel

    def create_data(self) -> DartData:
        """A fresh DART world with the robot (straight, ``link_1`` at the origin) and the world's surfaces."""
        w = dart.simulation.World(f"{self.sdf.name}_{self.world.name}")
        w.setTimeStep(self.settings.time_step)
        w.setGravity([0.0, 0.0, -self.settings.gravity])
        detector = {"ode": dart.collision.OdeCollisionDetector, "fcl": dart.collision.FCLCollisionDetector,
                    "dart": dart.collision.DARTCollisionDetector,
                    "bullet": dart.collision.BulletCollisionDetector}[self.settings.collision_detector]()
        solver = w.getConstraintSolver()
        solver.setCollisionDetector(detector)
        option = solver.getCollisionOption()
        option.maxNumContacts = MAX_CONTACTS_TOTAL
        option.maxNumContactsPerPair = self.settings.max_contacts
        skel = _robot_skeleton(self.sdf)
        w.addSkeleton(skel)
        w.addSkeleton(_world_skeleton(self.world))
        links = [skel.getBodyNode(f"link_{i}") for i in range(1, self.robot.n_links + 1)]
        # self-collision, but not of neighbouring modules, which meet at their joint (rotor_j, between them, has
        # no shape: DART's adjacent-body check would not see the pair)
        for a, b in itertools.pairwise(links):
            option.collisionFilter.addBodyNodePairToBlackList(a, b)
        rotors = [skel.getBodyNode(f"rotor_{j}") for j in range(1, self.robot.n_joints + 1)]
        motors = [skel.getJoint(f"motor_{j}") for j in range(1, self.robot.n_joints + 1)]
        return DartData(w, skel, links, rotors, motors)


@dataclass(eq=False)
class DartData:
    """The mutable state of one simulation: DART's world, the robot's skeleton, its links, rotors and motor
    joints."""

    world: dart.simulation.World
    skeleton: dart.dynamics.Skeleton
    links: list[dart.dynamics.BodyNode]
    rotors: list[dart.dynamics.BodyNode]
    motors: list[dart.dynamics.Joint]


def _mesh_shape(col: SdfCollision) -> dart.dynamics.Shape:
    """The collision mesh as gz-sim attaches it, loaded by dartpy's assimp (through its URDF reader)."""
    urdf = (f'<robot name="mesh"><link name="l"><collision><geometry><mesh filename="{col.mesh_uri}" '
            f'scale="{col.scale[0]!r} {col.scale[1]!r} {col.scale[2]!r}"/></geometry></collision></link></robot>')
    body = dart.utils.DartLoader().parseSkeletonString(urdf, dart.common.Uri("file:///")).getBodyNode(0)
    if body.getNumShapeNodes() != 1:
        raise ConfigError("robot.name", col.mesh_uri, "dartpy cannot load this collision mesh")
    return body.getShapeNode(0).getShape()


def _collision_node(body: dart.dynamics.BodyNode, shape: dart.dynamics.Shape, name: str, pose: np.ndarray,
                    mu: float) -> dart.dynamics.ShapeNode:
    node = body.createShapeNode(shape, name)
    node.createCollisionAspect()
    node.createDynamicsAspect().setFrictionCoeff(mu)
    T = dart.math.Isometry3()
    T.set_matrix(pose)
    node.setRelativeTransform(T)
    return node


def _isometry(M: np.ndarray) -> dart.math.Isometry3:
    T = dart.math.Isometry3()
    T.set_matrix(M)
    return T


def _unbounded(value: float) -> float:
    """gz-physics' infIfNeg: an SDF limit < 0 means none."""
    return math.inf if value < 0.0 else value


def _robot_skeleton(sdf: SdfModel) -> dart.dynamics.Skeleton:
    skel = dart.dynamics.Skeleton(sdf.name)
    parent_of = {j.child: j for j in sdf.joints}
    roots = [lk for lk in sdf.links if lk.name not in parent_of]
    if len(roots) != 1:
        raise ConfigError("robot.name", sdf.name, "the converted model must have one root link")
    bodies: dict[str, dart.dynamics.BodyNode] = {}
    pending = [roots[0]]
    while pending:
        link = pending.pop(0)
        if link.name in parent_of:
            j = parent_of[link.name]
            joint, body = skel.createRevoluteJointAndBodyNodePair(bodies[j.parent])
            joint.setName(j.name)
            joint.setTransformFromParentBodyNode(_isometry(np.linalg.solve(sdf.link(j.parent).pose, j.pose)))
            joint.setTransformFromChildBodyNode(_isometry(np.linalg.solve(link.pose, j.pose)))
            joint.setAxis(j.axis)
            # gz-physics CopyStandardJointAxisProperties
            joint.setDampingCoefficient(0, j.damping)
            joint.setCoulombFriction(0, j.friction)
            joint.setRestPosition(0, j.spring_reference)
            joint.setSpringStiffness(0, j.spring_stiffness)
            joint.setPositionLowerLimit(0, j.lower)
            joint.setPositionUpperLimit(0, j.upper)
            joint.setLimitEnforcement(True)
            joint.setForceLowerLimit(0, -_unbounded(j.effort))
            joint.setForceUpperLimit(0, _unbounded(j.effort))
            joint.setVelocityLowerLimit(0, -_unbounded(j.velocity))
            joint.setVelocityUpperLimit(0, _unbounded(j.velocity))
        else:
            joint, body = skel.createFreeJointAndBodyNodePair()
            joint.setName(f"{link.name}_free")
        body.setName(link.name)
        body.setInertia(dart.dynamics.Inertia(link.mass, link.com, link.inertia))
        for col in link.collisions:
            if col.mu2 != col.mu:
                raise ConfigError("robot.name", sdf.name, f"{col.name}: μ2 = {col.mu2:g} ≠ μ = {col.mu:g}; dartpy "
                                  "cannot set DART's secondary friction coefficient (isotropic friction only)")
            _collision_node(body, _mesh_shape(col), col.name, col.pose, col.mu)
        bodies[link.name] = body
        pending.extend(sdf.link(j.child) for j in sdf.joints if j.parent == link.name)
    skel.setSelfCollisionCheck(True)  # SDF <self_collide> true (gz-physics: setSelfCollisionCheck)
    skel.setAdjacentBodyCheck(False)
    return skel


def _world_skeleton(world: World) -> dart.dynamics.Skeleton:
    """The world's static surfaces welded to the world frame, each with its SDF μ."""
    moving = [b.name for b in world.boxes if b not in world.static_boxes]
    if moving:
        raise ConfigError("world.file", str(world.path), "the DART model takes static boxes only; moving: "
                          + ", ".join(moving), world.path.name)
    if world.ground_height is None:
        raise ConfigError("world.file", str(world.path), "the DART model needs a world with a ground plane",
                          world.path.name)
    skel = dart.dynamics.Skeleton("world")
    _, ground = skel.createWeldJointAndBodyNodePair()
    ground.setName("ground_plane")
    pose = np.eye(4)
    pose[2, 3] = world.ground_height - 0.5 * PLANE_BOX
    _collision_node(ground, dart.dynamics.BoxShape([PLANE_BOX] * 3), "ground_plane", pose, SDF_DEFAULT_MU)
    for k, b in enumerate(world.static_boxes):
        _, body = skel.createWeldJointAndBodyNodePair()
        body.setName(f"box_{k}_{b.name}")
        c, s = math.cos(b.yaw), math.sin(b.yaw)
        for i, part in enumerate(box_parts(b, SDF_DEFAULT_MU, world.covered(b))):  # the top slab of a side μ: "_top"
            pose = np.eye(4)
            pose[:3, :3] = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
            pose[:3, 3] = part.center
            _collision_node(body, dart.dynamics.BoxShape(list(part.size)), body.getName() + ("_top" if i else ""),
                            pose, part.mu)
    skel.setMobile(False)
    return skel


def build_model(robot: RobotParams, *, world: World, settings: Settings, sdf: SdfModel,
                layout: Layout | None = None) -> DartModel:
    """The DART model of ``sdf`` (:func:`.sdf.gazebo_model` of ``robot`` and ``layout``, default
    :meth:`~snake_sim.engines.engine3d.Layout.straight`) on ``world``."""
    if robot.sea is None or robot.actuator is None:
        raise ConfigError("robot.name", robot.name, "the DART model needs a robot with SEAs (sea: and actuator: "
                          "sections), e.g. koopaee6")
    layout = Layout.straight(robot.n_joints) if layout is None else layout
    joints = range(1, robot.n_joints + 1)
    stiffness = np.array([sdf.joint(f"spring_{j}").spring_stiffness for j in joints])
    stiffness.setflags(write=False)
    return DartModel(robot=robot, world=world, settings=settings, layout=layout, sdf=sdf,
                     motor_dof=_dofs(sdf, [f"motor_{j}" for j in joints]),
                     spring_dof=_dofs(sdf, [f"spring_{j}" for j in joints]), stiffness=stiffness)


def place(model: DartModel, data: DartData, tail_tip: Sequence[float], roll: float = 0.0,
          alpha: np.ndarray | None = None) -> None:
    """Put the robot at rest: tail tip at ``tail_tip`` [m], the body rolled by ``roll`` [rad] about +x, joint
    angles α (default 0) with the springs undeflected (β = α)."""
    skel = data.skeleton
    q = np.zeros(skel.getNumDofs())
    q[:3] = (roll, 0.0, 0.0)  # rotation vector
    q[3:6] = tail_tip
    q[model.motor_dof] = 0.0 if alpha is None else alpha
    skel.setPositions(q)
    skel.setVelocities(np.zeros(skel.getNumDofs()))


def command(data: DartData, effort: np.ndarray) -> np.ndarray:
    """gz-physics SetJointForce on every motor joint: actuator FORCE, DART clamps to the force limits; returns
    the efforts DART applies (N−1,) [N·m]."""
    out = np.empty(len(data.motors))
    for j, joint in enumerate(data.motors):
        joint.setActuatorType(dart.dynamics.ActuatorType.FORCE)
        joint.setCommand(0, float(effort[j]))
        out[j] = joint.getCommand(0)
    return out


def pull_tail(data: DartData, force: np.ndarray) -> None:
    """Apply ``force`` (3,) [N, world frame] at the tail tip (``link_1``'s frame origin) for the next step (DART
    clears external forces after every step)."""
    data.links[0].setExtForce(np.asarray(force, dtype=float), np.zeros(3), False, True)


def step(data: DartData) -> None:
    """Advance one time step of ``settings.time_step``."""
    data.world.step()


def alpha(model: DartModel, data: DartData) -> np.ndarray:
    """α_j = β_j + (α_j − β_j), link-side joint angles (N−1,) [rad]."""
    q = data.skeleton.getPositions()
    return q[model.motor_dof] + q[model.spring_dof]


def alpha_dot(model: DartModel, data: DartData) -> np.ndarray:
    """α̇_j (N−1,) [rad/s]."""
    v = data.skeleton.getVelocities()
    return v[model.motor_dof] + v[model.spring_dof]


def beta(model: DartModel, data: DartData) -> np.ndarray:
    """β_j, motor angles reflected to the link side (N−1,) [rad]."""
    return data.skeleton.getPositions()[model.motor_dof]


def beta_dot(model: DartModel, data: DartData) -> np.ndarray:
    """β̇_j (N−1,) [rad/s]."""
    return data.skeleton.getVelocities()[model.motor_dof]


def sea_torque(model: DartModel, data: DartData) -> np.ndarray:
    """τ_j = K_j (α_j − β_j), 002 (4.36) (N−1,) [N·m]."""
    return model.stiffness * data.skeleton.getPositions()[model.spring_dof]


def motor_torque(model: DartModel, data: DartData, applied: np.ndarray) -> np.ndarray:
    """U of 002 (4.39) over the last step (N−1,) [N·m]: the applied effort minus the motor joint's damping K_D β̇,
    with β̇ the motor velocity the damping acted on, before the step's contact impulse.

    DART resolves contacts by an impulse after the (implicit) joint damping; the tiny rotor (J_r = 2.45e-7 kg m²)
    keeps its absolute spin under an impulse on its link, so the impulse changes β̇ by the link's jump in angular
    velocity (h M⁻¹ f_c on the motor dof, f_c the constraint forces), which the next step's damping K_D/J_r ≈
    1e8 s⁻¹ removes again. Read with the state's β̇, K_D β̇ is off by K_D times that jump: ≈ 60 N·m at the 99th
    percentile on flat ground where U is below 0.5 N·m (U ≈ τ, the rotor's inertia being negligible)."""
    skel = data.skeleton
    jump = model.settings.time_step * (np.asarray(skel.getInvMassMatrix()) @ np.asarray(skel.getConstraintForces()))
    damping = np.array([joint.getDampingCoefficient(0) for joint in data.motors])
    return applied - damping * (beta_dot(model, data) - jump[model.motor_dof])


def link_rotations(data: DartData) -> np.ndarray:
    """(N, 3, 3) orientation of each link frame in the world."""
    return np.array([b.getWorldTransform().rotation() for b in data.links])


def rotor_rotations(data: DartData) -> np.ndarray:
    """(N−1, 3, 3) orientation of each rotor frame in the world."""
    return np.array([b.getWorldTransform().rotation() for b in data.rotors])


def link_origins(data: DartData) -> np.ndarray:
    """(N, 3) link frame origins (tail-side ends) in the world [m]."""
    return np.array([b.getWorldTransform().translation() for b in data.links])


def link_positions(data: DartData) -> np.ndarray:
    """(N, 3) centres of mass of the links in the world [m]."""
    return np.array([b.getCOM() for b in data.links])


def contact_count(data: DartData) -> int:
    """Contacts of the last step."""
    return data.world.getLastCollisionResult().getNumContacts()


def mass_matrix(data: DartData) -> np.ndarray:
    """DART's joint-space mass matrix at the current q, in DART's velocity coordinates [kg, kg m, kg m²]."""
    return np.array(data.skeleton.getMassMatrix())
