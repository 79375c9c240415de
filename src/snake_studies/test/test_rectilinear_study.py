"""``snake-sim rectilinear study``: 003 ch. 4 tables and figures, trends, a usable best gait, bad input."""

import csv

import numpy as np
import pytest
import yaml

from snake_core.gaits import make_gait
from snake_sim.commands.cli import main


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("study")
    code = main(["rectilinear", "study", "--angles", "15", "45", "--step-times", "1", "0.1", "--mass", "0.015", "0.03",
                 "--out", str(out), "--no-progress"])
    with open(out / "study.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return code, out, rows


def _effort(rows, angle, t, mass=0.015):
    (row,) = [r for r in rows if float(r["angle_deg"]) == angle and float(r["step_time_s"]) == t
              and float(r["mass_kg"]) == mass]
    assert row["feasible"] == "True", row["reason"]
    return float(row["cycle_effort_N2m2s"])


def test_study_writes_tables_figures_and_a_best_gait(study):
    code, out, rows = study
    assert code == 0
    assert len(rows) == 2 * 2 * 2
    for name in ("study.md", "effort_vs_angle.png", "effort_vs_step_time.png", "effort_vs_speed.png",
                 "effort_vs_mass.png", "cycle.png", "best_gait.yaml"):
        assert (out / name).stat().st_size > 0, name
    gait = yaml.safe_load((out / "best_gait.yaml").read_text())["gait"]
    built = make_gait("rectilinear", 5, gait)  # the study's optimum is a valid gait for the gait generator
    assert built.angle == pytest.approx(gait["angle"]) and built.step_time == pytest.approx(gait["step_time"])
    speed = float(rows[0]["speed_m_s"])
    assert speed == pytest.approx(2 * 0.14 * (1 - np.cos(np.radians(float(rows[0]["angle_deg"])))) /
                                  (5 * float(rows[0]["step_time_s"])), rel=1e-5)  # 003 Eq. 4.1


def test_study_reproduces_003_trends(study):
    _, _, rows = study
    # T = 1 s: static gravity torque dominates, effort falls as the angle grows (003 Fig. 4.8)
    assert _effort(rows, 45, 1.0) < _effort(rows, 15, 1.0)
    # T = 0.1 s: dynamic torque dominates, effort rises with the angle (003 Figs. 4.10, 4.11)
    assert _effort(rows, 45, 0.1) > _effort(rows, 15, 0.1)
    # mass re-uses the trajectories: effort ∝ m² (003 Fig. 4.14)
    assert _effort(rows, 45, 1.0, 0.03) == pytest.approx(4 * _effort(rows, 45, 1.0), rel=1e-5)  # 6 digits in the CSV


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--angles", "50"], "--angles"),  # beyond rectilinear6's ±45° joint range
        (["--angles", "30", "--step-times", "-1"], "--step-times"),
        (["--angles", "30", "--mass", "0"], "--mass"),
        (["--angles", "30", "--link-length", "-0.1"], "--link-length"),
    ],
)
def test_bad_study_input_is_refused_with_the_field(args, field, tmp_path, capsys):
    assert main(["rectilinear", "study", *args, "--out", str(tmp_path), "--no-progress"]) == 2
    assert field in capsys.readouterr().err


def test_infeasible_setting_is_reported_with_its_reason_and_no_numbers(tmp_path):
    # 30 ms steps: the accelerations needed pull the sliding tip off the ground (F_R < 0) in every step
    code = main(["rectilinear", "study", "--angles", "45", "--step-times", "0.03", "--out", str(tmp_path),
                 "--no-progress"])
    assert code == 1
    with open(tmp_path / "study.csv", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["feasible"] == "False" and "lifts off" in row["reason"]
    assert all(row[k] == "" for k in row if k.startswith("effort") or k in ("cycle_effort_N2m2s", "peak_torque_Nm"))
    assert "infeasible: step 1 (M1)" in (tmp_path / "study.md").read_text()
    assert not (tmp_path / "best_gait.yaml").exists()
