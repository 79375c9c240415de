"""snake_bringup: the launch files and the workspace's launch/ and config/ (scenarios, controllers, SEA modes, node
parameters, RViz; config/robots/ is snake_description's) as package data and in share/snake_bringup.

The package folder links the two folders (snake_bringup/launch -> ../../../launch, snake_bringup/config ->
../../../config), so the same relative names serve the package data (importlib.resources, snake_core.locator) and
the share (ament's index, ``ros2 launch snake_bringup``). Data files are listed relative to this folder, as colcon
requires (it runs setup.py here, or in its build folder with links).
"""

from glob import glob

from setuptools import setup

package_name = "snake_bringup"
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
