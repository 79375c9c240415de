"""Scenarios by composition: a scenario names a ``base:`` and states only what differs, laid over the base as a JSON
Merge Patch (RFC 7386); a cycle of bases and an unknown base are one ConfigError naming ``base``; ``snake-sim list``
shows a composed scenario's base and the keys it changes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from snake_core.locator import ENV_VAR
from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core.scenario import DEMO_SCENARIO, load_scenario, merge_patch


def test_merge_patch_merges_mappings_removes_nulls_and_replaces_the_rest():
    base = {"contact": {"friction": 0.6, "stiffness": 550.0}, "sim": {"time_step": 0.001}, "gait": [1, 2]}
    patch = {"contact": {"stiffness": None, "solref": [0.02, 1.0]}, "sim": {"time_step": 0.002}, "gait": [3]}
    assert merge_patch(base, patch) == {"contact": {"friction": 0.6, "solref": [0.02, 1.0]},
                                        "sim": {"time_step": 0.002}, "gait": [3]}
    assert base["contact"] == {"friction": 0.6, "stiffness": 550.0}  # the base is not changed


def test_a_3d_twin_is_its_2d_base_with_the_mujoco_contact_and_step():
    twin, base = load_scenario("tsc-flat-3d"), load_scenario("tsc-flat")
    assert twin.name == "tsc-flat-3d" and twin.model == "mujoco" and base.model == "vertical"
    for section in ("robot", "world", "gait", "controller", "outputs"):
        assert twin.data[section] == base.data[section], section
    assert twin.section("contact")["friction"] == base.section("contact")["friction"]
    assert "stiffness" not in twin.section("contact") and "solref" in twin.section("contact")
    assert twin.time_step == 0.002 and base.time_step == 0.005
    assert twin.data["sim"]["perturbation"]["roll_deg"] == 2.0


def test_every_3d_twin_is_its_2d_scenario_with_mujocos_default_contact_the_step_and_the_perturbation():
    """The MuJoCo block, stated once (config/scenarios/parts/mujoco-3d.yaml), gives every 3-D twin what each file
    stated before: MuJoCo's contact defaults (the code's, as snake_sim.engines.mujoco.settings documents them), no
    ground spring, h = 2 ms (1 ms where the twin says so) and a 2° roll with 1° joint noise; nothing else."""
    from snake_core import locator
    from snake_sim.engines.mujoco import settings

    d = settings.Settings()
    assert "solref: [0.02, 1.0]" in settings.__doc__ and "solimp: [0.9, 0.95, 0.001, 0.5, 2.0]" in settings.__doc__
    assert (d.solref, d.solimp, d.cone, d.solver) == ((0.02, 1.0), (0.9, 0.95, 0.001, 0.5, 2.0), "elliptic", "Newton")
    block = {"model": "mujoco",
             "contact": {"solref": list(d.solref), "solimp": list(d.solimp), "cone": d.cone, "solver": d.solver,
                         "stiffness": None, "damping": None},
             "sim": {"perturbation": {"roll_deg": 2.0, "lateral_offset": 0.0, "joint_noise_deg": 1.0, "seed": 0}}}
    folder = locator.data_dir() / "config" / "scenarios"
    twins = sorted(p.stem for p in folder.glob("*-3d.yaml"))
    assert len(twins) == 21
    for name in twins:
        own = yaml.safe_load((folder / f"{name}.yaml").read_text())
        assert own["base"][1:] == ["parts/mujoco-3d"] and "contact" not in own, name  # the block is not repeated
        twin, flat = load_scenario(name), load_scenario(own["base"][0])
        step = {"time_step": own.get("sim", {}).get("time_step", d.time_step)}
        patch = {**block, "sim": {**block["sim"], **step}, "name": name, "description": own["description"]}
        if "robot" in own:  # open-loop-flat-3d: pedal-wave on the robot as built
            patch["robot"] = own["robot"]
        expected = merge_patch(flat.data, patch)
        assert twin.data == expected, name
        assert settings.settings_from(twin.time_step, twin.section("contact")) == \
            settings.Settings(time_step=step["time_step"], friction=flat.section("contact")["friction"]), name


@pytest.fixture
def scenarios(tmp_path, monkeypatch):
    """A data folder of its own (the robots of the shipped one) whose scenarios the test writes."""
    from snake_core.locator import description_dir

    shipped = description_dir()
    (tmp_path / "config" / "robots").mkdir(parents=True)
    for robot in (shipped / "config" / "robots").glob("*.yaml"):
        (tmp_path / "config" / "robots" / robot.name).write_text(robot.read_text())
    (tmp_path / "config" / "scenarios").mkdir()
    (tmp_path / "worlds").symlink_to(shipped / "worlds")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))

    def write(name: str, data: dict) -> None:
        (tmp_path / "config" / "scenarios" / f"{name}.yaml").write_text(yaml.safe_dump(data))

    return write


def test_bases_of_bases_resolve_in_turn(scenarios):
    scenarios("a", {"robot": {"name": "koopaee6"}, "sim": {"duration": 5.0, "time_step": 0.001}})
    scenarios("b", {"base": "a", "sim": {"duration": 2.0}})
    scenarios("c", {"base": "b", "world": {"file": "stairs"}})
    c = load_scenario("c")
    assert (c.name, c.duration, c.time_step, c.world_file) == ("c", 2.0, 0.001, "stairs")


def test_a_cycle_of_bases_is_one_error_naming_the_chain(scenarios):
    scenarios("a", {"base": "b", "robot": {"name": "koopaee6"}, "sim": {"duration": 1.0}})
    scenarios("b", {"base": "a"})
    with pytest.raises(ConfigError, match="cycle of bases: a -> b -> a") as exc:
        load_scenario("a")
    assert exc.value.field == "base"


def test_an_unknown_base_is_one_error_pointing_at_the_list(scenarios):
    scenarios("a", {"base": "nowhere", "robot": {"name": "koopaee6"}})
    with pytest.raises(ConfigError, match="must name a shipped scenario") as exc:
        load_scenario("a")
    assert exc.value.field == "base" and exc.value.value == "nowhere"


def test_list_shows_a_composed_scenarios_base_and_changes(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    twin = lines[[line.split()[0] if line.strip() else "" for line in lines].index("tsc-stairs-3d") + 1]
    assert "base tsc-stairs + parts/mujoco-3d;" in twin and "model" in twin and "sim.time_step" in twin
    assert "contact.solref" in twin  # the part's keys count among the changes
    assert not any(line.split()[0].startswith("parts") for line in lines if line.strip())  # a part is no scenario


def test_the_demo_is_a_named_scenario_that_make_demo_runs_by_name():
    demo, base = load_scenario(DEMO_SCENARIO), load_scenario("tsc-stairs-3d")
    assert demo.data["controller"] == {**base.data["controller"], "torque_gain": 6}
    assert demo.duration == 35 and demo.model == base.model == "mujoco"
    assert {k: v for k, v in demo.data.items() if k not in ("controller", "sim", "name", "description")} == \
        {k: v for k, v in base.data.items() if k not in ("controller", "sim", "name", "description")}
    if shutil.which("make") is None:
        pytest.skip("no make")
    root = Path(__file__).resolve().parents[3]
    commands = subprocess.run(["make", "-n", "-C", str(root), "demo", "DEMO_OUT=out/x"], capture_output=True,
                              text=True, check=True).stdout.splitlines()
    assert f".venv/bin/snake-sim run {DEMO_SCENARIO} --out out/x" in commands


@pytest.mark.parametrize(("name", "suggested"), [("pedal-wav", "did you mean pedal-wave?"),
                                                 ("tsc-stair-3d", "did you mean tsc-stairs-3d or")])
def test_an_unknown_scenario_name_is_one_short_line_with_the_closest_names(capsys, tmp_path, name, suggested):
    assert main(["run", name, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and suggested in err[0] and "`snake-sim list` shows the" in err[0], err
    assert len(err[0]) < 300  # not every name on one line
    assert main(["run", "zzz", "--out", str(tmp_path / "out")]) == 2
    assert "did you mean" not in capsys.readouterr().err
