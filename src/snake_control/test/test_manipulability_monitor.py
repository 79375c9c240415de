"""manipulability_monitor: D, R and the ellipsoid of 004 §3 for the posture in /joint_states, and the
singular-posture warning of a straight body."""

import math

import numpy as np
import pytest

from snake_core.planar.convention import q_from_world
from snake_core.planar.manipulability import ManipulabilityMonitor
from snake_core.planar.model import build_model
from snake_core.robot import load_robot
from snake_test_support.ros import publishers, subscriptions, type_name

ROBOT = load_robot("ariizumi10")
N = ROBOT.n_joints


def states(ros, alpha):
    from sensor_msgs.msg import JointState

    msg = JointState(name=[f"joint_{j}" for j in range(1, N + 1)], position=[float(a) for a in alpha],
                     velocity=[0.0] * N, effort=[0.0] * N)
    msg.header.stamp = ros.stamp()
    return msg


def run_posture(ros, alpha, seconds=0.2, **params):
    from snake_control.manipulability_monitor import ManipulabilityMonitorNode

    node = ros.make(ManipulabilityMonitorNode, **{"robot": "ariizumi10", "rate": 20.0, **params})
    for _ in range(round(seconds / 0.05)):
        ros.publish("/joint_states", states(ros, alpha))
        ros.advance(0.05)
    return node


def test_topics_and_types_follow_design(ros):
    node = run_posture(ros, np.zeros(N), seconds=0.05)
    pubs = {t: type_name(p.msg_type) for t, p in publishers(node).items()}
    assert pubs["/manipulability"] == "std_msgs/msg/Float64MultiArray"
    assert pubs["/manipulability/markers"] == "visualization_msgs/msg/MarkerArray"
    assert pubs["/diagnostics"] == "diagnostic_msgs/msg/DiagnosticArray"
    assert {t: type_name(s.msg_type) for t, s in subscriptions(node).items()} == {
        "/joint_states": "sensor_msgs/msg/JointState"}


def test_straight_body_is_reported_singular_with_a_flat_ellipse(ros):
    run_posture(ros, np.zeros(N))
    d, r, *_sigma = ros.messages("/manipulability")[-1].data
    assert r == 0.0 and d == 0.0  # 004 Theorem 1: a straight body is singular
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x01" and "singular posture" in status.message
    marker = ros.messages("/manipulability/markers")[-1].markers[0]
    assert marker.header.frame_id == "head_tip"
    assert marker.scale.y == pytest.approx(0.0, abs=1e-9)  # only one direction of head acceleration
    assert marker.scale.x > 0.01
    # that direction is across the head: a straight snake cannot push its head along itself
    yaw = 2 * math.atan2(marker.pose.orientation.z, marker.pose.orientation.w)
    assert abs(math.cos(yaw)) == pytest.approx(0.0, abs=1e-6)


def test_a_changed_marker_scale_scales_the_next_ellipse(ros):
    """marker_scale is tunable at run time: the next marker is drawn with the new scale."""
    node = run_posture(ros, np.zeros(N))
    before = ros.messages("/manipulability/markers")[-1].markers[0].scale.x
    assert ros.set_parameters(node, marker_scale=2 * node.get_parameter("marker_scale").value)[0].successful
    for _ in range(2):
        ros.publish("/joint_states", states(ros, np.zeros(N)))
        ros.advance(0.05)
    assert ros.messages("/manipulability/markers")[-1].markers[0].scale.x == pytest.approx(2 * before, rel=1e-9)


def test_curved_posture_publishes_snake_cores_d_and_r_in_runlog_layout(ros):
    alpha = 0.5 * np.sin(2 * np.pi * np.arange(1, N + 1) / N)
    run_posture(ros, alpha)
    data = ros.messages("/manipulability")[-1].data
    core = ManipulabilityMonitor(build_model(ROBOT)).evaluate(q_from_world(np.zeros(2), 0.0, alpha))
    assert list(data) == pytest.approx([core.D, core.R, *core.sigma, *core.lam], rel=1e-12)
    assert len(data) == 2 + 2 * 3  # RunLog.manipulability's layout (snake_sim.engines.planar.runtime)
    assert data[1] > 1e-3  # clearly regular
    assert ros.messages("/diagnostics")[-1].status[0].level == b"\x00"
    # the head's position and heading do not enter: the same shape turned and moved gives the same D, R
    moved = ManipulabilityMonitor(build_model(ROBOT)).evaluate(q_from_world(np.array([0.3, -1.0]), 1.1, alpha))
    assert [moved.D, moved.R] == pytest.approx(data[:2], rel=1e-9)


def test_stale_joint_states_hold_the_outputs_and_report_an_error(ros):
    run_posture(ros, np.zeros(N), seconds=0.1)
    n = len(ros.messages("/manipulability"))
    ros.advance(0.5)
    assert len(ros.messages("/manipulability")) <= n + 2  # nothing once older than the 0.1 s timeout
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and "stale" in status.message


def test_too_short_robot_is_refused_with_004s_reason(ros):
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match="free joint"):
        run_posture(ros, np.zeros(N), free_joints=[1, 2, 3, 4, 5, 6, 7])
