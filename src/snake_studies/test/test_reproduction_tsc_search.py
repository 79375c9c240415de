"""The tsc_search reproduction section (issue 19 item 5): its fast mode runs end to end on a LocalCluster of 2 worker
processes, the search is reproducible (the Sobol cover is the seeded sequence), and its sentences follow the stored
numbers: no step-checked climber → "no setting climbed"; climbers → their region, mode and the open loop's time."""

from dataclasses import replace

import numpy as np
import pytest

from snake_studies.reproduction import SECTIONS
from snake_studies.reproduction.experiment import reproduce
from snake_studies.reproduction.experiments import tsc_search as ts
from snake_studies.reproduction.reports import tsc_search as ts_report
from snake_studies.reproduction.results import from_json, to_json

#: One Dask LocalCluster at a time (one worker process per core): the cluster tests run one after the other on one
#: pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("dask_cluster")

RANGES = ts.ranges_002(np.pi / 3)
BOX = ts.wide_box(RANGES)


def run(params=None, climbed=False, time=None, mode="crawl", converged=True, half_time=None, **kw):
    """A Run; a climber gets its check at half the step."""
    params = params if params is not None else {r.key: r.low for r in BOX}
    half = (ts.HalfStep("ok", True, time if half_time is None else half_time, mode, kw.get("rolled_over"), converged,
                        0.01) if climbed else None)
    return ts.Run(params, "ok", climbed, time, 0.01 if climbed else 0.001, 0.005, mode,
                  kw.get("chord", 30.0), kw.get("rotation", 30.0), kw.get("rolled_over"), kw.get("roll"), half)


def point(**values):
    """Box lower corner with some keys set by symbol."""
    keys = {v: k for k, v in ts_report.SYMBOLS.items()}
    params = {r.key: r.low for r in BOX}
    params.update({keys[s]: v for s, v in values.items()})
    return params


OWN = run(point(A=np.pi / 3, M_d=1.0, D_d=4.0, K_d=14.0, K_τ=0.0))


def search(trials, open_loop, model="vertical", seeded=(), own=OWN):
    return ts.Search(model, "tsc-obstacle", "open-loop-obstacle", 0.001, 90.0, (np.pi / 3, -2 * np.pi / 5), BOX, 2,
                     tuple(trials), tuple(seeded), tuple(open_loop), own, 3.0)


def results(*searches):
    return ts.Results(False, 0, 0.6, 60.0, RANGES, tuple(searches), ts.run_settings(False))


OPEN_LOOP = (run({}), run({"world.side_friction": 0.45}), run({"world.side_friction": 0.4}, True, 35.5),
             run({"world.side_friction": 0.35}, True, 35.5))
CRAWLER = run(point(A=0.9, M_d=1.5, D_d=5.0, K_d=15.0, K_τ=3.0), True, 30.0)  # inside 002's ranges
TUMBLER = run(point(A=0.5, M_d=4.2, D_d=0.7, K_d=17.7, K_τ=0.3), True, 22.5, mode="tumble", rotation=277.0)


def test_tsc_search_is_placed_after_the_stiffness_section():
    assert SECTIONS.index("tsc_search") == SECTIONS.index("stiffness") + 1


def test_the_box_keeps_the_joint_limit_and_spans_002s_ranges():
    box = {r.key: r for r in BOX}
    assert box["gait.amplitude"].high == pytest.approx(np.pi / 3)
    assert box["gait.amplitude"].low < RANGES["gait.amplitude"][0]
    for key, (lo, hi) in RANGES.items():
        if key != "gait.amplitude":  # well beyond: past half 002's smallest value and twice its largest
            assert box[key].low <= 0.5 * lo and box[key].high >= 2 * hi


def test_the_sobol_cover_is_the_same_sequence_every_time_and_inside_the_box():
    first, again = ts.sobol_points(BOX, 8), ts.sobol_points(BOX, 8)
    assert first == again
    for p in first:
        assert all(r.low <= p[r.key] <= r.high for r in BOX)
    assert len({p["controller.stiffness"] for p in first}) == 8


def test_no_step_checked_climber_says_no_setting_climbed():
    text = ts_report.render(results(search([run(), run()], OPEN_LOOP)))
    assert "**No setting climbed** at steps that pass the step check, in 2 trials" in text
    assert "0 climbed at h" in text
    # a climb that does not stand at half the step is no answer either
    unchecked = replace(CRAWLER, half=replace(CRAWLER.half, converged=False))
    text = ts_report.render(results(search([unchecked, run()], OPEN_LOOP)))
    assert "1 climbed at h (1 crawling, 0 tumbling), 0 of them also at h/2" in text and "**No setting climbed**" in text
    assert "There is no pair of step-checked climbs" in text
    assert ("*The scenario's own setting* (A = 1.047, M_d = 1, D_d = 4, K_d = 14, K_τ = 0; inside 002's ranges) "
            "does not climb.") in text
    assert "the scenario's own setting does not climb." in text
    own = replace(OWN, climbed=True, time_to_climb_s=11.0, half=replace(CRAWLER.half, time_to_climb_s=11.0))
    text = ts_report.render(results(search([run()], OPEN_LOOP, own=own)))
    assert "inside 002's ranges) climbs in 11.0 s (crawl; step-checked)." in text
    assert "TSC's own setting (the scenario's) (11.0 s) is faster, time -69 %" in text  # open loop at μ = 0.4: 35.5 s
    not_checked = replace(own, half=replace(own.half, converged=False, max_rate_change=0.194))
    text = ts_report.render(results(search([run()], OPEN_LOOP, own=not_checked)))
    assert "climbs in 11.0 s (crawl) but is not step-checked (19.4 % at h/2)" in text


def test_climbers_give_the_region_the_mode_and_the_comparison_with_the_open_loop():
    text = ts_report.render(results(search([CRAWLER, TUMBLER, run()], OPEN_LOOP)))
    assert "**Step-checked climbs: 2.**" in text
    assert "| step-checked climbers (2) | 0.500–0.900 | 1.5–4.2 | 0.7–5 | 15–17.7 | 0.3–3 |" in text
    assert "| of which crawl (1) | 0.900 | 1.5 | 5 | 15 | 3 |" in text
    assert "1 of the 2 lie inside 002's ranges of A, D_d, K_d, K_τ" in text
    assert "1 crawl over the box, 1 tumble (head over tail, the body turning by up to 277°)" in text
    assert "The fastest: 22.5 s (A = 0.500" in text and "the fastest crawl: 30.0 s" in text
    # the open loop does not climb at 002's μ: the comparison is with the highest face μ at which it climbs
    assert "step-checked climbs at μ = 0.4, 0.35; at the highest, μ = 0.4, in 35.5 s" in text
    assert ("Against the open loop at face μ = 0.4 (35.5 s), TSC's fastest step-checked climb at 002's face μ "
            "(22.5 s) is faster, time -37 %; its fastest step-checked crawl (30.0 s) is faster, time -15 %") in text
    assert "2 of 3 trials climb (step-checked; 1 crawl, 1 tumble); the fastest in 22.5 s (tumble), the fastest " \
           "crawl in 30.0 s" in text
    # the open loop climbing at 002's μ, faster than TSC: the comparison follows
    fast_open = (run({}, True, 20.0), *OPEN_LOOP[1:])
    text = ts_report.render(results(search([CRAWLER, TUMBLER], fast_open)))
    assert "at 002's face μ = 0.6: climbs in 20.0 s (step-checked)" in text
    assert "Against the open loop at 002's face μ (20.0 s), TSC's fastest step-checked climb at 002's face μ " \
           "(22.5 s) is slower, time +12 %" in text


def test_the_3d_search_reports_roll_over_and_the_other_seeds():
    rolled = run(point(A=0.8), True, 12.0, rolled_over=True, roll=75.0)
    steady = run(point(A=0.9), True, 11.0, rolled_over=False, roll=3.0)
    seeded = [replace(steady, params={**steady.params, "sim.perturbation.seed": 1}),
              replace(steady, params={**steady.params, "sim.perturbation.seed": 2}, climbed=False, half=None)]
    open_loop = [run({}, True, 11.5, rolled_over=False), run({"sim.perturbation.seed": 1}, True, 10.7),
                 run({"sim.perturbation.seed": 2}, False, rolled_over=True)]
    text = ts_report.render(results(search([steady, rolled], open_loop, "mujoco", seeded)))
    assert "Roll-over: 1 of the 2 step-checked climbers rolled over" in text and "largest roll: 75.0°" in text
    assert "at perturbation seeds 1, 2 (the search ran at seed 0): 1 of 2 runs are step-checked climbs" in text
    assert "At perturbation seeds 0, 1, 2: 11.5 s, 10.7 s, no (2 of 3 step-checked climbs" in text
    assert "Against the open loop at 002's face μ (11.5 s), TSC's fastest step-checked climb at 002's face μ " \
           "(11.0 s) is faster" in text
    assert "no climb at h/2" not in text and "the fastest crawl without rolling over in 11.0 s" in text
    # a rolled-over crawl is no clean crawl: the fastest clean crawl is the slower one
    text = ts_report.render(results(search([replace(steady, rolled_over=True), rolled], open_loop, "mujoco", seeded)))
    assert "none crawls without rolling over" in text


def test_climbs_that_do_not_stand_at_half_the_step_are_sorted_by_why():
    lost = replace(CRAWLER, half=replace(CRAWLER.half, climbed=False, time_to_climb_s=None, converged=False))
    other = replace(CRAWLER, half=replace(CRAWLER.half, mode="tumble", converged=False))
    speed = replace(CRAWLER, half=replace(CRAWLER.half, converged=False))  # time kept, a speed moved
    slower = replace(CRAWLER, half=replace(CRAWLER.half, time_to_climb_s=40.0, converged=False))
    text = ts_report.render(results(search([lost, other, speed, slower, TUMBLER], OPEN_LOOP)))
    assert ("5 climbed at h (4 crawling, 1 tumbling), 1 of them also at h/2" in text
            and "Of the 4 climbs that do not stand at h/2: 1 do not climb at h/2, 1 climb another way, 2 climb the "
            "same way but their times or speeds move by more than 5 % (1 of them keep the time to climb" in text)


def test_fast_mode_runs_end_to_end_on_a_local_cluster():
    results = reproduce(ts, fast=True)
    assert results.fast and results.face_friction == pytest.approx(0.6)
    assert [s.model for s in results.searches] == ["vertical", "mujoco"]
    sobol, total = ts.FAST_TRIALS
    for s in results.searches:
        assert len(s.trials) == total and s.sobol_trials == sobol
        assert [t.params for t in s.trials[:sobol]] == ts.sobol_points(s.space, sobol)
        assert all(t.status == "ok" and t.progress_speed_mps is not None and t.mode in ("crawl", "tumble")
                   for t in s.trials)
        assert all(r.half is not None and r.half.status == "ok" for r in s.open_loop)  # every open-loop run checked
        assert s.duration_s == ts.FAST_DURATION
        assert s.own.half is not None and s.own.params["controller.stiffness"] == 14.0  # the scenario's K_d
    vertical, mujoco = results.searches
    assert {r.params.get("world.side_friction") for r in vertical.open_loop[1:]} >= {0.0, 0.55}
    assert [r.params.get("sim.perturbation.seed") for r in mujoco.open_loop] == [None, 1, 2]
    assert all(t.rolled_over is not None for t in mujoco.trials) and all(t.rolled_over is None for t in vertical.trials)
    assert from_json(ts.Results, to_json(results)) == results
    assert "fast smoke run" in ts_report.render(results)
