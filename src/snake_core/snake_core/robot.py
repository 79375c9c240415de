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
from .registry import Param
from .validation import (
    ConfigError,
    choice,
    flag,
    get,
    integer,
    non_negative,
    number,
    per_joint,
    positive,
    reject_unknown,
)

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

_TOP = ("name", "description", "source", "links", "joints", "sea", "actuator", "friction", "can")


def _sea_params(s: Any, n_joints: int, source: str | None) -> SEAParams:
    """The ``sea:`` section: spring stiffness per joint, deflection range, torque resolution."""
    reject_unknown(s, ("stiffness", "deflection_limit_deg", "torque_resolution"), "sea", source)
    return SEAParams(
        stiffness=per_joint(get(s, "stiffness", "sea", source), n_joints, "sea.stiffness", source,
                            low=0.0, low_open=True),
        deflection_limit=math.radians(number(get(s, "deflection_limit_deg", "sea", source),
                                             "sea.deflection_limit_deg", source, low=0.0, high=90.0,
                                             low_open=True)),
        torque_resolution=positive(get(s, "torque_resolution", "sea", source), "sea.torque_resolution", source),
    )


def _actuator_params(a: Any, source: str | None) -> ActuatorParams:
    """The ``actuator:`` section: gear, rotor, motor-side PD gains, servo limits."""
    reject_unknown(a, ("gear_ratio", "rotor_mass", "rotor_inertia", "rotor_inertia_model", "kp", "kd",
                       "stall_torque", "max_speed", "torque_speed_line"), "actuator", source)
    return ActuatorParams(
        gear_ratio=positive(get(a, "gear_ratio", "actuator", source), "actuator.gear_ratio", source),
        rotor_mass=non_negative(get(a, "rotor_mass", "actuator", source), "actuator.rotor_mass", source),
        rotor_inertia=positive(get(a, "rotor_inertia", "actuator", source), "actuator.rotor_inertia", source),
        rotor_inertia_model=choice(get(a, "rotor_inertia_model", "actuator", source, default="own"),
                                   "actuator.rotor_inertia_model", ROTOR_INERTIA_MODELS, source),
        kp=positive(get(a, "kp", "actuator", source), "actuator.kp", source),
        kd=non_negative(get(a, "kd", "actuator", source), "actuator.kd", source),
        stall_torque=positive(get(a, "stall_torque", "actuator", source), "actuator.stall_torque", source),
        max_speed=positive(get(a, "max_speed", "actuator", source), "actuator.max_speed", source),
        torque_speed_line=flag(get(a, "torque_speed_line", "actuator", source, default=True),
                               "actuator.torque_speed_line", source),
    )


def _friction_params(f: Any, source: str | None) -> FrictionParams:
    """The ``friction:`` section (planar ground friction, 004 (10)–(13)); missing coefficients are 0."""
    reject_unknown(f, ("c_t", "c_n", "c_theta", "mu_t", "mu_n"), "friction", source)
    return FrictionParams(*(non_negative(get(f, k, "friction", source, default=0.0), f"friction.{k}", source)
                            for k in ("c_t", "c_n", "c_theta", "mu_t", "mu_n")))


def _can_section(c: Any, n_joints: int, source: str | None) -> tuple[tuple[int, ...], str, bool]:
    """The ``can:`` section: one unique module id per joint, the bus profile, and whether an e-stop release frame
    from another node is obeyed."""
    reject_unknown(c, ("module_ids", "profile", "estop_release_from_bus"), "can", source)
    release = flag(get(c, "estop_release_from_bus", "can", source, default=False), "can.estop_release_from_bus",
                   source)
    profile = choice(get(c, "profile", "can", source, default=CAN_PROFILES[0]), "can.profile", CAN_PROFILES, source)
    ids = get(c, "module_ids", "can", source)
    if not isinstance(ids, list) or len(ids) != n_joints:
        raise ConfigError("can.module_ids", ids, f"must be a list of {n_joints} module ids (one per joint)", source)
    can_ids = tuple(integer(v, f"can.module_ids[{i}]", source, low=1, high=63) for i, v in enumerate(ids))
    if len(set(can_ids)) != len(can_ids):
        raise ConfigError("can.module_ids", ids, "module ids must be unique", source)
    return can_ids, profile, release


def robot_from_dict(data: Any, source: str | None = None) -> RobotParams:
    """Validate a robot mapping (as read from YAML) and build :class:`RobotParams`."""
    if not isinstance(data, dict):
        raise ConfigError("<root>", data, "a robot file must be a YAML mapping", source)
    reject_unknown(data, _TOP, "", source)
    name = get(data, "name", "", source)
    if not isinstance(name, str) or not name:
        raise ConfigError("name", name, "must be a non-empty string", source)

    links = get(data, "links", "", source)
    reject_unknown(links, ("count", "length", "mass", "inertia", "inertia_tensor", "width"), "links", source)
    n_links = integer(get(links, "count", "links", source), "links.count", source, low=2)
    joints = get(data, "joints", "", source)
    reject_unknown(joints, ("limit_deg", "limit_alpha", "velocity_limit", "effort_limit"), "joints", source)
    n_joints = n_links - 1

    sea = _sea_params(data["sea"], n_joints, source) if data.get("sea") is not None else None
    actuator = _actuator_params(data["actuator"], source) if data.get("actuator") is not None else None
    if sea is not None and actuator is None:
        raise ConfigError("actuator", None, "is required when sea is given (the spring needs a motor behind it)",
                          source)
    friction = _friction_params(data["friction"], source) if data.get("friction") is not None else None
    can_ids, can_profile, can_bus_release = None, CAN_PROFILES[0], False
    if data.get("can") is not None:
        can_ids, can_profile, can_bus_release = _can_section(data["can"], n_joints, source)

    return RobotParams(
        name=name,
        n_links=n_links,
        link_length=positive(get(links, "length", "links", source), "links.length", source),
        link_mass=positive(get(links, "mass", "links", source), "links.mass", source),
        link_inertia=positive(get(links, "inertia", "links", source), "links.inertia", source),
        module_width=positive(get(links, "width", "links", source), "links.width", source),
        joint_limit=math.radians(number(get(joints, "limit_deg", "joints", source), "joints.limit_deg", source,
                                        low=0.0, high=180.0, low_open=True)),
        joint_velocity_limit=positive(get(joints, "velocity_limit", "joints", source), "joints.velocity_limit",
                                      source),
        joint_effort_limit=positive(get(joints, "effort_limit", "joints", source), "joints.effort_limit", source),
        sea=sea,
        actuator=actuator,
        friction=friction,
        can_ids=can_ids,
        can_profile=can_profile,
        can_bus_release=can_bus_release,
        link_inertia_tensor=_inertia_tensor(links.get("inertia_tensor"), source),
        limit_alpha=flag(get(joints, "limit_alpha", "joints", source, default=True), "joints.limit_alpha", source),
    )


def _inertia_tensor(value: Any, source: str | None) -> tuple[float, float, float] | None:
    """``links.inertia_tensor``: three positive principal moments that a body can have (each ≤ the sum of the
    other two), or None."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 3:
        raise ConfigError("links.inertia_tensor", value, "must be a list of 3 principal moments [kg m^2] "
                          "(x along the link, y, z)", source)
    j = tuple(positive(v, f"links.inertia_tensor[{i}]", source) for i, v in enumerate(value))
    if any(2.0 * v > sum(j) * (1.0 + 1e-12) for v in j):
        raise ConfigError("links.inertia_tensor", value, "must satisfy the triangle inequality (each moment ≤ the "
                          "sum of the other two)", source)
    return j  # type: ignore[return-value]


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
