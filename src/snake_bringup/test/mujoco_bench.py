"""``python src/snake_bringup/test/mujoco_bench.py`` (``make bench``): what ``sim.launch.py simulator:=mujoco`` costs.

The whole graph (mujoco_ros2_control's ros2_control_node with the controllers of koopaee6_gz.yaml at 1 kHz, the
spawner, our gait_generator and SEA controller, the robot_description publisher) on the pedal wave on flat ground,
on the stack of ``make ros-mujoco``; the real-time factor is the sim time /clock advanced over :data:`WINDOW` wall
seconds once the gait runs, with MuJoCo asked for real time and for :data:`SLOW` (the test's setting), against the
suite's own MuJoCo runtime (lock-step, no middleware) on the same model and step in the same run. Asking for more
than real time gains nothing at a 1 ms step: upstream's physics loop sleeps 1 ms between its catch-up bursts and,
once behind, steps once per sleep. Prints one line and exits 0 where no mujoco_ros2_control is available.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

# the test beside this file (the script's folder is first on sys.path): its robot and its MuJoCo speed, and the harness
from test_mujoco_ros2_control import (
    MUJOCO_POINTER,
    MUJOCO_SKIP_REASON,
    REPO,
    ROBOT,
    JazzyStack,
    Recorder,
    controllers_file,
    launch_mujoco_graph,
    spawned_controllers,
    stack_environment,
    wait_until,
)
from test_mujoco_ros2_control import SPEED as SLOW

from snake_sim.benchmarks import BenchRow, print_rows
from snake_sim.benchmarks.engines import real_time_factor

WINDOW = 10.0  # wall seconds measured
DOMAIN = 201  # a ROS domain of its own (the tests use theirs, from SNAKE_TEST_DOMAIN_BASE)
TITLE = f"Real-time factor of sim.launch.py simulator:=mujoco ({ROBOT}, pedal wave, flat, {WINDOW:g} s wall)"


def graph_rtf(env: dict[str, str], workdir: Path, speed: float) -> float:
    """Sim seconds per wall second of the graph with ``mujoco_speed:=speed``, once every controller is active and
    the gait runs."""
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState

    stack = JazzyStack(env, workdir, DOMAIN)
    recorder = Recorder(DOMAIN, {"/clock": Clock, "/gait/reference": JointState})
    try:
        launch_mujoco_graph(stack, recorder, ROBOT, speed, spawned_controllers(REPO / controllers_file(ROBOT, True)))

        def sim_now() -> float:
            stamp = recorder.get("/clock")[-1].clock
            return stamp.sec + 1e-9 * stamp.nanosec

        wait_until(lambda: recorder.get("/clock"), "the graph's /clock")
        wall0, sim0 = time.monotonic(), sim_now()
        time.sleep(WINDOW)
        return (sim_now() - sim0) / (time.monotonic() - wall0)
    finally:
        stack.stop_all()
        recorder.close()


def run() -> list[BenchRow]:
    env = stack_environment(MUJOCO_POINTER)
    if env is None:
        print(f"  skipped: {MUJOCO_SKIP_REASON}; `make bench` then adds this figure")
        return []
    with tempfile.TemporaryDirectory(prefix="snake_mujoco_bench_") as tmp:
        real = graph_rtf(env, Path(tmp), 1.0)
        slow = graph_rtf(env, Path(tmp), SLOW)
    suite, h, _ = real_time_factor("pedal-wave", (f"robot.name={ROBOT}", "model=mujoco", "sim.time_step=0.001"))
    return [BenchRow("real-time factor, asked for 1x", real, "x", "mujoco_speed:=1"),
            BenchRow(f"real-time factor, asked for {SLOW:g}x", slow, "x", f"mujoco_speed:={SLOW:g}"),
            BenchRow("suite's MuJoCo runtime, same model", suite, "x", f"h = {h * 1e3:g} ms, lock-step, no ROS"),
            BenchRow("graph asked for 1x / suite runtime", real / suite, "x", "ratio, same run")]


def main() -> int:
    print_rows(TITLE, run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
