"""Faults in the running graph, on the real middleware with every node in its own process (specs of
snake_control.graph): the SEA controllers hold the motors and say why on /diagnostics when their
gait reference stops or turns non-finite, and take it up again when the gait generator restarts."""


import pytest

from snake_control.graph import control_nodes, simulator_node
from snake_control.testing import lockstep_simulator

#: The graph tests run one after another on one pytest-xdist worker (each starts up to 8 processes).
pytestmark = pytest.mark.xdist_group("ros_graph")

ROBOT = "koopaee6"
CONTROLLER = "/sea_joint_controller"  # the composed layout: one node for every joint


def moving(commands) -> bool:
    """The gait moves the motors: most commands differ from one another."""
    return len({tuple(c.data) for c in commands}) > len(commands) // 2


def statuses(diagnostics, name):
    return [s for m in diagnostics for s in m.status if s.name == name]


def test_lost_or_non_finite_gait_reference_holds_the_motors_and_a_restarted_gait_generator_recovers(ros_graph):
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    sim = simulator_node(ROBOT, "flat")
    ros_graph.start(lockstep_simulator(sim))
    gait, controller = control_nodes(ROBOT, layout="composed")
    ros_graph.start(gait)
    ros_graph.start(controller)
    commands = ros_graph.record("/motor_position_controller/commands", Float64MultiArray)
    diagnostics = ros_graph.record("/diagnostics", DiagnosticArray)

    def level(name=CONTROLLER):
        found = statuses(diagnostics, name)
        return found[-1].level if found else None

    ros_graph.spin_until(lambda: len(commands) > 50 and level() == DiagnosticStatus.OK, "commands", 120.0)
    assert moving(commands[-40:])

    ros_graph.stop(gait.fully_qualified_name)  # the controllers' input publisher dies
    ros_graph.spin_until(lambda: level() == DiagnosticStatus.ERROR, "the hold on stale input", 60.0)
    assert "stale input: gait_reference" in statuses(diagnostics, CONTROLLER)[-1].message
    n = len(commands)  # the probe may still receive commands sent before the hold (tracking the reference on
    ros_graph.spin_until(lambda: len(commands) > n + 40, "held commands", 60.0)  # for up to stale_timeout)
    assert len({tuple(c.data) for c in commands[-20:]}) == 1  # the last command, held: the motors stand still

    reference = ros_graph.probe.create_publisher(JointState, "/gait/reference", 10)
    nan = JointState(name=[f"joint_{j}" for j in range(1, 6)], position=[float("nan")] * 5, velocity=[0.0] * 5)

    def non_finite_reported():
        reference.publish(nan)
        return "non-finite" in statuses(diagnostics, CONTROLLER)[-1].message

    ros_graph.spin_until(non_finite_reported, "the hold on a non-finite reference", 60.0)
    n = len(commands)
    ros_graph.spin_until(lambda: len(commands) > n + 10, "held commands", 60.0)
    assert len({tuple(c.data) for c in commands[n - 1:]}) == 1  # NaN never reaches the motors
    ros_graph.probe.destroy_publisher(reference)

    ros_graph.start(gait)  # restarted: the controllers take the gait up again
    ros_graph.spin_until(lambda: level() == DiagnosticStatus.OK, "recovery", 120.0)
    n = len(commands)
    ros_graph.spin_until(lambda: len(commands) > n + 40, "commands after the restart", 60.0)
    assert moving(commands[n:n + 40])
