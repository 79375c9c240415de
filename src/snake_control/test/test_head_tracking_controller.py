"""head_tracking_controller: /joint_states + /head/odometry + /head/reference → /sea/torque_reference,
checked against snake_core's tracker on the same state, and the stop on missing or stale input."""

import math

import numpy as np
import pytest

from snake_core.gaits import make_gait
from snake_core.planar.convention import q_from_world, qd_from_world, reverse_joints
from snake_core.planar.head_tracking import LyapunovGains, LyapunovTracker, PartialFeedbackLinearisation, PFLGains
from snake_core.planar.model import build_model
from snake_core.planar.path_reference import sampled_reference
from snake_core.robot import load_robot
from snake_test_support.ros import publishers, refuses_outside_the_specs_range, subscriptions, type_name

ROBOT = load_robot("ariizumi10")
N = ROBOT.n_joints
ALPHA = np.radians(30) * np.sin(np.linspace(0.3, 4.0, N))
ALPHA_DOT = 0.2 * np.cos(np.linspace(0.0, 2.0, N))
HEAD = (0.12, -0.05, math.pi / 2)  # X, Y, ψ: the head points along +Y
BODY_TWIST = (0.04, 0.01, 0.3)  # forward, leftward [m/s] in the head frame; ψ̇ [rad/s]


def joint_states(ros):
    from sensor_msgs.msg import JointState

    msg = JointState(name=[f"joint_{j}" for j in range(1, N + 1)], position=ALPHA.tolist(),
                     velocity=ALPHA_DOT.tolist(), effort=[0.0] * N)
    msg.header.stamp = ros.stamp()  # measured now, as a simulator or the bridge stamps them
    return msg


def odometry(ros):
    from nav_msgs.msg import Odometry

    msg = Odometry(child_frame_id="head_tip")
    msg.header.frame_id = "world"
    msg.pose.pose.position.x, msg.pose.pose.position.y = HEAD[0], HEAD[1]
    msg.pose.pose.orientation.z, msg.pose.pose.orientation.w = math.sin(HEAD[2] / 2), math.cos(HEAD[2] / 2)
    msg.twist.twist.linear.x, msg.twist.twist.linear.y = BODY_TWIST[0], BODY_TWIST[1]
    msg.twist.twist.angular.z = BODY_TWIST[2]
    return msg


def path(ros, t0):
    from geometry_msgs.msg import PoseStamped
    from nav_msgs.msg import Path

    poses = []
    for dt, x in ((0.0, HEAD[0]), (10.0, HEAD[0] + 1.0)):  # 0.1 m/s along +X, heading +X
        p = PoseStamped()
        ns = round((t0 + dt) * 1e9)
        p.header.stamp.sec, p.header.stamp.nanosec = ns // 10**9, ns % 10**9
        p.pose.position.x, p.pose.position.y = x, HEAD[1]
        p.pose.orientation.w = 1.0
        poses.append(p)
    msg = Path(poses=poses)
    msg.header.frame_id = "world"
    return msg


def latched():
    from snake_control.ros_interface import LATCHED_QOS

    return LATCHED_QOS  # transient local, as an operator sends the reference once


def make(ros, **params):
    from snake_control.head_tracking_controller import HeadTrackingControllerNode

    return ros.make(HeadTrackingControllerNode, **{"robot": "ariizumi10", "rate": 50.0, **params})


def feed(ros, seconds, odom=True):
    for _ in range(round(seconds / 0.02)):
        ros.publish("/joint_states", joint_states(ros))
        if odom:
            ros.publish("/head/odometry", odometry(ros))
        ros.advance(0.02)


def test_topics_types_and_latched_reference_follow_design(ros):
    from rclpy.qos import DurabilityPolicy

    node = make(ros)
    subs = subscriptions(node)
    assert {t: type_name(s.msg_type) for t, s in subs.items()} == {
        "/joint_states": "sensor_msgs/msg/JointState", "/head/odometry": "nav_msgs/msg/Odometry",
        "/head/reference": "nav_msgs/msg/Path"}
    assert subs["/head/reference"].qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
    pubs = {t: type_name(p.msg_type) for t, p in publishers(node).items()}
    assert pubs["/sea/torque_reference"] == "sensor_msgs/msg/JointState"


@pytest.mark.parametrize("mode", ["pfl", "lyapunov"])
def test_torque_reference_is_snake_cores_tracker_on_the_measured_state(ros, mode):
    t_start = ros.now()
    make(ros, controller__mode=mode)
    ros.publish("/head/reference", path(ros, t_start), latched())
    feed(ros, 0.1)
    first, msg = ros.messages("/sea/torque_reference")[0], ros.messages("/sea/torque_reference")[-1]
    # stamped with the joint states they answer, computed at the node's next tick, one period (50 Hz) later
    t = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9 + 0.02
    t_first = first.header.stamp.sec + first.header.stamp.nanosec * 1e-9 + 0.02  # the shape's time starts here
    assert msg.name == [f"joint_{j}" for j in range(1, N + 1)]
    # the same computation in snake_core; the odometry twist is in the head frame: turned by ψ = 90°
    v_world = np.array([-BODY_TWIST[1], BODY_TWIST[0]])
    q = q_from_world(np.array(HEAD[:2]), HEAD[2], ALPHA)
    qd = qd_from_world(v_world, BODY_TWIST[2], ALPHA_DOT)
    shape = make_gait("serpenoid", N, {"amplitude": math.pi / 3, "frequency": 0.18, "periods": 1.0})
    model = build_model(ROBOT)
    tracker = PartialFeedbackLinearisation(model, PFLGains.diagonal(N), shape) if mode == "pfl" else \
        LyapunovTracker(model, LyapunovGains.diagonal(N), shape)
    ref = sampled_reference([t_start, t_start + 10.0], [[HEAD[0], HEAD[1], 0.0], [HEAD[0] + 1.0, HEAD[1], 0.0]])
    tau = tracker.step(t - t_first, q, qd, ref(t))
    assert ROBOT.sea is None  # rigid joints: the efforts are the joint torques, tail → head
    assert list(msg.effort) == pytest.approx(reverse_joints(tau).tolist(), rel=1e-9, abs=1e-12)
    assert max(abs(e) for e in msg.effort) > 1e-6
    assert ros.messages("/diagnostics")[-1].status[0].level == b"\x00"


def test_no_reference_or_stale_odometry_publishes_nothing_and_reports(ros):
    make(ros)
    feed(ros, 0.1)
    assert ros.messages("/sea/torque_reference") == []
    assert "no /head/reference" in ros.messages("/diagnostics")[-1].status[0].message
    ros.publish("/head/reference", path(ros, ros.now()), latched())
    feed(ros, 0.1)
    n = len(ros.messages("/sea/torque_reference"))
    assert n > 0
    feed(ros, 0.3, odom=False)
    assert len(ros.messages("/sea/torque_reference")) <= n + 6  # stops once odometry is 0.1 s old
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and "head_odometry" in status.message


def test_gain_of_the_other_law_is_refused(ros):
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match=r"controller\.K_w1"):
        make(ros, controller__mode="pfl", controller__K_w1=[1.0, 1.0, 1.0])


def test_unknown_tracker_is_refused_with_the_choices(ros):
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match="must be one of lyapunov, pfl"):
        make(ros, controller__mode="sliding")


def test_the_stale_timeout_descriptor_carries_the_specs_range_and_a_value_outside_it_is_refused_at_start(ros):
    from snake_control.head_tracking_controller import PARAMS

    assert refuses_outside_the_specs_range(lambda **p: make(ros, **p), PARAMS, "stale_timeout", 0.0) == (0.001, 10.0)
