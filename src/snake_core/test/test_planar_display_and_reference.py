"""snake_core.planar.ellipse (the head acceleration ellipse of the manipulability markers) and
snake_core.planar.path_reference (the head reference of /head/reference)."""

import numpy as np
import pytest

from snake_core.planar.convention import q_from_world
from snake_core.planar.ellipse import head_acceleration_ellipse
from snake_core.planar.manipulability import ManipulabilityMonitor
from snake_core.planar.model import build_model
from snake_core.planar.path_reference import sampled_reference
from snake_core.robot import load_robot
from snake_core.validation import ConfigError

ROBOT = load_robot("ariizumi10")


def test_ellipse_is_the_projection_of_the_ellipsoid_onto_the_head_plane():
    """Sampled independently: the extent of {A s : ‖s‖ ≤ 1} along u is ‖Aᵀu‖, maximal along the major axis."""
    alpha = 0.6 * np.sin(np.linspace(0.0, 5.0, ROBOT.n_joints))
    result = ManipulabilityMonitor(build_model(ROBOT)).evaluate(q_from_world(np.zeros(2), 0.0, alpha))
    (major, minor), angle = head_acceleration_ellipse(result)
    A = result.axes[:2, :]
    angles = np.linspace(0.0, np.pi, 20001)
    extent = np.linalg.norm(np.stack([np.cos(angles), np.sin(angles)], axis=-1) @ A, axis=-1)
    assert major == pytest.approx(extent.max(), rel=1e-6)
    assert minor == pytest.approx(extent.min(), rel=1e-6)
    best = angles[np.argmax(extent)]
    assert abs(np.sin(best - angle)) < 1e-3  # same line (an axis has no sign)
    assert major >= minor > 0.0


def test_straight_body_can_only_accelerate_its_head_sideways():
    result = ManipulabilityMonitor(build_model(ROBOT)).evaluate(q_from_world(np.zeros(2), 0.0,
                                                                              np.zeros(ROBOT.n_joints)))
    (major, minor), angle = head_acceleration_ellipse(result)
    assert minor == pytest.approx(0.0, abs=1e-9 * major)
    assert abs(np.cos(angle)) == pytest.approx(0.0, abs=1e-9)


def test_path_reference_interpolates_holds_and_maps_to_004s_frame():
    ref = sampled_reference([1.0, 3.0, 4.0], [[0.0, 0.0, 0.0], [0.2, 0.1, 0.0], [0.2, 0.1, 0.5]])
    mid = ref(2.0)
    assert mid.w == pytest.approx([-0.1, -0.05, 0.0])  # (X, Y) = (−x, −y): convention.head_pose_to_world
    assert mid.w_dot == pytest.approx([-0.1, -0.05, 0.0])
    assert ref(3.5).w_dot == pytest.approx([0.0, 0.0, 0.5])
    assert ref(0.0).w == pytest.approx([0.0, 0.0, 0.0]) and not ref(0.0).w_dot.any()  # held before the start
    assert ref(9.0).w == pytest.approx([-0.2, -0.1, 0.5]) and not ref(9.0).w_dot.any()  # held after the end
    assert not any(ref(t).w_ddot.any() for t in (0.5, 2.0, 3.5))


def test_path_reference_unwraps_headings_across_pi():
    ref = sampled_reference([0.0, 1.0], [[0.0, 0.0, 3.0], [0.0, 0.0, -3.0]])  # a 0.28 rad turn, not 6 rad
    assert ref(0.5).w_dot[2] == pytest.approx(2 * np.pi - 6.0)


@pytest.mark.parametrize(("t", "poses", "field"), [
    ([0.0, 0.0], [[0, 0, 0], [1, 0, 0]], "stamps"),
    ([0.0], [[np.nan, 0, 0]], "head reference"),
    ([], np.zeros((0, 3)), "head reference"),
])
def test_bad_path_is_refused_with_one_message(t, poses, field):
    with pytest.raises(ConfigError, match=field):
        sampled_reference(t, poses)
