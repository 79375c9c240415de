"""The pushing runtime (001): the snake pushes the box of ``worlds/pushing.sdf`` with constant joint
torques from rest, producing a :class:`~snake_sim.core.runlog.RunLog` in the x–y plane
(``model: pushing``, :mod:`snake_sim.core.models`).

The dynamics are :func:`snake_sim.engines.pushing.plant.simulate` (Pinocchio snake, free box, penalty
contact, regularised wheels; see that module); :func:`snake_sim.engines.pushing.plant.compare` fits the
initial accelerations of robot and object and sets them beside 001's analysis
(:func:`snake_core.pushing.response.push`) for the same configuration and torques. The relative
errors, the contact model's error, go to ``summary.json`` under ``pushing``; the box pose is the
series ``object_pose`` (x, y, ψ; its corners ``object_outline``, drawn by the top-view animation),
the normal contact force ``contact_force`` [N].

Scenario sections (besides the common ones of :mod:`snake_sim.core.scenario`)::

    robot:      {name, initial_joint_angles: [φ_1 … φ_n_a] rad, tail → head}
    controller: {torque: [τ_1 … τ_n_a] N·m, tail → head}   # constant from t = 0
    contact:    {scenario: 1 | 2 | 3, stiffness: N/m, wheel_damping: N·s/m}
    sim:        {duration, time_step, log_rate}

001's scenarios: 1 no ground friction, 2 passive wheels with lateral friction bounded by μ_s m g,
3 ideal non-holonomic wheels. The robot's links must be those of the analysis model
(001 Table 1, e.g. ``config/robots/pushing3.yaml``): the world's box is κ of them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from snake_core.pushing import PushingError, Scenario
from snake_core.pushing.kinematics import joint_points, link_angles
from snake_core.pushing.study import configurations
from snake_core.registry import Param, checked, param_names
from snake_core.robot import RobotParams, load_robot
from snake_core.validation import ConfigError

from ...core.runlog import Diagnostic, RunLog
from ...core.scenario import ROBOT_NAME, SIM_DURATION, SIM_TIME_STEP, WORLD_FILE
from ...core.scenario import SIM_PARAMS as EVERY_MODEL_SIM
from ...core.scenario import Scenario as ScenarioFile
from ...core.signals import StopRequest
from .plant import (
    CONTACT_STIFFNESS,
    FIT_WINDOW,
    WHEEL_DAMPING,
    Comparison,
    PushingWorld,
    check_clear_of_box,
    compare,
    pushing_world,
)

#: ``robot.initial_joint_angles``: checked with the robot's joint count and limit.
INITIAL_JOINT_ANGLES = Param("initial_joint_angles", None, "rad", "the joint angles at rest at t = 0, one per joint, "
                             "tail → head, within the joint limit", size=0, required=True, source="001 §Results")
#: ``robot:`` of the pushing model.
ROBOT_PARAMS = (ROBOT_NAME, INITIAL_JOINT_ANGLES)
#: ``world:`` of the pushing model: the world file only (the robot starts against the world's box).
WORLD_PARAMS = (WORLD_FILE,)
#: ``controller.torque``: checked with the robot's joint count and effort limit.
TORQUE = Param("torque", None, "N·m", "the constant joint torques from t = 0, one per joint, tail → head, within the "
               "joint effort limit, not all zero", size=0, required=True, source="001 (31)")
#: ``controller:`` of the pushing model.
CONTROLLER_PARAMS = (TORQUE,)
#: ``contact:`` of the pushing model: 001's ground scenario and the regularisation of its rigid contacts.
CONTACT_PARAMS = (
    Param("scenario", int(Scenario.BOUNDED_WHEELS), "", "001's ground: 1 no friction, 2 passive wheels of bounded "
          "lateral friction, 3 ideal non-holonomic wheels", 1, 3, kind=int, source="001 §Results, Fig. 3"),
    Param("stiffness", CONTACT_STIFFNESS, "N/m", "penalty stiffness of the contact with the box (001 is rigid)", 0.0,
          low_open=True),
    Param("wheel_damping", WHEEL_DAMPING, "N·s/m", "lateral damping of the wheels (001's are rigid)", 0.0,
          low_open=True),
)
#: Largest ``sim.time_step`` [s]: the semi-implicit Euler step of the wheel damping c_w/m_eff and of
#: the penalty (√(k/m_eff)) must stay well inside stability; at the default gains (2e4 N·s/m,
#: 1e7 N/m) 1e-4 s still runs, 5e-5 s keeps a factor 2 and changes the fitted initial
#: accelerations by < 1e-5 relative to the 1e-6 s reference step of snake_sim.engines.pushing.plant.
MAX_TIME_STEP = 5e-5
#: ``sim.duration`` of the pushing model: long enough for the fit of the initial accelerations.
DURATION = replace(SIM_DURATION, low=FIT_WINDOW[1], low_open=False, description="simulated time, at least to the end "
                   "of the window the initial accelerations are fitted over")
#: ``sim:`` fields the pushing model narrows (the others as every model's).
SIM_PARAMS = (DURATION, replace(SIM_TIME_STEP, default=None, low=1e-7, high=MAX_TIME_STEP, low_open=False,
                                required=True, description="integration step h (semi-implicit Euler; every model's "
                                "default is too coarse)"))
#: The other ``sim:`` fields, as every model's.
SIM_ALSO = tuple(p.name for p in EVERY_MODEL_SIM if p.name not in param_names(SIM_PARAMS))


#: The figures of a run (:data:`snake_sim.outputs.figures.FIGURE_SETS`).
FIGURES = "top"
#: The specs of the model's own sections (:class:`snake_sim.core.models.ModelRuntime`).
PARAMS = {"robot": ROBOT_PARAMS, "world": WORLD_PARAMS, "controller": CONTROLLER_PARAMS, "contact": CONTACT_PARAMS,
          "sim": SIM_PARAMS}


def _robot(section: dict, world: PushingWorld, src: str) -> RobotParams:
    """The robot file's links must be the analysis model's (the world's box is κ of them)."""
    robot = load_robot(section["name"])
    m = world.model
    ours = (robot.link_mass, robot.link_length, robot.link_inertia, robot.module_width)
    theirs = (m.link_mass, m.link_length, m.link_inertia, world.robot_width)
    if not np.allclose(ours, theirs, rtol=1e-9, atol=0.0):
        raise ConfigError("robot.name", robot.name, "the pushing world and its analysis use 001 Table 1 links "
                          f"(m = {theirs[0]:g} kg, ℓ = {theirs[1]:g} m, I = {theirs[2]:g} kg·m², width "
                          f"{theirs[3]:g} m), e.g. robot pushing3; this robot has m = {ours[0]:g}, ℓ = {ours[1]:g}, "
                          f"I = {ours[2]:g}, width {ours[3]:g}", src)
    return robot


@dataclass(eq=False)
class PushingSetup:
    """A validated pushing run: the robot on the world's box, the start and the constant torques."""

    scenario: ScenarioFile
    robot: RobotParams
    world: PushingWorld
    q0: np.ndarray  # 001's q_s at rest, tail link along +x
    tau: np.ndarray  # constant joint torques, tail → head [N·m]
    which: Scenario  # 001's ground scenario
    settings: dict[str, float]  # keywords of plant.compare: stiffness, wheel_damping, duration, time_step


def build(scenario: ScenarioFile) -> PushingSetup:
    """Validate the pushing sections of ``scenario`` and assemble the run."""
    src = scenario.source
    rsec = checked(scenario.section("robot"), ROBOT_PARAMS, "robot", src)
    checked(scenario.section("world"), WORLD_PARAMS, "world", src)
    sim = checked(scenario.section("sim"), SIM_PARAMS, "sim", src, also=SIM_ALSO)
    n_joints = load_robot(rsec["name"]).n_joints
    world = pushing_world(n_joints, scenario.world_file)
    robot = _robot(rsec, world, src)
    phi = np.array(replace(INITIAL_JOINT_ANGLES, size=n_joints, low=-robot.joint_limit, high=robot.joint_limit).check(
        scenario.section("robot")["initial_joint_angles"], "robot.initial_joint_angles", src))  # as given
    torque = replace(TORQUE, size=n_joints, low=-robot.joint_effort_limit, high=robot.joint_effort_limit)
    tau = np.array(checked(scenario.section("controller"), (torque,), "controller", src)["torque"])
    if not tau.any():
        raise ConfigError("controller.torque", tau.tolist(), "must not be all zero (nothing would push)", src)
    csec = checked(scenario.section("contact"), CONTACT_PARAMS, "contact", src)
    which = Scenario(csec["scenario"])
    kw = {"stiffness": csec["stiffness"], "wheel_damping": csec["wheel_damping"], "duration": sim["duration"],
          "time_step": sim["time_step"]}
    q0 = configurations(phi)[0]
    try:
        check_clear_of_box(world, q0)
    except ConfigError as exc:
        raise ConfigError("robot.initial_joint_angles", rsec["initial_joint_angles"], exc.allowed, src) from None
    return PushingSetup(scenario, robot, world, q0, tau, which, kw)


def object_outline(world: PushingWorld, pose: np.ndarray) -> np.ndarray:
    """Corners of the box (T, 8: x₁, y₁ … x₄, y₄, counter-clockwise) at poses (T, 3) x, y, ψ."""
    half = 0.5 * np.asarray(world.box_size)
    local = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * half
    c, s = np.cos(pose[:, 2])[:, None], np.sin(pose[:, 2])[:, None]
    x = pose[:, :1] + c * local[:, 0] - s * local[:, 1]
    y = pose[:, 1:2] + s * local[:, 0] + c * local[:, 1]
    return np.stack((x, y), axis=-1).reshape(len(pose), 8)


def _summary(comp: Comparison, kw: dict, lost_at: float | None) -> dict[str, Any]:
    tr = comp.trajectory
    return {"pushing": {
        "scenario": int(comp.scenario),
        "joint_torque_Nm": comp.tau.tolist(),
        "initial_joint_angles_rad": tr.q[0, 3:].tolist(),
        "contact_stiffness_N_per_m": kw["stiffness"],
        "wheel_damping_Ns_per_m": kw["wheel_damping"],
        "time_step_s": kw["time_step"],
        "fit_window_s": list(FIT_WINDOW),
        "object_acceleration_analysis": comp.analysis.a_obj.tolist(),  # (ẍ, ÿ, ψ̈), 001 (21)
        "object_acceleration_simulation": comp.a_obj_sim.tolist(),
        "object_rel_error": comp.a_obj_error,  # in the object's inertia metric
        "robot_acceleration_analysis": comp.analysis.qdd.tolist(),  # q̈_s = (ẍ, ÿ, θ̈₁, φ̈…), 001 (20)
        "robot_acceleration_simulation": comp.qdd_sim.tolist(),
        "robot_rel_error": comp.qdd_error,  # in the M_s metric
        "slippage_ratio_analysis": float(comp.analysis.sr),
        "slippage_ratio_simulation": comp.sr_sim,
        "wheels_sliding_analysis": comp.analysis.slip.tolist(),
        "object_displacement_m": (tr.box[-1, :2] - tr.box[0, :2]).tolist(),
        "object_rotation_rad": float(tr.box[-1, 2] - tr.box[0, 2]),
        "contact_lost_at_s": lost_at,
    }}


def summary_extra(log: RunLog, scenario: ScenarioFile) -> dict[str, Any]:
    """Nothing more: the comparison with 001 is in the log's ``summary_fields`` (``pushing``)."""
    return {}


def simulate(setup: PushingSetup, duration: float | None = None, progress: bool = False) -> RunLog:
    """Push from rest for ``duration`` seconds (default: the scenario's), compare with 001's analysis, log."""
    scenario, robot, world, tau = setup.scenario, setup.robot, setup.world, setup.tau
    kw = dict(setup.settings)
    if duration is not None:
        kw["duration"] = DURATION.check(duration, "--duration")
    try:
        comp = compare(world, setup.q0, tau, setup.which, progress=progress, **kw)
    except PushingError as exc:  # e.g. torques that pull the contact link away from the box
        raise ConfigError("controller.torque", tau.tolist(), str(exc), scenario.source) from None
    tr = comp.trajectory
    model = world.model
    pushing = tr.contact_force > 0.0
    after = np.flatnonzero(~pushing & (np.cumsum(pushing) > 0))  # samples without contact once it was made
    lost_at = float(tr.t[after[0]]) if after.size else None
    finite = np.isfinite(tr.q).all(axis=1) & np.isfinite(tr.box).all(axis=1)
    status = "ok" if finite.all() else f"non-finite state at t = {tr.t[np.argmin(finite)]:.6f} s"
    stride = max(1, round(scenario.log_period / kw["time_step"]))
    k = np.unique(np.append(np.arange(0, tr.t.size, stride), tr.t.size - 1))
    if not finite.all():
        k = k[k < np.argmin(finite)]
    q, v = tr.q[k], tr.v[k]
    pts = joint_points(model, q)
    pos = np.zeros((k.size, model.n_links, 3))
    pos[:, :, :2] = 0.5 * (pts[:, :-1] + pts[:, 1:])  # uniform links: COM at mid-link (plant's inertias)
    diagnostics = []
    if lost_at is not None:
        diagnostics.append(Diagnostic(lost_at, 1, "pushing contact", f"contact with the box lost at t = {lost_at:.4f} s"
                                      " (001's analysis holds while it is held)"))
    return RunLog(robot=robot, plane="xy", t=tr.t[k], link_position=pos, link_angle=link_angles(q), alpha=q[:, 3:],
                  alpha_dot=v[:, 3:], tau=np.tile(tau, (k.size, 1)), contact_count=pushing[k].astype(int),
                  series={"object_pose": tr.box[k], "object_velocity": tr.box_v[k],
                          "object_outline": object_outline(world, tr.box[k]), "contact_force": tr.contact_force[k]},
                  diagnostics=diagnostics, status=status, summary_fields=_summary(comp, kw, lost_at))


def run_scenario(scenario: ScenarioFile, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """Build and simulate (:class:`snake_sim.core.models.ModelRuntime`). A pushing run is short and its fit needs the
    whole window, so it runs to its end whatever ``stop`` says."""
    return simulate(build(scenario), progress=progress)
