"""The install resolves: the real rosdep (PyPI) against the Jazzy rosdep database, for Ubuntu 24.04 (Noble), runs
the install steps of docs/robot.md and the rosdep line of each Dockerfile (``--simulate``: it prints the apt and
pip commands a Jazzy user would run). Every key of every package.xml resolves, and every package a Dockerfile
installs is one rosdep resolves or one of the stated extras.

The database is the offline snapshot of ros/rosdistro kept next to the repository (``shared/ros/rosdistro``
beside the clone; its README gives the set-up used here); without it the tests are skipped with one reason.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
ROSDISTRO = REPO.parent / "shared" / "ros" / "rosdistro"
ROSDEP = Path(sys.executable).parent / "rosdep"
TARGET = ["--os=ubuntu:noble", "--simulate", "--reinstall"]  # every resolved package, installed here or not
#: What a Dockerfile installs that no package.xml names, and why.
EXTRAS = {
    "python3-rosdep": "rosdep itself, which installs everything else",
    "python3-pip": "the installer of rosdep's pip keys",
}


@pytest.fixture(scope="module")
def rosdep_env(tmp_path_factory):
    if not (ROSDISTRO / "index-v4.yaml").is_file():
        pytest.skip("no offline Jazzy rosdep database beside the repository")
    home = tmp_path_factory.mktemp("rosdep")
    sources = home / "sources.list.d"
    sources.mkdir()
    (sources / "20-default.list").write_text("".join(f"yaml file://{ROSDISTRO}/rosdep/{name}.yaml\n"
                                                     for name in ("base", "python")))
    env = {"PATH": f"{ROSDEP.parent}:/usr/bin:/bin", "HOME": str(home), "ROSDEP_SOURCE_PATH": str(sources),
           "ROSDISTRO_INDEX_URL": f"file://{ROSDISTRO}/index-v4.yaml", "ROS_HOME": str(home / "ros")}
    update = subprocess.run([str(ROSDEP), *_docs_command("rosdep update")[1:]], env=env, capture_output=True,
                            text=True, cwd=REPO, timeout=300)
    assert update.returncode == 0, update.stderr
    return env


def _docs_command(start: str) -> list[str]:
    """The one command of docs/robot.md's install steps that starts with ``start`` (environment settings before
    it dropped)."""
    blocks = re.findall(r"```bash\n(.*?)```", (REPO / "docs" / "robot.md").read_text(), flags=re.S)
    lines = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    found = [re.sub(r"^(\w+=\S+\s+)+", "", line) for line in lines if start in line]
    assert len(found) == 1, f"docs/robot.md should give `{start} …` once, gives {found}"
    return shlex.split(found[0])


def _dockerfile_rosdep(dockerfile: str) -> list[str]:
    text = (REPO / "docker" / dockerfile).read_text().replace("\\\n", " ")
    (command,) = re.findall(r"(rosdep install [^&]*)", text)
    return shlex.split(command.replace("${ROS_DISTRO}", "jazzy"))


def _dockerfile_installs(dockerfile: str) -> tuple[set[str], set[str]]:
    """(apt, pip) packages the Dockerfile names itself (apt-get install, pip install)."""
    text = (REPO / "docker" / dockerfile).read_text().replace("\\\n", " ")
    apt, pip = set(), set()
    for command in re.findall(r"apt-get install ([^&]*)", text):
        apt |= {w for w in shlex.split(command) if not w.startswith("-")}
    for command in re.findall(r"pip3? install ([^&]*)", text):
        pip |= {re.split(r"[=<>]", w)[0] for w in shlex.split(command) if not w.startswith("-")}
    return apt, pip


def _resolve(command: list[str], env: dict[str, str]) -> tuple[set[str], set[str]]:
    """Run ``rosdep install …`` for Noble in simulation; (apt, pip) packages it would install."""
    run = subprocess.run([str(ROSDEP), *command[1:], *TARGET], env=env, capture_output=True, text=True,
                         cwd=REPO, timeout=300)
    assert run.returncode == 0, f"{shlex.join(command)}: {run.stderr.strip()}"
    apt = set(re.findall(r"apt-get install -y (\S+)", run.stdout))
    pip = set(re.findall(r"pip3? install -U (?:-I )?(\S+)", run.stdout))
    return apt, pip


def test_the_documented_install_resolves_every_key_for_jazzy_on_noble(rosdep_env):
    command = _docs_command("rosdep install")
    assert command[:5] == ["rosdep", "install", "--from-paths", "src", "--ignore-src"]
    apt, pip = _resolve(command, rosdep_env)
    # the ros2_control packages the robot description and launch files name, as Jazzy releases them
    assert {"ros-jazzy-controller-manager", "ros-jazzy-joint-state-topic-hardware-interface",
            "ros-jazzy-joint-state-broadcaster", "ros-jazzy-forward-command-controller",
            "ros-jazzy-pid-controller", "ros-jazzy-gz-ros2-control", "ros-jazzy-mujoco-ros2-control"} <= apt
    assert {"cantools", "rosbags", "mujoco"} <= pip  # python3-mujoco-pip: the MJCF of simulator:=mujoco


@pytest.mark.parametrize("dockerfile", ["Dockerfile.robot", "Dockerfile.sim"])
def test_every_package_a_dockerfile_installs_is_one_rosdep_resolves(rosdep_env, dockerfile):
    apt, pip = _resolve(_dockerfile_rosdep(dockerfile), rosdep_env)
    own_apt, own_pip = _dockerfile_installs(dockerfile)
    assert own_apt - apt <= set(EXTRAS), f"{dockerfile} installs {sorted(own_apt - apt - set(EXTRAS))} itself"
    assert own_pip <= pip, f"{dockerfile} pip-installs {sorted(own_pip - pip)}, which rosdep does not resolve"
    if dockerfile == "Dockerfile.robot":  # no GUI or simulator on the robot computer
        assert "ros-jazzy-joint-state-topic-hardware-interface" in apt and "ros-jazzy-rviz2" not in apt


def test_the_packages_docs_name_per_simulator_are_ones_the_documented_install_resolves(rosdep_env):
    """docs/ros.md's table of what a Jazzy user installs per simulator names only packages that rosdep installs
    from the package.xml keys (mujoco_vendor comes with mujoco_ros2_control), and pins the MuJoCo of the wheel."""
    text = (REPO / "docs" / "ros.md").read_text()
    table = text[text.index("**What a Jazzy user installs, per simulator.**"):]
    table = table[:table.index("\n\n", table.index("| `simulator` |"))]
    named = set(re.findall(r"`((?:ros-jazzy|python3)-[a-z0-9-]+)`", table)) - {
        "ros-jazzy-mujoco-vendor", "ros-jazzy-ros-base", "python3-mujoco-pip"}
    apt, pip = _resolve(_docs_command("rosdep install"), rosdep_env)
    assert named and named <= apt, f"docs/ros.md names {sorted(named - apt)}, which rosdep does not install"
    rows = [row.split("|")[1:4] for row in table.splitlines() if row.startswith("| `") and "`simulator`" not in row]
    named_pip = {m for _, _, cell in rows for m in re.findall(r"^`(\w+)(?:==[\d.]+)?`", cell.strip())}
    assert {"rosbags", "mujoco"} <= named_pip <= pip


def test_the_sim_image_pins_the_mujoco_of_the_requirements():
    """One MuJoCo: the Python mujoco that writes simulator:=mujoco's MJCF in the image is requirements.txt's."""
    (pinned,) = re.findall(r"^mujoco==(\S+)", (REPO / "requirements.txt").read_text(), flags=re.M)
    image = re.findall(r"pip3? install .*?mujoco==(\S+)", (REPO / "docker" / "Dockerfile.sim").read_text())
    assert image == [pinned]
