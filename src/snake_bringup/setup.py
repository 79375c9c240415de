"""Installs the workspace's launch/, urdf/, worlds/ and config/ into share/snake_bringup, and the module
that turns snake_control's graph into launch_ros Nodes.

The workspace is ``../..`` from this package folder (``<workspace>/src/snake_bringup``). The sources are real
files, listed relative to this package folder ("../../launch/sim.launch.py"), as colcon requires: it runs
setup.py in this folder, or with --symlink-install in its build folder, where it links each data file's
relative path to the source first (so the folder is this file's, links resolved, not the working directory).
"""

import os
from pathlib import Path

from setuptools import setup

package_name = "snake_bringup"
HERE = Path(__file__).resolve().parent
#: The workspace, relative to this package folder.
WORKSPACE = os.path.join("..", "..")
#: Workspace folders installed under share/snake_bringup/, file by file (hidden files and caches skipped).
SHARED = ("launch", "urdf", "worlds", "config")


def tree(folder: str) -> list[tuple[str, list[str]]]:
    """data_files entries that install WORKSPACE/``folder`` recursively under share/<package>/``folder``."""
    entries = []
    for root, dirs, files in os.walk(HERE / WORKSPACE / folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        found = sorted(os.path.relpath(os.path.join(root, f), HERE) for f in files
                       if not f.startswith(".") and not f.endswith(".pyc"))
        if found:
            entries.append((os.path.join("share", package_name, os.path.relpath(root, HERE / WORKSPACE)), found))
    return entries


setup(
    name=package_name,
    version="0.1.0",
    packages=[package_name],
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        *(entry for folder in SHARED for entry in tree(folder)),
    ],
    install_requires=["setuptools", "snake_control", "snake_core"],
    zip_safe=True,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="Launch files, robot description and worlds of the modular SEA snake",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
)
