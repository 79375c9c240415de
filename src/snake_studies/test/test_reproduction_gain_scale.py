"""The section that brackets the gain scale of 002's controllers: its plan holds every reading in both engines at h and
h/2 within its budget, a claim whose verdict differs between h and h/2 is inconclusive (never "no"), the claims and
the readings that climb follow the stored runs, and the transfer figures are (7.2)'s H (against scipy.signal.freqs)
and the sag of Fig. 6.2's spring K_d."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.signal import freqs

from snake_core.robot import load_robot
from snake_sim.core.scenario import load_scenario
from snake_studies.climb_3d import Climb3dRun
from snake_studies.reproduction import SECTIONS
from snake_studies.reproduction.experiments import gain_scale as g
from snake_studies.reproduction.experiments.runs_002 import FAST_DURATION, Run002
from snake_studies.reproduction.reports import gain_scale as g_report
from snake_studies.reproduction.results import from_json, to_json

ROBOT = load_robot("koopaee6")
K = float(ROBOT.sea.stiffness[0])
READINGS = tuple(g.readings())


def _run(reading: g.Reading, engine: str, climb: float | None = None, half_climb: float | None = None) -> Run002:
    """A run that climbs at h in ``climb`` s and at h/2 in ``half_climb`` s (None: it does not)."""
    climbed, half = climb is not None, half_climb is not None
    roll = None if engine == "vertical" else False
    run = Climb3dRun(reading.key, reading.experiment, None if engine == "vertical" else g.SEED, "ok", climbed, climb,
                     roll, None, None if engine == "vertical" else 3.0, 0.003, climbed == half, False, 0.02, engine,
                     0.001, 90.0, half, roll, 0.0031, half_climb)
    return Run002(reading.experiment, reading.key, 0.82, run)


def _results(change=None) -> g.Results:
    """Every reading in both engines, climbing in 40 s at both steps; ``change(reading, engine)`` may give other
    (climb, half_climb) times."""
    runs = tuple(_run(r, e, *((change and change(r, e)) or (40.0, 40.2))) for e in g.ENGINES for r in READINGS)
    return g.Results(False, READINGS, runs, {"vertical": 90.0, "mujoco": 90.0}, {"vertical": 0.001, "mujoco": 0.001},
                     {"§6.4": math.pi / 4, "§7.4": math.pi / 6}, math.pi, -2 * math.pi / 5, K, ROBOT.link_mass,
                     ROBOT.link_length, ROBOT.link_inertia, 60.0, 2 * len(READINGS), (), g.run_settings(False))


def _line(text: str, start: str) -> str:
    return next(s for s in text.splitlines() if s.startswith(start))


def test_the_section_follows_002s_runs():
    assert SECTIONS.index("gain_scale") == SECTIONS.index("runs_002") + 1


def test_the_plan_is_every_reading_in_both_engines_at_h_and_h2_within_budget():
    cells = g.plan()
    assert len(cells) == 2 * len(g.ENGINES) * len(READINGS) and len(cells) // 2 <= 120
    ratios = {r.stiffness_ratio for r in READINGS if r.stiffness_ratio is not None}
    assert {1 / 7, 1 / 6, 1.0} <= ratios and max(ratios - {1.0}) >= 0.9
    tsc = [r for r in READINGS if r.tsc_gains is not None]
    assert {(1.0, 4.0, 12.0), (1.0, 10.0, 17.5)} <= {r.tsc_gains for r in tsc}
    assert {r.time_unit_s for r in tsc} == {1.0, load_scenario("exp74-tsc-obstacle-3d").control_period}
    assert {r.neighbour_angle for r in tsc} == {"alpha", "beta"}
    steps = {c.overrides[-1] for c in cells.values() if c.overrides and c.overrides[-1].startswith("sim.time_step")}
    assert steps == {"sim.time_step=0.0005"}  # each 1 ms run (both engines' scenarios) again at h/2
    assert not any("model=dart" in c.overrides for c in cells.values())


def test_the_fast_plan_is_small_and_short():
    cells = g.plan(fast=True)
    assert len(cells) == 2 * len(g.ENGINES) * 4
    assert all(f"sim.duration={FAST_DURATION!r}" in c.overrides for c in cells.values())


def test_a_local_stiffness_reading_sets_k_d_and_k_d_equal_k_is_position_control():
    for r in READINGS:
        if r.controller == "local stiffness":
            k_d = float(load_scenario(r.scenario, list(r.overrides)).section("controller")["stiffness"])
            assert k_d == pytest.approx(r.stiffness_ratio * K, rel=1e-12)
        elif r.controller == "open loop":
            assert load_scenario(r.scenario).section("controller").get("mode", "position") == "position"


@pytest.mark.parametrize(("at_h", "at_half", "word"), [(True, True, "yes"), (False, False, "no"),
                                                        (True, False, "inconclusive"), (False, True, "inconclusive")])
def test_a_claim_whose_verdict_differs_between_h_and_h2_is_inconclusive(at_h, at_half, word):
    assert g.verdict(at_h, at_half) == word


def test_the_6_4_claim_needs_the_softer_reading_to_climb_where_k_d_k_fails_at_each_step():
    """K/6 climbs at both steps; K fails at h but climbs at h/2 in MuJoCo: inconclusive there, yes in the vertical
    plane where K fails at both; K/7 climbs at h only: inconclusive; K/4 fails: no."""
    def change(reading, engine):
        if reading.experiment != "§6.4":
            return None
        return {"K_d = K/6": (30.0, 30.5), "K_d = K/7": (30.0, None), "K_d = K/4": (None, None),
                "K_d = K": (None, 50.0) if engine == "mujoco" else (None, None)}.get(reading.label, (None, None))

    text = g_report.render(_results(change))
    assert _line(text, "| K_d = K/6 |") == "| K_d = K/6 | yes | inconclusive |"
    assert _line(text, "| K_d = K/7 |") == "| K_d = K/7 | inconclusive | inconclusive |"
    assert _line(text, "| K_d = K/4 |") == "| K_d = K/4 | no | no |"
    assert ("vertical plane: yes: *K_d = K/6*; inconclusive: *K_d = K/7*; MuJoCo: inconclusive: *K_d = K/7*, "
            "*K_d = K/6*" in text)


def test_the_7_4_claim_is_a_climb_near_002s_time_at_each_step():
    """002: 40.1 s for K_τ = 0; within ±25 % counts. At §7.4's gains K_τ = 0 climbs in 41 s (yes), K_τ = 6 in 80 s
    (no); per step K_τ = 0 climbs in 45 s at h and 60 s at h/2 (inconclusive); elsewhere nothing climbs."""
    def change(reading, engine):
        times = {("TSC K_τ = 0", "D_d = 10, K_d = 17.5"): (41.0, 41.3),
                 ("TSC K_τ = 6", "D_d = 10, K_d = 17.5"): (80.0, 80.1),
                 ("TSC K_τ = 0", f"D_d = 10, K_d = 17.5, {g.PER_STEP_LABEL}"): (45.0, 60.0)}
        return times.get((reading.controller, reading.label), (None, None))

    text = g_report.render(_results(change))
    text = text[text.index("*002 §7.4:"):]
    assert _line(text, "| D_d = 10, K_d = 17.5 | ") == "| D_d = 10, K_d = 17.5 | yes | yes | no | no |"
    assert _line(text, f"| D_d = 10, K_d = 17.5, {g.PER_STEP_LABEL} | ") == (
        f"| D_d = 10, K_d = 17.5, {g.PER_STEP_LABEL} | inconclusive | inconclusive | no | no |")
    assert _line(text, "| D_d = 4, K_d = 12 | ") == "| D_d = 4, K_d = 12 | no | no | no | no |"
    assert ("TSC K_τ = 0 in MuJoCo: yes: *D_d = 10, K_d = 17.5*; inconclusive: *D_d = 10, K_d = 17.5, per control "
            "step*" in text)
    assert "TSC K_τ = 6 in MuJoCo: none" in text
    line = _line(text, "- *D_d = 10, K_d = 17.5.*")
    assert "K_τ = 6 − K_τ = 0 = +39.0 s against a half-step spread of 0.3 s: a difference" in line


def test_the_readings_that_climb_in_mujoco_are_exposed_per_controller():
    """Only runs that climb at h and at h/2 in MuJoCo count; the vertical plane does not."""
    def change(reading, engine):
        if engine == "vertical":
            return 30.0, 30.0
        return {"K_d = K/2": (30.0, 31.0), "K_d = K/4": (30.0, None), "D_d = 4, K_d = 12": (35.0, 35.5)}.get(
            reading.label, (None, None))

    results = _results(change)
    assert [(r.experiment, r.label) for r in results.climbing("local stiffness")] == [("§6.4", "K_d = K/2"),
                                                                                     ("§7.4", "K_d = K/2")]
    assert results.climbing("open loop") == ()
    assert [r.key for r in results.climbing("TSC K_τ = 6")] == ["TSC K_τ = 6, D_d = 4, K_d = 12"]
    assert results.climbing("TSC K_τ = 6")[0].overrides[-1] == "controller.torque_gain=6.0"
    assert len(results.climbing("open loop", "vertical")) == 2
    with pytest.raises(ValueError, match="controller must be one of"):
        results.climbing("TSC")
    assert "- local stiffness: *§6.4 K_d = K/2*, *§7.4 K_d = K/2*." in g_report.render(results)


def test_the_transfer_figures_are_7_2s_h_and_the_sag_of_the_spring_k_d():
    """|H(iπ)| of (7.2) against scipy.signal.freqs, per reading (SI and per step); local stiffness's sag
    m g l/K_d by hand (about 12° at K/7, a link's weight at its centre)."""
    results = _results()
    text = g_report.render(results)
    for reading in READINGS:
        if reading.tsc_gains is None:
            continue
        (m_d, d_d, k_d), u = reading.tsc_gains, reading.time_unit_s
        _, (h,) = freqs([k_d], [m_d * u**2, d_d * u, k_d], worN=[math.pi])
        row = _line(text[text.index(f"### {reading.controller}, §7.4"):], f"| {reading.label} |")
        assert row.startswith(f"| {reading.label} | {abs(h):.2f} | {np.degrees(np.angle(h)):.0f}° | "
                              f"{abs(h) ** 4:.2f} |")
    assert "|H| = 0.54 per joint" in text
    sag = math.degrees(ROBOT.link_mass * 9.81 * 0.5 * ROBOT.link_length / (K / 7))
    assert 11.0 < sag < 13.0
    assert f"{sag:.0f}° at K_d = K/7" in text
    row = _line(text[text.index("### Local stiffness K_d/K, §7.4"):], "| local stiffness, K_d = K/7 |")
    assert f"| {sag:.0f}° ({100 * math.radians(sag) / (math.pi / 6):.0f} % of A) |" in row


def test_every_reading_is_rendered_and_the_results_round_trip():
    results = _results()
    assert from_json(g.Results, to_json(results)) == results
    text = g_report.render(results)
    for reading in READINGS:
        assert f"| {reading.label} |" in text or f"| {reading.controller}, {reading.label} |" in text
    assert "DART, about five times slower than MuJoCo, is left out" in text
    assert f"All {results.planned} planned step-checked runs finished" in text
    failed = replace(results, failed=("MuJoCo, §7.4 TSC K_τ = 6, D_d = 1, K_d = 50: error (boom)",))
    assert "**Runs without a result:**" in g_report.render(failed)


def test_assemble_keeps_every_run_with_a_result_and_lists_the_others():
    """The fast plan's rows as the sweep engine returns them: the vertical runs climb (30 s, 31 s at h/2), MuJoCo's
    raised; the readings are stored with the runs, the failures named per run."""
    plan = g.plan(fast=True)
    rows = {}
    for cell_id, cell in plan.items():
        half = cell.overrides[-1].startswith("sim.time_step")
        if cell.scenario.endswith("-3d"):
            rows[cell_id] = {"cell": cell_id, "status": "error", "message": "boom"}
        else:
            rows[cell_id] = {"cell": cell_id, "status": "ok", "climbed": True,
                             "time_to_climb_s": 31.0 if half else 30.0, "average_speed_mps": 0.01, "duration_s": 1.0}
    results = g.assemble(True, plan, rows)
    assert results.readings == tuple(g.readings(fast=True)) and results.planned == len(plan) // 2
    assert {r.run.model for r in results.runs} == {"vertical"} and len(results.runs) == len(results.readings)
    assert all(r.run.time_pair == (30.0, 31.0) for r in results.runs)
    assert len(results.failed) == len(results.readings) and all("MuJoCo" in f and "boom" in f for f in results.failed)
    assert results.durations == {"vertical": 1.0} and results.amplitudes == pytest.approx(
        {"§6.4": math.pi / 4, "§7.4": math.pi / 6})
    assert len(results.climbing("local stiffness", "vertical")) == 1 and results.climbing("local stiffness") == ()
