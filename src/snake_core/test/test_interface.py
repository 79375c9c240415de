"""snake_core.interface: the one /joint_states layout (written and read back), QoS as data, and the
pose helpers against independent formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from snake_core import interface
from snake_core.interface import JointStateLayout, heading, plane_quaternion, rotation

RNG = np.random.default_rng(14)
N = 5
K = np.array([10.0, 11.0, 12.0, 13.0, 14.0])  # N·m/rad


def sea_state(shape=(N,)):
    alpha, alpha_dot, beta, beta_dot, motor = (RNG.uniform(-1.0, 1.0, shape) for _ in range(5))
    return alpha, alpha_dot, K * (alpha - beta), beta, beta_dot, motor


def test_layout_names_follow_design_order():
    assert JointStateLayout(2, sea=True).names == ["joint_1", "joint_2", "motor_1", "motor_2", "spring_1", "spring_2"]
    assert JointStateLayout(2, sea=False).names == ["joint_1", "joint_2"]


def test_round_trip_writes_and_reads_back_alpha_alpha_dot_beta_tau():
    alpha, alpha_dot, tau, beta, beta_dot, motor = sea_state()
    layout = JointStateLayout(N, sea=True)
    position, velocity, effort = layout.write(alpha, alpha_dot, tau, beta, beta_dot, motor)
    by_name = {name: (position[i], velocity[i], effort[i]) for i, name in enumerate(layout.names)}
    # what each name carries, by docs/design.md: joint α, α̇, τ; motor β, β̇, U; spring α − β, α̇ − β̇, τ
    for j in range(1, N + 1):
        i = j - 1
        assert by_name[f"joint_{j}"] == (alpha[i], alpha_dot[i], tau[i])
        assert by_name[f"motor_{j}"] == (beta[i], beta_dot[i], motor[i])
        assert by_name[f"spring_{j}"] == pytest.approx((alpha[i] - beta[i], alpha_dot[i] - beta_dot[i], tau[i]))
    reading = layout.read(layout.names, position, velocity, effort, K)
    assert reading.found.all() and reading.motor.all()
    np.testing.assert_array_equal(reading.alpha, alpha)
    np.testing.assert_array_equal(reading.alpha_dot, alpha_dot)
    np.testing.assert_array_equal(reading.beta, beta)
    np.testing.assert_array_equal(reading.tau, tau)
    assert reading.of(3) == (alpha[2], alpha_dot[2], tau[2], beta[2])


def test_urdf_only_message_is_read_through_the_spring():
    """joint_state_broadcaster publishes only motor_j (β) and spring_j (α − β): τ = K (α − β), 002 (4.36)."""
    alpha, alpha_dot, tau, beta, beta_dot, _ = sea_state()
    layout = JointStateLayout(N, sea=True)
    names = interface.motor_names(N) + interface.spring_names(N)
    reading = layout.read(names, [*beta, *(alpha - beta)], [*beta_dot, *(alpha_dot - beta_dot)], [], K)
    assert reading.found.all()
    np.testing.assert_allclose(reading.alpha, alpha, atol=1e-15)
    np.testing.assert_allclose(reading.alpha_dot, alpha_dot, atol=1e-15)
    np.testing.assert_allclose(reading.tau, tau, atol=1e-14)
    assert not layout.read(names, [*beta, *(alpha - beta)], [], [], None).found.any()  # no K: no τ


def test_rigid_joints_and_missing_fields_read_as_nan():
    layout = JointStateLayout(3, sea=False)
    reading = layout.read(["joint_3", "joint_1"], [0.3, 0.1], [3.0], [], None)
    assert list(reading.found) == [True, False, True] and not reading.motor.any()
    assert reading.alpha[0] == 0.1 and reading.alpha_dot[2] == 3.0
    assert math.isnan(reading.alpha_dot[0]) and math.isnan(reading.tau[2]) and math.isnan(reading.beta[2])
    assert reading.has(1) and not reading.has(1, motor=True) and not reading.has(2)


def test_write_is_vectorised_over_time_and_unknown_motor_values_are_nan():
    alpha, alpha_dot, tau, beta, _, _ = sea_state((7, N))
    position, velocity, effort = JointStateLayout(N, sea=True).write(alpha, alpha_dot, tau, beta)
    assert position.shape == velocity.shape == effort.shape == (7, 3 * N)
    assert np.isnan(velocity[:, N:]).all() and np.isnan(effort[:, N:2 * N]).all()
    np.testing.assert_array_equal(effort[:, 2 * N:], tau)
    # a Fortran-ordered array in: C-ordered copies out
    rigid = JointStateLayout(N, sea=False).write(alpha.T.copy().T, alpha_dot, tau)
    assert all(x.flags.c_contiguous for x in rigid) and not np.shares_memory(rigid[1], alpha_dot)
    with pytest.raises(ValueError, match="β"):
        JointStateLayout(N, sea=True).write(alpha, alpha_dot, tau)


def test_qos_profiles_as_data():
    assert not interface.SENSOR_QOS.reliable and interface.SENSOR_QOS.depth == 5  # ROS's sensor-data profile
    assert interface.COMMAND_QOS == interface.Qos(10)
    assert interface.LATCHED_QOS.transient_local and interface.LATCHED_QOS.depth == 1


@pytest.mark.parametrize("theta", [0.0, 0.7, -2.5, 4.0])
def test_plane_quaternion_turns_x_as_the_run_plane_says(theta):
    """"xy": θ about +z turns e_x to (cos θ, sin θ, 0); "xz": θ about −y turns it to (cos θ, 0, sin θ)."""
    ex = np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(rotation(plane_quaternion("xy", theta)).apply(ex),
                               [math.cos(theta), math.sin(theta), 0.0], atol=1e-15)
    np.testing.assert_allclose(rotation(plane_quaternion("xz", theta)).apply(ex),
                               [math.cos(theta), 0.0, math.sin(theta)], atol=1e-15)
    # the half-angle form, (x, y, z, w) = (n sin θ/2, cos θ/2), written out
    s, c = math.sin(theta / 2), math.cos(theta / 2)
    np.testing.assert_allclose(plane_quaternion("xz", theta), [0.0, -s, 0.0, c], atol=1e-15)
    np.testing.assert_allclose(plane_quaternion("xy", np.array([theta, theta])), [[0.0, 0.0, s, c]] * 2, atol=1e-15)


def test_heading_of_a_yawed_and_rolled_frame():
    yaw, roll = 2.2, 0.9
    # R = R_z(yaw) R_x(roll) as a quaternion product written out: (0,0,sin,cos) ⊗ (sin,0,0,cos)
    sz, cz, sx, cx = math.sin(yaw / 2), math.cos(yaw / 2), math.sin(roll / 2), math.cos(roll / 2)
    q = (cz * sx, sz * sx, sz * cx, cz * cx)
    assert heading(rotation(q)) == pytest.approx(yaw)
    assert rotation((0.0, 0.0, 0.0, 0.0)) is None and rotation((math.nan, 0.0, 0.0, 1.0)) is None
