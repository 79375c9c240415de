"""snake-sim sweep (snake_studies.sweep, issue 19): planning and validation before any run, results.csv, and runs on
a real LocalCluster of 2 worker processes: the rows equal the same runs made one by one, a raising run and a
killed worker leave the other rows, --resume runs only the missing cells."""

import csv
import os
import sys

import cloudpickle
import pytest

from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core.scenario import load_scenario
from snake_studies.sweep import Cell, SweepSpec, engine, parse_grid, parse_range, plan, sweep
from snake_studies.sweep.cells import START_OFFSET_M, seed_overrides
from snake_studies.sweep.report import default_field, write_report
from snake_studies.sweep.table import ResultsTable

#: One Dask LocalCluster at a time (one worker process per core): the cluster tests run one after the other on one
#: pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("dask_cluster")
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import a test module

#: Columns that measure the computer or name the process, not the run.
NOT_RESULTS = ("wall_time_s", "worker", "real_time_factor")


@pytest.fixture(scope="module")
def client():
    """The engine's LocalCluster of 2 single-threaded worker processes."""
    with engine.connect(workers=2) as c:
        yield c


def toy(cell, out):
    """A cheap run: raises at x = 2, kills its worker at x = 3, non-finite at x = 4; records each call in out."""
    x = dict(cell.values)["gait.amplitude"]
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "calls", "a", encoding="utf-8") as fh:
            fh.write("1\n")
    if x == 2:
        raise RuntimeError("no gait at this amplitude")
    if x == 3:
        os._exit(1)
    return {"status": "ok" if x != 4 else "non-finite state at t = 1 s", "average_speed_mps": x / 10,
            "climbed": None, "contacts": {"mean": x}}


def toy_cells(values):
    return [Cell("pedal-wave", (f"gait.amplitude={v}",), (("gait.amplitude", v),)) for v in values]


def test_plan_is_grid_times_seeds_with_stable_ids_and_resolved_values():
    spec = SweepSpec("tsc-obstacle", (parse_grid("controller.stiffness=12,14"), parse_grid("gait.amplitude=pi/4,pi/3")),
                     seeds=2, sets=("sim.duration=1",))
    cells = plan(spec)
    assert len(cells) == 8 and len({c.id for c in cells}) == 8
    assert [c.id for c in plan(spec)] == [c.id for c in cells]
    first = cells[0]
    assert dict(first.values) == {"controller.stiffness": 12, "gait.amplitude": pytest.approx(0.7853981633974483)}
    assert first.overrides[:3] == ("sim.duration=1", "controller.stiffness=12", "gait.amplitude=pi/4")
    assert [c.seed for c in cells[:2]] == [0, 1]
    starts = [load_scenario("tsc-obstacle", c.overrides).data["world"]["start_x"] for c in cells[:2]]
    assert starts == [0.0, pytest.approx(-START_OFFSET_M)]


def test_random_samples_are_the_same_each_time_and_in_the_range():
    spec = SweepSpec("pedal-wave", random=(parse_range("gait.amplitude=0.2:0.6", "--random"),), samples=5)
    values = [dict(c.values)["gait.amplitude"] for c in plan(spec)]
    assert values == [dict(c.values)["gait.amplitude"] for c in plan(spec)]
    assert len(set(values)) == 5 and all(0.2 <= v <= 0.6 for v in values)


def test_seeds_are_perturbation_seeds_in_3d_start_offsets_in_the_plane_and_refused_without_either():
    assert seed_overrides(load_scenario("tsc-obstacle-3d"), 3) == ["sim.perturbation.seed=3"]
    assert seed_overrides(load_scenario("pedal-wave"), 2) == [f"world.start_x={-2 * START_OFFSET_M!r}"]
    with pytest.raises(ConfigError, match=r"--seeds = 3 .*neither sim.perturbation nor world.start_x"):
        plan(SweepSpec("head-tracking-pfl", seeds=3))


@pytest.mark.parametrize(("argv", "message"), [
    (["--grid", "controller.stifness=1,2"], "controller.stifness = 1 is invalid: unknown field"),
    (["--grid", "controller.stiffness=12,"], "every value must be non-empty"),
    (["--grid", "controller.stiffness=12,12"], "a value is repeated"),
    (["--random", "controller.stiffness=3:2", "--samples", "2"], "non-empty range: LO < HI"),
    (["--random", "controller.stiffness=2:3"], "--random needs --samples"),
    (["--grid", "controller.stiffness=12", "--set", "controller.stiffness=3"], "fixes a key that is swept"),
    (["--grid", "controller.stiffness=-1"], "controller.stiffness = -1 is invalid: must be > 0"),
    (["--field", "speed"], "--field = 'speed' is invalid: not a field"),
    (["--scheduler", "tcp://127.0.0.1:9"], "no Dask scheduler answered"),
])
def test_bad_input_is_one_error_before_any_run(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", 1.0)  # a scheduler that does not answer: judged in 1 s
    out = tmp_path / "s"
    assert main(["sweep", "tsc-obstacle", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not out.exists()


def test_results_table_streams_rows_and_widens_its_header(tmp_path):
    table = ResultsTable(tmp_path / "results.csv")
    table.append({"cell": "1234e5678901", "status": "ok", "a": 1.5, "b": True})
    table.append({"cell": "000000000002", "status": "error", "message": "x, y", "a": None})
    table.append({"cell": "c", "status": "ok", "a": 0.1 + 0.2})
    again = ResultsTable(tmp_path / "results.csv")
    assert again.header == ["cell", "status", "a", "b", "message"]
    assert again.rows == [{"cell": "1234e5678901", "status": "ok", "a": 1.5, "b": True},
                          {"cell": "000000000002", "status": "error", "message": "x, y"},
                          {"cell": "c", "status": "ok", "a": 0.1 + 0.2}]
    assert again.done() == {"1234e5678901", "000000000002", "c"}


def test_a_sweeps_rows_equal_the_same_runs_made_one_by_one(client):
    cells = plan(SweepSpec("tsc-obstacle", (parse_grid("controller.torque_gain=0,6"),), seeds=2,
                           sets=("sim.duration=0.4",)))
    rows = engine.run(cells, client)
    assert {r["worker"] for r in rows} <= set(client.scheduler_info()["workers"])
    one_by_one = {c.id: engine.run_cell(c) for c in cells}
    assert len(rows) == len(cells)
    for row in rows:
        assert row["status"] == "ok"
        expected = one_by_one[row["cell"]]
        assert {k: v for k, v in row.items() if k not in NOT_RESULTS} == \
            {k: v for k, v in expected.items() if k not in NOT_RESULTS}


def test_a_raising_run_and_a_killed_worker_leave_the_other_rows(client):
    seen = []
    rows = engine.run(toy_cells([1, 2, 3, 4, 5]), client, toy, on_row=seen.append)
    assert seen == rows
    by_x = {r["gait.amplitude"]: r for r in rows}
    assert sorted(by_x) == [1, 2, 3, 4, 5]
    assert by_x[2]["status"] == "error" and "RuntimeError: no gait at this amplitude" in by_x[2]["message"]
    assert by_x[3]["status"] == "killed"
    assert by_x[4]["status"] == "non-finite" and by_x[4]["message"] == "non-finite state at t = 1 s"
    assert [by_x[x]["status"] for x in (1, 5)] == ["ok", "ok"]
    assert by_x[5]["average_speed_mps"] == 0.5 and by_x[5]["contacts.mean"] == 5


def test_resume_runs_only_the_missing_cells(client, tmp_path):
    spec = SweepSpec("pedal-wave", (parse_grid("gait.amplitude=0.5,0.6,0.7,0.8"), parse_grid("gait.frequency=1,2")))
    out = tmp_path / "s"
    address = client.scheduler.address
    first = sweep(spec, out, scheduler=address, outputs=True, progress=False, measure=toy)
    assert (first.planned, first.ran, len(first.rows)) == (8, 8, 8)
    with pytest.raises(ConfigError, match="add --resume"):
        sweep(spec, out, scheduler=address, progress=False, measure=toy)
    # an interrupted sweep: 3 rows never written
    with open(out / "results.csv", newline="", encoding="utf-8") as fh:
        kept = list(csv.reader(fh))[:-3]
    with open(out / "results.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(kept)
    missing = {c.id for c in plan(spec)} - {r[0] for r in kept[1:]}
    second = sweep(spec, out, scheduler=address, resume=True, outputs=True, progress=False, measure=toy)
    assert (second.ran, len(second.rows)) == (3, 8)
    calls = {p.parent.name: len(p.read_text().split()) for p in (out / "runs").glob("*/calls")}
    assert calls == {c.id: 2 if c.id in missing else 1 for c in plan(spec)}
    assert {r["cell"] for r in ResultsTable(out / "results.csv").rows} == {c.id for c in plan(spec)}
    report = (out / "report.md").read_text()
    assert "8 planned, 8 in results.csv (8 ok)" in report and (out / "sweep.png").is_file()
    assert "| 0.5 | 1 | 1 | 0 | 100 % | 0.05 |" in report


def test_resume_drops_a_partial_last_row_with_a_warning_and_runs_its_cell_again(client, tmp_path, capsys):
    spec = SweepSpec("pedal-wave", (parse_grid("gait.amplitude=0.5,0.6,0.7"),))
    out = tmp_path / "s"
    sweep(spec, out, scheduler=client.scheduler.address, progress=False, measure=toy)
    whole = (out / "results.csv").read_bytes()
    (out / "results.csv").write_bytes(whole[:-6])  # the last row's write cut short
    lost = whole.splitlines()[-1].split(b",")[0].decode()
    again = sweep(spec, out, scheduler=client.scheduler.address, resume=True, progress=False, measure=toy)
    assert "results.csv line 4 was a partial row (a write cut short): dropped" in capsys.readouterr().err
    assert again.ran == 1 and {r["cell"] for r in again.rows} == {c.id for c in plan(spec)}
    rows = ResultsTable(out / "results.csv").rows
    assert len(rows) == 3 and rows[-1]["cell"] == lost and rows[-1]["status"] == "ok"


def test_ctrl_c_cancels_the_rest_and_keeps_the_rows_passed_on(client):
    seen = []

    def stop_after_two(row):
        seen.append(row)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        engine.run(toy_cells([1, 5, 6, 7, 8, 9]), client, toy, on_row=stop_after_two)
    assert len(seen) == 2 and all(r["status"] == "ok" for r in seen)


def test_report_on_an_obstacle_world_is_time_to_climb_and_the_success_rate_over_seeds(tmp_path):
    spec = SweepSpec("tsc-obstacle", (parse_grid("controller.stiffness=4,12"),), seeds=2)
    k = "controller.stiffness"
    rows = [{"cell": "a", k: 12, "seed": 0, "status": "ok", "climbed": True, "time_to_climb_s": 30.0},
            {"cell": "b", k: 12, "seed": 1, "status": "ok", "climbed": False},
            {"cell": "c", k: 4, "seed": 0, "status": "ok", "climbed": True, "time_to_climb_s": 20.0},
            {"cell": "d", k: 4, "seed": 1, "status": "error", "message": "x | y"}]
    written = write_report(tmp_path, spec, rows, 5, default_field(rows))
    assert [p.name for p in written] == ["report.md", "sweep.png"]
    report = (tmp_path / "report.md").read_text()
    assert "5 planned, 4 in results.csv (1 error, 3 ok); 1 missing: run again with --resume." in report
    assert "it climbed" in report and "Field: `time_to_climb_s`" in report
    table = [line for line in report.splitlines() if line.startswith("| 4 |") or line.startswith("| 12 |")]
    assert table == ["| 4 | 2 | 1 | 50 % | 20 | 20 | 20 |", "| 12 | 2 | 0 | 50 % | 30 | 30 | 30 |"]
    assert "| d | 1 | error | x / y |" in report


def test_a_sweep_where_nothing_climbed_reports_the_speed_and_says_why(tmp_path):
    spec = SweepSpec("tsc-obstacle", (parse_grid("controller.stiffness=4,12"),))
    k = "controller.stiffness"
    rows = [{"cell": "a", k: 4, "status": "ok", "climbed": False, "average_speed_mps": 0.002},
            {"cell": "b", k: 12, "status": "ok", "climbed": False, "average_speed_mps": 0.003}]
    assert default_field(rows) == "average_speed_mps"  # time_to_climb_s would leave the figure empty
    write_report(tmp_path, spec, rows, 2, default_field(rows))
    report = (tmp_path / "report.md").read_text()
    assert "No run climbed" in report and "| 12 | 1 | 0 | 0 % | 0.003 |" in report


def test_batched_rows_equal_the_rows_of_the_runs_alone_and_a_bad_cell_is_its_own_row(client):
    cells = plan(SweepSpec("tsc-obstacle", (parse_grid("controller.torque_gain=0,6"),), seeds=2,
                           sets=("sim.duration=0.4",)))
    huge = "1" + "0" * 300 + ".0"  # beyond the magnitude any number of a scenario may have (core.scenario)
    cells += [Cell("tsc-obstacle", ("sim.duration=0.4", "controller.stiffness=-1")),  # fails to build
              Cell("tsc-obstacle", ("sim.duration=0.4", f"robot.sea_stiffness={huge}")),  # refused at load
              Cell("tsc-obstacle", ("sim.duration=0.4", "controller.damping=7")),
              Cell("pedal-wave", ("sim.duration=0.4",)),  # another batch key
              Cell("head-tracking-pfl", ("sim.duration=0.4",))]  # a model without batches
    assert [len(t) for t in engine.batches(cells, 3)] == [3, 3, 1, 1, 1]  # the bad cells share a batch with a good one
    rows = engine.run(cells, client, batch=3)
    assert sorted(r["cell"] for r in rows) == sorted(c.id for c in cells)
    workers = {r["cell"]: r["worker"] for r in rows}
    assert len({workers[c.id] for c in cells[:3]}) == 1  # one task
    statuses = {r["cell"]: r["status"] for r in rows}
    assert [statuses[c.id] for c in cells[4:7]] == ["error", "error", "ok"]
    for row in rows:
        alone = engine.run_cell(next(c for c in cells if c.id == row["cell"]))
        assert {k: v for k, v in row.items() if k not in NOT_RESULTS} == \
            {k: v for k, v in alone.items() if k not in NOT_RESULTS}
        assert row["status"] == "error" or row["wall_time_s"] > 0


def test_batch_must_be_a_whole_number_of_runs_and_the_default_measure(tmp_path, capsys):
    assert main(["sweep", "tsc-obstacle", "--grid", "controller.stiffness=12,14", "--batch", "0",
                 "--out", str(tmp_path / "s")]) == 2
    assert "--batch = 0 is invalid: must be a whole number of runs >= 1" in capsys.readouterr().err
    with pytest.raises(ConfigError, match=r"--batch = 4 .*the default measure only"):
        engine.check_batch(4, toy)


def test_a_report_a_full_disk_stops_is_one_error_and_resume_writes_it(client, tmp_path, monkeypatch):
    import errno

    from snake_studies.sweep import report

    spec = SweepSpec("pedal-wave", (parse_grid("gait.amplitude=0.5,0.6"),))
    out = tmp_path / "s"

    def full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report, "write_text", full)
    with pytest.raises(ConfigError, match=r"cannot write the report \(No space left on device\); the 2 rows of "
                                          r"results.csv are whole: .* with --resume to write it"):
        sweep(spec, out, scheduler=client.scheduler.address, progress=False, measure=toy)
    assert not (out / "report.md").exists() and len(ResultsTable(out / "results.csv").rows) == 2
    assert not [p for p in out.iterdir() if ".partial-" in p.name]
    monkeypatch.undo()
    again = sweep(spec, out, scheduler=client.scheduler.address, resume=True, progress=False, measure=toy)
    assert again.ran == 0 and "2 planned, 2 in results.csv" in (out / "report.md").read_text()


def test_sigterm_stops_a_sweep_like_ctrl_c_with_its_rows_and_report(client, tmp_path, monkeypatch):
    import signal

    append = ResultsTable.append

    def append_then_sigterm(self, row):
        append(self, row)
        signal.raise_signal(signal.SIGTERM)  # the signal arrives while the other runs go on

    monkeypatch.setattr(ResultsTable, "append", append_then_sigterm)
    spec = SweepSpec("pedal-wave", (parse_grid("gait.amplitude=0.5,0.6,0.7,0.8,0.9,1.0"),))
    outcome = sweep(spec, tmp_path / "s", scheduler=client.scheduler.address, progress=False, measure=toy)
    assert (outcome.stop.name, outcome.stop.exit_code) == ("SIGTERM", 143)
    assert 1 <= len(outcome.rows) < 6 and (tmp_path / "s" / "report.md").is_file()
    assert "missing: run again with --resume" in (tmp_path / "s" / "report.md").read_text()


@pytest.mark.parametrize(("changed", "difference"), [
    ({"grid": (parse_grid("gait.amplitude=0.5,0.7"),)},
     '--grid {"gait.amplitude": ["0.5", "0.6"]} there, {"gait.amplitude": ["0.5", "0.7"]} here'),
    ({"scenario": "tsc-obstacle"}, 'SCENARIO "pedal-wave" there, "tsc-obstacle" here'),
    ({"sets": ("contact.friction=0.5",)}, '--set [] there, ["contact.friction=0.5"] here'),
])
def test_resume_of_another_sweep_is_refused_naming_the_difference(client, tmp_path, changed, difference):
    import dataclasses

    spec = SweepSpec("pedal-wave", (parse_grid("gait.amplitude=0.5,0.6"),))
    out = tmp_path / "s"
    sweep(spec, out, scheduler=client.scheduler.address, progress=False, measure=toy)
    before = (out / "results.csv").read_bytes()
    with pytest.raises(ConfigError, match="holds another sweep") as info:
        sweep(dataclasses.replace(spec, **changed), out, scheduler=client.scheduler.address, resume=True,
              progress=False, measure=toy)
    assert difference in str(info.value)
    assert (out / "results.csv").read_bytes() == before
