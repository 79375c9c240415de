from setuptools import find_packages, setup

package_name = "snake_sim_ros"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools", "snake_core", "snake_sim", "snake_control", "snake_hardware", "numpy"],
    zip_safe=True,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="The embedded simulator of the modular SEA snake in the ROS graph",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={
        "console_scripts": [
            "simulator = snake_sim_ros.simulator:main",
        ],
        "snake_hardware.bodies": [  # snake-can emulate --body WORLD (snake_hardware.emulator.BODY_GROUP)
            "vertical = snake_sim_ros.body_plant:BodyPlant",
        ],
    },
)
