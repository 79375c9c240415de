"""Every reproduction section has one shape, plan → measure → assemble → render: the driver measures a plan's
Cells on the sweep engine and its Tasks here, the render reads nothing but the stored results (and the shipped
files), and the numbers of the text follow the results."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from snake_studies.reproduction import SECTIONS
from snake_studies.reproduction.document import report, section
from snake_studies.reproduction.experiment import Task, measure_plan, reproduce
from snake_studies.reproduction.experiments import pedal_wave as pw
from snake_studies.reproduction.reports import pedal_wave as pw_report
from snake_studies.reproduction.results import earlier, load, pi_text, results_path

DOCS = Path(__file__).resolve().parents[3] / "docs"


@pytest.mark.parametrize("name", SECTIONS)
def test_every_section_has_the_shape_and_a_plan_of_runs(name):
    module = section(name)
    reads = getattr(module, "READS", {})
    assert all(SECTIONS.index(read) < SECTIONS.index(name) for read in reads)  # it reads sections run before it
    extra = (earlier(reads, DOCS),) if reads else ()
    if name == "claims":  # it runs nothing: it reads the other sections' stored results
        assert module.plan(True, *extra) == {} and callable(module.assemble) and callable(report(name).render)
        return
    assert all(callable(getattr(module, f)) for f in ("plan", "measure", "assemble")) and callable(report(name).render)
    if name != "climb_3d":  # its plan loads every 3-D case's scenario: the MuJoCo tests cover it
        runs = module.plan(True, *extra)
        assert runs and all(isinstance(k, str) for k in runs)


#: What runs a section: a report takes none of it (nor the driver, nor the sweep engine).
RUNNERS = {"plan", "measure", "assemble"}
RUNNING_MODULES = {"snake_studies.reproduction.experiment", "snake_studies.grid", "snake_studies.sweep.engine"}


@pytest.mark.parametrize("name", SECTIONS)
def test_the_experiment_imports_no_report_and_the_report_nothing_that_runs(name):
    """The halves stand apart: the experiment never imports a report; the report takes from the experiments what they
    store or set (Results, their dataclasses, settings), never plan, measure, assemble, the driver or the sweep
    engine."""
    experiment = ast.parse(Path(section(name).__file__).read_text(encoding="utf-8"))
    assert not [n.module for n in ast.walk(experiment) if isinstance(n, ast.ImportFrom)
                and n.module.startswith("snake_studies.reproduction.reports")]
    tree = ast.parse(Path(report(name).__file__).read_text(encoding="utf-8"))
    froms = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not {n.module for n in froms} & RUNNING_MODULES
    experiments = "snake_studies.reproduction.experiments"
    taken = {a.name for n in froms if n.module.startswith(experiments + ".") for a in n.names}
    modules = {a.asname or a.name for n in froms if n.module == experiments for a in n.names}
    used = {n.attr for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in modules}
    assert not (taken | used) & RUNNERS

#: What describes how a run was made or reads a file: a report takes none of it (its results carry the settings).
CONFIGURATION = {"load_scenario", "load_robot", "controller_values"}
CONFIGURATION_MODULES = ("snake_description", "snake_core.locator")
FILE_READERS = {"open", "read_text", "read_bytes", "safe_load", "load", "loads", "fromfile", "loadtxt", "files"}


@pytest.mark.parametrize("name", SECTIONS)
def test_a_report_imports_no_configuration_and_reads_no_file(name):
    """A report renders how the runs were made from its results' settings alone: it imports no scenario or robot
    loader, no package data (the locator) and calls nothing that reads a file; what it imports are texts' helpers,
    the stored results' types and the sources' own numbers."""
    tree = ast.parse(Path(report(name).__file__).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not imported & CONFIGURATION, f"reports/{name}.py imports {sorted(imported & CONFIGURATION)}"
    assert not [m for m in modules if m.startswith(CONFIGURATION_MODULES) or "locator" in m]
    calls = {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
             for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert not calls & FILE_READERS, f"reports/{name}.py calls {sorted(calls & FILE_READERS)}"


@pytest.mark.parametrize("name", SECTIONS)
def test_a_report_renders_with_every_file_and_loader_closed(name, monkeypatch):
    """Rendering the stored results opens no file and loads no scenario or robot, not even through a function of
    another module it calls."""
    results = load(section(name).Results, results_path(DOCS, name))

    def closed(*args, **kwargs):
        raise AssertionError(f"the report of {name} read {args[:1]}")

    for target in ("builtins.open", "io.open", "pathlib.Path.open", "snake_sim.core.scenario.load_scenario",
                   "snake_core.robot.load_robot"):
        monkeypatch.setattr(target, closed)
    assert report(name).render(results)


#: Sections that store the files' values the text states as a typed ``setting`` besides: the function that reads them.
TYPED_SETTING = {"pedal_wave": "_setting", "stiffness": "_setting", "manipulability_head_tracking": "_lyapunov_setting"}
#: Sections whose results do not yet store their settings (``run_settings``): the calibration's, whose report names
#: only the scenario it calibrates.
WITHOUT_RUN_SETTINGS = {"calibration_002"}


@pytest.mark.parametrize("name", SECTIONS)
def test_the_committed_results_were_run_with_todays_settings(name):
    """The settings stored with a section's committed results are what its experiment stores today: a scenario,
    robot or constant changed since the run fails here, naming the section to run again."""
    if name in WITHOUT_RUN_SETTINGS:
        assert not hasattr(section(name), "run_settings"), f"{name} stores its settings now: check them here"
        return
    stored = load(section(name).Results, results_path(DOCS, name))
    rerun = f"docs/reproduction/{name}.json was run with other settings: run `snake-sim reproduce --only {name}`"
    assert stored.settings == section(name).run_settings(stored.fast), rerun
    if name in TYPED_SETTING:  # the robot, world and scenario values it stores as a typed ``setting`` too
        assert stored.setting == getattr(section(name), TYPED_SETTING[name])(), rerun


def test_the_driver_measures_tasks_here_and_assembles_the_rows_by_key():
    calls = []

    def measure(run, client):
        calls.append((run, client))
        return {"twice": 2 * run.args[0]}

    fake = SimpleNamespace(plan=lambda fast: {"a": Task("x", (1,)), "b": Task("x", (5,))}, measure=measure,
                           assemble=lambda fast, plan, rows: (fast, {k: r["twice"] for k, r in rows.items()}))
    assert reproduce(fake, fast=True) == (True, {"a": 2, "b": 10})
    assert [run.args for run, _ in calls] == [(1,), (5,)] and all(client is None for _, client in calls)
    assert measure_plan(fake, {}) == {}


def test_a_section_that_reads_others_gets_their_results_from_the_runs_folder_only(tmp_path):
    seen = []
    fake = SimpleNamespace(READS={"stiffness": section("stiffness").Results}, measure=None,
                           plan=lambda fast, earlier: seen.append(earlier) or {},
                           assemble=lambda fast, plan, rows, earlier: earlier["stiffness"])
    assert reproduce(fake, fast=True, out=tmp_path) is None and seen == [{"stiffness": None}]  # not the committed
    assert reproduce(fake, fast=True, out=DOCS) == load(section("stiffness").Results, results_path(DOCS, "stiffness"))


@pytest.mark.parametrize("name", SECTIONS)
def test_render_runs_nothing(name, monkeypatch):
    """The render reads the stored results: planning, measuring or simulating anything fails the test."""
    module = section(name)

    def forbidden(*args, **kwargs):
        raise AssertionError("the render ran something")

    for attr in ("plan", "measure", "assemble"):
        if hasattr(module, attr):  # the claims section measures nothing
            monkeypatch.setattr(module, attr, forbidden)
    monkeypatch.setattr("snake_studies.sweep.engine.measure_summary", forbidden)
    monkeypatch.setattr("snake_studies.grid.run_cells", forbidden)
    results = load(module.Results, results_path(DOCS, name))
    assert report(name).render(results) == report(name).render(results)


def _pedal_fixture(**changes) -> pw.PedalWaveResults:
    """A small hand-made result: every speed 0.5 × 002's simulated column."""
    table = tuple(tuple(0.5 * s / 100 for s in row) for row in pw.TABLE_S)
    setting = pw.Setting(robot="probe_sim", robot_3d="koopaee6", kp=60.0, kd=25.0, friction=0.6,
                         contact_stiffness=1e4, contact_damping=50.0,
                         contact_threshold=0.005, frequency=3.0, amplitude=0.5, spring_stiffness=1.74,
                         link_mass=0.15, half_length=0.06, reflected_inertia=0.01)
    base = pw.PedalWaveResults(False, 10.0, 0.001, setting, table, table, table, 0.003, -0.003, 0.003,
                               (0.01, 0.011), 2.0, (0.1,) * 5, (0.2,) * 5, 0.99, 0.9, 0.01, 0.3, {},
                               pw.run_settings(False))
    return replace(base, **changes)


def test_pedal_wave_renders_from_a_fixture_with_its_numbers_and_settings():
    text = pw_report.render(_pedal_fixture())
    assert "ω = 3 rad/s" in text and "K_p = 60" in text and "10 s per run" in text
    assert "(ratios 0.50 to 0.50)" in text
    assert "scenario `pedal-wave` on `probe_sim` (002 Table 5.1" in text  # the robot the stored runs name
    at_pi = replace(_pedal_fixture().setting, frequency=3.141592653589793)
    assert "ω = π rad/s" in pw_report.render(_pedal_fixture(setting=at_pi))


def test_pedal_wave_ratio_verdict_is_the_order_of_magnitude_and_its_numbers_follow_the_speeds():
    fixture = _pedal_fixture()
    speed = [list(row) for row in fixture.speed]
    speed[0][0] = 0.3 * pw.TABLE_S[0][0] / 100
    text = pw_report.render(replace(fixture, speed=tuple(map(tuple, speed))))
    assert "(ratios 0.30 to 0.50)" in text and "same order of magnitude as 002's simulated value" in text
    assert "**yes** (ratios" in text
    speed[0][0] = 1.01 * pw.TABLE_S[0][0] / 100 / pw.ORDER_OF_MAGNITUDE  # just inside the order of magnitude
    assert "**yes** (ratios 0.10" in pw_report.render(replace(fixture, speed=tuple(map(tuple, speed))))
    speed[0][0] = 0.99 * pw.TABLE_S[0][0] / 100 / pw.ORDER_OF_MAGNITUDE  # just outside
    assert "**NO** (ratios 0.10" in pw_report.render(replace(fixture, speed=tuple(map(tuple, speed))))


def test_table_5_2_in_3d_sits_beside_002s_columns_with_its_half_step_check():
    """Each 3-D engine's grid is compared with 002's measured speeds (E), said rising or not, and converged only
    where every speed moves by at most the step check's tolerance at h/2."""
    e = tuple(tuple(v / 100 for v in row) for row in pw.TABLE_E)
    mujoco = pw.Grid3d(0.002, e, tuple(tuple(1.01 * v for v in row) for row in e))
    dart = pw.Grid3d(0.001, tuple(tuple(0.5 * v for v in row) for row in e), tuple(tuple(0.6 * v for v in row)
                                                                                   for row in e))
    text = pw_report.render(_pedal_fixture(grids_3d={"mujoco": mujoco, "dart": dart}))
    assert "### Table 5.2 in 3-D" in text and "MuJoCo at h = 2 ms, DART at h = 1 ms" in text
    assert "`open-loop-flat-3d` (the robot as built, `koopaee6`, μ_c = 0.6" in text
    assert "the vertical column is the table above (`probe_sim`)" in text
    assert "- MuJoCo: 1.00–1.00 × 002's measured speeds (E); speed rises strictly with A for every φ: **yes**; " \
           "largest change at h/2 1.0 % (converged)." in text
    assert "- DART: 0.50–0.50 × 002's measured speeds (E)" in text and "20.0 % (**not converged**" in text
    assert "| (−2π − 0.4)/5 | 0.95 | 3.10 (3.13) | 1.55 (1.86) | 1.9 | 3.1 |" in text  # φ row 1, A = π/6
    assert "### Table 5.2 in 3-D" not in pw_report.render(_pedal_fixture())


def test_angles_are_written_as_fractions_of_pi_only_when_they_are_one():
    import math

    assert [pi_text(v) for v in (math.pi, math.pi / 3, -2 * math.pi / 5, 0.18, 2.0)] == [
        "π", "π/3", "−2π/5", "0.18", "2"]
