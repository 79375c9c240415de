from setuptools import find_packages, setup

package_name = "snake_control"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools", "snake_core", "numpy"],
    zip_safe=True,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="rclpy nodes of the modular SEA snake (thin wrappers over snake_core)",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={
        "console_scripts": [
            "gait_generator = snake_control.gait_generator:main",
            "sea_joint_controller = snake_control.sea_joint_controller:main",
            "head_tracking_controller = snake_control.head_tracking_controller:main",
            "manipulability_monitor = snake_control.manipulability_monitor:main",
            "motor_command_mux = snake_control.motor_command_mux:main",
            "head_odometry = snake_control.head_odometry:main",
            "snake-control-bench = snake_control.rate_bench:main",
        ],
    },
)
