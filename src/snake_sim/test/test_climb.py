"""The climbed criterion on synthetic runs: the tail tip must pass the far edge of the last box."""

from pathlib import Path

import numpy as np
import pytest

from snake_core.robot import load_robot
from snake_sim.analysis.climb import climb_result, tail_tip_x
from snake_sim.core.runlog import RunLog
from snake_sim.core.world import Box, World

ROBOT = load_robot("koopaee6")
L = ROBOT.link_length


def straight_run(speed, duration=10.0, dt=0.01, pitch=0.0, plane="xz"):
    """A straight body sliding along +x, tail tip at x = speed·t at t (link 1 tilted by ``pitch``)."""
    t = np.arange(0.0, duration + dt / 2, dt)
    n = ROBOT.n_links
    pos = np.zeros((len(t), n, 3))
    pos[:, :, 0] = speed * t[:, None] + (np.arange(n) + 0.5) * L
    angle = np.zeros((len(t), n))
    angle[:, 0] = pitch
    pos[:, 0, 0] = speed * t + 0.5 * L * np.cos(pitch)
    zeros = np.zeros((len(t), n - 1))
    return RunLog(ROBOT, plane, t, pos, angle, zeros, zeros, zeros)


def world(*x_ranges):
    boxes = tuple(Box(f"b{i}", (0.5 * (a + b), 0.0, 0.018), (b - a, 0.3, 0.036)) for i, (a, b) in enumerate(x_ranges))
    return World("test", Path("test.sdf"), 0.0, boxes, boxes)


def test_tail_tip_is_half_a_link_behind_link_1():
    log = straight_run(0.02, pitch=0.4)
    assert tail_tip_x(log)[0] == pytest.approx(0.0, abs=1e-12)
    assert tail_tip_x(log)[100] == pytest.approx(0.02, abs=1e-12)


def test_time_to_climb_is_when_the_tail_passes_the_last_far_edge():
    # boxes end at 0.60 and 0.90 m; at 0.05 m/s the tail tip (x = 0.05 t) passes 0.90 at t = 18 s
    res = climb_result(straight_run(0.05, duration=25.0), world((0.5, 0.6), (0.8, 0.9)))
    assert res.climbed is True
    assert res.goal_x_m == pytest.approx(0.9)
    assert res.time_to_climb_s == pytest.approx(18.0, abs=0.011)
    assert res.climb_average_speed_mps == pytest.approx(0.05, rel=1e-3)


def test_not_climbed_before_the_time_limit():
    res = climb_result(straight_run(0.05, duration=17.0), world((0.5, 0.6), (0.8, 0.9)))
    assert res.climbed is False and res.time_to_climb_s is None and res.climb_distance_m == pytest.approx(0.9)


def test_nothing_to_climb_on_flat_ground_or_behind_or_in_the_horizontal_plane():
    assert climb_result(straight_run(0.05), world()).climbed is None
    assert climb_result(straight_run(0.05), world((-0.5, -0.2))).as_summary()["time_to_climb_s"] is None
    assert climb_result(straight_run(0.05, plane="xy"), world((0.5, 0.6))).climbed is None


def test_moving_backwards_never_climbs():
    assert climb_result(straight_run(-0.05), world((0.5, 0.6))).climbed is False


def test_the_head_reaches_the_box_within_1_cm_of_its_near_face_and_a_shorter_run_did_not_reach():
    """Head tip at x = 6 L + 0.05 t (the straight body): the near face at 0.5 m is reached when the tip is at
    0.49 m, t = (0.49 − 6 L)/0.05; a run that ends before says it did not reach, not that it failed to climb."""
    head0 = ROBOT.n_links * L
    t_reach = (0.5 - 0.01 - head0) / 0.05
    res = climb_result(straight_run(0.05, duration=25.0), world((0.5, 0.6), (0.8, 0.9)))
    assert res.reached is True and res.time_to_reach_s == pytest.approx(t_reach, abs=0.011)
    short = climb_result(straight_run(0.05, duration=0.9 * t_reach), world((0.5, 0.6), (0.8, 0.9)))
    assert short.reached is False and short.time_to_reach_s is None and short.climbed is False
    assert climb_result(straight_run(0.05), world()).reached is None
