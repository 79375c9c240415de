"""Installs the workspace's launch/, urdf/, worlds/ and config/ (symlinked here) into share/snake_bringup."""

import os

from setuptools import setup

package_name = "snake_bringup"


def tree(folder: str) -> list[tuple[str, list[str]]]:
    """data_files entries that install ``folder`` recursively under share/<package>/."""
    entries = []
    for root, _dirs, files in os.walk(folder, followlinks=True):
        found = [os.path.join(root, f) for f in files if not f.startswith(".")]
        if found:
            entries.append((os.path.join("share", package_name, root), found))
    return entries


setup(
    name=package_name,
    version="0.1.0",
    packages=[],
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        *tree("launch"),
        *tree("urdf"),
        *tree("worlds"),
        *tree("config"),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="Launch files, robot description and worlds of the modular SEA snake",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
)
