"""The limits of a motor command from outside (CAN bridge, ROS simulator): refused when it is no command of
the robot, clipped to the joint limits (002 §3.3: ±60°) and to the servo's speed (actuator.max_speed)."""

import dataclasses
import math

import numpy as np
import pytest

from snake_core.controllers.limits import command_limits
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
