"""The runtime of ``model: dart``: the shipped Gazebo set-up on DART, stepped as gz sim steps it.

Per physics step of ``sim.time_step`` (Gazebo's 1 ms): at every control period (``sim.control_rate``) each
joint's SEA controller of snake_core (any ``controller.mode``, unchanged) gets what its module measures and
publishes β_d (and β̇_d); at every controller-manager update (``update_rate`` of the controllers file) the
forward command controller(s) pass the last published values to pid_controller, whose effort command
(:mod:`.gz_control`) gz_ros2_control writes to the motor joints at every step; DART clamps it to the joint's
effort limit and integrates the motor joint's damping K_D and the springs implicitly (:mod:`.model`).

Scenario sections read here (besides the common ones of :mod:`snake_sim.core.scenario`)::

    robot:   {name: koopaee6, joint_roll: 0, joint_twist_deg: 0, com_offset: [0, 0, 0],   # engines.engine3d
              controllers_file: koopaee6_gz.yaml}  # config/controllers/ or a path
    world:   {file: stairs, start_x: 0.0, box_yaw_deg: 0, box_friction: null,
              tether: {force, yaw_deg, pitch_deg}}   # snake_sim.engines.engine3d
    contact: {friction, collision_detector, max_contacts}   # snake_sim.engines.dart.settings
    sim:     {perturbation: {...}}               # snake_sim.analysis.rollover

The SEA control loop (:func:`snake_sim.core.sea_loop.run`, over :class:`DartSetup`'s ``read``, ``step``, ``poses`` of a
:class:`DartRun`; the command held through the period, as the forward command controllers hold it), roll-over,
perturbation and start pose (:mod:`snake_sim.analysis.rollover`), the logged samples and the figures
(:mod:`snake_sim.engines.engine3d`) are the MuJoCo model's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from snake_core import locator
from snake_core.registry import Param
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError

from ...analysis.rollover import perturbation_from, start_pose
from ...core.runlog import RunLog
from ...core.scenario import Scenario
from ...core.sea_loop import Reading, Tick, control_steps, gait_references, n_samples, run, sea_control
from ...core.signals import StopRequest
from .. import engine3d
from ..engine3d import FIGURES, Samples3D, Setup3D, sea_robot, summary_extra, world_and_start
from . import gz_control as gz
from . import model as dm
from .sdf import gazebo_model
from .settings import CONTACT_PARAMS, settings_from

#: ``robot:`` of the DART model: the 3-D engines' and the controller manager's parameters.
ROBOT_PARAMS = (*engine3d.ROBOT_PARAMS, Param("controllers_file", None, "", "the controller manager's parameters, a "
                                                "file of config/controllers/ or a path (unset: <robot>_gz.yaml)",
                                                kind=str))
__all__ = ["FIGURES", "PARAMS", "build", "run_scenario", "simulate", "summary_extra"]

#: The specs of the model's own sections (:class:`snake_sim.core.models.ModelRuntime`).
PARAMS = engine3d.section_params(ROBOT_PARAMS, CONTACT_PARAMS)


@dataclass(eq=False)
class DartSetup(Setup3D[dm.DartModel]):
    """Everything a DART run needs (:class:`~snake_sim.engines.engine3d.Setup3D`, ``substeps`` the physics steps
    per SEA control period) and the controller manager's."""

    control: gz.GzControl
    update_every: int  # physics steps per controller-manager update

    # The model as the SEA loop steps it (snake_sim.core.sea_loop.SeaEngine), over a DartRun.
    command_timing = "hold"  # the forward command controllers pass the last published β_d, β̇_d as they are

    def read(self, run: DartRun) -> Reading:
        m, d = self.model, run.data
        return Reading(dm.alpha(m, d), dm.alpha_dot(m, d), dm.beta(m, d), dm.sea_torque(m, d),
                       dm.motor_torque(m, d, run.applied), dm.contact_count(d))

    def step(self, run: DartRun, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None:
        """One physics step of h as gz sim takes it: at every controller-manager update the forward command
        controllers pass (β_d, β̇_d) to pid_controller, whose effort is written to the motor joints at every step.
        Nothing more once the state is non-finite."""
        m, d = self.model, run.data
        if run.diverged_at is not None:
            return
        if run.steps % self.update_every == 0:
            gz.forward(self.control, run.pid, beta_d, beta_d_dot)
            run.effort = gz.update(self.control, run.pid, dm.beta(m, d), dm.beta_dot(m, d),
                                   self.update_every * self.time_step)
        run.applied = dm.command(d, run.effort)
        run.saturated += int(np.any(run.applied != run.effort))
        if self.tether.force:
            dm.pull_tail(d, self.tether.vector)
        dm.step(d)
        run.steps += 1
        if not np.isfinite(d.skeleton.getPositions()).all():
            run.diverged_at = run.steps * self.time_step

    def poses(self, run: DartRun) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        d = run.data
        return dm.link_positions(d), dm.link_origins(d), dm.link_rotations(d), dm.rotor_rotations(d)

    def finite(self, run: DartRun) -> bool:
        return run.diverged_at is None

    def non_finite_status(self, run: DartRun, t: float, kept_until: float) -> str:
        return (f"non-finite state at t = {run.diverged_at:.4f} s; outputs up to t = {kept_until:.4f} s kept; with "
                f"sim.time_step = {self.time_step:g} s, try a smaller step")


@dataclass(eq=False)
class DartRun:
    """The mutable state of a DART run: DART's data, pid_controller's state, the effort commanded and applied at
    the last step, physics steps taken, steps with a clamped effort, and when the state went non-finite."""

    data: dm.DartData
    pid: gz.PidState
    effort: np.ndarray
    applied: np.ndarray
    steps: int = 0
    saturated: int = 0
    diverged_at: float | None = None


def _controllers_file(robot: RobotParams, value: Any, source: str) -> Path:
    if value is None:
        return locator.data_dir() / "config" / "controllers" / f"{robot.name}_gz.yaml"
    path = Path(str(value))
    path = path if path.is_absolute() else locator.data_dir() / "config" / "controllers" / path
    if not path.is_file():
        raise ConfigError("robot.controllers_file", value, "no such file (a name in config/controllers/ or a path)",
                          source)
    return path


world = engine3d.world  # the runtime's world(scenario): the world file as the scenario changes it


def build(scenario: Scenario) -> DartSetup:
    """Validate the DART model's sections of ``scenario``, convert the description and read the controllers."""
    src = scenario.source
    robot_section = scenario.section("robot")
    robot, layout = sea_robot(robot_section, ROBOT_PARAMS, "DART", src)
    control = gz.load_gz_control(robot, _controllers_file(robot, robot_section.get("controllers_file"), src))
    world, start_x, tether = world_and_start(scenario)
    settings = settings_from(scenario.time_step, scenario.section("contact"), src)
    sdf = gazebo_model(robot.name, layout, settings.friction)
    model = dm.build_model(robot, world=world, settings=settings, sdf=sdf, layout=layout)
    model.create_data()  # refuses worlds DART cannot take (ConfigError naming world.file) before anything runs
    gait, controllers = sea_control(scenario, robot)
    h = scenario.time_step
    substeps, log_every = control_steps(scenario, h)
    return DartSetup(scenario, robot, model, gait, controllers,
                     perturbation_from(scenario.data["sim"].get("perturbation"), src), start_x, substeps, log_every,
                     tether, control, max(1, round(1.0 / (control.update_rate * h))))


def simulate(setup: DartSetup, duration: float | None = None, progress: bool = False,
             stop: StopRequest | None = None) -> RunLog:
    """Run ``setup`` for ``duration`` seconds (default: the scenario's) and return the log (up to ``stop``)."""
    model = setup.model
    duration = setup.scenario.duration if duration is None else duration
    n_ticks = round(duration / setup.control_period)
    nj = setup.robot.n_joints
    samples = Samples3D.allocate(setup.robot, n_samples(n_ticks, setup.log_every))
    tick = Tick(setup.controllers, gait_references(setup.gait, nj), samples, setup.log_every,
                setup.control_period)
    data = model.create_data()
    dm.place(model, data, *start_pose(setup.robot, model.world.ground_height, setup.start_x, setup.perturbation))
    state = DartRun(data, gz.activate(setup.control, dm.beta(model, data)), np.zeros(nj), np.zeros(nj))
    with tqdm(total=n_ticks, desc="control periods", disable=not progress, leave=False) as bar:
        status = run(setup, state, tick, n_ticks, stop, lambda t: bar.update())
    motor = model.sdf.joint("motor_1")
    return samples.run_log(setup.robot, status, {
        "model": "dart", "numerics": model.settings.as_summary(), **model.layout.as_summary(),
        "gazebo": {**setup.control.summary(), "effort_limit_nm": motor.effort, "motor_damping": motor.damping,
                   "effort_saturated_fraction": state.saturated / max(1, state.steps)},
        "perturbation": asdict(setup.perturbation), "tether": asdict(setup.tether)})


def run_scenario(scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """The ``model: dart`` entry point: build and simulate."""
    return simulate(build(scenario), progress=progress, stop=stop)
