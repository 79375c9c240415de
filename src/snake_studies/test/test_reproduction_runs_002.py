"""The section of 002's runs at 002's settings: its scenarios carry 002's printed settings, a comparison is a difference
only beyond the half-step spread of the runs it compares, the gain scale of (7.2) is computed (against
scipy.signal.freqs), the sentences and the claims table follow the stored runs, and a fast run goes end to end."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest
from scipy.signal import freqs

from snake_core.controllers import controller_values
from snake_core.robot import load_robot
from snake_sim.analysis.step_check import Comparison, compare
from snake_sim.core import worldgen
from snake_sim.core.scenario import load_scenario
from snake_studies.climb_3d import Climb3dRun
from snake_studies.engines import ENGINES
from snake_studies.reproduction import SECTIONS
from snake_studies.reproduction.experiment import reproduce
from snake_studies.reproduction.experiments import runs_002 as m
from snake_studies.reproduction.reports import runs_002 as m_report
from snake_studies.reproduction.results import comparison_text, from_json, to_json

K = float(load_robot("koopaee6").sea.stiffness[0])
N_JOINTS = load_robot("koopaee6").n_joints


def _run(row: m.Row, engine: str, seed: int | None, plate: float | None, climb: float | None = 30.0,
         half_climb: float | None = 30.5, rolled: bool = False, face: float | None = None) -> m.Run002:
    climbed, half = climb is not None, half_climb is not None
    roll = None if engine == "vertical" else rolled
    run = Climb3dRun(row.controller, row.experiment, seed, "ok", climbed, climb, roll, 9.0 if rolled else None,
                     None if engine == "vertical" else (80.0 if rolled else 3.0), 0.02, climbed == half, False, 0.02,
                     engine, 0.002, 60.0, half, roll, 0.021, half_climb, True, True)
    return m.Run002(row.experiment, row.controller, plate, run, face)


def _results(change=None, faces: tuple[float, ...] = ()) -> m.Results:
    """Every row in every engine climbing in 30 s (30.5 s at h/2); ``change(row, engine, seed)`` may replace a run's
    climb times (climb, half_climb, rolled); the plated rows again with faces of μ ``faces`` (``change(row, engine,
    seed, face)`` for theirs)."""
    runs = []
    for e in ENGINES:
        for row in m.rows_002():
            plate = m.row_plate(row)
            for seed in {"vertical": (None,), "mujoco": m.SEEDS, "dart": (m.DART_SEED,)}[e]:
                times = change(row, e, seed) if change else None
                runs.append(_run(row, e, seed, plate, *(times or ())))
    runs += [_run(row, "mujoco", 0, mu) for row in m.rows_002() if m.row_plate(row)
             for mu in worldgen.PLATE_FRICTIONS[1:]]
    runs += [_run(row, e, seed, m.row_plate(row), *(change(row, e, seed, mu) or ()), face=mu)
             for mu in faces for e in m.FACE_ENGINES for row in m.rows_002() if m.row_plate(row)
             for seed in {"vertical": (None,), "mujoco": m.SEEDS}[e]]
    return m.Results(False, tuple(runs), {"vertical 1": 60.0, "mujoco 1": 60.0, "dart 1": 20.0},
                     {"mujoco": m.SEEDS, "dart": (m.DART_SEED,)}, (0,), 0.01, math.pi, -2 * math.pi / 5,
                     (1.0, 10.0, 17.5),
                     (1.0, 4.0, 12.0), K, {"§6.4": K / 6, "§7.4": K / 7}, 0.6, worldgen.PLATE_FRICTIONS, 60.0,
                     worldgen.FACE_FRICTION, faces, {"§6.4": "koopaee6", "§7.3": "koopaee6_sim", "§7.4": "koopaee6",
                                                     "§7.4.2": "koopaee6"}, len(runs), (), m.run_settings(False))


def test_the_section_is_placed_after_the_3d_section():
    assert SECTIONS.index("runs_002") == SECTIONS.index("climb_3d") + 1


@pytest.mark.parametrize(("name", "amplitude", "controller", "world"), [
    ("exp64-position-obstacle", math.pi / 4, {"mode": "position"}, worldgen.lab_world_name(1, 0.82)),
    ("exp64-stiffness-obstacle", math.pi / 4, {"mode": "stiffness"}, worldgen.lab_world_name(1, 0.82)),
    ("sim73-open-loop-obstacle", math.pi / 6, {"mode": "position"}, "single_obstacle"),
    ("sim73-tsc-obstacle", math.pi / 6, {"inertia": 1.0, "damping": 4.0, "stiffness": 12.0}, "single_obstacle"),
    ("exp74-open-loop-obstacle", math.pi / 6, {"mode": "position"}, worldgen.lab_world_name(1, 0.82)),
    ("exp74-stiffness-obstacle", math.pi / 6, {"mode": "stiffness"}, worldgen.lab_world_name(1, 0.82)),
    ("exp74-tsc-obstacle", math.pi / 6, {"inertia": 1.0, "damping": 10.0, "stiffness": 17.5, "torque_gain": 6.0},
     worldgen.lab_world_name(1, 0.82)),
    ("exp74-stiffness-two-obstacles", math.pi / 6, {"mode": "stiffness"}, worldgen.lab_world_name(2, 0.82)),
    ("exp74-tsc-two-obstacles", math.pi / 6, {"damping": 10.0, "stiffness": 17.5, "torque_gain": 6.0},
     worldgen.lab_world_name(2, 0.82)),
])
def test_the_scenarios_carry_002s_printed_settings_in_both_twins(name, amplitude, controller, world):
    for scenario in (load_scenario(name), load_scenario(f"{name}-3d")):
        gait = scenario.section("gait")
        assert gait["amplitude"] == pytest.approx(amplitude, rel=1e-12)
        assert gait["frequency"] == pytest.approx(math.pi) and gait["phase_shift"] == pytest.approx(-2 * math.pi / 5)
        # unset gains: the mode's defaults (Table 7.1 for tsc)
        assert controller_values(scenario.section("controller"), N_JOINTS).items() >= controller.items()
        assert scenario.world_file == world
    assert load_scenario(f"{name}-3d").model == "mujoco" and load_scenario(name).model == "vertical"


def test_local_stiffness_is_k_over_6_in_6_4_and_k_minus_k_d_over_k_d_6_in_7_4():
    k_64 = load_scenario("exp64-stiffness-obstacle").section("controller")["stiffness"]
    k_74 = load_scenario("exp74-stiffness-obstacle").section("controller")["stiffness"]
    assert k_64 == pytest.approx(K / 6, rel=2e-3)
    assert (K - k_74) / k_74 == pytest.approx(6.0, abs=1e-4)


@pytest.mark.parametrize(("a", "b", "difference", "spread", "is_difference"), [
    ([(20.0, 20.4)], [(25.0, 25.2)], -5.0, 0.4, True),  # 5 s apart, times move by 0.4 s at most
    ([(20.0, 23.0)], [(21.0, 21.0)], -1.0, 3.0, False),  # 1 s apart, a time moves by 3 s
    ([(30.0, 29.0), (32.0, 32.0)], [(30.0, 30.5)], 1.0, 1.0, False),  # equal to the spread: not beyond it
    ([(30.0, 30.0), (34.0, 34.0)], [(30.0, 30.5)], 2.0, 0.5, True),  # means of the seeds
    ([(30.0, None)], [(30.0, 30.5)], None, None, False),  # no climb at h/2: nothing to compare
    ([], [(30.0, 30.5)], None, None, False),
])
def test_a_comparison_is_a_difference_only_beyond_the_half_step_spread(a, b, difference, spread, is_difference):
    c = compare(a, b)
    assert c.difference == (None if difference is None else pytest.approx(difference))
    assert c.spread == (None if spread is None else pytest.approx(spread))
    assert c.is_difference is is_difference


def test_the_renderer_applies_the_rule_to_the_stored_climb_times():
    """§7.3 TSC K_τ = 0 4 s faster than the open loop: a difference when the half-step spread is 0.5 s, not when
    one run's time moves by 6 s."""
    def faster(row, engine, seed):
        if row.experiment == "§7.3" and row.controller == "TSC K_τ = 0":
            return 26.0, 26.5
        return None

    text = m_report.render(_results(faster))
    line = next(s for s in text.splitlines() if s.startswith("- *§7.3, TSC K_τ = 0 against open loop*"))
    assert "MuJoCo: TSC K_τ = 0 − open loop = -4.0 s against a half-step spread of 0.5 s: a difference" in line

    def jumpy(row, engine, seed):
        if row.experiment == "§7.3" and row.controller == "TSC K_τ = 0":
            return (26.0, 32.0) if seed == 1 else (26.0, 26.5)
        return None

    line = next(s for s in m_report.render(_results(jumpy)).splitlines()
                if s.startswith("- *§7.3, TSC K_τ = 0 against open loop*"))
    assert "MuJoCo: TSC K_τ = 0 − open loop = -4.0 s against a half-step spread of 6.0 s: **not** a difference" in line
    assert "DART: TSC K_τ = 0 − open loop = -4.0 s against a half-step spread of 0.5 s: a difference" in line


@pytest.mark.parametrize(("difference", "spread", "text"), [
    (-4.0e-5, 1.0e-5, "-0.04 mm/s against a half-step spread of 0.01 mm/s: a difference"),
    (3.0e-6, 0.0, "+0.003 mm/s against a half-step spread of 0 mm/s: a difference"),
    (-2.5e-3, 1.0e-4, "-2.5 mm/s against a half-step spread of 0.1 mm/s: a difference"),
    (1.0e-5, 4.0e-5, "+0.01 mm/s against a half-step spread of 0.04 mm/s: **not** a difference"),
])
def test_near_zero_speeds_are_printed_to_two_digits_not_as_signed_zeros(difference, spread, text):
    """Speeds [m/s] compared in mm/s: below 0.05 mm/s two significant digits, never "-0.0 against 0.0"."""
    assert comparison_text(Comparison(difference, spread), "a", "b", "mm/s", 1e3) == f"a − b = {text}"


def test_the_gain_scale_is_computed_and_agrees_with_scipy_freqs():
    """|H(iπ)| of (7.2) for 002's experimental gains in SI units and per 10 ms step, against an independent
    evaluation of K_d / (M_d s² + D_d s + K_d)."""
    results = _results()
    text = m_report.render(results)
    (m_d, d_d, k_d), u = results.gains_7_4, results.time_unit_s
    _, (si,) = freqs([k_d], [m_d, d_d, k_d], worN=[math.pi])
    _, (step,) = freqs([k_d], [m_d * u**2, d_d * u, k_d], worN=[math.pi])
    assert f"|H| = {abs(si):.2f} and arg H = {np.degrees(np.angle(si)):.0f}° per joint" in text
    assert f"|H|⁴ = {abs(si) ** 4:.2f} of A" in text
    assert f"Per step, |H| = {abs(step):.4f} and arg H = {np.degrees(np.angle(step)):.1f}°" in text
    assert "|H| = 0.54 " in text and "|H|⁴ = 0.09 " in text  # 002's printed gains, read in SI units


def test_the_claims_table_scores_outcomes_that_stand_at_half_the_step():
    """§7.4 open loop rolled over on the robot: MuJoCo's seed 1 rolls over at h and h/2 (counts), seed 2 rolls over
    at h only (does not); the vertical plane, which cannot roll, is scored on failing."""
    def rolls(row, engine, seed):
        if row.experiment == "§7.4" and row.controller == "open loop":
            return None, None, seed in (1, 2) or engine == "vertical"
        return None

    results = _results(rolls)
    runs = list(results.runs)
    for i, r in enumerate(runs):
        if r.experiment == "§7.4" and r.controller == "open loop" and r.run.seed == 2 and r.run.model == "mujoco":
            runs[i] = replace(r, run=replace(r.run, half_rolled_over=False, verdicts_unchanged=False))
    text = m_report.render(replace(results, runs=tuple(runs)))
    row = next(s for s in text.splitlines() if s.startswith("| §7.4 | open loop | rolls over |"))
    assert row == "| §7.4 | open loop | rolls over | holds (1/1) | partly (1/3) | no (0/1) |"
    climbs = next(s for s in text.splitlines() if s.startswith("| §6.4 | local stiffness K_d = K/6 | climbs |"))
    assert climbs.endswith("| holds (1/1) | holds (3/3) | holds (1/1) |")


def test_a_claim_that_no_run_meets_is_inconclusive_when_the_step_decides_a_verdict():
    """§7.4 open loop rolled over on the robot: MuJoCo's runs do not roll over at h; seed 0 rolls over at h/2. No
    run meets the claim, but one verdict flips with the step: *inconclusive*, never *no*; DART's converged
    non-roll stays *no*."""
    results = _results()
    runs = list(results.runs)
    for i, r in enumerate(runs):
        if r.experiment == "§7.4" and r.controller == "open loop" and r.run.model == "mujoco" and r.run.seed == 0:
            runs[i] = replace(r, run=replace(r.run, climbed=False, half_climbed=False, rolled_over=False,
                                              half_rolled_over=True, verdicts_unchanged=False))
        elif r.experiment == "§7.4" and r.controller == "open loop" and r.run.model != "vertical":
            runs[i] = replace(r, run=replace(r.run, climbed=False, half_climbed=False))
    text = m_report.render(replace(results, runs=tuple(runs)))
    row = next(s for s in text.splitlines() if s.startswith("| §7.4 | open loop | rolls over |"))
    assert row.endswith("| inconclusive (0/3) | no (0/1) |")


def test_a_run_that_ends_before_the_head_reaches_the_box_is_scored_did_not_reach_not_no():
    """§7.4 TSC K_τ = 6: the vertical run ends before its head reaches the box (at h and h/2): *did not reach*, and
    the cell says so; MuJoCo's seed 0 did not reach but seeds 1, 2 stuck at the face: *no* on the runs that got
    there."""
    results = _results()
    runs = list(results.runs)
    for i, r in enumerate(runs):
        if r.experiment == "§7.4" and r.controller == "TSC K_τ = 6" and r.run.model != "dart":
            short = r.run.model == "vertical" or r.run.seed == 0
            runs[i] = replace(r, run=replace(r.run, climbed=False, half_climbed=False, reached=not short,
                                              half_reached=not short))
    text = m_report.render(replace(results, runs=tuple(runs)))
    row = next(s for s in text.splitlines() if s.startswith("| §7.4 | TSC K_τ = 6 | climbs |"))
    assert row == "| §7.4 | TSC K_τ = 6 | climbs | did not reach (0/1) | no (0/3) | holds (1/1) |"
    table = next(s for s in text.splitlines() if s.startswith("| TSC K_τ = 6 | climbs: climbed in 5 of 5 trials |"))
    assert "climbs 0/1, **did not reach the box 1/1**" in table and "**did not reach the box 1/3**" in table
    total = {e: len([r for r in runs if r.run.model == e]) for e in ("vertical", "mujoco", "dart")}
    assert (f"the runs whose head reached the first box at h and at h/2: vertical plane {total['vertical'] - 1} of "
            f"{total['vertical']}; MuJoCo {total['mujoco'] - 2} of {total['mujoco']}; DART {total['dart']} of "
            f"{total['dart']}") in text  # MuJoCo: seed 0 and its run on the other plate


def test_the_face_friction_table_says_which_face_mu_reproduces_which_outcome():
    """Faces of μ 0.1: the §7.4 open loop rolls over in every run of both engines (002's outcome); at 0.3 it climbs
    (not 002's) and at the worlds' 0.6 it climbs too."""
    def slippery(row, engine, seed, face=None):
        if row.experiment == "§7.4" and row.controller == "open loop" and face == 0.1:
            return None, None, True
        return None

    text = m_report.render(_results(slippery, faces=(0.1, 0.3)))
    assert "### Friction on the boxes' faces" in text
    row = next(s for s in text.splitlines() if s.startswith("| §7.4 | open loop | rolls over | "))
    assert row.startswith("| §7.4 | open loop | rolls over | holds (1/1) | no (0/1); 30.0 s | no (0/1); 30.0 s | "
                          "holds (3/3) | no (0/3)")
    assert "§7.4 open loop (rolls over): vertical plane μ = 0.1, MuJoCo μ = 0.1" in text


def test_results_round_trip_and_render_every_part():
    results = _results()
    assert from_json(m.Results, to_json(results)) == results
    text = m_report.render(results)
    for heading in (*m_report.EXPERIMENT_TITLES.values(), "The top plate's friction", "002's comparisons",
                    "The gain scale", "002's claims"):
        assert f"### {heading}" in text
    assert f"All {results.planned} planned step-checked runs finished" in text
    assert "In DART the plate changes nothing" in text
    assert "§7.3, 002's simulation (Table 7.1): open loop and TSC on the 36 × 107 mm obstacle (A = π/6)\n\nOn Table " \
           "5.1's simulated robot, `koopaee6_sim`." in text
    assert re.search(r"\| TSC K_τ = 6 \| climbs: climbed in 5 of 5 trials \| climbs 1/1 \(30\.0 s\)", text)


def test_runs_without_a_result_are_listed():
    results = replace(_results(), failed=("MuJoCo, §7.4 open loop, plate μ 0.82, seed 1: error (boom)",))
    text = m_report.render(results)
    assert "**Runs without a result:**" in text and "seed 1: error (boom)" in text


@pytest.mark.xdist_group("dask_cluster")  # one Dask cluster at a time (test_sweep.py)
def test_fast_mode_runs_end_to_end_on_a_local_cluster():
    results = reproduce(m, fast=True)
    assert results.fast and not results.failed
    assert {r.run.model for r in results.runs} == set(ENGINES)
    assert len(results.runs) == len(m.cases(fast=True))
    assert all(r.run.duration_s == pytest.approx(m.FAST_DURATION) for r in results.runs)
    assert "*Fast smoke run" in m_report.render(results)
