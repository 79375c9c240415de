"""Rectilinear gait of 003 as a state machine: 003's mapping matrices, step length and speed (Eq. 4.1)."""

import numpy as np
import pytest

from snake_core.gaits import make_gait
from snake_core.rectilinear import bspline
from snake_core.rectilinear.cycle import (
    advance_per_cycle,
    anchor_link,
    average_speed,
    body_points,
    boundary_states,
    kinematic_advance,
    plan,
)
from snake_core.validation import ConfigError

ALPHA = np.pi / 4


def test_six_links_reproduce_003_mapping_matrices_and_mechanisms():
    steps = plan(6)
    # 003 (3.51)–(3.56): global (003, head → tail) joints of the local joints; ours = N − 1 − j (0-based)
    s003 = [(3, 4, 5), (2, 3, 4, 5), (1, 2, 3, 4, 5), (4, 3, 2, 1), (3, 2, 1)]
    assert [s.joints for s in steps] == [tuple(5 - j for j in row) for row in s003]
    assert [s.kind for s in steps] == ["M1", "M2", "M3", "M2", "M1"]
    assert [s.reversed for s in steps] == [False, False, False, True, True]
    assert steps[2].slider_links == 1


def test_six_link_boundary_states_are_003s_hump_positions():
    states = boundary_states(plan(6), 5, ALPHA) / ALPHA
    # seed003 §3.3 table in 003's order (θ1..θ5 head → tail); ours is reversed and of opposite sign (002 §4.3.1)
    table = [(0, 0, 0, 0, 0), (0, 0, 1, -1, -1), (0, 1, -1, -1, 1), (1, -1, -1, 1, 0), (-1, -1, 1, 0, 0),
             (0, 0, 0, 0, 0)]
    np.testing.assert_allclose(states, -np.array(table)[:, ::-1], atol=0)


@pytest.mark.parametrize("n_links", [5, 6, 7, 9])
def test_step_length_per_cycle_is_2l_1_minus_cos_alpha(n_links):
    # 003 §3.7 validation robot: l = 8.9 cm, α = 40° → 4.14 cm per cycle (the formula gives 4.16; 1 % tolerance)
    dx = kinematic_advance(n_links, 0.089, np.radians(40.0))
    assert dx == pytest.approx(0.0414, rel=0.01)
    assert dx == pytest.approx(2 * 0.089 * (1 - np.cos(np.radians(40.0))), rel=1e-12)
    assert kinematic_advance(n_links, 0.14, ALPHA) == pytest.approx(0.0820, abs=1e-4)


def test_speed_is_step_length_over_five_step_times():
    gait = make_gait("rectilinear", 5, {"angle": np.radians(40.0), "step_time": 0.6})
    assert gait.period == pytest.approx(3.0)  # 003 §3.7: a 3 s cycle
    v = kinematic_advance(6, 0.089, np.radians(40.0)) / gait.period
    assert v == pytest.approx(average_speed(0.089, np.radians(40.0), 0.6), rel=1e-12)
    assert v == pytest.approx(0.0138, rel=0.01)  # 1.38 cm/s predicted by 003


@pytest.mark.parametrize("n_joints", [5, 7])
def test_gait_keeps_anchor_on_ground_and_tip_on_ground_through_every_step(n_joints):
    gait = make_gait("rectilinear", n_joints, {"angle": ALPHA, "step_time": 1.0})
    u = np.linspace(0, 1, 31)
    x = 0.0
    for k, spec in enumerate(gait.steps):
        ref, _, _ = gait.step_references(k, u)
        a = anchor_link(spec, n_joints + 1)
        pts = body_points(ref, 0.14, a)
        assert np.min(pts[..., 1]) > -1e-4  # nothing below the ground (003 §3.5.3 (5), with the optimum's tolerance)
        free_end = 0 if not spec.reversed else -1  # the sliding contact at the end away from the anchor
        np.testing.assert_allclose(pts[:, free_end, 1], 0.0, atol=1e-12)
        x += pts[-1, 0, 0] - pts[0, 0, 0]
    assert x == pytest.approx(advance_per_cycle(0.14, ALPHA), rel=1e-9)


def test_gait_reference_starts_flat_passes_boundary_states_and_is_periodic():
    gait = make_gait("rectilinear", 5, {"angle": ALPHA, "step_time": 0.5})
    for k in range(6):
        a, ad = gait.reference(0.5 * k)
        np.testing.assert_allclose(a, gait.states[k % 5], atol=1e-12)
        np.testing.assert_allclose(ad, 0.0, atol=1e-12)  # clamped splines: zero velocity at step ends (3.8)
    a1, ad1 = gait.reference(0.8)
    a2, _ = gait.reference(0.8 + gait.period)
    np.testing.assert_allclose(a1, a2)
    # the reported rate is the time derivative of the reference
    h = 1e-6
    num = (gait.reference(0.8 + h)[0] - gait.reference(0.8 - h)[0]) / (2 * h)
    np.testing.assert_allclose(ad1, num, atol=1e-5)


def test_bspline_is_clamped_with_zero_end_velocity():
    pts = bspline.control_points(np.array([0.0]), np.array([[0.1963, 0.3927, 0.5890]]), np.array([ALPHA]))
    th, thd, _ = bspline.evaluate(pts, np.array([0.0, 1.0]), 1.0)
    np.testing.assert_allclose(th[:, 0], [0.0, 0.7854], atol=1e-4)  # seed003 §11 claim 9
    np.testing.assert_allclose(thd[:, 0], 0.0, atol=1e-12)


@pytest.mark.parametrize("n_links", [2, 3, 4])
def test_too_few_links_are_refused(n_links):
    with pytest.raises(ConfigError, match=r"links\.count"):
        plan(n_links)
    with pytest.raises(ConfigError, match=r"links\.count"):
        make_gait("rectilinear", n_links - 1, {"angle": 0.5, "step_time": 1.0})


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"angle": 1.2, "step_time": 1.0}, "gait.angle"),  # beyond the ±60° reference limit
        ({"angle": -0.2, "step_time": 1.0}, "gait.angle"),
        ({"angle": 0.5, "step_time": 0.0}, "gait.step_time"),
        ({"angle": 0.5, "step_time": 1.0, "amplitude": 1}, "gait.amplitude"),
        ({"angle": 0.5, "step_time": 1.0, "control_points": {"M1": [[0.1, 0.2]]}}, "gait.control_points.M1"),
        ({"angle": 0.5, "step_time": 1.0, "control_points": {"M4": []}}, "gait.control_points.M4"),
    ],
)
def test_bad_gait_parameters_name_the_field(params, field):
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        make_gait("rectilinear", 5, params)


def test_control_points_that_lift_the_tip_off_the_closable_range_are_refused():
    # θ1 = θ2 = 60° mid-step: sin θ1 + sin φ2 > 1, the closing link cannot reach the ground (3.24)
    pts = {"M1": [[1.0, 1.0, 1.0], [0.5, 0.5, 0.5]]}
    with pytest.raises(ConfigError, match="cannot keep its tip on the ground"):
        make_gait("rectilinear", 5, {"angle": ALPHA, "step_time": 1.0, "control_points": pts})


def test_gait_angles_follow_002s_sign_convention_of_the_vertical_model():
    """The hump the gait commands is the hump 002's kinematics (θ_i = Σ_{k≥i} α_k + θ_N) draws."""
    from snake_core.robot import load_robot
    from snake_core.vertical.kinematics import contact_points, initial_configuration
    from snake_core.vertical.model import build_model

    model = build_model(load_robot("koopaee6"))
    gait = make_gait("rectilinear", 5, {"angle": ALPHA, "step_time": 1.0})
    for k in range(1, 5):
        state = gait.states[k]
        q = initial_configuration(model, alpha=state)  # θ_N = 0: head link flat
        x, z = contact_points(model, q)
        ends_x, ends_z = x[model.n_links:], z[model.n_links:]  # tail tip, joints, head tip
        pts = body_points(state, model.robot.link_length, anchor=5)
        np.testing.assert_allclose(ends_z - ends_z[-1], pts[:, 1], atol=1e-12)
        np.testing.assert_allclose(ends_x - ends_x[-1], pts[:, 0] - pts[-1, 0], atol=1e-12)
    # after step 1 the tail end is down on the ground and the hump's top is l sin α above it
    pts = body_points(gait.states[1], 0.14, anchor=5)
    assert pts[0, 1] == pytest.approx(0.0, abs=1e-12) and np.max(pts[:, 1]) == pytest.approx(0.14 * np.sin(ALPHA))
