"""ROS 2 Jazzy's control stack for the tests on the real controller_manager (src/snake_bringup/test).

``make ros-stack`` records in ``.venv/.ros-stack-env`` which stack there is: ``sourced`` (a sourced ROS 2 Jazzy
with ros2_control), the ``env.sh`` of the stack it built from the source bundle, or nothing. :class:`JazzyStack`
starts the stack's executables (ros2_control_node, the spawner, Jazzy's launch with our launch files) and our
nodes in that environment on a ROS domain of their own, discovery on this machine only, and asks the
controller_manager through the stack's own Python (controller_manager_msgs is built there); :class:`Recorder`
keeps what the graph publishes. ``make ros-mujoco`` records mujoco_ros2_control's environment (the stack's plus
its overlay) in ``.venv/.ros-mujoco-env`` the same way.

What the stack does not build, robot_state_publisher and tf2_ros, is stood in for by two small rclpy
executables on an ament prefix of the test's own: the first publishes the ``robot_description`` parameter as
robot_state_publisher does for the controller_manager (std_msgs/String on /robot_description, depth 1,
transient local: the subscription in ros-controls/ros2_control 9ffbf97,
controller_manager/src/controller_manager.cpp lines 755-757), the second only runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from snake_control import graph
from snake_control.graph import NodeSpec

REPO = Path(__file__).resolve().parents[3]
POINTER = REPO / ".venv" / ".ros-stack-env"
SKIP_REASON = ("no ROS 2 Jazzy with ros2_control: source one, or build the stack with `make ros-stack` "
               "(source bundle ROS_STACK_SRC)")
#: ``make ros-mujoco``: the same for mujoco_ros2_control (an overlay on the stack, or a sourced Jazzy's).
MUJOCO_POINTER = REPO / ".venv" / ".ros-mujoco-env"
MUJOCO_SKIP_REASON = ("no mujoco_ros2_control: source a ROS 2 Jazzy with it (ros-jazzy-mujoco-ros2-control), or "
                      "build it on the stack with `make ros-mujoco`")
#: Waits for the stack (processes starting, services answering) [s of wall time]: a ceiling, not a measure.
STARTUP = 120.0

_LIST_CONTROLLERS = """
import json, sys, rclpy
from controller_manager_msgs.srv import ListControllers
rclpy.init()
node = rclpy.create_node("snake_test_probe")
client = node.create_client(ListControllers, "/controller_manager/list_controllers")
if not client.wait_for_service(timeout_sec=float(sys.argv[1])):
    sys.exit("no /controller_manager/list_controllers")
future = client.call_async(ListControllers.Request())
rclpy.spin_until_future_complete(node, future, timeout_sec=float(sys.argv[1]))
print(json.dumps({c.name: c.state for c in future.result().controller} if future.result() else {}))
"""

_DESCRIPTION_PUBLISHER = """#!{python}
# stand-in for robot_state_publisher: /robot_description as it publishes it (std_msgs/String, transient local)
import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile
from std_msgs.msg import String
rclpy.init()
node = rclpy.create_node("robot_state_publisher")
description = node.declare_parameter("robot_description", "").value
node.create_publisher(String, "robot_description", QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
                      ).publish(String(data=description))
try:
    rclpy.spin(node)
except Exception:
    pass
"""

_IDLE_NODE = """#!{python}
# stand-in for tf2_ros' static_transform_publisher (no tf2 in the stack): a node that runs
import rclpy
rclpy.init()
try:
    rclpy.spin(rclpy.create_node("static_transform_publisher"))
except Exception:
    pass
"""


def stack_environment(recorded: Path = POINTER) -> dict[str, str] | None:
    """The environment of the stack ``make ros-stack`` (or, with MUJOCO_POINTER, ``make ros-mujoco``) found, or
    None."""
    if not recorded.is_file() or not recorded.read_text().strip():
        return None
    pointer = recorded.read_text().strip()
    if pointer == "sourced":
        return dict(os.environ)
    if not Path(pointer).is_file():
        return None
    out = subprocess.run(["bash", "-c", f". '{pointer}' && env -0"], capture_output=True, check=True).stdout
    return dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition: Callable[[], Any], what: str, timeout: float = STARTUP, period: float = 0.1) -> Any:
    """Poll ``condition()`` until it is truthy (returned); AssertionError naming ``what`` after ``timeout`` s."""
    end = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(period)
    return value


#: SCHED_FIFO priority of the processes the robot path runs in (``start(realtime=True)``), as ``chrt -f 20`` does on
#: the robot (docs/robot.md "Real-time priority"): below the controller_manager's control thread (50) and the CAN
#: bridge's loop (realtime_priority 40). A niceness would not do: with the kernel's autogroups (on here) each session
#: shares the CPU equally whatever its processes' nice values, so a busy session delays the robot path.
REALTIME_PRIORITY = 20


def _ahead() -> None:
    """Run a process about to start at SCHED_FIFO (root or an rtprio limit; elsewhere it keeps the default)."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REALTIME_PRIORITY))
    except PermissionError:
        pass


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the process group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def _ament_package(prefix: Path, package: str, executables: dict[str, str]) -> None:
    (prefix / "share/ament_index/resource_index/packages").mkdir(parents=True, exist_ok=True)
    (prefix / "share/ament_index/resource_index/packages" / package).write_text("")
    (prefix / "share" / package).mkdir(parents=True, exist_ok=True)
    (prefix / "lib" / package).mkdir(parents=True, exist_ok=True)
    for name, text in executables.items():
        path = prefix / "lib" / package / name
        path.write_text(text.format(python=sys.executable))
        path.chmod(0o755)


class JazzyStack:
    """Processes in the stack's environment on ROS domain ``domain``; logs in ``workdir``."""

    def __init__(self, env: dict[str, str], workdir: Path, domain: int):
        self.workdir = workdir
        self.domain = domain
        standins = workdir / "standins"
        _ament_package(standins, "robot_state_publisher", {"robot_state_publisher": _DESCRIPTION_PUBLISHER})
        _ament_package(standins, "tf2_ros", {"static_transform_publisher": _IDLE_NODE})
        ours = [str(p) for p in sorted((REPO / "install").glob("snake_*")) if p.is_dir()]
        self.env = {**env, "ROS_DOMAIN_ID": str(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST",
                    "PYTHONUNBUFFERED": "1", "RCUTILS_LOGGING_BUFFERED_STREAM": "0",
                    # one OpenBLAS thread: its idle threads busy-wait, which at SCHED_FIFO (``start(realtime=True)``)
                    # starves the thread they wait for (two emulators livelocked two cores)
                    "OPENBLAS_NUM_THREADS": "1",
                    "AMENT_PREFIX_PATH": os.pathsep.join([*ours, env.get("AMENT_PREFIX_PATH", ""), str(standins)]),
                    # our Python first: scripts that start with `#!/usr/bin/env python3` (can_bridge) run there, as on
                    # a ROS install with one Python; the stack's own executables name their interpreter
                    "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])}
        self.python = shutil.which("python3", path=env.get("PATH")) or "python3"
        self.processes: list[tuple[str, subprocess.Popen]] = []

    def executable(self, package: str, name: str) -> str:
        for prefix in self.env["AMENT_PREFIX_PATH"].split(os.pathsep):
            path = Path(prefix) / "lib" / package / name
            if prefix and path.is_file():
                return str(path)
        raise FileNotFoundError(f"{package}/{name} is not in the stack")

    def start(self, name: str, argv: Sequence[str], realtime: bool = False) -> subprocess.Popen:
        """``argv`` in its own process group, output to ``<name>.log``; ``realtime``: ahead of the machine's other
        work where allowed (emulated modules and the nodes around them run against the wall clock)."""
        with (self.workdir / f"{name}.log").open("w") as log:  # the child keeps its own descriptor
            process = subprocess.Popen(list(argv), env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True, cwd=self.workdir,
                                       preexec_fn=_ahead if realtime else None)
        self.processes.append((name, process))
        return process

    def start_node(self, name: str, spec: NodeSpec, realtime: bool = False) -> subprocess.Popen:
        """One of our nodes (a spec of snake_control.graph) as robot.launch.py starts it, on the wall clock;
        ``name`` and ``realtime`` as in :meth:`start`."""
        with (self.workdir / f"{name}.log").open("w") as log:
            process = graph.start(spec, REPO, self.workdir, use_sim_time=False, env=self.env, stdout=log,
                                  stderr=subprocess.STDOUT, start_new_session=True,
                                  preexec_fn=_ahead if realtime else None)
        self.processes.append((name, process))
        return process

    def log(self, name: str) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace") if path.is_file() else ""

    def launch(self, name: str, launch_file: str, arguments: dict[str, str], realtime: bool = False
               ) -> subprocess.Popen:
        """``ros2 launch snake_bringup <launch_file> k:=v …`` as Jazzy's launch runs it: LaunchService with the
        file included from snake_bringup's share, under our Python (our packages and numpy), Jazzy's launch and
        launch_ros appended from the stack's site-packages."""
        folders = subprocess.run([self.python, "-c", "import os, launch, launch_ros, osrf_pycommon, lark; print(*{"
                                  "os.path.dirname(os.path.dirname(m.__file__)) for m in (launch, launch_ros, "
                                  "osrf_pycommon, lark)})"], env=self.env, capture_output=True, text=True,
                                 check=True).stdout.split()
        code = (f"import sys; sys.path += {folders!r}\n"
                "from launch import LaunchService\n"
                "from launch.actions import IncludeLaunchDescription\n"
                "from launch.launch_description_sources import PythonLaunchDescriptionSource\n"
                "from ament_index_python.packages import get_package_share_directory\n"
                "service = LaunchService()\n"
                "service.include_launch_description(IncludeLaunchDescription(PythonLaunchDescriptionSource(\n"
                f"    get_package_share_directory('snake_bringup') + '/launch/{launch_file}'),\n"
                f"    launch_arguments={sorted(arguments.items())!r}))\n"
                "sys.exit(service.run())\n")
        return self.start(name, [sys.executable, "-c", code], realtime)

    def controllers(self, timeout: float = 10.0) -> dict[str, str]:
        """name → state of every controller the controller_manager has loaded ({} if it does not answer, or the
        probe does not get to ask within ``timeout`` × 3 on a busy machine: the caller's wait asks again)."""
        try:
            run = subprocess.run([self.python, "-c", _LIST_CONTROLLERS, str(timeout)], env=self.env,
                                 capture_output=True, text=True, timeout=timeout * 3)
        except subprocess.TimeoutExpired:
            return {}
        try:  # the answer is the probe's last line (the middleware may log before it)
            return json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else {}
        except (IndexError, json.JSONDecodeError):
            return {}

    def stop(self, process: subprocess.Popen, timeout: float = 20.0) -> int:
        """SIGINT to the process's group (as Ctrl-C in a terminal: launch and everything it started), SIGKILL to
        what is left of the group after ``timeout``; the process's exit code."""
        _signal_group(process.pid, signal.SIGINT)
        return _ended(process, timeout)

    def stop_all(self, timeout: float = 20.0) -> None:
        """SIGINT to every process group at once, then SIGKILL to what is left of each after ``timeout``: the
        processes end side by side, not one timeout after another."""
        for _, process in self.processes:
            _signal_group(process.pid, signal.SIGINT)
        for _, process in reversed(self.processes):
            _ended(process, timeout)
        self.processes.clear()


def _ended(process: subprocess.Popen, timeout: float) -> int:
    """The exit code of a signalled process once its group has ended; SIGKILL to the group after ``timeout``."""
    try:
        code = process.wait(timeout)
        wait_until(lambda: not _signal_group(process.pid, 0), "the process group to end", timeout)
    except (subprocess.TimeoutExpired, AssertionError):
        _signal_group(process.pid, signal.SIGKILL)
        code = process.wait()
    return code


@contextlib.contextmanager
def _threads_ahead() -> Iterator[None]:
    """The threads started inside (they inherit the policy of the thread that creates them) at SCHED_FIFO
    ``REALTIME_PRIORITY`` where allowed; the calling thread back at its own policy after."""
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REALTIME_PRIORITY))
    except PermissionError:
        pass
    try:
        yield
    finally:
        os.sched_setscheduler(0, policy, param)


class Recorder:
    """Every message on ``topics`` (name → type), with its receipt order, in this process on the stack's
    domain; spun in a thread. ``realtime``: the middleware's threads and the spinning one at the robot path's
    SCHED_FIFO priority, so that the record of a real-time run keeps up with it on a busy machine."""

    def __init__(self, domain: int, topics: dict[str, type], realtime: bool = False):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import QoSProfile, ReliabilityPolicy

        with _threads_ahead() if realtime else contextlib.nullcontext():
            self.context = rclpy.Context()
            rclpy.init(context=self.context, domain_id=domain)
            self.node = rclpy.create_node("snake_test_recorder", context=self.context)
            self.messages: dict[str, list] = defaultdict(list)
            self._lock = threading.Lock()
            qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT)
            for topic, msg_type in topics.items():
                self.node.create_subscription(msg_type, topic, lambda m, t=topic: self._store(t, m), qos)
            self.executor = SingleThreadedExecutor(context=self.context)
            self.executor.add_node(self.node)
            self._thread = threading.Thread(target=self._spin, daemon=True)
            self._thread.start()

    def _store(self, topic: str, msg) -> None:
        with self._lock:
            self.messages[topic].append(msg)

    def _spin(self) -> None:
        from rclpy.executors import ExternalShutdownException

        try:
            while self.context.ok():
                self.executor.spin_once(timeout_sec=0.05)
        except ExternalShutdownException:  # close()
            pass

    def get(self, topic: str) -> list:
        with self._lock:
            return list(self.messages[topic])

    def clear(self) -> None:
        with self._lock:
            self.messages.clear()

    def set_bool(self, service: str, data: bool, timeout: float = 30.0):
        """Call a std_srvs/SetBool service and return its response (the executor's thread spins the client)."""
        from std_srvs.srv import SetBool

        client = self.node.create_client(SetBool, service)
        assert client.wait_for_service(timeout_sec=timeout), f"no service {service}"
        future = client.call_async(SetBool.Request(data=data))
        wait_until(future.done, f"the answer of {service}", timeout=timeout)
        return future.result()

    def publishers(self, topic: str) -> list[str]:
        return [i.node_name for i in self.node.get_publishers_info_by_topic(topic)]

    def close(self) -> None:
        self.context.try_shutdown()
        self._thread.join()


def active_controllers(stack: JazzyStack, launch, name: str, expected: list[str]) -> dict[str, str]:
    """The controller_manager's controllers once every one of ``expected`` is active (the launch must not end)."""
    def ready():
        if launch.poll() is not None:
            return "ended"
        states = stack.controllers()
        return states if states and all(states.get(n) == "active" for n in expected) else None

    states = wait_until(ready, f"{', '.join(expected)} to be active")
    assert states != "ended", stack.log(name)[-3000:]
    return states


def launch_mujoco_graph(stack: JazzyStack, recorder: Recorder, robot: str, speed: float,
                        controllers: list[str]) -> subprocess.Popen:
    """``sim.launch.py simulator:=mujoco`` for ``robot`` at ``mujoco_speed:=speed``, once every one of
    ``controllers`` (those of the robot's Gazebo controllers file) is active and ``recorder`` (which must record
    /gait/reference) has the gait's first reference; the launch process (stop it with ``stack.stop``). Its subject is
    real time (MuJoCo paced by the wall clock): it runs at SCHED_FIFO, as the robot path does."""
    launch = stack.launch("mujoco", "sim.launch.py", {"simulator": "mujoco", "robot": robot, "rviz": "false",
                                                      "mujoco_speed": repr(speed)}, realtime=True)
    active_controllers(stack, launch, "mujoco", controllers)
    wait_until(lambda: recorder.get("/gait/reference"), "the gait's first reference")
    return launch
