"""docs/reproduction.md section: local stiffness and TSC over obstacles and stairs (002 ch. 6–7).

Runs, on the vertical-plane model, the open-loop pedal wave, local stiffness control (Fig. 6.2)
and TSC ((7.1)–(7.2)) with K_τ = 0 and 6: on flat ground (speed, the wave TSC settles to), on
002's single obstacle with Table 7.1's parameters and with the parameters the shipped scenarios use,
on two obstacles and on stairs, and again from starts moved by ±10 mm.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from snake_core.controllers.tsc import TSCGains
from snake_sim import runtime
from snake_sim.climb import ClimbResult, climb_result
from snake_sim.scenario import load_scenario
from snake_sim.wave_analysis import cycle_waves

TITLE = "Local stiffness and tail-leading stiffness control over obstacles (002 ch. 6–7)"

#: Table 7.1, TSC in simulation: A = π/6, ω = π, M_d = 1, D_d = 4, K_d = 12 (K_τ not printed).
TABLE_7_1 = ("gait.amplitude=pi/6", "controller.inertia=1.0", "controller.damping=4.0", "controller.stiffness=12.0")
#: The open-loop gait of Table 7.1 (A = π/6, φ = −2π/5).
TABLE_7_1_OPEN = ("gait.amplitude=pi/6", "gait.phase_shift=-2*pi/5")
#: K_d of the shipped TSC scenarios (config/scenarios/tsc-*.yaml).
SHIPPED_K_D = 14.0
#: Start offsets of the robustness runs (tail tip x, m).
START_OFFSETS = (-0.010, 0.010)
#: Controllers compared on every world: (label, scenario prefix, overrides).
CONTROLLERS = (
    ("open loop (4.38)+(4.39)", "open-loop", ()),
    ("local stiffness, K_d = K/6", "stiffness", ()),
    ("TSC, K_τ = 0", "tsc", ("controller.torque_gain=0",)),
    ("TSC, K_τ = 6", "tsc", ("controller.torque_gain=6",)),
)
#: How narrow the climbing window of the single obstacle is: the open loop slightly off the shipped gait,
#: and TSC with the largest K_d of 002 (the wave grows to ±60° at the head, lag −59° per joint).
SENSITIVITY = (
    ("open loop, A = π/4", "open-loop-obstacle", ("gait.amplitude=pi/4",)),
    ("open loop, φ = −1.4 rad (−80°)", "open-loop-obstacle", ("gait.phase_shift=-1.4",)),
    ("TSC, K_d = 17.5, K_τ = 0", "tsc-obstacle", ("controller.stiffness=17.5", "controller.torque_gain=0")),
)
#: Diagnosis of the TSC stall at the single obstacle: the same runs without (4.27) friction on the box's
#: vertical faces (``contact.side_friction = 0``, a diagnostic, not a 002 parameter; ground and top keep μ_c).
NO_SIDE_FRICTION = "contact.side_friction=0"
#: The head-geometry hypothesis: the contact radius r_c = half the 68 mm module (002 Table 3.2) instead of §5.3's
#: 0.01 m, so that the 36 mm box is about one module radius tall for the disc at the head tip, as on the robot.
MODULE_RADIUS = "contact.threshold=0.034"
FACE_DIAGNOSIS = (
    ("open loop, μ = 0 on the vertical faces", "open-loop-obstacle", (NO_SIDE_FRICTION,)),
    ("TSC, K_τ = 0, μ = 0 on the vertical faces", "tsc-obstacle", ("controller.torque_gain=0", NO_SIDE_FRICTION)),
    ("TSC, K_τ = 6, μ = 0 on the vertical faces", "tsc-obstacle", ("controller.torque_gain=6", NO_SIDE_FRICTION)),
    *((f"TSC, K_τ = 0, μ = 0 on the vertical faces, start {dx * 1e3:+.0f} mm", "tsc-obstacle",
       ("controller.torque_gain=0", NO_SIDE_FRICTION, f"world.start_x={dx}")) for dx in (-0.010, 0.010)),
    ("open loop, r_c = 34 mm (module radius)", "open-loop-obstacle", (MODULE_RADIUS,)),
    ("TSC, K_τ = 0, r_c = 34 mm (module radius)", "tsc-obstacle", ("controller.torque_gain=0", MODULE_RADIUS)),
)
#: TSC over the whole of 002's parameter ranges on the single obstacle (M_d = 1 throughout): amplitude up to
#: π/3, D_d and K_d from Table 7.1 (4, 12) to the experiments (10, 17.5), K_τ = 0 and 6.
GRID_AMPLITUDES = (("π/6", "pi/6"), ("π/4", "pi/4"), ("π/3", "pi/3"))
GRID_DAMPING = (4.0, 7.0, 10.0)
GRID_STIFFNESS = (12.0, 14.0, 17.5)
GRID_TORQUE_GAINS = (0.0, 6.0)
WORLDS = (("single obstacle", "obstacle"), ("two obstacles", "two-obstacles"), ("stairs", "stairs"))
#: Runs simulated at the same time (processes).
WORKERS = 2


@dataclass(frozen=True)
class Outcome:
    label: str
    speed_mps: float  # CoM, whole run
    climb: ClimbResult
    head_amplitude_deg: float  # last whole cycle, motor angle of the head joint
    head_phase_deg: float  # of the head joint relative to the tail joint
    status: str
    face_time_s: float = float("nan")  # time the head tip spent pressing on the near face of the first box
    face_height_max_m: float = float("nan")  # highest head-tip point while pressing on that face


def head_at_face(log, setup) -> tuple[float, float]:
    """(time, highest z) of the head tip pressing on the near face of the first box ahead: its disc of radius
    r_c overlaps the face and its centre is not above the edge (where the contact normal is horizontal)."""
    boxes = setup.terrain.boxes
    tip = log.head_position
    ahead = boxes[boxes[:, 0] > tip[0, 0]] if len(tip) else boxes[:0]
    if not len(ahead) or len(log.t) < 2:
        return float("nan"), float("nan")
    x0, _, _, top = ahead[np.argmin(ahead[:, 0])]
    r = setup.plant.contact.threshold
    x, z = tip[:, 0], tip[:, 2]
    on_face = (x > x0 - r) & (x <= x0) & (z <= top)
    dt = float(log.t[1] - log.t[0])
    return float(on_face.sum() * dt), float(z[on_face].max()) if on_face.any() else float("nan")


def _run(label: str, scenario: str, overrides: tuple[str, ...], fast: bool) -> Outcome:
    extra = ("sim.duration=3",) if fast else ()
    sc = load_scenario(scenario, (*overrides, *extra))
    setup = runtime.build(sc)
    log = runtime.simulate(setup)
    duration = float(log.t[-1] - log.t[0]) if len(log.t) > 1 else 0.0
    speed = float(log.com[-1, 0] - log.com[0, 0]) / duration if duration > 0 else 0.0
    waves = cycle_waves(log.t, log.beta, float(sc.section("gait")["frequency"]))
    amp = float(np.degrees(waves.amplitude[-1, -1])) if len(waves.amplitude) else float("nan")
    phase = float(np.degrees(waves.phase[-1, -1])) if len(waves.phase) else float("nan")
    return Outcome(label, speed, climb_result(log, setup.world), amp, phase, log.status, *head_at_face(log, setup))


def _climb_text(c: ClimbResult) -> str:
    if c.climbed is None:
        return "–"
    return f"yes, {c.time_to_climb_s:.1f} s" if c.climbed else "no"


def _climb_speed(c: ClimbResult) -> str:
    return "–" if c.climb_average_speed_mps is None else f"{1e3 * c.climb_average_speed_mps:.1f}"


def _relative(value: float | None, base: float | None) -> str:
    if value is None or base is None or base == 0.0:
        return "–"
    return f"{100.0 * (value / base - 1.0):+.1f} %"


def run(fast: bool = False) -> str:
    jobs: list[tuple[str, str, str, tuple[str, ...]]] = []  # (group, label, scenario, overrides)
    jobs += [("flat", "open loop, Table 7.1 (A = π/6)", "pedal-wave", TABLE_7_1_OPEN),
             ("flat", "TSC, Table 7.1, K_τ = 0", "tsc-flat", (*TABLE_7_1, "controller.torque_gain=0")),
             ("flat", "TSC, Table 7.1, K_τ = 6", "tsc-flat", (*TABLE_7_1, "controller.torque_gain=6"))]
    for label, prefix, over in CONTROLLERS:  # pedal-wave is the open loop on flat ground (at A = π/6)
        flat = ("pedal-wave", (*over, "gait.amplitude=pi/3")) if prefix == "open-loop" else (f"{prefix}-flat", over)
        jobs.append(("flat", label, *flat))
    jobs += [("t71", "open loop, Table 7.1 (A = π/6)", "open-loop-obstacle", TABLE_7_1_OPEN),
             ("t71", "TSC, Table 7.1, K_τ = 0", "tsc-obstacle", (*TABLE_7_1, "controller.torque_gain=0")),
             ("t71", "TSC, Table 7.1, K_τ = 6", "tsc-obstacle", (*TABLE_7_1, "controller.torque_gain=6"))]
    jobs += [("sens", label, scenario, over) for label, scenario, over in SENSITIVITY]
    jobs += [("grid", f"D_d = {d:g}, K_d = {k:g}; A = {a_label}, K_τ = {kt:g}", "tsc-obstacle",
              (f"gait.amplitude={a}", f"controller.damping={d}", f"controller.stiffness={k}",
               f"controller.torque_gain={kt}"))
             for d in GRID_DAMPING for k in GRID_STIFFNESS
             for a_label, a in GRID_AMPLITUDES for kt in GRID_TORQUE_GAINS]
    jobs += [("face", label, scenario, over) for label, scenario, over in FACE_DIAGNOSIS]
    for wlabel, wkey in WORLDS:
        jobs += [(wlabel, label, f"{prefix}-{wkey}", over) for label, prefix, over in CONTROLLERS]
        for dx in START_OFFSETS:
            jobs += [(f"{wlabel} {dx * 1e3:+.0f} mm", label, f"{prefix}-{wkey}", (*over, f"world.start_x={dx}"))
                     for label, prefix, over in CONTROLLERS]
    if fast:
        jobs = jobs[:2] + [j for j in jobs if j[0] == "single obstacle"][:2]
    outcomes: list[Outcome | None] = [None] * len(jobs)
    with ProcessPoolExecutor(max_workers=WORKERS) as pool:  # independent runs: two at a time
        futures = {pool.submit(_run, label, scenario, over, fast): i
                   for i, (_, label, scenario, over) in enumerate(jobs)}
        for future in tqdm(as_completed(futures), total=len(jobs), desc="stiffness/TSC runs", unit="run", leave=False):
            outcomes[futures[future]] = future.result()
    results: dict[str, list[Outcome]] = {}
    for (group, *_), outcome in zip(jobs, outcomes, strict=True):
        results.setdefault(group, []).append(outcome)
    return _report(results, fast)


def _report(results: dict[str, list[Outcome]], fast: bool) -> str:
    out = [f"## {TITLE}", ""]
    if fast:
        out += ["*Fast smoke run (3 s per run): the numbers below are not results.*", ""]
    out += [
        "Model: the vertical-plane simulator of the 002 section above (Table 5.1 contact and PD, K = 1.74 N·m/rad, "
        "0.005 s linearly implicit steps, controllers at 100 Hz). Controllers: `snake_core.controllers` "
        "(`stiffness`: Fig. 6.2 with C_p = (4.39); `tsc`: (7.1) at the tail, (7.2) integrated exactly (zero-order "
        "hold) at the others). τ_J in Fig. 6.2 and (7.2) is read as the motor's output torque K(β − α) (raising "
        "K_τ makes the joint yield, §7.2) and α_s = (K − K_d)/K_d · τ_J/K (so that the joint stiffness is K_d, "
        "§6.3). *Climbed*: the tail tip passes the far edge of the last box before the run ends; *climb speed*: "
        "the distance the tail tip had to cover over the time it took.",
        "",
    ]

    def table(rows: list[Outcome], base: Outcome | None = None) -> list[str]:
        lines = ["| controller | CoM speed [mm/s] | climbed | climb speed [mm/s] | vs open loop | head amplitude "
                 "[°] | head phase vs tail [°] |", "|---|---|---|---|---|---|---|"]
        for r in rows:
            rel = _relative(r.climb.climb_average_speed_mps, base.climb.climb_average_speed_mps) if base else "–"
            if base and base.climb.climbed is False and r.climb.climbed:
                rel = "open loop does not climb"
            status = "" if r.status == "ok" else f" ({r.status})"
            lines.append(f"| {r.label}{status} | {1e3 * r.speed_mps:.1f} | {_climb_text(r.climb)} "
                         f"| {_climb_speed(r.climb)} | {rel} | {r.head_amplitude_deg:.1f} | {r.head_phase_deg:.0f} |")
        return lines

    if "flat" in results:
        h71 = TSCGains(1.0, 4.0, 12.0, 0.0).frequency_response(np.pi)
        h14 = TSCGains(1.0, 4.0, SHIPPED_K_D, 0.0).frequency_response(np.pi)
        out += ["### Flat ground", "", "Open loop and TSC with Table 7.1's parameters, then every controller with the "
                f"parameters of the shipped scenarios (A = π/3; TSC M_d = 1, D_d = 4, K_d = {SHIPPED_K_D:g}). 002 "
                "Table 5.2 gives 18 mm/s for the open loop at A = π/6 (simulation); see the pedal-wave section for "
                "why this model is slower.", "",
                "Why TSC needs other parameters here: (7.2) filters the neighbour's *measured* angle with "
                "H(iω) = K_d/(K_d − M_d ω² + i D_d ω) (`TSCGains.frequency_response`). With Table 7.1's gains "
                f"|H(iπ)| = {abs(h71):.2f} and arg H = {np.degrees(np.angle(h71)):.0f}° per joint; the soft SEA "
                "(K = 1.74 N·m/rad) also lets every measured angle sag below its reference under the weight of "
                "the links, so the wave shrinks from joint to joint and the head barely moves (head amplitude "
                f"column). K_d = {SHIPPED_K_D:g} (inside 002's 12–17.5) gives |H(iπ)| = {abs(h14):.2f} and "
                f"arg H = {np.degrees(np.angle(h14)):.0f}°, i.e. the φ = −2π/5 = −72° of 002's open-loop gait, "
                "which keeps the wave alive to the head; A = π/3 is 002's largest amplitude.", ""]
        out += [*table(results["flat"]), ""]
    if "t71" in results:
        rows = results["t71"]
        out += ["### Single obstacle with Table 7.1's parameters", "",
                "002 §7.3: both climb the 36 × 107 mm obstacle placed 150 mm ahead of the head tip, TSC with a "
                "25.6 % higher average speed.", ""]
        out += [*table(rows, rows[0]), ""]
    if "sens" in results:
        out += ["### How narrow the single-obstacle window is", "",
                "The shipped open loop (A = π/3, φ = −2π/5) changed slightly, and TSC with 002's largest K_d:", ""]
        out += [*table(results["sens"]), ""]
    out += _grid(results.get("grid"))
    for wlabel, _ in WORLDS:
        if wlabel not in results:
            continue
        rows = results[wlabel]
        out += [f"### {wlabel.capitalize()} (shipped scenarios)", ""]
        out += [*table(rows, rows[0]), ""]
        climbed = [r.label for r in rows if r.climb.climbed]
        failed = [r.label for r in rows if r.climb.climbed is False]
        out += [f"Climb {wlabel}: {', '.join(climbed) or 'none'}; do not: {', '.join(failed) or 'none'}.", ""]
        robust = [f"{wlabel} {dx * 1e3:+.0f} mm" for dx in START_OFFSETS]
        if all(g in results for g in robust):
            out += [f"Start moved by {', '.join(f'{dx * 1e3:+.0f} mm' for dx in START_OFFSETS)} (tail tip):", "",
                    "| controller | " + " | ".join(f"start {dx * 1e3:+.0f} mm" for dx in (0.0, *START_OFFSETS))
                    + " | same verdict |", "|---|---|---|---|---|"]
            for i, r in enumerate(rows):
                others = [results[g][i] for g in robust]
                same = all(o.climb.climbed == r.climb.climbed for o in others)
                out.append(f"| {r.label} | {_climb_text(r.climb)} | "
                           + " | ".join(_climb_text(o.climb) for o in others) + f" | {'yes' if same else 'NO'} |")
            out += [""]
    out += _face_diagnosis(results)
    out += _against_002(results)
    return "\n".join(out)


def _grid(rows: list[Outcome] | None) -> list[str]:
    """One cell per TSC parameter set of 002's ranges on the single obstacle: verdict and CoM speed."""
    if not rows:
        return []
    climbed = [r.label for r in rows if r.climb.climbed]
    cells = iter(rows)
    columns = [(a, kt) for a, _ in GRID_AMPLITUDES for kt in GRID_TORQUE_GAINS]
    lines = ["### TSC over 002's parameter ranges, single obstacle", "",
             "M_d = 1; A up to 002's largest, π/3; D_d and K_d from Table 7.1 (4, 12) to the experiments (10, 17.5); "
             "K_τ = 0 and 6. Each cell: climbed (time) or not, and the CoM speed over the run [mm/s].", "",
             "| D_d, K_d | " + " | ".join(f"A = {a}, K_τ = {kt:g}" for a, kt in columns) + " |",
             "|---|" + "---|" * len(columns)]
    for d in GRID_DAMPING:
        for k in GRID_STIFFNESS:
            row = [next(cells) for _ in columns]
            lines.append(f"| {d:g}, {k:g} | " + " | ".join(
                f"{_climb_text(r.climb)}, {1e3 * r.speed_mps:.1f}" for r in row) + " |")
    gain = {(d, k): abs(TSCGains(1.0, d, k, 0.0).frequency_response(np.pi))
            for d in GRID_DAMPING for k in GRID_STIFFNESS}
    weak = max(v for (d, _), v in gain.items() if d == max(GRID_DAMPING))
    strong = gain[(min(GRID_DAMPING), max(GRID_STIFFNESS))]
    lines += ["", f"Climb: {'; '.join(climbed) if climbed else 'none of these parameter sets'}. With "
              f"D_d = {max(GRID_DAMPING):g}, |H(iπ)| ≤ {weak:.2f} per joint, so the wave reaching the head is at most "
              f"{100 * weak ** 4:.0f} % of A (before the SEA's sag) and the robot hardly moves; with "
              f"D_d = {min(GRID_DAMPING):g}, K_d = {max(GRID_STIFFNESS):g}, |H(iπ)| = {strong:.2f} and the wave "
              "reaches the head at the ±60° limit: the robot reaches the box, and the head tip stalls on its face (see "
              "*Why TSC stalls at the single obstacle*).", ""]
    return lines


def _face_diagnosis(results: dict[str, list[Outcome]]) -> list[str]:
    """Why TSC stalls at the single obstacle: the shipped runs against the same runs without friction on the
    box's vertical faces (numbers taken from the runs)."""
    single, face = results.get("single obstacle"), results.get("face")
    if not single or not face:
        return []
    base = single[0]
    rows = [single[0], *single[2:], *face]
    lines = ["### Why TSC stalls at the single obstacle", "",
             "The box follows 002's contact model: (4.26) and (4.27) on its near face, top and far face (§4.6, "
             "Fig. 4.4) for the 2N+1 candidates, each a disc with the 0.01 m contact radius of §5.3 on the box as "
             "on the ground, the box's edges rounded by it (the normal at an edge points from the edge to the "
             "point). (4.27) on the near face opposes a point sliding up it. The rows with μ = 0 on the vertical "
             "faces (`contact.side_friction: 0`, a diagnostic, not a 002 parameter; ground and top keep "
             "μ_c = 0.6) change nothing else; the rows with r_c = 34 mm (`contact.threshold: 0.034`, half the "
             "68 mm module of 002 Table 3.2) test whether the head's size is what gets it over the edge. *On the "
             "face*: the head tip's disc presses on the box's near face with its centre below the 36 mm edge.",
             "", "| run | climbed | climb speed [mm/s] | vs open loop (μ on the faces) | head tip on the face [s] | "
             "highest head tip on the face [mm] |", "|---|---|---|---|---|---|"]
    for r in rows:
        rel = _relative(r.climb.climb_average_speed_mps, base.climb.climb_average_speed_mps) if r is not base else "–"
        lines.append(f"| {r.label} | {_climb_text(r.climb)} | {_climb_speed(r.climb)} | {rel} | "
                     f"{r.face_time_s:.1f} | {1e3 * r.face_height_max_m:.0f} |")
    stalled = [r for r in single[2:] if r.climb.climbed is False]
    frictionless = [r for r in face if r.label.startswith("TSC") and "μ = 0" in r.label]
    freed = [r for r in frictionless if r.climb.climbed]
    lines.append("")
    if stalled:
        lines.append(
            "- *Root cause.* In the stalled TSC runs the head tip presses on the box's near face for "
            + ", ".join(f"{r.face_time_s:.0f} s ({r.label})" for r in stalled)
            + " and never gets higher on it than "
            + ", ".join(f"{1e3 * r.face_height_max_m:.0f} mm" for r in stalled)
            + ": the body's propulsion pushes the tip into the face, and the friction of (4.27) on the face, "
            "μ_c f^N against the tip sliding up, is more than the head joint can overcome with TSC's smaller "
            f"head swing (amplitude column above). The open loop's tip gets to {1e3 * base.face_height_max_m:.0f} mm "
            "on the face, round the edge where the normal turns upwards, and climbs.")
    if freed:
        lines.append(
            "- *Without friction on the vertical faces* the same controllers climb: "
            + "; ".join(f"{r.label}: {_climb_text(r.climb)}" for r in freed)
            + ". So what stops TSC is the friction on the box's face, as 002's model puts it there.")
    stuck = [r for r in frictionless if r.climb.climbed is False]
    if stuck:
        lines.append("- *Still stalled without side friction*: " + "; ".join(
            f"{r.label} (head tip up to {1e3 * r.face_height_max_m:.0f} mm on the face)" for r in stuck) + ".")
    module = [r for r in face if "r_c = 34 mm" in r.label]
    if module:
        lines.append("- *The module's size* (r_c = 34 mm, so that the box is about one radius of the head's disc "
                     "tall, as it is 53 % of the robot's 68 mm module): " + "; ".join(
                         f"{r.label}: {_climb_text(r.climb)}" for r in module)
                     + " (head tip on the face: " + ", ".join(f"{r.face_time_s:.0f} s" for r in module) + ").")
    lines.append("- *What 002 does not say*: whether its simulated obstacle faces carried friction, and how its "
                 "head got over the edge (Fig. 7.2 only shows that both controllers climb). With friction on the "
                 "faces as §4.6 puts it and either contact radius, TSC stalls here within 002's parameter ranges; "
                 f"without it, {len(freed)} of the {len(frictionless)} TSC runs above climb.")
    return [*lines, ""]


def _against_002(results: dict[str, list[Outcome]]) -> list[str]:
    """Where and why the runs differ from 002 §6.4, §7.3–7.4 (numbers taken from the runs above)."""
    single = results.get("single obstacle")
    if not single:
        return []
    base = single[0].climb.climb_average_speed_mps
    rel = {r.label: _relative(r.climb.climb_average_speed_mps, base) if r.climb.climbed else "does not climb"
           for r in single[2:]}
    lines = [
        "### Against 002", "",
        "- *TSC vs open loop on the single obstacle.* 002 §7.3 (simulation, Table 7.1): both climb, TSC 25.6 % "
        f"faster. Here (A = π/3, K_d = {SHIPPED_K_D:g}), climb speed against the open loop "
        f"({_climb_text(single[0].climb)}): {'; '.join(f'{k}: {v}' for k, v in rel.items())}. "
        "The open-loop wave keeps its full ±60° at every joint, while TSC's "
        "wave is generated from the measured, sagging neighbour angles and is smaller at the head (amplitude "
        "column); K_τ = 6 makes each joint yield to the links' weight and shrinks it further. "
        "With Table 7.1's own parameters nothing moves far enough to reach the box (flat-ground table).",
        "- *Roll-over.* On the robot the open loop failed by rolling over to one side (002 §6.4, §7.4), a 3-D "
        "effect the vertical-plane model cannot show (§7.4 says so); here every verdict is about the gait "
        "alone.",
    ]
    if any(r.climb.climbed is False for r in single[2:]):
        lines.append("- *Where TSC stalls at the obstacle*, the head tip ends against the foot of the box's face, "
                     "held there by the friction on the face (see *Why TSC stalls at the single obstacle*).")
    lines += [
        "- *Local stiffness.* K_d = K/6 = 0.29 N·m/rad (002 §6.4, the value that climbed on the robot) makes "
        "each joint a spring of 0.29 N·m/rad about the gait: a joint carrying 0.1 N·m of the links' weight "
        "gives way by τ/K_d ≈ 20°, so the arches that should lift the body sag, and the robot barely advances "
        "on the obstacle worlds (CoM speed column).",
    ]
    pair = results.get("two obstacles", [])
    climbers = [r.label for r in pair if r.climb.climbed]
    lines.append(f"- *Two obstacles.* 002's robot climbed Fig. 7.9's pair (36 × 107 mm, then 53 × 75 mm) with TSC, "
                 f"K_τ = 6 only (27.4 s); here: {', '.join(climbers) if climbers else 'no controller'}.")
    lines += [
        "- *Robustness.* The tables above repeat every run from starts 10 mm behind and ahead; the last column "
        "says whether the verdict (climbed or not) is the same.",
        "",
    ]
    return lines
