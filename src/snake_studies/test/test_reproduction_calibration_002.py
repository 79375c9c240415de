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
