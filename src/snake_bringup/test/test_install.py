"""`colcon build` installs the workspace's data where ROS tools and Python find it: config/robots/, urdf/ and worlds/
in snake_description, launch/ and the rest of config/ in snake_bringup, each into the package's share directory
(what `ros2 launch snake_bringup <file>`, `$(find snake_description)` and ament_index look up) and into the
installed package (what snake_core.locator reads), as real files, built here into a temporary folder the way the
Makefile builds (`colcon build --base-paths src`)."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

WORKSPACE = Path(__file__).resolve().parents[3]
#: The workspace folders each package installs (config/robots/ is snake_description's alone).
OWNED = {"snake_description": ("config/robots", "urdf", "worlds"), "snake_bringup": ("launch", "config")}


def source_files(package: str) -> set[str]:
    """Workspace-relative files of the package's folders, without hidden files, caches and the other's."""
    found = set()
    for folder in OWNED[package]:
        for root, dirs, files in os.walk(WORKSPACE / folder):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
            found |= {str((Path(root) / f).relative_to(WORKSPACE)) for f in files
                      if not f.startswith(".") and not f.endswith(".pyc")}
    other = [f for p, folders in OWNED.items() if p != package for f in folders]
    return {f for f in found if not any(f.startswith(o + "/") for o in other if o.startswith(tuple(OWNED[package])))}


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    colcon = shutil.which("colcon", path=str(Path(sys.executable).parent)) or shutil.which("colcon")
    if colcon is None:
        pytest.skip("colcon is not installed (make installs it into .venv)")
    out = tmp_path_factory.mktemp("colcon")
    build = subprocess.run(
        [colcon, "--log-base", str(out / "log"), "build", "--base-paths", str(WORKSPACE / "src"),
         "--packages-up-to", "snake_bringup", "--build-base", str(out / "build"), "--install-base",
         str(out / "install"), "--event-handlers", "console_direct-"],
        cwd=out, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    return out / "install"


def installed_files(folder: Path, package: str) -> set[str]:
    return {str(p.relative_to(folder)) for sub in OWNED[package] for p in (folder / sub).rglob("*") if not p.is_dir()}


@pytest.mark.parametrize("package", OWNED)
def test_share_and_package_hold_every_file_of_the_packages_folders_as_a_copy(install, package):
    expected = source_files(package)
    assert expected, package
    site = next((install / package / "lib").glob(f"python3*/site-packages/{package}"))
    for folder in (install / package / "share" / package, site):
        assert installed_files(folder, package) == expected, folder
        for name in sorted(expected):
            path = folder / name
            assert not path.is_symlink(), f"{name} is installed as a link"
            assert filecmp.cmp(path, WORKSPACE / name, shallow=False), f"{name} differs from the source"


def test_each_file_is_installed_by_one_package():
    assert {"launch/sim.launch.py", "config/snake_control.yaml", "config/scenarios/parts/mujoco-3d.yaml"} <= \
        source_files("snake_bringup")
    assert {"urdf/snake.urdf.xacro", "urdf/meshes/octagonal_module.stl", "worlds/stairs.sdf",
            "config/robots/koopaee6.yaml"} <= source_files("snake_description")
    assert not source_files("snake_bringup") & source_files("snake_description")


def test_package_folder_holds_no_links_into_the_workspace():
    """The package folders (data_files' sources, beside setup.py) hold no links: the links are in the Python
    package (snake_bringup/snake_bringup/launch, …), which the locator's tests check."""
    for package, folders in OWNED.items():
        assert not [f for f in folders if os.path.lexists(WORKSPACE / "src" / package / f)], package
