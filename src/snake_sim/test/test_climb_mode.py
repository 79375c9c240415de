"""How a run climbs (snake_sim.analysis.climb_mode) on constructed logs: a chain crawling forward with a wave in it is
a crawl, a chain turning end over end about its tail tip is a tumble; the progress speed ranks non-climbers below
climbers."""

from pathlib import Path

import numpy as np
import pytest

from snake_core.robot import load_robot
from snake_sim.analysis.climb import ClimbResult
from snake_sim.analysis.climb_mode import chord_angle, climb_mode, progress_speed
from snake_sim.core.runlog import RunLog
from snake_sim.core.world import Box, World

ROBOT = load_robot("koopaee6")
L = ROBOT.link_length
N = ROBOT.n_links


def chain(t, tail, angles):
    """A RunLog of a chain of N links whose tail tip is at ``tail`` (T, 2: x, z) with link angles ``angles`` (T, N)."""
    heading = np.stack([np.cos(angles), np.sin(angles)], axis=-1)  # (T, N, 2)
    joints = tail[:, None, :] + L * np.concatenate([np.zeros_like(heading[:, :1]), np.cumsum(heading, axis=1)[:, :-1]],
                                                   axis=1)
    centre = joints + 0.5 * L * heading
    pos = np.zeros((len(t), N, 3))
    pos[:, :, 0], pos[:, :, 2] = centre[..., 0], centre[..., 1]
    zeros = np.zeros((len(t), N - 1))
    return RunLog(ROBOT, "xz", t, pos, angles, zeros, zeros, zeros)


def crawl(duration=10.0, speed=0.02, wave=0.6):
    """Tail tip moving along +x at ``speed``, a travelling wave of amplitude ``wave`` in the link angles."""
    t = np.linspace(0.0, duration, 501)
    tail = np.stack([speed * t, np.zeros_like(t)], axis=1)
    angles = wave * np.sin(np.pi * t[:, None] - 0.8 * np.arange(N)[None, :])
    return chain(t, tail, angles)


def somersault(duration=10.0):
    """A straight chain turning a full turn backwards over its tail tip (θ from 0 to 2π)."""
    t = np.linspace(0.0, duration, 501)
    angles = np.repeat((2 * np.pi * t / duration)[:, None], N, axis=1)
    return chain(t, np.zeros((len(t), 2)), angles)


def box_world(x0, x1):
    box = Box("b", (0.5 * (x0 + x1), 0.0, 0.018), (x1 - x0, 0.3, 0.036))
    return World("test", Path("test.sdf"), 0.0, (box,), (box,))


def test_a_chain_crawling_forward_is_a_crawl_with_its_head_ahead_of_its_tail():
    mode = climb_mode(crawl(), box_world(0.5, 0.6))
    assert mode.mode == "crawl"
    assert 0.0 < mode.max_chord_angle_deg < 90.0
    assert mode.min_head_lead_m > 0.0
    assert mode.tail_progress_m == pytest.approx(0.2, rel=1e-9)


def test_a_chain_turning_end_over_end_is_a_tumble_with_a_full_turn():
    mode = climb_mode(somersault(), box_world(0.5, 0.6))
    assert mode.mode == "tumble"
    assert mode.max_chord_angle_deg == pytest.approx(360.0, abs=1e-6)  # unwrapped: not folded back into ±180°
    assert mode.max_body_rotation_deg == pytest.approx(360.0, abs=1e-6)
    assert mode.min_head_lead_m == pytest.approx(-ROBOT.total_length, rel=1e-6)  # head straight behind the tail


def test_the_chord_angle_is_measured_from_the_tail_tip_to_the_head_tip():
    t = np.array([0.0, 1.0])
    tilted = chain(t, np.zeros((2, 2)), np.full((2, N), 0.3))
    assert chord_angle(tilted) == pytest.approx([0.3, 0.3], abs=1e-12)
    # a chord at 80°: still a crawl (the head ahead of the tail), at 100°: a tumble
    for angle, expected in ((np.radians(80.0), "crawl"), (np.radians(100.0), "tumble")):
        lift = np.repeat(np.linspace(0.0, angle, 50)[:, None], N, axis=1)
        assert climb_mode(chain(np.linspace(0, 1, 50), np.zeros((50, 2)), lift), None).mode == expected


def test_progress_speed_is_the_climb_speed_for_a_climber_and_the_tail_advance_rate_otherwise():
    climbed = ClimbResult(True, 20.0, 0.7, 0.7, 0.035)
    assert progress_speed(climbed, 0.9, 90.0) == 0.035
    # a non-climber: its tail advance over the run, below any climb within the run (0.7 m / 90 s)
    assert progress_speed(ClimbResult(False, None, 0.7, 0.7, None), 0.6, 90.0) == pytest.approx(0.6 / 90.0)
    assert progress_speed(ClimbResult(False, None, 0.7, 0.7, None), -0.1, 90.0) < 0.0
    assert progress_speed(ClimbResult(None, None, None, None, None), 0.6, 90.0) is None
    mode = climb_mode(crawl(duration=10.0, speed=0.02), box_world(0.5, 0.6))
    assert mode.climb_progress_speed_mps == pytest.approx(0.02, rel=1e-9)  # 0.2 m in 10 s, the box not passed


def test_the_mode_is_defined_in_the_vertical_plane_only():
    log = crawl()
    horizontal = RunLog(ROBOT, "xy", log.t, log.link_position, log.link_angle, log.alpha, log.alpha_dot, log.tau)
    with pytest.raises(ValueError, match="x–z plane"):
        climb_mode(horizontal, None)
