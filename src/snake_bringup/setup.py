"""snake_bringup: the launch files and the workspace's launch/ and config/ (scenarios, controllers, SEA modes, node
parameters, RViz; config/robots/ is snake_description's) as package data and in share/snake_bringup.

The package folder links the two folders (snake_bringup/launch -> ../../../launch, snake_bringup/config ->
../../../config), so the same relative names serve the package data (importlib.resources, snake_core.locator) and
the share (ament's index, ``ros2 launch snake_bringup``). Data files are listed relative to this folder, as colcon
requires (it runs setup.py here, or in its build folder with links). The links are not in the repository (a
checkout or an archive may turn a link into a file holding its path): this file makes them whenever it runs
(``make install``, colcon, pip).
"""

import os
from glob import glob
from pathlib import Path

from setuptools import setup

package_name = "snake_bringup"
#: The package folder's links to the workspace's folders (link → target, relative to the link's folder).
LINKS = {"launch": "../../../launch", "config": "../../../config"}


def link_workspace_folders() -> None:
    """Make :data:`LINKS` beside this file's package, replacing a file that stands in for a link (a folder of copies,
    as in an unpacked source archive, is left as it is)."""
    package = Path(__file__).resolve().parent / package_name
    for name, target in LINKS.items():
        link = package / name
        if link.is_symlink() and os.readlink(link) == target:
            continue
        if link.is_symlink() or link.is_file():
            link.unlink()
        elif link.exists():
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target, target_is_directory=True)


link_workspace_folders()

#: The workspace's folders installed with the package (linked from the package folder) and the files of each.
DATA = {"launch": "*.launch.py", "config": "*.yaml", "config/controllers": "*.yaml", "config/rviz": "*.rviz",
        "config/scenarios": "*.yaml", "config/scenarios/parts": "*.yaml", "config/sea_modes": "*.yaml"}

setup(
    name=package_name,
    version="0.1.0",
    packages=[package_name],
    package_data={package_name: [f"{folder}/{pattern}" for folder, pattern in DATA.items()]},
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        *((f"share/{package_name}/{folder}", sorted(glob(f"{package_name}/{folder}/{pattern}")))
          for folder, pattern in DATA.items()),
    ],
    install_requires=["setuptools", "snake_control", "snake_core", "snake_description"],
    zip_safe=False,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="Launch files and configuration of the modular SEA snake",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
)
