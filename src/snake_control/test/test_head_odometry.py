"""head_odometry: Gazebo's ground-truth poses (PosePublisher → ros_gz_bridge → one
geometry_msgs/TransformStamped per pose)
→ /head/odometry, and no odometry but an ERROR on /diagnostics when the head frame is missing, the
pose is not finite or the ground truth goes stale."""

import math

import pytest

from snake_core.robot import load_robot
from snake_test_support.ros import publishers, refuses_outside_the_specs_range, subscriptions, type_name

ROBOT = load_robot("koopaee6")
L = ROBOT.link_length
HEAD = f"snake/link_{ROBOT.n_links}"
MODEL_POSE = ((1.0, 2.0, 0.02), math.pi / 2)  # the model frame (tail) at (1, 2), turned +90° about z
HEAD_IN_MODEL = (0.5, 0.1, 0.0)  # head link origin in the model frame → (0.9, 2.5) in the world
T0, DT, OMEGA = 10.0, 0.01, 0.5  # the head link turns about its origin at ω [rad/s]


def transform(ros, parent, child, t, xyz, yaw):
    from geometry_msgs.msg import TransformStamped

    msg = TransformStamped(child_frame_id=child)
    msg.header.frame_id = parent
    ns = round(t * 1e9)
    msg.header.stamp.sec, msg.header.stamp.nanosec = ns // 10**9, ns % 10**9
    msg.transform.translation.x, msg.transform.translation.y, msg.transform.translation.z = map(float, xyz)
    msg.transform.rotation.z, msg.transform.rotation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    return msg


def publish_poses(ros, t, head_yaw, head=HEAD, model=True):
    """What the bridge publishes for one step: every link in the model (two shown), the model in the world."""
    ros.publish("/ground_truth/poses", transform(ros, "snake", "snake/link_1", t, (0.0, 0.0, 0.0), 0.0))
    ros.publish("/ground_truth/poses", transform(ros, "snake", head, t, HEAD_IN_MODEL, head_yaw))
    if model:
        ros.publish("/ground_truth/poses", transform(ros, "flat", "snake", t, *MODEL_POSE))


def make(ros, **params):
    from snake_control.head_odometry import HeadOdometryNode

    return ros.make(HeadOdometryNode, **{"robot": "koopaee6", **params})


def test_topics_types_and_sensor_qos(ros):
    from rclpy.qos import ReliabilityPolicy

    node = make(ros)
    subs, pubs = ({e.topic_name: (type_name(e.msg_type), e.qos_profile.reliability) for e in entities}
                  for entities in (subscriptions(node).values(), publishers(node).values()))
    best_effort = ReliabilityPolicy.BEST_EFFORT  # measurements, as the package's SENSOR_QOS
    assert subs == {"/ground_truth/poses": ("geometry_msgs/msg/TransformStamped", best_effort)}
    assert pubs["/head/odometry"] == ("nav_msgs/msg/Odometry", best_effort)
    assert pubs["/diagnostics"][0] == "diagnostic_msgs/msg/DiagnosticArray"


def test_a_pose_pair_gives_the_head_tip_pose_and_twist(ros):
    from snake_control.ros_interface import odometry_planar

    make(ros)
    delta = OMEGA * DT
    publish_poses(ros, T0, 0.0)
    assert ros.messages("/head/odometry") == []  # the first pose only primes the difference
    publish_poses(ros, T0 + DT, delta)
    (msg,) = ros.messages("/head/odometry")
    assert (msg.header.frame_id, msg.child_frame_id) == ("world", "head_tip")
    assert msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9 == pytest.approx(T0 + DT, abs=1e-9)
    # head link at (0.9, 2.5) heading 90° + δ: the tip one link length further along the link
    psi = math.pi / 2 + delta
    p = msg.pose.pose.position
    assert (p.x, p.y, p.z) == pytest.approx((0.9 + L * math.cos(psi), 2.5 + L * math.sin(psi), 0.02))
    # turning about the link origin: in the head frame the tip moves left by L sin δ, forward by L (1 − cos δ)
    tw = msg.twist.twist
    assert (tw.linear.x, tw.linear.y, tw.angular.z) == pytest.approx(
        (L * (1 - math.cos(delta)) / DT, L * math.sin(delta) / DT, OMEGA), rel=1e-6)
    # what head_tracking_controller reads back: the world velocity ω ẑ × r (r = tip − link origin)
    _x, _y, heading, vx, vy, _rate = odometry_planar(msg)
    assert heading == pytest.approx(psi)
    assert (vx, vy) == pytest.approx((-OMEGA * L * math.sin(psi), OMEGA * L * math.cos(psi)), abs=OMEGA * L * delta)
    assert vx < -0.99 * OMEGA * L  # heading +Y and turning left: the tip moves towards −X
    assert ros.messages("/diagnostics")[-1].status[0].level == b"\x00"


@pytest.mark.parametrize(("kwargs", "frame"), [({"head": "snake/link_5"}, HEAD), ({"model": False}, "snake")])
def test_missing_frame_publishes_nothing_and_reports_the_frame(ros, kwargs, frame):
    make(ros)
    for k in range(3):
        publish_poses(ros, T0 + k * DT, 0.0, **kwargs)
        ros.advance(DT)
    assert ros.messages("/head/odometry") == []
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and frame in status.message


def test_non_finite_pose_or_repeated_stamp_publishes_nothing_for_that_message(ros):
    make(ros)
    publish_poses(ros, T0, 0.0)
    publish_poses(ros, T0 + DT, math.nan)
    assert ros.messages("/head/odometry") == []
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and "non-finite" in status.message
    publish_poses(ros, T0 + DT, 0.0)  # differenced with the last finite pose
    assert len(ros.messages("/head/odometry")) == 1
    publish_poses(ros, T0, 0.0)  # an older stamp (a simulation reset)
    assert len(ros.messages("/head/odometry")) == 1
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and "did not advance" in status.message
    publish_poses(ros, T0 + 2 * DT, 0.0)  # recovers with the next stamp
    assert len(ros.messages("/head/odometry")) == 2


def test_stale_ground_truth_is_reported(ros):
    make(ros, stale_timeout=0.05)
    for k in range(5):
        publish_poses(ros, T0 + k * DT, 0.0)
        ros.advance(DT)
    assert ros.messages("/diagnostics")[-1].status[0].level == b"\x00"
    ros.advance(0.2)
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and "stale" in status.message


def test_the_stale_timeout_descriptor_carries_the_specs_range_and_a_value_outside_it_is_refused_at_start(ros):
    from snake_control.head_odometry import PARAMS

    assert refuses_outside_the_specs_range(lambda **p: make(ros, **p), PARAMS, "stale_timeout", 20.0) == (0.001, 10.0)


def test_the_head_link_is_the_robot_files_last_link_unless_given(ros):
    assert make(ros).head_frame == "snake/link_6"  # koopaee6: 5 joints, 6 links
    assert make(ros, head_link="link_3").head_frame == "snake/link_3"
