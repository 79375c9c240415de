"""snake_description: the workspace's config/robots/, urdf/ and worlds/ as package data and in
share/snake_description.

The package folder links the three folders (snake_description/config/robots -> ../../../../config/robots, …), so
the same relative names serve the package data (importlib.resources) and the share (ament's index). Data files are
listed relative to this folder, as colcon requires (it runs setup.py here, or in its build folder with links).
"""

from glob import glob

from setuptools import setup

package_name = "snake_description"
#: The description's folders (the workspace's, linked from the package folder) and the files of each.
DATA = {"config/robots": "*.yaml", "urdf": "*.xacro", "urdf/meshes": "*.stl", "worlds": "*.sdf"}

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
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="Robot files, robot description (xacro, meshes) and worlds of the modular SEA snake",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
)
