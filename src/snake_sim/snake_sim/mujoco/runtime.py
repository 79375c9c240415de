"""The lock-step runtime of the 3-D model (issue 15): gait → per-joint SEA controllers → motor-side PD (4.39)
on MuJoCo, producing a :class:`~snake_sim.runlog.RunLog` like the vertical model's.

Every control period (``sim.control_rate``) each joint's controller of snake_core (any ``controller.mode``,
unchanged; :mod:`snake_sim.sea_loop`) gets what its module measures, α, α̇, β, τ = K(α − β) and the tail-side
neighbour's α, and returns β_d, β̇_d; MuJoCo then integrates ``sim.time_step`` steps during which the actuator
follows β_d + β̇_d s + ½ β̈_d s² (s = t − t_k, β̈_d the rate change over the last period), as the vertical runtime.

Scenario sections read here (besides the common ones of :mod:`snake_sim.scenario`)::

    robot:   {name: koopaee6, joint_roll: 0}     # snake_sim.engine3d
    world:   {file: stairs, start_x: 0.0}        # tail tip x at t = 0 [m]
    contact: {friction, solref, solimp, cone, solver}   # snake_sim.mujoco.settings
    sim:     {perturbation: {roll_deg: 5, lateral_offset: 0.0, joint_noise_deg: 1, seed: 0}}   # snake_sim.rollover

Roll-over (``max_roll_deg``, ``rolled_over``, ``time_of_roll_over_s``) and the perturbation: :mod:`snake_sim.rollover`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import mujoco
import numpy as np
from tqdm import tqdm

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
from . import model as mm
from .settings import settings_from

ROBOT_FIELDS = ("name", "joint_roll")
__all__ = ["build", "run_scenario", "simulate", "summary_extra", "write_figures"]


@dataclass(eq=False)
class MujocoSetup:
    """Everything a 3-D run needs, validated from a scenario before anything runs."""

    scenario: Scenario
    robot: RobotParams
    model: mm.MujocoModel
    gait: Gait
    controllers: list[JointController]
    perturbation: Perturbation
    start_x: float  # tail tip x at t = 0 [m]
    substeps: int  # MuJoCo steps per control period
    log_every: int  # control periods per logged sample

    @property
    def control_period(self) -> float:
        return self.model.settings.time_step * self.substeps


def build(scenario: Scenario) -> MujocoSetup:
    """Validate the 3-D model's sections of ``scenario`` and compile its MuJoCo model."""
    src = scenario.source
    robot, rolls = sea_robot(scenario.section("robot"), ROBOT_FIELDS, "MuJoCo", src)
    world, start_x = world_and_start(scenario)
    if world.ground_height is None:
        raise ConfigError("world.file", scenario.world_file, "the MuJoCo model needs a world with a ground plane",
                          src)
    model = mm.build_model(robot, world, settings_from(scenario.time_step, scenario.section("contact"), src), rolls)
    gait, controllers = sea_control(scenario, robot)
    substeps, log_every = control_steps(scenario, scenario.time_step)
    return MujocoSetup(scenario, robot, model, gait, controllers,
                       perturbation_from(scenario.data["sim"].get("perturbation"), src), start_x, substeps, log_every)


def simulate(setup: MujocoSetup, duration: float | None = None, progress: bool = False,
             stop: StopRequest | None = None) -> RunLog:
    """Run ``setup`` for ``duration`` seconds (default: the scenario's) and return the log (up to ``stop``)."""
    model = setup.model
    duration = setup.scenario.duration if duration is None else duration
    h, nsub, Tc = model.settings.time_step, setup.substeps, setup.control_period
    n_ticks = round(duration / Tc)
    samples = Samples3D.allocate(setup.robot, n_ticks // setup.log_every + 1)
    nj = setup.robot.n_joints

    data = model.create_data()
    mm.place(model, data, *start_pose(setup.robot, model.world.ground_height, setup.start_x, setup.perturbation))
    for c in setup.controllers:
        c.reset()
    prev_rate = np.zeros(nj)
    status = "ok"
    for k in tqdm(range(n_ticks + 1), desc="control periods", disable=not progress, leave=False):
        t = k * Tc
        alpha, alpha_dot = mm.alpha(model, data), mm.alpha_dot(model, data)
        beta, tau = mm.beta(model, data), mm.sea_torque(model, data)
        alpha_d, alpha_d_dot = setup.gait.reference(t)
        beta_d, beta_d_dot = motor_commands(setup.controllers, t, Tc, alpha, alpha_dot, beta, tau, alpha_d,
                                            alpha_d_dot)
        if k % setup.log_every == 0:
            samples.record(t, mm.link_positions(model, data), mm.link_origins(model, data),
                           mm.link_rotations(model, data), mm.rotor_rotations(model, data),
                           {"alpha": alpha, "alpha_dot": alpha_dot, "tau": tau, "beta": beta, "beta_ref": beta_d,
                            "alpha_ref": alpha_d, "alpha_ref_dot": alpha_d_dot, "motor_torque": mm.motor_torque(data)},
                           data.mj.ncon)
        if k == n_ticks:
            break
        if stopped(stop):
            status = INTERRUPTED
            break
        beta_d_acc = np.zeros(nj) if k == 0 else (beta_d_dot - prev_rate) / Tc  # β̈_d over the last period
        prev_rate = beta_d_dot
        for i in range(nsub):
            s = i * h
            mm.command(model, data, beta_d + s * beta_d_dot + 0.5 * s * s * beta_d_acc, beta_d_dot + s * beta_d_acc)
            mm.step(model, data)
        bad_qacc = data.mj.warning[mujoco.mjtWarning.mjWARN_BADQACC].number
        if bad_qacc or not np.isfinite(data.mj.qpos).all():
            status = (f"non-finite state at t = {t + Tc:.4f} s (MuJoCo: bad acceleration); outputs up to "
                      f"t = {samples.t[samples.count - 1]:.4f} s kept; with sim.time_step = {h:g} s, try a smaller "
                      "step")
            break
    return samples.run_log(setup.robot, status, {"model": "mujoco", "numerics": model.settings.as_summary(),
                                                 "joint_roll": list(model.joint_roll),
                                                 "perturbation": asdict(setup.perturbation)})


def run_scenario(scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """The ``model: mujoco`` entry point: build and simulate."""
    return simulate(build(scenario), progress=progress, stop=stop)
