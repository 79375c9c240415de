"""The runtime of ``model: dart`` (issue 18): the shipped Gazebo set-up on DART, stepped as gz sim steps it.

Per physics step of ``sim.time_step`` (Gazebo's 1 ms): at every control period (``sim.control_rate``) each
joint's SEA controller of snake_core (any ``controller.mode``, unchanged) gets what its module measures and
publishes β_d (and β̇_d); at every controller-manager update (``update_rate`` of the controllers file) the
forward command controller(s) pass the last published values to pid_controller, whose effort command
(:mod:`.gz_control`) gz_ros2_control writes to the motor joints at every step; DART clamps it to the joint's
effort limit and integrates the motor joint's damping K_D and the springs implicitly (:mod:`.model`).

Scenario sections read here (besides the common ones of :mod:`snake_sim.scenario`)::

    robot:   {name: koopaee6, joint_roll: 0, controllers_file: koopaee6_gz.yaml}  # config/controllers/ or a path
    world:   {file: stairs, start_x: 0.0}        # tail tip x at t = 0 [m]
    contact: {friction, collision_detector, max_contacts}   # snake_sim.dart.settings
    sim:     {perturbation: {...}}               # as the MuJoCo model's

Roll-over, perturbation and start pose are the MuJoCo model's (:mod:`snake_sim.mujoco.runtime`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from snake_core import locator as paths
from snake_core.controllers import JointController, JointMeasurement, JointReference, make_joint_controllers
from snake_core.gaits import Gait, make_gait
from snake_core.robot import RobotParams, load_robot
from snake_core.validation import ConfigError, get, number, reject_unknown

from ..mujoco import runtime as mujoco_runtime
from ..mujoco.mjcf import joint_rolls
from ..mujoco.runtime import Perturbation, _perturbation, roll_over
from ..runlog import RunLog
from ..scenario import Scenario
from ..world import load_world
from . import gz_control as gz
from . import model as dm
from .sdf import gazebo_model
from .settings import settings_from

ROBOT_FIELDS = ("name", "joint_roll", "controllers_file")
WORLD_FIELDS = ("file", "start_x")


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
        return paths.data_dir() / "config" / "controllers" / f"{robot.name}_gz.yaml"
    path = Path(str(value))
    path = path if path.is_absolute() else paths.data_dir() / "config" / "controllers" / path
    if not path.is_file():
        raise ConfigError("robot.controllers_file", value, "no such file (a name in config/controllers/ or a path)",
                          source)
    return path


def build(scenario: Scenario) -> DartSetup:
    """Validate the DART model's sections of ``scenario``, convert the description and read the controllers."""
    src = scenario.source
    robot_section = scenario.section("robot")
    reject_unknown(robot_section, ROBOT_FIELDS, "robot", src)
    robot = load_robot(robot_section["name"])
    if robot.sea is None or robot.actuator is None:
        raise ConfigError("robot.name", robot.name, "the DART model needs a robot with SEAs (sea: and actuator: "
                          "sections), e.g. koopaee6", src)
    rolls = joint_rolls(robot_section.get("joint_roll", 0), robot.n_joints, src)
    control = gz.load_gz_control(robot, _controllers_file(robot, robot_section.get("controllers_file"), src))
    world_section = scenario.section("world")
    reject_unknown(world_section, WORLD_FIELDS, "world", src)
    world = load_world(world_section["file"])
    settings = settings_from(scenario.time_step, scenario.section("contact"), src)
    sdf = gazebo_model(robot.name, " ".join(str(r) for r in rolls), settings.friction)
    model = dm.build_model(robot, world, settings, sdf, rolls)
    model.create_data()  # refuses worlds DART cannot take (ConfigError naming world.file) before anything runs
    gait_section = scenario.section("gait")
    gait = make_gait(get(gait_section, "type", "gait", src), robot.n_joints, gait_section, src)
    ctrl = scenario.section("controller")
    controllers = make_joint_controllers(ctrl.get("mode", "position"), robot, ctrl, src)
    h = scenario.time_step
    control_every = max(1, round(scenario.control_period / h))
    return DartSetup(scenario, robot, model, control, gait, controllers,
                     _perturbation(scenario.data["sim"].get("perturbation"), src),
                     number(world_section.get("start_x", 0.0), "world.start_x", src), control_every,
                     max(1, round(1.0 / (control.update_rate * h))),
                     max(1, round(scenario.log_period / (h * control_every))))


def _start(setup: DartSetup, data: dm.DartData) -> None:
    """Body straight along +x (up to the joint noise), tail tip at start_x, on the octagon's circumscribed circle."""
    r, p = setup.robot, setup.perturbation
    radius = 0.5 * r.module_width / math.cos(math.pi / 8)
    tail = (setup.start_x, p.lateral_offset, setup.model.world.ground_height + radius)
    dm.place(setup.model, data, tail, math.radians(p.roll_deg), p.joint_angles(r.n_joints, r.joint_limit))


def sea_commands(controllers: list[JointController], t: float, period: float, alpha: np.ndarray,
                 alpha_dot: np.ndarray, beta: np.ndarray, tau: np.ndarray, alpha_d: np.ndarray,
                 alpha_d_dot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """β_d, β̇_d (N−1,) of the joint controllers from what each module measures and the gait's α_d, α̇_d."""
    out = np.empty((2, len(controllers)))
    for j, ctrl in enumerate(controllers):
        meas = JointMeasurement(float(alpha[j]), float(alpha_dot[j]), float(beta[j]), float(tau[j]),
                                float(alpha[j - 1]) if j > 0 else None)
        cmd = ctrl.step(t, period, meas, JointReference(float(alpha_d[j]), float(alpha_d_dot[j]), 0.0))
        out[:, j] = cmd.beta_d, cmd.beta_d_dot
    return out[0], out[1]


def simulate(setup: DartSetup, duration: float | None = None, progress: bool = False) -> RunLog:
    """Run ``setup`` for ``duration`` seconds (default: the scenario's) and return the log."""
    model = setup.model
    duration = setup.scenario.duration if duration is None else duration
    h, Tc = model.settings.time_step, setup.control_period
    n_ticks = round(duration / Tc)
    n_log = n_ticks // setup.log_every + 1
    nj, n = setup.robot.n_joints, setup.robot.n_links
    keys = ("alpha", "alpha_dot", "tau", "beta", "beta_ref", "alpha_ref", "alpha_ref_dot", "motor_torque")
    log = {k: np.full((n_log, nj), np.nan) for k in keys}
    t_log, pos = np.zeros(n_log), np.zeros((n_log, n, 3))
    pitch, roll = np.zeros((n_log, n)), np.zeros((n_log, n))
    contacts = np.zeros(n_log, dtype=int)
    saturated = 0

    data = model.create_data()
    _start(setup, data)
    for c in setup.controllers:
        c.reset()
    pid = gz.activate(setup.control, dm.beta(model, data))
    effort = applied = np.zeros(nj)
    beta_d = beta_d_dot = np.zeros(nj)
    status, k_log, n_steps = "ok", 0, n_ticks * setup.control_every
    for i in tqdm(range(n_steps + 1), desc="physics steps", disable=not progress, leave=False, miniters=1000):
        if i % setup.control_every == 0:
            k, t = i // setup.control_every, i * h
            alpha, alpha_dot = dm.alpha(model, data), dm.alpha_dot(model, data)
            beta, tau = dm.beta(model, data), dm.sea_torque(model, data)
            alpha_d, alpha_d_dot = (np.asarray(v, dtype=float) for v in setup.gait.reference(t))
            beta_d, beta_d_dot = sea_commands(setup.controllers, t, Tc, alpha, alpha_dot, beta, tau, alpha_d,
                                              alpha_d_dot)
            if k % setup.log_every == 0:
                t_log[k_log] = t
                pos[k_log], pitch[k_log] = dm.link_positions(data), dm.link_pitch(data)
                roll[k_log] = dm.module_roll(data)
                for key, val in (("alpha", alpha), ("alpha_dot", alpha_dot), ("tau", tau), ("beta", beta),
                                 ("beta_ref", beta_d), ("alpha_ref", alpha_d), ("alpha_ref_dot", alpha_d_dot),
                                 ("motor_torque", applied - model.sdf.joint("motor_1").damping
                                  * dm.beta_dot(model, data))):
                    log[key][k_log] = val
                contacts[k_log] = dm.contact_count(data)
                k_log += 1
        if i == n_steps:
            break
        if i % setup.update_every == 0:
            gz.forward(setup.control, pid, beta_d, beta_d_dot)
            effort = gz.update(setup.control, pid, dm.beta(model, data), dm.beta_dot(model, data),
                               setup.update_every * h)
        applied = dm.command(data, effort)
        saturated += int(np.any(applied != effort))
        dm.step(data)
        if not np.isfinite(data.skeleton.getPositions()).all():
            status = (f"non-finite state at t = {(i + 1) * h:.4f} s; outputs up to t = {t_log[k_log - 1]:.4f} s "
                      f"kept; with sim.time_step = {h:g} s, try a smaller step")
            break
    sl = slice(0, k_log)
    motor = model.sdf.joint("motor_1")
    return RunLog(robot=setup.robot, plane="xz", t=t_log[sl], link_position=pos[sl], link_angle=pitch[sl],
                  **{key: series[sl] for key, series in log.items()}, contact_count=contacts[sl],
                  series={"module_roll": roll[sl]}, status=status,
                  summary_fields={**roll_over(t_log[sl], roll[sl]), "model": "dart",
                                  "numerics": model.settings.as_summary(), "joint_roll": list(model.joint_roll),
                                  "gazebo": {**setup.control.summary(), "effort_limit_nm": motor.effort,
                                             "motor_damping": motor.damping,
                                             "effort_saturated_fraction": saturated / max(1, i)},
                                  "perturbation": asdict(setup.perturbation)})


#: As the MuJoCo model's: nothing beyond the log's ``summary_fields`` (roll-over, numerics, the Gazebo
#: configuration, perturbation); the vertical model's joints.png, com.png and side view (the log's plane is x–z).
summary_extra = mujoco_runtime.summary_extra
write_figures = mujoco_runtime.write_figures


def run_scenario(scenario: Scenario, progress: bool = False) -> RunLog:
    """Build and simulate."""
    return simulate(build(scenario), progress=progress)
