"""The section of 002's unknowns calibrated in MuJoCo: its tables are 002's numbers (Table 5.2's measured speeds, five
cells fitted and four held out; the outcomes of 002's runs on the robot), the calibrated scenario it ships is the
stored fit with its provenance and runs, the shipped defaults do not move, and its sentences follow the stored
numbers."""

from dataclasses import replace
from pathlib import Path

import pytest

from snake_core import locator
from snake_core.robot import load_robot
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.mujoco.settings import Settings
from snake_studies.reproduction.experiment import Task
from snake_studies.reproduction.experiments import calibration_002 as c
from snake_studies.reproduction.experiments.pedal_wave import SCENARIO_3D, TABLE_E
from snake_studies.reproduction.experiments.runs_002 import rows_002
from snake_studies.reproduction.reports import calibration_002 as c_report
from snake_studies.reproduction.results import load, results_path
from snake_studies.sweep import Cell
from snake_studies.sweep.engine import measure_summary

DOCS = Path(__file__).resolve().parents[3] / "docs"


@pytest.fixture(scope="module")
def stored():
    return load(c.Results, results_path(DOCS, "calibration_002"))


def test_table_5_2_is_002s_measured_speeds_with_the_corners_and_centre_fitted():
    rows = c.table_5_2_rows(10.0)
    assert [r.speed.value for r in rows] == pytest.approx([v / 100 for row in TABLE_E for v in row])
    assert all(r.speed.sigma == pytest.approx(c.SIGMA_FRACTION * r.speed.value) for r in rows)
    fitted = [k for k, r in enumerate(rows) if not r.held_out]
    assert fitted == [0, 2, 4, 6, 8]  # (0, 0), (0, 2), (1, 1), (2, 0), (2, 2) of the 3 × 3 table
    assert all(r.scenario == SCENARIO_3D and "sim.duration=10.0" in r.sets for r in rows)


def test_the_climb_rows_are_002s_outcomes_on_the_robot():
    by = {f"{r.experiment} {r.controller}": r for r in rows_002()}
    rows = c.climb_rows(c.CLIMB_DURATION)
    assert len(rows) == len(c.CLIMB_ROWS)
    for row in rows:
        assert row.outcome == by[row.name].outcome_002 and row.scenario == f"{by[row.name].scenario}-3d"
        assert f"sim.perturbation.seed={c.SEED}" in row.sets
    timed = {r.name: r.time_to_climb.value for r in rows if r.time_to_climb}
    assert timed == {"§6.4 local stiffness K_d = K/6": 24.6, "§7.4 TSC K_τ = 0": 40.1, "§7.4.2 TSC K_τ = 6": 27.4}


def test_the_calibrated_scenario_is_the_stored_fit_with_its_provenance(stored):
    path = locator.scenario_file(c.CALIBRATED)
    assert path.read_text(encoding="utf-8") == c_report.calibrated_text(stored), (
        f"{path.name} is not the stored fit: write reports.calibration_002.calibrated_text(results) to it")
    text = path.read_text(encoding="utf-8")
    assert "snake-sim calibrate" in text and stored.date in text
    scenario = load_scenario(c.CALIBRATED)
    base = load_scenario(SCENARIO_3D)
    fields = [*(f for f in stored.flat.fitted if f.key != "world.side_friction"), stored.climb.fitted[0]]
    for f in fields:  # an identified value is the fit's, any other the base scenario's (named in the provenance)
        section, name, *element = f.key.split(".")
        value, shipped = scenario.section(section).get(name), base.section(section).get(name)
        if element:
            value, shipped = value[int(element[0])], shipped[int(element[0])]
        assert value == (f.value if f.identifiable else shipped), f.key
        assert f.identifiable or f.key in text.split("Not identifiable")[1].splitlines()[0]


def test_the_calibrated_scenario_runs_and_the_shipped_defaults_do_not_move():
    run = measure_summary(Cell(c.CALIBRATED, ("sim.duration=0.2",)))
    assert run["status"] == "ok" and run["robot"] == "koopaee6"
    shipped = load_scenario(SCENARIO_3D)
    assert shipped.section("contact")["friction"] == 0.6  # 002 Table 5.1's μ_c
    assert tuple(shipped.section("contact")["solref"]) == Settings().solref  # MuJoCo's default softness
    assert "motor_gain_scale" not in shipped.section("robot") and "side_friction" not in shipped.section("world")
    actuator = load_robot("koopaee6").actuator
    assert (actuator.kp, actuator.kd) == (60.0, 25.0)  # 002 Table 5.1's K_p, K_D


def test_the_face_friction_sentence_follows_its_identifiability(stored):
    assert "Fit 1: Table 5.2" in c_report.render(stored)
    flat = [replace(f, identifiable=f.key == "world.side_friction" or f.identifiable) for f in stored.flat.fitted]
    text = c_report.render(replace(stored, flat=replace(stored.flat, fitted=tuple(flat))))
    assert "**identifiable**: unexpected on flat ground" in text
    flat = [replace(f, identifiable=False) if f.key == "world.side_friction" else f for f in stored.flat.fitted]
    text = c_report.render(replace(stored, flat=replace(stored.flat, fitted=tuple(flat))))
    assert "**not identifiable**, as it must be" in text


def test_the_plan_is_one_task_of_both_fits():
    assert list(c.plan()) == ["fits"] and c.plan(fast=True)["fits"].args == (True,)


def test_the_settings_of_a_fast_run_cut_trials_durations_and_rows_and_fit_2_runs_at_its_scenarios_step():
    full, fast = c.run_settings(False), c.run_settings(True)
    assert (full.trials, full.flat_duration_s, full.climb_duration_s) == ({"flat": 64, "climb": 12}, 10.0, 90.0)
    assert full.climb_rows == c.CLIMB_ROWS and fast.climb_rows == c.CLIMB_ROWS[:1]
    assert (fast.trials, fast.flat_duration_s, fast.climb_duration_s) == ({"flat": 2, "climb": 2}, 1.0, 1.0)
    assert full.calibrated == f"{full.scenario_3d}-calibrated" and full.scenario_3d == SCENARIO_3D
    step = load_scenario("exp64-position-obstacle-3d").section("sim")["time_step"]
    assert full.climb_time_step == step and step != load_scenario(SCENARIO_3D).section("sim")["time_step"]
    rows = c.climb_rows(1.0, c.CLIMB_ROWS[:2])
    rows[1] = replace(rows[1], sets=(*rows[1].sets, f"sim.time_step={step / 2!r}"))
    with pytest.raises(ValueError, match="several steps"):
        c._time_step(rows)


def test_the_fits_run_what_the_settings_store(monkeypatch):
    calls = []

    def fit(name, scenario, rows, fit, log, sets, trials, client, folder):
        calls.append((scenario, [r.name for r in rows], {s for r in rows for s in r.sets if "duration" in s}, fit,
                      log, sets, trials))
        return c.Fit(name, scenario, (), sets, trials, 0.0, 1, (c.FittedField("contact.friction", 0.3, (0.2, 0.4),
                                                                               True),), (), 0.0, "")

    monkeypatch.setattr(c, "_fit", fit)
    st = c.run_settings(True)
    c.measure(Task("calibrate 002", (True,)))
    flat, climb = calls
    assert flat == (st.scenario_3d, [r.name for r in c.table_5_2_rows(1.0)], {"sim.duration=1.0"}, st.flat_fit,
                    st.flat_log, (), st.trials["flat"])
    assert climb == ("exp64-position-obstacle-3d", [f"{s} {ctl}" for s, ctl in st.climb_rows], {"sim.duration=1.0"},
                     st.climb_fit, (), ("contact.friction=0.3",), st.trials["climb"])


def test_the_text_states_how_the_stored_fits_were_made(stored):
    text = c_report.render(stored)
    assert "σ = 10 % of its value" in text and "perturbation seed 0, 90 s at h = 1 ms" in text
    st = replace(stored.settings, sigma_fraction=0.2, seed=7, climb_time_step=0.0005, search_seed=3, mismatch=5.0,
                 accept=6.0, whole_box=0.8, agree=1.5, scenario_3d="flat-x", flat_duration_s=4.0)
    text = c_report.render(replace(stored, settings=st))
    for said in ("σ = 20 % of its value", "an outcome other than 002's: 5)", "CMA-ES (seed 3)", "Δloss = 6 of",
                 "span 80 % of its box", "within 1.5 σ", "`flat-x` (MuJoCo) for 4 s per cell",
                 "perturbation seed 7, 90 s at h = 0.5 ms"):
        assert said in text, said
