"""Robot parameters: one validated, immutable object per ``config/robots/<name>.yaml``.

The robot file is the single source of the robot's numbers; xacro, the simulators, the
controllers and the CAN driver all read it. Links are identical modules (002 §3.3); joint order
is tail (joint 1) to head (joint N-1), as in 002.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import locator, yaml_files
from .registry import Param, checked, defaults, param_table
from .validation import ConfigError

#: 002 (4.36) ambiguity (docs/readings.md): the rotor kinetic energy is either
#: ½ J_r β̇² ("own": the rotor's angular velocity is only its own) or ½ n² J_r β̇² ("reflected").
ROTOR_INERTIA_MODELS = ("own", "reflected")

#: Frame sets of the joint-module bus (docs/can_protocol.md; ``snake_hardware.protocol.PROFILES``):
#: "classic" one COMMAND and one STATE per joint, "compact" grouped commands and 4-byte states, "fd" CAN FD.
CAN_PROFILES = ("classic", "compact", "fd")


@dataclass(frozen=True)
class SEAParams:
    """Series elastic actuator spring, 002 §3.3.2: τ_j = K_j (α_j − β_j), 002 (4.36)."""

    stiffness: tuple[float, ...]  # K_j [N·m/rad], one per joint
    deflection_limit: float  # |α − β| beyond which the torque sensor saturates [rad]
    torque_resolution: float  # [N·m]


@dataclass(frozen=True)
class ActuatorParams:
    """Geared servo behind the spring and its motor-side PD, 002 (4.36), (4.39)."""

    gear_ratio: float  # n
    rotor_mass: float  # m_r [kg]
    rotor_inertia: float  # J_r [kg·m²]
    rotor_inertia_model: str  # "own" | "reflected", see ROTOR_INERTIA_MODELS
    kp: float  # K_p [N·m/rad]
    kd: float  # K_D [N·m·s/rad]
    stall_torque: float  # [N·m]
    max_speed: float  # [rad/s]
    #: U within the servo's torque–speed line through stall_torque and max_speed (snake_core.actuator); false: (4.39)
    #: unbounded, as 002's simulation (Table 5.1 prints no line)
    torque_speed_line: bool = True

    @property
    def reflected_inertia(self) -> float:
        """n² J_r, the rotor's inertia seen at the link side through the gear [kg·m²]."""
        return self.gear_ratio**2 * self.rotor_inertia

    @property
    def rotor_term(self) -> float:
        """Inertia multiplying β̈ in the motor equation for the chosen reading of 002 (4.36)."""
        return self.rotor_inertia * (self.gear_ratio**2 if self.rotor_inertia_model == "reflected" else 1.0)


@dataclass(frozen=True)
class FrictionParams:
    """Ground friction of a link: viscous (004 (16)–(20)) and/or regularised Coulomb."""

    c_t: float  # viscous, tangential (along the link) [N·s/m]
    c_n: float  # viscous, normal (across the link) [N·s/m]
    c_theta: float  # viscous, rotational [N·m·s]
    mu_t: float  # Coulomb, tangential
    mu_n: float  # Coulomb, normal


@dataclass(frozen=True)
class RobotParams:
    """A modular snake of ``n_links`` identical links joined by ``n_links − 1`` joints."""

    name: str
    n_links: int  # N (002) / n (004)
    link_length: float  # 2l [m]
    link_mass: float  # m [kg]
    link_inertia: float  # J about the link's centre of mass, about the joint axis (planar models) [kg·m²]
    module_width: float  # across flats of the octagonal module [m]
    joint_limit: float  # |α_j| ≤ joint_limit [rad]
    joint_velocity_limit: float  # [rad/s]
    joint_effort_limit: float  # [N·m]
    sea: SEAParams | None  # None: rigid joints driven by torque (004)
    actuator: ActuatorParams | None
    friction: FrictionParams | None
    can_ids: tuple[int, ...] | None  # CAN module id of joint j (tail → head)
    can_profile: str = CAN_PROFILES[0]  # frame set on the bus, one of CAN_PROFILES
    #: the CAN master obeys an e-stop release frame another node sends (can.estop_release_from_bus; default: no,
    #: only the operator's release through the bridge counts)
    can_bus_release: bool = False
    #: 3-D principal moments about the centre of mass, link axes (x along the link) [kg·m²]; default J about all
    link_inertia_tensor: tuple[float, float, float] | None = None
    #: the simulators hold the joint angle α within ±joint_limit (joints.limit_alpha); false: only the motor's β and
    #: the references are limited, as in 002's simulation (Table 5.1 prints no limit on α)
    limit_alpha: bool = True

    @property
    def alpha_limit(self) -> float:
        """|α_j| ≤ alpha_limit in the simulators [rad]: joint_limit, or ∞ where the robot file lifts it."""
        return self.joint_limit if self.limit_alpha else math.inf

    @property
    def inertia_tensor(self) -> tuple[float, float, float]:
        """(J_xx, J_yy, J_zz) of a link in 3-D: the robot file's ``links.inertia_tensor``, else J about every axis."""
        return self.link_inertia_tensor or (self.link_inertia,) * 3

    @property
    def n_joints(self) -> int:
        return self.n_links - 1

    def with_module_width(self, width: float) -> RobotParams:
        """The robot with modules ``width`` across flats, same length and mass: the module's cross-section scaled by
        k = width / module_width, so J_xx becomes k² J_xx and J_yy, J_zz gain (k² − 1) ∫z² dm = (k² − 1) J_xx / 2
        (the octagon is symmetric in y and z: ∫y² dm = ∫z² dm = J_xx / 2; ∫x² dm does not change)."""
        k2 = (width / self.module_width) ** 2
        jxx, jyy, jzz = self.inertia_tensor
        tensor = (k2 * jxx, jyy + 0.5 * (k2 - 1.0) * jxx, jzz + 0.5 * (k2 - 1.0) * jxx)
        return replace(self, module_width=width, link_inertia_tensor=tensor)

    def with_motor_gains(self, scale: float | None = None, kp: float | None = None) -> RobotParams:
        """The robot with the motor-side PD gains (4.39) K_p and K_D times ``scale`` s (a scenario's
        :data:`MOTOR_GAIN_SCALE_PARAM`; None: 1, the robot file's gains), then K_p = ``kp`` (:data:`MOTOR_KP_PARAM`,
        e.g. a calibrated one; None: the scaled file's); the robot as it is without an actuator. s is how much
        stiffer (s > 1) or softer the servo's position loop is than the robot file's K_p and K_D, which 002 prints
        (Table 5.1) and does not measure on its robot. Both values as their specs check them."""
        if self.actuator is None:
            return self
        s = 1.0 if scale is None else scale
        kp = s * self.actuator.kp if kp is None else kp
        return replace(self, actuator=replace(self.actuator, kp=kp, kd=s * self.actuator.kd))

    @property
    def half_length(self) -> float:
        """l, half the link length (002 Fig. 4.1, 004 Table 1)."""
        return 0.5 * self.link_length

    @property
    def total_mass(self) -> float:
        return self.n_links * self.link_mass

    @property
    def total_length(self) -> float:
        return self.n_links * self.link_length


#: Largest ``robot.motor_gain_scale``.
MAX_MOTOR_GAIN_SCALE = 100.0
#: A scenario's ``robot:`` field scaling the motor-side PD gains (4.39) (:meth:`RobotParams.with_motor_gains`).
MOTOR_GAIN_SCALE_PARAM = Param("motor_gain_scale", None, "", "s, the motor-side PD gains K_p, K_D of the robot file "
                               "times s (unset: 1)", 0.0, MAX_MOTOR_GAIN_SCALE, low_open=True,
                               source="suite, on 002 (4.39), Table 5.1")
#: A scenario's ``robot:`` field setting the motor-side PD's K_p (:meth:`RobotParams.with_motor_gains`).
MOTOR_KP_PARAM = Param("motor_kp", None, "N·m/rad", "K_p of the motor-side PD, after motor_gain_scale (e.g. a "
                       "calibrated one; unset: the robot file's actuator.kp)", 0.0, low_open=True, source="002 (4.39)")

#: The robot file's top level: what it is, and its sections (each checked against its own specs below).
ROBOT_FILE_PARAMS = (
    Param("name", None, "", "the robot's name, the file's name without .yaml", kind=str, required=True),
    Param("description", "", "", "what the robot is, one line", kind=str),
    Param("source", "", "", "where its numbers come from (the papers' tables and sections)", kind=str),
    Param("links", None, "", "the identical modules (`links.*`)", scalar=False, required=True),
    Param("joints", None, "", "the joints' limits (`joints.*`)", scalar=False, required=True),
    Param("sea", None, "", "the series elastic actuators (`sea.*`; unset: rigid joints driven by torque, as 004's)",
          scalar=False, source="002 §3.3"),
    Param("actuator", None, "", "the geared servo behind each spring (`actuator.*`; required with sea)",
          scalar=False, source="002 (4.36), (4.39)"),
    Param("friction", None, "", "the planar models' ground friction of a link (`friction.*`; unset: none)",
          scalar=False, source="004 (10)–(20)"),
    Param("can", None, "", "the joint modules on the CAN bus (`can.*`; unset: a robot on no bus)", scalar=False),
)
#: ``links:`` of a robot file: N identical modules (002 §3.3), joint order tail (joint 1) to head (joint N − 1).
LINKS_PARAMS = (
    Param("count", None, "", "N, the number of links (N − 1 joints)", 2, kind=int, required=True,
          source="002 Table 3.2; 004 Table 1"),
    Param("length", None, "m", "2l, a link's length", 0.0, low_open=True, required=True,
          source="002 Fig. 4.1; 004 Table 1"),
    Param("mass", None, "kg", "m_l, a link's mass (the rotor's is actuator.rotor_mass)", 0.0, low_open=True,
          required=True, source="002 Table 5.1; 004 Table 1"),
    Param("inertia", None, "kg·m²", "J_l, a link's moment of inertia about its centre of mass, about the joint axis "
          "(the planar models')", 0.0, low_open=True, required=True, source="002 Table 5.1; 004 Table 1"),
    Param("inertia_tensor", None, "kg·m²", "the 3-D engines' principal moments about the centre of mass, [J_xx, J_yy, "
          "J_zz] with x along the link, each at most the sum of the other two (unset: J_l about every axis)", 0.0,
          low_open=True, size=3),
    Param("width", None, "m", "the module's width across flats (the octagonal module's diameter)", 0.0,
          low_open=True, required=True, source="002 Table 3.2"),
)
#: ``joints:`` of a robot file: the limits of every joint (degrees at the edge, radians inside).
JOINTS_PARAMS = (
    Param("limit_deg", None, "deg", "the joints' bound ±limit_deg on the references, the motor's β and the joint "
          "angle α", 0.0, 180.0, low_open=True, required=True, source="002 Table 3.2"),
    Param("limit_alpha", True, "", "the simulators hold the joint angle α within ±limit_deg; false: only β and the "
          "references are limited, as in 002's simulation (Table 5.1 prints no limit on α)", kind=bool,
          source="002 Table 5.1"),
    Param("velocity_limit", None, "rad/s", "the joints' speed bound (the servo's maximum speed)", 0.0, low_open=True,
          required=True, source="002 Table 3.1"),
    Param("effort_limit", None, "N·m", "the joints' torque bound (the servo's stall torque)", 0.0, low_open=True,
          required=True, source="002 Table 3.1"),
)
#: ``sea:`` of a robot file: the spring between motor and link, τ_j = K_j (α_j − β_j), 002 (4.36).
SEA_PARAMS = (
    Param("stiffness", None, "N·m/rad", "K_j, the spring's stiffness: one value for every joint or one per joint",
          0.0, low_open=True, vector=True, required=True, source="002 §3.3.2, (4.36)"),
    Param("deflection_limit_deg", None, "deg", "the spring's deflection α − β (either sign) beyond which the torque "
          "sensor saturates", 0.0, 90.0, low_open=True, required=True, source="002 §3.3.2"),
    Param("torque_resolution", None, "N·m", "the torque sensor's resolution", 0.0, low_open=True, required=True,
          source="002 §3.3.2, Table 3.2"),
)
#: ``actuator:`` of a robot file: the geared servo behind the spring and its motor-side PD, 002 (4.36), (4.39).
ACTUATOR_PARAMS = (
    Param("gear_ratio", None, "", "n, the servo's gear ratio", 0.0, low_open=True, required=True,
          source="002 Table 3.1, (4.36)"),
    Param("rotor_mass", None, "kg", "m_r, the rotor's mass (at the joint)", 0.0, required=True,
          source="002 Table 5.1"),
    Param("rotor_inertia", None, "kg·m²", "J_r, the rotor's moment of inertia", 0.0, low_open=True, required=True,
          source="002 Table 5.1"),
    Param("rotor_inertia_model", ROTOR_INERTIA_MODELS[0], "", "the rotor's kinetic energy: own (½ J_r β̇²) or "
          "reflected (½ n² J_r β̇²)", choices=ROTOR_INERTIA_MODELS, source="002 (4.36)"),
    Param("kp", None, "N·m/rad", "K_p of the motor-side PD", 0.0, low_open=True, required=True,
          source="002 (4.39), Table 5.1"),
    Param("kd", None, "N·m·s/rad", "K_D of the motor-side PD", 0.0, required=True, source="002 (4.39), Table 5.1"),
    Param("stall_torque", None, "N·m", "the servo's stall torque", 0.0, low_open=True, required=True,
          source="002 Table 3.1"),
    Param("max_speed", None, "rad/s", "the servo's maximum speed", 0.0, low_open=True, required=True,
          source="002 Table 3.1"),
    Param("torque_speed_line", True, "", "U of (4.39) within the servo's torque–speed line through stall_torque and "
          "max_speed; false: unbounded, as in 002's simulation (Table 5.1 prints no line)", kind=bool,
          source="suite, on 002 (4.39)"),
)
#: ``friction:`` of a robot file: a link's ground friction in the planar models, viscous and/or regularised Coulomb.
FRICTION_PARAMS = (
    Param("c_t", 0.0, "N·s/m", "viscous friction along the link", 0.0, source="004 (10), (16)–(20)"),
    Param("c_n", 0.0, "N·s/m", "viscous friction across the link", 0.0, source="004 (10), (16)–(20)"),
    Param("c_theta", 0.0, "N·m·s", "rotational viscous friction", 0.0, source="004 §6.1.3"),
    Param("mu_t", 0.0, "", "regularised Coulomb friction along the link", 0.0, source="003 §3.6"),
    Param("mu_n", 0.0, "", "regularised Coulomb friction across the link", 0.0, source="003 §3.6"),
)
#: ``can:`` of a robot file: the joint modules on the bus (docs/can_protocol.md).
MODULE_IDS = Param("module_ids", None, "", "each joint's module id on the bus, tail → head: one per joint, each "
                   "once", 1, 63, kind=int, size=0, required=True)
CAN_PARAMS = (
    MODULE_IDS,
    Param("profile", CAN_PROFILES[0], "", "the frame set on the bus: classic (one command and one state frame per "
          "joint), compact (grouped commands, 4-byte states) or fd (CAN FD)", choices=CAN_PROFILES),
    Param("estop_release_from_bus", False, "", "the CAN master obeys an e-stop release frame another node sends; "
          "false: only the operator's release through the bridge", kind=bool),
)
#: Each section of a robot file and its specs, in the file's order ("" the top level).
ROBOT_FILE_SECTIONS = {"": ROBOT_FILE_PARAMS, "links": LINKS_PARAMS, "joints": JOINTS_PARAMS, "sea": SEA_PARAMS,
                       "actuator": ACTUATOR_PARAMS, "friction": FRICTION_PARAMS, "can": CAN_PARAMS}


def robot_file_tables() -> str:
    """docs/robot.md's tables of the robot file's fields, made from the specs only (one per section)."""
    return "\n\n".join(f"**{section or 'top level'}**\n\n{param_table(params, section)}"
                        for section, params in ROBOT_FILE_SECTIONS.items())


def robot_from_dict(data: Any, source: str | None = None) -> RobotParams:
    """Validate a robot mapping (as read from YAML) against :data:`ROBOT_FILE_SECTIONS` and build
    :class:`RobotParams`."""
    if not isinstance(data, dict):
        raise ConfigError("<root>", data, "a robot file must be a YAML mapping", source)
    top = checked(data, ROBOT_FILE_PARAMS, "", source)
    links = checked(top["links"], LINKS_PARAMS, "links", source)
    joints = checked(top["joints"], JOINTS_PARAMS, "joints", source)
    n_joints = links["count"] - 1

    sea = actuator = friction = None
    if top["sea"] is not None:
        s = checked(top["sea"], SEA_PARAMS, "sea", source, n_joints=n_joints)
        sea = SEAParams(s["stiffness"], math.radians(s["deflection_limit_deg"]), s["torque_resolution"])
    if top["actuator"] is not None:
        actuator = ActuatorParams(**checked(top["actuator"], ACTUATOR_PARAMS, "actuator", source))
    if sea is not None and actuator is None:
        raise ConfigError("actuator", None, "is required when sea is given (the spring needs a motor behind it)",
                          source)
    if top["friction"] is not None:
        friction = FrictionParams(**checked(top["friction"], FRICTION_PARAMS, "friction", source))
    can = {"module_ids": None, **defaults(CAN_PARAMS)}
    if top["can"] is not None:
        can = checked(top["can"], (replace(MODULE_IDS, size=n_joints), *CAN_PARAMS[1:]), "can", source)
        if len(set(can["module_ids"])) != n_joints:
            raise ConfigError("can.module_ids", top["can"]["module_ids"], "module ids must be unique", source)

    return RobotParams(
        name=top["name"],
        n_links=links["count"],
        link_length=links["length"],
        link_mass=links["mass"],
        link_inertia=links["inertia"],
        module_width=links["width"],
        joint_limit=math.radians(joints["limit_deg"]),
        joint_velocity_limit=joints["velocity_limit"],
        joint_effort_limit=joints["effort_limit"],
        sea=sea,
        actuator=actuator,
        friction=friction,
        can_ids=can["module_ids"],
        can_profile=can["profile"],
        can_bus_release=can["estop_release_from_bus"],
        link_inertia_tensor=_body_tensor(links["inertia_tensor"], source),
        limit_alpha=joints["limit_alpha"],
    )


def _body_tensor(j: tuple[float, float, float] | None, source: str | None) -> tuple[float, float, float] | None:
    """``links.inertia_tensor`` (checked against its spec), refused unless a body can have it: each moment ≤ the sum
    of the other two."""
    if j is not None and any(2.0 * v > sum(j) * (1.0 + 1e-12) for v in j):
        raise ConfigError("links.inertia_tensor", list(j), "must satisfy the triangle inequality (each moment ≤ the "
                          "sum of the other two)", source)
    return j


def load_robot(name: str | Path) -> RobotParams:
    """Load ``config/robots/<name>.yaml`` (or a path) into a validated :class:`RobotParams`."""
    path = locator.robot_file(name)
    if not path.is_file():
        raise ConfigError("robot.name", str(name), "unknown robot; known: " + ", ".join(locator.robot_names()))
    return _robot_of_text(path, yaml_files.read_file(path))


@functools.lru_cache(maxsize=32)
def _robot_of_text(path: Path, text: str) -> RobotParams:
    """The robot of the file ``path`` holding ``text``. Memoised: a launch reads the same robot file for each of its
    nodes, and its 0.01 s of YAML and validation add up; the text is the key, so an edited file is read afresh,
    and a RobotParams is immutable, so sharing one is safe."""
    return robot_from_dict(yaml_files.load_text(text, path), path.name)
