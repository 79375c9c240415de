"""Safety of every node of the suite on the real rclpy: what shapes a node's wiring and clock (``use_sim_time``,
the robot, rates, topics) is refused at run time with a reason while tunable parameters are still taken; and every
controller on sim time holds and reports ERROR on /diagnostics when /clock stops or jumps back, and resumes with
its diagnostics when the clock runs again. The harness owns /clock and the wall clock the watchdogs measure a stop
on: a clock "stops" when the test moves the wall alone (RosHarness.stall), so what a watchdog decides does not
depend on how fast the machine delivers the ticks."""

import numpy as np
import pytest

KOOPAEE = {"robot": "koopaee6"}
ARIIZUMI = {"robot": "ariizumi10"}
N_KOOPAEE, N_ARIIZUMI = 5, 9
POSTURE = (np.radians(30) * np.sin(np.linspace(0.3, 4.0, N_ARIIZUMI))).tolist()  # not straight: R above threshold


def node_class(name: str):
    import importlib

    module, cls = {"gait_generator": ("gait_generator", "GaitGeneratorNode"),
                   "sea_joint_controller": ("sea_joint_controller", "SEAJointControllerNode"),
                   "head_tracking_controller": ("head_tracking_controller", "HeadTrackingControllerNode"),
                   "manipulability_monitor": ("manipulability_monitor", "ManipulabilityMonitorNode"),
                   "motor_command_mux": ("motor_command_mux", "MotorCommandMuxNode"),
                   "head_odometry": ("head_odometry", "HeadOdometryNode"),
                   "simulator": ("snake_sim_ros.simulator", "SimulatorNode")}[name]
    return getattr(importlib.import_module(module if "." in module else f"snake_control.{module}"), cls)


# ------------------------------------------------------------------------------ structural parameters

SIMULATOR = {"use_sim_time": False, "scenario": "pedal-wave", "overrides": ["robot.name=koopaee6", "world.file=flat"],
             "lockstep": True, "real_time_factor": 0.0}
RATE = ("rate", 77.0)  # a rate shapes the node's timers
#: node → (parameters to start it with, another structural parameter and a new value, a tunable parameter and a
#: valid new value or None where it has none)
NODES = {
    "gait_generator": (KOOPAEE, RATE, ("gait.amplitude", 0.3)),
    "sea_joint_controller": (KOOPAEE, RATE, None),
    "head_tracking_controller": (ARIIZUMI, RATE, None),
    "manipulability_monitor": (ARIIZUMI, RATE, ("marker_scale", 0.2)),
    "motor_command_mux": (KOOPAEE, RATE, None),
    "head_odometry": (KOOPAEE, ("model", "other"), None),  # the frame of the poses it subscribes to
    "simulator": (SIMULATOR, RATE, None),
}


@pytest.mark.parametrize("name", list(NODES))
def test_structural_parameters_are_refused_at_run_time_with_a_reason_and_tunables_still_set(ros, name):
    from rclpy.parameter import Parameter

    params, (structural, new), tunable = NODES[name]
    node = ros.make(node_class(name), **params)
    sim_time = node.get_parameter("use_sim_time").value
    (result,) = node.set_parameters([Parameter("use_sim_time", value=not sim_time)])
    assert not result.successful and "use_sim_time is fixed" in result.reason
    assert node.get_parameter("use_sim_time").value == sim_time
    (result,) = node.set_parameters([Parameter(structural, value=new)])
    assert not result.successful and structural in result.reason
    assert node.get_parameter(structural).value != new
    if tunable is not None:
        key, value = tunable
        (result,) = node.set_parameters([Parameter(key, value=value)])
        assert result.successful, result.reason
        assert node.get_parameter(key).value == value


# -------------------------------------------------------------------------------- sim-time watchdog


def gait_inputs(ros) -> None:
    """The gait generator takes no input."""


def sea_inputs(ros) -> None:
    from sensor_msgs.msg import JointState

    states = JointState(name=[f"joint_{j}" for j in range(1, N_KOOPAEE + 1)]
                        + [f"motor_{j}" for j in range(1, N_KOOPAEE + 1)],
                        position=[0.1] * (2 * N_KOOPAEE), velocity=[0.0] * (2 * N_KOOPAEE),
                        effort=[0.0] * (2 * N_KOOPAEE))
    states.header.stamp = ros.stamp()
    ros.publish("/joint_states", states)
    reference = JointState(name=[f"joint_{j}" for j in range(1, N_KOOPAEE + 1)], position=[0.2] * N_KOOPAEE,
                           velocity=[0.0] * N_KOOPAEE)
    reference.header.stamp = ros.stamp()
    ros.publish("/gait/reference", reference)


def planar_states(ros):
    from sensor_msgs.msg import JointState

    msg = JointState(name=[f"joint_{j}" for j in range(1, N_ARIIZUMI + 1)], position=POSTURE,
                     velocity=[0.0] * N_ARIIZUMI, effort=[0.0] * N_ARIIZUMI)
    msg.header.stamp = ros.stamp()
    return msg


def head_tracking_inputs(ros) -> None:
    from geometry_msgs.msg import PoseStamped
    from nav_msgs.msg import Odometry, Path

    from snake_control.ros_interface import LATCHED_QOS

    ros.publish("/joint_states", planar_states(ros))
    odometry = Odometry(child_frame_id="head_tip")
    odometry.header.frame_id = "world"
    odometry.header.stamp = ros.stamp()
    odometry.pose.pose.orientation.w = 1.0
    ros.publish("/head/odometry", odometry)
    if "/head/reference" not in ros._inputs:  # a set point, sent once (latched)
        pose = PoseStamped()
        pose.pose.position.x, pose.pose.orientation.w = 0.5, 1.0
        ros.publish("/head/reference", Path(poses=[pose]), LATCHED_QOS)


def monitor_inputs(ros) -> None:
    ros.publish("/joint_states", planar_states(ros))


#: controller → (parameters, publishes its inputs of one tick, its output topic, its diagnostics when it runs)
CONTROLLERS = {
    "gait_generator": ({**KOOPAEE, "rate": 100.0}, gait_inputs, "/gait/reference", "pedal_wave running"),
    "sea_joint_controller": ({**KOOPAEE, "rate": 100.0, "joint_index": 2}, sea_inputs, "/sea/motor_commands",
                             "running"),
    "head_tracking_controller": ({**ARIIZUMI, "rate": 100.0}, head_tracking_inputs, "/sea/torque_reference",
                                 "tracking"),
    "manipulability_monitor": ({**ARIIZUMI, "rate": 100.0}, monitor_inputs, "/manipulability", "posture regular"),
}


def run(ros, feed, seconds: float) -> None:
    """The inputs of each 10 ms tick, and the clock advanced by it, for ``seconds``."""
    for _ in range(round(seconds / 0.01)):
        feed(ros)
        ros.advance(0.01)


def statuses(ros, node) -> list:
    return [s for m in ros.messages("/diagnostics") for s in m.status if s.name == node.get_fully_qualified_name()]


@pytest.mark.parametrize("name", list(CONTROLLERS))
def test_controller_holds_with_an_error_when_the_sim_clock_stops_or_jumps_back_and_resumes(ros, name):
    from diagnostic_msgs.msg import DiagnosticStatus

    params, feed, output, running = CONTROLLERS[name]
    node = ros.make(node_class(name), **params)
    watchdog = node.clock_watchdog
    assert watchdog.timeout + watchdog.period <= 1.0  # ERROR within 1 s of wall time after the last advance

    def error(reason: str) -> bool:
        return any(s.level == DiagnosticStatus.ERROR and s.message == f"hold: ROS clock {reason}"
                   for s in statuses(ros, node)[seen:])

    def resumes() -> None:
        run(ros, feed, 0.05)
        flowing = len(ros.messages(output))
        run(ros, feed, 0.05)
        assert len(ros.messages(output)) >= flowing + 4  # one a tick again
        last = statuses(ros, node)[-1]
        assert (last.level, last.message) == (DiagnosticStatus.OK, running)

    resumes()
    # /clock stops (the simulator died): ERROR once the timeout has passed on the wall, nothing new meanwhile
    seen, published = len(statuses(ros, node)), len(ros.messages(output))
    ros.stall(watchdog.timeout - 0.05)
    assert not error("stopped") and watchdog.reason is None
    ros.stall(watchdog.period + 0.05)
    assert error("stopped")
    feed(ros)  # inputs keep coming, the clock does not
    held = ros.messages(output)[published:]
    if name == "sea_joint_controller":  # its hold: the last β_d again, with β̇_d = 0, once
        assert [(list(m.position), list(m.velocity)) for m in held] == [
            (list(ros.messages(output)[published - 1].position), [0.0])]
    else:
        assert held == []  # nothing new
    resumes()
    # /clock jumps back (a restarted simulator): ERROR, then it runs on from there
    seen = len(statuses(ros, node))
    ros.jump(-0.5)
    ros.stall(watchdog.period)  # the watchdog's next check
    assert error("jumped back")
    resumes()


def test_a_lock_stepped_controller_takes_a_clock_that_comes_again_unchanged_as_the_simulator_waiting(ros):
    """A lock-stepped simulator republishes the tick it waits on: the clock does not advance but is alive, which
    the simulator itself reports (WARN past its lockstep_timeout); once /clock stops coming, it is a stop, which
    the controller reports and does not hold for: no tick comes, and the next one is answered as if the wait had
    been short."""
    from diagnostic_msgs.msg import DiagnosticStatus

    node = ros.make(node_class("sea_joint_controller"), **{**KOOPAEE, "rate": 100.0, "lockstep": True})
    watchdog = node.clock_watchdog
    ros.stall(2 * (watchdog.timeout + watchdog.period), republish=True)  # the simulator waiting
    assert watchdog.reason is None
    ros.stall(2 * (watchdog.timeout + watchdog.period))  # no /clock any more
    assert watchdog.reason == "clock stopped" and watchdog.check() is None
    last = statuses(ros, node)[-1]
    assert (last.level, last.message) == (DiagnosticStatus.ERROR, "ROS clock stopped")


def test_diagnostics_go_on_at_their_period_while_sim_time_stands_still_or_after_it_went_back(ros):
    """A restarted simulator sets ROS time back: the periodic reports must not wait until it catches up. The
    period is the default 1 s on the wall clock the harness drives: a report within it is not repeated, one after
    it is, whether sim time stands still or went back."""
    from rclpy.node import Node

    from snake_control.ros_interface import OK, Diagnostics

    node = ros.make(lambda **kw: Node("diagnostics_period", **kw))
    diagnostics = Diagnostics(node, "test", wall=ros.wall)
    ros.record("/diagnostics", type(diagnostics._pub.msg_type()))

    def reports() -> int:
        diagnostics.report(OK, "running")
        return sum(1 for m in ros.messages("/diagnostics") for s in m.status if s.message == "running")

    assert reports() == 1
    ros.stall(0.9)
    assert reports() == 1  # the same, within the period: not repeated
    ros.stall(0.1)
    assert reports() == 2  # sim time stands still: reported at the period all the same
    ros.jump(-0.5)
    ros.stall(0.9)
    assert reports() == 2
    ros.stall(0.1)
    assert reports() == 3  # sim time went back: likewise


#: node → what its start-up line says it runs, and its rate [Hz] as NODES starts it (None: as its input comes)
STARTS = {
    "gait_generator": ("pedal_wave for 5 joints on /gait/reference", 100),
    "sea_joint_controller": ("position control of joint_1, joint_2, joint_3, joint_4, joint_5 (koopaee6)", 100),
    "head_tracking_controller": ("pfl head tracking (ariizumi10) on /sea/torque_reference", 100),
    "manipulability_monitor": ("manipulability of ariizumi10 on /manipulability", 20),
    "motor_command_mux": ("position commands of 5 joints from /sea/motor_commands", 100),
    "head_odometry": ("/head/odometry from the ground truth of snake/link_6", None),
    "simulator": ("simulating pedal-wave (koopaee6, position commands", 100),
}


@pytest.mark.parametrize("name", list(NODES))
def test_each_node_logs_one_line_at_start_naming_what_it_runs_its_rate_and_key_parameters(ros, name, capfd):
    capfd.readouterr()
    ros.make(node_class(name), **NODES[name][0])
    runs, rate = STARTS[name]
    info = [line for line in capfd.readouterr().err.splitlines() if line.startswith("[INFO]")]
    assert len(info) == 1, info
    assert f"[{name}]: {runs}" in info[0] and ("as its input comes" if rate is None else f" at {rate} Hz") in info[0]
    assert "stale_timeout=" in info[0] or "lockstep=" in info[0]  # its key parameters
