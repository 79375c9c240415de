from setuptools import find_packages, setup

package_name = "snake_hardware"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    package_data={package_name: ["data/*.dbc"]},
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("lib/" + package_name, ["scripts/can_bridge"]),
    ],
    install_requires=["setuptools", "snake_core", "snake_control", "numpy", "scipy", "python-can>=4.1"],
    zip_safe=False,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="CAN interface of the modular SEA snake: protocol (DBC), python-can driver, rclpy bridge, "
                "module emulator and the snake-can tools",
    license="Apache-2.0",
    extras_require={"test": ["pytest", "cantools"]},
    entry_points={
        "console_scripts": [
            "snake-can = snake_hardware.cli:main",
        ],
    },
)
