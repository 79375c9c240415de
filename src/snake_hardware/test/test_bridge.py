"""The can_bridge: its ROS-free core (names, NaN for lost modules, command checks), the rclpy node
against emulated modules on a virtual bus, and the installed executable's exit status."""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import can
import numpy as np
import pytest

from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_hardware.bridge import CanBridge
from snake_hardware.diagnostics import ERROR, OK, STALE
from snake_hardware.emulator import EmulatedRobot


def test_core_publishes_urdf_and_design_names_and_nan_for_a_lost_module(rig):
    """The suite's one /joint_states layout: joint_j α, α̇, τ; motor_j β, β̇, U (estimated on CAN); spring_j α − β,
    α̇ − β̇, τ; NaN for a lost module."""
    r = rig()
    bridge = CanBridge(r.driver)
    r.start()
    r.run_gait(0.5)
    s = bridge.step(r.t)
    n = r.robot.n_joints

    def field(values, prefix):
        return np.array([values[s.name.index(f"{prefix}_{j}")] for j in range(1, n + 1)])

    assert sorted(s.name) == sorted(f"{p}_{j}" for p in ("joint", "motor", "spring") for j in range(1, n + 1))
    beta, spring, alpha = (field(s.position, p) for p in ("motor", "spring", "joint"))
    np.testing.assert_allclose(beta + spring, alpha, atol=1e-12)  # α = β + (α − β)
    np.testing.assert_allclose(alpha, r.driver.alpha)
    np.testing.assert_allclose(beta, r.driver.beta)
    np.testing.assert_allclose(field(s.velocity, "joint"), r.driver.alpha_dot)
    np.testing.assert_allclose(field(s.velocity, "motor") + field(s.velocity, "spring"), r.driver.alpha_dot,
                               atol=1e-12)
    np.testing.assert_allclose(field(s.effort, "joint"), r.driver.tau)
    np.testing.assert_allclose(field(s.effort, "spring"), r.driver.tau)
    # U, which the modules do not report, as their PD forms it (002 (4.39)) from what was sent and what they measure
    u = field(s.effort, "motor")
    a = r.robot.actuator
    pd = a.kp * (r.driver.sent - r.driver.beta) + a.kd * (r.driver.sent_rate - r.driver.beta_dot)
    line = a.stall_torque * (1 - np.sign(pd) * r.driver.beta_dot / a.max_speed)  # the servo's torque–speed line
    np.testing.assert_allclose(u, np.sign(pd) * np.minimum(np.abs(pd), line), atol=1e-12)
    assert np.all(np.isfinite(u)) and np.any(np.abs(u) > 1e-3)
    r.emu.modules[0].silent = True
    for _ in range(round(0.5 / r.dt)):
        r.cycle(r.driver.beta.copy())
    s = bridge.step(r.t)
    position = dict(zip(s.name, s.position, strict=True))
    assert math.isnan(position["motor_1"]) and math.isnan(position["joint_1"]) and not math.isnan(position["motor_2"])


def test_core_refuses_commands_that_lack_a_motor(rig):
    r = rig()
    bridge = CanBridge(r.driver)
    r.start()
    bridge.on_named_command(["motor_1", "motor_2"], [0.1, 0.2], [], r.t)
    assert "motor_3" in r.driver.faults["command_invalid"]
    names = [f"motor_{j}" for j in range(1, 6)] + ["spring_1"]
    bridge.on_named_command(names, [0.1] * 6, [0.0] * 6, r.t)
    np.testing.assert_allclose(r.driver.command, 0.1)
    bridge.on_named_command(names, [0.1] * 3, [], r.t)  # neither one per name nor one per motor
    assert "3 positions for 6 names (5 motors)" in r.driver.faults["command_invalid"]


def topic_hardware_command(urdf: str, commands: dict[str, float]) -> tuple[list[str], list[float], list[float]]:
    """(name, position, velocity) of the sensor_msgs/JointState that Jazzy's topic hardware publishes for
    the ros2_control block of ``urdf`` (every command interface of a joint at ``commands[joint]``), as
    JointStateTopicSystem::write() builds it
    (ros-controls/topic_based_hardware_interfaces d115f23, joint_state_topic_hardware_interface/src/
    joint_state_topic_hardware_interface.cpp lines 202-228): one name per joint of the block, in the block's
    order (hardware_interface's component_parser keeps it), and a position (velocity) only for each position
    (velocity) command interface (NaN until a controller has written it: the command interfaces start as NaN)."""
    system = ET.fromstring(urdf).find("ros2_control")
    name, position, velocity = [], [], []
    for joint in system.findall("joint"):
        name.append(joint.get("name"))
        for interface in joint.findall("command_interface"):
            value = commands.get(joint.get("name"), math.nan)
            {"position": position, "velocity": velocity}.get(interface.get("name"), []).append(value)
    return name, position, velocity


def test_core_takes_the_command_as_the_jazzy_topic_hardware_writes_it(rig):
    """The robot's URDF (hardware:=real) through the topic hardware's write(): 10 names, 5 positions and 5
    velocities; each module gets its own β_d and β̇_d, and the NaN stream before the first controller command
    holds without a fault."""
    import xacro

    from snake_core import locator

    urdf = xacro.process_file(str(locator.description_dir() / "urdf" / "snake.urdf.xacro"),
                              mappings={"robot": "koopaee6", "hardware": "real"}).toxml()
    r = rig()
    bridge = CanBridge(r.driver)
    r.start()
    name, position, velocity = topic_hardware_command(urdf, {})
    assert len(name) == 10 and len(position) == len(velocity) == 5
    before = r.driver.command_time
    bridge.on_named_command(name, position, velocity, r.t + 1.0)
    assert "command_invalid" not in r.driver.faults and r.driver.command_time == before  # not a command
    beta_d = {f"motor_{j}": 0.01 * j for j in range(1, 6)}
    rate_d = {f"motor_{j}": -0.25 * j for j in range(1, 6)}
    name, position, _ = topic_hardware_command(urdf, beta_d)
    _, _, velocity = topic_hardware_command(urdf, rate_d)
    bridge.on_named_command(name, position, velocity, r.t)
    assert "command_invalid" not in r.driver.faults
    np.testing.assert_array_equal(r.driver.command, [0.01, 0.02, 0.03, 0.04, 0.05])
    np.testing.assert_array_equal(r.driver.command_rate, [-0.25, -0.5, -0.75, -1.0, -1.25])


def _level(status) -> int:
    """DiagnosticStatus.level: bytes in rclpy (b'\\x02'), an int in some message doubles."""
    return status.level[0] if isinstance(status.level, bytes) else int(status.level)


def _joint_command(names, positions, velocities):
    from sensor_msgs.msg import JointState

    msg = JointState()
    msg.name = list(names)
    msg.position = [float(v) for v in positions]
    msg.velocity = [float(v) for v in velocities]
    return msg


def test_node_drives_emulated_modules_and_reports_a_lost_one(ros, profile):
    from snake_hardware.bridge_node import CanBridgeNode

    robot = replace(load_robot("koopaee6"), can_profile=profile)
    channel = f"snake_node_{id(ros)}"
    emu = EmulatedRobot(robot, lambda: can.Bus(interface="virtual", channel=channel), start_time=ros.now())
    try:
        ros.make(CanBridgeNode, robot="koopaee6", can_profile=profile, can_bus_type="virtual", can_interface=channel,
                 rate=100.0)
        from snake_core.gaits import make_gait

        gait = make_gait("pedal_wave", robot.n_joints, {"amplitude": 0.3, "frequency": math.pi, "phase_shift": -1.0})
        names = [f"motor_{j}" for j in range(1, 6)]
        for _ in range(300):  # 3 s at 100 Hz
            a_d, a_d_dot = gait.reference(ros.now())
            ros.publish("/can_bridge/joint_commands", _joint_command(names, a_d, a_d_dot))
            ros.advance(0.01)
            emu.advance(ros.now())
        states = ros.messages("/can_bridge/joint_states")
        assert len(states) >= 250
        last = states[-1]
        alpha = dict(zip(last.name, last.position, strict=True))
        true = [m.x[0] for m in emu.modules]
        for j in range(5):
            assert alpha[f"joint_{j + 1}"] == pytest.approx(true[j], abs=0.03)  # one cycle of motion behind
        assert np.max(np.abs(np.array(true) - gait.reference(ros.now())[0])) < 0.1  # the gait is followed
        diag = ros.messages("/diagnostics")[-1]
        assert [_level(s) for s in diag.status] == [OK] * (2 + robot.n_joints)
        emu.modules[4].silent = True
        for _ in range(60):
            ros.publish("/can_bridge/joint_commands", _joint_command(names, np.zeros(5), np.zeros(5)))
            ros.advance(0.01)
            emu.advance(ros.now())
        status = {s.name: s for s in ros.messages("/diagnostics")[-1].status}
        assert _level(status["can_bridge: joint_5 (module 5)"]) == STALE
        assert _level(status["can_bridge: safety"]) == ERROR
        last = ros.messages("/can_bridge/joint_states")[-1]
        assert math.isnan(dict(zip(last.name, last.position, strict=True))["joint_5"])
    finally:
        emu.shutdown()


def test_node_refuses_an_unknown_robot(ros):
    from snake_hardware.bridge_node import CanBridgeNode

    with pytest.raises(ConfigError, match=r"robot\.name"):
        ros.make(CanBridgeNode, robot="nosuchsnake", can_bus_type="virtual", can_interface="x")


@pytest.mark.parametrize(("parameter", "named"), [("can_interface:=nosuchcan0", "can_interface"),
                                                  ("rate:=5000.0", "rate"), ("can_profile:=canfd", "can_profile")])
def test_executable_exits_2_with_one_line_on_a_missing_bus_or_a_bad_parameter(ros, parameter, named):
    """What `ros2 run snake_hardware can_bridge` (and launch, and systemd) sees: the script that
    setup.py installs into lib/snake_hardware, not only the node class."""
    script = Path(__file__).resolve().parents[1] / "scripts" / "can_bridge"
    run = subprocess.run([sys.executable, str(script), "--ros-args", "-p", parameter], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("CanBridgeNode: error:") and named in line


@contextlib.contextmanager
def bridge_on_emulated_modules(ros, name, **params):
    """A can_bridge node (100 Hz, ``params``) on emulated koopaee6 modules, and ``run(seconds, beta_d, beta_d_dot)``:
    commands every 10 ms of ROS time (the modules follow), returns the last ``can_bridge: safety`` status on
    /diagnostics."""
    from snake_hardware.bridge_node import CanBridgeNode

    channel = f"snake_{name}_{id(ros)}"
    emu = EmulatedRobot(load_robot("koopaee6"), lambda: can.Bus(interface="virtual", channel=channel),
                        start_time=ros.now())
    names = [f"motor_{j}" for j in range(1, 6)]

    def run(seconds, beta=(0.0,) * 5, rate=(0.0,) * 5):
        for _ in range(round(seconds / 0.01)):
            ros.publish("/can_bridge/joint_commands", _joint_command(names, beta, rate))
            ros.advance(0.01)
            emu.advance(emu.time + 0.01)
        return {s.name: s for s in ros.messages("/diagnostics")[-1].status}["can_bridge: safety"]

    try:
        yield ros.make(CanBridgeNode, robot="koopaee6", can_bus_type="virtual", can_interface=channel,
                       rate=100.0, **params), emu, run
    finally:
        emu.shutdown()


def test_estop_service_engages_and_releases_through_the_driver_once_the_modules_confirm(ros):
    """... and /can_bridge/estop_engaged says so (what the gait generator disarms on): false, true from the stop,
    false again only once every module has confirmed the release."""
    from std_msgs.msg import Bool
    from std_srvs.srv import SetBool

    from snake_core.interface import CAN_BRIDGE_ESTOP_ENGAGED

    def call(data):
        return ros.call(SetBool, "/can_bridge/estop", SetBool.Request(data=data))

    with bridge_on_emulated_modules(ros, "estop") as (_node, emu, run):
        engaged = ros.record(CAN_BRIDGE_ESTOP_ENGAGED, Bool)
        assert run(1.0).message == "running"
        assert [m.data for m in engaged] == [False]
        assert call(True).success
        held = run(0.3)
        assert _level(held) == ERROR and "emergency stop engaged" in held.message
        assert all(m.estop and m.latched for m in emu.modules)
        assert [m.data for m in engaged] == [False, True]
        answer = call(False)
        assert answer.success and "once every module confirms" in answer.message
        released = run(0.5)
        assert _level(released) == OK and released.message == "running"
        assert not any(m.estop or m.latched for m in emu.modules)
        assert [m.data for m in engaged] == [False, True, False]


def test_use_sim_time_is_refused_at_runtime_and_commands_beyond_the_limits_are_clamped_and_counted(ros):
    with bridge_on_emulated_modules(ros, "limits") as (node, emu, run):
        (result,) = ros.set_parameters(node, use_sim_time=False)
        assert not result.successful and "use_sim_time is fixed while can_bridge runs" in result.reason
        assert node.get_parameter("use_sim_time").value is True
        assert run(0.5).message == "running"  # not frozen
        clamped = run(1.0, [0.3, 1.5, 0.0, 0.0, 0.0])  # joint 2 beyond ±60°
        values = dict((kv.key, kv.value) for kv in clamped.values)
        assert _level(clamped) == 1 and "outside the joint limits and the servo's speed (±60° and 6.3 rad/s) " \
            "clamped" in clamped.message
        assert 50 <= int(values["commands_clamped"]) <= node.bridge.driver.commands_clamped <= 100  # one a command
        assert max(abs(m.x[2]) for m in emu.modules) <= math.radians(60) + 0.01
        # a legal β_d with the frame's largest β̇_d: the motors stop at the limit (unlimited, they reached 2 rad)
        worst = max(max(abs(m.x[2]) for m in emu.modules) for _ in range(100) if run(0.01, [1.0] * 5, [20.0] * 5))
        assert worst <= math.radians(60) + 0.01
        absurd = run(0.2, [0.0, 1e6, 0.0, 0.0, 0.0])
        assert _level(absurd) == ERROR and "is no joint angle" in absurd.message


def test_a_stopped_or_restarted_sim_clock_holds_the_bridge_with_an_error_and_it_resumes(ros):
    """The harness drives the wall clock the bridge's watchdog measures a stop of /clock on (RosHarness.stall)."""
    with bridge_on_emulated_modules(ros, "clock") as (node, _emu, run):
        driver = node.bridge.driver
        watchdog = node._ros_time
        assert run(1.0).message == "running"
        ros.stall(watchdog.timeout - 0.05)  # /clock stopped, not yet for the timeout
        assert "clock" not in driver.faults
        sent = driver.frames_sent
        ros.stall(watchdog.period + 0.05)
        assert driver.faults["clock"] == "ROS clock stopped" and driver.holding
        ros.stall(0.3)
        assert driver.frames_sent > sent  # the loop goes on (on the wall clock): hold frames, heartbeat
        status = {s.name: s for s in ros.messages("/diagnostics")[-1].status}["can_bridge: safety"]
        assert _level(status) == ERROR and "ROS clock stopped" in status.message
        assert run(1.5).message == "running"  # the clock runs again: released
        ros.jump(-0.5)  # the simulator restarted: its clock half a second back
        held = []
        for _ in range(100):
            run(0.01)
            held.append(driver.faults.get("clock"))
        assert "ROS clock jumped back" in held
        assert run(1.0).message == "running"


def test_the_modules_hold_when_the_controllers_upstream_of_ros2_control_fall_silent(ros):
    """ros2_control's forward command controller keeps writing a dead controller's last command and the topic
    hardware keeps publishing it, fresh: the bridge watches the controllers' own topic (``deadman_topic``)."""
    from std_msgs.msg import Float64MultiArray

    upstream = "/motor_position_controller/commands"
    with bridge_on_emulated_modules(ros, "deadman", deadman_topic=upstream) as (node, emu, run):
        driver = node.bridge.driver
        assert "no command from the controllers on /motor_position_controller/commands" in run(0.3).message
        beta_d, rate = [0.3] * 5, [0.5] * 5  # the last command of a controller that was turning the joints

        def alive(seconds):
            for _ in range(round(seconds / 0.01)):
                ros.publish(upstream, Float64MultiArray(data=beta_d))
                status = run(0.01, beta_d, rate)
            return status

        assert alive(1.0).message == "running"
        # the controllers die; ros2_control repeats their last command on and on
        held = run(0.5, beta_d, rate)
        assert _level(held) == ERROR and "no command from the controllers on " + upstream in held.message
        onset = [e.time for e in driver.events if e.key == "upstream_stale" and e.active][-1]
        timeout, period = driver.config.command_timeout, 0.01
        # held within command_timeout + one bridge period of the last command (both on the bridge's clock)
        assert timeout < onset - driver.upstream_time <= timeout + period + 1e-9
        assert driver.holding and np.all(driver.sent == driver.hold_beta)
        still = [m.x[2] for m in emu.modules]
        run(0.3, beta_d, rate)
        assert np.abs(np.array([m.x[2] for m in emu.modules]) - still).max() < 0.01  # β̇_d = 0: the motors stay
        assert alive(0.5).message == "running"  # the controllers back: the robot follows again


def _realtime_in_a_process(*prefix: str) -> list[str]:
    """``bridge_node.realtime(10)`` in a process of its own (a priority that sticks to the thread that asked):
    its line, and whether the process then runs at SCHED_FIFO."""
    code = ("import os; from snake_hardware.bridge_node import realtime; print(realtime(10)); "
            "print(os.sched_getscheduler(0) == os.SCHED_FIFO)")
    run = subprocess.run([*prefix, sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root (CAP_SYS_NICE) and setpriv to take it away")
def test_the_can_loop_runs_at_sched_fifo_where_the_os_allows_it_and_says_so_in_one_line_where_not():
    assert _realtime_in_a_process() == ["CAN loop at real-time priority 10 (SCHED_FIFO)", "True"]
    refused = _realtime_in_a_process("setpriv", "--inh-caps=-sys_nice", "--bounding-set=-sys_nice")
    assert refused[1] == "False" and refused[0].startswith(
        "real-time priority 10 (SCHED_FIFO) not granted (Operation not permitted): the CAN loop runs at normal")
