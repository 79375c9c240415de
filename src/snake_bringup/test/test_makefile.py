"""The Makefile's promises to a new user: `make bench` needs no C++ build (the MuJoCo graph's figure only where
mujoco_ros2_control exists), `make demo` ends naming `make ros` (what the ROS nodes need) and runs the scenario
`demo` by name, and the one-time C++ build of the control stack writes its output to a log file and prints one line
per package (run here with a stand-in for the build recipe that prints what colcon prints)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def _dry_run(target: str) -> list[str]:
    return subprocess.run(["make", "-n", "-C", str(REPO), target], capture_output=True, text=True,
                          check=True).stdout.splitlines()


def test_bench_runs_every_benchmark_without_building_the_cpp_stacks():
    commands = "\n".join(_dry_run("bench"))
    for bench in ("snake-sim bench", "snake-can bench", "snake-control-bench", "mujoco_bench.py"):
        assert bench in commands
    assert "flock" not in commands and "colcon build --base-paths src \\\n\t\t--packages-up-to" not in commands
    assert "building" not in commands  # neither ros-stack's nor ros-mujoco's recipe


def _marks_real_time(path: Path) -> bool:
    """Whether the module's code (not its strings) uses the marker: ``pytest.mark.real_time`` anywhere in its syntax
    tree (a decorator, ``pytestmark``)."""
    return any(isinstance(node, ast.Attribute) and node.attr == "real_time" and ast.unparse(node.value) == "pytest.mark"
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def test_every_real_time_test_is_in_the_folder_the_real_time_run_collects():
    """`make test` runs the tests marked real_time alone, collecting only REAL_TIME_TESTS: one elsewhere would run in
    neither run."""
    (folder,) = [line.split(":=")[1].strip() for line in (REPO / "Makefile").read_text().splitlines()
                 if line.startswith("REAL_TIME_TESTS :=")]
    marked = {p.relative_to(REPO) for p in (REPO / "src").glob("*/test/test_*.py") if _marks_real_time(p)}
    assert marked and all(p.parent == Path(folder) for p in marked), marked
    assert any("-m real_time" in line and "$(REAL_TIME_TESTS)" in line
               for line in (REPO / "Makefile").read_text().splitlines())


def test_demo_ends_naming_make_ros_for_the_ros_nodes():
    lines = _dry_run("demo")
    assert any("make ros " in line and "ROS nodes" in line for line in lines)


#: A stand-in for build-stack.sh: colcon's console output for three packages, with compiler noise between.
FAKE_RECIPE = """#!/usr/bin/env bash
if [ "$1" = env ]; then echo 'pip() { echo "pip $*"; }'; exit 0; fi
if [ "$*" = fixup ]; then echo "fixup"; exit 0; fi
for extra in composition_interfaces diagnostic_aggregator; do  # the Makefile's ROS_STACK_EXTRA: built already
  mkdir -p "$WS/install/share/$extra" && touch "$WS/install/share/$extra/package.xml"
done
mkdir -p "$WS/venv"
for p in alpha beta gamma; do
  echo "Starting >>> $p"
  for i in $(seq 40); do echo "src/$p.cpp:$i: warning: unused variable 'x$i'"; done
  echo "Finished <<< $p [1.5s]"
done
if [ -n "${FAIL_BUILD:-}" ]; then
  echo "Starting >>> delta"; echo "delta.cpp:1: error: boom"; echo "Failed <<< delta"; exit 1
fi
"""


@pytest.mark.parametrize("fails", [False, True])
def test_the_stack_build_logs_to_a_file_and_prints_one_line_per_package(tmp_path, fails):
    source = tmp_path / "bundle" / "src"
    source.mkdir(parents=True)
    (tmp_path / "bundle" / "build-stack.sh").write_text(FAKE_RECIPE)
    (tmp_path / "payload" / "src" / "pkg").mkdir(parents=True)
    with tarfile.open(source / "pkg.tar.xz", "w:xz") as tar:
        tar.add(tmp_path / "payload" / "src", arcname="src")
    work = tmp_path / "clone"
    (work / "venv").mkdir(parents=True)
    shutil.copy(REPO / "requirements-ros.txt", work)
    env = {k: v for k, v in os.environ.items() if k not in ("AMENT_PREFIX_PATH", "ROS_DISTRO", "MAKEFLAGS")}
    env.update({"FAIL_BUILD": "1"} if fails else {})
    done = subprocess.run(["make", "-s", "-C", str(work), "-f", str(REPO / "Makefile"), "ros-stack", "VENV=venv",
                           f"PY={REPO / '.venv/bin/python'}", f"ROS_STACK_SRC={source}",
                           f"ROS_STACK_CACHE={tmp_path / 'cache'}"], capture_output=True, text=True, env=env,
                          timeout=300)
    printed = done.stdout.splitlines()
    log = next((tmp_path / "cache").glob("*/build.log"))
    assert f"log: {log}" in printed[0]
    assert [line for line in printed if "<<<" in line][:3] == [f"  Finished <<< {p} [1.5s]" for p in
                                                                ("alpha", "beta", "gamma")]
    assert "warning" not in done.stdout.split("last lines")[0]  # the compiler's noise is in the log only
    assert log.read_text().count("warning: unused variable") == 120
    if fails:
        assert done.returncode != 0 and "  Failed <<< delta" in printed
        assert f"the build failed: the last lines of {log}:" in printed and "delta.cpp:1: error: boom" in printed
    else:
        assert done.returncode == 0, done.stdout + done.stderr
        assert len(printed) == 5 and printed[-1].startswith("ROS 2 Jazzy control stack:")
        assert (work / "venv" / ".ros-stack-env").read_text().strip().endswith("env.sh")
