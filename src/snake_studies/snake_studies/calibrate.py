"""Calibration of a scenario's unknowns to a recording (``snake-sim calibrate``): the vertical model (002) fitted to a
rosbag2 of /joint_states.

The recording (:func:`read_recording`): a rosbag2 folder (MCAP or sqlite3, read with ``rosbags``) with
/joint_states as the suite's simulators and robot bring-up write it (snake_core.interface.JointStateLayout:
``joint_j`` α_j, α̇_j; ``motor_j`` β_j) and, where the bag has it, /tf's world → link_1 (the tail tip's pose,
interpolated to the joint states' stamps).

The loss (:class:`WindowLoss`): the recording is cut into K windows of ``window`` seconds; each is simulated from the
recording's state at its start — α, β from the bag, α̇ from the bag, β̇ and the body's rates by central differences,
the tail tip's pose from /tf (else the scenario's start pose) — with the scenario's controller and gait running at
the window's time (:func:`snake_sim.engines.vertical.runtime.simulate` from ``t0``). Two kinds of fitted field are the
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from rosbags.highlevel import AnyReader
from rosbags.rosbag2 import ReaderError
from rosbags.typesys import Stores, get_typestore
from scipy.spatial.transform import Rotation
from tqdm import tqdm

from snake_core.interface import JOINT_STATES, TF, WORLD_FRAME, JointStateLayout, link_name
from snake_core.validation import ConfigError, integer, positive
from snake_core.vertical.kinematics import contact_points, initial_configuration
from snake_sim.core.runlog import RunLog
from snake_sim.core.scenario import Scenario, load_scenario
from snake_sim.engines.vertical.model import VerticalData, VerticalSetup, build
from snake_sim.engines.vertical.runtime import simulate
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
    tail: np.ndarray | None  # (T, 3) tail tip x, z [m] and θ_1 [rad] from /tf (interpolated); None: no /tf

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


def _tail_pose(msg: Any) -> tuple[int, tuple[float, float, float]] | None:
    """(stamp [ns], (x, z, θ_1)) of world → link_1 in a TFMessage (θ about −y, the "xz" plane), or None."""
    for tr in msg.transforms:
        if tr.header.frame_id == WORLD_FRAME and tr.child_frame_id == link_name(1):
            r, p, stamp = tr.transform.rotation, tr.transform.translation, tr.header.stamp
            theta = -Rotation.from_quat([r.x, r.y, r.z, r.w]).as_rotvec()[1]
            return stamp.sec * 1_000_000_000 + stamp.nanosec, (p.x, p.z, float(theta))
    return None


def read_recording(path: Path) -> Recording:
    """/joint_states (and /tf's tail pose) of the rosbag2 folder ``path``; ConfigError if it is not one or lacks α and
    β of every joint."""
    path = Path(path)
    if not (path / "metadata.yaml").is_file():
        raise ConfigError("--bag", str(path), "not a rosbag2 folder (no metadata.yaml)")
    stamps, rows, tails = [], [], {}
    try:
        with AnyReader([path], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
            wanted = [c for c in reader.connections if c.topic in (JOINT_STATES, TF)]
            for conn, _, raw in reader.messages(connections=wanted):
                msg = reader.deserialize(raw, conn.msgtype)
                if conn.topic == TF:
                    pose = _tail_pose(msg)
                    if pose is not None:
                        tails[pose[0]] = pose[1]
                    continue
                stamps.append(msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec)
                rows.append((list(msg.name), msg.position, msg.velocity, msg.effort))
    except (ReaderError, OSError, KeyError, ValueError) as exc:
        raise ConfigError("--bag", str(path), f"cannot read the recording ({exc})") from None
    if len(rows) < 2:
        raise ConfigError("--bag", str(path), f"needs {JOINT_STATES} messages (it has {len(rows)})")
    n = sum(name.startswith("joint_") for name in rows[0][0])
    layout = JointStateLayout(n, sea=True)
    readings = [layout.read(*row) for row in rows]
    if n == 0 or not all(r.found.all() and r.motor.all() for r in readings):
        raise ConfigError("--bag", str(path), f"every {JOINT_STATES} message needs joint_j (α) and motor_j (β) of "
                          "every joint, as the suite's simulators and bring-up write them")
    order = np.argsort(stamps, kind="stable")
    t_ns = np.asarray(stamps, dtype=np.int64)[order]
    keep = np.concatenate([[True], np.diff(t_ns) > 0])  # one sample per stamp
    order, t_ns = order[keep], t_ns[keep]
    stack = {k: np.array([getattr(readings[i], k) for i in order]) for k in ("alpha", "alpha_dot", "beta")}
    tail = None
    if len(tails) >= 2:  # the tail pose at the joint states' stamps (its own where they share them)
        stamped = np.array(sorted(tails))
        poses = np.array([tails[s] for s in stamped])
        poses[:, 2] = np.unwrap(poses[:, 2])
        tail = np.stack([np.interp(t_ns, stamped, poses[:, k]) for k in range(3)], axis=1)
    return Recording((t_ns - t_ns[0]) * 1e-9, stack["alpha"], stack["alpha_dot"], stack["beta"], tail)


def recorded_states(setup: VerticalSetup, rec: Recording) -> tuple[np.ndarray, np.ndarray]:
    """(q, q̇) (T, 2N + 1) of the vertical model at every recorded sample: α, β and the tail tip's pose (the set-up's
    start pose, body straight, where the recording has none); α̇ recorded where known, every other rate by central
    differences."""
    model = setup.model
    if rec.tail is None:
        x, z = contact_points(model, setup.q0)
        tail = np.tile([x[model.n_links], z[model.n_links], 0.0], (len(rec.t), 1))  # the tail tip: candidate N
    else:
        tail = rec.tail
    q = np.array([initial_configuration(model, tx, tz, a, th1 - a.sum(), b)  # θ_N = θ_1 − Σα_j (α_j = θ_j − θ_j+1)
                  for (tx, tz, th1), a, b in zip(tail, rec.alpha, rec.beta, strict=True)])
    v = np.gradient(q, rec.t, axis=0)
    known = np.isfinite(rec.alpha_dot)
    v[:, model.i_alpha] = np.where(known, rec.alpha_dot, v[:, model.i_alpha])
    return q, v


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
        setup = build(scenario)
        q, v = recorded_states(setup, rec)
        return [simulate(setup, self.window, start=VerticalData(q[i].copy(), v[i].copy(),
                                                                 np.zeros(setup.model.n_joints)),
                         t0=float(rec.t[i]) - delay) for i in self.starts()]

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
              seed: int | None = None, restarts: int = RESTARTS) -> CalibrationOutcome:
    """The global search, the polishes from its ``restarts`` best distinct trials, the intervals and the outputs
    (module docstring); ``seed`` fixes the search's random draws (None: new ones each run)."""
    integer(trials, "--trials", low=1)
    integer(restarts, "--restarts", low=1)
    positive(calibration.window, "--window")
    check_out(calibration, out, resume)
    base = load_scenario(calibration.scenario, calibration.sets)
    if base.model != "vertical":
        raise ConfigError("scenario", base.name, f"calibrate fits the vertical model (002); this one is {base.model}")
    rec = read_recording(calibration.bag)
    loss = WindowLoss(rec, calibration.window)
    if len(loss.starts()) < 2:
        raise ConfigError("--window", calibration.window, f"longer than half the recording ({rec.t[-1]:.3g} s): the "
                          "intervals need two windows at least")
    n_joints = build(base).model.n_joints
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
    outcome = CalibrationOutcome(float(search.best.value), [], search.trials, False, result)
    written = write_outputs(out, calibration, problem, outcome, loss, searched)
    return dataclasses.replace(outcome, written=[*written, *search.written])
