"""`colcon build` installs the workspace's launch/, urdf/, worlds/ and config/ into snake_bringup's share
directory as real files (what `ros2 launch snake_bringup <file>` and ament_index look up), built here
into a temporary folder the way the Makefile builds (`colcon build --base-paths src`)."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

WORKSPACE = Path(__file__).resolve().parents[3]
SHARED = ("launch", "urdf", "worlds", "config")


def source_files() -> set[str]:
    """Workspace-relative files of the shared folders, without hidden files and Python caches."""
    found = set()
    for folder in SHARED:
        for root, dirs, files in os.walk(WORKSPACE / folder):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
            found |= {str((Path(root) / f).relative_to(WORKSPACE)) for f in files
                      if not f.startswith(".") and not f.endswith(".pyc")}
    return found


@pytest.fixture(scope="module")
def share(tmp_path_factory: pytest.TempPathFactory) -> Path:
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
    return out / "install" / "snake_bringup" / "share" / "snake_bringup"


def test_share_holds_every_launch_urdf_world_and_config_file_as_a_copy(share):
    expected = source_files()
    assert {"launch/sim.launch.py", "urdf/snake.urdf.xacro", "worlds/stairs.sdf",
            "config/snake_control.yaml", "config/robots/koopaee6.yaml"} <= expected
    installed = {str(p.relative_to(share)) for folder in SHARED for p in (share / folder).rglob("*")
                 if not p.is_dir()}
    assert installed == expected
    for name in sorted(expected):
        path = share / name
        assert not path.is_symlink(), f"{name} is installed as a link"
        assert filecmp.cmp(path, WORKSPACE / name, shallow=False), f"{name} differs from the source"


def test_package_folder_holds_no_links_into_the_workspace():
    """The share tree is built from the workspace's folders, not from links committed in the package
    (they were committed as text files once, and nothing was installed)."""
    package = WORKSPACE / "src" / "snake_bringup"
    assert not [f for f in SHARED if os.path.lexists(package / f)]
