"""Calibration of a scenario's unknowns to a recording (``snake-sim calibrate``): the vertical model (002) or the 3-D
model on MuJoCo fitted to a rosbag2 of the joint states.

The recording (:func:`read_recording`): a rosbag2 folder (MCAP or sqlite3, read with ``rosbags``) with the joint
states (the CAN bridge's topic, or /joint_states: snake_core.interface.JointStateLayout, ``joint_j`` α_j, α̇_j;
``motor_j`` β_j, or the URDF's ``motor_j`` and ``spring_j`` alone) and, where the bag has it, /tf's world → link_1
(the tail tip's 6-DoF pose, interpolated to the joint states' stamps).

The loss (:class:`WindowLoss`): the recording is cut into K windows of ``window`` seconds; each is simulated from the
recording's state at its start — α, β from the bag, α̇ from the bag, β̇ and the body's rates by central differences,
the tail tip's pose from /tf (else: the vertical model's body resting on flat ground, :func:`resting_tilt`; MuJoCo's
at the scenario's start pose) — with the scenario's controller and gait running at the window's time (the engine's
``simulate`` from a start state and ``t0``, :data:`ENGINES`). Two kinds of fitted field are the
recording's, not the scenario's: its delay :data:`DELAY` (the gait's time is the recorded time − d) and the encoders'
offsets :data:`OFFSET` (taken off the recorded α or β of a joint before anything else). The residual vector r
holds, for every logged sample after a window's start, joint and signal (α, β), (simulated − recorded) / the
recorded RMS of that joint's signal (at least :data:`RMS_FLOOR`), divided by √(number of entries): the loss Σ r² is
the mean squared normalised error (0: a perfect match, 1: errors as large as the motion). A window whose run stops on a
non-finite state counts :data:`DIVERGED_RESIDUAL` for every sample it lacks.

The fit (:func:`calibrate`): a global search with Optuna's CMA-ES sampler over the box of ``--fit`` (log-space for
``--log`` fields), its trials evaluated on the Dask sweep engine (:func:`snake_studies.optimise.optimise`: the
study in DIR/study.log, resumable, every trial in DIR/trials.csv); then :func:`snake_studies.calibration_fit.fit`
on r, the windows its independent blocks: ``scipy.optimize.least_squares`` polishes from the search's best distinct
trials (``--restarts``), identifiability and 95 % profile intervals whose scale is corrected for the residuals'
correlation in time (that module's docstring states the method).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
import yaml
from rosbags.highlevel import AnyReader
from rosbags.rosbag2 import ReaderError
from rosbags.typesys import Stores, get_typestore
from scipy.spatial import ConvexHull, QhullError
from scipy.spatial.transform import Rotation, Slerp
from tqdm import tqdm

from snake_core.interface import CAN_BRIDGE_JOINT_STATES, JOINT_STATES, TF, WORLD_FRAME, JointStateLayout, link_name
from snake_core.validation import ConfigError, integer, positive
from snake_core.vertical import VerticalModel
from snake_core.vertical.kinematics import contact_points, initial_configuration, link_positions
from snake_sim.analysis.rollover import start_pose
from snake_sim.core.runlog import RunLog
from snake_sim.core.scenario import Scenario, load_scenario
from snake_sim.engines.mujoco import model as mm
from snake_sim.engines.mujoco import runtime as mujoco_runtime
from snake_sim.engines.mujoco.runtime import MujocoSetup
from snake_sim.engines.vertical.model import VerticalData, VerticalSetup, build
from snake_sim.engines.vertical.runtime import simulate
from snake_sim.outputs.recording import tf_edges
from snake_studies.calibration_bootstrap import Bootstrap, Encoders, bootstrap, check_recording
from snake_studies.calibration_fit import RESTARTS, FitResult, Fitted, fit
from snake_studies.calibration_report import write_outputs
from snake_studies.optimise import Problem, optimise
from snake_studies.sweep.cells import Cell, Range, parse_range
from snake_studies.sweep.table import ResultsTable

#: Smallest recorded RMS a residual is divided by [rad] (a joint that hardly moves).
RMS_FLOOR = 1e-3
#: Normalised residual of every sample a diverged window lacks.
DIVERGED_RESIDUAL = 10.0
#: Default window length [s].
WINDOW_S = 1.0
#: Fitted fields that are the recording's, not the scenario's, start with this.
RECORDING = "recording."
#: d [s], the recording's lag behind the gait's clock (a sample at t from the recording's first shows the robot at the
#: gait's time t − d).
DELAY = "recording.delay"
#: ``recording.alpha_offset.J`` and ``recording.beta_offset.J`` [rad]: joint J's encoder offset (recorded − true).
OFFSET = re.compile(r"recording\.(alpha|beta)_offset\.([1-9][0-9]*)")


@dataclass(frozen=True)
class Recording:
    """What a recording says of the joints, tail → head, at its samples (t from the first sample)."""

    t: np.ndarray  # (T,) [s]
    alpha: np.ndarray  # (T, J) [rad]
    alpha_dot: np.ndarray  # (T, J) [rad/s] (NaN: unknown)
    beta: np.ndarray  # (T, J) [rad]
    #: (T, 7) world → link_1 from /tf (interpolated): the tail tip's position [m] and link 1's orientation (quaternion
    #: x, y, z, w); None: no /tf
    base: np.ndarray | None
    topic: str = JOINT_STATES  # the joint states' topic read

    @classmethod
    def of_log(cls, log: RunLog) -> Recording:
        """The recording of a run as the suite's writer makes it (``write_rosbag``: /joint_states, /tf's world →
        link_1) and :func:`read_recording` reads it, without the file; t from the log's first sample."""
        _, _, position, quaternion = tf_edges(log)[0]
        return cls(log.t - log.t[0], log.alpha.copy(), log.alpha_dot.copy(), log.beta.copy(),
                   np.concatenate([position, quaternion], axis=1))

    @property
    def n_joints(self) -> int:
        return self.alpha.shape[1]

    def corrected(self, fields: dict[str, float]) -> Recording:
        """The recording with the encoder offsets among ``fields`` (:data:`OFFSET`) taken off α and β."""
        alpha, beta = self.alpha.copy(), self.beta.copy()
        for key, value in fields.items():
            match = OFFSET.fullmatch(key)
            if match:
                (alpha if match[1] == "alpha" else beta)[:, int(match[2]) - 1] -= value
        return dataclasses.replace(self, alpha=alpha, beta=beta)


def _base_pose(msg: Any) -> tuple[int, tuple[float, ...]] | None:
    """(stamp [ns], (x, y, z, q_x, q_y, q_z, q_w)) of world → link_1 in a TFMessage, or None."""
    for tr in msg.transforms:
        if tr.header.frame_id == WORLD_FRAME and tr.child_frame_id == link_name(1):
            r, p, stamp = tr.transform.rotation, tr.transform.translation, tr.header.stamp
            return stamp.sec * 1_000_000_000 + stamp.nanosec, (p.x, p.y, p.z, r.x, r.y, r.z, r.w)
    return None


def read_recording(path: Path) -> Recording:
    """The joint states (and /tf's base pose) of the rosbag2 folder ``path``; ConfigError if it is not one or lacks α
    and β of every joint. The joint states are the CAN bridge's own topic where the bag has it (the suite's layout),
    else /joint_states: the suite's layout (``joint_j`` α, α̇; ``motor_j`` β) as the simulators write it, or the
    URDF's joints alone (``motor_j`` β, β̇; ``spring_j`` α − β, α̇ − β̇) as ros2_control's joint_state_broadcaster
    publishes them on the robot."""
    path = Path(path)
    if not (path / "metadata.yaml").is_file():
        raise ConfigError("--bag", str(path), "not a rosbag2 folder (no metadata.yaml)")
    rows: dict[str, list[tuple[int, tuple[list[str], Any, Any, Any]]]] = {CAN_BRIDGE_JOINT_STATES: [],
                                                                          JOINT_STATES: []}
    bases = {}
    try:
        with AnyReader([path], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
            wanted = [c for c in reader.connections if c.topic in (*rows, TF)]
            for conn, _, raw in reader.messages(connections=wanted):
                msg = reader.deserialize(raw, conn.msgtype)
                if conn.topic == TF:
                    pose = _base_pose(msg)
                    if pose is not None:
                        bases[pose[0]] = pose[1]
                    continue
                rows[conn.topic].append((msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec,
                                         (list(msg.name), msg.position, msg.velocity, msg.effort)))
    except (ReaderError, OSError, KeyError, ValueError) as exc:
        raise ConfigError("--bag", str(path), f"cannot read the recording ({exc})") from None
    topic = CAN_BRIDGE_JOINT_STATES if len(rows[CAN_BRIDGE_JOINT_STATES]) >= 2 else JOINT_STATES
    if len(rows[topic]) < 2:
        raise ConfigError("--bag", str(path), f"needs {JOINT_STATES} or {CAN_BRIDGE_JOINT_STATES} messages (it has "
                          f"{len(rows[topic])})")
    stamps = [stamp for stamp, _ in rows[topic]]
    n = sum(name.startswith("motor_") for name in rows[topic][0][1][0])
    layout = JointStateLayout(n, sea=True)
    # α, α̇ from spring_j where joint_j is missing: α = β + (α − β); τ is not read (any stiffness)
    readings = [layout.read(*row, stiffness=np.ones(n)) for _, row in rows[topic]]
    if n == 0 or not all(r.found.all() and r.motor.all() for r in readings):
        raise ConfigError("--bag", str(path), f"every {topic} message needs α and β of every joint: joint_j and "
                          "motor_j, as the suite's simulators and the CAN bridge write them, or motor_j and spring_j, "
                          "as ros2_control's joint_state_broadcaster publishes them")
    order = np.argsort(stamps, kind="stable")
    t_ns = np.asarray(stamps, dtype=np.int64)[order]
    keep = np.concatenate([[True], np.diff(t_ns) > 0])  # one sample per stamp
    order, t_ns = order[keep], t_ns[keep]
    stack = {k: np.array([getattr(readings[i], k) for i in order]) for k in ("alpha", "alpha_dot", "beta")}
    base = None
    if len(bases) >= 2:  # the base pose at the joint states' stamps (its own where they share them): position
        stamped = np.array(sorted(bases))  # linear, orientation spherical-linear (scipy's Slerp) between /tf's stamps
        poses = np.array([bases[s] for s in stamped])
        at = np.clip(t_ns, stamped[0], stamped[-1])
        base = np.concatenate([np.stack([np.interp(at, stamped, poses[:, k]) for k in range(3)], axis=1),
                               Slerp(stamped, Rotation.from_quat(poses[:, 3:]))(at).as_quat()], axis=1)
    return Recording((t_ns - t_ns[0]) * 1e-9, stack["alpha"], stack["alpha_dot"], stack["beta"], base, topic)


def resting_tilt(model: VerticalModel, alpha: np.ndarray, beta: np.ndarray) -> tuple[float, float]:
    """(θ_1 [rad], height of the tail tip above the lowest contact candidate [m]) of the body of joint angles α, β
    resting on flat ground: turned about the tail tip so that the edge of its contact candidates' convex hull below
    its centre of mass (the links' mean) lies flat and carries it."""
    q = initial_configuration(model, 0.0, 0.0, alpha, -float(np.sum(alpha)), beta)  # θ_1 = 0
    points = np.stack(contact_points(model, q), axis=1)
    com = np.stack(link_positions(model, q), axis=1).mean(axis=0)
    try:
        hull = ConvexHull(points).vertices  # counter-clockwise in (x, z)
    except QhullError:  # all on a line: the body straight
        return 0.0, float(-points[:, 1].min())
    best = None
    for a, b in zip(hull, np.roll(hull, -1), strict=True):
        d = points[b] - points[a]
        if 0.0 <= float((com - points[a]) @ d) / float(d @ d) <= 1.0:  # the centre of mass over this edge
            psi = math.remainder(-0.5 * math.pi - math.atan2(-d[0], d[1]), 2.0 * math.pi)  # outward normal → −z
            if best is None or abs(psi) < abs(best):
                best = psi
    psi = 0.0 if best is None else best
    c, s = math.cos(psi), math.sin(psi)
    return psi, float(-(points[:, 0] * s + points[:, 1] * c).min())


def recorded_states(setup: VerticalSetup, rec: Recording) -> tuple[np.ndarray, np.ndarray]:
    """(q, q̇) (T, 2N + 1) of the vertical model at every recorded sample: α, β and the tail tip's pose in the x–z
    plane, x, z and θ_1 about −y (where the recording has none: at the set-up's start x, the body resting on flat
    ground at its start height, :func:`resting_tilt`); α̇ recorded where known, every other rate by central
    differences."""
    model = setup.model
    if rec.base is None:
        x, z = contact_points(model, setup.q0)
        rest = np.array([resting_tilt(model, a, b) for a, b in zip(rec.alpha, rec.beta, strict=True)])
        tail = np.stack([np.full(len(rec.t), x[model.n_links]), z.min() + rest[:, 1], rest[:, 0]], axis=1)
    else:
        theta = np.unwrap(-Rotation.from_quat(rec.base[:, 3:]).as_rotvec()[:, 1])
        tail = np.stack([rec.base[:, 0], rec.base[:, 2], theta], axis=1)
    q = np.array([initial_configuration(model, tx, tz, a, th1 - a.sum(), b)  # θ_N = θ_1 − Σα_j (α_j = θ_j − θ_j+1)
                  for (tx, tz, th1), a, b in zip(tail, rec.alpha, rec.beta, strict=True)])
    v = np.gradient(q, rec.t, axis=0)
    known = np.isfinite(rec.alpha_dot)
    v[:, model.i_alpha] = np.where(known, rec.alpha_dot, v[:, model.i_alpha])
    return q, v


def recorded_states_3d(setup: MujocoSetup, rec: Recording) -> tuple[np.ndarray, np.ndarray]:
    """(qpos, qvel) of the MuJoCo model at every recorded sample: α, β and link 1's 6-DoF pose (the scenario's start
    pose, body straight, where the recording has none); α̇ recorded where known, every other rate by central
    differences of the poses (MuJoCo's ``mj_differentiatePos``: the base's angular rate from its quaternions)."""
    model = setup.model
    if rec.base is None:
        tip, roll, _ = start_pose(setup.robot, model.world.ground_height, setup.start_x, setup.perturbation)
        origins = np.tile(tip, (len(rec.t), 1))
        rotations = np.tile(Rotation.from_rotvec([roll, 0.0, 0.0]).as_matrix(), (len(rec.t), 1, 1))
    else:
        origins, rotations = rec.base[:, :3], Rotation.from_quat(rec.base[:, 3:]).as_matrix()
    q = np.array([mm.qpos_from_poses(model, o, r, a, b)
                  for o, r, a, b in zip(origins, rotations, rec.alpha, rec.beta, strict=True)])
    v = np.zeros((len(q), model.mj.nv))
    for i in range(len(q)):  # central differences inside, one-sided at the ends (as np.gradient)
        lo, hi = max(i - 1, 0), min(i + 1, len(q) - 1)
        mujoco.mj_differentiatePos(model.mj, v[i], float(rec.t[hi] - rec.t[lo]), q[lo], q[hi])
    known = np.isfinite(rec.alpha_dot)  # α̇ = β̇ + (α̇ − β̇): the spring's rate takes the recorded α̇
    v[:, model.spring_dof] = np.where(known, rec.alpha_dot - v[:, model.motor_dof], v[:, model.spring_dof])
    return q, v


def _vertical_window(setup: VerticalSetup, duration: float, q: np.ndarray, v: np.ndarray, t0: float) -> RunLog:
    return simulate(setup, duration, start=VerticalData(q.copy(), v.copy(), np.zeros(setup.model.n_joints)), t0=t0)


def _mujoco_window(setup: MujocoSetup, duration: float, q: np.ndarray, v: np.ndarray, t0: float) -> RunLog:
    return mujoco_runtime.simulate(setup, duration, start=mm.state_data(setup.model, q, v), t0=t0)


@dataclass(frozen=True)
class Restarts:
    """How the windows of an engine restart from a recording: its set-up from a scenario, its state (q, q̇) at every
    recorded sample, and a window's run (set-up, duration [s], q, q̇, the gait's time at its start [s])."""

    build: Callable[[Scenario], Any]
    states: Callable[[Any, Recording], tuple[np.ndarray, np.ndarray]]
    window: Callable[[Any, float, np.ndarray, np.ndarray, float], RunLog]


#: The engines calibrate restarts, by a scenario's ``model``.
ENGINES = {"vertical": Restarts(build, recorded_states, _vertical_window),
           "mujoco": Restarts(mujoco_runtime.build, recorded_states_3d, _mujoco_window)}


@dataclass(frozen=True)
class WindowLoss:
    """The measure of a trial (:data:`snake_studies.sweep.engine.Measure`): the windows of ``recording`` simulated
    with the cell's scenario; its summary is the loss (module docstring)."""

    recording: Recording
    window: float = WINDOW_S

    def starts(self) -> list[int]:
        """Indices of the windows' first samples: every ``window`` seconds, each window inside the recording."""
        t = self.recording.t
        out, s = [], 0.0
        while True:
            i = int(np.searchsorted(t, s - 1e-9))
            if i >= len(t) or t[i] + self.window > t[-1] + 1e-9:
                return out
            out.append(i)
            s = t[i] + self.window

    def simulate(self, scenario: Scenario, rec: Recording, delay: float = 0.0) -> list[RunLog]:
        """Every window's run from the state of ``rec`` (the recording, corrected) at its start, the recording
        ``delay`` behind the gait's clock."""
        engine = ENGINES[scenario.model]
        setup = engine.build(scenario)
        q, v = engine.states(setup, rec)
        return [engine.window(setup, self.window, q[i], v[i], float(rec.t[i]) - delay) for i in self.starts()]

    def residuals(self, logs: list[RunLog], log_period: float, rec: Recording, delay: float = 0.0) -> np.ndarray:
        """r of the windows' runs against ``rec`` (module docstring; scaled by the recording's own RMS); the samples a
        window lacks count DIVERGED_RESIDUAL."""
        n = round(self.window / log_period)
        rms = [np.maximum(np.sqrt(np.mean(x ** 2, axis=0)), RMS_FLOOR)
               for x in (self.recording.alpha, self.recording.beta)]
        parts = []
        for log in logs:
            t = log.t[0] + log_period * np.arange(1, n + 1)
            for sim, recorded, scale in ((log.alpha, rec.alpha, rms[0]), (log.beta, rec.beta, rms[1])):
                ref = np.stack([np.interp(t, rec.t - delay, recorded[:, j]) for j in range(rec.n_joints)], axis=1)
                have = min(n, len(log.t) - 1)
                err = np.full((n, rec.n_joints), DIVERGED_RESIDUAL)
                err[:have] = (sim[1:have + 1] - ref[:have]) / scale
                parts.append(err.ravel())
        r = np.concatenate(parts)
        return r / math.sqrt(len(r))

    def evaluate(self, scenario: Scenario, fields: dict[str, float] | None = None) -> tuple[np.ndarray, list[RunLog]]:
        """(r, the windows' runs) of ``scenario`` with the recording's ``fields`` (:data:`DELAY`, :data:`OFFSET`)."""
        fields = fields or {}
        rec, delay = self.recording.corrected(fields), fields.get(DELAY, 0.0)
        logs = self.simulate(scenario, rec, delay)
        return self.residuals(logs, scenario.log_period, rec, delay), logs

    def synthetic(self, problem: Problem, params: dict[str, float], encoders: Encoders,
                  rng: np.random.Generator) -> Recording:
        """The recording the suite makes of the problem's scenario at ``params`` (its fields and the recording's)
        run from this recording's first state (corrected) over its span, read by ``encoders`` (its encoder offsets
        added back), with α̇ and /tf's base pose where this recording has them
        (:mod:`snake_studies.calibration_bootstrap`)."""
        fields = {k: float(v) for k, v in params.items() if k.startswith(RECORDING)}
        rec, delay = self.recording.corrected(fields), fields.get(DELAY, 0.0)
        scenario = load_scenario(problem.scenario, problem.cell(params).overrides)
        engine = ENGINES[scenario.model]
        setup = engine.build(scenario)
        q, v = engine.states(setup, rec)
        log = engine.window(setup, float(rec.t[-1] - rec.t[0]), q[0], v[0], float(rec.t[0]) - delay)
        true = Recording.of_log(log).corrected({k: -x for k, x in fields.items()})
        out = encoders.record(true, rng)
        return dataclasses.replace(out, alpha_dot=np.where(np.isfinite(rec.alpha_dot).all(axis=0), out.alpha_dot,
                                                           np.nan),
                                   base=None if rec.base is None else out.base, topic=rec.topic)

    def evaluate_at(self, problem: Problem, params: dict[str, float]) -> tuple[np.ndarray, list[RunLog]]:
        """(r, the windows' runs) at a point of the problem's box: its scenario's fields and the recording's."""
        return self.evaluate(load_scenario(problem.scenario, problem.cell(params).overrides),
                             {k: float(v) for k, v in params.items() if k.startswith(RECORDING)})

    def __call__(self, cell: Cell, out: Path | None = None) -> dict[str, Any]:
        scenario = load_scenario(cell.scenario, cell.overrides)
        r, logs = self.evaluate(scenario, {k: float(v) for k, v in cell.values if k.startswith(RECORDING)})
        return {"status": "ok", "loss": float(r @ r), "windows": len(logs),
                "diverged_windows": sum(log.status != "ok" for log in logs)}


@dataclass(frozen=True)
class CalibrationProblem(Problem):
    """The search's problem: the recording's fields are columns of the trial, not overrides of its scenario."""

    def cell(self, params: dict[str, float]) -> Cell:
        return Cell(self.scenario, (*self.sets, *(f"{r.key}={params[r.key]!r}" for r in self.space
                                                  if not r.key.startswith(RECORDING))),
                    tuple((r.key, params[r.key]) for r in self.space))


@dataclass(frozen=True)
class Calibration:
    """What ``snake-sim calibrate`` was asked (JSON-ready through :meth:`as_dict`)."""

    scenario: str
    bag: Path
    fit: tuple[Range, ...]
    sets: tuple[str, ...] = ()
    window: float = WINDOW_S

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "bag": str(Path(self.bag).resolve()),
                "fit": {r.key: [r.low, r.high, "log" if r.log else "linear"] for r in self.fit},
                "set": list(self.sets), "window_s": self.window}


def parse_fits(fits: list[str], logs: list[str]) -> tuple[Range, ...]:
    """``--fit KEY=LO:HI`` ranges, log-space for the keys of ``--log``; ConfigError for a ``--log`` key not fitted or a
    log range with LO ≤ 0."""
    ranges = [parse_range(f, "--fit") for f in fits]
    if not ranges:
        raise ConfigError("--fit", [], "give at least one FIELD=LO:HI")
    keys = {r.key for r in ranges}
    for key in logs:
        if key not in keys:
            raise ConfigError("--log", key, "is not a --fit field")
    out = []
    for r in ranges:
        if r.key.startswith(RECORDING) and r.key != DELAY and not OFFSET.fullmatch(r.key):
            raise ConfigError("--fit", r.key, f"the recording's fields are {DELAY} and recording.alpha_offset.J, "
                              "recording.beta_offset.J (joint J from 1)")
        if r.key in logs and r.low <= 0.0:
            raise ConfigError("--log", r.key, f"a log range needs LO > 0 (it is {r.low:g})")
        out.append(Range(r.key, r.low, r.high, r.key in logs))
    return tuple(out)


@dataclass(frozen=True)
class CalibrationOutcome:
    loss_start: float  # the global search's best loss
    written: list[Path]
    trials: int
    interrupted: bool
    fit: FitResult | None = None  # None: the search has no trial with a value
    bootstrap: Bootstrap | None = None  # None: not asked (--bootstrap 0)

    @property
    def fitted(self) -> list[Fitted]:
        return [] if self.fit is None else self.fit.fitted

    @property
    def loss(self) -> float:
        """After the polish."""
        return math.nan if self.fit is None else self.fit.loss

    @property
    def evaluations(self) -> int:
        """Runs after the search (polishes and profiles)."""
        return 0 if self.fit is None else self.fit.evaluations


def search_trials(out: Path, fit: tuple[Range, ...]) -> list[tuple[dict[str, float], float]]:
    """(values, loss) of every trial in ``out``/trials.csv that has a loss."""
    rows = ResultsTable(out / "trials.csv").rows
    return [({r.key: float(row[r.key]) for r in fit}, float(row["loss"])) for row in rows
            if row.get("status") == "ok" and isinstance(row.get("loss"), (int, float)) and math.isfinite(row["loss"])]


def check_out(calibration: Calibration, out: Path, resume: bool) -> None:
    """ConfigError if ``out`` holds a calibration and ``resume`` is not set, or holds another one."""
    spec = out / "calibration.yaml"
    if not (out / "study.log").exists():
        return
    if not resume:
        raise ConfigError("--out", str(out), "holds a calibration: add --resume to continue it, or choose another "
                          "folder")
    if spec.is_file() and yaml.safe_load(spec.read_text(encoding="utf-8")) != calibration.as_dict():
        raise ConfigError("--resume", str(out), "holds a calibration of another scenario, recording or box; choose "
                          "another folder")


def calibrate(calibration: Calibration, out: Path, trials: int, workers: int | None = None,
              scheduler: str | None = None, resume: bool = False, progress: bool = True,
              seed: int | None = None, restarts: int = RESTARTS, replicates: int = 0) -> CalibrationOutcome:
    """The global search, the polishes from its ``restarts`` best distinct trials, the intervals, the bootstrap of
    ``replicates`` (0: none) and the outputs (module docstring); ``seed`` fixes the search's and the bootstrap's random
    draws (None: new ones each run)."""
    integer(trials, "--trials", low=1)
    integer(restarts, "--restarts", low=1)
    positive(calibration.window, "--window")
    check_out(calibration, out, resume)
    base = load_scenario(calibration.scenario, calibration.sets)
    if base.model not in ENGINES:
        raise ConfigError("scenario", base.name, f"calibrate restarts the engines {', '.join(ENGINES)}; this one is "
                          f"{base.model}")
    rec = read_recording(calibration.bag)
    check_recording(rec, replicates, CAN_BRIDGE_JOINT_STATES)
    loss = WindowLoss(rec, calibration.window)
    if len(loss.starts()) < 2:
        raise ConfigError("--window", calibration.window, f"longer than half the recording ({rec.t[-1]:.3g} s): the "
                          "intervals need two windows at least")
    n_joints = ENGINES[base.model].build(base).robot.n_joints
    if n_joints != rec.n_joints:
        raise ConfigError("--bag", str(calibration.bag), f"records {rec.n_joints} joints; {base.name}'s robot has "
                          f"{n_joints}")
    for r in calibration.fit:
        match = OFFSET.fullmatch(r.key)
        if match and int(match[2]) > n_joints:
            raise ConfigError("--fit", r.key, f"the robot has joints 1 to {n_joints}")
    problem = CalibrationProblem(calibration.scenario, calibration.fit, "loss", sets=calibration.sets)
    search = optimise(problem, out, trials, "cmaes", None, workers, scheduler, progress, loss, seed)
    (out / "calibration.yaml").write_text(yaml.safe_dump(calibration.as_dict(), sort_keys=False), encoding="utf-8")
    if search.interrupted or search.best is None:
        return CalibrationOutcome(math.nan, search.written, search.trials, search.interrupted)
    searched = search_trials(out, calibration.fit)
    with tqdm(desc="polish", unit="run", disable=not progress, dynamic_ncols=True) as bar:
        result = fit(calibration.fit, lambda params: loss.evaluate_at(problem, params)[0], len(loss.starts()),
                     searched, restarts, bar.update)
    boot = None
    identified = [i for i in result.free if result.fitted[i].identifiable]  # the others are frozen
    if replicates and identified:
        boot = bootstrap(loss, problem, {f.key: f.value for f in result.fitted}, identified, replicates, workers,
                         scheduler, seed, progress)
    outcome = CalibrationOutcome(float(search.best.value), [], search.trials, False, result, boot)
    written = write_outputs(out, calibration, problem, outcome, loss, searched)
    return dataclasses.replace(outcome, written=[*written, *search.written])
