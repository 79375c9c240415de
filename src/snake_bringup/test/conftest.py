"""Fixtures of the description and world tests (docs/design.md testing tier 4).

``sdf_checker`` compiles ``sdf_check.cc`` against Debian's libsdformat (pkg-config ``sdformat12``) once
per session and returns a function that loads a world or URDF with it and returns its records.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SDFORMAT_PKG = "sdformat12"


@dataclass
class SdfReport:
    """What libsdformat understood of a file (see sdf_check.cc for the record format)."""

    returncode: int
    errors: list[str] = field(default_factory=list)
    # model → [(static, (x, y, z, yaw, sx, sy, sz))]
    boxes: dict[str, list[tuple[bool, tuple[float, ...]]]] = field(default_factory=dict)
    planes: dict[str, float] = field(default_factory=dict)
    links: dict[str, tuple[float, ...]] = field(default_factory=dict)  # mass ixx iyy izz
    joints: dict[str, list[str]] = field(default_factory=dict)  # type parent child K ref damping lower upper effort
    friction: dict[str, tuple[float, ...]] = field(default_factory=dict)  # mu mu2 fdir1
    plugins: list[tuple[str, str]] = field(default_factory=list)


def _parse(out: str, returncode: int) -> SdfReport:
    rep = SdfReport(returncode)
    for line in out.splitlines():
        kind, _, rest = line.partition(" ")
        parts = rest.split()
        if kind == "error":
            rep.errors.append(rest)
        elif kind == "box":
            rep.boxes.setdefault(parts[0], []).append((parts[1] == "1", tuple(float(v) for v in parts[2:])))
        elif kind == "plane":
            rep.planes[parts[0]] = float(parts[1])
        elif kind == "link":
            rep.links[parts[0]] = tuple(float(v) for v in parts[1:])
        elif kind == "joint":
            rep.joints[parts[0]] = parts[1:]
        elif kind == "friction":
            rep.friction[parts[0]] = tuple(float(v) for v in parts[1:])
        elif kind == "plugin":
            rep.plugins.append((parts[0], parts[1]))
    return rep


@pytest.fixture(scope="session")
def sdf_checker(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], SdfReport]:
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None or shutil.which("pkg-config") is None:
        pytest.skip("no C++ compiler or pkg-config: cannot build the libsdformat checker")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", SDFORMAT_PKG], capture_output=True, text=True)
    if flags.returncode != 0:
        pytest.skip(f"libsdformat headers not found (pkg-config {SDFORMAT_PKG}: {flags.stderr.strip()}); "
                    "install libsdformat-dev")
    exe = tmp_path_factory.mktemp("sdf_check") / "sdf_check"
    build = subprocess.run([compiler, "-O0", "-o", str(exe), str(HERE / "sdf_check.cc"), *flags.stdout.split()],
                           capture_output=True, text=True)
    assert build.returncode == 0, f"building the libsdformat checker failed:\n{build.stderr}"

    def check(path: Path) -> SdfReport:
        run = subprocess.run([str(exe), str(path)], capture_output=True, text=True)
        return _parse(run.stdout, run.returncode)

    return check


@pytest.fixture(scope="session")
def make_urdf() -> Callable[..., str]:
    """``make_urdf(robot="koopaee6", **xacro_args) -> URDF text``, through the PyPI xacro package; hardware:=gazebo
    with snake_bringup's controllers file of the robot, as sim.launch.py passes it."""
    import xacro
    import yaml

    from snake_core import locator

    def run(robot: str | Path = "koopaee6", **args: str) -> str:
        mappings = {k: str(v) for k, v in args.items()}
        if isinstance(robot, Path):
            mappings["robot_file"] = str(robot.resolve())
            name = yaml.safe_load(robot.read_text())["name"]
        else:
            mappings["robot"] = name = robot
        if mappings.get("hardware") == "gazebo":
            mappings.setdefault("controllers_file",
                                str(locator.data_dir() / "config" / "controllers" / f"{name}_gz.yaml"))
        doc = xacro.process_file(str(locator.description_dir() / "urdf" / "snake.urdf.xacro"), mappings=mappings)
        return doc.toprettyxml(indent="  ")

    return run
