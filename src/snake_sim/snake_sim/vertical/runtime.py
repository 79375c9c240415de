"""The lock-step runtime of the vertical-plane simulator (002 ch. 4–5): gait → per-joint SEA
controllers → motor-side PD (4.39) → model (4.35), producing a :class:`~snake_sim.runlog.RunLog`.

Every control period (``sim.control_rate``) the runtime reads what the joint modules measure
(α, α̇, β, τ = K(α − β)), asks the gait for α_d, α̇_d, lets each joint's controller compute β_d,
β̇_d, and then integrates ``sim.time_step`` sub-steps during which the actuator PD follows
β_d + β̇_d s + ½ β̈_d s² (s = t − t_k; β̈_d the rate change over the last period), a reference
without steps in its rate, as 002's continuous α̇_d. The state is checked after every control
period; a non-finite state stops the run, and the log up to the last finite sample is kept
with ``status`` saying when and where.

Other runtimes and controllers build on :func:`build` (validated set-up from a scenario) and
:func:`simulate`; ``tick_hook(t, q, v, refs) -> refs`` lets a caller change the per-joint
references (α_d, α̇_d, τ_d arrays) each control period (head tracking, torque mode). :func:`simulate_batch`
steps several set-ups of one shape together (:mod:`snake_sim.vertical.batch`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from snake_core.actuator import motor_pd
from snake_core.controllers import JointController
from snake_core.gaits import Gait
from snake_core.robot import RobotParams, load_robot
from snake_core.validation import ConfigError, choice, number, positive, reject_unknown
from snake_core.vertical import ContactParams, Terrain, VerticalModel, build_model, initial_configuration
from snake_core.vertical.contact import CONTACT_THRESHOLD, SLIP_VELOCITY
from snake_core.vertical.dynamics import sea_torque
from snake_core.vertical.kinematics import link_angles, link_positions

from ..runlog import RunLog
from ..scenario import Scenario
from ..sea_loop import control_steps, motor_commands, sea_control
from ..signals import INTERRUPTED, StopRequest, stopped
from ..world import World, load_world
from .plant import VerticalPlant
from .stepper import VerticalStepper
from .terrain import terrain_from_world

ROBOT_FIELDS = ("name", "rotor_inertia_model", "sea_stiffness")
WORLD_FIELDS = ("file", "start_x", "side_friction")
CONTACT_FIELDS = ("friction", "stiffness", "damping", "threshold", "slip_velocity")

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


def contact_params(section: dict, source: str) -> ContactParams:
    """``contact:`` of a scenario (002 Table 5.1 defaults); ``friction`` is the ground's (and the robot's) μ_c."""
    if "side_friction" in section:
        raise ConfigError("contact.side_friction", section["side_friction"], "is no longer a contact field: an "
                          "obstacle's friction is its collision's <surface><friction><ode><mu> in the world file; "
                          "to override the μ of every box's vertical faces use world.side_friction (0 to 5)", source)
    reject_unknown(section, CONTACT_FIELDS, "contact", source)
    return ContactParams(
        friction=number(section.get("friction", 0.6), "contact.friction", source, low=0.0, high=5.0),
        stiffness=positive(section.get("stiffness", 550.0), "contact.stiffness", source),
        damping=number(section.get("damping", 10.0), "contact.damping", source, low=0.0),
        threshold=number(section.get("threshold", CONTACT_THRESHOLD), "contact.threshold", source, low=0.0,
                         high=0.1),
        slip_velocity=positive(section.get("slip_velocity", SLIP_VELOCITY), "contact.slip_velocity", source),
    )


def _robot(section: dict, source: str) -> RobotParams:
    reject_unknown(section, ROBOT_FIELDS, "robot", source)
    robot = load_robot(section["name"])
    if robot.sea is None or robot.actuator is None:
        raise ConfigError("robot.name", section["name"], "the vertical model needs a robot with SEAs (sea: and "
                          "actuator: sections), e.g. koopaee6", source)
    if "rotor_inertia_model" in section:
        reading = choice(section["rotor_inertia_model"], "robot.rotor_inertia_model", ("own", "reflected"), source)
        robot = dataclasses.replace(robot, actuator=dataclasses.replace(robot.actuator, rotor_inertia_model=reading))
    if "sea_stiffness" in section:  # e.g. near-rigid joints for comparisons
        k = positive(section["sea_stiffness"], "robot.sea_stiffness", source)
        robot = dataclasses.replace(robot, sea=dataclasses.replace(robot.sea, stiffness=(k,) * robot.n_joints))
    return robot


def build(scenario: Scenario) -> VerticalSetup:
    """Validate the vertical-model sections of ``scenario`` and assemble the run."""
    src = scenario.source
    robot = _robot(scenario.section("robot"), src)
    world_section = scenario.section("world")
    reject_unknown(world_section, WORLD_FIELDS, "world", src)
    world = load_world(world_section["file"])
    contact = contact_params(scenario.section("contact"), src)
    side = world_section.get("side_friction")
    side = None if side is None else number(side, "world.side_friction", src, low=0.0, high=5.0)
    terrain = terrain_from_world(world, contact.friction, side)
    model = build_model(robot)
    plant = VerticalPlant(model, terrain, contact, motor_pd(robot))
    gait, controllers = sea_control(scenario, robot)
    h = scenario.time_step
    substeps, log_every = control_steps(scenario, h)
    # Start: body straight along +x, tail tip at start_x, resting on the ground with the static
    # sag of the 2N+1 contact springs sharing the weight.
    start_x = number(world_section.get("start_x", 0.0), "world.start_x", src)
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
class _Samples:
    """The logged samples of a run: every ``log_every``-th control instant, joint signals tail → head."""

    JOINT_SIGNALS = ("alpha", "alpha_dot", "tau", "beta", "beta_ref", "alpha_ref", "alpha_ref_dot", "motor_torque")

    t: np.ndarray  # [s]
    link_position: np.ndarray  # (T, N, 3) centres of mass [m]
    link_angle: np.ndarray  # (T, N) θ [rad]
    contacts: np.ndarray  # points in contact
    joints: dict[str, np.ndarray]  # JOINT_SIGNALS → (T, N − 1)
    count: int = 0

    @classmethod
    def allocate(cls, model: VerticalModel, n_log: int) -> _Samples:
        return cls(np.zeros(n_log), np.zeros((n_log, model.n_links, 3)), np.zeros((n_log, model.n_links)),
                   np.zeros(n_log, dtype=int),
                   {k: np.full((n_log, model.n_joints), np.nan) for k in cls.JOINT_SIGNALS})

    def record(self, model: VerticalModel, t: float, q: np.ndarray, joints: dict[str, np.ndarray],
               n_contact: int) -> None:
        """Append the sample at ``t``: link poses from q (002 (4.2)–(4.5), §4.3.1) and the joint signals."""
        k = self.count
        self.t[k] = t
        self.link_position[k, :, 0], self.link_position[k, :, 2] = link_positions(model, q)
        self.link_angle[k] = link_angles(model, q)
        for key, val in joints.items():
            self.joints[key][k] = val
        self.contacts[k] = n_contact
        self.count += 1

    def run_log(self, robot: RobotParams, status: str) -> RunLog:
        """The samples recorded so far as the run's log (x–z plane)."""
        sl = slice(0, self.count)
        return RunLog(robot=robot, plane="xz", t=self.t[sl], link_position=self.link_position[sl],
                      link_angle=self.link_angle[sl], contact_count=self.contacts[sl], status=status,
                      **{k: v[sl] for k, v in self.joints.items()})


def _references(setup: VerticalSetup, t: float, q: np.ndarray, v: np.ndarray, tick_hook: TickHook | None
                ) -> dict[str, np.ndarray]:
    """The per-joint references at ``t``: the gait's α_d, α̇_d, no τ_d, as changed by ``tick_hook``."""
    alpha_d, alpha_d_dot = setup.gait.reference(t)
    refs = {"alpha_d": alpha_d, "alpha_d_dot": alpha_d_dot, "tau_d": np.zeros(setup.model.n_joints)}
    return refs if tick_hook is None else tick_hook(t, q, v, refs)


def extrapolated_command(s: float, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The actuator's command (β_d, β̇_d) at s after a control instant: the command extrapolated to second order with
    the rate change of the last period (β̈_d ≈ Δβ̇_d / T_c), so that β̇_d has no steps and the motor-side PD of
    002 (4.39) sees a smooth reference, as with 002's continuous α̇_d."""
    return beta_d + s * beta_d_dot + 0.5 * s * s * beta_d_acc, beta_d_dot + s * beta_d_acc


def _control_period(setup: VerticalSetup, q: np.ndarray, v: np.ndarray, beta_d: np.ndarray,
                    beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Integrate one control period under :func:`extrapolated_command`; returns (q, q̇, U, points in contact) at
    its end."""
    h = setup.time_step
    for i in range(1, setup.substeps + 1):  # backward Euler: the command at the end of each sub-step
        q, v, u, n_contact = setup.plant.step(q, v, h, *extrapolated_command(i * h, beta_d, beta_d_dot, beta_d_acc))
    return q, v, u, n_contact


def non_finite_status(setup: VerticalSetup, t: float, q: np.ndarray, v: np.ndarray, kept_until: float) -> str:
    """The ``status`` of a run whose state (q, q̇) at ``t`` is non-finite, its log kept up to ``kept_until``."""
    return (f"non-finite state at t = {t:.4f} s ({_first_bad(setup.model, q, v)}); "
            f"outputs up to t = {kept_until:.4f} s kept; with sim.time_step = "
            f"{setup.time_step:g} s, try a smaller step (e.g. 0.001)")


def progress_bar(duration: float, progress: bool) -> tqdm:
    """The bar of simulated seconds (shown if ``progress``)."""
    return tqdm(total=round(duration, 6), unit="s", disable=not progress, leave=False,
                bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s sim [{elapsed}<{remaining}]")


def simulate(setup: VerticalSetup, duration: float | None = None, progress: bool = False,
             tick_hook: TickHook | None = None, stop: StopRequest | None = None) -> RunLog:
    """Run ``setup`` for ``duration`` seconds (default: the scenario's) and return the log (up to ``stop``)."""
    model = setup.model
    duration = setup.scenario.duration if duration is None else positive(duration, "--duration")
    Tc = setup.control_period
    n_ticks = round(duration / Tc)
    samples = _Samples.allocate(model, n_ticks // setup.log_every + 1)
    for c in setup.controllers:
        c.reset()
    q, v = setup.q0.copy(), np.zeros(model.n_q)
    prev_rate = np.zeros(model.n_joints)
    u = np.zeros(model.n_joints)  # U of (4.39) consistent with the state (end of the last sub-step)
    n_contact = 0
    status = "ok"
    bar = progress_bar(duration, progress)
    bar_every = max(1, n_ticks // 100)
    for k in range(n_ticks + 1):
        t = k * Tc
        alpha, alpha_dot, beta = q[model.i_alpha], v[model.i_alpha], q[model.i_beta]
        tau = sea_torque(model, q)
        refs = _references(setup, t, q, v, tick_hook)
        beta_d, beta_d_dot = motor_commands(setup.controllers, t, Tc, alpha, alpha_dot, beta, tau, refs["alpha_d"],
                                            refs["alpha_d_dot"], refs["tau_d"])
        if k % setup.log_every == 0:
            samples.record(model, t, q, {"alpha": alpha, "alpha_dot": alpha_dot, "tau": tau, "beta": beta,
                                         "beta_ref": beta_d, "alpha_ref": refs["alpha_d"],
                                         "alpha_ref_dot": refs["alpha_d_dot"], "motor_torque": u}, n_contact)
        if k == n_ticks:
            break
        if stopped(stop):
            status = INTERRUPTED
            break
        beta_d_acc = np.zeros(model.n_joints) if k == 0 else (beta_d_dot - prev_rate) / Tc
        prev_rate = beta_d_dot
        q, v, u, n_contact = _control_period(setup, q, v, beta_d, beta_d_dot, beta_d_acc)
        if not math.isfinite(float(q @ q + v @ v)):  # NaN, inf or overflowing
            status = non_finite_status(setup, t + Tc, q, v, samples.t[samples.count - 1])
            break
        if k % bar_every == 0:
            bar.n = round(t + Tc, 6)
            bar.refresh()
    bar.close()
    return samples.run_log(setup.robot, status)


def run_scenario(scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """Build and simulate (:class:`snake_sim.models.ModelRuntime`)."""
    return simulate(build(scenario), progress=progress, stop=stop)


def summary_extra(log: RunLog, scenario: Scenario) -> dict[str, Any]:
    """No fields beyond :func:`snake_sim.summary.summarize`'s (climb, torques, contacts)."""
    return {}


def write_figures(log: RunLog, out: Path, world: World, animation: bool, plots: bool = True) -> list[Path]:
    """joints.png, com.png (``plots``) and the side view with the world's boxes, animation.gif (``animation``)."""
    from ..animation import write_animation  # matplotlib only where figures are drawn
    from ..plots import write_plots

    return [*(write_plots(log, out, world) if plots else []),
            *([write_animation(log, out / "animation.gif", world)] if animation else [])]


def batch_key(scenario: Scenario) -> Hashable:
    """:func:`snake_sim.vertical.batch.batch_key` (:class:`snake_sim.models.BatchedRuntime`)."""
    from .batch import batch_key as key  # the batch module builds on this one

    return key(scenario)


def simulate_batch(setups: Sequence[VerticalSetup], progress: bool = False) -> list[RunLog]:
    """Set-ups of one shape stepped together: :func:`snake_sim.vertical.batch.simulate_batch`."""
    from .batch import simulate_batch as run  # the batch module builds on this one

    return run(setups, progress)


def stepper(scenario: Scenario) -> VerticalStepper:
    """The scenario's model stepped by motor commands β_d (the ROS simulator node's)."""
    return VerticalStepper(build(scenario))
