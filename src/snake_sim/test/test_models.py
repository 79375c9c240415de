"""The runtime interface (snake_sim.core.models): every registered model exposes it, an unknown ``model:`` is one
ConfigError naming ``model``, and the CLI's outputs follow the scenario's ``outputs:`` through it."""

import pytest

from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core.models import ModelRuntime, models, runtime_for
from snake_sim.core.scenario import load_scenario
from snake_sim.core.stepping import stepper
from snake_sim.outputs.figures import FIGURE_SETS


@pytest.mark.parametrize("model", ["vertical", "planar", "pushing", "mujoco", "dart"])
def test_every_registered_runtime_exposes_the_interface(model):
    assert models()[model].value == f"snake_sim.engines.{model}.runtime"  # registered by snake_sim's setup.py
    runtime = runtime_for(model)
    members = [name for name in vars(ModelRuntime) if not name.startswith("_")]
    assert {"build", "simulate", "run_scenario", "summary_extra"} <= set(members)
    missing = [name for name in members if not callable(getattr(runtime, name, None))]
    assert not missing, f"{model} lacks {missing}"
    assert runtime.FIGURES in FIGURE_SETS, f"{model}.FIGURES = {runtime.FIGURES!r} is no figure set"


def test_unknown_model_is_one_config_error_naming_model(capsys):
    with pytest.raises(ConfigError) as exc:
        runtime_for("rigid3d")
    assert exc.value.field == "model" and "vertical" in exc.value.allowed
    with pytest.raises(ConfigError) as exc:
        load_scenario("pedal-wave", ["model=rigid3d"])
    assert exc.value.field == "model"
    assert main(["run", "pedal-wave", "--set", "model=rigid3d", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "model = 'rigid3d' is invalid" in err[0]


def test_a_model_without_a_stepper_is_refused_naming_those_with_one():
    with pytest.raises(ConfigError, match=r"model = 'pushing' is invalid: .*\(planar and vertical have\)"):
        stepper(load_scenario("pushing"))


def test_plots_off_keeps_the_animation(tmp_path):
    out = tmp_path / "run"
    assert main(["run", "pedal-wave", "--duration", "0.5", "--set", "outputs.plots=false", "--out", str(out),
                 "--quiet"]) == 0
    assert (out / "animation.gif").is_file() and (out / "summary.json").is_file()
    assert not (out / "joints.png").exists() and not (out / "com.png").exists()
