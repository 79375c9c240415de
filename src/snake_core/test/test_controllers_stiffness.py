"""Local stiffness control, 002 §6.3 Fig. 6.2: hand-computed steps, closed-loop stiffness, bounds."""

import math

import pytest

from snake_core.controllers import JointMeasurement, JointReference, make_joint_controllers
from snake_core.robot import load_robot, robot_from_dict
from snake_core.validation import ConfigError

ROBOT = load_robot("koopaee6")
K = 1.74


def meas(alpha, beta, alpha_dot=0.0):
    return JointMeasurement(alpha=alpha, alpha_dot=alpha_dot, beta=beta, tau=K * (alpha - beta))


def controllers(k_d):
    return make_joint_controllers("stiffness", ROBOT, {"mode": "stiffness", "stiffness": k_d})


def test_fig_6_2_hand_computed_step():
    # K_d = K/6: (K − K_d)/K_d = 5; deflection α − β = 0.05 rad → α_s = 5·0.05 = 0.25 rad, added to α_d
    # (τ_J = K(β − α) < 0 is subtracted in Fig. 6.2).
    c = controllers(K / 6)[2]
    cmd = c.step(0.0, 1e-3, meas(0.25, 0.20), JointReference(alpha_d=0.3, alpha_d_dot=0.7))
    assert cmd.beta_d == pytest.approx(0.3 + 5 * 0.05, abs=1e-12)
    assert cmd.beta_d_dot == pytest.approx(0.7)


def test_joint_yields_to_the_load():
    c = controllers(K / 3)[0]
    pushed_up = c.step(0.0, 1e-3, meas(0.10, 0.0), JointReference(alpha_d=0.0)).beta_d
    pushed_down = c.step(0.0, 1e-3, meas(-0.10, 0.0), JointReference(alpha_d=0.0)).beta_d
    assert pushed_up > 0.1 and pushed_down < -0.1


@pytest.mark.parametrize("ratio", [1 / 2, 1 / 6, 1 / 10])
def test_closed_loop_joint_stiffness_is_k_d(ratio):
    """With the motor at its reference (β = β_d) and a static load τ_ext, α − α_d = τ_ext/K_d."""
    k_d = ratio * K
    c = controllers(k_d)[1]
    alpha_d, tau_ext = 0.2, 0.15
    beta = alpha_d
    for _ in range(200):  # fixed point of the quasi-static loop: spring carries τ_ext, motor at β_d
        alpha = beta + tau_ext / K
        beta = c.step(0.0, 1e-3, meas(alpha, beta), JointReference(alpha_d=alpha_d)).beta_d
    alpha = beta + tau_ext / K
    assert (alpha - alpha_d) == pytest.approx(tau_ext / k_d, rel=1e-9)


def test_k_d_equal_to_k_is_position_control_and_refused():
    with pytest.raises(ConfigError, match=r"passivity bound of 002 §6.3"):
        controllers(K)


@pytest.mark.parametrize(("k_d", "message"), [
    (2.0, r"controller.stiffness = 2.0 is invalid: must satisfy 0 < K_d < K = 1.74"),
    (10.0, r"controller.stiffness = 10.0 is invalid: must satisfy 0 < K_d < K = 1.74"),
    (0.0, r"controller.stiffness = 0.0 is invalid: must be > 0 \(002 Fig. 6.2, §6.3\)"),  # the spec's range
    (-0.5, r"controller.stiffness = -0.5 is invalid: must be > 0 \(002 Fig. 6.2, §6.3\)"),
])
def test_k_d_outside_passivity_bound_refused(k_d, message):
    with pytest.raises(ConfigError, match=message):
        controllers(k_d)


def test_per_joint_k_d_and_wrong_length():
    cs = make_joint_controllers("stiffness", ROBOT, {"mode": "stiffness", "stiffness": [0.2, 0.3, 0.4, 0.5, 0.6]})
    assert [c.desired_stiffness for c in cs] == [0.2, 0.3, 0.4, 0.5, 0.6]
    with pytest.raises(ConfigError, match="list of 5 numbers"):
        make_joint_controllers("stiffness", ROBOT, {"mode": "stiffness", "stiffness": [0.2, 0.3]})
    with pytest.raises(ConfigError, match=r"controller.stifness .* unknown field"):
        make_joint_controllers("stiffness", ROBOT, {"mode": "stiffness", "stifness": 0.3})
    with pytest.raises(ConfigError, match=r"controller.stiffness = missing"):
        make_joint_controllers("stiffness", ROBOT, {"mode": "stiffness"})


def test_reference_and_deflection_limits_enforced():
    c = controllers(K / 10)[4]
    cmd = c.step(0.0, 1e-3, meas(1.0, 1.0), JointReference(alpha_d=1.5, alpha_d_dot=1.0))
    assert cmd.beta_d == pytest.approx(math.pi / 3) and cmd.beta_d_dot == 0.0 and c.limited
    # A large deflection: α_s = 9·δ would ask for a far larger deflection than the sensor's ≈21°.
    cmd = c.step(0.0, 1e-3, meas(0.3, 0.0), JointReference(alpha_d=0.0))
    assert cmd.beta_d == pytest.approx(0.3 + math.radians(21.0))
    assert c.limited


def test_robot_without_sea_refused():
    data = {"name": "rigid", "links": {"count": 3, "length": 0.1, "mass": 0.1, "inertia": 1e-4, "width": 0.05},
            "joints": {"limit_deg": 60, "velocity_limit": 5, "effort_limit": 1}}
    with pytest.raises(ConfigError, match=r"robot\.sea"):
        make_joint_controllers("stiffness", robot_from_dict(data), {"mode": "stiffness", "stiffness": 0.3})
