"""The asymmetries of the 3-D worlds (world.tether, world.box_yaw_deg, world.box_friction, world.side_friction) act in
MuJoCo and DART as stated, the Wilson interval is statsmodels', and the roll-over section's fast mode runs end to end
with sentences that follow its numbers."""

from __future__ import annotations

import math
from dataclasses import replace

import mujoco
import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_sim.analysis.rollover import wilson_interval
from snake_sim.core import worldgen
from snake_sim.core.models import run_world, runtime_for
from snake_sim.core.scenario import load_scenario
from snake_sim.core.world import load_world
from snake_sim.engines import engine3d
from snake_sim.engines.dart import runtime as drt
from snake_sim.engines.mujoco import model as mm
from snake_sim.engines.mujoco import runtime as rt
from snake_studies.reproduction.experiment import reproduce
from snake_studies.reproduction.experiments import rollover as section
from snake_studies.reproduction.reports import rollover as section_report
from snake_studies.reproduction.results import from_json, to_json
from snake_studies.rollover import (
    AXES,
    Rate,
    board_overrides,
    controllers_002,
    factors,
    ordering_holds,
    rates_apart,
)

#: A symmetric start on flat ground (no initial roll, no joint noise), so that only the pull breaks the symmetry.
STILL = ("sim.perturbation.roll_deg=0", "sim.perturbation.joint_noise_deg=0")


def _tail_y(engine: str, *overrides: str, duration: float = 1.0) -> float:
    """y of the tail link's centre of mass after ``duration`` of the reference gait [m]."""
    extra = ("model=dart", "sim.time_step=0.001") if engine == "dart" else ()
    scenario = load_scenario("open-loop-flat-3d", [*STILL, *extra, *overrides])
    module = drt if engine == "dart" else rt
    try:
        setup = module.build(scenario)
    except ConfigError as exc:  # DART: no g++ / libsdformat here
        pytest.skip(str(exc))
    log = module.simulate(setup, duration=duration)
    assert log.status == "ok"
    return float(log.link_position[-1, 0, 1])


@pytest.mark.parametrize("engine", ["mujoco", "dart"])
def test_a_tether_pull_towards_plus_y_moves_the_tail_towards_plus_y(engine):
    """0.5 N at the tail tip, azimuth ±90°: the tail goes the pull's way (MuJoCo ≈ ±5 mm in 1 s, DART less: its
    contacts stick), against the same run without the pull."""
    free = _tail_y(engine)
    left = _tail_y(engine, "world.tether.force=0.5", "world.tether.yaw_deg=90") - free
    right = _tail_y(engine, "world.tether.force=0.5", "world.tether.yaw_deg=-90") - free
    assert left > 2e-4 and right < -2e-4


def test_the_pull_acts_at_the_tail_tip_of_link_1():
    """MuJoCo's xfrc_applied acts at the CoM: the pull carries the moment (tip − CoM) × F; for the straight body
    (CoM at l along the link) a +y pull of F at the tip is −l F about z (it turns the tail towards +y)."""
    setup = rt.build(load_scenario("open-loop-flat-3d", [*STILL, "world.tether.force=0.4", "world.tether.yaw_deg=90"]))
    data = setup.model.create_data()
    mm.place(setup.model, data, (0.0, 0.0, 0.1))
    mm.pull_tail(setup.model, data, setup.tether.vector)
    applied = data.mj.xfrc_applied[setup.model.link_body[0]]
    assert applied == pytest.approx([0.0, 0.4, 0.0, 0.0, 0.0, -setup.robot.half_length * 0.4], abs=1e-12)
    back = load_scenario("open-loop-flat-3d", ["world.tether.force=2", "world.tether.pitch_deg=30"])
    assert rt.build(back).tether.vector == pytest.approx([-2 * math.cos(math.pi / 6), 0.0, 1.0], abs=1e-12)


def test_box_yaw_and_box_friction_are_in_the_built_models():
    """world.box_yaw_deg = 10 turns the obstacle by 10° about z through its centre: MuJoCo's geom quaternion
    (cos 5°, 0, 0, sin 5°), DART's welded body's rotation; world.box_friction is the box geom's μ."""
    plain = rt.build(load_scenario("open-loop-obstacle-3d")).model
    setup = rt.build(load_scenario("open-loop-obstacle-3d", ["world.box_yaw_deg=10", "world.box_friction=0.9"]))
    m = setup.model.mj
    box = next(g for g in range(m.ngeom) if m.geom(g).name.startswith("box_0"))
    half = math.radians(5.0)
    assert m.geom_quat[box] == pytest.approx([math.cos(half), 0.0, 0.0, math.sin(half)], abs=1e-12)
    assert m.geom_pos[box] == pytest.approx(plain.mj.geom_pos[box], abs=1e-12)
    assert m.geom_friction[box, 0] == pytest.approx(0.9)
    try:
        dart = drt.build(load_scenario("open-loop-obstacle-3d", ["model=dart", "world.box_yaw_deg=10"]))
    except ConfigError as exc:  # no g++ / libsdformat here
        pytest.skip(str(exc))
    data = dart.model.create_data()
    body = data.world.getSkeleton("world").getBodyNode("box_0_obstacle")
    node = body.getShapeNode(0)
    rotation = np.asarray(node.getWorldTransform().rotation())
    yaw = math.radians(10.0)
    assert rotation == pytest.approx(np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0],
                                               [0, 0, 1]]), abs=1e-12)


def _box_contacts(setup: rt.MujocoSetup, tail_tip: tuple[float, float, float]) -> list[tuple[float, float]]:
    """(μ, |n_z|) of each contact of the straight robot placed at ``tail_tip`` with a box geom."""
    model, data = setup.model, setup.model.create_data()
    mm.place(model, data, tail_tip)
    mujoco.mj_forward(model.mj, data.mj)
    m, d = model.mj, data.mj
    return [(float(c.friction[0]), abs(float(c.frame[2]))) for c in d.contact[:d.ncon]
            if m.geom(c.geom1).name.startswith("box_") or m.geom(c.geom2).name.startswith("box_")]


def test_face_friction_in_3d_is_the_faces_and_the_top_keeps_its_own():
    """world.side_friction = 0.1 on 002's §7.4 box (0.82 top plate): a module pressed against the near face touches
    it with μ 0.1 (horizontal normal), a module lying on the box touches the plate with μ 0.82 (vertical normal);
    without it, the face has the world file's 0.6. The box keeps its outer shape; DART's box carries the same μ."""
    scenario = ["world.side_friction=0.1", *STILL]
    setup = rt.build(load_scenario("exp74-open-loop-obstacle-3d", scenario))
    plain = rt.build(load_scenario("exp74-open-loop-obstacle-3d", list(STILL)))
    boxes = engine3d.world(load_scenario("exp74-open-loop-obstacle-3d", scenario)).static_boxes
    assert {b.side_friction for b in boxes} == {0.1}
    box, plate = min(boxes, key=lambda b: b.top), max(boxes, key=lambda b: b.top)
    half_width, length = 0.5 * setup.robot.module_width, setup.robot.total_length
    against_face = (box.x_min - length + 0.002, 0.0, box.top - 0.003 - half_width)  # the module's top below the slab
    on_top = (plate.x_min + 0.01, 0.0, plate.top + half_width - 0.0005)
    face, top = _box_contacts(setup, against_face), _box_contacts(setup, on_top)
    assert face and all(mu == pytest.approx(0.1) and nz < 0.1 for mu, nz in face)
    assert top and all(mu == pytest.approx(0.82) and nz > 0.9 for mu, nz in top)
    assert [mu for mu, _ in _box_contacts(plain, against_face)] == pytest.approx([0.6] * len(face))
    m, m0 = setup.model.mj, plain.model.mj
    tops = [max(m.geom_pos[g, 2] + m.geom_size[g, 2] for g in range(m.ngeom) if m.geom(g).name.startswith(name))
            for name in ("box_0", "box_1")]
    assert tops == pytest.approx([max(m0.geom_pos[g, 2] + m0.geom_size[g, 2] for g in range(m0.ngeom)
                                      if m0.geom(g).name.startswith(name)) for name in ("box_0", "box_1")], abs=1e-12)
    try:
        dart = drt.build(load_scenario("exp74-open-loop-obstacle-3d", ["model=dart", *scenario]))
    except ConfigError as exc:  # no g++ / libsdformat here
        pytest.skip(str(exc))
    skeleton = dart.model.create_data().world.getSkeleton("world")
    body = skeleton.getBodyNode(next(f"box_{k}_{b.name}" for k, b in enumerate(boxes) if b is box))
    mus = sorted(body.getShapeNode(i).getDynamicsAspect().getFrictionCoeff() for i in range(body.getNumShapeNodes()))
    assert mus == pytest.approx([0.1])  # under the plate: faces only


@pytest.mark.parametrize("module", [rt, drt])
def test_face_friction_out_of_range_is_one_error_naming_the_field(module):
    extra = ["model=dart"] if module is drt else []
    with pytest.raises(ConfigError, match=r"world\.side_friction = 7 is invalid"):
        module.build(load_scenario("tsc-obstacle-3d", [*extra, "world.side_friction=7"]))


def test_every_level_of_the_unknowns_is_a_valid_scenario_on_its_world():
    """Every factor's levels build on MuJoCo; the gap's are the shipped two-obstacle worlds of worldgen's range (the
    second box moves by the gap's change), the module width's is 68 mm read across the corners."""
    for factor in factors(0.1):
        for level in factor.levels:
            prefix = "tsc-two-obstacles-3d" if factor.world == "two obstacles" else "tsc-obstacle-3d"
            board = board_overrides(factor.world, 0.1)
            scenario = load_scenario(prefix, [*board, *factor.at(level)])
            rt.build(scenario)  # validated by the engine
            if factor.name == "module_width":  # 002's 68 mm across the octagon's corners
                assert level == pytest.approx(load_robot("koopaee6").module_width * math.cos(math.pi / 8), abs=1e-6)
            if factor.name == "face_friction":
                assert level in (0.3, 0.6)  # the face μ of the study is not a level of its own
            if factor.name == "obstacle_gap":
                assert scenario.world_file == worldgen.lab_world_name(2, worldgen.PLATE_FRICTIONS[0], level / 1e3)
                spans = sorted({(b.x_min, b.x_max) for b in load_world(scenario.world_file).static_boxes})
                (_, first_end), (second_start, _) = spans  # each box and its top plate share their span
                assert second_start - first_end == pytest.approx(level / 1e3, abs=1e-9)


def test_every_level_of_the_roll_over_axes_reaches_the_built_model():
    """Each axis of the sweep at each level is a valid scenario; the robot's own asymmetries land in MuJoCo: the
    centre-of-mass axis moves every link's inertial frame sideways by the level, the twist axis turns every joint
    axis about the link axis by the level."""
    plain = rt.build(load_scenario("open-loop-obstacle-3d")).model
    for axis in AXES:
        for level in axis.levels:
            model = rt.build(load_scenario("open-loop-obstacle-3d", list(axis.at(level)))).model
            bodies = list(model.link_body)
            shift = model.mj.body_ipos[bodies] - plain.mj.body_ipos[bodies]
            if axis.name == "com_offset":
                assert shift[:, 1] == pytest.approx(level, abs=1e-12) and shift[:, [0, 2]] == pytest.approx(0.0)
            else:
                assert shift == pytest.approx(0.0, abs=1e-12)
            hinges = plain.mj.jnt_type == mujoco.mjtJoint.mjJNT_HINGE  # the joints and their motors' rotors
            cosines = np.einsum("ij,ij->i", model.mj.jnt_axis[hinges], plain.mj.jnt_axis[hinges])
            expected = level if axis.name == "joint_twist" else 0.0
            assert np.degrees(np.arccos(np.clip(cosines, -1.0, 1.0))) == pytest.approx(expected, abs=1e-6)


def test_a_runs_verdicts_meet_the_turned_box():
    """run_world (the world summary.json's climb goal and the figures use, in `snake-sim run` and the sweep engine)
    is the 3-D engines' world with box_yaw_deg and box_friction applied: a box turned by 20° reaches further along
    x; the vertical model's is the world file's."""
    turned = ["world.box_yaw_deg=20", "world.box_friction=0.9"]
    for model in ("mujoco", "dart"):
        scenario = load_scenario("open-loop-obstacle-3d", [f"model={model}", *turned])
        (box,) = run_world(runtime_for(model), scenario).static_boxes
        (plain,) = load_world(scenario.world_file).static_boxes
        assert box.x_max - plain.x_max == pytest.approx(
            0.5 * (plain.size[0] * (math.cos(math.radians(20)) - 1) + plain.size[1] * math.sin(math.radians(20))),
            abs=1e-9)
        assert box.friction == pytest.approx(0.9)
    vertical = load_scenario("open-loop-obstacle")
    assert run_world(runtime_for("vertical"), vertical) == load_world(vertical.world_file)


@pytest.mark.parametrize(("override", "message"), [
    ("world.box_yaw_deg=60", r"world\.box_yaw_deg = 60 is invalid: must be in \[-45, 45\]"),
    ("world.box_friction=-1", r"world\.box_friction = -1 is invalid"),
    ("world.tether.force=-0.1", r"world\.tether\.force = -0\.1 is invalid: must be in \[0, 10\]"),
    ("world.tether.pitch_deg=120", r"world\.tether\.pitch_deg = 120 is invalid"),
    ("world.tether.spin=1", r"world\.tether\.spin = 1 is invalid: unknown field"),
    ("world.tether=3", r"world\.tether = 3 is invalid: must be a mapping"),
])
@pytest.mark.parametrize("module", [rt, drt])
def test_bad_asymmetry_gets_one_error_naming_the_field(module, override, message):
    extra = ["model=dart"] if module is drt else []
    with pytest.raises(ConfigError, match=message):
        module.build(load_scenario("tsc-obstacle-3d", [*extra, override]))


@pytest.mark.parametrize(("k", "n"), [(0, 1), (0, 4), (1, 4), (2, 4), (4, 4), (3, 10), (17, 40)])
def test_wilson_interval_is_statsmodels_wilson(k, n):
    assert wilson_interval(k, n) == pytest.approx(proportion_confint(k, n, alpha=0.05, method="wilson"), abs=1e-12)
    assert wilson_interval(k, n, 0.9) == pytest.approx(proportion_confint(k, n, alpha=0.1, method="wilson"),
                                                       abs=1e-12)


def test_wilson_interval_refuses_impossible_counts():
    with pytest.raises(ValueError, match=r"within 0\.\.trials"):
        wilson_interval(5, 4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def _rate(controller: str, rolled: int, axis: str = "none", level: float = 0.0, world: str = "obstacle",
          climbed: int = 0, time: float | None = None) -> Rate:
    return Rate(controller, world, axis, level, 4, rolled, rolled, rolled, climbed, time, 0.01, 0)


OL, LS, T0, T6 = controllers_002()


def test_ordering_needs_both_of_002s_rollers_to_roll_and_tsc_6_to_stay_upright():
    rates = {OL: _rate(OL, 2), LS: _rate(LS, 1), T0: _rate(T0, 4), T6: _rate(T6, 0)}
    assert ordering_holds(rates) == (True, False)  # 2/4 and 1/4 against 0/4: counts, not beyond the intervals
    assert ordering_holds({**rates, LS: _rate(LS, 0)}) == (False, False)
    big = {c: replace(r, runs=40, rolled=40 if c in (OL, LS) else 0) for c, r in rates.items()}
    assert ordering_holds(big) == (True, True)


def test_rates_are_apart_only_where_one_lower_bound_is_above_another_upper_bound():
    """4/4 [51–100 %] is above 0/4 [0–49 %]; 3/4 [30–95 %] is above nothing; a controller without runs is nothing."""
    rates = {OL: _rate(OL, 4), LS: _rate(LS, 3), T0: _rate(T0, 0), T6: replace(_rate(T6, 0), runs=0)}
    assert rates_apart(rates) == {OL: [T0]}
    assert rates_apart({c: _rate(c, 2) for c in (OL, LS)}) == {}


def _results(rates, sensitivity=()) -> section.Results:
    """The section's stored shape with these rates (settings from the study)."""
    printed = controllers_002()
    choices = {c: section.Choice("002's printed gains", ov, "002's printed gains") for c, (_, ov) in printed.items()}
    return section.Results(False, section.SEEDS, section.FEW_SEEDS, section.DURATION, 0.001, 60.0, 0.3,
                           {"0.1": 1, "0.3": 2, "0.6": 0}, choices,
                           {"ground_friction": 0.6, "face_friction": 0.3, "contact_time_constant": 0.02},
                           section.AXES, factors(0.3), {c: ov for c, (_, ov) in printed.items()},
                           {c: ov for c, (_, ov) in printed.items()}, tuple(rates), tuple(sensitivity), (),
                           section.run_settings(False))


def test_the_seeds_resolution_sentence_follows_the_wilson_intervals():
    """0/3 [0–56 %] and 3/3 [44–100 %] overlap: three seeds tell no rates apart; with four, 0/4 [0–49 %] and 4/4
    [51–100 %] are apart."""
    assert "0/3 is [0–56 %], 3/3 [44–100 %]: even these overlap" in section_report._resolution(3)
    assert "0/4 is [0–49 %], 4/4 [51–100 %]: only rates that far apart" in section_report._resolution(4)


def test_sentences_follow_the_rates_and_the_ranking_follows_the_changes():
    base = [_rate(c, 0, climbed=4 if c == OL else 0, time=30.0 if c == OL else None) for c in (OL, LS, T0, T6)]
    quiet = section_report.render(_results(base))
    assert "it appears nowhere in this space" in quiet and "0/4 [0–49 %]" in quiet
    yawed = [_rate(OL, 3, "box_yaw", 10.0), _rate(LS, 2, "box_yaw", 10.0), _rate(T0, 1, "box_yaw", 10.0),
             _rate(T6, 0, "box_yaw", 10.0)]
    text = section_report.render(_results([*base, *yawed]))
    assert "as counts (both roll over in some runs, TSC K_τ = 6 in none) at obstacle, box yaw 10 deg" in text
    assert "Beyond the 95 % intervals" in text and f"nowhere, with {len(section.SEEDS)} seeds per level" in text
    assert "*Rates apart beyond the 95 % intervals* (one controller's lower bound above another's upper bound): " \
        "nowhere." in text
    tether = [_rate(OL, 4, "tether", 0.2), *(_rate(c, 0, "tether", 0.2) for c in (LS, T0, T6))]
    assert (f"at obstacle, tether pull towards +y at the tail tip 0.2 N: {OL} (4/4) above {LS} (0/4), {T0} (0/4), "
            f"{T6} (0/4).") in section_report.render(_results([*base, *tether]))
    sensitivity = [_rate(c, 0, "ground_friction", 0.82, climbed=4 if c == OL else 0, time=20.0 if c == OL else None)
                   for c in (OL, LS, T0, T6)]
    sensitivity += [_rate(c, 0, "face_friction", 0.6, climbed=4 if c in (OL, LS) else 0,
                          time=30.0 if c in (OL, LS) else None) for c in (OL, LS, T0, T6)]
    text = section_report.render(_results(base, [*base, *sensitivity]))
    assert "with the boxes' faces at μ = 0.3" in text and "rows that hold per face μ: μ = 0.1: 1, μ = 0.3: 2" in text
    ranked = [line for line in text.splitlines() if line[:3] in ("1. ", "2. ", "3. ")]
    assert ranked[0].startswith("1. μ of the boxes' vertical faces") and "climbed fraction ±1.00" in ranked[0]
    assert ranked[1].startswith("2. ground μ") and "climb time ±33 %" in ranked[1]


@pytest.mark.xdist_group("dask_cluster")  # one Dask cluster at a time (test_sweep.py)
def test_fast_mode_runs_end_to_end_and_draws_its_figures(tmp_path):
    results = reproduce(section, fast=True)
    assert results.fast and results.duration_s == section.FAST_DURATION and not results.failed
    # symmetric + each axis's largest level, four controllers, on the single obstacle; each factor's largest level
    assert len(results.rates) == 4 * (1 + len(section.AXES))
    # the open loop and the climbing run, with the scenarios' values on the single obstacle and on the two (the gap's)
    assert len(results.sensitivity) == len(section.FAST_SENSITIVITY) * (2 + len(factors(results.face_friction)))
    assert {c.split()[0] for c in results.controller_overrides} == {"open", "local", "TSC"}
    assert all(r.runs == len(section.FAST_SEEDS) for r in (*results.rates, *results.sensitivity))
    assert from_json(section.Results, to_json(results)) == results
    text = section_report.render(results)
    assert "Smoke run" in text and "### What the unknowns change" in text
    written = section_report.figures(results, tmp_path)
    assert [p.name for p in written] == ["rollover_rates.png", "rollover_sensitivity.png"]
    assert all(p.stat().st_size > 1000 for p in written)


def _run002(row, face: float | None, outcome: str, seed: int = 0):
    from snake_studies.climb_3d import Climb3dRun
    from snake_studies.reproduction.experiments.runs_002 import Run002

    climbed, rolled = outcome == "climbs", outcome == "rolls over"
    run = Climb3dRun(row.controller, row.experiment, seed, "ok", climbed, 30.0 if climbed else None, rolled, None,
                     3.0, 0.01, True, True, 0.0, "mujoco", 0.001, 90.0, climbed, rolled, 0.01,
                     30.0 if climbed else None, True, True)
    return Run002(row.experiment, row.controller, 0.82, run, face)


def test_the_boards_face_mu_is_the_one_under_which_most_of_002s_board_outcomes_hold_ties_to_the_higher():
    """§7.4/§7.4.2 rows of 002's runs in MuJoCo: at faces of μ 0.1 three rows have 002's outcome, at 0.3 one, at the
    worlds' 0.6 none: 0.1; with 0.3 also at three, the tie goes to 0.3; §6.4 rows do not count."""
    from types import SimpleNamespace

    from snake_studies.reproduction.experiments import runs_002

    rows = [r for r in runs_002.rows_002() if r.experiment in ("§7.4", "§7.4.2")]
    other = [r for r in runs_002.rows_002() if r.experiment == "§6.4"]

    def stored(holding: dict[float | None, int]):
        runs = [_run002(row, face, row.outcome_002 if k < n else "stuck")
                for face, n in holding.items() for k, row in enumerate(rows)]
        runs += [_run002(row, 0.3, row.outcome_002) for row in other]  # §6.4 holds at 0.3: not counted
        return SimpleNamespace(face_friction=0.6, plate_frictions=(0.82, 1.2), runs=tuple(runs))

    face, counts = section.choose_face(stored({0.1: 3, 0.3: 1, None: 0}))
    assert face == 0.1 and counts == {"0.1": 3, "0.3": 1, "0.6": 0}
    assert section.choose_face(stored({0.1: 3, 0.3: 3, None: 0}))[0] == 0.3
    assert section.choose_face(None) == (worldgen.FACE_FRICTION, {})


def test_each_controllers_gains_are_the_climbing_reading_nearest_002s_printed_ones():
    """Local stiffness climbing at K/4 and K/2 (§7.4) and K/7 only at §6.4: K/4; TSC K_τ = 6 climbing at (4, 12),
    (10, 50) and at §7.4's gains per control step: the per-step reading (distance 0); TSC K_τ = 0 and the open loop
    climb nowhere: 002's printed gains, said so."""
    from types import SimpleNamespace

    from snake_studies.reproduction.experiments.gain_scale import Reading

    def stiff(ratio: float, experiment: str = "§7.4") -> Reading:
        return Reading(f"local stiffness, K/{1 / ratio:g}", experiment, "local stiffness", f"K_d = K/{1 / ratio:g}",
                       "exp74-stiffness-obstacle", (f"controller.stiffness={1.74 * ratio!r}",), ratio, None, 1.0,
                       "alpha")

    def tsc(d: float, k: float, unit: float = 1.0) -> Reading:
        return Reading(f"TSC K_τ = 6, D_d = {d:g}, K_d = {k:g}", "§7.4", "TSC K_τ = 6", f"D_d = {d:g}, K_d = {k:g}",
                       "exp74-tsc-obstacle", (f"controller.damping={d!r}", f"controller.stiffness={k!r}",
                                              f"controller.time_unit={unit!r}"), None, (1.0, d, k), unit, "alpha")

    climbing = {"local stiffness": (stiff(1 / 7, "§6.4"), stiff(0.5), stiff(0.25)),
                "TSC K_τ = 6": (tsc(4.0, 12.0), tsc(10.0, 50.0), tsc(10.0, 17.5, 0.01))}
    choices = section.choose_gains(SimpleNamespace(climbing=lambda c: climbing.get(c, ())))
    assert choices["local stiffness"].label == "K_d = K/4"
    assert choices["local stiffness"].overrides == ("gait.amplitude=pi/6", "controller.stiffness=0.435")
    assert choices["TSC K_τ = 6"].overrides[-1] == "controller.time_unit=0.01"
    assert choices["open loop"].overrides == controllers_002()["open loop"][1]
    assert "no reading climbs" in choices["TSC K_τ = 0"].why
    assert "no stored gain study" in section.choose_gains(None)["TSC K_τ = 6"].why
