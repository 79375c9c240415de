"""The claims table: one verdict per claim and engine by the stated rule (reproduced at 002's settings, explained by a
bracketed reading, inconclusive where the step or a short run decides, contradicts where every run stands with
another outcome), across engines the common verdict, and every cell names the stored results it rests on."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from snake_studies.climb_3d import Climb3dRun
from snake_studies.reproduction.experiments import claims as m
from snake_studies.reproduction.experiments import runs_002
from snake_studies.reproduction.reports import claims as m_report
from snake_studies.reproduction.results import from_json, to_json

TSC = ("TSC K_τ = 6", "TSC K_τ = 0")


def _run(row: runs_002.Row, engine: str, outcome: str, half: str | None = None, face: float | None = None,
         time: float = 40.0, seed: int = 0) -> runs_002.Run002:
    half = half or outcome
    run = Climb3dRun(row.controller, row.experiment, seed, "ok", outcome == "climbs",
                     time if outcome == "climbs" else None, outcome == "rolls over", None, 3.0, 0.01, outcome == half,
                     outcome == half, 0.0, engine, 0.001, 90.0, half == "climbs", half == "rolls over", 0.01,
                     time + 0.2 if half == "climbs" else None, outcome != "did not reach", half != "did not reach")
    return runs_002.Run002(row.experiment, row.controller, 0.82, run, face)


def _stored(outcomes: dict[tuple[str, str | None], tuple[str, ...]], engine: str = "mujoco", **times: float):
    """Stored runs of 002's §7.4 TSC rows in ``engine``: (controller, face μ or None) → outcome at h (and h/2)."""
    rows = {r.controller: r for r in runs_002.rows_002() if r.experiment == "§7.4"}
    runs = tuple(_run(rows[c], engine, *o, face=face, time=times.get(c.split()[-1], 40.0))
                 for (c, face), o in outcomes.items())
    return SimpleNamespace(runs=runs, plate_frictions=(0.82, 1.2), face_friction=0.6, face_frictions=(0.1, 0.3))


def test_a_claim_is_reproduced_explained_inconclusive_or_contradicted_by_the_stated_rule():
    both = {(c, None): ("climbs",) for c in TSC}
    assert m._rows_finding(_stored(both), None, "§7.4", TSC, "mujoco").verdict == "reproduced"
    stuck = {(c, None): ("fails",) for c in TSC}
    finding = m._rows_finding(_stored(stuck), None, "§7.4", TSC, "mujoco")
    assert finding.verdict == "contradicts"
    assert finding.trace == "002's runs: TSC K_τ = 6 no, TSC K_τ = 0 no"
    faces = {**stuck, **{(c, 0.1): ("climbs",) for c in TSC}}
    explained = m._rows_finding(_stored(faces), None, "§7.4", TSC, "mujoco")
    assert explained.verdict == "explained" and "faces at μ = 0.1" in explained.trace
    flips = {(TSC[0], None): ("fails", "climbs"), (TSC[1], None): ("fails",)}
    assert m._rows_finding(_stored(flips), None, "§7.4", TSC, "mujoco").verdict == "inconclusive"
    short = {(TSC[0], None): ("did not reach",), (TSC[1], None): ("fails",)}
    assert m._rows_finding(_stored(short), None, "§7.4", TSC, "mujoco").verdict == "inconclusive"
    assert m._rows_finding(_stored(both), None, "§7.4", TSC, "dart").verdict == m.NOT_RUN


def test_a_climb_that_only_a_bracketed_gain_gives_is_explained_naming_the_reading():
    stuck = {(c, None): ("fails",) for c in TSC}
    reading = SimpleNamespace(experiment="§7.4", label="D_d = 4, K_d = 12")
    gains = SimpleNamespace(climbing=lambda controller, engine: (reading,) if controller in TSC else ())
    finding = m._rows_finding(_stored(stuck), gains, "§7.4", TSC, "mujoco")
    assert finding.verdict == "explained"
    assert "TSC K_τ = 6 at D_d = 4, K_d = 12; TSC K_τ = 0 at D_d = 4, K_d = 12" in finding.trace
    only_one = SimpleNamespace(climbing=lambda controller, engine: (reading,) if controller == TSC[0] else ())
    assert m._rows_finding(_stored(stuck), only_one, "§7.4", TSC, "mujoco").verdict == "contradicts"


def test_a_faster_climb_counts_only_beyond_the_half_step_spread_and_with_002s_sign():
    both = {(c, None): ("climbs",) for c in TSC}
    faster = m._comparison_finding(_stored(both, **{"0": 38.0, "6": 40.0}), "§7.4", TSC[1], TSC[0], "mujoco")
    assert faster.verdict == "reproduced" and "−" in faster.trace and "-2.0 s" in faster.trace
    slower = m._comparison_finding(_stored(both, **{"0": 42.0, "6": 40.0}), "§7.4", TSC[1], TSC[0], "mujoco")
    assert slower.verdict == "contradicts"
    within = m._comparison_finding(_stored(both, **{"0": 40.1, "6": 40.0}), "§7.4", TSC[1], TSC[0], "mujoco")
    assert within.verdict == "inconclusive"  # 0.1 s apart, climb times move by 0.2 s from h to h/2


@pytest.mark.parametrize(("words", "verdict"), [
    (("reproduced", "reproduced", m.NOT_RUN), "reproduced"),
    (("reproduced", "explained", "reproduced"), "explained"),
    (("reproduced", "contradicts", "reproduced"), "inconclusive"),
    (("contradicts", "contradicts", "contradicts"), "contradicts"),
    ((m.NOT_RUN,) * 3, m.NOT_RUN),
])
def test_across_engines_the_verdict_is_the_common_one(words, verdict):
    assert m.overall([m.Finding(w, "") for w in words]) == verdict


def test_the_table_traces_every_cell_and_round_trips():
    findings = {"vertical": m.Finding("contradicts", "002's runs: TSC K_τ = 6 no"),
                "mujoco": m.Finding("explained", "002's runs: TSC K_τ = 6 no; climbs under the gain study's x"),
                "dart": m.Finding(m.NOT_RUN, "")}
    claim = m.Claim("§7.4", "TSC climbs", "climbed in 5 of 5 trials", findings, m.overall(list(findings.values())))
    results = m.Results(False, (claim, replace(claim, verdict="reproduced")), ("reproduction/runs_002.json",),
                        m.run_settings(False))
    assert from_json(m.Results, to_json(results)) == results
    text = m_report.render(results)
    assert ("| §7.4 | TSC climbs | climbed in 5 of 5 trials | **contradicts** (002's runs: TSC K_τ = 6 no) | "
            "**explained** (002's runs: TSC K_τ = 6 no; climbs under the gain study's x) | **not run** | "
            "**inconclusive** |") in text
    assert "`reproduction/runs_002.json`" in text
    assert "Across engines: reproduced 1, inconclusive 1 of 2 claims." in text


def test_the_claims_are_the_last_section_and_run_nothing():
    from snake_studies.reproduction import SECTIONS

    assert SECTIONS[-1] == "claims" and m.plan(False, {}) == {} and m.plan(True, {}) == {}
