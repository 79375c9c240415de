"""snake_core.locator: the data of snake_description and snake_bringup as package data, SNAKE_SUITE_DATA before
it, and one error saying where it looked."""

from __future__ import annotations

import filecmp
import importlib
import os
import sys
from pathlib import Path

import pytest

from snake_core import locator

CHECKOUT = Path(__file__).resolve().parents[3]


def data_folder(folder: Path) -> Path:
    """A minimal data folder: config/robots/<one>.yaml and worlds/."""
    (folder / "config" / "robots").mkdir(parents=True)
    (folder / "config" / "robots" / "probe.yaml").write_text("name: probe\n")
    (folder / "worlds").mkdir()
    return folder


def test_the_data_found_here_is_this_checkouts():
    """Whichever install serves (the editable one under make test, the colcon install under colcon test), its
    package data holds the files of the checkout these tests run from."""
    for name in ("config/robots/koopaee6.yaml", "worlds/stairs.sdf", "urdf/snake.urdf.xacro",
                 "urdf/meshes/octagonal_module.stl"):
        assert filecmp.cmp(locator.description_dir() / name, CHECKOUT / name, shallow=False), name
    for name in ("config/scenarios/pedal-wave.yaml", "config/controllers/koopaee6.yaml", "launch/sim.launch.py"):
        assert filecmp.cmp(locator.data_dir() / name, CHECKOUT / name, shallow=False), name
    assert "koopaee6" in locator.robot_names() and "pedal-wave" in locator.scenario_names()
    assert locator.world_file("stairs") == locator.description_dir() / "worlds" / "stairs.sdf"
    assert locator.scenario_file("pedal-wave") == locator.data_dir() / "config" / "scenarios" / "pedal-wave.yaml"


def test_each_package_gives_its_own_data_and_the_description_none_of_bringups():
    description, bringup = locator.description_dir(), locator.data_dir()
    assert description == Path(str(importlib.import_module("snake_description").__file__)).parent
    assert bringup == Path(str(importlib.import_module("snake_bringup").__file__)).parent
    assert not (description / "config" / "scenarios").exists() and not (description / "launch").exists()


def test_the_editable_packages_link_the_workspace_folders():
    """The package folders of the source tree hold links (not copies, not text files) to the workspace's folders,
    made by their setup.py at install: what an editable install reads, and what a build copies."""
    links = {"snake_description/snake_description/config/robots": "config/robots",
             "snake_description/snake_description/urdf": "urdf", "snake_description/snake_description/worlds": "worlds",
             "snake_bringup/snake_bringup/config": "config", "snake_bringup/snake_bringup/launch": "launch"}
    for link, target in links.items():
        path = CHECKOUT / "src" / link
        assert path.is_symlink() and not os.path.isabs(os.readlink(path)), link
        assert path.resolve() == (CHECKOUT / target).resolve(), link


def test_environment_variable_names_the_folder_of_both(monkeypatch, tmp_path):
    folder = data_folder(tmp_path / "data")
    monkeypatch.setenv(locator.ENV_VAR, str(folder))
    assert locator.description_dir() == locator.data_dir() == folder
    assert locator.robot_names() == ["probe"]
    assert locator.robot_file("probe") == folder / "config" / "robots" / "probe.yaml"


def test_a_wrong_environment_variable_is_an_error_not_passed_over(monkeypatch, tmp_path):
    monkeypatch.setenv(locator.ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(locator.DataNotFound, match=r"\$SNAKE_SUITE_DATA: .*nowhere holds no config/robots/ and no "
                                                   r"worlds/"):
        locator.description_dir()


def test_a_package_not_installed_is_one_error_naming_it_and_the_remedies(monkeypatch):
    monkeypatch.delenv(locator.ENV_VAR, raising=False)
    monkeypatch.setitem(sys.modules, locator.DESCRIPTION_PACKAGE, None)  # import refused: not installed
    with pytest.raises(locator.DataNotFound, match=r"snake_description is not installed; set SNAKE_SUITE_DATA"):
        locator.description_dir()
