"""The runtime of ``model: dart`` (issue 18): the shipped Gazebo set-up on DART, stepped as gz sim steps it.

Per physics step of ``sim.time_step`` (Gazebo's 1 ms): at every control period (``sim.control_rate``) each
joint's SEA controller of snake_core (any ``controller.mode``, unchanged) gets what its module measures and
publishes β_d (and β̇_d); at every controller-manager update (``update_rate`` of the controllers file) the
forward command controller(s) pass the last published values to pid_controller, whose effort command
(:mod:`.gz_control`) gz_ros2_control writes to the motor joints at every step; DART clamps it to the joint's
effort limit and integrates the motor joint's damping K_D and the springs implicitly (:mod:`.model`).

Scenario sections read here (besides the common ones of :mod:`snake_sim.scenario`)::

    robot:   {name: koopaee6, joint_roll: 0, controllers_file: koopaee6_gz.yaml}  # config/controllers/ or a path
    world:   {file: stairs, start_x: 0.0}        # tail tip x at t = 0 [m] (snake_sim.engine3d)
    contact: {friction, collision_detector, max_contacts}   # snake_sim.dart.settings
    sim:     {perturbation: {...}}               # snake_sim.rollover

The SEA control loop (:mod:`snake_sim.sea_loop`), roll-over, perturbation and start pose
(:mod:`snake_sim.rollover`), the logged samples and the figures (:mod:`snake_sim.engine3d`) are the MuJoCo
model's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from snake_core import locator
from snake_core.controllers import JointController
from snake_core.gaits import Gait
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError

from ..engine3d import Samples3D, sea_robot, summary_extra, world_and_start, write_figures
from ..rollover import Perturbation, perturbation_from, start_pose
from ..runlog import RunLog
from ..scenario import Scenario
from ..sea_loop import control_steps, motor_commands, sea_control
from ..signals import INTERRUPTED, StopRequest, stopped
from . import gz_control as gz
from . import model as dm
from .sdf import gazebo_model
from .settings import settings_from

ROBOT_FIELDS = ("name", "joint_roll", "controllers_file")
__all__ = ["build", "run_scenario", "simulate", "summary_extra", "write_figures"]


@dataclass(eq=False)
class DartSetup:
    """Everything a DART run needs, validated from a scenario before anything runs."""

    scenario: Scenario
    robot: RobotParams
    model: dm.DartModel
    control: gz.GzControl
    gait: Gait
    controllers: list[JointController]
    perturbation: Perturbation
    start_x: float  # tail tip x at t = 0 [m]
    control_every: int  # physics steps per SEA control period
    update_every: int  # physics steps per controller-manager update
    log_every: int  # control periods per logged sample

    @property
    def control_period(self) -> float:
        return self.model.settings.time_step * self.control_every


def _controllers_file(robot: RobotParams, value: Any, source: str) -> Path:
    if value is None:
        return locator.data_dir() / "config" / "controllers" / f"{robot.name}_gz.yaml"
    path = Path(str(value))
    path = path if path.is_absolute() else locator.data_dir() / "config" / "controllers" / path
    if not path.is_file():
        raise ConfigError("robot.controllers_file", value, "no such file (a name in config/controllers/ or a path)",
                          source)
    return path


def build(scenario: Scenario) -> DartSetup:
    """Validate the DART model's sections of ``scenario``, convert the description and read the controllers."""
    src = scenario.source
    robot_section = scenario.section("robot")
    robot, rolls = sea_robot(robot_section, ROBOT_FIELDS, "DART", src)
    control = gz.load_gz_control(robot, _controllers_file(robot, robot_section.get("controllers_file"), src))
    world, start_x = world_and_start(scenario)
    settings = settings_from(scenario.time_step, scenario.section("contact"), src)
    sdf = gazebo_model(robot.name, " ".join(str(r) for r in rolls), settings.friction)
    model = dm.build_model(robot, world, settings, sdf, rolls)
    model.create_data()  # refuses worlds DART cannot take (ConfigError naming world.file) before anything runs
    gait, controllers = sea_control(scenario, robot)
    h = scenario.time_step
    control_every, log_every = control_steps(scenario, h)
    return DartSetup(scenario, robot, model, control, gait, controllers,
                     perturbation_from(scenario.data["sim"].get("perturbation"), src), start_x, control_every,
                     max(1, round(1.0 / (control.update_rate * h))), log_every)


def simulate(setup: DartSetup, duration: float | None = None, progress: bool = False,
             stop: StopRequest | None = None) -> RunLog:
    """Run ``setup`` for ``duration`` seconds (default: the scenario's) and return the log (up to ``stop``)."""
    model = setup.model
    duration = setup.scenario.duration if duration is None else duration
    h, Tc = model.settings.time_step, setup.control_period
    n_ticks = round(duration / Tc)
    nj = setup.robot.n_joints
    samples = Samples3D.allocate(setup.robot, n_ticks // setup.log_every + 1)
    saturated = 0

    data = model.create_data()
    dm.place(model, data, *start_pose(setup.robot, model.world.ground_height, setup.start_x, setup.perturbation))
    for c in setup.controllers:
        c.reset()
    pid = gz.activate(setup.control, dm.beta(model, data))
    effort = applied = np.zeros(nj)
    beta_d = beta_d_dot = np.zeros(nj)
    status, n_steps = "ok", n_ticks * setup.control_every
    for i in tqdm(range(n_steps + 1), desc="physics steps", disable=not progress, leave=False, miniters=1000):
        if i % setup.control_every == 0:
            k, t = i // setup.control_every, i * h
            alpha, alpha_dot = dm.alpha(model, data), dm.alpha_dot(model, data)
            beta, tau = dm.beta(model, data), dm.sea_torque(model, data)
            alpha_d, alpha_d_dot = setup.gait.reference(t)
            beta_d, beta_d_dot = motor_commands(setup.controllers, t, Tc, alpha, alpha_dot, beta, tau, alpha_d,
                                                alpha_d_dot)
            if k % setup.log_every == 0:
                samples.record(t, dm.link_positions(data), dm.link_origins(data), dm.link_rotations(data),
                               dm.rotor_rotations(data),
                               {"alpha": alpha, "alpha_dot": alpha_dot, "tau": tau, "beta": beta, "beta_ref": beta_d,
                                "alpha_ref": alpha_d, "alpha_ref_dot": alpha_d_dot,
                                "motor_torque": dm.motor_torque(model, data, applied)}, dm.contact_count(data))
        if i == n_steps:
            break
        if i % setup.control_every == 0 and stopped(stop):
            status = INTERRUPTED
            break
        if i % setup.update_every == 0:
            gz.forward(setup.control, pid, beta_d, beta_d_dot)
            effort = gz.update(setup.control, pid, dm.beta(model, data), dm.beta_dot(model, data),
                               setup.update_every * h)
        applied = dm.command(data, effort)
        saturated += int(np.any(applied != effort))
        dm.step(data)
        if not np.isfinite(data.skeleton.getPositions()).all():
            status = (f"non-finite state at t = {(i + 1) * h:.4f} s; outputs up to "
                      f"t = {samples.t[samples.count - 1]:.4f} s kept; with sim.time_step = {h:g} s, try a smaller "
                      "step")
            break
    motor = model.sdf.joint("motor_1")
    return samples.run_log(setup.robot, status, {
        "model": "dart", "numerics": model.settings.as_summary(), "joint_roll": list(model.joint_roll),
        "gazebo": {**setup.control.summary(), "effort_limit_nm": motor.effort, "motor_damping": motor.damping,
                   "effort_saturated_fraction": saturated / max(1, i)},
        "perturbation": asdict(setup.perturbation)})


def run_scenario(scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """The ``model: dart`` entry point: build and simulate."""
    return simulate(build(scenario), progress=progress, stop=stop)
