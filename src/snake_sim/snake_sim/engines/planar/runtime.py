"""The horizontal-plane runtime (004): head-tracking controller → joints → planar model (3)–(20),
producing a :class:`~snake_sim.core.runlog.RunLog` in the x–y plane (``model: planar``, :mod:`snake_sim.core.models`).

The controller is evaluated inside the ODE right-hand side (continuous-time control, as in 004's
simulations; ``sim.time_step`` and ``sim.control_rate`` are not used by this runner), and the
whole system is integrated by scipy's DOP853 with ``rtol`` = :data:`RTOL` (1e-8: the §6.1.3
conservation check of g needs ≤ 1e-8, docs/readings.md "004 §6.1.3") and ``atol`` = :data:`ATOL`.
Robots with SEAs (``sea:``/``actuator:`` in the robot file) run through the spring: the tracker's
torque is realised in torque mode (β_d = α − τ_d/K, docs/design.md) by the motor-side PD 002 (4.39)
on the rotor, ``rotor_term`` β̈ = U − K(α − β). ``robot.joints: rigid`` forces torque input. SEA
rotors and regularised Coulomb friction make the system stiff: those runs use LSODA (same tolerances).

Scenario sections (besides the common ones of :mod:`snake_sim.core.scenario`)::

    robot:      {name, free_joints: [suite joint indices, tail → head], joints: auto|rigid|sea,
                 initial_joint_angle: rad (all joints; 004 (82) starts from π/6)}
    contact:    {c_t, c_n, c_theta, mu_t, mu_n}   # replace the robot file's friction
    gait:       {type: serpenoid, amplitude: α, frequency: v, periods: T_s}   # shape reference φ^r
    controller: {mode: a tracker of snake_core.planar.trackers (pfl | lyapunov), its gains, blowup_torque,
                 manipulability_threshold,
                 reference: {speed, direction, heading, start: [X, Y]}, evaluation_window: [t0, t1]}

The world frame is 004's turned by π (:mod:`snake_core.planar.convention`): the head starts at
the origin pointing along +X, the body trailing along −X; ``reference.direction`` is the head's
direction of travel in the world (0: straight ahead, head first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp
from tqdm import tqdm

from snake_core.actuator import MotorPD, motor_pd
from snake_core.gaits import make_gait
from snake_core.gaits.serpenoid import Serpenoid
from snake_core.planar.conserved import conserved_g
from snake_core.planar.convention import (
    free_joints_from_suite,
    head_pose_to_world,
    links_to_world,
    reverse_joints,
    sea_torque_reference,
)
from snake_core.planar.head_tracking import HeadTracker, StraightLineReference, TrackerSpec
from snake_core.planar.manipulability import ManipulabilityMonitor
from snake_core.planar.model import PlanarModel, build_model, compute_terms, forward_dynamics, link_positions
from snake_core.planar.trackers import TRACKERS
from snake_core.robot import FrictionParams, RobotParams, load_robot
from snake_core.validation import ConfigError, choice, get, number, positive, reject_unknown

from ...core.runlog import Diagnostic, RunLog
from ...core.scenario import Scenario
from ...core.signals import INTERRUPTED, StopRequest, stopped
from .integration import ATOL, RTOL, blowup_status, initial_state, integration_method
from .report import head_tracking_summary
from .stepper import PlanarStepper

ROBOT_FIELDS = ("name", "free_joints", "joints", "initial_joint_angle")
CONTACT_FIELDS = ("c_t", "c_n", "c_theta", "mu_t", "mu_n")
REFERENCE_FIELDS = ("speed", "direction", "heading", "start")
#: controller.* fields besides the trackers' gains.
CONTROLLER_FIELDS = ("mode", "reference", "evaluation_window", "blowup_torque", "manipulability_threshold")

#: ‖τ‖ [N·m] beyond which a run is stopped as a torque blow-up (controller.blowup_torque): ~50× the
#: torques of a tracking 004 robot (≤ 0.5 N·m), far beyond what its 0.18 kg links can use.
DEFAULT_BLOWUP_TORQUE = 10.0


@dataclass(eq=False)
class PlanarSetup:
    scenario: Scenario
    robot: RobotParams
    model: PlanarModel
    free_joints: tuple[int, ...]  # 004 indices
    shape: Serpenoid
    mode: TrackerSpec
    tracker: HeadTracker
    reference: StraightLineReference  # in 004's frame
    monitor: ManipulabilityMonitor
    q0: np.ndarray
    sea: MotorPD | None
    blowup_torque: float
    evaluation_window: tuple[float, float]


def _friction(robot: RobotParams, section: dict, source: str) -> FrictionParams:
    reject_unknown(section, CONTACT_FIELDS, "contact", source)
    base = robot.friction or FrictionParams(0.0, 0.0, 0.0, 0.0, 0.0)
    values = {k: number(section.get(k, getattr(base, k)), f"contact.{k}", source, low=0.0) for k in CONTACT_FIELDS}
    if values["c_t"] == values["c_n"] == values["mu_t"] == values["mu_n"] == 0.0:
        raise ConfigError("contact", section, "the planar model needs ground friction: set c_t/c_n (viscous) or "
                          "mu_t/mu_n (Coulomb) here or in the robot file", source)
    return FrictionParams(**values)


def _reference(section: dict, source: str) -> StraightLineReference:
    reject_unknown(section, REFERENCE_FIELDS, "controller.reference", source)
    start = section.get("start", [0.0, 0.0])
    if not isinstance(start, list) or len(start) != 2:
        raise ConfigError("controller.reference.start", start, "must be [X, Y] in metres", source)
    X, Y = (number(v, "controller.reference.start", source) for v in start)
    direction = number(section.get("direction", 0.0), "controller.reference.direction", source, low=-2 * np.pi,
                       high=2 * np.pi)
    heading = number(section.get("heading", 0.0), "controller.reference.heading", source, low=-2 * np.pi,
                     high=2 * np.pi)
    speed = number(get(section, "speed", "controller.reference", source), "controller.reference.speed", source,
                   low=0.0, high=1.0)
    # world → 004 frame: positions negate, directions turn by π, the head heading ψ is θ_1.
    return StraightLineReference((-X, -Y), direction + np.pi, speed, heading)


def build(scenario: Scenario) -> PlanarSetup:
    """Validate the planar sections of ``scenario`` and assemble the run."""
    src = scenario.source
    rsec = scenario.section("robot")
    reject_unknown(rsec, ROBOT_FIELDS, "robot", src)
    robot = load_robot(rsec["name"])
    joints = choice(rsec.get("joints", "auto"), "robot.joints", ("auto", "rigid", "sea"), src)
    use_sea = robot.sea is not None if joints == "auto" else joints == "sea"
    if use_sea and robot.sea is None:
        raise ConfigError("robot.joints", "sea", f"robot {robot.name} has no sea:/actuator: sections", src)
    friction = _friction(robot, scenario.section("contact"), src)
    model = build_model(dataclasses.replace(robot, friction=friction))
    free_suite = rsec.get("free_joints", []) or []
    if not isinstance(free_suite, list):
        raise ConfigError("robot.free_joints", free_suite, "must be a list of joint indices (1 = tail joint)", src)
    for j in free_suite:
        if isinstance(j, bool) or not isinstance(j, int) or not 1 <= j <= robot.n_joints:
            raise ConfigError("robot.free_joints", free_suite, f"joint indices must be integers in [1, "
                              f"{robot.n_joints}] (1 = tail joint)", src)
    free = free_joints_from_suite(free_suite, model.n)

    gsec = scenario.section("gait")
    gait = make_gait(get(gsec, "type", "gait", src), robot.n_joints, gsec, src)
    if not isinstance(gait, Serpenoid):
        raise ConfigError("gait.type", gsec.get("type"), "the head trackers take their shape reference from the "
                          "serpenoid (004 (43), (78)): use gait.type = serpenoid", src)
    ctrl = scenario.section("controller")
    gains = {p.name: None for spec in TRACKERS.entries.values() for p in spec.params}
    reject_unknown(ctrl, (*CONTROLLER_FIELDS, *gains), "controller", src)
    mode = TRACKERS.get(ctrl.get("mode", "lyapunov"), src)
    given = mode.own_gains({k: v for k, v in ctrl.items() if k not in CONTROLLER_FIELDS}, src)
    try:
        threshold = ctrl.get("manipulability_threshold")  # None: the monitor's default for the free joints
        monitor = ManipulabilityMonitor(model, threshold, free_joints=free)
        tracker = mode.build(model, given, gait, free)
    except ConfigError as exc:
        raise ConfigError(exc.field, exc.value, exc.allowed, src) from None
    reference = _reference(ctrl.get("reference") or {}, src)
    window = ctrl.get("evaluation_window", [0.0, scenario.duration])
    if not isinstance(window, list) or len(window) != 2:
        raise ConfigError("controller.evaluation_window", window, "must be [t0, t1] in seconds", src)
    t0 = number(window[0], "controller.evaluation_window[0]", src, low=0.0)
    t1 = number(window[1], "controller.evaluation_window[1]", src, low=t0, low_open=True)
    blowup = positive(ctrl.get("blowup_torque", DEFAULT_BLOWUP_TORQUE), "controller.blowup_torque", src)
    phi0 = number(rsec.get("initial_joint_angle", 0.0), "robot.initial_joint_angle", src, low=-robot.joint_limit,
                  high=robot.joint_limit)
    q0 = np.concatenate((reference.start, [reference.theta1], np.full(robot.n_joints, phi0)))
    sea = motor_pd(robot) if use_sea else None
    return PlanarSetup(scenario, robot, model, free, gait, mode, tracker, reference, monitor, q0, sea, blowup, (t0, t1))


def _dynamics(setup: PlanarSetup) -> tuple[Callable, Callable]:
    """(rhs(t, x), outputs(t, x) -> (τ_command, τ_applied_004, τ_log_suite)) of the closed loop."""
    model, tracker, ref = setup.model, setup.tracker, setup.reference
    d, nj = model.dof, model.n_joints
    sea, robot = setup.sea, setup.robot
    K = np.asarray(robot.sea.stiffness) if sea is not None else None
    workspace = model.create_data()

    def outputs(t, x, data):
        q, qd = x[:d], x[d:2 * d]
        tau_cmd = tracker.step(t, q, qd, ref(t), data)
        if sea is None:
            return tau_cmd, tau_cmd, reverse_joints(tau_cmd), None
        alpha, alpha_dot = reverse_joints(q[3:]), reverse_joints(qd[3:])
        beta, beta_dot = x[2 * d:2 * d + nj], x[2 * d + nj:]
        tau_sea = K * (alpha - beta)  # 002 (4.36)
        beta_d = alpha - sea_torque_reference(tau_cmd) / K  # torque mode (docs/design.md)
        u, _ = sea.torque(beta, beta_dot, beta_d, alpha_dot)  # 002 (4.39)
        beta_ddot = (u - tau_sea) / robot.actuator.rotor_term
        return tau_cmd, reverse_joints(-tau_sea), tau_sea, beta_ddot

    def rhs(t, x):
        q, qd = x[:d], x[d:2 * d]
        data = compute_terms(model, workspace, q, qd)
        _, tau, _, beta_ddot = outputs(t, x, data)
        qdd = forward_dynamics(model, data, tau)
        if sea is None:
            return np.concatenate((qd, qdd))
        return np.concatenate((qd, qdd, x[2 * d + nj:], beta_ddot))

    return rhs, outputs


def simulate(setup: PlanarSetup, duration: float | None = None, progress: bool = False,
             stop: StopRequest | None = None) -> RunLog:
    """Integrate the closed loop and log it at ``sim.log_rate`` (stops at a torque blow-up, or at ``stop``: the
    event below then has its root at the end of the solver's step)."""
    model, d = setup.model, setup.model.dof
    duration = setup.scenario.duration if duration is None else positive(duration, "--duration")
    rhs, outputs = _dynamics(setup)
    workspace = model.create_data()
    x0 = initial_state(setup)
    t_eval = np.unique(np.minimum(np.arange(0.0, duration + 1e-9, setup.scenario.log_period), duration))
    bar = tqdm(total=round(duration, 6), unit="s", disable=not progress, leave=False,
               bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s sim [{elapsed}<{remaining}]")

    stop_time: dict[str, float] = {}

    def blowup(t, x):
        if progress and t - bar.n > 0.05 * duration:
            bar.n = round(t, 6)
            bar.refresh()
        if stopped(stop):  # zero at the end of the step where the stop was seen, negative before: a root there
            stopped_at = stop_time.setdefault("t", t)
            return t - stopped_at
        q, qd = x[:d], x[d:2 * d]
        return float(np.linalg.norm(outputs(t, x, compute_terms(model, workspace, q, qd))[0])) - setup.blowup_torque

    blowup.terminal = True
    sol = solve_ivp(rhs, (0.0, duration), x0, method=integration_method(setup),
                    t_eval=t_eval, rtol=RTOL, atol=ATOL, events=blowup)
    bar.close()
    status = "ok"
    if stopped(stop):
        status = INTERRUPTED
    elif sol.status == 1:
        status = blowup_status(setup, sol.t_events[0][0])
    elif sol.status < 0:
        status = f"integration failed at t = {sol.t[-1] if sol.t.size else 0.0:.3f} s: {sol.message}"
    return _log(setup, sol.t, sol.y.T, outputs, status)


def _log(setup: PlanarSetup, t: np.ndarray, x: np.ndarray, outputs: Callable, status: str) -> RunLog:
    model, d, nj = setup.model, setup.model.dof, setup.model.n_joints
    T = t.size
    k = 3 + len(setup.free_joints)
    pos = np.zeros((T, model.n, 3))
    ang = np.zeros((T, model.n))
    tau_log = np.zeros((T, nj))
    tau_cmd = np.zeros((T, nj))
    manip = np.zeros((T, 2 + 2 * k))
    w_ref = np.zeros((T, 3))
    alpha_ref = np.zeros((T, nj))
    alpha_ref_dot = np.zeros((T, nj))
    extra = {name: np.zeros(T) for name in setup.mode.series}
    isotropic = model.c_x == model.c_y and model.mu_x == 0.0 and model.mu_y == 0.0
    g = np.zeros((T, 2))
    diagnostics: list[Diagnostic] = []
    near_singular = False
    workspace = model.create_data()
    for i in range(T):
        q, qd = x[i, :d], x[i, d:2 * d]
        data = compute_terms(model, workspace, q, qd)
        tau_cmd[i], _, tau_log[i], _ = outputs(t[i], x[i], data)
        p, th = links_to_world(link_positions(model, q), data.theta)
        pos[i, :, :2], ang[i] = p, th
        r = setup.monitor.evaluate_inertia(data.H)
        manip[i] = np.concatenate(([r.D, r.R], r.sigma, r.lam))
        if r.near_singular != near_singular:  # /diagnostics events on entering and leaving (docs/design.md)
            near_singular = r.near_singular
            diagnostics.append(Diagnostic(float(t[i]), 1 if near_singular else 0, "manipulability",
                                          f"{'near-singular' if near_singular else 'away from singular'} posture: "
                                          f"R = {r.R:.3g} kg·m, threshold {setup.monitor.threshold:g}"))
        ref = setup.reference(t[i])
        w_ref[i] = ref.w
        phi_r, phid_r, _ = setup.shape.phi(t[i])
        alpha_ref[i], alpha_ref_dot[i] = reverse_joints(phi_r), reverse_joints(phid_r)
        for name, value in setup.mode.series.items():
            extra[name][i] = value(setup.tracker, t[i], q, qd, ref)
        if isotropic:
            g[i] = conserved_g(model, q, qd)
    series = {"tau_norm": np.linalg.norm(tau_cmd, axis=1)}
    if isotropic:
        series["g"] = g
    series.update(extra)
    beta = x[:, 2 * d:2 * d + nj] if setup.sea is not None else None
    return RunLog(robot=setup.robot, plane="xy", t=t, link_position=pos, link_angle=ang,
                  alpha=reverse_joints(x[:, 3:d]), alpha_dot=reverse_joints(x[:, d + 3:2 * d]), tau=tau_log,
                  beta=beta, alpha_ref=alpha_ref, alpha_ref_dot=alpha_ref_dot, head_reference=head_pose_to_world(w_ref),
                  manipulability=manip, series=series, diagnostics=diagnostics, status=status)


def run_scenario(scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """Build and simulate (:class:`snake_sim.core.models.ModelRuntime`)."""
    return simulate(build(scenario), progress=progress, stop=stop)


def summary_extra(log: RunLog, scenario: Scenario) -> dict[str, Any]:
    """The head-tracking fields over the scenario's evaluation window (:func:`.report.head_tracking_summary`)."""
    return head_tracking_summary(log, scenario)


#: The figures of a run (:data:`snake_sim.outputs.figures.FIGURE_SETS`).
FIGURES = "head-tracking"


def stepper(scenario: Scenario) -> PlanarStepper:
    """The scenario's model stepped by joint torques (the ROS simulator node's; rigid joints only)."""
    return PlanarStepper(build(scenario))
