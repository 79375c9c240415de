"""The SEA control loop of a scenario, shared by the models that simulate SEA joints (vertical 002, ``mujoco``,
``dart``): the gait (α_d, α̇_d) and one snake_core joint controller per joint (``controller.mode``: position,
stiffness, tsc, torque), stepped once per control period (``sim.control_rate``) with what each module measures
(α, α̇, β, τ = K(α − β) and the tail-side neighbour's α and β), returning the motor commands β_d, β̇_d.

The tick, once per control period: measure → references → motor commands → record → β̈_d estimate → step the period →
finiteness check. :func:`run_batch` owns it, for B runs of one shape stepped together (the vertical model's batches,
:class:`Runs`); a single run is a batch of one (:func:`run`, :class:`OneRun`), so there is one loop. An engine
(:class:`SeaEngine`) gives only plain functions over its mutable data: read what the modules measure, step a control
period with a motor command, give the link poses, say what is non-finite. :class:`CommandRamp` is the β̈_d estimate and
:func:`extrapolated_command` the command within the period, shared with the models stepped from outside (the ROS
simulator's stepper), so both integrate a period the same way: the engines stepped h at a time from Python (MuJoCo,
DART) through :func:`step_period`, the vertical model in one compiled call per period
(:meth:`snake_sim.engines.vertical.plant.VerticalPlant.advance`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
from numba import njit

from snake_core.controllers import JointController, JointMeasurement, JointReference, make_joint_controllers
from snake_core.gaits import Gait, make_gait
from snake_core.robot import RobotParams
from snake_core.validation import get

from .runlog import RunLog
from .scenario import Scenario
from .signals import INTERRUPTED, StopRequest, stopped


def sea_control(scenario: Scenario, robot: RobotParams) -> tuple[Gait, list[JointController]]:
    """The scenario's gait (``gait:``) and per-joint controllers (``controller:``) for ``robot``, validated."""
    src = scenario.source
    gait_section = scenario.section("gait")
    gait = make_gait(get(gait_section, "type", "gait", src), robot.n_joints, gait_section, src)
    ctrl = scenario.section("controller")
    return gait, make_joint_controllers(ctrl.get("mode", "position"), robot, ctrl, src)


def control_steps(scenario: Scenario, time_step: float) -> tuple[int, int]:
    """(integration steps of ``time_step`` per control period, control periods per logged sample) of a scenario."""
    steps = max(1, round(scenario.control_period / time_step))
    return steps, max(1, round(scenario.log_period / (time_step * steps)))


JointStep = Callable[..., tuple[np.ndarray, np.ndarray]]


def joint_step(controllers: list[JointController]) -> JointStep:
    """How a tick steps ``controllers``: ``step(t, period, alpha, alpha_dot, beta, tau, alpha_d, alpha_d_dot, tau_d)
    -> (β_d, β̇_d)``, all joints at once where their mode can (``joints_step``,
    :class:`snake_core.controllers.JointController`), else joint by joint (each controller's ``step``)."""
    joints_step = getattr(type(controllers[0]), "joints_step", None)
    if joints_step is not None and all(type(c) is type(controllers[0]) for c in controllers):
        return joints_step(controllers)

    def each_joint(t: float, period: float, alpha: np.ndarray, alpha_dot: np.ndarray, beta: np.ndarray,
                   tau: np.ndarray, alpha_d: np.ndarray, alpha_d_dot: np.ndarray, tau_d: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        beta_d = np.empty(len(controllers))
        beta_d_dot = np.empty(len(controllers))
        a_l, ad_l, b_l, t_l = alpha.tolist(), alpha_dot.tolist(), beta.tolist(), tau.tolist()
        r_l = np.asarray(alpha_d, dtype=float).tolist()
        rd_l = np.asarray(alpha_d_dot, dtype=float).tolist()
        rt_l = np.asarray(tau_d, dtype=float).tolist()
        for j, ctrl in enumerate(controllers):
            prev = j - 1 if j > 0 else None  # the tail-side neighbour's α, β (TSC's (7.2))
            meas = JointMeasurement(a_l[j], ad_l[j], b_l[j], t_l[j], None if prev is None else a_l[prev],
                                    None if prev is None else b_l[prev])
            cmd = ctrl.step(t, period, meas, JointReference(r_l[j], rd_l[j], rt_l[j]))
            beta_d[j], beta_d_dot[j] = cmd.beta_d, cmd.beta_d_dot
        return beta_d, beta_d_dot
    return each_joint


def motor_commands(controllers: list[JointController], t: float, period: float, alpha: np.ndarray,
                   alpha_dot: np.ndarray, beta: np.ndarray, tau: np.ndarray, alpha_d: np.ndarray,
                   alpha_d_dot: np.ndarray, tau_d: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(β_d, β̇_d) (N−1,) [rad, rad/s] of every joint's SEA controller at ``t`` [s] from what the modules measure
    (α, α̇ [rad, rad/s], β [rad], τ [N·m]) and the references α_d, α̇_d (and τ_d [N·m], default 0)."""
    return joint_step(controllers)(t, period, alpha, alpha_dot, beta, tau, alpha_d, alpha_d_dot,
                                   np.zeros(len(controllers)) if tau_d is None else tau_d)


@dataclass(slots=True)
class Reading:
    """What the joint modules measure at a control instant, tail → head: α, α̇ [rad, rad/s], β [rad],
    τ = K(α − β) [N·m], the motor-side PD torque U of 002 (4.39) [N·m] and the points in contact: a slotted record,
    valid until the engine steps on (its arrays may be the engine's own, filled in at each read, as the vertical
    model's are)."""

    alpha: np.ndarray
    alpha_dot: np.ndarray
    beta: np.ndarray
    tau: np.ndarray
    motor_torque: np.ndarray
    contacts: int


class SeaEngine(Protocol):
    """A model with SEA joints as the loop steps it: plain functions over its mutable ``data``."""

    def read(self, data: Any) -> Reading: ...

    def advance(self, data: Any, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> None:
        """Step ``data`` one control period under the motor command of the control instant (β_d, β̇_d) and the β̈_d
        estimate (:class:`CommandRamp`): :func:`extrapolated_command` where each step reads it (:func:`step_period`,
        or the same in compiled code), or the command held."""

    def poses(self, data: Any) -> Any: ...  # the link poses as the run's samples record them

    def finite(self, data: Any) -> bool: ...

    def non_finite_status(self, data: Any, t: float, kept_until: float) -> str: ...


class SteppedEngine(Protocol):
    """An engine stepped one integration step at a time from Python (:func:`step_period`)."""

    time_step: float  # h [s]
    substeps: int  # steps of h per control period
    #: when a step reads the command within the period: "end" (implicit integrators), "start" (explicit), or
    #: "hold" (the control instant's command held through the period, as Gazebo's forward command controllers do)
    command_timing: Literal["end", "start", "hold"]

    def step(self, data: Any, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None: ...


@njit(cache=True)
def extrapolated_command(s: float, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The actuator's command (β_d, β̇_d) at s after a control instant: the command extrapolated to second order with
    the rate change of the last period (β̈_d ≈ Δβ̇_d / T_c), so that β̇_d has no steps and the motor-side PD of
    002 (4.39) sees a smooth reference, as with 002's continuous α̇_d. Compiled (numba), for the compiled periods of
    the vertical model; the same arithmetic called from Python."""
    return beta_d + s * beta_d_dot + 0.5 * s * s * beta_d_acc, beta_d_dot + s * beta_d_acc


def step_period(engine: SteppedEngine, data: Any, beta_d: np.ndarray, beta_d_dot: np.ndarray,
                beta_d_acc: np.ndarray) -> None:
    """:meth:`SeaEngine.advance` of an engine stepped from Python: ``substeps`` steps of h under
    :func:`extrapolated_command` taken where the engine's step reads it (``command_timing``), or under the command
    held."""
    if engine.command_timing == "hold":
        for _ in range(engine.substeps):
            engine.step(data, beta_d, beta_d_dot)
        return
    h, first = engine.time_step, 0 if engine.command_timing == "start" else 1
    for i in range(first, first + engine.substeps):
        engine.step(data, *extrapolated_command(i * h, beta_d, beta_d_dot, beta_d_acc))


@dataclass
class CommandRamp:
    """The β̈_d estimate (the rate change over the last period, 0 at the first) of the command within a period."""

    period: float  # T_c [s]
    previous_rate: np.ndarray | None = None
    _estimate: np.ndarray | None = field(default=None, init=False, repr=False)  # rewritten every period

    def acceleration(self, beta_d_dot: np.ndarray) -> np.ndarray:
        """β̈_d ≈ (β̇_d − β̇_d of the last period) / T_c; remembers β̇_d (arrays of any shape, e.g. (B, N − 1), the
        same every call). The estimate is the ramp's own array, valid until the next call (a period's step reads
        it): no arrays are made once a period."""
        prev, estimate = self.previous_rate, self._estimate
        if prev is None:
            self.previous_rate = np.array(beta_d_dot, dtype=float)
            self._estimate = np.zeros_like(self.previous_rate)
            return self._estimate
        np.divide(np.subtract(beta_d_dot, prev, out=estimate), self.period, out=estimate)
        prev[...] = beta_d_dot
        return estimate

    def advance(self, engine: SeaEngine, data: Any, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None:
        """Step ``data`` one control period (:meth:`SeaEngine.advance`) with this period's β̈_d estimate."""
        engine.advance(data, beta_d, beta_d_dot, self.acceleration(beta_d_dot))


JOINT_SIGNALS = ("alpha", "alpha_dot", "tau", "beta", "beta_ref", "alpha_ref", "alpha_ref_dot", "motor_torque")


def record_joints(joints: dict[str, np.ndarray], k: int, reading: Reading, beta_d: np.ndarray,
                  refs: dict[str, np.ndarray]) -> None:
    """Row k of the logged joint signals (:data:`JOINT_SIGNALS`): the reading, the commands and the references."""
    joints["alpha"][k] = reading.alpha
    joints["alpha_dot"][k] = reading.alpha_dot
    joints["tau"][k] = reading.tau
    joints["beta"][k] = reading.beta
    joints["beta_ref"][k] = beta_d
    joints["alpha_ref"][k] = refs["alpha_d"]
    joints["alpha_ref_dot"][k] = refs["alpha_d_dot"]
    joints["motor_torque"][k] = reading.motor_torque


class SampleLog(Protocol):
    """Where a run's samples go (:class:`Samples`, :class:`snake_sim.engines.engine3d.Samples3D`)."""

    t: np.ndarray
    count: int

    def record(self, t: float, poses: Any, reading: Reading, beta_d: np.ndarray,
               refs: dict[str, np.ndarray]) -> None: ...


@dataclass(eq=False)
class Samples:
    """The logged samples of a run in the x–z plane: every ``log_every``-th control instant, joint signals
    tail → head."""

    t: np.ndarray  # [s]
    link_position: np.ndarray  # (T, N, 3) centres of mass [m]
    link_angle: np.ndarray  # (T, N) θ [rad]
    contacts: np.ndarray  # points in contact
    joints: dict[str, np.ndarray]  # JOINT_SIGNALS → (T, N − 1)
    count: int = 0

    @classmethod
    def allocate(cls, n_links: int, n_log: int) -> Samples:
        return cls(np.zeros(n_log), np.zeros((n_log, n_links, 3)), np.zeros((n_log, n_links)),
                   np.zeros(n_log, dtype=int), {k: np.full((n_log, n_links - 1), np.nan) for k in JOINT_SIGNALS})

    def record(self, t: float, poses: tuple[np.ndarray, np.ndarray], reading: Reading, beta_d: np.ndarray,
               refs: dict[str, np.ndarray]) -> None:
        """Append the sample at ``t``: link poses (x, z of the centres, θ), the reading and the commands."""
        k = self.count
        self.t[k] = t
        (x, z), self.link_angle[k] = poses
        self.link_position[k, :, 0], self.link_position[k, :, 2] = x, z
        record_joints(self.joints, k, reading, beta_d, refs)
        self.contacts[k] = reading.contacts
        self.count += 1

    def run_log(self, robot: RobotParams, status: str) -> RunLog:
        """The samples recorded so far as the run's log (x–z plane)."""
        sl = slice(0, self.count)
        return RunLog(robot=robot, plane="xz", t=self.t[sl], link_position=self.link_position[sl],
                      link_angle=self.link_angle[sl], contact_count=self.contacts[sl], status=status,
                      **{k: v[sl] for k, v in self.joints.items()})


References = Callable[[float, Any], dict[str, np.ndarray]]


def gait_references(gait: Gait, n_joints: int) -> References:
    """The per-joint references at t: the gait's α_d, α̇_d and no τ_d (whatever the state; one array of zeros for
    every instant, which nobody changes in place: a tick hook returns new arrays)."""
    no_torque = np.zeros(n_joints)
    no_torque.setflags(write=False)

    def refs(t: float, data: Any) -> dict[str, np.ndarray]:
        alpha_d, alpha_d_dot = gait.reference(t)
        return {"alpha_d": alpha_d, "alpha_d_dot": alpha_d_dot, "tau_d": no_torque}
    return refs


@dataclass(eq=False)
class Tick:
    """One run's control: its controllers, references and samples; :meth:`commands` is measure → references → motor
    commands → record of one control instant."""

    controllers: list[JointController]
    references: References  # (t, data) → {alpha_d, alpha_d_dot, tau_d}
    samples: SampleLog
    log_every: int
    period: float  # T_c [s]
    step: JointStep = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.step = joint_step(self.controllers)

    def commands(self, engine: SeaEngine, data: Any, k: int, t: float, record: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
        """(β_d, β̇_d) at control instant k (time t), recording the sample if k is a logged instant or ``record``."""
        reading = engine.read(data)
        refs = self.references(t, data)
        beta_d, beta_d_dot = self.step(t, self.period, reading.alpha, reading.alpha_dot, reading.beta, reading.tau,
                                       refs["alpha_d"], refs["alpha_d_dot"], refs["tau_d"])
        if record or k % self.log_every == 0:
            self.samples.record(t, engine.poses(data), reading, beta_d, refs)
        return beta_d, beta_d_dot

    def status_if_diverged(self, engine: SeaEngine, data: Any, t: float) -> str | None:
        """The run's status if its state at ``t`` (the end of a period) is non-finite."""
        if engine.finite(data):
            return None
        return engine.non_finite_status(data, t, self.samples.t[self.samples.count - 1])


def n_samples(n_ticks: int, log_every: int) -> int:
    """Room for the samples of a run of ``n_ticks`` control periods logged every ``log_every``-th instant: those, and
    the instant a stop ends it at (:func:`run_batch`)."""
    return n_ticks // log_every + 2


class Runs(Protocol):
    """B runs of one shape (joints, control period) stepped together by :func:`run_batch`: each run's model and data
    for its own tick, one :meth:`advance` of a period for all of them."""

    def member(self, b: int) -> tuple[SeaEngine, Any]:
        """Run b's model and data (what its :class:`Tick` reads, records and checks; the same objects all run long)."""

    def advance(self, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> None:
        """One control period of every run still going, under the stacked commands (B, N − 1) (row b: run b's)."""

    def drop(self, b: int) -> None:
        """Run b stopped (non-finite): no longer stepped."""


@dataclass(eq=False)
class OneRun:
    """A single run as a batch of one (:class:`Runs`): its model and data."""

    engine: SeaEngine
    data: Any

    def member(self, b: int) -> tuple[SeaEngine, Any]:
        return self.engine, self.data

    def advance(self, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> None:
        self.engine.advance(self.data, beta_d[0], beta_d_dot[0], beta_d_acc[0])

    def drop(self, b: int) -> None:
        """Nothing to stop: the loop ends with its only run."""


def run_batch(runs: Runs, ticks: list[Tick], n_ticks: int, stop: StopRequest | None = None,
              after_period: Callable[[float], None] | None = None, t0: float = 0.0) -> list[str]:
    """The loop: ``n_ticks`` control periods of B runs from t = ``t0`` (the gait and controllers at t0 + k T_c; the
    last instant only measured and recorded), run b controlled by ``ticks[b]``; returns each run's status ("ok",
    interrupted by ``stop``, or its non-finite state's). Per control instant each run's tick (its controllers, as
    alone), then one period of all runs (:meth:`Runs.advance`, the β̈_d estimate of :class:`CommandRamp` over the
    stacked commands), then each run's finiteness check: a run that goes non-finite stops alone, the others go on.
    A run that ``stop`` ends records the instant it reached, logged or not (:func:`n_samples` leaves room for it)."""
    for tick in ticks:
        for c in tick.controllers:
            c.reset()
    Tc = ticks[0].period
    ramp = CommandRamp(Tc)
    n_joints = len(ticks[0].controllers)
    beta_d, beta_d_dot = np.zeros((len(ticks), n_joints)), np.zeros((len(ticks), n_joints))
    status = ["ok"] * len(ticks)
    going = [(b, ticks[b], *runs.member(b)) for b in range(len(ticks))]
    for k in range(n_ticks + 1):
        t = t0 + k * Tc
        interrupted = k < n_ticks and stopped(stop)
        for b, tick, engine, data in going:
            beta_d[b], beta_d_dot[b] = tick.commands(engine, data, k, t, interrupted)
        if k == n_ticks:
            break
        if interrupted:
            for b, *_ in going:
                status[b] = INTERRUPTED
            break
        runs.advance(beta_d, beta_d_dot, ramp.acceleration(beta_d_dot))
        ended = False
        for b, tick, engine, data in going:
            diverged = tick.status_if_diverged(engine, data, t + Tc)
            if diverged is not None:  # stops alone, with the status text of a run alone
                status[b], ended = diverged, True
                runs.drop(b)
        if ended:
            going = [member for member in going if status[member[0]] == "ok"]
            if not going:
                break
        if after_period is not None:
            after_period(t + Tc)
    return status


def run(engine: SeaEngine, data: Any, tick: Tick, n_ticks: int, stop: StopRequest | None = None,
        after_period: Callable[[float], None] | None = None, t0: float = 0.0) -> str:
    """The loop of a single run (:func:`run_batch` of one): ``n_ticks`` control periods of ``data``; its status."""
    return run_batch(OneRun(engine, data), [tick], n_ticks, stop, after_period, t0)[0]


def finite_state(q: np.ndarray, v: np.ndarray) -> bool:
    """Whether the state's squared norm is finite (no NaN, inf, or overflow)."""
    return math.isfinite(q.dot(q) + v.dot(v))  # ndarray.dot: the same sums as q @ q at less call overhead
