"""The limits of a motor command from outside (CAN bridge, ROS simulator): refused when it is no command of
the robot, clipped to the joint limits (002 §3.3: ±60°) and to the servo's speed (actuator.max_speed); and the
scalar clip of the per-joint SEA limits."""

import dataclasses
import math

import numpy as np
import pytest

from snake_core.controllers.limits import clip, command_limits
from snake_core.robot import load_robot

KOOPAEE = load_robot("koopaee6")  # 5 joints, ±60°, 6.30 rad/s


@pytest.mark.parametrize(("beta_d", "why"), [
    ([0.1] * 4, "has 4 values, the robot has 5 joints"),
    ([0.1, math.nan, 0.1, 0.1, 0.1], "NaN or Inf"),
    ([0.1, 0.1, 0.1, -math.inf, 0.1], "NaN or Inf"),
    ([0.1, 0.1, 0.1, 0.1, -3.2], "joint 5 = -3.2 rad is no joint angle"),
])
def test_a_command_that_is_no_command_of_the_robot_is_refused_with_the_reason(beta_d, why):
    assert why in command_limits(KOOPAEE).refusal(beta_d)


def test_a_command_within_half_a_turn_is_usable_even_beyond_the_joint_limit():
    assert command_limits(KOOPAEE).refusal([3.1, -3.1, 1.2, 0.0, -1.2]) is None


def test_clamp_limits_the_change_to_the_servo_speed_then_the_angle_to_the_joint_limit_and_counts_the_clipped():
    limits = command_limits(KOOPAEE)
    previous = np.array([0.0, 0.0, 1.04, -1.04, 0.5])
    target = np.array([0.01, 0.5, 1.2, -0.5, 0.5])
    limited, clipped = limits.clamp(target, previous, 0.01)
    step = 6.30 * 0.01
    assert limited == pytest.approx([0.01, step, math.pi / 3, -1.04 + step, 0.5], abs=1e-12)
    assert clipped == 3
    assert limits.outside(target).tolist() == [False, False, True, False, False]
    assert limits.toward(target, previous, 0.0).tolist() == previous.tolist()  # no time, no motion


def test_a_robot_without_actuator_section_limits_the_angle_only():
    limits = command_limits(dataclasses.replace(KOOPAEE, actuator=None, joint_limit=math.radians(45)))
    limited, clipped = limits.clamp(np.array([0.7, -0.9, 0.0, 0.2, 0.3]), np.zeros(5), 0.01)
    assert limited == pytest.approx([0.7, -math.pi / 4, 0.0, 0.2, 0.3])
    assert clipped == 1
    assert limits.describe() == "±45°"


def test_the_speed_reference_is_limited_to_the_servo_speed_and_never_beyond_a_clipped_position():
    limits = command_limits(KOOPAEE)
    requested = np.array([0.2, 1.2, -1.2, 0.3, 0.0])
    limited = np.array([0.2, math.pi / 3, -math.pi / 3, 0.25, 0.0])  # joints 2, 3 at the limit, 4 rate-limited
    rate = limits.speed(np.array([20.0, 5.0, -5.0, 3.0, -1e6]), limited, requested, np.zeros(5))
    assert rate == pytest.approx([6.30, 0.0, 0.0, 0.0, -6.30])
    # the other way round each is kept: a clipped β_d's speed reference may point back from the clip
    assert limits.speed(np.array([0.0, -5.0, 5.0, -3.0, 0.0]), limited, requested, np.zeros(5)) == \
        pytest.approx([0.0, -5.0, 5.0, -3.0, 0.0])


def test_toward_a_joint_limit_the_speed_reference_is_the_speed_from_which_the_servo_stops_before_it():
    limits = command_limits(KOOPAEE)
    a = KOOPAEE.actuator
    braking = 0.5 * a.stall_torque / (a.gear_ratio ** 2 * a.rotor_inertia)  # half of τ_s / (n² J_r), 002 Table 3.1
    assert limits.braking == pytest.approx(braking) and 35.0 < braking < 38.0
    limit, period = math.pi / 3, 0.004
    beta = np.array([limit - 0.01, limit - 0.01, -limit + 0.002, limit + 0.05, 0.0])
    beta_d = np.array([1.0, 1.0, -1.0, 1.0, 0.0])
    rate = limits.speed(np.array([6.0, -6.0, -6.0, 6.0, 6.0]), beta_d, beta_d, beta, period)

    def stops_in(v):  # two periods at v before braking at a, then v² / (2 a)
        return abs(v) * 2 * period + v ** 2 / (2 * braking)

    assert stops_in(rate[0]) == pytest.approx(0.01) and 0.5 < rate[0] < 0.9
    assert rate[1] == -6.0  # away from the limit: unchanged
    assert rate[2] < 0 and stops_in(rate[2]) == pytest.approx(0.002)
    assert rate[3] == 0.0  # beyond the limit already: nothing further out
    assert rate[4] == 6.0  # far from it
    # the later it brakes, the slower it may go
    assert limits.speed(np.array([6.0]), np.ones(1), np.ones(1), beta[:1], 0.0)[0] > rate[0]


def test_a_whole_command_is_limited_and_counted_and_a_missing_rate_stays_missing():
    limits = command_limits(KOOPAEE)
    beta_d, rate, clipped = limits.command(np.array([1.04, 0.0, 0.0, 0.0, 2.0]), np.array([20.0, 0, 0, 0, 1.0]),
                                           np.array([1.04, 0.0, 0.0, 0.0, 1.04]), 0.01, np.zeros(5))
    assert beta_d == pytest.approx([1.04, 0, 0, 0, math.pi / 3])
    assert rate == pytest.approx([6.30, 0, 0, 0, 0])
    assert clipped == 3  # β_d of joint 5, β̇_d of joints 1 and 5
    assert limits.command(np.zeros(5), None, np.zeros(5), 0.01, np.zeros(5))[1] is None


def test_a_robot_without_actuator_section_limits_the_speed_reference_at_its_joint_limits_only():
    limits = command_limits(dataclasses.replace(KOOPAEE, actuator=None))
    rate = limits.speed(np.array([1e6, 1e6, -1e6, 0, 0]), np.zeros(5), np.zeros(5),
                        np.array([0.0, math.pi / 3, 0.0, 0, 0]))
    assert rate.tolist() == [1e6, 0.0, -1e6, 0.0, 0.0]


#: Numbers where a clip can go wrong: signed zeros, a value on a bound, infinities, NaN, bounds the wrong way round.
EDGES = (-math.inf, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, math.inf, math.nan)


def test_the_scalar_clip_is_numpys_clip_bit_for_bit():
    """The per-joint limits clip in plain Python (numpy's clip of one number costs microseconds a call): the same
    float as np.clip for every value and pair of bounds of :data:`EDGES` (the sign of a zero kept on a bound, NaN in
    any argument NaN) and for random ones."""
    rng = np.random.default_rng(7)
    cases = [*((x, lo, hi) for x in EDGES for lo in EDGES for hi in EDGES), *rng.normal(size=(200, 3)).tolist()]
    for x, lo, hi in cases:
        got, want = clip(x, lo, hi), float(np.clip(x, lo, hi))
        assert type(got) is float
        same_sign = math.copysign(1, got) == math.copysign(1, want)
        assert np.array_equal(got, want, equal_nan=True) and same_sign, (x, lo, hi)
