"""Torque mode: β_d = α − τ_d/K plus PI feedback on the measured SEA torque."""

import math

import numpy as np
import pytest

from snake_core.controllers import JointMeasurement, JointReference, make_joint_controllers
from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_core.vertical import build_model, initial_configuration, sea_torque

ROBOT = load_robot("koopaee6")
K = 1.74


def ctrl(**gains):
    return make_joint_controllers("torque", ROBOT, {"mode": "torque", **gains})


def meas(alpha, beta, alpha_dot=0.0):
    return JointMeasurement(alpha=alpha, alpha_dot=alpha_dot, beta=beta, tau=K * (alpha - beta))


def test_feed_forward_places_the_motor_for_the_desired_torque():
    """Oracle: the spring of 002's model (snake_core.vertical.sea_torque, (4.36)) with the motor at β_d."""
    model = build_model(ROBOT)
    c = ctrl(torque_integral_gain=0.0)[2]
    alpha = np.full(model.n_joints, 0.2)
    for tau_d in (0.3, -0.15):
        beta_d = c.step(0.0, 1e-3, meas(0.2, 0.2, alpha_dot=0.4), JointReference(tau_d=tau_d)).beta_d
        c.reset()
        q = initial_configuration(model, alpha=alpha, beta=np.full(model.n_joints, beta_d))
        assert sea_torque(model, q)[2] == pytest.approx(tau_d, abs=1e-12)
    assert c.step(0.0, 1e-3, meas(0.2, 0.2, alpha_dot=0.4), JointReference(tau_d=0.3)).beta_d_dot == pytest.approx(0.4)


def test_pi_step_by_hand():
    c = ctrl(torque_feedback_gain=1.0, torque_integral_gain=2.0)[0]
    # τ = 0.1, τ_d = 0.2: e = 0.1, k_I e Δt = 0.002 → τ* = 0.2 + 0.1 + 0.002
    cmd = c.step(0.0, 0.01, meas(0.0, -0.1 / K), JointReference(tau_d=0.2))
    assert cmd.beta_d == pytest.approx(-(0.302) / K, abs=1e-12)
    cmd = c.step(0.01, 0.01, meas(0.0, -0.1 / K), JointReference(tau_d=0.2))
    assert cmd.beta_d == pytest.approx(-(0.304) / K, abs=1e-12)


def test_integral_removes_a_lagging_motor_error():
    """A motor that lags β_d and carries a constant offset (friction): the loop still reaches τ_d."""
    c = ctrl()[1]
    assert c.integral_gain == pytest.approx((60.0 + K) / (4 * 25.0))  # critically damped default
    alpha, beta, dt, T = 0.1, 0.1, 0.01, 25.0 / (60.0 + K)
    for k in range(3000):
        cmd = c.step(k * dt, dt, meas(alpha, beta), JointReference(tau_d=-0.25))
        beta += dt * ((cmd.beta_d - beta) / T + 0.02)  # first-order PD tracking with a drift
    assert K * (alpha - beta) == pytest.approx(-0.25, abs=2e-3)


def test_desired_torque_clipped_to_sensor_range():
    c = ctrl(torque_integral_gain=0.0)[3]
    cmd = c.step(0.0, 1e-3, meas(0.0, 0.0), JointReference(tau_d=5.0))
    assert cmd.beta_d == pytest.approx(-math.radians(21.0))  # K δ_max = 0.64 N·m < stall torque
    assert c.limited


def test_bad_gains_refused():
    with pytest.raises(ConfigError, match=r"controller\.torque_integral_gain"):
        ctrl(torque_integral_gain=-1.0)
    with pytest.raises(ConfigError, match=r"controller\.stiffness"):
        ctrl(stiffness=1.0)
