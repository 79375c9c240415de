"""The lock-step runtime of the 3-D model on MuJoCo: gait → per-joint SEA controllers → motor-side PD (4.39)
on MuJoCo, producing a :class:`~snake_sim.core.runlog.RunLog` like the vertical model's.

Every control period (``sim.control_rate``) each joint's controller of snake_core (any ``controller.mode``,
unchanged; :mod:`snake_sim.core.sea_loop`) gets what its module measures, α, α̇, β, τ = K(α − β) and the tail-side
neighbour's α, and returns β_d, β̇_d; MuJoCo then integrates ``sim.time_step`` steps during which the actuator
follows β_d + β̇_d s + ½ β̈_d s² (s = t − t_k, β̈_d the rate change over the last period), as the vertical runtime:
the loop is :func:`snake_sim.core.sea_loop.run`; this module gives it the model (:class:`MujocoSetup`'s ``read``,
``step``, ``poses``) over MuJoCo's data.

Scenario sections read here (besides the common ones of :mod:`snake_sim.core.scenario`)::

    robot:   {name: koopaee6, joint_roll: 0, joint_twist_deg: 0, com_offset: [0, 0, 0],   # engines.engine3d
              module_width: null,   # [m] across flats (null: the robot file's links.width; MuJoCo only)
              motor_kp: null}       # [N·m/rad] K_p of 002 (4.39) (null: the robot file's actuator.kp)
    world:   {file: stairs, start_x: 0.0, box_yaw_deg: 0, box_friction: null,
              tether: {force, yaw_deg, pitch_deg}}   # engines.engine3d
    contact: {friction, solref, solimp, cone, solver}   # snake_sim.engines.mujoco.settings
    sim:     {perturbation: {roll_deg: 5, lateral_offset: 0.0, joint_noise_deg: 1, seed: 0}}   # analysis.rollover

Roll-over (``max_roll_deg``, ``rolled_over``, ``time_of_roll_over_s``) and the perturbation:
:mod:`snake_sim.analysis.rollover`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import mujoco
import numpy as np
from tqdm import tqdm

from snake_core.validation import ConfigError

from ...analysis.rollover import perturbation_from, start_pose
from ...core.runlog import RunLog
from ...core.scenario import Scenario
from ...core.sea_loop import Reading, Tick, control_steps, gait_references, n_samples, run, sea_control
from ...core.signals import StopRequest
from .. import engine3d
from ..engine3d import (
    FIGURES,
    MUJOCO_ROBOT_PARAMS,
    Samples3D,
    Setup3D,
    sea_robot,
    summary_extra,
    world_and_start,
)
from . import model as mm
from .settings import CONTACT_PARAMS, settings_from

__all__ = ["FIGURES", "PARAMS", "build", "run_scenario", "simulate", "summary_extra"]

#: The specs of the model's own sections (:class:`snake_sim.core.models.ModelRuntime`).
PARAMS = engine3d.section_params(MUJOCO_ROBOT_PARAMS, CONTACT_PARAMS)


@dataclass(eq=False)
class MujocoSetup(Setup3D[mm.MujocoModel]):
    """Everything a 3-D run on MuJoCo needs (:class:`~snake_sim.engines.engine3d.Setup3D`)."""

    # The model as the SEA loop steps it (snake_sim.core.sea_loop.SeaEngine), over its MuJoCo data.
    command_timing = "start"  # mj_step integrates with the ctrl set before it

    def read(self, data: mm.MujocoData) -> Reading:
        m = self.model
        return Reading(mm.alpha(m, data), mm.alpha_dot(m, data), mm.beta(m, data), mm.sea_torque(m, data),
                       mm.motor_torque(m, data), data.mj.ncon)

    def step(self, data: mm.MujocoData, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None:
        """One step of h with the motor command (β_d, β̇_d) and the tether's pull set before it."""
        mm.command(self.model, data, beta_d, beta_d_dot)
        if self.tether.force:
            mm.pull_tail(self.model, data, self.tether.vector)
        mm.step(self.model, data)

    def poses(self, data: mm.MujocoData) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        m = self.model
        return (mm.link_positions(m, data), mm.link_origins(m, data), mm.link_rotations(m, data),
                mm.rotor_rotations(m, data))

    def finite(self, data: mm.MujocoData) -> bool:
        return not data.mj.warning[mujoco.mjtWarning.mjWARN_BADQACC].number and np.isfinite(data.mj.qpos).all()

    def non_finite_status(self, data: mm.MujocoData, t: float, kept_until: float) -> str:
        return (f"non-finite state at t = {t:.4f} s (MuJoCo: bad acceleration); outputs up to t = {kept_until:.4f} s "
                f"kept; with sim.time_step = {self.time_step:g} s, try a smaller step")


world = engine3d.world  # the runtime's world(scenario): the world file as the scenario changes it


def build(scenario: Scenario) -> MujocoSetup:
    """Validate the 3-D model's sections of ``scenario`` and compile its MuJoCo model."""
    src = scenario.source
    robot, layout = sea_robot(scenario.section("robot"), MUJOCO_ROBOT_PARAMS, "MuJoCo", src)
    world, start_x, tether = world_and_start(scenario)
    if world.ground_height is None:
        raise ConfigError("world.file", scenario.world_file, "the MuJoCo model needs a world with a ground plane",
                          src)
    settings = settings_from(scenario.time_step, scenario.section("contact"), src)
    model = mm.build_model(robot, world=world, settings=settings, layout=layout)
    gait, controllers = sea_control(scenario, robot)
    substeps, log_every = control_steps(scenario, scenario.time_step)
    return MujocoSetup(scenario, robot, model, gait, controllers,
                       perturbation_from(scenario.data["sim"].get("perturbation"), src), start_x, substeps, log_every,
                       tether)


def simulate(setup: MujocoSetup, duration: float | None = None, progress: bool = False,
             stop: StopRequest | None = None, start: mm.MujocoData | None = None, t0: float = 0.0) -> RunLog:
    """Run ``setup`` for ``duration`` seconds (default: the scenario's) and return the log (up to ``stop``); from
    ``start`` at time ``t0`` (the gait and controllers at t0 + t; default: at rest in the scenario's start pose at 0),
    e.g. a window of a recording restarted from its recorded state (:mod:`snake_studies.calibrate`)."""
    model = setup.model
    duration = setup.scenario.duration if duration is None else duration
    n_ticks = round(duration / setup.control_period)
    samples = Samples3D.allocate(setup.robot, n_samples(n_ticks, setup.log_every))
    tick = Tick(setup.controllers, gait_references(setup.gait, setup.robot.n_joints), samples, setup.log_every,
                setup.control_period)
    data = start
    if data is None:
        data = model.create_data()
        mm.place(model, data, *start_pose(setup.robot, model.world.ground_height, setup.start_x, setup.perturbation))
    with tqdm(total=n_ticks, desc="control periods", disable=not progress, leave=False) as bar:
        status = run(setup, data, tick, n_ticks, stop, lambda t: bar.update(), t0)
    return samples.run_log(setup.robot, status, {"model": "mujoco", "numerics": model.settings.as_summary(),
                                                 **model.layout.as_summary(),
                                                 "perturbation": asdict(setup.perturbation),
                                                 "tether": asdict(setup.tether)})


def run_scenario(scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """The ``model: mujoco`` entry point: build and simulate."""
    return simulate(build(scenario), progress=progress, stop=stop)
