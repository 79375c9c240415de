"""snake_core.locator: each source of the data folder, their order, and the error listing where it looked."""

from __future__ import annotations

import filecmp
import json
import sys
from pathlib import Path

import pytest

from snake_core import locator


def data_folder(folder: Path) -> Path:
    """A minimal data folder: config/robots/<one>.yaml and worlds/."""
    (folder / "config" / "robots").mkdir(parents=True)
    (folder / "config" / "robots" / "probe.yaml").write_text("name: probe\n")
    (folder / "worlds").mkdir()
    return folder


def fake_distribution(site: Path, name: str, record: list[str] = (), direct_url: dict | None = None) -> None:
    """A dist-info folder in ``site`` as pip writes it: METADATA, RECORD and, if given, direct_url.json."""
    info = site / f"{name}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "RECORD").write_text("".join(f"{line},,\n" for line in record))
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))


@pytest.fixture
def bare(monkeypatch, tmp_path):
    """No variable, no ament prefix, and only distributions that give no data folder on the path (the
    test's own installs are taken off it)."""
    monkeypatch.delenv(locator.ENV_VAR, raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    site = tmp_path / "site"
    fake_distribution(site, "snake_bringup")
    fake_distribution(site, "snake_core")
    monkeypatch.setattr(sys, "path", [str(site)])
    return tmp_path


def test_the_data_found_here_is_this_checkouts():
    """Whichever source serves (the editable workspace under make test, the colcon install's share under
    colcon test), it holds the files of the checkout these tests run from."""
    checkout = Path(__file__).resolve().parents[3]
    for name in ("config/robots/koopaee6.yaml", "worlds/stairs.sdf", "urdf/snake.urdf.xacro"):
        assert filecmp.cmp(locator.data_dir() / name, checkout / name, shallow=False), name
    assert "koopaee6" in locator.robot_names() and "pedal-wave" in locator.scenario_names()
    assert locator.world_file("stairs") == locator.data_dir() / "worlds" / "stairs.sdf"
    workspace = locator.editable_workspace()
    assert workspace is None or workspace == checkout


def test_environment_variable_names_the_folder_before_any_other_source(monkeypatch, tmp_path):
    folder = data_folder(tmp_path / "data")
    monkeypatch.setenv(locator.ENV_VAR, str(folder))
    assert locator.data_dir() == folder
    assert locator.robot_names() == ["probe"]
    assert locator.robot_file("probe") == folder / "config" / "robots" / "probe.yaml"


def test_a_wrong_environment_variable_is_an_error_not_passed_over(monkeypatch, tmp_path):
    monkeypatch.setenv(locator.ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(locator.DataNotFound, match=r"\$SNAKE_SUITE_DATA: .*nowhere holds no config/robots/"):
        locator.data_dir()


def test_ament_prefix_with_snake_bringup_in_its_resource_index(bare, monkeypatch):
    prefix = bare / "install"
    data_folder(prefix / "share" / "snake_bringup")
    index = prefix / "share" / "ament_index" / "resource_index" / "packages"
    index.mkdir(parents=True)
    (index / "snake_bringup").write_text("")
    monkeypatch.setenv("AMENT_PREFIX_PATH", f"{bare / 'other'}:{prefix}")
    assert locator.data_dir() == prefix / "share" / "snake_bringup"


def test_share_listed_by_the_installed_distribution(bare, monkeypatch):
    """pip's data_files of a wheel install: share/snake_bringup beside the site folder, in RECORD."""
    site = bare / "wheel" / "lib" / "site-packages"
    share = data_folder(bare / "wheel" / "share" / "snake_bringup")
    (share / "package.xml").write_text("<package/>")
    fake_distribution(site, "snake_bringup", ["../../share/snake_bringup/package.xml"])
    sys.path.insert(0, str(site))
    assert locator.data_dir() == share.resolve()


def test_editable_install_names_the_workspace_and_an_unlisted_share_copy_cannot_shadow_it(bare, monkeypatch):
    """An editable snake_bringup lists no share files: a stale share/snake_bringup beside it is ignored; and a
    non-editable snake_core first on the path does not hide the editable one."""
    workspace = data_folder(bare / "ws")
    site = bare / "venv" / "lib" / "site-packages"
    stale = data_folder(bare / "venv" / "share" / "snake_bringup")  # left over by an earlier install
    (stale / "package.xml").write_text("<package/>")
    fake_distribution(site, "snake_bringup", direct_url={"url": (workspace / "src/snake_bringup").as_uri(),
                                                         "dir_info": {"editable": True}})
    fake_distribution(site, "snake_core", direct_url={"url": (workspace / "src/snake_core").as_uri(),
                                                      "dir_info": {"editable": True}})
    colcon = bare / "build" / "site-packages"  # a colcon build's snake_core copy, first on the path (colcon test)
    fake_distribution(colcon, "snake_core")
    sys.path[:0] = [str(colcon), str(site)]
    assert locator.data_dir() == workspace


def test_a_non_editable_direct_url_names_no_workspace(bare, monkeypatch):
    site = bare / "site2"
    fake_distribution(site, "snake_core", direct_url={"url": (data_folder(bare / "ws") / "src/snake_core").as_uri(),
                                                      "dir_info": {}})
    sys.path.insert(0, str(site))
    assert locator.editable_workspace() is None


def test_nothing_found_lists_every_place_looked_at(bare):
    with pytest.raises(locator.DataNotFound) as info:
        locator.data_dir()
    message = str(info.value)
    for source in ("AMENT_PREFIX_PATH", "installed snake_bringup distribution", "editable snake_core install",
                   locator.ENV_VAR):
        assert source in message


def test_a_path_is_taken_as_it_is(tmp_path):
    path = tmp_path / "mine.sdf"
    assert locator.world_file(path) == path
    assert locator.robot_file("some/where.yaml") == Path("some/where.yaml")
