"""What the 3-D engines (``mujoco``, ``dart``) share: the robot section (a SEA robot and how its modules are
put together: :class:`Layout`), the fields of an engine's model, the logged samples of a run (every link's pose
from the engine: origin, orientation, the rotors' orientation) and the run's figure set.

Scenario sections read here::

    robot:
      name: koopaee6
      joint_roll: 0              # 0 | 90 | alternate | one 0/90 per joint (the URDF's argument)
      joint_twist_deg: 0         # rotation of each joint axis about the link axis [deg]: one value or one per joint
      com_offset: [0, 0, 0]      # each link's centre of mass moved from the module's axis, link frame [m]
      motor_gain_scale: 1        # the motor-side PD gains (4.39) K_p, K_D times this (the robot file's: 1)
    world:   {file: stairs, start_x: 0.0,        # tail tip x at t = 0 [m]
              box_yaw_deg: 0.0,                  # every static box turned about z through its centre [deg]
              box_friction: null,                # μ of every static box's faces (null: the world file's)
              side_friction: null,               # μ of every static box's vertical faces (null: as its top)
              tether: {force: 0.0, yaw_deg: 180.0, pitch_deg: 0.0}}   # a constant pull at the tail tip

``joint_twist_deg`` and ``com_offset`` are asymmetries of the built robot that 002 names as causes of its
roll-overs (§6.4, §7.4: an uneven mass distribution within each link; a module screwed to the next one not
exactly at 0°/90°). Both default to 0 (the robot of the robot file).

The two asymmetries of the world that 002 blames for its roll-overs besides the robot's own (§6.4, §7.4; the
tether through a slip ring at the tail, §3.4, §5.4): ``box_yaw_deg`` turns every static box of the world file
about the vertical through its centre (added to the file's own yaw; |·| ≤ 45°), so that the robot meets the box's
near face obliquely; ``tether`` is a constant force of ``force`` [N] (≤ 10, about the robot's weight) applied at
the tail tip (``link_1``'s frame origin, where the slip ring is), in the world direction of azimuth ``yaw_deg``
from +x towards +y and elevation ``pitch_deg`` above the horizontal (default 180°, 0°: straight back along −x,
a cable trailing behind the robot; 90° pulls towards +y). ``box_friction`` replaces the μ of every static box
(002 §6.4's top plate of another material, on every face here), for studies of a value 002 does not print.
``side_friction`` replaces the μ of every static box's vertical faces only, as the vertical model's
``world.side_friction``: each box is then two collision boxes (:func:`box_parts`), its top :data:`TOP_SLAB` with
the top's μ (the world file's, or ``box_friction``) and the rest with ``side_friction``; the geometry is the
box's, and the top μ reaches 1 mm down the faces (where the vertical model blends the two round the edge). A box
under a top plate is all faces, and the plate's rim below its own slab too (as the vertical model joins them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import numpy as np

from snake_core.controllers import JointController
from snake_core.gaits import Gait
from snake_core.registry import Param, checked, param_names
from snake_core.robot import MOTOR_GAIN_SCALE_PARAM, MOTOR_KP_PARAM, RobotParams, load_robot
from snake_core.validation import ConfigError

from ..analysis.rollover import PERTURBATION_PARAMS, Perturbation, module_roll, roll_over
from ..core.runlog import RunLog
from ..core.scenario import ROBOT_NAME, WORLD_PARAMS, Scenario
from ..core.sea_loop import JOINT_SIGNALS, Reading, record_joints, step_period
from ..core.world import SIDE_FRICTION, Box, World, load_world

#: Thickness of the top slab that keeps a box's top μ when its vertical faces have another [m].
TOP_SLAB = 1e-3
#: Largest ``world.box_yaw_deg`` [deg] and tether force [N] a scenario may set.
MAX_BOX_YAW_DEG = 45.0
MAX_TETHER_N = 10.0
#: ``world:`` of every 3-D engine (the module docstring).
WORLD_PARAMS = (
    *WORLD_PARAMS,
    Param("box_yaw_deg", 0.0, "deg", "every static box turned about the vertical through its centre", -MAX_BOX_YAW_DEG,
          MAX_BOX_YAW_DEG, source="002 §6.4, §7.4"),
    Param("box_friction", None, "", "μ of every static box's faces (unset: the world file's)", 0.0, 5.0,
          source="002 §6.4"),
    SIDE_FRICTION,
    Param("tether", None, "", "a constant pull at the tail tip, a mapping (`world.tether.*`; unset: none)",
          scalar=False, source="002 §3.4, §5.4"),
)
#: |joint_twist_deg| bound [deg]: beyond 90° a twist is a roll of the other kind (``joint_roll``) plus a twist.
MAX_TWIST_DEG = 90.0
#: ``robot.com_offset``; each of its values checked against the module's half length or half width as well.
COM_OFFSET = Param("com_offset", (0.0, 0.0, 0.0), "m", "each link's centre of mass moved from the module's axis, "
                   "[dx, dy, dz] in the link frame, inside the module", size=3, source="002 §6.4, §7.4")
#: The fields of a ``robot:`` section that say how the modules are put together (:class:`Layout`).
LAYOUT_PARAMS = (
    Param("joint_roll", 0, "deg", "the URDF's joint_roll: 0 (pitch joints), 90 (yaw), alternate (0/90/0/…) or one "
          "0/90 per joint", scalar=False),
    Param("joint_twist_deg", 0.0, "deg", "rotation of each joint axis about the link axis, one value or one per "
          "joint", -MAX_TWIST_DEG, MAX_TWIST_DEG, vector=True, source="002 §6.4, §7.4"),
    COM_OFFSET,
)
#: The ``robot:`` fields of every 3-D engine (an engine may add its own: :data:`MUJOCO_ROBOT_PARAMS`).
ROBOT_PARAMS = (ROBOT_NAME, *LAYOUT_PARAMS, MOTOR_GAIN_SCALE_PARAM)
#: MuJoCo's ``robot:`` adds another reading of the module's width (``module_width`` across flats, the same mass, the
#: inertia of the scaled shape: :meth:`snake_core.robot.RobotParams.with_module_width`) and the motor PD's K_p (e.g. a
#: calibrated one, ``snake-sim calibrate``). DART builds the robot file's URDF as Gazebo does.
MODULE_WIDTH = Param("module_width", None, "m", "the module's width across flats, at most its length (unset: the "
                     "robot file's links.width)", 0.0, low_open=True)
MUJOCO_ROBOT_PARAMS = (*ROBOT_PARAMS, MODULE_WIDTH, MOTOR_KP_PARAM)

SettingsT = TypeVar("SettingsT")


def section_params(robot: tuple[Param, ...], contact: tuple[Param, ...]) -> dict[str, tuple[Param, ...]]:
    """The specs of a 3-D engine's own sections (its runtime's ``PARAMS``): its ``robot`` and ``contact`` and the
    3-D engines' ``world``, ``world.tether`` and ``sim.perturbation``."""
    return {"robot": robot, "world": WORLD_PARAMS, "world.tether": TETHER_PARAMS, "contact": contact,
            "sim.perturbation": PERTURBATION_PARAMS}


#: The figures of a 3-D run (:data:`snake_sim.outputs.figures.FIGURE_SETS`), whichever engine ran.
FIGURES = "3d"


def joint_rolls(value: object, n_joints: int, source: str | None = None) -> tuple[int, ...]:
    """``robot.joint_roll`` as the URDF's ``joint_roll``: 0, 90, "alternate" (0/90/0/…) or one 0/90 per joint."""
    if value in (0, 90, "0", "90"):
        return (int(value),) * n_joints
    if value == "alternate":
        return tuple(90 * (j % 2) for j in range(n_joints))
    if isinstance(value, list) and len(value) == n_joints and all(v in (0, 90) for v in value):
        return tuple(int(v) for v in value)
    raise ConfigError("robot.joint_roll", value, f"must be 0, 90, alternate or a list of {n_joints} values 0 or 90 "
                      "(one per joint)", source)


@dataclass(frozen=True)
class Layout:
    """How the modules of a 3-D robot are put together: per joint the axis (the URDF's roll, 0 pitch / 90 yaw,
    turned by a twist about the link axis) and, per link, where the centre of mass sits in the link frame."""

    joint_roll: tuple[int, ...]  # 0 or 90 per joint [deg], tail → head
    joint_twist: tuple[float, ...]  # ψ_j, rotation of joint j's axis about the link's x axis (right hand) [rad]
    com_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)  # (dx, dy, dz) from (l, 0, 0), link frame [m]

    @classmethod
    def straight(cls, n_joints: int) -> Layout:
        """The robot file's robot: all joints pitch (roll 0), no twist, centres of mass on the module axis."""
        return cls((0,) * n_joints, (0.0,) * n_joints)

    def axes(self) -> np.ndarray:
        """(N−1, 3) unit joint axes in the link frame: R_x(ψ_j) (0, 1, 0) for roll 0 (pitch), R_x(ψ_j) (0, 0, −1)
        for roll 90 (yaw), as urdf/snake_module.xacro."""
        c, s = np.cos(self.joint_twist), np.sin(self.joint_twist)
        yaw = np.array(self.joint_roll) == 90
        return np.stack([np.zeros_like(c), np.where(yaw, s, c), np.where(yaw, -c, s)], axis=1)

    def com(self, half_length: float) -> np.ndarray:
        """(3,) a link's centre of mass in its frame [m]."""
        return np.array([half_length, 0.0, 0.0]) + self.com_offset

    def as_summary(self) -> dict[str, Any]:
        """The layout in a run's summary (degrees for the twist), read back by :meth:`from_summary`."""
        return {"joint_roll": list(self.joint_roll), "joint_twist_deg": [math.degrees(v) for v in self.joint_twist],
                "com_offset": list(self.com_offset)}

    def xacro_args(self) -> dict[str, str]:
        """The layout as the URDF's arguments ``joint_roll``, ``joint_twist`` [deg], ``com_offset`` [m]."""
        return {"joint_roll": " ".join(str(r) for r in self.joint_roll),
                "joint_twist": " ".join(repr(math.degrees(v)) for v in self.joint_twist),
                "com_offset": " ".join(repr(float(v)) for v in self.com_offset)}

    @classmethod
    def from_summary(cls, fields: dict[str, Any]) -> Layout:
        """The layout a run's summary fields record (a summary without twist or offset: none)."""
        rolls = tuple(fields["joint_roll"])
        twist = fields.get("joint_twist_deg", [0.0] * len(rolls))
        return cls(rolls, tuple(math.radians(v) for v in twist), tuple(fields.get("com_offset", (0.0, 0.0, 0.0))))


def layout_from(section: dict[str, Any], robot: RobotParams, source: str | None = None) -> Layout:
    """The :class:`Layout` of a ``robot:`` section (``joint_roll``, ``joint_twist_deg``, ``com_offset``), validated
    against ``robot`` (the centre of mass must stay inside the module)."""
    n = robot.n_joints
    values = checked(section, LAYOUT_PARAMS, "robot", source, n_joints=n, also=tuple(section))
    twist, offset = values["joint_twist_deg"], values["com_offset"]
    bounds = (robot.half_length, 0.5 * robot.module_width, 0.5 * robot.module_width)
    com = tuple(replace(COM_OFFSET, size=None, low=-b, high=b, low_open=True, high_open=True).check(
        v, f"robot.com_offset[{i}]", source) for i, (v, b) in enumerate(zip(offset, bounds, strict=True)))
    return Layout(joint_rolls(section.get("joint_roll", 0), n, source), tuple(math.radians(v) for v in twist),
                  com)  # type: ignore[arg-type]


def sea_robot(section: dict[str, Any], params: Sequence[Param], engine: str, source: str | None = None
              ) -> tuple[RobotParams, Layout]:
    """The ``robot:`` section of a 3-D run (``params``: the engine's fields, :data:`ROBOT_PARAMS` and its own): a robot
    with SEAs and its layout; ConfigError naming the field."""
    robot = load_robot(section["name"])  # robot.name as the scenario checked it
    values = checked(section, params, "robot", source, n_joints=robot.n_joints)
    if robot.sea is None or robot.actuator is None:
        raise ConfigError("robot.name", robot.name, f"the {engine} model needs a robot with SEAs (sea: and actuator: "
                          "sections), e.g. koopaee6", source)
    if values.get("module_width") is not None:  # MuJoCo only: another reading of links.width
        robot = robot.with_module_width(replace(MODULE_WIDTH, high=robot.link_length).check(
            values["module_width"], "robot.module_width", source))
    robot = robot.with_motor_gains(values["motor_gain_scale"], values.get("motor_kp"))
    return robot, layout_from(section, robot, source)


@dataclass(frozen=True)
class Tether:
    """A constant pull at the tail tip (``world.tether``): magnitude and world direction."""

    force: float = 0.0  # [N], 0 ≤ · ≤ MAX_TETHER_N
    yaw_deg: float = 180.0  # azimuth of the pull from +x towards +y [deg]
    pitch_deg: float = 0.0  # elevation of the pull above the horizontal [deg], |·| ≤ 90

    @property
    def vector(self) -> np.ndarray:
        """The force in the world frame (3,) [N]."""
        yaw, pitch = np.radians(self.yaw_deg), np.radians(self.pitch_deg)
        return self.force * np.array([np.cos(pitch) * np.cos(yaw), np.cos(pitch) * np.sin(yaw), np.sin(pitch)])


#: ``world.tether``: the pull of the cable through the slip ring at the tail (002 §3.4, §5.4).
_T = Tether()
TETHER_PARAMS = (
    Param("force", _T.force, "N", "magnitude of the pull (at most about the robot's weight)", 0.0, MAX_TETHER_N,
          source="002 §3.4, §5.4"),
    Param("yaw_deg", _T.yaw_deg, "deg", "azimuth of the pull from +x towards +y (180: straight back)", -360.0, 360.0),
    Param("pitch_deg", _T.pitch_deg, "deg", "elevation of the pull above the horizontal", -90.0, 90.0),
)


def tether_from(section: Any, source: str | None = None) -> Tether:
    """``world.tether`` (None: no pull), validated; ConfigError naming the field."""
    if section is None:
        return Tether()
    if not isinstance(section, dict):
        raise ConfigError("world.tether", section, "must be a mapping with " + ", ".join(param_names(TETHER_PARAMS)),
                          source)
    return Tether(**checked(section, TETHER_PARAMS, "world.tether", source))


def adjusted_boxes(world: World, yaw: float = 0.0, friction: float | None = None,
                   side_friction: float | None = None) -> World:
    """``world`` with every static box turned by ``yaw`` [rad] about the vertical through its centre and, unless
    None, of μ ``friction`` and of μ ``side_friction`` on its vertical faces."""
    if yaw == 0.0 and friction is None and side_friction is None:
        return world
    turned = {b: replace(b, yaw=b.yaw + yaw, friction=b.friction if friction is None else friction,
                         side_friction=side_friction) for b in world.static_boxes}
    return replace(world, boxes=tuple(turned.get(b, b) for b in world.boxes),
                   static_boxes=tuple(turned[b] for b in world.static_boxes))


def world_and_start(scenario: Scenario) -> tuple[World, float, Tether]:
    """The ``world:`` section of a 3-D run: the world (its boxes turned by ``box_yaw_deg``, of μ ``box_friction``,
    their vertical faces of μ ``side_friction``), the tail tip's x at t = 0 [m] and the tether's pull."""
    v = checked(scenario.section("world"), WORLD_PARAMS, "world", scenario.source)
    return (adjusted_boxes(load_world(v["file"]), np.radians(v["box_yaw_deg"]), v["box_friction"], v["side_friction"]),
            scenario.start_x, tether_from(v["tether"], scenario.source))


@dataclass(frozen=True)
class BoxPart:
    """One collision box of a static box in a 3-D engine: centre and full size in the world frame [m], μ."""

    center: tuple[float, float, float]
    size: tuple[float, float, float]
    mu: float


def box_parts(box: Box, default_mu: float, covered: bool = False) -> tuple[BoxPart, ...]:
    """The collision boxes of ``box``: the box itself with its μ (``default_mu`` where the world file gives none)
    or, when its vertical faces have another μ (``side_friction``), a body of that μ under a top slab of
    :data:`TOP_SLAB` (at most half the box) with the top's μ; same footprint, same yaw, same outer shape. A
    ``covered`` box (a top plate lies on it: :meth:`~snake_sim.core.world.World.covered`) is all faces."""
    mu = default_mu if box.friction is None else box.friction
    if box.side_friction is None:
        return (BoxPart(box.center, box.size, mu),)
    if covered:
        return (BoxPart(box.center, box.size, box.side_friction),)
    slab = min(TOP_SLAB, 0.5 * box.size[2])
    x, y, z = box.center
    sx, sy, sz = box.size
    return (BoxPart((x, y, z - 0.5 * slab), (sx, sy, sz - slab), box.side_friction),
            BoxPart((x, y, box.top - 0.5 * slab), (sx, sy, slab), mu))


def world(scenario: Scenario) -> World:
    """The scenario's world as the run meets it: its boxes turned by ``world.box_yaw_deg``, of μ
    ``world.box_friction`` (:func:`world_and_start`); each 3-D runtime exposes it as its ``world``."""
    return world_and_start(scenario)[0]


@dataclass(frozen=True, eq=False)
class EngineModel(Generic[SettingsT]):
    """The fields every 3-D engine's model has (never mutated); the engine's own model adds its handles."""

    robot: RobotParams
    world: World
    settings: SettingsT
    layout: Layout  # joint axes (roll, twist) and the links' centre of mass
    motor_dof: np.ndarray  # (N−1,) velocity index of motor_j (β̇_j)
    spring_dof: np.ndarray  # (N−1,) velocity index of spring_j (α̇_j − β̇_j)
    stiffness: np.ndarray  # K_j (N−1,) [N·m/rad]


ModelT = TypeVar("ModelT", bound=EngineModel)


@dataclass(eq=False)
class Setup3D(Generic[ModelT]):
    """What every 3-D run needs, validated from a scenario before anything runs; the engine's set-up adds its own
    fields and the SEA loop's ``read``, ``step`` (h at a time, :class:`snake_sim.core.sea_loop.SteppedEngine`),
    ``poses`` (:class:`snake_sim.core.sea_loop.SeaEngine`)."""

    scenario: Scenario
    robot: RobotParams
    model: ModelT
    gait: Gait
    controllers: list[JointController]
    perturbation: Perturbation
    start_x: float  # tail tip x at t = 0 [m]
    substeps: int  # physics steps per SEA control period
    log_every: int  # control periods per logged sample
    tether: Tether  # the pull at the tail tip (world.tether)

    @property
    def time_step(self) -> float:
        return self.model.settings.time_step

    @property
    def control_period(self) -> float:
        return self.time_step * self.substeps

    def advance(self, data: Any, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> None:
        """One control period, the engine's ``step`` h at a time (:func:`snake_sim.core.sea_loop.step_period`)."""
        step_period(self, data, beta_d, beta_d_dot, beta_d_acc)


def link_pitch(rotation: np.ndarray) -> np.ndarray:
    """(…, N) elevation of each link's axis above the horizontal [rad] from its orientation (…, N, 3, 3): 002's θ_i
    (from +x towards +z) for a robot heading along +x."""
    x = rotation[..., :, 0]
    return np.arctan2(x[..., 2], np.hypot(x[..., 0], x[..., 1]))


@dataclass(eq=False)
class Samples3D:
    """The logged samples of a 3-D run: every ``log_every``-th control instant, the engine's link poses."""

    t: np.ndarray  # (T,) [s]
    link_com: np.ndarray  # (T, N, 3) centres of mass [m]
    link_origin: np.ndarray  # (T, N, 3) link frame origins (the URDF's: tail-side end) [m]
    link_rotation: np.ndarray  # (T, N, 3, 3) link frame orientations (columns: the link's axes in the world)
    rotor_rotation: np.ndarray  # (T, N−1, 3, 3) rotor_j frame orientations (the URDF's rotor_j, turned by β_j)
    contacts: np.ndarray  # (T,) contacts
    joints: dict[str, np.ndarray]  # JOINT_SIGNALS → (T, N − 1)
    count: int = 0

    @classmethod
    def allocate(cls, robot: RobotParams, n_log: int) -> Samples3D:
        n, nj = robot.n_links, robot.n_joints
        return cls(np.zeros(n_log), np.zeros((n_log, n, 3)), np.zeros((n_log, n, 3)), np.zeros((n_log, n, 3, 3)),
                   np.zeros((n_log, nj, 3, 3)), np.zeros(n_log, dtype=int),
                   {k: np.full((n_log, nj), np.nan) for k in JOINT_SIGNALS})

    def record(self, t: float, poses: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], reading: Reading,
               beta_d: np.ndarray, refs: dict[str, np.ndarray]) -> None:
        """Append the sample at ``t``: link poses and rotor orientations from the engine (centres of mass, origins,
        rotations, rotor rotations), the reading, the commands and the references."""
        k = self.count
        self.t[k], (self.link_com[k], self.link_origin[k], self.link_rotation[k], self.rotor_rotation[k]) = t, poses
        self.contacts[k] = reading.contacts
        record_joints(self.joints, k, reading, beta_d, refs)
        self.count += 1

    def run_log(self, robot: RobotParams, status: str, summary_fields: dict[str, Any]) -> RunLog:
        """The samples so far as the run's log (x–z plane, θ the links' pitch) with the module rolls, the link
        poses (series ``module_roll``, ``link_origin``, ``link_rotation``, ``rotor_rotation``) and roll-over."""
        sl = slice(0, self.count)
        t, rotation = self.t[sl], self.link_rotation[sl]
        roll = module_roll(rotation, self.link_com[sl, -1] - self.link_com[sl, 0])
        return RunLog(robot=robot, plane="xz", t=t, link_position=self.link_com[sl], link_angle=link_pitch(rotation),
                      **{k: v[sl] for k, v in self.joints.items()}, contact_count=self.contacts[sl], status=status,
                      series={"module_roll": roll, "link_origin": self.link_origin[sl], "link_rotation": rotation,
                              "rotor_rotation": self.rotor_rotation[sl]},
                      summary_fields={**roll_over(t, roll), **summary_fields})


def summary_extra(log: RunLog, scenario: Scenario) -> dict[str, Any]:
    """Nothing more: roll-over, numerics and perturbation are in the log's ``summary_fields``."""
    return {}
