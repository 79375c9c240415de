"""The lock-step runtime of the 3-D model (issue 15): gait → per-joint SEA controllers → motor-side PD (4.39)
on MuJoCo, producing a :class:`~snake_sim.runlog.RunLog` like the vertical model's.

Every control period (``sim.control_rate``) each joint's controller of snake_core (any ``controller.mode``,
unchanged) gets what its module measures, α, α̇, β, τ = K(α − β) and the tail-side neighbour's α, and
returns β_d, β̇_d; MuJoCo then integrates ``sim.time_step`` steps during which the actuator follows
β_d + β̇_d s + ½ β̈_d s² (s = t − t_k, β̈_d the rate change over the last period), as the vertical runtime.

Scenario sections read here (besides the common ones of :mod:`snake_sim.scenario`)::

    robot:   {name: koopaee6, joint_roll: 0}     # 0 | 90 | alternate | one 0/90 per joint (the URDF's argument)
    world:   {file: stairs, start_x: 0.0}        # tail tip x at t = 0 [m]
    contact: {friction, solref, solimp, cone, solver}   # snake_sim.mujoco.settings
    sim:     {perturbation: {roll_deg: 5, lateral_offset: 0.0, joint_noise_deg: 1, seed: 0}}

Roll-over (002 §6.4, §7.4): ``max_roll_deg`` is the largest |roll| of any module about its own axis over the
run, ``rolled_over`` whether it passed :data:`ROLL_OVER_DEG`, ``time_of_roll_over_s`` when. A symmetric robot on
a symmetric world never rolls: ``sim.perturbation`` sets an initial roll of the whole body about its axis, a
lateral offset and joint-angle noise drawn from ``seed`` (deterministic for a seed).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
from tqdm import tqdm

from snake_core.controllers import JointController, JointMeasurement, JointReference, make_joint_controllers
from snake_core.gaits import Gait, make_gait
from snake_core.robot import RobotParams, load_robot
from snake_core.validation import ConfigError, get, integer, number, reject_unknown

from ..runlog import RunLog
from ..scenario import Scenario
from ..world import World, load_world
from . import model as mm
from .mjcf import joint_rolls
from .settings import settings_from

ROBOT_FIELDS = ("name", "joint_roll")
WORLD_FIELDS = ("file", "start_x")
PERTURBATION_FIELDS = ("roll_deg", "lateral_offset", "joint_noise_deg", "seed")
#: A module rolled past this about its own axis has rolled over [deg] (issue 15 item 4).
ROLL_OVER_DEG = 60.0


@dataclass(frozen=True)
class Perturbation:
    """Initial asymmetry of a 3-D run (``sim.perturbation``)."""

    roll_deg: float = 0.0  # roll of the whole body about its axis at t = 0 [deg], |·| ≤ 45
    lateral_offset: float = 0.0  # y of the tail tip at t = 0 [m], |·| ≤ 1
    joint_noise_deg: float = 0.0  # standard deviation of the initial joint angles [deg], ≤ 10
    seed: int = 0  # of the joint-angle noise

    def joint_angles(self, n_joints: int, limit: float) -> np.ndarray:
        """Initial α (N−1,) [rad]: Gaussian noise of ``joint_noise_deg`` from ``seed``, within the joint limit."""
        noise = np.random.default_rng(self.seed).normal(0.0, math.radians(self.joint_noise_deg), n_joints)
        return np.clip(noise, -limit, limit)


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


def _perturbation(section: Any, source: str) -> Perturbation:
    if section is None:
        return Perturbation()
    if not isinstance(section, dict):
        raise ConfigError("sim.perturbation", section, "must be a mapping with " + ", ".join(PERTURBATION_FIELDS),
                          source)
    reject_unknown(section, PERTURBATION_FIELDS, "sim.perturbation", source)
    p = "sim.perturbation."
    return Perturbation(
        roll_deg=number(section.get("roll_deg", 0.0), p + "roll_deg", source, low=-45.0, high=45.0),
        lateral_offset=number(section.get("lateral_offset", 0.0), p + "lateral_offset", source, low=-1.0, high=1.0),
        joint_noise_deg=number(section.get("joint_noise_deg", 0.0), p + "joint_noise_deg", source, low=0.0,
                               high=10.0),
        seed=integer(section.get("seed", 0), p + "seed", source, low=0),
    )


def build(scenario: Scenario) -> MujocoSetup:
    """Validate the 3-D model's sections of ``scenario`` and compile its MuJoCo model."""
    src = scenario.source
    robot_section = scenario.section("robot")
    reject_unknown(robot_section, ROBOT_FIELDS, "robot", src)
    robot = load_robot(robot_section["name"])
    if robot.sea is None or robot.actuator is None:
        raise ConfigError("robot.name", robot.name, "the MuJoCo model needs a robot with SEAs (sea: and actuator: "
                          "sections), e.g. koopaee6", src)
    rolls = joint_rolls(robot_section.get("joint_roll", 0), robot.n_joints, src)
    world_section = scenario.section("world")
    reject_unknown(world_section, WORLD_FIELDS, "world", src)
    world = load_world(world_section["file"])
    if world.ground_height is None:
        raise ConfigError("world.file", world_section["file"], "the MuJoCo model needs a world with a ground plane",
                          src)
    settings = settings_from(scenario.time_step, scenario.section("contact"), src)
    model = mm.build_model(robot, world, settings, rolls)
    gait_section = scenario.section("gait")
    gait = make_gait(get(gait_section, "type", "gait", src), robot.n_joints, gait_section, src)
    ctrl = scenario.section("controller")
    controllers = make_joint_controllers(ctrl.get("mode", "position"), robot, ctrl, src)
    substeps = max(1, round(scenario.control_period / scenario.time_step))
    log_every = max(1, round(scenario.log_period / (scenario.time_step * substeps)))
    return MujocoSetup(scenario, robot, model, gait, controllers,
                       _perturbation(scenario.data["sim"].get("perturbation"), src),
                       number(world_section.get("start_x", 0.0), "world.start_x", src), substeps, log_every)


def _start(setup: MujocoSetup, data: mm.MujocoData) -> None:
    """Body straight along +x (up to the joint noise), tail tip at start_x, resting on the ground on the
    octagon's circumscribed circle (so that any initial roll starts above the ground)."""
    r, p = setup.robot, setup.perturbation
    radius = 0.5 * r.module_width / math.cos(math.pi / 8)
    tail = (setup.start_x, p.lateral_offset, setup.model.world.ground_height + radius)
    mm.place(setup.model, data, tail, math.radians(p.roll_deg), p.joint_angles(r.n_joints, r.joint_limit))


def roll_over(t: np.ndarray, roll: np.ndarray) -> dict[str, Any]:
    """``max_roll_deg``, ``rolled_over``, ``time_of_roll_over_s`` from the (T, N) module rolls [rad]."""
    worst = np.degrees(np.abs(roll)).max(axis=1) if len(t) else np.zeros(0)
    over = np.flatnonzero(worst > ROLL_OVER_DEG)
    return {"max_roll_deg": float(worst.max()) if len(t) else None, "rolled_over": bool(over.size),
            "time_of_roll_over_s": float(t[over[0]] - t[0]) if over.size else None}


def simulate(setup: MujocoSetup, duration: float | None = None, progress: bool = False) -> RunLog:
    """Run ``setup`` for ``duration`` seconds (default: the scenario's) and return the log."""
    model = setup.model
    duration = setup.scenario.duration if duration is None else duration
    h, nsub, Tc = model.settings.time_step, setup.substeps, setup.control_period
    n_ticks = round(duration / Tc)
    n_log = n_ticks // setup.log_every + 1
    nj, n = setup.robot.n_joints, setup.robot.n_links
    keys = ("alpha", "alpha_dot", "tau", "beta", "beta_ref", "alpha_ref", "alpha_ref_dot", "motor_torque")
    log = {k: np.full((n_log, nj), np.nan) for k in keys}
    t_log, pos = np.zeros(n_log), np.zeros((n_log, n, 3))
    pitch, roll = np.zeros((n_log, n)), np.zeros((n_log, n))
    qpos = np.zeros((n_log, model.mj.nq))  # MuJoCo's state, for the rendered animation
    contacts = np.zeros(n_log, dtype=int)

    data = model.create_data()
    _start(setup, data)
    for c in setup.controllers:
        c.reset()
    prev_rate = np.zeros(nj)
    status, k_log = "ok", 0
    for k in tqdm(range(n_ticks + 1), desc="control periods", disable=not progress, leave=False):
        t = k * Tc
        alpha, alpha_dot = mm.alpha(model, data), mm.alpha_dot(model, data)
        beta, tau = mm.beta(model, data), mm.sea_torque(model, data)
        alpha_d, alpha_d_dot = setup.gait.reference(t)
        beta_d, beta_d_dot = np.empty(nj), np.empty(nj)
        a_l, ad_l, b_l, t_l = alpha.tolist(), alpha_dot.tolist(), beta.tolist(), tau.tolist()
        r_l, rd_l = np.asarray(alpha_d, dtype=float).tolist(), np.asarray(alpha_d_dot, dtype=float).tolist()
        for j, ctrl in enumerate(setup.controllers):
            meas = JointMeasurement(a_l[j], ad_l[j], b_l[j], t_l[j], a_l[j - 1] if j > 0 else None)
            cmd = ctrl.step(t, Tc, meas, JointReference(r_l[j], rd_l[j], 0.0))
            beta_d[j], beta_d_dot[j] = cmd.beta_d, cmd.beta_d_dot
        if k % setup.log_every == 0:
            t_log[k_log] = t
            pos[k_log], pitch[k_log] = mm.link_positions(model, data), mm.link_pitch(model, data)
            roll[k_log], qpos[k_log] = mm.module_roll(model, data), data.mj.qpos
            for key, val in (("alpha", alpha), ("alpha_dot", alpha_dot), ("tau", tau), ("beta", beta),
                             ("beta_ref", beta_d), ("alpha_ref", alpha_d), ("alpha_ref_dot", alpha_d_dot),
                             ("motor_torque", mm.motor_torque(data))):
                log[key][k_log] = val
            contacts[k_log] = data.mj.ncon
            k_log += 1
        if k == n_ticks:
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
                      f"t = {t_log[k_log - 1]:.4f} s kept; with sim.time_step = {h:g} s, try a smaller step")
            break
    sl = slice(0, k_log)
    return RunLog(robot=setup.robot, plane="xz", t=t_log[sl], link_position=pos[sl], link_angle=pitch[sl],
                  **{key: series[sl] for key, series in log.items()}, contact_count=contacts[sl],
                  series={"module_roll": roll[sl], "qpos": qpos[sl]}, status=status,
                  summary_fields={**roll_over(t_log[sl], roll[sl]), "model": "mujoco",
                                  "numerics": model.settings.as_summary(), "joint_roll": list(model.joint_roll),
                                  "perturbation": asdict(setup.perturbation)})


def summary_extra(log: RunLog, scenario: Scenario) -> dict[str, Any]:
    """Nothing more: roll-over, numerics and perturbation are in the log's ``summary_fields``."""
    return {}


def write_figures(log: RunLog, out: Path, world: World, animation: bool, plots: bool = True) -> list[Path]:
    """joints.png, com.png (x–z and x–y) (``plots``) and animation.gif rendered by MuJoCo (``animation``)."""
    from ..plots import plot_joints  # matplotlib only where figures are drawn
    from . import figures

    return [*([plot_joints(log, out / "joints.png"), figures.plot_com(log, out / "com.png")] if plots else []),
            *([figures.write_animation(log, out / "animation.gif", world)] if animation else [])]


def run_scenario(scenario: Scenario, progress: bool = False) -> RunLog:
    """The ``RUNNERS["mujoco"]`` entry point: build and simulate."""
    return simulate(build(scenario), progress=progress)
