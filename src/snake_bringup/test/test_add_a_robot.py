"""docs/robot.md "Adding a robot", followed step by step: a four-module robot made from a copy of koopaee6's robot
file (the keys that change together: name, links.count, can.module_ids) and of its two controllers files (one entry
per motor joint), in a data folder of its own (SNAKE_SUITE_DATA), runs in the vertical-plane model (2-D) and in
MuJoCo through ``snake-sim run``, and xacro makes its description, which Pinocchio reads."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from snake_core import locator
from snake_core.robot import load_robot
from snake_sim.commands.cli import main
from snake_sim.engines.dart.gz_control import load_gz_control

#: The new robot: four links, so three SEA joints.
NAME, LINKS = "snake4", 4
MOTOR = re.compile(r"(?:.*/)?motor_(\d+)$")


def _first_joints(value, n: int):
    """``value`` (a controllers file) with only motor_1 … motor_n in every list of joints and mapping by joint."""
    if isinstance(value, dict):
        return {k: _first_joints(v, n) for k, v in value.items()
                if not (MOTOR.match(str(k)) and int(MOTOR.match(str(k)).group(1)) > n)}
    if isinstance(value, list):
        return [_first_joints(v, n) for v in value
                if not (isinstance(v, str) and MOTOR.match(v) and int(MOTOR.match(v).group(1)) > n)]
    return value


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """A data folder with the suite's files and the new robot beside them, as the page says to add it."""
    shipped, description = locator.data_dir(), locator.description_dir()
    folder = tmp_path_factory.mktemp("data")
    shutil.copytree(shipped / "config", folder / "config")
    shutil.copytree(description / "urdf", folder / "urdf")  # the xacro reads the robot file at ../config/robots/
    (folder / "worlds").symlink_to(description / "worlds")
    robot = yaml.safe_load((description / "config/robots/koopaee6.yaml").read_text())
    robot.update(name=NAME, description="four-module test robot")
    robot["links"]["count"] = LINKS
    robot["can"]["module_ids"] = list(range(1, LINKS))
    (folder / f"config/robots/{NAME}.yaml").write_text(yaml.safe_dump(robot, allow_unicode=True))
    for suffix in ("", "_gz"):
        controllers = yaml.safe_load((shipped / f"config/controllers/koopaee6{suffix}.yaml").read_text())
        (folder / f"config/controllers/{NAME}{suffix}.yaml").write_text(
            yaml.safe_dump(_first_joints(controllers, LINKS - 1)))
    return folder


@pytest.fixture
def with_robot(data, monkeypatch) -> Path:
    monkeypatch.setenv(locator.ENV_VAR, str(data))
    return data


@pytest.mark.parametrize("scenario", ["pedal-wave", "open-loop-flat-3d"])  # vertical model (2-D), MuJoCo
def test_the_new_robot_runs_in_the_simulator(with_robot, tmp_path, capsys, scenario):
    out = tmp_path / "run"
    assert main(["run", scenario, "--set", f"robot.name={NAME}", "--duration", "0.5", "--no-animation", "--quiet",
                 "--out", str(out)]) == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "ok" and summary["robot"] == NAME
    assert [t["joint"] for t in summary["torque_Nm"]] == [1, 2, 3]


def test_xacro_describes_the_new_robot_and_its_controllers_files_fit_it(with_robot, make_urdf):
    import pinocchio as pin

    robot = load_robot(NAME)
    root = ET.fromstring(make_urdf(NAME, hardware="gazebo"))
    model = pin.buildModelFromXML(ET.tostring(root, encoding="unicode"), pin.JointModelFreeFlyer())
    assert model.njoints == 2 + 2 * robot.n_joints  # universe, free flyer, motor_j and spring_j per joint
    motors = [f"motor_{j}" for j in range(1, robot.n_joints + 1)]
    in_control = [j.get("name") for j in root.iter("joint") if j.get("name", "").startswith("motor_")
                  and j.find("command_interface") is not None]
    assert in_control == motors
    gazebo = load_gz_control(robot)  # the Gazebo controllers file, checked against the robot (one PID per motor)
    assert gazebo.path.name == f"{NAME}_gz.yaml" and gazebo.dofs == tuple(motors)
    controllers = yaml.safe_load((with_robot / f"config/controllers/{NAME}.yaml").read_text())
    assert controllers["motor_position_controller"]["ros__parameters"]["joints"] == motors
