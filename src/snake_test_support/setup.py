from setuptools import find_packages, setup

package_name = "snake_test_support"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools", "pytest", "snake_core"],
    zip_safe=True,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="Test harness of the snake SEA suite (pytest fixtures on rclpy and on ROS 2 Jazzy's control stack)",
    license="Apache-2.0",
)
