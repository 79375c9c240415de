"""docs/reproduction.md section: does any TSC setting climb the single obstacle with 002's face friction?

The stiffness section's settings leave it open; a search answers it. Over a box of TSC's parameters much wider than
002's ranges (A up to the ±60° joint limit, M_d, D_d, K_d over two decades, K_τ from 0 to five times 002's 6), on the
vertical-plane model (``tsc-obstacle``) and the 3-D MuJoCo model (``tsc-obstacle-3d``), the box's faces keeping the
world file's μ (002's). Each search is an Optuna study whose trials run as Dask tasks (:mod:`snake_studies.sweep`):

1. a scrambled Sobol sequence over the box (seeded), an unbiased cover that maps where the robot climbs;
2. then TPE (seeded, multivariate) that maximises the climb's *progress speed*
   (:func:`snake_sim.analysis.climb_mode.progress_speed`: the climb's average speed for a climber, the tail tip's
   advance over the run for a non-climber, so that it is led to the box first and to faster climbs after).

Trials are asked and told in rounds of :data:`BATCH` in trial order, so the study, and with it every number here, is
the same whatever the number of workers or the order in which runs finish (``snake-sim optimise`` asks a new trial
as each one ends, which keeps every worker busy but lets the order of finishing steer the study; it reuses its
Problem and tell here). Every trial that climbed is run again
at half the step (:mod:`snake_sim.analysis.step_check`): only a climb whose verdict, times, speeds and climbing mode
(:mod:`snake_sim.analysis.climb_mode`: crawl or tumble) stand at h/2 counts. The open loop (the scenarios' A = π/3,
φ = −2π/5) runs beside, step-checked: at 002's face μ and, in the vertical model, with the faces' μ lowered in steps
of :data:`FACE_FRICTION_STEP`, to find the highest μ at which it climbs. In 3-D the best step-checked climbers and
the open loop also run at other perturbation seeds (roll and joint noise).

The plan is one Task per search (adaptive: TPE asks for its trials as the earlier ones are told), measured here, its
trials submitted to the cluster's client (or to a LocalCluster of one worker per core).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import optuna
from distributed import Client
from scipy.stats import qmc
from tqdm import tqdm

from snake_core.controllers import controller_values
from snake_core.robot import load_robot
from snake_sim.analysis.climb_mode import CHORD_LIMIT_DEG
from snake_sim.analysis.rollover import ROLL_OVER_DEG
from snake_sim.analysis.step_check import TOLERANCE, step_check
from snake_sim.core.scenario import load_scenario
from snake_sim.core.world import load_world
from snake_studies import sweep
from snake_studies.climb_3d import SEEDS
from snake_studies.optimise import Problem, tell
from snake_studies.reproduction.experiment import Task
from snake_studies.reproduction.experiments import stiffness
from snake_studies.sweep import Cell, Range, engine
from snake_studies.sweep.engine import measure_climb

#: Seed of the Sobol sequence and of TPE.
SAMPLER_SEED = 0
#: Trials asked, run and told together (the study does not depend on the workers).
BATCH = 8
#: The search's objective (a field :func:`snake_studies.sweep.engine.measure_climb` adds to summary.json),
#: maximised.
OBJECTIVE = "climb_progress_speed_mps"
#: The open loop's face friction is lowered from 002's in steps of this much, down to 0.
FACE_FRICTION_STEP = 0.05
#: Step-checked climbers of the 3-D search run again at the other perturbation seeds: this many, fastest first.
SEEDED_BEST = 4
#: Simulated seconds of every run of a ``fast`` smoke run, and its trials (Sobol, total).
FAST_DURATION = 2.0
FAST_TRIALS = (2, 4)
#: What the box spans beyond 002's ranges: M_d, D_d, K_d from 1/10 to 10 × (log), K_τ from 0 to this × 002's largest.
DECADE = 10.0
TORQUE_GAIN_FACTOR = 5.0
#: The amplitude's lower bound: a quarter of the joint limit (π/12 for ±60°).
AMPLITUDE_LOW_FRACTION = 0.25


@dataclass(frozen=True)
class SearchSpec:
    """One model's search: its TSC and open-loop scenarios and its trial counts (Sobol, total)."""

    model: str
    scenario: str
    open_loop: str
    sobol: int
    trials: int


#: The two searches: 3-D runs cost about the same as the vertical ones (MuJoCo at 2 ms), their climbs are more
#: common, so a smaller study suffices there.
SEARCHES = (SearchSpec("vertical", "tsc-obstacle", "open-loop-obstacle", 128, 256),
            SearchSpec("mujoco", "tsc-obstacle-3d", "open-loop-obstacle-3d", 64, 128))


@dataclass(frozen=True)
class HalfStep:
    """The same run at half the step and the step check's verdict."""

    status: str
    climbed: bool | None
    time_to_climb_s: float | None
    mode: str | None
    rolled_over: bool | None
    converged: bool  # step_check converged (verdicts the same, times and speeds within TOLERANCE) and the same mode
    max_rate_change: float


@dataclass(frozen=True)
class Run:
    """One run: its settings beyond the scenario (searched keys, face μ, perturbation seed) and its outcome."""

    params: dict[str, float]
    status: str
    climbed: bool | None
    time_to_climb_s: float | None
    progress_speed_mps: float | None
    com_speed_mps: float | None
    mode: str | None
    max_chord_angle_deg: float | None
    max_body_rotation_deg: float | None
    rolled_over: bool | None  # None: the model cannot roll (vertical plane)
    max_roll_deg: float | None
    half: HalfStep | None = None  # climbers and the open loop only

    @property
    def checked_climb(self) -> bool:
        """Climbed at h and the climb stands at h/2 (step check converged, same mode)."""
        return bool(self.climbed) and self.half is not None and self.half.converged


@dataclass(frozen=True)
class Search:
    model: str
    scenario: str
    open_loop_scenario: str
    time_step_s: float
    duration_s: float
    open_loop_gait: tuple[float, float]  # the open loop's A, φ [rad]
    space: tuple[Range, ...]
    sobol_trials: int  # the first trials: the Sobol cover; the rest TPE
    trials: tuple[Run, ...]  # in trial order
    seeded: tuple[Run, ...]  # the best step-checked climbers at the other perturbation seeds (3-D)
    open_loop: tuple[Run, ...]  # at 002's face μ (params {}), lowered μ (world.side_friction), other seeds
    own: Run  # the TSC scenario's own setting (inside 002's ranges), step-checked
    trial_wall_time_s: float  # a trial's mean wall time on its worker (load, simulate, summarise) [s]


@dataclass(frozen=True)
class RunSettings:
    """How the searches were made, as the text states it: the rounds, the face μ's steps and the thresholds of the
    analysis of each run (step check, climb mode, roll-over)."""

    batch: int  # trials asked, run and told together
    face_friction_step: float  # the open loop's face μ is lowered in steps of this much
    step_tolerance: float  # largest relative change of a time or speed from h to h/2 of a converged run
    chord_limit_deg: float  # a run crawls while its chord stays within ± this of the x axis [°]
    roll_over_deg: float  # a module's roll past this is a roll-over [°]


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    return RunSettings(BATCH, FACE_FRICTION_STEP, TOLERANCE, CHORD_LIMIT_DEG, ROLL_OVER_DEG)


@dataclass(frozen=True)
class Results:
    fast: bool
    sampler_seed: int
    face_friction: float  # μ of the box's faces in the world file (002's)
    joint_limit_deg: float
    ranges_002: dict[str, tuple[float, float]]  # searched key → 002's (low, high); M_d is a point
    searches: tuple[Search, ...]
    settings: RunSettings


def ranges_002(joint_limit: float) -> dict[str, tuple[float, float]]:
    """002's values of each searched key: A from Table 7.1's π/6 to the limit, M_d = 1 (Table 7.1), D_d and K_d from
    Table 7.1 to the experiments, K_τ 0 and 6 (stiffness section's grid)."""
    m_d = stiffness.TABLE_7_1_GAINS[0]
    return {"gait.amplitude": (stiffness.TABLE_7_1_AMPLITUDE, joint_limit), "controller.inertia": (m_d, m_d),
            "controller.damping": (min(stiffness.GRID_DAMPING), max(stiffness.GRID_DAMPING)),
            "controller.stiffness": (min(stiffness.GRID_STIFFNESS), max(stiffness.GRID_STIFFNESS)),
            "controller.torque_gain": (min(stiffness.GRID_TORQUE_GAINS), max(stiffness.GRID_TORQUE_GAINS))}


def wide_box(ranges: dict[str, tuple[float, float]]) -> tuple[Range, ...]:
    """The searched box around 002's ranges (module constants): A up to the joint limit; M_d, D_d, K_d a decade
    below 002's smallest to a decade above its largest (log); K_τ from 0 to TORQUE_GAIN_FACTOR × 002's largest."""
    a_hi = ranges["gait.amplitude"][1]
    box = [Range("gait.amplitude", AMPLITUDE_LOW_FRACTION * a_hi, a_hi)]
    box += [Range(k, ranges[k][0] / DECADE, ranges[k][1] * DECADE, log=True)
            for k in ("controller.inertia", "controller.damping", "controller.stiffness")]
    box.append(Range("controller.torque_gain", 0.0, TORQUE_GAIN_FACTOR * ranges["controller.torque_gain"][1]))
    return tuple(box)


def _run(row: dict[str, Any], params: dict[str, float]) -> Run:
    """A Run from a sweep row (:mod:`snake_studies.sweep.engine`)."""
    return Run(params, row["status"], row.get("climbed"), row.get("time_to_climb_s"), row.get(OBJECTIVE),
               row.get("average_speed_mps"), row.get("climb_mode"), row.get("max_chord_angle_deg"),
               row.get("max_body_rotation_deg"), row.get("rolled_over"), row.get("max_roll_deg"))


def _half(row: dict[str, Any], half: dict[str, Any], time_step: float) -> HalfStep:
    check = step_check(row, half, time_step)
    same_mode = row.get("climb_mode") == half.get("climb_mode")
    return HalfStep(half["status"], half.get("climbed"), half.get("time_to_climb_s"), half.get("climb_mode"),
                    half.get("rolled_over"), bool(check["converged"]) and same_mode, float(check["max_rate_change"]))


def _halved(cell: Cell, time_step: float) -> Cell:
    return Cell(cell.scenario, (*cell.overrides, f"sim.time_step={0.5 * time_step!r}"), cell.values, cell.seed)


def _rows(client, cells: list[Cell], progress: bool = False) -> list[dict[str, Any]]:
    """The rows of ``cells``, in their order."""
    return sweep.run(cells, measure=measure_climb, progress=progress, client=client) if cells else []


def _with_half(run: Run, row: dict[str, Any], half: dict[str, Any], time_step: float) -> Run:
    return replace(run, half=_half(row, half, time_step))


def _checked(client, cells: list[tuple[Cell, dict[str, float]]], time_step: float) -> list[Run]:
    """Runs of ``cells`` (with their params), each at h and at h/2."""
    plain = [c for c, _ in cells]
    rows = _rows(client, [*plain, *(_halved(c, time_step) for c in plain)], progress=True)
    n = len(plain)
    return [_with_half(_run(rows[i], p), rows[i], rows[n + i], time_step) for i, (_, p) in enumerate(cells)]


def sobol_points(space: tuple[Range, ...], n: int) -> list[dict[str, float]]:
    """``n`` points of a scrambled Sobol sequence (seed SAMPLER_SEED) over the box, log ranges uniform in log."""
    unit = qmc.Sobol(len(space), scramble=True, seed=SAMPLER_SEED).random(n)
    points = []
    for u in unit:
        point = {}
        for r, x in zip(space, u, strict=True):
            lo, hi = (np.log(r.low), np.log(r.high)) if r.log else (r.low, r.high)
            value = lo + x * (hi - lo)
            point[r.key] = float(np.clip(np.exp(value) if r.log else value, r.low, r.high))
        points.append(point)
    return points


def _study(client, problem: Problem, sobol: int, trials: int, desc: str
           ) -> list[tuple[Cell, dict[str, float], dict[str, Any]]]:
    """The search's trials in order: (cell, params, row); the Sobol points first (enqueued), then TPE's, asked, run
    and told in rounds of BATCH."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.TPESampler(seed=SAMPLER_SEED, multivariate=True))
    for point in sobol_points(problem.space, sobol):
        study.enqueue_trial(point)
    done: list[tuple[Cell, dict[str, float], dict[str, Any]]] = []
    with tqdm(total=trials, desc=desc, unit="trial", leave=False, dynamic_ncols=True) as bar:
        while len(done) < trials:
            end = sobol if len(done) < sobol else trials
            asked = [study.ask(problem.distributions()) for _ in range(min(BATCH, end - len(done)))]
            cells = [problem.cell(t.params) for t in asked]
            for trial, cell, row in zip(asked, cells, _rows(client, cells), strict=True):
                tell(study, problem, trial, row)
                done.append((cell, dict(trial.params), row))
            bar.update(len(asked))
    return done


def _search(client, spec: SearchSpec, box: tuple[Range, ...], face_mu: float, fast: bool) -> Search:
    sets = (f"sim.duration={FAST_DURATION!r}",) if fast else ()
    sobol, trials = FAST_TRIALS if fast else (spec.sobol, spec.trials)
    scenario = load_scenario(spec.scenario, sets)
    h, model = scenario.time_step, spec.model
    problem = Problem(spec.scenario, box, OBJECTIVE, maximise=True, sets=sets)
    done = _study(client, problem, sobol, trials, f"{model} TSC search")
    climbers = [i for i, (_, _, row) in enumerate(done) if row.get("climbed")]
    halves = _rows(client, [_halved(done[i][0], h) for i in climbers], progress=True)
    runs = [_run(row, params) for _, params, row in done]
    for i, half in zip(climbers, halves, strict=True):
        runs[i] = _with_half(runs[i], done[i][2], half, h)
    open_loop = [(Cell(spec.open_loop, sets), {})]
    seeded: list[Run] = []
    if "perturbation" in scenario.data["sim"]:
        open_loop += [(Cell(spec.open_loop, (*sets, f"sim.perturbation.seed={k}")), {"sim.perturbation.seed": float(k)})
                      for k in SEEDS[1:]]
        best = sorted((i for i in climbers if runs[i].checked_climb), key=lambda i: runs[i].time_to_climb_s)
        seeded = _checked(client, [(Cell(spec.scenario, (*done[i][0].overrides, f"sim.perturbation.seed={k}")),
                                    {**done[i][1], "sim.perturbation.seed": float(k)})
                                   for i in best[:SEEDED_BEST] for k in SEEDS[1:]], h)
    else:
        mus = np.arange(0.0, face_mu - 0.5 * FACE_FRICTION_STEP, FACE_FRICTION_STEP)[::-1]
        open_loop += [(Cell(spec.open_loop, (*sets, f"world.side_friction={float(mu)!r}")),
                       {"world.side_friction": round(float(mu), 10)}) for mu in mus]
    gains = controller_values(scenario.section("controller"), load_robot(scenario.section("robot")["name"]).n_joints,
                              scenario.source)  # the gains the scenario leaves unset at the mode's defaults
    own = {r.key: float(gains[r.key.split(".")[1]] if r.key.startswith("controller.")
                        else scenario.section(r.key.split(".")[0])[r.key.split(".")[1]]) for r in box}
    *opened, own_run = _checked(client, [*open_loop, (problem.cell(own), own)], h)
    gait = load_scenario(spec.open_loop).section("gait")
    walls = [row["wall_time_s"] for _, _, row in done if row.get("wall_time_s") is not None]
    return Search(model, spec.scenario, spec.open_loop, h, float(scenario.data["sim"]["duration"]),
                  (float(gait["amplitude"]), float(gait["phase_shift"])), box, sobol, tuple(runs), tuple(seeded),
                  tuple(opened), own_run, float(np.mean(walls)) if walls else float("nan"))


def _box() -> tuple[float, float, dict[str, tuple[float, float]]]:
    """(the single obstacle's face μ, the joint limit [rad], 002's ranges) from the shipped files."""
    scenario = load_scenario(SEARCHES[0].scenario)
    limit = load_robot(scenario.section("robot")["name"]).joint_limit
    faces = {b.friction for b in load_world(scenario.world_file).static_boxes}
    (face_mu,) = faces  # the single obstacle: one μ on every face
    return face_mu, limit, ranges_002(limit)


def plan(fast: bool = False) -> dict[str, Task]:
    """Both searches (SEARCHES), by model; ``fast``: FAST_TRIALS trials of FAST_DURATION s."""
    return {spec.model: Task("search", (i, fast)) for i, spec in enumerate(SEARCHES)}


def measure(run: Task, client: Client | None = None) -> Search:
    """One search, its trials on ``client``, or on a LocalCluster of one worker per core."""
    index, fast = run.args
    face_mu, _, ranges = _box()
    with engine.connect() if client is None else contextlib.nullcontext(client) as held:
        return _search(held, SEARCHES[index], wide_box(ranges), face_mu, fast)


def assemble(fast: bool, plan: dict[str, Task], rows: dict[str, Search]) -> Results:
    face_mu, limit, ranges = _box()
    return Results(fast, SAMPLER_SEED, face_mu, float(np.degrees(limit)), ranges,
                   tuple(rows[spec.model] for spec in SEARCHES), run_settings(fast))
