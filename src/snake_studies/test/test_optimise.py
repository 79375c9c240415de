"""snake-sim optimise (snake_studies.optimise, issue 19): bad input is one error before any trial, and a study of a
cheap analytic objective, its trials as Dask tasks on a LocalCluster of 2 worker processes, converges, resumes
from its journal and writes a best.yaml that is the best trial's scenario."""

import math
import sys

import cloudpickle
import matplotlib
import pytest

from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core.scenario import load_scenario
from snake_studies.optimise import Constraint, Problem, optimise, parse_constraint
from snake_studies.sweep import engine, parse_range
from snake_studies.sweep.table import ResultsTable

#: One Dask LocalCluster at a time (one worker process per core): the cluster tests run one after the other on one
#: pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("dask_cluster")
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import a test module

#: The analytic objective's maximum.
PEAK = {"gait.amplitude": 0.7, "gait.phase_shift": -1.2}


def bowl(cell, out):
    """−(distance to PEAK)²; no value (null) left of amplitude 0.35, a failed run below 0.32."""
    x = dict(cell.values)
    a = x.get("gait.amplitude", 0.5)
    if a < 0.32:
        raise RuntimeError("no gait")
    value = -sum((x.get(k, v) - v) ** 2 for k, v in PEAK.items())
    return {"status": "ok", "average_speed_mps": None if a < 0.35 else value, "climbed": a > 0.4, "robot": "k"}


def problem(**kw):
    space = (parse_range("gait.amplitude=0.3:1.0", "--space"), parse_range("gait.phase_shift=-2.5:-0.5", "--space"))
    return Problem("pedal-wave", kw.pop("space", space), kw.pop("objective", "average_speed_mps"), **kw)


@pytest.mark.parametrize(("argv", "message"), [
    (["--space", "gait.amplitud=0.3:1"], "gait.amplitud = 0.3 is invalid: unknown field"),
    (["--space", "gait.amplitude=0.5:0.3"], "non-empty range: LO < HI"),
    (["--space", "gait.amplitude=0.5:0.5"], "non-empty range: LO < HI"),
    (["--space", "gait.amplitude=0.3:1.2"], "gait.amplitude = 1.2 is invalid"),  # beyond the joint limit
    (["--space", "gait.frequency=0:1:log"], "a log range needs LO > 0"),
    (["--space", "gait.amplitude=0.3:0.5", "--objective", "speed"], "--objective = 'speed' is invalid: not a field"),
    (["--space", "gait.amplitude=0.3:0.5", "--objective", "robot"],
     f"is text ({load_scenario('pedal-wave').robot_name!r}), not a number"),
    (["--space", "gait.amplitude=0.3:0.5", "--constraint", "climbed>1"], "must be FIELD>=V or FIELD<=V"),
    (["--space", "gait.amplitude=0.3:0.5", "--constraint", "climbed>=1", "--sampler", "cmaes"], "needs --sampler tpe"),
    (["--space", "gait.amplitude=0.3:0.5", "--sampler", "grid"], "--sampler = 'grid' is invalid"),
    (["--space", "gait.amplitude=0.3:0.5", "--scheduler", "tcp://127.0.0.1:9"], "no Dask scheduler answered"),
    (["--space", "gait.amplitude=0.3:0.5", "--storage", "foo://bar", "--workers", "1"], "cannot open the study"),
])
def test_bad_input_is_one_error_before_any_trial(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", 1.0)  # a scheduler that does not answer: judged in 1 s
    out = tmp_path / "o"
    args = ["optimise", "pedal-wave", "--trials", "3", "--out", str(out), *argv]
    if "--objective" not in argv:
        args += ["--objective", "average_speed_mps"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not out.exists()


def test_constraints_are_violations_in_optunas_sign():
    at_least = parse_constraint("climbed>=1")
    assert at_least == Constraint("climbed", 1.0, True)
    assert at_least.violation({"climbed": True}) == 0.0 and at_least.violation({"climbed": False}) == 1.0
    assert at_least.violation({}) == math.inf
    assert parse_constraint("time_to_climb_s<=30").violation({"time_to_climb_s": 40.0}) == 10.0


def test_a_study_of_an_analytic_objective_converges_resumes_and_writes_its_best(tmp_path):
    out = tmp_path / "o"
    prob = problem(maximise=True, constraints=(parse_constraint("climbed>=1"),))
    style = matplotlib.rcParams["axes.facecolor"]
    first = optimise(prob, out, 40, workers=2, progress=False, measure=bowl, seed=0)
    assert matplotlib.rcParams["axes.facecolor"] == style  # Optuna's plots leave the process's style alone
    assert (first.trials, first.ran) == (40, 40) and not first.interrupted
    best = first.best
    assert best.value > -0.01  # within 0.1 of the peak in the 0.7 × 2 box
    assert best.params["gait.amplitude"] > 0.4  # feasible
    rows = (out / "trials.csv").read_text().splitlines()
    assert len(rows) == 41
    for name in ("best.yaml", "history.png", "importance.png", "study.log"):
        assert (out / name).is_file(), name
    scenario = load_scenario(out / "best.yaml")
    assert scenario.name == "pedal-wave-best" and scenario.model == "vertical"
    assert {k: scenario.data["gait"][k.split(".")[1]] for k in PEAK} == best.params
    again = optimise(prob, out, 45, workers=2, progress=False, measure=bowl, seed=0)
    assert (again.trials, again.ran) == (45, 5)
    assert again.best.value >= best.value
    with pytest.raises(ConfigError, match="holds a study of another problem"):
        optimise(problem(), out, 45, workers=2, progress=False, measure=bowl)


def test_failed_runs_and_missing_objectives_are_failed_trials(tmp_path):
    prob = problem(space=(parse_range("gait.amplitude=0.3:0.34", "--space"),))
    outcome = optimise(prob, tmp_path / "o", 4, sampler="cmaes", workers=2, progress=False, measure=bowl)
    assert outcome.trials == 4 and outcome.best is None
    rows = ResultsTable(tmp_path / "o" / "trials.csv").rows
    assert len(rows) == 4
    for r in rows:
        assert r["status"] == ("error" if r["gait.amplitude"] < 0.32 else "ok") and "average_speed_mps" not in r
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["study.log", "trials.csv"]
