"""docs/reproduction.md is the rendering of the stored results in docs/reproduction/ (freshness), the results
round-trip through JSON, `snake-sim reproduce --render` / `--only` write the whole document, and the findings'
sentences follow the numbers: changing a stored number changes the rendered sentence."""

from __future__ import annotations

import dataclasses
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from snake_sim.commands.cli import main
from snake_studies.reproduction import SECTIONS
from snake_studies.reproduction.document import DOCUMENT, render_document, report, section
from snake_studies.reproduction.results import from_json, load, results_path, to_json

DOCS = Path(__file__).resolve().parents[3] / "docs"


def _stored(name: str):
    """The section's report module and its stored results."""
    return report(name), load(section(name).Results, results_path(DOCS, name))


def test_every_section_has_stored_results_from_full_runs():
    for name in SECTIONS:
        _, results = _stored(name)
        assert results.fast is False, f"docs/reproduction/{name}.json is from a --fast run"


def test_docs_reproduction_md_is_what_snake_sim_reproduce_renders_from_the_stored_results():
    text, missing = render_document(DOCS)
    assert not missing
    assert (DOCS / DOCUMENT).read_text(encoding="utf-8") == text, (
        "docs/reproduction.md is stale: run `snake-sim reproduce --render`")


@pytest.mark.parametrize("name", SECTIONS)
def test_stored_results_round_trip_through_json(name):
    module, results = _stored(name)
    text = results_path(DOCS, name).read_text(encoding="utf-8")
    assert to_json(results) == text
    assert module.render(from_json(section(name).Results, text)) == module.render(results)


def test_render_flag_and_only_rewrite_the_whole_document_from_stored_results(tmp_path, monkeypatch, capsys):
    shutil.copytree(DOCS / "reproduction", tmp_path / "reproduction")
    assert main(["reproduce", "--render", "--out", str(tmp_path)]) == 0
    assert (tmp_path / DOCUMENT).read_text(encoding="utf-8") == (DOCS / DOCUMENT).read_text(encoding="utf-8")
    # --only reruns one section (here a stand-in plan of no runs assembled into the stored results with a changed
    # time) and re-renders every section, the others from their stored results.
    from snake_studies.reproduction.experiments import manipulability_head_tracking as m4

    stored = load(m4.Results, results_path(DOCS, "manipulability_head_tracking"))
    monkeypatch.setattr(m4, "plan", lambda fast=False: {})
    monkeypatch.setattr(m4, "assemble", lambda fast, plan, rows: replace(stored, pfl=replace(stored.pfl, end_time=4.5)))
    assert main(["reproduce", "--only", "manipulability_head_tracking", "--out", str(tmp_path)]) == 0
    text = (tmp_path / DOCUMENT).read_text(encoding="utf-8")
    assert "| blow-up time (‖τ‖ > limit) | 4.50 s |" in text
    assert all(f"## {report(name).TITLE}" in text for name in SECTIONS)
    assert load(m4.Results, results_path(tmp_path, "manipulability_head_tracking")).pfl.end_time == 4.5


def test_fast_runs_never_overwrite_the_committed_results(tmp_path, monkeypatch):
    """--fast without --out writes under out/reproduction-fast/ (relative to the working directory), not docs/."""
    from snake_studies.reproduction.experiments import manipulability_head_tracking as m4

    stored = load(m4.Results, results_path(DOCS, "manipulability_head_tracking"))
    monkeypatch.setattr(m4, "plan", lambda fast=False: {})
    monkeypatch.setattr(m4, "assemble", lambda fast, plan, rows: replace(stored, fast=fast))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    assert main(["reproduce", "--fast", "--only", "manipulability_head_tracking"]) == 0
    assert not any((tmp_path / "docs").iterdir())
    written = results_path(tmp_path / "out" / "reproduction-fast", "manipulability_head_tracking")
    assert load(m4.Results, written).fast is True


def test_a_missing_section_is_left_out_with_a_note(tmp_path, capsys):
    (tmp_path / "reproduction").mkdir()
    shutil.copy(results_path(DOCS, "pushing"), results_path(tmp_path, "pushing"))
    assert main(["reproduce", "--render", "--out", str(tmp_path)]) == 0
    text = (tmp_path / DOCUMENT).read_text(encoding="utf-8")
    assert f"## {report('pushing').TITLE}" in text and f"## {report('stiffness').TITLE}" not in text
    assert "no stored results for 'stiffness'" in capsys.readouterr().err


def _outcome(rows, label):
    (i,) = [k for k, r in enumerate(rows) if r.label == label]
    return i, rows[i]


def test_stiffness_sentences_follow_a_climb_time_and_a_verdict():
    module, results = _stored("stiffness")
    face = list(results.groups["face"])
    i, row = _outcome(face, "open loop, μ = 0 on the vertical faces")
    assert row.climb.climbed
    before = module.render(results)
    face[i] = replace(row, climb=replace(row.climb, time_to_climb_s=41.25))
    after = module.render(replace(results, groups={**results.groups, "face": face}))
    assert "μ = 0: 41.2 s" in after and "μ = 0: 41.2 s" not in before
    # TSC with Table 7.1's gains climbing changes the verdict against 002.
    t71 = list(results.groups["t71"])
    j, tsc = _outcome(t71, "TSC, Table 7.1, K_τ = 0")
    assert not tsc.climb.climbed
    t71[j] = replace(tsc, climb=replace(tsc.climb, climbed=True, time_to_climb_s=30.0))
    climbed = module.render(replace(results, groups={**results.groups, "t71": t71}))
    assert "With Table 7.1's own parameters TSC, Table 7.1, K_τ = 0 climbs" in climbed
    assert "K_τ = 0 climbs (table above)" not in before


def test_stiffness_constants_come_from_the_setting():
    module, results = _stored("stiffness")
    softer = replace(results, setting=replace(results.setting, spring_stiffness=3.48))
    text = module.render(softer)
    assert "K = 3.48 N·m/rad" in text and "K_d = K/12 = 0.29" in text
    assert "K = 1.74 N·m/rad" in module.render(results)


def test_rectilinear_effort_sentence_follows_the_number():
    module, results = _stored("rectilinear")
    steps = list(results.steps)
    i, final = next((k, s) for k, s in enumerate(steps) if s.how == "003's final C")
    assert "16 % above, the same order" in module.render(results)
    steps[i] = replace(final, effort=1.56e-3)
    text = module.render(replace(results, steps=tuple(steps)))
    assert "8 % below, the same order" in text and "16 % above" not in text


def test_pedal_wave_sentences_follow_a_speed_ratio_and_the_direction():
    module, results = _stored("pedal_wave")
    assert "(it moves the way the wave travels along the body and reverses with the sign of φ)" in module.render(
        results)
    reversed_ = module.render(replace(results, reversed_speed=abs(results.reversed_speed)))
    assert "with φ = +2π/5 it moves head first" in reversed_ and "reverses with the sign of φ" not in reversed_
    # 002's column above ours in every case, or not: the heading says how many.
    speed = [list(row) for row in results.speed]
    speed[0][0] = 0.05  # 5 cm/s, above 002's 1.9
    faster = module.render(replace(results, speed=tuple(tuple(r) for r in speed)))
    assert "### Why 8 of our 9 speeds are below 002's printed simulation column" in faster
    assert "### Why our speeds are below" in module.render(results)


def test_pushing_sentences_follow_the_slippage_ratio():
    module, results = _stored("pushing")
    assert "but raise the best sr from near 0 to near 1" in module.render(results)
    table = {**results.table, "best sr": (results.table["best sr"][0], 0.5, 0.5)}
    text = module.render(replace(results, table=table))
    assert "and the best sr goes" in text and "near 0 to near 1" not in text


def test_head_tracking_reach_limit_follows_the_run():
    module, results = _stored("manipulability_head_tracking")
    text = module.render(results)
    assert f"a head {results.pfl.head_reach:.2f} m ahead of it is a hard reach limit" in text
    assert f"must fail near {results.pfl.end_time:.1f} s" in text
    moved = module.render(replace(results, pfl=replace(results.pfl, com_displacement=0.02, head_reach=0.5)))
    assert "the centre of mass moves by 0.02 m, so the head's reach is not a hard limit" in moved
    assert "hard reach limit" not in moved


def test_results_json_round_trips_nested_optional_and_nan_fields():
    from snake_sim.analysis.climb import ClimbResult
    from snake_studies.reproduction.experiments.stiffness import Outcome

    row = Outcome("r", 0.01, ClimbResult(True, 40.0, 0.7, 0.28, 0.007), 50.0, -280.0, "ok", time_step_s=1e-3)
    row = replace(row, half=replace(row, climb=ClimbResult(False, None, 0.7, 0.28, None)))
    back = from_json(Outcome, to_json(row))
    assert dataclasses.astuple(back.half.climb) == (False, None, 0.7, 0.28, None, None, None)
    assert back.face_time_s != back.face_time_s  # NaN survives
    assert replace(back, face_time_s=0.0, face_height_max_m=0.0, half=None) == replace(
        row, face_time_s=0.0, face_height_max_m=0.0, half=None)


def test_stored_results_without_a_field_added_since_read_its_default_and_a_missing_required_field_is_refused():
    import json

    from snake_sim.analysis.climb import ClimbResult

    older = {"climbed": True, "time_to_climb_s": 40.0, "goal_x_m": 0.7, "climb_distance_m": 0.28,
             "climb_average_speed_mps": 0.007}  # stored before a climb said whether it reached the box
    assert from_json(ClimbResult, json.dumps(older)) == ClimbResult(True, 40.0, 0.7, 0.28, 0.007, None, None)
    with pytest.raises(KeyError, match="goal_x_m"):
        from_json(ClimbResult, json.dumps({k: v for k, v in older.items() if k != "goal_x_m"}))
