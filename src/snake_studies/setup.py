from setuptools import find_packages, setup

package_name = "snake_studies"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools", "snake_core", "snake_sim", "numpy", "scipy", "PyYAML", "matplotlib", "tqdm",
                      "dask", "distributed", "optuna"],
    zip_safe=True,
    maintainer="Snake SEA suite maintainers",
    maintainer_email="maintainers@snake-sea.dev",
    description="Studies over the embedded simulator: sweeps, searches, calibration and the reproduction sections",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={
        # snake-sim's sub-commands of the studies (snake_sim.commands.cli reads the group; snake_sim never imports
        # this package)
        "snake_sim.commands": [
            "sweep = snake_studies.commands.sweep",
            "optimise = snake_studies.commands.optimise",
            "calibrate = snake_studies.commands.calibrate",
            "reproduce = snake_studies.commands.reproduce",
            "rectilinear = snake_studies.commands.rectilinear",
            "pushing = snake_studies.commands.pushing",
        ],
        # benchmarks that time the studies (snake_sim.commands.bench reads the group; `make bench` runs them all)
        "snake_sim.benchmarks": [
            "sweep = snake_studies.benchmarks.sweep",
            "batch = snake_studies.benchmarks.batch",
        ],
    },
)
