"""The horizontal-plane runtime (004): head-tracking controller → joints → planar model (3)–(20),
producing a :class:`~snake_sim.core.runlog.RunLog` in the x–y plane (``model: planar``, :mod:`snake_sim.core.models`).

The controller is evaluated inside the ODE right-hand side (continuous-time control, as in 004's
simulations; ``sim.time_step`` and ``sim.control_rate`` are not used by this runner), and the
whole system is integrated by scipy's DOP853 with ``rtol`` = :data:`RTOL` (1e-8: the §6.1.3
conservation check of g needs ≤ 1e-8, docs/readings.md "004 §6.1.3") and ``atol`` = :data:`ATOL`.
Robots with SEAs (``sea:``/``actuator:`` in the robot file) run through the spring, in the SEA loop of the other
models (:func:`snake_sim.core.sea_loop.run`): once per control period (``sim.control_rate``) the tracker's torque is
the reference τ_d of snake_core's torque mode (:class:`snake_core.controllers.torque.TorqueController`: PI on the
measured SEA torque, clipped to the sensor's range, β_d = α − τ*/K, β̇_d = α̇), and within the period the motor-side
PD 002 (4.39) follows the command extrapolated as in the vertical model
(:func:`snake_sim.core.sea_loop.extrapolated_command`) on the rotor, ``rotor_term`` β̈ = U − K(α − β); the period is
integrated by the same ODE solver and tolerances. A torque blow-up is then seen at a control instant.
``robot.joints: rigid`` forces torque input. SEA rotors and regularised Coulomb friction make the system stiff: those
runs use LSODA (same tolerances).

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
from snake_core.controllers import JointController, make_joint_controllers
from snake_core.gaits import make_gait
from snake_core.gaits.serpenoid import Serpenoid
from snake_core.planar.conserved import conserved_g
from snake_core.planar.convention import (
    FREE_JOINTS,
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
from snake_core.registry import Param, checked
from snake_core.robot import FRICTION_PARAMS, FrictionParams, RobotParams, load_robot
from snake_core.validation import ConfigError, get, positive

from ...core.runlog import Diagnostic, RunLog
from ...core.scenario import ROBOT_NAME, WORLD_FILE, Scenario
from ...core.sea_loop import Reading, Tick, control_steps, extrapolated_command, n_samples, run
from ...core.signals import INTERRUPTED, StopRequest, stopped
from .integration import ATOL, RTOL, blowup_status, initial_state, integration_method
from .report import head_tracking_summary
from .stepper import PlanarStepper

INITIAL_JOINT_ANGLE = Param("initial_joint_angle", 0.0, "rad", "every joint's angle at t = 0, within the joint limit "
                            "(004 (82) starts from π/6)", source="004 (82)")
#: ``robot:`` of the planar model.
ROBOT_PARAMS = (
    ROBOT_NAME,
    FREE_JOINTS,
    Param("joints", "auto", "", "the joints: auto (through SEAs if the robot file has sea: and actuator:), rigid or "
          "sea", choices=("auto", "rigid", "sea")),
    INITIAL_JOINT_ANGLE,
)
#: ``contact:`` of the planar model: the ground friction of each link, replacing the robot file's ``friction:`` (the
#: robot file's specs, unset by default).
CONTACT_PARAMS = tuple(dataclasses.replace(p, default=None, description=f"{p.description} (unset: the robot file's)")
                       for p in FRICTION_PARAMS)
#: ``world:`` of the planar model: the world file only (the start is controller.reference.start).
WORLD_PARAMS = (WORLD_FILE,)
#: ‖τ‖ [N·m] beyond which a run is stopped as a torque blow-up (controller.blowup_torque): ~50× the
#: torques of a tracking 004 robot (≤ 0.5 N·m), far beyond what its 0.18 kg links can use.
DEFAULT_BLOWUP_TORQUE = 10.0
#: ``controller:`` of the planar model besides the tracker's gains (the trackers' own specs).
CONTROLLER_PARAMS = (
    Param("mode", "lyapunov", "", "the head tracker, a name in its registry (snake_core.planar.trackers: "
          f"{', '.join(TRACKERS.loaders)}), its gains beside these fields (the trackers' tables)", kind=str,
          source="004 §6"),
    Param("reference", None, "", "the head's straight-line reference, a mapping (`controller.reference.*`)",
          scalar=False, required=True, source="004 (80)"),
    Param("evaluation_window", None, "s", "[t0, t1] of the tracking errors in summary.json, t0 < t1 (unset: the "
          "whole run)", 0.0, size=2),
    Param("blowup_torque", DEFAULT_BLOWUP_TORQUE, "N·m", "‖τ‖ beyond which the run stops as a torque blow-up", 0.0,
          low_open=True),
    Param("manipulability_threshold", None, "kg·m", "R below which a posture is flagged near-singular (unset: 1e-4, "
          "1e-5 with free joints)", 0.0, source="004 (31), (33)–(42)"),
)
#: ``controller.reference:`` of the planar model, in the world frame (004's turned by π).
REFERENCE_PARAMS = (
    Param("speed", None, "m/s", "the head's speed along the straight line", 0.0, 1.0, required=True,
          source="004 (80)"),
    Param("direction", 0.0, "rad", "the head's direction of travel (0: straight ahead, head first)", -2 * np.pi,
          2 * np.pi, source="004 (80)"),
    Param("heading", 0.0, "rad", "the head's heading ψ along the line", -2 * np.pi, 2 * np.pi, source="004 (80)"),
    Param("start", (0.0, 0.0), "m", "[X, Y], the head's start", size=2),
)


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
    #: torque mode per joint (tail → head) realising the tracker's torque through the SEAs (None: rigid joints)
    controllers: list[JointController] | None = None


def _friction(robot: RobotParams, section: dict, source: str) -> FrictionParams:
    base = robot.friction or FrictionParams(0.0, 0.0, 0.0, 0.0, 0.0)
    values = {k: getattr(base, k) if v is None else v
              for k, v in checked(section, CONTACT_PARAMS, "contact", source).items()}
    if values["c_t"] == values["c_n"] == values["mu_t"] == values["mu_n"] == 0.0:
        raise ConfigError("contact", section, "the planar model needs ground friction: set c_t/c_n (viscous) or "
                          "mu_t/mu_n (Coulomb) here or in the robot file", source)
    return FrictionParams(**values)


def _reference(section: dict, source: str) -> StraightLineReference:
    r = checked(section, REFERENCE_PARAMS, "controller.reference", source)
    X, Y = r["start"]
    # world → 004 frame: positions negate, directions turn by π, the head heading ψ is θ_1.
    return StraightLineReference((-X, -Y), r["direction"] + np.pi, r["speed"], r["heading"])


def build(scenario: Scenario) -> PlanarSetup:
    """Validate the planar sections of ``scenario`` and assemble the run."""
    src = scenario.source
    rsec = checked(scenario.section("robot"), ROBOT_PARAMS, "robot", src)
    checked(scenario.section("world"), WORLD_PARAMS, "world", src)
    robot = load_robot(rsec["name"])
    joints = rsec["joints"]
    use_sea = robot.sea is not None if joints == "auto" else joints == "sea"
    if use_sea and robot.sea is None:
        raise ConfigError("robot.joints", "sea", f"robot {robot.name} has no sea:/actuator: sections", src)
    friction = _friction(robot, scenario.section("contact"), src)
    model = build_model(dataclasses.replace(robot, friction=friction))
    free = free_joints_from_suite(rsec["free_joints"], model.n, "robot.free_joints", src)

    gsec = scenario.section("gait")
    gait = make_gait(get(gsec, "type", "gait", src), robot.n_joints, gsec, src)
    if not isinstance(gait, Serpenoid):
        raise ConfigError("gait.type", gsec.get("type"), "the head trackers take their shape reference from the "
                          "serpenoid (004 (43), (78)): use gait.type = serpenoid", src)
    ctrl = scenario.section("controller")
    gains = tuple(dict.fromkeys(p.name for spec in TRACKERS.entries.values() for p in spec.params))
    c = checked(ctrl, CONTROLLER_PARAMS, "controller", src, also=gains)
    mode = TRACKERS.get(c["mode"], src)
    given = mode.own_gains({k: v for k, v in ctrl.items() if k in gains}, src)
    try:  # an unset threshold: the monitor's default for the free joints
        monitor = ManipulabilityMonitor(model, c["manipulability_threshold"], free_joints=free)
        tracker = mode.build(model, given, gait, free)
    except ConfigError as exc:
        raise ConfigError(exc.field, exc.value, exc.allowed, src) from None
    reference = _reference(c["reference"], src)
    t0, t1 = c["evaluation_window"] or (0.0, scenario.duration)
    if t1 <= t0:
        raise ConfigError("controller.evaluation_window[1]", ctrl["evaluation_window"][1], f"must be > t0 = {t0:g}",
                          src)
    phi0 = dataclasses.replace(INITIAL_JOINT_ANGLE, low=-robot.joint_limit, high=robot.joint_limit).check(
        rsec["initial_joint_angle"], "robot.initial_joint_angle", src)
    q0 = np.concatenate((reference.start, [reference.theta1], np.full(robot.n_joints, phi0)))
    sea = motor_pd(robot) if use_sea else None
    controllers = make_joint_controllers("torque", robot, {"mode": "torque"}, src) if use_sea else None
    return PlanarSetup(scenario, robot, model, free, gait, mode, tracker, reference, monitor, q0, sea,
                       c["blowup_torque"], (t0, t1), controllers)


def _dynamics(setup: PlanarSetup) -> tuple[Callable, Callable]:
    """(rhs(t, x), torque(t, x, data) -> τ_command) of the closed loop with rigid joints (continuous-time control)."""
    model, tracker, ref = setup.model, setup.tracker, setup.reference
    d = model.dof
    workspace = model.create_data()

    def torque(t, x, data):
        return tracker.step(t, x[:d], x[d:2 * d], ref(t), data)

    def rhs(t, x):
        q, qd = x[:d], x[d:2 * d]
        data = compute_terms(model, workspace, q, qd)
        return np.concatenate((qd, forward_dynamics(model, data, torque(t, x, data))))

    return rhs, torque


@dataclass(eq=False)
class SeaRun:
    """The mutable state of a run through SEAs: x = [q, q̇, β, β̇] at ``t``, the tracker's last torque (004 order) and
    the control instant at which it exceeded ``controller.blowup_torque`` (None: not yet)."""

    x: np.ndarray
    t: float = 0.0
    tau_command: np.ndarray | None = None
    blown_at: float | None = None
    failure: str | None = None


@dataclass(eq=False)
class SeaPlant:
    """The planar model with SEA joints as the SEA loop steps it (:class:`snake_sim.core.sea_loop.SeaEngine`) over a
    :class:`SeaRun`: the joint modules' α, α̇, β, τ = K(α − β) (tail → head), one control period integrated under the
    motor command, the state as the pose a sample keeps."""

    setup: PlanarSetup
    period: float  # T_c [s]

    def __post_init__(self) -> None:
        self._workspace = self.setup.model.create_data()
        self._stiffness = np.asarray(self.setup.robot.sea.stiffness)

    def _split(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        d, nj = self.setup.model.dof, self.setup.model.n_joints
        return x[:d], x[d:2 * d], x[2 * d:2 * d + nj], x[2 * d + nj:]

    def read(self, data: SeaRun) -> Reading:
        q, qd, beta, _ = self._split(data.x)
        alpha = reverse_joints(q[3:])
        tau = self._stiffness * (alpha - beta)  # 002 (4.36)
        return Reading(alpha, reverse_joints(qd[3:]), beta, tau, np.full(len(beta), np.nan), 0)

    def references(self, t: float, data: SeaRun) -> dict[str, np.ndarray]:
        """The tracker's torque at t as the SEAs' torque reference τ_d (no α_d: torque mode does not use it)."""
        setup = self.setup
        q, qd, _, _ = self._split(data.x)
        tau = setup.tracker.step(t, q, qd, setup.reference(t), compute_terms(setup.model, self._workspace, q, qd))
        data.tau_command = tau
        if data.blown_at is None and np.linalg.norm(tau) > setup.blowup_torque:
            data.blown_at = t
        zero = np.zeros(setup.model.n_joints)
        return {"alpha_d": zero, "alpha_d_dot": zero, "tau_d": sea_torque_reference(tau), "tau_command": tau}

    def rhs(self, t: float, x: np.ndarray, t_k: float, beta_d: np.ndarray, beta_d_dot: np.ndarray,
            beta_d_acc: np.ndarray) -> np.ndarray:
        """ẋ with the motor command extrapolated from the control instant t_k and the spring's torque on the links."""
        setup, model = self.setup, self.setup.model
        q, qd, beta, beta_dot = self._split(x)
        tau = self._stiffness * (reverse_joints(q[3:]) - beta)  # 002 (4.36)
        command, rate = extrapolated_command(t - t_k, beta_d, beta_d_dot, beta_d_acc)
        u, _ = setup.sea.torque(beta, beta_dot, command, rate)  # 002 (4.39)
        qdd = forward_dynamics(model, compute_terms(model, self._workspace, q, qd), reverse_joints(-tau))
        return np.concatenate((qd, qdd, beta_dot, (u - tau) / setup.robot.actuator.rotor_term))

    def advance(self, data: SeaRun, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> None:
        t_k = data.t
        sol = solve_ivp(self.rhs, (t_k, t_k + self.period), data.x, method=integration_method(self.setup),
                        rtol=RTOL, atol=ATOL, args=(t_k, beta_d, beta_d_dot, beta_d_acc))
        data.t = t_k + self.period
        if sol.status < 0:
            data.failure = f"integration failed at t = {sol.t[-1]:.3f} s: {sol.message}"
            data.x = np.full_like(data.x, np.nan)
        else:
            data.x = sol.y[:, -1]

    def poses(self, data: SeaRun) -> np.ndarray:
        return data.x.copy()

    def finite(self, data: SeaRun) -> bool:
        return data.blown_at is None and bool(np.all(np.isfinite(data.x)))

    def non_finite_status(self, data: SeaRun, t: float, kept_until: float) -> str:
        if data.blown_at is not None:
            return blowup_status(self.setup, data.blown_at)
        return data.failure or f"non-finite state at t = {t:.4f} s"


@dataclass(eq=False)
class SeaSamples:
    """The samples of a run through SEAs: the state, the tracker's torque and the motor commands at logged instants."""

    t: np.ndarray
    x: np.ndarray
    tau_command: np.ndarray
    beta_ref: np.ndarray
    count: int = 0

    @classmethod
    def allocate(cls, n_state: int, n_joints: int, n_log: int) -> SeaSamples:
        return cls(np.zeros(n_log), np.zeros((n_log, n_state)), np.zeros((n_log, n_joints)),
                   np.zeros((n_log, n_joints)))

    def record(self, t: float, poses: np.ndarray, reading: Reading, beta_d: np.ndarray,
               refs: dict[str, np.ndarray]) -> None:
        k = self.count
        self.t[k], self.x[k], self.tau_command[k], self.beta_ref[k] = t, poses, refs["tau_command"], beta_d
        self.count += 1


def _simulate_sea(setup: PlanarSetup, duration: float, stop: StopRequest | None, bar: tqdm) -> RunLog:
    """The run through SEAs: the SEA loop (module docstring), samples at ``sim.log_rate``."""
    scenario = setup.scenario
    period = scenario.control_period
    n_ticks = round(duration / period)
    _, log_every = control_steps(scenario, period)
    plant = SeaPlant(setup, period)
    x0 = initial_state(setup)
    samples = SeaSamples.allocate(x0.size, setup.model.n_joints, n_samples(n_ticks, log_every))
    tick = Tick(setup.controllers, plant.references, samples, log_every, period)

    def show(t: float) -> None:
        if t - bar.n > 0.05 * duration:
            bar.n = round(t, 6)
            bar.refresh()

    status = run(plant, SeaRun(x0), tick, n_ticks, stop, show)
    k = slice(0, samples.count)
    log = _log(setup, samples.t[k], samples.x[k], samples.tau_command[k], status, samples.beta_ref[k])
    log.series["tau_d"] = sea_torque_reference(samples.tau_command[k])  # the SEAs' torque reference, tail → head
    return log


def simulate(setup: PlanarSetup, duration: float | None = None, progress: bool = False,
             stop: StopRequest | None = None) -> RunLog:
    """Run the closed loop and log it at ``sim.log_rate`` (stops at a torque blow-up, or at ``stop``). With rigid joints
    the whole run is one solve with the controller in the right-hand side; a stop is then the root of the event below,
    at the end of the solver's step. Through SEAs the run is the SEA loop (module docstring)."""
    model, d = setup.model, setup.model.dof
    duration = setup.scenario.duration if duration is None else positive(duration, "--duration")
    bar = tqdm(total=round(duration, 6), unit="s", disable=not progress, leave=False,
               bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s sim [{elapsed}<{remaining}]")
    if setup.sea is not None:
        with bar:
            return _simulate_sea(setup, duration, stop, bar)
    rhs, torque = _dynamics(setup)
    workspace = model.create_data()
    x0 = initial_state(setup)
    t_eval = np.unique(np.minimum(np.arange(0.0, duration + 1e-9, setup.scenario.log_period), duration))

    stop_time: dict[str, float] = {}

    def blowup(t, x):
        if progress and t - bar.n > 0.05 * duration:
            bar.n = round(t, 6)
            bar.refresh()
        if stopped(stop):  # zero at the end of the step where the stop was seen, negative before: a root there
            stopped_at = stop_time.setdefault("t", t)
            return t - stopped_at
        q, qd = x[:d], x[d:2 * d]
        return float(np.linalg.norm(torque(t, x, compute_terms(model, workspace, q, qd)))) - setup.blowup_torque

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
    x = sol.y.T
    tau_command = np.array([torque(t, xi, compute_terms(model, workspace, xi[:d], xi[d:2 * d]))
                            for t, xi in zip(sol.t, x, strict=True)]).reshape(len(sol.t), model.n_joints)
    return _log(setup, sol.t, x, tau_command, status)


def _log(setup: PlanarSetup, t: np.ndarray, x: np.ndarray, tau_cmd: np.ndarray, status: str,
         beta_ref: np.ndarray | None = None) -> RunLog:
    """The run's log from its states x and the tracker's torques (004 order) at the logged instants t (and the motor
    commands β_d through SEAs)."""
    model, d, nj = setup.model, setup.model.dof, setup.model.n_joints
    T = t.size
    k = 3 + len(setup.free_joints)
    pos = np.zeros((T, model.n, 3))
    ang = np.zeros((T, model.n))
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
    alpha = reverse_joints(x[:, 3:d])
    if setup.sea is None:
        beta, tau_log = None, reverse_joints(tau_cmd)
    else:  # the SEA torque K(α − β), 002 (4.36)
        beta = x[:, 2 * d:2 * d + nj]
        tau_log = np.asarray(setup.robot.sea.stiffness) * (alpha - beta)
    return RunLog(robot=setup.robot, plane="xy", t=t, link_position=pos, link_angle=ang,
                  alpha=alpha, alpha_dot=reverse_joints(x[:, d + 3:2 * d]), tau=tau_log,
                  beta=beta, beta_ref=beta_ref, alpha_ref=alpha_ref, alpha_ref_dot=alpha_ref_dot,
                  head_reference=head_pose_to_world(w_ref),
                  manipulability=manip, series=series, diagnostics=diagnostics, status=status)


def run_scenario(scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """Build and simulate (:class:`snake_sim.core.models.ModelRuntime`)."""
    return simulate(build(scenario), progress=progress, stop=stop)


def summary_extra(log: RunLog, scenario: Scenario) -> dict[str, Any]:
    """The head-tracking fields over the scenario's evaluation window (:func:`.report.head_tracking_summary`)."""
    return head_tracking_summary(log, scenario)


#: The figures of a run (:data:`snake_sim.outputs.figures.FIGURE_SETS`).
FIGURES = "head-tracking"
#: The specs of the model's own sections (:class:`snake_sim.core.models.ModelRuntime`).
PARAMS = {"robot": ROBOT_PARAMS, "world": WORLD_PARAMS, "contact": CONTACT_PARAMS, "controller": CONTROLLER_PARAMS,
          "controller.reference": REFERENCE_PARAMS}


def stepper(scenario: Scenario) -> PlanarStepper:
    """The scenario's model stepped by joint torques (the ROS simulator node's; rigid joints only)."""
    return PlanarStepper(build(scenario))
