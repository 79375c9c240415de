from setuptools import find_packages, setup

package_name = "snake_sim"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    # the libsdformat URDF → SDF converter, compiled on first use (snake_sim.engines.dart.sdf): shipped so that a
    # non-editable install finds it beside the module
    package_data={package_name: ["engines/dart/urdf2sdf.cc"]},
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools", "snake_core", "numpy", "scipy", "PyYAML", "matplotlib", "tqdm", "rosbags",
                      "mujoco", "dartpy"],
    zip_safe=True,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="ROS-free embedded simulator of the modular SEA snake",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={
        "console_scripts": ["snake-sim = snake_sim.commands.cli:main"],
        # scenario ``model:`` → its runtime module (snake_sim.core.models finds the engines here, as pluginlib
        # finds ROS plugins: the simulator's core never imports an engine)
        "snake_sim.engines": [
            "vertical = snake_sim.engines.vertical.runtime",
            "planar = snake_sim.engines.planar.runtime",
            "pushing = snake_sim.engines.pushing.runtime",
            "mujoco = snake_sim.engines.mujoco.runtime",
            "dart = snake_sim.engines.dart.runtime",
        ],
    },
)
