"""docs/reproduction.md section: 002's own runs at 002's own settings, in the three engines (002 §6.4, §7.3, §7.4).

Each row is one of 002's runs with its printed settings (the ``exp64-*``, ``sim73-*`` and ``exp74-*`` scenarios):
§6.4 on the robot (A = π/4; K_d = K, i.e. position control, and local stiffness K_d = K/6), §7.3 in 002's simulation
(Table 7.1: A = π/6; open loop, TSC M_d = 1, D_d = 4, K_d = 12 with K_τ = 0 and 6), §7.4 on the robot (A = π/6; TSC
M_d = 1, D_d = 10, K_d = 17.5 with K_τ = 6 and 0, local stiffness (K − K_d)/K_d = 6, open loop) and §7.4.2 (two
obstacles), and the §7.4 TSC rows once more with (7.2)'s time read per control step (``controller.time_unit``).
Every row runs in the vertical-plane model (deterministic), MuJoCo (perturbation seeds :data:`SEEDS`) and DART
(seed :data:`DART_SEED`, at Gazebo's step), each run also at half its step (:func:`.climb_3d.case_cells`), all on
the sweep engine. The robot experiments' boxes carry a top plate of higher friction (its μ is not printed): the
scenarios' plate (the range's low end) everywhere, the range's other values in MuJoCo with seed 0.

The renderer puts each row beside 002's result, applies the rule that a comparison is a difference only when it
exceeds the half-step spread of the runs it compares (:func:`compare`), and computes (7.2)'s gain at the gait
frequency for 002's printed gains in seconds and in the per-step reading (``TSCGains.frequency_response``).
"""

from __future__ import annotations

from dataclasses import dataclass

from snake_core.controllers.tsc import gains_from_params
from snake_core.robot import load_robot
from snake_sim.analysis.rollover import ROLL_OVER_DEG
from snake_sim.analysis.step_check import TOLERANCE
from snake_sim.core import worldgen
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.dart.settings import settings_from as dart_settings
from snake_studies.climb_3d import Climb3dRun, ClimbCase, case_cells, climb_run
from snake_studies.engines import DART_TIME_STEP, ENGINES
from snake_studies.sweep import Cell
from snake_studies.sweep.engine import measure_summary

ENGINE_NAMES = {"vertical": "vertical plane", "mujoco": "MuJoCo", "dart": "DART"}
#: MuJoCo's perturbation seeds; DART's one seed; the vertical model has no perturbation.
SEEDS = (0, 1, 2)
DART_SEED = 0
#: Simulated time of every run of a ``fast`` smoke run [s].
FAST_DURATION = 1.0
#: The rows of a ``fast`` smoke run: (section, controller).
FAST_ROWS = (("§6.4", "local stiffness K_d = K/6"), ("§7.4", "TSC K_τ = 6, (7.2) per control step"))


@dataclass(frozen=True)
class Row:
    """One of 002's runs: its settings (a scenario and overrides) and what 002 reports."""

    experiment: str  # 002's section
    controller: str
    scenario: str  # the vertical scenario; its 3-D twin is ``<scenario>-3d``
    overrides: tuple[str, ...]
    outcome_002: str  # "climbs", "fails" (stuck or rolled over) or "rolls over", in every trial 002 reports
    result_002: str  # 002's words and numbers


#: The reading of (7.2) tried here: its time counted in control steps of the scenario (``controller.time_unit`` =
#: 1 / ``sim.control_rate``).
READING_SCENARIO = "exp74-tsc-obstacle-3d"
PER_STEP = "(7.2) per control step"


def per_step_override() -> str:
    return f"controller.time_unit={load_scenario(READING_SCENARIO).control_period!r}"


def rows_002() -> tuple[Row, ...]:
    """002's runs, in the order of the document (the per-step reading last in §7.4 and §7.4.2)."""
    k6, k0, step = "controller.torque_gain=6", "controller.torque_gain=0", per_step_override()
    return (
        Row("§6.4", "K_d = K (position control)", "exp64-position-obstacle", (), "fails",
            "stuck or rolled over in every trial"),
        Row("§6.4", "local stiffness K_d = K/6", "exp64-stiffness-obstacle", (), "climbs",
            "climbed in 5 of 5 trials, 24.6 s on average"),
        Row("§7.3", "open loop", "sim73-open-loop-obstacle", (), "climbs", "climbed (simulation)"),
        Row("§7.3", "TSC K_τ = 0", "sim73-tsc-obstacle", (k0,), "climbs",
            "climbed, 25.6 % faster than the open loop (simulation; K_τ not printed)"),
        Row("§7.3", "TSC K_τ = 6", "sim73-tsc-obstacle", (k6,), "climbs",
            "climbed, 25.6 % faster than the open loop (simulation; K_τ not printed)"),
        Row("§7.4", "TSC K_τ = 6", "exp74-tsc-obstacle", (k6,), "climbs", "climbed in 5 of 5 trials"),
        Row("§7.4", "TSC K_τ = 0", "exp74-tsc-obstacle", (k0,), "climbs",
            "climbed, 40.1 s on average, 4.6 % faster than K_τ = 6 (§7.4.1)"),
        Row("§7.4", "local stiffness K_d = K/7", "exp74-stiffness-obstacle", (), "climbs", "climbed"),
        Row("§7.4", "open loop", "exp74-open-loop-obstacle", (), "rolls over", "rolled over in 5 of 5 trials"),
        Row("§7.4", f"TSC K_τ = 6, {PER_STEP}", "exp74-tsc-obstacle", (k6, step), "climbs",
            "climbed in 5 of 5 trials (as printed)"),
        Row("§7.4.2", "TSC K_τ = 6", "exp74-tsc-two-obstacles", (k6,), "climbs",
            "climbed, 27.4 s on average"),
        Row("§7.4.2", "TSC K_τ = 0", "exp74-tsc-two-obstacles", (k0,), "rolls over", "rolled over in 5 of 5 trials"),
        Row("§7.4.2", "local stiffness K_d = K/7", "exp74-stiffness-two-obstacles", (), "rolls over",
            "rolled over in 5 of 5 trials"),
        Row("§7.4.2", f"TSC K_τ = 6, {PER_STEP}", "exp74-tsc-two-obstacles", (k6, step), "climbs",
            "climbed, 27.4 s on average (as printed)"),
    )


#: 002's comparisons of climb times: (section, faster row, slower row, 002's words).
COMPARISONS_002 = (
    ("§7.3", "TSC K_τ = 0", "open loop", "TSC climbed 25.6 % faster than the open loop"),
    ("§7.3", "TSC K_τ = 6", "open loop", "TSC climbed 25.6 % faster than the open loop"),
    ("§7.4", "TSC K_τ = 0", "TSC K_τ = 6", "K_τ = 0 climbed 4.6 % faster than K_τ = 6 (§7.4.1)"),
)

#: The boxes of a world of the robot experiments whose plate is the range's low end (the scenarios' own).
LAB_WORLDS = {worldgen.lab_world_name(n, worldgen.PLATE_FRICTIONS[0]): n for n in (1, 2)}
#: μ of the boxes' vertical faces tried besides the worlds' own (:data:`worldgen.FACE_FRICTION`) under the scenarios'
#: plate: 002 put a plate on the top "only for higher friction", so its bare faces may have been slippery. Run in the
#: engines :data:`FACE_ENGINES` with their seeds (DART, the slowest engine, is left out).
FACE_FRICTIONS = (0.1, 0.3)
FACE_ENGINES = ("vertical", "mujoco")


@dataclass(frozen=True)
class Case:
    """A row in one engine, with one seed and one top plate (None: the world has none, §7.3)."""

    row: Row
    plate: float | None
    run: ClimbCase
    face: float | None = None  # μ of the boxes' vertical faces; None: the world's own


@dataclass(frozen=True)
class Run002:
    """A case's run at its step and at half of it (``run``: :func:`.climb_3d.climb_run`)."""

    experiment: str
    controller: str
    plate: float | None  # μ of the boxes' top plate; None: no plate
    run: Climb3dRun
    face: float | None = None  # μ of the boxes' vertical faces; None: the world's own (face_friction)


@dataclass(frozen=True)
class RunSettings:
    """How the runs were made, as the text states it: 002's rows (scenarios and overrides), the perturbation of the
    3-D runs, the distances of the generated worlds and the smoke runs' time."""

    rows: tuple[Row, ...]  # every row of 002's runs (:func:`rows_002`), in the order of the document
    engines: tuple[str, ...]  # every row runs in each, in the tables' order
    roll_deg: float  # sim.perturbation of the 3-D runs: initial roll of the body [°]
    joint_noise_deg: float  # sim.perturbation: joint-angle noise [°]
    single_obstacle_start_gap: float  # §7.3's obstacle ahead of the head tip [m]
    lab_start_gap: float  # the robot experiments' first obstacle ahead of the head tip [m]
    two_obstacles_gap: float  # gap between §7.4.2's two boxes [m]
    step_tolerance: float  # largest relative change of a time or speed from h to h/2 of a converged run
    smoke_duration_s: float | None  # simulated time of every run of a fast smoke run [s]; None: the scenarios' own


def run_settings(fast: bool) -> RunSettings:
    """The settings the runs of a (``fast``) run of the section use, stored with its results."""
    shake = load_scenario(READING_SCENARIO).data["sim"]["perturbation"]
    return RunSettings(rows_002(), ENGINES, shake["roll_deg"], shake["joint_noise_deg"],
                       worldgen.SINGLE_OBSTACLE_START_GAP, worldgen.LAB_START_GAP, worldgen.TWO_OBSTACLES_GAP,
                       TOLERANCE, FAST_DURATION if fast else None)


@dataclass(frozen=True)
class Results:
    fast: bool
    runs: tuple[Run002, ...]
    durations: dict[str, float]  # simulated time per engine and number of boxes, "<engine> <boxes>" [s]
    seeds: dict[str, tuple[int, ...]]  # the perturbation seeds per 3-D engine
    plate_seeds: tuple[int, ...]  # MuJoCo's seeds of the plate range's other values
    time_unit_s: float  # (7.2)'s unit of time in the per-step reading [s]
    gait_frequency: float  # ω [rad/s]
    gait_phase_shift: float  # φ, the open-loop gait's lag per joint [rad]
    gains_7_4: tuple[float, float, float]  # 002 §7.4's (M_d, D_d, K_d)
    gains_7_1: tuple[float, float, float]  # Table 7.1's (M_d, D_d, K_d)
    spring_stiffness: float  # K [N·m/rad]
    local_stiffness: dict[str, float]  # K_d of local stiffness per section [N·m/rad]
    dart_friction: float  # μ of the robot's links in DART (DART takes the smaller of two surfaces' μ)
    plate_frictions: tuple[float, ...]
    roll_over_deg: float
    face_friction: float  # the worlds' own μ of the boxes' faces
    face_frictions: tuple[float, ...]  # the other face μ run (FACE_FRICTIONS)
    robots: dict[str, str]  # the robot file of each section's runs (its scenarios' robot.name)
    planned: int
    failed: tuple[str, ...]
    settings: RunSettings


def _boxes(scenario: str) -> int:
    """Number of boxes of a row's world (1 or 2)."""
    world = load_scenario(scenario).world_file
    return LAB_WORLDS.get(world, 1)


def row_case(row: Row, engine: str, seed: int | None, plate: float | None, fast: bool,
             face: float | None = None) -> Case:
    """``row`` in ``engine``; ``plate`` other than the scenario's replaces its world's plate, ``face`` (not None) the
    μ of its boxes' vertical faces."""
    scenario = row.scenario if engine == "vertical" else f"{row.scenario}-3d"
    world = load_scenario(scenario).world_file
    extra: list[str] = []
    if plate is not None and plate != worldgen.PLATE_FRICTIONS[0]:
        extra.append(f"world.file={worldgen.lab_world_name(LAB_WORLDS[world], plate)}")
    if face is not None:
        extra.append(f"world.side_friction={face!r}")
    if seed is not None:
        extra.append(f"sim.perturbation.seed={seed}")
    if engine == "dart":
        extra += ["model=dart", f"sim.time_step={DART_TIME_STEP!r}"]
    if fast:
        extra.append(f"sim.duration={FAST_DURATION!r}")
    run = ClimbCase(engine, row.controller, row.experiment, seed, scenario, (*row.overrides, *extra))
    return Case(row, plate, run, face)


def row_plate(row: Row) -> float | None:
    """The scenario's own plate μ, None where its world has none."""
    return worldgen.PLATE_FRICTIONS[0] if load_scenario(row.scenario).world_file in LAB_WORLDS else None


def cases(fast: bool = False) -> list[Case]:
    """Every row in every engine (MuJoCo with every seed), then the plate range's other values in MuJoCo, then the
    plated rows with the faces' other μ in :data:`FACE_ENGINES`; ``fast``: one seed, the rows :data:`FAST_ROWS`, one
    other plate and one other face μ."""
    rows = tuple(r for r in rows_002() if not fast or (r.experiment, r.controller) in FAST_ROWS)
    seeds = {"vertical": (None,), "mujoco": SEEDS[:1] if fast else SEEDS, "dart": (DART_SEED,)}
    out = [row_case(r, e, s, row_plate(r), fast) for e in ENGINES for r in rows for s in seeds[e]]
    others = worldgen.PLATE_FRICTIONS[1:]
    plated = [r for r in rows if row_plate(r) is not None]
    out += [row_case(r, "mujoco", SEEDS[0], mu, fast) for r in plated[:1 if fast else None] for mu in others]
    faces = FACE_FRICTIONS[:1] if fast else FACE_FRICTIONS
    out += [row_case(r, e, s, row_plate(r), fast, mu)
            for mu in faces for e in FACE_ENGINES for r in plated for s in seeds[e]]
    return out


def plan(fast: bool = False) -> dict[str, Cell]:
    """Every case's run and its run at half the step, by cell id."""
    return {c.id: c for case in cases(fast) for c in case_cells(case.run)}


#: A run of the plan is the sweep engine's summary.json of its scenario.
measure = measure_summary


def case_label(case: Case) -> str:
    seed = "" if case.run.seed is None else f", seed {case.run.seed}"
    plate = "" if case.plate is None else f", plate μ {case.plate:g}"
    return f"{ENGINE_NAMES[case.run.model]}, {case.row.experiment} {case.row.controller}{plate}{seed}"


def assemble(fast: bool, plan: dict[str, Cell], rows: dict[str, dict]) -> Results:
    """The runs; a case whose run raised or whose worker died is left out and listed (``failed``)."""
    done, failed, durations = [], [], {}
    every = cases(fast)
    for case in every:
        run = climb_run(case.run, rows)
        if isinstance(run, str):
            failed.append(f"{case_label(case)}: {run}")
            continue
        done.append(Run002(case.row.experiment, case.row.controller, case.plate, run, case.face))
        durations[f"{case.run.model} {_boxes(case.row.scenario)}"] = run.duration_s
    durations = {k: durations[k] for k in sorted(durations, key=lambda k: (ENGINES.index(k.split()[0]), k))}
    seven_four = gains_from_params(load_scenario("exp74-tsc-obstacle").section("controller"))
    table_7_1 = gains_from_params(load_scenario("sim73-tsc-obstacle").section("controller"))
    robot = load_robot(load_scenario("exp74-tsc-obstacle").robot_name)
    local = {s: float(load_scenario(n).section("controller")["stiffness"])
             for s, n in (("§6.4", "exp64-stiffness-obstacle"), ("§7.4", "exp74-stiffness-obstacle"))}
    dart = load_scenario(READING_SCENARIO, ["model=dart"])
    dart_friction = dart_settings(DART_TIME_STEP, dart.section("contact"), dart.source).friction
    reading = gains_from_params(load_scenario(READING_SCENARIO, [per_step_override()]).section("controller"))
    gait = load_scenario(READING_SCENARIO).section("gait")
    mujoco_seeds = SEEDS[:1] if fast else SEEDS
    return Results(fast, tuple(done), durations, {"mujoco": mujoco_seeds, "dart": (DART_SEED,)}, mujoco_seeds[:1],
                   reading.time_unit, float(gait["frequency"]), float(gait["phase_shift"]),
                   (seven_four.inertia, seven_four.damping, seven_four.stiffness),
                   (table_7_1.inertia, table_7_1.damping, table_7_1.stiffness), float(robot.sea.stiffness[0]), local,
                   dart_friction, worldgen.PLATE_FRICTIONS, ROLL_OVER_DEG, worldgen.FACE_FRICTION,
                   FACE_FRICTIONS[:1] if fast else FACE_FRICTIONS,
                   {r.experiment: load_scenario(r.scenario).robot_name for r in rows_002()}, len(every),
                   tuple(failed), run_settings(fast))


# ---------------------------------------------------------------------------------------------------------------
# Rendering


def select(results: Results, experiment: str, controller: str, engine: str,
            plate: float | None = None, face: float | None = None) -> list[Run002]:
    """The runs of one row in one engine with the top plate of μ = ``plate`` (None: the scenario's own plate, or
    none where its world has none) and faces of μ = ``face`` (None: the world's own)."""
    wanted = (None, results.plate_frictions[0]) if plate is None else (plate,)
    return [r for r in results.runs if r.experiment == experiment and r.controller == controller
            and r.run.model == engine and r.plate in wanted and r.face == face]


def expected_outcome(row: Row, engine: str) -> str:
    """002's outcome of ``row`` as ``engine`` can show it: the vertical plane cannot roll over, a roll-over of 002's
    is a failure there."""
    return "fails" if engine == "vertical" and row.outcome_002 == "rolls over" else row.outcome_002
