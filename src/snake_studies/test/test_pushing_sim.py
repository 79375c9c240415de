"""The pushing world: simulated initial accelerations vs 001's analysis; ``snake-sim pushing``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from snake_core.pushing import ContactLostError, Scenario
from snake_core.pushing.study import extremes
from snake_sim.commands.cli import main
from snake_sim.engines.pushing.plant import compare, pushing_world

Q0 = np.array([0.0, 0.0, 0.0, np.radians(-60.0), np.radians(-60.0)])


@pytest.fixture(scope="module")
def world():
    return pushing_world(2)


@pytest.fixture(scope="module")
def best_tau(world):
    return extremes(world.model, Q0[None], Scenario.IDEAL_WHEELS).tau_a_obj[0]


def test_world_gives_the_analysis_its_object(world):
    m = world.model
    assert m.kappa == pytest.approx(100.0)  # a box of κ link masses (001 Fig. 4)
    # the box face touches the side of the tail link: COM half a box + half a module off the link axis
    assert m.object_offset[0] == pytest.approx(0.5 * world.box_size[1] + 0.5 * world.robot_width)
    assert m.object_offset[1] == pytest.approx(0.0, abs=1e-12)  # centred on the middle of link 1


def test_ideal_wheels_simulation_matches_the_analysis(world, best_tau):
    comp = compare(world, Q0, best_tau, Scenario.IDEAL_WHEELS)
    assert comp.a_obj_error < 0.01
    assert comp.qdd_error < 0.01
    assert comp.sr_sim == pytest.approx(comp.analysis.sr, rel=0.01)


def test_sliding_wheels_simulation_matches_the_active_set_solution(world, best_tau):
    comp = compare(world, Q0, 4.0 * best_tau, Scenario.BOUNDED_WHEELS)
    assert np.all(comp.analysis.slip != 0)  # both wheels at μ_s m g
    assert comp.a_obj_error < 0.02
    assert comp.qdd_error < 0.02


def test_the_difference_is_the_contact_model_error(world, best_tau):
    """A softer penalty and wheel damper move the simulation away from the rigid analysis."""
    soft = compare(world, Q0, best_tau, Scenario.NO_FRICTION, stiffness=1e5, wheel_damping=2e3, time_step=1e-5)
    stiff = compare(world, Q0, best_tau, Scenario.NO_FRICTION, stiffness=1e6, wheel_damping=2e3, time_step=1e-5)
    assert stiff.qdd_error < soft.qdd_error


def test_torques_that_pull_away_are_reported(world, best_tau):
    with pytest.raises(ContactLostError):
        compare(world, Q0, -best_tau, Scenario.NO_FRICTION)


def test_study_command_writes_figures_and_table(tmp_path):
    out = tmp_path / "study"
    assert main(["pushing", "study", "--out", str(out), "--step-deg", "90", "--directions", "4", "--no-progress"]) == 0
    for name in ("fig4_case1.png", "fig4c_kappa.png", "fig5_polar.png", "fig6_configurations.png", "table2.md",
                 "table2.csv", "study.json"):
        assert (out / name).stat().st_size > 0, name
    summary = json.loads((out / "study.json").read_text())
    assert summary["case2"]["configurations"] == 4**3
    assert "0.988638" in (out / "table2.md").read_text()  # 001's column beside ours


def test_analyse_answers_for_one_shape_and_reports_a_lost_contact(capsys):
    from snake_studies.pushing import analyse

    res = analyse([-135.0, -135.0], [0.05, 0.01])
    s1 = res["scenarios"]["Scenario 1 (no friction)"]
    s3 = res["scenarios"]["Scenario 3 (ideal wheels)"]
    assert s1["best_sr"] < 0.05 < 0.9 < s3["best_sr"]  # 001 Fig. 4
    assert s1["input"]["contact"] == "held" and 0.0 < s1["input"]["sr"] <= s1["best_sr"]
    assert 0.0 < s3["input"]["a_obj_sq"] <= s3["best_a_obj_sq"]  # τ lies inside the input region (31)
    pulled = analyse([-135.0, -135.0], [-0.05, -0.01])
    assert all(r["input"]["contact"].startswith("lost") for r in pulled["scenarios"].values())
    assert main(["pushing", "analyse", "--joints-deg", "-135", "-135", "--tau", "-0.05", "-0.01"]) == 0
    assert "contact lost" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["pushing", "study", "--kappa", "0"], "--kappa = 0.0 is invalid"),
    (["pushing", "study", "--param", "contact_postion=0.2"], "contact_postion = 0.2 is invalid: unknown field"),
    (["pushing", "study", "--param", "mu_s=-1"], "mu_s = -1 is invalid"),
    (["pushing", "check", "--joints-deg", "10", "20", "--tau", "1"], "--tau = [1.0] is invalid"),
    (["pushing", "check", "--tau", "-0.05", "-0.05"], "contact is lost"),
    (["pushing", "check", "--joints-deg", "60", "60"], "link 2 overlaps the box"),
])
def test_bad_input_fails_with_one_message(argv, message, capsys, tmp_path):
    assert main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
