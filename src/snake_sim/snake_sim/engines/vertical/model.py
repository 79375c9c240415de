"""The vertical-plane model of a scenario (002 ch. 4–5), validated before anything runs: :func:`build` gives the
:class:`VerticalSetup` (robot, model (4.35), terrain, plant, gait and joint controllers, steps) and
:class:`VerticalData` the mutable state of a run. The set-up is the model as the SEA loop
(:mod:`snake_sim.core.sea_loop`) steps it: ``read``, ``advance`` and ``poses`` over a :class:`VerticalData`. The
runtime (:mod:`snake_sim.engines.vertical.runtime`), the batch (:mod:`snake_sim.engines.vertical.batch`) and the
stepper of the ROS simulator (:mod:`snake_sim.engines.vertical.stepper`) all build on it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from snake_core.actuator import motor_pd
from snake_core.controllers import JointController
from snake_core.gaits import Gait
from snake_core.registry import Param, checked
from snake_core.robot import MOTOR_GAIN_SCALE_PARAM, MOTOR_KP_PARAM, RobotParams, load_robot
from snake_core.validation import ConfigError
from snake_core.vertical import ContactParams, Terrain, VerticalModel, build_model, initial_configuration
from snake_core.vertical.contact import CONTACT_PARAMS
from snake_core.vertical.dynamics import sea_reading
from snake_core.vertical.kinematics import link_poses

from ...core.scenario import ROBOT_NAME, WORLD_PARAMS, Scenario
from ...core.sea_loop import Reading, References, control_steps, finite_state, gait_references, sea_control
from ...core.world import SIDE_FRICTION, World, load_world
from .plant import VerticalPlant
from .terrain import terrain_from_world

#: ``robot:`` of the vertical model (unset: the robot file's).
ROBOT_PARAMS = (
    ROBOT_NAME,
    Param("rotor_inertia_model", None, "", "how the rotor's inertia enters (4.35): own (J_r) or reflected (n² J_r); "
          "unset: the robot file's actuator.rotor_inertia_model", choices=("own", "reflected"), source="002 (4.35)"),
    Param("sea_stiffness", None, "N·m/rad", "K of every joint's spring (e.g. near-rigid joints for comparisons); "
          "unset: the robot file's sea.stiffness", 0.0, low_open=True, source="002 Table 5.1"),
    MOTOR_GAIN_SCALE_PARAM,
    MOTOR_KP_PARAM,
)

#: ``world:`` of the vertical model.
WORLD_PARAMS = (*WORLD_PARAMS, SIDE_FRICTION)

TickHook = Callable[[float, np.ndarray, np.ndarray, dict[str, np.ndarray]], dict[str, np.ndarray]]


@dataclass(eq=False)
class VerticalSetup:
    """Everything a vertical-plane run needs, validated from a scenario before anything runs."""

    scenario: Scenario
    robot: RobotParams
    model: VerticalModel
    world: World
    terrain: Terrain
    plant: VerticalPlant
    gait: Gait
    controllers: list[JointController]
    q0: np.ndarray
    time_step: float  # integration step h [s]
    substeps: int  # integration steps per control period
    log_every: int  # control periods per logged sample

    @property
    def control_period(self) -> float:
        return self.time_step * self.substeps

    # The model as the SEA loop steps it (snake_sim.core.sea_loop.SeaEngine), over a VerticalData.

    def read(self, data: VerticalData) -> Reading:
        """The data's own reading (α, α̇, β, τ (4.36), U of (4.39)) filled in at the current state: valid until the
        next ``read`` or ``advance`` of ``data`` (a tick reads it, steps the controllers and records it first)."""
        reading = data.reading
        sea_reading(self.model.stiffness, data.q, data.v, data.measured)
        reading.contacts = data.contacts
        return reading

    def advance(self, data: VerticalData, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray
                ) -> None:
        """One control period: ``substeps`` backward Euler steps of h, each with the motor command at its end, in one
        compiled call in place on the data (:meth:`~snake_sim.engines.vertical.plant.VerticalPlant.advance`)."""
        data.contacts = self.plant.advance(data.q, data.v, data.u, self.time_step, self.substeps, beta_d, beta_d_dot,
                                           beta_d_acc)

    def poses(self, data: VerticalData) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
        """((x, z) of the links' centres of mass (002 (4.2)–(4.5)), θ (§4.3.1))."""
        return link_poses(self.model, data.q)

    def finite(self, data: VerticalData) -> bool:
        return finite_state(data.q, data.v)

    def non_finite_status(self, data: VerticalData, t: float, kept_until: float) -> str:
        return non_finite_status(self, t, data.q, data.v, kept_until)


def contact_params(section: dict, source: str) -> ContactParams:
    """``contact:`` of a scenario (002 Table 5.1 defaults); ``friction`` is the ground's (and the robot's) μ_c."""
    if "side_friction" in section:
        raise ConfigError("contact.side_friction", section["side_friction"], "is no longer a contact field: an "
                          "obstacle's friction is its collision's <surface><friction><ode><mu> in the world file; "
                          "to override the μ of every box's vertical faces use world.side_friction (0 to 5)", source)
    return ContactParams(**checked(section, CONTACT_PARAMS, "contact", source))


def _robot(section: dict, source: str) -> RobotParams:
    values = checked(section, ROBOT_PARAMS, "robot", source)
    robot = load_robot(values["name"])
    if robot.sea is None or robot.actuator is None:
        raise ConfigError("robot.name", section["name"], "the vertical model needs a robot with SEAs (sea: and "
                          "actuator: sections), e.g. koopaee6", source)
    if values["rotor_inertia_model"] is not None:
        robot = dataclasses.replace(robot, actuator=dataclasses.replace(
            robot.actuator, rotor_inertia_model=values["rotor_inertia_model"]))
    if values["sea_stiffness"] is not None:
        k = (values["sea_stiffness"],) * robot.n_joints
        robot = dataclasses.replace(robot, sea=dataclasses.replace(robot.sea, stiffness=k))
    return robot.with_motor_gains(values["motor_gain_scale"], values["motor_kp"])


def build(scenario: Scenario) -> VerticalSetup:
    """Validate the vertical-model sections of ``scenario`` and assemble the run."""
    src = scenario.source
    robot = _robot(scenario.section("robot"), src)
    world_values = checked(scenario.section("world"), WORLD_PARAMS, "world", src)
    world = load_world(world_values["file"])
    contact = contact_params(scenario.section("contact"), src)
    terrain = terrain_from_world(world, contact.friction, world_values["side_friction"])
    model = build_model(robot)
    plant = VerticalPlant(model, terrain, contact, motor_pd(robot, saturate=True))  # the robot file's torque–speed line
    gait, controllers = sea_control(scenario, robot)
    h = scenario.time_step
    substeps, log_every = control_steps(scenario, h)
    # Start: body straight along +x, tail tip at start_x, resting on the ground with the static
    # sag of the 2N+1 contact springs sharing the weight.
    start_x = scenario.start_x
    ground = terrain.ground if terrain.ground is not None else float(terrain.height(np.array([start_x]))[0])
    cp = plant.contact
    sag = model.total_mass * model.gravity / (model.G_c.shape[0] * cp.stiffness)
    q0 = initial_configuration(model, start_x, ground + cp.threshold - sag)
    return VerticalSetup(scenario, robot, model, world, terrain, plant, gait, controllers, q0, h, substeps, log_every)


def _first_bad(model: VerticalModel, q: np.ndarray, v: np.ndarray) -> str:
    for name, arr in (("q", q), ("dq", v)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            return f"{name}[{model.coordinate_name(int(bad[0]))}]"
    return "state"


@dataclass(eq=False)
class VerticalData:
    """The mutable state of a vertical run: q, q̇, U of (4.39) at the end of the last step, points in contact; and
    the arrays of what the joint modules read, made once (:meth:`VerticalSetup.read` fills them in)."""

    q: np.ndarray
    v: np.ndarray
    u: np.ndarray
    contacts: int = 0
    measured: np.ndarray = field(init=False, repr=False)  # (4, N − 1): α, α̇, β, τ
    reading: Reading = field(init=False, repr=False)  # its rows, U (the array u) and the contacts

    def __post_init__(self) -> None:
        self.measured = np.empty((4, len(self.u)))
        alpha, alpha_dot, beta, tau = self.measured
        self.reading = Reading(alpha, alpha_dot, beta, tau, self.u, self.contacts)

    @classmethod
    def start(cls, setup: VerticalSetup) -> VerticalData:
        """At rest in the set-up's start configuration."""
        return cls(setup.q0.copy(), np.zeros(setup.model.n_q), np.zeros(setup.model.n_joints))


def references(setup: VerticalSetup, tick_hook: TickHook | None = None) -> References:
    """The per-joint references at t: the gait's α_d, α̇_d, no τ_d, as changed by ``tick_hook``."""
    gait = gait_references(setup.gait, setup.model.n_joints)
    if tick_hook is None:
        return gait
    return lambda t, data: tick_hook(t, data.q, data.v, gait(t, data))


def non_finite_status(setup: VerticalSetup, t: float, q: np.ndarray, v: np.ndarray, kept_until: float) -> str:
    """The ``status`` of a run whose state (q, q̇) at ``t`` is non-finite, its log kept up to ``kept_until``."""
    return (f"non-finite state at t = {t:.4f} s ({_first_bad(setup.model, q, v)}); "
            f"outputs up to t = {kept_until:.4f} s kept; with sim.time_step = "
            f"{setup.time_step:g} s, try a smaller step (e.g. 0.001)")


def progress_bar(duration: float, progress: bool) -> tqdm:
    """The bar of simulated seconds (shown if ``progress``)."""
    return tqdm(total=round(duration, 6), unit="s", disable=not progress, leave=False,
                bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s sim [{elapsed}<{remaining}]")


def period_shown(bar: tqdm, period: float, n_ticks: int, t0: float = 0.0) -> Callable[[float], None] | None:
    """The SEA loop's ``after_period`` that moves ``bar`` on to t − t0 [s] every hundredth of ``n_ticks`` periods
    (None if the bar is not shown)."""
    if bar.disable:
        return None
    every = max(1, n_ticks // 100)

    def show(t: float) -> None:  # t: the end of period k = (t − t0) / T_c − 1
        if (round((t - t0) / period) - 1) % every == 0:
            bar.n = round(t - t0, 6)
            bar.refresh()
    return show
