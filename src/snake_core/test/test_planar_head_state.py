"""snake_core.planar.head_state: the head tip pose and twist that /head/odometry carries, from the
head link's ground-truth pose (link origin at its tail end, x towards the head)."""

import math

import numpy as np
import pytest

from snake_core.angles import wrap_angle
from snake_core.interface import Pose3, compose
from snake_core.planar.head_state import HeadPose, head_tip_pose, head_twist

L = 0.15  # head link length [m]


def about(axis: str, angle: float) -> tuple[float, float, float, float]:
    s, c = math.sin(angle / 2), math.cos(angle / 2)
    return {"x": (s, 0.0, 0.0, c), "y": (0.0, s, 0.0, c), "z": (0.0, 0.0, s, c)}[axis]


def test_tip_is_one_link_length_along_the_link_axis():
    pose = head_tip_pose(2.0, Pose3((0.3, -0.2, 0.01), (0.0, 0.0, 0.0, 1.0)), L)
    assert (pose.t, pose.x, pose.y, pose.z, pose.heading) == pytest.approx((2.0, 0.3 + L, -0.2, 0.01, 0.0))


def test_heading_turns_counter_clockwise_about_plus_z():
    pose = head_tip_pose(0.0, Pose3((1.0, 2.0, 0.0), about("z", math.pi / 2)), L)
    assert (pose.x, pose.y, pose.heading) == pytest.approx((1.0, 2.0 + L, math.pi / 2))  # +90°: the tip is at +Y
    pose = head_tip_pose(0.0, Pose3((1.0, 2.0, 0.0), about("z", -2.0)), L)
    assert (pose.x, pose.y, pose.heading) == pytest.approx((1.0 + L * math.cos(2.0), 2.0 - L * math.sin(2.0), -2.0))


def test_roll_about_the_link_axis_keeps_the_heading_and_pitch_lifts_the_tip():
    rolled = head_tip_pose(0.0, Pose3((0.0, 0.0, 0.0), about("x", math.pi / 2)), L)  # joint_roll:=90
    assert (rolled.x, rolled.y, rolled.heading) == pytest.approx((L, 0.0, 0.0), abs=1e-15)
    pitched = head_tip_pose(0.0, Pose3((0.0, 0.0, 0.0), about("y", -0.3)), L)  # head raised (vertical plane)
    assert (pitched.x, pitched.z, pitched.heading) == pytest.approx((L * math.cos(0.3), L * math.sin(0.3), 0.0),
                                                                    abs=1e-15)


def test_quaternion_is_normalised_and_bad_input_is_refused():
    q = tuple(3.0 * v for v in about("z", 0.4))
    assert head_tip_pose(0.0, Pose3((0.0, 0.0, 0.0), q), L).heading == pytest.approx(0.4)
    assert head_tip_pose(0.0, Pose3((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0)), L) is None
    assert head_tip_pose(0.0, Pose3((math.nan, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)), L) is None
    assert head_tip_pose(math.inf, Pose3((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)), L) is None


def test_compose_puts_a_link_pose_in_the_model_frame_into_the_world():
    model = Pose3((1.0, 2.0, 0.02), about("z", math.pi / 2))
    link = Pose3((0.5, 0.1, 0.0), about("z", 0.3))
    world = compose(model, link)
    assert world.position == pytest.approx((1.0 - 0.1, 2.0 + 0.5, 0.02))  # (0.5, 0.1) turned by +90°
    assert head_tip_pose(0.0, world, L).heading == pytest.approx(math.pi / 2 + 0.3)
    # against rotation matrices built independently: R_z(a) R_x(b) applied to e_x and e_y
    a, b = 0.7, -1.1
    both = compose(Pose3((0.0, 0.0, 0.0), about("z", a)), Pose3((0.0, 0.0, 0.0), about("x", b)))
    e_y = compose(both, Pose3((0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0))).position
    assert e_y == pytest.approx((-math.sin(a) * math.cos(b), math.cos(a) * math.cos(b), math.sin(b)))
    assert compose(model, Pose3((0.0, 0.0, math.nan), (0.0, 0.0, 0.0, 1.0))) is None


def test_twist_of_a_rotating_head_is_omega_cross_r():
    """The head link turns about its origin (the last joint) at ω: the tip moves at ω ẑ × r."""
    omega, dt, psi = 0.8, 1e-4, 2.5
    poses = [head_tip_pose(t, Pose3((0.2, -0.1, 0.0), about("z", psi + omega * t)), L) for t in (1.0, 1.0 + dt)]
    twist = head_twist(*poses)
    r = np.array([poses[1].x - 0.2, poses[1].y + 0.1])
    assert (twist.vx, twist.vy) == pytest.approx((-omega * r[1], omega * r[0]), rel=1e-3)
    assert twist.heading_rate == pytest.approx(omega)
    # in the head frame the tip moves to the left (+y) at ω l, not forward
    forward, leftward = twist.in_head_frame(poses[1].heading)
    assert (forward, leftward) == pytest.approx((0.0, omega * L), abs=1e-4)


def test_twist_of_a_head_crawling_forward_is_forward_in_the_head_frame():
    psi, speed = -2.0, 0.05
    poses = [HeadPose(t, speed * t * math.cos(psi), speed * t * math.sin(psi), 0.0, psi) for t in (3.0, 3.01)]
    twist = head_twist(*poses)
    assert (twist.vx, twist.vy, twist.heading_rate) == pytest.approx(
        (speed * math.cos(psi), speed * math.sin(psi), 0.0))
    assert twist.in_head_frame(psi) == pytest.approx((speed, 0.0), abs=1e-12)


def test_heading_rate_takes_the_short_way_across_pi():
    twist = head_twist(HeadPose(0.0, 0.0, 0.0, 0.0, 3.1), HeadPose(0.1, 0.0, 0.0, 0.0, -3.1))
    assert twist.heading_rate == pytest.approx((2 * math.pi - 6.2) / 0.1)  # +0.083 rad over 0.1 s, not −62 rad/s
    assert wrap_angle(math.pi) == pytest.approx(math.pi)
    assert wrap_angle(-math.pi) == pytest.approx(math.pi)  # (−π, π]
    assert wrap_angle(-3.0) == pytest.approx(-3.0)
    assert wrap_angle(7.0) == pytest.approx(7.0 - 2 * math.pi)


@pytest.mark.parametrize("t1", [1.0, 0.9, math.nan])
def test_twist_refuses_time_not_advancing_or_non_finite(t1):
    assert head_twist(HeadPose(1.0, 0.0, 0.0, 0.0, 0.0), HeadPose(t1, 0.1, 0.0, 0.0, 0.0)) is None


def test_twist_refuses_a_non_finite_pose():
    assert head_twist(HeadPose(0.0, 0.0, 0.0, 0.0, 0.0), HeadPose(0.1, 0.0, math.inf, 0.0, 0.0)) is None
