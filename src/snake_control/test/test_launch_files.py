"""The launch files and what they hand to users, read without running them: the four files exist,
the docs (docs/ros.md, docs/robot.md) document every argument each declares, the Docker compose file
passes only declared arguments, and every section of the parameter files the launch files pass names a node of
snake_control's graph (test_launch_execution.py runs them and checks the nodes on real rclpy)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from snake_control import graph

ROOT = Path(__file__).resolve().parents[3]
LAUNCH_FILES = sorted((ROOT / "launch").glob("*.launch.py"))
#: The parameter files the launch files pass to our nodes (graph.py).
PARAM_FILES = [ROOT / graph.NODE_PARAMS, *sorted((ROOT / "config/sea_modes").glob("*.yaml"))]


def declared_arguments(path: Path) -> list[str]:
    """Names of the DeclareLaunchArgument calls of a launch file."""
    tree = ast.parse(path.read_text())
    return [ast.literal_eval(n.args[0]) for n in ast.walk(tree) if isinstance(n, ast.Call)
            and getattr(n.func, "id", None) == "DeclareLaunchArgument"]


def test_the_four_launch_files_exist():
    assert [p.name for p in LAUNCH_FILES] == ["replay.launch.py", "robot.launch.py", "sim.launch.py",
                                               "view.launch.py"]


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_every_declared_argument_is_documented_in_the_docs(path):
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    sections = [m.group(1) for page in pages for m in re.finditer(
        rf"^#+ [^\n]*`{re.escape(path.name)}`[^\n]*\n(.*?)(?=^#+ |\Z)", page.read_text(), re.M | re.S)]
    assert sections, f"no page of the docs has a section for {path.name}"
    arguments = declared_arguments(path)
    assert "robot" in arguments
    for name in arguments:
        assert any(f"`{name}`" in s for s in sections), f"the docs do not document {path.name} argument `{name}`"


def test_docker_images_copy_existing_paths_and_compose_passes_declared_arguments():
    for dockerfile in ("Dockerfile.sim", "Dockerfile.robot"):
        text = (ROOT / "docker" / dockerfile).read_text()
        for src in re.findall(r"^COPY (\S+) ", text, re.M):
            assert (ROOT / src).exists(), f"{dockerfile} copies {src}, which does not exist"
    compose = yaml.safe_load((ROOT / "docker/compose.robot.yaml").read_text())
    command = compose["services"]["robot"]["command"]
    launch = command[command.index("snake_bringup") + 1]
    arguments = declared_arguments(ROOT / "launch" / launch)
    for item in command[command.index(launch) + 1:]:
        assert item.split(":=")[0] in arguments, f"compose passes {item}, not an argument of {launch}"
    assert compose["services"]["robot"]["network_mode"] == "host"  # SocketCAN lives in the host's netns


@pytest.mark.parametrize("path", PARAM_FILES, ids=lambda p: p.name)
def test_every_section_of_the_parameter_files_names_a_node_of_the_graph(path):
    """A section for a node that does not exist (a typo, a renamed node) would be ignored silently."""
    names = {s.name for s in graph.control_nodes("koopaee6", layout="per_joint", head_tracking=True,
                                                 manipulability=True)}
    names |= {graph.head_odometry_node("koopaee6", "snake").name, graph.simulator_node("koopaee6", "flat").name}
    sections = yaml.safe_load(path.read_text())
    assert sections
    for key, section in sections.items():
        assert key.split("/")[-1] in names, f"{path.name}: section {key} names no node of snake_control.graph"
        assert set(section) == {"ros__parameters"}, f"{path.name}: {key} has {sorted(section)}"


@pytest.mark.parametrize("lockstep", [True, False])
def test_a_lock_stepped_graph_tells_every_node_that_watches_the_clock(lockstep):
    """A node that watches /clock without knowing the simulator is lock-stepped takes a long wait for a stopped
    clock and holds: every such node of the graph gets the launch's ``lockstep``."""
    watching = {"gait_generator", "sea_joint_controller", "head_tracking_controller", "manipulability_monitor"}
    specs = graph.control_nodes("koopaee6", layout="per_joint", head_tracking=True, manipulability=True,
                                lockstep=lockstep)
    assert {s.executable for s in specs} >= watching
    for spec in specs:
        if spec.executable in watching:
            assert spec.parameters["lockstep"] is lockstep, spec.name
