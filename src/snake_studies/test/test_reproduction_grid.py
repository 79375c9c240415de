"""The reproduction's grids on the sweep engine (issue 19 item 4), on a real LocalCluster of 2 worker processes in
fast mode: a section's numbers are those of its runs evaluated one by one in this process, the same run planned
twice runs once, and a run that raises is reported (an error naming it, or a stated gap), never dropped."""

import sys
from dataclasses import replace

import cloudpickle
import pytest

from snake_sim.analysis.summary import flatten
from snake_sim.commands.cli import main
from snake_studies.climb_3d import ClimbCase, case_cells, climb_run, run_cases
from snake_studies.grid import RunsFailed, fields, require, run_cells
from snake_studies.reproduction.experiment import reproduce
from snake_studies.reproduction.experiments import pedal_wave, stiffness
from snake_studies.reproduction.reports import pedal_wave as pedal_wave_report
from snake_studies.reproduction.reports import stiffness as stiffness_report
from snake_studies.reproduction.results import plain
from snake_studies.sweep import Cell, engine

#: One Dask LocalCluster at a time (one worker process per core): the cluster tests run one after the other on one
#: pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("dask_cluster")
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import a test module


@pytest.fixture(scope="module")
def client():
    """The engine's LocalCluster of 2 single-threaded worker processes."""
    with engine.connect(workers=2) as c:
        yield c


def assert_same(got: dict, expected: dict) -> None:
    """The same fields; numbers within 1e-9 (NaN equal to NaN), the rest equal."""
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        if isinstance(value, float):
            assert got[key] == pytest.approx(value, rel=1e-9, nan_ok=True), key
        else:
            assert got[key] == value, key


def nested(cell, out):
    """A measure whose mapping has nested mappings, a list and a run status."""
    return {"speed": 0.5, "climb": {"climbed": False, "time_s": None}, "torque": [1.0, 2.0, 3.0],
            "status": "non-finite state at t = 1 s"}


def test_fields_give_back_the_measures_mapping_with_the_runs_status():
    row = engine.run_cell(Cell("pedal-wave", ("sim.duration=0.1",)), nested)
    assert row["status"] == "non-finite"
    assert fields(row) == nested(None, None)


def test_pedal_wave_on_two_workers_is_its_runs_evaluated_here(client):
    results = reproduce(pedal_wave, fast=True, client=client)
    sea, rigid, no_slip = pedal_wave._grid_cells(pedal_wave.FAST_DURATION)
    for grid, speeds in ((sea, results.speed), (rigid, results.rigid), (no_slip, results.no_slip)):
        for i in range(len(pedal_wave.PHASES)):
            assert speeds[i][i] == pytest.approx(pedal_wave.measure(grid[i][i])["speed"], rel=1e-9, abs=0.0)
    assert results.rigid != results.speed and results.no_slip != results.rigid  # each grid its own runs
    ref = pedal_wave.measure(pedal_wave._cell([], pedal_wave.FAST_DURATION))
    assert results.reference_speed == pytest.approx(ref["speed"], rel=1e-9, abs=0.0)
    assert results.torque_rms == pytest.approx(tuple(ref["torque_rms"]), rel=1e-9, abs=0.0)
    assert results.correlation_own == pytest.approx(ref["correlation"], rel=1e-12)
    text = pedal_wave_report.render(results)
    for needle in ("### Table 5.2", "ours/S", "rigid no-slip", "### Friction (§5.5)", "R = ", "fast mode",
                   "`pedal-wave` on Table 5.1's simulated robot, `koopaee6_sim`"):  # the scenario's robot
        assert needle in text


def test_stiffness_rows_on_two_workers_are_their_runs_evaluated_here_with_the_half_step(client):
    results = reproduce(stiffness, fast=True, client=client)
    jobs = stiffness._jobs(results.setting, fast=True)
    outcomes = [o for group in results.groups.values() for o in group]
    assert [o.label for o in outcomes] == [label for _, label, _, _ in jobs]
    for (group, _, scenario, over), outcome in zip(jobs, outcomes, strict=True):
        cells = stiffness._cells(scenario, over, True, group not in stiffness.FLAT_GROUPS)
        for cell, got in zip(cells, (outcome, outcome.half), strict=False):
            expected = flatten(stiffness.measure(cell))
            row = {k: v for k, v in flatten(plain(replace(got, half=None))).items() if k in expected}
            assert_same(row, expected)
        assert (outcome.half is None) == (group in stiffness.FLAT_GROUPS)
        if outcome.half is not None:
            assert outcome.half.time_step_s == 0.5 * outcome.time_step_s
    text = stiffness_report.render(results)
    assert text.startswith(f"## {stiffness_report.TITLE}") and "not results" in text
    assert text.count("| TSC, Table 7.1, K_τ = 0 |") == 1 and "### Single obstacle" in text
    assert "run Table 5.1's simulated robot, `koopaee6_sim`; every other row the robot as built, `koopaee6`." in text


def test_a_run_planned_twice_runs_once(client):
    cell = Cell("pedal-wave", ("sim.duration=0.1",))
    rows = run_cells([cell, Cell(cell.scenario, cell.overrides)], client, pedal_wave.measure, progress=False)
    assert list(rows) == [cell.id] and rows[cell.id]["status"] == "ok"


def test_a_raising_run_is_named_in_an_error_and_the_others_keep_their_rows(client):
    good = Cell("pedal-wave", ("sim.duration=0.1",))
    bad = Cell("pedal-wave", ("sim.duration=0.1", "gait.frequency=-3"))
    rows = run_cells([good, bad], client, pedal_wave.measure, progress=False)
    assert rows[good.id]["status"] == "ok" and fields(rows[good.id])["speed"] == pytest.approx(
        pedal_wave.measure(good)["speed"], rel=1e-9)
    assert rows[bad.id]["status"] == "error"
    with pytest.raises(RunsFailed, match=r"1 run\(s\) failed: pedal-wave sim.duration=0.1 gait.frequency=-3: "
                                         r"error \(ConfigError: .*gait.frequency = -3"):
        require([good, bad], rows)
    with pytest.raises(ValueError, match="has no result"):
        fields(rows[bad.id])


def test_a_3d_case_is_the_step_check_of_its_two_runs_and_a_failed_one_is_its_reason(client):
    case = ClimbCase("mujoco", "TSC K_tau = 6", "obstacle", 2, "tsc-obstacle-3d",
                     ("controller.torque_gain=6", "sim.perturbation.seed=2", "sim.duration=0.3"))
    broken = replace(case, overrides=(*case.overrides, "gait.frequency=-3"))
    run, reason = run_cases([case, broken], client)
    full, half = (engine.run_cell(c) for c in case_cells(case))  # the default measure, here: summary.json
    assert (run.status, run.climbed, run.seed) == ("ok", False, 2)
    assert run.com_speed_mps == pytest.approx(full["average_speed_mps"], rel=1e-9)
    assert run.half_com_speed_mps == pytest.approx(half["average_speed_mps"], rel=1e-9)
    assert run.time_step_s == 0.001 and run.verdicts_unchanged is True
    assert isinstance(reason, str) and "gait.frequency=-3: error (ConfigError" in reason
    assert climb_run(broken, {c.id: engine.run_cell(c) for c in case_cells(broken)}) == reason  # as run here


@pytest.mark.parametrize(("argv", "message"), [
    (["--workers", "0"], "--workers = 0 is invalid: must be at least 1"),
    (["--scheduler", "tcp://127.0.0.1:9"], "no Dask scheduler answered"),
])
def test_reproduce_refuses_a_bad_cluster_before_any_section_runs(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", 1.0)  # a scheduler that does not answer: judged in 1 s
    assert main(["reproduce", "--only", "pedal_wave", "--fast", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "reproduction").exists()
