"""The 3-D section (the MuJoCo study, one table across three engines): its sentences follow the numbers of the runs,
its settings come from the runs and the scenario files, the vertical model's rows are the stiffness section's stored
runs, and the runs without a result are said."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from snake_core.validation import ConfigError
from snake_studies.climb_3d import CONTROLLERS, WORLDS, Climb3dRun, Climb3dStudy, ReferenceCheck
from snake_studies.reproduction.experiments import climb_3d as m
from snake_studies.reproduction.reports import climb_3d as m_report
from snake_studies.reproduction.results import dump, earlier, from_json, results_path, to_json


def _run(model: str, controller: str, world: str, seed: int | None, climbed: bool | None = True,
         rolled: bool = False) -> Climb3dRun:
    flat = world == "flat"
    return Climb3dRun(controller, world, seed, "ok", None if flat else climbed,
                      None if flat or not climbed else 20.0 + (seed or 0), None if model == "vertical" else rolled,
                      12.0 if rolled else None, None if model == "vertical" else (70.0 if rolled else 9.0), 0.03,
                      True, True, 0.01, model, 0.002, 90.0, None if flat else climbed, rolled, 0.03,
                      None if flat or not climbed else 20.3 + (seed or 0))


def _results(**changes) -> m.Results:
    mujoco = tuple(_run("mujoco", c, w, s) for c in CONTROLLERS for w in WORLDS for s in (0, 1, 2))
    engines = tuple(_run(e, c, w, 0 if e == "dart" else None) for e in ("vertical", "dart") for c in CONTROLLERS
                    for w in WORLDS)
    base = m.Results(False, ReferenceCheck(10.0, 0.002, (0.02, 1.0), 0.0274, 0.0274, 0.0288),
                     Climb3dStudy(0.001, mujoco), engines,
                     {f"{e} {w}": 30.0 if w == "flat" else 90.0 for e in ("vertical", "mujoco", "dart")
                      for w in WORLDS},
                     60.0, 68, (), m.run_settings(False))
    return replace(base, **changes)


def _with(results: m.Results, model: str, controller: str, world: str, **fields) -> m.Results:
    def change(r: Climb3dRun) -> Climb3dRun:
        return replace(r, **fields) if (r.model, r.controller, r.world) == (model, controller, world) else r
    if model == "mujoco":
        return replace(results, mujoco=replace(results.mujoco, runs=tuple(map(change, results.mujoco.runs))))
    return replace(results, engines=tuple(map(change, results.engines)))


def test_results_round_trip_and_render_every_table():
    results = _results()
    assert from_json(m.Results, to_json(results)) == results
    text = m_report.render(results)
    for heading in ("### Step and contact softness", "### MuJoCo: every controller", "### Against 002",
                    "### One table, three engines"):
        assert heading in text
    assert "All 68 planned step-checked runs finished" in text


def test_every_engine_runs_each_world_as_long_and_a_run_short_of_the_box_says_so():
    text = m_report.render(_with(_results(), "dart", "TSC K_tau = 6", "stairs", climbed=False, time_to_climb_s=None,
                          reached=False, half_climbed=False, half_time_to_climb_s=None, half_reached=False))
    assert "Every engine runs each world for as long: flat 30 s, obstacle 90 s, two obstacles 90 s, stairs 90 s" in text
    row = [s for s in text.splitlines() if s.startswith("| TSC K_tau = 6 | stairs |")][-1]  # the engines table's
    assert row.endswith("| did not reach the box, no, 30.0 mm/s, converged |")


def test_a_climb_verdict_that_changes_with_the_step_is_inconclusive():
    text = m_report.render(_with(_results(), "dart", "open loop", "obstacle", half_climbed=False,
                                 half_time_to_climb_s=None))
    row = [s for s in text.splitlines() if s.startswith("| open loop | obstacle |")][-1]
    assert "*inconclusive* (h: 20.0 s, h/2: no)" in row


def test_roll_over_sentences_follow_the_runs():
    quiet = m_report.render(_results())
    assert "No run rolls over" in quiet and "*No roll-over here.*" in quiet
    rolled = _with(_results(), "mujoco", "open loop", "obstacle", rolled_over=True, time_of_roll_over_s=12.0,
                   max_roll_deg=75.0, climbed=False, time_to_climb_s=None)
    text = m_report.render(rolled)
    assert "3 of 48 runs roll over" in text and "*No roll-over here.*" not in text
    assert "the open loop climbs with 0 of 3 seeds and rolls over with 3" in text


def test_tsc_against_the_open_loop_is_a_difference_only_beyond_the_half_step_spread():
    """Open loop 20/21/22 s (h/2: +0.3 s); TSC 5 s faster: a difference against a 0.3 s spread, then not when one
    TSC K_τ = 6 time moves by 6 s at h/2."""
    _, _, t0, t6 = CONTROLLERS
    faster = _results()
    for c in (t0, t6):
        faster = _with(faster, "mujoco", c, "obstacle", time_to_climb_s=16.0, half_time_to_climb_s=16.3)
    text = m_report.render(faster)
    assert "TSC K_τ = 0 − open loop = -5.0 s against a half-step spread of 0.3 s: a difference" in text
    assert "So TSC is faster, as in 002" in text
    jumpy = _with(faster, "mujoco", t6, "obstacle", half_time_to_climb_s=22.0)
    text = m_report.render(jumpy)
    assert "TSC K_τ = 6 − open loop = -5.0 s against a half-step spread of 6.0 s: **not** a difference" in text
    assert "So TSC is not faster everywhere" in text


def test_two_obstacles_sentence_follows_which_controllers_climb():
    results = _results()
    for c in ("open loop", "local stiffness K_d = K/6", "TSC K_tau = 0"):
        results = _with(results, "mujoco", c, "two obstacles", climbed=False, time_to_climb_s=None)
    assert "TSC K_tau = 6 climb with every seed" in m_report.render(results)
    everyone = m_report.render(_results())
    assert "002's failures of the others are not reproduced" in everyone


def test_engines_agreement_follows_the_verdicts():
    assert "*Disagree* on 0." in m_report.render(_results())
    differ = _with(_results(), "vertical", "TSC K_tau = 6", "stairs", climbed=False, time_to_climb_s=None)
    assert ("*Disagree* on 1: TSC K_tau = 6 on stairs (vertical plane no, MuJoCo yes, DART yes)"
            in m_report.render(differ))


def test_reference_check_sentence_follows_the_speeds():
    ok = m_report.render(_results())
    assert "Both within the 10 % asked of the 3-D model." in ok
    soft = replace(_results().reference, stiff_contact_speed_mps=0.035)
    assert "**Not within the 10 % asked of the 3-D model.**" in m_report.render(_results(reference=soft))


def test_runs_without_a_result_are_listed_with_why():
    failed = ("DART, TSC K_tau = 6, stairs, seed 0: killed (the worker process died running it)",)
    dart = tuple(r for r in _results().engines if not (r.model == "dart" and r.controller == "TSC K_tau = 6"
                                                         and r.world == "stairs"))
    text = m_report.render(_results(failed=failed, engines=dart))
    assert "**Runs without a result:** 67 of 68" in text and failed[0] in text and "not run |" in text


DOCS = Path(__file__).resolve().parents[3] / "docs"


def test_vertical_rows_are_the_stiffness_sections_stored_step_checked_runs():
    runs = m._stored_vertical(earlier(m.READS, DOCS)["stiffness"])
    assert {(r.controller, r.world) for r in runs} == {(c, w) for c in CONTROLLERS for w in WORLDS if w != "flat"}
    assert all(r.model == "vertical" and r.rolled_over is None and r.seed is None for r in runs)
    assert all(r.time_step_s == 0.001 and r.duration_s in (90.0, 120.0, 150.0) for r in runs)


def test_the_stairs_sentence_names_only_controllers_that_climb_with_every_seed_converged():
    assert "*The stairs, reliably* (every seed climbs" in m_report.render(_results())
    results = _results()
    for c in CONTROLLERS:
        results = _with(results, "mujoco", c, "stairs", converged=c == "TSC K_tau = 6")
    assert "converged at half the step): TSC K_tau = 6." in m_report.render(results)
    none = _with(results, "mujoco", "TSC K_tau = 6", "stairs", climbed=False, time_to_climb_s=None)
    assert "no controller climbs them with every seed" in m_report.render(none)


def test_a_dart_no_too_short_for_mujocos_distance_is_called_inconclusive():
    slow = _with(_results(), "dart", "TSC K_tau = 6", "stairs", climbed=False, time_to_climb_s=None,
                 com_speed_mps=0.005, duration_s=30.0)
    text = m_report.render(slow)
    assert "1 of DART's *no* are inconclusive" in text and "TSC K_tau = 6 on stairs (the run had 30 s)" in text


def test_the_settings_in_the_text_follow_the_runs_durations_steps_and_contact():
    text = m_report.render(_results())
    assert "the obstacles for the scenarios' 90 s" in text and "the shipped vertical scenarios, h = 2 ms" in text
    longer = replace(_results(), mujoco=replace(_results().mujoco, runs=tuple(
        replace(r, duration_s=150.0) if r.world == "stairs" else r for r in _results().mujoco.runs)))
    assert "the obstacles for the scenarios' 90–150 s" in m_report.render(longer)
    halved = replace(_results(), engines=tuple(replace(r, time_step_s=0.0005) if r.model == "vertical" else r
                                               for r in _results().engines))
    assert "the shipped vertical scenarios, h = 0.5 ms" in m_report.render(halved)
    assert "2.5×" not in text and "Every engine runs each world for as long" in text


def test_a_climb_or_roll_that_the_half_step_does_not_repeat_is_shown_inconclusive_not_no():
    """A run that does not climb at h but climbs at h/2 (or rolls over at one step only) is *inconclusive* in the
    tables, with both verdicts, never *no*."""
    flip = _with(_results(), "mujoco", "open loop", "obstacle", climbed=False, time_to_climb_s=None,
                 half_climbed=True, half_time_to_climb_s=34.8, verdicts_unchanged=False)
    text = m_report.render(flip)
    assert "*inconclusive* (h: no, h/2: 34.8 s)" in text
    rolls = _with(_results(), "mujoco", "TSC K_tau = 0", "stairs", rolled_over=False, half_rolled_over=True,
                  verdicts_unchanged=False)
    assert "*inconclusive* (h: no, h/2: yes)" in m_report.render(rolls)


def test_the_section_reads_the_stiffness_results_of_its_own_run_and_refuses_before_any_run_without_them(tmp_path):
    with pytest.raises(ConfigError, match="needs the stiffness section's results in the same folder"):
        m.plan(True, earlier(m.READS, tmp_path))
    committed = earlier(m.READS, DOCS)["stiffness"]
    dump(replace(committed, fast=True), results_path(tmp_path, "stiffness"))
    assert earlier(m.READS, tmp_path)["stiffness"].fast  # the folder's own, not the committed results
    assert earlier(m.READS, None) == {"stiffness": None}
